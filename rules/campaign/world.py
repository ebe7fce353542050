"""The campaign world as the rules see it: lifecycles as enums, an army as a frozen value, the
one way an army is counted in battle, and the world a tick (and an order) works on.

The database stores these enums (``bot.db.models`` declares its columns with them); the services
turn rows into :class:`Army` values and ask :func:`army_side` how a battle counts them, so the
``odds`` order and the battle the tick fights cannot disagree.

The world is made of frozen values, built once per tick by the services from one query per
table, handed to the pure rules, and compared with the result to write back only what changed:

- :class:`World`: the armies (:class:`Army`, with their march as a :class:`March`), the claims
  (:class:`ClaimState`), the active sieges (:class:`SiegeState`), the battles waiting for their
  reaction window or spared (:class:`BattleState`), the pairs of claims at war, the resource
  tile holders (:class:`HolderState`) and the free characters (:class:`CharacterState`).
- :class:`EventDice`: where each event's dice come from (the campaign secret and the dice period
  of the tick): the same derivation as the services' fair dice, so a value-level tick rolls
  exactly the dice the database-level tick rolled.
- :class:`Modifiers`: what the rules ask about the modifiers in force (the catalogue's skills,
  equipment, resources, improvements); :data:`NO_MODIFIERS` when there are none.

Every value is immutable: a rule that changes something returns a new value
(:func:`dataclasses.replace`) and a new :class:`World`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from datetime import datetime
from decimal import Decimal
from enum import StrEnum
from fractions import Fraction
from itertools import groupby
from operator import attrgetter
from typing import Any, Protocol, cast

from rules.campaign.battle import Side, Winner
from rules.campaign.config import Season, Terrain
from rules.campaign.meetings import holds_position
from rules.campaign.modifiers import Modifier
from rules.campaign.paths import ArmyKind
from rules.campaign.upkeep import SlainLedger
from rules.campaign.worldmap import WorldMap
from rules.fairdice import (
    PUBLIC,
    Beacon,
    EventKey,
    FairDice,
    HmacKey,
    branch_secret,
    dice_line,
    format_entropy,
    key_token,
)

__all__ = [
    "ACTIVE_STATES",
    "FIGHTING_STATES",
    "IN_FIELD_STATES",
    "NO_MODIFIERS",
    "STATIONARY_STATES",
    "Army",
    "ArmyKind",
    "ArmyState",
    "BattleKind",
    "BattleState",
    "BattleStatus",
    "CharacterState",
    "CharacterStatus",
    "ClaimState",
    "EventDice",
    "HolderState",
    "March",
    "Modifiers",
    "NoModifiers",
    "Reaction",
    "RelationStatus",
    "SiegeState",
    "SiegeStatus",
    "World",
    "army_order",
    "army_side",
    "battle_side",
    "captured",
    "changed_armies",
    "changed_claims",
    "evolve",
    "fighting_side",
    "gone",
    "in_army_order",
    "is_stationary",
    "moved",
    "new_march",
    "war_key",
]


class ArmyState(StrEnum):
    """Where an army is in its life: raised, in the field, inside its holdfast, or gone."""

    MUSTERING = "mustering"
    STANDING = "standing"
    MARCHING = "marching"
    BESIEGING = "besieging"
    RETREATING = "retreating"
    GARRISON = "garrison"  # inside its holdfast (sally forces, besieged defenders)
    GONE = "gone"  # disbanded, destroyed or captured


class RelationStatus(StrEnum):
    """How two claims stand to each other."""

    WAR = "war"
    NEUTRAL = "neutral"
    ALLIED = "allied"


class SiegeStatus(StrEnum):
    """A siege is active until the holdfast falls, the besiegers leave, or a sally breaks it."""

    ACTIVE = "active"
    FALLEN = "fallen"
    LIFTED = "lifted"
    BROKEN = "broken"


class BattleKind(StrEnum):
    """A battle between armies in the field, an assault on a holdfast, or a sally out of one."""

    FIELD = "field"
    ASSAULT = "assault"
    SALLY = "sally"


class BattleStatus(StrEnum):
    """A pending battle waits for its reaction window to close; then it is fought (resolved),
    avoided by a successful retreat, void (the armies parted or are gone), spared, or called
    off by its attacker (an assault, :func:`rules.campaign.calloff.call_off_refusal`)."""

    PENDING = "pending"
    RESOLVED = "resolved"
    AVOIDED = "avoided"
    VOID = "void"
    SPARED = "spared"  # after a failed retreat the opponent let the runner stay: no battle
    CALLED_OFF = "called_off"  # the attacker called off its assault before it was fought


class Reaction(StrEnum):
    """The choice of the side with the first reaction (FAILED: a retreat failed, and the
    opponent now chooses to stand and fight or to spare the runner)."""

    RETREAT = "retreat"
    STAND = "stand"
    FAILED = "failed"


class CharacterStatus(StrEnum):
    """A player character is alive, wounded (the moderators ruled an injury; it still
    commands), dead, or captured with its army (it cannot command until the moderators free
    it)."""

    ALIVE = "alive"
    DEAD = "dead"
    CAPTURED = "captured"
    WOUNDED = "wounded"


FREE_CHARACTERS = frozenset({CharacterStatus.ALIVE, CharacterStatus.WOUNDED})
"""Characters who can command an army and fight with it: the living who are not captives."""


ACTIVE_STATES = frozenset({ArmyState.MUSTERING, ArmyState.STANDING, ArmyState.MARCHING,
                           ArmyState.BESIEGING, ArmyState.RETREATING, ArmyState.GARRISON})
"""Raised armies: they pay upkeep and scatter when it is not paid."""

IN_FIELD_STATES = frozenset({ArmyState.STANDING, ArmyState.MARCHING, ArmyState.BESIEGING,
                             ArmyState.RETREATING})
"""Armies outside their holdfast's walls."""

