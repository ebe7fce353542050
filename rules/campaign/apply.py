"""Players' orders decided as values: ``apply_order(world, order, at, dice) -> (world, receipt)``.

The order language (:mod:`rules.campaign.orders`) reads the text; this module decides what an
order does to the world: it checks the order (ownership, troops, the army's state, the battle it
is in, the holdfast it names) and either raises :class:`OrderRefused` (nothing changes) or
returns the world after the order and a receipt value saying what was accepted (the new army,
the tick a battle is fought, the war it declared, the siege it lifted). The world is the
tick's :class:`rules.campaign.world.World`; the campaign's rules and map come with the
:class:`Sender`. Nothing here reads a
clock, a database or a die that is not given; the services load the world, call
:func:`apply_order`, write the difference back, journal it, and render the receipt
(``bot.render.receipts``).

Which orders are decided here is :data:`PURE_ORDERS`; the others are still decided by their
service handlers (see ``bot.services.orders.HANDLERS``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from decimal import Decimal
from enum import StrEnum
from fractions import Fraction
from types import MappingProxyType
from typing import Any, Protocol, TypeVar

from rules.campaign import calendar, improvements
from rules.campaign import orders as o
from rules.campaign.battle import Matchup, Side, Winner, matchup
from rules.campaign.calendar import moment_text, next_tick_at_or_after, tick_index, tick_time
from rules.campaign.calloff import call_off_refusal
from rules.campaign.catalogue import Catalogue, Entry, Section, UnknownEntry
from rules.campaign.config import RulesConfig
from rules.campaign.detection import ObserverKind, detection_target, intercept_closes
from rules.campaign.modifiers import Modifier
from rules.campaign.movement import (
    budget_per_tick,
    departure_tick,
    schedule_march,
    speed_multiplier,
)
from rules.campaign.muster import check_muster, muster_ready_at
from rules.campaign.naming import force_name, force_noun, state_word, travel
from rules.campaign.odds import Odds, battle_odds
from rules.campaign.paths import (
    IllegalPath,
    PathCheck,
    Route,
    cheapest_route,
    check_path,
    format_path,
    observers_along,
    path_problem,
)
from rules.campaign.resources import tile_holder
from rules.campaign.siege import SiegeLength, SpecialHoldfast, check_siege_start, siege_months
from rules.campaign.upkeep import monthly_upkeep
from rules.campaign.warnings import Shortfall
from rules.campaign.world import (
    FIGHTING_STATES,
    FREE_CHARACTERS,
    Army,
    ArmyKind,
    ArmyState,
    BattleKind,
    BattleState,
    BattleStatus,
    CharacterState,
    CharacterStatus,
    ClaimState,
    HolderState,
    Modifiers,
    NoModifiers,
    Reaction,
    RelationStatus,
    SiegeState,
    SiegeStatus,
    World,
    fighting_side,
    war_key,
)
from rules.campaign.worldmap import WorldMap
from rules.dice import Dice
from rules.errors import RulesError
from rules.text import escape_md, name_code, name_md

__all__ = [
    "PURE_ORDERS",
    "OrderRefused",
    "Receipt",
    "Said",
    "Sender",
    "apply_order",
    "reaction_deadline",
]


class _Named(Protocol):
    @property
    def name(self) -> str: ...


C = TypeVar("C", bound=_Named)


# --- the world an order sees ------------------------------------------------------------

class OrderModifiers(Modifiers, Protocol):
    """The modifiers in force as orders ask for them: the tick's, and those of a siege."""

    def besieger(self, army: Army) -> tuple[Modifier, ...]:
        """A besieging army's modifiers (its skills and its siege equipment)."""
        ...

    def holdfast(self, claim_id: int, *,
                 characters: Sequence[CharacterState] | None = None) -> tuple[Modifier, ...]:
        """The modifiers of a holdfast's defenders (improvements, skills at home)."""
        ...


class NoOrderModifiers(NoModifiers):
    """No catalogue: nothing modifies anything."""

    def besieger(self, army: Army) -> tuple[Modifier, ...]:
        return ()

    def holdfast(self, claim_id: int, *,
                 characters: Sequence[CharacterState] | None = None) -> tuple[Modifier, ...]:
        return ()


@dataclass(frozen=True, slots=True)
class Sender:
    """Who sends an order (their claim, None for a sender who plays none) and the campaign's
    rules, map and modifiers it is read against."""

    claim_id: int | None
    rules: RulesConfig
    map: WorldMap
    modifiers: OrderModifiers = field(default_factory=NoOrderModifiers)  # the catalogue's
    catalogue: Catalogue = field(default_factory=Catalogue)  # what may be built and bought


NEW_ARMY = -1
"""The id of an army an order creates, until the services store it (one per order)."""

NEW_SIEGE = -1
"""The id of a siege an order lays, until the services store it."""


def _label(sender: Sender, tile: str) -> str:
    return sender.map.tile(tile).label


def _shown(sender: Sender, tile: str) -> str:
    """A tile's name as a refusal's markdown shows it (examples keep the plain name)."""
    return name_md(_label(sender, tile))


def force(a: Army, *, capital: bool = False) -> str:
    """``army 3`` or ``fleet 3`` as players read it (``Army 3`` at the start of a sentence)."""
    return force_name(a.kind, a.id, capital=capital)


def tick_of(at: datetime, sender: Sender) -> int:
    return tick_index(at, sender.rules)


def relation(world: World, a: int, b: int) -> RelationStatus:
    """How two claims stand: at war, allied (a claim with itself too), or (unrecorded)
    neutral."""
    if a == b:
        return RelationStatus.ALLIED
    if world.at_war(a, b):
        return RelationStatus.WAR
    return RelationStatus.ALLIED if war_key(a, b) in world.allies else RelationStatus.NEUTRAL


def pending_battle_of(world: World, army_id: int) -> BattleState | None:
    """The pending battle army ``army_id`` is in, if any (the first one stored)."""
    for battle in world.battles:
        if battle.status is BattleStatus.PENDING \
                and army_id in (battle.attacker_army, battle.defender_army):
            return battle
    return None


def active_siege(world: World, holdfast: str) -> SiegeState | None:
    for siege in world.sieges:
        if siege.holdfast == holdfast and siege.status is SiegeStatus.ACTIVE:
            return siege
    return None


def holdfast_owner(world: World, tile: str) -> ClaimState | None:
    return next((c for c in world.claims.values() if c.holdfast == tile), None)


def with_army(world: World, army: Army) -> World:
    return replace(world, armies={**world.armies, army.id: army})


def with_claim(world: World, claim: ClaimState) -> World:
    return replace(world, claims={**world.claims, claim.id: claim})


def with_battle(world: World, battle: BattleState) -> World:
    """The world with ``battle`` replacing the one of its id (a new one, id None, added)."""
    if battle.id is None:
        return replace(world, battles=(*world.battles, battle))
    return replace(world, battles=tuple(battle if b.id == battle.id else b
                                        for b in world.battles))


def with_siege(world: World, siege: SiegeState) -> World:
    return replace(world, sieges=tuple(siege if s.id == siege.id else s
                                       for s in world.sieges))


def declare_war(world: World, a: int, b: int) -> tuple[World, RelationStatus | None]:
    """The world with claims ``a`` and ``b`` at war, and how they stood before (None when
    they already were at war)."""
    before = relation(world, a, b)
    if before is RelationStatus.WAR:
        return world, None
    pair = war_key(a, b)
    return replace(world, wars=world.wars | {pair}, allies=world.allies - {pair}), before


# --- refusals ---------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Said:
    """A piece of the player's own text quoted in a refusal (shown inert, cut at ``limit``)."""

    text: str
    limit: int = 200


class OrderRefused(RulesError):
    """An order the rules refuse: what was wrong, what was expected, an example.

    ``template`` has a ``{}`` for each piece of the player's text in ``quoted``, which whoever
    shows the refusal makes inert. ``tried_army`` is set when the sender named another claim's
    army: (army, its owner, the sender's claim), which the moderators' log keeps.
    """

    def __init__(self, template: str, *quoted: Said, expected: str = "", example: str = "",
                 tried_army: tuple[int, int, int] | None = None) -> None:
        self.template = template
        self.quoted = quoted
        self.expected = expected
        self.example = example
        self.tried_army = tried_army
        super().__init__(self.problem())

    def problem(self, show: Callable[[str, int], str] = lambda text, limit: text) -> str:
        return self.template.format(*(show(q.text, q.limit) for q in self.quoted))


