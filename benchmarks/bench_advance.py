"""The rules of one tick alone, without a database: the movement phase and the whole
:func:`rules.campaign.tick.advance` on the tick benchmark's world.

World: that of ``benchmarks/bench_tick.py`` (a 100 x 100 map, 200 claims each on its own
holdfast, N armies of which 40% march a 10-tile path that set off on the tick before), built
directly as rules values (:class:`~rules.campaign.world.World`) by the same generator. The
second tick after departure is measured (the first has been applied: a steady state): the
marching armies enter about one tile each and the claims' holdfasts roll to detect those
passing near them.

Reported: this process's CPU time (``time.process_time``: steadier than wall time on a
shared machine), the best of several runs on the same world (the rules take values and
return new ones, so every run sees the same input) with the garbage collector paused as in a
tick, for ``advance_movement`` and for the whole ``advance``; the detection rolls and tiles
entered as a check on the work done. 5,000 armies (the tick benchmark's larger default size).
"""

from __future__ import annotations

import gc
import random
import time
from collections.abc import Callable
from fractions import Fraction
from types import SimpleNamespace
from typing import Any

from benchmarks.bench_tick import CLAIMS, SIZE, START, army_rows, big_map_text
from rules.campaign import calendar
from rules.campaign.config import RulesConfig
from rules.campaign.tick import Detection, Tick, advance, advance_movement
from rules.campaign.world import Army, ArmyKind, ArmyState, ClaimState, EventDice, March, World
from rules.campaign.worldmap import parse_map

SECRET = "bench"


def bench_world(armies: int, marching: int, size: int = SIZE) -> tuple[World, Tick, EventDice]:
    """The tick benchmark's world as rules values after the first tick of the marches, the
    second tick and the tick's dice."""
    rng = random.Random(7)
    world_map = parse_map(big_map_text(rng, size))
    rules = RulesConfig()
    last_tick = calendar.tick_index(START, rules)
    holds = [t.id for t in world_map.holdfasts()][:CLAIMS]
    claims = [ClaimState(i + 1, f"House {i}", hold) for i, hold in enumerate(holds)]
    rows = army_rows(SimpleNamespace(world=world_map, rules=rules), 1,
                     [c.id for c in claims], armies, marching, last_tick, rng)
    values = [Army(i + 1, r["claim_id"], ArmyKind(r["kind"]), ArmyState(r["state"]), r["tile"],
                   infantry=r["infantry"], cavalry=r["cavalry"], ships=r["ships"],
                   stationary_since=r["stationary_since"],
                   march=March(tuple(r["path_json"]), tuple(r["costs_json"]),
                               Fraction(r["saved"]), r["depart_tick"]))
              for i, r in enumerate(rows)]
    dice = EventDice(SECRET, 0)
    world, _ = advance(World.of(armies=values, claims=claims), Tick(last_tick + 1, world_map,
                                                                    rules), dice)
    return world, Tick(last_tick + 2, world_map, rules), dice


def best_cpu(work: Callable[[], Any], repeat: int) -> float:
    """The least CPU time of ``repeat`` runs of ``work``, with the cyclic garbage collector
    paused as the tick pauses it (``bot.services.tick``)."""
    best = float("inf")
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        for _ in range(repeat):
            began = time.process_time()
            work()
            best = min(best, time.process_time() - began)
    finally:
        if was_enabled:
            gc.enable()
    return best


def measure(armies: int, size: int = SIZE, repeat: int = 15) -> dict[str, float]:
    """CPU seconds of the movement phase and of the whole tick's rules (best of ``repeat``),
    with the tick's detection rolls and the tiles entered."""
    world, tick, dice = bench_world(armies, armies * 2 // 5, size)
    after, events = advance_movement(world, tick, dice)
    entered = sum(len(after.armies[i].travelled) - len(a.travelled)
                  for i, a in world.armies.items())
    return {"movement": best_cpu(lambda: advance_movement(world, tick, dice), repeat),
            "advance": best_cpu(lambda: advance(world, tick, dice), repeat),
            "rolls": float(sum(isinstance(e, Detection) for e in events)),
            "entered": float(entered), "events": float(len(events))}


def run() -> list[tuple[str, int, float]]:
    results: list[tuple[str, int, float]] = []
    for armies in (5_000,):
        m = measure(armies)
        print(f"{armies:,} armies ({armies * 2 // 5:,} marching): movement "
              f"{m['movement'] * 1000:.1f} ms CPU, whole advance {m['advance'] * 1000:.1f} ms "
              f"CPU; {m['entered']:.0f} tiles entered, {m['rolls']:.0f} detection rolls, "
              f"{m['events']:.0f} events", flush=True)
        results.append((f"advance_movement ({armies:,} armies)", 1, m["movement"]))
        results.append((f"advance ({armies:,} armies)", 1, m["advance"]))
    return results


if __name__ == "__main__":
    for op, n, seconds in run():
        print(f"{op}: {n} ops, {seconds * 1e6 / n:.0f} us/op")
