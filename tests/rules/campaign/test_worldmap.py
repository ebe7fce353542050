"""The campaign map: tiles, hex adjacency, names, and the CSV map format."""

from __future__ import annotations

import dataclasses
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.campaign.config import LAND_TERRAINS, Terrain
from rules.campaign.worldmap import (
    COLUMNS,
    MapError,
    Tile,
    UnknownTile,
    WorldMap,
    format_map,
    grid_neighbours,
    name_key,
    parse_map,
    parse_tile_id,
    tile_id,
)
from rules.errors import InvalidInput

HEADER = ",".join(COLUMNS)


def grid_text(width: int, height: int, special: dict[str, str] | None = None) -> str:
    """A CSV map of a ``width`` x ``height`` field grid; ``special`` replaces whole rows by id."""
    special = special or {}
    lines = [HEADER]
    for c in range(width):
        for r in range(height):
            tid = tile_id(c, r)
            lines.append(special.get(tid, f"{tid},,field,,,,,"))
    return "\n".join(lines) + "\n"


def small_map() -> WorldMap:
    """A 4 x 4 map: a holdfast port by the water in the corner, a swamp, a mountain."""
    return parse_map(grid_text(4, 4, {
        "0000": "0000,,water,,,,,",
        "0001": "0001,,water,,,,,",
        "0100": "0100,Seagard,field,holdfast;port,,1.9,Riverlands,",
        "0101": "0101,Moat Cailin,swamp,holdfast;special,,2.8,The Neck,",
        "0202": "0202,,mountain,,,,,",
        "0303": "0303,Gold mines,hill,resource,gold_mine,,Westerlands,",
    }))


# --- hex layout ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("col", "row", "expected"),
    [
        # even column: the row above on both sides
        (2, 2, {(3, 2), (3, 1), (2, 1), (1, 1), (1, 2), (2, 3)}),
        # odd column: the row below on both sides
        (3, 2, {(4, 3), (4, 2), (3, 1), (2, 2), (2, 3), (3, 3)}),
        (0, 0, {(1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (0, 1)}),
    ],
)
def test_map_odd_q_layout_neighbours_follow_from_coordinates(
    col: int, row: int, expected: set[tuple[int, int]]
) -> None:
    """Map: neighbours come from the coordinates in the odd-q layout (odd columns sit lower)."""
    assert set(grid_neighbours(col, row)) == expected


def test_map_neighbours_of_tiles_that_exist_only() -> None:
    """Map: a tile on the edge borders only the tiles that are on the map."""
    world = parse_map(grid_text(3, 3))
    assert world.neighbours("0000") == ("0001", "0100")
    assert world.neighbours("0101") == ("0001", "0002", "0100", "0102", "0201", "0202")


@pytest.mark.parametrize(("col", "row", "tid"), [(0, 0, "0000"), (4, 12, "0412"), (99, 99, "9999")])
def test_map_tile_ids_are_column_then_row(col: int, row: int, tid: str) -> None:
    """Map: a tile id is two digits of column then two of row, and reads back the same."""
    assert tile_id(col, row) == tid
    assert parse_tile_id(tid) == (col, row)


@pytest.mark.parametrize("bad", ["412", "04120", "04a2", "", " 0412"])
def test_map_tile_id_must_be_four_digits(bad: str) -> None:
    """Map: anything but four digits is not a tile id."""
    with pytest.raises(InvalidInput, match="four digits"):
        parse_tile_id(bad)


@pytest.mark.parametrize(("col", "row"), [(-1, 0), (0, 100), (100, 5)])
def test_map_tile_ids_stay_on_the_grid(col: int, row: int) -> None:
    """Map: columns and rows run 0-99."""
    with pytest.raises(InvalidInput, match="0-99"):
        tile_id(col, row)


# --- names ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Greywater Watch", "greywater watch"),
        ("Greywater Watch", "GREYWATER-WATCH"),
        ("Greywater Watch", "  greywater   watch "),
        ("King's Landing", "kings landing"),
        ("The Twins", "twins"),
        ("The Twins", "the twins"),
    ],
)
def test_map_names_are_forgiving(a: str, b: str) -> None:
    """Map: players may write a name in any case, spacing or punctuation, with or without 'the'."""
    assert name_key(a) == name_key(b)


