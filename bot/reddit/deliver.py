"""Effectively-once delivery of the outbox: every post, reply and message appears once.

Each round claims one pending entry at a time (``FOR UPDATE SKIP LOCKED`` on PostgreSQL; on
SQLite the ``BEGIN IMMEDIATE`` transaction plus a conditional UPDATE), counting the attempt in
the claim. The entry is posted with a hidden marker ``[](#maester:KEY)``; if an earlier attempt
may have reached Reddit (the attempt count says so), the bot first looks for that marker (in
its recent posts or comments, or in the conversation) and, if found, only records it. So a
post that Reddit stored before the answer was lost, a crash between posting and recording,
or two deliverers racing never make a second copy.

Failures: a rate limit (429, ``RATELIMIT``, the bot's own budget) postpones every pending
entry until Reddit's wait is over and ends the round, without counting the attempt; 5xx and
timeouts retry later with exponential back-off; a permanent refusal (403, 404, a banned
subreddit, an invalid post) or ``[bot] max_attempts`` failures mark the entry dead and queue
an internal modmail telling the moderators what was lost.

Late entries (more than one tick old, e.g. after downtime) start with a line saying so and
naming the in-game time they belong to.
"""

from __future__ import annotations

import logging
import os
import re
import socket
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from sqlalchemy import ColumnElement, Engine, and_, or_, update
from sqlalchemy.exc import DBAPIError
from sqlmodel import col, select

from bot.clock import Clock
from bot.db.engine import is_sqlite, transaction
from bot.db.models import Outbox, OutboxStatus, PostImage
from bot.reddit.gateway import (
    AuthError,
    Conversation,
    GatewayError,
    PermanentError,
    RateLimited,
    RedditGateway,
    Sent,
    TransientError,
)
from bot.reddit.intake import note_reply
from bot.reddit.media import post_image, submit_post  # issue 13: map pictures
from bot.services import journal
from bot.services.world import CampaignContext
from bot.text import escape_md

log = logging.getLogger(__name__)

MAX_POST_BODY = 40_000
MAX_MESSAGE_BODY = 10_000
MAX_SUBJECT = 100
BACKOFF_BASE = timedelta(seconds=30)
BACKOFF_CAP = timedelta(hours=1)
AUTH_PAUSE = timedelta(minutes=5)
KINDS = ("post", "reply", "message", "mod", "comment")
_KEY_UNSAFE = re.compile(r"[^A-Za-z0-9:_.\-]")


def default_worker_id() -> str:
    """``host:pid``: names the process holding a claim."""
    return f"{socket.gethostname()}:{os.getpid()}"


def marker(key: str) -> str:
    """The hidden markdown that tags a delivered entry (an empty link: renders as nothing)."""
    return f"[](#maester:{_KEY_UNSAFE.sub('_', key)})"


@dataclass(frozen=True, slots=True)
class Claimed:
    """An outbox entry claimed by this worker (a snapshot; the row may change meanwhile)."""

    id: int
    key: str
    kind: str
    target: str
    title: str
    body: str
    flair: str
    tick: int
    attempts: int
    public: bool


@dataclass(slots=True)
class DeliverReport:
    """What one :func:`publish_once` did."""

    delivered: int = 0
    found_existing: int = 0  # an earlier attempt had posted it; only recorded now
    retry_later: int = 0
    dead: int = 0
    rate_limited_until: datetime | None = None
    errors: list[str] = field(default_factory=list)
    delivered_keys: list[str] = field(default_factory=list)


def claim_seconds(ctx: CampaignContext) -> timedelta:
    """How long a claim lasts: longer than any one delivery can take (PRAW retries GETs)."""
    return timedelta(seconds=max(300, 8 * ctx.settings.reddit.timeout_seconds))


