"""Many campaigns on one PostgreSQL, caught up by two bot processes sharing the database.

World: ``MAESTER_BENCH_CAMPAIGNS`` campaigns, each the tick benchmark's world (a 100 x 100
map, 200 claims, ``MAESTER_BENCH_CAMPAIGN_ARMIES`` armies, 40% marching): 50 x 5,000 with
``MAESTER_BENCH_FULL=1`` (the figure of the README), else 10 x 1,000. Written with bulk Core
inserts (one campaign is built by the services, the others are copies of its rows). Then
``MAESTER_BENCH_WORKERS`` (default 2) real OS processes
(``python -m benchmarks.bench_campaigns worker ...``) each walk every campaign, starting at
a different one, and call :func:`bot.services.tick.catch_up` for a day (4 ticks, the last
one a month boundary): they meet on the same campaigns, as two bots sharing a database
would, and ``catch_up`` must apply each tick once. Reported: the set-up time, the total wall
time of the catch-up (process start to the last exit), each worker's own time and the ticks
it applied; checked: every campaign has exactly one ``TickRun`` row per tick of the day, the
workers' applied ticks add up to campaigns x 4 with no tick reported twice, every campaign's
``last_tick`` moved on 4.

Runs when ``MAESTER_BENCH_PG_URL`` is set or the test server answers (see bench_tick), in a
fresh schema. ``MAESTER_BENCH_MAP`` (default 100) sets the map's side: the smoke test uses
small sizes through :func:`run_campaigns`.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

from sqlalchemy import func, insert, select
from sqlmodel import col

from benchmarks.bench_tick import CLAIMS, SIZE, START, army_rows, big_map_text, pg_base, pg_url
from bot.config import parse_settings
from bot.db.engine import create_all, make_engine, transaction
from bot.db.models import Army, Campaign, Claim, Player, TickRun
from bot.services.tick import catch_up
from bot.services.world import Parses, load_context
from rules.campaign import calendar
from rules.campaign.config import DEFAULT_RULES

TICKS = 4  # a day of the default rules' ticks
UNTIL = START + TICKS * calendar.tick_length(DEFAULT_RULES)


@dataclass
class CampaignsResult:
    """What :func:`run_campaigns` measured and checked."""

    campaigns: int
    armies: int
    workers: int
    setup_seconds: float
    total_seconds: float
    worker_seconds: list[float]
    loading_seconds: list[float]  # of worker_seconds: opening the campaigns (their maps)
    applied: list[int]  # ticks applied by each worker
    tick_runs: dict[int, int] = field(default_factory=dict)  # campaign id -> TickRun rows
    problems: list[str] = field(default_factory=list)


def settings_for(url: str) -> Any:
    return parse_settings({"campaign": {"database_url": url, "name": "bench"}})


def build_campaigns(url: str, campaigns: int, armies: int, size: int = SIZE) -> list[int]:
    """``campaigns`` copies of the tick benchmark's world at ``url``; their ids."""
    rng = random.Random(11)
    settings = settings_for(url)
    engine = make_engine(url)
    create_all(engine)
    text_map = big_map_text(rng, size)
    with transaction(engine) as session:
        first = Campaign(name="bench 0", secret="bench", map_text=text_map, created_at=START)
        session.add(first)
        session.flush()
        ctx = load_context(session, settings, first.id)
        last_tick = ctx.tick_of(START)
        last_month = calendar.month_number(START, ctx.rules)
        first.last_tick, first.last_month = last_tick, last_month
        holds = [t.id for t in ctx.world.holdfasts()][:CLAIMS]
        session.flush()
        rest = [{"name": f"bench {i}", "secret": "bench", "map_text": text_map,
                 "created_at": START, "last_tick": last_tick, "last_month": last_month,
                 "subreddit": "", "season": "summer", "catalogue_json": {}}
                for i in range(1, campaigns)]
        if rest:
            session.execute(insert(Campaign), rest)
        ids = list(session.execute(select(col(Campaign.id)).order_by(col(Campaign.id)))
                   .scalars())
        claim_template = Claim(campaign_id=0, name="", holdfast="", gold=Decimal(10_000),
                               infantry=100_000, cavalry=10_000).model_dump(exclude={"id"})
        session.execute(insert(Claim), [
            {**claim_template, "campaign_id": cid, "name": f"House {i}", "holdfast": hold}
            for cid in ids for i, hold in enumerate(holds)])
        claims: dict[int, list[int]] = {cid: [] for cid in ids}
        for claim_id, cid in session.execute(
                select(col(Claim.id), col(Claim.campaign_id)).order_by(col(Claim.id))):
            claims[cid].append(claim_id)
        session.execute(insert(Player), [
            {"campaign_id": cid, "claim_id": claim_id, "reddit_name": f"player{claim_id}"}
            for cid in ids for claim_id in claims[cid]])
        # One campaign's armies, copied into every campaign with its own claims.
        template = army_rows(ctx, ids[0], list(range(len(holds))), armies, armies * 2 // 5,
                             last_tick, rng)
        for cid in ids:
            own = claims[cid]
            session.execute(insert(Army), [
                {**row, "campaign_id": cid, "claim_id": own[row["claim_id"]]}
                for row in template])
    engine.dispose()
    return ids


