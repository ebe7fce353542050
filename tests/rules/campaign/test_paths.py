"""Movement paths: validation, travel cost, cheapest routes, and detection reach along a path."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.campaign.config import DEFAULT_RULES, LAND_TERRAINS, RulesConfig, Terrain
from rules.campaign.paths import (
    FLEET_WATER_COST,
    ArmyKind,
    IllegalPath,
    PathProblem,
    Sighting,
    cheapest_route,
    check_path,
    entry_cost,
    first_step,
    format_path,
    observers_along,
    parse_path,
    path_problem,
    tile_problem,
)
from rules.campaign.worldmap import Tile, UnknownTile, WorldMap, tile_id
from rules.errors import InvalidInput

SYMBOL = {
    ".": Terrain.FIELD, "f": Terrain.FOREST, "h": Terrain.HILL, "m": Terrain.MOUNTAIN,
    "s": Terrain.SAND, "w": Terrain.SWAMP, "~": Terrain.WATER, "#": Terrain.IMPASSABLE,
}


def grid(*columns: str, names: dict[str, str] | None = None, col0: int = 0, row0: int = 0
         ) -> WorldMap:
    """A map from columns of terrain symbols (``columns[i][j]`` is column col0+i, row row0+j)."""
    names = names or {}
    tiles = []
    for i, column in enumerate(columns):
        for j, symbol in enumerate(column):
            tid = tile_id(col0 + i, row0 + j)
            tiles.append(Tile(tid, names.get(tid, ""), SYMBOL[symbol], col0 + i, row0 + j))
    return WorldMap.of(tiles)


# --- travel cost ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("terrain", "land", "fleet"),
    [
        (Terrain.FIELD, 1, None),
        (Terrain.FOREST, 2, None),
        (Terrain.HILL, 2, None),
        (Terrain.MOUNTAIN, 3, None),
        (Terrain.SAND, 3, None),
        (Terrain.SWAMP, 3, None),
        (Terrain.WATER, None, 1),
        (Terrain.IMPASSABLE, None, None),
    ],
)
def test_terrain_travel_cost_chart(terrain: Terrain, land: int | None, fleet: int | None) -> None:
    """Moving your troops, terrain chart: Field 1, Forest 2, Hill 2, Mountain 3, Sand 3, Swamp 3.

    Land armies cannot enter water or impassable tiles; fleets enter only water, 1 per tile.
    """
    tile = Tile("0000", "", terrain, 0, 0)
    assert entry_cost(tile, ArmyKind.LAND) == land
    assert entry_cost(tile, ArmyKind.FLEET) == fleet


def test_movement_travel_cost_is_the_sum_of_entered_tiles_start_free() -> None:
    """Movement: the travel cost is the sum of the costs of every tile entered; the start is free.

    An army standing on a mountain that enters a field and then a forest pays 1 + 2 = 3.
    """
    world = grid("m.f")
    check = check_path(world, "0000", ["0001", "0002"])
    assert check.costs == (1, 2)
    assert check.total == 3
    assert [t.id for t in check.tiles] == ["0001", "0002"]
    assert check.terrains == (Terrain.FIELD, Terrain.FOREST)
    assert check.start.id == "0000"


def test_movement_breakdown_names_each_tile_with_terrain_and_cost() -> None:
    """Movement: a refused total is answered with the per-tile breakdown and the computed cost."""
    world = grid(".w.", names={"0512": "Moat Cailin"}, col0=5, row0=11)
    check = check_path(world, "0511", ["Moat Cailin", "0513"])
    assert check.breakdown() == "Moat Cailin (swamp) 3 + 0513 (field) 1 = 4"


def test_movement_costs_come_from_the_campaign_config() -> None:
    """Movement: the terrain costs are config; a campaign may change them or price water."""
    rules = RulesConfig(terrain_cost=((Terrain.FIELD, 2), (Terrain.FOREST, 5),
                                      (Terrain.WATER, 4)))
    world = grid(".f~")
    assert check_path(world, "0000", ["0001"], rules=rules).total == 5
    assert entry_cost(world.tile("0002"), ArmyKind.FLEET, rules) == 4
    # pricing water for fleets does not let land armies swim
    assert entry_cost(world.tile("0002"), ArmyKind.LAND, rules) is None
    assert entry_cost(world.tile("0002"), ArmyKind.FLEET) == FLEET_WATER_COST


# --- path validation -----------------------------------------------------------------------------


def test_movement_path_must_be_contiguous() -> None:
    """Movement: each tile of the path must border the one before it."""
    world = grid("....", names={"0003": "Riverrun"})
    with pytest.raises(IllegalPath) as info:
        check_path(world, "0000", ["0001", "Riverrun"])
    error = info.value
    assert error.problem is PathProblem.NOT_ADJACENT
    assert error.index == 1
    assert error.previous is not None and error.previous.id == "0001"
    assert "Riverrun (0003), does not border 0001" in str(error)
    assert "0002" in error.expected


def test_path_problems_are_worded_for_players_with_a_did_you_mean() -> None:
    """A bad step is named by its place in the path as written ("the 3rd tile of your path"),
    never by a field like ``path[2]``, and a misspelt or non-bordering tile gets the closest
    name: "Did you mean Crossroads?"."""
    world = grid(".....", names={"0000": "Winterfell", "0002": "Crossroads",
                                 "0004": "Riverrun"})
    with pytest.raises(IllegalPath) as info:
        check_path(world, "0000", ["Winterfell", "0001", "Crosroads"])
    text = path_problem(info.value)
    assert text == ("the 3rd tile of your path, 'Crosroads', is not on the map. "
                    "Did you mean Crossroads?")
    assert "path[" not in text and "step" not in text
    with pytest.raises(IllegalPath) as info:
        check_path(world, "0000", ["0001", "Riverrun"])
    assert path_problem(info.value) == (
        "the 2nd tile of your path, Riverrun (0004), does not border 0001, the tile before it")
    with pytest.raises(IllegalPath) as info:  # a slip of one digit: the bordering tile is meant
        check_path(grid("....."), "0000", ["0001", "0003"])
    assert path_problem(info.value).endswith("the tile before it. Did you mean 0002?")
    with pytest.raises(UnknownTile) as unknown:
        world.tile("Riverun")
    assert tile_problem(unknown.value) == "no tile is called 'Riverun'. Did you mean Riverrun?"


def test_movement_path_starts_at_the_army_tile() -> None:
    """Movement: the path starts from the army's tile, so its first tile must border it."""
    world = grid(".....")
    with pytest.raises(IllegalPath) as info:
        check_path(world, "0000", ["0002", "0003"])
    assert info.value.index == 0
    assert info.value.problem is PathProblem.NOT_ADJACENT


