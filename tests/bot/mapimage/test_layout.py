"""Maps a player reads at a glance: label layout, badges, sizes, insets and the film, checked
on the scene model (boxes, badges, labels) and on the decoded pictures, not on golden bytes."""

from __future__ import annotations

import io
import itertools
import random

import pytest
from PIL import Image, ImageColor

from benchmarks.bench_mapimage import busy_situation
from bot.config import Settings
from bot.mapimage.draw import render_film, render_png, render_svg
from bot.mapimage.font import font
from bot.mapimage.scene import (
    CLAIM_COLOURS,
    FADED,
    MIN_ID_PIXELS,
    MIN_WIDTHS,
    Scene,
    SceneOptions,
    at_least,
    build_scene,
    faded,
)
from bot.maps import demo_map
from bot.services.realm import picture_for, scene_data
from bot.services.world import CampaignContext
from rules.campaign.mapview import (
    MODERATOR,
    PUBLIC,
    ArmyMark,
    BattleMark,
    Situation,
    Viewer,
    ViewKind,
    visible_to,
)
from rules.campaign.worldmap import WorldMap, parse_map

STARK, LANNISTER, TULLY = "House Stark", "House Lannister", "House Tully"
CLAIMS = (STARK, LANNISTER, TULLY)

# The custom map: a long name above a tile where armies stand.
CROWDED = """id,name,terrain,flags,neighbours
0000,Crow Pass,hill,holdfast,
0001,Blackfen,swamp,holdfast,
0002,The Long Drowned Marshes,swamp,resource,
0100,Ironoaks Watchtower,forest,holdfast;special,
0101,,field,resource,
0102,Saltmarsh Landing,water,,
0200,,field,,
0201,Oldstones,field,holdfast;port,
0202,,water,,
"""


def _png(data: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(data))
    image.load()
    return image.convert("RGB")


def _crowded_situation() -> Situation:
    armies = (ArmyMark(1, STARK, "0001", infantry=1200), ArmyMark(2, STARK, "0001", infantry=800),
              ArmyMark(3, LANNISTER, "0001", infantry=3000, cavalry=400),
              ArmyMark(4, TULLY, "0001", fleet=True, ships=12),
              ArmyMark(5, TULLY, "0000", infantry=50, announced=True),
              ArmyMark(6, LANNISTER, "0101", infantry=90, path=("0201",)),
              ArmyMark(7, STARK, "0100", infantry=4000, announced=True))
    return Situation(claims=CLAIMS, holders=(("0000", STARK), ("0201", LANNISTER)),
                     armies=armies, battles=(BattleMark("0001", STARK, LANNISTER),))


def _scenes() -> list[tuple[str, WorldMap, Scene, Situation]]:
    world = demo_map()
    busy = busy_situation(world, random.Random(13))
    crowded = parse_map(CROWDED)
    out = []
    for name, w, situation in (("demo", world, busy), ("crowded", crowded,
                                                        _crowded_situation())):
        for viewer in (PUBLIC, MODERATOR, Viewer(ViewKind.CLAIM, situation.claims[0])):
            known = visible_to(situation, viewer)
            for options in (SceneOptions(), SceneOptions(size=14), SceneOptions(width=2400)):
                out.append((f"{name}-{viewer}-{options.size}", w, build_scene(w, known, options),
                            known))
    return out


SCENES = _scenes()


@pytest.mark.parametrize(("name", "world", "scene", "known"), SCENES,
                         ids=[s[0] for s in SCENES])
def test_no_label_covers_a_marker_or_another_label(name: str, world: WorldMap, scene: Scene,
                                                   known: Situation) -> None:
    assert scene.markers and scene.labels
    for label in scene.labels:
        for marker in scene.markers:
            assert not label.box.overlaps(marker), (name, label.text)
    for a, b in itertools.combinations(scene.labels, 2):
        assert not a.box.overlaps(b.box), (name, a.text, b.text)
    for badge in scene.badges:  # badges are markers too
        assert badge.box in scene.markers


