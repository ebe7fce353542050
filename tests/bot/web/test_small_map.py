"""The pages of a twelve-tile campaign, as its moderator rehearsing it looked at them in a
browser (found by hand: the page's map was drawn for hexes of 22 px and then scaled up four
times to fill the page, so its names stood 56 px tall across three hexes, with jagged halos,
and the war room warned that "0 infantry and 0 cavalry are scattered")."""

from __future__ import annotations

from pathlib import Path

from sqlmodel import select

from bot.db.models import Claim
from bot.mapimage.layout import text_box
from bot.mapimage.scene import label_sizes
from bot.web import data
from tests.bot.catalogue_world import START, World
from tests.bot.mapimage.test_layout import TWELVE

ROSTER = [
    {"name": "House Ash", "holdfast": "Stonegate Keep", "players": ["ash_lord"], "gold": "900",
     "infantry": 1000, "cavalry": 100, "characters": ["Alys Ash"]},
    {"name": "House Birch", "holdfast": "Lionsrock", "players": ["birch_lord"], "gold": "900",
     "infantry": 1000, "cavalry": 100},
]


def _world(tmp_path: Path) -> World:
    return World(tmp_path, claims=ROSTER, wars=[("House Ash", "House Birch")],
                 map_text=TWELVE)


def test_a_small_maps_page_lays_its_labels_out_at_the_size_it_shows_them(tmp_path: Path
                                                                         ) -> None:
    w = _world(tmp_path)
    w.say("ash_lord", "muster 300 infantry")
    with w.session() as session:
        ash = session.exec(select(Claim).where(Claim.name == "House Ash")).one()
        views = [data.realm(session, w.ctx), data.war_room(session, w.ctx, ash.id or 0),
                 data.moderators(session, w.ctx)]
    for view in views:
        scene, drawn = view.scene, view.data["map"]
        s = scene.hex_size
        assert s > 90 and drawn["hex"] == s  # 900 px at least, about as the page shows it
        sizes = {t[9][2] for t in drawn["tiles"] if t[9] is not None}  # the script's ids
        assert sizes and max(sizes) <= label_sizes(s)[0] <= 32
        names = [label for label in scene.labels if label.kind == "name"]
        assert len(names) == 12
        for label in names:
            x, _ = scene.centres[label.tile]
            assert not label.leader and x - s <= label.box.x0 and label.box.x1 <= x + s, label


def test_the_demo_maps_page_keeps_its_size(tmp_path: Path) -> None:
    w = World(tmp_path)
    with w.session() as session:
        view = data.realm(session, w.ctx)
    assert view.data["map"]["hex"] == view.scene.hex_size == 22.0


def test_a_war_room_warns_of_scattered_troops_only_while_any_are_left(tmp_path: Path
                                                                      ) -> None:
    w = _world(tmp_path)
    with w.session() as session:
        ash = session.exec(select(Claim).where(Claim.name == "House Ash")).one()
        ash.scattered_until, ash.scattered_infantry = START.replace(year=2027), 200
        session.add(ash)
    with w.session() as session:
        ash = session.exec(select(Claim).where(Claim.name == "House Ash")).one()
        warned = data.war_room(session, w.ctx, ash.id or 0).data["warnings"]
        assert any("200 infantry and 0 cavalry are scattered" in line for line in warned)
        ash.scattered_infantry = 0  # captured with the seat, say
        session.add(ash)
        session.flush()
        warned = data.war_room(session, w.ctx, ash.id or 0).data["warnings"]
    assert not any("scattered" in line for line in warned), warned


def test_the_pages_ids_stand_where_the_scene_left_room_for_them(tmp_path: Path) -> None:
    """The page's script draws the ids the scene took out (:func:`bot.web.data._without_ids`)
    where the scene placed them, clear of the army labels; before, it drew every id at the top
    of its hex, over an army's label there ("#8 300" over 0102); one it found no room for is
    left out, as in the pictures."""
    w = _world(tmp_path)
    w.say("ash_lord", "muster 300 infantry")
    with w.session() as session:
        ash = session.exec(select(Claim).where(Claim.name == "House Ash")).one()
        view = data.war_room(session, w.ctx, ash.id or 0)
    scene, drawn = view.scene, view.data["map"]
    armies = [label.box for label in scene.labels if label.kind == "army"]
    assert armies
    placed = [t for t in drawn["tiles"] if t[9] is not None]  # the script draws only these
    assert len(placed) >= 11
    for t in placed:
        box = text_box(t[0], t[9][2], (t[9][0], t[9][1]))
        assert not any(box.overlaps(army) for army in armies), t