def test_map_tile_by_id_or_name() -> None:
    """Map: a tile is found by its id or by its name."""
    world = small_map()
    assert world.tile("0101").name == "Moat Cailin"
    assert world.tile("moat cailin").id == "0101"
    assert world.tile(" 0101 ").id == "0101"
    assert "seagard" in world
    assert "0303" in world
    assert "Winterfell" not in world


def test_map_unknown_tile_suggests_close_names() -> None:
    """Map: an unknown name is refused with the closest names as suggestions."""
    world = small_map()
    with pytest.raises(UnknownTile) as info:
        world.tile("Moat Calin")
    assert info.value.suggestions == ("Moat Cailin",)
    assert "Moat Cailin" in str(info.value)
    with pytest.raises(UnknownTile) as by_id:
        world.tile("0104")
    assert "0103" in by_id.value.suggestions
    assert isinstance(by_id.value, InvalidInput)


def test_map_holdfast_names_are_unique() -> None:
    """Map: two tiles may not share a name (compared forgivingly), so a name finds one tile."""
    text = grid_text(2, 2, {
        "0000": "0000,Riverrun,field,holdfast,,,,",
        "0101": "0101,river-run,field,,,,,",
    })
    with pytest.raises(MapError) as info:
        parse_map(text)
    assert info.value.line == 5
    assert info.value.tile == "0101"
    assert "0000" in str(info.value)


# --- flags and queries ---------------------------------------------------------------------------


def test_map_flags_holdfasts_ports_resources() -> None:
    """Map: tiles carry the holdfast, port, special and resource flags and a resource benefit."""
    world = small_map()
    assert [t.name for t in world.holdfasts()] == ["Seagard", "Moat Cailin"]
    assert [t.name for t in world.ports()] == ["Seagard"]
    mines = world.resource_tiles()
    assert [(t.name, t.resource_benefit) for t in mines] == [("Gold mines", "gold_mine")]
    assert world.tile("Moat Cailin").special
    assert world.tile("Moat Cailin").flags == ("holdfast", "special")
    assert world.tile("Seagard").region == "Riverlands"


def test_map_water_adjacent_lists_the_water_neighbours() -> None:
    """Map: a port's adjacent water tiles are where a blockade stands."""
    world = small_map()
    assert world.water_adjacent("0100") == ("0000", "0001")
    assert world.water_adjacent("0303") == ()


def test_map_defense_bonus_is_secret_in_repr() -> None:
    """Map: the holdfast defense bonus is secret, so it never shows in a tile's repr."""
    tile = small_map().tile("Moat Cailin")
    assert tile.defense_bonus == Decimal("2.8")
    assert "2.8" not in repr(tile)
    assert "defense_bonus" not in repr(tile)


@pytest.mark.parametrize(("radius", "count"), [(0, 1), (1, 7), (2, 19), (3, 37)])
def test_map_tiles_within_radius_count_hexes(radius: int, count: int) -> None:
    """Map: the tiles within a radius are the hexes at most that many steps away."""
    world = parse_map(grid_text(9, 9))
    within = world.tiles_within("0404", radius)
    assert len(within) == count
    assert "0404" in within


def test_map_distance_counts_water_and_impassable_tiles() -> None:
    """Map: distance is in steps over any tile, whatever its terrain."""
    world = parse_map(
        grid_text(1, 4, {"0001": "0001,,water,,,,,", "0002": "0002,,impassable,,,,,"})
    )
    assert world.distances_from("0000", 5) == {"0000": 0, "0001": 1, "0002": 2, "0003": 3}
    with pytest.raises(InvalidInput, match="negative"):
        world.tiles_within("0000", -1)
    with pytest.raises(UnknownTile):
        world.tiles_within("0909", 1)


# --- neighbours column ---------------------------------------------------------------------------


def test_map_neighbours_column_adds_a_link_both_ways() -> None:
    """Map: a neighbours entry links two tiles that are not grid neighbours (a bridge)."""
    world = parse_map(grid_text(4, 1, {"0000": "0000,,field,,,,,0300"}))
    assert world.are_adjacent("0000", "0300")
    assert world.are_adjacent("0300", "0000")
    assert world.links == frozenset({("0000", "0300")})


def test_map_neighbours_column_cuts_a_link_both_ways() -> None:
    """Map: a '-' entry removes a grid adjacency on both sides (a cliff)."""
    world = parse_map(grid_text(2, 2, {"0100": "0100,,field,,,,,-0000"}))
    assert not world.are_adjacent("0000", "0100")
    assert not world.are_adjacent("0100", "0000")
    assert world.are_adjacent("0000", "0001")


