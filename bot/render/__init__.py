"""Everything the campaign tells players and the public, as text: receipts of orders
(:mod:`bot.render.receipts`), public posts (:mod:`bot.render.posts`), private notes to claims
and moderators (:mod:`bot.render.notes`), and the pieces they share (:mod:`bot.render.common`).

Render functions take the rules' values (receipts of :mod:`rules.campaign.decide`, events of
:mod:`rules.campaign.tick`, state values) and plain data (names, dates as text); they import
no database, session or ORM model (``tests/bot/render/test_render_imports.py`` checks), so the
services load and save and this package words what happened.
"""
