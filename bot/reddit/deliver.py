"""Effectively-once delivery of the outbox: every post, reply and message appears once.

Each round claims one pending entry at a time (``FOR UPDATE SKIP LOCKED`` on PostgreSQL; on
SQLite the ``BEGIN IMMEDIATE`` transaction plus a conditional UPDATE), counting the attempt in
the claim. The entry is posted with a hidden marker ``[](#maester:KEY)``; if an earlier attempt
may have reached Reddit (the attempt count says so), the bot first looks for that marker (in
its recent posts or comments, or in the conversation) and, if found, only records it. So a
post that Reddit stored before the answer was lost, a crash between posting and recording,
or two deliverers racing never make a second copy.

Public posts and comments also end with a small visible line, ``^(maester mref-HASH)``
(:func:`reference`): Reddit stores a post with a picture as rich text, and how a link without
text survives that conversion is recorded nowhere, so the search for an earlier copy takes
either the marker or the reference. Its hash names neither the entry's key nor any army.

Failures: a rate limit (429, ``RATELIMIT``, the bot's own budget) postpones every pending
entry until Reddit's wait is over and ends the round, without counting the attempt; 5xx and
timeouts retry later with exponential back-off; a refusal of the entry itself (a post Reddit
rejects, a conversation that is gone) or ``[bot] max_attempts`` failures mark the entry dead
and queue an internal modmail telling the moderators what was lost. A refusal that would
refuse everything sent the same way (a wrong or banned subreddit, a missing moderator
permission, a scope the token lacks: ``PermanentError.systemic``) kills nothing: only that
lane of delivery (posting, modmail or deleting) halts, every entry stays pending, the
moderators are told once per lane, and one entry of a halted lane is
tried again every :data:`~bot.reddit.state.HALT_PROBE` (or at once after
``maester outbox retry``). Refused credentials back off (1 minute doubling to 1 hour) and the
moderators are told once (see :mod:`bot.reddit.state`).

Private news to a claim (``message`` entries with a claim) goes into the claim's **dispatch
conversation**, which the bot keeps replying into for ``[bot] dispatch_days`` (a week of
real time, and of the world's time when a rehearsal ticked it ahead of the wall clock: see
:func:`news_moment`), named after the in-game month it started in; every note a tick queued
for the claim is gathered into one message. Before starting a new one the bot looks for a live one
it already wrote in (a "create" whose answer was lost), so a claim never gets two at once.
This is done here, at delivery, so the tick only queues notes.

Pacing: posts are spaced ``[bot] post_spacing_seconds`` apart, messages and replies
``message_spacing_seconds``, and at most ``sends_per_minute`` go out in any minute, counted
for the bot's account across every process on the machine (:mod:`bot.reddit.pacing`); a
round that would have to wait longer than ``MAX_PACE_WAIT`` ends and the next round goes on.

Late entries (more than one tick old, e.g. after downtime) start with a line saying so and
naming the in-game time they belong to.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import socket
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import ColumnElement, Engine, and_, or_, update
from sqlalchemy.exc import DBAPIError
from sqlmodel import col, select

from bot.clock import Clock
from bot.db.engine import is_sqlite, transaction
from bot.db.models import Claim, Outbox, OutboxStatus, PostImage
from bot.reddit import state
from bot.reddit.gateway import (
    SCOPES,
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
from bot.reddit.lease import LeaseLost
from bot.reddit.media import post_image, submit_post  # map pictures
from bot.reddit.pacing import Pacer
from bot.reddit.webhook import HookUnanswered, HookUnreachable, Poster
from bot.reddit.webhook import post as post_webhook
from bot.services import journal, webhooks
from bot.services.world import CampaignContext
from bot.text import escape_md
from rules.campaign import calendar

log = logging.getLogger(__name__)

MAX_POST_BODY = 40_000
MAX_MESSAGE_BODY = 10_000
MAX_SUBJECT = 100
BACKOFF_BASE = timedelta(seconds=30)
BACKOFF_CAP = timedelta(hours=1)
KINDS = ("post", "reply", "note", "message", "mod", "comment", "delete", "widget", "webhook")
#: ``last_error`` of a webhook entry while its request is out: found by the next attempt, it
#: means the earlier one may have been delivered (see :func:`_deliver_hook`).
SENDING = "sending to the webhook"
DISPATCH_SUBJECT = "Dispatches for {claim}: {month}"
_KEY_UNSAFE = re.compile(r"[^A-Za-z0-9:_.\-]")
REFERENCE_LENGTH = 12
#: Kinds that go out in public, as Reddit posts or comments: they carry a visible reference.
PUBLIC_KINDS = ("post", "comment")


def default_worker_id() -> str:
    """``host:pid``: names the process holding a claim."""
    return f"{socket.gethostname()}:{os.getpid()}"


def marker(key: str) -> str:
    """The hidden markdown that tags a delivered entry (an empty link: renders as nothing)."""
    return f"[](#maester:{_KEY_UNSAFE.sub('_', key)})"


def reference(ctx: CampaignContext, key: str) -> str:
    """The visible reference of a public post or comment: a hash of the subreddit, the
    campaign and the entry's key. Unlike the hidden marker it is plain text, which survives
    whatever Reddit makes of a body (rich text conversion may drop a link without text),
    and it names no army or claim."""
    digest = hashlib.sha256(
        f"{ctx.settings.campaign.subreddit.lower()}:{ctx.campaign_id}:{key}".encode()
    ).hexdigest()[:REFERENCE_LENGTH]
    return f"mref-{digest}"


def reference_line(ctx: CampaignContext, key: str) -> str:
    """The small line under a public post or comment that carries :func:`reference`."""
    return f"^(maester {reference(ctx, key)})"


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
    claim_id: int | None = None
    last_error: str = ""

    @property
    def dispatch(self) -> bool:
        """Private news to a claim: goes into the claim's dispatch conversation."""
        return self.kind == "message" and self.claim_id is not None


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
    halted: str = ""  # why delivery (of some kind) is halted
    sends: int = 0  # posts, messages and replies sent to Reddit (a dispatch counts once)
    paced_seconds: float = 0.0


