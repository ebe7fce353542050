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
from dataclasses import asdict, dataclass, field, is_dataclass, replace
from datetime import datetime
from fractions import Fraction
from types import MappingProxyType

from sqlalchemy.exc import DBAPIError
from sqlmodel import Session, col, select

from bot.db.models import (
    Army,
    ArmyKind,
    ArmyState,
    Claim,
    PendingBattle,
    RelationStatus,
    Siege,
)
from bot.services import fairplay, journal, orders_catalogue
from bot.services.help import example_for, help_reply
from bot.services.order_call import Call, Handler, Rejected, active_siege
from bot.services.render import force, money
from bot.services.sieges import end_siege
from bot.services.world import (
    CampaignContext,
    armies,
    army,
    claim_by_name,
    claim_of_user,
    get_campaign,
    relation,
    set_relation,
)
from bot.text import escape_md
from rules.campaign import orders as o
from rules.campaign.battle import Strength, Winner, matchup
from rules.campaign.calendar import next_tick_at_or_after
from rules.campaign.calloff import call_off_refusal
from rules.campaign.config import Season
from rules.campaign.detection import ObserverKind, detection_target
from rules.campaign.movement import budget_per_tick, departure_tick, schedule_march
from rules.campaign.muster import check_muster, muster_ready_at
from rules.campaign.naming import force_name, force_noun, state_word, travel
from rules.campaign.odds import battle_odds
from rules.campaign.orders import format_name
from rules.campaign.paths import (
    IllegalPath,
    PathCheck,
    cheapest_route,
    check_path,
    format_path,
    observers_along,
    path_problem,
    tile_problem,
)
from rules.campaign.siege import SpecialHoldfast, check_siege_start
from rules.campaign.upkeep import monthly_upkeep
from rules.campaign.world import FIGHTING_STATES, BattleKind, BattleStatus, Reaction
from rules.campaign.worldmap import UnknownTile
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


def _harbours(c: Call, a: Army) -> frozenset[str]:
    """Port holdfasts fleet ``a`` may sail into: its own claim's and its allies'."""
    if a.kind != ArmyKind.FLEET:
        return frozenset()
    claims = c.session.exec(select(Claim).where(Claim.campaign_id == c.ctx.campaign_id)).all()
    return frozenset(
        other.holdfast for other in claims
        if other.holdfast in c.ctx.world and c.ctx.world.tile(other.holdfast).port
        and relation(c.session, c.ctx, a.claim_id, other.id or 0) is RelationStatus.ALLIED)


def _label(c: Call, tile_id: str) -> str:
    return c.ctx.world.tile(tile_id).label


def _season(c: Call) -> Season:
    return Season(get_campaign(c.session, c.ctx).season)


def observer_tiles(c: Call, claim_id: int) -> dict[str, ObserverKind]:
    """Tiles that may detect a march of ``claim_id``: other claims' holdfasts, and resource
    tiles where another claim has a standing army."""
    result: dict[str, ObserverKind] = {}
    others = c.session.exec(select(Claim).where(Claim.campaign_id == c.ctx.campaign_id,
                                                Claim.id != claim_id)).all()
    for other in others:
        result[other.holdfast] = ObserverKind.HOLDFAST
    for a in armies(c.session, c.ctx, states=(ArmyState.STANDING,)):
        if a.claim_id != claim_id and a.tile in c.ctx.world:
            tile = c.ctx.world.tile(a.tile)
            if tile.resource and a.tile not in result:
                result[a.tile] = ObserverKind.RESOURCE_TILE
    return result


def _pending_battle_of(c: Call, army_id: int) -> PendingBattle | None:
    return c.session.exec(
        select(PendingBattle).where(
            PendingBattle.campaign_id == c.ctx.campaign_id,
            PendingBattle.status == BattleStatus.PENDING,
            (col(PendingBattle.attacker_army) == army_id)
            | (col(PendingBattle.defender_army) == army_id),
        )
    ).first()


def _caught(c: Call, a: Army, battle: PendingBattle) -> Rejected:
    """The refusal of an order for an army in a pending battle: it waits for the battle; its
    example is `retreat` while the army's side may still choose, else `status`."""
    when = c.ctx.when(c.ctx.tick_at(battle.resolve_tick))
    choose = battle.reactor_claim == a.claim_id and battle.reaction is None
    return Rejected(f"{force(a)} is caught in a battle, fought at {when}",
                    "an order for it after the battle" + (" (until then you may `retreat` or "
                                                          "`stand`)" if choose else ""),
                    f"retreat {force(a)}" if choose else "status")


def reaction_deadline(c: Call) -> int:
    """The tick at which a battle started now is fought (the reaction window's end)."""
    first = c.ctx.tick_of(next_tick_at_or_after(c.now, c.ctx.rules))
    if c.ctx.tick_at(first) == c.now:
        first += 1  # created on a tick: the window lasts until the next one
    return first + max(0, c.ctx.rules.reaction_ticks - 1)


# --- muster -----------------------------------------------------------------------------

def _muster(c: Call, order: o.Muster) -> str:
    claim = c.require_claim()
    home = c.ctx.world.tile(claim.holdfast)
    if order.at is not None and c.ctx.world.tile(order.at).id != home.id:
        raise Rejected(f"troops muster at your holdfast, {home.label}, not at "
                       f"{escape_md(order.at)}", "no place, or your holdfast",
                       f"muster {order.infantry} infantry {order.cavalry} cavalry")
    if order.ships and (order.infantry or order.cavalry):
        raise Rejected("ships and troops muster in separate orders", "one muster for troops "
                       "and another for ships", "muster 4 ships")
    request = check_muster(
        order.infantry, order.cavalry, claim.infantry, claim.cavalry, claim.scattered_until,
        c.now, order.ships, at_home_ships=claim.ships,
        scattered_infantry=claim.scattered_infantry, scattered_cavalry=claim.scattered_cavalry,
        scattered_ships=0, home_is_port=home.port,
    )
    ready = muster_ready_at(c.now, c.ctx.rules)
    claim.infantry -= request.infantry
    claim.cavalry -= request.cavalry
    claim.ships -= request.ships
    claim.scattered_infantry = min(claim.scattered_infantry, claim.infantry)
    claim.scattered_cavalry = min(claim.scattered_cavalry, claim.cavalry)
    new = Army(
        campaign_id=c.ctx.campaign_id, claim_id=claim.id or 0,
        kind=ArmyKind.FLEET if request.ships else ArmyKind.LAND,
        state=ArmyState.MUSTERING, tile=home.id, infantry=request.infantry,
        cavalry=request.cavalry, ships=request.ships, accepted_at=c.now,
        ready_tick=c.ctx.tick_of(ready),
    )
    fairplay.mark_order(new, c.ref)
    c.session.add(claim)
    c.session.add(new)
    c.session.flush()
    word = "Fleet" if request.ships else "Army"
    journal.log_event(c.session, c.ctx.campaign_id, c.tick, "muster",
                      f"{claim.name} musters {word.lower()} {new.id}: {_troops(new)}",
                      at=c.now, claim_id=claim.id, actor=c.author,
                      data={"army": new.id, "infantry": new.infantry, "cavalry": new.cavalry,
                            "ships": new.ships, "ready_tick": new.ready_tick})
    cost = monthly_upkeep(request.infantry, request.cavalry, _season(c), c.ctx.rules,
                          ships=request.ships)
    return (f"**{word} {new.id}** ({_troops(new)}) is mustering at {home.label}.\n\n"
            f"- Ready: {c.ctx.when(ready)}\n"
            f"- Upkeep while raised: {money(cost)} gold a month this season\n"
            f"- Left at home: {claim.infantry} infantry, {claim.cavalry} cavalry"
            + (f", {claim.ships} ships" if claim.ships or request.ships else "")
            + f"\n\nYou may already order it to {travel(new.kind)}: "
            f"`move {force(new)}: {_label(c, new.tile)} > TILE (cost N)`.")


