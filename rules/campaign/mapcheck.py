"""Warnings about a map that loads but may not play as intended.

:func:`parse_map` refuses what cannot work (errors). The checks here find what works but is
probably a mistake: holdfasts no army can reach, ports whose sea leads nowhere, cuts between
tiles that are not neighbours (the grid already keeps them apart) and links between tiles
that already are. Each warning names the line (when known) and the tile.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from rules.campaign.config import RulesConfig, Terrain
from rules.campaign.worldmap import (
    MAX_COORD,
    WorldMap,
    grid_neighbours,
    map_rows,
    parse_tile_id,
    split_list,
)


@dataclass(frozen=True, slots=True)
class MapWarning:
    """Something probably wrong: ``tile`` concerned (may be empty), ``line`` of the map text
    when known, and the ``message``."""

    message: str
    tile: str = ""
    line: int | None = None

    def __str__(self) -> str:
        where = f"line {self.line}" if self.line is not None else "map"
        if self.tile:
            where += f", tile {self.tile}"
        return f"{where}: {self.message}"


def _components(world: WorldMap, member: Iterable[str]) -> dict[str, int]:
    """A component number for each tile in ``member``, joined over the map's adjacency."""
    allowed = set(member)
    out: dict[str, int] = {}
    number = 0
    for start in sorted(allowed):
        if start in out:
            continue
        number += 1
        out[start] = number
        stack = [start]
        while stack:
            current = stack.pop()
            for n in world.neighbours(current):
                if n in allowed and n not in out:
                    out[n] = number
                    stack.append(n)
    return out


def reachability_warnings(world: WorldMap) -> list[MapWarning]:
    """Holdfasts that no army can reach and ports whose water reaches no other port.

    A holdfast is reachable when another holdfast shares its land (armies march there) or it
    is a port whose water reaches another port (fleets sail there).
    """
    land = _components(world, (t.id for t in world if t.is_land))
    water = _components(world, (t.id for t in world if t.terrain is Terrain.WATER))
    holdfasts_in: dict[int, list[str]] = {}
    for t in world.holdfasts():
        holdfasts_in.setdefault(land[t.id], []).append(t.id)
    port_seas: dict[str, set[int]] = {p.id: {water[w] for w in world.water_adjacent(p.id)}
                                      for p in world.ports()}
    ports_on: dict[int, set[str]] = {}
    for port, seas in port_seas.items():
        for sea in seas:
            ports_on.setdefault(sea, set()).add(port)
    warnings: list[MapWarning] = []

    def sails_somewhere(port: str) -> bool:
        return any(ports_on[sea] - {port} for sea in port_seas.get(port, ()))

    for t in world.holdfasts():
        by_land = len(holdfasts_in[land[t.id]]) > 1
        if not by_land and not (t.port and sails_somewhere(t.id)):
            warnings.append(MapWarning(
                f"holdfast {t.label} cannot be reached: no other holdfast shares its land"
                + (" and its sea reaches no other port" if t.port else " and it is no port"),
                t.id))
    for port in sorted(port_seas):
        if not sails_somewhere(port):
            warnings.append(MapWarning(
                f"port {world.tiles[port].label}: its water reaches no other port (fleets "
                "raised here can blockade nothing but their own coast)", port))
    return warnings


def neighbour_warnings(text: str, world: WorldMap) -> list[MapWarning]:
    """Cuts between tiles that are not grid neighbours and links between tiles that are
    (both change nothing), read from the ``neighbours`` column of the map text that gave
    ``world``."""
    warnings: list[MapWarning] = []
    for line, row in map_rows(text):
        tid = row.get("id", "").strip()
        if tid not in world.tiles:
            continue
        col, r = parse_tile_id(tid)
        grid = {f"{c:02d}{rr:02d}" for c, rr in grid_neighbours(col, r)
                if 0 <= c <= MAX_COORD and 0 <= rr <= MAX_COORD}
        for item in split_list(row.get("neighbours", "")):
            other = item.lstrip("+-")
            if item.startswith("-") and other not in grid:
                warnings.append(MapWarning(
                    f"cut to {other}, which is not a neighbour on the grid: the cut changes "
                    "nothing (cut a tile touching this one, or link instead)", tid, line))
            elif not item.startswith("-") and other in grid:
                warnings.append(MapWarning(
                    f"link to {other}, which already is a neighbour on the grid: the link "
                    "changes nothing", tid, line))
    return warnings