FIGHTING_STATES = IN_FIELD_STATES
"""Armies another army on their tile may attack."""

STATIONARY_STATES = frozenset({ArmyState.STANDING, ArmyState.BESIEGING, ArmyState.GARRISON})
"""States in which an army holds its position (and may have the defender's terrain bonus)."""


@dataclass(frozen=True, slots=True)
class March:
    """Where an army's march stands: the tiles still ahead (``path``) with the travel cost of
    entering each (``costs``), the budget it has saved and not spent (``saved``), and the tick
    it set off (``depart_tick``: no tile is entered on that tick). An army that is not marching
    has an empty path (its ``depart_tick`` is kept as stored)."""

    path: tuple[str, ...] = ()
    costs: tuple[int, ...] = ()
    saved: Fraction = Fraction(0)
    depart_tick: int | None = None


NO_MARCH = March()

ORDER_KEY = "order"
"""The key of an army's ``meta`` that holds the reference of the order that last set it going
(:attr:`Army.order_ref`)."""


@dataclass(frozen=True, slots=True)
class Army:
    """An army (or fleet) as the rules need it.

    ``stationary_since`` is the tick it stopped moving (None: it never moved), ``arrival_tick``
    the tick its last march ended (or is scheduled to end). ``ready_tick``: when a mustering
    army is ready. ``march``: its march (:class:`March`); ``travelled``: the tiles it left on
    its current march, oldest first (the way back when it retreats). ``equipment``: the names of
    its siege equipment. ``meta``: the bookkeeping of its current march, as stored (who rolled
    to detect it and who did: ``rolled``, ``detected_by``, ``sighted``; ``retreat_route``,
    ``retreat_from``, ``fate`` once it is gone, ``order``: the order that set it going). Treat
    ``meta`` as read-only: a change is a new mapping in a new value. It takes no part in
    equality or hashing.
    """

    id: int
    claim_id: int
    kind: ArmyKind
    state: ArmyState
    tile: str
    infantry: int = 0
    cavalry: int = 0
    ships: int = 0
    stationary_since: int | None = None
    arrival_tick: int | None = None
    retreat_penalty: bool = False
    ready_tick: int | None = None
    march: March = NO_MARCH
    travelled: tuple[str, ...] = ()
    commander_id: int | None = None
    equipment: tuple[str, ...] = ()
    meta: Mapping[str, Any] = field(default_factory=dict, compare=False, hash=False)
    accepted_at: datetime | None = None  # when the muster order that raised it was accepted

    @property
    def size(self) -> int:
        return self.infantry + self.cavalry + self.ships

    @property
    def detected_by(self) -> frozenset[int]:
        """The claims that have detected it on its current march."""
        return frozenset(int(c) for c in self.meta.get("detected_by", ()))

    @property
    def order_ref(self) -> str | None:
        """The reference of the order that last set it going (the entropy of its dice)."""
        ref = self.meta.get(ORDER_KEY)
        return str(ref) if ref else None

    def with_meta(self, **values: Any) -> Army:
        """The same army with ``values`` set in its bookkeeping."""
        return evolve(self, meta={**self.meta, **values})


