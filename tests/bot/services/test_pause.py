"""Pausing the campaign, at the service level: nothing applies however long the pause, no
clock-jump alarm, orders (a moderator's ``as House X:`` ones too) answered paused, and a
holiday that moves every due tick with the world's clock (SQLite and PostgreSQL)."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlmodel import select

from bot.db.engine import transaction
from bot.db.models import Army, Claim, PendingBattle, Snapshot
from bot.messages import handle_message
from bot.services import pause, snapshots
from bot.services.queries import export_world
from bot.services.tick import catch_up, check_catch_up_bound
from bot.services.world import refreshed
from tests.bot.catalogue_world import World, roster
from tests.bot.services import scenario
from tests.bot.services.test_campaign_rules import day

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
        ctx = refreshed(session, ctx)  # the campaign's context, on the clock after the holiday
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


def _lock_ticks(session: Any, ctx: Any) -> dict[str, int | None]:
    """Each claim's scatter lock as the world's tick it ends at (None: no lock)."""
    return {c.name: None if c.scattered_until is None else ctx.tick_of(c.scattered_until)
            for c in session.exec(select(Claim))}


def test_a_rollback_across_a_holiday_keeps_scatter_locks_on_the_worlds_clock(db_url: str
                                                                             ) -> None:
    """Taking back to a snapshot from before a holiday (the holiday itself stays: the world's
    clock keeps its offset) gives the world as it was on the world's clock: a scatter lock
    ends at the same world tick as it would have without the holiday; and a later rollback
    to a snapshot taken after the holiday moves nothing."""
    scenario.build(db_url)
    engine, ctx = scenario.context(db_url)
    catch_up(engine, ctx, scenario.START + DAY)
    with transaction(engine) as session:  # troops scattered, locked until a tick to come
        claim = session.exec(select(Claim).order_by(Claim.id)).first()
        assert claim is not None
        claim.scattered_until = ctx.tick_at(ctx.tick_of(scenario.START + DAY) + 10)
        claim.scattered_infantry = claim.infantry
        session.add(claim)
    with transaction(engine) as session:
        before_holiday = snapshots.take(session, ctx, kind="command", label="adjust",
                                        now=scenario.START + DAY, actor="jane").id
        locks = _lock_ticks(session, ctx)
        world = export_world(session, ctx)
    with transaction(engine) as session:
        pause.pause(session, ctx, note="", until=None, actor="jane", now=scenario.START + DAY)
    with transaction(engine) as session:
        pause.resume(session, ctx, catch_up=False, actor="jane",
                     now=scenario.START + 3 * DAY)
        ctx = refreshed(session, ctx)  # the campaign's context, on the clock after the holiday
        assert _lock_ticks(session, ctx) == locks
    later = scenario.START + 3 * DAY + timedelta(hours=1)
    catch_up(engine, ctx, later + DAY)
    with transaction(engine) as session:
        after_holiday = snapshots.take(session, ctx, kind="command", label="adjust",
                                       now=later + DAY, actor="jane").id
        locks_after = _lock_ticks(session, ctx)
    catch_up(engine, ctx, later + 2 * DAY)

    for back_to, expected in ((after_holiday, locks_after), (before_holiday, locks)):
        with transaction(engine) as session:
            chosen = snapshots.plan(session, ctx, session.get_one(Snapshot, back_to),
                                    later + 2 * DAY)
            snapshots.restore(session, ctx, chosen, actor="jane", now=later + 2 * DAY,
                              force=True)
        with transaction(engine) as session:
            assert _lock_ticks(session, ctx) == expected
            assert ctx.rules.tick_offset == 8  # the holiday stays
    with transaction(engine) as session:
        assert export_world(session, ctx)["claims"] == world["claims"]


# --- a holiday is a pause of the world ----------------------------------------------------

HOLIDAY = timedelta(hours=18)  # three ticks of six hours


def _later_by(text: str, by: timedelta) -> str:
    """``text`` with every wall time in it (``2026-11-23 12:00 UTC``) moved on by ``by``."""
    def move(m: re.Match[str]) -> str:
        moment = datetime.strptime(m.group(1), "%Y-%m-%d %H:%M").replace(tzinfo=UTC) + by
        return f"{moment:%Y-%m-%d %H:%M} UTC"
    return re.sub(r"(\d{4}-\d\d-\d\d \d\d:\d\d) UTC", move, text)


def _played(tmp_path: Path, holiday: timedelta) -> tuple[World, list[str]]:
    """Two hosts on 1316 and a third army on 1317; with a holiday (a pause from 13:00 on
    day 2, resumed ``holiday`` later), then an attack, a muster and a march sent an hour after
    the world's clock stood at 13:00, and ticks until the world has lived to day 4."""
    tmp_path.mkdir()
    w = World(tmp_path, claims=roster("stark", "lannister"))
    w.say("ned_stark", "muster 300 infantry")
    w.say("tywin_lannister", "muster 300 infantry\nmuster 100 infantry")
    w.run(day(2, 12))
    for army_id, tile in ((1, "1316"), (2, "1316"), (3, "1317")):
        w.place(army_id, tile)
    if holiday:
        with w.session() as session:
            pause.pause(session, w.ctx, note="", until=None, actor="jane", now=day(2, 13))
        with w.session() as session:
            summary = pause.resume(session, w.ctx, catch_up=False, actor="jane",
                                   now=day(2, 13) + holiday)
            w.ctx = refreshed(session, w.ctx)  # the clock after the holiday
        assert "holiday of 3 tick(s)" in summary
    replies = [w.say("tywin_lannister", "attack army 1 with army 2", at=day(2, 14) + holiday),
               w.say("ned_stark", "muster 50 infantry", at=day(2, 14) + holiday),
               w.say("tywin_lannister", "move army 3: 1318 > 1319 (cost 2)",
                     at=day(2, 14) + holiday),
               w.say("ned_stark", "status", at=day(2, 15) + holiday)]
    return w, replies