def test_map_redundant_links_do_not_change_the_map() -> None:
    """Map: linking grid neighbours or cutting non-neighbours changes nothing."""
    plain = parse_map(grid_text(3, 3))
    noisy = parse_map(grid_text(3, 3, {"0000": "0000,,field,,,,,0001;-0202"}))
    assert noisy == plain
    assert hash(noisy) == hash(plain)


# --- parse errors --------------------------------------------------------------------------------

ERRORS = [
    ("0001,,lava,,,,,", "unknown terrain 'lava'", "field, forest"),
    ("001,,field,,,,,", "is not a tile id", "four digits"),
    ("0000,,field,,,,,", "already used on line 3", "each id once"),
    ("0001,,field,castle,,,,", "unknown flag 'castle'", "holdfast; port"),
    ("0001,X,field,special,,,,", "needs the 'holdfast' flag", "holdfast;special"),
    ("0001,X,field,,timber,,,", "needs the 'resource' flag", "resource"),
    ("0001,X,field,,,2,,", "only a holdfast has a defense bonus", "empty or 1"),
    ("0001,X,field,holdfast,,two,,", "is not a number", "1.5"),
    ("0001,X,field,holdfast,,0,,", "above 0", "1.5"),
    ("0001,X,field,holdfast;port,,,,", "must touch a water tile", "water neighbour"),
    ("0001,X,water,holdfast,,,,", "cannot be on water", "land terrain"),
    ("0001,X,impassable,resource,,,,", "cannot be on impassable", "land terrain"),
    ("0001,Alpha,field,,,,,", "already the name of tile 0000", "unique names"),
    ("0001,0412,field,,,,,", "looks like a tile id", "plain name"),
    ("0001,A > B,field,,,,,", "path separator", "plain name"),
    ("0001,,field,,,,,,,extra", "10 cells but the header has 9", "id, name"),
    ("0001,X,field,,,,,,200", "only a holdfast has a garrison", "empty or 0"),
    ("0001,X,field,holdfast,,,,,many", "garrison 'many' is not a whole number", "e.g. 200"),
    ("0001,,field,,,,,abc", "neighbour 'abc' is not a tile id", "-0413"),
    ("0001,,field,,,,,0905", "link to tile 0905, which is not on the map", "the id of a tile"),
    ("0001,,field,,,,,0001", "from a tile to itself", "another tile"),
]


@pytest.mark.parametrize(("row", "message", "expected"), ERRORS)
def test_map_errors_name_the_line_tile_and_expectation(row: str, message: str, expected: str
                                                        ) -> None:
    """Map: a bad map line is refused with its line number, its tile and what was expected."""
    text = f"# a comment\n{HEADER}\n0000,Alpha,field,,,,,\n\n{row}\n"
    with pytest.raises(MapError) as info:
        parse_map(text)
    error = info.value
    assert error.line == 5
    assert error.tile == row.split(",")[0]
    assert message in error.message
    assert expected in error.expected
    assert str(error).startswith("line 5")
    assert isinstance(error, InvalidInput)


def test_map_error_conflicting_link_and_cut() -> None:
    """Map: a pair linked on one tile and cut on the other is refused on the second line."""
    text = f"{HEADER}\n0000,,field,,,,,0300\n0300,,field,,,,,-0000\n"
    with pytest.raises(MapError) as info:
        parse_map(text)
    assert info.value.line == 3
    assert "line 2 links 0000 and 0300" in info.value.message


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "the map is empty"),
        ("# only a comment\n", "the map is empty"),
        (f"{HEADER}\n", "no tiles"),
        ("id,name,terrain,colour\n", "unknown column 'colour'"),
        ("id,name,name,terrain\n", "appears twice"),
        ("name,terrain\n", "no 'id' column"),
        ("id,name\n", "no 'terrain' column"),
    ],
)
def test_map_errors_for_missing_or_bad_header(text: str, message: str) -> None:
    """Map: the header must name known columns, each once, including id and terrain."""
    with pytest.raises(MapError, match=message):
        parse_map(text)


# --- spreadsheet exports -------------------------------------------------------------------------


def test_map_reads_a_semicolon_spreadsheet_export_with_bom() -> None:
    """Map: a spreadsheet's export may use semicolons, quotes, a BOM and trailing empty cells."""
    text = (
        "\ufeffID;Terrain;Name;Flags;Defense_Bonus;;\r\n"
        '0000;Water;;"";;;\r\n'
        '0100;FIELD;Seagard;"holdfast; port";1.9;;\r\n'
        ";;;;;;\r\n"
    )
    world = parse_map(text)
    seagard = world.tile("Seagard")
    assert seagard.terrain is Terrain.FIELD
    assert seagard.port and seagard.holdfast
    assert seagard.defense_bonus == Decimal("1.9")
    assert len(world) == 2