_ARMY_FIELDS = tuple(f.name for f in fields(Army))
_new = object.__new__


def _setters(cls: type) -> tuple[Callable[[Any, Any], None], ...]:
    """The setters of ``cls``'s slots, in the order of its fields: what ``object.__setattr__``
    looks up by name and calls, called directly (a frozen value is built field by field; a
    tick builds thousands, and the lookup by name costs more than the setting)."""
    return tuple(cast(Callable[[Any, Any], None], vars(cls)[f.name].__set__)
                 for f in fields(cls))


_ARMY_SETTERS = tuple(zip(_ARMY_FIELDS, _setters(Army), strict=True))


class _ArmyDraft:
    """An :class:`Army` being built: the same slots, in the same order, but writable. A value
    that a march step makes is written here field by field (a plain store into a slot) and
    then becomes an Army by taking its class (``__class__``: Python allows it between classes
    of the same layout). A tick builds thousands; each setter of the frozen class's slots is
    a call, which costs several times the store."""

    __slots__ = Army.__slots__


class _MarchDraft:
    """A :class:`March` being built (see :class:`_ArmyDraft`)."""

    __slots__ = March.__slots__


def _check_draft(draft: type, real: type) -> None:
    """Raise TypeError unless ``draft`` has ``real``'s slots and may take its class: run at
    import, so a drift of the layout stops the start-up, not the first march."""
    slots, real_slots = getattr(draft, "__slots__", None), getattr(real, "__slots__", None)
    if slots != real_slots:
        raise TypeError(f"{draft.__name__} has slots {slots}, {real.__name__} {real_slots}")
    probe: Any = _new(draft)
    probe.__class__ = real  # (TypeError when the two layouts differ)


_check_draft(_ArmyDraft, Army)
_check_draft(_MarchDraft, March)


def evolve(army: Army, **changes: Any) -> Army:
    """``army`` with ``changes`` (field names and new values): what :func:`dataclasses.replace`
    gives, at half its cost (a tick changes thousands of armies, and an :class:`Army` has no
    ``__post_init__`` to run). It keeps the slot setters: a draft (as :func:`moved` uses)
    measured no faster here (benchmarks/README.md)."""
    new = _new(Army)
    for name, put in _ARMY_SETTERS:
        put(new, changes[name] if name in changes else getattr(army, name))
    return new


def moved(army: Army, tile: str, travelled: tuple[str, ...], march: March,
          meta: Mapping[str, Any]) -> Army:
    """``evolve(army, tile=tile, travelled=travelled, march=march, meta=meta)``, written out
    field by field into a draft (:class:`_ArmyDraft`): the army a march step makes (a tick
    makes thousands, and the loop of :func:`evolve` costs several times as much). Every other
    field is kept; a field added to :class:`Army` must be added here too (the tests compare
    the two for every field)."""
    new: Any = _new(_ArmyDraft)
    new.id = army.id
    new.claim_id = army.claim_id
    new.kind = army.kind
    new.state = army.state
    new.tile = tile
    new.infantry = army.infantry
    new.cavalry = army.cavalry
    new.ships = army.ships
    new.stationary_since = army.stationary_since
    new.arrival_tick = army.arrival_tick
    new.retreat_penalty = army.retreat_penalty
    new.ready_tick = army.ready_tick
    new.march = march
    new.travelled = travelled
    new.commander_id = army.commander_id
    new.equipment = army.equipment
    new.meta = meta
    new.accepted_at = army.accepted_at
    new.__class__ = Army
    built: Army = new  # annotated so mypy takes it as an Army; typing.cast would cost a call
    return built


