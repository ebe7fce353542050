"""Through Reddit (real PRAW, the sandbox): warnings before losses reach the player privately,
in the claim's dispatch modmail, never in a post or comment; and an order read while the world
stands ahead of the wall clock counts on the world's clock."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.clock import ManualClock
from bot.sandbox import RedditSandbox, populate_default_world
from tests.bot.reddit.conftest import Harness, make_harness, public_texts
from tests.fixtures.db import sqlite_url

START = datetime(2026, 11, 22, 7, 30, tzinfo=UTC)


@pytest.fixture
def timed(tmp_path: Path, praw_home: Path) -> Iterator[Harness]:
    clock = ManualClock(START)
    with RedditSandbox(clock=clock.now) as sandbox:
        populate_default_world(sandbox)
        harness = make_harness(sandbox, sqlite_url(tmp_path / "warn.db"), clock=clock)
        yield harness
        harness.engine.dispose()


def _private_to(bot: Harness, player: str) -> list[tuple[str, str]]:
    found = []
    for conversation in bot.sandbox.conversations():
        if conversation.participant == player:
            found += [(conversation.subject, m.body)
                      for m in bot.sandbox.conversation_messages(conversation.id)]
    return found


def test_the_upkeep_warning_arrives_in_the_dispatch_and_nowhere_public(timed: Harness
                                                                      ) -> None:
    """House Stark (900 gold) raises everything: 540 gold a month. The first upkeep leaves
    360, so the player is warned of next month's 180 gold shortfall, by modmail only."""
    bot = timed
    bot.send("ned_stark", "muster 3000 infantry 600 cavalry")
    bot.poll()
    bot.clock.set(datetime(2026, 11, 23, 0, 30, tzinfo=UTC))  # after the month's upkeep
    bot.drain(step=timedelta(minutes=1))
    stark = _private_to(bot, "ned_stark")
    warnings = [body for subject, body in stark if "**180 gold short**" in body]
    assert len(warnings) == 1, stark
    assert any(subject.startswith("Dispatches for House Stark") for subject, _ in stark)
    assert "1500 infantry, 300 cavalry come home" in warnings[0]
    assert not [b for who in ("tywin_lannister", "hoster_tully")
                for _, b in _private_to(bot, who) if "gold short" in b]
    public = public_texts(bot.sandbox)
    assert public  # the month's public posts went out too
    for where, text in public:
        assert "gold short" not in text and "will scatter" not in text, where


def test_an_order_read_while_the_world_is_ahead_counts_after_its_last_tick(timed: Harness
                                                                          ) -> None:
    """The moderators ticked the world two days ahead (a rehearsal): a player's muster read
    by the running bot counts just after the last applied tick, and the note says when."""
    from bot.services.tick import catch_up

    bot = timed
    catch_up(bot.engine, bot.ctx, datetime(2026, 11, 24, tzinfo=UTC))
    conversation, _ = bot.send("ned_stark", "muster 100 infantry")
    bot.poll()
    bot.publish()
    reply = bot.bot_messages(conversation)[-1]
    assert "so it counts from 2026-11-24 00:00:00 UTC" in reply, reply
    assert "Ready: 2026-11-25 06:00 UTC" in reply, reply
