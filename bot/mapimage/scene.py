"""What a map picture shows, as a list of shapes: every content decision of the renderer.

:func:`build_scene` turns a map, a situation already filtered for its viewer
(:func:`rules.campaign.mapview.visible_to`) and drawing options into a :class:`Scene`: hex
polygons in terrain colours, cuts and links, holdfast/port/resource markers, armies, marches,
sieges, battles, labels and a legend. :mod:`bot.mapimage.draw` paints a scene as PNG (Pillow)
or SVG; nothing here touches a file or an imaging library, so tests can check the content.

Layout promises the tests rely on: a holdfast's marker is the topmost shape at its tile's
centre; armies stand left and right of the centre; the id label sits in the top of the hex and
the name label in the bottom.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from bot.mapimage.geometry import HexLayout, Point
from rules.campaign.config import Terrain
from rules.campaign.mapview import ArmyMark, Situation
from rules.campaign.worldmap import WorldMap

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
BACKGROUND = "#f4f1ea"
LEGEND_WIDTH = 210


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
class Scene:
    """A picture as shapes painted in order. ``centres`` maps each drawn tile id to its pixel
    centre; ``holdfast_colours`` each holdfast to its marker's fill colour."""

    width: int
    height: int
    shapes: tuple[Shape, ...]
    centres: Mapping[str, Point] = field(default_factory=dict)
    holdfast_colours: Mapping[str, str] = field(default_factory=dict)
    title: str = ""
    base_count: int = 0  # the first shapes depend on the map alone (see build_scene)

    def texts(self) -> list[str]:
        return [s.text for s in self.shapes if isinstance(s, Text)]


@dataclass(frozen=True, slots=True)
class SceneOptions:
    """``around``/``radius`` draw only the tiles within ``radius`` steps of ``around``."""

    size: float = 22.0
    labels: Labels = Labels.BOTH
    around: str | None = None
    radius: int = 3
    legend: bool = True
    title: str = ""
    numbers: bool = True  # army numbers and ids, when the situation has them


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


DEFAULT_OPTIONS = SceneOptions()


def build_scene(world: WorldMap, situation: Situation, options: SceneOptions = DEFAULT_OPTIONS
                ) -> Scene:
    """The shapes of a map picture of ``world`` showing ``situation`` (already filtered for
    its viewer). Raises UnknownTile for an unknown ``options.around`` tile."""
    if options.around is not None:
        centre = world.tile(options.around).id
        shown = sorted(world.tiles_within(centre, options.radius))
    else:
        shown = list(world.tiles)
    tiles = [world.tiles[t] for t in shown]
    s = options.size
    top = 26.0 if options.title else 0.0
    layout = HexLayout.fitting(((t.col, t.row) for t in tiles), s, 6.0)
    layout = HexLayout(layout.size, layout.min_col, layout.min_row,
                       (layout.origin[0], layout.origin[1] + top))
    right, bottom = layout.extent((t.col, t.row) for t in tiles)
    legend_x = right + 12
    legend: list[Shape] = []
    if options.legend:
        legend, legend_bottom = _legend(legend_x, 8 + top, situation, claim_colours(situation))
        bottom = max(bottom, legend_bottom)
    width = int(right + 8 + (LEGEND_WIDTH if options.legend else 0))
    height = int(bottom + 8)
    on_map = set(shown)
    centres = {t.id: layout.centre(t.col, t.row) for t in tiles}
    colours = claim_colours(situation)
    holders = dict(situation.holders)
    shapes: list[Shape] = []
    # The base layer depends on the map alone (terrain, cuts, links, ports, resources, ids):
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
            shapes.append(Line((centres[a], centres[b]), LINK, 2, dashed=True))
    # small markers at the edge of the hex: resources (top left), ports (top right)
    for t in tiles:
        x, y = centres[t.id]
        if t.resource:
            shapes.append(Polygon(_triangle(x - s * 0.55, y - s * 0.25, s * 0.2), RESOURCE, INK))
        if t.port:
            shapes.append(Circle((x + s * 0.6, y - s * 0.12), s * 0.17, PORT, "#ffffff"))
    font = max(7, round(s * 0.42))
    for t in tiles:
        x, y = centres[t.id]
        dark = t.terrain is Terrain.IMPASSABLE
        if options.labels in (Labels.IDS, Labels.BOTH) or (
                options.labels is Labels.NAMES and not t.name):
            shapes.append(Text((x, y - s * 0.56), t.id, "#f0f0f0" if dark else "#333333",
                               font))
    base_count = len(shapes)

    if options.title:
        shapes.append(Text((8, 13), options.title, INK, 14, anchor="lm"))
    for blockade in situation.blockades:
        if blockade.water in centres and blockade.port in centres:
            shapes.append(Line((centres[blockade.water], centres[blockade.port]), SIEGE, 3,
                               dashed=True))
    # marches under the markers
    for army in situation.armies:
        steps = [army.tile, *army.path]
        points = tuple(centres[t] for t in steps if t in centres)
        if len(points) > 1:
            shapes.append(Line(points, colours.get(army.claim, INK), 2, arrow=True))
    for battle in situation.battles:
        if battle.tile in centres:
            x, y = centres[battle.tile]
            r = s * 0.45
            shapes.append(Line(((x - r, y - r), (x + r, y + r)), INK, 3))
            shapes.append(Line(((x - r, y + r), (x + r, y - r)), INK, 3))
    for siege in situation.sieges:
        if siege.holdfast in centres:
            shapes.append(Circle(centres[siege.holdfast], s * 0.62, None, SIEGE, 3))

    # armies: land armies left of the centre, fleets right; several stack downwards
    slots: dict[tuple[str, bool], int] = {}
    for army in situation.armies:
        if army.tile not in centres:
            continue
        x, y = centres[army.tile]
        n = slots.get((army.tile, army.fleet), 0)
        slots[(army.tile, army.fleet)] = n + 1
        ax = x + (s * 0.52 if army.fleet else -s * 0.52)
        ay = y - s * 0.1 + n * s * 0.5
        colour = colours.get(army.claim, INK)
        r = s * 0.24
        if army.fleet:
            shapes.append(Polygon(_triangle(ax, ay, r * 1.1), colour, "#ffffff"))
        else:
            shapes.append(Circle((ax, ay), r, colour, "#ffffff"))
        label = army_label(army) if options.numbers else ""
        if label:
            shapes.append(Text((ax + (r + 2 if army.fleet else -r - 2), ay), label, INK,
                               max(8, round(s * 0.36)), halo=True,
                               anchor="lm" if army.fleet else "rm"))

    holdfast_colours: dict[str, str] = {}
    for t in tiles:
        if not t.holdfast:
            continue
        x, y = centres[t.id]
        fill = colours.get(holders.get(t.id, ""), UNHELD)
        holdfast_colours[t.id] = fill
        if t.special:
            shapes.append(Polygon(_diamond(x, y, s * 0.36), fill, INK, 2))
        else:
            shapes.append(Polygon(_square(x, y, s * 0.26), fill, INK, 2))
    if options.labels in (Labels.NAMES, Labels.BOTH):
        for t in tiles:
            if t.name:
                x, y = centres[t.id]
                shapes.append(Text((x, y + s * 0.55), t.name, INK, font, halo=True))
    shapes.extend(legend)
    return Scene(width, height, tuple(shapes), centres, holdfast_colours, options.title,
                 base_count)