def new_march(path: tuple[str, ...], costs: tuple[int, ...], saved: Fraction,
              depart_tick: int | None) -> March:
    """``March(path, costs, saved, depart_tick)`` built in a draft (:class:`_ArmyDraft`
    says why): the march a step leaves (a tick makes thousands; the frozen class's
    ``__init__`` costs several times as much)."""
    new: Any = _new(_MarchDraft)
    new.path = path
    new.costs = costs
    new.saved = saved
    new.depart_tick = depart_tick
    new.__class__ = March
    built: March = new  # annotated so mypy takes it as a March; typing.cast would cost a call
    return built


def _optional(value: int | None) -> tuple[bool, int]:
    return value is None, value or 0


_STATE_ORDER = {state: i for i, state in enumerate((
    ArmyState.STANDING, ArmyState.BESIEGING, ArmyState.GARRISON, ArmyState.MUSTERING,
    ArmyState.MARCHING, ArmyState.RETREATING, ArmyState.GONE))}
"""The states in :func:`army_order`: the armies holding their tile first, those on the move
after them."""


def army_order(army: Army) -> tuple[Any, ...]:
    """Where ``army`` comes among other armies wherever a rule needs an order and says none:
    by what it is (claim, kind, tile, state (holding its tile before on the move), troops,
    times, march, commander, equipment, bookkeeping), never by its number, so that renumbering
    the armies changes nothing a tick does ("All armies move at once" in docs/rules.md). Two
    armies that differ in nothing but their number are interchangeable: their numbers break
    the tie, and whichever comes first the world is the same up to renumbering."""
    m = army.march
    return (army.claim_id, army.kind.value, army.tile, _STATE_ORDER[army.state], army.infantry,
            army.cavalry, army.ships, _optional(army.stationary_since),
            _optional(army.arrival_tick), army.retreat_penalty, _optional(army.ready_tick),
            m.path, m.costs, m.saved, _optional(m.depart_tick), army.travelled,
            _optional(army.commander_id), army.equipment,
            army.accepted_at.isoformat() if army.accepted_at else "",
            json.dumps(army.meta, sort_keys=True, default=str), army.id)


def in_army_order(armies: Iterable[Army]) -> list[Army]:
    """``armies`` sorted by :func:`army_order`: by its first entries (claim, kind, tile), and
    only the armies alike in those by the whole order (a tick sorts its 2,000 marches: the
    whole order of each, its bookkeeping's JSON above all, cost more than its step)."""
    by_head = sorted(armies, key=_HEAD)
    if len(set(map(_HEAD, by_head))) == len(by_head):  # (the usual case: no two alike)
        return by_head
    ordered: list[Army] = []
    for _, alike in groupby(by_head, key=_HEAD):
        group = list(alike)
        if len(group) == 1:
            ordered.append(group[0])
        else:
            ordered.extend(sorted(group, key=army_order))
    return ordered


_HEAD = attrgetter("claim_id", "kind", "tile")
"""The first entries of :func:`army_order` (claim, kind, tile) of an army: a kind is a
StrEnum, which sorts as the value :func:`army_order` names."""


def is_stationary(army: Army, tick: int, began: int | None = None) -> bool:
    """Whether ``army`` holds its position in a battle fought at tick ``tick`` that began
    (two armies met, or an attack was ordered) at tick ``began``.

    It must stand, besiege or be inside its holdfast, and not have arrived on its tile at that
    very tick (an army that marched in this tick is in transit; one that stopped earlier, or
    mustered or halted in place, holds the tile). When the battle's start is known it must
    have stood there since a tick before it (:func:`rules.campaign.meetings.holds_position`:
    two armies arriving together both count as in transit).
    """
    if army.state not in STATIONARY_STATES:
        return False
    if began is not None and not holds_position(army.stationary_since, began):
        return False
    return army.stationary_since is None or army.stationary_since < tick \
        or army.arrival_tick != tick


