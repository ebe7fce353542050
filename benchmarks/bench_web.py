"""The web pages: the realm's server time and size, and load to an interactive map in
headless Chromium.

Two campaigns in SQLite files, each with 14 claims and 60 armies (40 marching, 20 standing
where a post announced them): the 1,568-tile demo map and a 10,000-tile map (100 x 100).
The realm is served by a live ``maester web`` server (uvicorn, read-only connection).

- server time to the first byte of ``/``: the first request (the page made from the
  database, as after every change of the world) and the median of the next 20 (served from
  memory); its size raw and gzip-compressed;
- in headless Chromium (the system's package), from the start of the navigation to the map
  being interactive (the page's script has read the data and set up pan, zoom and the tile
  panel), by the page's own clock (``performance.now()``), median of 5 loads in new pages.

The moderators' room (``/api/mod/<link>``): its preview of the next tick is made once per state
of the database (bot/web/app.Previews, issue #25): the first request (the preview made), the
median of the next ones (kept), and the first after an order was written (made again).

Goals (issue #26): the demo map under 50 ms to the first byte and under 300 KB compressed,
interactive under 1 s; the 10,000-tile map interactive under 3 s.
"""

from __future__ import annotations

import gzip
import http.client
import random
import shutil
import statistics
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from benchmarks.bench_mapimage import big_map
from bot.config import Settings, parse_settings
from bot.db.engine import make_engine, transaction
from bot.db.migrate import upgrade
from bot.db.models import Army, ArmyKind, ArmyState
from bot.maps import demo_map_text
from bot.services.setup import DEMO_ROSTER, create_campaign
from bot.web.serve import Background, server
from rules.campaign.worldmap import format_map, parse_map

START = datetime(2026, 11, 22, 7, 30, tzinfo=UTC)
REQUESTS = 21
LOADS = 5
ROOM_REQUESTS = 10


def build(folder: Path, map_text: str, roster: list[dict[str, object]]) -> Settings:
    """A campaign with 60 armies on ``map_text``; its settings."""
    settings = parse_settings({"campaign": {"database_url": f"sqlite:///{folder / 'b.db'}",
                                            "name": "Benchmark"}})
    engine = make_engine(settings.campaign.database_url)
    upgrade(engine)
    rng = random.Random(26)
    world = parse_map(map_text)
    land = [t.id for t in world if t.is_land]
    with transaction(engine) as session:
        ctx = create_campaign(session, settings, map_text=map_text, roster=roster, now=START,
                              seed="bench-web")
        tick = ctx.tick_of(START)
        from bot.services.world import all_claims

        claims = [c.id for c in all_claims(session, ctx)]
        for i in range(60):
            here = rng.choice(land)
            path = []
            for _ in range(6 if i < 40 else 0):
                options = [n for n in world.neighbours(here) if world.tiles[n].is_land]
                here = rng.choice(options)
                path.append(here)
            session.add(Army(campaign_id=ctx.campaign_id, claim_id=claims[i % len(claims)],
                             kind=ArmyKind.LAND,
                             state=ArmyState.MARCHING if i < 40 else ArmyState.STANDING,
                             tile=rng.choice(land), infantry=rng.randint(50, 3000),
                             cavalry=rng.randint(0, 800), path_json=path,
                             costs_json=[1] * len(path), depart_tick=tick,
                             arrival_tick=tick + 8 if i < 40 else tick))
    engine.dispose()
    return settings


def _server_times(port: int) -> tuple[float, float, int, int]:
    """The first request's time to the first byte (the page made from the database), the
    median of the next ones (from memory until the world changes), in seconds; the raw and
    gzip sizes (bytes)."""
    times = []
    fresh = 0.0
    raw = zipped = 0
    for i in range(REQUESTS):
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        began = time.perf_counter()
        connection.request("GET", "/", headers={"Accept-Encoding": "gzip"})
        answer = connection.getresponse()
        first = time.perf_counter() - began
        body = answer.read()
        connection.close()
        if i:
            times.append(first)
        else:
            fresh = first
        zipped = len(body)
        raw = len(gzip.decompress(body)) if answer.getheader("content-encoding") == "gzip" \
            else len(body)
    return fresh, statistics.median(times), raw, zipped


def mod_link(settings: Settings) -> str:
    """The moderators' room's API address."""
    from bot.services import weblinks
    from bot.services.world import load_context

    engine = make_engine(settings.campaign.database_url)
    with transaction(engine) as session:
        ctx = load_context(session, settings)
        path = next(link.path for link in weblinks.links(session, ctx, START) if not link.name)
    engine.dispose()
    return "/api" + path