@pytest.mark.parametrize(("name", "world", "scene", "known"), SCENES,
                         ids=[s[0] for s in SCENES])
def test_every_army_the_view_shows_is_drawn_in_its_colour(name: str, world: WorldMap,
                                                          scene: Scene, known: Situation
                                                          ) -> None:
    """Each army of the (filtered) situation is in exactly one badge; the pixel at each
    badge's centre has the badge's colour, which is its claim's (greyed for a sighting)."""
    drawn = [a for badge in scene.badges for a in badge.armies]
    assert sorted(map(repr, drawn)) == sorted(map(repr, known.armies))
    colours = dict(zip(known.claims, CLAIM_COLOURS, strict=False))
    image = _png(render_png(scene))
    for badge in scene.badges:
        claim = badge.armies[0].claim
        expected = colours[claim] if badge.seen_ticks is None \
            else faded(colours[claim], badge.seen_ticks)
        assert badge.colour == expected
        x, y = badge.centre
        assert image.getpixel((round(x), round(y))) == ImageColor.getrgb(badge.colour), name


def test_ids_stand_at_least_11_pixels_tall_at_the_default_size() -> None:
    """Measured on the font itself: the digits of every id label, drawn at its size."""
    for name, _, scene, _ in SCENES:
        if "32.0" not in name:
            continue
        ids = [label for label in scene.labels if label.kind == "id"]
        assert ids, name
        for label in ids:
            _, top, _, bottom = font(label.size).getbbox(label.text)
            assert bottom - top >= MIN_ID_PIXELS, (name, label.text, label.size)


def test_the_crowded_map_keeps_every_marker_and_moves_names_off_them() -> None:
    """The issue's case: "Crow Pass" no longer hides the armies at Blackfen below it; three
    claims' armies on one tile are three badges, Stark's two armies one stacked badge. At
    the size `map render` draws this small map every name fits; squeezed to the default hex
    size, names and ids give way, never a badge."""
    world = parse_map(CROWDED)
    squeezed = build_scene(world, _crowded_situation())
    assert {kind for kind, _ in squeezed.dropped} <= {"id", "name"}
    assert len(squeezed.badges) == 6
    scene = build_scene(world, _crowded_situation(),
                        at_least(world, SceneOptions(), MIN_WIDTHS["map"]))
    assert not [text for kind, text in scene.dropped if kind == "name"]
    at_blackfen = [b for b in scene.badges if b.tile == "0001"]
    assert sorted((b.armies[0].claim, len(b.armies), b.fleet) for b in at_blackfen) == \
        [(LANNISTER, 1, False), (STARK, 2, False), (TULLY, 1, True)]
    texts = {label.text for label in scene.labels}
    assert {"x2 2k", "#3 3.4k", "#4 12", "Crow Pass", "Blackfen"} <= texts
    public = build_scene(world, visible_to(_crowded_situation(), PUBLIC))
    assert not [label for label in public.labels if label.kind == "army"]  # no numbers
    assert {b.armies[0].claim for b in public.badges} == {TULLY, STARK}  # announced only
    # a name too long for its tile stands elsewhere, with a leader line, or is dropped; never
    # over a marker (checked for every scene above)
    long_name = [label for label in scene.labels if label.text == "The Long Drowned Marshes"]
    assert long_name == [] or long_name[0].box.x1 - long_name[0].box.x0 > scene.hex_size


def test_a_label_moved_away_gets_a_leader_line() -> None:
    world = parse_map(CROWDED)
    scene = build_scene(world, _crowded_situation(), SceneOptions(size=20))
    moved = [label for label in scene.labels if label.leader]
    assert moved
    leaders = [s for s in scene.shapes if getattr(s, "width", 0) == 1
               and getattr(s, "colour", "") == "#111111"]
    ends = {getattr(line, "points", ((0, 0), (0, 0)))[-1] for line in leaders}
    for label in moved:  # the line ends at the label's edge nearest its tile
        anchor = scene.centres[label.tile]
        badge = [b.centre for b in scene.badges if b.tile == label.tile]
        assert {label.box.nearest_edge_point(p) for p in [anchor, *badge]} & ends