def _legend(x: float, y: float, situation: Situation, colours: Mapping[str, str]
            ) -> tuple[list[Shape], float]:
    """The legend's shapes and its bottom edge."""
    out: list[Shape] = [Text((x, y + 6), "Legend", INK, 13, anchor="lm")]
    row = y + 26

    def entry(marker: list[Shape], text: str) -> None:
        nonlocal row
        out.extend(marker)
        out.append(Text((x + 26, row), text, INK, 10, anchor="lm"))
        row += 17

    def hexagon(cx: float, cy: float, fill: str) -> Polygon:
        return Polygon(HexLayout(7, origin=(cx, cy)).corners(0, 0), fill, OUTLINE)

    cx = x + 10
    for terrain, colour in TERRAIN_COLOURS.items():
        entry([hexagon(cx, row, colour)], terrain.value)
    row += 4
    entry([Polygon(_square(cx, row, 5), UNHELD, INK, 2)], "holdfast")
    entry([Polygon(_diamond(cx, row, 7), UNHELD, INK, 2)], "special holdfast")
    entry([Circle((cx, row), 4, PORT, "#ffffff")], "port")
    entry([Polygon(_triangle(cx, row, 5), RESOURCE, INK)], "resource tile")
    entry([Line(((cx - 8, row), (cx + 8, row)), CUT, 3)], "cut (no passage)")
    entry([Line(((cx - 8, row), (cx + 8, row)), LINK, 2, dashed=True)], "link (bridge, strait)")
    entry([Circle((cx, row), 5, INK, "#ffffff")], "army")
    entry([Polygon(_triangle(cx, row, 6), INK, "#ffffff")], "fleet")
    entry([Line(((cx - 8, row), (cx + 8, row)), INK, 2, arrow=True)], "march ahead")
    entry([Circle((cx, row), 7, None, SIEGE, 3)], "siege")
    entry([Line(((cx - 8, row), (cx + 8, row)), SIEGE, 3, dashed=True)], "blockade")
    entry([Line(((cx - 5, row - 5), (cx + 5, row + 5)), INK, 3),
           Line(((cx - 5, row + 5), (cx + 5, row - 5)), INK, 3)], "battle this month")
    if situation.claims:
        row += 6
        out.append(Text((x, row), "Claims", INK, 12, anchor="lm"))
        row += 18
        for name in situation.claims:
            entry([Polygon(_square(cx, row, 5), colours[name], INK)], name)
    return out, row
