"""Shared world builders for the rules tests: a row of ten field tiles, armies, worlds and
battles, so that the tests of an order, a phase of the tick or the modifiers in force build the
same values the same way (each file keeps only what is particular to it)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from fractions import Fraction
from typing import Any

from rules.campaign.world import (
    Army,
    ArmyKind,
    ArmyState,
    BattleKind,
    BattleState,
    ClaimState,
    March,
    World,
)
from rules.campaign.worldmap import WorldMap, parse_map, tile_id

HEADER = "id,name,terrain,flags,resource_benefit,defense_bonus,region,neighbours\n"
T = [tile_id(c, 0) for c in range(10)]
"""The tiles of :func:`row_map`, west to east: 0000 .. 0900."""


def row_map(resources: Mapping[int, str] | None = None,
            terrains: Mapping[int, str] | None = None) -> WorldMap:
    """One row of ten tiles (a tile borders the next one), holdfasts ``Hold 0`` and ``Hold 9``
    at both ends; ``resources``: column -> the benefit of a resource tile there; ``terrains``:
    column -> its terrain (default field)."""
    resources, terrains = resources or {}, terrains or {}
    return parse_map(HEADER + "".join(
        f"{tile_id(c, 0)},{'Hold ' + str(c) if c in (0, 9) else ''},{terrains.get(c, 'field')},"
        f"{'holdfast' if c in (0, 9) else 'resource' if c in resources else ''},"
        f"{resources.get(c, '')},,,\n" for c in range(10)))


def army(id: int, claim: int, tile: str, state: ArmyState = ArmyState.STANDING, *,
         path: tuple[str, ...] = (), depart: int | None = None, infantry: int = 100,
         costs: tuple[int, ...] | None = None, **kw: Any) -> Army:
    """A land army of ``infantry`` on ``tile``; ``path``: a march ahead (each step costing 1,
    or ``costs``), departing at tick ``depart``."""
    march = March(path, tuple(1 for _ in path) if costs is None else costs, Fraction(0), depart)
    return Army(id, claim, ArmyKind.LAND, state, tile, infantry=infantry, march=march, **kw)


def world(*armies: Army, claims: Iterable[ClaimState], wars: bool = False,
          **kw: Any) -> World:
    """A world of ``armies`` and ``claims``; ``wars``: claims 1 and 2 are at war."""
    return World.of(armies=armies, claims=tuple(claims), wars=[(1, 2)] if wars else (), **kw)


def battle(id: int, attacker: Army, defender: Army, began: int, resolve: int,
           **kw: Any) -> BattleState:
    """A field battle of ``attacker`` on ``defender``'s tile, begun at tick ``began`` and
    fought at ``resolve``."""
    return BattleState(id, defender.tile, BattleKind.FIELD, attacker.id, defender.id,
                       attacker.claim_id, defender.claim_id, began, resolve, **kw)
