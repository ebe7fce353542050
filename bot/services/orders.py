"""Players' orders: validate against the world, apply, and answer with a receipt.

Every order kind and its handler are listed in :data:`HANDLERS` at the end of this module.

A handler gets a parsed order (syntax already checked by :mod:`rules.campaign.orders`), checks
it against the world (ownership, troops, muster, path, stated cost, target) and either raises
:class:`Rejected` (nothing changes) or changes state and returns the receipt. Each order runs in
a savepoint, so one bad order in a message leaves the good ones applied and itself changes
nothing. The caller owns the transaction (and records the message id in it).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime
from types import MappingProxyType
from typing import Any

from sqlalchemy.exc import DBAPIError
from sqlmodel import Session

from bot.db.models import (
    Army,
    ArmyKind,
    Claim,
)
from bot.services import fairplay, journal, orders_catalogue
from bot.services.help import help_reply
from bot.services.order_call import Call, Handler, Rejected, active_siege
from bot.services.order_world import Rows, Stored, load_order_world, write_back
from bot.services.receipts import receipt_text
from bot.services.render import troops_text
from bot.services.sieges import end_siege
from bot.services.world import (
    CampaignContext,
    army,
    claim_by_name,
    claim_of_user,
    get_campaign,
)
from bot.text import escape_md
from rules.campaign import apply as decide
from rules.campaign import orders as o
from rules.campaign.battle import Winner
from rules.campaign.config import Season
from rules.campaign.modifiers import Modifier
from rules.campaign.world import Army as ArmyValue
from rules.errors import RulesError

__all__ = ["HANDLERS", "Call", "Outcome", "Rejected", "active_siege", "process_message"]

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
    # order is then accepted at the world's time, so its receipt matches what will happen.
    now = max(now, ctx.tick_at(get_campaign(session, ctx).last_tick))
    text, acting_for = _acting_for(text)
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
        quote = f"> {escape_md(item.source, 120)}\n\n"
        if isinstance(item.result, o.OrderSyntaxError):
            err = item.result
            sections.append(quote + (Rejected(err.problem, err.expected,
                                                           err.example)).render())
            outcome.rejected += 1
            continue
        call = Call(session, ctx, author, claim, now, f"{ref}:{item.line_no}", is_mod)
        handler = HANDLERS.get(type(item.result))
        try:
            if handler is None:
                raise Rejected(f"`{type(item.result).__name__.lower()}` orders are not open in "
                               "this campaign", "one of the orders in the players' guide",
                               "status")
            with session.begin_nested():
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
            sections.append(quote + f"**Not done:** {INTERNAL_FAILURE} while "
                            f"handling this order (reference `{escape_md(incident)}`). Nothing "
                            "changed; the moderators can look it up.")
            outcome.rejected += 1
        else:
            sections.append(quote + receipt)
            outcome.accepted += 1
            if call.finish is not None:
                finishers.append((len(sections) - 1, quote, call.finish))
    for index, quote, finish in finishers:  # receipts reflect the whole message
        sections[index] = quote + finish()
    if parsed.text_truncated or parsed.lines_truncated:
        sections.append("*Only the first orders of this long message were read; send the rest "
                        "in another message.*")
    if not sections and not outcome.commands:
        sections.append((Rejected(
            "I found no order in your message",
            "one order per line, e.g. a muster, a march, an attack, or `status`",
            "muster 300 infantry 50 cavalry")).render() + "\n\n" + help_reply(
                Call(session, ctx, author, claim, now, ref, is_mod), None))
    outcome.reply = "\n\n---\n\n".join(sections)
    return outcome


INTERNAL_FAILURE = "something went wrong on my side"
"""The words of every apology for an unexpected failure (the CLI exits non-zero on them)."""


def _acting_for(text: str) -> tuple[str, str | None]:
    """A moderator's ``as House Stark:`` first line: (rest of the text, claim name)."""
    first, _, rest = text.strip().partition("\n")
    head = first.strip()
    if head.lower().startswith("as ") and ":" in head:
        name, _, after = head[3:].partition(":")
        return (after + "\n" + rest).strip(), name.strip()
    return text, None


def _from_rules(exc: RulesError, order: object) -> Rejected:
    expected = getattr(exc, "expected", "") or ""
    verb = getattr(order, "verb", "")
    example = next((f.example for f in o._FORMS if f.verb == verb), "")
    # A rules error may quote the player's text (a tile name): echo it inert.
    return Rejected(escape_md(str(exc), 300), expected or "an order that fits the rules and "
                    "your claim", example)