# --- movement ---------------------------------------------------------------------------

def _departed(c: Call, a: Army) -> bool:
    return a.state == ArmyState.MARCHING and a.depart_tick is not None \
        and a.depart_tick <= c.tick


def _move(c: Call, order: o.Move) -> str:
    a = c.own_army(order.army)
    if a.state not in (ArmyState.MUSTERING, ArmyState.STANDING,
                       ArmyState.MARCHING, ArmyState.BESIEGING) or _departed(c, a):
        state = "already under way" if _departed(c, a) else state_word(a.kind, a.state)
        raise Rejected(f"{force(a)} cannot be given a new path now: it is {state}",
                       f"a standing or mustering {force_noun(a.kind)}, or one that has not "
                       f"departed yet (use `stand {force(a)}` to halt it where it is)",
                       f"stand {force(a)}" if _departed(c, a) else "status")
    if (battle := _pending_battle_of(c, a.id or 0)) is not None:
        raise _caught(c, a, battle)
    kind = a.kind
    try:
        check = check_path(c.ctx.world, a.tile, order.path, kind, c.ctx.rules,
                           _harbours(c, a))
    except IllegalPath as exc:
        raise Rejected(escape_md(path_problem(exc), 300), "a path of adjacent tiles starting "
                       f"next to the {force_noun(a.kind)}'s tile ({_label(c, a.tile)})",
                       _route_example(c, a, (*order.path[-1:], *exc.suggestions))) from None
    if order.stated_cost != check.total:
        best = cheapest_route(c.ctx.world, a.tile, check.tiles[-1].id, kind, c.ctx.rules,
                          _harbours(c, a))
        hint = ""
        if best is not None and best.total < check.total:
            hint = (f" The cheapest route there costs {best.total}: "
                    f"`move {force(a)}: {format_path(t.label for t in best.tiles)} "
                    f"(cost {best.total})`.")
        stated = "no cost" if order.stated_cost is None else f"cost {order.stated_cost}"
        raise Rejected(
            f"you stated {stated}, but this path costs {check.total}: {check.breakdown()}."
            + hint,
            "the total travel cost at the end of the order",
            f"move {force(a)}: {format_path(t.label for t in check.tiles)} "
            f"(cost {check.total})")
    ready_at = c.ctx.tick_at(a.ready_tick) if a.state == ArmyState.MUSTERING \
        and a.ready_tick is not None else None
    depart = departure_tick(c.now, ready_at, c.ctx.rules)
    lifted = _leave_siege(c, a, "have marched away")  # leaving ends the siege
    if a.state != ArmyState.MUSTERING:
        a.state = ArmyState.MARCHING
    a.path_json = list(check.ids)
    a.costs_json = list(check.costs)
    a.meta_json = {}  # who detected the previous march does not carry over
    fairplay.mark_order(a, c.ref)
    a.saved = "0"
    a.depart_tick = c.ctx.tick_of(depart)
    c.session.add(a)
    first = _march_receipt(c, a, check, depart, lifted)
    journal.log_event(c.session, c.ctx.campaign_id, c.tick, "march",
                      f"{force(a)} ordered to march {check.breakdown()}", at=c.now,
                      claim_id=a.claim_id, actor=c.author,
                      data={"army": a.id, "path": list(check.ids), "cost": check.total,
                            "depart_tick": a.depart_tick, "arrival_tick": a.arrival_tick})

    def whole_message() -> str:
        # Receipts reflect the whole message: a later line (a commander with a
        # speed skill) may change the march; a later line that replaced it keeps this one.
        if a.path_json != list(check.ids) or a.state not in (ArmyState.MARCHING,
                                                             ArmyState.MUSTERING):
            return first
        return _march_receipt(c, a, check, depart, lifted)

    c.finish = whole_message
    return first


def _route_example(c: Call, a: Army, goals: tuple[str, ...]) -> str:
    """A `route` order for ``a`` to the first of ``goals`` it can reach from where it stands
    (a tile the player probably meant), to suggest in a refusal; `help move` when none is
    reachable (a suggested order is always one that would be accepted)."""
    for goal in goals:
        if goal in c.ctx.world and c.ctx.world.tile(goal).id != a.tile and cheapest_route(
                c.ctx.world, a.tile, c.ctx.world.tile(goal).id, a.kind, c.ctx.rules,
                _harbours(c, a)):
            return f"route {force(a)} to {format_name(c.ctx.world.tile(goal).label)}"
    return "help move"


