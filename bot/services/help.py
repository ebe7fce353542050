"""The answer to ``help`` and ``help ORDER``: every order, with examples built from this
campaign's own map and the asking player's own armies, holdfast and characters (never the demo
map's names on a custom map), and a link to the players' guide when ``[posts] guide_url`` is
set. The order forms (:data:`rules.campaign.language.ORDER_FORMS`) and the examples
(:mod:`rules.campaign.examples`) are the rules'; this module reads what the examples name and
hands them to :mod:`bot.render.help`."""

from __future__ import annotations

from bot.render.help import order_help, orders_help
from bot.services.catalogue import catalogue_of, living_characters
from bot.services.order_call import Call, Rejected
from bot.services.world import all_claims, armies, relation
from bot.text import escape_md
from rules.campaign import language as o
from rules.campaign.examples import EXAMPLES, Names, example_names, short_examples
from rules.campaign.world import RelationStatus

__all__ = ["EXAMPLES", "example_for", "help_reply", "names_for", "syntax_example"]


def names_for(c: Call) -> Names:
    """What the examples name for the player of ``c`` (or any claim's, for a stranger): read
    here, chosen by :func:`rules.campaign.examples.example_names`."""
    own = c.claim
    mine = own is not None and own.holdfast in c.ctx.world
    return example_names(
        c.ctx.world, c.ctx.rules, own=own, claims=all_claims(c.session, c.ctx),
        at_war=lambda a, b: relation(c.session, c.ctx, a, b) is RelationStatus.WAR,
        forces=armies(c.session, c.ctx, claim_id=own.id) if own is not None and mine else (),
        characters=[ch.name for ch in living_characters(c.session, c.ctx, own.id or 0)]
        if own is not None and mine else (),
        catalogue=catalogue_of(c.session, c.ctx))


def example_for(c: Call, verb: str) -> str:
    """The example of order ``verb`` made for the player of ``c`` (their own armies and this
    campaign's map), as ``help`` shows it; a reply to a line that could not be read uses it."""
    return EXAMPLES[verb](names_for(c))


def syntax_example(c: Call, err: o.OrderSyntaxError) -> str:
    """The example under a line that could not be read, made for the player of ``c``: the
    player's own line with the order word it probably meant, when that reads as an order
    (``sige Harrenhal with army 5``: ``siege Harrenhal with army 5``); else the example of
    the order it names (or probably meant), else a few orders."""
    if err.suggestion is not None and err.excerpt:
        fixed = _with_order_word(err.excerpt, err.suggestion)
        if fixed is not None:
            return fixed
    verb = err.verb or err.suggestion
    return example_for(c, verb) if verb is not None else short_examples(names_for(c))


def _with_order_word(line: str, verb: str) -> str | None:
    """``line`` with its first word replaced by ``verb``, if that reads as one order (None if
    not, or if the line was only the mistyped word)."""
    _, _, rest = line.strip().partition(" ")
    if not rest.strip():
        return None
    fixed = f"{verb} {rest.strip()}"
    try:
        o.parse_order(fixed)
    except o.OrderSyntaxError:
        return None
    return fixed


def help_reply(c: Call, topic: str | None) -> str:
    """``help``: every order with its example; ``help ORDER``: that order explained (the text
    is :mod:`bot.render.help`'s)."""
    names = names_for(c)
    url = c.ctx.settings.posts.guide_url
    if topic is None:
        return orders_help(names, url)
    verb = o.canonical_verb(topic)
    if verb is None:
        raise Rejected(f"there is no order called {escape_md(topic, 60)}",
                       f"one of: {', '.join(o.VERBS)}", "help move")
    return order_help(verb, names, url)
