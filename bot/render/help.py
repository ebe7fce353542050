"""The answer to ``help`` and ``help ORDER``: every order with an example built from the
campaign's own map and the asker's own armies, holdfast and characters (the examples and what
they name are the rules': :mod:`rules.campaign.examples`; the services read the names:
:func:`bot.services.help.names_for`), and a link to the players' guide when one is set.
"""

from __future__ import annotations

from rules.campaign import language as o
from rules.campaign.examples import EXAMPLES, Names

__all__ = ["EXAMPLES", "Names", "order_help", "orders_help"]


def _guide(url: str) -> str:
    url = url.strip()
    return f"\n\nThe players' guide: {url}" if url else ""


def orders_help(n: Names, guide_url: str) -> str:
    """``help``: every order with its example."""
    lines = [f"- **{verb}**: {form.summary}. `{EXAMPLES[verb](n)}`"
             for verb, form in o.ORDER_FORMS.items()]
    return ("**Orders** (one per line; send `help ORDER` for one of them, e.g. "
            "`help move`):\n\n" + "\n".join(lines) + _guide(guide_url))


def order_help(verb: str, n: Names, guide_url: str) -> str:
    """``help ORDER``: the order ``verb`` (canonical) explained, with its example."""
    form = o.ORDER_FORMS[verb]
    also = f"\n\nAlso written: {', '.join(form.aliases)}." if form.aliases else ""
    fleet = (f"\n\nA fleet sails with the same order:\n\n    {n.sail}"
             if verb == "move" and n.sail else "")
    return (f"**{verb}**: {form.summary}.\n\nWrite it as: `{form.pattern}`\n\nFor example:"
            f"\n\n    {EXAMPLES[verb](n)}{fleet}{also}" + _guide(guide_url))