# --- helpers ----------------------------------------------------------------------------

def _troops(a: Army) -> str:
    parts = []
    if a.infantry:
        parts.append(f"{a.infantry} infantry")
    if a.cavalry:
        parts.append(f"{a.cavalry} cavalry")
    if a.ships:
        parts.append(f"{a.ships} ships")
    return ", ".join(parts) or "no troops"


def _label(c: Call, tile_id: str) -> str:
    return c.ctx.world.tile(tile_id).label


def _season(c: Call) -> Season:
    return Season(get_campaign(c.session, c.ctx).season)


def reaction_deadline(c: Call) -> int:
    """The tick at which a battle started now is fought (the reaction window's end)."""
    return decide.reaction_deadline(c.now, c.ctx.rules)


# --- orders the rules decide ------------------------------------------------------------

def _decided(c: Call, order: object) -> str:
    """An order of :data:`rules.campaign.apply.PURE_ORDERS`: load the world it needs, let the
    rules decide, write the difference back, journal it, render the receipt."""
    claim = c.require_claim()
    before, rows = load_order_world(c.session, c.ctx, decide.READS[type(order)])
    try:
        after, receipt = decide.apply_order(before, order, c.now,
                                            sender=_sender(c, claim.id or 0))
    except decide.OrderRefused as exc:
        if exc.tried_army is not None:
            # Logged after the order's savepoint is rolled back, so the refusal is kept.
            army_id, owner, mine = exc.tried_army
            c.refusals.append((
                f"u/{c.author} ({claim.name}) tried to order army {army_id} of another claim",
                {"army": army_id, "owner": owner, "claim": mine}))
        raise Rejected(exc.problem(escape_md), exc.expected, exc.example) from None
    stored = write_back(c.session, c.ctx, rows, before, after)
    receipt = _stored_ids(receipt, stored)
    for army_id in receipt.ordered:
        fairplay.mark_order(rows.armies[army_id], c.ref)
        c.session.add(rows.armies[army_id])
    for a, b, was in receipt.wars:
        journal.log_event(c.session, c.ctx.campaign_id, c.tick, "war",
                          f"claims {a} and {b} are at war", at=c.now, claim_id=a,
                          actor=c.author, data={"claims": [a, b], "before": was.value})
    for siege in stored.sieges_ended:
        how = "have lifted the siege" if isinstance(order, o.Lift) else "have marched away"
        end_siege(c.session, c.ctx, siege, f"The besiegers of {claim.name} {how}.", at=c.now,
                  tick=c.tick)
    _JOURNAL[type(receipt)](c, claim, receipt, rows)
    text = receipt_text(c.ctx, receipt)
    if isinstance(receipt, decide.Marched):
        c.finish = _whole_message(c, receipt, text)
    return text


class _CatalogueModifiers:
    """The catalogue's modifiers as the rules ask for them while deciding an order."""

    def __init__(self, c: Call) -> None:
        self.c = c

    def march(self, army: ArmyValue) -> tuple[Modifier, ...]:
        from bot.services.catalogue import march_modifiers  # speed modifiers

        row = self.c.session.get(Army, army.id)
        return () if row is None else march_modifiers(self.c.session, self.c.ctx, row)

    def observer(self, claim_id: int, tile: str) -> tuple[Modifier, ...]:
        return ()  # no order rolls to detect

    def besieger(self, army: ArmyValue) -> tuple[Modifier, ...]:
        from bot.services.catalogue import ModifierBook

        row = self.c.session.get(Army, army.id)
        return () if row is None else ModifierBook.load(self.c.session, self.c.ctx).army(
            row, equipment=True)

    def holdfast(self, claim_id: int) -> tuple[Modifier, ...]:
        from bot.services.catalogue import ModifierBook

        claim = self.c.session.get(Claim, claim_id)
        return () if claim is None else ModifierBook.load(self.c.session, self.c.ctx).holdfast(
            claim)


def _sender(c: Call, claim_id: int) -> decide.Sender:
    return decide.Sender(claim_id, c.ctx.rules, c.ctx.world, _CatalogueModifiers(c))


def _stored_ids(receipt: decide.Receipt, stored: Stored) -> decide.Receipt:
    """The receipt naming the stored ids of the army and the battle the order created."""
    def army_id(value: int) -> int:
        return stored.army if value == decide.NEW_ARMY and stored.army is not None else value

    changes: dict[str, Any] = {"ordered": tuple(army_id(i) for i in receipt.ordered)}
    for name in ("army", "target"):
        if isinstance(getattr(receipt, name, None), int):
            changes[name] = army_id(getattr(receipt, name))
    if hasattr(receipt, "battle") and receipt.battle is None:
        changes["battle"] = stored.battle
    if isinstance(receipt, decide.SiegeBegun) and stored.siege is not None:
        changes["siege"] = stored.siege
    return replace(receipt, **changes)