def _march_receipt(c: Call, a: Army, check: PathCheck, depart: datetime,
                   lifted: str | None) -> str:
    """The receipt of a march as the army stands now; sets its arrival tick to match."""
    from bot.services.catalogue import march_modifiers  # speed modifiers
    from rules.campaign.movement import speed_multiplier

    kind = a.kind
    speed_mods = march_modifiers(c.session, c.ctx, a)
    budget = budget_per_tick(a.infantry, a.cavalry, c.ctx.rules, modifiers=speed_mods,
                             is_fleet=kind is ArmyKind.FLEET)
    schedule = schedule_march(check.costs, budget, depart, c.ctx.rules)
    a.arrival_tick = c.ctx.tick_of(schedule.arrival)
    c.session.add(a)
    observers = observer_tiles(c, a.claim_id)
    sightings = observers_along(c.ctx.world, [a.tile, *check.ids], observers,
                                c.ctx.rules.detection_radius)
    size = a.infantry + a.cavalry + a.ships
    watch = []
    for s in sightings:
        target = detection_target(size, observers[s.observer], c.ctx.rules)
        needed = None if target.automatic or target.target is None \
            else target.target - target.bonus
        odds = "certain" if needed is None or needed <= 1 else \
            ("impossible" if needed > 20 else f"on a d20 of {needed}+")
        watch.append(f"{_label(c, s.observer)} ({odds})")
    mult, reasons = speed_multiplier(a.infantry, a.cavalry, c.ctx.rules, modifiers=speed_mods,
                                     is_fleet=kind is ArmyKind.FLEET)
    speed = f"x{mult.normalize():f}" + (f" ({', '.join(reasons)})" if reasons else "")
    lines = [
        f"**{force(a, capital=True)}** ({_troops(a)}) will {travel(a.kind)} from "
        f"{_label(c, a.tile)} to "
        f"{check.tiles[-1].label}.",
        "",
        f"- Path: {check.breakdown()}",
        f"- Speed: {Fraction(budget)} travel cost per tick, {speed}",
        f"- Departs: {c.ctx.when(depart)}",
        f"- Arrives: {c.ctx.when(schedule.arrival)}",
    ]
    if watch:
        lines.append("- May be detected by: " + "; ".join(watch))
    else:
        lines.append("- Passes no holdfast or occupied resource tile that could detect it")
    best = cheapest_route(c.ctx.world, a.tile, check.tiles[-1].id, kind, c.ctx.rules,
                          _harbours(c, a))
    if best is not None and best.total < check.total:
        lines.append(f"- A cheaper route there costs {best.total}: "
                     f"{format_path(t.label for t in best.tiles)}")
    if lifted:
        lines.append(f"- The siege of {lifted} is lifted: your {force_noun(a.kind)} has left it")
    lines.append(f"\nYou may `cancel {force(a)}` until it departs.")
    return "\n".join(lines)


def _route(c: Call, order: o.Route) -> str:
    a = c.own_army(order.army)
    goal = c.ctx.world.tile(order.destination)
    route = cheapest_route(c.ctx.world, a.tile, goal.id, a.kind, c.ctx.rules,
                           _harbours(c, a))
    if route is None:
        raise Rejected(f"{force(a)} cannot reach {goal.label} from {_label(c, a.tile)}",
                       "a destination its kind can reach",
                       _route_example(c, a, (c.require_claim().holdfast,)))
    if not route.tiles:
        return f"{force(a, capital=True)} is already at {goal.label}."
    order_text = (f"move {force(a)}: {format_path(t.label for t in route.tiles)} "
                  f"(cost {route.total})")
    return (f"The cheapest route for {force(a)} from {_label(c, a.tile)} to {goal.label} "
            f"costs **{route.total}**: {route.breakdown()}.\n\nTo {travel(a.kind)}, send:\n\n    "
            f"{order_text}")


def _cancel(c: Call, order: o.Cancel) -> str:
    a = c.own_army(order.army)
    claim = c.require_claim()
    if a.state == ArmyState.MUSTERING and a.path_json:
        # The latest order queued a march: cancel that first; a second cancel ends the muster.
        a.path_json, a.costs_json, a.depart_tick, a.arrival_tick = [], [], None, None
        c.session.add(a)
        journal.log_event(c.session, c.ctx.campaign_id, c.tick, "cancel",
                          f"queued march of {force(a)} cancelled", at=c.now, claim_id=claim.id,
                          actor=c.author, data={"army": a.id})
        return (f"The queued {travel(a.kind, 'noun')} of {force(a)} is cancelled; it is still "
                f"mustering at {_label(c, a.tile)}. To cancel the muster too, send "
                f"`cancel {force(a)}` again.")
    if a.state == ArmyState.MUSTERING:
        claim.infantry += a.infantry
        claim.cavalry += a.cavalry
        claim.ships += a.ships
        a.state = ArmyState.GONE
        c.session.add(claim)
        c.session.add(a)
        journal.log_event(c.session, c.ctx.campaign_id, c.tick, "cancel",
                          f"muster of {force(a)} cancelled", at=c.now, claim_id=claim.id,
                          actor=c.author, data={"army": a.id})
        return f"The muster of {force(a)} is cancelled; {_troops(a)} are back at home."
    if a.state == ArmyState.MARCHING and not _departed(c, a):
        a.state = ArmyState.STANDING
        a.path_json, a.costs_json, a.depart_tick, a.arrival_tick = [], [], None, None
        c.session.add(a)
        journal.log_event(c.session, c.ctx.campaign_id, c.tick, "cancel",
                          f"march of {force(a)} cancelled", at=c.now, claim_id=claim.id,
                          actor=c.author, data={"army": a.id})
        return (f"The {travel(a.kind, 'noun')} of {force(a)} is cancelled; it stays at "
                f"{_label(c, a.tile)}.")
    battle = _pending_battle_of(c, a.id or 0)
    if battle is not None and battle.attacker_army == a.id:
        return _call_off(c, a, battle)
    departed = _departed(c, a)
    raise Rejected(f"{force(a)} has nothing to cancel (it is {state_word(a.kind, a.state)}"
                   + (f", and its {travel(a.kind, 'noun')} has departed" if departed else "")
                   + ")", "a muster, a march or voyage that has not departed yet, or an assault "
                   "not yet fought (halt a departed march with `stand`)",
                   f"stand {force(a)}" if departed or battle is not None else "status")


def _call_off(c: Call, a: Army, battle: PendingBattle) -> str:
    """`cancel army N` for the army that ordered a pending battle: an assault is called off
    before it is fought; an attack or a sally cannot be (:mod:`rules.campaign.calloff`)."""
    why = call_off_refusal(battle.kind, c.tick, battle.resolve_tick)
    if why is not None:
        enemy = force_name(a.kind, battle.defender_army)
        raise Rejected(why, "an assault that has not been fought yet",
                       f"odds {force(a)} vs {enemy}" if battle.kind is BattleKind.FIELD
                       else "status")
    hold = _label(c, battle.holdfast or battle.tile)
    battle.status = BattleStatus.CALLED_OFF
    c.session.add(battle)
    journal.log_event(c.session, c.ctx.campaign_id, c.tick, "call_off",
                      f"{force(a)} calls off its assault on {hold}", at=c.now,
                      claim_id=a.claim_id, actor=c.author,
                      data={"battle": battle.id, "army": a.id})
    journal.notify_claim(c.session, c.ctx.campaign_id, battle.defender_claim,
                         f"call-off:{battle.id}", subject=f"The assault on {hold} is called off",
                         body=(f"{force(a, capital=True)} will not assault {hold} after all: "
                               "there is no battle."), at=c.now, tick=c.tick)
    return (f"The assault of {force(a)} on {hold} is called off: there is no battle, and "
            f"{force(a)} stays {state_word(a.kind, a.state)} at {hold}.")


