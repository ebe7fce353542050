"""Each kind of thing is registered once per side, and every kind has its entries: an order kind
in the rules' table (form, parser, decision, what it reads) and every receipt the rules give in
the bot's table (journal, text)."""

from __future__ import annotations

import sys
import typing

from rules.campaign import decide
from rules.campaign import language as o


def _subclasses(cls: type) -> set[type]:
    """The subclasses of ``cls`` that their modules define (``dataclass(slots=True)`` leaves
    the class it replaced among the subclasses)."""
    found = set()
    for sub in cls.__subclasses__():
        found |= _subclasses(sub)
        if getattr(sys.modules[sub.__module__], sub.__name__, None) is sub:
            found.add(sub)
    return found


def test_every_order_kind_of_the_language_has_one_row() -> None:
    assert list(decide.ORDER_KINDS) == list(o.ORDER_TYPES)
    assert [kind.verb for kind in decide.ORDER_KINDS.values()] == list(o.VERBS)


def test_every_order_value_has_one_row_of_the_language_with_its_form_and_parser() -> None:
    """The order language has one table (value, form, parser); every value of the ``Order``
    union has its row there, and the rules' table builds on that same row."""
    assert set(typing.get_args(o.Order)) == set(o.ORDER_LANGUAGE)
    assert list(o.ORDER_LANGUAGE) == list(o.ORDER_TYPES)
    for order, words in o.ORDER_LANGUAGE.items():
        assert words.order is order and words.form.verb == order.verb
        assert words.form.pattern and words.form.example and words.form.summary
        assert callable(words.parse)
        assert decide.ORDER_KINDS[order].words is words


def test_every_order_kind_reads_its_own_example() -> None:
    """The row's form and parser belong to its order: the form's example, read by the row's
    parser, is an order of the row's kind."""
    for order, kind in decide.ORDER_KINDS.items():
        assert kind.form.verb == order.verb
        rest = kind.form.example.split(" ", 1)[1] if " " in kind.form.example else ""
        assert type(kind.parse(rest, kind.form.example)) is order
        assert type(o.parse_order(kind.form.example)) is order


def test_only_odds_away_link_webhook_and_help_are_answered_outside_the_rules() -> None:
    """``away`` (issue #28) is a leave kept in the claim's row by the bot
    (bot.services.absence), ``link`` the war room's address (bot.services.weblinks),
    ``webhook`` the claim's private webhook (bot.services.webhooks, issue #30): none
    changes the rules' world."""
    undecided = {k for k, kind in decide.ORDER_KINDS.items() if kind.decide is None}
    assert undecided == {o.Odds, o.Away, o.Link, o.Webhook, o.Help}


def test_every_receipt_of_the_rules_has_a_journal_and_a_text() -> None:
    from bot.services.order_apply import RECEIPTS

    receipts = _subclasses(decide.Receipt)
    assert receipts, "the rules give receipts"
    assert set(RECEIPTS) == receipts
    for entry in RECEIPTS.values():
        assert callable(entry.journal) and callable(entry.render)