def _ticks(w: World) -> dict[str, Any]:
    with w.session() as session:
        world = export_world(session, w.ctx)
        world["armies"] = [(a.id, a.state, a.tile, a.ready_tick, a.depart_tick, a.arrival_tick,
                            a.stationary_since) for a in session.exec(select(Army))]
        world["battles"] = [(b.id, b.created_tick, b.resolve_tick, b.status)
                            for b in session.exec(select(PendingBattle))]
    del world["campaign"]["last_tick_at"], world["outbox"]
    return world


def test_after_a_holiday_orders_and_ticks_count_on_the_worlds_clock(tmp_path: Path) -> None:
    """A holiday pauses the world: orders sent after it, an hour later on the world's clock
    than the pause began, get the same world ticks (a muster's readiness, a march's departure
    and arrival, an attack's reaction window) as in a campaign that was never paused, their
    receipts name the same times moved on by the holiday, and the ticks that follow play out
    the same, tick for tick."""
    plain, plain_replies = _played(tmp_path / "plain", timedelta(0))
    paused, paused_replies = _played(tmp_path / "holiday", HOLIDAY)
    assert paused.ctx.tick_of(day(2, 14) + HOLIDAY) == plain.ctx.tick_of(day(2, 14))
    assert _ticks(paused) == _ticks(plain)
    assert paused_replies == [_later_by(r, HOLIDAY) for r in plain_replies]
    for hour in (18, 24, 30, 36, 42, 48):
        plain.run(day(2) + timedelta(hours=hour))
        paused.run(day(2) + timedelta(hours=hour) + HOLIDAY)
        assert _ticks(paused) == _ticks(plain), hour
    assert [(e.kind, e.tick, e.data_json) for e in paused.events("battle")] == \
        [(e.kind, e.tick, e.data_json) for e in plain.events("battle")]


def test_a_paused_campaign_answers_the_questions_of_a_letter_that_also_holds_orders(
        tmp_path: Path) -> None:
    w = World(tmp_path, claims=roster("stark", "lannister"))
    with w.session() as session:
        pause.pause(session, w.ctx, note="the feast", until=None, actor="mod_jane", now=w.now)
        before = export_world(session, w.ctx)
    alone = w.say("ned_stark", "status")
    reply = w.say("ned_stark", "muster 10 infantry\nstatus\nhelp siege\n!help")
    sections = reply.split("\n> ")
    muster = next(s for s in sections if "muster 10 infantry" in s.split("\n")[0])
    status = next(s for s in sections if s.split("\n")[0].strip("> ") == "status")
    assert "the campaign is paused until the moderators resume it (the feast)" in muster
    assert "Gold: 900" in status and "paused" not in status
    assert status.split("\n\n", 1)[1].split("\n\n---")[0] in alone  # as if sent alone
    assert "siege Casterly Rock with army" in reply  # help answers too
    assert "!help" in reply and reply.count("the campaign is paused") == 1
    with w.session() as session:
        assert export_world(session, w.ctx) == before  # the muster changed nothing