def _log(c: Call, kind: str, summary: str, claim_id: int | None, **data: object) -> None:
    journal.log_event(c.session, c.ctx.campaign_id, c.tick, kind, summary, at=c.now,
                      claim_id=claim_id, actor=c.author, data=dict(data))


def _journal_muster(c: Call, claim: Claim, rc: decide.Mustered, rows: Rows) -> None:
    word = "fleet" if rc.kind is ArmyKind.FLEET else "army"
    _log(c, "muster", f"{claim.name} musters {word} {rc.army}: "
         f"{troops_text(rc.infantry, rc.cavalry, rc.ships)}", claim.id, army=rc.army,
         infantry=rc.infantry, cavalry=rc.cavalry, ships=rc.ships, ready_tick=rc.ready_tick)


def _journal_march(c: Call, claim: Claim, rc: decide.Marched, rows: Rows) -> None:
    _log(c, "march", f"army {rc.army} ordered to march {rc.check.breakdown()}", claim.id,
         army=rc.army, path=list(rc.check.ids), cost=rc.check.total,
         depart_tick=c.ctx.tick_of(rc.depart), arrival_tick=rc.plan.arrival_tick)


def _journal_cancel(c: Call, claim: Claim, rc: decide.Cancelled, rows: Rows) -> None:
    _log(c, "cancel", f"{rc.what} of army {rc.army} cancelled", claim.id, army=rc.army)


def _journal_halt(c: Call, claim: Claim, rc: decide.Halted, rows: Rows) -> None:
    _log(c, "halt", f"army {rc.army} halts at {rc.tile}", claim.id, army=rc.army,
         tile=rc.tile)


def _journal_reaction(c: Call, claim: Claim, rc: decide.Reacted, rows: Rows) -> None:
    _log(c, "reaction", f"army {rc.army} chooses to {rc.reaction}", claim.id, army=rc.army,
         battle=rc.battle, reaction=rc.reaction)


def _journal_retreat_referred(c: Call, claim: Claim, rc: decide.RetreatReferred,
                              rows: Rows) -> None:
    """No way back and no route given: the moderators decide (nothing is rolled or lost)."""
    _log(c, "referral", f"army {rc.army} of {claim.name} wants to retreat from {rc.tile} but "
         "has no way back: referred to the moderators", claim.id, army=rc.army,
         battle=rc.battle)
    journal.notify_moderators(
        c.session, c.ctx.campaign_id, f"referral:retreat:{c.ref}",
        subject=f"Retreat of army {rc.army} referred to you",
        body=(f"u/{escape_md(c.author)} ({escape_md(claim.name)}) wants army {rc.army} "
              f"({troops_text(rc.infantry, rc.cavalry, rc.ships)}) to retreat from "
              f"{escape_md(_label(c, rc.tile))} before battle {rc.battle}, but it did not "
              "march there and gave no route. The rules leave this to your discretion. "
              "Nothing was rolled; the battle stands unless you rule otherwise."),
        at=c.now, tick=c.tick)


def _journal_spared(c: Call, claim: Claim, rc: decide.Spared, rows: Rows) -> None:
    _log(c, "spared", f"{claim.name} lets army {rc.army} stay at {rc.tile}", claim.id,
         battle=rc.battle, army=rc.army)
    journal.notify_claim(c.session, c.ctx.campaign_id, rc.other_claim, f"spared:{rc.battle}",
                         subject=f"Army {rc.army} is spared",
                         body=(f"{claim.name} lets your army {rc.army} stay at "
                               f"{_label(c, rc.tile)}: there is no battle."),
                         at=c.now, tick=c.tick)


