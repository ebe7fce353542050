"""Loading maps from files, and the shipped demo map of Westeros."""

from __future__ import annotations

import importlib.util
import sys
from collections import deque
from decimal import Decimal
from pathlib import Path
from types import ModuleType

import pytest

from bot.maps import demo_map, demo_map_text, load_map
from rules.campaign.config import LAND_TERRAINS, Terrain
from rules.campaign.paths import ArmyKind, cheapest_route, check_path
from rules.campaign.worldmap import MapError, WorldMap, parse_map

ROOT = Path(__file__).resolve().parents[2]

NAMED_HOLDFASTS = (
    "Winterfell", "Riverrun", "Greywater Watch", "The Twins", "Moat Cailin", "Harrenhal",
    "Casterly Rock", "King's Landing", "Highgarden", "Sunspear", "The Eyrie", "Storm's End",
    "Pyke", "Dragonstone", "White Harbor", "Lannisport", "Oldtown", "Yronwood", "Castle Black",
    "Deepwood Motte", "Karhold", "Last Hearth", "Seagard", "Raventree Hall", "Pinkmead",
    "Horn Hill", "Bitterbridge", "Starfall", "Gulltown",
)
PORTS = ("White Harbor", "Lannisport", "King's Landing", "Oldtown", "Pyke", "Sunspear",
         "Gulltown", "Dragonstone")
SPECIAL = ("Greywater Watch", "Riverrun", "The Eyrie", "Storm's End")
ISLAND_HOLDFASTS = {"Mormont's Keep", "Hammerhorn", "Pyke", "Ten Towers", "Dragonstone"}


def land_component(world: WorldMap, start: str) -> set[str]:
    """Tiles a land army can reach from ``start``."""
    seen = {start}
    queue = deque([start])
    while queue:
        current = queue.popleft()
        for n in world.neighbours(current):
            if n not in seen and world.tiles[n].terrain in LAND_TERRAINS:
                seen.add(n)
                queue.append(n)
    return seen


@pytest.fixture(scope="module")
def westeros() -> WorldMap:
    return demo_map()


def test_demo_map_size_and_terrains(westeros: WorldMap) -> None:
    """Demo map: a hex map of at least 300 tiles using all six land terrains, water and the Wall."""
    assert 1000 <= len(westeros) <= 1600
    land = [t for t in westeros if t.is_land]
    assert len(land) >= 300
    assert {t.terrain for t in westeros} == set(Terrain)


def test_demo_map_is_surrounded_by_water(westeros: WorldMap) -> None:
    """Demo map: every tile on the edge of the grid is sea."""
    cols = max(t.col for t in westeros)
    rows = max(t.row for t in westeros)
    edge = [t for t in westeros if t.col in (0, cols) or t.row in (0, rows)]
    assert edge
    assert all(t.terrain is Terrain.WATER for t in edge)


def test_demo_map_named_holdfasts(westeros: WorldMap) -> None:
    """Demo map: at least 25 holdfasts with unique names, the great houses' seats among them."""
    holdfasts = westeros.holdfasts()
    assert len(holdfasts) >= 25
    names = [t.name for t in holdfasts]
    assert len(set(names)) == len(names)
    assert all(names)
    for name in NAMED_HOLDFASTS:
        assert westeros.tile(name).holdfast, name
    assert all(t.is_land for t in holdfasts)


def test_demo_map_ports_and_special_holdfasts(westeros: WorldMap) -> None:
    """Demo map: ports touch the sea; Greywater Watch, Riverrun, the Eyrie, Storm's End are special.

    (Special holdfasts cannot be besieged by the normal rule.)
    """
    port_names = {t.name for t in westeros.ports()}
    assert set(PORTS) <= port_names
    for port in westeros.ports():
        assert westeros.water_adjacent(port.id), port.name
    special = {t.name for t in westeros.holdfasts() if t.special}
    assert set(SPECIAL) <= special


def test_demo_map_secret_defense_bonuses(westeros: WorldMap) -> None:
    """Demo map: every holdfast has a secret defense bonus between 1.5 and 3.0."""
    for t in westeros.holdfasts():
        assert Decimal("1.5") <= t.defense_bonus <= Decimal("3.0"), t.name
    assert all(t.defense_bonus == 1 for t in westeros if not t.holdfast)