def worker(url: str, index: int, workers: int) -> dict[str, Any]:
    """One bot process: catch every campaign up to :data:`UNTIL`, starting at campaign
    number ``index * len / workers``. Returns the ticks it applied per campaign."""
    settings = settings_for(url)
    engine = make_engine(url)
    began = time.perf_counter()
    with transaction(engine) as session:
        ids = list(session.execute(select(col(Campaign.id)).order_by(col(Campaign.id)))
                   .scalars())
    start = index * len(ids) // workers
    applied: dict[str, list[int]] = {}
    loading = 0.0
    parses = Parses()  # the process's: campaigns on the same map parse it once
    for cid in ids[start:] + ids[:start]:
        loaded = time.perf_counter()
        with transaction(engine) as session:
            ctx = load_context(session, settings, cid, parses=parses)
        loading += time.perf_counter() - loaded
        reports = catch_up(engine, ctx, UNTIL)
        if reports:
            applied[str(cid)] = [r.tick for r in reports]
    engine.dispose()
    return {"applied": applied, "seconds": time.perf_counter() - began, "loading": loading}


def run_campaigns(url: str, campaigns: int, armies: int, workers: int = 2,
                  size: int = SIZE) -> CampaignsResult:
    """Build the campaigns at ``url`` (an empty schema), run ``workers`` processes that catch
    every campaign up a day, and check that every tick was applied exactly once."""
    began = time.perf_counter()
    ids = build_campaigns(url, campaigns, armies, size)
    setup = time.perf_counter() - began
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    began = time.perf_counter()
    procs = [subprocess.Popen([sys.executable, "-m", "benchmarks.bench_campaigns", "worker",
                               url, str(i), str(workers)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                              cwd=Path(__file__).resolve().parent.parent)
             for i in range(workers)]
    outputs = [p.communicate() for p in procs]
    total = time.perf_counter() - began
    problems: list[str] = []
    reports: list[dict[str, Any]] = []
    for proc, (out, err) in zip(procs, outputs, strict=True):
        if proc.returncode != 0:
            problems.append(f"worker exited {proc.returncode}: {err.strip()[-2000:]}")
            reports.append({"applied": {}, "seconds": 0.0, "loading": 0.0})
            continue
        reports.append(json.loads(out.strip().splitlines()[-1]))
    seen = Counter((cid, tick) for r in reports for cid, ticks in r["applied"].items()
                   for tick in ticks)
    twice = [key for key, n in seen.items() if n > 1]
    if twice:
        problems.append(f"ticks reported applied by two workers: {twice[:5]}")
    engine = make_engine(url)
    with transaction(engine) as session:
        runs: dict[int, int] = {cid: n for cid, n in session.execute(
            select(col(TickRun.campaign_id), func.count()).group_by(col(TickRun.campaign_id)))}
        last: dict[int, int] = {cid: t for cid, t in session.execute(
            select(col(Campaign.id), col(Campaign.last_tick)))}
        ctx = load_context(session, settings_for(url), ids[0])
    engine.dispose()
    day = ctx.tick_of(UNTIL) - ctx.tick_of(START)
    for cid in ids:
        if runs.get(cid, 0) != day:
            problems.append(f"campaign {cid}: {runs.get(cid, 0)} TickRun rows, not {day}")
        if last[cid] != ctx.tick_of(UNTIL):
            problems.append(f"campaign {cid}: last tick {last[cid]}, not {ctx.tick_of(UNTIL)}")
    applied = [sum(len(t) for t in r["applied"].values()) for r in reports]
    if sum(applied) != day * len(ids):
        problems.append(f"workers applied {sum(applied)} ticks, not {day * len(ids)}")
    return CampaignsResult(len(ids), armies, workers, setup, total,
                           [float(r["seconds"]) for r in reports],
                           [float(r["loading"]) for r in reports], applied, runs, problems)


def run() -> list[tuple[str, int, float]]:
    base = pg_base()
    if base is None:
        print("no PostgreSQL server: set MAESTER_BENCH_PG_URL", flush=True)
        return []
    full = os.environ.get("MAESTER_BENCH_FULL") == "1"
    campaigns = int(os.environ.get("MAESTER_BENCH_CAMPAIGNS", "50" if full else "10"))
    armies = int(os.environ.get("MAESTER_BENCH_CAMPAIGN_ARMIES", "5000" if full else "1000"))
    workers = int(os.environ.get("MAESTER_BENCH_WORKERS", "2"))
    size = int(os.environ.get("MAESTER_BENCH_MAP", str(SIZE)))
    with pg_url(base) as url:
        r = run_campaigns(url, campaigns, armies, workers, size)
    print(f"postgresql {r.campaigns} campaigns x {r.armies:,} armies, {r.workers} processes: "
          f"set-up {r.setup_seconds:.1f} s; a day ({TICKS} ticks each) caught up in "
          f"{r.total_seconds:.1f} s wall; workers "
          + ", ".join(f"{s:.1f} s / {n} ticks ({load:.1f} s of it opening campaigns)"
                      for s, load, n in zip(r.worker_seconds, r.loading_seconds, r.applied,
                                            strict=True))
          + f"; {sum(r.applied) / r.total_seconds:.2f} ticks/s together, "
          + f"{sum(r.worker_seconds) / max(1, sum(r.applied)):.2f} s per tick per process; "
          + ("every tick applied exactly once" if not r.problems
             else "PROBLEMS: " + "; ".join(r.problems)), flush=True)
    return [(f"postgresql catch-up of {r.campaigns} campaigns x {r.armies:,} armies, "
             f"{r.workers} processes (per tick)", max(1, sum(r.applied)), r.total_seconds)]


def _worker_main(argv: list[str]) -> int:
    url, index, workers = argv[0], int(argv[1]), int(argv[2])
    print(json.dumps(worker(url, index, workers)), flush=True)
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["worker"]:
        raise SystemExit(_worker_main(sys.argv[2:]))
    for op, n, seconds in run():
        print(f"{op}: {n} ops, {seconds * 1e6 / n:.0f} us/op")
