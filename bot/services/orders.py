"""Players' orders: validate against the world, apply, and answer with a receipt.

Every order kind and its handler are listed in :data:`HANDLERS` at the end of this module.

A handler gets a parsed order (syntax already checked by :mod:`rules.campaign.orders`). Almost
every order is decided by the rules (:func:`rules.campaign.apply.apply_order`, on the world as
values): the handler calls :func:`bot.services.order_apply.decided`, which loads the world the
order reads, writes back what the rules changed, journals it and renders the receipt
(:mod:`bot.render.receipts`). A refused order raises :class:`Rejected` and changes nothing.
``odds`` (decided by :func:`rules.campaign.apply.odds_shown`, whose sides are the battle's)
and ``help`` answer here. Each order runs in a savepoint, so one bad order in a message
leaves the good ones applied and itself changes nothing. The caller owns the transaction (and
records the message id in it).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field, is_dataclass, replace
from datetime import datetime
from types import MappingProxyType

from sqlalchemy.exc import DBAPIError
from sqlmodel import Session

from bot.render import receipts
from bot.render.receipts import receipt_text
from bot.services import journal
from bot.services.help import example_for, help_reply
from bot.services.order_apply import decided as _decided
from bot.services.order_apply import refused, sender_of
from bot.services.order_call import Call, Handler, Rejected
from bot.services.order_world import load_order_world
from bot.services.world import (
    CampaignContext,
    claim_by_name,
    claim_of_user,
    get_campaign,
)
from bot.text import escape_md
from rules.campaign import apply as decide
from rules.campaign import orders as o
from rules.campaign.paths import tile_problem
from rules.campaign.timing import world_time
from rules.campaign.worldmap import UnknownTile
from rules.errors import RulesError

__all__ = ["HANDLERS", "Call", "Outcome", "Rejected", "process_message"]

log = logging.getLogger(__name__)


@dataclass(slots=True)
class Outcome:
    """What one message did: the reply and a count of accepted and rejected orders."""

    reply: str
    accepted: int = 0
    rejected: int = 0
    commands: list[o.CommandCall] = field(default_factory=list)


# --- the message ------------------------------------------------------------------------

def process_message(session: Session, ctx: CampaignContext, *, author: str, text: str,
                    now: datetime, ref: str) -> Outcome:
    """Handle every order of one message; returns the reply (markdown) to send back.

    ``ref`` is the message's unique id (keys for the outbox). Bot commands (``!odds``...) in
    the message are returned in :attr:`Outcome.commands` for the caller to run.
    """
    is_mod = ctx.is_moderator(author)
    claim = claim_of_user(session, ctx, author)
    # The world may already stand later than the wall clock (a moderator ticked ahead): an
    # order is then accepted just after the last applied tick, so its receipt matches what
    # will happen (the next tick is still to come).
    now = world_time(now, ctx.tick_at(get_campaign(session, ctx).last_tick))
    text, acting_for = o.acting_for(text)
    sections: list[str] = []
    outcome = Outcome(reply="")
    if acting_for is not None and not is_mod:
        outcome.reply = Rejected(
            f"only moderators can act for another claim (`as {escape_md(acting_for, 80)}:`)",
            "your orders without an `as ...:` line; they act for your own claim",
            "status").render()
        outcome.rejected = 1
        return outcome
    if acting_for is not None:
        claim = claim_by_name(session, ctx, acting_for)
        if claim is None:
            outcome.reply = (Rejected(
                f"there is no claim called {escape_md(acting_for)}",
                "a claim name as `maester claims` lists it", "as House Stark: status")).render()
            outcome.rejected = 1
            return outcome
    parsed = o.parse_message(text)
    finishers: list[tuple[int, str, Callable[[], str]]] = []
    for item in parsed.items:
        if isinstance(item.result, o.CommandCall):
            outcome.commands.append(item.result)
            continue
        quote = receipts.quoted(item.source)
        if isinstance(item.result, o.OrderSyntaxError):
            err = item.result
            example = err.example if err.verb is None else example_for(
                Call(session, ctx, author, claim, now, ref, is_mod), err.verb)
            sections.append(quote + (Rejected(err.problem, err.expected, example)).render())
            outcome.rejected += 1
            continue
        call = Call(session, ctx, author, claim, now, f"{ref}:{item.line_no}", is_mod)
        handler = HANDLERS.get(type(item.result))
        try:
            if handler is None:
                raise Rejected(f"`{type(item.result).__name__.lower()}` orders are not open in "
                               "this campaign", "one of the orders in the players' guide",
                               "status")
            with order_savepoint(session):
                receipt = handler(call, item.result)
        except Rejected as exc:
            sections.append(quote + exc.render())
            outcome.rejected += 1
            for summary, data in call.refusals:
                journal.log_event(session, ctx.campaign_id, call.tick, "refused", summary,
                                  at=now, claim_id=data.get("claim"), actor=author, data=data)
        except RulesError as exc:
            sections.append(quote + _from_rules(exc, item.result).render())
            outcome.rejected += 1
        except DBAPIError:
            raise  # the database failed, not the order: the whole message is retried
        except Exception:
            incident = f"{call.ref}"
            log.exception("order %s from u/%s failed unexpectedly", incident, author)
            sections.append(quote + receipts.failed(incident))
            outcome.rejected += 1
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


def _from_rules(exc: RulesError, order: object) -> Rejected:
    expected = getattr(exc, "expected", "") or ""
    verb = getattr(order, "verb", "")
    example = next((f.example for f in o._FORMS if f.verb == verb), "")
    if isinstance(exc, UnknownTile):  # "Did you mean Riverrun?", and the order corrected
        return Rejected(escape_md(tile_problem(exc), 300), "a tile id like 0412 or a tile name",
                        _corrected(order, exc) or example)
    # A rules error may quote the player's text (a tile name): echo it inert.
    return Rejected(escape_md(str(exc), 300), expected or "an order that fits the rules and "
                    "your claim", example)


def _corrected(order: object, exc: UnknownTile) -> str | None:
    """The order with its unknown tile replaced by the closest name, written out."""
    if not exc.suggestions or not is_dataclass(order) or isinstance(order, type):
        return None
    for name, value in asdict(order).items():
        if value == exc.ref:
            return str(replace(order, **{name: exc.suggestions[0]}))
    return None


# --- muster -----------------------------------------------------------------------------

def _muster(c: Call, order: o.Muster) -> str:
    return _decided(c, order)


# --- movement ---------------------------------------------------------------------------

def _move(c: Call, order: o.Move) -> str:
    return _decided(c, order)


def _route(c: Call, order: o.Route) -> str:
    return _decided(c, order)


def _cancel(c: Call, order: o.Cancel) -> str:
    return _decided(c, order)


def _stand(c: Call, order: o.Stand) -> str:
    return _decided(c, order)


def _retreat(c: Call, order: o.Retreat) -> str:
    return _decided(c, order)


def _spare(c: Call, order: o.Spare) -> str:
    """After the enemy army's failed retreat, its opponent lets it stay: no battle."""
    return _decided(c, order)


