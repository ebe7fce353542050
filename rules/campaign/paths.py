"""Movement paths on the campaign map: validation, travel cost, cheapest routes, detection reach.

docs/rules.md, Movement: the travel cost of a path is the sum of the terrain costs of every tile
entered (the start tile is free); a path must be contiguous, start at the army's tile and avoid
tiles the army's kind cannot enter. Land armies enter only the six land terrains, at the costs
of ``RulesConfig.terrain_cost``. Fleets enter only water; a water tile costs what
``terrain_cost`` lists for ``water`` if a campaign adds it, else :data:`FLEET_WATER_COST`.
A fleet may also enter a *harbour*: a port holdfast of its own claim or of an ally (the caller
names them), from the adjacent water, at the cost of a water tile; there it can disband.

Timing (speed, ticks, arrival) lives with the movement engine; this module only answers
"which tiles, in which order, at what cost".
"""

from __future__ import annotations

import heapq
import re
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum

from rules.campaign.config import DEFAULT_RULES, LAND_TERRAINS, RulesConfig, Terrain
from rules.campaign.worldmap import Tile, UnknownTile, WorldMap, name_key
from rules.errors import InvalidInput
from rules.suggest import closest, did_you_mean

FLEET_WATER_COST = 1
"""Travel cost of a water tile for a fleet when the campaign config gives none."""

PATH_SEPARATOR = " > "
_SPLIT_RE = re.compile(r"->|→|>|,|\r?\n")


class ArmyKind(StrEnum):
    """What moves: a land army (land terrains only) or a fleet (water only)."""

    LAND = "land"
    FLEET = "fleet"


class PathProblem(StrEnum):
    """Why a path was refused."""

    EMPTY = "empty"
    UNKNOWN_TILE = "unknown_tile"
    NOT_ADJACENT = "not_adjacent"
    CANNOT_ENTER = "cannot_enter"


class IllegalPath(InvalidInput):
    """A path step is refused (:func:`path_problem` words it for a player).

    ``index`` is the position of the bad step in the references the player gave (0-based;
    the message counts from 1), ``problem`` says why, ``ref`` is the reference as given,
    ``previous`` the tile the step leaves from (None for an empty path or an unknown tile),
    ``suggestions`` close tile names for an unknown tile.
    """

    def __init__(
        self,
        index: int,
        problem: PathProblem,
        message: str,
        expected: str = "",
        *,
        ref: str = "",
        previous: Tile | None = None,
        suggestions: tuple[str, ...] = (),
    ) -> None:
        self.index = index
        self.problem = problem
        self.ref = ref
        self.previous = previous
        self.suggestions = suggestions
        super().__init__(f"path[{index}]", message, expected)


def entry_cost(tile: Tile, kind: ArmyKind, rules: RulesConfig = DEFAULT_RULES,
               harbours: Collection[str] = ()) -> int | None:
    """Travel cost for an army of ``kind`` to enter ``tile``; None when it cannot enter.

    ``harbours``: ids of port holdfasts a fleet may enter (its own claim's and its allies').
    """
    if kind is ArmyKind.LAND:
        if tile.terrain not in LAND_TERRAINS:
            return None
        return rules.cost_of(tile.terrain)
    if tile.terrain is not Terrain.WATER and not (tile.port and tile.id in harbours):
        return None
    configured = rules.cost_of(Terrain.WATER)
    return FLEET_WATER_COST if configured is None else configured


def _breakdown(tiles: Sequence[Tile], costs: Sequence[int], total: int) -> str:
    if not tiles:
        return f"nothing entered = {total}"
    parts = [f"{t.label} ({t.terrain.value}) {c}" for t, c in zip(tiles, costs, strict=True)]
    return " + ".join(parts) + f" = {total}"


@dataclass(frozen=True, slots=True)
class PathCheck:
    """A valid path: the start, the tiles entered in order, each one's cost and the total."""

    start: Tile
    tiles: tuple[Tile, ...]
    costs: tuple[int, ...]
    kind: ArmyKind = ArmyKind.LAND

    @property
    def total(self) -> int:
        return sum(self.costs)

    @property
    def ids(self) -> tuple[str, ...]:
        """Ids of the entered tiles, in order (the start excluded)."""
        return tuple(t.id for t in self.tiles)

    @property
    def terrains(self) -> tuple[Terrain, ...]:
        """Terrain of each entered tile, in order (what the movement engine times)."""
        return tuple(t.terrain for t in self.tiles)

    def breakdown(self) -> str:
        """Per-tile costs for a reply: ``Moat Cailin (swamp) 3 + 0513 (field) 1 = 4``."""
        return _breakdown(self.tiles, self.costs, self.total)


@dataclass(frozen=True, slots=True)
class Route(PathCheck):
    """A cheapest route from ``start`` to the last of ``tiles`` (empty when already there).

    It has the fields and methods of :class:`PathCheck`: a route is a path that is known
    to be legal and cheapest.
    """


