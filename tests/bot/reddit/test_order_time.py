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