def _stand(c: Call, order: o.Stand) -> str:
    a = c.own_army(order.army)
    battle = _pending_battle_of(c, a.id or 0)
    if battle is not None:
        return _react(c, a, battle, Reaction.STAND)
    if a.state == ArmyState.MARCHING:
        a.state = ArmyState.STANDING
        a.path_json, a.costs_json, a.depart_tick, a.arrival_tick = [], [], None, None
        a.stationary_since = c.tick
        c.session.add(a)
        journal.log_event(c.session, c.ctx.campaign_id, c.tick, "halt",
                          f"{force(a)} halts at {a.tile}", at=c.now, claim_id=a.claim_id,
                          actor=c.author, data={"army": a.id, "tile": a.tile})
        return f"{force(a, capital=True)} halts at {_label(c, a.tile)} and stands there."
    raise Rejected(f"{force(a)} is not {travel(a.kind, 'ing')} and not facing a battle",
                   f"a {force_noun(a.kind)} on its way to halt, or one that was attacked",
                   "status")


def _retreat(c: Call, order: o.Retreat) -> str:
    a = c.own_army(order.army)
    battle = _pending_battle_of(c, a.id or 0)
    if battle is None:
        raise Rejected(f"{force(a)} faces no battle to retreat from",
                       f"a {force_noun(a.kind)} that has been attacked and got the first "
                       "reaction", "status")
    if battle.reactor_claim != a.claim_id:
        return _react(c, a, battle, Reaction.RETREAT)  # refused there, with the reason
    route = _retreat_route(c, a, order)
    if not route:
        return _refer_retreat(c, a, battle)
    a.meta_json = {**a.meta_json, "retreat_route": route}
    fairplay.mark_order(a, c.ref)
    c.session.add(a)
    return (_react(c, a, battle, Reaction.RETREAT) + " If it escapes it falls back by "
            f"{format_path(_label(c, t) for t in route)}.")


def _retreat_route(c: Call, a: Army, order: o.Retreat) -> list[str]:
    """The tiles a retreat would enter: the path given, the cheapest way to the tile given,
    or back along the path travelled (docs/rules.md "Retreat"); [] when there is none."""
    kind = a.kind
    if order.path:
        try:
            return list(check_path(c.ctx.world, a.tile, order.path, kind, c.ctx.rules,
                           _harbours(c, a)).ids)
        except IllegalPath as exc:
            raise Rejected(escape_md(path_problem(exc), 300), "a path of adjacent tiles "
                           f"starting next to the {force_noun(a.kind)}'s tile "
                           f"({_label(c, a.tile)})", f"retreat {force(a)}") from None
    if order.to is not None:
        goal = c.ctx.world.tile(order.to)
        best = cheapest_route(c.ctx.world, a.tile, goal.id, kind, c.ctx.rules, _harbours(c, a))
        if best is None or not best.tiles:
            raise Rejected(f"{force(a)} cannot fall back to {goal.label} from "
                           f"{_label(c, a.tile)}", "another tile its kind can reach",
                           f"retreat {force(a)}")
        return [t.id for t in best.tiles]
    return list(reversed(a.travelled_json))


def _refer_retreat(c: Call, a: Army, battle: PendingBattle) -> str:
    """No way back and no route given: the moderators decide (nothing is rolled or lost)."""
    claim = c.require_claim()
    journal.log_event(c.session, c.ctx.campaign_id, c.tick, "referral",
                      f"{force(a)} of {claim.name} wants to retreat from {a.tile} but has no "
                      "way back: referred to the moderators", at=c.now, claim_id=claim.id,
                      actor=c.author, data={"army": a.id, "battle": battle.id})
    journal.notify_moderators(
        c.session, c.ctx.campaign_id, f"referral:retreat:{c.ref}",
        subject=f"Retreat of {force(a)} referred to you",
        body=(f"u/{escape_md(c.author)} ({escape_md(claim.name)}) wants {force(a)} "
              f"({_troops(a)}) to retreat from {escape_md(_label(c, a.tile))} before battle "
              f"{battle.id}, but it did not {travel(a.kind)} there and gave no route. The "
              "rules leave "
              "this to your discretion. Nothing was rolled; the battle stands unless you "
              "rule otherwise."),
        at=c.now, tick=c.tick)
    return (f"{force(a, capital=True)} has no path back (it did not {travel(a.kind)} to "
            f"{_label(c, a.tile)}) and you gave no route, so nothing was rolled: your retreat "
            "is **referred to the moderators**. To choose a way yourself, send "
            f"`retreat {force(a)}: TILE > TILE` or `retreat {force(a)} to TILE`.")


def _spare(c: Call, order: o.Spare) -> str:
    """After the enemy army's failed retreat, its opponent lets it stay: no battle."""
    claim = c.require_claim()
    battle = _pending_battle_of(c, order.army)
    if battle is None or battle.reaction not in (Reaction.FAILED, Reaction.STAND) \
            or battle.reactor_claim != claim.id or c.ctx.tick_of(c.now) >= battle.resolve_tick \
            or claim.id not in (battle.attacker_claim, battle.defender_claim) \
            or (battle.attacker_army == order.army and battle.attacker_claim == claim.id) \
            or (battle.defender_army == order.army and battle.defender_claim == claim.id):
        raise Rejected(f"number {order.army} is not an enemy army or fleet whose retreat "
                       "from yours failed", "the army or fleet named in a failed-retreat note, "
                       "before the battle", "status")
    battle.status = BattleStatus.SPARED
    c.session.add(battle)
    runner = army(c.session, c.ctx, order.army)
    spared = force_name(runner.kind if runner is not None else None, order.army)
    journal.log_event(c.session, c.ctx.campaign_id, c.tick, "spared",
                      f"{claim.name} lets {spared} stay at {battle.tile}", at=c.now,
                      claim_id=claim.id, actor=c.author,
                      data={"battle": battle.id, "army": order.army})
    other = battle.defender_claim if battle.attacker_claim == claim.id else \
        battle.attacker_claim
    journal.notify_claim(c.session, c.ctx.campaign_id, other, f"spared:{battle.id}",
                         subject=f"{spared.capitalize()} is spared",
                         body=(f"{claim.name} lets your {spared} stay at "
                               f"{_label(c, battle.tile)}: there is no battle."),
                         at=c.now, tick=c.tick)
    return (f"You let {spared} stay at {_label(c, battle.tile)}: there is no battle, "
            f"and the two {force_noun(runner.kind if runner else None, plural=True)} share "
            "the tile in peace until one of them moves.")


