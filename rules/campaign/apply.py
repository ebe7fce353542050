"""Players' orders decided as values: ``apply_order(world, order, at, dice) -> (world, receipt)``.

The order language (:mod:`rules.campaign.orders`) reads the text; this module decides what an
order does to the world: it checks the order (ownership, troops, the army's state, the battle it
is in, the holdfast it names) and either raises :class:`OrderRefused` (nothing changes) or
returns the world after the order and a receipt value saying what was accepted (the new army,
the tick a battle is fought, the war it declared, the siege it lifted). Nothing here reads a
clock, a database or a die that is not given; the services load the world, call
:func:`apply_order`, write the difference back, journal it, and render the receipt
(``bot.services.receipts``).

Which orders are decided here is :data:`PURE_ORDERS`; the others are still decided by their
service handlers (see ``bot.services.orders.HANDLERS``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime
from decimal import Decimal
from fractions import Fraction
from types import MappingProxyType
from typing import Any

from rules.campaign import orders as o
from rules.campaign.calendar import moment_text, next_tick_at_or_after, tick_index, tick_time
from rules.campaign.config import RulesConfig, Season
from rules.campaign.muster import check_muster, muster_ready_at
from rules.campaign.paths import IllegalPath, cheapest_route, check_path
from rules.campaign.upkeep import monthly_upkeep
from rules.campaign.world import (
    FIGHTING_STATES,
    Army,
    ArmyKind,
    ArmyState,
    BattleKind,
    BattleStatus,
    Reaction,
    RelationStatus,
    SiegeStatus,
)
from rules.campaign.worldmap import WorldMap
from rules.dice import Dice
from rules.errors import RulesError

__all__ = [
    "PURE_ORDERS",
    "Battle",
    "ClaimState",
    "OrderRefused",
    "OrderWorld",
    "Said",
    "SiegeState",
    "apply_order",
    "reaction_deadline",
]


# --- the world an order sees ------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class ClaimState:
    """A claim as orders see it: its seat, its treasury and the troops at home."""

    id: int
    name: str
    holdfast: str
    gold: Decimal = Decimal(0)
    infantry: int = 0
    cavalry: int = 0
    ships: int = 0
    scattered_until: datetime | None = None
    scattered_infantry: int = 0
    scattered_cavalry: int = 0


@dataclass(frozen=True, slots=True)
class Battle:
    """A pending (or decided) battle: who attacks whom where, and when it is fought."""

    id: int
    tile: str
    kind: BattleKind
    attacker_army: int
    defender_army: int  # 0: the holdfast's garrison
    attacker_claim: int
    defender_claim: int
    created_tick: int
    resolve_tick: int
    reactor_claim: int | None = None
    reaction: Reaction | None = None
    holdfast: str = ""
    status: BattleStatus = BattleStatus.PENDING


@dataclass(frozen=True, slots=True)
class SiegeState:
    """A siege of a holdfast by one army."""

    id: int
    army_id: int
    besieger_claim: int
    defender_claim: int
    holdfast: str
    started_tick: int
    months_elapsed: int = 0
    months_required: int = 12
    paused: bool = False
    status: SiegeStatus = SiegeStatus.ACTIVE


def _frozen(mapping: Mapping[Any, Any]) -> Mapping[Any, Any]:
    return MappingProxyType(dict(mapping))


@dataclass(frozen=True, slots=True)
class OrderWorld:
    """The part of the campaign an order may look at or change, as values.

    ``armies``, ``claims``, ``battles`` and ``sieges`` are keyed by id; things an order creates
    get negative ids (``-1``, ``-2``...) until the services store them. ``relations`` holds
    the pairs (lower claim id first) whose status is not neutral.
    """

    rules: RulesConfig
    map: WorldMap
    season: Season
    armies: Mapping[int, Army] = field(default_factory=dict)
    claims: Mapping[int, ClaimState] = field(default_factory=dict)
    battles: Mapping[int, Battle] = field(default_factory=dict)
    sieges: Mapping[int, SiegeState] = field(default_factory=dict)
    relations: Mapping[tuple[int, int], RelationStatus] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name in ("armies", "claims", "battles", "sieges", "relations"):
            object.__setattr__(self, name, _frozen(getattr(self, name)))

    def relation(self, a: int, b: int) -> RelationStatus:
        return self.relations.get((min(a, b), max(a, b)), RelationStatus.NEUTRAL)

    def pending_battle_of(self, army_id: int) -> Battle | None:
        """The pending battle army ``army_id`` is in, if any."""
        for battle in sorted(self.battles.values(), key=lambda b: b.id):
            if battle.status is BattleStatus.PENDING \
                    and army_id in (battle.attacker_army, battle.defender_army):
                return battle
        return None

    def active_siege(self, holdfast: str) -> SiegeState | None:
        for siege in sorted(self.sieges.values(), key=lambda s: s.id):
            if siege.holdfast == holdfast and siege.status is SiegeStatus.ACTIVE:
                return siege
        return None

    def holdfast_owner(self, tile: str) -> ClaimState | None:
        for claim in sorted(self.claims.values(), key=lambda c: c.id):
            if claim.holdfast == tile:
                return claim
        return None

    def label(self, tile: str) -> str:
        return self.map.tile(tile).label

    def tick(self, at: datetime) -> int:
        return tick_index(at, self.rules)

    def next_id(self, table: Mapping[int, object]) -> int:
        """The temporary id of the next thing an order creates in ``table``."""
        return min([0, *table]) - 1

    def with_army(self, army: Army) -> OrderWorld:
        return replace(self, armies={**self.armies, army.id: army})

    def with_claim(self, claim: ClaimState) -> OrderWorld:
        return replace(self, claims={**self.claims, claim.id: claim})

    def with_battle(self, battle: Battle) -> OrderWorld:
        return replace(self, battles={**self.battles, battle.id: battle})

    def with_siege(self, siege: SiegeState) -> OrderWorld:
        return replace(self, sieges={**self.sieges, siege.id: siege})

    def at_war(self, a: int, b: int) -> tuple[OrderWorld, RelationStatus | None]:
        """The world with claims ``a`` and ``b`` at war, and their status before (None when
        they already were at war)."""
        before = self.relation(a, b)
        if before is RelationStatus.WAR:
            return self, None
        pair = (min(a, b), max(a, b))
        return replace(self, relations={**self.relations, pair: RelationStatus.WAR}), before


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


def require_claim(world: OrderWorld, claim_id: int | None) -> ClaimState:
    """The sender's claim (the services refuse a sender without one before calling)."""
    if claim_id is None or claim_id not in world.claims:
        raise _refuse("the sender plays no claim in this campaign", "a registered player",
                      "status")
    return world.claims[claim_id]