def battle_side(role: Winner, *, infantry: int = 0, cavalry: int = 0, ships: int = 0,
                terrain: Terrain = Terrain.FIELD, stationary: bool = False,
                commander_bonus: Decimal = Decimal(1), retreat_penalty: bool = False,
                modifiers: Sequence[Modifier] = (), characters: Sequence[str] = ()) -> Side:
    """Every battle side is built here (the tick's battles, the ``odds`` order, ``!odds`` and
    the JSON ``odds`` engine): the attacker either marched in or left its position to attack,
    so only the defender (``role`` DEFENDER) can be stationary and have the terrain's bonus.
    """
    return Side(infantry=infantry, cavalry=cavalry, ships=ships, terrain=terrain,
                stationary=stationary and role is Winner.DEFENDER,
                commander_bonus=commander_bonus, retreat_penalty=retreat_penalty,
                modifiers=tuple(modifiers), characters=tuple(characters))


def as_role(side: Side, role: Winner) -> Side:
    """A side someone described (``!odds``, the JSON engines) as the battle counts it in
    ``role``: see :func:`battle_side`."""
    return battle_side(role, infantry=side.infantry, cavalry=side.cavalry, ships=side.ships,
                       terrain=side.terrain, stationary=side.stationary,
                       commander_bonus=side.commander_bonus,
                       retreat_penalty=side.retreat_penalty, modifiers=side.modifiers,
                       characters=side.characters)


def army_side(army: Army, role: Winner, *, tick: int, terrain: Terrain,
              began: int | None = None, modifiers: Sequence[Modifier] = (),
              characters: Sequence[str] = ()) -> Side:
    """How a battle at tick ``tick`` (begun at ``began``, see :func:`is_stationary`) counts
    ``army`` fighting as ``role`` on a tile of ``terrain``, with the modifiers in force for it
    and the characters with it."""
    return battle_side(role, infantry=army.infantry, cavalry=army.cavalry, ships=army.ships,
                       terrain=terrain, stationary=is_stationary(army, tick, began),
                       retreat_penalty=army.retreat_penalty, modifiers=modifiers,
                       characters=characters)


# --- the world a tick works on -------------------------------------------------------------
def war_key(a: int, b: int) -> tuple[int, int]:
    """How a pair of claims is kept in :attr:`World.wars`: smaller id first."""
    return (a, b) if a <= b else (b, a)


@dataclass(frozen=True, slots=True)
class ClaimState:
    """A claim (a House) as the tick sees it: its gold, its troops at home (``scattered_*`` of
    them locked until ``scattered_until``), its regeneration ledger and its improvements (the
    stored list: records and the capacity bookkeeping, :mod:`rules.campaign.improvements`;
    rules that change it give a new tuple)."""

    id: int
    name: str
    holdfast: str
    gold: Decimal = Decimal(0)
    infantry: int = 0
    cavalry: int = 0
    ships: int = 0
    scattered_infantry: int = 0
    scattered_cavalry: int = 0
    scattered_until: datetime | None = None
    slain: SlainLedger = field(default_factory=SlainLedger)
    improvements: tuple[Mapping[str, Any], ...] = field(default=(), compare=False, hash=False)


@dataclass(frozen=True, slots=True)
class SiegeState:
    """A siege of ``holdfast`` by army ``army_id``: ``months_elapsed`` of ``months_required``
    counted (``paused`` while a port's blockade is broken)."""

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

    @property
    def months_left(self) -> int:
        """The months still to count before the holdfast falls (0: it falls at the next
        count)."""
        return max(0, self.months_required - self.months_elapsed)


@dataclass(frozen=True, slots=True)
class BattleState:
    """A battle waiting for its reaction window to close at ``resolve_tick`` (or spared, or
    settled this tick). ``id`` is None for a battle the tick has just begun (the database gives
    it one when it is stored). ``defender_army`` 0: a holdfast's garrison."""

    id: int | None
    tile: str
    kind: BattleKind
    attacker_army: int
    defender_army: int
    attacker_claim: int
    defender_claim: int
    created_tick: int
    resolve_tick: int
    reactor_claim: int | None = None
    reaction: Reaction | None = None
    holdfast: str = ""
    status: BattleStatus = BattleStatus.PENDING