def _cannot_enter_reason(tile: Tile, kind: ArmyKind) -> str:
    if kind is ArmyKind.LAND:
        return f"a land army cannot enter {tile.label} ({tile.terrain.value})"
    return f"a fleet cannot enter {tile.label} ({tile.terrain.value}): fleets stay on water"


def check_path(
    world: WorldMap,
    start_tile_id: str,
    refs: Sequence[str],
    kind: ArmyKind = ArmyKind.LAND,
    rules: RulesConfig = DEFAULT_RULES,
    harbours: Collection[str] = (),
) -> PathCheck:
    """Validate a path from the army's tile and price it.

    ``refs`` are the tiles entered after the start, by id or name; a leading repeat of the
    start tile is accepted and dropped. Each step must exist, border the previous tile and be
    enterable by ``kind``. Raises UnknownTile (field ``start``) for an unknown start and
    IllegalPath naming the first bad step otherwise.
    """
    start = world.tile(start_tile_id, field="start")
    offset = 0
    if refs and _is_start(world, refs[0], start):
        offset = 1
    if len(refs) <= offset:
        example = _example(world, start, kind, rules)
        raise IllegalPath(0, PathProblem.EMPTY, "the path enters no tile",
                          f"the tiles after {start.label}, e.g. {example}")
    previous = start
    tiles: list[Tile] = []
    costs: list[int] = []
    for index in range(offset, len(refs)):
        ref = refs[index]
        try:
            tile = world.tile(ref)
        except UnknownTile as exc:
            raise IllegalPath(
                index, PathProblem.UNKNOWN_TILE, f"{_step_words(index, repr(ref))}, is not on "
                "the map",
                exc.expected, ref=ref, suggestions=exc.suggestions,
            ) from None
        where = _step_words(index, _named(tile))
        if not world.are_adjacent(previous.id, tile.id):
            if tile.id == previous.id:
                message = f"{where}, repeats the tile before it"
            else:
                message = f"{where}, does not border {_named(previous)}, the tile before it"
            bordering = _bordering_tiles(world, previous, kind, rules, harbours)
            raise IllegalPath(
                index, PathProblem.NOT_ADJACENT, message,
                f"a tile bordering {previous.label}: "
                + (", ".join(bordering) or "none it can enter"),
                ref=ref, previous=previous,
                suggestions=closest(ref, bordering, key=name_key) if tile.id != previous.id
                else (),
            )
        cost = entry_cost(tile, kind, rules, harbours)
        if cost is None:
            raise IllegalPath(
                index, PathProblem.CANNOT_ENTER,
                f"{where}: {_cannot_enter_reason(tile, kind)}",
                "water tiles only" if kind is ArmyKind.FLEET else "land tiles only",
                ref=ref, previous=previous,
            )
        tiles.append(tile)
        costs.append(cost)
        previous = tile
    return PathCheck(start, tuple(tiles), tuple(costs), kind)


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _step_words(index: int, tile: str) -> str:
    """``the 3rd tile of your path, Riverrun (0831)``: a step counted as the player wrote the
    path (the start tile, when written, is the 1st)."""
    return f"the {_ordinal(index + 1)} tile of your path, {tile}"


def path_problem(error: IllegalPath) -> str:
    """What was wrong with a path, in the player's words and without the field name, with a
    "Did you mean ...?" when a close tile name is known:
    ``the 3rd tile of your path, 'Crosroads', is not on the map. Did you mean Crossroads?``"""
    hint = did_you_mean(error.suggestions)
    return error.message + (f". {hint}" if hint else "")


def tile_problem(error: UnknownTile) -> str:
    """An unknown tile name in the player's words: ``no tile is called 'Riverun'. Did you
    mean Riverrun?`` (the same suggestions as a path's)."""
    hint = did_you_mean(error.suggestions)
    return error.message + (f". {hint}" if hint else "")


def _named(tile: Tile) -> str:
    return f"{tile.name} ({tile.id})" if tile.name else tile.id


def _is_start(world: WorldMap, ref: str, start: Tile) -> bool:
    try:
        return world.tile(ref).id == start.id
    except UnknownTile:
        return False


def _bordering_tiles(world: WorldMap, tile: Tile, kind: ArmyKind, rules: RulesConfig,
                     harbours: Collection[str] = ()) -> list[str]:
    """The labels of the tiles bordering ``tile`` that ``kind`` can enter."""
    return [
        world.tiles[n].label
        for n in world.neighbours(tile.id)
        if entry_cost(world.tiles[n], kind, rules, harbours) is not None
    ]


def first_step(world: WorldMap, rules: RulesConfig, kind: ArmyKind, tile: str
               ) -> tuple[str, int] | None:
    """The first neighbour of ``tile`` (in the map's order) a force of ``kind`` may enter
    under ``rules``, and its true cost; None when it may enter none."""
    for near in world.neighbours(tile):
        cost = entry_cost(world.tile(near), kind, rules)
        if cost is not None:
            return near, cost
    return None


