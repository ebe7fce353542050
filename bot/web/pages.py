"""Rendering a view (:mod:`bot.web.data`) as an HTML page, its map as SVG and its JSON.

Every text a player or moderator chose (claim, tile and army names, post titles, notes) is
escaped: Jinja2's autoescape in HTML, :func:`bot.mapimage.draw.render_svg` in the SVG, and the
page's data block is JSON with ``<``, ``>``, ``&`` and ``'`` written as escapes, read by the
page's own script (the Content-Security-Policy allows no inline script).
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape

from bot.mapimage.draw import render_svg
from bot.web.data import View
from bot.web.notes import note_html

STATIC_DIR = Path(__file__).with_name("static")
TEMPLATES = {"realm": "realm.html", "claim": "claim.html", "moderators": "mod.html"}


@cache
def environment() -> Environment:
    env = Environment(loader=PackageLoader("bot.web", "templates"),
                      autoescape=select_autoescape(default=True, default_for_string=True),
                      trim_blocks=True, lstrip_blocks=True)
    env.filters["note"] = note_html  # the bot's markdown replies and notes, escaped first
    return env


def map_svg(view: View) -> str:
    """The view's map as an SVG document."""
    return render_svg(view.scene)


def html(view: View, *, static: str = "/static", extra: dict[str, Any] | None = None) -> str:
    """The view's page. ``static`` is where the script and style sheet are served from."""
    svg = map_svg(view)
    svg = svg[svg.index("<svg"):]  # inline: no XML declaration
    template = environment().get_template(TEMPLATES[view.data["view"]])
    return template.render(data=view.data, svg=svg, static=static, **(extra or {}))


def json_text(view: View) -> str:
    """The view's data as JSON (stable: keys sorted)."""
    return json.dumps(view.data, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def not_found_page() -> str:
    return environment().get_template("notfound.html").render()