def test_map_columns_may_come_in_any_order_and_optional_ones_may_be_missing() -> None:
    """Map: only id and terrain are required; missing columns take their defaults."""
    world = parse_map("terrain,id\nhill,0000\nforest,0001\n")
    assert world.tile("0000") == Tile("0000", "", Terrain.HILL, 0, 0)
    assert world.neighbours("0000") == ("0001",)


# --- round trip ----------------------------------------------------------------------------------


def test_map_format_writes_what_parse_reads() -> None:
    """Map: format_map writes the CSV that parse_map reads back to an equal map."""
    world = small_map()
    text = format_map(world, ["demo", "second line"])
    # no holdfast has a neutral garrison: the garrison column is left out
    assert text.startswith("# demo\n# second line\n" + ",".join(COLUMNS[:-1]) + "\n")
    assert "0101,Moat Cailin,swamp,holdfast;special,,2.8,The Neck,\n" in text
    assert parse_map(text) == world


NAMES = ["Winterfell", "Riverrun", "King's Landing", "Pyke", "Horn Hill", "Storm's End", ""]


@st.composite
def worlds(draw: st.DrawFn) -> WorldMap:
    width = draw(st.integers(1, 5))
    height = draw(st.integers(1, 5))
    coords = [(c, r) for c in range(width) for r in range(height)]
    names = iter(draw(st.permutations(NAMES)))
    tiles = []
    for c, r in coords:
        terrain = draw(st.sampled_from(list(Terrain)))
        land = terrain in LAND_TERRAINS
        holdfast = land and draw(st.booleans())
        resource = land and draw(st.booleans())
        name = next(names, "") if draw(st.booleans()) else ""
        tiles.append(Tile(
            id=tile_id(c, r), name=name, terrain=terrain, col=c, row=r,
            holdfast=holdfast,
            special=holdfast and draw(st.booleans()),
            resource=resource,
            resource_benefit=draw(st.sampled_from(["", "timber", "gold mine"])) if resource else "",
            defense_bonus=draw(st.sampled_from([Decimal(1), Decimal("1.5"), Decimal("2.75")]))
            if holdfast else Decimal(1),
            region=draw(st.sampled_from(["", "The North", "Dorne, south"])),
        ))
    ids = [t.id for t in tiles]
    pairs = st.tuples(st.sampled_from(ids), st.sampled_from(ids)).filter(lambda p: p[0] != p[1])
    links = draw(st.lists(pairs, max_size=3))
    cuts = [p for p in draw(st.lists(pairs, max_size=3)) if p not in links and p[::-1] not in links]
    world = WorldMap.of(tiles, links, cuts)
    ports = draw(st.sets(st.sampled_from(ids)))
    with_ports = [
        dataclasses.replace(t, port=True)
        if t.id in ports and t.is_land and world.water_adjacent(t.id) else t
        for t in world
    ]
    return WorldMap.of(with_ports, world.links, world.cuts)


@settings(max_examples=60, deadline=None)
@given(worlds())
def test_map_round_trip_property(world: WorldMap) -> None:
    """Map: for any valid map, parse_map(format_map(map)) == map, with the same adjacency."""
    back = parse_map(format_map(world))
    assert back == world
    for t in world:
        assert back.neighbours(t.id) == world.neighbours(t.id)


@settings(max_examples=40, deadline=None)
@given(worlds())
def test_map_adjacency_is_symmetric_property(world: WorldMap) -> None:
    """Map: if a borders b then b borders a, links and cuts included."""
    for t in world:
        for n in world.neighbours(t.id):
            assert t.id in world.neighbours(n)


def test_a_holdfast_may_have_a_neutral_garrison_and_it_round_trips() -> None:
    """The map's ``garrison`` column: the troops holding a holdfast no claim holds (empty: 0)."""
    text = f"{HEADER}\n0000,Alpha,field,holdfast,,,,,250\n0001,Beta,field,holdfast,,,,,\n"
    world = parse_map(text)
    assert (world.tile("0000").garrison, world.tile("0001").garrison) == (250, 0)
    assert parse_map(format_map(world)).tile("0000").garrison == 250
