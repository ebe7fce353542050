"""The pages in a real browser (headless Chromium through Playwright) against a live
``maester web`` server over a real campaign database: the realm loads, pans and zooms
(mouse, wheel, a two-finger pinch), a tile's panel, a battle appearing after a tick, the dice
verified in the page (and a forged roll caught), a war room's sighting kept after the army
moved on, a rotated link refused.

Screenshots go to ``$MAESTER_SCREENSHOTS`` when it is set (to look at them).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bot.db.engine import make_engine, transaction
from bot.services import weblinks
from bot.web.serve import Background, server
from tests.bot.services import scenario
from tests.bot.web.browser import browser  # noqa: F401  (the fixture)
from tests.bot.web.world import (
    LANNISTER,
    STARK,
    TULLY,
    advance,
    campaign,
    to_eve_of_battle,
)


class Live:
    def __init__(self, url: str, ctx: Any, bg: Background) -> None:
        self.url, self.ctx, self.bg = url, ctx, bg
        self.base = f"http://127.0.0.1:{bg.port}"

    def links(self, *, renew: bool = False) -> dict[str, str]:
        engine = make_engine(self.url)
        with transaction(engine) as session:
            found = weblinks.links(session, self.ctx, scenario.START, renew=renew)
        engine.dispose()
        return {link.name or "mod": self.base + link.path for link in found}


def _serve(tmp_path: Path, stage: str) -> Iterator[Live]:
    url, ctx = campaign(tmp_path, stage)
    bg = Background(server(scenario.settings_for(url), host="127.0.0.1", port=0))
    bg.start()
    try:
        yield Live(url, ctx, bg)
    finally:
        bg.stop()


@pytest.fixture
def before(tmp_path: Path) -> Iterator[Live]:
    yield from _serve(tmp_path, "before")


@pytest.fixture
def after(tmp_path: Path) -> Iterator[Live]:
    yield from _serve(tmp_path, "after")


def _page(browser: Any, url: str) -> Any:  # noqa: F811
    page = browser.new_page(viewport={"width": 1280, "height": 860})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.errors = errors
    page.goto(url)
    page.wait_for_selector("body[data-ready='1']")
    return page


def _shot(page: Any, name: str) -> None:
    folder = os.environ.get("MAESTER_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(folder) / f"{name}.png"))


def _view_box(page: Any) -> list[float]:
    return [float(v) for v in page.get_attribute("#map svg", "viewBox").split()]


def _tile_on_screen(page: Any, tile: str) -> tuple[float, float]:
    """Where a tile's centre is on the screen."""
    return tuple(page.evaluate("""(id) => {
        const data = JSON.parse(document.getElementById('page-data').textContent);
        const t = data.map.tiles.find((x) => x[0] === id);
        const svg = document.querySelector('#map svg');
        const p = svg.createSVGPoint(); p.x = t[3]; p.y = t[4];
        const q = p.matrixTransform(svg.getScreenCTM());
        return [q.x, q.y];
    }""", tile))


def test_the_realm_loads_pans_zooms_and_pinches(browser: Any, before: Live) -> None:  # noqa: F811
    page = _page(browser, before.base + "/")
    assert page.is_visible("#map svg")
    whole = _view_box(page)
    box = page.locator("#map").bounding_box()
    cx, cy = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(cx, cy)
    page.mouse.wheel(0, -400)
    page.wait_for_function("document.getElementById('map').dataset.zoom > 1.01")
    zoomed = _view_box(page)
    assert zoomed[2] < whole[2] and zoomed[3] < whole[3]
    page.mouse.move(cx, cy)
    page.mouse.down()
    page.mouse.move(cx - 200, cy - 120, steps=8)
    page.mouse.up()
    panned = _view_box(page)
    assert panned[0] > zoomed[0] and panned[1] > zoomed[1]  # dragged left and up
    assert panned[2] == pytest.approx(zoomed[2])
    _shot(page, "realm-zoomed")
    # a two-finger pinch (touch pointers spreading apart) zooms in further
    page.evaluate("""([x, y]) => {
        const map = document.getElementById('map');
        const fire = (type, id, px) => map.dispatchEvent(new PointerEvent(type, {
            pointerId: id, pointerType: 'touch', clientX: px, clientY: y, bubbles: true,
            isPrimary: id === 11}));
        fire('pointerdown', 11, x - 20); fire('pointerdown', 12, x + 20);
        for (let d = 20; d <= 120; d += 20) {
            fire('pointermove', 11, x - d); fire('pointermove', 12, x + d);
        }
        fire('pointerup', 11, x - 120); fire('pointerup', 12, x + 120);
    }""", [cx, cy])
    pinched = _view_box(page)
    assert pinched[2] < panned[2] * 0.5
    page.click("#zoom-reset")
    assert _view_box(page) == pytest.approx(whole)
    assert page.errors == []


