"""Detection (docs/rules.md "7. Detection")."""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.campaign.config import DEFAULT_RULES, SizeRow
from rules.campaign.detection import (
    ObserverKind,
    detection_target,
    intercept_closes,
    roll_detection,
)
from rules.campaign.modifiers import Effect, EffectKind, Modifier, Source
from rules.dice import ScriptedDice
from rules.errors import DiceExhausted, InvalidInput

R = DEFAULT_RULES
D = Decimal
HOLD = ObserverKind.HOLDFAST
RES = ObserverKind.RESOURCE_TILE
NONE = ObserverKind.NONE


def detection(name: str, amount: int, hidden: bool = False) -> Modifier:
    return Modifier(name, Source.IMPROVEMENT, (Effect(EffectKind.DETECTION, D(amount)),),
                    hidden=hidden)


def stealth(name: str, amount: int, hidden: bool = False) -> Modifier:
    return Modifier(name, Source.SKILL, (Effect(EffectKind.STEALTH, D(amount)),), hidden=hidden)


@pytest.mark.parametrize(
    ("size", "target"),
    [(1, 15), (20, 15), (21, 12), (200, 12), (201, 10), (500, 10), (501, 6), (1000, 6)],
)
def test_detection_chart_targets(size: int, target: int) -> None:
    """d20 >= target by the passing force's size: <= 20: 15; 21-200: 12; 201-500: 10;
    501-1000: 6."""
    result = detection_target(size, NONE, R)
    assert (result.automatic, result.target, result.bonus) == (False, target, 0)


@pytest.mark.parametrize("size", [1001, 5000])
def test_detection_forces_of_1001_or_more_are_automatic(size: int) -> None:
    """>= 1001: automatic, for any observer."""
    for observer in ObserverKind:
        result = detection_target(size, observer, R)
        assert result.automatic and result.target is None


@pytest.mark.parametrize(
    ("size", "automatic", "target"),
    [(20, False, 15), (21, False, 12), (200, False, 12), (201, False, 10), (500, False, 10),
     (501, True, None), (1000, True, None), (1001, True, None)],
)
def test_detection_holdfasts_add_five_and_auto_detect_from_501(
    size: int, automatic: bool, target: int | None
) -> None:
    """Holdfasts add +5 to the roll and automatically detect forces of 501 or more."""
    result = detection_target(size, HOLD, R)
    assert result.automatic is automatic
    assert result.target == target
    if not automatic:
        assert result.bonus == 5


@pytest.mark.parametrize("size", [20, 21, 200, 201, 500, 501, 1000, 1001])
def test_detection_resource_tile_detects_exactly_as_a_holdfast(size: int) -> None:
    """A standing army on a resource tile detects exactly as a holdfast does."""
    hold = detection_target(size, HOLD, R)
    res = detection_target(size, RES, R)
    assert (res.automatic, res.target, res.bonus) == (hold.automatic, hold.target, hold.bonus)


@pytest.mark.parametrize(
    ("size", "observer", "roll", "detected"),
    [
        (300, NONE, 10, True),  # needs 10
        (300, NONE, 9, False),
        (300, HOLD, 5, True),  # 5 + 5 = 10
        (300, HOLD, 4, False),
        (20, NONE, 15, True),
        (20, NONE, 14, False),
        (20, HOLD, 10, True),
        (20, RES, 9, False),
        (600, NONE, 6, True),
        (600, NONE, 5, False),
    ],
)
def test_detection_roll_must_reach_the_target(size: int, observer: ObserverKind, roll: int,
                                              detected: bool) -> None:
    """The d20 (plus bonuses) must reach the chart number to see the force."""
    result = roll_detection(size, observer, dice=ScriptedDice([roll]), rules=R)
    assert result.detected is detected
    assert result.roll == roll
    assert result.total == roll + (5 if observer is not NONE else 0)
    assert not result.automatic


def test_detection_automatic_rolls_no_die() -> None:
    dice = ScriptedDice([])
    result = roll_detection(700, HOLD, dice=dice, rules=R)
    assert result.automatic and result.detected
    assert (result.roll, result.total, result.target) == (None, None, None)
    assert dice.rolls == []


