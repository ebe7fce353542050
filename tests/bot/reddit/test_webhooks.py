"""Outbound webhooks (issue #30): public posts to ``[webhooks] public``, a claim's private
news to the webhook it registered by modmail, all through the outbox, against the project's
own Discord-compatible receiver over real HTTP (``bot.sandbox.webhooks``) and real PRAW
against the sandbox."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from sqlmodel import col, select

from bot.clock import ManualClock
from bot.db.engine import transaction
from bot.db.models import Army, BotState, Claim, Event, Outbox
from bot.reddit.deliver import BACKOFF_BASE, SENDING
from bot.sandbox import (
    BOT_USERNAME,
    SUBREDDIT,
    RedditSandbox,
    populate_default_world,
)
from bot.sandbox.webhooks import WebhookReceiver
from bot.services import journal
from bot.services.tick import catch_up
from rules.campaign.world import ArmyKind, ArmyState
from tests.bot.reddit.conftest import Harness, make_harness, sandbox_config
from tests.fixtures.db import sqlite_url

REPO = Path(__file__).resolve().parents[3]
PUBLIC_HOOK = "100000000000000001"
STARK_HOOK = "200000000000000002"


@pytest.fixture
def hooks() -> Iterator[WebhookReceiver]:
    with WebhookReceiver() as receiver:
        yield receiver


def hooks_on(bot: Harness, hooks: WebhookReceiver, *, public: bool = True,
             **more: object) -> None:
    """Point the harness's ``[webhooks]`` at the receiver (allowed by prefix)."""
    bot.ctx = bot.ctx.configured(webhooks={
        "allowed_prefixes": [hooks.prefix], "public": [hooks.url(PUBLIC_HOOK)] if public else [],
        "spacing_seconds": 0.0, "timeout_seconds": 2.0, **more})


def post(bot: Harness, key: str, title: str = "[News] The Trident", body: str = "Robert wins."
         ) -> None:
    with transaction(bot.engine) as session:
        journal.queue(session, bot.ctx.campaign_id, key, "post", title=title, body=body,
                      public=True, at=bot.clock.now(), tick=bot.ctx.tick_of(bot.clock.now()),
                      target=SUBREDDIT)


def notify(bot: Harness, claim: str, key: str, body: str) -> None:
    with transaction(bot.engine) as session:
        claim_id = session.exec(select(Claim.id).where(Claim.name == claim)).one()
        assert claim_id is not None
        journal.notify_claim(session, bot.ctx.campaign_id, claim_id, key, subject="News",
                             body=body, at=bot.clock.now(),
                             tick=bot.ctx.tick_of(bot.clock.now()))


def hook_rows(bot: Harness) -> list[Outbox]:
    with transaction(bot.engine) as session:
        return list(session.exec(select(Outbox).where(Outbox.kind == "webhook")
                                 .order_by(col(Outbox.id))).all())


# --------------------------------------------------------------------------- public posts

def test_a_public_post_reaches_the_public_webhook_once_with_its_link(
        bot: Harness, hooks: WebhookReceiver) -> None:
    """Once the post is on Reddit its title, text and link go to the webhook as Discord JSON
    (title as content, text as an embed, no pings); later rounds send nothing more."""
    hooks_on(bot, hooks)
    post(bot, "news:1", body="Robert wins. @everyone rejoice")
    report = bot.publish()
    assert report.delivered_keys[0] == "news:1" and len(report.delivered_keys) == 2
    [posted] = bot.sandbox.posts(author=BOT_USERNAME)
    [message] = hooks.messages(PUBLIC_HOOK)
    assert message.content == "**[News] The Trident**"
    [embed] = message.embeds
    assert embed["title"] == "[News] The Trident"
    assert embed["description"].startswith("Robert wins. @everyone rejoice")
    assert f"/r/{SUBREDDIT}/comments/{posted.id}/" in embed["description"]
    assert message.payload["allowed_mentions"] == {"parse": []}
    [row] = hook_rows(bot)
    assert row.status == "delivered" and row.reddit_id == f"hook:{message.id}"
    assert hooks.url(PUBLIC_HOOK) not in json.dumps([row.target, row.key, row.body])
    for _ in range(2):
        bot.clock.advance(timedelta(minutes=5))
        bot.publish()
    assert len(hooks.messages()) == 1 and hooks.requests == 1


