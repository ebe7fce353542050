"""Exactly-once, fairly timed intake: every campaign message in modmail (and every comment
mentioning the bot) is handled once, even across crashes, restarts, downtime and reopened
conversations, and each order counts from the moment it was sent.

How (``docs/setup.md`` explains why the modmail stream cannot do this):

1. Ask Reddit for the unread counts and choose the folders to list (:mod:`bot.reddit.quiet`:
   all of them when a tick is due or every ``full_poll_minutes``, else those whose count
   changed). List each folder sorted by most recent update (``all``, the harassment filter's
   ``filtered``, AutoModerator's ``notifications``, the moderators' ``mod`` discussions,
   ``archived``, ``appeals``, ``join_requests``), paging back to the newest update the last
   complete round saw, less :data:`LISTING_LAG` (a per-folder watermark); then the mentions.
2. Skip each conversation whose ``lastUpdated`` equals its stored cursor; fetch the others
   (unless the listing already holds every message) and decide every new message
   (:func:`decide`; AutoModerator forwards are checked in :mod:`bot.reddit.forwards`).
3. Handle the round's new messages in the order they were sent (a forward by its post's or
   comment's own time): for each, ``advance_to(its send time)`` applies the ticks due before
   it, then in ONE transaction its id is recorded in :class:`~bot.db.models.InboxMessage`
   (unique per campaign), the orders run and the reply is queued in the outbox under
   ``reply:<message id>``. A crash before the commit leaves nothing; after it, the id is
   recorded and the message is never handled again. A forwarded post is recorded under its
   own fullname too, so the same post forwarded twice is handled once.
4. A conversation's ``lastUpdated`` becomes its cursor in the transaction of its last new
   message; after a whole folder, the folder's watermark moves. The campaign's conversations
   are marked read. After a complete round the world advances to :func:`horizon` (the round's
   start): nothing catches the world up past a message the intake has not read, except after
   ``[bot] tick_wait_minutes`` of Reddit being unreadable. After the bot's own reply the
   deliverer moves the cursor past it (see :func:`note_reply`), so answering costs no extra
   fetch.

Which messages the bot reads: in a conversation with a participant, the participant's own
messages (so a moderator's reply to the player is not taken for orders); in AutoModerator's
conversations, AutoModerator's forwards; in a Mod Discussion (an internal conversation, which
is what Reddit makes of a moderator's message to their own subreddit) that a configured
moderator started, the configured moderators' messages, and in one a campaign player who
moderates the subreddit started (or the bot started, their dispatches), that player's, both
answered with an internal reply. Never internal notes elsewhere, never the bot's own
messages. Mail from anyone who is neither a campaign player nor a campaign moderator is left
as it came (no reply, not marked read, not archived) and logged.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from enum import StrEnum

from sqlalchemy import Engine
from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlmodel import Session, col, select

from bot.clock import Clock
from bot.db.engine import transaction
from bot.db.models import ConversationCursor, InboxMessage, Player
from bot.errors import CommandError, apology
from bot.messages import handle_message
from bot.reddit import quiet, state
from bot.reddit.forwards import (
    NOT_THE_ORDERS_RULE,
    OrdersRule,
    first_line_permalink,
    first_permalink,
    is_permalink,
    parse_permalink,
    refusal,
)
from bot.reddit.gateway import (
    AuthError,
    Conversation,
    GatewayError,
    ModmailMessage,
    PermanentError,
    RateLimited,
    RedditGateway,
)
from bot.reddit.lease import LeaseLost
from bot.services import journal, pause
from bot.services.world import CampaignContext, claims_of_user, current
from bot.text import escape_md
from rules.campaign.timing import order_moment, world_time

__all__ = [
    "FOLDERS", "HORIZON", "AdvanceTo", "Inbound", "IntakeReport", "Outcome", "Readers",
    "claims_to_be_forward", "decide", "first_permalink", "handle_inbound", "handle_message",
    "horizon", "note_reply", "orders_rule", "owned", "parse_permalink", "poll_once",
    "readers", "recorded_ids", "set_cursor", "should_read", "store_cursor",
]

log = logging.getLogger(__name__)

AUTOMODERATOR = "AutoModerator"
AUTOMOD_SUBJECT = "AutoModerator notification"
#: Modmail folders polled each round. ``all`` leaves out the conversations the harassment
#: filter caught (``filtered``: "attack" orders are what it catches), AutoModerator's
#: (``notifications``), the moderators' own discussions (``mod``) and archived ones; a
#: conversation a moderator archived before the bot saw it is still read.
#: ``appeals`` and ``join_requests`` are listed too: a campaign player's message is answered
#: whatever folder Reddit files it in.
FOLDERS = ("all", "filtered", "notifications", "mod", "archived", "appeals", "join_requests")
#: How far behind a folder's watermark a round still lists: Reddit's listing may show a
#: conversation late, and one listed after the watermark passed it must not be skipped.
LISTING_LAG = timedelta(hours=1)
#: How deep one round may page into a folder (100 conversations a page).
MAX_CONVERSATIONS_PER_FOLDER = 1000
WATERMARK_PREFIX = "folder:"

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
    LEFT = "left"  # not the game's mail (no campaign player or moderator): left unread
    NOTICE = "notice"  # an AutoModerator message not from the orders rule: a moderators' note
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
    sent_at: datetime | None = None  # a forward's: when its post or comment was written


def claims_to_be_forward(conversation: Conversation, message: ModmailMessage) -> bool:
    """Whether a message not written by AutoModerator presents itself as a forward.

    True for AutoModerator's subject line, or for a body laid out like a forward (a
    permalink first, then an ``Author: u/...`` line).
    """
    if conversation.subject.strip().lower().startswith(AUTOMOD_SUBJECT.lower()):
        return True
    first = message.body.strip().split("\n", 1)[0].strip()
    return is_permalink(first) and bool(_AUTHOR_LINE.search(message.body))


@dataclass(frozen=True, slots=True)
class Readers:
    """Whose modmail the bot reads: the bot itself (never), the campaign's moderators and
    players (lower-case names). Everyone else's mail is left unread for the humans."""

    bot: str
    moderators: frozenset[str] = frozenset()
    players: frozenset[str] = frozenset()

    def serves(self, name: str) -> bool:
        """Whether ``name`` is a campaign player or a campaign moderator."""
        return name.lower() in self.players or name.lower() in self.moderators


