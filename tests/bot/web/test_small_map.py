"""The pages of a twelve-tile campaign, as its moderator rehearsing it looked at them in a
browser (found by hand: the page's map was drawn for hexes of 22 px and then scaled up four
times to fill the page, so its names stood 56 px tall across three hexes, with jagged halos,
and the war room warned that "0 infantry and 0 cavalry are scattered")."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlmodel import select

from bot.db.models import Army, Claim
from bot.mapimage.layout import Box, text_box
from bot.mapimage.scene import FADED, Circle, Text, label_sizes
from bot.services import journal, weblinks
from bot.web import data
from bot.web.serve import Background, server
from tests.bot.catalogue_world import START, World
from tests.bot.mapimage.test_layout import TWELVE
from tests.bot.web.browser import browser  # noqa: F401  (the fixture)

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


def test_a_small_maps_war_room_draws_a_forgotten_sighting_at_its_hex_size(
        tmp_path: Path, browser: Any) -> None:  # noqa: F811
    """Reviewed: a sighting the claim's view forgot was drawn greyed at the default hexes'
    size (22 px, an 8 px text) on a small map whose hexes grew past 90 px: a dot and a word
    too small beside the army labels. Now sized as the scene: its hexes and army labels.
    The screenshot (MAESTER_SCREENSHOTS=folder) is small-map-war-room-sighting.png."""
    # (House Ash's own army gives the scene an army label to compare with)
    w, view, link = _forgotten_sighting_war_room(tmp_path)
    [sighting] = view.data["sightings"]
    assert sighting["tile"] == "0202" and sighting["in_view"] is False
    s = view.scene.hex_size
    assert s > 90
    dots = [c for c in view.scene.shapes if isinstance(c, Circle) and c.fill == FADED]
    words = [t for t in view.scene.shapes if isinstance(t, Text) and " seen " in t.text]
    [own] = [label for label in view.scene.labels if label.kind == "army"]
    assert [c.radius for c in dots] == [s * 0.22]
    assert [(t.text, t.size) for t in words] == [("House Birch seen 24h ago",
                                                   label_sizes(s)[2])]
    with _opened(w, link, browser) as page:
        word = page.locator("#map svg text", has_text="House Birch seen 24h ago")
        assert word.count() == 1
        army = page.locator("#map svg text", has_text=own.text)
        size = "e => getComputedStyle(e).fontSize"
        assert army.count() == 1 and word.evaluate(size) == army.evaluate(size)
        folder = os.environ.get("MAESTER_SCREENSHOTS")
        if folder:
            Path(folder).mkdir(parents=True, exist_ok=True)
            word.scroll_into_view_if_needed()
            page.screenshot(path=str(Path(folder) / "small-map-war-room-sighting.png"))


def _forgotten_sighting_war_room(tmp_path: Path) -> tuple[World, data.View, str]:
    """House Ash's war room with House Birch's army sighted on 0202 a day ago and forgotten
    since (the claim's view no longer draws it), and the address of Ash's war room."""
    w = _world(tmp_path)
    w.say("birch_lord", "muster 300 infantry")
    w.say("ash_lord", "muster 200 infantry")
    w.run(w.later(days=2))
    with w.session() as session:
        ash = session.exec(select(Claim).where(Claim.name == "House Ash")).one()
        army = session.exec(select(Army).where(Army.claim_id != ash.id)).one()
        journal.log_event(session, w.ctx.campaign_id, w.ctx.tick_of(w.now) - 4, "detection",
                          "sighted", at=w.now, claim_id=ash.id,
                          data={"detected": True, "army": army.id, "at": "0202"})
        view = data.war_room(session, w.ctx, ash.id or 0)
        link = next(f.path for f in weblinks.links(session, w.ctx, w.now)
                    if f.name == "House Ash")
    return w, view, link


@contextmanager
def _opened(w: World, link: str, chromium: Any) -> Iterator[Any]:
    """The page at ``link`` (a war room's address) in ``chromium`` (the browser fixture),
    served by the web app of ``w``'s campaign, once its script has drawn it."""
    bg = Background(server(w.settings, host="127.0.0.1", port=0))
    bg.start()
    try:
        page = chromium.new_page(viewport={"width": 1280, "height": 860})
        page.goto(f"http://127.0.0.1:{bg.port}{link}")
        page.wait_for_selector("body[data-ready='1']")
        yield page
        page.close()
    finally:
        bg.stop()


def test_a_forgotten_sightings_marker_covers_no_label_or_id(tmp_path: Path) -> None:
    """Reviewed: the greyed "House Birch seen 24h ago" was drawn left of its dot, over the
    next hex and its id (0102): the ghosts were drawn over the map after its labels were laid
    out. Now they are placed among them, clear of every marker and label the scene placed
    (the ids the page's script draws included)."""
    _, view, _ = _forgotten_sighting_war_room(tmp_path)
    scene = view.scene
    [dot] = [c for c in scene.shapes if isinstance(c, Circle) and c.fill == FADED]
    [word] = [t for t in scene.shapes if isinstance(t, Text) and " seen " in t.text]
    assert word.text == "House Birch seen 24h ago"
    taken = [*scene.markers, *(label.box for label in scene.labels)]
    assert any(label.kind == "id" and label.text == "0102" for label in scene.labels)
    r = dot.radius
    for box in (text_box(word.text, word.size, word.at),
                Box.around(dot.centre, r, r)):
        assert not any(box.overlaps(other) for other in taken), box
    assert not text_box(word.text, word.size, word.at).overlaps(Box.around(dot.centre, r, r))


def test_a_forgotten_sighting_overlaps_no_text_in_the_browser(
        tmp_path: Path, browser: Any) -> None:  # noqa: F811
    """The same in a real browser: the boxes the page draws the sighting's text and every
    other text of the map in (the ids its script adds among them) do not overlap. The
    screenshot (MAESTER_SCREENSHOTS=folder) is small-map-war-room-sighting-clear.png."""
    w, _, link = _forgotten_sighting_war_room(tmp_path)
    with _opened(w, link, browser) as page:
        page.wait_for_selector("#tile-ids text")
        boxes = page.eval_on_selector_all("#map svg text", """els => els.map(e => {
            const b = e.getBoundingClientRect();
            return [e.textContent, b.left, b.top, b.right, b.bottom]; })""")
        [word] = [b for b in boxes if b[0] == "House Birch seen 24h ago"]
        ids = [b for b in boxes if b[0] == "0102"]
        assert ids, boxes  # the id the text used to cover is drawn
        others = [b for b in boxes if b is not word and b[0]]
        assert len(others) > 12
        for o in others:
            overlap = (word[1] < o[3] - 0.5 and o[1] < word[3] - 0.5
                       and word[2] < o[4] - 0.5 and o[2] < word[4] - 0.5)
            assert not overlap, (word, o)
        folder = os.environ.get("MAESTER_SCREENSHOTS")
        if folder:
            Path(folder).mkdir(parents=True, exist_ok=True)
            page.locator("#map svg text", has_text="House Birch seen 24h ago"
                         ).scroll_into_view_if_needed()
            page.screenshot(path=str(Path(folder) / "small-map-war-room-sighting-clear.png"))


def test_forgotten_sightings_on_the_demo_map_cover_nothing_and_stay_drawn(tmp_path: Path
                                                                          ) -> None:
    """On the demo map's small crowded hexes there is rarely a free place beside a dot: a
    sighting's text then takes the place of the ids it would cover (as the scene's army
    labels come before its ids), so every dot and text is still drawn, over nothing."""
    w = World(tmp_path)
    with w.session() as session:
        claim = session.exec(select(Claim)).first()
        assert claim is not None
        scene = data.war_room(session, w.ctx, claim.id or 0).scene
    tiles = sorted(scene.centres)[::79][:20]
    kept = [{"tile": t, "claim": "House Birch", "tick": 90 - n % 7} for n, t in enumerate(tiles)]
    shapes, displaced = data._ghosts(scene, kept, 100, 6)
    dots = [c for c in shapes if isinstance(c, Circle)]
    words = [t for t in shapes if isinstance(t, Text)]
    assert len(dots) == len(words) == 20
    assert {t.text for t in words} == {f"House Birch seen {d}d ago" for d in (2, 3, 4)}
    assert displaced and displaced <= {label.tile for label in scene.labels
                                       if label.kind == "id"}
    left = [*scene.markers, *(label.box for label in scene.labels
                              if not (label.kind == "id" and label.tile in displaced))]
    boxes = [text_box(t.text, t.size, t.at) for t in words] + [
        Box.around(c.centre, c.radius, c.radius) for c in dots]
    for n, box in enumerate(boxes):
        assert not any(box.overlaps(other) for other in left), box
        assert not any(box.overlaps(other) for other in boxes[n + 1:]), box


def test_the_demo_war_rooms_ids_give_way_to_a_forgotten_sighting(tmp_path: Path,
                                                                  db_url: str) -> None:
    """The war room itself on the demo map: the ids the page's script draws (its tiles'
    data) leave out those a forgotten sighting's text took the place of, and no drawn id
    stands under the text (before, Winterfell's sighting covered the id 1216). On SQLite and
    PostgreSQL."""
    w = World(tmp_path, url=db_url)
    w.say("tywin_lannister", "muster 300 infantry")
    w.run(w.later(days=2))
    winterfell = next(t.id for t in w.ctx.world.tiles.values() if t.name == "Winterfell")
    with w.session() as session:
        stark = session.exec(select(Claim).where(Claim.name == "House Stark")).one()
        army = session.exec(select(Army).where(Army.claim_id != stark.id)).one()
        journal.log_event(session, w.ctx.campaign_id, w.ctx.tick_of(w.now) - 4, "detection",
                          "sighted", at=w.now, claim_id=stark.id,
                          data={"detected": True, "army": army.id, "at": winterfell})
        view = data.war_room(session, w.ctx, stark.id or 0)
    [sighting] = view.data["sightings"]
    assert sighting["in_view"] is False
    [word] = [t for t in view.scene.shapes if isinstance(t, Text) and " seen " in t.text]
    assert word.text == "House Lannister seen 24h ago"
    box = text_box(word.text, word.size, word.at)
    drawn = [t for t in view.data["map"]["tiles"] if t[9] is not None]
    assert len(drawn) > 1000
    assert {t[0] for t in drawn} == {label.tile for label in view.scene.labels
                                     if label.kind == "id"}
    for t in drawn:
        assert not box.overlaps(text_box(t[0], t[9][2], (t[9][0], t[9][1]))), t
