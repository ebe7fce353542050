"""One game tick of a large world, against a plain-SQL baseline, on SQLite and PostgreSQL.

World: a 100 x 100 = 10,000-tile map, 200 claims (as many as the map has holdfasts), N armies
of which 40% are marching. The baseline reads every army row and writes every army row once
with plain SQL through the driver (what any tick must at least do). Reported per backend and
size: the tick's time, the baseline's, their ratio, the SQL statements per tick (must not grow
with the armies) and the tick's peak Python memory (tracemalloc, on a second tick).

Default: 1,000 and 5,000 armies. ``MAESTER_BENCH_FULL=1``: 1,000 / 5,000 / 20,000 / 50,000.
PostgreSQL runs when ``MAESTER_BENCH_PG_URL`` is set, or the test server
(postgresql+psycopg://postgres@127.0.0.1:5432/test) answers; each run uses a fresh schema.
"""

from __future__ import annotations

import os
import random
import secrets
import tempfile
import time
import tracemalloc
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, event, insert, make_url, text

from bot.config import parse_settings
from bot.db.engine import create_all, make_engine, transaction
from bot.db.models import Army, ArmyKind, ArmyState, Campaign, Claim, Player
from bot.services.tick import catch_up
from bot.services.world import load_context
from rules.campaign import calendar
from rules.campaign.worldmap import tile_id

START = datetime(2026, 11, 22, 1, 0, tzinfo=UTC)  # the next tick (06:00) is no month boundary
SIZE = 100
TEST_PG = "postgresql+psycopg://postgres@127.0.0.1:5432/test"


def big_map_text(rng: random.Random) -> str:
    lines = ["id,name,terrain,flags,resource_benefit,defense_bonus,region,neighbours"]
    holdfasts = {(c, r) for c in range(2, SIZE - 2, 7) for r in range(2, SIZE - 2, 7)}
    for col in range(SIZE):
        for row in range(SIZE):
            edge = col in (0, SIZE - 1) or row in (0, SIZE - 1)
            terrain = "water" if edge else rng.choice(["field", "field", "forest", "hill"])
            flags = "holdfast" if (col, row) in holdfasts else ""
            name = f"Hold {col}-{row}" if flags else ""
            lines.append(f"{tile_id(col, row)},{name},{terrain},{flags},,,,")
    return "\n".join(lines) + "\n"


def build(url: str, armies: int, marching: int) -> tuple[Any, Any]:
    """The world at ``url`` (an empty database): claims by the ORM, armies by one Core insert."""
    rng = random.Random(7)
    settings = parse_settings({"campaign": {"database_url": url}})
    engine = make_engine(url)
    create_all(engine)
    text_map = big_map_text(rng)
    with transaction(engine) as session:
        campaign = Campaign(name="bench", secret="bench", map_text=text_map, created_at=START,
                            last_tick=0, last_month=0)
        session.add(campaign)
        session.flush()
        ctx = load_context(session, settings, campaign.id)
        campaign.last_tick = ctx.tick_of(START)
        campaign.last_month = calendar.month_number(START, ctx.rules)
        holds = [t.id for t in ctx.world.holdfasts()][:200]
        claims = []
        for i, hold in enumerate(holds):
            claim = Claim(campaign_id=campaign.id or 0, name=f"House {i}", holdfast=hold,
                          gold=10_000, infantry=100_000, cavalry=10_000)
            session.add(claim)
            claims.append(claim)
        session.flush()
        for claim in claims:
            session.add(Player(campaign_id=campaign.id or 0, claim_id=claim.id or 0,
                               reddit_name=f"player{claim.id}"))
        land = [t.id for t in ctx.world if t.is_land]
        rows: list[dict[str, Any]] = []
        for i in range(armies):
            claim = claims[i % len(claims)]
            tile = rng.choice(land)
            row: dict[str, Any] = {
                "campaign_id": campaign.id, "claim_id": claim.id, "kind": ArmyKind.LAND,
                "state": ArmyState.STANDING, "tile": tile, "infantry": 200, "cavalry": 20,
                "ships": 0, "stationary_since": 0, "path_json": [], "costs_json": [],
                "travelled_json": [], "saved": "0", "retreat_penalty": False,
                "equipment_json": [], "meta_json": {}, "depart_tick": None}
            if i < marching:
                path, here = [], tile
                for _ in range(10):
                    nxt = [n for n in ctx.world.neighbours(here) if ctx.world.tile(n).is_land]
                    here = rng.choice(nxt)
                    path.append(here)
                row.update(state=ArmyState.MARCHING, path_json=path,
                           costs_json=[ctx.rules.cost_of(ctx.world.tile(t).terrain)
                                       for t in path],
                           depart_tick=campaign.last_tick)
            rows.append(row)
        session.execute(insert(Army), rows)
    return engine, ctx