def claim_seconds(ctx: CampaignContext) -> timedelta:
    """How long a claim lasts: longer than any one delivery can take (PRAW retries GETs)."""
    return timedelta(seconds=max(300, 8 * ctx.settings.reddit.timeout_seconds))


def claim_next(engine: Engine, ctx: CampaignContext, *, worker_id: str, now: datetime,
               skip_kinds: Sequence[str] = ()) -> Claimed | None:
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
                   Outbox.status == OutboxStatus.PENDING,
                   or_(col(Outbox.not_before).is_(None), col(Outbox.not_before) <= now),
                   or_(col(Outbox.claimed_until).is_(None), col(Outbox.claimed_until) <= now))
            .order_by(col(Outbox.id))
            .limit(1)
        )
        if skip_kinds:
            query = query.where(col(Outbox.kind).not_in(list(skip_kinds)))
        if not is_sqlite(engine):
            query = query.with_for_update(skip_locked=True)
        row = session.exec(query).first()
        if row is None or row.id is None:
            return None
        # Snapshot before the UPDATE: the ORM refreshes ``row`` from it.
        snapshot = _snapshot(row)
        result = session.execute(
            update(Outbox)
            .where(col(Outbox.id) == row.id,
                   col(Outbox.status) == OutboxStatus.PENDING,
                   or_(col(Outbox.claimed_until).is_(None), col(Outbox.claimed_until) <= now))
            .values(claimed_by=worker_id, claimed_until=until, attempts=col(Outbox.attempts) + 1)
        )
        if getattr(result, "rowcount", 0) != 1:
            return None
        return snapshot


def _snapshot(row: Outbox) -> Claimed:
    """An entry as claimed (taken before the UPDATE: the ORM refreshes ``row`` from it)."""
    assert row.id is not None
    return Claimed(row.id, row.key, row.kind, row.target, row.title, row.body, row.flair,
                   row.tick, row.attempts + 1, row.public, row.claim_id, row.last_error)


def claim_siblings(engine: Engine, ctx: CampaignContext, first: Claimed, *, worker_id: str,
                   now: datetime, room: int) -> list[Claimed]:
    """Claim the other private notes of the same tick for the same claim and player, oldest
    first, as long as their bodies fit in ``room`` characters: they go out as one message."""
    until = now + claim_seconds(ctx)
    out: list[Claimed] = []
    with transaction(engine) as session:
        query = (
            select(Outbox)
            .where(Outbox.campaign_id == ctx.campaign_id,
                   Outbox.status == OutboxStatus.PENDING,
                   Outbox.kind == "message", Outbox.claim_id == first.claim_id,
                   Outbox.target == first.target, Outbox.tick == first.tick,
                   col(Outbox.id) != first.id,
                   or_(col(Outbox.not_before).is_(None), col(Outbox.not_before) <= now),
                   or_(col(Outbox.claimed_until).is_(None), col(Outbox.claimed_until) <= now))
            .order_by(col(Outbox.id))
            .limit(50)
        )
        if not is_sqlite(engine):
            query = query.with_for_update(skip_locked=True)
        for row in session.exec(query).all():
            size = len(row.body) + len(row.title) + 200
            if size > room:
                break
            snapshot = _snapshot(row)
            result = session.execute(
                update(Outbox)
                .where(col(Outbox.id) == row.id,
                       col(Outbox.status) == OutboxStatus.PENDING,
                       or_(col(Outbox.claimed_until).is_(None),
                           col(Outbox.claimed_until) <= now))
                .values(claimed_by=worker_id, claimed_until=until,
                        attempts=col(Outbox.attempts) + 1))
            if getattr(result, "rowcount", 0) == 1:
                out.append(snapshot)
                room -= size
    return out


def release_claims(engine: Engine, ctx: CampaignContext) -> int:
    """Forget every claim on pending entries (a new lease holder knows nobody else works)."""
    with transaction(engine) as session:
        result = session.execute(
            update(Outbox)
            .where(col(Outbox.campaign_id) == ctx.campaign_id,
                   col(Outbox.status) == OutboxStatus.PENDING,
                   col(Outbox.claimed_by).is_not(None))
            .values(claimed_by=None, claimed_until=None))
        return int(getattr(result, "rowcount", 0) or 0)


def compose_body(ctx: CampaignContext, entry: Claimed, now: datetime) -> str:
    """The text to send: a late notice if due, the body (cut to Reddit's limit), the marker."""
    return compose_group(ctx, [entry], now, headings=False)


def preview_body(ctx: CampaignContext, row: Outbox, now: datetime) -> str:
    """The text a delivery at ``now`` would send for ``row`` (``maester outbox show``): the
    same composition as :func:`_deliver` (a dispatch note alone, under its title; notes
    to one claim that leave in the same round are joined in one message)."""
    entry = _snapshot(row)
    return compose_group(ctx, [entry], now) if entry.dispatch else compose_body(ctx, entry, now)


