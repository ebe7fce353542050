"""What every order decision shares: the world an order sees (:class:`Sender`), the
refusal (:class:`OrderRefused`), the receipt (:class:`Receipt`) and the receipts several
areas give, and the helpers that read and change the world."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from decimal import Decimal
from enum import StrEnum
from typing import Protocol, TypeVar

from rules.campaign import language as o
from rules.campaign.calendar import moment_text, next_tick_at_or_after, tick_index, tick_time
from rules.campaign.catalogue import Catalogue
from rules.campaign.config import RulesConfig
from rules.campaign.holdfasts import holder_of
from rules.campaign.inforce import InForce
from rules.campaign.modifiers import Modifier
from rules.campaign.naming import force_name, force_noun
from rules.campaign.paths import (
    IllegalPath,
    cheapest_route,
    path_problem,
)
from rules.campaign.warnings import Shortfall
from rules.campaign.world import (
    Army,
    ArmyKind,
    ArmyState,
    BattleState,
    BattleStatus,
    CharacterState,
    ClaimState,
    Modifiers,
    NoModifiers,
    Reaction,
    RelationStatus,
    SiegeState,
    SiegeStatus,
    World,
    war_key,
)
from rules.campaign.worldmap import WorldMap
from rules.errors import RulesError
from rules.text import name_md


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


class OrderInForce(InForce):
    """The modifiers in force as an order asks for them (:class:`OrderModifiers`), answered by a
    :class:`rules.campaign.inforce.ModifiersInForce` the caller worked out before the decision
    (over the campaign as it stands when the order is read). As the tick's (:class:`InForce`)
    but: on the march an army's characters' skills only, a besieger's skills, equipment and
    resource benefit, and nothing detected (no order rolls to detect)."""

    def march(self, army: Army) -> tuple[Modifier, ...]:
        return self.book.skills_with(army)

    def observer(self, claim_id: int, tile: str) -> tuple[Modifier, ...]:
        return ()

    def besieger(self, army: Army) -> tuple[Modifier, ...]:
        return self.book.army(army, equipment=True)


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


def label(sender: Sender, tile: str) -> str:
    return sender.map.tile(tile).label


def shown(sender: Sender, tile: str) -> str:
    """A tile's name as a refusal's markdown shows it (examples keep the plain name)."""
    return name_md(label(sender, tile))


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
    """The claim that holds holdfast ``tile`` (:func:`rules.campaign.holdfasts.holder_of`);
    None when nobody does."""
    holder = holder_of(world, tile)
    return world.claims.get(holder) if holder is not None else None


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
    ``missing_army`` is set when the sender named an army that is not raised (none, or gone):
    the services may say what became of it when it was the sender's own.
    """

    def __init__(self, template: str, *quoted: Said, expected: str = "", example: str = "",
                 tried_army: tuple[int, int, int] | None = None,
                 missing_army: int | None = None) -> None:
        self.template = template
        self.quoted = quoted
        self.expected = expected
        self.example = example
        self.tried_army = tried_army
        self.missing_army = missing_army
        super().__init__(self.problem())

    def problem(self, show: Callable[[str, int], str] = lambda text, limit: text) -> str:
        return self.template.format(*(show(q.text, q.limit) for q in self.quoted))


def refuse(problem: str, expected: str = "", example: str = "") -> OrderRefused:
    return OrderRefused(problem.replace("{", "{{").replace("}", "}}"), expected=expected,
                        example=example)


def require_claim(world: World, sender: Sender) -> ClaimState:
    """The sender's claim (the services refuse a sender without one before calling)."""
    claim_id = sender.claim_id
    if claim_id is None or claim_id not in world.claims:
        raise refuse("the sender plays no claim in this campaign", "a registered player",
                      "status")
    return world.claims[claim_id]


def own_army(world: World, sender: Sender, army_id: int, what: str = "army or fleet"
             ) -> Army:
    """Army (or fleet) ``army_id`` if it belongs to the sender's claim."""
    claim = require_claim(world, sender)
    found = world.armies.get(army_id)
    if found is None or found.state is ArmyState.GONE:
        raise OrderRefused(f"there is no {what} {army_id}", expected="the number of one of "
                           "your armies or fleets (send `status` to list them)",
                           example="status", missing_army=army_id)
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
    return refuse(f"{force(a)} is caught in a battle, fought at {when}",
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
    step: tuple[str, int] | None = field(default=None, kw_only=True)
    """A first step the new force may take from its tile, and its cost (an example order)."""


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


def path_refused(exc: IllegalPath, a: Army, sender: Sender, example: str) -> OrderRefused:
    """A path refused in the player's words ("Did you mean ...?")."""
    return OrderRefused("{}", Said(path_problem(exc), 300), expected="a path of adjacent tiles "
                        f"starting next to the {force_noun(a.kind)}'s tile "
                        f"({shown(sender, a.tile)})", example=example)


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


def harbours(world: World, sender: Sender, army: Army) -> frozenset[str]:
    """Port holdfasts fleet ``army`` may sail into: its own claim's and its allies'."""
    if army.kind is not ArmyKind.FLEET:
        return frozenset()
    return frozenset(
        other.holdfast for other in world.claims.values()
        if other.holdfast in sender.map and sender.map.tile(other.holdfast).port
        and relation(world, army.claim_id, other.id) is RelationStatus.ALLIED)


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


def brace(text: str) -> str:
    return text.replace("{", "{{").replace("}", "}}")
