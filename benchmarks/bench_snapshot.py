"""The snapshot taken before every tick, on the tick benchmark's world, SQLite and PostgreSQL.

World: that of ``benchmarks/bench_tick.py`` (a 100 x 100 map, 200 claims, N armies of which
40% are marching). Reported per backend and size: the snapshot's own time
(:func:`bot.services.snapshots.take`, each in its own transaction; best and median wall time
of five, and the best CPU time of this process: all of it on SQLite, without the server's
on PostgreSQL),
its size stored (compressed) and as JSON, one tick through ``catch_up`` (which takes such a
snapshot first) for scale, and taking that tick back (``maester undo``: plan and restore),
with a check that the world restored is the one the snapshot saw.

Default: 1,000 and 5,000 armies. PostgreSQL as in the tick benchmark
(``MAESTER_BENCH_PG_URL``, or the test server when it answers), each run in a fresh schema.
"""

from __future__ import annotations

import json
import statistics
import time
import zlib
from typing import Any

from benchmarks.bench_tick import SIZE, START, backends, build
from bot.db.engine import transaction
from bot.services import snapshots
from bot.services.tick import catch_up
from rules.campaign import calendar

SIZES = (1_000, 5_000)


def _picture(session: Any, campaign_id: int) -> dict[str, Any]:
    """The world as a snapshot sees it (stored values), rows by id."""
    data = json.loads(snapshots.world_json(session, campaign_id))
    return {"campaign": data["campaign"], "digests": data["digests"],
            "tables": {name: sorted(rows, key=lambda r: int(r[0]))
                       for name, rows in data["tables"].items()}}


def measure(url: str, armies: int, size: int = SIZE, repeat: int = 5) -> dict[str, float]:
    engine, ctx = build(url, armies, armies * 2 // 5, size)
    times, cpu = [], []
    for _ in range(repeat):
        with transaction(engine) as session:
            session.flush()
            began, began_cpu = time.perf_counter(), time.process_time()
            snapshot = snapshots.take(session, ctx, kind="command", label="bench", now=START)
            times.append(time.perf_counter() - began)
            cpu.append(time.process_time() - began_cpu)
            stored, plain = len(snapshot.data), len(zlib.decompress(snapshot.data))
            seen = _picture(session, ctx.campaign_id)
    began = time.perf_counter()
    assert len(catch_up(engine, ctx, START + calendar.tick_length(ctx.rules))) == 1
    tick = time.perf_counter() - began
    with transaction(engine) as session:
        changed = _picture(session, ctx.campaign_id) != seen
        began = time.perf_counter()
        newest = snapshots.newest(session, ctx)
        snapshots.restore(session, ctx, snapshots.plan(session, ctx, newest, START),
                          actor="bench", now=START)
        restore = time.perf_counter() - began
        same = _picture(session, ctx.campaign_id) == seen
    engine.dispose()
    return {"take": min(times), "median": statistics.median(times), "cpu": min(cpu),
            "stored_bytes": stored,
            "json_bytes": plain, "tick": tick, "restore": restore,
            "changed": float(changed), "same": float(same)}


def run() -> list[tuple[str, int, float]]:
    results: list[tuple[str, int, float]] = []
    for name, opener in backends():
        for armies in SIZES:
            with opener() as url:
                m = measure(url, armies)
            print(f"{name} {armies:>6,} armies: snapshot {m['take'] * 1000:5.1f} ms (median "
                  f"{m['median'] * 1000:.1f} ms, CPU here {m['cpu'] * 1000:.1f} ms), "
                  f"{m['stored_bytes'] / 1024:.0f} KiB stored "
                  f"({m['json_bytes'] / 1024:.0f} KiB JSON); a tick with its snapshot "
                  f"{m['tick'] * 1000:.0f} ms; undo {m['restore'] * 1000:.0f} ms, world "
                  + ("restored exactly" if m["same"] and m["changed"] else "NOT RESTORED"),
                  flush=True)
            results.append((f"{name} snapshot ({armies:,} armies)", 1, m["take"]))
            results.append((f"{name} undo of a tick ({armies:,} armies)", 1, m["restore"]))
    return results


if __name__ == "__main__":
    for op, n, seconds in run():
        print(f"{op}: {n} ops, {seconds * 1e6 / n:.0f} us/op")