def compose_group(ctx: CampaignContext, entries: Sequence[Claimed], now: datetime, *,
                  headings: bool = True) -> str:
    """Several notes as one message: each under its title, then every entry's marker (so a
    retry finds the message by any of them); cut to Reddit's limit."""
    first = entries[0]
    parts = []
    if first.tick > 0 and ctx.tick_of(now) - first.tick > 1:
        belongs = ctx.when(ctx.tick_at(first.tick))
        parts.append(f"*Late: this belongs to {belongs}; it is posted late because the bot "
                     "was offline or Reddit was unavailable.*\n\n")
    if headings:
        parts.append("\n\n---\n\n".join(
            (f"**{escape_md(e.title, 300)}**\n\n" if e.title else "") + e.body
            for e in entries))
    else:
        parts.append(first.body)
    tag = "\n\n" + " ".join(marker(e.key) for e in entries)
    if first.kind in PUBLIC_KINDS:
        tag = f"\n\n{reference_line(ctx, first.key)}" + tag
    limit = MAX_POST_BODY if first.kind == "post" else MAX_MESSAGE_BODY
    text = "".join(parts)
    if len(text) + len(tag) > limit:
        note = "\n\n*(cut short: too long for Reddit)*"
        text = text[: limit - len(tag) - len(note)] + note
    return text + tag


def publish_once(engine: Engine, ctx: CampaignContext, gateway: RedditGateway, clock: Clock,
                 *, worker_id: str | None = None, limit: int = 25,
                 pacer: Pacer | None = None, poster: Poster = post_webhook) -> DeliverReport:
    """Deliver up to ``limit`` due outbox entries, one claim at a time.

    Never raises for Reddit failures (they are recorded on the entries and in the report);
    database errors propagate. Stops at the first rate limit, refused login or systemic
    refusal, and when pacing would wait longer than ``MAX_PACE_WAIT``. ``pacer``
    defaults to the one every process of the bot's account on this machine shares
    (:meth:`Pacer.shared`, from ``[bot]``).
    """
    worker = worker_id or default_worker_id()
    report = DeliverReport()
    pacer = pacer or Pacer.shared(ctx.settings)
    start = clock.now()
    blocked_until = state.auth_wait(engine, ctx.campaign_id, start)
    if blocked_until is not None:
        report.rate_limited_until = blocked_until
        report.errors.append(f"Reddit refused the credentials; next try {blocked_until}")
        return report
    halt = state.halt_of(engine, ctx.campaign_id)
    for _ in range(limit):
        now = clock.now()
        skip: tuple[str, ...] = ()
        if halt is not None:
            report.halted = str(halt.get("reason", ""))
            if now < datetime.fromisoformat(str(halt["next_probe"])):
                skip = tuple(halt.get("blocked") or ())
        entry = claim_next(engine, ctx, worker_id=worker, now=now, skip_kinds=skip)
        if entry is None:
            break
        paced = pacer.pace(entry.kind)
        if paced is None:
            _release(engine, entry, worker)
            break
        report.paced_seconds += paced
        if entry.kind == "webhook":  # not Reddit: failures here never halt or pause Reddit's
            if _deliver_hook(engine, ctx, entry, worker, clock, report, poster):
                pacer.sent(entry.kind)
            continue
        group = [entry]
        if entry.dispatch:
            group += claim_siblings(engine, ctx, entry, worker_id=worker, now=now,
                                    room=MAX_MESSAGE_BODY - 500 - len(entry.body))
        image = post_image(engine, ctx, entry.key) if entry.kind == "post" else None
        try:
            found = _deliver_group(engine, ctx, gateway, group, now, image=image)
        except (RateLimited, AuthError) as exc:
            if isinstance(exc, RateLimited):
                until = clock.now() + timedelta(seconds=exc.wait_seconds)
            else:
                until = state.auth_refused(engine, ctx.campaign_id, ctx.tick_of(now),
                                           clock.now(), str(exc))
            for member in group:
                _postpone(engine, ctx, member, worker, until, str(exc))
            report.rate_limited_until = until
            report.errors.append(f"{entry.key}: {exc}")
            log.warning("delivery paused until %s: %s", until.isoformat(), exc)
            break
        except PermanentError as exc:
            if exc.systemic:
                halt = _halt(engine, ctx, group, worker, clock.now(), exc, halt)
                report.halted = str(halt["reason"])
                report.errors.append(f"{entry.key}: {exc}")
                continue
            for member in group:
                _bury(engine, ctx, member, worker, clock.now(), str(exc))
            report.dead += len(group)
            report.errors.append(f"{entry.key}: {exc}")
            continue
        except TransientError as exc:
            _failed(engine, ctx, group, worker, clock.now(), str(exc), report)
            report.errors.append(f"{entry.key}: {exc}")
            continue
        except (DBAPIError, LeaseLost):
            raise
        except Exception as exc:
            # A bug must not wedge the queue: the entry is retried, then given up like any.
            log.exception("delivering outbox %s failed unexpectedly", entry.key)
            _failed(engine, ctx, group, worker, clock.now(), f"internal error: {exc!r}",
                    report)
            report.errors.append(f"{entry.key}: {exc!r}")
            continue
        if halt is not None and entry.kind in (halt.get("blocked") or ()):
            halt = _unhalt(engine, ctx, halt, entry.kind, clock.now())
            report.halted = str(halt.get("reason", "")) if halt else ""
        sent_any = False
        for member, (sent, existing) in zip(group, found, strict=True):
            if sent is None:  # not in the copy an earlier attempt left: next round
                _release(engine, member, worker)
                continue
            replied = sent.conversation if member.kind in ("reply", "note", "message",
                                                           "mod") else None
            if not _mark_delivered(engine, ctx, member, worker, clock.now(), sent.reddit_id,
                                   replied, gateway.username):
                report.errors.append(f"{member.key}: no longer claimed by this process "
                                     "(another took it over); not recorded")
                continue
            report.delivered += 1
            report.found_existing += int(existing)
            report.delivered_keys.append(member.key)
            sent_any = sent_any or not existing
            if member.kind == "reply" and replied is not None \
                    and ctx.settings.bot.archive_answered:
                try:
                    gateway.archive(replied.id)
                except GatewayError as exc:
                    log.info("could not archive conversation %s: %s", replied.id, exc)
        if sent_any:
            pacer.sent(entry.kind)
            report.sends += 1
    if report.delivered:
        state.auth_ok(engine, ctx.campaign_id, clock.now())
    return report


