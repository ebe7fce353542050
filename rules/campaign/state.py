"""The world a tick (and an order) works on, as frozen values: built once per tick by the
services from one query per table, handed to the pure rules, and compared with the result to
write back only what changed.

- :class:`World`: the armies (:class:`~rules.campaign.world.Army`, with their march as a
  :class:`~rules.campaign.world.March`), the claims (:class:`ClaimState`), the active sieges
  (:class:`SiegeState`), the battles waiting for their reaction window or spared
  (:class:`BattleState`), the pairs of claims at war, the resource tile holders
  (:class:`HolderState`) and the free characters (:class:`CharacterState`).
- :class:`EventDice`: where each event's dice come from (the campaign secret and the dice period
  of the tick): the same derivation as the services' fair dice, so a value-level tick rolls
  exactly the dice the database-level tick rolled.
- :class:`Modifiers`: what the rules ask about the modifiers in force (the catalogue's skills,
  equipment, resources, improvements); :data:`NO_MODIFIERS` when there are none.

Every value is immutable: a rule that changes something returns a new value
(:func:`dataclasses.replace`) and a new :class:`World`. The lifecycle enums live in
:mod:`rules.campaign.world`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import Any, Protocol

from rules.campaign.battle import Side, Winner
from rules.campaign.config import Season, Terrain
from rules.campaign.modifiers import Modifier
from rules.campaign.upkeep import SlainLedger
from rules.campaign.world import (
    FREE_CHARACTERS,
    Army,
    ArmyKind,
    ArmyState,
    BattleKind,
    BattleStatus,
    CharacterStatus,
    March,
    Reaction,
    SiegeStatus,
    army_side,
)
from rules.campaign.worldmap import WorldMap
from rules.fairdice import (
    PUBLIC,
    EventKey,
    FairDice,
    branch_secret,
    dice_line,
    format_entropy,
)

__all__ = [
    "NO_MODIFIERS",
    "Army",
    "ArmyKind",
    "ArmyState",
    "BattleState",
    "CharacterState",
    "ClaimState",
    "EventDice",
    "HolderState",
    "March",
    "Modifiers",
    "NoModifiers",
    "SiegeState",
    "World",
    "fighting_side",
    "war_key",
]


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

    def at_war(self, a: int, b: int) -> bool:
        return war_key(a, b) in self.wars

    def claim_name(self, claim_id: int | None) -> str:
        claim = self.claims.get(claim_id) if claim_id is not None else None
        return claim.name if claim is not None else "an unknown claim"

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
    _branches: dict[str, bytes] = field(default_factory=dict, init=False, repr=False,
                                        compare=False)
    """The secret of each branch rolled on so far (a tick rolls hundreds of times on a few
    branches; each secret is derived once)."""

    def roll(self, key: str, *, branch: str = PUBLIC, orders: Iterable[str] = ()
             ) -> tuple[FairDice, EventKey]:
        event = EventKey(self.period, branch, key, format_entropy(orders))
        secret = self._branches.get(branch)
        if secret is None:
            secret = self._branches[branch] = branch_secret(self.secret, self.period, branch)
        return event.dice_from_secret(secret), event

    def roll_for(self, key: str, *armies: Army | None, branch: str = PUBLIC
                 ) -> tuple[FairDice, EventKey]:
        """The dice of an event the given armies take part in (their last orders are its
        entropy)."""
        return self.roll(key, branch=branch,
                         orders=[a.order_ref for a in armies if a is not None and a.order_ref])

    @staticmethod
    def line(event: EventKey, dice: FairDice) -> str:
        return str(dice_line(event, dice))


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

    The tick's battles (:mod:`rules.campaign.advance`) and the ``odds`` order
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
