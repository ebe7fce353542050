"""Orders the rules decide (the kinds of :data:`rules.campaign.decide.ORDER_KINDS` with a
decision), end to end: load the world the order reads, let
:func:`rules.campaign.decide.apply_order` decide, write the difference back, journal it (events,
notes to other claims and to the moderators, public posts) and render the receipt
(:mod:`bot.render.receipts`), each receipt kind through its row of :data:`RECEIPTS`.
:mod:`bot.services.orders` calls :func:`decided` for every such order.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Any

from sqlmodel import Session, col, select

from bot.db.models import Army, ArmyKind, ArmyState, Claim, Event
from bot.render import notes, posts, receipts
from bot.render.common import NOBODY, Context, place_label, troops_text
from bot.render.posts import besiegers_gone
from bot.services import forewarn, journal
from bot.services.order_call import Call, Rejected
from bot.services.order_world import (
    Rows,
    Stored,
    load_order_world,
    save_armies,
    write_back,
)
from bot.services.sieges import end_siege
from bot.services.world import CampaignContext
from bot.text import escape_md
from rules.campaign import calendar, decide
from rules.campaign import language as o
from rules.campaign.catalogue import Catalogue
from rules.campaign.naming import force_name, travel
from rules.campaign.rulings import REMOVED_FATE
from rules.campaign.upkeep import SCATTERED_FATE


def _label(c: Call, tile_id: str) -> str:
    """A tile as the journal and the notes name it (:func:`bot.render.common.place_label`)."""
    return place_label(c.ctx.world.tile(tile_id))


def refused(c: Call, claim: Claim, exc: decide.OrderRefused) -> Rejected:
    """The rules' refusal as the player reads it (their own words made inert); naming another
    claim's army is kept for the moderators' log."""
    if exc.tried_army is not None:
        # Logged after the order's savepoint is rolled back, so the refusal is kept.
        army_id, owner, mine = exc.tried_army
        c.refusals.append((
            f"u/{c.author} ({claim.name}) tried to order army {army_id} of another claim",
            {"army": army_id, "owner": owner, "claim": mine}))
    if exc.missing_army is not None:
        fate = gone_army(c.session, c.ctx, claim, exc.missing_army)
        if fate:
            return Rejected(fate, exc.expected, exc.example)
    return Rejected(exc.problem(escape_md), exc.expected, exc.example)


def gone_army(session: Session, ctx: CampaignContext, claim: Claim, army_id: int) -> str:
    """What became of ``claim``'s own army (or fleet) ``army_id``, now gone, as the stored
    army and the journal tell it (scattered at an upkeep, disbanded, removed by the
    moderators, lost in battle); "" when it is none of ``claim``'s gone armies (another
    claim's army stays unsaid: the plain refusal answers for it)."""
    army = session.get(Army, army_id)
    if army is None or army.campaign_id != ctx.campaign_id or army.claim_id != claim.id \
            or army.state != ArmyState.GONE:
        return ""
    name = force_name(army.kind, army_id, capital=True)
    fate = str(army.meta_json.get("fate", ""))
    events = select(Event).where(Event.campaign_id == ctx.campaign_id,
                                 Event.claim_id == claim.id)
    # the fate an unpaid upkeep gives its armies (rules.campaign.tick.economy)
    if fate == SCATTERED_FATE:
        since = army.accepted_at
        scatter = session.exec(events.where(
            Event.kind == "scatter", *([col(Event.at) >= since] if since else []))
            .order_by(col(Event.id))).first()
        if scatter is None or scatter.at is None:
            return f"{name} scattered at a month's upkeep, unpaid and unfed"
        home = scatter.data_json.get("survivors", [0, 0])
        return (f"{name} scattered at the month's upkeep on {ctx.when(scatter.at)}: your gold "
                f"did not cover it. The survivors of your armies ("
                f"{troops_text(int(home[0]), int(home[1]))}) went home and cannot be raised "
                f"again until {ctx.when(calendar.scattered_until(scatter.at, ctx.rules))}")
    kind = "army_removed" if fate == REMOVED_FATE else "disband" if not fate else ""
    found = [e for e in session.exec(events.where(Event.kind == kind)).all()
             if e.data_json.get("army") == army_id] if kind else []
    when = f" on {ctx.when(found[-1].at)}" if found and found[-1].at else ""
    if kind == "disband":
        return f"{name} was disbanded{when}: its troops went home"
    if kind == "army_removed":
        return f"{name} was removed by the moderators{when}: its troops are gone"
    return f"{name} is no more: its troops {fate}"