def claim_next(engine: Engine, ctx: CampaignContext, *, worker_id: str, now: datetime
               ) -> Claimed | None:
    """Claim the oldest pending entry that is due and not claimed; None if there is none.

    Counts the attempt in the same statement. Two workers never claim the same entry: on
    PostgreSQL the candidate row is locked with ``SKIP LOCKED``; everywhere the UPDATE
    re-checks that the row is still pending and unclaimed.
    """
    until = now + claim_seconds(ctx)
    with transaction(engine) as session:
        query = (
            select(Outbox)
            .where(Outbox.campaign_id == ctx.campaign_id,
                   Outbox.status == OutboxStatus.PENDING.value,
                   or_(col(Outbox.not_before).is_(None), col(Outbox.not_before) <= now),
                   or_(col(Outbox.claimed_until).is_(None), col(Outbox.claimed_until) <= now))
            .order_by(col(Outbox.id))
            .limit(1)
        )
        if not is_sqlite(engine):
            query = query.with_for_update(skip_locked=True)
        row = session.exec(query).first()
        if row is None or row.id is None:
            return None
        # Snapshot before the UPDATE: the ORM refreshes ``row`` from it.
        snapshot = Claimed(row.id, row.key, row.kind, row.target, row.title, row.body,
                           row.flair, row.tick, row.attempts + 1, row.public)
        result = session.execute(
            update(Outbox)
            .where(col(Outbox.id) == row.id,
                   col(Outbox.status) == OutboxStatus.PENDING.value,
                   or_(col(Outbox.claimed_until).is_(None), col(Outbox.claimed_until) <= now))
            .values(claimed_by=worker_id, claimed_until=until, attempts=col(Outbox.attempts) + 1)
        )
        if getattr(result, "rowcount", 0) != 1:
            return None
        return snapshot


def release_claims(engine: Engine, ctx: CampaignContext) -> int:
    """Forget every claim on pending entries (a new lease holder knows nobody else works)."""
    with transaction(engine) as session:
        result = session.execute(
            update(Outbox)
            .where(col(Outbox.campaign_id) == ctx.campaign_id,
                   col(Outbox.status) == OutboxStatus.PENDING.value,
                   col(Outbox.claimed_by).is_not(None))
            .values(claimed_by=None, claimed_until=None))
        return int(getattr(result, "rowcount", 0) or 0)


def compose_body(ctx: CampaignContext, entry: Claimed, now: datetime) -> str:
    """The text to send: a late notice if due, the body (cut to Reddit's limit), the marker."""
    parts = []
    if entry.tick > 0 and ctx.tick_of(now) - entry.tick > 1:
        belongs = ctx.when(ctx.tick_at(entry.tick))
        parts.append(f"*Late: this belongs to {belongs}; it is posted late because the bot "
                     "was offline or Reddit was unavailable.*\n\n")
    tag = "\n\n" + marker(entry.key)
    limit = MAX_POST_BODY if entry.kind == "post" else MAX_MESSAGE_BODY
    text = "".join(parts) + entry.body
    if len(text) + len(tag) > limit:
        note = "\n\n*(cut short: too long for Reddit)*"
        text = text[: limit - len(tag) - len(note)] + note
    return text + tag