@dataclass(frozen=True, slots=True)
class CharacterState:
    """A player character: with army ``army_id`` (None: at home in the holdfast)."""

    id: int
    claim_id: int
    name: str
    skills: tuple[str, ...] = ()
    army_id: int | None = None
    status: CharacterStatus = CharacterStatus.ALIVE


@dataclass(frozen=True, slots=True)
class HolderState:
    """Who receives a resource tile's benefit (``claim_id``), and to whom the holder ceded it."""

    tile: str
    claim_id: int | None = None
    ceded_to: int | None = None


@dataclass(frozen=True, slots=True)
class World:
    """The campaign's state as one tick needs it.

    ``armies``: the raised armies (every state but gone) by id, ascending; an army that is gone
    during a tick stays in the mapping with state GONE (so what happened to it is written back).
    ``claims`` by id, ascending. ``sieges``: the active ones (and those a tick ended). ``battles``:
    pending and spared ones (and those a tick settled or began). ``wars``: pairs at war as
    :func:`war_key`. ``holders`` by tile. ``characters``: the free ones, by id (and those a
    tick captured or killed, with their new status). ``season`` and
    ``last_month``: the campaign's season and the last in-game month whose jobs ran.
    ``next_battle_id``: the id the next battle begun gets, as storage says when it loads the
    world (the next free number; :meth:`new_battle_id` never gives one a battle of the world
    has): the rules number the battles they begin, storage keeps those numbers.

    Treat the mappings as read-only; rules build new ones.
    """

    armies: Mapping[int, Army] = field(default_factory=dict)
    claims: Mapping[int, ClaimState] = field(default_factory=dict)
    sieges: tuple[SiegeState, ...] = ()
    battles: tuple[BattleState, ...] = ()
    wars: frozenset[tuple[int, int]] = frozenset()
    holders: Mapping[str, HolderState] = field(default_factory=dict)
    characters: Mapping[int, CharacterState] = field(default_factory=dict)
    season: Season = Season.SUMMER
    last_month: int = 0
    allies: frozenset[tuple[int, int]] = frozenset()  # pairs allied (war_key), for harbours
    next_battle_id: int = 1

    def at_war(self, a: int, b: int) -> bool:
        return war_key(a, b) in self.wars

    def claim_name(self, claim_id: int | None) -> str:
        claim = self.claims.get(claim_id) if claim_id is not None else None
        return claim.name if claim is not None else "an unknown claim"

    def new_battle_id(self, battles: Sequence[BattleState] | None = None) -> int:
        """The id of a battle begun now: :attr:`next_battle_id`, or one more than the largest
        id of ``battles`` (default: the world's) when that is larger."""
        found = self.battles if battles is None else battles
        return max(self.next_battle_id, max((b.id or 0 for b in found), default=0) + 1)

    def active_sieges(self) -> tuple[SiegeState, ...]:
        return tuple(s for s in self.sieges if s.status is SiegeStatus.ACTIVE)

    def besieged(self) -> frozenset[str]:
        """The holdfasts under an active siege."""
        return frozenset(s.holdfast for s in self.sieges if s.status is SiegeStatus.ACTIVE)

    def by_tile(self) -> dict[str, list[Army]]:
        """The armies on each tile (a fresh index: rules that move armies keep it current)."""
        found: dict[str, list[Army]] = {}
        for a in self.armies.values():
            found.setdefault(a.tile, []).append(a)
        return found

    def free_characters_with(self, army_id: int) -> tuple[CharacterState, ...]:
        """The free characters with an army."""
        return tuple(c for c in self.characters.values()
                     if c.army_id == army_id and c.status in FREE_CHARACTERS)

    def characters_with(self, army_id: int) -> tuple[str, ...]:
        """The names of the free characters with an army."""
        return tuple(c.name for c in self.free_characters_with(army_id))

    @classmethod
    def of(cls, *, armies: Iterable[Army] = (), claims: Iterable[ClaimState] = (),
           sieges: Sequence[SiegeState] = (), battles: Sequence[BattleState] = (),
           wars: Iterable[tuple[int, int]] = (), holders: Iterable[HolderState] = (),
           characters: Iterable[CharacterState] = (), season: Season = Season.SUMMER,
           last_month: int = 0) -> World:
        """A world from plain sequences (ids ascending, war pairs in any order)."""
        return cls(armies={a.id: a for a in sorted(armies, key=lambda a: a.id)},
                   claims={c.id: c for c in sorted(claims, key=lambda c: c.id)},
                   sieges=tuple(sieges), battles=tuple(battles),
                   wars=frozenset(war_key(a, b) for a, b in wars),
                   holders={h.tile: h for h in holders},
                   characters={c.id: c for c in sorted(characters, key=lambda c: c.id)},
                   season=season, last_month=last_month)


