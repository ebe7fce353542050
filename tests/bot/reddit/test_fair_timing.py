"""Fair timing on every intake path (#24 item 1): an order sent before a tick counts before
it, whatever folder Reddit files it in, however late it is read, and whichever wake-up comes
first (a poll, the heartbeat, the tick's own wake-up, a restart).

Real PRAW against a sandbox that stamps messages with the bot's manual clock, a real SQLite
file, the real runner (its scheduler is not started: the test calls its jobs in the order
hypothesis chooses). A reply with a late note ("reached the bot only after a later tick")
means the order counted after a tick it was sent before.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlmodel import col, select

from bot.clock import ManualClock
from bot.db.engine import transaction
from bot.db.models import Campaign, InboxMessage, Outbox
from bot.reddit.gateway import praw_gateway
from bot.reddit.ratelimit import RequestBudget
from bot.runner import BotRunner
from bot.sandbox import SUBREDDIT, Fault, RedditSandbox, populate_default_world
from bot.services.tick import advancer
from tests.bot.reddit.conftest import TIMEOUT, Harness, make_harness
from tests.fixtures.db import sqlite_url

LATE = "reached the bot only after a later tick"
#: A player who moderates the subreddit but is not one of the campaign's moderators.
PLAYER_MODERATOR = "hoster_tully"
PLAYERS = ("ned_stark", "tywin_lannister", PLAYER_MODERATOR)
CHANNELS = ("new", "reply", "filtered", "post", "mod")
#: Ten minutes before a tick (the demo campaign ticks at 00, 06, 12 and 18 UTC).
START = datetime.fromisoformat("2026-11-22T05:50:00+00:00")


@dataclass
class World:
    """One scenario's bot, and what its players sent when."""

    bot: Harness
    runner: BotRunner
    sent: dict[str, datetime] = field(default_factory=dict)  # message or post id -> time
    conversations: dict[str, str] = field(default_factory=dict)  # player -> conversation
    posts: list[str] = field(default_factory=list)  # posts AutoModerator has not forwarded

    def restart(self) -> None:
        """A new process: a new Reddit session and runner, then its start-up."""
        gateway = praw_gateway(self.bot.settings, budget=RequestBudget(100_000, max_wait=5.0),
                               timeout=TIMEOUT)
        self.runner = BotRunner(self.bot.settings, self.bot.engine, self.bot.ctx, gateway,
                                clock=self.bot.clock)
        self.runner.start_up()

    def automoderator(self) -> None:
        """AutoModerator forwards the posts made since it last ran (it lags behind them)."""
        for post in self.posts:
            self.bot.sandbox.automod_forward(
                f"t3_{post}", subject="Orders from u/x",
                template="{{permalink}}\n\nOrders posted by u/{{author}}: {{title}}")
        self.posts.clear()


def _world(tmp_path: Path, tmp_factory: pytest.TempPathFactory,
           tick_wait_minutes: int = 24 * 60) -> Iterator[World]:
    clock = ManualClock(START)
    with RedditSandbox(clock=clock.now) as sandbox:
        populate_default_world(sandbox)
        bot = make_harness(sandbox, sqlite_url(tmp_path / "fair.db"), tmp_factory,
                           clock=clock, tick_wait_minutes=tick_wait_minutes)
        sandbox.add_moderator(SUBREDDIT, PLAYER_MODERATOR)
        runner = BotRunner(bot.settings, bot.engine, bot.ctx, bot.gateway, clock=clock)
        with bot.engine.connect():
            yield World(bot, runner)
        bot.engine.dispose()


def _send(world: World, channel: str, player: str) -> None:
    """``player`` sends "status" (or an attack, which the harassment filter catches) in a
    new conversation, as a reply in their last one, or as an orders post. The player who
    moderates the subreddit always writes Mod Discussions (Reddit files them so)."""
    bot, now = world.bot, world.bot.clock.now()
    if channel == "post":
        post = bot.sandbox.submit_post(player, "[Orders] spring", "status",
                                       subreddit=SUBREDDIT)
        world.sent[f"t3_{post}"] = now
        world.posts.append(post)
        return
    body = "attack army 998 with army 999" if channel == "filtered" else "status"
    known = world.conversations.get(player)
    if channel == "reply" and known is not None:
        if player == PLAYER_MODERATOR:
            message = bot.sandbox.moderator_writes(known, player, body)
        else:
            message = bot.sandbox.reply_modmail(known, player, body)
        world.sent[message] = now
        return
    conversation, message = bot.send(player, body)
    world.conversations[player] = conversation
    world.sent[message] = now


def _run(world: World, step: tuple[str, ...] | tuple[str, int]) -> None:
    kind = step[0]
    if kind == "wait":
        world.bot.clock.advance(timedelta(seconds=int(step[1])))
        return
    if kind == "send":
        _send(world, str(step[1]), str(step[2]))
        return
    world.automoderator()  # whatever AutoModerator forwards is there before the bot looks
    if kind == "poll":
        world.runner.poll()
    elif kind == "heartbeat":
        world.runner.heartbeat()
    elif kind == "tick":
        world.runner.wake("tick")
    elif kind == "restart":
        world.restart()


_steps = st.lists(st.one_of(
    st.tuples(st.just("send"), st.sampled_from(CHANNELS), st.sampled_from(PLAYERS)),
    st.tuples(st.just("wait"), st.integers(1, 3 * 3600)),
    st.tuples(st.sampled_from(("poll", "heartbeat", "tick", "restart"))),
), min_size=4, max_size=14)


@settings(max_examples=12, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture,
                                 HealthCheck.too_slow])