def publish_once(engine: Engine, ctx: CampaignContext, gateway: RedditGateway, clock: Clock,
                 *, worker_id: str | None = None, limit: int = 25) -> DeliverReport:
    """Deliver up to ``limit`` due outbox entries, one claim at a time.

    Never raises for Reddit failures (they are recorded on the entries and in the report);
    database errors propagate. Stops at the first rate limit.
    """
    worker = worker_id or default_worker_id()
    report = DeliverReport()
    for _ in range(limit):
        now = clock.now()
        entry = claim_next(engine, ctx, worker_id=worker, now=now)
        if entry is None:
            break
        image = post_image(engine, ctx, entry.key) if entry.kind == "post" else None
        try:
            sent, existing = _deliver(ctx, gateway, entry, now, image=image)
        except (RateLimited, AuthError) as exc:
            wait = timedelta(seconds=exc.wait_seconds) if isinstance(exc, RateLimited) \
                else AUTH_PAUSE
            until = clock.now() + wait
            _postpone(engine, ctx, entry, worker, until, str(exc))
            report.rate_limited_until = until
            report.errors.append(f"{entry.key}: {exc}")
            log.warning("delivery paused until %s: %s", until.isoformat(), exc)
            break
        except TransientError as exc:
            if entry.attempts >= ctx.settings.bot.max_attempts:
                _bury(engine, ctx, entry, worker, clock.now(),
                      f"{exc} (after {entry.attempts} attempts)")
                report.dead += 1
            else:
                _retry_later(engine, ctx, entry, worker, clock.now(), str(exc))
                report.retry_later += 1
            report.errors.append(f"{entry.key}: {exc}")
            continue
        except PermanentError as exc:
            _bury(engine, ctx, entry, worker, clock.now(), str(exc))
            report.dead += 1
            report.errors.append(f"{entry.key}: {exc}")
            continue
        except DBAPIError:
            raise
        except Exception as exc:
            # A bug must not wedge the queue: the entry is retried, then given up like any.
            log.exception("delivering outbox %s failed unexpectedly", entry.key)
            if entry.attempts >= ctx.settings.bot.max_attempts:
                _bury(engine, ctx, entry, worker, clock.now(), f"internal error: {exc!r}")
                report.dead += 1
            else:
                _retry_later(engine, ctx, entry, worker, clock.now(), repr(exc))
                report.retry_later += 1
            report.errors.append(f"{entry.key}: {exc!r}")
            continue
        replied = sent.conversation if entry.kind in ("reply", "message", "mod") else None
        _mark_delivered(engine, ctx, entry, clock.now(), sent.reddit_id, replied,
                        gateway.username)
        report.delivered += 1
        report.found_existing += int(existing)
        report.delivered_keys.append(entry.key)
        if entry.kind == "reply" and replied is not None and ctx.settings.bot.archive_answered:
            try:
                gateway.archive(replied.id)
            except GatewayError as exc:
                log.info("could not archive conversation %s: %s", replied.id, exc)
    return report


def _deliver(ctx: CampaignContext, gateway: RedditGateway, entry: Claimed, now: datetime,
             *, image: PostImage | None = None) -> tuple[Sent, bool]:
    """Post the entry, or find the copy an earlier attempt left: (what exists, found?)."""
    if entry.kind not in KINDS:
        raise PermanentError(f"unknown outbox kind {entry.kind!r}")
    tag = marker(entry.key)
    if entry.attempts > 1:
        found = find_marker(ctx, gateway, entry, tag)
        if found is not None:
            log.info("outbox %s was already on Reddit as %s", entry.key, found.reddit_id)
            return found, True
    body = compose_body(ctx, entry, now)
    if entry.kind == "post":
        return submit_post(gateway, entry.title, body, entry.flair or None, image), False
    if entry.kind == "reply":
        return gateway.reply(entry.target, body), False
    if entry.kind == "comment":
        return gateway.reply_comment(entry.target, body), False
    subject = (entry.title or "News from the maester")[:MAX_SUBJECT]
    recipient = entry.target if entry.kind == "message" else _moderator_recipient(ctx)
    return gateway.start_conversation(recipient, subject, body), False


def _moderator_recipient(ctx: CampaignContext) -> str:
    # No recipient makes an internal moderator discussion; a named moderator works too.
    return sorted(ctx.moderators)[0] if ctx.moderators else ""


def find_marker(ctx: CampaignContext, gateway: RedditGateway, entry: Claimed, tag: str
                ) -> Sent | None:
    """Where an earlier attempt already delivered this entry, if it did."""
    bot = gateway.username.lower()
    if entry.kind == "post":
        for post in gateway.recent_submissions():
            if tag in post.body:
                return Sent(post.fullname)
        return None
    if entry.kind == "comment":
        for comment in gateway.recent_comments():
            if tag in comment.body:
                return Sent(comment.fullname)
        return None
    if entry.kind == "reply":
        conversation = gateway.conversation(entry.target)
        for message in conversation.messages:
            if message.author.lower() == bot and tag in message.body:
                return Sent(message.id, conversation)
        return None
    subject = (entry.title or "News from the maester")[:MAX_SUBJECT]
    folders = ("all", "archived") if entry.kind == "message" else ("mod", "all")
    for folder in folders:
        for seen, summary in enumerate(gateway.conversations(folder)):
            if seen >= 100:
                break
            if summary.subject != subject:
                continue
            if entry.kind == "message" and (summary.participant or "").lower() \
                    != entry.target.lower():
                continue
            full = summary if summary.complete else gateway.conversation(summary.id)
            if _has_tag(full, tag, bot):
                return Sent(full.id, full)
    return None