@dataclass(frozen=True, slots=True)
class EventDice:
    """Where the events of one tick roll from: the campaign secret and the tick's dice period.

    :meth:`roll` gives the dice of one event (``key`` names it, ``branch`` is the public branch
    or a claim's private one, ``orders`` are the references of the orders behind it, the
    event's public entropy) and where they came from; :meth:`line` the printed dice line once
    they are rolled. The same derivation as :mod:`rules.fairdice` documents.
    """

    secret: str
    period: int
    beacon: Beacon | None = None
    """The public beacon round of the tick (None: commit-reveal alone), mixed into every seed."""
    _branches: dict[str, HmacKey] = field(default_factory=dict, init=False, repr=False,
                                          compare=False)
    """The secret of each branch rolled on so far, as an HMAC key (a tick rolls hundreds of
    times on a few branches; each secret is derived and set up once)."""
    _campaign_key: HmacKey = field(init=False, repr=False, compare=False)
    """The campaign secret as an HMAC key (the branch secrets and the tokens are MACs under
    it), set up with the dice."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "_campaign_key", HmacKey(self.secret.encode()))

    def roll(self, key: str, *, branch: str = PUBLIC, orders: Iterable[str] = ()
             ) -> tuple[FairDice, EventKey]:
        event = EventKey(self.period, branch, key, format_entropy(orders), self.beacon)
        secret = self._branches.get(branch)
        if secret is None:
            secret = self._branches[branch] = HmacKey(
                branch_secret(self._campaign_key, self.period, branch))
        return event.dice_from_secret(secret), event

    def roll_for(self, key: str, *armies: Army | None, branch: str = PUBLIC
                 ) -> tuple[FairDice, EventKey]:
        """The dice of an event the given armies take part in (their last orders are its
        entropy)."""
        return self.roll(key, branch=branch,
                         orders=[ref for a in armies if a is not None and (ref := a.order_ref)])

    @staticmethod
    def line(event: EventKey, dice: FairDice) -> str:
        return str(dice_line(event, dice))

    def token(self, *parts: object) -> str:
        """An opaque stand-in for ``parts`` in an event key (:func:`rules.fairdice.key_token`):
        a key that must not show them (a count that would betray hidden armies) names this."""
        return key_token(self._campaign_key, *parts)


class Modifiers(Protocol):
    """The modifiers in force, as the tick's rules ask for them."""

    def march(self, army: Army) -> tuple[Modifier, ...]:
        """An army's own modifiers on the move (its speed and its stealth)."""
        ...

    def observer(self, claim_id: int, tile: str) -> tuple[Modifier, ...]:
        """The modifiers of whoever watches from ``tile`` for ``claim_id``."""
        ...

    def battle(self, army: Army, *, assault: bool,
               characters: Sequence[CharacterState] | None = None) -> tuple[Modifier, ...]:
        """An army's modifiers in battle (``assault``: its siege equipment counts too).
        ``characters``: the characters with it as the rules see them now (whose skills count);
        None: as the modifiers' own records have them."""
        ...

    def holdfast(self, claim_id: int, *,
                 characters: Sequence[CharacterState] | None = None) -> tuple[Modifier, ...]:
        """The modifiers of a holdfast's defenders (not its secret defense bonus).
        ``characters``: the claim's characters at home as the rules see them now (whose skills
        count); None: as the modifiers' own records have them."""
        ...


