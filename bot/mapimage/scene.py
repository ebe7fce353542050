"""What a map picture shows, as a list of shapes: every content decision of the renderer.

:func:`build_scene` turns a map, a situation already filtered for its viewer
(:func:`rules.campaign.mapview.visible_to`) and drawing options into a :class:`Scene`: hex
polygons in terrain colours, cuts and links, holdfast/port/resource markers, holdings outlined
in their claim's colour, army badges, marches, sieges, blockades, battles, labels and a legend.
:mod:`bot.mapimage.draw` paints a scene as PNG or SVG (and a month of scenes as a film); the
scene model only measures text with the map font (:mod:`bot.mapimage.font`), so tests can
check the content and the layout without decoding a picture.

Layout: a holdfast's marker sits at its tile's centre, land armies left of it and fleets right
(one badge per claim and side: several armies of a claim on a tile are one stacked badge with
their count), the resource and port marks below them. Every marker gets a box first
(:attr:`Scene.markers`); then the labels are placed by :class:`~bot.mapimage.layout.Placer`,
army labels first, then names, then ids, each at the first free spot of its list: its usual
place (ids at the top of the hex, names at the bottom), other places around its tile, further
away with a leader line (names and army labels), a smaller size (names and army labels; ids
keep their legible size), or not at all. So no label covers a marker or another label, and a
crowded map loses ids before names and names before any marker.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum

from bot.mapimage.font import size_for_digit_height, text_width
from bot.mapimage.geometry import HexLayout, Point
from bot.mapimage.layout import Box, Placed, Placer, Spot
from rules.campaign.config import Terrain
from rules.campaign.mapview import ArmyMark, Situation
from rules.campaign.worldmap import Tile, WorldMap

TERRAIN_COLOURS: Mapping[Terrain, str] = {
    Terrain.FIELD: "#d5dd9b",
    Terrain.FOREST: "#6f9a5a",
    Terrain.HILL: "#c2ab72",
    Terrain.MOUNTAIN: "#978778",
    Terrain.SAND: "#ecdcaa",
    Terrain.SWAMP: "#86a593",
    Terrain.WATER: "#8dbde0",
    Terrain.IMPASSABLE: "#4b4b4b",
}
CLAIM_COLOURS = (
    "#c0392b", "#2980b9", "#8e44ad", "#d35400", "#16a085", "#f1c40f", "#2c3e50", "#e84393",
    "#27ae60", "#7f8c8d", "#a0522d", "#00bcd4", "#6c5ce7", "#b33771", "#3c6382", "#cddc39",
)
UNHELD = "#ffffff"
OUTLINE = "#55606b"
INK = "#111111"
CUT = "#b3001b"
LINK = "#1d3557"
PORT = "#0b3d91"
RESOURCE = "#e0a800"
SIEGE = "#d00000"
FLASH = "#ffd400"
FADED = "#9a9a9a"  # what a sighting fades towards as it ages
BACKGROUND = "#f4f1ea"
LEGEND_WIDTH = 240
DEFAULT_HEX_SIZE = 32.0
MIN_ID_PIXELS = 11.0  # how tall an id's digits stand at the default size
SIGHTING_FADES_AFTER = 28  # ticks until a sighting is drawn fully faded (a week of 6 h ticks)
MARGIN = 6.0
MAX_HEX_SIZE = 200.0
MIN_WIDTHS: Mapping[str, int] = {"map": 1000, "realm": 1600, "inset": 600, "page": 900}
"""The narrowest picture of each use, in pixels (a small map's hexes grow to fill it). The web
pages' map is laid out at about the width a page shows it at, so that a small map's labels are
not scaled up several times (the demo map, 947 px at the pages' hexes, is wider already)."""


class Labels(StrEnum):
    IDS = "ids"
    NAMES = "names"
    BOTH = "both"


@dataclass(frozen=True, slots=True)
class Polygon:
    points: tuple[Point, ...]
    fill: str | None
    outline: str | None = None
    width: int = 1


@dataclass(frozen=True, slots=True)
class Line:
    points: tuple[Point, ...]
    colour: str
    width: int = 2
    dashed: bool = False
    arrow: bool = False


@dataclass(frozen=True, slots=True)
class Circle:
    centre: Point
    radius: float
    fill: str | None
    outline: str | None = None
    width: int = 1


@dataclass(frozen=True, slots=True)
class Text:
    at: Point
    text: str
    colour: str = INK
    size: int = 9
    halo: bool = False
    anchor: str = "mm"  # Pillow's anchors: "mm" centre, "lm" left-middle


Shape = Polygon | Line | Circle | Text


@dataclass(frozen=True, slots=True)
class Badge:
    """The marker of the armies (or fleets) of one claim on one tile: ``armies`` are the
    marks it stands for (several: a stacked badge), ``centre`` is where its disc (or a fleet's
    triangle) is filled with ``colour``."""

    tile: str
    centre: Point
    radius: float
    colour: str
    fleet: bool
    armies: tuple[ArmyMark, ...]
    seen_ticks: int | None = None  # a sighting: how many ticks ago

    @property
    def box(self) -> Box:
        r = self.radius * (1.15 if self.fleet else 1.0)
        box = Box.around(self.centre, r, r)
        if len(self.armies) > 1:  # the stack's lower disc shows below and to the right
            box = box.union(Box.around(_stacked(self.centre, self.radius), r, r))
        return box


@dataclass(frozen=True, slots=True)
class Label:
    """A placed label: its ``kind`` (``id``, ``name`` or ``army``), the tile it names, its
    text, size and box; ``leader`` when it stands away from its tile with a leader line."""

    kind: str
    tile: str
    text: str
    size: int
    box: Box
    leader: bool = False


@dataclass(frozen=True, slots=True)
class Scene:
    """A picture as shapes painted in order. ``centres`` maps each drawn tile id to its pixel
    centre; ``holdfast_colours`` each holdfast to its marker's fill colour; ``markers`` are
    the boxes of every marker, ``labels`` the placed labels, ``badges`` the army badges,
    ``dropped`` the labels (kind, text) no free place could be found for."""

    width: int
    height: int
    shapes: tuple[Shape, ...]
    centres: Mapping[str, Point] = field(default_factory=dict)
    holdfast_colours: Mapping[str, str] = field(default_factory=dict)
    title: str = ""
    base_count: int = 0  # the first shapes depend on the map alone (see build_scene)
    hex_size: float = DEFAULT_HEX_SIZE
    markers: tuple[Box, ...] = ()
    labels: tuple[Label, ...] = ()
    badges: tuple[Badge, ...] = ()
    dropped: tuple[tuple[str, str], ...] = ()

    def texts(self) -> list[str]:
        return [s.text for s in self.shapes if isinstance(s, Text)]


@dataclass(frozen=True, slots=True)
class SceneOptions:
    """``around``/``radius`` draw only the tiles within ``radius`` steps of ``around``.
    ``size`` is a hex's circumradius in pixels; ``width`` (when set) overrides it with the
    size that makes the picture that many pixels wide. ``tick_hours`` turns the ticks since
    a sighting into hours and days; ``flash`` names the tiles of new battles to highlight (a
    film's flash frame)."""

    size: float = DEFAULT_HEX_SIZE
    labels: Labels = Labels.BOTH
    around: str | None = None
    radius: int = 3
    legend: bool = True
    title: str = ""
    numbers: bool = True  # army numbers and ids, when the situation has them
    width: int | None = None
    tick_hours: int = 6
    flash: tuple[str, ...] = ()


def claim_colours(situation: Situation) -> dict[str, str]:
    """Each claim's colour, by its place in ``situation.claims`` (public knowledge)."""
    return {name: CLAIM_COLOURS[i % len(CLAIM_COLOURS)]
            for i, name in enumerate(situation.claims)}


def _diamond(x: float, y: float, r: float) -> tuple[Point, ...]:
    return ((x, y - r), (x + r, y), (x, y + r), (x - r, y))


def _square(x: float, y: float, r: float) -> tuple[Point, ...]:
    return ((x - r, y - r), (x + r, y - r), (x + r, y + r), (x - r, y + r))


def _triangle(x: float, y: float, r: float) -> tuple[Point, ...]:
    return ((x, y - r), (x + r, y + r * 0.8), (x - r, y + r * 0.8))


def _stacked(centre: Point, radius: float) -> Point:
    return (centre[0] + radius * 0.45, centre[1] + radius * 0.45)


def _short(n: int) -> str:
    return f"{n / 1000:.1f}k".replace(".0k", "k") if n >= 1000 else str(n)


def army_label(army: ArmyMark) -> str:
    """``#12 3.2k`` (id and size) when known; empty when the viewer knows neither."""
    parts = []
    if army.id:
        parts.append(f"#{army.id}")
    if army.size:
        parts.append(_short(army.size))
    return " ".join(parts)


def badge_label(armies: Sequence[ArmyMark]) -> str:
    """The label of a badge: one army's :func:`army_label`; for a stack ``x3`` and the total
    when the viewer knows every army's size (``x3 5.2k``)."""
    if len(armies) == 1:
        return army_label(armies[0])
    total = f" {_short(sum(a.size for a in armies))}" if all(a.size for a in armies) else ""
    return f"x{len(armies)}{total}"


def age_text(ticks: int, tick_hours: int) -> str:
    """How long ago, for a sighting: ``now``, ``18h ago``, ``3d ago``."""
    hours = ticks * tick_hours
    if hours <= 0:
        return "now"
    return f"{hours}h ago" if hours < 48 else f"{hours // 24}d ago"


def faded(colour: str, ticks: int) -> str:
    """``colour`` greyed towards :data:`FADED` by a sighting's age (fully after
    :data:`SIGHTING_FADES_AFTER` ticks, to three quarters so the claim stays recognisable)."""
    share = min(1.0, max(0, ticks) / SIGHTING_FADES_AFTER) * 0.75
    a = [int(colour[i:i + 2], 16) for i in (1, 3, 5)]
    b = [int(FADED[i:i + 2], 16) for i in (1, 3, 5)]
    return "#" + "".join(f"{round(x + (y - x) * share):02x}" for x, y in zip(a, b, strict=True))


DEFAULT_OPTIONS = SceneOptions()


def hex_size_for_width(world: WorldMap, width: int, options: SceneOptions) -> float:
    """The hex size that makes the picture of ``options`` (its tiles and legend) ``width``
    pixels wide. Raises ValueError when the legend alone is wider."""
    cols = [world.tiles[t].col for t in _shown(world, options)]
    first = min(cols) - min(cols) % 2
    legend = LEGEND_WIDTH if options.legend else 0
    room = width - 2 * MARGIN - 2 - legend
    if room < 40:
        raise ValueError(f"{width} px is too narrow (at least {legend + 60} px)")
    return room / (2 + 1.5 * (max(cols) - first))


def at_least(world: WorldMap, options: SceneOptions, width: int) -> SceneOptions:
    """``options`` with hexes enlarged (up to :data:`MAX_HEX_SIZE`) so that the picture is at
    least ``width`` pixels wide: the default size of each use (:data:`MIN_WIDTHS`)."""
    if options.width is not None:
        return options
    wanted = hex_size_for_width(world, width, options)
    return replace(options, size=min(MAX_HEX_SIZE, max(options.size, wanted)))


def _shown(world: WorldMap, options: SceneOptions) -> list[str]:
    if options.around is not None:
        return sorted(world.tiles_within(world.tile(options.around).id, options.radius))
    return list(world.tiles)


@dataclass(slots=True)
class _Draft:
    """What build_scene collects: shapes by layer, and the marker boxes."""

    overlay: list[Shape] = field(default_factory=list)  # under the markers
    markers: list[Shape] = field(default_factory=list)
    labels: list[Shape] = field(default_factory=list)
    boxes: list[Box] = field(default_factory=list)
    placed: list[Label] = field(default_factory=list)
    dropped: list[tuple[str, str]] = field(default_factory=list)


def build_scene(world: WorldMap, situation: Situation, options: SceneOptions = DEFAULT_OPTIONS
                ) -> Scene:
    """The shapes of a map picture of ``world`` showing ``situation`` (already filtered for
    its viewer). Raises UnknownTile for an unknown ``options.around`` tile and ValueError for
    a ``width`` too narrow for the legend."""
    shown = _shown(world, options)
    tiles = [world.tiles[t] for t in shown]
    s = hex_size_for_width(world, options.width, options) if options.width else options.size
    top = 30.0 if options.title else 0.0
    layout = HexLayout.fitting(((t.col, t.row) for t in tiles), s, MARGIN)
    layout = HexLayout(layout.size, layout.min_col, layout.min_row,
                       (layout.origin[0], layout.origin[1] + top))
    right, bottom = layout.extent((t.col, t.row) for t in tiles)
    on_map = set(shown)
    centres = {t.id: layout.centre(t.col, t.row) for t in tiles}
    colours = claim_colours(situation)
    holders = {t: c for t, c in situation.holders if t in on_map}
    shapes: list[Shape] = []
    draft = _Draft()
    # The base layer depends on the map alone (terrain, cuts, links, ports, resources):
    # the PNG painter draws it once per map and paints the rest over a copy.
    for t in tiles:
        shapes.append(Polygon(layout.corners(t.col, t.row), TERRAIN_COLOURS[t.terrain],
                              OUTLINE))
    coords = {t.id: (t.col, t.row) for t in tiles}
    for a, b in sorted(world.cuts):
        if a in on_map and b in on_map:
            shapes.append(Line(layout.shared_edge(coords[a], coords[b]), CUT, max(2, int(s / 6))))
    for a, b in sorted(world.links):
        if a in on_map and b in on_map:
            shapes.append(Line((centres[a], centres[b]), LINK, max(2, round(s / 14)),
                               dashed=True))
    # small marks under the army badges: resources (left), ports (right)
    for t in tiles:
        x, y = centres[t.id]
        if t.resource:
            shapes.append(Polygon(_triangle(x - s * 0.55, y + s * 0.27, s * 0.13), RESOURCE,
                                  INK))
            draft.boxes.append(Box.around((x - s * 0.55, y + s * 0.27), s * 0.13, s * 0.13))
        if t.port:
            shapes.append(Circle((x + s * 0.55, y + s * 0.27), s * 0.12, PORT, "#ffffff"))
            draft.boxes.append(Box.around((x + s * 0.55, y + s * 0.27), s * 0.12, s * 0.12))
    base_count = len(shapes)

    _holdings(draft, layout, world, situation, holders, colours, on_map)
    _overlays(draft, situation, centres, colours, s, options)
    badges = _badges(draft, situation, centres, colours, s)
    holdfast_colours = _holdfasts(draft, tiles, centres, holders, colours, s)
    _place_labels(draft, tiles, centres, badges, s, options,
                  Box(0, top, right + MARGIN, bottom + MARGIN))
    shapes += draft.overlay + draft.markers + draft.labels
    legend_bottom = 0.0
    if options.legend:
        legend, legend_bottom = _legend(right + 14, 8 + top, colours,
                                        _present(situation, holders, badges))
        shapes += legend
    if options.title:
        shapes.append(Text((MARGIN + 2, 16), options.title, INK, max(15, round(s * 0.5)),
                           anchor="lm"))
    width = int(right + MARGIN + 2 + (LEGEND_WIDTH if options.legend else 0))
    height = int(max(bottom, legend_bottom) + MARGIN + 2)
    return Scene(width, height, tuple(shapes), centres, holdfast_colours, options.title,
                 base_count, s, tuple(draft.boxes), tuple(draft.placed), badges,
                 tuple(draft.dropped))


def _holdings(draft: _Draft, layout: HexLayout, world: WorldMap, situation: Situation,
              holders: Mapping[str, str], colours: Mapping[str, str], on_map: set[str]
              ) -> None:
    """Each held holdfast's hex ringed in its holder's colour; the tiles a claim's armies
    stand on (as the viewer knows them) ringed thinner and dashed."""
    s = layout.size
    for tile_id, claim in sorted(holders.items()):
        t = world.tiles[tile_id]
        draft.overlay.append(Polygon(layout.corners(t.col, t.row, inset=s * 0.09), None,
                                     colours.get(claim, INK), max(3, round(s * 0.12))))
    held = set(holders)
    standing = sorted({(a.tile, a.claim) for a in situation.armies
                       if a.tile in on_map and a.tile not in held})
    for tile_id, claim in standing:
        t = world.tiles[tile_id]
        ring = layout.corners(t.col, t.row, inset=s * 0.07)
        draft.overlay.append(Line((*ring, ring[0]), colours.get(claim, INK),
                                  max(2, round(s * 0.06)), dashed=True))


def _overlays(draft: _Draft, situation: Situation, centres: Mapping[str, Point],
              colours: Mapping[str, str], s: float, options: SceneOptions) -> None:
    """Blockades, marches, battles and sieges: drawn under the markers."""
    for blockade in situation.blockades:
        if blockade.water in centres and blockade.port in centres:
            draft.overlay.append(Line((centres[blockade.water], centres[blockade.port]), SIEGE,
                                      max(3, round(s * 0.12)), dashed=True))
            draft.overlay.append(Circle(centres[blockade.water], s * 0.72, None, SIEGE,
                                        max(2, round(s * 0.08))))
    for army in situation.armies:
        steps = [army.tile, *army.path]
        points = tuple(centres[t] for t in steps if t in centres)
        if len(points) > 1:
            draft.overlay.append(Line(points, colours.get(army.claim, INK),
                                      max(2, round(s * 0.08)), arrow=True))
    for battle in situation.battles:
        if battle.tile in centres:
            x, y = centres[battle.tile]
            if battle.tile in options.flash:
                draft.overlay.append(Circle((x, y), s * 0.85, FLASH, SIEGE, 2))
            r = s * 0.45
            w = max(3, round(s * 0.12))
            draft.overlay.append(Line(((x - r, y - r), (x + r, y + r)), INK, w))
            draft.overlay.append(Line(((x - r, y + r), (x + r, y - r)), INK, w))
    for siege in situation.sieges:
        if siege.holdfast in centres:
            centre = centres[siege.holdfast]
            draft.overlay.append(Circle(centre, s * 0.66, None, SIEGE, max(4, round(s * 0.14))))
            draft.overlay.append(Circle(centre, s * 0.5, None, colours.get(siege.besieger, INK),
                                        max(2, round(s * 0.06))))


def _badges(draft: _Draft, situation: Situation, centres: Mapping[str, Point],
            colours: Mapping[str, str], s: float) -> tuple[Badge, ...]:
    """One badge per tile, side (land left, fleets right) and claim; a claim's several
    armies there are one stacked badge. A second claim's badge on the same side stands
    above the first, a third below."""
    groups: dict[tuple[str, bool, str, int], list[ArmyMark]] = {}
    for army in situation.armies:
        if army.tile in centres:
            age = -1 if army.last_seen is None or situation.tick is None \
                else situation.tick - army.last_seen
            groups.setdefault((army.tile, army.fleet, army.claim, age), []).append(army)
    slots: dict[tuple[str, bool], int] = {}
    badges: list[Badge] = []
    r = max(5.0, s * 0.22)
    edge = 2 if r >= 6 else 1
    for (tile, fleet, claim, age), armies in groups.items():
        x, y = centres[tile]
        n = slots.get((tile, fleet), 0)
        slots[(tile, fleet)] = n + 1
        out = s * (0.55 + 0.45 * (n // len(_STACK_ROWS)))  # a fourth claim: further out
        centre = (x + (out if fleet else -out), y + s * _STACK_ROWS[n % len(_STACK_ROWS)])
        colour = colours.get(claim, INK)
        if age >= 0:
            colour = faded(colour, age)
        badge = Badge(tile, centre, r, colour, fleet, tuple(armies), age if age >= 0 else None)
        badges.append(badge)
        draft.boxes.append(badge.box)
        for at in ([_stacked(centre, r)] if len(armies) > 1 else []) + [centre]:
            if fleet:
                draft.markers.append(Polygon(_triangle(*at, r * 1.15), colour, "#ffffff", edge))
            else:
                draft.markers.append(Circle(at, r, colour, "#ffffff", edge))
    return tuple(badges)


_STACK_ROWS = (-0.1, -0.56, 0.36)  # a side's 1st, 2nd, 3rd badge: the id moves, not the name


def _holdfasts(draft: _Draft, tiles: Sequence[Tile], centres: Mapping[str, Point],
               holders: Mapping[str, str], colours: Mapping[str, str], s: float
               ) -> dict[str, str]:
    out: dict[str, str] = {}
    for t in tiles:
        if not t.holdfast:
            continue
        x, y = centres[t.id]
        fill = colours.get(holders.get(t.id, ""), UNHELD)
        out[t.id] = fill
        if t.special:
            draft.markers.append(Polygon(_diamond(x, y, s * 0.34), fill, INK, 2))
            draft.boxes.append(Box.around((x, y), s * 0.34, s * 0.34))
        else:
            draft.markers.append(Polygon(_square(x, y, s * 0.24), fill, INK, 2))
            draft.boxes.append(Box.around((x, y), s * 0.24, s * 0.24))
    return out


def label_sizes(hex_size: float) -> tuple[int, int, int]:
    """The sizes of ids, names and army labels on hexes of ``hex_size``: they grow with the
    hexes up to the default size's, then more slowly, to twice it at most (a small map's big
    hexes need no bigger text to be read)."""
    s = hex_size
    legible = size_for_digit_height(MIN_ID_PIXELS)
    id_size = max(7, min(round(s * 0.5), max(legible, round(s * 0.3)), 2 * legible))
    name_size = max(8, min(round(s * 0.45), max(legible - 2, round(s * 0.3)),
                           2 * (legible - 2)))
    army_size = max(8, min(round(s * 0.4), max(legible - 3, round(s * 0.26)),
                           2 * (legible - 3)))
    return id_size, name_size, army_size


def _place_labels(draft: _Draft, tiles: Sequence[Tile], centres: Mapping[str, Point],
                  badges: Sequence[Badge], s: float, options: SceneOptions, area: Box) -> None:
    """Army labels, then names, then ids, each at its first free spot (see the module
    docstring); a label standing away from its tile gets a leader line."""
    placer = Placer(area, s)
    for box in draft.boxes:
        placer.take(box)
    id_size, name_size, army_size = label_sizes(s)
    legible = min(id_size, size_for_digit_height(MIN_ID_PIXELS))
    legible_name = label_sizes(DEFAULT_HEX_SIZE)[1]  # a name's size at the default hex size

    def put(kind: str, tile: str, text: str, anchor: Point, spots: Sequence[Spot],
            sizes: Sequence[int], colour: str = INK, halo: bool = True) -> None:
        placed = placer.place(text, anchor, spots, sizes)
        if placed is None:
            draft.dropped.append((kind, text))
            return
        _label(draft, kind, tile, text, placed, anchor, colour, halo,
               s * (0.3 if kind == "army" else 0.45))

    if options.numbers:
        for badge in badges:
            text = badge_label(badge.armies)
            if badge.seen_ticks is not None:
                text = f"{text} seen {age_text(badge.seen_ticks, options.tick_hours)}".strip()
            if not text:
                continue
            side = 1 if badge.fleet else -1
            gap = badge.radius * 1.2 + 2
            put("army", badge.tile, text, badge.centre, (
                Spot(0, -gap, valign=-1), Spot(side * gap, 0, side), Spot(0, gap, valign=1),
                Spot(-side * gap, 0, -side),
                Spot(side * s * 1.1, -s * 0.7, side, True),
                Spot(side * s * 1.1, s * 0.7, side, True),
                Spot(0, -s * 1.2, 0, True), Spot(0, s * 1.2, 0, True)),
                (army_size, max(7, round(army_size * 0.8))))
    if options.labels in (Labels.NAMES, Labels.BOTH):
        # one size for every name: the largest at which the longest spans about its hex
        top = min((name_fit(t.name, name_size, min(name_size, legible_name), s)
                   for t in tiles if t.name), default=name_size)
        for t in tiles:
            if t.name:
                put("name", t.id, t.name, centres[t.id], (
                    Spot(0, s * 0.66), Spot(-s * 0.25, s * 0.66), Spot(s * 0.25, s * 0.66),
                    Spot(-s * 0.7, s * 0.66, 1), Spot(s * 0.7, s * 0.66, -1),
                    Spot(0, -s * 0.6), Spot(0, s * 1.05, 0, True), Spot(0, -s * 1.05, 0, True),
                    Spot(-s * 1.0, s * 0.5, -1, True), Spot(s * 1.0, s * 0.5, 1, True),
                    Spot(-s * 1.0, -s * 0.5, -1, True), Spot(s * 1.0, -s * 0.5, 1, True),
                    Spot(0, s * 1.5, 0, True), Spot(0, -s * 1.5, 0, True)),
                    (top, max(7, round(top * 0.85))))
    for t in tiles:
        if options.labels in (Labels.IDS, Labels.BOTH) or (
                options.labels is Labels.NAMES and not t.name):
            dark = t.terrain is Terrain.IMPASSABLE
            put("id", t.id, t.id, centres[t.id], (
                Spot(0, -s * 0.58), Spot(-s * 0.25, -s * 0.58), Spot(s * 0.25, -s * 0.58),
                Spot(0, s * 0.6), Spot(-s * 0.25, s * 0.6), Spot(s * 0.25, s * 0.6),
                Spot(0, -s * 0.45)),
                (id_size, legible) if legible < id_size else (id_size,),
                "#f0f0f0" if dark else "#333333", halo=False)


NAME_SPAN = 1.2
"""The widest a tile's name is drawn, in hex sizes (circumradii): about the width of its hex
where the name stands, so that on a small map's big hexes a name stays under its own tile."""


def name_fit(name: str, size: int, floor: int, hex_size: float) -> int:
    """The size to draw ``name`` at, ``size`` at most: the largest at which it spans no more
    than :data:`NAME_SPAN` hexes, but never under ``floor`` (the legible size: on the demo
    map's small hexes names run over their hex as before)."""
    wide = text_width(name, size)
    fit = int(size * NAME_SPAN * hex_size / wide) if wide > 0 else size
    return max(floor, min(size, fit))


def _label(draft: _Draft, kind: str, tile: str, text: str, placed: Placed, anchor: Point,
           colour: str, halo: bool, reach: float) -> None:
    draft.placed.append(Label(kind, tile, text, placed.size, placed.box, placed.far))
    if placed.far:  # from the edge of the marker area around the anchor to the label
        end = placed.box.nearest_edge_point(anchor)
        length = math.hypot(end[0] - anchor[0], end[1] - anchor[1])
        if length > reach:
            share = reach / length
            start = (anchor[0] + (end[0] - anchor[0]) * share,
                     anchor[1] + (end[1] - anchor[1]) * share)
            draft.overlay.append(Line((start, end), INK, 1))  # under every marker
    draft.labels.append(Text(placed.box.centre, text, colour, placed.size, halo=halo))


def _present(situation: Situation, holders: Mapping[str, str], badges: Sequence[Badge]
             ) -> list[str]:
    """The claims the picture shows (holdings, armies, sieges), in the situation's order."""
    seen = set(holders.values()) | {a.claim for b in badges for a in b.armies} \
        | {s.besieger for s in situation.sieges}
    return [c for c in situation.claims if c in seen]


def _legend(x: float, y: float, colours: Mapping[str, str], present: Sequence[str]
            ) -> tuple[list[Shape], float]:
    """The legend's shapes and its bottom edge: the symbols, then the claims present."""
    out: list[Shape] = [Text((x, y + 8), "Legend", INK, 16, anchor="lm")]
    row = y + 32

    def entry(marker: list[Shape], text: str) -> None:
        nonlocal row
        out.extend(marker)
        out.append(Text((x + 28, row), text, INK, 13, anchor="lm"))
        row += 21

    def hexagon(cx: float, cy: float, fill: str) -> Polygon:
        return Polygon(HexLayout(8, origin=(cx, cy)).corners(0, 0), fill, OUTLINE)

    cx = x + 10
    for terrain, colour in TERRAIN_COLOURS.items():
        entry([hexagon(cx, row, colour)], terrain.value)
    row += 4
    entry([Polygon(_square(cx, row, 6), UNHELD, INK, 2)], "holdfast")
    entry([Polygon(_diamond(cx, row, 8), UNHELD, INK, 2)], "special holdfast")
    entry([Circle((cx, row), 4, PORT, "#ffffff")], "port")
    entry([Polygon(_triangle(cx, row, 5), RESOURCE, INK)], "resource tile")
    entry([Line(((cx - 9, row), (cx + 9, row)), CUT, 3)], "cut (no passage)")
    entry([Line(((cx - 9, row), (cx + 9, row)), LINK, 2, dashed=True)], "link (bridge, strait)")
    entry([Polygon(HexLayout(8, origin=(cx, row)).corners(0, 0, inset=1), None, INK, 3)],
          "held: ringed in its colour")
    entry([Circle((cx, row), 6, INK, "#ffffff")], "army (x3: three stacked)")
    entry([Polygon(_triangle(cx, row, 7), INK, "#ffffff")], "fleet")
    entry([Circle((cx, row), 6, FADED, "#ffffff")], "sighted (greys with age)")
    entry([Line(((cx - 9, row), (cx + 9, row)), INK, 2, arrow=True)], "march ahead")
    entry([Circle((cx, row), 8, None, SIEGE, 4)], "siege")
    entry([Line(((cx - 9, row), (cx + 9, row)), SIEGE, 3, dashed=True)], "blockade")
    entry([Line(((cx - 6, row - 6), (cx + 6, row + 6)), INK, 3),
           Line(((cx - 6, row + 6), (cx + 6, row - 6)), INK, 3)], "battle this month")
    if present:
        row += 8
        out.append(Text((x, row), "Claims", INK, 15, anchor="lm"))
        row += 22
        for name in present:
            entry([Polygon(_square(cx, row, 6), colours[name], INK)], name)
    return out, row
