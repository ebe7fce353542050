"""The campaign map: hex tiles, their terrain and flags, adjacency, and the map text format.

Tiles are addressed by a four-digit id ``CCRR``: two decimal digits of column, then two of row
("0412" is column 4, row 12). The map uses the *odd-q* layout of flat-topped hexes: columns
run left to right, rows top to bottom, and every odd column sits half a hex lower than its even
neighbours. Neighbours therefore follow from the coordinates alone; a map file may add links
(straits, bridges, fords) or cut them (cliffs) through its ``neighbours`` column. Adjacency is
always symmetric.

The text form is CSV with a header row so moderators can keep the map in a spreadsheet;
:func:`parse_map` reads it and :func:`format_map` writes it back, so that
``parse_map(format_map(world)) == world``. The format is documented in ``docs/map-format.md``.

A holdfast's ``defense_bonus`` is SECRET: only the holdfast's claimant and the moderators may
see it. It is kept out of ``repr`` so it cannot leak into logs by accident.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from types import MappingProxyType

from rules.campaign.config import LAND_TERRAINS, Terrain
from rules.campaign.inputs import name_problem
from rules.errors import InvalidInput
from rules.suggest import closest

MAX_COORD = 99
"""Columns and rows run from 0 to 99: each takes two digits of a tile id."""

_ID_RE = re.compile(r"^\d{4}$")
_PATH_SEPARATORS = (">", ",", "→", "\n", "\r")

# odd-q offsets (column, row) of the six neighbours, for even and for odd columns
_EVEN_COL_STEPS = ((1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (0, 1))
_ODD_COL_STEPS = ((1, 1), (1, 0), (0, -1), (-1, 0), (-1, 1), (0, 1))

COLUMNS = (
    "id",
    "name",
    "terrain",
    "flags",
    "resource_benefit",
    "defense_bonus",
    "region",
    "neighbours",
    "garrison",
)
"""The columns of the map CSV, in the order :func:`format_map` writes them."""

REQUIRED_COLUMNS = ("id", "terrain")
FLAGS = ("holdfast", "port", "special", "resource")


class UnknownTile(InvalidInput):
    """A tile reference (id or name) matches no tile of the map.

    ``ref`` is what was given; ``suggestions`` lists close names or ids, best first.
    """

    def __init__(self, ref: str, suggestions: tuple[str, ...] = (), field: str = "tile") -> None:
        self.ref = ref
        self.suggestions = suggestions
        expected = "a tile id like 0412 or a tile name"
        if suggestions:
            expected = "one of " + ", ".join(suggestions)
        super().__init__(field, f"no tile is called {ref!r}", expected)


class MapError(InvalidInput):
    """The map text (or a set of tiles) is not a valid map.

    ``line`` is the 1-based line of the map text (None when the tiles did not come from text),
    ``tile`` the id of the tile concerned (may be empty).
    """

    def __init__(
        self, message: str, expected: str = "", *, line: int | None = None, tile: str = ""
    ) -> None:
        self.line = line
        self.tile = tile
        where = f"line {line}" if line is not None else "map"
        if tile:
            where += f", tile {tile}"
        super().__init__(where, message, expected)

    def at_line(self, line: int) -> MapError:
        """The same error, placed on ``line`` of the map text."""
        return MapError(self.message, self.expected, line=line, tile=self.tile)


def tile_id(col: int, row: int) -> str:
    """The id of the tile at ``col``, ``row``. Raises InvalidInput outside 0-99."""
    for name, value in (("col", col), ("row", row)):
        if not 0 <= value <= MAX_COORD:
            raise InvalidInput(name, f"{value} is off the map grid", f"0-{MAX_COORD}")
    return f"{col:02d}{row:02d}"


def parse_tile_id(text: str) -> tuple[int, int]:
    """The (column, row) of a tile id ``CCRR``. Raises InvalidInput if it is not four digits."""
    if not _ID_RE.match(text):
        raise InvalidInput("id", f"{text!r} is not a tile id", "four digits CCRR, e.g. 0412")
    return int(text[:2]), int(text[2:])


def grid_neighbours(col: int, row: int) -> tuple[tuple[int, int], ...]:
    """The six odd-q neighbour coordinates of a hex, including any that fall off the grid."""
    steps = _ODD_COL_STEPS if col % 2 else _EVEN_COL_STEPS
    return tuple((col + dc, row + dr) for dc, dr in steps)


def name_key(text: str) -> str:
    """The form names are compared in: case-folded, letters and digits only, no leading "the".

    "Greywater Watch", "greywater watch" and "GREYWATER-WATCH" share a key, as do "The Twins"
    and "twins".
    """
    folded = " ".join(text.casefold().split())
    if folded.startswith("the "):
        folded = folded[4:]
    return "".join(ch for ch in folded if ch.isalnum())


@dataclass(frozen=True, slots=True)
class Tile:
    """One hex of the map.

    ``special`` marks a special holdfast (sieges are referred to the moderators); ``resource``
    a resource tile whose benefit is the catalogue name ``resource_benefit``. ``defense_bonus``
    is the holdfast's SECRET assault multiplier (1 for every other tile); it is left out of
    ``repr``. Raises MapError when the flags do not fit together.
    """

    id: str
    name: str
    terrain: Terrain
    col: int
    row: int
    holdfast: bool = False
    port: bool = False
    special: bool = False
    resource: bool = False
    resource_benefit: str = ""
    defense_bonus: Decimal = field(default=Decimal(1), repr=False)
    region: str = ""
    garrison: int = 0
    """A holdfast's neutral garrison: the troops that hold it while no claim does."""

    def __post_init__(self) -> None:
        if tile_id(self.col, self.row) != self.id:
            raise MapError(
                f"id does not match column {self.col}, row {self.row}",
                tile_id(self.col, self.row),
                tile=self.id,
            )
        problem = _name_problem(self.name)
        if problem:
            raise MapError(problem, "a plain name, or nothing", tile=self.id)
        land = self.terrain in LAND_TERRAINS
        for flag in ("holdfast", "port", "resource"):
            if getattr(self, flag) and not land:
                raise MapError(
                    f"a {flag} cannot be on {self.terrain} terrain",
                    "a land terrain: " + ", ".join(sorted(LAND_TERRAINS)),
                    tile=self.id,
                )
        if self.special and not self.holdfast:
            raise MapError("'special' needs the 'holdfast' flag too", "holdfast;special",
                           tile=self.id)
        if self.resource_benefit and not self.resource:
            raise MapError("a resource benefit needs the 'resource' flag", "resource",
                           tile=self.id)
        if self.defense_bonus <= 0:
            raise MapError("the defense bonus must be above 0", "e.g. 1.5", tile=self.id)
        if self.defense_bonus != 1 and not self.holdfast:
            raise MapError("only a holdfast has a defense bonus", "empty or 1", tile=self.id)
        if self.region != self.region.strip() or "\n" in self.region:
            raise MapError("the region has stray whitespace", "a plain region name",
                           tile=self.id)
        if self.garrison < 0:
            raise MapError("the garrison cannot be negative", "a whole number >= 0, e.g. 200",
                           tile=self.id)
        if self.garrison and not self.holdfast:
            raise MapError("only a holdfast has a garrison", "empty or 0", tile=self.id)

    @property
    def label(self) -> str:
        """How the tile is shown to players: its name, or its id when it has none."""
        return self.name or self.id

    @property
    def is_land(self) -> bool:
        return self.terrain in LAND_TERRAINS

    @property
    def flags(self) -> tuple[str, ...]:
        """The set flags, in the order of :data:`FLAGS`."""
        return tuple(f for f in FLAGS if getattr(self, f))


