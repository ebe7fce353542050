"""An order counts from the moment it was sent (real PRAW, a sandbox on the bot's clock).

The sandbox stamps each message with the same manual clock the bot reads, so a message can be
sent ten seconds before a tick and read twenty seconds after it.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlmodel import select

from bot.clock import ManualClock
from bot.db.engine import transaction
from bot.db.models import Army, ArmyState, PendingBattle
from bot.sandbox import RedditSandbox, populate_default_world
from bot.services import pause
from bot.services.world import claim_of_user
from tests.bot.reddit.conftest import Harness, make_harness
from tests.fixtures.db import sqlite_url

START = datetime(2026, 11, 22, 7, 30, tzinfo=UTC)


@pytest.fixture
def timed(tmp_path: Path, praw_home: Path) -> Iterator[Harness]:
    clock = ManualClock(START)
    with RedditSandbox(clock=clock.now) as sandbox:
        populate_default_world(sandbox)
        harness = make_harness(sandbox, sqlite_url(tmp_path / "timed.db"), clock=clock)
        yield harness
        harness.engine.dispose()


def _armies_face_to_face(bot: Harness) -> tuple[int, int]:
    """A Lannister and a Stark army standing on one tile (they are at war)."""
    ids = []
    with transaction(bot.engine) as session:
        for player in ("tywin_lannister", "ned_stark"):
            claim = claim_of_user(session, bot.ctx, player)
            assert claim is not None
            army = Army(campaign_id=bot.ctx.campaign_id, claim_id=claim.id or 0, kind="land",
                        state=ArmyState.STANDING.value, tile="1316", infantry=300,
                        cavalry=0, ships=0)
            session.add(army)
            session.flush()
            ids.append(army.id or 0)
    return ids[0], ids[1]


def _retreat_sent_ten_seconds_before_the_battle(bot: Harness) -> str:
    """Lannister attacks a Stark army; Stark's retreat is sent 10 s before the battle's
    tick; the clock then stands 20 s after that tick. Returns Stark's conversation."""
    lannister, stark = _armies_face_to_face(bot)
    bot.send("tywin_lannister", f"attack army {stark} with army {lannister}")
    bot.poll()
    with transaction(bot.engine) as session:
        battle = session.exec(select(PendingBattle)).one()
    fought_at = bot.ctx.tick_at(battle.resolve_tick)
    bot.clock.set(fought_at - timedelta(seconds=10))
    conversation, _ = bot.send("ned_stark", f"retreat army {stark} to 1315")
    bot.clock.set(fought_at + timedelta(seconds=20))
    return conversation


def test_a_retreat_sent_before_the_tick_and_read_after_it_is_honoured(timed: Harness) -> None:
    """Sent 10 s before the battle's tick, read 20 s after it: the retreat counts, because
    an order counts from the moment it was sent (the tick waits for it)."""
    bot = timed
    conversation = _retreat_sent_ten_seconds_before_the_battle(bot)
    report = bot.poll()
    assert report.ticks_applied >= 1
    bot.publish()
    reply = bot.bot_messages(conversation)[-1]
    assert "will try to retreat" in reply, reply
    with transaction(bot.engine) as session:
        battle = session.exec(select(PendingBattle)).one()
    assert battle.reaction == "retreat" and battle.status != "pending"


def test_an_order_read_after_a_later_tick_was_applied_says_why(timed: Harness) -> None:
    """When the tick after the send time was already applied (the bot was behind), the order
    counts from when it is read and the reply says so."""
    bot = timed
    conversation = _retreat_sent_ten_seconds_before_the_battle(bot)
    from bot.services.tick import catch_up

    catch_up(bot.engine, bot.ctx, bot.clock.now())  # another process applied the tick first
    bot.poll()
    bot.publish()
    reply = bot.bot_messages(conversation)[-1]
    assert "already been applied" in reply and "counts from" in reply, reply