def test_movement_path_may_repeat_the_start_tile_first() -> None:
    """Movement: a path written from the start tile itself is accepted; the start stays free."""
    world = grid("...", names={"0000": "Winterfell"})
    check = check_path(world, "0000", ["winterfell", "0001", "0002"])
    assert check.ids == ("0001", "0002")
    assert check.total == 2
    with pytest.raises(IllegalPath) as info:
        check_path(world, "0000", ["Winterfell", "0002"])
    assert info.value.index == 1  # indexes refer to what the player wrote


def test_movement_path_may_not_stand_still_twice() -> None:
    """Movement: a tile repeated right after itself is not a step."""
    world = grid("...")
    with pytest.raises(IllegalPath, match="repeats the tile before it") as info:
        check_path(world, "0000", ["0001", "0001"])
    assert info.value.index == 1


@pytest.mark.parametrize("blocked", ["~", "#"])
def test_movement_land_armies_avoid_water_and_impassable(blocked: str) -> None:
    """Movement: a land army's path may not enter water or impassable tiles."""
    world = grid(f".{blocked}.")
    with pytest.raises(IllegalPath) as info:
        check_path(world, "0000", ["0001", "0002"])
    assert info.value.problem is PathProblem.CANNOT_ENTER
    assert info.value.index == 0
    assert "a land army cannot enter 0001" in str(info.value)


