"""One game tick of a large world, against a plain-SQL baseline, on SQLite and PostgreSQL.

World: a 100 x 100 = 10,000-tile map, 200 claims (each on its own holdfast), N armies
of which 40% are marching. The baseline reads every army row and writes every army row once
with plain SQL through the driver, in one transaction (what any tick must at least do).
Reported per backend and size: the tick's time (the better of two ticks, as the baseline is
the best of three), the baseline's, their ratio, the same in this process's CPU time
(``time.process_time``: steadier than wall time on a shared machine; on PostgreSQL it leaves
out the server's work), the SQL statements per tick (must not grow with the armies, nor
differ between the two ticks) and a third tick's peak Python memory (tracemalloc), and the
time to preview the fourth (``tick --preview``: the world read on a read-only connection and
advanced in memory, nothing written).

Default: 1,000 and 5,000 armies. ``MAESTER_BENCH_FULL=1``: 1,000 / 5,000 / 20,000 / 50,000.
After the sizes of a backend: the marginal time and memory per army between consecutive
sizes, and whether growth stayed at most linear (the last step's cost per army within 2x
of the first's: the machine is shared).
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
from datetime import UTC, datetime
from itertools import pairwise
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, event, insert, make_url, text

from bot.config import parse_settings
from bot.db.engine import create_all, make_engine, transaction
from bot.db.models import Army, ArmyKind, ArmyState, Campaign, Claim, Player
from bot.services import snapshots
from bot.services.preview import preview
from bot.services.tick import catch_up
from bot.services.world import load_context
from bot.storage.army_rows import STEP, _row_keys
from rules.campaign import calendar
from rules.campaign.world import ACTIVE_STATES
from rules.campaign.worldmap import tile_id

START = datetime(2026, 11, 22, 1, 0, tzinfo=UTC)  # the next tick (06:00) is no month boundary
SIZE = 100
CLAIMS = 200
TEST_PG = "postgresql+psycopg://postgres@127.0.0.1:5432/test"


def big_map_text(rng: random.Random, size: int = SIZE) -> str:
    """A ``size`` x ``size`` map: water round the edge, a holdfast every 6 tiles (256 on
    the 100 x 100 map)."""
    lines = ["id,name,terrain,flags,resource_benefit,defense_bonus,region,neighbours"]
    holdfasts = {(c, r) for c in range(2, size - 2, 6) for r in range(2, size - 2, 6)}
    for col in range(size):
        for row in range(size):
            edge = col in (0, size - 1) or row in (0, size - 1)
            terrain = "water" if edge else rng.choice(["field", "field", "forest", "hill"])
            flags = "holdfast" if (col, row) in holdfasts else ""
            name = f"Hold {col}x{row}" if flags else ""
            lines.append(f"{tile_id(col, row)},{name},{terrain},{flags},,,,")
    return "\n".join(lines) + "\n"


def army_rows(ctx: Any, campaign_id: int, claim_ids: list[int], armies: int, marching: int,
              depart_tick: int, rng: random.Random) -> list[dict[str, Any]]:
    """``armies`` standing armies spread over the claims, the first ``marching`` of them on a
    10-tile march that started at ``depart_tick``: rows for one Core insert."""
    land = [t.id for t in ctx.world if t.is_land]
    rows: list[dict[str, Any]] = []
    for i in range(armies):
        tile = rng.choice(land)
        row: dict[str, Any] = {
            "campaign_id": campaign_id, "claim_id": claim_ids[i % len(claim_ids)],
            "kind": ArmyKind.LAND, "state": ArmyState.STANDING, "tile": tile,
            "infantry": 200, "cavalry": 20, "ships": 0, "stationary_since": 0,
            "path_json": [], "costs_json": [], "travelled_json": [], "saved": "0",
            "retreat_penalty": False, "equipment_json": [], "meta_json": {},
            "depart_tick": None}
        if i < marching:
            path, here = [], tile
            for _ in range(10):
                nxt = [n for n in ctx.world.neighbours(here) if ctx.world.tile(n).is_land]
                here = rng.choice(nxt)
                path.append(here)
            row.update(state=ArmyState.MARCHING, path_json=path,
                       costs_json=[ctx.rules.cost_of(ctx.world.tile(t).terrain) for t in path],
                       depart_tick=depart_tick)
        rows.append(row)
    return rows


def build(url: str, armies: int, marching: int, size: int = SIZE) -> tuple[Any, Any]:
    """The world at ``url`` (an empty database): claims by the ORM, armies by one Core insert."""
    rng = random.Random(7)
    settings = parse_settings({"campaign": {"database_url": url}})
    engine = make_engine(url)
    create_all(engine)
    text_map = big_map_text(rng, size)
    with transaction(engine) as session:
        campaign = Campaign(name="bench", secret="bench", map_text=text_map, created_at=START,
                            last_tick=0, last_month=0)
        session.add(campaign)
        session.flush()
        ctx = load_context(session, settings, campaign.id)
        campaign.last_tick = ctx.tick_of(START)
        campaign.last_month = calendar.month_number(START, ctx.rules)
        holds = [t.id for t in ctx.world.holdfasts()][:CLAIMS]
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
        rows = army_rows(ctx, campaign.id or 0, [c.id or 0 for c in claims], armies,
                         marching, campaign.last_tick, rng)
        session.execute(insert(Army), rows)
    return engine, ctx


def baseline(engine: Any) -> tuple[float, float]:
    """Read every army row and write every one back, plain SQL through the driver, in one
    transaction as a tick's (begun as the engine begins its transactions: on SQLite ``BEGIN
    IMMEDIATE``; the driver itself is left in autocommit there, where each of the updates
    would be a transaction of its own); the wall time and this process's CPU time, the
    commit included."""
    began, cpu = time.perf_counter(), time.process_time()
    with engine.begin() as connection:
        raw = connection.connection.driver_connection
        mark = "?" if engine.dialect.paramstyle == "qmark" else "%s"
        cursor = raw.cursor()
        cursor.execute("SELECT id, tile, infantry, cavalry, path_json, costs_json, saved "
                       "FROM army")
        rows = cursor.fetchall()
        cursor.executemany(f"UPDATE army SET tile = {mark}, saved = {mark} WHERE id = {mark}",
                           [(r[1], r[6], r[0]) for r in rows])
        cursor.close()
    return time.perf_counter() - began, time.process_time() - cpu


def required_sql(engine: Any, campaign_id: int, parses: Any) -> float:
    """The CPU time of the statements a tick cannot do without, with the driver alone in one
    transaction (rolled back): the armies' keys (:func:`~bot.storage.army_rows._row_keys`),
    the march steps' update of the marching armies (their own values written back), and the
    world's snapshot for ``maester undo`` as the tick takes it (the database builds its JSON
    on a connection of its own, then it is packed). The journal's rows and the commit are
    left out (a lower bound)."""
    cpu = time.process_time()
    with engine.connect() as connection, connection.begin() as work:
        _row_keys(connection, campaign_id, ACTIVE_STATES)
        cursor = connection.connection.driver_connection.cursor()
        sqlite = engine.dialect.name == "sqlite"  # (PostgreSQL: JSON read as text, and the
        # rows written as the tick writes them there, from one JSON document)
        names = [name if sqlite or not name.endswith("_json") else f"CAST({name} AS TEXT)"
                 for name in (*STEP.columns, "id")]
        cursor.execute(f"SELECT {', '.join(names)} FROM army WHERE state = 'marching'")
        rows = cursor.fetchall()
        if sqlite:
            cursor.executemany(STEP.update("?"), rows)
        else:
            cursor.execute(STEP.update_from_json(connection), (STEP.document(rows),))
        cursor.close()
        work.rollback()
    with transaction(engine) as session:  # the snapshot's campaign row, then its tables
        head = snapshots._read_head(session, campaign_id, heavy=False, parses=parses)
    snapshots._read_elsewhere(engine, campaign_id, head)
    return time.process_time() - cpu


def measure(url: str, armies: int, size: int = SIZE) -> dict[str, float]:
    engine, ctx = build(url, armies, armies * 2 // 5, size)
    statements = 0

    def count(*_: Any) -> None:
        nonlocal statements
        statements += 1

    event.listen(engine, "before_cursor_execute", count)
    times, cpus, counts = [], [], []
    step = calendar.tick_length(ctx.rules)
    for ticks in (1, 2):  # two ordinary ticks (no month boundary), timed
        statements = 0
        began, cpu = time.perf_counter(), time.process_time()
        assert len(catch_up(engine, ctx, START + ticks * step)) == 1
        times.append(time.perf_counter() - began)
        cpus.append(time.process_time() - cpu)
        counts.append(statements)
    event.remove(engine, "before_cursor_execute", count)
    tracemalloc.start()  # a third, for its peak memory (tracemalloc slows it down)
    assert len(catch_up(engine, ctx, START + 3 * step)) == 1
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    began = time.perf_counter()  # the next tick previewed: advanced in memory, nothing written
    assert len(preview(engine, ctx, START + 4 * step)) == 1
    previewed = time.perf_counter() - began
    plain = [baseline(engine) for _ in range(3)]
    required = min(required_sql(engine, ctx.campaign_id, ctx.parses) for _ in range(3))
    engine.dispose()
    return {"tick": min(times), "first_tick": times[0], "statements": max(counts),
            "statements_varied": float(len(set(counts)) > 1),
            "baseline": min(wall for wall, _ in plain), "tick_cpu": min(cpus),
            "baseline_cpu": min(cpu for _, cpu in plain), "peak_mb": peak / 2**20,
            "preview": previewed, "required_cpu": required}


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


def slopes(points: list[tuple[int, float]]) -> list[float]:
    """The marginal cost per army between consecutive sizes: (y2 - y1) / (n2 - n1)."""
    return [(y2 - y1) / (n2 - n1) for (n1, y1), (n2, y2) in pairwise(points)]


def linear_verdict(points: list[tuple[int, float]], tolerance: float = 2.0) -> str:
    """Whether ``points`` (size, cost) grow at most linearly: the marginal cost per army of
    the last step is within ``tolerance`` times the average cost per army of the smallest
    size or the first step (the machine is shared: times vary up to 2x)."""
    if len(points) < 2:
        return "n/a"
    steps = slopes(points)
    reference = max(points[0][1] / points[0][0], steps[0])
    worst = max(steps[1:], default=steps[0])
    return "at most linear" if worst <= tolerance * reference else "FASTER THAN LINEAR"


def backends() -> list[tuple[str, Any]]:
    """The backends to measure, each with the opener of a fresh database: SQLite, and
    PostgreSQL when its server answers."""
    found: list[tuple[str, Any]] = [("sqlite", sqlite_url)]
    base = pg_base()
    if base is not None:
        found.append(("postgresql", lambda: pg_url(base)))
    return found


def run() -> list[tuple[str, int, float]]:
    full = os.environ.get("MAESTER_BENCH_FULL") == "1"
    sizes = (1_000, 5_000, 20_000, 50_000) if full else (1_000, 5_000)
    results: list[tuple[str, int, float]] = []
    for name, opener in backends():
        measured: list[tuple[int, dict[str, float]]] = []
        for armies in sizes:
            with opener() as url:
                m = measure(url, armies)
            measured.append((armies, m))
            print(f"{name} {armies:>6,} armies: tick {m['tick'] * 1000:7.0f} ms (first "
                  f"{m['first_tick'] * 1000:.0f} ms), plain SQL "
                  f"{m['baseline'] * 1000:6.0f} ms, ratio {m['tick'] / m['baseline']:5.1f}; "
                  f"CPU {m['tick_cpu'] * 1000:.0f} ms vs {m['baseline_cpu'] * 1000:.0f} ms, "
                  f"ratio {m['tick_cpu'] / max(m['baseline_cpu'], 1e-6):.1f} (the SQL a "
                  f"tick cannot do without: {m['required_cpu'] * 1000:.0f} ms CPU); "
                  f"{m['statements']:.0f} statements, peak {m['peak_mb']:.1f} MB; the next "
                  f"tick previewed {m['preview'] * 1000:.0f} ms", flush=True)
            results.append((f"{name} tick ({armies:,} armies, 40% marching)", 1, m["tick"]))
        times = [(n, m["tick"]) for n, m in measured]
        memory = [(n, m["peak_mb"]) for n, m in measured]
        statements = sorted({int(m["statements"]) for _, m in measured})
        constant = len(statements) == 1 and not any(m["statements_varied"] for _, m in measured)
        if len(measured) > 1:
            print(f"{name} growth: time per army between sizes "
                  + ", ".join(f"{s * 1e6:.0f} us" for s in slopes(times))
                  + f" ({linear_verdict(times)}); memory per 1,000 armies "
                  + ", ".join(f"{s * 1000:.2f} MB" for s in slopes(memory))
                  + f" ({linear_verdict(memory)}); statements per tick "
                  + ("constant: " if constant else "NOT constant: ")
                  + ", ".join(map(str, statements)), flush=True)
    return results


if __name__ == "__main__":
    for op, n, seconds in run():
        print(f"{op}: {n} ops, {seconds * 1e6 / n:.0f} us/op")