# --- battle and siege -------------------------------------------------------------------


def _attack(c: Call, order: o.Attack) -> str:
    return _decided(c, order)


def _intercept(c: Call, order: o.Intercept) -> str:
    """Within the reaction window of a sighting, a standing army on the watching tile stops the
    passing force (:func:`rules.campaign.apply.apply_order`)."""
    return _decided(c, order)


def _lift(c: Call, order: o.Lift) -> str:
    return _decided(c, order)


def _siege(c: Call, order: o.Siege) -> str:
    return _decided(c, order)


def _assault(c: Call, order: o.Assault) -> str:
    return _decided(c, order)


def _sally(c: Call, order: o.Sally) -> str:
    return _decided(c, order)


# --- information ------------------------------------------------------------------------

def _status(c: Call, order: o.Status) -> str:
    return _decided(c, order)


def _odds(c: Call, order: o.Odds) -> str:
    """Decided by the rules (:func:`rules.campaign.apply.odds_shown`: both sides as the battle
    would count them); the odds change nothing."""
    claim = c.require_claim()
    world, _ = load_order_world(c.session, c.ctx, {decide.Part.ARMIES, decide.Part.CHARACTERS})
    try:
        shown = decide.odds_shown(world, sender_of(c, claim.id or 0), order, c.now,
                                  moderator=c.is_moderator)
    except decide.OrderRefused as exc:
        raise refused(c, claim, exc) from None
    return receipt_text(c.ctx, shown)


# --- the catalogue's orders, and the fleets' blockade ----------------------------------

def _build(c: Call, order: o.Build) -> str:
    return _decided(c, order)


def _buy(c: Call, order: o.Buy) -> str:
    return _decided(c, order)


def _assign(c: Call, order: o.Assign) -> str:
    return _decided(c, order)


def _blockade(c: Call, order: o.Blockade) -> str:
    return _decided(c, order)


# --- claims and armies ------------------------------------------------------------------

def _cede(c: Call, order: o.Cede) -> str:
    return _decided(c, order)


def _disband(c: Call, order: o.Disband) -> str:
    return _decided(c, order)


def _link(c: Call, order: o.Link) -> str:
    """The claim's war-room link (:mod:`bot.services.weblinks`); made when first asked."""
    from bot.services import weblinks

    claim = c.require_claim()
    scope = weblinks.claim_scope(claim.id or 0)
    token = weblinks.token_for(c.session, c.ctx, scope, c.now)
    return weblinks.link_reply(c.ctx, weblinks.Link(scope, claim.name, token))


def _help(c: Call, order: o.Help) -> str:
    return help_reply(c, order.topic)


HANDLERS: Mapping[type, Handler] = MappingProxyType({
    # Every order kind the campaign answers, in the players' guide's order. An order kind
    # missing here is answered "not open in this campaign".
    o.Muster: _muster,
    o.Move: _move,
    o.Route: _route,
    o.Cancel: _cancel,
    o.Stand: _stand,
    o.Retreat: _retreat,
    o.Attack: _attack,
    o.Spare: _spare,
    o.Intercept: _intercept,
    o.Siege: _siege,
    o.Assault: _assault,
    o.Sally: _sally,
    o.Lift: _lift,
    o.Blockade: _blockade,
    o.Build: _build,
    o.Buy: _buy,
    o.Assign: _assign,
    o.Cede: _cede,
    o.Disband: _disband,
    o.Status: _status,
    o.Odds: _odds,
    o.Link: _link,
    o.Help: _help,
})
"""The order handlers, listed explicitly (nothing registers itself on import)."""
