"""Sides in battle and the garrison of a holdfast (docs/rules.md "Battles between sides").

A battle on a tile is fought between two sides, not two armies: the attacking side is every
army on the tile whose claim is the attacker's or allied to it, the defending side likewise for
the defender's claim. An army whose claim is allied to both, or to neither, stays out. Every
place that counts a side asks this module: the tick's battles (:mod:`rules.campaign.tick`),
the ``odds`` order (:func:`rules.campaign.decide.battle.odds_shown`), and through them the
posts and the preview.

The garrison of a holdfast is every troop of its holder on its tile: at home, mustering there
and the armies standing there (:func:`garrison_count`); the siege length, the assault and the
fall all count it here.

Pure: values in, values out.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from rules.campaign.battle import Side, Winner
from rules.campaign.world import (
    Army,
    ArmyKind,
    ArmyState,
    ClaimState,
    Modifiers,
    World,
    army_order,
    fighting_side,
    in_army_order,
    war_key,
)
from rules.campaign.worldmap import WorldMap

__all__ = [
    "FIGHTING",
    "GARRISON_STATES",
    "allied",
    "allies_drawn_in",
    "fighting_sides",
    "garrison_armies",
    "garrison_count",
    "join_wars",
    "joins",
    "side_armies",
]

FIGHTING = frozenset({ArmyState.STANDING, ArmyState.MARCHING, ArmyState.BESIEGING,
                      ArmyState.RETREATING})
"""The states of an army out on a tile that joins a battle fought there (an army inside its
walls or still mustering is the holdfast's garrison, not a field army)."""

GARRISON_STATES = frozenset({ArmyState.MUSTERING, ArmyState.GARRISON, ArmyState.STANDING})
"""The states of a holder's land armies on its holdfast that count in its garrison."""


def allied(world: World, a: int, b: int) -> bool:
    """Whether claims ``a`` and ``b`` are allied (a claim is its own ally)."""
    return a == b or war_key(a, b) in world.allies


def joins(world: World, claim: int, side: int, other: int) -> bool:
    """Whether an army of ``claim`` fights on the side of ``side`` against ``other``: it is
    ``side``'s own, or allied to ``side`` and not to ``other``."""
    if claim == side:
        return True
    if claim == other:
        return False
    return allied(world, claim, side) and not allied(world, claim, other)


def side_armies(world: World, lead: Army, other: Army | int) -> tuple[Army, ...]:
    """The armies that fight with ``lead`` against ``other`` (an army, or a claim whose
    garrison it is) on ``lead``'s tile: ``lead`` first, then every other army of the same kind
    on that tile, out in the field (:data:`FIGHTING`), whose claim joins ``lead``'s side
    (:func:`joins`), in :func:`~rules.campaign.world.army_order` (never by number)."""
    against = other if isinstance(other, int) else other.claim_id
    others = [a for a in world.armies.values()
              if a.id != lead.id and a.tile == lead.tile and a.kind is lead.kind
              and a.state in FIGHTING and (isinstance(other, int) or a.id != other.id)
              and joins(world, a.claim_id, lead.claim_id, against)]
    return (lead, *in_army_order(others))


def allies_drawn_in(world: World, attacker: Army, defender: Army
                    ) -> tuple[tuple[Army, ...], tuple[Army, ...]]:
    """The armies of claims other than ``attacker``'s and ``defender``'s that would fight
    beside each of them on their tile (:func:`side_armies`), as the world stands now: the
    attacker's side's, then the defender's."""
    two = (attacker.claim_id, defender.claim_id)
    return (tuple(a for a in side_armies(world, attacker, defender) if a.claim_id not in two),
            tuple(a for a in side_armies(world, defender, attacker) if a.claim_id not in two))


def fighting_sides(world: World, attacker: Army, defender: Army, *, map: WorldMap, tick: int,
                   modifiers: Modifiers, began: int | None = None, assault: bool = False,
                   secrets_of: int | None = None
                   ) -> tuple[tuple[tuple[Army, Side], ...], tuple[tuple[Army, Side], ...]]:
    """Both sides of a battle between ``attacker``'s and ``defender``'s claims on their tile,
    each army with its own :class:`~rules.campaign.battle.Side`
    (:func:`rules.campaign.world.fighting_side`: its terrain, its modifiers, its characters;
    ``secrets_of``: leave out the hidden modifiers of every other claim's armies)."""

    def side(lead: Army, other: Army, role: Winner) -> tuple[tuple[Army, Side], ...]:
        return tuple((a, fighting_side(world, a, role, map=map, tick=tick, modifiers=modifiers,
                                       began=began,
                                       assault=assault, secrets_of=secrets_of))
                     for a in side_armies(world, lead, other))

    return side(attacker, defender, Winner.ATTACKER), side(defender, attacker, Winner.DEFENDER)


def join_wars(world: World, attackers: Iterable[int], defenders: Iterable[int]) -> World:
    """The world with every claim of one side at war with every claim of the other (joining
    a side is going to war; allies who fought each other are allies no more)."""
    pairs = {war_key(a, d) for a in set(attackers) for d in set(defenders) if a != d}
    new = pairs - world.wars
    if not new:
        return world
    return replace(world, wars=world.wars | new, allies=world.allies - new)


def garrison_armies(world: World, claim_id: int, tile: str,
                    armies: Iterable[Army] | None = None) -> tuple[Army, ...]:
    """The land armies of claim ``claim_id`` in the garrison of holdfast ``tile``: mustering,
    inside or standing there (:data:`GARRISON_STATES`), in
    :func:`~rules.campaign.world.army_order`. ``armies``: the armies to look
    at (default the world's)."""
    return tuple(sorted((a for a in (armies if armies is not None else world.armies.values())
                         if a.claim_id == claim_id and a.tile == tile
                         and a.kind is ArmyKind.LAND and a.state in GARRISON_STATES),
                        key=army_order))


def garrison_count(world: World, claim: ClaimState, tile: str,
                   armies: Iterable[Army] | None = None) -> tuple[int, int]:
    """The garrison of ``claim``'s holdfast ``tile`` (infantry, cavalry): its troops at home
    when ``tile`` is its seat, and its :func:`garrison_armies`. The siege length, the assault
    and the fall all count this."""
    home = claim.holdfast == tile
    there = garrison_armies(world, claim.id, tile, armies)
    return ((claim.infantry if home else 0) + sum(a.infantry for a in there),
            (claim.cavalry if home else 0) + sum(a.cavalry for a in there))
