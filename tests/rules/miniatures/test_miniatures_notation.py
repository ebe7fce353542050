"""The miniatures command notation lives in rules/: text in, frozen requests out, no bot."""

from __future__ import annotations

from decimal import Decimal

import pytest

from rules.errors import NotationError
from rules.miniatures.morale import PanicWounds
from rules.miniatures.notation import (
    ATTACK_EXAMPLE,
    CHARGE_SYNTAX,
    format_attack,
    parse_attack,
    parse_charge,
    parse_morale,
    parse_panic,
)
from rules.miniatures.rolls import RerollFaces


def test_attack_text_reads_into_a_spec_and_back() -> None:
    request = parse_attack("8 dice 4+ vs 5+ morale 6 reroll misses roll")
    spec = request.spec
    assert (spec.dice, spec.to_hit, spec.defense, spec.morale) == (8, 4, 5, 6)
    assert spec.attack_rerolls.attacker.faces is RerollFaces.FAILURES
    assert request.roll
    assert parse_attack(format_attack(request)) == request


def test_charge_panic_and_morale_text() -> None:
    charge = parse_charge('7.5" speed 5 bog morale 6 roll')
    assert charge.setup.distance == Decimal("7.5") and charge.setup.speed == 5
    assert charge.setup.morale == 6 and charge.roll
    panic = parse_panic("6+ -1 1+d3 0 wounds")
    assert (panic.morale, panic.modifier, panic.rule, panic.wounds_suffered) == (
        6, -1, PanicWounds.ONE_PLUS_D3, 0)
    assert parse_morale("7+ horrific roll").modifier == -1


def test_unreadable_text_keeps_the_players_words_apart() -> None:
    """The message's player text is in ``quoted``, so the bot can escape only that."""
    with pytest.raises(NotationError) as info:
        parse_attack("8 dice 4+ vs 5+ **bold**")
    err = info.value
    assert err.template == "I don't know the word \u201c{}\u201d." and err.quoted == ("bold",)
    assert err.example == ATTACK_EXAMPLE and err.syntax
    assert err.problem(lambda text: f"<{text}>") != err.problem()


def test_a_rules_refusal_while_reading_is_a_notation_error() -> None:
    with pytest.raises(NotationError) as info:
        parse_charge('20" speed 5')
    assert "cannot be declared" in str(info.value)
    assert info.value.syntax == CHARGE_SYNTAX