def _deliver_hook(engine: Engine, ctx: CampaignContext, entry: Claimed, worker: str,
                  clock: Clock, report: DeliverReport, poster: Poster) -> bool:
    """Send one ``webhook`` entry; True when a request went out (for pacing).

    Exactly once where the answer says what happened, at most once where it cannot: the
    entry's ``last_error`` is set to :data:`SENDING` (committed) before the request, so an
    attempt that finds it there knows an earlier request went out and never came back (the
    process was killed, or the answer timed out) and records the entry as sent, unconfirmed,
    instead of sending it again. A 429 waits Discord's ``retry_after`` for that webhook only
    (the attempt does not count); a 5xx or no connection backs off like any entry and gives
    up after ``[bot] max_attempts``, telling the moderators; a 4xx refusal gives up at once.
    The address is looked up now (:func:`bot.services.webhooks.resolve`): a webhook removed
    meanwhile drops the entry. Neither the address nor its token is logged."""
    now = clock.now()
    with transaction(engine) as session:
        url = webhooks.resolve(session, ctx, entry.target)
    where = f"webhook {entry.target}"
    if url is None:
        log.info("outbox %s dropped: %s is no longer configured", entry.key, where)
        _recorded(engine, ctx, entry, worker, clock, report, journal.WEBHOOK_DROPPED,
                  existing=False)
        return False
    if entry.attempts > 1 and entry.last_error.startswith(SENDING):
        log.warning("outbox %s: an earlier request to %s got no answer; recorded as sent "
                    "(unconfirmed), not sent again", entry.key, where)
        _recorded(engine, ctx, entry, worker, clock, report, "unconfirmed", existing=True)
        return False
    with transaction(engine) as session:
        result = session.execute(update(Outbox).where(_mine(entry, worker))
                                 .values(last_error=f"{SENDING} since {now.isoformat()}"))
        if getattr(result, "rowcount", 0) != 1:
            return False  # taken over meanwhile: the new claimant sends it
    try:
        answer = poster(url, webhooks.payload(entry.title, entry.body),
                        ctx.settings.webhooks.timeout_seconds)
    except HookUnreachable as exc:
        _failed(engine, ctx, [entry], worker, clock.now(), f"{where}: {exc}", report)
        report.errors.append(f"{entry.key}: {exc}")
        return False
    except HookUnanswered as exc:
        log.warning("outbox %s: %s did not answer (%s); recorded as sent, unconfirmed",
                    entry.key, where, exc)
        _recorded(engine, ctx, entry, worker, clock, report, "unconfirmed", existing=False)
        return True
    except (DBAPIError, LeaseLost):
        raise
    except Exception as exc:  # a bug must not wedge the queue
        log.exception("sending outbox %s to %s failed unexpectedly", entry.key, where)
        _failed(engine, ctx, [entry], worker, clock.now(), f"internal error: {exc!r}", report)
        return False
    if answer.sent:
        _recorded(engine, ctx, entry, worker, clock, report,
                  f"hook:{answer.message_id}" if answer.message_id else "hook:sent",
                  existing=False)
    elif answer.rate_limited:
        until = clock.now() + timedelta(seconds=answer.wait)
        with transaction(engine) as session:
            session.execute(update(Outbox).where(_mine(entry, worker)).values(
                attempts=col(Outbox.attempts) - 1, claimed_by=None, claimed_until=None,
                last_error=f"{where}: {answer.reason}"[:2000]))
            session.execute(update(Outbox).where(
                col(Outbox.campaign_id) == ctx.campaign_id, col(Outbox.kind) == "webhook",
                col(Outbox.target) == entry.target,
                col(Outbox.status) == OutboxStatus.PENDING,
                or_(col(Outbox.not_before).is_(None), col(Outbox.not_before) < until))
                .values(not_before=until))
        report.retry_later += 1
        report.errors.append(f"{entry.key}: {answer.reason}, retry after {answer.wait:g} s")
        log.warning("%s asks to wait %.3g s (429)", where, answer.wait)
    elif answer.refused:
        gone = answer.status in (401, 404)  # deleted in Discord, or a wrong token
        public = entry.target.startswith("public:")
        _bury(engine, ctx, entry, worker, clock.now(),
              f"{where} refused the notice ({answer.reason})"
              + ("; it is turned off: later notices to it are dropped until [webhooks] "
                 "public names a working address" if gone and public else ""))
        report.dead += 1
        report.errors.append(f"{entry.key}: {answer.reason}")
        if gone and entry.claim_id is not None:
            _claim_hook_gone(engine, ctx, entry.claim_id, answer.reason, clock.now())
        elif gone and public:
            with transaction(engine) as session:
                webhooks.mark_gone(session, ctx, entry.target, answer.reason, clock.now())
    else:
        _failed(engine, ctx, [entry], worker, clock.now(), f"{where}: {answer.reason}", report)
        report.errors.append(f"{entry.key}: {answer.reason}")
    return True


def _claim_hook_gone(engine: Engine, ctx: CampaignContext, claim_id: int, reason: str,
                     now: datetime) -> None:
    """A claim's webhook answered that it no longer exists (deleted in Discord, or a wrong
    token): it is turned off, so its later notes are dropped instead of each failing, and
    the claim is told by modmail how to register one again."""
    with transaction(engine) as session:
        claim = session.get(Claim, claim_id)
        if claim is None or not webhooks.forget(
                session, ctx, claim, actor="maester", now=now,
                why=f"turned off: it refused a notice ({reason[:80]})"):
            return
        journal.notify_claim(
            session, ctx.campaign_id, claim_id, f"hook-gone:{claim_id}:{now.isoformat()}",
            subject="Your webhook was turned off",
            body=(f"Your claim's webhook refused the bot's notice ({escape_md(reason, 120)}): "
                  "it was probably deleted in Discord. It is turned off; your news keeps "
                  "coming here. Send `webhook URL` with a new address to turn it on again."),
            at=now, tick=ctx.tick_of(now))