def decided(c: Call, order: object) -> str:
    """An order the rules decide (:data:`rules.campaign.decide.ORDER_KINDS`): load the world it
    needs, let the rules decide, write the difference back, journal it, render the receipt."""
    claim = c.require_claim()
    before, rows = load_order_world(c.session, c.ctx, decide.ORDER_KINDS[type(order)].reads)
    try:
        after, receipt = decide.apply_order(before, order, c.now,
                                            sender=sender_of(c, claim.id or 0, order))
    except decide.OrderRefused as exc:
        raise refused(c, claim, exc) from None
    stored = write_back(c.session, c.ctx, rows, before, after, ordered=receipt.ordered,
                        ref=c.ref,
                        bought=receipt if isinstance(receipt, decide.Bought) else None)
    receipt = _stored_ids(receipt, stored)
    for a, b, was in receipt.wars:
        journal.log_event(c.session, c.ctx.campaign_id, c.tick, "war",
                          f"claims {a} and {b} are at war", at=c.now, claim_id=a,
                          actor=c.author, data={"claims": [a, b], "before": was.value})
        how = notes.blockade_war(_label(c, receipt.port)) \
            if isinstance(receipt, decide.Blockading) else ""
        forewarn.war_declared(c.session, c.ctx, a, [b], at=c.now, tick=c.tick, how=how)
    for siege in stored.sieges_ended:
        how = "have lifted the siege" if isinstance(order, o.Lift) else "have marched away"
        end_siege(c.session, c.ctx, siege, besiegers_gone(claim.name, how), at=c.now,
                  tick=c.tick)
    RECEIPTS[type(receipt)].journal(c, claim, receipt, rows)
    if isinstance(receipt, _WARN_SHORT):  # private: the receipt goes to the claim only
        receipt = replace(receipt, shortfall=forewarn.shortfall(
            c.session, c.ctx, rows.claims.get(claim.id or 0, claim), c.now,
            first=isinstance(receipt, decide.Mustered)))
    text = receipt_text(c.ctx, receipt)
    if isinstance(receipt, decide.Marched):
        c.finish = _whole_message(c, receipt, text)
    return text


_WARN_SHORT = (decide.Mustered, decide.Building, decide.Bought, decide.StatusReport)
"""Receipts that warn when the gold (after the order) will not cover the next upkeep."""


def sender_of(c: Call, claim_id: int, order: object = None) -> decide.Sender:
    """The sender of an order as the rules see it: with the modifiers in force, worked out
    before the decision from the campaign as it stands (for the kinds that read them, and for
    a march planned again, ``order`` None), and the catalogue for the orders that name its
    entries."""
    from bot.services.catalogue import ModifierBook, catalogue_of

    kind = decide.ORDER_KINDS.get(type(order)) if order is not None else None
    modifiers: decide.OrderModifiers = decide.NoOrderModifiers()
    if kind is None or decide.Part.MODIFIERS in kind.reads:
        modifiers = decide.OrderInForce(ModifierBook.load(c.session, c.ctx))
    catalogue = Catalogue()
    if isinstance(order, (o.Build, o.Buy, o.Assign)):
        catalogue = catalogue_of(c.session, c.ctx)
    return decide.Sender(claim_id, c.ctx.rules, c.ctx.world, modifiers, catalogue)


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


def _notify(c: Call, claim_id: int, key: str, note: tuple[str, str]) -> None:
    """Queue a rendered ``(subject, body)`` note to another claim."""
    subject, body = note
    journal.notify_claim(c.session, c.ctx.campaign_id, claim_id, key, subject=subject,
                         body=body, at=c.now, tick=c.tick)


def _refer(c: Call, key: str, note: tuple[str, str]) -> None:
    """Queue a rendered ``(subject, body)`` referral to the moderators."""
    subject, body = note
    journal.notify_moderators(c.session, c.ctx.campaign_id, key, subject=subject, body=body,
                              at=c.now, tick=c.tick)


def _name(kind: ArmyKind | None, number: int, *, capital: bool = False) -> str:
    return force_name(kind, number, capital=capital)


def _journal_muster(c: Call, claim: Claim, rc: decide.Mustered, rows: Rows) -> None:
    _log(c, "muster", f"{claim.name} musters {_name(rc.kind, rc.army)}: "
         f"{troops_text(rc.infantry, rc.cavalry, rc.ships)}", claim.id, army=rc.army,
         infantry=rc.infantry, cavalry=rc.cavalry, ships=rc.ships, ready_tick=rc.ready_tick)