def _refuse(problem: str, expected: str = "", example: str = "") -> OrderRefused:
    return OrderRefused(problem.replace("{", "{{").replace("}", "}}"), expected=expected,
                        example=example)


def require_claim(world: World, sender: Sender) -> ClaimState:
    """The sender's claim (the services refuse a sender without one before calling)."""
    claim_id = sender.claim_id
    if claim_id is None or claim_id not in world.claims:
        raise _refuse("the sender plays no claim in this campaign", "a registered player",
                      "status")
    return world.claims[claim_id]


def own_army(world: World, sender: Sender, army_id: int, what: str = "army or fleet"
             ) -> Army:
    """Army (or fleet) ``army_id`` if it belongs to the sender's claim."""
    claim = require_claim(world, sender)
    found = world.armies.get(army_id)
    if found is None or found.state is ArmyState.GONE:
        raise _refuse(f"there is no {what} {army_id}", "the number of one of your armies or "
                      "fleets (send `status` to list them)", "status")
    if found.claim_id != claim.id:
        raise OrderRefused(f"{force_name(found.kind, army_id)} is not yours",
                           expected="one of your own armies or fleets (send `status` to list "
                           "them)", example="status",
                           tried_army=(army_id, found.claim_id, claim.id))
    return found


def caught(a: Army, battle: BattleState, rules: RulesConfig) -> OrderRefused:
    """The refusal of an order for an army in a pending battle: it waits for the battle; its
    example is `retreat` while the army's side may still choose, else `status`."""
    when = moment_text(tick_time(battle.resolve_tick, rules), rules)
    choose = battle.reactor_claim == a.claim_id and battle.reaction is None
    return _refuse(f"{force(a)} is caught in a battle, fought at {when}",
                   "an order for it after the battle" + (" (until then you may `retreat` or "
                                                         "`stand`)" if choose else ""),
                   f"retreat {force(a)}" if choose else "status")


def reaction_deadline(at: datetime, rules: RulesConfig) -> int:
    """The tick at which a battle started at ``at`` is fought (the reaction window's end)."""
    start = next_tick_at_or_after(at, rules)
    first = tick_index(start, rules)
    if start == at:
        first += 1  # created on a tick: the window lasts until the next one
    return first + max(0, rules.reaction_ticks - 1)


def departed(army: Army, tick: int) -> bool:
    """Whether the army's march has already begun at ``tick``."""
    return army.state is ArmyState.MARCHING and army.march.depart_tick is not None \
        and army.march.depart_tick <= tick


# --- receipts ---------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Receipt:
    """What an accepted order did. ``ordered`` lists the armies this order set going (their
    last order is this one); ``wars`` the claims it put at war, with their status before;
    ``shortfall`` the warning that the next upkeep will exceed the claim's gold (set by the
    services on a muster's, a purchase's or a status receipt, from the stored troops and the
    claim's income: :func:`rules.campaign.warnings.next_upkeep_shortfall`)."""

    ordered: tuple[int, ...] = field(default=(), kw_only=True)
    wars: tuple[tuple[int, int, RelationStatus], ...] = field(default=(), kw_only=True)
    shortfall: Shortfall | None = field(default=None, kw_only=True)


@dataclass(frozen=True, slots=True)
class Mustered(Receipt):
    army: int
    kind: ArmyKind
    infantry: int
    cavalry: int
    ships: int
    tile: str
    ready: datetime
    ready_tick: int
    upkeep: Decimal
    home_infantry: int
    home_cavalry: int
    home_ships: int
    show_ships: bool


@dataclass(frozen=True, slots=True)
class Cancelled(Receipt):
    """``what``: "queued march" (the army still musters), "muster" (the troops are home again)
    or "march" (the army stays where it stands)."""

    what: str
    army: int
    tile: str
    infantry: int = 0
    cavalry: int = 0
    ships: int = 0
    kind: ArmyKind = field(default=ArmyKind.LAND, kw_only=True)


@dataclass(frozen=True, slots=True)
class Halted(Receipt):
    army: int
    tile: str
    kind: ArmyKind = field(default=ArmyKind.LAND, kw_only=True)


@dataclass(frozen=True, slots=True)
class Reacted(Receipt):
    """The side with the first reaction chose to ``reaction`` (retreat or stand); a retreat
    falls back along ``route`` if it escapes."""

    army: int
    battle: int | None
    reaction: Reaction
    resolve_tick: int
    route: tuple[str, ...] = ()
    kind: ArmyKind = field(default=ArmyKind.LAND, kw_only=True)


@dataclass(frozen=True, slots=True)
class RetreatReferred(Receipt):
    army: int
    battle: int | None
    tile: str
    infantry: int
    cavalry: int
    ships: int
    kind: ArmyKind = field(default=ArmyKind.LAND, kw_only=True)


@dataclass(frozen=True, slots=True)
class Spared(Receipt):
    army: int
    battle: int | None
    tile: str
    by_claim: int
    other_claim: int
    kind: ArmyKind | None = field(default=ArmyKind.LAND, kw_only=True)  # None: not known


class BattleOrder(StrEnum):
    """The order that began a battle: an attack or an intercept in the field, an assault on a
    holdfast, or a sally out of one."""

    ATTACK = "attack"
    INTERCEPT = "intercept"
    ASSAULT = "assault"
    SALLY = "sally"


@dataclass(frozen=True, slots=True)
class BattleOrdered(Receipt):
    """An attack, an intercept, an assault or a sally: battle ``battle`` (a temporary id until
    stored) is fought at ``resolve_tick``."""

    how: BattleOrder
    battle: int | None  # None until stored
    army: int  # the attacking army (0: a sally of the whole garrison)
    target: int  # the defending army (0: the holdfast's garrison)
    tile: str
    resolve_tick: int
    attacker_claim: int
    defender_claim: int
    infantry: int = 0  # the attacking army's troops, for the defender's news
    cavalry: int = 0
    ships: int = 0
    kind: ArmyKind = field(default=ArmyKind.LAND, kw_only=True)  # both sides' (one kind)


@dataclass(frozen=True, slots=True)
class SiegeLifted(Receipt):
    army: int
    holdfast: str
    siege: int | None  # the siege that ended (None: the army besieged nothing on record)
    besieger: str  # the besieging claim's name, for the public post
    kind: ArmyKind = field(default=ArmyKind.LAND, kw_only=True)


@dataclass(frozen=True, slots=True)
class Disbanded(Receipt):
    army: int
    infantry: int
    cavalry: int
    ships: int
    kind: ArmyKind = field(default=ArmyKind.LAND, kw_only=True)


@dataclass(frozen=True, slots=True)
class CalledOff(Receipt):
    """The assault of ``army`` on ``holdfast`` is called off before it is fought
    (:mod:`rules.campaign.calloff`): no battle; the army stays as it was (``state``)."""

    army: int
    battle: int | None
    holdfast: str
    defender_claim: int
    state: ArmyState
    kind: ArmyKind = field(default=ArmyKind.LAND, kw_only=True)


# --- muster -----------------------------------------------------------------------------

