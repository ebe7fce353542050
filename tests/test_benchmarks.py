"""The scale benchmarks at a tiny size: their invariants hold (not their timings).

- The tick benchmark (benchmarks/bench_tick.py): a tick's SQL statement count does not grow
  with the armies, on SQLite and PostgreSQL; the growth check reads its own figures.
- The snapshot benchmark (benchmarks/bench_snapshot.py): the world it takes back after a
  tick is the one its snapshot saw, on SQLite and PostgreSQL.
- The rules-alone benchmark (benchmarks/bench_advance.py): its world marches, detects and
  gives the same tick each time it is measured.
- The many-campaigns benchmark (benchmarks/bench_campaigns.py): two real worker processes
  catching up the same campaigns on one PostgreSQL apply every tick exactly once.
"""

from __future__ import annotations

from contextlib import ExitStack
from pathlib import Path

import pytest

from benchmarks import bench_advance, bench_snapshot
from benchmarks.bench_campaigns import TICKS, run_campaigns
from benchmarks.bench_tick import linear_verdict, measure, slopes
from tests.fixtures.db import fresh_schema, require_postgres, sqlite_url


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_tick_statements_stay_constant_as_the_armies_grow(backend: str, tmp_path: Path) -> None:
    figures = []
    for armies in (40, 160):
        with ExitStack() as stack:
            url = (sqlite_url(tmp_path / f"tick{armies}.db") if backend == "sqlite"
                   else stack.enter_context(fresh_schema(require_postgres())))
            figures.append(measure(url, armies, size=30))
    assert figures[0]["statements"] == figures[1]["statements"] > 0
    assert all(f["tick"] > 0 and f["baseline"] > 0 and f["peak_mb"] > 0 and f["preview"] > 0
               for f in figures)
    assert not any(f["statements_varied"] for f in figures)  # two ticks, one count


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_the_snapshot_benchmark_takes_back_a_tick_exactly(backend: str, tmp_path: Path) -> None:
    with ExitStack() as stack:
        url = (sqlite_url(tmp_path / "snapshot.db") if backend == "sqlite"
               else stack.enter_context(fresh_schema(require_postgres())))
        figures = bench_snapshot.measure(url, 40, size=30, repeat=2)
    assert figures["changed"] and figures["same"]  # the tick moved armies; undo put them back
    assert figures["json_bytes"] > figures["stored_bytes"] > 0
    assert all(figures[k] > 0 for k in ("take", "median", "tick", "restore"))


def test_the_rules_benchmark_measures_a_tick_that_moves_and_detects() -> None:
    figures = bench_advance.measure(160, size=30, repeat=2)
    assert figures["entered"] > 0 and figures["rolls"] > 0
    assert figures["movement"] > 0 and figures["advance"] > 0
    world, tick, dice = bench_advance.bench_world(160, 64, size=30)
    first = bench_advance.advance_movement(world, tick, dice)
    assert repr(bench_advance.advance_movement(world, tick, dice)) == repr(first)


def test_the_growth_check_reads_marginal_costs() -> None:
    points = [(1_000, 1.0), (5_000, 5.0), (20_000, 20.0)]
    assert slopes(points) == pytest.approx([1e-3, 1e-3])
    assert linear_verdict(points) == "at most linear"
    quadratic = [(n, (n / 1_000) ** 2) for n in (1_000, 5_000, 20_000)]
    assert linear_verdict(quadratic) == "FASTER THAN LINEAR"


def test_two_processes_catching_up_many_campaigns_apply_each_tick_once(pg_url: str) -> None:
    result = run_campaigns(pg_url, campaigns=4, armies=60, workers=2, size=30)
    assert result.problems == []
    assert result.campaigns == 4
    assert sum(result.applied) == 4 * TICKS
    assert sorted(result.tick_runs.values()) == [TICKS] * 4
    assert len(result.worker_seconds) == 2