def readers(engine: Engine, ctx: CampaignContext, bot: str) -> Readers:
    """The campaign's readers now (one query)."""
    with transaction(engine) as session:
        names = session.exec(select(col(Player.reddit_name)).where(
            Player.campaign_id == ctx.campaign_id)).all()
    return Readers(bot.lower(), frozenset(m.lower() for m in ctx.moderators),
                   frozenset(n.lower() for n in names))


def should_read(conversation: Conversation, message: ModmailMessage, bot: str,
                moderators: frozenset[str] = frozenset(),
                players: frozenset[str] | None = None) -> bool:
    """Whether the bot reads this message at all (see the module docstring).

    ``moderators``: the configured moderators (lower case). In a Mod Discussion the bot
    reads their messages only if one of them started it (so the bot's own notes to the
    moderators, and discussions among other moderators, are never taken for orders).
    ``players``: the campaign's players (lower case; None: not known here). A player who
    moderates the subreddit writes Mod Discussions: their messages are read in one they
    started or one the bot started (their dispatches and answers).
    """
    author = message.author.lower()
    if author == bot.lower() or not author:
        return False
    if conversation.is_internal:
        if conversation.participant is not None or not conversation.messages:
            return False
        starter = conversation.messages[0].author.lower()
        if author in moderators:
            return starter in moderators
        return players is not None and author in players and starter in (author, bot.lower())
    if message.is_internal:
        return False
    if message.author == AUTOMODERATOR:
        return conversation.is_auto
    participant = conversation.participant
    return participant is not None and author == participant.lower()


def owned(conversation: Conversation, who: Readers) -> bool:
    """Whether a conversation is the campaign's (the bot reads it and marks it read), not
    the moderators' own working mail, which it leaves untouched and unread."""
    if conversation.is_auto:
        return False  # AutoModerator's: each forward is judged by itself
    if conversation.is_internal:
        starter = conversation.messages[0].author.lower() if conversation.messages else ""
        return starter == who.bot or who.serves(starter)
    return conversation.participant is not None and who.serves(conversation.participant)