def own_army(world: OrderWorld, claim_id: int | None, army_id: int, what: str = "army"
             ) -> Army:
    """Army ``army_id`` if it belongs to the sender's claim."""
    claim = require_claim(world, claim_id)
    found = world.armies.get(army_id)
    if found is None or found.state is ArmyState.GONE:
        raise _refuse(f"there is no {what} {army_id}", f"one of your {what} numbers "
                      "(send `status` to list them)", "status")
    if found.claim_id != claim.id:
        raise OrderRefused(f"{what} {army_id} is not yours", expected="one of your own armies "
                           "(send `status` to list them)", example="status",
                           tried_army=(army_id, found.claim_id, claim.id))
    return found


def reaction_deadline(at: datetime, rules: RulesConfig) -> int:
    """The tick at which a battle started at ``at`` is fought (the reaction window's end)."""
    start = next_tick_at_or_after(at, rules)
    first = tick_index(start, rules)
    if start == at:
        first += 1  # created on a tick: the window lasts until the next one
    return first + max(0, rules.reaction_ticks - 1)


def departed(army: Army, tick: int) -> bool:
    """Whether the army's march has already begun at ``tick``."""
    return army.state is ArmyState.MARCHING and army.depart_tick is not None \
        and army.depart_tick <= tick


# --- receipts ---------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Receipt:
    """What an accepted order did. ``ordered`` lists the armies this order set going (their
    last order is this one); ``wars`` the claims it put at war, with their status before."""

    ordered: tuple[int, ...] = field(default=(), kw_only=True)
    wars: tuple[tuple[int, int, RelationStatus], ...] = field(default=(), kw_only=True)


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