def test_a_sighting_greys_with_age_and_says_when() -> None:
    world = demo_map()
    host = ArmyMark(9, LANNISTER, "0633", infantry=2000, seen=((TULLY, "0633"),),
                    seen_at=((TULLY, 100),))
    tully = Viewer(ViewKind.CLAIM, TULLY)
    fresh = build_scene(world, visible_to(Situation(CLAIMS, armies=(host,), tick=100), tully))
    old = build_scene(world, visible_to(Situation(CLAIMS, armies=(host,), tick=120), tully))
    (a,), (b,) = fresh.badges, old.badges
    assert a.colour == CLAIM_COLOURS[1] and b.colour not in (CLAIM_COLOURS[1], FADED)
    assert "2k seen now" in fresh.texts() and "2k seen 5d ago" in old.texts()
    assert faded(CLAIM_COLOURS[1], 10_000) == faded(CLAIM_COLOURS[1], 28)  # fades no further


def _context(world: WorldMap) -> CampaignContext:
    settings = Settings()
    return CampaignContext(0, settings, settings.rules_config(), world, "")


@pytest.mark.parametrize("radius", [0, 1, 3])
def test_an_inset_is_600_px_wide_with_its_tile_and_a_ring_around(radius: int) -> None:
    world = demo_map()
    situation = visible_to(busy_situation(world, random.Random(5)), PUBLIC)
    picture = picture_for(_context(world), scene_data(situation, around="1315", radius=radius))
    scene = picture.scene
    assert scene.width >= MIN_WIDTHS["inset"]
    ring = world.tiles_within("1315", 1)
    assert ring <= set(scene.centres)
    half = scene.hex_size
    for tile in ring:  # every hex of the ring lies whole inside the picture
        x, y = scene.centres[tile]
        assert half <= x <= scene.width - half and half * 0.86 <= y <= scene.height - half * 0.86
    assert _png(picture.data).size == (scene.width, scene.height)


def test_the_realm_map_is_at_least_1600_px_wide_and_width_sets_the_size() -> None:
    world = demo_map()
    picture = picture_for(_context(world), scene_data(Situation(), title="The realm"))
    assert picture.scene.width >= MIN_WIDTHS["realm"]
    for width in (1200, 3000):
        assert abs(build_scene(world, Situation(), SceneOptions(width=width)).width - width) <= 1
    small = parse_map(CROWDED)
    assert at_least(small, SceneOptions(), 1000).size > SceneOptions().size


def test_the_png_and_the_svg_show_the_same_labels() -> None:
    world = parse_map(CROWDED)
    scene = build_scene(world, _crowded_situation())
    svg = render_svg(scene)
    for label in scene.labels:
        assert f">{label.text}</text>" in svg


def _film(situations: list[Situation], viewer: Viewer = PUBLIC) -> bytes:
    world = parse_map(CROWDED)
    scenes = [build_scene(world, visible_to(s, viewer), SceneOptions(title=f"day {i}"))
              for i, s in enumerate(situations)]
    flashes = [build_scene(world, visible_to(s, viewer), SceneOptions(flash=("0001",)))
               if s.battles else None for s in situations]
    return render_film(scenes, flashes)


def _month(hidden: bool, bonus_army: int = 2000) -> list[Situation]:
    base = _crowded_situation()
    frames = [Situation(CLAIMS, holders=base.holders),
              Situation(CLAIMS, holders=base.holders, armies=base.armies[4:5]),
              base]
    if hidden:  # an unannounced host, a march, a private sighting: never public
        secret = ArmyMark(8, TULLY, "0200", infantry=bonus_army, path=("0201",),
                          seen=((STARK, "0200"),), seen_at=((STARK, 3),))
        frames = [Situation(f.claims, f.holders, (*f.armies, secret), f.sieges, f.blockades,
                            f.battles) for f in frames]
    return frames