def orders_rule(ctx: CampaignContext) -> OrdersRule:
    """The campaign's AutoModerator orders rule, from the ``[bot]`` settings."""
    bot = ctx.settings.bot
    return OrdersRule(bot.forward_subject, bot.orders_flair, bot.orders_title_tag)


def decide(gateway: RedditGateway, ctx: CampaignContext, conversation: Conversation,
           message: ModmailMessage, who: Readers | None = None) -> Inbound:
    """Who the message counts as coming from, and where the answer goes.

    An AutoModerator message is run as orders only if the conversation is owned by our
    subreddit, is automatic (``isAuto``), the author is AutoModerator and a moderator, and
    :func:`bot.reddit.forwards.refusal` finds nothing wrong: the first line is the item's
    permalink, the campaign's orders rule sent it and it names the item's author. Then the
    item is read from the API, never from the forwarded copy. Any other AutoModerator
    message is never dropped silently: it is logged and the moderators get an internal note
    in its conversation. Anything else that claims to be a forward is refused as an
    imitation. A configured moderator's Mod Discussion is read as that moderator's orders,
    and a player's Mod Discussion (a player who moderates the subreddit) as that player's,
    both answered with an internal reply. Mail from anyone who is neither a campaign player
    nor a campaign moderator is left (:attr:`Outcome.LEFT`: recorded and logged, never
    answered). May call Reddit (to fetch the forwarded thing); raises
    :class:`GatewayError` only for failures worth retrying.
    """
    serves = who.serves if who is not None else (lambda name: True)
    if conversation.is_internal:
        if message.author.lower() in ctx.moderators:
            return Inbound(Outcome.MODERATOR, message.author, message.body, "note",
                           conversation.id)
        return Inbound(Outcome.ORDERS, message.author, message.body, "note", conversation.id)
    if message.author == AUTOMODERATOR:
        return _automoderator(gateway, ctx, conversation, message, serves)
    if not serves(message.author):
        return Inbound(Outcome.LEFT, message.author, "", "reply", conversation.id,
                       note="neither a campaign player nor a campaign moderator")
    if claims_to_be_forward(conversation, message):
        named = _AUTHOR_LINE.search(message.body)
        claimed = named.group("name") if named else AUTOMODERATOR
        return Inbound(Outcome.IMITATION, message.author, message.body, "reply",
                       conversation.id,
                       note=f"written by u/{message.author}, claims to forward u/{claimed}")
    return Inbound(Outcome.ORDERS, message.author, message.body, "reply", conversation.id)


#: What Reddit shows of a removed post to a moderator without the ``posts`` permission.
REMOVED_TEXT = "[removed]"
REMOVED_NOTE = ("the forwarded post reads `[removed]`: AutoModerator removed it and u/{bot} "
                "lacks the 'Manage Posts and Comments' permission on r/{sub}, so it cannot "
                "read the orders in it. Give it that permission (`maester check` says so); "
                "until then ask the player to send these orders by modmail")


def _automoderator(gateway: RedditGateway, ctx: CampaignContext, conversation: Conversation,
                   message: ModmailMessage, serves: Callable[[str], bool]) -> Inbound:
    ours = ctx.settings.campaign.subreddit
    genuine = (conversation.subreddit.lower() == ours.lower() and conversation.is_auto
               and message.author_is_mod)
    if not genuine:
        return Inbound(Outcome.BAD_FORWARD, AUTOMODERATOR, "", "note", conversation.id,
                       note="the message is not marked as AutoModerator's own")
    fullname = first_line_permalink(message.body, ours)
    if fullname is None:
        anywhere = first_permalink(message.body, ours) is not None
        note = (f"its first line is not a permalink into r/{ours} (the orders template must "
                "begin with `{{permalink}}`)") if anywhere else \
            f"the message holds no permalink into r/{ours}"
        return Inbound(Outcome.BAD_FORWARD, AUTOMODERATOR, "", "note", conversation.id,
                       note=note)
    rule = orders_rule(ctx)
    try:
        thing = gateway.thing(fullname)
    except PermanentError:
        thing = None
    why = refusal(rule, conversation.subject, message.body, ours, thing, thing)
    if why is not None:
        outcome = Outcome.NOTICE if why == NOT_THE_ORDERS_RULE else Outcome.BAD_FORWARD
        return Inbound(outcome, AUTOMODERATOR, "", "note", conversation.id, note=why)
    assert thing is not None and thing.author is not None
    if not serves(thing.author):
        return Inbound(Outcome.LEFT, thing.author, "", "note", conversation.id,
                       note=f"forwards {fullname} by u/{thing.author}, who is neither a "
                       "campaign player nor a campaign moderator")
    if thing.is_post and thing.body.strip() == REMOVED_TEXT:
        return Inbound(Outcome.BAD_FORWARD, thing.author, "", "note", conversation.id,
                       note=REMOVED_NOTE.format(bot=gateway.username, sub=ours))
    text = thing.body if thing.body.strip() or not thing.is_post else thing.title
    title = f"Your orders: {thing.title}" if thing.title else "Your orders"
    return Inbound(Outcome.FORWARD, thing.author, text, "message", thing.author,
                   reply_title=title[:100], note=thing.permalink, source=thing.fullname,
                   sent_at=thing.created)