def baseline(engine: Any) -> float:
    """Read every army row and write every one back, plain SQL through the driver."""
    raw = engine.raw_connection()
    mark = "?" if engine.dialect.paramstyle == "qmark" else "%s"
    try:
        began = time.perf_counter()
        cursor = raw.cursor()
        cursor.execute("SELECT id, tile, infantry, cavalry, path_json, costs_json, saved "
                       "FROM army")
        rows = cursor.fetchall()
        cursor.executemany(f"UPDATE army SET tile = {mark}, saved = {mark} WHERE id = {mark}",
                           [(r[1], r[6], r[0]) for r in rows])
        raw.commit()
        return time.perf_counter() - began
    finally:
        raw.close()


def measure(url: str, armies: int) -> dict[str, float]:
    engine, ctx = build(url, armies, armies * 2 // 5)
    statements = 0

    def count(*_: Any) -> None:
        nonlocal statements
        statements += 1

    event.listen(engine, "before_cursor_execute", count)
    began = time.perf_counter()
    reports = catch_up(engine, ctx, START + timedelta(hours=6))
    tick_seconds = time.perf_counter() - began
    event.remove(engine, "before_cursor_execute", count)
    assert len(reports) == 1
    tracemalloc.start()
    assert len(catch_up(engine, ctx, START + timedelta(hours=12))) == 1
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    plain = min(baseline(engine) for _ in range(3))
    engine.dispose()
    return {"tick": tick_seconds, "statements": statements, "baseline": plain,
            "peak_mb": peak / 2**20}


@contextmanager
def sqlite_url() -> Iterator[str]:
    with tempfile.TemporaryDirectory() as tmp:
        yield f"sqlite:///{Path(tmp) / 'bench.db'}"


def pg_base() -> str | None:
    url = os.environ.get("MAESTER_BENCH_PG_URL", TEST_PG)
    try:
        probe = create_engine(url)
        with probe.connect():
            pass
        probe.dispose()
    except Exception:  # no server: the PostgreSQL figures are skipped
        return None
    return url


@contextmanager
def pg_url(base: str) -> Iterator[str]:
    schema = "bench_" + secrets.token_hex(4)
    admin = create_engine(base, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f"CREATE SCHEMA {schema}"))
    try:
        yield make_url(base).update_query_dict({"schema": schema}).render_as_string(
            hide_password=False)
    finally:
        with admin.connect() as connection:
            connection.execute(text(f"DROP SCHEMA IF EXISTS {schema} CASCADE"))
        admin.dispose()


def run() -> list[tuple[str, int, float]]:
    full = os.environ.get("MAESTER_BENCH_FULL") == "1"
    sizes = (1_000, 5_000, 20_000, 50_000) if full else (1_000, 5_000)
    backends: list[tuple[str, Any]] = [("sqlite", sqlite_url)]
    base = pg_base()
    if base is not None:
        backends.append(("postgresql", lambda: pg_url(base)))
    results: list[tuple[str, int, float]] = []
    for name, opener in backends:
        for armies in sizes:
            with opener() as url:
                m = measure(url, armies)
            print(f"{name} {armies:>6,} armies: tick {m['tick'] * 1000:7.0f} ms, plain SQL "
                  f"{m['baseline'] * 1000:6.0f} ms, ratio {m['tick'] / m['baseline']:5.1f}, "
                  f"{m['statements']:.0f} statements, peak {m['peak_mb']:.1f} MB", flush=True)
            results.append((f"{name} tick ({armies:,} armies, 40% marching)", 1, m["tick"]))
    return results


if __name__ == "__main__":
    for op, n, seconds in run():
        print(f"{op}: {n} ops, {seconds * 1e6 / n:.0f} us/op")
