"""Morale and panic tests (rulebook: morale & panic; make panic test; die modifiers)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from rules.dice import ScriptedDice
from rules.errors import DiceExhausted, InvalidInput
from rules.miniatures.morale import (
    PanicOutcome,
    PanicWounds,
    morale_pass_chance,
    morale_test,
    panic_test,
)


def test_morale_test_example_5_and_3_against_6_passes() -> None:
    """A unit with morale 6+ rolling 5 and 3 totals 8, equal to or above 6: it passes."""
    result = morale_test(6, dice=ScriptedDice([5, 3]))
    assert result.total == 8
    assert result.passed


def test_morale_test_total_equal_to_morale_passes_below_fails() -> None:
    """The test is passed when the combined result equals or exceeds the morale value."""
    assert morale_test(7, dice=ScriptedDice([3, 4])).passed
    assert not morale_test(7, dice=ScriptedDice([3, 3])).passed


def test_morale_test_has_no_automatic_results() -> None:
    """Natural 1s and 6s only matter for attack and defense dice: double 6 with -5 can fail."""
    assert not morale_test(8, dice=ScriptedDice([6, 6]), modifier=-5).passed
    assert morale_test(4, dice=ScriptedDice([1, 1]), modifier=2).passed


def test_modifier_example_total_cannot_drop_below_0() -> None:
    """Morale 6+ with a -4 modifier rolling 1 and 2: the result is 0, never below."""
    result = morale_test(6, dice=ScriptedDice([1, 2]), modifier=-4)
    assert result.total == 0
    assert not result.passed


def test_make_panic_test_example_2_and_2_against_6_fails_with_d3_wounds() -> None:
    """Sworn swords at morale 6+ roll 2 and 2 (4): they fail and suffer the d3 (here 1)."""
    result = panic_test(6, dice=ScriptedDice([2, 2, 1]), wounds_suffered=2)
    assert result.outcome is PanicOutcome.FAILED
    assert result.test is not None and result.test.total == 4
    assert (result.d3, result.wounds) == (1, 1)


def test_panic_example_3_and_5_against_6_passes() -> None:
    """Rolling 3 and 5 against 6+ passes the panic test: nothing happens. The d3 is rolled
    with the 2d6 (the rulebook rolls them together), so the rulebook's three dice fit the
    script exactly, and a passed test takes no wounds from it."""
    dice = ScriptedDice([3, 5, 2])
    result = panic_test(6, dice=dice, wounds_suffered=1)
    assert result.outcome is PanicOutcome.PASSED
    assert result.wounds == 0
    assert result.d3 == 2
    assert dice.remaining == 0
    with pytest.raises(DiceExhausted):
        panic_test(6, dice=ScriptedDice([3, 5]), wounds_suffered=1)


def test_make_panic_test_no_wounds_is_an_automatic_pass_that_counts_as_taken() -> None:
    """A defender that suffered no wounds does not roll: it passes automatically, and still
    counts as having taken the test (effects may trigger on it)."""
    dice = ScriptedDice([])
    result = panic_test(6, dice=dice, wounds_suffered=0)
    assert result.outcome is PanicOutcome.AUTOMATIC_PASS
    assert result.taken
    assert result.passed
    assert dice.rolls == []


def test_panic_test_outside_an_attack_is_always_rolled() -> None:
    """A panic test not caused by an attack (a failed charge) has no automatic pass."""
    result = panic_test(6, dice=ScriptedDice([1, 1, 3]))
    assert result.outcome is PanicOutcome.FAILED
    assert result.wounds == 3


@pytest.mark.parametrize(("rule", "d3", "wounds"), [
    (PanicWounds.D3, 1, 1), (PanicWounds.D3, 2, 2), (PanicWounds.D3, 3, 3),
    (PanicWounds.ONE_PLUS_D3, 1, 2), (PanicWounds.ONE_PLUS_D3, 2, 3),
    (PanicWounds.ONE_PLUS_D3, 3, 4),
])
def test_failed_panic_wounds_by_rules_version(rule: PanicWounds, d3: int, wounds: int) -> None:
    """As written, a failed panic test costs d3 wounds; the later update makes it 1 + d3."""
    result = panic_test(6, dice=ScriptedDice([1, 2, d3]), rule=rule, wounds_suffered=1)
    assert result.wounds == wounds
    assert result.rule is rule


def test_failed_panic_default_rule_is_d3_as_written() -> None:
    """The rulebook (v1.6) is the default: d3 wounds."""
    assert panic_test(6, dice=ScriptedDice([1, 2, 3]), wounds_suffered=1).wounds == 3


@pytest.mark.parametrize(("morale", "modifier", "passing"), [
    (2, 0, 36), (3, 0, 35), (4, 0, 33), (5, 0, 30), (6, 0, 26), (7, 0, 21), (8, 0, 15),
    (9, 0, 10), (10, 0, 6), (11, 0, 3), (12, 0, 1),
    (7, 1, 26), (7, -1, 15), (6, -4, 6), (12, 12, 36), (2, -12, 0),
])
def test_morale_pass_chance_table(morale: int, modifier: int, passing: int) -> None:
    """2d6 totals: the number of the 36 rolls that reach the morale value after modifiers."""
    assert morale_pass_chance(morale, modifier) == Fraction(passing, 36)


def test_morale_values_out_of_range_are_refused() -> None:
    """Morale values are 2+ to 12+; modifiers -12 to +12."""
    with pytest.raises(InvalidInput):
        morale_test(13, dice=ScriptedDice([1, 1]))
    with pytest.raises(InvalidInput):
        panic_test(6, dice=ScriptedDice([1, 1]), modifier=13)
    with pytest.raises(InvalidInput):
        panic_test(6, dice=ScriptedDice([1, 1]), wounds_suffered=-1)