def imitation_reply(inbound: Inbound) -> str:
    """The refusal a player gets for a message dressed up as an AutoModerator forward."""
    return CommandError(
        "this message is laid out like an AutoModerator forward, but it was written by "
        f"u/{escape_md(inbound.author, 40)}, not by AutoModerator. Nothing in it was carried "
        "out", "your orders sent straight to modmail from your own account, or a post flaired "
        "*Orders* that AutoModerator forwards itself", "muster 300 infantry 50 cavalry").render()


# --------------------------------------------------------------------------- the round

#: ``advance_to(moment)``: apply every tick due at ``moment`` that is not yet applied and
#: return how many were applied. The runner (or the CLI) owns the game clock and hands it
#: to the intake, which never imports the tick service.
AdvanceTo = Callable[[datetime], int]


def poll_once(engine: Engine, ctx: CampaignContext, gateway: RedditGateway, clock: Clock, *,
              advance_to: AdvanceTo, mark_seen: bool = False) -> IntakeReport:
    """One intake round: read modmail and mentions exactly once, in the order they were
    sent, then bring the world up to what the round proved was read.

    Every folder and the mentions are listed first; then every new message is handled in
    send order (a forward by its post's or comment's own time), each after
    ``advance_to(its send time)``, so an order sent before a tick counts before it however
    late it is read. The world then advances only to :func:`horizon`: the start of the
    newest complete round (or, when Reddit cannot be read, ``[bot] tick_wait_minutes``
    ago). Between two rounds that list every folder, a round first asks Reddit for the
    unread counts and lists only the folders whose count changed (:mod:`bot.reddit.quiet`).

    ``mark_seen`` records every unread message without handling or answering it (for a
    subreddit's old modmail before the first run). Reddit failures end the round early and
    are reported, never raised: what was committed stays committed, the rest is picked up
    by the next round. Database errors propagate.
    """
    report = IntakeReport()
    started = clock.now()
    blocked_until = state.auth_wait(engine, ctx.campaign_id, started)
    if blocked_until is not None:
        report.ticks_applied = advance_to(horizon(engine, ctx, started))  # the game goes on
        report.errors.append("Reddit refused the bot's credentials; next try at "
                             f"{blocked_until:%H:%M:%S} UTC")
        return report
    complete = False
    try:
        who = readers(engine, ctx, gateway.username)
        plan = quiet.plan_round(engine, ctx, gateway, started, FOLDERS)
        found = _Found()
        listed_all = all([_list_folder(engine, ctx, gateway, folder, who, found, report,
                                       mark_seen) for folder in plan.folders])
        mentions = _list_mentions(engine, ctx, gateway, who, found, report, mark_seen,
                                  clock.now())
        _handle_in_send_order(engine, ctx, clock, found, report, advance_to)
        for mark_key, newest in found.marks.items():
            store_cursor(engine, ctx, mark_key, newest)
        if mentions:
            gateway.mark_read(mentions)
        read = sorted(found.owned - found.failed)
        if read:
            gateway.mark_conversations_read(read)
        complete = listed_all and not found.failed
        if complete:
            quiet.round_done(engine, ctx, gateway, plan, changed=bool(read), now=clock.now())
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
    if complete:
        state.store(engine, ctx.campaign_id, HORIZON, {"at": started.isoformat()},
                    clock.now())
    report.ticks_applied += advance_to(horizon(engine, ctx, clock.now()))
    return report