def _name_problem(name: str) -> str:
    if not name:
        return ""
    if name != name.strip() or any(ch in name for ch in "\n\r\t"):
        return f"name {name!r} has stray whitespace"
    if any(sep in name for sep in _PATH_SEPARATORS):
        return f"name {name!r} contains a path separator (> , or →)"
    if _ID_RE.match(name):
        return f"name {name!r} looks like a tile id"
    if not name_key(name):
        return f"name {name!r} has no letters or digits"
    unsafe = name_problem(name)
    if unsafe is not None:
        return f"name {name!r} {unsafe}"
    return ""


def _pair(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a < b else (b, a)


@dataclass(frozen=True, slots=True)
class WorldMap:
    """A whole map: tiles by id plus the links added to and cut from the hex grid.

    Build one with :meth:`of` or :func:`parse_map`. ``links`` and ``cuts`` are id pairs
    (smaller id first); links between grid neighbours and cuts between non-neighbours are
    dropped, so two maps are equal exactly when their tiles and adjacency are. Raises MapError
    for duplicate ids, duplicate names, links to missing tiles and ports without water.
    """

    tiles: Mapping[str, Tile]
    links: frozenset[tuple[str, str]] = frozenset()
    cuts: frozenset[tuple[str, str]] = frozenset()
    _adjacent: Mapping[str, tuple[str, ...]] = field(
        init=False, repr=False, compare=False, default_factory=dict
    )
    _names: Mapping[str, str] = field(init=False, repr=False, compare=False, default_factory=dict)
    _resources: tuple[Tile, ...] = field(init=False, repr=False, compare=False, default=())

    @classmethod
    def of(
        cls,
        tiles: Iterable[Tile],
        links: Iterable[tuple[str, str]] = (),
        cuts: Iterable[tuple[str, str]] = (),
    ) -> WorldMap:
        """A map of ``tiles`` with extra ``links`` and removed ``cuts``. Raises MapError."""
        by_id: dict[str, Tile] = {}
        for t in tiles:
            if t.id in by_id:
                raise MapError("the id is used twice", "each id once", tile=t.id)
            by_id[t.id] = t
        return cls(by_id, frozenset(_pair(a, b) for a, b in links),
                   frozenset(_pair(a, b) for a, b in cuts))

    def __post_init__(self) -> None:
        ordered = {k: self.tiles[k] for k in sorted(self.tiles)}
        for key, t in ordered.items():
            if key != t.id:
                raise MapError(f"listed under id {key}", t.id, tile=t.id)
        object.__setattr__(self, "tiles", MappingProxyType(ordered))

        names: dict[str, str] = {}
        for t in ordered.values():
            if not t.name:
                continue
            key = name_key(t.name)
            if key in names:
                other = ordered[names[key]]
                raise MapError(
                    f"name {t.name!r} is already the name of tile {other.id} ({other.name})",
                    "unique names (leave it empty or add a word)",
                    tile=t.id,
                )
            names[key] = t.id
        object.__setattr__(self, "_names", MappingProxyType(names))
        # every tick asks for them: found once (the tiles never change)
        object.__setattr__(self, "_resources", tuple(t for t in ordered.values() if t.resource))

        grid: dict[str, set[str]] = {k: set() for k in ordered}
        for t in ordered.values():
            for c, r in grid_neighbours(t.col, t.row):
                if 0 <= c <= MAX_COORD and 0 <= r <= MAX_COORD:
                    other_id = f"{c:02d}{r:02d}"
                    if other_id in grid:
                        grid[t.id].add(other_id)

        for kind, pairs in (("link", self.links), ("cut", self.cuts)):
            for a, b in sorted(pairs):
                if a == b:
                    raise MapError(f"a {kind} from a tile to itself", "another tile's id", tile=a)
                for end in (a, b):
                    if end not in grid:
                        owner = b if end == a else a
                        raise MapError(f"{kind} to tile {end}, which is not on the map",
                                       "the id of a tile in the file", tile=owner)
        clash = self.links & self.cuts
        if clash:
            a, b = min(clash)
            raise MapError(f"tiles {a} and {b} are both linked and cut", "one or the other",
                           tile=a)
        links = frozenset(p for p in self.links if p[1] not in grid[p[0]])
        cuts = frozenset(p for p in self.cuts if p[1] in grid[p[0]])
        object.__setattr__(self, "links", links)
        object.__setattr__(self, "cuts", cuts)
        for a, b in links:
            grid[a].add(b)
            grid[b].add(a)
        for a, b in cuts:
            grid[a].discard(b)
            grid[b].discard(a)
        adjacent = {k: tuple(sorted(v)) for k, v in grid.items()}
        object.__setattr__(self, "_adjacent", MappingProxyType(adjacent))

        for t in ordered.values():
            if t.port and not self.water_adjacent(t.id):
                raise MapError("a port must touch a water tile", "a water neighbour",
                               tile=t.id)

    def __hash__(self) -> int:
        return hash((tuple(self.tiles.values()), self.links, self.cuts))

    def __len__(self) -> int:
        return len(self.tiles)

    def __iter__(self) -> Iterator[Tile]:
        return iter(self.tiles.values())

    def __contains__(self, ref: object) -> bool:
        if not isinstance(ref, str):
            return False
        return ref.strip() in self.tiles or name_key(ref) in self._names

    def tile(self, ref: str, field: str = "tile") -> Tile:
        """The tile with id or name ``ref`` (names compared by :func:`name_key`).

        Raises UnknownTile, with close names or ids as suggestions, when nothing matches;
        ``field`` names the input in the error.
        """
        text = ref.strip()
        found = self.tiles.get(text)
        if found is not None:
            return found
        key = name_key(text)
        tid = self._names.get(key)
        if tid is not None:
            return self.tiles[tid]
        raise UnknownTile(ref, self._suggest(text, key), field)

    def _suggest(self, text: str, key: str) -> tuple[str, ...]:
        if _ID_RE.match(text) or text.isdigit():
            return closest(text, self.tiles, n=3, key=str, cutoff=0.5)
        if not key:
            return ()
        keys = list(closest(key, self._names, n=3, key=str))
        if not keys:
            keys = [k for k in self._names if k.startswith(key) or key in k][:3]
        return tuple(self.tiles[self._names[k]].name for k in keys)

    def neighbours(self, tile_id: str) -> tuple[str, ...]:
        """Ids of the tiles adjacent to ``tile_id``, sorted. Raises UnknownTile."""
        try:
            return self._adjacent[tile_id]
        except KeyError:
            raise UnknownTile(tile_id, self._suggest(tile_id, name_key(tile_id))) from None

    def are_adjacent(self, a: str, b: str) -> bool:
        """Whether tiles ``a`` and ``b`` (ids) share a border. Raises UnknownTile."""
        return b in self.neighbours(a)

    def holdfasts(self) -> tuple[Tile, ...]:
        """Every holdfast, in id order."""
        return tuple(t for t in self.tiles.values() if t.holdfast)

    def ports(self) -> tuple[Tile, ...]:
        """Every port, in id order."""
        return tuple(t for t in self.tiles.values() if t.port)

    def resource_tiles(self) -> tuple[Tile, ...]:
        """Every resource tile, in id order."""
        return self._resources

    def water_adjacent(self, tile_id: str) -> tuple[str, ...]:
        """Ids of the water tiles adjacent to ``tile_id`` (empty when it touches none).

        These are where ships must stand to blockade a port. Raises UnknownTile.
        """
        return tuple(
            n for n in self.neighbours(tile_id) if self.tiles[n].terrain is Terrain.WATER
        )

    def distances_from(self, tile_id: str, radius: int) -> dict[str, int]:
        """Distance in steps over the adjacency from ``tile_id`` to every tile within ``radius``.

        Every tile counts as a step, whatever its terrain. Raises UnknownTile, and InvalidInput
        for a negative radius.
        """
        if radius < 0:
            raise InvalidInput("radius", f"{radius} is negative", "0 or more")
        self.neighbours(tile_id)
        dist = {tile_id: 0}
        frontier = [tile_id]
        for step in range(1, radius + 1):
            nxt: list[str] = []
            for current in frontier:
                for n in self._adjacent[current]:
                    if n not in dist:
                        dist[n] = step
                        nxt.append(n)
            if not nxt:
                break
            frontier = nxt
        return dist

    def tiles_within(self, tile_id: str, radius: int) -> frozenset[str]:
        """Ids of the tiles at most ``radius`` steps from ``tile_id``, itself included.

        Raises UnknownTile, and InvalidInput for a negative radius.
        """
        return frozenset(self.distances_from(tile_id, radius))


# --- text form ---------------------------------------------------------------------------


def sniff_delimiter(header: str) -> str:
    """The cell delimiter of a map text, from its header line: comma, semicolon or tab."""
    counts = {d: header.count(d) for d in (",", ";", "\t")}
    best = max(counts, key=lambda d: counts[d])
    return best if counts[best] else ","


def split_list(text: str) -> list[str]:
    """The entries of a flags or neighbours cell (separated by ``;``, ``|``, ``+``, spaces)."""
    return [p for p in re.split(r"[;|+,\s]+", text.strip()) if p]


def _parse_bool_flags(text: str, line: int, tid: str) -> dict[str, bool]:
    flags = dict.fromkeys(FLAGS, False)
    for raw in split_list(text):
        word = raw.casefold()
        if word not in flags:
            raise MapError(f"unknown flag {raw!r}", "; ".join(FLAGS), line=line, tile=tid)
        flags[word] = True
    return flags


def _parse_terrain(text: str, line: int, tid: str) -> Terrain:
    word = text.strip().casefold()
    try:
        return Terrain(word)
    except ValueError:
        raise MapError(
            f"unknown terrain {text.strip()!r}", ", ".join(t.value for t in Terrain),
            line=line, tile=tid
        ) from None


def _parse_bonus(text: str, line: int, tid: str) -> Decimal:
    text = text.strip()
    if not text:
        return Decimal(1)
    try:
        value = Decimal(text)
    except InvalidOperation:
        raise MapError(f"defense bonus {text!r} is not a number", "a number such as 1.5",
                       line=line, tile=tid) from None
    if not value.is_finite():
        raise MapError(f"defense bonus {text!r} is not a number", "a number such as 1.5",
                       line=line, tile=tid)
    return value


def map_rows(text: str) -> list[tuple[int, dict[str, str]]]:
    """The tile rows of a map's CSV text: (line number, cells by lower-case column name).

    Comments and blank lines are skipped; the delimiter comes from the header. Raises
    MapError for a bad header, a row with more cells than columns, or no tiles.
    """
    header: list[str] | None = None
    delimiter = ","
    rows: list[tuple[int, dict[str, str]]] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.lstrip("\ufeff") if number == 1 else raw
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if header is None:
            delimiter = sniff_delimiter(line)
            header = [c.strip().casefold() for c in next(csv.reader([line], delimiter=delimiter))]
            while header and not header[-1]:
                header.pop()
            _check_header(header, number)
            continue
        cells = next(csv.reader([line], delimiter=delimiter))
        if not any(c.strip() for c in cells):
            continue
        extra = [c for c in cells[len(header):] if c.strip()]
        if extra:
            tid = dict(zip(header, cells, strict=False)).get("id", "").strip()
            raise MapError(f"{len(cells)} cells but the header has {len(header)} columns",
                           ", ".join(header), line=number, tile=tid)
        cells = cells + [""] * (len(header) - len(cells))
        rows.append((number, dict(zip(header, cells, strict=False))))
    if header is None:
        raise MapError("the map is empty", "a header row: " + ",".join(COLUMNS), line=1)
    if not rows:
        raise MapError("the map has no tiles", "one row per tile after the header", line=1)
    return rows


def parse_map(text: str) -> WorldMap:
    """Read a map from its CSV text (see ``docs/map-format.md``).

    The first non-comment line is the header; ``#`` lines and blank lines are skipped; the
    delimiter (comma, semicolon or tab) is taken from the header. Raises MapError naming the
    line, the tile and what was expected.
    """
    rows = map_rows(text)

    tiles: list[Tile] = []
    line_of: dict[str, int] = {}
    links: dict[tuple[str, str], int] = {}
    cuts: dict[tuple[str, str], int] = {}
    for number, row in rows:
        tid = row.get("id", "").strip()
        try:
            col, r = parse_tile_id(tid)
        except InvalidInput:
            raise MapError(f"id {tid!r} is not a tile id", "four digits CCRR, e.g. 0412",
                           line=number, tile=tid) from None
        if tid in line_of:
            raise MapError(f"id {tid} was already used on line {line_of[tid]}", "each id once",
                           line=number, tile=tid)
        line_of[tid] = number
        flags = _parse_bool_flags(row.get("flags", ""), number, tid)
        try:
            tile = Tile(
                id=tid,
                name=row.get("name", "").strip(),
                terrain=_parse_terrain(row.get("terrain", ""), number, tid),
                col=col,
                row=r,
                holdfast=flags["holdfast"],
                port=flags["port"],
                special=flags["special"],
                resource=flags["resource"],
                resource_benefit=row.get("resource_benefit", "").strip(),
                defense_bonus=_parse_bonus(row.get("defense_bonus", ""), number, tid),
                region=" ".join(row.get("region", "").split()),
                garrison=_parse_garrison(row.get("garrison", ""), number, tid),
            )
        except MapError as exc:
            raise exc.at_line(number) from None
        tiles.append(tile)
        for item in split_list(row.get("neighbours", "")):
            cut = item.startswith("-")
            other = item.lstrip("+-")
            if not _ID_RE.match(other):
                raise MapError(f"neighbour {item!r} is not a tile id",
                               "ids like 0413 to link, -0413 to cut", line=number, tile=tid)
            pair = _pair(tid, other)
            mine, theirs = (cuts, links) if cut else (links, cuts)
            if pair in theirs:
                raise MapError(
                    f"line {theirs[pair]} {'links' if cut else 'cuts'} {pair[0]} and "
                    f"{pair[1]}, this line {'cuts' if cut else 'links'} them",
                    "the same on both tiles", line=number, tile=tid)
            mine.setdefault(pair, number)
    try:
        return WorldMap.of(tiles, links, cuts)
    except MapError as exc:
        if exc.line is None and exc.tile in line_of:
            raise exc.at_line(line_of[exc.tile]) from None
        raise


def _parse_garrison(text: str, line: int, tid: str) -> int:
    """The ``garrison`` cell: empty for 0, else a whole number of troops."""
    text = text.strip()
    if not text:
        return 0
    if not text.isdigit():
        raise MapError(f"garrison {text!r} is not a whole number", "e.g. 200 (or empty for 0)",
                       line=line, tile=tid)
    return int(text)


def _check_header(header: list[str], line: int) -> None:
    seen: set[str] = set()
    for name in header:
        if name not in COLUMNS:
            raise MapError(f"unknown column {name!r}", ", ".join(COLUMNS), line=line)
        if name in seen:
            raise MapError(f"column {name!r} appears twice", "each column once", line=line)
        seen.add(name)
    for name in REQUIRED_COLUMNS:
        if name not in seen:
            raise MapError(f"the header has no {name!r} column", ", ".join(COLUMNS), line=line)


class _Lines:
    """A file-like sink for csv.writer that keeps the written lines."""

    def __init__(self) -> None:
        self.parts: list[str] = []

    def write(self, text: str) -> int:
        self.parts.append(text)
        return len(text)


def format_map(world: WorldMap, comments: Iterable[str] = ()) -> str:
    """The CSV text of ``world``; :func:`parse_map` reads it back to an equal map.

    ``comments`` become ``#`` lines at the top. The text contains the SECRET holdfast defense
    bonuses: it is for moderators only.
    """
    extra: dict[str, list[str]] = {}
    for a, b in sorted(world.links):
        extra.setdefault(a, []).append(b)
    for a, b in sorted(world.cuts):
        extra.setdefault(a, []).append("-" + b)
    sink = _Lines()
    for comment in comments:
        for part in comment.splitlines() or [""]:
            sink.write(f"# {part}".rstrip() + "\n")
    writer = csv.writer(sink, lineterminator="\n")
    # the garrison column only when a holdfast has a neutral garrison
    garrisons = any(t.garrison for t in world)
    writer.writerow(COLUMNS if garrisons else COLUMNS[:-1])
    for t in world:
        row = ((
            t.id,
            t.name,
            t.terrain.value,
            ";".join(t.flags),
            t.resource_benefit,
            "" if t.defense_bonus == 1 else str(t.defense_bonus),
            t.region,
            ";".join(extra.get(t.id, ())),
            str(t.garrison) if t.garrison else "",
        ))
        writer.writerow(row if garrisons else row[:-1])
    return "".join(sink.parts)