def _react(c: Call, a: Army, battle: PendingBattle, reaction: Reaction) -> str:
    if battle.reactor_claim != a.claim_id:
        raise Rejected(f"{force(a)} did not get the first reaction in this battle, so it "
                       "cannot choose", "only the side that detected the other first may "
                       "retreat or stand", "status")
    battle.reaction = reaction
    c.session.add(battle)
    journal.log_event(c.session, c.ctx.campaign_id, c.tick, "reaction",
                      f"{force(a)} chooses to {reaction}", at=c.now, claim_id=a.claim_id,
                      actor=c.author, data={"army": a.id, "battle": battle.id,
                                            "reaction": reaction})
    when = c.ctx.when(c.ctx.tick_at(battle.resolve_tick))
    if reaction is Reaction.RETREAT:
        return (f"{force(a, capital=True)} will try to retreat at {when} (a d20: 18+ keeps "
                "every troop, 15+ three quarters, 13+ half; lower fails and gives -1 in the "
                "battle).")
    return f"{force(a, capital=True)} will stand and fight at {when}."


# --- battle and siege -------------------------------------------------------------------


def _attack(c: Call, order: o.Attack) -> str:
    mine = c.own_army(order.army)
    target = army(c.session, c.ctx, order.target)
    if target is None or target.state not in FIGHTING_STATES or target.tile != mine.tile:
        raise Rejected(f"there is no enemy {force_name(mine.kind, order.target)} on "
                       f"{_label(c, mine.tile)} where your {force_noun(mine.kind)} stands",
                       f"an enemy {force_noun(mine.kind)} on the same tile as yours "
                       "(send `status` to see where yours stand)", "status")
    if target.claim_id == mine.claim_id:
        raise Rejected(f"{force(target)} is your own", f"an enemy {force_noun(target.kind)}",
                       "status")
    if mine.state not in (ArmyState.STANDING, ArmyState.BESIEGING):
        raise Rejected(f"{force(mine)} is {state_word(mine.kind, mine.state)}",
                       f"a standing {force_noun(mine.kind)}", "status")
    if mine.kind != target.kind:
        raise Rejected("fleets fight fleets and armies fight armies",
                       "an enemy of the same kind", "status")
    for a in (mine, target):
        if _pending_battle_of(c, a.id or 0) is not None:
            raise Rejected(f"{force(a)} is already in a battle", "a battle to be fought first",
                           "status")
    _declare_war(c, mine.claim_id, target.claim_id)
    when = _open_battle(
        c, mine, target, "attack", f"{force(mine)} attacks {force(target)} at {mine.tile}",
        told="attacked",
        subject=f"{force(target, capital=True)} is attacked at {_label(c, mine.tile)}",
        news=(f"{force(mine, capital=True)} ({_troops(mine)}) attacks your {force(target)} at "
              f"{_label(c, mine.tile)}."))
    return (f"{force(mine, capital=True)} will attack {force(target)} at {_label(c, mine.tile)}. "
            f"The defender has the first reaction; the battle is fought at {when}. An attack "
            "cannot be called off: your claims are now at war.")


def _open_battle(c: Call, mine: Army, target: Army, event: str, summary: str, *,
                 told: str, subject: str, news: str) -> str:
    """A battle ordered by ``mine`` against ``target`` on their (shared) tile, fought at the end
    of the reaction window; the defender is told (``news``) and gets the first reaction, since
    starting a battle is always detected by the defender. Returns when it is fought."""
    fairplay.mark_order(mine, c.ref)
    battle = PendingBattle(
        campaign_id=c.ctx.campaign_id, tile=target.tile, kind=BattleKind.FIELD,
        attacker_army=mine.id or 0, defender_army=target.id or 0,
        attacker_claim=mine.claim_id, defender_claim=target.claim_id,
        created_tick=c.tick, resolve_tick=reaction_deadline(c),
        reactor_claim=target.claim_id,
    )
    c.session.add(battle)
    c.session.flush()
    when = c.ctx.when(c.ctx.tick_at(battle.resolve_tick))
    journal.log_event(c.session, c.ctx.campaign_id, c.tick, event, summary, at=c.now,
                      claim_id=mine.claim_id, actor=c.author,
                      data={"battle": battle.id, "attacker": mine.id, "defender": target.id})
    journal.notify_claim(
        c.session, c.ctx.campaign_id, target.claim_id, f"{told}:{battle.id}", subject=subject,
        body=(f"{news} The battle is fought at {when}.\n\nYou have the first reaction: reply "
              f"`retreat {force(target)}` to try to escape, or `stand {force(target)}` to "
              "fight."),
        at=c.now, tick=c.tick)
    return when


def _intercept(c: Call, order: o.Intercept) -> str:
    """Within the reaction window of a sighting, a standing army on the watching tile stops the
    passing force: it halts where it is, the interceptor joins it there, and the battle is
    fought at the end of the window (the intercepted side has the first reaction)."""
    mine = c.own_army(order.army)
    claim = c.require_claim()
    target = army(c.session, c.ctx, order.target)
    sighted = (target.meta_json.get("sighted") or {}).get(str(claim.id)) \
        if target is not None else None
    if target is None or sighted is None or target.claim_id == claim.id \
            or target.state != ArmyState.MARCHING:
        raise Rejected(f"your watchers have not sighted a passing "
                       f"{force_name(mine.kind, order.target)}",
                       "an enemy army or fleet named in a sighting note, while it is still on "
                       "its way",
                       "status")
    watch_tile, sighted_tick = str(sighted[0]), int(sighted[1])
    if c.tick >= sighted_tick + c.ctx.rules.reaction_ticks:
        raise Rejected(f"the chance to intercept {force(target)} has passed (it closed at "
                       f"{c.ctx.when(c.ctx.tick_at(sighted_tick + c.ctx.rules.reaction_ticks))})",
                       "an intercept sent before the next tick after the sighting", "status")
    if mine.tile != watch_tile or mine.state != ArmyState.STANDING \
            or mine.kind != target.kind:
        raise Rejected(f"{force(mine)} is not standing at {_label(c, watch_tile)}, where "
                       f"{force(target)} was sighted", f"your standing {force_noun(target.kind)} "
                       "on the watching tile", "status")
    if target.tile not in c.ctx.world.tiles_within(watch_tile, c.ctx.rules.detection_radius):
        raise Rejected(f"{force(target)} is out of reach of {_label(c, watch_tile)}",
                       "a force still within sight of the watching tile", "status")
    for a in (mine, target):
        if _pending_battle_of(c, a.id or 0) is not None:
            raise Rejected(f"{force(a)} is already in a battle", "a battle to be fought first",
                           "status")
    _declare_war(c, mine.claim_id, target.claim_id)
    target.state = ArmyState.STANDING  # stopped where it is, off the march
    target.path_json, target.costs_json, target.saved = [], [], "0"
    target.arrival_tick = target.stationary_since = c.tick
    mine.travelled_json = [*mine.travelled_json, mine.tile]
    mine.tile = target.tile
    mine.stationary_since = c.tick
    c.session.add(target)
    c.session.add(mine)
    when = _open_battle(
        c, mine, target, "intercept", f"{force(mine)} intercepts {force(target)} at "
        f"{target.tile}", told="intercepted",
        subject=f"{force(target, capital=True)} is intercepted at {_label(c, target.tile)}",
        news=(f"{force(mine, capital=True)} ({_troops(mine)}) bars the way of your "
              f"{force(target)} at {_label(c, target.tile)}: your {travel(target.kind, 'noun')} is "
              "stopped."))
    return (f"{force(mine, capital=True)} intercepts {force(target)} at "
            f"{_label(c, target.tile)}: its {travel(target.kind, 'noun')} "
            f"is stopped. The defender has the first reaction; the battle is fought at {when}.")


