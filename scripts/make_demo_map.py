"""Generate the demo map ``bot/data/westeros.csv`` from the layout below.

Run from the repository root::

    .venv/bin/python scripts/make_demo_map.py            # write the CSV
    .venv/bin/python scripts/make_demo_map.py --preview  # print the layout with places marked
    .venv/bin/python scripts/make_demo_map.py --check    # fail if the CSV is out of date

The layout is one character per hex in the odd-q layout of docs/map-format.md: line ``r`` is row
``r``, character ``c`` is column ``c`` (odd columns sit half a hex lower). Named places are
listed in :data:`PLACES`; every land tile gets the region of the nearest holdfast by land.
The holdfast defense bonuses here are the demo's secrets: a real campaign keeps its own map
private.
"""

from __future__ import annotations

import sys
from collections import deque
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from rules.campaign.config import LAND_TERRAINS, Terrain  # noqa: E402
from rules.campaign.worldmap import (  # noqa: E402
    Tile,
    WorldMap,
    format_map,
    grid_neighbours,
    tile_id,
)

OUTPUT = ROOT / "bot" / "data" / "westeros.csv"

LEGEND = {
    "~": Terrain.WATER,
    ".": Terrain.FIELD,
    "f": Terrain.FOREST,
    "h": Terrain.HILL,
    "m": Terrain.MOUNTAIN,
    "s": Terrain.SAND,
    "w": Terrain.SWAMP,
    "#": Terrain.IMPASSABLE,
}

#          0         1         2
#          0123456789012345678901234567
LAYOUT = """
~~~~~~~~~~~~~~~~~~~~~~~~~~~~
~~~~~~~~~~~~~~~~~~~~~~~~~~~~
~~~~~~mmmmffff..~~~~~~~~~~~~
~~~~~mmmmmffffff...~~~~~~~~~
~~~~mmmmmhfffffffff..~~~~~~~
~~~~mmmmhhffffffffff..hh~~~~
~~~~~mmmhhffffffffffff.hh~~~
~~~~~mmhh.ffffffffffff..h.~~
~~~~~#####################~~
~~~~hhh.ff..h.f.......hhh.~~
~~~~hhfff.........f...hmmh~~
~~~~~~fff........ff..hmmmh.~
~f~~~~~ff...h.....f..hhmh..~
~~~~~~fff...hh.....f..hh..~~
~~~~~ffff............f....~~
~~~~ffffff......h.....ff..~~
~~~~hfffff...........fff.~~~
~~~~hhfff.......ff.....f.~~~
~~~~~hff.......fff......~~~~
~~~~~hh........ff......~~~~~
~~~~~~h.........f....~~~~~~~
~~~~~~~..........f...~~~~~~~
~~~~~~~~......ww.ww~~~~~~~~~
~~~~~~~~~~~wwwwwww~~~~~~~~~~
~~~~~~~~~~~wwwwww~~~~~~~~~~~
~~~~~~~~~~wwwwwww~~~~~~~~~~~
~~~~~~~~~...wwww..~~~~~~~~~~
~hh~~~~~......~.hmm~~~hh~~~~
~hh~~~~.......~..mmmmhhh~~~~
~~~~~~~.......~..hmmmm~~~~~~
~h~~~~~....f..~...mmmmh.~~~~
~~~h~~~.......~...hmmmhh.~~~
~~~~~~h....~~.....hmmh...~~~
~~~~~hhm...~~.....f.hh...~~~
~~~~hhmhh.........f.~~~~~~~~
~~~~hmhh.....f.....~~~~h~~~~
~~~hhhh............~~~~~~~~~
~~~hhh..........ff..~~~~~~~~
~~~~hh.........fffff..~~~~~~
~~~~h..........ffff....~~~~~
~~~~...........ffff.....~~~~
~~~~.........f...ff....h~~~~
~~~~~ff.........ffff..hh~~~~
~~~~~ff..........fffff..~~~~
~~~~~~...........fffff..~~~~
~~~~~....hh.hh....ffff.~~~~~
~~~~~...hhmmmmmmmmmmhh~~~~~~
~~~~~..mmmhmmmmmmmmhmmm~~~~~
~~~~~~ssmhhsssssssshsss~~~~~
~~~~~sssssssssssssssssss~~~~
~~~~~sssssssssssssssssssss~~
~~~~~~sssss~~~ssssssssssss~~
~~~~~~~ssss~~~~~~sssssssss~~
~~~~~~~~~~~~~~~~~~~~~~~sss~~
~~~~~~~~~~~~~~~~~~~~~~~~~~~~
~~~~~~~~~~~~~~~~~~~~~~~~~~~~
"""