@dataclass(frozen=True, slots=True)
class Halted(Receipt):
    army: int
    tile: str


@dataclass(frozen=True, slots=True)
class Reacted(Receipt):
    """The side with the first reaction chose to ``reaction`` (retreat or stand); a retreat
    falls back along ``route`` if it escapes."""

    army: int
    battle: int
    reaction: Reaction
    resolve_tick: int
    route: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class RetreatReferred(Receipt):
    army: int
    battle: int
    tile: str
    infantry: int
    cavalry: int
    ships: int


@dataclass(frozen=True, slots=True)
class Spared(Receipt):
    army: int
    battle: int
    tile: str
    by_claim: int
    other_claim: int


@dataclass(frozen=True, slots=True)
class BattleOrdered(Receipt):
    """An attack, an intercept, an assault or a sally: battle ``battle`` (a temporary id until
    stored) is fought at ``resolve_tick``."""

    how: str  # "attack", "intercept", "assault", "sally"
    battle: int
    army: int  # the attacking army (0: a sally of the whole garrison)
    target: int  # the defending army (0: the holdfast's garrison)
    tile: str
    resolve_tick: int
    attacker_claim: int
    defender_claim: int
    infantry: int = 0  # the attacking army's troops, for the defender's news
    cavalry: int = 0
    ships: int = 0


@dataclass(frozen=True, slots=True)
class SiegeLifted(Receipt):
    army: int
    holdfast: str
    siege: int | None  # the siege that ended (None: the army besieged nothing on record)
    besieger: str  # the besieging claim's name, for the public post


@dataclass(frozen=True, slots=True)
class Disbanded(Receipt):
    army: int
    infantry: int
    cavalry: int
    ships: int


# --- muster -----------------------------------------------------------------------------