def _recorded(engine: Engine, ctx: CampaignContext, entry: Claimed, worker: str, clock: Clock,
              report: DeliverReport, outcome: str, *, existing: bool) -> None:
    """A webhook entry done (sent, unconfirmed or dropped): recorded like a delivery."""
    if _mark_delivered(engine, ctx, entry, worker, clock.now(), outcome, None, ""):
        report.delivered += 1
        report.found_existing += int(existing)
        report.delivered_keys.append(entry.key)


def _failed(engine: Engine, ctx: CampaignContext, group: Sequence[Claimed], worker: str,
            now: datetime, error: str, report: DeliverReport) -> None:
    """A failure worth retrying: back off, or give up after ``max_attempts``."""
    for member in group:
        if member.attempts >= ctx.settings.bot.max_attempts:
            _bury(engine, ctx, member, worker, now,
                  f"{error} (after {member.attempts} attempts)")
            report.dead += 1
        else:
            _retry_later(engine, ctx, member, worker, now, error)
            report.retry_later += 1


def _deliver_group(engine: Engine, ctx: CampaignContext, gateway: RedditGateway,
                   group: Sequence[Claimed], now: datetime, *, image: PostImage | None = None
                   ) -> list[tuple[Sent | None, bool]]:
    """Deliver one entry, or a claim's notes of one tick as one dispatch message: for each
    entry, (what exists on Reddit, whether an earlier attempt had made it) or (None, False)
    when the copy an earlier attempt left does not hold it (it is sent next round)."""
    if not group[0].dispatch:
        sent, existing = _deliver(ctx, gateway, group[0], now, image=image)
        return [(sent, existing)]
    return _deliver_dispatch(engine, ctx, gateway, group, now)


def _deliver(ctx: CampaignContext, gateway: RedditGateway, entry: Claimed, now: datetime,
             *, image: PostImage | None = None) -> tuple[Sent, bool]:
    """Post the entry, or find the copy an earlier attempt left: (what exists, found?)."""
    if entry.kind not in KINDS:
        raise PermanentError(f"unknown outbox kind {entry.kind!r}")
    if entry.kind == "delete":  # taken back by `maester undo --force --delete-posts`
        gateway.delete(entry.target)  # deleting twice does nothing: no marker to look for
        return Sent(entry.target), False
    if entry.kind == "widget":  # found by its name and overwritten: no marker either
        return gateway.put_text_widget(entry.target, entry.body), False
    tag = marker(entry.key)
    if entry.attempts > 1:
        found = find_marker(ctx, gateway, entry, tag)
        if found is not None:
            log.info("outbox %s was already on Reddit as %s", entry.key, found.reddit_id)
            return found, True
    body = compose_body(ctx, entry, now)
    if entry.kind == "post":
        bound = min(ctx.settings.bot.picture_attempts, ctx.settings.bot.max_attempts)
        return submit_post(gateway, entry.title, body, entry.flair or None, image,
                           last_try=entry.attempts >= bound), False
    if entry.kind in ("reply", "note"):
        return gateway.reply(entry.target, body, internal=entry.kind == "note"), False
    if entry.kind == "comment":
        return gateway.reply_comment(entry.target, body), False
    subject = (entry.title or "News from the maester")[:MAX_SUBJECT]
    recipient = entry.target if entry.kind == "message" else _moderator_recipient(ctx)
    return gateway.start_conversation(recipient, subject, body), False


def news_moment(ctx: CampaignContext, entry: Claimed, now: datetime) -> datetime:
    """The world's moment a claim's note belongs to: the tick that queued it (``now`` for a
    note of no tick). A dispatch conversation is named after its in-game month and lives
    ``[bot] dispatch_days`` on this clock, so a rehearsal ticked ahead of the wall clock
    starts a new one as a live campaign would."""
    return ctx.tick_at(entry.tick) if entry.tick > 0 else now


def dispatch_subject(engine: Engine, ctx: CampaignContext, entry: Claimed, now: datetime
                     ) -> str:
    """The subject of a claim's dispatch conversation for the note's in-game month."""
    with transaction(engine) as session:
        claim = session.get(Claim, entry.claim_id) if entry.claim_id is not None else None
    month = calendar.format_game_date(calendar.game_date(news_moment(ctx, entry, now),
                                                         ctx.rules))
    name = claim.name if claim is not None else entry.target
    return DISPATCH_SUBJECT.format(claim=name, month=month)[:MAX_SUBJECT]