def _declare_war(c: Call, a: int, b: int) -> None:
    before = set_relation(c.session, c.ctx, a, b, RelationStatus.WAR)
    if before is not RelationStatus.WAR:
        journal.log_event(c.session, c.ctx.campaign_id, c.tick, "war",
                          f"claims {a} and {b} are at war", at=c.now, claim_id=a,
                          actor=c.author, data={"claims": [a, b], "before": before.value})


def _holdfast_owner(c: Call, tile_id: str) -> Claim | None:
    return c.session.exec(select(Claim).where(Claim.campaign_id == c.ctx.campaign_id,
                                              Claim.holdfast == tile_id)).first()


def _blockaded(c: Call, claim_id: int, tile_id: str) -> bool:
    water = set(c.ctx.world.water_adjacent(tile_id))
    return any(a.kind == ArmyKind.FLEET and a.tile in water
               for a in armies(c.session, c.ctx, claim_id=claim_id,
                               states=(ArmyState.STANDING,)))


def _leave_siege(c: Call, a: Army, how: str) -> str | None:
    """End the siege army ``a`` holds, if any (it stands on the tile again); returns the
    holdfast's name. ``how`` completes "The besiegers of CLAIM ..." in the public post."""
    if a.state != ArmyState.BESIEGING:
        return None
    siege = active_siege(c.session, c.ctx, a.tile)
    a.state = ArmyState.STANDING
    c.session.add(a)
    if siege is None or siege.army_id != a.id:
        return None
    claim = c.require_claim()
    end_siege(c.session, c.ctx, siege, f"The besiegers of {claim.name} {how}.", at=c.now,
              tick=c.tick)
    return _label(c, siege.holdfast)


def _lift(c: Call, order: o.Lift) -> str:
    claim = c.require_claim()
    hold = c.ctx.world.tile(order.holdfast)
    siege = active_siege(c.session, c.ctx, hold.id)
    if siege is None or siege.besieger_claim != claim.id:
        raise Rejected(f"you are not besieging {hold.label}", "a holdfast your army besieges",
                       "status")
    a = c.own_army(siege.army_id)
    if (battle := _pending_battle_of(c, a.id or 0)) is not None:
        raise _caught(c, a, battle)
    _leave_siege(c, a, "have lifted the siege")
    return (f"The siege of {hold.label} is lifted. {force(a, capital=True)} stands on the "
            "tile; the months counted are lost.")


def _siege(c: Call, order: o.Siege) -> str:
    a = c.own_army(order.army)
    hold = c.ctx.world.tile(order.holdfast)
    if a.tile != hold.id or a.state != ArmyState.STANDING:
        raise Rejected(f"{force(a)} must stand on {hold.label} to besiege it (it is "
                       f"{a.state} at {_label(c, a.tile)})", "a standing army on the holdfast",
                       _route_example(c, a, (hold.id,)))
    owner = _holdfast_owner(c, hold.id)
    if owner is None or owner.id == a.claim_id:
        raise Rejected(f"{hold.label} is not an enemy holdfast", "a holdfast of another claim",
                       f"siege {hold.label} with {force(a)}")
    if active_siege(c.session, c.ctx, hold.id) is not None:
        raise Rejected(f"{hold.label} is already under siege", "a holdfast not yet besieged",
                       "status")
    defenders = [d for d in armies(c.session, c.ctx, states=FIGHTING_STATES)
                 if d.tile == hold.id and d.claim_id != a.claim_id]
    try:
        check_siege_start(holdfast=hold.holdfast, port=hold.port, special=hold.special,
                          hostile_troops_on_tile=bool(defenders),
                          blockaded=_blockaded(c, a.claim_id, hold.id))
    except SpecialHoldfast:
        return _refer_siege(c, a, hold.label, owner)
    garrison = owner.infantry + owner.cavalry
    from bot.services.catalogue import siege_terms  # siege modifiers of both sides

    terms = siege_terms(c.session, c.ctx, a, owner, garrison)
    length = terms.length
    _declare_war(c, a.claim_id, owner.id or 0)
    siege = Siege(campaign_id=c.ctx.campaign_id, army_id=a.id or 0, besieger_claim=a.claim_id,
                  defender_claim=owner.id or 0, holdfast=hold.id,
                  # months count from the tick at or after the order
                  started_tick=c.ctx.tick_of(next_tick_at_or_after(c.now, c.ctx.rules)),
                  months_required=length.months)
    a.state = ArmyState.BESIEGING
    c.session.add(a)
    c.session.add(siege)
    c.session.flush()
    claim = c.require_claim()
    journal.log_event(c.session, c.ctx.campaign_id, c.tick, "siege_start",
                      f"{claim.name} besieges {hold.label} with {force(a)}", at=c.now,
                      claim_id=a.claim_id, actor=c.author, public=True,
                      data={"siege": siege.id, "army": a.id, "months": length.months})
    journal.queue(c.session, c.ctx.campaign_id, f"siege:{siege.id}:start", "post",
                  title=c.ctx.settings.posts.siege_title.format(event="Siege begins",
                                                                holdfast=hold.label),
                  body=(f"The host of **{claim.name}** has laid siege to **{hold.label}**, seat "
                        f"of {owner.name}, on {c.ctx.when(c.now)}."),
                  flair=c.ctx.settings.posts.siege_flair, public=True, at=c.now, tick=c.tick,
                  target=c.ctx.settings.campaign.subreddit)
    journal.notify_claim(c.session, c.ctx.campaign_id, owner.id or 0, f"besieged:{siege.id}",
                         subject=f"{hold.label} is besieged",
                         body=(f"{force(a, capital=True)} of {claim.name} ({_troops(a)}) besieges "
                               f"{hold.label}. Your garrison can hold for {length.months} "
                               f"in-game months{terms.defender_note}. You may sally: `sally from "
                               f"{hold.label}`."), at=c.now, tick=c.tick)
    return (f"{force(a, capital=True)} besieges {hold.label}. With its garrison it falls after "
            f"**{length.months}** in-game months{terms.besieger_note} if you hold the tile; "
            "you may also "
            f"`assault {hold.label} with {force(a)}`.")