def _muster(world: World, sender: Sender, order: o.Muster, at: datetime
            ) -> tuple[World, Receipt]:
    claim = require_claim(world, sender)
    home = sender.map.tile(claim.holdfast)
    if order.at is not None and sender.map.tile(order.at).id != home.id:
        raise OrderRefused(f"troops muster at your holdfast, {_brace(name_md(home.label))}, "
                           "not at {}",
                           Said(order.at), expected="no place, or your holdfast",
                           example=f"muster {order.infantry} infantry {order.cavalry} cavalry")
    if order.ships and (order.infantry or order.cavalry):
        raise _refuse("ships and troops muster in separate orders", "one muster for troops "
                      "and another for ships", "muster 4 ships")
    request = check_muster(
        order.infantry, order.cavalry, claim.infantry, claim.cavalry, claim.scattered_until,
        at, order.ships, at_home_ships=claim.ships,
        scattered_infantry=claim.scattered_infantry, scattered_cavalry=claim.scattered_cavalry,
        scattered_ships=0, home_is_port=home.port,
    )
    ready = muster_ready_at(at, sender.rules)
    infantry = claim.infantry - request.infantry
    cavalry = claim.cavalry - request.cavalry
    claim = replace(claim, infantry=infantry, cavalry=cavalry,
                    ships=claim.ships - request.ships,
                    scattered_infantry=min(claim.scattered_infantry, infantry),
                    scattered_cavalry=min(claim.scattered_cavalry, cavalry))
    new = Army(id=NEW_ARMY, claim_id=claim.id,
               kind=ArmyKind.FLEET if request.ships else ArmyKind.LAND,
               state=ArmyState.MUSTERING, tile=home.id, infantry=request.infantry,
               cavalry=request.cavalry, ships=request.ships, accepted_at=at,
               ready_tick=tick_index(ready, sender.rules))
    cost = monthly_upkeep(request.infantry, request.cavalry, world.season, sender.rules,
                          ships=request.ships)
    receipt = Mustered(
        army=new.id, kind=new.kind, infantry=new.infantry, cavalry=new.cavalry,
        ships=new.ships, tile=home.id, ready=ready, ready_tick=new.ready_tick or 0,
        upkeep=cost, home_infantry=claim.infantry, home_cavalry=claim.cavalry,
        home_ships=claim.ships, show_ships=bool(claim.ships or request.ships),
        ordered=(new.id,))
    return with_army(with_claim(world, claim), new), receipt


def _brace(text: str) -> str:
    return text.replace("{", "{{").replace("}", "}}")


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


def _path_refused(exc: IllegalPath, a: Army, sender: Sender, example: str) -> OrderRefused:
    """A path refused in the player's words ("Did you mean ...?")."""
    return OrderRefused("{}", Said(path_problem(exc), 300), expected="a path of adjacent tiles "
                        f"starting next to the {force_noun(a.kind)}'s tile "
                        f"({_shown(sender, a.tile)})", example=example)


def route_example(world: World, sender: Sender, a: Army, goals: Iterable[str]) -> str:
    """A `route` order for ``a`` to the first of ``goals`` it can reach from where it stands
    (a tile the player probably meant), to suggest in a refusal; `help move` when none is
    reachable (a suggested order is always one that would be accepted)."""
    for goal in goals:
        if goal in sender.map and sender.map.tile(goal).id != a.tile and cheapest_route(
                sender.map, a.tile, sender.map.tile(goal).id, a.kind, sender.rules,
                harbours(world, sender, a)):
            return f"route {force(a)} to {o.format_name(sender.map.tile(goal).label)}"
    return "help move"