def _journal_march(c: Call, claim: Claim, rc: decide.Marched, rows: Rows) -> None:
    _log(c, "march", f"{_name(rc.kind, rc.army)} ordered to {travel(rc.kind)} "
         f"{rc.check.breakdown()}", claim.id,
         army=rc.army, path=list(rc.check.ids), cost=rc.check.total,
         depart_tick=c.ctx.tick_of(rc.depart), arrival_tick=rc.plan.arrival_tick)


def _journal_cancel(c: Call, claim: Claim, rc: decide.Cancelled, rows: Rows) -> None:
    what = rc.what.replace("march", travel(rc.kind, "noun"))
    _log(c, "cancel", f"{what} of {_name(rc.kind, rc.army)} cancelled", claim.id,
         army=rc.army)


def _journal_call_off(c: Call, claim: Claim, rc: decide.CalledOff, rows: Rows) -> None:
    hold = _label(c, rc.holdfast)
    _log(c, "call_off", f"{_name(rc.kind, rc.army)} calls off its assault on {hold}", claim.id,
         battle=rc.battle, army=rc.army)
    _notify(c, rc.defender_claim, f"call-off:{rc.battle}",
            notes.call_off_note(rc.kind, rc.army, hold))


def _journal_halt(c: Call, claim: Claim, rc: decide.Halted, rows: Rows) -> None:
    _log(c, "halt", f"{_name(rc.kind, rc.army)} halts at {_label(c, rc.tile)}", claim.id,
         army=rc.army, tile=rc.tile)


def _journal_reaction(c: Call, claim: Claim, rc: decide.Reacted, rows: Rows) -> None:
    _log(c, "reaction", f"{_name(rc.kind, rc.army)} chooses to {rc.reaction}", claim.id,
         army=rc.army,
         battle=rc.battle, reaction=rc.reaction)


def _journal_retreat_referred(c: Call, claim: Claim, rc: decide.RetreatReferred,
                              rows: Rows) -> None:
    """No way back and no route given: the moderators decide (nothing is rolled or lost)."""
    name = _name(rc.kind, rc.army)
    _log(c, "referral", f"{name} of {claim.name} wants to retreat from {_label(c, rc.tile)} but "
         "has no way back: referred to the moderators", claim.id, army=rc.army,
         battle=rc.battle)
    _refer(c, f"referral:retreat:{c.ref}", notes.retreat_referred_by_order(
        author=c.author, claim=claim.name, kind=rc.kind, army=rc.army,
        troops=troops_text(rc.infantry, rc.cavalry, rc.ships), place=_label(c, rc.tile),
        battle=rc.battle))


def _journal_spared(c: Call, claim: Claim, rc: decide.Spared, rows: Rows) -> None:
    spared = _name(rc.kind, rc.army)
    _log(c, "spared", f"{claim.name} lets {spared} stay at {_label(c, rc.tile)}", claim.id,
         battle=rc.battle, army=rc.army)
    _notify(c, rc.other_claim, f"spared:{rc.battle}", notes.spared_note(
        claim=claim.name, kind=rc.kind, army=rc.army, place=_label(c, rc.tile)))


def _journal_battle(c: Call, claim: Claim, rc: decide.BattleOrdered, rows: Rows) -> None:
    when = c.ctx.when(c.ctx.tick_at(rc.resolve_tick))
    place = _label(c, rc.tile)
    troops = troops_text(rc.infantry, rc.cavalry, rc.ships)
    mine, target = _name(rc.kind, rc.army), _name(rc.kind, rc.target)
    if rc.how is decide.BattleOrder.SALLY:
        _log(c, "sally", f"{claim.name} sallies from {place}", claim.id, battle=rc.battle,
             army=rc.army)
        return
    if rc.how is decide.BattleOrder.ASSAULT:
        _log(c, "assault", f"{mine} will assault {place}", rc.attacker_claim,
             battle=rc.battle, army=rc.army)
        _notify(c, rc.defender_claim, f"assault:{rc.battle}", notes.assault_note(
            kind=rc.kind, army=rc.army, troops=troops, holdfast=place, when=when))
        return
    if rc.how is decide.BattleOrder.ATTACK:
        told, summary = "attacked", f"{mine} attacks {target} at {place}"
    else:
        told, summary = "intercepted", f"{mine} intercepts {target} at {place}"
    _log(c, rc.how, summary, rc.attacker_claim, battle=rc.battle, attacker=rc.army,
         defender=rc.target)
    _notify(c, rc.defender_claim, f"{told}:{rc.battle}", notes.attacked_note(
        how=rc.how, kind=rc.kind, army=rc.army, target=rc.target, troops=troops, place=place,
        when=when))