def test_movement_fleets_stay_on_water() -> None:
    """Movement: a fleet enters only water tiles, one travel cost each; it may leave a port."""
    world = grid(".~~.")
    check = check_path(world, "0000", ["0001", "0002"], ArmyKind.FLEET)
    assert check.total == 2
    with pytest.raises(IllegalPath, match="fleets stay on water") as info:
        check_path(world, "0000", ["0001", "0002", "0003"], ArmyKind.FLEET)
    assert info.value.index == 2


def test_movement_unknown_tile_in_path_suggests_names() -> None:
    """Movement: an unknown step is refused with close tile names."""
    world = grid("...", names={"0001": "Greywater Watch"})
    with pytest.raises(IllegalPath) as info:
        check_path(world, "0000", ["Greywatr Watch"])
    assert info.value.problem is PathProblem.UNKNOWN_TILE
    assert info.value.suggestions == ("Greywater Watch",)
    assert isinstance(info.value, InvalidInput)


def test_movement_unknown_start_and_empty_path() -> None:
    """Movement: the army's tile must exist, and the path must enter at least one tile."""
    world = grid("..")
    with pytest.raises(UnknownTile) as info:
        check_path(world, "0909", ["0000"])
    assert info.value.field == "start"
    with pytest.raises(IllegalPath) as empty:
        check_path(world, "0000", [])
    assert empty.value.problem is PathProblem.EMPTY
    with pytest.raises(IllegalPath):
        check_path(world, "0000", ["0000"])


def test_an_empty_paths_example_is_a_tile_the_configured_rules_let_it_enter() -> None:
    """The answer to an empty path names the first neighbour the army may enter under the
    campaign's rules (the one a muster's receipt suggests too), not under the defaults."""
    world = grid(".f", "..")  # 0000's neighbours: 0001 (forest) first, then 0100 (field)
    no_forest = RulesConfig(terrain_cost=tuple(
        (t, c) for t, c in DEFAULT_RULES.terrain_cost if t is not Terrain.FOREST))
    for rules, named in ((DEFAULT_RULES, "0001"), (no_forest, "0100")):
        assert first_step(world, rules, ArmyKind.LAND, "0000") == (
            named, rules.cost_of(world.tile(named).terrain))
        with pytest.raises(IllegalPath) as empty:
            check_path(world, "0000", [], rules=rules)
        assert empty.value.expected == f"the tiles after 0000, e.g. {named}"


# --- cheapest route ------------------------------------------------------------------------------


def test_cheapest_route_goes_around_the_mountains() -> None:
    """Shortest-route suggestion: "your path costs 7; the cheapest route costs 4"."""
    world = grid(".mm.", "....")
    straight = check_path(world, "0000", ["0001", "0002", "0003"])
    assert straight.total == 7
    route = cheapest_route(world, "0000", "0003")
    assert route is not None
    assert route.total == 4
    assert route.ids == ("0100", "0101", "0102", "0003")
    assert check_path(world, "0000", route.ids).total == route.total
    assert route.breakdown() == (
        "0100 (field) 1 + 0101 (field) 1 + 0102 (field) 1 + 0003 (field) 1 = 4"
    )


def test_cheapest_route_prefers_fewer_tiles_on_equal_cost() -> None:
    """Shortest-route suggestion: of equally cheap routes, the one entering fewer tiles wins."""
    world = grid(".hh", "..")
    route = cheapest_route(world, "0000", "0002")
    assert route is not None
    assert route.total == 4
    assert route.ids == ("0001", "0002")


def test_cheapest_route_is_deterministic() -> None:
    """Shortest-route suggestion: the same question always gets the same route."""
    world = grid("......", "......", "......", "......")
    routes = {cheapest_route(world, "0000", "0305") for _ in range(5)}
    assert len(routes) == 1


def test_cheapest_route_none_when_unreachable() -> None:
    """Shortest-route suggestion: no route to an island, to water, or past the Wall."""
    world = grid(".~.", "###", "...")
    assert cheapest_route(world, "0200", "0202") is not None
    assert cheapest_route(world, "0000", "0002") is None  # an island across the water
    assert cheapest_route(world, "0000", "0001") is None  # water
    assert cheapest_route(world, "0000", "0200") is None  # beyond the wall
    assert cheapest_route(world, "0000", "0001", ArmyKind.FLEET) is not None