def _deliver_dispatch(engine: Engine, ctx: CampaignContext, gateway: RedditGateway,
                      group: Sequence[Claimed], now: datetime
                      ) -> list[tuple[Sent | None, bool]]:
    first = group[0]
    name = f"{state.DISPATCH_PREFIX}{first.claim_id}"
    known = state.load(engine, ctx.campaign_id, name)
    moment = news_moment(ctx, first, now)
    conversation_id = ""
    # alive on the wall clock (a live campaign) and on the world's (a rehearsal ahead of it;
    # a conversation recorded without its world's moment counts from when it started)
    if known and str(known.get("recipient", "")).lower() == first.target.lower() \
            and _alive(ctx, known.get("started"), now) \
            and _alive(ctx, known.get("moment", known.get("started")), moment):
        conversation_id = str(known["conversation"])
    subject = dispatch_subject(engine, ctx, first, now)
    retry = any(member.attempts > 1 for member in group)
    copy = existing = None
    if conversation_id:
        if retry:
            known_copy = gateway.conversation(conversation_id)
            if _has_tag(known_copy, marker(first.key), gateway.username.lower()):
                copy = known_copy
    else:
        # A conversation a lost "create" answer left (or another process started) is
        # found before a second one is started for the same claim; on a retry, an earlier
        # attempt's copy is looked for in the same walk of the folders.
        copy, existing = _search_dispatches(
            ctx, gateway, first.target, subject, now,
            exclude=str(known.get("conversation", "")) if known else "",
            tag=marker(first.key) if retry else None)
    if copy is not None:
        found = [m for m in copy.messages if marker(first.key) in m.body]
        if found:
            log.info("dispatch %s was already on Reddit as %s", first.key, found[0].id)
            if copy.id != conversation_id:  # a lost "create": keep replying into it
                _keep_dispatch(engine, ctx, name, copy, first.target, now, moment)
            return [(Sent(found[0].id, copy), True) if marker(member.key) in found[0].body
                    else (None, False) for member in group]
    if existing is not None:
        conversation_id = existing.id
        _keep_dispatch(engine, ctx, name, existing, first.target, now, moment)
    body = compose_group(ctx, group, now)
    sent: Sent | None = None
    if conversation_id:
        try:
            sent = gateway.reply(conversation_id, body)
        except PermanentError as exc:
            if exc.systemic:
                raise
            log.warning("dispatch conversation %s refused a reply (%s): starting a new one",
                        conversation_id, exc)
    if sent is None:
        sent = gateway.start_conversation(first.target, subject, body)
        assert sent.conversation is not None
        state.store(engine, ctx.campaign_id, name,
                    {"conversation": sent.conversation.id, "recipient": first.target,
                     "started": now.isoformat(), "moment": moment.isoformat()}, now)
    return [(sent, False) for _ in group]


def _alive(ctx: CampaignContext, started: object, now: datetime) -> bool:
    """Whether a dispatch conversation started at ``started`` still takes news at ``now``
    (``[bot] dispatch_days`` later at most; both on the wall clock, or both on the world's:
    :func:`news_moment`)."""
    try:
        moment = datetime.fromisoformat(str(started))
    except ValueError:
        return False  # a conversation recorded before dispatches had a lifetime
    if moment.tzinfo is None:
        return False
    return now - moment < timedelta(days=ctx.settings.bot.dispatch_days)


def _keep_dispatch(engine: Engine, ctx: CampaignContext, name: str, conversation: Conversation,
                   recipient: str, now: datetime, moment: datetime) -> None:
    """Record an existing dispatch conversation as the claim's (from its first message; on
    the world's clock from ``moment``, the note about to go into it)."""
    started = _first_date(conversation) or now
    state.store(engine, ctx.campaign_id, name,
                {"conversation": conversation.id, "recipient": recipient,
                 "started": started.isoformat(), "moment": moment.isoformat()}, now)


def _first_date(conversation: Conversation) -> datetime | None:
    for message in conversation.messages:
        try:
            moment = datetime.fromisoformat(message.date)
        except ValueError:
            continue
        return moment if moment.tzinfo is not None else None
    return None


_DISPATCH_FOLDERS = ("all", "mod", "archived")
"""Where a dispatch conversation may be: a player who moderates the subreddit gets a Mod
Discussion."""


def _search_dispatches(ctx: CampaignContext, gateway: RedditGateway, recipient: str,
                       subject: str, now: datetime, *, exclude: str, tag: str | None
                       ) -> tuple[Conversation | None, Conversation | None]:
    """One walk of the modmail folders for the dispatch conversations with ``subject`` to
    ``recipient``: (the one where the bot wrote ``tag``, an earlier attempt's copy; the first
    live one the bot wrote in, with any outbox marker, other than ``exclude``). ``tag`` None:
    no copy is looked for, and the walk stops at the first live one. Mod Discussions count
    (a dispatch to a player who moderates the subreddit becomes one)."""
    bot = gateway.username.lower()
    live: Conversation | None = None
    for summary in _recent(gateway, _DISPATCH_FOLDERS, subject):
        if summary.participant is not None and \
                summary.participant.lower() != recipient.lower():
            continue
        full: Conversation | None = None
        if tag is not None:  # (a Mod Discussion has no participant: the tag decides)
            full = summary if summary.complete else gateway.conversation(summary.id)
            if _has_tag(full, tag, bot):
                return full, live
        if live is not None or summary.id == exclude or \
                (summary.participant is None and not summary.is_internal):
            continue
        full = full or (summary if summary.complete else gateway.conversation(summary.id))
        if _has_tag(full, "[](#maester:", bot) and \
                _alive(ctx, (_first_date(full) or now).isoformat(), now):
            live = full
            if tag is None:
                break
    return None, live


def _moderator_recipient(ctx: CampaignContext) -> str:
    # No recipient makes an internal moderator discussion; a named moderator works too.
    return sorted(ctx.moderators)[0] if ctx.moderators else ""


def find_marker(ctx: CampaignContext, gateway: RedditGateway, entry: Claimed, tag: str
                ) -> Sent | None:
    """Where an earlier attempt already delivered this entry, if it did."""
    bot = gateway.username.lower()
    if entry.kind in PUBLIC_KINDS:
        # The hidden marker, or the visible reference where Reddit dropped the marker.
        ref = reference(ctx, entry.key)
        found = gateway.recent_submissions() if entry.kind == "post" \
            else gateway.recent_comments()
        for thing in found:
            if tag in thing.body or ref in thing.body:
                return Sent(thing.fullname)
        return None
    if entry.kind in ("reply", "note"):
        conversation = gateway.conversation(entry.target)
        for message in conversation.messages:
            if message.author.lower() == bot and tag in message.body:
                return Sent(message.id, conversation)
        return None
    subject = (entry.title or "News from the maester")[:MAX_SUBJECT]
    folders = ("all", "archived") if entry.kind == "message" else ("mod", "all")
    participant = entry.target if entry.kind == "message" else None
    full = _find_conversation(gateway, folders, subject, participant, tag, bot)
    return Sent(full.id, full) if full is not None else None