def map_warnings(text: str, world: WorldMap) -> list[MapWarning]:
    """Every warning about the map text ``text`` (already parsed into ``world``)."""
    return neighbour_warnings(text, world) + reachability_warnings(world)


@dataclass(frozen=True, slots=True)
class MapDiff:
    """How a new map differs from the old one: tile ids ``added`` and ``removed``,
    ``renamed`` as (id, old name, new name), ``changed`` as (id, what changed), and the tile
    pairs whose adjacency appears or disappears."""

    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    renamed: tuple[tuple[str, str, str], ...] = ()
    changed: tuple[tuple[str, str], ...] = ()
    joined: tuple[tuple[str, str], ...] = ()
    parted: tuple[tuple[str, str], ...] = ()

    @property
    def empty(self) -> bool:
        return not (self.added or self.removed or self.renamed or self.changed or self.joined
                    or self.parted)


_COMPARED = ("terrain", "holdfast", "port", "special", "resource", "resource_benefit",
             "defense_bonus", "region")


def map_difference(old: WorldMap, new: WorldMap) -> MapDiff:
    """What changes from ``old`` to ``new`` (the defense bonus is named, never its value)."""
    renamed: list[tuple[str, str, str]] = []
    changed: list[tuple[str, str]] = []
    for tid in sorted(set(old.tiles) & set(new.tiles)):
        a, b = old.tiles[tid], new.tiles[tid]
        if a.name != b.name:
            renamed.append((tid, a.name, b.name))
        what = [f for f in _COMPARED if getattr(a, f) != getattr(b, f)]
        if what:
            changed.append((tid, ", ".join(
                "terrain " + f"{a.terrain.value} -> {b.terrain.value}" if f == "terrain"
                else "defense bonus" if f == "defense_bonus" else f.replace("_", " ")
                for f in what)))

    def pairs(world: WorldMap, keep: set[str]) -> set[tuple[str, str]]:
        return {(t, n) for t in keep for n in world.neighbours(t) if t < n and n in keep}

    both = set(old.tiles) & set(new.tiles)
    before, after = pairs(old, both), pairs(new, both)
    return MapDiff(
        added=tuple(sorted(set(new.tiles) - set(old.tiles))),
        removed=tuple(sorted(set(old.tiles) - set(new.tiles))),
        renamed=tuple(renamed), changed=tuple(changed),
        joined=tuple(sorted(after - before)), parted=tuple(sorted(before - after)))


def bonuses_out_of_range(world: WorldMap, rules: RulesConfig) -> list[MapWarning]:
    """Every holdfast whose secret defense bonus lies outside the public range
    (``defense_bonus_min``..``defense_bonus_max``): an error, not a warning, since posts
    promise players that the bonus is in that range. The bonus itself is never named (the
    check's lines are printed to whoever runs it, and the map may be shared)."""
    low, high = rules.defense_bonus_min, rules.defense_bonus_max
    return [MapWarning(f"the defense bonus is outside the public range {low} to {high} "
                       "(rules.defense_bonus_min, rules.defense_bonus_max)", tile.id)
            for tile in sorted(world.tiles.values(), key=lambda t: t.id)
            if tile.holdfast and not low <= tile.defense_bonus <= high]


def neutral_garrisons(world: WorldMap, seats: Iterable[object]) -> tuple[tuple[str, int], ...]:
    """The holdfasts that are no claim's seat (``seats``: the roster's holdfast references;
    one the map does not know is left to the roster's check), each as (label, the neutral
    garrison the map gives it), in the map's order: the troops a claim besieging it meets."""
    held = {world.tile(ref).id for ref in seats if isinstance(ref, str) and ref in world}
    return tuple((t.label, t.garrison) for t in world.holdfasts() if t.id not in held)