def _journal_nothing(c: Call, claim: Claim, rc: decide.Receipt, rows: Rows) -> None:
    """Nothing to journal (a route is a question), or journaled elsewhere (a lifted siege by
    ``end_siege``)."""


def _journal_siege(c: Call, claim: Claim, rc: decide.SiegeBegun, rows: Rows) -> None:
    hold = _label(c, rc.holdfast)
    owner = rows.claims.get(rc.defender_claim)  # None: nobody holds it (a neutral garrison)
    journal.log_event(c.session, c.ctx.campaign_id, c.tick, "siege_start",
                      f"{claim.name} besieges {hold} with {_name(rc.kind, rc.army)}", at=c.now,
                      claim_id=claim.id, actor=c.author, public=True,
                      data={"siege": rc.siege, "army": rc.army, "months": rc.length.months})
    journal.queue(c.session, c.ctx.campaign_id, f"siege:{rc.siege}:start", "post",
                  title=c.ctx.settings.posts.siege_title.format(event="Siege begins",
                                                                holdfast=hold),
                  body=posts.siege_begins_post(claim=claim.name, holdfast=hold,
                                               owner=owner.name if owner else None,
                                               seat=owner is not None
                                               and owner.holdfast == rc.holdfast,
                                               when=c.ctx.when(c.now)),
                  flair=c.ctx.settings.posts.siege_flair, public=True, at=c.now, tick=c.tick,
                  target=c.ctx.settings.campaign.subreddit)
    if owner is None:
        return
    _notify(c, owner.id or 0, f"besieged:{rc.siege}", notes.besieged_note(
        claim=claim.name, kind=rc.kind, army=rc.army,
        troops=troops_text(rc.infantry, rc.cavalry, rc.ships), holdfast=hold,
        length=rc.length, own=rc.defender_mods))


def _journal_siege_referred(c: Call, claim: Claim, rc: decide.SiegeReferred,
                            rows: Rows) -> None:
    """A siege of a special holdfast: the moderators rule on it (an internal note and an
    event); nothing else changes."""
    hold = _label(c, rc.holdfast)
    owner = rows.claims.get(rc.defender_claim)
    journal.log_event(c.session, c.ctx.campaign_id, c.tick, "referral",
                      f"{claim.name} orders {_name(rc.kind, rc.army)} to besiege {hold} "
                      "(special rules): "
                      "referred to the moderators", at=c.now, claim_id=claim.id, actor=c.author,
                      data={"army": rc.army, "holdfast": rc.holdfast,
                            "defender": owner.id if owner else None})
    _refer(c, f"referral:siege:{c.ref}", notes.siege_referral_note(
        author=c.author, claim=claim.name, kind=rc.kind, army=rc.army,
        troops=troops_text(rc.infantry, rc.cavalry, rc.ships), holdfast=hold,
        owner=owner.name if owner else NOBODY))


def _journal_cede(c: Call, claim: Claim, rc: decide.Ceded, rows: Rows) -> None:
    _log(c, "cede", f"{claim.name} cedes {_label(c, rc.tile)} to {rc.to_name}", claim.id,
         tile=rc.tile, to=rc.to_claim)


def _journal_build(c: Call, claim: Claim, rc: decide.Building, rows: Rows) -> None:
    _log(c, "build", f"{claim.name} begins {rc.entry.name} at {_label(c, rc.holdfast)}",
         claim.id, name=rc.entry.name, cost=str(rc.entry.cost), ready_month=rc.ready_month)


def _journal_buy(c: Call, claim: Claim, rc: decide.Bought, rows: Rows) -> None:
    _log(c, "buy", f"{claim.name} buys {rc.entry.name} for army {rc.army}", claim.id,
         army=rc.army, name=rc.entry.name, cost=str(rc.entry.cost))


