"""Sieges (docs/rules.md "10. Sieges, assaults and sallies")."""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.campaign.config import DEFAULT_RULES, SizeRow
from rules.campaign.modifiers import Effect, EffectKind, Modifier, Role, Source
from rules.campaign.siege import (
    EnemyTroopsPresent,
    NeedsBlockade,
    NotAHoldfast,
    SiegeOver,
    SiegeState,
    SpecialHoldfast,
    advance_siege_month,
    check_siege_start,
    siege_months,
)
from rules.errors import InvalidInput

R = DEFAULT_RULES
D = Decimal


def months_mod(name: str, amount: int, role: Role, source: Source = Source.EQUIPMENT,
               hidden: bool = False) -> Modifier:
    return Modifier(name, source, (Effect(EffectKind.SIEGE_MONTHS, D(amount), role),),
                    hidden=hidden)


@pytest.mark.parametrize(
    ("garrison", "months"),
    [(0, 12), (100, 12), (101, 11), (300, 11), (301, 10), (500, 10), (501, 8), (1000, 8),
     (1001, 6), (20000, 6)],
)
def test_siege_chart_months_by_garrison(garrison: int, months: int) -> None:
    """Months by garrison: <= 100: 12; 101-300: 11; 301-500: 10; 501-1000: 8; >= 1001: 6."""
    length = siege_months(garrison, R)
    assert (length.months, length.base, length.applied) == (months, months, ())


def test_siege_equipment_and_skills_change_the_length() -> None:
    """Siege time can be altered by siege equipment, holdfast improvements and the skills of
    both the attackers and the defenders."""
    trebuchets = months_mod("Trebuchets", -2, Role.ATTACK)
    walls = months_mod("Thick walls", 1, Role.DEFENSE, Source.IMPROVEMENT)
    length = siege_months(400, R, besieger_modifiers=[trebuchets], defender_modifiers=[walls])
    assert (length.base, length.months, length.change) == (10, 9, -1)
    assert [a.describe() for a in length.applied] == ["-2 months Trebuchets",
                                                      "+1 month Thick walls"]


def test_siege_effects_count_only_in_their_role() -> None:
    """A besieger's defensive effect and a defender's attacking effect do not count."""
    wrong_way = months_mod("Sappers", -3, Role.DEFENSE)
    also_wrong = months_mod("Catapults", 2, Role.ATTACK)
    both = months_mod("Engineer", -1, Role.BOTH, Source.SKILL)
    length = siege_months(400, R, besieger_modifiers=[wrong_way, both],
                          defender_modifiers=[also_wrong])
    assert length.months == 9


def test_siege_same_named_equipment_does_not_stack() -> None:
    length = siege_months(400, R, besieger_modifiers=[months_mod("Trebuchets", -2, Role.ATTACK),
                                                      months_mod("trebuchets", -1, Role.ATTACK)])
    assert length.months == 8


def test_siege_never_shorter_than_one_month() -> None:
    length = siege_months(2000, R, besieger_modifiers=[months_mod("Dragon", -10, Role.ATTACK)])
    assert (length.base, length.months) == (6, 1)


def test_siege_length_refuses_bad_input() -> None:
    with pytest.raises(InvalidInput) as err:
        siege_months(-1, R)
    assert err.value.field == "garrison"
    half = months_mod("Half", 0, Role.ATTACK)
    half = replace(half, effects=(Effect(EffectKind.SIEGE_MONTHS, D("0.5"), Role.ATTACK),))
    with pytest.raises(InvalidInput):
        siege_months(10, R, besieger_modifiers=[half])


def test_siege_chart_comes_from_config() -> None:
    rules = replace(R, siege_months=(SizeRow(50, 3), SizeRow(None, 2)))
    assert siege_months(50, rules).months == 3
    assert siege_months(51, rules).months == 2


# --- starting -------------------------------------------------------------------------------


def _start(**overrides: bool) -> None:
    flags = {"holdfast": True, "port": False, "special": False,
             "hostile_troops_on_tile": False, "blockaded": False}
    flags.update(overrides)
    check_siege_start(**flags)


def test_siege_may_start_on_an_empty_holdfast() -> None:
    """A siege needs the besieger on the holdfast tile with no enemy troops there: with none,
    the check passes (returns None), while the same tile with hostile troops is refused."""
    assert check_siege_start(holdfast=True, port=False, special=False,
                             hostile_troops_on_tile=False, blockaded=False) is None
    with pytest.raises(EnemyTroopsPresent):
        _start(hostile_troops_on_tile=True)