def test_cheapest_route_to_itself_is_empty() -> None:
    """Shortest-route suggestion: an army already there needs no route."""
    world = grid("..", names={"0000": "Pyke"})
    route = cheapest_route(world, "pyke", "0000")
    assert route is not None
    assert route.tiles == () and route.total == 0
    assert route.breakdown() == "nothing entered = 0"
    with pytest.raises(UnknownTile) as info:
        cheapest_route(world, "0000", "Oldtown")
    assert info.value.field == "goal"


# --- text form of a path -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "Winterfell > 1316 > Moat Cailin",
        "Winterfell -> 1316 -> Moat Cailin",
        "Winterfell → 1316 → Moat Cailin",
        "Winterfell, 1316, Moat Cailin",
        "Winterfell\n1316\nMoat Cailin\n",
        "Winterfell>1316>>  Moat   Cailin >",
    ],
)
def test_parse_path_accepts_every_separator(text: str) -> None:
    """Movement orders: tiles separated by >, ->, →, commas or new lines all read the same."""
    assert parse_path(text) == ("Winterfell", "1316", "Moat Cailin")


def test_parse_path_needs_a_tile() -> None:
    """Movement orders: a path with no tile at all is refused."""
    with pytest.raises(InvalidInput, match="no tiles"):
        parse_path(" > , ")


def test_format_path_uses_names_then_ids() -> None:
    """Movement orders: a path is shown with tile names, and ids for unnamed tiles."""
    world = grid("..", names={"0000": "Winterfell"})
    assert format_path(world) == "Winterfell > 0001"
    assert format_path(["0412", " Pyke "]) == "0412 > Pyke"


REF = st.text(alphabet="abcXYZ019 '-", min_size=1, max_size=12).map(
    lambda s: " ".join(s.split())
).filter(bool)


@settings(max_examples=80, deadline=None)
@given(st.lists(REF, min_size=1, max_size=8))
def test_format_parse_path_round_trip_property(refs: list[str]) -> None:
    """Movement orders: parse_path(format_path(refs)) gives back the same references."""
    assert parse_path(format_path(refs)) == tuple(refs)


# --- properties over random maps -----------------------------------------------------------------

LAND_SYMBOLS = ".fhmsw"


@st.composite
def walks(draw: st.DrawFn, kind: ArmyKind) -> tuple[WorldMap, str, list[str]]:
    """A random map and a random valid walk on it (possibly revisiting tiles)."""
    width = draw(st.integers(2, 6))
    height = draw(st.integers(2, 6))
    enterable = LAND_SYMBOLS if kind is ArmyKind.LAND else "~"
    blocked = "~#" if kind is ArmyKind.LAND else ".m#"
    symbols = st.sampled_from(enterable * 3 + blocked)
    columns = ["".join(draw(st.lists(symbols, min_size=height, max_size=height)))
               for _ in range(width)]
    start = (draw(st.integers(0, width - 1)), draw(st.integers(0, height - 1)))
    columns[start[0]] = (columns[start[0]][: start[1]] + enterable[0]
                         + columns[start[0]][start[1] + 1:])
    world = grid(*columns)
    rng = random.Random(draw(st.integers(0, 2**32)))
    current = tile_id(*start)
    walk: list[str] = []
    for _ in range(draw(st.integers(1, 25))):
        options = [n for n in world.neighbours(current)
                   if entry_cost(world.tiles[n], kind) is not None]
        if not options:
            break
        current = rng.choice(options)
        walk.append(current)
    return world, tile_id(*start), walk


@settings(max_examples=80, deadline=None)
@given(walks(ArmyKind.LAND))
def test_cheapest_route_never_costs_more_than_any_path_property(
    case: tuple[WorldMap, str, list[str]],
) -> None:
    """Shortest-route suggestion: the cheapest route costs no more than any valid path."""
    world, start, walk = case
    if not walk:
        return
    check = check_path(world, start, walk)
    route = cheapest_route(world, start, walk[-1])
    assert route is not None
    assert route.total <= check.total
    if route.tiles:
        assert check_path(world, start, route.ids).total == route.total