def test_without_public_webhooks_nothing_is_queued(bot: Harness,
                                                   hooks: WebhookReceiver) -> None:
    hooks_on(bot, hooks, public=False)
    post(bot, "news:1")
    bot.publish()
    assert hook_rows(bot) == [] and hooks.requests == 0


@pytest.mark.parametrize("stored", [False, True], ids=["5xx", "stored-then-5xx"])
def test_a_5xx_is_retried_with_back_off(bot: Harness, hooks: WebhookReceiver,
                                        stored: bool) -> None:
    """A 5xx is Discord saying it failed: retried after the outbox's back-off, not before.
    (A server that stored the message and still answered 5xx would show it twice: Discord's
    answer is taken at its word; see docs/moderators.md.)"""
    hooks_on(bot, hooks)
    post(bot, "news:1")
    hooks.fail_next(503, stored=stored)
    first = bot.publish()
    assert first.retry_later == 1
    [row] = hook_rows(bot)
    assert row.status == "pending" and row.attempts == 1 and "503" in row.last_error
    assert bot.publish().delivered == 0  # the back-off holds
    bot.clock.advance(BACKOFF_BASE)
    assert bot.publish().delivered == 1
    assert len(hooks.messages()) == 1 + int(stored)
    assert hooks.requests == 2


def test_a_429_waits_retry_after_for_that_webhook_only(bot: Harness,
                                                       hooks: WebhookReceiver) -> None:
    """A 429 postpones that webhook's notices by Discord's ``retry_after`` without counting
    an attempt; Reddit's entries go on in the same round."""
    hooks_on(bot, hooks)
    post(bot, "news:1")
    post(bot, "news:2", title="[News] Second")
    hooks.limit_next(retry_after=3.0)
    bot.publish()
    assert len(bot.sandbox.posts(author=BOT_USERNAME)) == 2
    rows = hook_rows(bot)
    assert [r.status for r in rows] == ["pending", "pending"]
    assert all(r.attempts == 0 and r.not_before == bot.clock.now() + timedelta(seconds=3)
               for r in rows)
    assert hooks.requests == 1
    bot.clock.advance(timedelta(seconds=2))
    assert bot.publish().delivered == 0 and hooks.requests == 1  # not before retry_after
    bot.clock.advance(timedelta(seconds=1))
    assert bot.publish().delivered == 2
    assert [m.content for m in hooks.messages()] == ["**[News] The Trident**",
                                                     "**[News] Second**"]


def test_webhook_sends_are_spaced_out(bot: Harness, hooks: WebhookReceiver) -> None:
    """``[webhooks] spacing_seconds`` apart (Discord allows about 5 per 2 s per webhook)."""
    from bot.reddit.deliver import Pacer, publish_once

    hooks_on(bot, hooks, spacing_seconds=0.5)
    for i in range(3):
        post(bot, f"news:{i}")
    slept: list[float] = []
    now = [0.0]

    def sleep(seconds: float) -> None:
        slept.append(seconds)
        now[0] += seconds

    pacer = Pacer(0, 0, 0, webhook_spacing=0.5, monotonic=lambda: now[0], sleep=sleep)
    publish_once(bot.engine, bot.ctx, bot.gateway, bot.clock, worker_id="w", pacer=pacer)
    assert len(hooks.messages()) == 3
    assert slept == [0.5, 0.5]


def test_a_deleted_webhook_gives_up_and_tells_the_moderators_without_its_address(
        bot: Harness, hooks: WebhookReceiver) -> None:
    """404 Unknown Webhook: the notice is dead at once; the moderators' note names the
    webhook by its fingerprint, never by its address (which holds its token)."""
    hooks_on(bot, hooks)
    hooks.delete(PUBLIC_HOOK)
    post(bot, "news:1")
    report = bot.publish()
    assert report.dead == 1
    [row] = hook_rows(bot)
    assert row.status == "dead" and "Unknown Webhook" in row.last_error
    notes = [r for r in bot.outbox() if r.key.startswith("dead:")]
    assert len(notes) == 1 and all("sandbox-token" not in r.body for r in notes)
    assert "turned off" in notes[0].body
    post(bot, "news:2")  # the webhook is off: dropped, no second failure nor note
    bot.drain()
    assert [r.status for r in hook_rows(bot)] == ["dead", "delivered"]
    assert hook_rows(bot)[1].reddit_id == "dropped" and hooks.requests == 1
    assert len([r for r in bot.outbox() if r.key.startswith("dead:")]) == 1
    hooks_on(bot, hooks)  # a new address in the config works again
    bot.ctx = bot.ctx.configured(
        webhooks={"public": [hooks.url("300000000000000003", "a-new-token-123")]})
    post(bot, "news:3")
    bot.drain()
    assert [m.webhook for m in hooks.messages()] == ["300000000000000003"]