def _find_conversation(gateway: RedditGateway, folders: Sequence[str], subject: str,
                       participant: str | None, tag: str, bot: str) -> Conversation | None:
    """The recent conversation with ``subject`` (and ``participant``) where the bot wrote
    ``tag``."""
    for summary in _recent(gateway, folders, subject):
        if participant is not None and summary.participant is not None \
                and summary.participant.lower() != participant.lower():
            continue  # (a Mod Discussion has no participant: the tag decides)
        full = summary if summary.complete else gateway.conversation(summary.id)
        if _has_tag(full, tag, bot):
            return full
    return None


def _recent(gateway: RedditGateway, folders: Sequence[str], subject: str
            ) -> Iterator[Conversation]:
    """The conversations with ``subject`` among the 100 most recent of each folder, in
    order (as listed: a conversation may hold only its newest message)."""
    for folder in folders:
        for seen, summary in enumerate(gateway.conversations(folder)):
            if seen >= 100:
                break
            if summary.subject == subject:
                yield summary


def _has_tag(conversation: Conversation, tag: str, bot: str) -> bool:
    return any(m.author.lower() == bot and tag in m.body for m in conversation.messages)


# --------------------------------------------------------------------------- recording

def _mine(entry: Claimed, worker: str) -> ColumnElement[bool]:
    """The entry, if still pending and still claimed by this worker."""
    return and_(col(Outbox.id) == entry.id, col(Outbox.status) == OutboxStatus.PENDING,
                col(Outbox.claimed_by) == worker)


def _mark_delivered(engine: Engine, ctx: CampaignContext, entry: Claimed, worker: str,
                    now: datetime, reddit_id: str, replied: Conversation | None, bot: str
                    ) -> bool:
    """Record the entry delivered, if this worker still holds its claim (a process that
    took over released it, and may have claimed it itself: then that one records it).
    Under a fenced lease the commit is also refused once the lease was taken over."""
    with transaction(engine) as session:
        result = session.execute(
            update(Outbox).where(_mine(entry, worker))
            .values(status=OutboxStatus.DELIVERED, reddit_id=reddit_id[:40],
                    delivered_at=now, claimed_by=None, claimed_until=None, last_error=""))
        if getattr(result, "rowcount", 0) != 1:
            log.warning("outbox %s was delivered as %s but is no longer claimed by %s: "
                        "left to its new claimant", entry.key, reddit_id, worker)
            return False
        if replied is not None:
            note_reply(session, ctx, replied, bot)
        if entry.kind == "post" and ctx.settings.webhooks.public:
            # announced once the post is on Reddit, in the transaction that records it
            webhooks.queue_public(session, ctx, key=entry.key, title=entry.title,
                                  body=entry.body, link=permalink(ctx, reddit_id), at=now,
                                  tick=entry.tick)
    log.info("delivered %s %s as %s", entry.kind, entry.key, reddit_id)
    return True


def permalink(ctx: CampaignContext, fullname: str) -> str:
    """The address of the post ``t3_ID`` on the subreddit ("" for anything else)."""
    if not fullname.startswith("t3_"):
        return ""
    site = ctx.settings.reddit.reddit_url.rstrip("/")
    return f"{site}/r/{ctx.settings.campaign.subreddit}/comments/{fullname[3:]}/"


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
                   col(Outbox.status) == OutboxStatus.PENDING,
                   or_(col(Outbox.not_before).is_(None), col(Outbox.not_before) < until))
            .values(not_before=until))


def _bury(engine: Engine, ctx: CampaignContext, entry: Claimed, worker: str, now: datetime,
          error: str) -> None:
    """Mark the entry dead and tell the moderators (unless it was itself such a report)."""
    with transaction(engine) as session:
        session.execute(
            update(Outbox).where(_mine(entry, worker))
            .values(status=OutboxStatus.DEAD, claimed_by=None, claimed_until=None,
                    last_error=error[:2000]))
        journal.log_event(session, ctx.campaign_id, ctx.tick_of(now), "delivery_dead",
                          f"{entry.kind} {entry.key} could not be delivered: {error}"[:500],
                          at=now, data={"key": entry.key, "target": entry.target})
        if entry.kind != "mod":
            what = {"post": "the public post", "reply": "the modmail reply",
                    "note": "the internal note",
                    "message": "the private message", "comment": "the comment reply",
                    "delete": "deleting the post or comment",
                    "widget": "updating the sidebar widget",
                    "webhook": "the webhook notice"}
            title_line = f"\n\nTitle: {escape_md(entry.title, 300)}" if entry.title else ""
            journal.queue(
                session, ctx.campaign_id, f"dead:{entry.key}"[:120], "mod",
                title=f"maester could not deliver a {entry.kind}"[:MAX_SUBJECT],
                body=(f"maester gave up on {what.get(entry.kind, entry.kind)} `{entry.key}` "
                      f"to {escape_md(entry.target or 'the subreddit', 80)} after "
                      f"{entry.attempts} attempt(s).\n\nReason: {escape_md(error, 500)}"
                      f"{title_line}\n\nIt is not retried by itself. The text is kept in the "
                      "outbox: `maester outbox` lists dead entries, `maester outbox retry "
                      "ID` tries one again; or post it by hand if it matters."),
                at=now, tick=ctx.tick_of(now))
    log.error("outbox %s is dead: %s", entry.key, error)