@dataclass(frozen=True)
class Place:
    col: int
    row: int
    name: str
    region: str = ""
    flags: tuple[str, ...] = ("holdfast",)
    defense: str = "1"
    benefit: str = ""


H = ("holdfast",)
HP = ("holdfast", "port")
HS = ("holdfast", "special")
R = ("resource",)

# (col, row, name, region, flags, secret defense bonus, resource benefit)
PLACES: tuple[Place, ...] = (
    # the North
    Place(12, 9, "Castle Black", "The North", H, "2.5"),
    Place(19, 10, "Last Hearth", "The North", H, "1.8"),
    Place(25, 12, "Karhold", "The North", H, "1.7"),
    Place(1, 12, "Mormont's Keep", "Bear Island", HP, "1.6"),
    Place(6, 14, "Deepwood Motte", "The North", H, "1.7"),
    Place(13, 15, "Winterfell", "The North", H, "2.6"),
    Place(20, 15, "The Dreadfort", "The North", H, "2.2"),
    Place(9, 18, "Torrhen's Square", "The North", H, "1.6"),
    Place(10, 20, "Barrowton", "The North", H, "1.5"),
    Place(20, 21, "White Harbor", "The North", HP, "1.9"),
    Place(7, 16, "The Wolfswood", "The North", R, benefit="timber"),
    # the Neck
    Place(13, 23, "Moat Cailin", "The Neck", H, "2.8"),
    Place(12, 25, "Greywater Watch", "The Neck", HS, "3.0"),
    # the Iron Islands
    Place(2, 28, "Hammerhorn", "Iron Islands", HP, "1.7"),
    Place(1, 30, "Pyke", "Iron Islands", HP, "2.4"),
    Place(3, 31, "Ten Towers", "Iron Islands", HP, "1.8"),
    # the Riverlands
    Place(7, 28, "Seagard", "The Riverlands", HP, "1.9"),
    Place(13, 28, "The Twins", "The Riverlands", H, "2.3"),
    Place(10, 29, "Raventree Hall", "The Riverlands", H, "1.7"),
    Place(8, 31, "Riverrun", "The Riverlands", HS, "2.7"),
    Place(13, 33, "Harrenhal", "The Riverlands", H, "2.5"),
    Place(9, 34, "Pinkmead", "The Riverlands", H, "1.5"),
    # the Vale
    Place(20, 29, "The Eyrie", "The Vale", HS, "3.0"),
    Place(24, 32, "Gulltown", "The Vale", HP, "1.8"),
    # the Westerlands
    Place(7, 33, "The Golden Tooth", "The Westerlands", H, "2.4"),
    Place(3, 36, "Casterly Rock", "The Westerlands", H, "2.9"),
    Place(3, 37, "Lannisport", "The Westerlands", HP, "1.6"),
    Place(5, 35, "Gold mines of the Westerlands", "The Westerlands", R, benefit="gold_mine"),
    # the Crownlands
    Place(18, 36, "King's Landing", "The Crownlands", HP, "2.2"),
    Place(23, 35, "Dragonstone", "Dragonstone", HP, "2.6"),
    # the Stormlands
    Place(23, 41, "Storm's End", "The Stormlands", HS, "3.0"),
    Place(23, 43, "Griffin's Roost", "The Stormlands", H, "1.9"),
    Place(17, 39, "The Kingswood", "The Stormlands", R, benefit="timber"),
    # the Reach
    Place(11, 39, "Bitterbridge", "The Reach", H, "1.6"),
    Place(8, 42, "Highgarden", "The Reach", H, "2.4"),
    Place(10, 41, "Horse pastures of the Reach", "The Reach", R, benefit="horse_breeding"),
    Place(10, 45, "Horn Hill", "The Reach", H, "2.0"),
    Place(5, 46, "Oldtown", "The Reach", HP, "2.1"),
    Place(13, 45, "Nightsong", "The Stormlands", H, "1.8"),
    # Dorne
    Place(9, 48, "Skyreach", "Dorne", H, "2.3"),
    Place(5, 49, "Starfall", "Dorne", HP, "2.0"),
    Place(18, 49, "Yronwood", "Dorne", H, "2.4"),
    Place(9, 50, "Sandstone", "Dorne", H, "1.7"),
    Place(25, 51, "Sunspear", "Dorne", HP, "2.5"),
    Place(23, 52, "Sunspear salt", "Dorne", R, benefit="salt"),
)

# Extra adjacency: the bridge of the Twins over the Green Fork.
LINKS: tuple[tuple[str, str], ...] = (("1328", "1528"),)

WALL_ROW = 8
BEYOND_THE_WALL = "Beyond the Wall"
THE_WALL = "The Wall"


