"""The world's clock: orders count strictly after the last applied tick."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from rules.campaign.calendar import next_tick_at_or_after
from rules.campaign.config import DEFAULT_RULES
from rules.campaign.timing import world_time

TICK = datetime(2026, 11, 25, tzinfo=UTC)


def test_the_wall_clock_when_the_world_is_not_ahead() -> None:
    wall = TICK + timedelta(hours=2)
    assert world_time(wall, TICK) == wall


def test_just_after_the_last_tick_when_the_world_is_ahead_or_level() -> None:
    for wall in (TICK - timedelta(days=2), TICK):
        moment = world_time(wall, TICK)
        assert TICK < moment < TICK + timedelta(seconds=1)
        # so whatever starts "at the next tick" starts at one still to come
        assert next_tick_at_or_after(moment, DEFAULT_RULES) == TICK + timedelta(hours=6)