def _get_seconds(port: int, path: str) -> float:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
    began = time.perf_counter()
    connection.request("GET", path)
    answer = connection.getresponse()
    answer.read()
    connection.close()
    assert answer.status == 200, answer.status
    return time.perf_counter() - began


def _room_times(port: int, settings: Settings, path: str, player: str
                ) -> tuple[float, float, float]:
    """The moderators' room: the first answer (the preview made), the median of the next ones
    (the preview kept), and the first after a write (an order accepted): seconds."""
    from bot.messages import handle_message
    from bot.services.world import load_context

    made = _get_seconds(port, path)
    kept = statistics.median(_get_seconds(port, path) for _ in range(ROOM_REQUESTS))
    engine = make_engine(settings.campaign.database_url)
    with transaction(engine) as session:
        ctx = load_context(session, settings)
        handle_message(session, ctx, author=player, text="muster 10 infantry", now=START,
                       ref="bench-web")
    engine.dispose()
    again = _get_seconds(port, path)
    return made, kept, again


def _interactive(port: int) -> float | None:
    """Median seconds from navigation to an interactive map in headless Chromium (None:
    no browser here)."""
    executable = shutil.which("chromium") or shutil.which("chromium-browser")
    if executable is None:
        print("  (no chromium: `apt-get install -y chromium` to measure the browser load)")
        return None
    from playwright.sync_api import sync_playwright

    times = []
    with sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=executable,
                                         args=["--no-sandbox", "--disable-gpu"])
        for _ in range(LOADS):
            page = browser.new_page(viewport={"width": 1280, "height": 860})
            page.goto(f"http://127.0.0.1:{port}/", wait_until="commit")
            page.wait_for_selector("body[data-ready='1']", timeout=60_000)
            # the page's own clock: from the start of the navigation to the map's set-up
            times.append(float(page.get_attribute("body", "data-ready-ms") or 0) / 1000)
            page.close()
        browser.close()
    return statistics.median(times)


def measure(label: str, map_text: str, roster: list[dict[str, object]]
            ) -> list[tuple[str, int, float]]:
    with tempfile.TemporaryDirectory(prefix="maester-bench-web-") as tmp:
        settings = build(Path(tmp), map_text, roster)
        room = mod_link(settings)
        bg = Background(server(settings, host="127.0.0.1", port=0))
        bg.start()
        try:
            fresh, first_byte, raw, zipped = _server_times(bg.port)
            ready = _interactive(bg.port)
            made, kept, again = _room_times(bg.port, settings, room,
                                            str(roster[0]["players"][0]))  # type: ignore[index]
        finally:
            bg.stop()
    shown = f"{ready:.2f} s" if ready is not None else "not measured"
    print(f"{label}: first byte {first_byte * 1000:.0f} ms ({fresh * 1000:.0f} ms when the "
          f"world changed and the page is made anew), {raw / 1024:.0f} KiB "
          f"({zipped / 1024:.0f} KiB gzip), interactive in Chromium {shown}")
    print(f"{label}: moderators' room {made * 1000:.0f} ms with its preview made, "
          f"{kept * 1000:.0f} ms with it kept (median of {ROOM_REQUESTS}), "
          f"{again * 1000:.0f} ms after an order (made again)")
    out = [(f"{label}, server time to first byte", 1, first_byte),
           (f"{label}, the page made anew", 1, fresh),
           (f"{label}, moderators' room, preview made", 1, made),
           (f"{label}, moderators' room, preview kept", 1, kept),
           (f"{label}, moderators' room after an order", 1, again)]
    if ready is not None:
        out.append((f"{label}, load to interactive map", 1, ready))
    return out


def run() -> list[tuple[str, int, float]]:
    results = measure("realm, 1,568-tile demo map", demo_map_text(), list(DEMO_ROSTER))
    big = big_map()
    holds = [t.id for t in big.holdfasts()][:14]
    roster: list[dict[str, object]] = [
        {"name": f"House {i}", "holdfast": h, "players": [f"player_{i}"], "gold": "1000",
         "infantry": 1000, "cavalry": 200} for i, h in enumerate(holds)]
    results += measure("realm, 10,000-tile map", format_map(big), roster)
    return results


if __name__ == "__main__":
    for op, _, seconds in run():
        print(f"{op}: {seconds:.3f} s")