def _muster(world: OrderWorld, claim_id: int | None, order: o.Muster, at: datetime
            ) -> tuple[OrderWorld, Receipt]:
    claim = require_claim(world, claim_id)
    home = world.map.tile(claim.holdfast)
    if order.at is not None and world.map.tile(order.at).id != home.id:
        raise OrderRefused(f"troops muster at your holdfast, {_brace(home.label)}, not at {{}}",
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
    ready = muster_ready_at(at, world.rules)
    infantry = claim.infantry - request.infantry
    cavalry = claim.cavalry - request.cavalry
    claim = replace(claim, infantry=infantry, cavalry=cavalry,
                    ships=claim.ships - request.ships,
                    scattered_infantry=min(claim.scattered_infantry, infantry),
                    scattered_cavalry=min(claim.scattered_cavalry, cavalry))
    new = Army(id=world.next_id(world.armies), claim_id=claim.id,
               kind=ArmyKind.FLEET if request.ships else ArmyKind.LAND,
               state=ArmyState.MUSTERING, tile=home.id, infantry=request.infantry,
               cavalry=request.cavalry, ships=request.ships, accepted_at=at,
               ready_tick=tick_index(ready, world.rules))
    cost = monthly_upkeep(request.infantry, request.cavalry, world.season, world.rules,
                          ships=request.ships)
    receipt = Mustered(
        army=new.id, kind=new.kind, infantry=new.infantry, cavalry=new.cavalry,
        ships=new.ships, tile=home.id, ready=ready, ready_tick=new.ready_tick or 0,
        upkeep=cost, home_infantry=claim.infantry, home_cavalry=claim.cavalry,
        home_ships=claim.ships, show_ships=bool(claim.ships or request.ships),
        ordered=(new.id,))
    return world.with_claim(claim).with_army(new), receipt


def _brace(text: str) -> str:
    return text.replace("{", "{{").replace("}", "}}")


# --- cancel, stand, disband -------------------------------------------------------------

def _no_march(army: Army, **changes: Any) -> Army:
    return replace(army, path=(), costs=(), depart_tick=None, arrival_tick=None, **changes)


def _cancel(world: OrderWorld, claim_id: int | None, order: o.Cancel, at: datetime
            ) -> tuple[OrderWorld, Receipt]:
    a = own_army(world, claim_id, order.army)
    claim = require_claim(world, claim_id)
    tick = world.tick(at)
    if a.state is ArmyState.MUSTERING and a.path:
        # The latest order queued a march: cancel that first; a second cancel ends the muster.
        return (world.with_army(_no_march(a)),
                Cancelled("queued march", a.id, a.tile))
    if a.state is ArmyState.MUSTERING:
        claim = replace(claim, infantry=claim.infantry + a.infantry,
                        cavalry=claim.cavalry + a.cavalry, ships=claim.ships + a.ships)
        return (world.with_claim(claim).with_army(replace(a, state=ArmyState.GONE)),
                Cancelled("muster", a.id, a.tile, a.infantry, a.cavalry, a.ships))
    if a.state is ArmyState.MARCHING and not departed(a, tick):
        return (world.with_army(_no_march(a, state=ArmyState.STANDING)),
                Cancelled("march", a.id, a.tile))
    raise _refuse(f"army {a.id} has nothing to cancel (it is {a.state}"
                  + (", and its march has departed" if departed(a, tick) else "") + ")",
                  "a mustering army, or a march that has not departed yet "
                  "(halt a departed march with `stand`)", f"stand army {a.id}")


def _stand(world: OrderWorld, claim_id: int | None, order: o.Stand, at: datetime
           ) -> tuple[OrderWorld, Receipt]:
    a = own_army(world, claim_id, order.army)
    battle = world.pending_battle_of(a.id)
    if battle is not None:
        return _react(world, a, battle, Reaction.STAND)
    if a.state is ArmyState.MARCHING:
        return (world.with_army(_no_march(a, state=ArmyState.STANDING,
                                          stationary_since=world.tick(at))),
                Halted(a.id, a.tile))
    raise _refuse(f"army {a.id} is not marching and not facing a battle",
                  "a marching army to halt, or an army that was attacked", "status")


def _disband(world: OrderWorld, claim_id: int | None, order: o.Disband, at: datetime
             ) -> tuple[OrderWorld, Receipt]:
    a = own_army(world, claim_id, order.army)
    claim = require_claim(world, claim_id)
    if a.tile != claim.holdfast or a.state not in (ArmyState.STANDING, ArmyState.GARRISON):
        home = world.label(claim.holdfast)
        raise _refuse(f"army {a.id} must stand at {home} to disband",
                      "a standing army at your holdfast", f"route army {a.id} to {home}")
    claim = replace(claim, infantry=claim.infantry + a.infantry,
                    cavalry=claim.cavalry + a.cavalry, ships=claim.ships + a.ships)
    return (world.with_claim(claim).with_army(replace(a, state=ArmyState.GONE)),
            Disbanded(a.id, a.infantry, a.cavalry, a.ships))


# --- reactions: retreat, stand, spare ---------------------------------------------------

def _react(world: OrderWorld, a: Army, battle: Battle, reaction: Reaction,
           route: tuple[str, ...] = ()) -> tuple[OrderWorld, Receipt]:
    if battle.reactor_claim != a.claim_id:
        raise _refuse(f"army {a.id} did not get the first reaction in this battle, so it "
                      "cannot choose", "only the side that detected the other first may "
                      "retreat or stand", "status")
    return (world.with_battle(replace(battle, reaction=reaction)),
            Reacted(a.id, battle.id, reaction, battle.resolve_tick, route,
                    ordered=(a.id,) if route else ()))


def harbours(world: OrderWorld, army: Army) -> frozenset[str]:
    """Port holdfasts fleet ``army`` may sail into: those of the claims allied to its own."""
    if army.kind is not ArmyKind.FLEET:
        return frozenset()
    return frozenset(
        other.holdfast for other in world.claims.values()
        if other.holdfast in world.map and world.map.tile(other.holdfast).port
        and world.relation(army.claim_id, other.id) is RelationStatus.ALLIED)


def retreat_route(world: OrderWorld, a: Army, order: o.Retreat) -> tuple[str, ...]:
    """The tiles a retreat would enter: the path given, the cheapest way to the tile given,
    or back along the path travelled (docs/rules.md "Retreat"); () when there is none."""
    if order.path:
        try:
            return check_path(world.map, a.tile, order.path, a.kind, world.rules,
                              harbours(world, a)).ids
        except IllegalPath as exc:
            raise OrderRefused("{}", Said(str(exc), 300),
                               expected="a path of adjacent tiles starting next to the army's "
                               f"tile ({world.label(a.tile)})",
                               example=f"retreat army {a.id}") from None
    if order.to is not None:
        goal = world.map.tile(order.to)
        best = cheapest_route(world.map, a.tile, goal.id, a.kind, world.rules,
                              harbours(world, a))
        if best is None or not best.tiles:
            raise _refuse(f"army {a.id} cannot fall back to {goal.label} from "
                          f"{world.label(a.tile)}", "another tile its kind can reach",
                          f"retreat army {a.id}")
        return tuple(t.id for t in best.tiles)
    return tuple(reversed(a.travelled))


def _retreat(world: OrderWorld, claim_id: int | None, order: o.Retreat, at: datetime
             ) -> tuple[OrderWorld, Receipt]:
    a = own_army(world, claim_id, order.army)
    battle = world.pending_battle_of(a.id)
    if battle is None:
        raise _refuse(f"army {a.id} faces no battle to retreat from",
                      "an army that has been attacked and got the first reaction", "status")
    if battle.reactor_claim != a.claim_id:
        return _react(world, a, battle, Reaction.RETREAT)  # refused there, with the reason
    route = retreat_route(world, a, order)
    if not route:
        return world, RetreatReferred(a.id, battle.id, a.tile, a.infantry, a.cavalry, a.ships)
    world = world.with_army(replace(a, meta=_frozen({**a.meta, "retreat_route": list(route)})))
    return _react(world, a, battle, Reaction.RETREAT, route)


def _spare(world: OrderWorld, claim_id: int | None, order: o.Spare, at: datetime
           ) -> tuple[OrderWorld, Receipt]:
    """After the enemy army's failed retreat, its opponent lets it stay: no battle."""
    claim = require_claim(world, claim_id)
    battle = world.pending_battle_of(order.army)
    if battle is None or battle.reaction not in (Reaction.FAILED, Reaction.STAND) \
            or battle.reactor_claim != claim.id or world.tick(at) >= battle.resolve_tick \
            or claim.id not in (battle.attacker_claim, battle.defender_claim) \
            or (battle.attacker_army == order.army and battle.attacker_claim == claim.id) \
            or (battle.defender_army == order.army and battle.defender_claim == claim.id):
        raise _refuse(f"army {order.army} is not an enemy whose retreat from your army failed",
                      "the army named in a failed-retreat note, before the battle", "status")
    other = battle.defender_claim if battle.attacker_claim == claim.id else \
        battle.attacker_claim
    return (world.with_battle(replace(battle, status=BattleStatus.SPARED)),
            Spared(order.army, battle.id, battle.tile, claim.id, other))


# --- battles ----------------------------------------------------------------------------

def _open_battle(world: OrderWorld, how: str, mine: Army, target: Army, at: datetime,
                 ordered: tuple[int, ...] = ()) -> tuple[OrderWorld, Receipt]:
    """A battle ordered by ``mine`` against ``target`` on their (shared) tile, fought at the end
    of the reaction window; the defender gets the first reaction (starting a battle is always
    detected by the defender). The two claims are at war."""
    world, before = world.at_war(mine.claim_id, target.claim_id)
    battle = Battle(id=world.next_id(world.battles), tile=target.tile, kind=BattleKind.FIELD,
                    attacker_army=mine.id, defender_army=target.id,
                    attacker_claim=mine.claim_id, defender_claim=target.claim_id,
                    created_tick=world.tick(at),
                    resolve_tick=reaction_deadline(at, world.rules),
                    reactor_claim=target.claim_id)
    wars = () if before is None else ((mine.claim_id, target.claim_id, before),)
    return world.with_battle(battle), BattleOrdered(
        how, battle.id, mine.id, target.id, target.tile, battle.resolve_tick, mine.claim_id,
        target.claim_id, mine.infantry, mine.cavalry, mine.ships,
        ordered=(*ordered, mine.id), wars=wars)


def _not_in_battle(world: OrderWorld, *armies: Army) -> None:
    for a in armies:
        if world.pending_battle_of(a.id) is not None:
            raise _refuse(f"army {a.id} is already in a battle", "a battle to be fought first",
                          "status")


def _attack(world: OrderWorld, claim_id: int | None, order: o.Attack, at: datetime
            ) -> tuple[OrderWorld, Receipt]:
    mine = own_army(world, claim_id, order.army)
    target = world.armies.get(order.target)
    if target is None or target.state not in FIGHTING_STATES or target.tile != mine.tile:
        raise _refuse(f"there is no enemy army {order.target} on {world.label(mine.tile)} "
                      "where your army stands", "an army on the same tile as yours",
                      f"attack army 5 with army {mine.id}")
    if target.claim_id == mine.claim_id:
        raise _refuse(f"army {target.id} is your own", "an enemy army", "status")
    if mine.state not in (ArmyState.STANDING, ArmyState.BESIEGING):
        raise _refuse(f"army {mine.id} is {mine.state}", "a standing army", "status")
    if mine.kind != target.kind:
        raise _refuse("fleets fight fleets and armies fight armies",
                      "an enemy of the same kind", "status")
    _not_in_battle(world, mine, target)
    return _open_battle(world, "attack", mine, target, at)


def _intercept(world: OrderWorld, claim_id: int | None, order: o.Intercept, at: datetime
               ) -> tuple[OrderWorld, Receipt]:
    """Within the reaction window of a sighting, a standing army on the watching tile stops the
    passing force: it halts where it is, the interceptor joins it there, and the battle is
    fought at the end of the window (the intercepted side has the first reaction)."""
    mine = own_army(world, claim_id, order.army)
    claim = require_claim(world, claim_id)
    tick = world.tick(at)
    target = world.armies.get(order.target)
    sightings = target.meta.get("sighted") if target is not None else None
    sighted = sightings.get(str(claim.id)) if isinstance(sightings, Mapping) else None
    if target is None or sighted is None or target.claim_id == claim.id \
            or target.state is not ArmyState.MARCHING:
        raise _refuse(f"your watchers have not sighted a passing army {order.target}",
                      "an enemy army named in a sighting note, while it is still marching",
                      "status")
    watch_tile, sighted_tick = str(sighted[0]), int(sighted[1])
    closes = sighted_tick + world.rules.reaction_ticks
    if tick >= closes:
        raise _refuse(f"the chance to intercept army {target.id} has passed (it closed at "
                      f"{moment_text(tick_time(closes, world.rules), world.rules)})",
                      "an intercept sent before the next tick after the sighting", "status")
    if mine.tile != watch_tile or mine.state is not ArmyState.STANDING \
            or mine.kind != target.kind:
        raise _refuse(f"army {mine.id} is not standing at {world.label(watch_tile)}, where "
                      f"army {target.id} was sighted", "your standing army on the watching tile",
                      f"intercept army {target.id} with army 2")
    if target.tile not in world.map.tiles_within(watch_tile, world.rules.detection_radius):
        raise _refuse(f"army {target.id} is out of reach of {world.label(watch_tile)}",
                      "a force still within sight of the watching tile", "status")
    _not_in_battle(world, mine, target)
    target = replace(target, state=ArmyState.STANDING, path=(), costs=(), saved=Fraction(0),
                     arrival_tick=tick, stationary_since=tick)  # stopped, off the march
    mine = replace(mine, travelled=(*mine.travelled, mine.tile), tile=target.tile,
                   stationary_since=tick)
    world = world.with_army(target).with_army(mine)
    return _open_battle(world, "intercept", mine, target, at)


def _assault(world: OrderWorld, claim_id: int | None, order: o.Assault, at: datetime
             ) -> tuple[OrderWorld, Receipt]:
    a = own_army(world, claim_id, order.army)
    hold = world.map.tile(order.holdfast)
    owner = world.holdfast_owner(hold.id)
    if owner is None or owner.id == a.claim_id:
        raise _refuse(f"{hold.label} is not an enemy holdfast", "a holdfast of another claim",
                      f"assault {hold.label} with army {a.id}")
    if a.tile != hold.id or a.state not in (ArmyState.STANDING, ArmyState.BESIEGING):
        raise _refuse(f"army {a.id} must stand on {hold.label} to assault it",
                      "a standing or besieging army on the holdfast",
                      f"route army {a.id} to {hold.label}")
    defenders = [d for d in sorted(world.armies.values(), key=lambda d: d.id)
                 if d.state in FIGHTING_STATES and d.tile == hold.id
                 and d.claim_id != a.claim_id]
    if defenders:
        raise _refuse(f"enemy army {defenders[0].id} holds the tile; defeat it first",
                      "no enemy army on the holdfast's tile", f"attack army {defenders[0].id} "
                      f"with army {a.id}")
    if world.pending_battle_of(a.id) is not None:
        raise _refuse(f"army {a.id} is already in a battle", "one battle at a time", "status")
    world, before = world.at_war(a.claim_id, owner.id)
    battle = Battle(id=world.next_id(world.battles), tile=hold.id, kind=BattleKind.ASSAULT,
                    attacker_army=a.id, defender_army=0, attacker_claim=a.claim_id,
                    defender_claim=owner.id, created_tick=world.tick(at),
                    resolve_tick=reaction_deadline(at, world.rules), reactor_claim=None,
                    holdfast=hold.id)
    wars = () if before is None else ((a.claim_id, owner.id, before),)
    return world.with_battle(battle), BattleOrdered(
        "assault", battle.id, a.id, 0, hold.id, battle.resolve_tick, a.claim_id, owner.id,
        a.infantry, a.cavalry, a.ships, ordered=(a.id,), wars=wars)


def _sally(world: OrderWorld, claim_id: int | None, order: o.Sally, at: datetime
           ) -> tuple[OrderWorld, Receipt]:
    claim = require_claim(world, claim_id)
    hold = world.map.tile(order.holdfast)
    if hold.id != claim.holdfast:
        raise _refuse(f"{hold.label} is not your holdfast", "your own besieged holdfast",
                      f"sally from {world.label(claim.holdfast)}")
    siege = world.active_siege(hold.id)
    if siege is None:
        raise _refuse(f"{hold.label} is not under siege", "a besieged holdfast", "status")
    sally_army = 0
    ordered: tuple[int, ...] = ()
    tick = world.tick(at)
    if order.army is not None:
        a = own_army(world, claim_id, order.army)
        if a.tile == hold.id and a.state is ArmyState.MUSTERING:
            ready = tick_time(a.ready_tick if a.ready_tick is not None else tick, world.rules)
            raise _refuse(f"army {a.id} is still mustering (ready "
                          f"{moment_text(ready, world.rules)}): "
                          "only ready troops sally", "an army inside the walls that has "
                          "finished mustering, or no army (the whole ready garrison sallies)",
                          f"sally from {hold.label}")
        if a.tile != hold.id or a.state is not ArmyState.GARRISON:
            raise _refuse(f"army {a.id} is not inside {hold.label}",
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
    battle = Battle(id=world.next_id(world.battles), tile=hold.id, kind=BattleKind.SALLY,
                    attacker_army=sally_army, defender_army=siege.army_id,
                    attacker_claim=claim.id, defender_claim=siege.besieger_claim,
                    created_tick=tick, resolve_tick=reaction_deadline(at, world.rules),
                    reactor_claim=None, holdfast=hold.id)
    return world.with_battle(battle), BattleOrdered(
        "sally", battle.id, sally_army, siege.army_id, hold.id, battle.resolve_tick, claim.id,
        siege.besieger_claim, ordered=ordered)


# --- sieges -----------------------------------------------------------------------------

def leave_siege(world: OrderWorld, a: Army) -> tuple[OrderWorld, Army, SiegeState | None]:
    """Army ``a`` stops besieging (it stands on the tile again); the siege it held, if any,
    is lifted. Returns the world, the army and the lifted siege."""
    if a.state is not ArmyState.BESIEGING:
        return world, a, None
    siege = world.active_siege(a.tile)
    a = replace(a, state=ArmyState.STANDING)
    world = world.with_army(a)
    if siege is None or siege.army_id != a.id:
        return world, a, None
    siege = replace(siege, status=SiegeStatus.LIFTED)
    return world.with_siege(siege), a, siege


def _lift(world: OrderWorld, claim_id: int | None, order: o.Lift, at: datetime
          ) -> tuple[OrderWorld, Receipt]:
    claim = require_claim(world, claim_id)
    hold = world.map.tile(order.holdfast)
    siege = world.active_siege(hold.id)
    if siege is None or siege.besieger_claim != claim.id:
        raise _refuse(f"you are not besieging {hold.label}", "a holdfast your army besieges",
                      "status")
    a = own_army(world, claim_id, siege.army_id)
    if world.pending_battle_of(a.id) is not None:
        raise _refuse(f"army {a.id} is caught in a battle", "`retreat` or `stand` first",
                      f"retreat army {a.id}")
    world, a, lifted = leave_siege(world, a)
    return world, SiegeLifted(a.id, hold.id, lifted.id if lifted else None, claim.name)


# --- the table --------------------------------------------------------------------------

Decide = Callable[[OrderWorld, "int | None", Any, datetime], "tuple[OrderWorld, Receipt]"]

PURE_ORDERS: Mapping[type, Decide] = MappingProxyType({
    o.Muster: _muster,
    o.Cancel: _cancel,
    o.Stand: _stand,
    o.Retreat: _retreat,
    o.Spare: _spare,
    o.Attack: _attack,
    o.Intercept: _intercept,
    o.Assault: _assault,
    o.Sally: _sally,
    o.Lift: _lift,
    o.Disband: _disband,
})
"""The orders decided here, each by its function."""


def apply_order(world: OrderWorld, order: object, at: datetime, dice: Dice | None = None, *,
                claim_id: int | None) -> tuple[OrderWorld, Receipt]:
    """Decide ``order`` sent for claim ``claim_id`` at ``at``: the world after it and the
    receipt, or :class:`OrderRefused` (or another :class:`RulesError`) with nothing changed.

    No order of this table rolls a die today; ``dice`` is taken so that one that does needs
    no other signature.
    """
    del dice
    decide = PURE_ORDERS.get(type(order))
    if decide is None:
        raise _refuse(f"`{type(order).__name__.lower()}` orders are not decided by the rules "
                      "module yet", "an order of rules.campaign.apply.PURE_ORDERS", "status")
    return decide(world, claim_id, order, at)