def test_siege_enemy_troops_must_be_defeated_first() -> None:
    with pytest.raises(EnemyTroopsPresent):
        _start(hostile_troops_on_tile=True)


def test_siege_port_holdfast_must_be_blockaded_first() -> None:
    """A port holdfast must first be blockaded (friendly ships in an adjacent water tile)."""
    with pytest.raises(NeedsBlockade):
        _start(port=True)
    _start(port=True, blockaded=True)


def test_siege_special_holdfasts_are_referred_to_moderators() -> None:
    """Special holdfasts cannot be besieged by the normal rule: the order goes to moderators."""
    with pytest.raises(SpecialHoldfast) as err:
        _start(special=True, port=True, blockaded=True)
    assert err.value.referred_to_moderators
    assert "moderators" in str(err.value)


def test_siege_only_holdfasts() -> None:
    with pytest.raises(NotAHoldfast):
        _start(holdfast=False)


def test_siege_checks_enemy_troops_before_special_rules() -> None:
    with pytest.raises(EnemyTroopsPresent):
        _start(special=True, hostile_troops_on_tile=True)


# --- progress -------------------------------------------------------------------------------


def test_siege_holdfast_falls_when_the_months_are_reached() -> None:
    """If the attackers reach the required months without leaving the tile the holdfast is
    opened."""
    state = SiegeState(siege_months(1001, R).months)
    fell_at = []
    for month in range(1, 7):
        state, fell = advance_siege_month(state, still_on_tile=True)
        fell_at.append(fell)
        assert state.months_elapsed == month
    assert fell_at == [False] * 5 + [True]
    assert state.fallen
    with pytest.raises(SiegeOver):
        advance_siege_month(state, still_on_tile=True)


def test_siege_leaving_the_tile_ends_it() -> None:
    """Leaving the tile ends the siege."""
    state, _ = advance_siege_month(SiegeState(6), still_on_tile=True)
    state, fell = advance_siege_month(state, still_on_tile=False)
    assert state.ended and not fell
    with pytest.raises(SiegeOver):
        advance_siege_month(state, still_on_tile=True)


def test_siege_broken_blockade_pauses_it() -> None:
    """A broken blockade pauses the siege: the month does not count."""
    state, _ = advance_siege_month(SiegeState(3), still_on_tile=True, blockade_ok=True)
    state, fell = advance_siege_month(state, still_on_tile=True, blockade_ok=False)
    assert (state.months_elapsed, state.paused, fell) == (1, True, False)
    state, _ = advance_siege_month(state, still_on_tile=True, blockade_ok=True)
    assert (state.months_elapsed, state.paused) == (2, False)


@given(st.integers(0, 3000))
@settings(max_examples=200)
def test_siege_of_a_larger_garrison_is_never_longer(garrison: int) -> None:
    assert siege_months(garrison + 1, R).months <= siege_months(garrison, R).months


@given(st.integers(1, 12), st.lists(st.tuples(st.booleans(), st.booleans()), max_size=30))
@settings(max_examples=200)
def test_siege_falls_only_after_required_counted_months(
    required: int, months: list[tuple[bool, bool]]
) -> None:
    state = SiegeState(required)
    counted = 0
    for on_tile, blockade in months:
        if state.ended or state.fallen:
            break
        state, fell = advance_siege_month(state, on_tile, blockade)
        if on_tile and blockade:
            counted += 1
        assert fell is (counted == required and on_tile and blockade)
        assert state.months_elapsed == counted


# --- whole months from the siege's start ---------------------------------------------

def test_siege_months_are_whole_months_from_the_start() -> None:
    """An 11-month siege begun at 18:00 (one in-game month a real day) completes its first month
    at 18:00 the next day and its eleventh eleven days after it began, not after 10 days 6 h."""
    from datetime import UTC, datetime, timedelta

    from rules.campaign.siege import month_checks, months_passed

    day = timedelta(days=1)
    start = datetime(2026, 11, 22, 18, tzinfo=UTC)
    assert months_passed(start, start + timedelta(hours=6), day) == 0  # the first midnight
    assert months_passed(start, start + day, day) == 1
    assert list(month_checks(start, start + 10 * day, start + 11 * day, day)) == [11]
    assert list(month_checks(start, start, start + 3 * day, day)) == [1, 2, 3]
    assert list(month_checks(start, start - day, start, day)) == []
