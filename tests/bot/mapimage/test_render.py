"""Map pictures: geometry and content, not golden bytes.

Tile centres and neighbours agree with the map model, the pixel at each holdfast's centre has
its marker's colour, every id label is drawn, the image opens with the expected size, and no
hidden information changes a public or claim picture.
"""

from __future__ import annotations

import functools
import io
import math
import xml.etree.ElementTree as ET

import pytest
from PIL import Image, ImageColor

from bot.mapimage.draw import render_png, render_svg
from bot.mapimage.geometry import SQRT3, HexLayout
from bot.mapimage.scene import (
    CLAIM_COLOURS,
    UNHELD,
    Labels,
    Polygon,
    SceneOptions,
    Text,
    build_scene,
)
from bot.maps import demo_map
from rules.campaign.mapview import (
    MODERATOR,
    PUBLIC,
    ArmyMark,
    SiegeMark,
    Situation,
    Viewer,
    ViewKind,
    visible_to,
)
from rules.campaign.worldmap import MAX_COORD, WorldMap, grid_neighbours, parse_map

STARK, LANNISTER, TULLY = "House Stark", "House Lannister", "House Tully"
CLAIMS = (STARK, LANNISTER, TULLY)


def _png(data: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(data))
    image.load()
    return image.convert("RGB")


def test_neighbouring_tiles_are_one_hex_apart_and_others_further() -> None:
    """Every grid neighbour of every demo tile lies sqrt(3) * size away; every other tile
    further: the picture's geometry is the map model's."""
    world = demo_map()
    scene = build_scene(world, Situation(), SceneOptions(size=10, legend=False))
    step = SQRT3 * 10
    for tile in world:
        x, y = scene.centres[tile.id]
        grid = {f"{c:02d}{r:02d}" for c, r in grid_neighbours(tile.col, tile.row)
                if 0 <= c <= MAX_COORD and 0 <= r <= MAX_COORD} & set(world.tiles)
        for other in grid:
            ox, oy = scene.centres[other]
            assert math.isclose(math.hypot(ox - x, oy - y), step, rel_tol=1e-9)
        # the model's neighbours are the grid's, except for links and cuts
        linked = {b if a == tile.id else a for a, b in world.links if tile.id in (a, b)}
        cut = {b if a == tile.id else a for a, b in world.cuts if tile.id in (a, b)}
        assert set(world.neighbours(tile.id)) == (grid | linked) - cut


def test_a_hex_shares_an_edge_with_each_neighbour() -> None:
    layout = HexLayout(20)
    for col in (2, 3):
        own = {(round(x, 6), round(y, 6)) for x, y in layout.corners(col, 4)}
        for c, r in grid_neighbours(col, 4):
            theirs = {(round(x, 6), round(y, 6)) for x, y in layout.corners(c, r)}
            assert len(own & theirs) == 2
            a, b = layout.shared_edge((col, 4), (c, r))
            assert {(round(a[0], 6), round(a[1], 6)), (round(b[0], 6), round(b[1], 6))} \
                == own & theirs


def test_the_demo_map_png_opens_at_its_size_with_every_id_label_and_holdfast_colour() -> None:
    world = demo_map()
    holdfasts = [t.id for t in world.holdfasts()]
    situation = Situation(claims=CLAIMS, holders=((holdfasts[0], STARK),
                                                   (holdfasts[5], LANNISTER)))
    scene = build_scene(world, situation)
    image = _png(render_png(scene))
    assert image.size == (scene.width, scene.height)
    labels = [s for s in scene.shapes if isinstance(s, Text)]
    assert {s.text for s in labels} >= set(world.tiles)  # every id is drawn ...
    assert not scene.dropped
    for tile in world:  # ... inside its own hex (the layout may move it from the top)
        (label,) = [s for s in labels if s.text == tile.id]
        x, y = scene.centres[tile.id]
        assert math.hypot(label.at[0] - x, label.at[1] - y) < scene.hex_size * 0.8
    assert scene.holdfast_colours[holdfasts[0]] == CLAIM_COLOURS[0]
    assert scene.holdfast_colours[holdfasts[5]] == CLAIM_COLOURS[1]
    assert scene.holdfast_colours[holdfasts[1]] == UNHELD
    for tile_id, colour in scene.holdfast_colours.items():
        x, y = scene.centres[tile_id]
        assert image.getpixel((round(x), round(y))) == ImageColor.getrgb(colour), tile_id
    water = next(t for t in world if t.terrain.value == "water")
    wx, wy = scene.centres[water.id]
    assert image.getpixel((round(wx), round(wy))) == ImageColor.getrgb("#8dbde0")


def test_id_names_and_both_labels() -> None:
    world = demo_map()
    ids = build_scene(world, Situation(), SceneOptions(labels=Labels.IDS, legend=False))
    names = build_scene(world, Situation(), SceneOptions(labels=Labels.NAMES, legend=False))
    assert "Winterfell" not in ids.texts() and "1315" in ids.texts()
    assert "Winterfell" in names.texts() and "1315" not in names.texts()
    assert "0000" in names.texts()  # a tile without a name keeps its id