def _example(world: WorldMap, start: Tile, kind: ArmyKind, rules: RulesConfig) -> str:
    """A tile to name in the answer to an empty path: :func:`first_step`'s."""
    step = first_step(world, rules, kind, start.id)
    return world.tile(step[0]).label if step is not None else "a bordering tile"


def cheapest_route(
    world: WorldMap,
    start: str,
    goal: str,
    kind: ArmyKind = ArmyKind.LAND,
    rules: RulesConfig = DEFAULT_RULES,
    harbours: Collection[str] = (),
) -> Route | None:
    """The cheapest route by travel cost from ``start`` to ``goal`` (ids or names).

    Ties go to the route entering fewer tiles, then to the one found first when neighbours are
    taken in id order, so the answer is always the same. Returns None when ``goal`` cannot be
    reached by ``kind``, and an empty route when ``goal`` is ``start``. Raises UnknownTile
    (fields ``start``/``goal``).
    """
    first = world.tile(start, field="start")
    last = world.tile(goal, field="goal")
    if first.id == last.id:
        return Route(first, (), (), kind)
    if entry_cost(last, kind, rules, harbours) is None:
        return None
    best: dict[str, tuple[int, int]] = {first.id: (0, 0)}
    came_from: dict[str, str] = {}
    heap: list[tuple[int, int, str]] = [(0, 0, first.id)]
    done: set[str] = set()
    while heap:
        cost, steps, current = heapq.heappop(heap)
        if current in done:
            continue
        done.add(current)
        if current == last.id:
            break
        for n in world.neighbours(current):
            if n in done:
                continue
            step_cost = entry_cost(world.tiles[n], kind, rules, harbours)
            if step_cost is None:
                continue
            candidate = (cost + step_cost, steps + 1)
            known = best.get(n)
            if known is None or candidate < known:
                best[n] = candidate
                came_from[n] = current
                heapq.heappush(heap, (candidate[0], candidate[1], n))
    if last.id not in done:
        return None
    chain = [last.id]
    while chain[-1] != first.id:
        chain.append(came_from[chain[-1]])
    chain.reverse()
    tiles = tuple(world.tiles[t] for t in chain[1:])
    costs = tuple(entry_cost(t, kind, rules, harbours) or 0 for t in tiles)
    return Route(first, tiles, costs, kind)


def format_path(tiles: Iterable[Tile | str]) -> str:
    """A path as players write it: labels (name, else id) joined by `` > ``.

    :func:`parse_path` reads it back to the same references.
    """
    return PATH_SEPARATOR.join(t.label if isinstance(t, Tile) else t.strip() for t in tiles)


def parse_path(text: str) -> tuple[str, ...]:
    """The tile references of a path written with ``>``, ``->``, ``→``, commas or new lines.

    Empty pieces (a doubled or trailing separator) are skipped. Raises InvalidInput (field
    ``path``) when no reference is left.
    """
    refs = tuple(" ".join(p.split()) for p in _SPLIT_RE.split(text))
    refs = tuple(r for r in refs if r)
    if not refs:
        raise InvalidInput("path", "no tiles given", "tiles separated by >, e.g. 0412 > 0413")
    return refs


@dataclass(frozen=True, slots=True)
class Sighting:
    """An observer tile within reach of a path.

    ``index`` is the position (in the sequence given) of the first path tile within the
    radius, ``distance`` the observer's distance from that tile.
    """

    observer: str
    index: int
    distance: int


def observers_along(
    world: WorldMap,
    path_tile_ids: Sequence[str],
    observer_tiles: Iterable[str],
    radius: int,
) -> tuple[Sighting, ...]:
    """Which observer tiles are within ``radius`` steps of some tile of the path.

    The caller chooses the observers (holdfasts, occupied resource tiles) and whether the
    path includes its start. Distance counts every tile, whatever its terrain. Results are
    ordered by the index of the first path tile in reach, then by observer id. Raises
    UnknownTile for an unknown id and InvalidInput for a negative radius.
    """
    if radius < 0:
        raise InvalidInput("radius", f"{radius} is negative", "0 or more")
    for tid in path_tile_ids:
        world.neighbours(tid)
    position: dict[str, int] = {}
    for i, tid in enumerate(path_tile_ids):
        position.setdefault(tid, i)
    sightings: list[Sighting] = []
    for observer in sorted(set(observer_tiles)):
        reach = world.distances_from(observer, radius)
        hits = [(position[t], d) for t, d in reach.items() if t in position]
        if hits:
            index, distance = min(hits)
            sightings.append(Sighting(observer, index, distance))
    sightings.sort(key=lambda s: (s.index, s.observer))
    return tuple(sightings)
