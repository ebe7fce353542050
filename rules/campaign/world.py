"""The campaign world as the rules see it: lifecycles as enums, an army as a frozen value, and the
one way an army is counted in battle.

The database stores these enums (``bot.db.models`` declares its columns with them); the services
turn rows into :class:`Army` values and ask :func:`army_side` how a battle counts them, so the
``odds`` order and the battle the tick fights cannot disagree.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from datetime import datetime
from decimal import Decimal
from enum import StrEnum
from fractions import Fraction
from typing import Any

from rules.campaign.battle import Side, Winner
from rules.campaign.config import Terrain
from rules.campaign.meetings import holds_position
from rules.campaign.modifiers import Modifier
from rules.campaign.paths import ArmyKind

__all__ = [
    "ACTIVE_STATES",
    "FIGHTING_STATES",
    "IN_FIELD_STATES",
    "STATIONARY_STATES",
    "Army",
    "ArmyKind",
    "ArmyState",
    "BattleKind",
    "BattleStatus",
    "CharacterStatus",
    "March",
    "Reaction",
    "RelationStatus",
    "SiegeStatus",
    "army_side",
    "battle_side",
    "evolve",
    "is_stationary",
    "moved",
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
_set = object.__setattr__


def evolve(army: Army, **changes: Any) -> Army:
    """``army`` with ``changes`` (field names and new values): what :func:`dataclasses.replace`
    gives, at half its cost (a tick changes thousands of armies, and an :class:`Army` has no
    ``__post_init__`` to run)."""
    new = _new(Army)
    for name in _ARMY_FIELDS:
        _set(new, name, changes[name] if name in changes else getattr(army, name))
    return new


def moved(army: Army, tile: str, travelled: tuple[str, ...], march: March,
          meta: Mapping[str, Any]) -> Army:
    """``evolve(army, tile=tile, travelled=travelled, march=march, meta=meta)``, written out
    field by field: the army a march step makes (a tick makes thousands, and the loop of
    :func:`evolve` costs about twice as much). Every other field is kept; a field added to
    :class:`Army` must be added here too (the tests compare the two for every field)."""
    new = _new(Army)
    _set(new, "id", army.id)
    _set(new, "claim_id", army.claim_id)
    _set(new, "kind", army.kind)
    _set(new, "state", army.state)
    _set(new, "tile", tile)
    _set(new, "infantry", army.infantry)
    _set(new, "cavalry", army.cavalry)
    _set(new, "ships", army.ships)
    _set(new, "stationary_since", army.stationary_since)
    _set(new, "arrival_tick", army.arrival_tick)
    _set(new, "retreat_penalty", army.retreat_penalty)
    _set(new, "ready_tick", army.ready_tick)
    _set(new, "march", march)
    _set(new, "travelled", travelled)
    _set(new, "commander_id", army.commander_id)
    _set(new, "equipment", army.equipment)
    _set(new, "meta", meta)
    _set(new, "accepted_at", army.accepted_at)
    return new


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