def _release(engine: Engine, entry: Claimed, worker: str) -> None:
    """Give a claimed entry back untouched (the attempt does not count)."""
    with transaction(engine) as session:
        session.execute(
            update(Outbox).where(_mine(entry, worker))
            .values(attempts=col(Outbox.attempts) - 1, claimed_by=None, claimed_until=None))


def _halt(engine: Engine, ctx: CampaignContext, group: Sequence[Claimed], worker: str,
          now: datetime, error: PermanentError, halt: dict[str, Any] | None
          ) -> dict[str, Any]:
    """A refusal that would refuse everything sent the same way: keep the entries pending,
    halt that lane of delivery only (posting, modmail, deleting or the sidebar widget), tell
    the moderators once per lane."""
    entry = group[0]
    what = state.lane_of(entry.kind)
    scope = state.LANE_SCOPES[what]
    reason = (f"the bot's login lacks the '{scope}' OAuth scope ({error})"
              if error.insufficient_scope else str(error))
    lanes = {**state.halted_lanes(halt), what: reason[:500]}
    blocked = sorted({k for lane in lanes for k in state.LANES.get(lane, ())})
    since = str(halt["since"]) if halt else now.isoformat()
    value = {"since": since, "reason": reason[:500], "key": entry.key, "blocked": blocked,
             "lanes": lanes, "next_probe": (now + state.HALT_PROBE).isoformat()}
    if error.insufficient_scope:
        fix = (f"Get a new permanent refresh token that includes the '{scope}' scope (the "
               f"scopes to ask for: {' '.join(SCOPES)}; docs/setup.md, step 2), put it in "
               "the config, run `maester check`, then `maester outbox retry`.")
    else:
        fix = ("Usually the subreddit in the config is wrong, or the bot lost a moderator "
               "permission (mail for modmail, posts, flair for moderator-only flairs, config "
               "for the sidebar widget). Fix it, run `maester check`, then `maester outbox "
               "retry`.")
    with transaction(engine) as session:
        for member in group:
            session.execute(
                update(Outbox).where(_mine(member, worker))
                .values(attempts=col(Outbox.attempts) - 1, claimed_by=None,
                        claimed_until=None, last_error=f"halted: {reason}"[:2000]))
        state.write(session, ctx.campaign_id, state.HALT, value, now)
        if what not in state.halted_lanes(halt):
            journal.log_event(session, ctx.campaign_id, ctx.tick_of(now), "delivery_halted",
                              f"{what} halted: {reason}"[:500], at=now,
                              data={"key": entry.key, "target": entry.target, "lane": what})
            journal.queue(
                session, ctx.campaign_id, f"halt:{what}:{now.isoformat()}"[:120], "mod",
                title=f"maester stopped {what}: Reddit refuses it"[:MAX_SUBJECT],
                body=(f"Reddit refused {what} for `{entry.key}` with an answer that means "
                      f"nothing sent this way will work: {escape_md(reason, 500)}\n\n"
                      f"Only {what} stopped; the rest of the bot's work goes on. Nothing is "
                      f"lost: every entry stays queued. {fix} (Or wait: the bot tries one "
                      f"again every {int(state.HALT_PROBE.total_seconds() // 60)} "
                      "minutes.)"),
                at=now, tick=ctx.tick_of(now))
    log.error("%s halted, the rest of delivery goes on (its entries stay queued): %s",
              what, reason)
    return value


def _unhalt(engine: Engine, ctx: CampaignContext, halt: dict[str, Any], kind: str,
            now: datetime) -> dict[str, Any] | None:
    """A blocked kind went through: unblock its lane of delivery."""
    what = state.lane_of(kind)
    lanes = {k: v for k, v in state.halted_lanes(halt).items() if k != what}
    blocked = sorted({k for lane in lanes for k in state.LANES.get(lane, ())})
    value = {**halt, "blocked": blocked, "lanes": lanes} if blocked else None
    state.store(engine, ctx.campaign_id, state.HALT, value, now)
    log.info("delivery resumed: Reddit accepts %s again", what)
    return value


def retry(engine: Engine, ctx: CampaignContext, now: datetime, *,
          entry_id: int | None = None, all_dead: bool = False) -> int:
    """``maester outbox retry``: lift a delivery halt and any back-off so that every pending
    entry is tried at the next round; with ``entry_id`` that entry (dead or pending) is made
    pending again with fresh attempts; with ``all_dead`` every dead entry is. Returns how
    many entries were changed."""
    changed = 0
    with transaction(engine) as session:
        state.write(session, ctx.campaign_id, state.HALT, None, now)
        state.write(session, ctx.campaign_id, state.AUTH, None, now)
        revive = update(Outbox).where(col(Outbox.campaign_id) == ctx.campaign_id)
        if entry_id is not None:
            revive = revive.where(col(Outbox.id) == entry_id,
                                  col(Outbox.status) != OutboxStatus.DELIVERED)
        elif all_dead:
            revive = revive.where(col(Outbox.status) == OutboxStatus.DEAD)
        else:
            revive = revive.where(col(Outbox.status) == OutboxStatus.PENDING)
        result = session.execute(revive.values(
            status=OutboxStatus.PENDING, not_before=None, claimed_by=None,
            claimed_until=None, **({"attempts": 0} if entry_id is not None or all_dead
                                   else {})))
        changed = int(getattr(result, "rowcount", 0) or 0)
        session.execute(
            update(Outbox)
            .where(col(Outbox.campaign_id) == ctx.campaign_id,
                   col(Outbox.status) == OutboxStatus.PENDING)
            .values(not_before=None))
    return changed
