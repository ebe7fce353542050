"""Exactly-once intake: every player message in modmail (and every comment mentioning the
bot) is handled once, even across crashes, restarts, downtime and reopened conversations.

How (``docs/setup.md`` explains why the modmail stream cannot do this):

1. List the subreddit's modmail sorted by most recent update, folder by folder (``all``, the
   harassment filter's ``filtered``, AutoModerator's ``notifications``, the moderators'
   ``mod`` discussions, and ``archived``), paging back only as far as the newest update seen
   by the last complete round (a per-folder watermark).
2. Skip each conversation whose ``lastUpdated`` equals its stored cursor; fetch the others
   (unless the listing already holds every message, as it does for a new conversation).
3. For every message the bot should read and has not recorded: decide who really wrote it
   (AutoModerator forwards are checked, see :func:`decide`), then in ONE transaction record
   its id in :class:`~bot.db.models.InboxMessage` (unique per campaign), run the orders, and
   queue the reply in the outbox under ``reply:<message id>``. A crash before the commit
   leaves nothing; after it, the id is recorded and the message is never handled again. A
   forwarded post is recorded under its own fullname too, so the same post forwarded twice
   is handled once.
4. The conversation's ``lastUpdated`` becomes its cursor in the transaction of its last new
   message; after a whole folder, the folder's watermark moves. After the bot's own reply
   the deliverer moves the cursor past it (see :func:`note_reply`), so answering costs no
   extra fetch.

Which messages the bot reads: in a conversation with a participant, the participant's own
messages (so a moderator's reply to the player is not taken for orders); in AutoModerator's
conversations, AutoModerator's forwards; in a Mod Discussion (an internal conversation, which
is what Reddit makes of a moderator's message to their own subreddit) that a configured
moderator started, the configured moderators' messages, answered with an internal reply.
Never internal notes elsewhere, never the bot's own messages.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from enum import StrEnum

from sqlalchemy import Engine
from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlmodel import Session, col, select

from bot.clock import Clock
from bot.db.engine import transaction
from bot.db.models import ConversationCursor, InboxMessage
from bot.errors import CommandError, apology
from bot.messages import handle_message
from bot.reddit import state
from bot.reddit.gateway import (
    AuthError,
    Conversation,
    GatewayError,
    Mention,
    ModmailMessage,
    PermanentError,
    RateLimited,
    RedditGateway,
)
from bot.reddit.lease import LeaseLost
from bot.services import journal, pause
from bot.services.tick import catch_up
from bot.services.world import CampaignContext, claim_of_user, get_campaign
from bot.text import escape_md
from rules.campaign.timing import order_moment, world_time

__all__ = [
    "FOLDERS", "Inbound", "IntakeReport", "Outcome", "claims_to_be_forward", "decide",
    "first_permalink",
    "handle_inbound", "handle_mention", "handle_message", "note_reply", "parse_permalink",
    "poll_once", "recorded_ids", "set_cursor", "should_read", "store_cursor",
]

log = logging.getLogger(__name__)

AUTOMODERATOR = "AutoModerator"
AUTOMOD_SUBJECT = "AutoModerator notification"
#: Modmail folders polled each round. ``all`` leaves out the conversations the harassment
#: filter caught (``filtered``: "attack" orders are what it catches), AutoModerator's
#: (``notifications``), the moderators' own discussions (``mod``) and archived ones; a
#: conversation a moderator archived before the bot saw it is still read.
FOLDERS = ("all", "filtered", "notifications", "mod", "archived")
#: How deep one round may page into a folder (100 conversations a page).
MAX_CONVERSATIONS_PER_FOLDER = 1000
WATERMARK_PREFIX = "folder:"

_PERMALINK = re.compile(
    r"^<?(?:https?://[^/\s]+)?/r/(?P<sub>[A-Za-z0-9_]+)/comments/(?P<post>[0-9a-z]+)"
    r"(?:/[^/\s?#]*)?(?:/(?P<comment>[0-9a-z]+))?/?(?:[?#]\S*)?>?$"
)
#: A permalink anywhere in a text (in a markdown link, between angle brackets, on any line).
_ANY_PERMALINK = re.compile(
    r"(?<![A-Za-z0-9_/])(?:https?://[^/\s()<>\[\]]+)?/r/(?P<sub>[A-Za-z0-9_]+)/comments/"
    r"(?P<post>[0-9a-z]+)(?:/[^/\s?#()<>\[\]]*)?(?:/(?P<comment>[0-9a-z]+))?"
)
_AUTHOR_LINE = re.compile(r"^\s*\**author\**\s*:\s*\**\s*/?u/(?P<name>[A-Za-z0-9_-]+)",
                          re.IGNORECASE | re.MULTILINE)


class Outcome(StrEnum):
    """What the intake did with one message (stored in ``InboxMessage.outcome``)."""

    ORDERS = "orders"  # a player's own message, handled
    FORWARD = "forward"  # a genuine AutoModerator forward, handled as its post's author
    MODERATOR = "moderator"  # a configured moderator's Mod Discussion, answered internally
    IMITATION = "imitation"  # claims to be a forward but is not: refused and logged
    BAD_FORWARD = "bad_forward"  # AutoModerator forward of something unreadable
    IGNORED = "ignored"  # AutoModerator notice that forwards nothing
    DUPLICATE = "duplicate"  # a second forward of a post already handled
    FORWARDED = "forwarded"  # the key of a forwarded post or comment (handled once)
    COMMENT = "comment"  # a comment mentioning the bot (commands only)
    SEEN = "seen"  # recorded without answering (``--mark-seen``)
    ERROR = "error"  # handling failed unexpectedly; the player got an apology


@dataclass(slots=True)
class IntakeReport:
    """What one :func:`poll_once` did."""

    ticks_applied: int = 0
    conversations_listed: int = 0
    conversations_fetched: int = 0
    processed: int = 0
    already_done: int = 0
    forwards: int = 0
    imitations: int = 0
    comments: int = 0
    replies_queued: int = 0
    rate_limited: float | None = None
    errors: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Inbound:
    """A message as the bot will handle it: who wrote it (for the game) and what."""

    outcome: Outcome
    author: str
    text: str
    reply_kind: str  # outbox kind: reply (same conversation), note (an internal reply in
    #                  it, for moderators), message (new one to a user)
    reply_target: str
    reply_title: str = ""
    note: str = ""  # why (imitations, unreadable forwards)
    source: str = ""  # a forward's post or comment fullname: its own exactly-once key


def parse_permalink(url: str, subreddit: str) -> str | None:
    """The fullname (``t3_``/``t1_``) a permalink into ``subreddit`` points at, else None."""
    found = _PERMALINK.match(url.strip())
    if found is None or found.group("sub").lower() != subreddit.lower():
        return None
    if found.group("comment"):
        return f"t1_{found.group('comment')}"
    return f"t3_{found.group('post')}"


def first_permalink(text: str, subreddit: str) -> str | None:
    """The fullname the first permalink into ``subreddit`` anywhere in ``text`` points at.

    AutoModerator sends a template that uses ``{{permalink}}`` as written, so the permalink
    may stand on any line, inside a markdown link or after other permalinks (into other
    subreddits, which are skipped).
    """
    for found in _ANY_PERMALINK.finditer(text):
        if found.group("sub").lower() != subreddit.lower():
            continue
        if found.group("comment"):
            return f"t1_{found.group('comment')}"
        return f"t3_{found.group('post')}"
    return None


def claims_to_be_forward(conversation: Conversation, message: ModmailMessage) -> bool:
    """Whether a message not written by AutoModerator presents itself as a forward.

    True for AutoModerator's subject line, or for a body laid out like a forward (a
    permalink first, then an ``Author: u/...`` line).
    """
    if conversation.subject.strip().lower().startswith(AUTOMOD_SUBJECT.lower()):
        return True
    first = message.body.strip().split("\n", 1)[0].strip()
    return bool(_PERMALINK.match(first)) and bool(_AUTHOR_LINE.search(message.body))


def should_read(conversation: Conversation, message: ModmailMessage, bot: str,
                moderators: frozenset[str] = frozenset()) -> bool:
    """Whether the bot reads this message at all (see the module docstring).

    ``moderators``: the configured moderators (lower case). In a Mod Discussion the bot
    reads their messages only if one of them started it (so the bot's own notes to the
    moderators, and discussions among other moderators, are never taken for orders).
    """
    if message.author.lower() == bot.lower() or not message.author:
        return False
    if conversation.is_internal:
        return (conversation.participant is None and bool(conversation.messages)
                and conversation.messages[0].author.lower() in moderators
                and message.author.lower() in moderators)
    if message.is_internal:
        return False
    if message.author == AUTOMODERATOR:
        return conversation.is_auto
    participant = conversation.participant
    return participant is not None and message.author.lower() == participant.lower()


def decide(gateway: RedditGateway, ctx: CampaignContext, conversation: Conversation,
           message: ModmailMessage) -> Inbound:
    """Who the message counts as coming from, and where the answer goes.

    An AutoModerator forward is trusted only if the conversation is owned by our subreddit,
    is automatic (``isAuto``), the author is AutoModerator and a moderator, and the message
    holds a permalink into our subreddit (the first such permalink, wherever it stands,
    names the item); then the post or comment is fetched from the API and its author and
    text are used, never the forwarded copy. An AutoModerator message that cannot be read so
    is never dropped silently: it is logged and the moderators get an internal note in its
    conversation. Anything else that claims to be a forward is refused as an imitation. A
    configured moderator's Mod Discussion is read as that moderator's orders and answered
    with an internal reply. May call Reddit (to fetch the forwarded thing); raises
    :class:`GatewayError` only for failures worth retrying.
    """
    ours = ctx.settings.campaign.subreddit
    if conversation.is_internal:
        return Inbound(Outcome.MODERATOR, message.author, message.body, "note",
                       conversation.id)
    if message.author == AUTOMODERATOR:
        fullname = first_permalink(message.body, ours)
        genuine = (conversation.subreddit.lower() == ours.lower() and conversation.is_auto
                   and message.author_is_mod)
        if not genuine:
            return Inbound(Outcome.BAD_FORWARD, AUTOMODERATOR, "", "note", conversation.id,
                           note="the message is not marked as AutoModerator's own")
        if fullname is None:
            return Inbound(Outcome.BAD_FORWARD, AUTOMODERATOR, "", "note", conversation.id,
                           note=f"the message holds no permalink into r/{ours}")
        try:
            thing = gateway.thing(fullname)
        except PermanentError:
            thing = None
        if thing is None or thing.author is None or thing.subreddit.lower() != ours.lower():
            return Inbound(Outcome.BAD_FORWARD, AUTOMODERATOR, "", "note", conversation.id,
                           note=f"the forwarded {fullname} is gone or not in r/{ours}")
        text = thing.body if thing.body.strip() or not thing.is_post else thing.title
        title = f"Your orders: {thing.title}" if thing.title else "Your orders"
        return Inbound(Outcome.FORWARD, thing.author, text, "message", thing.author,
                       reply_title=title[:100], note=thing.permalink, source=thing.fullname)
    if claims_to_be_forward(conversation, message):
        named = _AUTHOR_LINE.search(message.body)
        claimed = named.group("name") if named else AUTOMODERATOR
        return Inbound(Outcome.IMITATION, message.author, message.body, "reply",
                       conversation.id,
                       note=f"written by u/{message.author}, claims to forward u/{claimed}")
    return Inbound(Outcome.ORDERS, message.author, message.body, "reply", conversation.id)


def imitation_reply(inbound: Inbound) -> str:
    """The refusal a player gets for a message dressed up as an AutoModerator forward."""
    return CommandError(
        "this message is laid out like an AutoModerator forward, but it was written by "
        f"u/{escape_md(inbound.author, 40)}, not by AutoModerator. Nothing in it was carried "
        "out", "your orders sent straight to modmail from your own account, or a post flaired "
        "*Orders* that AutoModerator forwards itself", "muster 300 infantry 50 cavalry").render()


# --------------------------------------------------------------------------- the round

def poll_once(engine: Engine, ctx: CampaignContext, gateway: RedditGateway, clock: Clock, *,
              mark_seen: bool = False) -> IntakeReport:
    """One intake round: apply due ticks, then read modmail and mentions exactly once.

    ``mark_seen`` records every unread message without handling or answering it (for a
    subreddit's old modmail before the first run). Reddit failures end the round early and
    are reported, never raised: what was committed stays committed, the rest is picked up
    by the next round. Database errors propagate.
    """
    report = IntakeReport()
    # No catch-up first: each order catches up to its own send time (handle_inbound), so an
    # order sent before a tick counts before it; the ticks due now follow the reading.
    blocked_until = state.auth_wait(engine, ctx.campaign_id, clock.now())
    if blocked_until is not None:
        report.ticks_applied = len(catch_up(engine, ctx, clock.now()))  # the game goes on
        report.errors.append("Reddit refused the bot's credentials; next try at "
                             f"{blocked_until:%H:%M:%S} UTC")
        return report
    try:
        bot = gateway.username
        for folder in FOLDERS:
            _poll_folder(engine, ctx, gateway, clock, folder, bot, report, mark_seen)
        if ctx.settings.bot.comment_commands:
            _poll_mentions(engine, ctx, gateway, clock, bot, report, mark_seen)
        state.auth_ok(engine, ctx.campaign_id, clock.now())
    except AuthError as exc:
        now = clock.now()
        until = state.auth_refused(engine, ctx.campaign_id, ctx.tick_of(now), now, str(exc))
        report.errors.append(f"{exc}; next try at {until:%H:%M:%S} UTC")
    except RateLimited as exc:
        report.rate_limited = exc.wait_seconds
        report.errors.append(str(exc))
        log.warning("intake paused by the rate limit: %s", exc)
    except GatewayError as exc:
        report.errors.append(str(exc))
        log.warning("intake round ended early: %s", exc)
    report.ticks_applied += len(catch_up(engine, ctx, clock.now()))
    return report


def _timestamp(value: str) -> datetime | None:
    try:
        return datetime.fromisoformat(value)
    except ValueError:
        return None


def _cursor(session: Session, ctx: CampaignContext, conversation_id: str
            ) -> ConversationCursor | None:
    return session.exec(select(ConversationCursor).where(
        ConversationCursor.campaign_id == ctx.campaign_id,
        ConversationCursor.conversation_id == conversation_id)).first()


def set_cursor(session: Session, ctx: CampaignContext, conversation_id: str,
               last_updated: str) -> None:
    """Remember ``last_updated`` for a conversation, in the caller's transaction."""
    row = _cursor(session, ctx, conversation_id)
    if row is None:
        row = ConversationCursor(campaign_id=ctx.campaign_id, conversation_id=conversation_id)
    row.last_updated = last_updated
    session.add(row)


def store_cursor(engine: Engine, ctx: CampaignContext, conversation_id: str,
                 last_updated: str) -> None:
    """Remember ``last_updated`` for a conversation (or a folder watermark)."""
    try:
        with transaction(engine) as session:
            set_cursor(session, ctx, conversation_id, last_updated)
    except IntegrityError:
        # Another process stored it first; the next round compares again.
        log.debug("cursor of %s stored concurrently", conversation_id)


def _known_cursors(engine: Engine, ctx: CampaignContext, ids: Sequence[str]) -> dict[str, str]:
    known: dict[str, str] = {}
    with transaction(engine) as session:
        for start in range(0, len(ids), 500):
            chunk = list(ids[start:start + 500])
            rows = session.exec(select(ConversationCursor).where(
                ConversationCursor.campaign_id == ctx.campaign_id,
                col(ConversationCursor.conversation_id).in_(chunk))).all()
            known.update({r.conversation_id: r.last_updated for r in rows})
    return known


def recorded_ids(engine: Engine, ctx: CampaignContext, ids: Iterable[str]) -> set[str]:
    """Which of these message ids (or comment fullnames) are already recorded."""
    wanted = list(dict.fromkeys(ids))
    if not wanted:
        return set()
    found: set[str] = set()
    with transaction(engine) as session:
        for start in range(0, len(wanted), 500):
            chunk = wanted[start:start + 500]
            found.update(session.exec(select(col(InboxMessage.message_id)).where(
                InboxMessage.campaign_id == ctx.campaign_id,
                col(InboxMessage.message_id).in_(chunk))).all())
    return found


def _poll_folder(engine: Engine, ctx: CampaignContext, gateway: RedditGateway, clock: Clock,
                 folder: str, bot: str, report: IntakeReport, mark_seen: bool) -> None:
    mark_key = WATERMARK_PREFIX + folder
    with transaction(engine) as session:
        mark_row = _cursor(session, ctx, mark_key)
    watermark = _timestamp(mark_row.last_updated) if mark_row else None
    listed: list[Conversation] = []
    newest = ""
    complete = True
    try:
        for conversation in gateway.conversations(folder):
            newest = newest or conversation.last_updated
            moment = _timestamp(conversation.last_updated)
            if watermark is not None and moment is not None and moment < watermark:
                break
            listed.append(conversation)
            if len(listed) >= MAX_CONVERSATIONS_PER_FOLDER:
                log.warning("modmail folder %s: more than %d changed conversations; the "
                            "rest waits for the next round", folder,
                            MAX_CONVERSATIONS_PER_FOLDER)
                complete = False
                break
    except (RateLimited, AuthError):
        raise
    except GatewayError as exc:
        if not listed:
            raise
        # A later page failed: handle what was listed; the watermark stays put.
        complete = False
        report.errors.append(f"folder {folder}: {exc}")
    report.conversations_listed += len(listed)
    known = _known_cursors(engine, ctx, [c.id for c in listed])
    for conversation in reversed(listed):  # oldest first
        if known.get(conversation.id) == conversation.last_updated:
            continue
        try:
            _handle_conversation(engine, ctx, gateway, clock, conversation, bot, report,
                                 mark_seen)
        except (RateLimited, AuthError):
            raise
        except GatewayError as exc:
            complete = False
            report.errors.append(f"conversation {conversation.id}: {exc}")
            log.warning("modmail conversation %s not read this round: %s", conversation.id,
                        exc)
    if complete and newest:
        store_cursor(engine, ctx, mark_key, newest)


def _handle_conversation(engine: Engine, ctx: CampaignContext, gateway: RedditGateway,
                         clock: Clock, conversation: Conversation, bot: str,
                         report: IntakeReport, mark_seen: bool) -> None:
    ours = ctx.settings.campaign.subreddit.lower()
    if conversation.subreddit.lower() != ours or (
            conversation.is_internal and not ctx.moderators):
        store_cursor(engine, ctx, conversation.id, conversation.last_updated)
        return
    full = conversation
    if not conversation.complete:
        full = gateway.conversation(conversation.id)
        report.conversations_fetched += 1
    wanted = [m for m in full.messages if should_read(full, m, bot, ctx.moderators)]
    done = recorded_ids(engine, ctx, (m.id for m in wanted))
    report.already_done += len(done)
    todo = [m for m in wanted if m.id not in done]
    if not todo:
        store_cursor(engine, ctx, full.id, full.last_updated)
    for position, message in enumerate(todo, start=1):
        if mark_seen:
            inbound = Inbound(Outcome.SEEN, message.author, "", "reply", full.id)
        else:
            inbound = decide(gateway, ctx, full, message)
        # The cursor moves in the same transaction as the conversation's last message.
        cursor = (full.id, full.last_updated) if position == len(todo) else None
        handle_inbound(engine, ctx, clock, message.id, full.id, inbound, report,
                       cursor=cursor, sent_at=_sent_at(message.date))


def handle_inbound(engine: Engine, ctx: CampaignContext, clock: Clock, message_id: str,
                   conversation_id: str, inbound: Inbound, report: IntakeReport, *,
                   orders: bool = True, reply_key: str | None = None,
                   cursor: tuple[str, str] | None = None,
                   sent_at: datetime | None = None) -> bool:
    """Record one message and do what it asks, in one transaction; False if already done.

    The order's effects, the ``InboxMessage`` row, the queued reply and (if given) the
    conversation's new cursor ``(conversation id, lastUpdated)`` commit together. An
    unexpected error in the orders rolls all of it back; the message is then recorded as an
    error with an apology queued (a message that always fails must not block the intake).
    Database errors propagate (the next round retries the message).
    """
    now = clock.now()
    key = reply_key or f"reply:{message_id}"
    timed = orders and sent_at is not None and inbound.outcome in (Outcome.ORDERS,
                                                                    Outcome.FORWARD)
    if timed and sent_at is not None:
        # An order counts from the moment it was sent: the ticks due before it come first.
        report.ticks_applied += len(catch_up(engine, ctx, min(sent_at, now)))
    try:
        with transaction(engine) as session:
            if _is_recorded(session, ctx, message_id):
                report.already_done += 1
                return False
            if inbound.source and _is_recorded(session, ctx, inbound.source):
                # The same post forwarded twice (flair and title rules): handled once.
                inbound = replace(inbound, outcome=Outcome.DUPLICATE)
            elif inbound.source:
                session.add(InboxMessage(campaign_id=ctx.campaign_id,
                                         message_id=inbound.source,
                                         conversation_id=conversation_id,
                                         author=inbound.author[:40],
                                         outcome=Outcome.FORWARDED.value, processed_at=now))
            session.add(InboxMessage(campaign_id=ctx.campaign_id, message_id=message_id,
                                     conversation_id=conversation_id,
                                     author=inbound.author[:40], outcome=inbound.outcome.value,
                                     processed_at=now))
            session.flush()  # the exactly-once keys: a concurrent twin fails here
            last = get_campaign(session, ctx).last_tick
            # sent during a holiday: it counts from the resume, where the world's clock took up
            resumed = pause.resumed_after(session, ctx, sent_at) \
                if timed and sent_at is not None else None
            # read "now" on the world's clock: after ticks applied ahead of the wall clock
            # (a rehearsal) a late order counts just after them, and its note says so
            moment = order_moment(resumed or sent_at if timed else None,
                                  world_time(now, ctx.tick_at(last)), last, ctx.tick_of)
            reply = _answer(session, ctx, inbound, message_id, moment.at, orders)
            if reply and sent_at is not None and (moment.late or resumed is not None):
                reply = late_note(ctx, sent_at, moment.at, resumed) + "\n\n" + reply
            if reply:
                _queue_reply(session, ctx, inbound, key, reply, now)
                report.replies_queued += 1
            if cursor is not None:
                set_cursor(session, ctx, *cursor)
    except IntegrityError:
        report.already_done += 1
        return False
    except (DBAPIError, LeaseLost):
        raise
    except Exception:
        log.exception("message %s from u/%s failed unexpectedly", message_id, inbound.author)
        _record_failure(engine, ctx, message_id, conversation_id, inbound, key, now, report)
        report.processed += 1
        return True
    report.processed += 1
    if inbound.outcome is Outcome.FORWARD:
        report.forwards += 1
    elif inbound.outcome is Outcome.IMITATION:
        report.imitations += 1
    elif inbound.outcome is Outcome.COMMENT:
        report.comments += 1
    return True


def _sent_at(date: str) -> datetime | None:
    moment = _timestamp(date) if date else None
    if moment is not None and moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment


def late_note(ctx: CampaignContext, sent_at: datetime, read_at: datetime,
              resumed: datetime | None = None) -> str:
    """Why an order counts from ``read_at``, not from when it was sent: it was sent before a
    tick and read only after it, or (``resumed``) sent while the campaign was paused, then
    resumed after a holiday at ``resumed`` (it counts from the resume, or from when it was
    read if a tick was applied after the resume first)."""
    counts = f"{read_at:%H:%M:%S}" if read_at.date() == sent_at.date() else \
        f"{read_at:%Y-%m-%d %H:%M:%S}"
    sent = f"*You sent this at {sent_at:%Y-%m-%d %H:%M:%S} UTC"
    if resumed is None:
        return (f"{sent}, but it reached the bot only after a later tick had already been "
                f"applied, so it counts from {counts} UTC.*")
    held = (f"{sent}, while the campaign was paused; nothing moved until it resumed at "
            f"{resumed:%Y-%m-%d %H:%M:%S} UTC")
    if read_at == resumed:
        return f"{held}, so it counts from then.*"
    return (f"{held}, and it reached the bot only after a later tick had already been "
            f"applied, so it counts from {counts} UTC.*")


def _is_recorded(session: Session, ctx: CampaignContext, message_id: str) -> bool:
    return session.exec(select(col(InboxMessage.id)).where(
        InboxMessage.campaign_id == ctx.campaign_id,
        InboxMessage.message_id == message_id)).first() is not None


def _answer(session: Session, ctx: CampaignContext, inbound: Inbound, message_id: str,
            now: datetime, orders: bool) -> str:
    tick = ctx.tick_of(now)
    if inbound.outcome is Outcome.IMITATION:
        journal.log_event(session, ctx.campaign_id, tick, "imitation",
                          f"imitation of an AutoModerator forward refused: {inbound.note}",
                          at=now, actor=inbound.author[:60],
                          data={"message": message_id, "conversation": inbound.reply_target})
        log.warning("refused an imitation AutoModerator forward: message %s, %s", message_id,
                    inbound.note)
        return imitation_reply(inbound)
    if inbound.outcome is Outcome.BAD_FORWARD:
        journal.log_event(session, ctx.campaign_id, tick, "bad_forward",
                          f"AutoModerator forward not handled: {inbound.note}", at=now,
                          data={"message": message_id,
                                "conversation": inbound.reply_target})
        log.warning("AutoModerator message %s not read as a forward: %s", message_id,
                    inbound.note)
        return (f"**For the moderators:** maester could not read this AutoModerator message "
                f"as a forward: {escape_md(inbound.note, 200)}, so the orders it may carry "
                "were not read. Check the `modmail:` rule against docs/automoderator.yaml "
                "(the message must hold the post's `{{permalink}}`); the player can post the "
                "orders again or send them by modmail.")
    if inbound.outcome in (Outcome.IGNORED, Outcome.SEEN, Outcome.DUPLICATE):
        return ""
    return handle_message(session, ctx, author=inbound.author, text=inbound.text, now=now,
                          ref=message_id, orders=orders)


def _queue_reply(session: Session, ctx: CampaignContext, inbound: Inbound, key: str,
                 reply: str, now: datetime) -> None:
    claim = claim_of_user(session, ctx, inbound.author) \
        if inbound.author != AUTOMODERATOR else None
    journal.queue(session, ctx.campaign_id, key, inbound.reply_kind, body=reply, at=now,
                  tick=ctx.tick_of(now), target=inbound.reply_target,
                  title=inbound.reply_title, claim_id=claim.id if claim else None)


def _record_failure(engine: Engine, ctx: CampaignContext, message_id: str,
                    conversation_id: str, inbound: Inbound, key: str, now: datetime,
                    report: IntakeReport) -> None:
    sorry = apology(message_id, "reading this message")
    try:
        with transaction(engine) as session:
            if _is_recorded(session, ctx, message_id):
                return
            session.add(InboxMessage(campaign_id=ctx.campaign_id, message_id=message_id,
                                     conversation_id=conversation_id,
                                     author=inbound.author[:40], outcome=Outcome.ERROR.value,
                                     processed_at=now))
            journal.log_event(session, ctx.campaign_id, ctx.tick_of(now), "intake_error",
                              f"message {message_id} from u/{inbound.author} failed",
                              at=now, actor=inbound.author[:60], data={"message": message_id})
            _queue_reply(session, ctx, inbound, key, sorry, now)
    except IntegrityError:
        return
    report.errors.append(f"message {message_id} failed; recorded as an error")


# --------------------------------------------------------------------------- mentions

def _poll_mentions(engine: Engine, ctx: CampaignContext, gateway: RedditGateway, clock: Clock,
                   bot: str, report: IntakeReport, mark_seen: bool) -> None:
    mentions = gateway.unread_mentions()
    if not mentions:
        return
    ours = ctx.settings.campaign.subreddit.lower()
    done = recorded_ids(engine, ctx, (m.fullname for m in mentions))
    read: list[str] = []
    for mention in reversed(mentions):  # oldest first
        read.append(mention.fullname)
        if (mention.fullname in done or mention.author is None
                or mention.author.lower() == bot.lower() or mention.subreddit.lower() != ours):
            continue
        handle_mention(engine, ctx, clock, mention, report, mark_seen=mark_seen)
    gateway.mark_read(read)


def handle_mention(engine: Engine, ctx: CampaignContext, clock: Clock, mention: Mention,
                   report: IntakeReport, *, mark_seen: bool = False) -> bool:
    """Run the ``!commands`` of a comment that mentions the bot and queue the public reply
    (``comment:<id>``); campaign orders are never read from public comments."""
    author = mention.author or ""
    inbound = Inbound(Outcome.SEEN if mark_seen else Outcome.COMMENT, author, mention.body,
                      "comment", mention.fullname)
    return handle_inbound(engine, ctx, clock, mention.fullname, "", inbound, report,
                          orders=False,
                          reply_key=f"comment:{mention.fullname.removeprefix('t1_')}")


# --------------------------------------------------------------------------- after a reply

def note_reply(session: Session, ctx: CampaignContext, conversation: Conversation,
               bot: str) -> bool:
    """After the bot replied in a conversation, move its cursor past the bot's own message
    if every message the bot should read in it is recorded (saves one fetch per order).
    Runs in the caller's transaction; returns whether the cursor moved."""
    if not conversation.complete:
        return False
    wanted = sorted({m.id for m in conversation.messages
                     if should_read(conversation, m, bot, ctx.moderators)})
    if wanted:
        found = session.exec(select(col(InboxMessage.message_id)).where(
            InboxMessage.campaign_id == ctx.campaign_id,
            col(InboxMessage.message_id).in_(wanted))).all()
        if len(set(found)) != len(wanted):
            return False
    set_cursor(session, ctx, conversation.id, conversation.last_updated)
    return True