@given(steps=_steps)
def test_every_order_sent_before_a_tick_counts_before_it(
        steps: list[tuple[str, ...]], tmp_path_factory: pytest.TempPathFactory) -> None:
    """Messages interleaved across folders (all, filtered, Mod Discussions), conversations
    (new ones and replies added later), AutoModerator forwards (timed by their posts),
    restarts, heartbeats and tick wake-ups: every order is answered once, and none counts
    after a tick it was sent before."""
    for world in _world(tmp_path_factory.mktemp("fair"), tmp_path_factory):
        for step in steps:
            _run(world, step)
        world.automoderator()
        world.runner.poll()
        _check(world)


def _check(world: World) -> None:
    bot = world.bot
    with transaction(bot.engine) as session:
        rows = session.exec(select(InboxMessage)).all()
        replies = {o.key: o.body for o in session.exec(
            select(Outbox).where(col(Outbox.key).startswith("reply:"))).all()}
        last_tick = session.exec(select(Campaign)).one().last_tick
    assert last_tick == bot.ctx.tick_of(bot.clock.now())
    handled = {r.message_id: r for r in rows}
    for key, sent_at in world.sent.items():
        assert key in handled, f"{key} (sent {sent_at}) was never read"
    forwards = {r.message_id for r in rows if r.outcome == "forward"}
    assert len(forwards) == len([k for k in world.sent if k.startswith("t3_")])
    for message_id in [k for k in world.sent if not k.startswith("t3_")] + sorted(forwards):
        reply = replies.get(f"reply:{message_id}", "")
        assert reply, f"no reply to {message_id}"
        assert LATE not in reply, reply


def _posted_just_before_the_tick(world: World) -> datetime:
    """Ned posts orders ten seconds before the next tick; the clock then stands twenty
    seconds after it. Returns the tick's time."""
    tick_at = world.bot.ctx.tick_at(world.bot.ctx.tick_of(START) + 1)
    world.bot.clock.set(tick_at - timedelta(seconds=10))
    _send(world, "post", "ned_stark")
    world.bot.clock.set(tick_at + timedelta(seconds=20))
    return tick_at


def test_a_forward_is_timed_by_its_post(tmp_path: Path,
                                        tmp_path_factory: pytest.TempPathFactory) -> None:
    """#24 (e): posted ten seconds before the tick, forwarded by AutoModerator twenty seconds
    after it, read later still: it counts before the tick (no late note)."""
    for world in _world(tmp_path, tmp_path_factory):
        bot = world.bot
        tick_at = _posted_just_before_the_tick(world)
        world.automoderator()
        bot.clock.set(tick_at + timedelta(minutes=3))
        world.runner.heartbeat()  # catches up only as far as the intake has read
        with transaction(bot.engine) as session:
            assert session.exec(select(Campaign)).one().last_tick == bot.ctx.tick_of(START)
        report = world.runner.poll()
        assert report is not None and report.forwards == 1 and report.ticks_applied == 1
        _check(world)


def test_start_up_reads_the_downtimes_orders_before_catching_up(
        tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    """#24 (b): orders sent while the bot was down, before two ticks that fell in the
    downtime, count before them: the start-up round reads them first."""
    for world in _world(tmp_path, tmp_path_factory):
        bot = world.bot
        world.runner.poll()
        bot.clock.advance(timedelta(minutes=5))
        _send(world, "filtered", "ned_stark")
        bot.clock.advance(timedelta(seconds=1))
        _send(world, "new", "tywin_lannister")
        bot.clock.advance(timedelta(hours=7))  # down across the 06:00 and 12:00 ticks
        world.restart()
        _check(world)
        with transaction(bot.engine) as session:
            assert session.exec(select(Campaign)).one().last_tick == bot.ctx.tick_of(START) + 2


def test_a_due_tick_waits_for_unreadable_modmail_at_most_tick_wait_minutes(
        tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    """#24 (c): while Reddit cannot be read the heartbeat does not apply a due tick past the
    last complete round; after ``tick_wait_minutes`` the game goes on (a late order then
    says so)."""
    for world in _world(tmp_path, tmp_path_factory, tick_wait_minutes=30):
        bot = world.bot
        world.runner.poll()
        first = bot.ctx.tick_of(START)
        bot.sandbox.add_fault(Fault.server_error(503),
                              path="/api/mod/conversations/unread/count", times=None)
        tick_at = bot.ctx.tick_at(first + 1)
        bot.clock.set(tick_at + timedelta(minutes=5))
        world.runner.heartbeat()
        report = world.runner.poll()
        assert report is not None and report.errors  # the round failed, and said so
        world.runner.wake("tick")
        with transaction(bot.engine) as session:
            assert session.exec(select(Campaign)).one().last_tick == first
        bot.clock.set(tick_at + timedelta(minutes=30))
        world.runner.heartbeat()  # 30 minutes past the tick: the game goes on
        with transaction(bot.engine) as session:
            assert session.exec(select(Campaign)).one().last_tick == first + 1


def test_a_forward_read_after_a_later_tick_gets_the_late_note(
        tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    """#24 (e): a forwarded orders post that could only be read after its tick was applied
    (here the moderators applied it by hand) is answered with the late note, like any
    order."""
    for world in _world(tmp_path, tmp_path_factory):
        bot = world.bot
        _posted_just_before_the_tick(world)
        assert advancer(bot.engine, bot.ctx)(bot.clock.now()) == 1  # `maester tick`
        world.automoderator()
        report = world.runner.poll()
        assert report is not None and report.forwards == 1
        with transaction(bot.engine) as session:
            (reply,) = session.exec(select(Outbox).where(
                col(Outbox.key).startswith("reply:"))).all()
        assert reply.body.startswith("*You sent this at") and LATE in reply.body