HORIZON = "intake:horizon"


def horizon(engine: Engine, ctx: CampaignContext, now: datetime) -> datetime:
    """How far the world may be caught up without losing an order: the start of the newest
    complete intake round (every message sent before it was read), or, when no round has
    completed for ``[bot] tick_wait_minutes`` (Reddit down), that long ago: a due tick
    waits that long for the mail, then the game goes on (late orders say so)."""
    known = state.load(engine, ctx.campaign_id, HORIZON)
    waited = now - timedelta(minutes=ctx.settings.bot.tick_wait_minutes)
    read = _timestamp(str(known.get("at", ""))) if known else None
    return min(now, max(read, waited)) if read is not None else waited


@dataclass(slots=True)
class _Item:
    """A new message (or mention) of this round, waiting to be handled in send order."""

    sent_at: datetime | None
    seq: int
    message_id: str
    conversation_id: str
    inbound: Inbound
    orders: bool = True
    reply_key: str | None = None
    cursor: tuple[str, str] | None = None


@dataclass(slots=True)
class _Found:
    """What a round's listing found: the items to handle, the conversations the bot owns
    (marked read once handled) and those that failed this round."""

    items: list[_Item] = field(default_factory=list)
    seen: set[str] = field(default_factory=set)
    owned: set[str] = field(default_factory=set)
    failed: set[str] = field(default_factory=set)
    cursors: dict[str, str] = field(default_factory=dict)
    marks: dict[str, str] = field(default_factory=dict)  # folder watermarks to store

    def add(self, item: _Item) -> None:
        item.seq = len(self.items)
        self.items.append(item)


def _handle_in_send_order(engine: Engine, ctx: CampaignContext, clock: Clock, found: _Found,
                          report: IntakeReport, advance_to: AdvanceTo) -> None:
    now = clock.now()
    ordered = sorted(found.items, key=lambda i: (i.sent_at or now, i.seq))
    last: dict[str, _Item] = {i.conversation_id: i for i in ordered if i.conversation_id}
    for conversation_id, item in last.items():
        if conversation_id in found.cursors:
            # The cursor moves in the same transaction as the conversation's last message.
            item.cursor = (conversation_id, found.cursors[conversation_id])
    for item in ordered:
        handle_inbound(engine, ctx, clock, item.message_id, item.conversation_id,
                       item.inbound, report, orders=item.orders, reply_key=item.reply_key,
                       cursor=item.cursor, sent_at=item.sent_at, advance_to=advance_to)


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


def _list_folder(engine: Engine, ctx: CampaignContext, gateway: RedditGateway, folder: str,
                 who: Readers, found: _Found, report: IntakeReport, mark_seen: bool) -> bool:
    """List one folder back to its watermark (less :data:`LISTING_LAG`, so a conversation
    that shows up late in Reddit's listing is still found) and collect the new messages of
    every changed conversation; False if the folder was not read whole."""
    mark_key = WATERMARK_PREFIX + folder
    with transaction(engine) as session:
        mark_row = _cursor(session, ctx, mark_key)
    watermark = _timestamp(mark_row.last_updated) if mark_row else None
    listed: list[Conversation] = []
    newest = ""
    complete = True
    try:
        for conversation in gateway.conversations(folder):
            newest = max(newest, conversation.last_updated)
            moment = _timestamp(conversation.last_updated)
            if watermark is not None and moment is not None \
                    and moment < watermark - LISTING_LAG:
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
        if conversation.id in found.seen or known.get(conversation.id) == \
                conversation.last_updated:
            continue
        found.seen.add(conversation.id)
        try:
            _collect(engine, ctx, gateway, conversation, who, found, report, mark_seen)
        except (RateLimited, AuthError):
            raise
        except GatewayError as exc:
            complete = False
            found.failed.add(conversation.id)
            report.errors.append(f"conversation {conversation.id}: {exc}")
            log.warning("modmail conversation %s not read this round: %s", conversation.id,
                        exc)
    if complete and newest:
        found.marks[mark_key] = newest  # stored once the round's messages are handled
    return complete


