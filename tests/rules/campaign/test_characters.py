"""Characters in battle: death and injury calls (docs/rules.md "5. Characters in battle") and
the fate tables."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.campaign.characters import (
    DEFAULT_DEATH_TABLE,
    DEFAULT_INJURY_TABLE,
    CharacterFate,
    Fate,
    FateRow,
    FateTable,
    character_fates,
    fate_for,
    roll_on_table,
    settle_fate,
)
from rules.campaign.config import RulesConfig
from rules.dice import ScriptedDice, SeededDice
from rules.errors import InvalidInput

D = Decimal


@pytest.mark.parametrize(("pct", "roll", "fate"), [
    ("50", 1, Fate.DEATH_ROLL), ("50", 50, Fate.DEATH_ROLL), ("50", 51, Fate.INJURY_ROLL),
    ("50", 75, Fate.INJURY_ROLL), ("50", 76, Fate.SAFE), ("50", 100, Fate.SAFE),
    ("37.5", 37, Fate.DEATH_ROLL), ("37.5", 38, Fate.INJURY_ROLL),
    ("37.5", 56, Fate.INJURY_ROLL), ("37.5", 57, Fate.SAFE),       # 1.5 x 37.5 = 56.25
    ("2", 2, Fate.DEATH_ROLL), ("2", 3, Fate.INJURY_ROLL), ("2", 4, Fate.SAFE),
    ("80", 80, Fate.DEATH_ROLL), ("80", 81, Fate.INJURY_ROLL), ("80", 100, Fate.INJURY_ROLL),
    ("100", 100, Fate.DEATH_ROLL),
])
def test_d100_at_or_under_pct_is_a_death_roll_under_one_and_a_half_pct_an_injury_roll(
        pct: str, roll: int, fate: Fate) -> None:
    """Roll <= casualty % means a death roll; otherwise roll <= 1.5 x % an injury roll."""
    assert fate_for(roll, D(pct)) is fate
    (called,) = character_fates(["Ser Jaime"], D(pct), dice=ScriptedDice([roll]))
    assert called == CharacterFate("Ser Jaime", fate, roll, D(pct))


def test_each_character_present_rolls_in_order() -> None:
    """Every character present rolls its own d100, in the order given."""
    dice = ScriptedDice([10, 70, 99])
    fates = character_fates(["A", "B", "C"], D(50), dice=dice)
    assert [(f.name, f.fate) for f in fates] == [
        ("A", Fate.DEATH_ROLL), ("B", Fate.INJURY_ROLL), ("C", Fate.SAFE)]
    assert [(r.sides, r.purpose) for r in dice.rolls] == [
        (100, "A fate d100"), (100, "B fate d100"), (100, "C fate d100")]


def test_a_zero_casualty_pct_is_safe_without_a_roll() -> None:
    """Reading: at 0% no d100 can be at or under it, so nobody rolls."""
    dice = ScriptedDice([])
    assert character_fates(["A"], D(0), dice=dice) == (CharacterFate("A", Fate.SAFE, None, D(0)),)


def test_injury_factor_comes_from_the_config() -> None:
    rules = RulesConfig(injury_factor=D(2))
    assert fate_for(80, D(40), rules) is Fate.INJURY_ROLL
    assert fate_for(80, D(40)) is Fate.SAFE


def test_character_fates_refuse_bad_input() -> None:
    with pytest.raises(InvalidInput) as err:
        character_fates(["A"], D(-1), dice=ScriptedDice([1]))
    assert err.value.field == "casualty_pct"
    with pytest.raises(InvalidInput):
        character_fates([" "], D(10), dice=ScriptedDice([1]))


@settings(max_examples=200, deadline=None)
@given(st.decimals(min_value=0, max_value=100, places=1), st.integers(1, 100))
def test_a_death_call_needs_a_roll_no_higher_than_an_injury_call(pct: Decimal, roll: int
                                                                 ) -> None:
    fate = fate_for(roll, pct)
    if fate is Fate.DEATH_ROLL:
        assert all(fate_for(lower, pct) is Fate.DEATH_ROLL for lower in range(1, roll))
    if fate is Fate.SAFE:
        assert all(fate_for(higher, pct) is Fate.SAFE for higher in range(roll, 101))


# ---------------------------------------------------------------------------------------------
# Fate tables


@pytest.mark.parametrize("table", [DEFAULT_DEATH_TABLE, DEFAULT_INJURY_TABLE])
def test_default_tables_cover_every_d100_result(table: FateTable) -> None:
    """The documented defaults give an outcome for each result 1-100."""
    outcomes = [table.outcome_of(roll) for roll in range(1, 101)]
    assert all(outcomes)
    assert table.sides == 100


@pytest.mark.parametrize(("roll", "outcome"), [
    (1, "dies"), (35, "dies"), (36, "survives gravely wounded"), (65, "survives gravely wounded"),
    (66, "cheats death"), (100, "cheats death"),
])
def test_default_death_table_rows(roll: int, outcome: str) -> None:
    assert DEFAULT_DEATH_TABLE.outcome_of(roll).startswith(outcome)


@pytest.mark.parametrize(("roll", "outcome"), [
    (1, "loses a hand"), (10, "loses a hand"), (11, "loses an eye"), (20, "loses an eye"),
    (21, "is left with a lasting limp"), (40, "is left with a lasting limp"),
    (41, "is wounded"), (70, "is wounded"), (71, "a scar"), (100, "a scar"),
])
def test_default_injury_table_rows(roll: int, outcome: str) -> None:
    assert DEFAULT_INJURY_TABLE.outcome_of(roll).startswith(outcome)


def test_a_moderator_table_from_config_entries() -> None:
    """Moderators write ranges as "1-30" or "100"; the table reads them in any order."""
    table = FateTable.from_mapping("death", {"31-99": "lives", "1-30": "dies", "100": "legend"})
    assert [table.outcome_of(r) for r in (1, 30, 31, 99, 100)] == [
        "dies", "dies", "lives", "lives", "legend"]
    small = FateTable.from_mapping("injury", {"1-3": "arm", "4-6": "leg"}, sides=6)
    assert roll_on_table(small, ScriptedDice([5]), "Ser Addam").outcome == "leg"


@pytest.mark.parametrize(("rows", "problem"), [
    ({"1-50": "a", "50-100": "b"}, "overlaps"),
    ({"1-40": "a", "42-100": "b"}, "nothing covers 41-41"),
    ({"2-100": "a"}, "nothing covers 1-1"),
    ({"1-99": "a"}, "end at 99"),
    ({"1-101": "a"}, "end at 101"),
    ({"1-100": " "}, "no outcome"),
    ({"60-1": "a"}, "backwards"),
])
def test_bad_tables_are_refused_naming_the_table(rows: dict[str, str], problem: str) -> None:
    with pytest.raises(InvalidInput) as err:
        FateTable.from_mapping("death", rows)
    assert err.value.field == "death.rows"
    assert problem in err.value.message


def test_bad_range_keys_are_refused_naming_the_key() -> None:
    with pytest.raises(InvalidInput) as err:
        FateTable.from_mapping("injury", {"one to ten": "x"})
    assert err.value.field == "injury.one to ten"


def test_roll_on_table_rolls_the_tables_die_once() -> None:
    dice = ScriptedDice([12])
    rolled = roll_on_table(DEFAULT_INJURY_TABLE, dice, "Lord Tytos")
    assert (rolled.character, rolled.table, rolled.roll) == ("Lord Tytos", "injury", 12)
    assert rolled.outcome == DEFAULT_INJURY_TABLE.outcome_of(12)
    assert [(r.sides, r.purpose) for r in dice.rolls] == [(100, "Lord Tytos injury")]


def test_settle_fate_rolls_the_table_the_call_asks_for() -> None:
    """A death call rolls the death table, an injury call the injury table, others nothing."""
    death = CharacterFate("A", Fate.DEATH_ROLL, 5, D(40))
    injury = CharacterFate("B", Fate.INJURY_ROLL, 55, D(40))
    rolled = settle_fate(death, dice=ScriptedDice([1]))
    assert rolled is not None and (rolled.table, rolled.outcome) == ("death", "dies")
    rolled = settle_fate(injury, dice=ScriptedDice([1]))
    assert rolled is not None and (rolled.table, rolled.outcome) == ("injury", "loses a hand")
    custom = FateTable("injury", (FateRow(1, 100, "a bruise"),))
    rolled = settle_fate(injury, dice=SeededDice(1), injury_table=custom)
    assert rolled is not None and rolled.outcome == "a bruise"
    for fate in (Fate.SAFE, Fate.CAPTURED):
        assert settle_fate(CharacterFate("C", fate, None, D(0)), dice=ScriptedDice([])) is None