def _journal_blockade(c: Call, claim: Claim, rc: decide.Blockading, rows: Rows) -> None:
    port = _label(c, rc.port)
    journal.log_event(c.session, c.ctx.campaign_id, c.tick, "blockade",
                      f"fleet {rc.fleet} of {claim.name} blockades {port}", at=c.now,
                      claim_id=claim.id, actor=c.author, public=True,
                      data={"fleet": rc.fleet, "port": rc.port, "ships": rc.ships})
    journal.queue(c.session, c.ctx.campaign_id, f"blockade:{rc.fleet}:{rc.port}:{rc.tick}",
                  "post", title=c.ctx.settings.posts.siege_title.format(event="Blockade",
                                                                        holdfast=port),
                  body=posts.blockade_post(
                      claim=claim.name, port=port, when=c.ctx.when(c.now),
                      owner=(rc.owner_name or "") if rc.owner is not None else None,
                      seat=rc.owner is not None and rc.owner in rows.claims
                      and rows.claims[rc.owner].holdfast == rc.port),
                  flair=c.ctx.settings.posts.siege_flair, public=True, at=c.now, tick=c.tick,
                  target=c.ctx.settings.campaign.subreddit)
    if rc.owner is not None:
        _notify(c, rc.owner, f"blockaded:{rc.fleet}:{rc.port}:{rc.tick}",
                notes.blockaded_note(claim=claim.name, fleet=rc.fleet, ships=rc.ships,
                                     port=port))


def _journal_assign(c: Call, claim: Claim, rc: decide.Assigned, rows: Rows) -> None:
    _log(c, "assign", f"{rc.name} takes command of {_name(rc.kind, rc.army)}", claim.id,
         army=rc.army,
         character=rc.character)


def _journal_disband(c: Call, claim: Claim, rc: decide.Disbanded, rows: Rows) -> None:
    _log(c, "disband", f"{_name(rc.kind, rc.army)} disbanded", claim.id, army=rc.army)


@dataclass(frozen=True, slots=True)
class ReceiptKind:
    """How the bot carries out one kind of receipt of the rules: ``journal`` records it (events,
    notes to other claims and to the moderators, public posts), ``render`` writes the reply's
    section (:mod:`bot.render.receipts`)."""

    journal: Callable[[Call, Claim, Any, Rows], None]
    render: Callable[[Context, Any], str]


RECEIPTS: Mapping[type, ReceiptKind] = MappingProxyType({
    decide.Mustered: ReceiptKind(_journal_muster, receipts.mustered),
    decide.Marched: ReceiptKind(_journal_march, receipts.marched),
    decide.RouteFound: ReceiptKind(_journal_nothing, receipts.route_found),
    decide.Cancelled: ReceiptKind(_journal_cancel, receipts.cancelled),
    decide.CalledOff: ReceiptKind(_journal_call_off, receipts.called_off),
    decide.Halted: ReceiptKind(_journal_halt, receipts.halted),
    decide.Reacted: ReceiptKind(_journal_reaction, receipts.reacted),
    decide.RetreatReferred: ReceiptKind(_journal_retreat_referred, receipts.retreat_referred),
    decide.Spared: ReceiptKind(_journal_spared, receipts.spared),
    decide.BattleOrdered: ReceiptKind(_journal_battle, receipts.battle_ordered),
    decide.SiegeLifted: ReceiptKind(_journal_nothing, receipts.siege_lifted),
    decide.Disbanded: ReceiptKind(_journal_disband, receipts.disbanded),
    decide.StatusReport: ReceiptKind(_journal_nothing, receipts.status_report),
    decide.Ceded: ReceiptKind(_journal_cede, receipts.ceded),
    decide.Building: ReceiptKind(_journal_build, receipts.building),
    decide.Bought: ReceiptKind(_journal_buy, receipts.bought),
    decide.Blockading: ReceiptKind(_journal_blockade, receipts.blockading),
    decide.Assigned: ReceiptKind(_journal_assign, receipts.assigned),
    decide.SiegeBegun: ReceiptKind(_journal_siege, receipts.siege_begun),
    decide.SiegeReferred: ReceiptKind(_journal_siege_referred, receipts.siege_referred),
    decide.OddsShown: ReceiptKind(_journal_nothing, receipts.odds_shown),
})
"""Every receipt kind of the rules, once: its journal and its text."""


def receipt_text(ctx: Context, receipt: decide.Receipt) -> str:
    """The reply section of an accepted order."""
    return RECEIPTS[type(receipt)].render(ctx, receipt)


def _whole_message(c: Call, receipt: decide.Marched, first: str) -> Callable[[], str]:
    """The march receipt once the whole message is applied: a later line (a commander with a
    speed skill) may change the march; a later line that replaced it keeps the first one."""
    def again() -> str:
        world, rows = load_order_world(c.session, c.ctx, {decide.Part.ARMIES})
        replanned = decide.replan(world, sender_of(c, c.require_claim().id or 0), receipt)
        if replanned is None:
            return first
        rows.armies[receipt.army].arrival_tick = replanned.plan.arrival_tick
        save_armies(c.session, c.ctx, rows)
        return receipt_text(c.ctx, replanned)

    return again