def test_clicking_a_tile_opens_its_panel_and_search_finds_a_holdfast(
        browser: Any, before: Live) -> None:  # noqa: F811
    page = _page(browser, before.base + "/")
    riverrun = before.ctx.world.tile("Riverrun").id
    page.click("#zoom-in")
    page.click("#zoom-in")
    x, y = _tile_on_screen(page, riverrun)
    page.mouse.click(x, y)
    page.wait_for_selector("#panel:not([hidden])")
    panel = page.inner_text("#panel")
    assert "Riverrun" in panel and riverrun in panel and "held by House Tully" in panel
    assert page.get_attribute("#panel", "data-tile") == riverrun
    page.fill("#search-input", "winterf")
    page.press("#search-input", "Enter")
    page.wait_for_selector(f"#panel[data-tile='{before.ctx.world.tile('Winterfell').id}']")
    assert "Winterfell" in page.inner_text("#panel")
    assert "held by House Stark" in page.inner_text("#panel")
    _shot(page, "realm-panel")
    countdown = page.inner_text("#countdown")
    assert countdown  # in 3h 05m 10s, or due now
    assert "UTC" in page.inner_text("#next-tick") and "your time" in page.inner_text("#next-tick")


def test_a_battle_appears_after_a_tick(browser: Any, before: Live) -> None:  # noqa: F811
    page = _page(browser, before.base + "/")
    assert "Lannister vs House Tully" not in page.inner_text("#timeline")
    advance(before.url)
    page.reload()
    page.wait_for_selector("body[data-ready='1']")
    assert "House Lannister vs House Tully at Riverrun" in page.inner_text("#timeline")
    riverrun = before.ctx.world.tile("Riverrun").id
    page.click("#zoom-in")
    x, y = _tile_on_screen(page, riverrun)
    page.mouse.click(x, y)
    page.wait_for_selector(f"#panel[data-tile='{riverrun}']")
    assert "House Lannister army" in page.inner_text("#panel")  # the victor stands there
    _shot(page, "realm-battle")


def test_the_moderators_room_previews_a_battle_before_the_tick(
        browser: Any, before: Live) -> None:  # noqa: F811
    """Issue 26: on the eve of the battle the moderators' room shows the next tick's real
    preview (the battle, its public post, the claims' private notes); after the tick the
    realm shows the battle the preview showed, and the room previews the tick after."""
    battle = to_eve_of_battle(before.url)
    page = _page(browser, before.links()["mod"])
    assert f"Tick {battle}," in page.inner_text("#preview")
    assert "House Lannister vs House Tully at Riverrun" in \
        page.inner_text("#preview .preview-battles")
    post = page.locator("#preview .preview-post", has_text="[Battle]")
    post.locator("summary").click()
    body = post.locator("pre")
    assert body.is_visible() and "Riverrun" in body.inner_text()
    notes = page.inner_text("#preview")
    assert f"[{LANNISTER}]" in notes and f"[{TULLY}]" in notes  # each side's private notes
    assert not page.errors, page.errors
    _shot(page, "mod-preview")
    advance(before.url)
    realm = _page(browser, before.base + "/")
    assert "House Lannister vs House Tully at Riverrun" in realm.inner_text("#timeline")
    page.reload()
    page.wait_for_selector("body[data-ready='1']")
    assert f"Tick {battle}," not in page.inner_text("#preview")  # the next one now


def _army_rows(page: Any) -> dict[str, list[str]]:
    """The armies table's rows by army number: each cell's text."""
    rows = page.locator("#armies tbody tr")
    return {cells[0]: cells for cells in (
        [c.strip() for c in rows.nth(i).locator("td").all_inner_texts()]
        for i in range(rows.count()))}