def _move(world: World, sender: Sender, order: o.Move, at: datetime
          ) -> tuple[World, Receipt]:
    a = own_army(world, sender, order.army)
    tick = tick_of(at, sender)
    if a.state not in (ArmyState.MUSTERING, ArmyState.STANDING, ArmyState.MARCHING,
                       ArmyState.BESIEGING) or departed(a, tick):
        state = "already under way" if departed(a, tick) else state_word(a.kind, a.state)
        raise _refuse(f"{force(a)} cannot be given a new path now: it is {state}",
                      f"a standing or mustering {force_noun(a.kind)}, or one that has not "
                      f"departed yet (use `stand {force(a)}` to halt it where it is)",
                      f"stand {force(a)}" if departed(a, tick) else "status")
    if (battle := pending_battle_of(world, a.id)) is not None:
        raise caught(a, battle, sender.rules)
    ports = harbours(world, sender, a)
    try:
        check = check_path(sender.map, a.tile, order.path, a.kind, sender.rules, ports)
    except IllegalPath as exc:
        raise _path_refused(exc, a, sender, route_example(
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
        raise _refuse(
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
        lifted.holdfast if lifted is not None else None, ordered=(a.id,))


def _route(world: World, sender: Sender, order: o.Route, at: datetime
           ) -> tuple[World, Receipt]:
    a = own_army(world, sender, order.army)
    goal = sender.map.tile(order.destination)
    route = cheapest_route(sender.map, a.tile, goal.id, a.kind, sender.rules,
                           harbours(world, sender, a))
    if route is None:
        raise _refuse(f"{force(a)} cannot reach {name_md(goal.label)} from "
                      f"{_shown(sender, a.tile)}",
                      "a destination its kind can reach",
                      route_example(world, sender, a, (require_claim(world, sender).holdfast,)))
    return world, RouteFound(a.id, a.tile, goal.id, route, kind=a.kind)


# --- cancel, stand, disband -------------------------------------------------------------

def _no_march(army: Army, **changes: Any) -> Army:
    """The army with no march ahead (its saved budget kept)."""
    return replace(army, march=replace(army.march, path=(), costs=(), depart_tick=None),
                   arrival_tick=None, **changes)


def _cancel(world: World, sender: Sender, order: o.Cancel, at: datetime
            ) -> tuple[World, Receipt]:
    a = own_army(world, sender, order.army)
    claim = require_claim(world, sender)
    tick = tick_of(at, sender)
    if a.state is ArmyState.MUSTERING and a.march.path:
        # The latest order queued a march: cancel that first; a second cancel ends the muster.
        return (with_army(world, _no_march(a)),
                Cancelled("queued march", a.id, a.tile, kind=a.kind))
    if a.state is ArmyState.MUSTERING:
        claim = replace(claim, infantry=claim.infantry + a.infantry,
                        cavalry=claim.cavalry + a.cavalry, ships=claim.ships + a.ships)
        return (with_army(with_claim(world, claim), replace(a, state=ArmyState.GONE)),
                Cancelled("muster", a.id, a.tile, a.infantry, a.cavalry, a.ships, kind=a.kind))
    if a.state is ArmyState.MARCHING and not departed(a, tick):
        return (with_army(world, _no_march(a, state=ArmyState.STANDING)),
                Cancelled("march", a.id, a.tile, kind=a.kind))
    battle = pending_battle_of(world, a.id)
    if battle is not None and battle.attacker_army == a.id:
        return _call_off(world, sender, a, battle, tick)
    gone = departed(a, tick)
    raise _refuse(f"{force(a)} has nothing to cancel (it is {state_word(a.kind, a.state)}"
                  + (f", and its {travel(a.kind, 'noun')} has departed" if gone else "")
                  + ")", "a muster, a march or voyage that has not departed yet, or an assault "
                  "not yet fought (halt a departed march with `stand`)",
                  f"stand {force(a)}" if gone or battle is not None else "status")


def _call_off(world: World, sender: Sender, a: Army, battle: BattleState, tick: int
              ) -> tuple[World, Receipt]:
    """`cancel army N` for the army that ordered a pending battle: an assault is called off
    before it is fought; an attack or a sally cannot be (:mod:`rules.campaign.calloff`)."""
    why = call_off_refusal(battle.kind, tick, battle.resolve_tick)
    if why is not None:
        enemy = force_name(a.kind, battle.defender_army)
        raise _refuse(why, "an assault that has not been fought yet",
                      f"odds {force(a)} vs {enemy}" if battle.kind is BattleKind.FIELD
                      else "status")
    return (with_battle(world, replace(battle, status=BattleStatus.CALLED_OFF)),
            CalledOff(a.id, battle.id, battle.holdfast or battle.tile, battle.defender_claim,
                      a.state, kind=a.kind))


def _stand(world: World, sender: Sender, order: o.Stand, at: datetime
           ) -> tuple[World, Receipt]:
    a = own_army(world, sender, order.army)
    battle = pending_battle_of(world, a.id)
    if battle is not None:
        return _react(world, a, battle, Reaction.STAND)
    if a.state is ArmyState.MARCHING:
        return (with_army(world, _no_march(a, state=ArmyState.STANDING,
                                          stationary_since=tick_of(at, sender))),
                Halted(a.id, a.tile, kind=a.kind))
    raise _refuse(f"{force(a)} is not {travel(a.kind, 'ing')} and not facing a battle",
                  f"a {force_noun(a.kind)} on its way to halt, or one that was attacked",
                  "status")


def _disband(world: World, sender: Sender, order: o.Disband, at: datetime
             ) -> tuple[World, Receipt]:
    a = own_army(world, sender, order.army)
    claim = require_claim(world, sender)
    if a.tile != claim.holdfast or a.state not in (ArmyState.STANDING, ArmyState.GARRISON):
        home = _label(sender, claim.holdfast)
        raise _refuse(f"{force(a)} must stand at {name_md(home)} to disband",
                      "a standing army at your holdfast",
                      route_example(world, sender, a, (claim.holdfast,)))
    claim = replace(claim, infantry=claim.infantry + a.infantry,
                    cavalry=claim.cavalry + a.cavalry, ships=claim.ships + a.ships)
    return (with_army(with_claim(world, claim), replace(a, state=ArmyState.GONE)),
            Disbanded(a.id, a.infantry, a.cavalry, a.ships, kind=a.kind))


# --- reactions: retreat, stand, spare ---------------------------------------------------

def _react(world: World, a: Army, battle: BattleState, reaction: Reaction,
           route: tuple[str, ...] = ()) -> tuple[World, Receipt]:
    if battle.reactor_claim != a.claim_id:
        raise _refuse(f"{force(a)} did not get the first reaction in this battle, so it "
                      "cannot choose", "only the side that detected the other first may "
                      "retreat or stand", "status")
    return (with_battle(world, replace(battle, reaction=reaction)),
            Reacted(a.id, battle.id, reaction, battle.resolve_tick, route,
                    ordered=(a.id,) if route else (), kind=a.kind))


def harbours(world: World, sender: Sender, army: Army) -> frozenset[str]:
    """Port holdfasts fleet ``army`` may sail into: its own claim's and its allies'."""
    if army.kind is not ArmyKind.FLEET:
        return frozenset()
    return frozenset(
        other.holdfast for other in world.claims.values()
        if other.holdfast in sender.map and sender.map.tile(other.holdfast).port
        and relation(world, army.claim_id, other.id) is RelationStatus.ALLIED)


def retreat_route(world: World, sender: Sender, a: Army, order: o.Retreat) -> tuple[str, ...]:
    """The tiles a retreat would enter: the path given, the cheapest way to the tile given,
    or back along the path travelled (docs/rules.md "Retreat"); () when there is none."""
    if order.path:
        try:
            return check_path(sender.map, a.tile, order.path, a.kind, sender.rules,
                              harbours(world, sender, a)).ids
        except IllegalPath as exc:
            raise _path_refused(exc, a, sender, f"retreat {force(a)}") from None
    if order.to is not None:
        goal = sender.map.tile(order.to)
        best = cheapest_route(sender.map, a.tile, goal.id, a.kind, sender.rules,
                              harbours(world, sender, a))
        if best is None or not best.tiles:
            raise _refuse(f"{force(a)} cannot fall back to {name_md(goal.label)} from "
                          f"{_shown(sender, a.tile)}", "another tile its kind can reach",
                          f"retreat {force(a)}")
        return tuple(t.id for t in best.tiles)
    return tuple(reversed(a.travelled))


def _retreat(world: World, sender: Sender, order: o.Retreat, at: datetime
             ) -> tuple[World, Receipt]:
    a = own_army(world, sender, order.army)
    battle = pending_battle_of(world, a.id)
    if battle is None:
        raise _refuse(f"{force(a)} faces no battle to retreat from",
                      f"a {force_noun(a.kind)} that has been attacked and got the first "
                      "reaction", "status")
    if battle.reactor_claim != a.claim_id:
        return _react(world, a, battle, Reaction.RETREAT)  # refused there, with the reason
    route = retreat_route(world, sender, a, order)
    if not route:
        return world, RetreatReferred(a.id, battle.id, a.tile, a.infantry, a.cavalry, a.ships,
                                      kind=a.kind)
    world = with_army(world, a.with_meta(retreat_route=list(route)))
    return _react(world, a, battle, Reaction.RETREAT, route)


def _spare(world: World, sender: Sender, order: o.Spare, at: datetime
           ) -> tuple[World, Receipt]:
    """After the enemy army's failed retreat, its opponent lets it stay: no battle."""
    claim = require_claim(world, sender)
    battle = pending_battle_of(world, order.army)
    if battle is None or battle.reaction not in (Reaction.FAILED, Reaction.STAND) \
            or battle.reactor_claim != claim.id or tick_of(at, sender) >= battle.resolve_tick \
            or claim.id not in (battle.attacker_claim, battle.defender_claim) \
            or (battle.attacker_army == order.army and battle.attacker_claim == claim.id) \
            or (battle.defender_army == order.army and battle.defender_claim == claim.id):
        raise _refuse(f"number {order.army} is not an enemy army or fleet whose retreat "
                      "from yours failed", "the army or fleet named in a failed-retreat note, "
                      "before the battle", "status")
    other = battle.defender_claim if battle.attacker_claim == claim.id else \
        battle.attacker_claim
    runner = world.armies.get(order.army)
    return (with_battle(world, replace(battle, status=BattleStatus.SPARED)),
            Spared(order.army, battle.id, battle.tile, claim.id, other,
                   kind=runner.kind if runner is not None else None))


# --- battles ----------------------------------------------------------------------------

def _open_battle(world: World, sender: Sender, how: BattleOrder, mine: Army, target: Army,
                 at: datetime,
                 ordered: tuple[int, ...] = ()) -> tuple[World, Receipt]:
    """A battle ordered by ``mine`` against ``target`` on their (shared) tile, fought at the end
    of the reaction window; the defender gets the first reaction (starting a battle is always
    detected by the defender). The two claims are at war."""
    world, before = declare_war(world, mine.claim_id, target.claim_id)
    battle = BattleState(id=None, tile=target.tile, kind=BattleKind.FIELD,
                    attacker_army=mine.id, defender_army=target.id,
                    attacker_claim=mine.claim_id, defender_claim=target.claim_id,
                    created_tick=tick_of(at, sender),
                    resolve_tick=reaction_deadline(at, sender.rules),
                    reactor_claim=target.claim_id)
    wars = () if before is None else ((mine.claim_id, target.claim_id, before),)
    return with_battle(world, battle), BattleOrdered(
        how, battle.id, mine.id, target.id, target.tile, battle.resolve_tick, mine.claim_id,
        target.claim_id, mine.infantry, mine.cavalry, mine.ships,
        ordered=(*ordered, mine.id), wars=wars, kind=mine.kind)


def _not_in_battle(world: World, *armies: Army) -> None:
    for a in armies:
        if pending_battle_of(world, a.id) is not None:
            raise _refuse(f"{force(a)} is already in a battle", "a battle to be fought first",
                          "status")


def _attack(world: World, sender: Sender, order: o.Attack, at: datetime
            ) -> tuple[World, Receipt]:
    mine = own_army(world, sender, order.army)
    target = world.armies.get(order.target)
    if target is None or target.state not in FIGHTING_STATES or target.tile != mine.tile:
        raise _refuse(f"there is no enemy {force_name(mine.kind, order.target)} on "
                      f"{_shown(sender, mine.tile)} where your {force_noun(mine.kind)} stands",
                      f"an enemy {force_noun(mine.kind)} on the same tile as yours "
                      "(send `status` to see where yours stand)", "status")
    if target.claim_id == mine.claim_id:
        raise _refuse(f"{force(target)} is your own", f"an enemy {force_noun(target.kind)}",
                      "status")
    if mine.state not in (ArmyState.STANDING, ArmyState.BESIEGING):
        raise _refuse(f"{force(mine)} is {state_word(mine.kind, mine.state)}",
                      f"a standing {force_noun(mine.kind)}", "status")
    if mine.kind != target.kind:
        raise _refuse("fleets fight fleets and armies fight armies",
                      "an enemy of the same kind", "status")
    _not_in_battle(world, mine, target)
    return _open_battle(world, sender, BattleOrder.ATTACK, mine, target, at)


def _intercept(world: World, sender: Sender, order: o.Intercept, at: datetime
               ) -> tuple[World, Receipt]:
    """Within the reaction window of a sighting, a standing army on the watching tile stops the
    passing force: it halts where it is, the interceptor joins it there, and the battle is
    fought at the end of the window (the intercepted side has the first reaction)."""
    mine = own_army(world, sender, order.army)
    claim = require_claim(world, sender)
    tick = tick_of(at, sender)
    target = world.armies.get(order.target)
    sightings = target.meta.get("sighted") if target is not None else None
    sighted = sightings.get(str(claim.id)) if isinstance(sightings, Mapping) else None
    if target is None or sighted is None or target.claim_id == claim.id \
            or target.state is not ArmyState.MARCHING:
        raise _refuse(f"your watchers have not sighted a passing "
                      f"{force_name(mine.kind, order.target)}",
                      "an enemy army or fleet named in a sighting note, while it is still on "
                      "its way", "status")
    watch_tile, sighted_tick = str(sighted[0]), int(sighted[1])
    closes = intercept_closes(sighted_tick, sender.rules)
    if tick >= closes:
        raise _refuse(f"the chance to intercept {force(target)} has passed (it closed at "
                      f"{moment_text(tick_time(closes, sender.rules), sender.rules)})",
                      "an intercept sent before the next tick after the sighting", "status")
    if mine.tile != watch_tile or mine.state is not ArmyState.STANDING \
            or mine.kind != target.kind:
        raise _refuse(f"{force(mine)} is not standing at {_shown(sender, watch_tile)}, where "
                      f"{force(target)} was sighted", f"your standing {force_noun(target.kind)} "
                      "on the watching tile", "status")
    if target.tile not in sender.map.tiles_within(watch_tile, sender.rules.detection_radius):
        raise _refuse(f"{force(target)} is out of reach of {_shown(sender, watch_tile)}",
                      "a force still within sight of the watching tile", "status")
    _not_in_battle(world, mine, target)
    target = replace(target, state=ArmyState.STANDING,
                     march=replace(target.march, path=(), costs=(), saved=Fraction(0)),
                     arrival_tick=tick, stationary_since=tick)  # stopped, off the march
    mine = replace(mine, travelled=(*mine.travelled, mine.tile), tile=target.tile,
                   stationary_since=tick)
    world = with_army(with_army(world, target), mine)
    return _open_battle(world, sender, BattleOrder.INTERCEPT, mine, target, at)


def _assault(world: World, sender: Sender, order: o.Assault, at: datetime
             ) -> tuple[World, Receipt]:
    a = own_army(world, sender, order.army)
    hold = sender.map.tile(order.holdfast)
    owner = holdfast_owner(world, hold.id)
    if owner is None or owner.id == a.claim_id:
        raise _refuse(f"{name_md(hold.label)} is not an enemy "
                      "holdfast", "a holdfast of another claim",
                      f"assault {hold.label} with {force(a)}")
    if a.tile != hold.id or a.state not in (ArmyState.STANDING, ArmyState.BESIEGING):
        raise _refuse(f"{force(a)} must stand on {name_md(hold.label)} to assault it",
                      "a standing or besieging army on the holdfast",
                      route_example(world, sender, a, (hold.id,)))
    defenders = [d for d in sorted(world.armies.values(), key=lambda d: d.id)
                 if d.state in FIGHTING_STATES and d.tile == hold.id
                 and d.claim_id != a.claim_id]
    if defenders:
        raise _refuse(f"enemy {force(defenders[0])} holds the tile; defeat it first",
                      "no enemy army on the holdfast's tile", f"attack {force(defenders[0])} "
                      f"with {force(a)}")
    if pending_battle_of(world, a.id) is not None:
        raise _refuse(f"{force(a)} is already in a battle", "one battle at a time", "status")
    world, before = declare_war(world, a.claim_id, owner.id)
    battle = BattleState(id=None, tile=hold.id, kind=BattleKind.ASSAULT,
                    attacker_army=a.id, defender_army=0, attacker_claim=a.claim_id,
                    defender_claim=owner.id, created_tick=tick_of(at, sender),
                    resolve_tick=reaction_deadline(at, sender.rules), reactor_claim=None,
                    holdfast=hold.id)
    wars = () if before is None else ((a.claim_id, owner.id, before),)
    return with_battle(world, battle), BattleOrdered(
        BattleOrder.ASSAULT, battle.id, a.id, 0, hold.id, battle.resolve_tick, a.claim_id, owner.id,
        a.infantry, a.cavalry, a.ships, ordered=(a.id,), wars=wars, kind=a.kind)


def _sally(world: World, sender: Sender, order: o.Sally, at: datetime
           ) -> tuple[World, Receipt]:
    claim = require_claim(world, sender)
    hold = sender.map.tile(order.holdfast)
    if hold.id != claim.holdfast:
        raise _refuse(f"{name_md(hold.label)} is not your holdfast", "your own besieged holdfast",
                      f"sally from {_label(sender, claim.holdfast)}"
                      if active_siege(world, claim.holdfast) else "status")
    siege = active_siege(world, hold.id)
    if siege is None:
        raise _refuse(f"{name_md(hold.label)} is not under siege", "a besieged holdfast", "status")
    sally_army = 0
    ordered: tuple[int, ...] = ()
    tick = tick_of(at, sender)
    if order.army is not None:
        a = own_army(world, sender, order.army)
        if a.tile == hold.id and a.state is ArmyState.MUSTERING:
            ready = tick_time(a.ready_tick if a.ready_tick is not None else tick, sender.rules)
            raise _refuse(f"{force(a)} is still mustering (ready "
                          f"{moment_text(ready, sender.rules)}): "
                          "only ready troops sally", "an army inside the walls that has "
                          "finished mustering, or no army (the whole ready garrison sallies)",
                          f"sally from {hold.label}")
        if a.tile != hold.id or a.state is not ArmyState.GARRISON:
            raise _refuse(f"{force(a)} is not inside {name_md(hold.label)}",
                          "an army inside the walls, or no army (the whole garrison sallies)",
                          f"sally from {hold.label}")
        sally_army = a.id
        ordered = (a.id,)
    elif claim.infantry + claim.cavalry + sum(
            x.infantry + x.cavalry for x in world.armies.values()
            if x.claim_id == claim.id and x.state is ArmyState.GARRISON
            and x.tile == hold.id) == 0:
        raise _refuse("your garrison has no ready troops to sally with",
                      "troops at home or a ready army inside the walls", "status")
    battle = BattleState(id=None, tile=hold.id, kind=BattleKind.SALLY,
                    attacker_army=sally_army, defender_army=siege.army_id,
                    attacker_claim=claim.id, defender_claim=siege.besieger_claim,
                    created_tick=tick, resolve_tick=reaction_deadline(at, sender.rules),
                    reactor_claim=None, holdfast=hold.id)
    return with_battle(world, battle), BattleOrdered(
        BattleOrder.SALLY, battle.id, sally_army, siege.army_id, hold.id, battle.resolve_tick,
        claim.id, siege.besieger_claim, ordered=ordered)


# --- sieges -----------------------------------------------------------------------------

def leave_siege(world: World, a: Army) -> tuple[World, Army, SiegeState | None]:
    """Army ``a`` stops besieging (it stands on the tile again); the siege it held, if any,
    is lifted. Returns the world, the army and the lifted siege."""
    if a.state is not ArmyState.BESIEGING:
        return world, a, None
    siege = active_siege(world, a.tile)
    a = replace(a, state=ArmyState.STANDING)
    world = with_army(world, a)
    if siege is None or siege.army_id != a.id:
        return world, a, None
    siege = replace(siege, status=SiegeStatus.LIFTED)
    return with_siege(world, siege), a, siege


def _lift(world: World, sender: Sender, order: o.Lift, at: datetime
          ) -> tuple[World, Receipt]:
    claim = require_claim(world, sender)
    hold = sender.map.tile(order.holdfast)
    siege = active_siege(world, hold.id)
    if siege is None or siege.besieger_claim != claim.id:
        raise _refuse(f"you are not besieging "
                      f"{name_md(hold.label)}", "a holdfast your army besieges",
                      "status")
    a = own_army(world, sender, siege.army_id)
    if (battle := pending_battle_of(world, a.id)) is not None:
        raise caught(a, battle, sender.rules)
    world, a, lifted = leave_siege(world, a)
    return world, SiegeLifted(a.id, hold.id, lifted.id if lifted else None, claim.name,
                              kind=a.kind)


@dataclass(frozen=True, slots=True)
class SiegeBegun(Receipt):
    """A siege laid (``siege`` :data:`NEW_SIEGE` until stored): it lasts ``length`` months,
    with each side's modifiers (``besieger_mods``, ``defender_mods``) for the notes each side
    may read."""

    siege: int
    army: int
    holdfast: str
    besieger_claim: int
    defender_claim: int
    length: SiegeLength
    besieger_mods: tuple[Modifier, ...]
    defender_mods: tuple[Modifier, ...]
    infantry: int
    cavalry: int
    ships: int
    kind: ArmyKind = field(default=ArmyKind.LAND, kw_only=True)


@dataclass(frozen=True, slots=True)
class SiegeReferred(Receipt):
    """A siege of a holdfast with its own rules: referred to the moderators, nothing changed."""

    army: int
    holdfast: str
    defender_claim: int
    infantry: int
    cavalry: int
    ships: int
    kind: ArmyKind = field(default=ArmyKind.LAND, kw_only=True)


def blockaded(world: World, claim_id: int, tile: str, worldmap: WorldMap) -> bool:
    """Whether a standing fleet of ``claim_id`` lies on water next to ``tile``."""
    water = set(worldmap.water_adjacent(tile))
    return any(a.kind is ArmyKind.FLEET and a.tile in water and a.claim_id == claim_id
               and a.state is ArmyState.STANDING for a in world.armies.values())


def _siege(world: World, sender: Sender, order: o.Siege, at: datetime
           ) -> tuple[World, Receipt]:
    a = own_army(world, sender, order.army)
    hold = sender.map.tile(order.holdfast)
    if a.tile != hold.id or a.state is not ArmyState.STANDING:
        raise _refuse(f"{force(a)} must stand on {name_md(hold.label)} to besiege it (it is "
                      f"{state_word(a.kind, a.state)} at {_shown(sender, a.tile)})",
                      "a standing army on the holdfast",
                      route_example(world, sender, a, (hold.id,)))
    owner = holdfast_owner(world, hold.id)
    if owner is None or owner.id == a.claim_id:
        raise _refuse(f"{name_md(hold.label)} is not an enemy "
                      "holdfast", "a holdfast of another claim",
                      f"siege {hold.label} with {force(a)}")
    if active_siege(world, hold.id) is not None:
        raise _refuse(f"{name_md(hold.label)} is already under "
                      "siege", "a holdfast not yet besieged",
                      "status")
    defenders = [d for d in world.armies.values() if d.state in FIGHTING_STATES
                 and d.tile == hold.id and d.claim_id != a.claim_id]
    try:
        check_siege_start(holdfast=hold.holdfast, port=hold.port, special=hold.special,
                          hostile_troops_on_tile=bool(defenders),
                          blockaded=blockaded(world, a.claim_id, hold.id, sender.map))
    except SpecialHoldfast:
        return world, SiegeReferred(a.id, hold.id, owner.id, a.infantry, a.cavalry, a.ships,
                                    kind=a.kind)
    attack = sender.modifiers.besieger(a)
    defense = sender.modifiers.holdfast(owner.id)
    length = siege_months(owner.infantry + owner.cavalry, sender.rules,
                          besieger_modifiers=attack, defender_modifiers=defense)
    world, before = declare_war(world, a.claim_id, owner.id)
    siege = SiegeState(id=NEW_SIEGE, army_id=a.id, besieger_claim=a.claim_id,
                       defender_claim=owner.id, holdfast=hold.id,
                       # months count from the tick at or after the order
                       started_tick=tick_index(next_tick_at_or_after(at, sender.rules),
                                               sender.rules),
                       months_required=length.months)
    a = replace(a, state=ArmyState.BESIEGING)
    world = replace(with_army(world, a), sieges=(*world.sieges, siege))
    wars = () if before is None else ((a.claim_id, owner.id, before),)
    return world, SiegeBegun(NEW_SIEGE, a.id, hold.id, a.claim_id, owner.id, length, attack,
                             defense, a.infantry, a.cavalry, a.ships, wars=wars, kind=a.kind)


# --- resource tiles ---------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Ceded(Receipt):
    tile: str
    to_claim: int
    to_name: str


def claim_named(claims: Iterable[C], name: str) -> C | None:
    """A claim by its name, case-insensitively ("stark" finds "House Stark")."""
    wanted = " ".join(name.lower().split())
    found = list(claims)
    for claim in found:
        if claim.name.lower() == wanted:
            return claim
    for claim in found:
        if claim.name.lower().removeprefix("house ") == wanted.removeprefix("house "):
            return claim
    return None


def _cede(world: World, sender: Sender, order: o.Cede, at: datetime
          ) -> tuple[World, Receipt]:
    claim = require_claim(world, sender)
    tile = sender.map.tile(order.tile)
    if not tile.resource:
        raise _refuse(f"{name_md(tile.label)} is not a resource tile", "a resource tile you hold",
                      "status")
    other = claim_named(world.claims.values(), order.claim)
    if other is None or other.id == claim.id:
        raise OrderRefused("there is no other claim called {}", Said(order.claim, 60),
                           expected="another claim's name", example="status")
    record = world.holders.get(tile.id)
    # As the tick counts it (rules.campaign.tick.advance_holders).
    holder = tile_holder((a for a in world.armies.values() if a.tile == tile.id), sender.rules,
                         recorded=record.claim_id if record is not None else None,
                         ceded_to=record.ceded_to if record is not None else None,
                         hostile=world.at_war)
    if holder != claim.id:
        raise _refuse(f"you do not hold {name_md(tile.label)}'s benefit now",
                      "a resource tile where your standing army is the strongest", "status")
    if not any(a.claim_id == other.id and a.tile == tile.id and a.state is ArmyState.STANDING
               for a in world.armies.values()):
        raise _refuse(f"{name_md(other.name)} has no standing army on {name_md(tile.label)}",
                      "a claim whose army stands on the tile with yours", "status")
    record = replace(record, ceded_to=other.id) if record is not None else \
        HolderState(tile.id, claim.id, other.id)
    return (replace(world, holders={**world.holders, tile.id: record}),
            Ceded(tile.id, other.id, other.name))


# --- the catalogue: build, buy; blockade ---------------------------------------------------

def lookup(catalogue: Catalogue, section: Section, name: str, example: str) -> Entry:
    """The catalogue's entry called ``name``, or a refusal listing the valid names (``example``
    has a ``{}`` for the name to suggest)."""
    try:
        return catalogue.lookup(section, name)
    except UnknownEntry as exc:
        hint = f" (did you mean {name_md(exc.suggestion)}?)" if exc.suggestion else ""
        valid = ", ".join(name_md(v) for v in exc.valid)
        raise OrderRefused(
            f"there is no {section.singular} called {{}}{_brace(hint)}", Said(name, 100),
            expected=f"one of: {valid}" if valid else
            f"nothing: this campaign has no {section.value}",
            example=example.replace("{}", exc.suggestion or (exc.valid[0] if exc.valid
                                                             else name))) from None


def gold_text(value: Decimal) -> str:
    """Gold as players write it: ``2658``, ``12.5``."""
    if value == value.to_integral_value():
        return str(value.quantize(Decimal(1)))
    return format(value.normalize(), "f")


def cost_text(entry: Entry) -> str:
    """``150 gold`` (or ``free``)."""
    return "free" if entry.cost == 0 else f"{_plain(entry.cost)} gold"


def _plain(value: Decimal) -> str:
    return format(value.normalize(), "f") if value == value.to_integral_value() \
        else format(value, "f")


def improvement_records(claim: ClaimState) -> list[dict[str, Any]]:
    """The claim's built and in-progress improvements (bookkeeping entries left out)."""
    return improvements.improvement_records(claim.improvements)


@dataclass(frozen=True, slots=True)
class Building(Receipt):
    """An improvement begun at the claim's holdfast: finished when ``ready_month`` begins
    (``ready``)."""

    entry: Entry
    holdfast: str
    gold_left: Decimal
    ready_month: int
    ready: datetime


def _build(world: World, sender: Sender, order: o.Build, at: datetime
           ) -> tuple[World, Receipt]:
    claim = require_claim(world, sender)
    home = _label(sender, claim.holdfast)
    entry = lookup(sender.catalogue, Section.IMPROVEMENTS, order.improvement,
                   "build {} at " + home)
    place = sender.map.tile(order.holdfast)
    if place.id != claim.holdfast:
        raise OrderRefused(f"you can only build in your own holdfast, {_brace(name_md(home))}, "
                           "not {}",
                           Said(place.label, 100), expected="your holdfast",
                           example=f"build {entry.name} at {home}")
    records = improvement_records(claim)
    for record in records:
        if str(record.get("name", "")).casefold() == entry.name.casefold():
            if record.get("done"):
                raise _refuse(f"{name_md(home)} already has {name_md(entry.name)}",
                              "an improvement not built yet", "status")
            ready = calendar.date_of_month_number(int(record["ready_month"]), sender.rules)
            raise _refuse(f"{name_md(entry.name)} is already being built at {name_md(home)} "
                          "(finished at the "
                          f"start of {calendar.format_game_date(ready)})",
                          "an improvement not built yet", "status")
    if claim.gold < entry.cost:
        raise _refuse(f"{name_md(entry.name)} costs {cost_text(entry)} and {name_md(claim.name)} "
                      "has "
                      f"{gold_text(claim.gold)}", "enough gold in the treasury", "status")
    ready_month = calendar.month_number(at, sender.rules) + entry.months
    record = {"name": entry.name, "holdfast": claim.holdfast, "cost": str(entry.cost),
              "ordered_tick": tick_of(at, sender), "ready_month": ready_month, "done": False}
    kept = tuple(item for item in claim.improvements
                 if not (isinstance(item, Mapping) and "name" in item))
    claim = replace(claim, gold=claim.gold - entry.cost,
                    improvements=(*(dict(r) for r in records), record, *kept))
    ready_at = calendar.month_start(calendar.date_of_month_number(ready_month, sender.rules),
                                    sender.rules)
    return with_claim(world, claim), Building(entry, claim.holdfast, claim.gold, ready_month,
                                              ready_at)


@dataclass(frozen=True, slots=True)
class Bought(Receipt):
    """Siege equipment bought for an army (stored with its cost and the tick it was bought)."""

    army: int
    entry: Entry
    gold_left: Decimal
    tick: int


def _buy(world: World, sender: Sender, order: o.Buy, at: datetime
         ) -> tuple[World, Receipt]:
    a = own_army(world, sender, order.army)
    claim = require_claim(world, sender)
    if a.kind is ArmyKind.FLEET:
        raise _refuse(f"fleet {a.id} carries no siege equipment", "a land army", "status")
    entry = lookup(sender.catalogue, Section.EQUIPMENT, order.equipment,
                   "buy {} for " + force(a))
    if order.quantity > 1:
        raise _refuse(f"an army can use only one {name_md(entry.name)}: equipment of the same name "
                      "does not stack", "one of each kind of equipment",
                      f"buy {entry.name} for {force(a)}")
    if any(n.casefold() == entry.name.casefold() for n in a.equipment):
        raise _refuse(f"{force(a)} already carries {name_md(entry.name)}",
                      "equipment the army does not carry yet", "status")
    if claim.gold < entry.cost:
        raise _refuse(f"{name_md(entry.name)} costs {cost_text(entry)} and {name_md(claim.name)} "
                      "has "
                      f"{gold_text(claim.gold)}", "enough gold in the treasury", "status")
    claim = replace(claim, gold=claim.gold - entry.cost)
    a = replace(a, equipment=(*a.equipment, entry.name))
    return (with_army(with_claim(world, claim), a),
            Bought(a.id, entry, claim.gold, tick_of(at, sender)))


@dataclass(frozen=True, slots=True)
class Blockading(Receipt):
    """A fleet closing a port: ``owner`` the claim holding it (None: nobody), ``siege`` the
    siege of the port at the moment (None: none)."""

    fleet: int
    ships: int
    port: str
    claim_id: int
    claim_name: str
    owner: int | None
    owner_name: str | None
    siege: SiegeState | None
    tick: int


def _blockade(world: World, sender: Sender, order: o.Blockade, at: datetime
              ) -> tuple[World, Receipt]:
    fleet = own_army(world, sender, order.fleet, "fleet")
    claim = require_claim(world, sender)
    if fleet.kind is not ArmyKind.FLEET:
        can_raise = sender.map.tile(claim.holdfast).port and claim.ships > 0
        raise _refuse(f"army {fleet.id} is not a fleet", "one of your fleets"
                      + (" (muster ships at your port first)" if can_raise else ""),
                      f"muster {min(4, claim.ships)} ships" if can_raise else "status")
    port = sender.map.tile(order.port)
    if not (port.holdfast and port.port):
        ports = ", ".join(name_md(t.label) for t in sender.map.ports() if t.holdfast)
        raise _refuse(f"{name_md(port.label)} is not a port holdfast", f"one of: {ports}",
                      f"blockade {port.label} with fleet {fleet.id}")
    owner = holdfast_owner(world, port.id)
    if owner is not None and owner.id == claim.id:
        raise _refuse(f"{name_md(port.label)} is your own "
                      "port", "the port holdfast of another claim",
                      "status")
    water = sender.map.water_adjacent(port.id)
    if fleet.tile not in water or fleet.state is not ArmyState.STANDING:
        raise _refuse(f"fleet {fleet.id} must stand on a water tile next to {name_md(port.label)} "
                      f"({', '.join(water)}); it is {state_word(fleet.kind, fleet.state)} at "
                      f"{_shown(sender, fleet.tile)}", "a standing fleet next to the port",
                      f"route {force(fleet)} to {water[0] if water else port.label}")
    wars: tuple[tuple[int, int, RelationStatus], ...] = ()
    if owner is not None:
        world, before = declare_war(world, claim.id, owner.id)
        wars = () if before is None else ((claim.id, owner.id, before),)
    return world, Blockading(fleet.id, fleet.ships, port.id, claim.id, claim.name,
                             owner.id if owner is not None else None,
                             owner.name if owner is not None else None,
                             active_siege(world, port.id), tick_of(at, sender), wars=wars)


# --- assign ---------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Assigned(Receipt):
    """``name`` takes command of ``army``; ``left``: the army it left (now with no commander),
    ``relieved``: the commander it replaced; ``skills``: its skills in the catalogue."""

    army: int
    character: int
    name: str
    left: int | None
    relieved: str | None
    skills: tuple[Entry, ...]
    kind: ArmyKind = field(default=ArmyKind.LAND, kw_only=True)
    left_kind: ArmyKind = field(default=ArmyKind.LAND, kw_only=True)


def find_character(characters: Iterable[CharacterState], name: str) -> CharacterState | None:
    """The character called ``name`` (any case and spacing), or the only one whose name holds
    all its words."""
    wanted = " ".join(name.split()).casefold()
    found = list(characters)
    for ch in found:
        if ch.name.casefold() == wanted:
            return ch
    words = set(wanted.split())
    close = [ch for ch in found if words <= set(ch.name.casefold().split())]
    return close[0] if len(close) == 1 else None


def _assign(world: World, sender: Sender, order: o.Assign, at: datetime
            ) -> tuple[World, Receipt]:
    a = own_army(world, sender, order.army)
    claim = require_claim(world, sender)
    mine = [ch for ch in world.characters.values() if ch.claim_id == claim.id]
    free = [ch for ch in mine if ch.status in FREE_CHARACTERS]
    chosen = find_character(free, order.commander)
    unfree = find_character([ch for ch in mine if ch.status not in FREE_CHARACTERS],
                            order.commander) if chosen is None else None
    example = f"assign {free[0].name if free else 'NAME'} to {force(a)}"
    if unfree is not None:
        names = ", ".join(name_md(ch.name) for ch in free)
        why = ("is dead" if unfree.status is CharacterStatus.DEAD else
               "is a captive and cannot command until the moderators free them")
        raise _refuse(f"{name_md(unfree.name)} {why}",
                      f"a free character of your claim ({names})" if names else
                      "a free character of your claim (you have none now; the moderators "
                      "add characters)", example)
    if chosen is None:
        names = ", ".join(name_md(ch.name) for ch in free)
        raise OrderRefused(f"{_brace(name_md(claim.name))} has no living character called "
                           "{}",
                           Said(order.commander, 100),
                           expected=f"one of: {names}" if names else "a character (your claim "
                           "has none; the moderators add characters)", example=example)
    if chosen.army_id == a.id:
        raise _refuse(f"{name_md(chosen.name)} already commands "
                      f"{force(a)}", "another army or fleet",
                      "status")
    left: int | None = None
    left_kind = ArmyKind.LAND
    relieved: str | None = None
    if chosen.army_id is not None:
        before = world.armies.get(chosen.army_id)
        if before is not None and before.commander_id == chosen.id:
            world = with_army(world, replace(before, commander_id=None))
            left, left_kind = before.id, before.kind
    characters = dict(world.characters)
    if a.commander_id is not None and a.commander_id != chosen.id:
        old = characters.get(a.commander_id)
        if old is not None and old.army_id == a.id:
            characters[old.id] = replace(old, army_id=None)
            relieved = old.name
    for other in list(characters.values()):
        if other.army_id == a.id and other.id != chosen.id:
            characters[other.id] = replace(other, army_id=None)
    characters[chosen.id] = replace(chosen, army_id=a.id)
    world = replace(with_army(world, replace(a, commander_id=chosen.id)),
                    characters=characters)
    skills = tuple(entry for entry in (sender.catalogue.find(Section.SKILLS, str(skill))
                                       for skill in chosen.skills) if entry is not None)
    return world, Assigned(a.id, chosen.id, chosen.name, left, relieved, skills, kind=a.kind,
                           left_kind=left_kind)


# --- information ------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class StatusReport(Receipt):
    """A claim's state at ``at``: its treasury and troops at home, its holdfast's defenses
    (its own secret), the troops still scattered, its raised armies and their upkeep."""

    claim: ClaimState
    at: datetime
    defense_bonus: Decimal
    scattered: bool
    armies: tuple[Army, ...]
    upkeep: Decimal


def _status(world: World, sender: Sender, order: o.Status, at: datetime
            ) -> tuple[World, Receipt]:
    claim = require_claim(world, sender)
    mine = tuple(a for a in world.armies.values()
                 if a.claim_id == claim.id and a.state is not ArmyState.GONE)
    upkeep = monthly_upkeep(sum(a.infantry for a in mine), sum(a.cavalry for a in mine),
                            world.season, sender.rules, ships=sum(a.ships for a in mine))
    scattered = claim.scattered_until is not None and claim.scattered_until > at
    return world, StatusReport(claim, at, sender.map.tile(claim.holdfast).defense_bonus,
                               scattered, mine, upkeep)


@dataclass(frozen=True, slots=True)
class OddsShown(Receipt):
    """What a battle of ``army`` attacking ``target`` would be if ordered now (fought at
    ``fought_tick``): both sides as the battle counts them, the band, the exact chances."""

    army: int
    target: int
    fought_tick: int
    fight: Matchup
    odds: Odds
    kind: ArmyKind = field(default=ArmyKind.LAND, kw_only=True)
    target_kind: ArmyKind = field(default=ArmyKind.LAND, kw_only=True)


def odds_pair(world: World, sender: Sender, order: o.Odds, *, moderator: bool = False
              ) -> tuple[Army, Army]:
    """The two armies an ``odds`` order asks about: the sender's own, and one on its tile (a
    moderator may ask about any two armies); odds never reveal an army the sender cannot
    see."""
    mine = own_army(world, sender, order.army_a)
    other = world.armies.get(order.army_b)
    if other is None or not (other.tile == mine.tile or moderator):
        raise _refuse(f"{force_name(mine.kind, order.army_b)} is not on "
                      f"{_shown(sender, mine.tile)} with your {force_noun(mine.kind)}",
                      f"an enemy {force_noun(mine.kind)} on the same tile as yours (odds never "
                      "reveal forces you cannot see)", "status")
    if other.claim_id == mine.claim_id and not moderator:
        raise _refuse(f"{force(other)} is your own",
                      f"an enemy {force_noun(mine.kind)} on your tile", "status")
    return mine, other


def odds_shown(world: World, sender: Sender, order: o.Odds, at: datetime, *,
               moderator: bool = False) -> OddsShown:
    """The answer to an ``odds`` order sent at ``at``: the battle of the sender's army
    attacking the other (:func:`odds_pair`) if the attack were ordered now, as the tick would
    fight it. Begun now, fought when the reaction window closes (the tick and the deadline an
    ``attack`` order gives its battle), each side built by
    :func:`rules.campaign.world.fighting_side` as the tick's battle builds it; the other
    claim's hidden modifiers are left out unless a moderator asks."""
    mine, other = odds_pair(world, sender, order, moderator=moderator)
    fought, began = reaction_deadline(at, sender.rules), tick_of(at, sender)
    fight, odds = battle_chances(world, sender, mine, other, fought=fought, began=began,
                                 asker=None if moderator else mine.claim_id)
    return OddsShown(mine.id, other.id, fought, fight, odds, kind=mine.kind,
                     target_kind=other.kind)


def battle_chances(world: World, sender: Sender, attacker: Army, defender: Army, *,
                   fought: int, began: int, asker: int | None) -> tuple[Matchup, Odds]:
    """The battle of ``attacker`` against ``defender`` begun at tick ``began`` and fought at
    ``fought``, each side built by :func:`rules.campaign.state.fighting_side` as the tick
    builds it: the matchup and the exact chances. The hidden modifiers of any claim but
    ``asker`` are left out (None: a moderator's view, everything counts)."""
    def side(army: Army, role: Winner) -> Side:
        return fighting_side(world, army, role, map=sender.map, tick=fought,
                             modifiers=sender.modifiers, began=began, secrets_of=asker)

    a, d = side(attacker, Winner.ATTACKER), side(defender, Winner.DEFENDER)
    return matchup(a, d, sender.rules), battle_odds(a, d, sender.rules)


# --- the table --------------------------------------------------------------------------

Decide = Callable[[World, Sender, Any, datetime], "tuple[World, Receipt]"]

PURE_ORDERS: Mapping[type, Decide] = MappingProxyType({
    o.Muster: _muster,
    o.Move: _move,
    o.Route: _route,
    o.Cancel: _cancel,
    o.Stand: _stand,
    o.Retreat: _retreat,
    o.Spare: _spare,
    o.Attack: _attack,
    o.Intercept: _intercept,
    o.Siege: _siege,
    o.Assault: _assault,
    o.Sally: _sally,
    o.Lift: _lift,
    o.Blockade: _blockade,
    o.Build: _build,
    o.Assign: _assign,
    o.Buy: _buy,
    o.Cede: _cede,
    o.Disband: _disband,
    o.Status: _status,
})
"""The orders decided here, each by its function."""


class Part(StrEnum):
    """A part of the world an order may read (the claims are always read)."""

    ARMIES = "armies"
    BATTLES = "battles"
    SIEGES = "sieges"
    RELATIONS = "relations"
    HOLDERS = "holders"
    CHARACTERS = "characters"  # every status (an order may name the dead or a captive)


_A, _B, _S, _R, _H = Part.ARMIES, Part.BATTLES, Part.SIEGES, Part.RELATIONS, Part.HOLDERS
_C = Part.CHARACTERS
READS: Mapping[type, frozenset[Part]] = MappingProxyType({
    o.Muster: frozenset(),
    o.Move: frozenset({_A, _B, _S, _R}),
    o.Route: frozenset({_A, _R}),
    o.Cancel: frozenset({_A, _B}),  # an assault may be called off
    o.Stand: frozenset({_A, _B}),
    o.Retreat: frozenset({_A, _B, _R}),
    o.Spare: frozenset({_A, _B}),
    o.Attack: frozenset({_A, _B, _R}),
    o.Intercept: frozenset({_A, _B, _R}),
    o.Siege: frozenset({_A, _S, _R}),
    o.Assault: frozenset({_A, _B, _R}),
    o.Sally: frozenset({_A, _S}),
    o.Lift: frozenset({_A, _B, _S}),
    o.Blockade: frozenset({_A, _S, _R}),
    o.Build: frozenset(),
    o.Assign: frozenset({_A, _C}),
    o.Buy: frozenset({_A}),
    o.Cede: frozenset({_A, _H, _R}),
    o.Disband: frozenset({_A}),
    o.Status: frozenset({_A}),
})
"""What each order of :data:`PURE_ORDERS` reads besides the claims: the services load only
that (a part not read is empty in the world the order sees, and the order changes nothing
there)."""


def apply_order(world: World, order: object, at: datetime, dice: Dice | None = None, *,
                sender: Sender) -> tuple[World, Receipt]:
    """Decide ``order`` sent by ``sender`` at ``at``: the world after it and the
    receipt, or :class:`OrderRefused` (or another :class:`RulesError`) with nothing changed.

    No order of this table rolls a die today; ``dice`` is taken so that one that does needs
    no other signature.
    """
    del dice
    decide = PURE_ORDERS.get(type(order))
    if decide is None:
        raise _refuse(f"`{type(order).__name__.lower()}` orders are not decided by the rules "
                      "module yet", "an order of rules.campaign.apply.PURE_ORDERS", "status")
    return decide(world, sender, order, at)
