"""Faults: with 20% of Reddit requests failing, every order is answered once and every post
appears once."""

from __future__ import annotations

import re
import time
from collections import Counter
from datetime import timedelta
from pathlib import Path

import prawcore.rate_limit
import pytest

from bot.db.engine import transaction
from bot.reddit.gateway import praw_gateway
from bot.reddit.ratelimit import RequestBudget
from bot.sandbox import BOT_USERNAME, Fault, RedditSandbox
from bot.services import journal
from tests.bot.reddit.conftest import DEMO_PLAYERS, make_harness
from tests.fixtures.db import sqlite_url

ORDERS = 200
POSTS = 40
FAULT_RATE = 0.2
_MARKER = re.compile(r"\[\]\(#maester:([^)]+)\)")


@pytest.mark.slow
def test_twenty_percent_faults_every_order_answered_once_every_post_once(
        sandbox: RedditSandbox, tmp_path: Path, tmp_path_factory: pytest.TempPathFactory,
        fast_retries: list[float],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """200 orders and 40 posts while 20% of requests fail at random (429, 500/503, answers
    that come too late after the post was stored, RATELIMIT): in the end each order has
    exactly one answer and each post, reply and message exists exactly once."""
    # Waits are the clock's business here: prawcore's and the budget's sleeps are skipped.
    monkeypatch.setattr(prawcore.rate_limit.RateLimiter, "delay", lambda self: None)
    bot = make_harness(sandbox, sqlite_url(tmp_path / "soak.db"), tmp_path_factory)
    bot.gateway = praw_gateway(bot.settings, timeout=0.2,
                               budget=RequestBudget(100_000, sleep=lambda s: None))
    players = list(DEMO_PLAYERS)
    sent: dict[str, str] = {}
    for i in range(ORDERS):
        player = players[i % len(players)]
        order = "status" if i % 2 else f"muster {10 + i} infantry"
        conversation, message = bot.send(player, order, subject=f"order {i}")
        sent[message] = conversation
    now = bot.clock.now()
    with transaction(bot.engine) as session:
        for i in range(POSTS):
            journal.queue(session, bot.ctx.campaign_id, f"arrival:{i}:soak", "post",
                          title=f"[Arrival] host {i}", body=f"Host {i} arrives.", at=now,
                          tick=bot.ctx.tick_of(now), target="westeros", public=True)
    sandbox.set_random_faults(FAULT_RATE, [
        Fault.too_many_requests(reset_seconds=0),
        Fault.server_error(500),
        Fault.server_error(503),
        Fault.stored_then_slow(0.45),
        Fault.ratelimit(1, "minutes"),
    ], seed=20261122)
    started = time.monotonic()
    with bot.engine.connect():
        rounds = 0
        while rounds < 120:
            rounds += 1
            bot.poll()
            bot.publish(limit=1000)
            if len(bot.inbox()) == ORDERS and not bot.pending():
                break
            bot.clock.advance(timedelta(minutes=2))
    elapsed = time.monotonic() - started
    hits, requests = sandbox.faults.random_hits, len(sandbox.requests())
    assert hits > 0.1 * requests
    sandbox.clear_faults()

    assert len(bot.inbox()) == ORDERS and not bot.pending(), f"not done after {rounds} rounds"
    assert {e.status for e in bot.outbox()} == {"delivered"}
    # Every order: one answer in its own conversation, carrying its key.
    for message, conversation_id in sent.items():
        answers = [m.body for m in sandbox.conversation_messages(conversation_id)
                   if m.author == BOT_USERNAME]
        assert len(answers) == 1 and f"#maester:reply:{message})" in answers[0]
    # Every outbox key exactly once on Reddit (posts, replies, private news).
    on_reddit: Counter[str] = Counter()
    for post in sandbox.posts(author=BOT_USERNAME):
        on_reddit.update(_MARKER.findall(post.body))
    for view in sandbox.conversations():
        for m in sandbox.conversation_messages(view.id):
            if m.author == BOT_USERNAME:
                on_reddit.update(_MARKER.findall(m.body))
    keys = {e.key for e in bot.outbox()}
    assert set(on_reddit) == keys and set(on_reddit.values()) == {1}
    assert len([k for k in keys if k.startswith("arrival:")]) == POSTS
    print(f"soak: {ORDERS} orders, {len(keys)} outbox entries, {requests} requests, "
          f"{hits} faults, {rounds} rounds, {elapsed:.1f} s")
    bot.engine.dispose()
