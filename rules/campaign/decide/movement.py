"""What the movement orders decide: move, route, cancel and stand (halting a march)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime
from decimal import Decimal
from fractions import Fraction

from rules.campaign import language as o
from rules.campaign.calendar import tick_index, tick_time
from rules.campaign.decide.battle import (
    call_off,
    react,
)
from rules.campaign.decide.common import (
    Cancelled,
    Halted,
    Receipt,
    Sender,
    caught,
    departed,
    force,
    harbours,
    leave_siege,
    own_army,
    path_refused,
    pending_battle_of,
    refuse,
    require_claim,
    route_example,
    shown,
    tick_of,
    with_army,
    with_claim,
)
from rules.campaign.detection import ObserverKind, detection_target
from rules.campaign.movement import (
    budget_per_tick,
    departure_tick,
    schedule_march,
    speed_multiplier,
)
from rules.campaign.naming import force_noun, state_word, travel
from rules.campaign.paths import (
    IllegalPath,
    PathCheck,
    Route,
    cheapest_route,
    check_path,
    format_path,
    observers_along,
)
from rules.campaign.world import (
    Army,
    ArmyKind,
    ArmyState,
    Reaction,
    World,
    no_march,
)
from rules.campaign.worldmap import WorldMap
from rules.text import escape_md, name_code, name_md

# --- movement ---------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Watch:
    """A tile that may detect a march, and the d20 roll it needs (None: certain)."""

    tile: str
    needed: int | None


@dataclass(frozen=True, slots=True)
class MarchPlan:
    """How a march goes for the army as it stands now: its budget and speed, when it arrives,
    and who may detect it on the way."""

    budget: Fraction
    multiplier: Decimal
    reasons: tuple[str, ...]
    arrival: datetime
    arrival_tick: int
    watch: tuple[Watch, ...]


@dataclass(frozen=True, slots=True)
class Marched(Receipt):
    """A march ordered: ``check`` the path, ``depart`` when it sets off, ``plan`` how it goes,
    ``cheaper`` a cheaper route to the same tile (a warning), ``lifted`` the holdfast whose
    siege the army left."""

    army: int
    kind: ArmyKind
    infantry: int
    cavalry: int
    ships: int
    start: str
    check: PathCheck
    depart: datetime
    plan: MarchPlan
    cheaper: Route | None = None
    lifted: str | None = None
    at_once: bool = False
    """It departs at the very moment of the order (an order sent exactly on a tick): too
    late to cancel, only ``stand`` halts it."""


@dataclass(frozen=True, slots=True)
class RouteFound(Receipt):
    """The cheapest route for an army (``route.tiles`` empty: it is already there)."""

    army: int
    start: str
    goal: str
    route: Route
    kind: ArmyKind = field(default=ArmyKind.LAND, kw_only=True)


def observer_tiles(world: World, claim_id: int, worldmap: WorldMap) -> dict[str, ObserverKind]:
    """Tiles that may detect a march of ``claim_id``: other claims' holdfasts, and resource
    tiles where another claim has a standing army."""
    result: dict[str, ObserverKind] = {}
    for other in world.claims.values():
        if other.id != claim_id:
            result[other.holdfast] = ObserverKind.HOLDFAST
    for a in world.armies.values():
        if a.state is ArmyState.STANDING and a.claim_id != claim_id and a.tile in worldmap \
                and worldmap.tile(a.tile).resource and a.tile not in result:
            result[a.tile] = ObserverKind.RESOURCE_TILE
    return result


def plan_march(world: World, sender: Sender, army: Army, check: PathCheck, depart: datetime
               ) -> MarchPlan:
    """The march of ``army`` along ``check`` leaving at ``depart``, with the speed its
    modifiers give it now."""
    fleet = army.kind is ArmyKind.FLEET
    mods = sender.modifiers.march(army)
    budget = budget_per_tick(army.infantry, army.cavalry, sender.rules, modifiers=mods,
                             is_fleet=fleet)
    schedule = schedule_march(check.costs, budget, depart, sender.rules)
    observers = observer_tiles(world, army.claim_id, sender.map)
    watch = []
    for seen in observers_along(sender.map, [army.tile, *check.ids], observers,
                                sender.rules.detection_radius):
        target = detection_target(army.size, observers[seen.observer], sender.rules)
        needed = None if target.automatic or target.target is None \
            else target.target - target.bonus
        watch.append(Watch(seen.observer, needed))
    mult, reasons = speed_multiplier(army.infantry, army.cavalry, sender.rules,
                                     modifiers=mods, is_fleet=fleet)
    return MarchPlan(Fraction(budget), mult, tuple(reasons), schedule.arrival,
                     tick_index(schedule.arrival, sender.rules), tuple(watch))


def replan(world: World, sender: Sender, receipt: Marched) -> Marched | None:
    """The march receipt again for the army as it stands now (a later line of the message
    may have changed its speed), or None when the march is no longer the one ordered."""
    army = world.armies.get(receipt.army)
    if army is None or army.march.path != receipt.check.ids \
            or army.state not in (ArmyState.MARCHING, ArmyState.MUSTERING):
        return None
    return replace(receipt, plan=plan_march(world, sender, army, receipt.check,
                                            receipt.depart))


def decide_move(world: World, sender: Sender, order: o.Move, at: datetime
          ) -> tuple[World, Receipt]:
    a = own_army(world, sender, order.army)
    tick = tick_of(at, sender)
    if a.state not in (ArmyState.MUSTERING, ArmyState.STANDING, ArmyState.MARCHING,
                       ArmyState.BESIEGING) or departed(a, tick):
        state = "already under way" if departed(a, tick) else state_word(a.kind, a.state)
        raise refuse(f"{force(a)} cannot be given a new path now: it is {state}",
                      f"a standing or mustering {force_noun(a.kind)}, or one that has not "
                      f"departed yet (use `stand {force(a)}` to halt it where it is)",
                      f"stand {force(a)}" if departed(a, tick) else "status")
    if (battle := pending_battle_of(world, a.id)) is not None:
        raise caught(a, battle, sender.rules)
    ports = harbours(world, sender, a)
    try:
        check = check_path(sender.map, a.tile, order.path, a.kind, sender.rules, ports)
    except IllegalPath as exc:
        raise path_refused(exc, a, sender, route_example(
            world, sender, a, (*order.path[-1:], *exc.suggestions))) from None
    best = cheapest_route(sender.map, a.tile, check.tiles[-1].id, a.kind, sender.rules, ports)
    cheaper = best if best is not None and best.total < check.total else None
    if order.stated_cost != check.total:
        hint = ""
        if cheaper is not None:
            hint = (f" The cheapest route there costs {cheaper.total}: "
                    f"`move {force(a)}: {format_path(name_code(t.label) for t in cheaper.tiles)} "
                    f"(cost {cheaper.total})`.")
        stated = "no cost" if order.stated_cost is None else f"cost {order.stated_cost}"
        raise refuse(
            f"you stated {stated}, but this path costs {check.total}: "
            f"{escape_md(check.breakdown(), 4000)}."
            + hint, "the total travel cost at the end of the order",
            f"move {force(a)}: {format_path(t.label for t in check.tiles)} "
            f"(cost {check.total})")
    ready_at = tick_time(a.ready_tick, sender.rules) \
        if a.state is ArmyState.MUSTERING and a.ready_tick is not None else None
    depart = departure_tick(at, ready_at, sender.rules)
    world, a, lifted = leave_siege(world, a)  # leaving ends the siege
    plan = plan_march(world, sender, a, check, depart)
    a = replace(a, state=a.state if a.state is ArmyState.MUSTERING else ArmyState.MARCHING,
                march=replace(a.march, path=check.ids, costs=check.costs, saved=Fraction(0),
                              depart_tick=tick_index(depart, sender.rules)),
                arrival_tick=plan.arrival_tick,
                meta={})  # who detected the previous march does not carry over
    return with_army(world, a), Marched(
        a.id, a.kind, a.infantry, a.cavalry, a.ships, a.tile, check, depart, plan, cheaper,
        lifted.holdfast if lifted is not None else None, depart <= at, ordered=(a.id,))


def decide_route(world: World, sender: Sender, order: o.Route, at: datetime
           ) -> tuple[World, Receipt]:
    a = own_army(world, sender, order.army)
    goal = sender.map.tile(order.destination)
    route = cheapest_route(sender.map, a.tile, goal.id, a.kind, sender.rules,
                           harbours(world, sender, a))
    if route is None:
        raise refuse(f"{force(a)} cannot reach {name_md(goal.label)} from "
                      f"{shown(sender, a.tile)}",
                      "a destination its kind can reach",
                      route_example(world, sender, a, (require_claim(world, sender).holdfast,)))
    return world, RouteFound(a.id, a.tile, goal.id, route, kind=a.kind)


def decide_cancel(world: World, sender: Sender, order: o.Cancel, at: datetime
            ) -> tuple[World, Receipt]:
    a = own_army(world, sender, order.army)
    claim = require_claim(world, sender)
    tick = tick_of(at, sender)
    if a.state is ArmyState.MUSTERING and a.march.path:
        # The latest order queued a march: cancel that first; a second cancel ends the muster.
        return (with_army(world, no_march(a)),
                Cancelled("queued march", a.id, a.tile, kind=a.kind))
    if a.state is ArmyState.MUSTERING:
        claim = replace(claim, infantry=claim.infantry + a.infantry,
                        cavalry=claim.cavalry + a.cavalry, ships=claim.ships + a.ships)
        return (with_army(with_claim(world, claim), replace(a, state=ArmyState.GONE)),
                Cancelled("muster", a.id, a.tile, a.infantry, a.cavalry, a.ships, kind=a.kind))
    if a.state is ArmyState.MARCHING and not departed(a, tick):
        return (with_army(world, no_march(a, state=ArmyState.STANDING)),
                Cancelled("march", a.id, a.tile, kind=a.kind))
    battle = pending_battle_of(world, a.id)
    if battle is not None and battle.attacker_army == a.id:
        return call_off(world, sender, a, battle, tick)
    gone = departed(a, tick)
    raise refuse(f"{force(a)} has nothing to cancel (it is {state_word(a.kind, a.state)}"
                  + (f", and its {travel(a.kind, 'noun')} has departed" if gone else "")
                  + ")", "a muster, a march or voyage that has not departed yet, or an assault "
                  "not yet fought (halt a departed march with `stand`)",
                  f"stand {force(a)}" if gone or battle is not None else "status")


def decide_stand(world: World, sender: Sender, order: o.Stand, at: datetime
           ) -> tuple[World, Receipt]:
    a = own_army(world, sender, order.army)
    battle = pending_battle_of(world, a.id)
    if battle is not None:
        return react(world, a, battle, Reaction.STAND)
    if a.state is ArmyState.MARCHING:
        return (with_army(world, no_march(a, state=ArmyState.STANDING,
                                          stationary_since=tick_of(at, sender))),
                Halted(a.id, a.tile, kind=a.kind))
    raise refuse(f"{force(a)} is not {travel(a.kind, 'ing')} and not facing a battle",
                  f"{force_noun(a.kind, article=True)} on its way to halt, or one that was "
                  "attacked", "status")