def _refer_siege(c: Call, a: Army, holdfast: str, owner: Claim) -> str:
    """A siege of a special holdfast: the moderators rule on it (an internal note and an
    event); nothing else changes."""
    claim = c.require_claim()
    journal.log_event(c.session, c.ctx.campaign_id, c.tick, "referral",
                      f"{claim.name} orders {force(a)} to besiege {holdfast} (special rules): "
                      "referred to the moderators", at=c.now, claim_id=claim.id, actor=c.author,
                      data={"army": a.id, "holdfast": a.tile, "defender": owner.id})
    journal.notify_moderators(
        c.session, c.ctx.campaign_id, f"referral:siege:{c.ref}",
        subject=f"Siege of {holdfast} referred to you",
        body=(f"u/{escape_md(c.author)} ({escape_md(claim.name)}) orders {force(a)} "
              f"({_troops(a)}) to besiege **{escape_md(holdfast)}**, seat of "
              f"{escape_md(owner.name)}. This holdfast has its own siege rules, so maester "
              "started nothing: please rule on it and tell both claims."),
        at=c.now, tick=c.tick)
    return (f"{holdfast} has its own siege rules: your order is **referred to the "
            "moderators**, who will rule on it. Nothing has changed yet.")


def _assault(c: Call, order: o.Assault) -> str:
    a = c.own_army(order.army)
    hold = c.ctx.world.tile(order.holdfast)
    owner = _holdfast_owner(c, hold.id)
    if owner is None or owner.id == a.claim_id:
        raise Rejected(f"{hold.label} is not an enemy holdfast", "a holdfast of another claim",
                       f"assault {hold.label} with {force(a)}")
    if a.tile != hold.id or a.state not in (ArmyState.STANDING,
                                            ArmyState.BESIEGING):
        raise Rejected(f"{force(a)} must stand on {hold.label} to assault it",
                       "a standing or besieging army on the holdfast",
                       _route_example(c, a, (hold.id,)))
    defenders = [d for d in armies(c.session, c.ctx, states=FIGHTING_STATES)
                 if d.tile == hold.id and d.claim_id != a.claim_id]
    if defenders:
        raise Rejected(f"enemy {force(defenders[0])} holds the tile; defeat it first",
                       "no enemy army on the holdfast's tile", f"attack {force(defenders[0])} "
                       f"with {force(a)}")
    if _pending_battle_of(c, a.id or 0) is not None:
        raise Rejected(f"{force(a)} is already in a battle", "one battle at a time", "status")
    _declare_war(c, a.claim_id, owner.id or 0)
    fairplay.mark_order(a, c.ref)
    c.session.add(a)
    battle = PendingBattle(
        campaign_id=c.ctx.campaign_id, tile=hold.id, kind=BattleKind.ASSAULT,
        attacker_army=a.id or 0,
        defender_army=0, attacker_claim=a.claim_id, defender_claim=owner.id or 0,
        created_tick=c.tick, resolve_tick=reaction_deadline(c), reactor_claim=None,
        holdfast=hold.id,
    )
    c.session.add(battle)
    c.session.flush()
    when = c.ctx.when(c.ctx.tick_at(battle.resolve_tick))
    journal.log_event(c.session, c.ctx.campaign_id, c.tick, "assault",
                      f"{force(a)} will assault {hold.label}", at=c.now, claim_id=a.claim_id,
                      actor=c.author, data={"battle": battle.id, "army": a.id})
    journal.notify_claim(c.session, c.ctx.campaign_id, owner.id or 0, f"assault:{battle.id}",
                         subject=f"{hold.label} will be assaulted",
                         body=(f"{force(a, capital=True)} ({_troops(a)}) will assault "
                               f"{hold.label} at {when}. Your garrison defends with the "
                               "holdfast's defenses."),
                         at=c.now, tick=c.tick)
    return (f"{force(a, capital=True)} will assault {hold.label} at {when}. You may call it "
            f"off until then: `cancel {force(a)}`.")


def _sally(c: Call, order: o.Sally) -> str:
    claim = c.require_claim()
    hold = c.ctx.world.tile(order.holdfast)
    if hold.id != claim.holdfast:
        raise Rejected(f"{hold.label} is not your holdfast", "your own besieged holdfast",
                       f"sally from {_label(c, claim.holdfast)}"
                       if active_siege(c.session, c.ctx, claim.holdfast) else "status")
    siege = active_siege(c.session, c.ctx, hold.id)
    if siege is None:
        raise Rejected(f"{hold.label} is not under siege", "a besieged holdfast", "status")
    sally_army = 0
    if order.army is not None:
        a = c.own_army(order.army)
        if a.tile == hold.id and a.state == ArmyState.MUSTERING:
            ready = c.ctx.when(c.ctx.tick_at(a.ready_tick or c.tick))
            raise Rejected(f"{force(a)} is still mustering (ready {ready}): only ready troops "
                           "sally", "an army inside the walls that has finished mustering, or "
                           "no army (the whole ready garrison sallies)", f"sally from {hold.label}")
        if a.tile != hold.id or a.state != ArmyState.GARRISON:
            raise Rejected(f"{force(a)} is not inside {hold.label}",
                           "an army inside the walls, or no army (the whole garrison sallies)",
                           f"sally from {hold.label}")
        sally_army = a.id or 0
        fairplay.mark_order(a, c.ref)
        c.session.add(a)
    elif claim.infantry + claim.cavalry + sum(
            x.infantry + x.cavalry for x in armies(c.session, c.ctx, claim_id=claim.id,
                                                    states=(ArmyState.GARRISON,))
            if x.tile == hold.id) == 0:
        raise Rejected("your garrison has no ready troops to sally with",
                       "troops at home or a ready army inside the walls", "status")
    battle = PendingBattle(
        campaign_id=c.ctx.campaign_id, tile=hold.id, kind=BattleKind.SALLY,
        attacker_army=sally_army,
        defender_army=siege.army_id, attacker_claim=claim.id or 0,
        defender_claim=siege.besieger_claim, created_tick=c.tick,
        resolve_tick=reaction_deadline(c), reactor_claim=None, holdfast=hold.id,
    )
    c.session.add(battle)
    c.session.flush()
    when = c.ctx.when(c.ctx.tick_at(battle.resolve_tick))
    journal.log_event(c.session, c.ctx.campaign_id, c.tick, "sally",
                      f"{claim.name} sallies from {hold.label}", at=c.now, claim_id=claim.id,
                      actor=c.author, data={"battle": battle.id, "army": sally_army})
    who = f"army {sally_army}" if sally_army else "the whole ready garrison"
    return f"{who.capitalize()} will sally from {hold.label} at {when}."


# --- information ------------------------------------------------------------------------