def test_only_armies_on_the_move_show_when_they_arrive(
        browser: Any, before: Live) -> None:  # noqa: F811
    """The armies tables say when a march under way ends; an army that stands says when it
    arrived, never a past time under "Arrives" as if it were still coming. Before the battle
    the Lannister host (army 3) marches on Riverrun, Stark's army 1 stands where its march
    ended, Tully's army 2 never marched."""
    links = before.links()
    page = _page(browser, links["mod"])
    rows = _army_rows(page)
    arrives = rows["3"][-1]
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d", arrives)  # a time to come
    assert arrives >= page.get_attribute("#next-tick", "datetime")[:16].replace("T", " ")
    assert re.fullmatch(r"arrived \d{4}-\d\d-\d\d \d\d:\d\d", rows["1"][-1])
    assert rows["1"][3] == "standing" and rows["2"][-1] == "—"
    page.locator("#armies").scroll_into_view_if_needed()
    _shot(page, "mod-armies")
    room = _page(browser, links[STARK])
    mine = _army_rows(room)
    assert re.fullmatch(r"arrived \d{4}-\d\d-\d\d \d\d:\d\d", mine["1"][-1])
    assert mine["1"][-2] == "—"  # it left long ago: nothing under "Leaves"
    room.locator("#armies").scroll_into_view_if_needed()
    _shot(room, "claim-armies")
    lannister = _army_rows(_page(browser, links[LANNISTER]))
    assert lannister["3"][-1] == arrives and lannister["3"][-2].startswith("left ")
    assert not page.errors and not room.errors


def test_the_dice_are_verified_in_the_page(browser: Any, after: Live) -> None:  # noqa: F811
    page = _page(browser, after.base + "/")
    page.wait_for_selector("body[data-dice-checked='1']", timeout=20_000)
    assert page.locator(".commitment-verdict.ok").count() >= 1  # public secrets revealed
    rolled = page.locator(".dice-line:has-text('rolls=20:') .verdict.ok")
    assert rolled.count() == 2 and "✓ verified" in rolled.first.inner_text()
    bound = page.locator(".dice-line:has-text('beacon=4242') .verdict.ok")  # a beacon's round
    assert bound.count() == 1 and "beacon round 4242" in page.inner_text("#dice")
    assert page.locator(".verdict.bad").count() == 0
    page.locator(".dice-line:has-text('beacon=4242')").scroll_into_view_if_needed()
    _shot(page, "realm-dice")

    def forged(route: Any) -> None:  # the same page with one die's face changed
        body = route.fetch().text()
        start = body.index('data-rolls="[[')
        head, tail = body[:start + 14], body[start + 14:]
        sides, rest = tail.split(",", 1)
        value, rest = rest.split("]", 1)
        body = head + sides + ", " + str(int(value) % int(sides) + 1) + "]" + rest
        route.fulfill(body=body, headers={"content-type": "text/html"})

    page.route(after.base + "/", forged)
    page.goto(after.base + "/")
    page.wait_for_selector("body[data-dice-checked='1']", timeout=20_000)
    assert page.locator(".dice-line .verdict.bad").count() == 1
    assert "printed" in page.locator(".dice-line .verdict.bad").inner_text()
    # a war room checks its claim's private rolls with the claim's own secret
    page = _page(browser, after.links()[TULLY])
    page.wait_for_selector("body[data-dice-checked='1']", timeout=20_000)
    assert page.locator(".commitment-verdict.ok").count() >= 1
    assert page.locator(".verdict.bad").count() == 0
    assert "claim:" in page.inner_text("#dice h2")


def test_a_war_room_keeps_a_sighting_after_the_army_moved_on(
        browser: Any, after: Live) -> None:  # noqa: F811
    links = after.links()
    page = _page(browser, links[TULLY])
    assert "House Tully · war room" in page.inner_text("h1")
    sighting = page.inner_text("#sightings")
    assert LANNISTER in sighting and "may have moved on" in sighting and "last seen" in sighting
    data = page.evaluate("JSON.parse(document.getElementById('page-data').textContent)")
    tile = data["sightings"][0]["tile"]
    # still on the map where it was seen, greyed by its age, with the time since
    assert page.locator("#map svg text", has_text=re.compile(r"seen \d+[hd] ago")).count() >= 1
    page.click(f"#sightings a[data-tile='{tile}']")
    page.wait_for_selector(f"#panel[data-tile='{tile}']")
    assert "sighted here" in page.inner_text("#panel") and "(last seen" in page.inner_text(
        "#panel")
    assert "Secret defence bonus" in page.inner_text("#summary")
    _shot(page, "war-room")
    assert page.errors == []


def test_a_rotated_link_is_refused(browser: Any, after: Live) -> None:  # noqa: F811
    old = after.links()
    page = _page(browser, old[STARK])
    assert "House Stark" in page.inner_text("h1")
    new = after.links(renew=True)
    answer = page.goto(old[STARK])
    assert answer.status == 404 and "Not found" in page.inner_text("h1")
    again = page.goto(new[STARK])
    assert again.status == 200
    _shot(page, "rotated")
