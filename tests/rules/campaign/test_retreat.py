"""Retreat rolls: docs/rules.md "6. Reactions and retreat", every row of the chart, and
properties."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.campaign.battle import Side, Troops, Winner, resolve_battle
from rules.campaign.config import RetreatRow, RulesConfig
from rules.campaign.retreat import escaped_troops, retreat_row, roll_retreat
from rules.dice import ScriptedDice, SeededDice
from rules.errors import BadDie, DiceExhausted, InvalidInput, RulesError

D = Decimal

CHART = [(roll, "1") for roll in (20, 19, 18)] + [(roll, "0.75") for roll in (17, 16, 15)] + [
    (14, "0.5"), (13, "0.5")] + [(roll, "0") for roll in range(12, 0, -1)]


@pytest.mark.parametrize(("roll", "fraction"), CHART)
def test_every_retreat_roll(roll: int, fraction: str) -> None:
    """d20: 18-20 keeps 100%, 15-17 keeps 75%, 13-14 keeps 50%, 12 or less fails."""
    result = roll_retreat(100, 40, dice=ScriptedDice([roll]))
    assert result.roll == roll
    assert result.fraction == D(fraction)
    assert result.success is (roll >= 13)
    assert result.penalty is (roll <= 12)


@pytest.mark.parametrize(("roll", "escaped"), [
    (18, Troops(7, 3)), (17, Troops(5, 2)), (15, Troops(5, 2)), (14, Troops(4, 2)),
    (13, Troops(4, 2)), (12, Troops(0, 0)),
])
def test_escaping_troops_are_counted_per_type_rounded_half_up(roll: int, escaped: Troops
                                                              ) -> None:
    """7 infantry x 75% = 5.25 -> 5, 3 cavalry x 75% = 2.25 -> 2; x 50%: 3.5 -> 4, 1.5 -> 2."""
    result = roll_retreat(7, 3, dice=ScriptedDice([roll]))
    assert result.escaped == escaped


def test_the_rest_are_lost_in_the_retreat() -> None:
    """Troops that do not escape are lost (counted as slain)."""
    result = roll_retreat(101, 11, 2, dice=ScriptedDice([16]))
    assert result.escaped == Troops(76, 8, 2)  # 75.75 -> 76, 8.25 -> 8, 1.5 -> 2
    assert result.lost == Troops(25, 3, 0)


def test_a_failed_retreat_loses_nobody_and_carries_the_penalty() -> None:
    """A failed retreat leaves the army in the tile whole, with -1 in the coming battle."""
    result = roll_retreat(50, 10, dice=ScriptedDice([12]))
    assert not result.success and result.penalty
    assert result.escaped == Troops() and result.lost == Troops()
    assert result.stays == Troops(50, 10)
    # In the battle that follows the weaker side's flat 10 becomes 9.
    battle = resolve_battle(Side(100), Side(50, 10, retreat_penalty=result.penalty),
                            dice=ScriptedDice([8]))
    assert battle.band == "1.26-1.50" and battle.winner is Winner.ATTACKER
    assert battle.defender.roll == 9


def test_retreat_rolls_one_d20() -> None:
    dice = SeededDice("retreat")
    roll_retreat(10, 0, dice=dice)
    assert [r.sides for r in dice.rolls] == [20]
    with pytest.raises(DiceExhausted):
        roll_retreat(10, 0, dice=ScriptedDice([]))
    with pytest.raises(BadDie):
        roll_retreat(10, 0, dice=ScriptedDice([21]))


@pytest.mark.parametrize("field", ["infantry", "cavalry", "ships"])
def test_retreat_refuses_negative_troops_naming_the_field(field: str) -> None:
    counts = {"infantry": 1, "cavalry": 1, "ships": 1, field: -1}
    with pytest.raises(InvalidInput) as err:
        roll_retreat(counts["infantry"], counts["cavalry"], counts["ships"],
                     dice=ScriptedDice([20]))
    assert err.value.field == field


def test_retreat_chart_comes_from_the_config() -> None:
    rules = RulesConfig(retreat=(RetreatRow(10, D("0.9")), RetreatRow(2, D("0.2"))))
    assert roll_retreat(10, 0, dice=ScriptedDice([10]), rules=rules).escaped == Troops(9)
    assert roll_retreat(10, 0, dice=ScriptedDice([9]), rules=rules).escaped == Troops(2)
    assert retreat_row(2, rules).fraction == D("0.2")
    with pytest.raises(RulesError):
        roll_retreat(10, 0, dice=ScriptedDice([1]), rules=rules)


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 10_000), st.integers(0, 5_000), st.integers(0, 50), st.integers(1, 20))
def test_escaped_and_lost_add_up_to_the_army(infantry: int, cavalry: int, ships: int,
                                             roll: int) -> None:
    result = roll_retreat(infantry, cavalry, ships, dice=ScriptedDice([roll]))
    assert result.escaped.total + result.lost.total + result.stays.total == result.troops.total
    for kind in ("infantry", "cavalry", "ships"):
        assert 0 <= getattr(result.escaped, kind) <= getattr(result.troops, kind)
    assert escaped_troops(result.troops, result.fraction) == result.escaped
