"""Mustering (docs/rules.md, "2. Muster"): readiness time and what a claim may raise."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.campaign.calendar import NaiveDatetime, is_tick, scattered_until
from rules.campaign.config import DEFAULT_RULES
from rules.campaign.muster import (
    MusterRequest,
    NoPort,
    NotEnoughTroops,
    NothingToMuster,
    ScatteredTroops,
    Shortfall,
    check_muster,
    muster_ready_at,
    raisable_now,
)
from rules.errors import InvalidInput

R = DEFAULT_RULES
NOW = datetime(2026, 11, 22, 7, 30, tzinfo=UTC)


def utc(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


@pytest.mark.parametrize(
    ("accepted", "ready"),
    [
        ("2026-11-22T07:30:00", "2026-11-23T12:00:00"),  # the example
        ("2026-11-22T12:00:00", "2026-11-23T12:00:00"),  # exactly on a tick
        ("2026-11-22T12:00:00.000001", "2026-11-23T18:00:00"),  # a microsecond after
        ("2026-11-22T23:59:59", "2026-11-24T00:00:00"),
        ("2026-12-31T20:00:00", "2027-01-02T00:00:00"),
    ],
)
def test_muster_ready_at_next_tick_plus_24_hours(accepted: str, ready: str) -> None:
    """Troops are ready at (next tick at or after acceptance) + 24 h."""
    assert muster_ready_at(utc(accepted), R) == utc(ready)


def test_muster_hours_come_from_config() -> None:
    rules = replace(R, muster_hours=12)
    assert muster_ready_at(utc("2026-11-22T07:30:00"), rules) == utc("2026-11-23T00:00:00")


@given(st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(2100, 1, 1),
                    timezones=st.just(UTC)))
@settings(max_examples=200)
def test_muster_always_ready_on_a_tick_within_a_day_and_a_tick(accepted: datetime) -> None:
    ready = muster_ready_at(accepted, R)
    assert is_tick(ready, R)
    assert timedelta(hours=24) <= ready - accepted < timedelta(hours=30)


def test_muster_refuses_naive_times() -> None:
    with pytest.raises(NaiveDatetime):
        muster_ready_at(datetime(2026, 11, 22, 7, 30), R)


def test_muster_any_number_up_to_all_troops_at_home() -> None:
    """Any number of troops may be raised, up to and including all the claim has at home."""
    assert check_muster(300, 50, 300, 50, None, NOW) == MusterRequest(300, 50)
    assert check_muster(1, 0, 300, 50, None, NOW) == MusterRequest(1, 0)


def test_muster_more_than_at_home_is_refused_with_what_is_available() -> None:
    with pytest.raises(NotEnoughTroops) as err:
        check_muster(301, 60, 300, 50, None, NOW)
    assert err.value.shortfalls == (Shortfall("infantry", 301, 300), Shortfall("cavalry", 60, 50))
    assert "300 at home" in str(err.value)


def test_muster_of_nothing_is_refused() -> None:
    with pytest.raises(NothingToMuster):
        check_muster(0, 0, 300, 50, None, NOW)


def test_muster_negative_counts_are_invalid() -> None:
    with pytest.raises(InvalidInput) as err:
        check_muster(-1, 0, 300, 50, None, NOW)
    assert err.value.field == "infantry"


def test_muster_scattered_troops_locked_until_the_year_ends() -> None:
    """Troops that scattered cannot be raised again until the in-game year ends."""
    scattered_at = utc("2026-01-05T14:00:00")
    until = scattered_until(scattered_at, R)
    during = until - timedelta(seconds=1)
    with pytest.raises(ScatteredTroops) as err:
        check_muster(10, 0, 100, 0, until, during)
    assert err.value.until == until
    assert err.value.shortfalls == (Shortfall("infantry", 10, 0),)
    # from the year's end on they can be raised again
    assert check_muster(10, 0, 100, 0, until, until) == MusterRequest(10, 0)


def test_muster_only_the_scattered_troops_are_locked_when_counted() -> None:
    until = utc("2026-01-13T00:00:00")
    now = utc("2026-01-10T00:00:00")
    # 100 infantry at home, 40 of them scattered: 60 may be raised now
    assert check_muster(60, 5, 100, 5, until, now, scattered_infantry=40,
                        scattered_cavalry=0) == MusterRequest(60, 5)
    with pytest.raises(ScatteredTroops) as err:
        check_muster(61, 5, 100, 5, until, now, scattered_infantry=40, scattered_cavalry=0)
    assert err.value.shortfalls == (Shortfall("infantry", 61, 60),)


def test_muster_not_enough_at_all_wins_over_scattered() -> None:
    until = utc("2026-01-13T00:00:00")
    with pytest.raises(NotEnoughTroops):
        check_muster(200, 0, 100, 0, until, utc("2026-01-10T00:00:00"))


def test_raisable_now_leaves_out_the_locked_troops_and_the_refusals_carry_it() -> None:
    until = utc("2026-01-13T00:00:00")
    now = utc("2026-01-10T00:00:00")
    home = {"infantry": 700, "cavalry": 50, "ships": 2}
    locked = {"infantry": 500, "cavalry": 80, "ships": 0}
    assert raisable_now(home, locked, until, now) == {"infantry": 200, "cavalry": 0, "ships": 2}
    assert raisable_now(home, {}, until, now) == {"infantry": 0, "cavalry": 0, "ships": 0}
    assert raisable_now(home, locked, until, until) == home  # the year over: all of it
    assert raisable_now(home, locked, None, now) == home
    # too few at home at all: the refusal still says what may be raised now, not all at home
    with pytest.raises(NotEnoughTroops) as short:
        check_muster(900, 10, 700, 50, until, now, scattered_infantry=500, scattered_cavalry=45)
    assert short.value.shortfalls == (Shortfall("infantry", 900, 700),)
    assert short.value.raisable == {"infantry": 200, "cavalry": 5, "ships": 0}
    with pytest.raises(ScatteredTroops) as scattered:
        check_muster(300, 10, 700, 50, until, now, scattered_infantry=500, scattered_cavalry=45)
    assert scattered.value.raisable == short.value.raisable
    assert scattered.value.shortfalls == (Shortfall("infantry", 300, 200),
                                          Shortfall("cavalry", 10, 5))


def test_muster_ships_only_at_a_port() -> None:
    assert check_muster(0, 0, 0, 0, None, NOW, 3, at_home_ships=5) == MusterRequest(0, 0, 3)
    with pytest.raises(NoPort):
        check_muster(0, 0, 0, 0, None, NOW, 3, at_home_ships=5, home_is_port=False)
    with pytest.raises(NotEnoughTroops):
        check_muster(0, 0, 0, 0, None, NOW, 6, at_home_ships=5)
