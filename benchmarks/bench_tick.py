"""One game tick of a large world on SQLite, against a plain-SQL baseline.

World: a 100 x 100 = 10,000-tile map, 200 claims, 5,000 armies of which 2,000 are marching.
The baseline reads every army row and writes every army row once with plain SQL (what any
tick must at least do). Also reports the SQL statements per tick for 1,000 and 5,000 armies:
the number must not grow with the number of armies.
"""

from __future__ import annotations

import random
import sqlite3
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import event

from bot.config import parse_settings
from bot.db.engine import create_all, make_engine, transaction
from bot.db.models import Army, ArmyState, Campaign, Claim, Player
from bot.services.tick import catch_up
from bot.services.world import load_context
from rules.campaign.worldmap import tile_id

START = datetime(2026, 11, 22, 1, 0, tzinfo=UTC)  # the next tick (06:00) is no month boundary
SIZE = 100


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


def build(path: Path, armies: int, marching: int) -> tuple[Any, Any]:
    rng = random.Random(7)
    url = f"sqlite:///{path}"
    settings = parse_settings({"campaign": {"database_url": url}})
    engine = make_engine(url)
    create_all(engine)
    text = big_map_text(rng)
    with transaction(engine) as session:
        campaign = Campaign(name="bench", secret="bench", map_text=text, created_at=START,
                            last_tick=0, last_month=0)
        session.add(campaign)
        session.flush()
        ctx = load_context(session, settings, campaign.id)
        campaign.last_tick = ctx.tick_of(START)
        from rules.campaign import calendar

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
        for i in range(armies):
            claim = claims[i % len(claims)]
            tile = rng.choice(land)
            army = Army(campaign_id=campaign.id or 0, claim_id=claim.id or 0,
                        state=ArmyState.STANDING, tile=tile, infantry=200, cavalry=20,
                        stationary_since=0)
            if i < marching:
                path, here = [], tile
                for _ in range(10):
                    nxt = [n for n in ctx.world.neighbours(here) if ctx.world.tile(n).is_land]
                    here = rng.choice(nxt)
                    path.append(here)
                army.state = ArmyState.MARCHING
                army.path_json = path
                army.costs_json = [ctx.rules.cost_of(ctx.world.tile(t).terrain) for t in path]
                army.depart_tick = campaign.last_tick
            session.add(army)
    return engine, ctx


def measure(armies: int, marching: int) -> tuple[float, int, float]:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.db"
        engine, ctx = build(path, armies, marching)
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
        engine.dispose()
        conn = sqlite3.connect(path)
        began = time.perf_counter()
        rows = conn.execute("SELECT id, tile, infantry, cavalry, path_json, costs_json, saved "
                            "FROM army").fetchall()
        conn.executemany("UPDATE army SET tile = ?, saved = ? "
                         "WHERE id = ?", [(r[1], r[6], r[0]) for r in rows])
        conn.commit()
        baseline = time.perf_counter() - began
        conn.close()
        return tick_seconds, statements, baseline


def run() -> list[tuple[str, int, float]]:
    small = measure(1_000, 400)
    large = measure(5_000, 2_000)
    print(f"statements per tick: {small[1]} with 1,000 armies, {large[1]} with 5,000 armies")
    print(f"tick {large[0] * 1000:.0f} ms vs plain-SQL baseline {large[2] * 1000:.0f} ms: "
          f"ratio {large[0] / large[2]:.1f}")
    return [("tick (200 claims, 5,000 armies, 2,000 marching, 10,000 tiles)", 1, large[0]),
            ("plain-SQL baseline (read + write every army once)", 1, large[2])]


if __name__ == "__main__":
    for name, count, seconds in run():
        print(f"{name}: {count} ops, {seconds * 1e6 / count:.0f} us/op")
