"""The campaign on the web: the realm's live map, a war room per claim, the moderators' room.

:mod:`bot.web.data` reads what each page shows, :mod:`bot.web.pages` renders it (Jinja2
templates, the map as SVG from :mod:`bot.mapimage`), :mod:`bot.web.app` serves it
(Starlette under uvicorn, on a read-only database connection) and :mod:`bot.web.export`
writes the public realm as static files. See docs/web.md.
"""