def _journal_battle(c: Call, claim: Claim, rc: decide.BattleOrdered, rows: Rows) -> None:
    when = c.ctx.when(c.ctx.tick_at(rc.resolve_tick))
    place = _label(c, rc.tile)
    troops = troops_text(rc.infantry, rc.cavalry, rc.ships)
    if rc.how == "sally":
        _log(c, "sally", f"{claim.name} sallies from {place}", claim.id, battle=rc.battle,
             army=rc.army)
        return
    if rc.how == "assault":
        _log(c, "assault", f"army {rc.army} will assault {place}", rc.attacker_claim,
             battle=rc.battle, army=rc.army)
        journal.notify_claim(c.session, c.ctx.campaign_id, rc.defender_claim,
                             f"assault:{rc.battle}", subject=f"{place} will be assaulted",
                             body=(f"Army {rc.army} ({troops}) will assault {place} at "
                                   f"{when}. Your garrison defends with the holdfast's "
                                   "defenses."), at=c.now, tick=c.tick)
        return
    if rc.how == "attack":
        told, subject = "attacked", f"Army {rc.target} is attacked at {place}"
        summary = f"army {rc.army} attacks army {rc.target} at {rc.tile}"
        news = f"Army {rc.army} ({troops}) attacks your army {rc.target} at {place}."
    else:
        told, subject = "intercepted", f"Army {rc.target} is intercepted at {place}"
        summary = f"army {rc.army} intercepts army {rc.target} at {rc.tile}"
        news = (f"Army {rc.army} ({troops}) bars the way of your army {rc.target} at "
                f"{place}: your march is stopped.")
    _log(c, rc.how, summary, rc.attacker_claim, battle=rc.battle, attacker=rc.army,
         defender=rc.target)
    journal.notify_claim(
        c.session, c.ctx.campaign_id, rc.defender_claim, f"{told}:{rc.battle}",
        subject=subject,
        body=(f"{news} The battle is fought at {when}.\n\nYou have the first reaction: reply "
              f"`retreat army {rc.target}` to try to escape, or `stand army {rc.target}` to "
              "fight."),
        at=c.now, tick=c.tick)


def _journal_nothing(c: Call, claim: Claim, rc: decide.Receipt, rows: Rows) -> None:
    """Nothing to journal (a route is a question), or journaled elsewhere (a lifted siege by
    ``end_siege``)."""


def _journal_siege(c: Call, claim: Claim, rc: decide.SiegeBegun, rows: Rows) -> None:
    from bot.services.catalogue import siege_note

    hold = _label(c, rc.holdfast)
    owner = rows.claims[rc.defender_claim]
    journal.log_event(c.session, c.ctx.campaign_id, c.tick, "siege_start",
                      f"{claim.name} besieges {hold} with army {rc.army}", at=c.now,
                      claim_id=claim.id, actor=c.author, public=True,
                      data={"siege": rc.siege, "army": rc.army, "months": rc.length.months})
    journal.queue(c.session, c.ctx.campaign_id, f"siege:{rc.siege}:start", "post",
                  title=c.ctx.settings.posts.siege_title.format(event="Siege begins",
                                                                holdfast=hold),
                  body=(f"The host of **{claim.name}** has laid siege to **{hold}**, seat "
                        f"of {owner.name}, on {c.ctx.when(c.now)}."),
                  flair=c.ctx.settings.posts.siege_flair, public=True, at=c.now, tick=c.tick,
                  target=c.ctx.settings.campaign.subreddit)
    journal.notify_claim(c.session, c.ctx.campaign_id, owner.id or 0, f"besieged:{rc.siege}",
                         subject=f"{hold} is besieged",
                         body=(f"Army {rc.army} of {claim.name} "
                               f"({troops_text(rc.infantry, rc.cavalry, rc.ships)}) besieges "
                               f"{hold}. Your garrison can hold for {rc.length.months} "
                               f"in-game months{siege_note(rc.length, rc.defender_mods)}. You "
                               f"may sally: `sally from {hold}`."), at=c.now, tick=c.tick)


def _journal_siege_referred(c: Call, claim: Claim, rc: decide.SiegeReferred,
                            rows: Rows) -> None:
    """A siege of a special holdfast: the moderators rule on it (an internal note and an
    event); nothing else changes."""
    hold = _label(c, rc.holdfast)
    owner = rows.claims[rc.defender_claim]
    journal.log_event(c.session, c.ctx.campaign_id, c.tick, "referral",
                      f"{claim.name} orders army {rc.army} to besiege {hold} (special rules): "
                      "referred to the moderators", at=c.now, claim_id=claim.id, actor=c.author,
                      data={"army": rc.army, "holdfast": rc.holdfast, "defender": owner.id})
    journal.notify_moderators(
        c.session, c.ctx.campaign_id, f"referral:siege:{c.ref}",
        subject=f"Siege of {hold} referred to you",
        body=(f"u/{escape_md(c.author)} ({escape_md(claim.name)}) orders army {rc.army} "
              f"({troops_text(rc.infantry, rc.cavalry, rc.ships)}) to besiege "
              f"**{escape_md(hold)}**, seat of {escape_md(owner.name)}. This holdfast has its "
              "own siege rules, so maester started nothing: please rule on it and tell both "
              "claims."),
        at=c.now, tick=c.tick)


