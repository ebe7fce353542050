"""Pausing the campaign, at the service level: nothing applies however long the pause, no
clock-jump alarm, orders (a moderator's ``as House X:`` ones too) answered paused, and a
holiday that moves every due tick with the world's clock (SQLite and PostgreSQL)."""

from __future__ import annotations

from datetime import timedelta

from sqlmodel import select

from bot.db.engine import transaction
from bot.db.models import Army
from bot.messages import handle_message
from bot.services import pause
from bot.services.queries import export_world
from bot.services.tick import catch_up, check_catch_up_bound
from tests.bot.services import scenario

DAY = timedelta(days=1)


def test_a_long_pause_applies_nothing_and_a_holiday_moves_every_due_tick(db_url: str) -> None:
    scenario.build(db_url)
    engine, ctx = scenario.context(db_url)
    catch_up(engine, ctx, scenario.START + DAY)
    paused_at = scenario.START + DAY + timedelta(hours=1)
    with transaction(engine) as session:
        pause.pause(session, ctx, note="", until=None, actor="jane", now=paused_at)
        world = export_world(session, ctx)
        due = {a.id: (a.ready_tick, a.arrival_tick) for a in session.exec(select(Army))}
    later = paused_at + 40 * DAY  # beyond [bot] max_catch_up_days: no alarm while paused
    assert catch_up(engine, ctx, later) == []
    with transaction(engine) as session:
        assert check_catch_up_bound(session, ctx, later) == 0
        for text in ("muster 10 infantry", "as House Stark: muster 10 infantry"):
            reply = handle_message(session, ctx, author="mod_jane" if "as " in text
                                   else "ned_stark", text=text, now=later, ref=text)
            assert "the campaign is paused until the moderators resume it" in reply
        assert "paused" not in handle_message(session, ctx, author="ned_stark",
                                              text="status", now=later, ref="q")
    before = ctx.tick_at(world["campaign"]["last_tick"])
    with transaction(engine) as session:
        assert export_world(session, ctx) == world
        summary = pause.resume(session, ctx, catch_up=False, actor="jane", now=later)
    assert "holiday of 160 tick(s)" in summary
    assert catch_up(engine, ctx, later) == []
    assert len(catch_up(engine, ctx, later + DAY)) == 4
    # In world ticks nothing moved; in wall time every due tick moved by the holiday.
    assert ctx.tick_at(world["campaign"]["last_tick"]) - before == 40 * DAY
    with transaction(engine) as session:
        moved = {a.id: (a.ready_tick, a.arrival_tick) for a in session.exec(select(Army))}
    assert moved == due  # the same world ticks: each falls 40 days later on the wall clock


def test_resume_with_catch_up_applies_the_missed_ticks_in_order(db_url: str) -> None:
    scenario.build(db_url)
    engine, ctx = scenario.context(db_url)
    catch_up(engine, ctx, scenario.START + DAY)
    with transaction(engine) as session:
        pause.pause(session, ctx, note="", until=None, actor="jane",
                    now=scenario.START + DAY)
    with transaction(engine) as session:
        pause.resume(session, ctx, catch_up=True, actor="jane", now=scenario.START + 3 * DAY)
    applied = catch_up(engine, ctx, scenario.START + 3 * DAY)
    assert len(applied) == 8 and [r.tick for r in applied] == list(
        range(applied[0].tick, applied[0].tick + 8))