def test_an_unanswered_request_is_not_sent_again(bot: Harness,
                                                 hooks: WebhookReceiver) -> None:
    """The receiver keeps the message but its answer never comes (a read timeout): the
    notice is recorded as sent, unconfirmed, and never repeated (at most once when the
    outcome is unknown)."""
    hooks_on(bot, hooks, timeout_seconds=0.5)
    post(bot, "news:1")
    hooks.hold_next()
    bot.publish()
    hooks.release()
    [row] = hook_rows(bot)
    assert row.status == "delivered" and row.reddit_id == "unconfirmed"
    bot.clock.advance(timedelta(hours=1))
    bot.publish()
    assert len(hooks.messages()) == 1 and hooks.requests == 1


def _write_config(path: Path, bot: Harness, hooks: WebhookReceiver) -> None:
    sandbox_config(path, bot.sandbox.url, bot.settings.campaign.database_url, agent="webhook",
                   rest=f"""
[bot]
post_spacing_seconds = 0
message_spacing_seconds = 0
sends_per_minute = 0

[dice]
publish = false

[webhooks]
allowed_prefixes = ["{hooks.prefix}"]
public = ["{hooks.url(PUBLIC_HOOK)}"]
spacing_seconds = 0
timeout_seconds = 60
""")


@pytest.mark.slow
def test_kill_9_while_the_webhook_holds_the_answer_sends_it_once(
        bot: Harness, hooks: WebhookReceiver, tmp_path: Path) -> None:
    """``maester publish --once`` is killed (SIGKILL) after its request reached the webhook
    and before the answer came back. The next round finds the entry marked as being sent,
    records it unconfirmed and does not send it again: one message on the webhook."""
    hooks_on(bot, hooks)
    post(bot, "news:1")
    bot.publish(limit=1)  # the post alone: its notice is queued, not sent
    [row] = hook_rows(bot)
    assert row.status == "pending" and hooks.requests == 0
    config = tmp_path / "config.toml"
    _write_config(config, bot, hooks)
    home = tmp_path / "publish-home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items()
           if not k.lower().startswith(("praw", "maester_"))}
    env.update(HOME=str(home), PYTHONPATH=str(REPO))
    hooks.hold_next()
    proc = subprocess.Popen([sys.executable, "-c", "from bot.cli import main; main()",
                             "publish", "--once", "--config", str(config)], cwd=REPO, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while hooks.held == 0:  # the request is at the webhook, its answer held
            assert proc.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
        hooks.release()
    assert len(hooks.messages()) == 1
    [row] = hook_rows(bot)
    assert row.status == "pending" and row.last_error.startswith(SENDING)
    bot.clock.set(bot.clock.now() + timedelta(hours=1))  # the dead process's claim lapses
    report = bot.publish()
    assert report.found_existing == 1
    [row] = hook_rows(bot)
    assert row.status == "delivered" and row.reddit_id == "unconfirmed"
    bot.publish()
    assert len(hooks.messages()) == 1 and hooks.requests == 1


# --------------------------------------------------------------------------- a claim's own

def _stark_hook(hooks: WebhookReceiver) -> str:
    return hooks.url(STARK_HOOK, "stark-secret-token-xyz")


def test_a_claim_registers_its_webhook_and_gets_only_its_own_news(
        bot: Harness, hooks: WebhookReceiver) -> None:
    """``webhook URL`` by modmail: the reply confirms without repeating the token; the
    claim's private news then goes to its webhook as well as to modmail, another claim's
    never; ``webhook off`` stops it, and news queued before is dropped, not sent."""
    hooks_on(bot, hooks, public=False)
    conversation, _ = bot.send("ned_stark", f"webhook {_stark_hook(hooks)}")
    bot.drain()
    [answer] = bot.bot_messages(conversation)
    assert "Done" in answer and "stark-secret-token-xyz" not in answer
    notify(bot, "House Stark", "stark:1", "Your scouts saw 300 men at the Twins.")
    notify(bot, "House Lannister", "lannister:1", "Gold from Casterly Rock.")
    bot.drain()
    [message] = hooks.messages(STARK_HOOK)
    assert "300 men at the Twins" in message.text
    assert all("Casterly" not in m.text for m in hooks.messages())
    assert any("300 men at the Twins" in m.body
               for m in bot.sandbox.private_messages("ned_stark")) or any(
        "300 men at the Twins" in b for c in bot.sandbox.conversations()
        for b in bot.bot_messages(c.id))
    notify(bot, "House Stark", "stark:2", "A raven from the Wall.")
    bot.send("ned_stark", "webhook off")
    bot.drain()
    assert [m.text for m in hooks.messages(STARK_HOOK)] == [message.text]
    assert [r.reddit_id for r in hook_rows(bot)] == [f"hook:{message.id}", "dropped"]
    with transaction(bot.engine) as session:
        logged = [e.summary for e in session.exec(select(Event).where(Event.kind ==
                                                                      "webhook")).all()]
        stored = session.exec(select(BotState.name)).all()
    assert len(logged) == 2 and all("stark-secret" not in s for s in logged)
    assert not any(n.startswith("webhook:") for n in stored)


@pytest.mark.parametrize("url,why", [
    ("http://discord.com/api/webhooks/1/abcdefghijkl", "https"),
    ("https://evil.example/api/webhooks/1/abcdefghijkl", "not a Discord webhook"),
    ("https://discord.com/api/webhooks/1/abcdefghijkl?x=1", "nothing else"),
    ("https://discord.com.evil.example/api/webhooks/1/abcdefghijkl", "not a Discord"),
    ("https://discord.com/api/webhooks/abc/abcdefghijkl", "number and token"),
])
def test_a_bad_address_is_refused_and_changes_nothing(bot: Harness, hooks: WebhookReceiver,
                                                      url: str, why: str) -> None:
    """Only https Discord webhook addresses (or the configured prefixes) are taken; the
    reply says what was wrong, what is expected and gives an example; nothing is stored."""
    hooks_on(bot, hooks, public=False)
    conversation, _ = bot.send("ned_stark", f"webhook {url}")
    bot.drain()
    [answer] = bot.bot_messages(conversation)
    assert "cannot be used" in answer and why in answer
    assert "discord.com/api/webhooks/123456789012345678" in answer  # the example
    with transaction(bot.engine) as session:
        assert not any(n.startswith("webhook:")
                       for n in session.exec(select(BotState.name)).all())


def test_a_handed_over_claim_loses_its_webhook(bot: Harness, hooks: WebhookReceiver) -> None:
    """The old player's webhook never receives the new player's news."""
    from bot.services import tenure

    hooks_on(bot, hooks, public=False)
    bot.send("ned_stark", f"webhook {_stark_hook(hooks)}")
    bot.drain()
    with transaction(bot.engine) as session:
        claim = session.exec(select(Claim).where(Claim.name == "House Stark")).one()
        tenure.transfer(session, bot.ctx, claim, "daenerys_t", add=False, actor="grand_maester",
                        now=bot.clock.now())
    notify(bot, "House Stark", "stark:new", "Welcome, new lord.")
    bot.drain()
    assert hooks.messages(STARK_HOOK) == []


# --------------------------------------------------------------------------- hidden facts

def _hidden(bot: Harness) -> None:
    """Hidden facts: an undetected army of House Lannister standing far from anyone, a
    private sighting for House Stark, private news, a claim's own webhook."""
    notify(bot, "House Lannister", "secret:1", "Our hidden host waits at the Golden Tooth.")
    with transaction(bot.engine) as session:
        lannister = session.exec(select(Claim).where(Claim.name == "House Lannister")).one()
        stark = session.exec(select(Claim).where(Claim.name == "House Stark")).one()
        holdfasts = {lannister.holdfast, stark.holdfast}
        tile = next(t for t in sorted(bot.ctx.world.tiles)
                    if t not in holdfasts and not bot.ctx.world.tiles[t].holdfast
                    and bot.ctx.world.tiles[t].terrain.value not in ("water", "impassable"))
        session.add(Army(campaign_id=bot.ctx.campaign_id, claim_id=lannister.id,
                         kind=ArmyKind.LAND, state=ArmyState.STANDING, tile=tile,
                         infantry=4000, cavalry=900))
        session.add(Event(campaign_id=bot.ctx.campaign_id, tick=bot.ctx.tick_of(
            bot.clock.now()), kind="detection", claim_id=stark.id, public=False,
            summary="a private sighting", data_json={"detected": True}))


def test_hidden_facts_never_reach_the_public_webhook(
        bot: Harness, hooks: WebhookReceiver, tmp_path: Path,
        tmp_path_factory: pytest.TempPathFactory) -> None:
    """Two worlds differing only in hidden facts, through the same ticks (a month boundary
    with its [Realm] post) and the same orders: the public webhook receives the same
    messages from both."""
    received = []
    with RedditSandbox() as other_sandbox, WebhookReceiver() as other_hooks:
        populate_default_world(other_sandbox)
        other = make_harness(other_sandbox, sqlite_url(tmp_path / "other.db"),
                             tmp_path_factory, clock=ManualClock(bot.clock.now()))
        _hidden(other)
        for harness, receiver in ((bot, hooks), (other, other_hooks)):
            hooks_on(harness, receiver)
            harness.send("ned_stark", "muster 300 infantry")
            harness.drain()
            now = harness.clock.now()
            month_end = next(harness.ctx.tick_at(i) for i in range(
                harness.ctx.tick_of(now) + 1, harness.ctx.tick_of(now) + 400)
                if harness.ctx.tick_at(i).day != harness.ctx.tick_at(i - 1).day
                or harness.ctx.tick_at(i).month != harness.ctx.tick_at(i - 1).month)
            harness.clock.set(month_end + timedelta(hours=13))
            catch_up(harness.engine, harness.ctx, harness.clock.now())
            harness.drain()
            texts = [re.sub(r"http://127\.0\.0\.1:\d+", "SITE", m.text)
                     for m in receiver.messages(PUBLIC_HOOK)]
            received.append(texts)
        other.engine.dispose()
    assert received[0], "the scenario made no public post"
    assert any("[Realm]" in t for t in received[0])
    assert received[0] == received[1]
    for text in received[0]:
        assert "Golden Tooth" not in text and "4000" not in text and "sighting" not in text


def test_a_claims_deleted_webhook_is_turned_off_and_the_claim_told(
        bot: Harness, hooks: WebhookReceiver) -> None:
    """A claim's webhook that answers 404 (deleted in Discord) is turned off after the first
    refused notice: the later notes are dropped rather than each failing, and the claim is
    told by modmail how to register one again."""
    hooks_on(bot, hooks, public=False)
    bot.send("ned_stark", f"webhook {_stark_hook(hooks)}")
    bot.drain()
    hooks.delete(STARK_HOOK)
    notify(bot, "House Stark", "stark:1", "First.")
    notify(bot, "House Stark", "stark:2", "Second.")
    bot.drain()
    assert [r.status for r in hook_rows(bot)] == ["dead", "delivered"]
    assert hook_rows(bot)[1].reddit_id == "dropped"
    assert hooks.requests == 1
    with transaction(bot.engine) as session:
        assert not any(n.startswith("webhook:")
                       for n in session.exec(select(BotState.name)).all())
    told = [r for r in bot.outbox() if r.key.startswith("hook-gone:")]
    assert told and told[0].status == "delivered" and "webhook URL" in told[0].body


def test_undo_lists_webhook_notices_already_sent(bot: Harness,
                                                 hooks: WebhookReceiver) -> None:
    """Taking back a tick whose [Realm] post went to the public webhook: the notice is listed
    with the posts (it cannot be taken back from Discord), so undo needs force."""
    from bot.db.models import Snapshot
    from bot.services import snapshots

    hooks_on(bot, hooks)
    bot.clock.advance(timedelta(days=1))  # a month begins: the [Realm] post
    bot.drain()
    assert any("[Realm]" in m.content for m in hooks.messages())
    with transaction(bot.engine) as session:
        first = session.exec(select(Snapshot).order_by(col(Snapshot.id))).first()
        assert first is not None
        chosen = snapshots.plan(session, bot.ctx, first, bot.clock.now())
    notices = [e for e in chosen.sent if e.kind == "webhook"]
    assert notices and all(not e.deletable for e in notices)
    assert "cannot be taken back" in notices[0].describe()
    assert hooks.url(PUBLIC_HOOK) not in notices[0].describe()
