"""The world's clock: orders count after the last applied tick (or exactly on it)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from rules.campaign.calendar import next_tick_at_or_after
from rules.campaign.config import DEFAULT_RULES
from rules.campaign.timing import world_time

TICK = datetime(2026, 11, 25, tzinfo=UTC)


def test_the_wall_clock_when_the_world_is_not_ahead() -> None:
    wall = TICK + timedelta(hours=2)
    assert world_time(wall, TICK) == wall


def test_just_after_the_last_tick_when_the_world_is_ahead() -> None:
    moment = world_time(TICK - timedelta(days=2), TICK)
    assert TICK < moment < TICK + timedelta(seconds=1)
    # so whatever starts "at the next tick" starts at one still to come
    assert next_tick_at_or_after(moment, DEFAULT_RULES) == TICK + timedelta(hours=6)


def test_an_order_stamped_exactly_on_the_last_tick_starts_on_it() -> None:
    """Issue #23: an order accepted at 12:00 starts at 12:00, even once the 12:00 tick ran
    (it was moved to just after it, six hours later than the rules' reading)."""
    moment = world_time(TICK, TICK)
    assert moment == TICK
    assert next_tick_at_or_after(moment, DEFAULT_RULES) == TICK