class NoModifiers:
    """No catalogue: nothing modifies anything."""

    def march(self, army: Army) -> tuple[Modifier, ...]:
        return ()

    def observer(self, claim_id: int, tile: str) -> tuple[Modifier, ...]:
        return ()

    def battle(self, army: Army, *, assault: bool,
               characters: Sequence[CharacterState] | None = None) -> tuple[Modifier, ...]:
        return ()

    def holdfast(self, claim_id: int, *,
                 characters: Sequence[CharacterState] | None = None) -> tuple[Modifier, ...]:
        return ()


NO_MODIFIERS = NoModifiers()


def fighting_side(world: World, army: Army, role: Winner, *, map: WorldMap, tick: int,
                  modifiers: Modifiers, began: int | None = None, assault: bool = False,
                  secrets_of: int | None = None) -> Side:
    """How a battle fought at tick ``tick`` (begun at ``began``) counts ``army`` as ``role``:
    on the terrain of its tile (a field off the map), with the modifiers in force for it
    (``assault``: its siege equipment too) and the free characters with it as ``world`` has
    them (one killed earlier in the tick lends no skill).

    The tick's battles (:mod:`rules.campaign.tick`) and the ``odds`` order
    (:func:`rules.campaign.decide.odds_shown`) both build their sides here, through
    :func:`rules.campaign.world.army_side`: the odds shown are the odds fought.
    ``secrets_of``: the claim asking for odds; another claim's hidden modifiers are then left
    out, so odds never reveal them.
    """
    with_it = world.free_characters_with(army.id)
    mods = modifiers.battle(army, assault=assault, characters=with_it)
    if secrets_of is not None and army.claim_id != secrets_of:
        mods = tuple(m for m in mods if not m.hidden)
    terrain = map.tile(army.tile).terrain if army.tile in map else Terrain.FIELD
    return army_side(army, role, tick=tick, terrain=terrain, began=began, modifiers=mods,
                     characters=tuple(c.name for c in with_it))


def no_march(army: Army, **changes: Any) -> Army:
    """The army with no march ahead (its saved budget kept)."""
    return replace(army, march=replace(army.march, path=(), costs=(), depart_tick=None),
                   arrival_tick=None, **changes)


def gone(a: Army, fate: str) -> Army:
    """Army ``a`` is no more; ``fate`` completes "The besiegers of CLAIM ..." in posts."""
    return replace(a, state=ArmyState.GONE,
                   march=replace(a.march, path=(), costs=())).with_meta(fate=fate)


def captured(world: World, army_ids: Sequence[int]) -> dict[int, CharacterState]:
    """The world's characters after those with the given armies were captured with them: no
    longer free to command (the moderators rule on their fate)."""
    characters = dict(world.characters)
    taken = set(army_ids)
    for c in world.characters.values():
        if c.army_id in taken and c.status in (CharacterStatus.ALIVE, CharacterStatus.WOUNDED):
            characters[c.id] = replace(c, status=CharacterStatus.CAPTURED, army_id=None)
    return characters


def released(world: World, army_ids: Sequence[int]) -> dict[int, CharacterState]:
    """The world's characters after the given armies are no more but their troops went home
    (disbanded, scattered): those with them are at home, with no army."""
    characters = dict(world.characters)
    home = set(army_ids)
    for c in world.characters.values():
        if c.army_id in home:
            characters[c.id] = replace(c, army_id=None)
    return characters


def changed_claims(before: World, after: World) -> Sequence[ClaimState]:
    """The claims ``after`` changed (new values), by id."""
    return [c for i, c in after.claims.items() if before.claims.get(i) is not c]


def changed_armies(before: World, after: World) -> Sequence[Army]:
    """The armies ``after`` changed (new values), by id."""
    return [a for i, a in after.armies.items() if before.armies.get(i) is not a]
