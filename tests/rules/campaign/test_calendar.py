"""The campaign clock (docs/rules.md, "1. Clock and calendar"): ticks, the in-game calendar,
month boundaries."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.campaign.calendar import (
    UNIX_EPOCH,
    GameDate,
    NaiveDatetime,
    format_game_date,
    game_date,
    is_tick,
    month_boundaries,
    month_number,
    month_start,
    next_month,
    next_tick_at_or_after,
    period_first_tick,
    rules_then,
    scattered_until,
    tick_index,
    tick_time,
    year_end,
)
from rules.campaign.config import DEFAULT_RULES

R = DEFAULT_RULES
US = timedelta(microseconds=1)


def utc(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


moments = st.datetimes(
    min_value=datetime(1960, 1, 1), max_value=datetime(2100, 1, 1), timezones=st.just(UTC)
)


# --- ticks ---------------------------------------------------------------------------------


@pytest.mark.parametrize("hour", [0, 6, 12, 18])
def test_clock_ticks_happen_at_00_06_12_18_utc(hour: int) -> None:
    """A tick happens at 00:00, 06:00, 12:00 and 18:00 UTC."""
    moment = datetime(2026, 11, 22, hour, tzinfo=UTC)
    assert is_tick(moment, R)
    assert next_tick_at_or_after(moment, R) == moment


@pytest.mark.parametrize("hour", [1, 3, 5, 7, 11, 13, 17, 19, 23])
def test_clock_other_hours_are_not_ticks(hour: int) -> None:
    assert not is_tick(datetime(2026, 11, 22, hour, tzinfo=UTC), R)


@pytest.mark.parametrize(
    ("accepted", "starts"),
    [
        ("2026-11-22T12:00:00", "2026-11-22T12:00:00"),  # exactly on a tick: that tick
        ("2026-11-22T12:00:00.000001", "2026-11-22T18:00:00"),  # a microsecond after: the next
        ("2026-11-22T11:59:59.999999", "2026-11-22T12:00:00"),
        ("2026-11-22T07:30:00", "2026-11-22T12:00:00"),
        ("2026-11-22T18:00:01", "2026-11-23T00:00:00"),  # crosses midnight
        ("2026-12-31T23:59:00", "2027-01-01T00:00:00"),  # crosses the year
        ("2028-02-28T19:00:00", "2028-02-29T00:00:00"),  # leap day
    ],
)
def test_clock_nearest_interval_is_next_tick_at_or_after(accepted: str, starts: str) -> None:
    """"The nearest 6 hour interval" is the next tick at or after the moment the order was
    accepted; an order accepted at exactly 12:00 starts at 12:00."""
    assert next_tick_at_or_after(utc(accepted), R) == utc(starts)


def test_tick_index_counts_from_the_unix_epoch() -> None:
    """Tick indexes count ticks since 1970-01-01T00:00Z, tick 0 being that instant."""
    assert tick_index(UNIX_EPOCH, R) == 0
    assert tick_time(0, R) == UNIX_EPOCH
    assert tick_index(UNIX_EPOCH + timedelta(hours=6), R) == 1
    assert tick_index(UNIX_EPOCH - US, R) == -1
    assert tick_time(4, R) == UNIX_EPOCH + timedelta(days=1)


def test_tick_index_of_a_moment_between_ticks_is_the_latest_tick_before_it() -> None:
    tick = utc("2026-11-22T12:00:00")
    assert tick_index(tick + timedelta(hours=5, minutes=59), R) == tick_index(tick, R)
    assert tick_index(tick - US, R) == tick_index(tick, R) - 1


@given(st.integers(min_value=-200_000, max_value=200_000))
@settings(max_examples=200)
def test_tick_time_and_tick_index_are_inverse(index: int) -> None:
    assert tick_index(tick_time(index, R), R) == index


@given(moments)
@settings(max_examples=200)
def test_tick_index_brackets_every_moment(moment: datetime) -> None:
    index = tick_index(moment, R)
    assert tick_time(index, R) <= moment < tick_time(index + 1, R)
    start = next_tick_at_or_after(moment, R)
    assert moment <= start < moment + timedelta(hours=R.tick_hours)
    assert is_tick(start, R)


def test_tick_length_comes_from_config() -> None:
    rules = replace(R, tick_hours=8)
    assert next_tick_at_or_after(utc("2026-11-22T07:30:00"), rules) == utc("2026-11-22T08:00:00")


def test_naive_datetimes_are_refused() -> None:
    """All datetimes are timezone-aware UTC; a naive one is a bug and raises."""
    with pytest.raises(NaiveDatetime):
        next_tick_at_or_after(datetime(2026, 11, 22, 7, 30), R)
    with pytest.raises(NaiveDatetime):
        game_date(datetime(2026, 11, 22), R)


def test_other_time_zones_are_converted_to_utc() -> None:
    plus_two = timezone(timedelta(hours=2))
    moment = datetime(2026, 11, 22, 14, 0, tzinfo=plus_two)  # 12:00 UTC
    result = next_tick_at_or_after(moment, R)
    assert result == utc("2026-11-22T12:00:00")
    assert result.tzinfo is UTC


# --- the in-game calendar --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("moment", "year", "month"),
    [
        ("2026-01-01T00:00:00", 300, 1),  # the epoch: month 1 of the epoch year
        ("2026-01-01T23:59:59.999999", 300, 1),
        ("2026-01-02T00:00:00", 300, 2),
        ("2026-01-12T12:00:00", 300, 12),  # the twelfth real day: last month of the year
        ("2026-01-13T00:00:00", 301, 1),  # the thirteenth: a new year
        ("2025-12-31T23:59:59", 299, 12),  # before the epoch: earlier years
    ],
)
def test_calendar_one_month_per_real_day_from_midnight(moment: str, year: int, month: int
                                                       ) -> None:
    """Default calendar: one in-game month per real day starting at 00:00 UTC, twelve months a
    year, month 1 of the epoch year at the epoch."""
    assert game_date(utc(moment), R) == GameDate(year, month)


def test_calendar_month_length_and_year_come_from_config() -> None:
    rules = replace(R, month_length=timedelta(days=7), months_per_year=4, epoch_year=10,
                    epoch=utc("2026-03-02T00:00:00"))
    assert game_date(utc("2026-03-08T23:00:00"), rules) == GameDate(10, 1)
    assert game_date(utc("2026-03-09T00:00:00"), rules) == GameDate(10, 2)
    assert game_date(utc("2026-03-30T00:00:00"), rules) == GameDate(11, 1)


@given(moments)
@settings(max_examples=200)
def test_month_start_brackets_every_moment(moment: datetime) -> None:
    date = game_date(moment, R)
    assert month_start(date, R) <= moment < month_start(next_month(date, R), R)
    assert 1 <= date.month <= R.months_per_year


def test_next_month_wraps_the_year() -> None:
    assert next_month(GameDate(300, 12), R) == GameDate(301, 1)
    assert next_month(GameDate(300, 3), R) == GameDate(300, 4)


def test_game_dates_order_chronologically() -> None:
    assert GameDate(300, 12) < GameDate(301, 1) < GameDate(301, 2)


def test_month_boundaries_returns_every_missed_boundary_in_order() -> None:
    """Monthly jobs run at each in-game month boundary, and every missed boundary is run, in
    order, after downtime."""
    last_run = utc("2026-01-11T00:00:00")  # month 11 of 300 began then
    now = utc("2026-01-14T03:00:00")
    bounds = month_boundaries(last_run, now, R)
    assert [b.date for b in bounds] == [GameDate(300, 12), GameDate(301, 1), GameDate(301, 2)]
    assert [b.starts_at for b in bounds] == [utc("2026-01-12T00:00:00"),
                                             utc("2026-01-13T00:00:00"),
                                             utc("2026-01-14T00:00:00")]


def test_month_boundaries_edges() -> None:
    boundary = utc("2026-01-05T00:00:00")
    assert [b.date for b in month_boundaries(boundary - US, boundary, R)] == [GameDate(300, 5)]
    assert month_boundaries(boundary, boundary + timedelta(hours=23), R) == ()


@given(moments, st.integers(min_value=0, max_value=10**6), st.integers(min_value=0,
                                                                        max_value=10**6))
@settings(max_examples=200)
def test_month_boundaries_split_into_runs_never_skip_or_repeat(
    start: datetime, first_minutes: int, second_minutes: int
) -> None:
    middle = start + timedelta(minutes=first_minutes)
    end = middle + timedelta(minutes=second_minutes)
    whole = month_boundaries(start, end, R)
    assert month_boundaries(start, middle, R) + month_boundaries(middle, end, R) == whole
    assert len(whole) == month_number(end, R) - month_number(start, R)


def test_year_end_is_the_start_of_next_years_first_month() -> None:
    """Scattered troops cannot be raised until the in-game year ends."""
    scatter_at = utc("2026-01-05T14:00:00")  # month 5 of 300
    assert year_end(scatter_at, R) == utc("2026-01-13T00:00:00")
    assert scattered_until(scatter_at, R) == utc("2026-01-13T00:00:00")
    assert game_date(year_end(scatter_at, R), R) == GameDate(301, 1)
    last_moment = utc("2026-01-12T23:59:59.999999")
    assert year_end(last_moment, R) == utc("2026-01-13T00:00:00")
    assert year_end(utc("2026-01-13T00:00:00"), R) == utc("2026-01-25T00:00:00")


@pytest.mark.parametrize(
    ("date", "text"),
    [(GameDate(300, 3), "Month 3, 300 AC"), (GameDate(301, 12), "Month 12, 301 AC"),
     (GameDate(-5, 1), "Month 1, -5 AC")],
)
def test_game_date_text(date: GameDate, text: str) -> None:
    assert format_game_date(date) == text
    assert str(date) == text


# --- holidays -------------------------------------------------------------------------------

@given(st.integers(min_value=0, max_value=5000),
       st.datetimes(min_value=datetime(2020, 1, 1), max_value=datetime(2040, 1, 1),
                    timezones=st.just(UTC)),
       st.integers(min_value=-200_000, max_value=200_000))
@settings(max_examples=200)
def test_a_holiday_moves_every_tick_and_the_calendar_on_by_its_length(
        offset: int, moment: datetime, index: int) -> None:
    """After holidays of ``tick_offset`` ticks the world's clock stands that far behind the
    wall clock: each world tick, the tick of each instant, the in-game date and every month and
    dice-period boundary fall that much later on the wall clock, and nothing else changes."""
    held = replace(R, tick_offset=offset)
    later = offset * timedelta(hours=R.tick_hours)
    assert tick_time(index, held) == tick_time(index, R) + later
    assert tick_index(moment + later, held) == tick_index(moment, R)
    assert tick_index(tick_time(index, held), held) == index
    assert next_tick_at_or_after(moment + later, held) == next_tick_at_or_after(moment, R) + later
    assert game_date(moment + later, held) == game_date(moment, R)
    assert month_number(moment + later, held) == month_number(moment, R)
    assert month_start(game_date(moment, R), held) == month_start(game_date(moment, R), R) + later
    assert scattered_until(moment + later, held) == scattered_until(moment, R) + later
    assert period_first_tick(index % 500, 3, held) == period_first_tick(index % 500, 3, R) + later
    day = timedelta(days=2)
    plain = month_boundaries(moment, moment + day, R)
    assert month_boundaries(moment + later, moment + later + day, held) == tuple(
        replace(b, starts_at=b.starts_at + later) for b in plain)


def test_something_logged_before_a_holiday_keeps_the_date_it_had_then() -> None:
    """An event logged in world tick ``t`` at the real instant ``at`` reads with the holidays
    of that time: none before the first holiday, two after a holiday of two ticks, never more
    than the holidays so far (a pause logged while ticks were due does not count them)."""
    held = replace(R, tick_offset=5)
    at = utc("2026-11-23T10:00:00")
    wall = tick_index(at, R)
    assert rules_then(at, wall, held).tick_offset == 0
    assert rules_then(at, wall - 2, held).tick_offset == 2
    assert rules_then(at, wall - 9, held) is held
    assert game_date(at, rules_then(at, wall, held)) == game_date(at, R)