def test_demo_map_resource_tiles(westeros: WorldMap) -> None:
    """Demo map: a few resource tiles on land, each with a benefit from the catalogue."""
    benefits = {t.name: t.resource_benefit for t in westeros.resource_tiles()}
    assert benefits["Gold mines of the Westerlands"] == "gold_mine"
    assert benefits["The Kingswood"] == "timber"
    assert benefits["Horse pastures of the Reach"] == "horse_breeding"
    assert benefits["Sunspear salt"] == "salt"
    assert all(t.is_land for t in westeros.resource_tiles())


def test_demo_map_holdfasts_reachable_by_land_except_islands(westeros: WorldMap) -> None:
    """Demo map: every holdfast can be reached by land from Winterfell, except on islands."""
    reach = land_component(westeros, westeros.tile("Winterfell").id)
    unreachable = {t.name for t in westeros.holdfasts() if t.id not in reach}
    assert unreachable == ISLAND_HOLDFASTS
    for name in ISLAND_HOLDFASTS:
        assert westeros.tile(name).port, name
    for t in westeros.resource_tiles():
        assert t.id in reach, t.name


def test_demo_map_wall_closes_the_north(westeros: WorldMap) -> None:
    """Demo map: the Wall is impassable, so no land route leads beyond it."""
    reach = land_component(westeros, westeros.tile("Castle Black").id)
    beyond = {t.id for t in westeros if t.region == "Beyond the Wall"}
    assert beyond
    assert not reach & beyond
    wall = [t for t in westeros if t.region == "The Wall"]
    assert wall and all(t.terrain is Terrain.IMPASSABLE for t in wall)


def test_demo_map_the_twins_bridge(westeros: WorldMap) -> None:
    """Demo map: the Twins bridge the Green Fork through an added link."""
    twins = westeros.tile("the twins")
    assert any(twins.id in pair for pair in westeros.links)
    across = next(b if a == twins.id else a for a, b in westeros.links if twins.id in (a, b))
    assert westeros.tile(across).is_land
    assert check_path(westeros, twins.id, [across]).total == 1


def test_demo_map_long_march_routes(westeros: WorldMap) -> None:
    """Demo map: there is a land route from Winterfell to Sunspear and a sea route to Pyke."""
    route = cheapest_route(westeros, "Winterfell", "Sunspear")
    assert route is not None
    assert check_path(westeros, "Winterfell", route.ids).total == route.total
    assert cheapest_route(westeros, "Winterfell", "Pyke") is None
    sea = cheapest_route(westeros, "Lannisport", westeros.water_adjacent(
        westeros.tile("Pyke").id)[0], ArmyKind.FLEET)
    assert sea is not None and sea.total > 0


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "make_demo_map", ROOT / "scripts" / "make_demo_map.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    # dataclasses look the module up by name while the script runs
    sys.modules[spec.name] = module
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules[spec.name]
    return module


def test_demo_map_is_what_the_generator_writes() -> None:
    """Demo map: the shipped CSV is exactly what scripts/make_demo_map.py produces."""
    assert _generator().render() == demo_map_text()


def test_demo_map_round_trips(westeros: WorldMap) -> None:
    """Demo map: reading the shipped text gives a map that writes back to an equal map."""
    assert parse_map(demo_map_text()) == westeros


def test_load_map_from_a_file(tmp_path: Path) -> None:
    """Map files: a moderator's map file is read from its path, BOM and all."""
    path = tmp_path / "map.csv"
    path.write_text("\ufeffid,name,terrain,flags\n0000,Home,hill,holdfast\n0001,,water,\n",
                    encoding="utf-8")
    world = load_map(path)
    assert world.tile("home").terrain is Terrain.HILL
    assert load_map(str(path)) == world
    assert load_map() is demo_map()


def test_load_map_errors_name_the_line(tmp_path: Path) -> None:
    """Map files: a bad line in a file is reported with its line number and tile."""
    path = tmp_path / "map.csv"
    path.write_text("# my map\nid,terrain\n0000,field\n0001,lava\n", encoding="utf-8")
    with pytest.raises(MapError) as info:
        load_map(path)
    assert info.value.line == 4
    assert info.value.tile == "0001"
    with pytest.raises(OSError):
        load_map(tmp_path / "missing.csv")