def test_detection_needs_a_die_when_not_automatic() -> None:
    with pytest.raises(DiceExhausted):
        roll_detection(300, HOLD, dice=ScriptedDice([]), rules=R)


def test_detection_modifiers_add_and_stealth_subtracts() -> None:
    """Skills, resource tiles or improvements may increase the chance of detecting armies or
    of avoiding them: DETECTION adds to the roll, STEALTH subtracts."""
    target = detection_target(
        300, HOLD, R,
        observer_modifiers=[detection("Watchtower", 2), detection("watchtower", 1)],
        stealth_modifiers=[stealth("Ranger", 3)],
    )
    assert target.bonus == 5 + 2 - 3
    assert target.explanation == (
        "a force of 300 units needs 10 on a d20", "+5 holdfast", "+2 Watchtower",
        "-3 Ranger (stealth)",
    )
    result = roll_detection(300, HOLD, dice=ScriptedDice([6]), rules=R,
                            observer_modifiers=[detection("Watchtower", 2)],
                            stealth_modifiers=[stealth("Ranger", 3)])
    assert (result.total, result.detected) == (10, True)
    assert len(result.applied) == 2


def test_detection_hidden_modifiers_count_but_are_not_explained() -> None:
    target = detection_target(300, NONE, R, stealth_modifiers=[stealth("Secret paths", 2, True)])
    assert target.bonus == -2
    assert target.explanation == ("a force of 300 units needs 10 on a d20",)


def test_detection_stealth_cannot_avoid_automatic_detection() -> None:
    target = detection_target(501, HOLD, R, stealth_modifiers=[stealth("Ranger", 10)])
    assert target.automatic


def test_detection_fractional_modifier_is_invalid() -> None:
    odd = Modifier("Odd", Source.SKILL, (Effect(EffectKind.DETECTION, D("0.5")),))
    with pytest.raises(InvalidInput):
        detection_target(300, NONE, R, observer_modifiers=[odd])


@pytest.mark.parametrize("size", [0, -1])
def test_detection_force_size_must_be_positive(size: int) -> None:
    with pytest.raises(InvalidInput) as err:
        detection_target(size, NONE, R)
    assert err.value.field == "force_size"


def test_detection_numbers_come_from_config() -> None:
    rules = replace(R, detection=(SizeRow(100, 8), SizeRow(None, 0)),
                    holdfast_detection_bonus=2, holdfast_auto_detect_min=50)
    assert detection_target(100, NONE, rules).target == 8
    assert detection_target(101, NONE, rules).automatic
    assert detection_target(49, HOLD, rules).bonus == 2
    assert detection_target(50, HOLD, rules).automatic


def test_the_chance_to_intercept_closes_a_reaction_window_after_the_sighting() -> None:
    """A force sighted on tick 40 may be intercepted until the tick the reaction window ends
    on (the sighting note's "before" and the intercept order's refusal both use it)."""
    assert intercept_closes(40, R) == 40 + R.reaction_ticks
    assert intercept_closes(40, replace(R, reaction_ticks=3)) == 43


@given(st.integers(min_value=1, max_value=2000), st.integers(min_value=1, max_value=20))
@settings(max_examples=200)
def test_holdfast_never_detects_less_than_a_plain_observer(size: int, roll: int) -> None:
    plain = roll_detection(size, NONE, dice=ScriptedDice([roll]), rules=R)
    hold = roll_detection(size, HOLD, dice=ScriptedDice([roll]), rules=R)
    assert hold.detected >= plain.detected


@given(st.integers(min_value=1, max_value=1999), st.integers(min_value=1, max_value=20))
@settings(max_examples=200)
def test_a_larger_force_is_never_harder_to_detect(size: int, roll: int) -> None:
    for observer in ObserverKind:
        small = roll_detection(size, observer, dice=ScriptedDice([roll]), rules=R)
        large = roll_detection(size + 1, observer, dice=ScriptedDice([roll]), rules=R)
        assert large.detected >= small.detected