def _collect(engine: Engine, ctx: CampaignContext, gateway: RedditGateway,
             conversation: Conversation, who: Readers, found: _Found, report: IntakeReport,
             mark_seen: bool) -> None:
    """Decide every new message of one changed conversation (fetching it, and a forward's
    item, from Reddit) and add them to the round; nothing is written but cursors."""
    ours = ctx.settings.campaign.subreddit.lower()
    if conversation.subreddit.lower() != ours:
        store_cursor(engine, ctx, conversation.id, conversation.last_updated)
        return
    full = conversation
    if not conversation.complete:
        full = gateway.conversation(conversation.id)
        report.conversations_fetched += 1
    wanted = [m for m in full.messages
              if should_read(full, m, who.bot, who.moderators, who.players)]
    done = recorded_ids(engine, ctx, (m.id for m in wanted))
    report.already_done += len(done)
    todo = [m for m in wanted if m.id not in done]
    if owned(full, who):
        found.owned.add(full.id)
    elif not todo:
        log.info("left modmail conversation %s (%r) unread: not the campaign's", full.id,
                 full.subject[:60])
    if not todo:
        store_cursor(engine, ctx, full.id, full.last_updated)
        return
    items = []
    for message in todo:
        if mark_seen:
            inbound = Inbound(Outcome.SEEN, message.author, "", "reply", full.id)
        else:
            inbound = decide(gateway, ctx, full, message, who)
        if inbound.outcome is Outcome.FORWARD:
            found.owned.add(full.id)  # a forward run as orders: the bot's to mark read
        items.append(_Item(inbound.sent_at or _sent_at(message.date), 0, message.id, full.id,
                           inbound))
    for item in items:
        found.add(item)
    found.cursors[full.id] = full.last_updated


def handle_inbound(engine: Engine, ctx: CampaignContext, clock: Clock, message_id: str,
                   conversation_id: str, inbound: Inbound, report: IntakeReport, *,
                   orders: bool = True, reply_key: str | None = None,
                   cursor: tuple[str, str] | None = None,
                   sent_at: datetime | None = None,
                   advance_to: AdvanceTo | None = None) -> bool:
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
    if timed and sent_at is not None and advance_to is not None:
        # An order counts from the moment it was sent: the ticks due before it come first.
        report.ticks_applied += advance_to(min(sent_at, now))
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
            ctx, campaign = current(session, ctx)  # the clock as stored
            last = campaign.last_tick
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
        if inbound.author != AUTOMODERATOR:  # the post itself cannot be read
            return (f"**For the moderators:** maester could not read the orders of "
                    f"u/{escape_md(inbound.author, 40)}: {inbound.note}.")  # our own words
        return (f"**For the moderators:** maester could not read this AutoModerator message "
                f"as a forward: {escape_md(inbound.note, 200)}, so the orders it may carry "
                "were not read. Check the `modmail:` rule against docs/automoderator.yaml "
                "(its first line must be the post's `{{permalink}}`, and it must name "
                "`u/{{author}}`); the player can post the "
                "orders again or send them by modmail.")
    if inbound.outcome is Outcome.NOTICE:
        log.info("AutoModerator message %s is not an orders forward: %s", message_id,
                 inbound.note)
        return (f"**For the moderators:** maester did not run this AutoModerator message as "
                f"orders: {escape_md(inbound.note, 200)}. Only the campaign's orders rule "
                "(docs/automoderator.yaml) forwards orders; nothing was carried out.")
    if inbound.outcome is Outcome.LEFT:
        log.info("left message %s (conversation %s) from u/%s unread for the moderators: %s",
                 message_id, inbound.reply_target, inbound.author, inbound.note)
        return ""
    if inbound.outcome in (Outcome.IGNORED, Outcome.SEEN, Outcome.DUPLICATE):
        return ""
    return handle_message(session, ctx, author=inbound.author, text=inbound.text, now=now,
                          ref=message_id, orders=orders)


def _queue_reply(session: Session, ctx: CampaignContext, inbound: Inbound, key: str,
                 reply: str, now: datetime) -> None:
    # filed under the author's claim; under none for a player of several (it may be any one's)
    claims = claims_of_user(session, ctx, inbound.author) \
        if inbound.author != AUTOMODERATOR else []
    claim = claims[0] if len(claims) == 1 else None
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