def test_every_film_frame_hides_what_the_public_may_not_know() -> None:
    """The same film, byte for byte, with and without hidden armies, marches and sightings;
    the moderators' film differs."""
    plain = _film(_month(hidden=False))
    assert _film(_month(hidden=True)) == plain
    assert _film(_month(hidden=True, bonus_army=9000)) == plain
    assert _film(_month(hidden=True), MODERATOR) != _film(_month(hidden=False), MODERATOR)
    film = Image.open(io.BytesIO(plain))
    assert film.format == "GIF" and film.n_frames == 4  # three frames and one flash
    durations = []
    for index in range(film.n_frames):
        film.seek(index)
        durations.append(film.info["duration"])
    assert durations[-1] > durations[0]  # it rests on the month's map


def test_four_claims_on_one_tile_each_keep_a_visible_badge() -> None:
    world = parse_map(CROWDED)
    claims = (*CLAIMS, "House Frey")
    armies = tuple(ArmyMark(i + 1, claim, "0101", infantry=100) for i, claim in enumerate(claims))
    scene = build_scene(world, Situation(claims, armies=armies))
    assert len(scene.badges) == 4
    for a, b in itertools.combinations(scene.badges, 2):
        assert not a.box.overlaps(b.box)
    image = _png(render_png(scene))
    for badge in scene.badges:
        x, y = badge.centre
        assert image.getpixel((round(x), round(y))) == ImageColor.getrgb(badge.colour)


# A twelve-tile campaign map, as a moderator rehearsing one drew it (found by hand: its names
# were drawn three times as tall as on the demo map and ran across the neighbouring hexes, so a
# name stood under the wrong tile, or far off with a leader line, and squeezed an id to a
# smaller size than the other ids).
TWELVE = """id,terrain,name,flags,garrison
0000,hill,Stonegate Keep,holdfast,
0001,field,Greyfield Meadows,,
0002,forest,Wolfswood,,
0100,field,Greenfield,,
0101,field,Crossroads Inn,holdfast,100
0102,swamp,Fenmarsh,,
0200,mountain,Highpeak,,
0201,hill,Lionsrock,holdfast,
0202,field,Southford,,
0300,field,Saltcliff Harbour,holdfast;port,
0301,water,Narrow Sea,,
0302,water,Southern Sea,,
"""


@pytest.mark.parametrize("use", ["map", "realm"])
def test_on_a_twelve_tile_map_each_name_stays_within_its_own_hex(use: str) -> None:
    """`maester map render` and the monthly [Realm] post: the whole map, its hexes grown to
    the picture's width."""
    world = parse_map(TWELVE)
    situation = Situation(claims=CLAIMS, holders=(("0000", STARK), ("0201", LANNISTER)),
                          armies=(ArmyMark(1, STARK, "0000", infantry=900),))
    options = at_least(world, SceneOptions(), MIN_WIDTHS[use])
    scene = build_scene(world, visible_to(situation, MODERATOR), options)
    s = scene.hex_size
    names = {label.tile: label for label in scene.labels if label.kind == "name"}
    ids = {label.tile: label for label in scene.labels if label.kind == "id"}
    assert set(names) == {t.id for t in world if t.name} and set(ids) == {t.id for t in world}
    for tile, label in names.items():
        x, y = scene.centres[tile]
        assert not label.leader, label
        # within its hex's width at most, and below the hex's centre
        assert x - s <= label.box.x0 and label.box.x1 <= x + s, (label, s)
        assert y < label.box.centre[1] < y + s, (label, s)
        assert label.size >= 14  # as legible as on the demo map at least
    assert len({label.size for label in names.values()}) == 1  # one size for every name
    assert len({label.size for label in ids.values()}) == 1  # no id squeezed smaller
    # no text bigger than twice the default map's: big hexes need no bigger text
    assert max(label.size for label in scene.labels) <= 32