def test_an_order_sent_during_a_holiday_counts_from_the_resume(timed: Harness) -> None:
    """Orders sent while the campaign was paused and read only after a plain ``resume`` (a
    holiday: the world's clock stood still) count from the resume, where the world's clock
    took up again, whenever in the pause they were sent; their replies say so (no tick was
    applied after them). An order sent after the resume counts from its send time as usual."""
    bot = timed
    bot.poll()
    paused_at = START + timedelta(hours=1)
    with transaction(bot.engine) as session:
        pause.pause(session, bot.ctx, note="", until=None, actor="jane", now=paused_at)
    resumed_at = paused_at + timedelta(days=2)
    early, late = [], []
    for sent, out in ((paused_at + timedelta(hours=2), early),
                      (resumed_at - timedelta(hours=1), late)):
        bot.clock.set(sent)
        out.append(bot.send("ned_stark" if out is early else "tywin_lannister",
                            "muster 100 infantry")[0])
    bot.clock.set(resumed_at)
    with transaction(bot.engine) as session:
        pause.resume(session, bot.ctx, catch_up=False, actor="jane", now=resumed_at)
    bot.clock.set(resumed_at + timedelta(minutes=5))
    after, _ = bot.send("hoster_tully", "muster 100 infantry")
    bot.clock.set(resumed_at + timedelta(minutes=10))
    bot.poll()
    bot.publish()
    for conversation, sent in ((early[0], "2026-11-22 10:30"), (late[0], "2026-11-24 07:30")):
        reply = bot.bot_messages(conversation)[-1]
        assert f"You sent this at {sent}" in reply and "while the campaign was paused" in reply
        assert "resumed at 2026-11-24 08:30:00 UTC, so it counts from then" in reply
        assert "already been applied" not in reply
    assert "You sent this" not in bot.bot_messages(after)[-1]
    with transaction(bot.engine) as session:
        accepted = {}
        for player in ("ned_stark", "tywin_lannister", "hoster_tully"):
            claim = claim_of_user(session, bot.ctx, player)
            assert claim is not None
            accepted[player] = [a.accepted_at for a in session.exec(
                select(Army).where(Army.claim_id == claim.id))]
    assert accepted == {"ned_stark": [resumed_at], "tywin_lannister": [resumed_at],
                        "hoster_tully": [resumed_at + timedelta(minutes=5)]}


def test_an_order_sent_during_a_pause_resumed_catching_up_counts_from_its_send_time(
        timed: Harness) -> None:
    """A pause ended with ``resume --catch-up`` is as if there had been none: an order sent
    during it and read after the resume counts from when it was sent (the missed ticks before
    it apply first), and its reply has no note."""
    bot = timed
    bot.poll()
    paused_at = START + timedelta(hours=1)
    with transaction(bot.engine) as session:
        pause.pause(session, bot.ctx, note="", until=None, actor="jane", now=paused_at)
    sent = paused_at + timedelta(hours=8)
    bot.clock.set(sent)
    conversation, _ = bot.send("ned_stark", "muster 100 infantry")
    resumed_at = paused_at + timedelta(days=1)
    bot.clock.set(resumed_at)
    with transaction(bot.engine) as session:
        pause.resume(session, bot.ctx, catch_up=True, actor="jane", now=resumed_at)
    bot.poll()
    bot.publish()
    assert "You sent this" not in bot.bot_messages(conversation)[-1]
    with transaction(bot.engine) as session:
        assert [a.accepted_at for a in session.exec(select(Army))] == [sent]


def test_an_order_sent_during_a_holiday_and_read_after_a_later_tick_says_both(
        timed: Harness) -> None:
    """Sent during a holiday, read only after the resume and after a tick that followed it
    was applied: it counts from when it was read, and the note says why."""
    bot = timed
    bot.poll()
    paused_at = START + timedelta(hours=1)
    with transaction(bot.engine) as session:
        pause.pause(session, bot.ctx, note="", until=None, actor="jane", now=paused_at)
    bot.clock.set(paused_at + timedelta(hours=2))
    conversation, _ = bot.send("ned_stark", "muster 100 infantry")
    resumed_at = paused_at + timedelta(days=2)
    with transaction(bot.engine) as session:
        pause.resume(session, bot.ctx, catch_up=False, actor="jane", now=resumed_at)
    read_at = resumed_at + timedelta(hours=6)
    bot.clock.set(read_at)
    from bot.services.tick import catch_up

    assert len(catch_up(bot.engine, bot.ctx, read_at)) == 1  # another process ticked first
    bot.poll()
    bot.publish()
    reply = bot.bot_messages(conversation)[-1]
    assert "while the campaign was paused; nothing moved until it resumed at 2026-11-24 " \
           "08:30:00 UTC, and it reached the bot only after a later tick had already been " \
           "applied, so it counts from 2026-11-24 14:30:00 UTC" in reply, reply
    with transaction(bot.engine) as session:
        assert [a.accepted_at for a in session.exec(select(Army))] == [read_at]