def _list_mentions(engine: Engine, ctx: CampaignContext, gateway: RedditGateway, who: Readers,
                   found: _Found, report: IntakeReport, mark_seen: bool, now: datetime
                   ) -> list[str]:
    """Add the unread mentions to the round; returns the inbox items to mark read.

    A token without the ``privatemessages`` scope stops only this (not the modmail): the
    moderators are told once, and the inbox is tried again every ``HALT_PROBE``."""
    if not ctx.settings.bot.comment_commands:
        return []
    stopped = state.load(engine, ctx.campaign_id, state.MENTIONS)
    if stopped and now < datetime.fromisoformat(str(stopped["next_probe"])):
        return []
    try:
        mentions = gateway.unread_mentions()
    except PermanentError as exc:
        if not exc.insufficient_scope:
            raise
        _mentions_refused(engine, ctx, stopped, now, str(exc))
        report.errors.append(f"mentions not read: {exc}")
        return []
    if stopped:
        state.store(engine, ctx.campaign_id, state.MENTIONS, None, now)
        log.info("reading mentions again: Reddit accepts the inbox call")
    if not mentions:
        return []
    ours = ctx.settings.campaign.subreddit.lower()
    done = recorded_ids(engine, ctx, (m.fullname for m in mentions))
    for mention in reversed(mentions):  # oldest first
        if (mention.fullname in done or mention.author is None
                or mention.author.lower() == who.bot or mention.subreddit.lower() != ours):
            continue
        author = mention.author or ""
        inbound = Inbound(Outcome.SEEN if mark_seen else Outcome.COMMENT, author, mention.body,
                          "comment", mention.fullname)
        found.add(_Item(mention.created, 0, mention.fullname, "", inbound, orders=False,
                        reply_key=f"comment:{mention.fullname.removeprefix('t1_')}"))
    return [m.fullname for m in mentions]


def _mentions_refused(engine: Engine, ctx: CampaignContext, stopped: dict[str, object] | None,
                      now: datetime, error: str) -> None:
    """Record that the inbox of mentions is refused for want of a scope; the first time,
    log it and tell the moderators (comment commands wait, modmail goes on)."""
    scope = state.LANE_SCOPES["mentions"]
    reason = f"the bot's login lacks the '{scope}' OAuth scope ({error})"
    since = str(stopped["since"]) if stopped else now.isoformat()
    with transaction(engine) as session:
        state.write(session, ctx.campaign_id, state.MENTIONS,
                    {"since": since, "reason": reason[:500],
                     "next_probe": (now + state.HALT_PROBE).isoformat()}, now)
        if stopped:
            return
        journal.log_event(session, ctx.campaign_id, ctx.tick_of(now), "mentions_halted",
                          f"mentions not read: {reason}"[:500], at=now)
        journal.queue(
            session, ctx.campaign_id, f"halt:mentions:{since}"[:120], "mod",
            title="maester stopped reading mentions: Reddit refuses it",
            body=(f"Reddit refused the inbox of mentions: {escape_md(reason, 500)}\n\n"
                  "Only comment commands wait; modmail orders go on. Get a new permanent "
                  f"refresh token that includes '{scope}' (docs/setup.md, step 2) and run "
                  "`maester check`, or set [bot] comment_commands = false."),
            at=now, tick=ctx.tick_of(now))
    log.error("mentions are not read (modmail goes on): %s", reason)


# --------------------------------------------------------------------------- after a reply

def note_reply(session: Session, ctx: CampaignContext, conversation: Conversation,
               bot: str) -> bool:
    """After the bot replied in a conversation, move its cursor past the bot's own message
    if every message the bot should read in it is recorded (saves one fetch per order).
    Runs in the caller's transaction; returns whether the cursor moved."""
    if not conversation.complete:
        return False
    players = frozenset(n.lower() for n in session.exec(select(col(Player.reddit_name)).where(
        Player.campaign_id == ctx.campaign_id)).all())
    wanted = sorted({m.id for m in conversation.messages
                     if should_read(conversation, m, bot, ctx.moderators, players)})
    if wanted:
        found = session.exec(select(col(InboxMessage.message_id)).where(
            InboxMessage.campaign_id == ctx.campaign_id,
            col(InboxMessage.message_id).in_(wanted))).all()
        if len(set(found)) != len(wanted):
            return False
    set_cursor(session, ctx, conversation.id, conversation.last_updated)
    return True