def read_layout() -> list[str]:
    """The layout rows; raises ValueError on a ragged row or an unknown character."""
    rows = LAYOUT.strip("\n").splitlines()
    width = len(rows[0])
    for r, line in enumerate(rows):
        if len(line) != width:
            raise ValueError(f"layout row {r} has {len(line)} characters, not {width}")
        for c, ch in enumerate(line):
            if ch not in LEGEND:
                raise ValueError(f"layout row {r} column {c}: unknown character {ch!r}")
    return rows


def _land_neighbours(terrain: dict[str, Terrain]) -> dict[str, list[str]]:
    adjacent: dict[str, list[str]] = {}
    for tid, t in terrain.items():
        if t not in LAND_TERRAINS:
            continue
        col, row = int(tid[:2]), int(tid[2:])
        found = []
        for c, r in grid_neighbours(col, row):
            if 0 <= c <= 99 and 0 <= r <= 99:
                other = tile_id(c, r)
                if terrain.get(other) in LAND_TERRAINS:
                    found.append(other)
        adjacent[tid] = found
    for a, b in LINKS:
        adjacent[a].append(b)
        adjacent[b].append(a)
    return adjacent


def regions(terrain: dict[str, Terrain]) -> dict[str, str]:
    """Region of every land tile: that of the nearest holdfast by land, ties to the first."""
    adjacent = _land_neighbours(terrain)
    region: dict[str, str] = {}
    queue: deque[str] = deque()
    for place in PLACES:
        if "holdfast" in place.flags:
            tid = tile_id(place.col, place.row)
            region[tid] = place.region
            queue.append(tid)
    while queue:
        current = queue.popleft()
        for n in sorted(adjacent[current]):
            if n not in region:
                region[n] = region[current]
                queue.append(n)
    for tid, t in terrain.items():
        row = int(tid[2:])
        if t is Terrain.IMPASSABLE:
            region[tid] = THE_WALL
        elif t in LAND_TERRAINS and row < WALL_ROW:
            region[tid] = BEYOND_THE_WALL
    return region


def build() -> WorldMap:
    """The demo map; raises ValueError if a place is off land or on a clashing tile."""
    rows = read_layout()
    terrain = {
        tile_id(c, r): LEGEND[ch] for r, line in enumerate(rows) for c, ch in enumerate(line)
    }
    by_tile: dict[str, Place] = {}
    for place in PLACES:
        tid = tile_id(place.col, place.row)
        if terrain.get(tid) not in LAND_TERRAINS:
            raise ValueError(f"{place.name} at {tid} is on {terrain.get(tid)}, not land")
        if tid in by_tile:
            raise ValueError(f"{place.name} and {by_tile[tid].name} share tile {tid}")
        by_tile[tid] = place
    region = regions(terrain)
    tiles = []
    for tid, t in terrain.items():
        here = by_tile.get(tid)
        tiles.append(
            Tile(
                id=tid,
                name=here.name if here else "",
                terrain=t,
                col=int(tid[:2]),
                row=int(tid[2:]),
                holdfast=bool(here and "holdfast" in here.flags),
                port=bool(here and "port" in here.flags),
                special=bool(here and "special" in here.flags),
                resource=bool(here and "resource" in here.flags),
                resource_benefit=here.benefit if here else "",
                defense_bonus=Decimal(here.defense) if here else Decimal(1),
                region=region.get(tid, ""),
            )
        )
    return WorldMap.of(tiles, LINKS)


HEADER = (
    "maester demo map: Westeros on a hex grid (odd-q layout, ids CCRR).",
    "Generated by scripts/make_demo_map.py; edit the script, not this file.",
    "defense_bonus is SECRET in a real campaign: keep your own map file private.",
)


def render() -> str:
    return format_map(build(), HEADER)


def preview() -> str:
    """The layout with holdfasts as '@', ports as 'P', special as 'S', resources as '$'."""
    rows = [list(line) for line in read_layout()]
    for place in PLACES:
        mark = "$"
        if "holdfast" in place.flags:
            mark = "S" if "special" in place.flags else "P" if "port" in place.flags else "@"
        rows[place.row][place.col] = mark
    ruler = "    " + "".join(str(c % 10) for c in range(len(rows[0])))
    return "\n".join([ruler] + [f"{r:3d} " + "".join(line) for r, line in enumerate(rows)])


def main(argv: list[str]) -> int:
    if "--preview" in argv:
        print(preview())
        return 0
    text = render()
    if "--check" in argv:
        current = OUTPUT.read_text(encoding="utf-8") if OUTPUT.exists() else ""
        if current != text:
            print(f"{OUTPUT} is out of date: run scripts/make_demo_map.py", file=sys.stderr)
            return 1
        return 0
    OUTPUT.parent.mkdir(parents=True, exist_ok=True)
    OUTPUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUTPUT} ({len(text.splitlines())} lines)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