@settings(max_examples=50, deadline=None)
@given(walks(ArmyKind.FLEET))
def test_cheapest_fleet_route_never_costs_more_than_any_path_property(
    case: tuple[WorldMap, str, list[str]],
) -> None:
    """Shortest-route suggestion for fleets: never dearer than a valid sea path."""
    world, start, walk = case
    if not walk:
        return
    check = check_path(world, start, walk, ArmyKind.FLEET)
    route = cheapest_route(world, start, walk[-1], ArmyKind.FLEET)
    assert route is not None
    assert route.total <= check.total
    assert all(t.terrain is Terrain.WATER for t in route.tiles)


@settings(max_examples=80, deadline=None)
@given(walks(ArmyKind.LAND))
def test_check_path_total_is_the_sum_of_its_costs_property(
    case: tuple[WorldMap, str, list[str]],
) -> None:
    """Movement: the total is the sum of the chart costs of the tiles entered, in order."""
    world, start, walk = case
    if not walk:
        return
    check = check_path(world, start, walk)
    assert check.ids == tuple(walk)
    assert check.total == sum(check.costs)
    assert check.costs == tuple(DEFAULT_RULES.cost_of(world.tiles[t].terrain) for t in walk)
    assert all(t.terrain in LAND_TERRAINS for t in check.tiles)
    assert check.breakdown().endswith(f"= {check.total}")


# --- detection along a path ----------------------------------------------------------------------


def test_detection_observers_within_radius_of_the_path() -> None:
    """Detection: holdfasts and occupied resource tiles within the radius of a path get a roll."""
    world = grid("..........")
    path = ["0002", "0003", "0004"]
    observers = ["0009", "0005", "0003", "0000"]
    assert observers_along(world, path, observers, 1) == (
        Sighting("0003", 0, 1),
        Sighting("0005", 2, 1),
    )
    assert observers_along(world, path, observers, 2) == (
        Sighting("0000", 0, 2),
        Sighting("0003", 0, 1),
        Sighting("0005", 1, 2),
    )
    assert observers_along(world, path, observers, 0) == (Sighting("0003", 1, 0),)
    assert observers_along(world, path, [], 3) == ()


def test_detection_radius_default_is_one_tile_and_crosses_water() -> None:
    """Detection: the radius (default 1 tile, config) counts tiles across water too."""
    world = grid(".~.")
    radius = DEFAULT_RULES.detection_radius
    assert radius == 1
    assert observers_along(world, ["0001"], ["0000", "0002"], radius) == (
        Sighting("0000", 0, 1),
        Sighting("0002", 0, 1),
    )
    assert observers_along(world, ["0002"], ["0000"], radius) == ()


def test_detection_along_a_path_rejects_bad_input() -> None:
    """Detection: unknown tiles and negative radii are refused."""
    world = grid("...")
    with pytest.raises(UnknownTile):
        observers_along(world, ["0009"], ["0000"], 1)
    with pytest.raises(UnknownTile):
        observers_along(world, ["0001"], ["0009"], 1)
    with pytest.raises(InvalidInput, match="negative"):
        observers_along(world, ["0001"], ["0000"], -1)


def test_a_fleet_enters_only_the_harbours_it_is_given() -> None:
    """A fleet may sail into its own (or an ally's) port holdfast from the water next
    to it, at the cost of a water tile; any other land tile stays closed to it."""
    sea, port, field = tile_id(0, 0), tile_id(0, 1), tile_id(0, 2)
    world = WorldMap.of([Tile(sea, "", Terrain.WATER, 0, 0),
                         Tile(port, "Pyke", Terrain.HILL, 0, 1, holdfast=True, port=True),
                         Tile(field, "", Terrain.FIELD, 0, 2)])
    with pytest.raises(IllegalPath):
        check_path(world, sea, ["Pyke"], ArmyKind.FLEET)
    assert check_path(world, sea, ["Pyke"], ArmyKind.FLEET, harbours={port}).costs == (1,)
    route = cheapest_route(world, sea, port, ArmyKind.FLEET, harbours={port})
    assert route is not None and route.ids == (port,)
    assert cheapest_route(world, sea, port, ArmyKind.FLEET) is None
    with pytest.raises(IllegalPath):
        check_path(world, sea, ["Pyke", field], ArmyKind.FLEET, harbours={port})
