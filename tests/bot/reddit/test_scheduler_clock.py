"""The scheduler reads the wall clock when it starts: its game-tick job is due at the next
00/06/12/18 UTC after that moment (frozen with freezegun), the heartbeat a minute after it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from freezegun import freeze_time

from bot.runner import BotRunner
from tests.bot.reddit.conftest import Harness


@pytest.mark.parametrize(("now", "next_tick"), [
    ("2026-11-23T11:59:30+00:00", datetime(2026, 11, 23, 12, 0, tzinfo=UTC)),
    ("2026-11-23T12:00:01+00:00", datetime(2026, 11, 23, 18, 0, tzinfo=UTC)),
    ("2026-11-23T23:10:00+00:00", datetime(2026, 11, 24, 0, 0, tzinfo=UTC)),
    ("2026-11-24T04:00:00+01:00", datetime(2026, 11, 24, 6, 0, tzinfo=UTC)),  # 03:00 UTC
])
def test_the_tick_job_is_due_at_the_next_quarter_day_after_the_start(
        bot: Harness, now: str, next_tick: datetime) -> None:
    runner = BotRunner(bot.settings, bot.engine, bot.ctx, bot.gateway, clock=bot.clock)
    with freeze_time(now):
        scheduler = runner.build_scheduler()
        scheduler.start(paused=True)
        try:
            jobs = {job.id: job for job in scheduler.get_jobs()}
            started = datetime.fromisoformat(now).astimezone(UTC)
        finally:
            scheduler.shutdown(wait=False)
    assert jobs["ticks"].next_run_time == next_tick
    assert jobs["heartbeat"].next_run_time == started + timedelta(minutes=1)