def _status(c: Call, order: o.Status) -> str:
    claim = c.require_claim()
    lines = [f"**{claim.name}** — {c.ctx.when(c.now)}", "",
             f"- Gold: {money(claim.gold)}",
             f"- At home in {_label(c, claim.holdfast)}: {claim.infantry} infantry, "
             f"{claim.cavalry} cavalry" + (f", {claim.ships} ships" if claim.ships else "")]
    home = c.ctx.world.tile(claim.holdfast)
    if home.defense_bonus != 1:  # the claimant knows its own holdfast's secret
        lines.append(f"- Defenses of {home.label}: x{money(home.defense_bonus)} to your "
                     "defenders' strength against an assault (secret: only your claim and the "
                     "moderators see this)")
    if claim.scattered_until is not None and claim.scattered_until > c.now:
        lines.append(f"- Scattered (cannot be raised until {c.ctx.when(claim.scattered_until)}):"
                     f" {claim.scattered_infantry} infantry, {claim.scattered_cavalry} cavalry")
    mine = armies(c.session, c.ctx, claim_id=claim.id)
    if not mine:
        lines.append("- No armies or fleets raised")
    for a in mine:
        extra = ""
        if a.state == ArmyState.MUSTERING and a.ready_tick is not None:
            extra = f", ready {c.ctx.when(c.ctx.tick_at(a.ready_tick))}"
        if a.path_json and a.arrival_tick is not None:
            extra += (f", {travel(a.kind, 'ing')} to {_label(c, a.path_json[-1])}, arrives "
                      f"{c.ctx.when(c.ctx.tick_at(a.arrival_tick))}")
        lines.append(f"- {force(a, capital=True)}: {_troops(a)}, "
                     f"{state_word(a.kind, a.state)} at {_label(c, a.tile)}{extra}")
    upkeep = monthly_upkeep(sum(a.infantry for a in mine), sum(a.cavalry for a in mine),
                            _season(c), c.ctx.rules, ships=sum(a.ships for a in mine))
    lines.append(f"- Upkeep of raised troops: {money(upkeep)} gold a month this season")
    return "\n".join(lines)


def _odds(c: Call, order: o.Odds) -> str:
    mine = c.own_army(order.army_a)
    other = army(c.session, c.ctx, order.army_b)
    visible = other is not None and (other.tile == mine.tile or c.is_moderator)
    if other is None or not visible:
        raise Rejected(f"{force_name(mine.kind, order.army_b)} is not on "
                       f"{_label(c, mine.tile)} with your {force_noun(mine.kind)}",
                       f"an enemy {force_noun(mine.kind)} on the same tile as yours (odds never "
                       "reveal forces you cannot see)", "status")
    if other.claim_id == mine.claim_id and not c.is_moderator:
        raise Rejected(f"{force(other)} is your own",
                       f"an enemy {force_noun(mine.kind)} on your tile", "status")
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
    odds = battle_odds(attacker, defender, c.ctx.rules)
    fight = matchup(attacker, defender, c.ctx.rules)
    win = odds.attacker_win

    def shown(power: Strength) -> str:
        labels = power.public_labels()
        return money(power.value) + (f" ({power.base} " + " ".join(labels) + ")"
                                     if labels else "")

    ratio = "" if fight.ratio is None else f"ratio {money(fight.ratio)}, "
    return (f"If {force(mine)} attacks {force(other)} now ({force(mine)} is the attacker: "
            "it never has the defender's terrain bonus; the battle would be fought at "
            f"{c.ctx.when(c.ctx.tick_at(fought))}):\n\n"
            f"- strength {shown(fight.attacker)} against {shown(fight.defender)}: "
            f"{ratio}band {fight.band.name}\n"
            f"- **{float(win) * 100:.1f}%** to win, {float(1 - win) * 100:.1f}% to lose "
            f"(exactly {win})\n"
            f"- expected losses: yours {float(odds.attacker_losses.infantry):.0f} infantry, "
            f"{float(odds.attacker_losses.cavalry):.0f} cavalry; theirs "
            f"{float(odds.defender_losses.infantry):.0f} infantry, "
            f"{float(odds.defender_losses.cavalry):.0f} cavalry")


def _cede(c: Call, order: o.Cede) -> str:
    from bot.db.models import ResourceHolder
    from bot.services.catalogue import ModifierBook

    claim = c.require_claim()
    tile = c.ctx.world.tile(order.tile)
    if not tile.resource:
        raise Rejected(f"{tile.label} is not a resource tile", "a resource tile you hold",
                       "status")
    other = claim_by_name(c.session, c.ctx, order.claim)
    if other is None or other.id == claim.id:
        raise Rejected(f"there is no other claim called {escape_md(order.claim, 60)}",
                       "another claim's name", "status")
    standing = [a for a in armies(c.session, c.ctx, states=(ArmyState.STANDING,))
                if a.tile == tile.id]
    book = ModifierBook.load(c.session, c.ctx, armies=standing, claims=[claim, other])
    if book.resource_holder(tile.id) != claim.id:
        raise Rejected(f"you do not hold {tile.label}'s benefit now",
                       "a resource tile where your standing army is the strongest", "status")
    if not any(a.claim_id == other.id for a in standing):
        raise Rejected(f"{other.name} has no standing army on {tile.label}",
                       "a claim whose army stands on the tile with yours", "status")
    row = book.holders.get(tile.id) or ResourceHolder(campaign_id=c.ctx.campaign_id,
                                                      tile=tile.id, claim_id=claim.id)
    row.ceded_to = other.id
    c.session.add(row)
    journal.log_event(c.session, c.ctx.campaign_id, c.tick, "cede",
                      f"{claim.name} cedes {tile.label} to {other.name}", at=c.now,
                      claim_id=claim.id, actor=c.author,
                      data={"tile": tile.id, "to": other.id})
    return (f"From the next tick **{other.name}** receives the benefit of {tile.label}, for as "
            "long as both your armies stand there.")


def _disband(c: Call, order: o.Disband) -> str:
    a = c.own_army(order.army)
    claim = c.require_claim()
    if a.tile != claim.holdfast or a.state not in (ArmyState.STANDING,
                                                   ArmyState.GARRISON):
        raise Rejected(f"{force(a)} must stand at {_label(c, claim.holdfast)} to disband",
                       "a standing army at your holdfast",
                       _route_example(c, a, (claim.holdfast,)))
    claim.infantry += a.infantry
    claim.cavalry += a.cavalry
    claim.ships += a.ships
    a.state = ArmyState.GONE
    c.session.add(claim)
    c.session.add(a)
    journal.log_event(c.session, c.ctx.campaign_id, c.tick, "disband",
                      f"{force(a)} disbanded", at=c.now, claim_id=claim.id, actor=c.author,
                      data={"army": a.id})
    return (f"{force(a, capital=True)} is disbanded; {_troops(a)} return home and cost no more "
            "upkeep.")


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
