"""Players' orders: validate against the world, apply, and answer with a receipt.

Every order kind is listed once, in :data:`rules.campaign.decide.ORDER_KINDS`; :func:`answer`
gets a parsed order (syntax already checked by :mod:`rules.campaign.language`). Almost
every order is decided by the rules (:func:`rules.campaign.decide.apply_order`, on the world as
values): :func:`answer` calls :func:`bot.services.order_apply.decided`, which loads the world the
order reads, writes back what the rules changed, journals it and renders the receipt
(:mod:`bot.render.receipts`). A refused order raises :class:`Rejected` and changes nothing.
``odds`` (decided by :func:`rules.campaign.decide.odds_shown`, whose sides are the battle's),
``away`` (a leave, :mod:`bot.services.absence`) and ``help`` answer here. Each order runs in a
savepoint, so one bad order in a message leaves the good ones applied and itself changes
nothing. The caller owns the transaction (and
records the message id in it).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field, is_dataclass, replace
from datetime import UTC, datetime, time, timedelta

from sqlalchemy.exc import DBAPIError
from sqlmodel import Session

from bot.db.models import Claim
from bot.errors import render_error
from bot.render import receipts
from bot.services import absence, journal, webhooks, weblinks
from bot.services.help import EXAMPLES, example_for, help_reply, syntax_example
from bot.services.order_apply import decided as _decided
from bot.services.order_apply import receipt_text, refused, sender_of
from bot.services.order_call import Call, Rejected
from bot.services.order_world import load_order_world
from bot.services.pause import QUESTIONS
from bot.services.world import (
    CampaignContext,
    claim_by_name,
    claims_of_user,
    current,
)
from bot.text import escape_md
from rules.campaign import decide
from rules.campaign import language as o
from rules.campaign.muster import NotEnoughTroops, ScatteredTroops
from rules.campaign.paths import tile_problem
from rules.campaign.timing import world_time
from rules.campaign.worldmap import UnknownTile
from rules.errors import RulesError

__all__ = ["Call", "Outcome", "Rejected", "answer", "process_message"]

log = logging.getLogger(__name__)


@dataclass(slots=True)
class Outcome:
    """What one message did: the reply and a count of accepted and rejected orders."""

    reply: str
    accepted: int = 0
    rejected: int = 0
    failed: int = 0  # of the rejected, those that failed on the bot's side (apologised for)
    commands: list[o.CommandCall] = field(default_factory=list)


# --- the message ------------------------------------------------------------------------

def _claim_for(session: Session, ctx: CampaignContext, author: str, acting_for: str | None,
               *, is_mod: bool) -> Claim | None:
    """The claim a message is for: the author's own, or the one its `as House X:` line names
    (any claim for a moderator; one of their own for a player of several claims, who must name
    it). None for a stranger. Raises Rejected for a line that names no claim the author may
    act for, or a player of several claims who names none."""
    own = claims_of_user(session, ctx, author)
    names = ", ".join(escape_md(c.name) for c in own)
    if acting_for is None:
        if len(own) > 1:
            raise Rejected(f"you play several claims ({names}); the message does not say "
                           "which one it is for",
                           "a first line `as <claim>:` naming one of your claims",
                           f"as {escape_md(own[0].name)}: status")
        return own[0] if own else None
    claim = claim_by_name(session, ctx, acting_for)
    if not is_mod and (claim is None or claim not in own):
        if len(own) > 1:
            raise Rejected(f"you do not play a claim called {escape_md(acting_for, 80)}",
                           f"one of your claims: {names}", f"as {escape_md(own[0].name)}: status")
        raise Rejected(
            f"only moderators can act for another claim (`as {escape_md(acting_for, 80)}:`)",
            "your orders without an `as ...:` line; they act for your own claim", "status")
    if claim is None:
        raise Rejected(f"there is no claim called {escape_md(acting_for)}",
                       "a claim name as `maester claims` lists it", "as House Stark: status")
    return claim


def process_message(session: Session, ctx: CampaignContext, *, author: str, text: str,
                    now: datetime, ref: str, paused: str | None = None) -> Outcome:
    """Handle every order of one message; returns the reply (markdown) to send back.

    ``ref`` is the message's unique id (keys for the outbox). Bot commands (``!odds``...) in
    the message are returned in :attr:`Outcome.commands` for the caller to run. ``paused``:
    the campaign is paused and this is the reply to every order that would change the world
    (such an order is not tried); questions (:data:`bot.services.pause.QUESTIONS`) are
    answered as usual.
    """
    is_mod = ctx.is_moderator(author)
    # The world may already stand later than the wall clock (a moderator ticked ahead): an
    # order is then accepted just after the last applied tick, so its receipt matches what
    # will happen (the next tick is still to come).
    ctx, campaign = current(session, ctx)  # the clock as stored
    now = world_time(now, ctx.tick_at(campaign.last_tick))
    text, acting_for = o.acting_for(text)
    sections: list[str] = []
    outcome = Outcome(reply="")
    try:
        claim = _claim_for(session, ctx, author, acting_for, is_mod=is_mod)
    except Rejected as exc:
        outcome.reply = exc.render()
        outcome.rejected = 1
        return outcome
    if claim is not None and claim in claims_of_user(session, ctx, author):
        absence.note_activity(session, ctx, claim, author=author, now=now)  # a player's word
    parsed = o.parse_message(text)
    finishers: list[tuple[int, str, Callable[[], str]]] = []
    for item in parsed.items:
        if isinstance(item.result, o.CommandCall):
            outcome.commands.append(item.result)
            continue
        source = item.source
        if isinstance(item.result, o.Webhook) and item.result.url:  # its token stays unsaid
            source = source.replace(item.result.url, webhooks.masked(item.result.url))
        quote = receipts.quoted(source)
        if isinstance(item.result, o.OrderSyntaxError):
            err = item.result
            example = syntax_example(Call(session, ctx, author, claim, now, ref, is_mod), err)
            sections.append(quote + (Rejected(err.problem, err.expected, example)).render())
            outcome.rejected += 1
            continue
        if paused is not None and not isinstance(item.result, QUESTIONS):
            sections.append(quote + paused)
            outcome.rejected += 1
            continue
        call = Call(session, ctx, author, claim, now, f"{ref}:{item.line_no}", is_mod)
        try:
            if type(item.result) not in decide.ORDER_KINDS:
                raise Rejected(f"`{type(item.result).__name__.lower()}` orders are not open in "
                               "this campaign", "one of the orders in the players' guide",
                               "status")
            with order_savepoint(session):
                receipt = answer(call, item.result)
        except DBAPIError:
            raise  # the database failed, not the order: the whole message is retried
        except Exception as exc:
            # the rules' refusal is worded for the player here; every error becomes words in
            # one place (render_error)
            shown = _from_rules(call, exc, item.result) if isinstance(exc, RulesError) else exc
            error = render_error(shown, ref=call.ref, doing="handling this order")
            sections.append(quote + error.text)
            outcome.rejected += 1
            if error.failed:
                outcome.failed += 1
                log.exception("order %s from u/%s failed unexpectedly", call.ref, author)
            for summary, data in call.refusals if isinstance(exc, Rejected) else ():
                journal.log_event(session, ctx.campaign_id, call.tick, "refused", summary,
                                  at=now, claim_id=data.get("claim"), actor=author, data=data)
        else:
            sections.append(quote + receipt)
            outcome.accepted += 1
            if call.finish is not None:
                finishers.append((len(sections) - 1, quote, call.finish))
    for index, quote, finish in finishers:  # receipts reflect the whole message
        sections[index] = quote + finish()
    if parsed.text_truncated or parsed.lines_truncated:
        sections.append(receipts.TRUNCATED)
    if not sections and not outcome.commands:
        sections.append((Rejected(
            "I found no order in your message",
            "one order per line, e.g. a muster, a march, an attack, or `status`",
            "muster 300 infantry 50 cavalry")).render() + "\n\n" + help_reply(
                Call(session, ctx, author, claim, now, ref, is_mod), None))
    outcome.reply = receipts.reply(sections)
    return outcome


@contextmanager
def order_savepoint(session: Session) -> Iterator[None]:
    """One order's savepoint. When the order fails its changes are rolled back, and every ORM
    object of the session is expired: values the order wrote with Core statements were given
    to those objects as committed (:func:`bot.storage.world_rows.sync_session`), and the
    rollback does not take them back by itself."""
    try:
        with session.begin_nested():
            yield
    except BaseException:
        session.expire_all()
        raise


def _from_rules(c: Call, exc: RulesError, order: object) -> Rejected:
    """A rules error worded for the player, with the example of the order made for them
    (their own armies and this campaign's map)."""
    expected = getattr(exc, "expected", "") or ""
    verb = getattr(order, "verb", "")
    example = example_for(c, verb) if verb in EXAMPLES else ""
    if isinstance(exc, UnknownTile):  # "Did you mean Riverrun?", and the order corrected
        return Rejected(escape_md(tile_problem(exc), 300), "a tile id like 0412 or a tile name",
                        _corrected(order, exc) or example)
    # A rules error may quote the player's text (a tile name): echo it inert.
    return Rejected(escape_md(str(exc), 300), expected or "an order that fits the rules and "
                    "your claim", _within_reach(order, exc) or example)


def _within_reach(order: object, exc: RulesError) -> str:
    """A muster asking for more than may be raised (too few at home, or scattered troops
    still locked), cut to what may: the example its refusal gives (``status`` when nothing
    may be raised; "" for any other refusal)."""
    if not isinstance(order, o.Muster) or not isinstance(exc, (NotEnoughTroops,
                                                               ScatteredTroops)):
        return ""
    can = exc.raisable  # what may be raised now: the check's own figures
    try:
        return str(replace(order, infantry=min(order.infantry, can["infantry"]),
                           cavalry=min(order.cavalry, can["cavalry"]),
                           ships=min(order.ships, can["ships"])))
    except RulesError:  # nothing left to muster
        return "status"


def _corrected(order: object, exc: UnknownTile) -> str | None:
    """The order with its unknown tile replaced by the closest name, written out."""
    if not exc.suggestions or not is_dataclass(order) or isinstance(order, type):
        return None
    for name, value in asdict(order).items():
        if value == exc.ref:
            return str(replace(order, **{name: exc.suggestions[0]}))
    return None


# --- one order -----------------------------------------------------------------------

def answer(c: Call, order: o.Order) -> str:
    """One order's receipt (markdown), or :class:`Rejected`: every kind of
    :data:`rules.campaign.decide.ORDER_KINDS` with a decision is decided by the rules
    (:func:`bot.services.order_apply.decided`); ``odds``, ``away``, ``link`` and ``help``
    are answered here."""
    if isinstance(order, o.Help):
        return help_reply(c, order.topic)
    if isinstance(order, o.Link):
        return _link(c)
    if isinstance(order, o.Odds):
        return _odds(c, order)
    if isinstance(order, o.Away):
        return _away(c, order)
    if isinstance(order, o.Webhook):
        return _webhook(c, order)
    return _decided(c, order)


def _away(c: Call, order: o.Away) -> str:
    """A leave announced: kept in the claim's row (:func:`bot.services.absence.take_leave`),
    not in the rules' world."""
    claim = c.require_claim()
    until = datetime.combine(order.until, time(), UTC)
    try:
        summary = absence.take_leave(c.session, c.ctx, claim, until, order.reason,
                                     actor=c.author, now=c.now, by_order=True)
    except absence.LeaveRefused as exc:
        longest = c.ctx.settings.claims.leave_max_days
        raise Rejected(escape_md(str(exc)), f"a date after today and at most {longest} days "
                       "ahead", f"away until {c.now + timedelta(days=min(14, longest)):%Y-%m-%d}"
                       ) from None
    return (f"Noted: {escape_md(summary)}. Your claim is not marked inactive meanwhile; any "
            "message from you ends the leave early.")


def _webhook(c: Call, order: o.Webhook) -> str:
    """The claim's private webhook registered or removed (:mod:`bot.services.webhooks`):
    kept beside the claim, outside the rules' world. The reply never repeats the token."""
    claim = c.require_claim()
    if not c.ctx.settings.webhooks.claims:
        raise Rejected("the moderators have not opened private webhooks in this campaign",
                       "your news by modmail, as it comes", "status")
    if order.url is None:
        if webhooks.forget(c.session, c.ctx, claim, actor=c.author, now=c.now):
            return ("Done: your claim's private news no longer goes to a webhook; it still "
                    "comes here by modmail.")
        return "Your claim had no webhook; its private news comes here by modmail."
    try:
        webhooks.register(c.session, c.ctx, claim, order.url, actor=c.author, now=c.now)
    except webhooks.WebhookRefused as exc:
        raise Rejected(f"that webhook address cannot be used: {escape_md(str(exc), 200)}",
                       "a Discord webhook address (channel settings, Integrations, "
                       "Webhooks, Copy Webhook URL), or `webhook off`",
                       "webhook https://discord.com/api/webhooks/123456789012345678/"
                       "AbCdEf-GhIjKl_MnOp") from None
    return (f"Done: from now on {escape_md(claim.name)}'s private news also goes to the webhook "
            f"`{escape_md(webhooks.masked(order.url), 120)}` (only your claim's news; public "
            "posts stay on Reddit). Keep its address secret: anyone who has it can write to "
            "that channel. `webhook off` stops it.")


def _link(c: Call) -> str:
    """The claim's war-room link (:mod:`bot.services.weblinks`); made when first asked."""
    claim = c.require_claim()
    scope = weblinks.claim_scope(claim.id or 0)
    token = weblinks.token_for(c.session, c.ctx, scope, c.now)
    return weblinks.link_reply(c.ctx, weblinks.Link(scope, claim.name, token))


def _odds(c: Call, order: o.Odds) -> str:
    """Decided by the rules (:func:`rules.campaign.decide.odds_shown`: both sides as the battle
    would count them); the odds change nothing."""
    claim = c.require_claim()
    world, _ = load_order_world(c.session, c.ctx, decide.ORDER_KINDS[o.Odds].reads)
    try:
        shown = decide.odds_shown(world, sender_of(c, claim.id or 0), order, c.now,
                                  moderator=c.is_moderator)
    except decide.OrderRefused as exc:
        raise refused(c, claim, exc) from None
    return receipt_text(c.ctx, shown)