def _journal_cede(c: Call, claim: Claim, rc: decide.Ceded, rows: Rows) -> None:
    _log(c, "cede", f"{claim.name} cedes {_label(c, rc.tile)} to {rc.to_name}", claim.id,
         tile=rc.tile, to=rc.to_claim)


def _journal_disband(c: Call, claim: Claim, rc: decide.Disbanded, rows: Rows) -> None:
    _log(c, "disband", f"army {rc.army} disbanded", claim.id, army=rc.army)


_JOURNAL: Mapping[type, Callable[[Call, Claim, Any, Rows], None]] = MappingProxyType({
    decide.Mustered: _journal_muster,
    decide.Marched: _journal_march,
    decide.RouteFound: _journal_nothing,
    decide.Cancelled: _journal_cancel,
    decide.Halted: _journal_halt,
    decide.Reacted: _journal_reaction,
    decide.RetreatReferred: _journal_retreat_referred,
    decide.Spared: _journal_spared,
    decide.BattleOrdered: _journal_battle,
    decide.SiegeLifted: _journal_nothing,
    decide.Disbanded: _journal_disband,
    decide.StatusReport: _journal_nothing,
    decide.Ceded: _journal_cede,
    decide.SiegeBegun: _journal_siege,
    decide.SiegeReferred: _journal_siege_referred,
})
"""How each receipt of the rules is journaled (events, notes to other claims and the
moderators)."""


# --- muster -----------------------------------------------------------------------------

def _muster(c: Call, order: o.Muster) -> str:
    return _decided(c, order)


# --- movement ---------------------------------------------------------------------------

def _move(c: Call, order: o.Move) -> str:
    return _decided(c, order)


def _whole_message(c: Call, receipt: decide.Marched, first: str) -> Callable[[], str]:
    """The march receipt once the whole message is applied: a later line (a commander with a
    speed skill) may change the march; a later line that replaced it keeps the first one."""
    def again() -> str:
        world, rows = load_order_world(c.session, c.ctx, decide.READS[o.Move])
        replanned = decide.replan(world, _sender(c, c.require_claim().id or 0), receipt)
        if replanned is None:
            return first
        row = rows.armies[receipt.army]
        row.arrival_tick = replanned.plan.arrival_tick
        c.session.add(row)
        return receipt_text(c.ctx, replanned)

    return again


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
    mine = c.own_army(order.army_a)
    other = army(c.session, c.ctx, order.army_b)
    visible = other is not None and (other.tile == mine.tile or c.is_moderator)
    if other is None or not visible:
        raise Rejected(f"army {order.army_b} is not on {_label(c, mine.tile)} with your army",
                       "an army on the same tile as yours (odds never reveal armies you "
                       "cannot see)", f"odds army {mine.id} vs army 5")
    if other.claim_id == mine.claim_id and not c.is_moderator:
        raise Rejected(f"army {other.id} is your own", "an enemy army on your tile",
                       f"odds army {mine.id} vs army 5")
    from bot.services.catalogue import ModifierBook, battle_side_of

    # The sides the battle would count if the attack were ordered now: fought when the
    # reaction window closes, by the same function the tick uses. The enemy's secrets stay
    # secret (a moderator sees everything).
    book = ModifierBook.load(c.session, c.ctx)
    fought = reaction_deadline(c)
    asker = None if c.is_moderator else mine.claim_id
    attacker = battle_side_of(book, mine, Winner.ATTACKER, tick=fought, began=c.tick,
                              secrets_of=asker)
    defender = battle_side_of(book, other, Winner.DEFENDER, tick=fought, began=c.tick,
                              secrets_of=asker)
    return receipt_text(c.ctx, decide.odds_of(mine.id or 0, other.id or 0, attacker, defender,
                                              fought, c.ctx.rules))


def _cede(c: Call, order: o.Cede) -> str:
    return _decided(c, order)


def _disband(c: Call, order: o.Disband) -> str:
    return _decided(c, order)


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
    o.Blockade: orders_catalogue.blockade,
    o.Build: orders_catalogue.build,
    o.Buy: orders_catalogue.buy,
    o.Assign: orders_catalogue.assign,
    o.Cede: _cede,
    o.Disband: _disband,
    o.Status: _status,
    o.Odds: _odds,
    o.Help: _help,
})
"""The order handlers, listed explicitly (nothing registers itself on import)."""