def _has_tag(conversation: Conversation, tag: str, bot: str) -> bool:
    return any(m.author.lower() == bot and tag in m.body for m in conversation.messages)


# --------------------------------------------------------------------------- recording

def _mine(entry: Claimed, worker: str) -> ColumnElement[bool]:
    """The entry, if still pending and still claimed by this worker."""
    return and_(col(Outbox.id) == entry.id, col(Outbox.status) == OutboxStatus.PENDING.value,
                col(Outbox.claimed_by) == worker)


def _mark_delivered(engine: Engine, ctx: CampaignContext, entry: Claimed, now: datetime,
                    reddit_id: str, replied: Conversation | None, bot: str) -> None:
    with transaction(engine) as session:
        session.execute(
            update(Outbox)
            .where(col(Outbox.id) == entry.id, col(Outbox.status) == OutboxStatus.PENDING.value)
            .values(status=OutboxStatus.DELIVERED.value, reddit_id=reddit_id[:40],
                    delivered_at=now, claimed_by=None, claimed_until=None, last_error=""))
        if replied is not None:
            note_reply(session, ctx, replied, bot)
    log.info("delivered %s %s as %s", entry.kind, entry.key, reddit_id)


def _retry_later(engine: Engine, ctx: CampaignContext, entry: Claimed, worker: str,
                 now: datetime, error: str) -> None:
    delay = min(BACKOFF_CAP, BACKOFF_BASE * (2 ** max(0, entry.attempts - 1)))
    with transaction(engine) as session:
        session.execute(
            update(Outbox).where(_mine(entry, worker))
            .values(not_before=now + delay, claimed_by=None, claimed_until=None,
                    last_error=error[:2000]))
    log.warning("outbox %s failed (attempt %d), retrying after %s: %s", entry.key,
                entry.attempts, delay, error)


def _postpone(engine: Engine, ctx: CampaignContext, entry: Claimed, worker: str,
              until: datetime, error: str) -> None:
    """A rate limit: this attempt does not count, and nothing is tried before ``until``."""
    with transaction(engine) as session:
        session.execute(
            update(Outbox).where(_mine(entry, worker))
            .values(attempts=col(Outbox.attempts) - 1, claimed_by=None, claimed_until=None,
                    last_error=error[:2000]))
        session.execute(
            update(Outbox)
            .where(col(Outbox.campaign_id) == ctx.campaign_id,
                   col(Outbox.status) == OutboxStatus.PENDING.value,
                   or_(col(Outbox.not_before).is_(None), col(Outbox.not_before) < until))
            .values(not_before=until))


def _bury(engine: Engine, ctx: CampaignContext, entry: Claimed, worker: str, now: datetime,
          error: str) -> None:
    """Mark the entry dead and tell the moderators (unless it was itself such a report)."""
    with transaction(engine) as session:
        session.execute(
            update(Outbox).where(_mine(entry, worker))
            .values(status=OutboxStatus.DEAD.value, claimed_by=None, claimed_until=None,
                    last_error=error[:2000]))
        journal.log_event(session, ctx.campaign_id, ctx.tick_of(now), "delivery_dead",
                          f"{entry.kind} {entry.key} could not be delivered: {error}"[:500],
                          at=now, data={"key": entry.key, "target": entry.target})
        if entry.kind != "mod":
            what = {"post": "the public post", "reply": "the modmail reply",
                    "message": "the private message", "comment": "the comment reply"}
            title_line = f"\n\nTitle: {escape_md(entry.title, 300)}" if entry.title else ""
            journal.queue(
                session, ctx.campaign_id, f"dead:{entry.key}"[:120], "mod",
                title=f"maester could not deliver a {entry.kind}"[:MAX_SUBJECT],
                body=(f"maester gave up on {what.get(entry.kind, entry.kind)} `{entry.key}` "
                      f"to {escape_md(entry.target or 'the subreddit', 80)} after "
                      f"{entry.attempts} attempt(s).\n\nReason: {escape_md(error, 500)}"
                      f"{title_line}\n\nIt will not be retried. The text is kept in the "
                      "outbox (`maester` shows dead entries); post it by hand if it matters."),
                at=now, tick=ctx.tick_of(now))
    log.error("outbox %s is dead: %s", entry.key, error)