def test_an_inset_shows_only_the_tiles_around_its_centre() -> None:
    world = demo_map()
    scene = build_scene(world, Situation(), SceneOptions(around="Winterfell", radius=2,
                                                         legend=False))
    assert set(scene.centres) == world.tiles_within("1315", 2)
    image = _png(render_png(scene))
    assert image.size == (scene.width, scene.height) and scene.width < 400


def test_a_small_custom_map_as_svg_is_well_formed_and_labels_every_tile() -> None:
    text = ("id,name,terrain,flags,neighbours\n0000,Keep,field,holdfast;port,\n"
            "0001,,water,,\n0100,,forest,,0102\n0101,Cliff,mountain,,-0100\n0102,,field,,\n")
    world = parse_map(text)
    scene = build_scene(world, Situation(claims=(STARK,), holders=(("0000", STARK),)))
    root = ET.fromstring(render_svg(scene))
    assert root.tag.endswith("svg") and root.get("width") == str(scene.width)
    texts = {el.text for el in root.iter() if el.tag.endswith("text")}
    assert set(world.tiles) <= texts and {"Keep", "Cliff", STARK, "Legend"} <= texts
    lines = [el for el in root.iter() if el.tag.endswith("polyline")]
    assert any(el.get("stroke-dasharray") for el in lines)  # the link 0100-0102
    assert len([s for s in scene.shapes if isinstance(s, Polygon)]) > len(world)


def _world_with(*extra: ArmyMark, detected: bool = False) -> Situation:
    base = (ArmyMark(1, STARK, "1320", infantry=300, announced=True),
            ArmyMark(2, STARK, "1316", infantry=50, path=("1317", "1318")))
    seen = ((TULLY, "0633"),) if detected else ()
    armies = base + tuple(ArmyMark(a.id, a.claim, a.tile, a.fleet, a.infantry, a.cavalry,
                                   a.ships, a.path, a.announced, seen) for a in extra)
    holdfasts = [t.id for t in demo_map().holdfasts()]
    return Situation(claims=CLAIMS, holders=((holdfasts[0], STARK), ("1315", STARK)),
                     armies=armies, sieges=(SiegeMark("0830", LANNISTER),))


def _picture(situation: Situation, viewer: Viewer, secret_bonus: str = "2.5") -> bytes:
    world = _parsed(demo_map_text_with_bonus(secret_bonus))
    return render_png(build_scene(world, visible_to(situation, viewer)))


@functools.lru_cache(maxsize=4)
def _parsed(text: str) -> WorldMap:
    return parse_map(text)


def demo_map_text_with_bonus(bonus: str) -> str:
    from bot.maps import demo_map_text

    lines = demo_map_text().splitlines()
    out = []
    for line in lines:
        if line.startswith("1315,"):  # Winterfell: its secret defense bonus
            cells = line.split(",")
            cells[5] = bonus
            line = ",".join(cells)
        out.append(line)
    return "\n".join(out) + "\n"


HIDDEN_HOST = ArmyMark(9, LANNISTER, "0633", infantry=2000, cavalry=500,
                       path=("0732", "0731"))


@pytest.mark.parametrize("viewer", [PUBLIC, Viewer(ViewKind.CLAIM, STARK)],
                         ids=["public", "claim"])
def test_hidden_information_never_changes_a_public_or_claim_picture(viewer: Viewer) -> None:
    """The same picture with and without an undetected army, with another secret holdfast
    bonus, and with a private detection by another claim."""
    plain = _picture(_world_with(), viewer)
    assert _picture(_world_with(HIDDEN_HOST), viewer) == plain
    assert _picture(_world_with(), viewer, secret_bonus="4.0") == plain
    assert _picture(_world_with(HIDDEN_HOST, detected=True), viewer) == plain
    # the moderators do see the host
    assert _picture(_world_with(HIDDEN_HOST), MODERATOR) != _picture(_world_with(), MODERATOR)


def test_a_claim_picture_changes_with_what_that_claim_knows() -> None:
    tully = Viewer(ViewKind.CLAIM, TULLY)
    unseen = _picture(_world_with(HIDDEN_HOST), tully)
    seen = _picture(_world_with(HIDDEN_HOST, detected=True), tully)
    assert seen != unseen
    scene = build_scene(demo_map(), visible_to(_world_with(HIDDEN_HOST, detected=True), tully))
    assert "2.5k" in scene.texts() and "#9 2.5k" not in scene.texts()  # size, not the id


def test_the_moderator_picture_shows_numbers_and_marches() -> None:
    scene = build_scene(demo_map(), _world_with(HIDDEN_HOST))
    assert {"#1 300", "#2 50", "#9 2.5k"} <= set(scene.texts())
    arrows = [s for s in scene.shapes if getattr(s, "arrow", False)
              and getattr(s, "colour", "") in CLAIM_COLOURS]  # not the legend's
    assert len(arrows) == 2
    image = _png(render_png(scene))
    x, y = scene.centres["0731"]  # the arrow ends at the last tile of the march
    assert image.getpixel((round(x), round(y))) == ImageColor.getrgb(CLAIM_COLOURS[1])
