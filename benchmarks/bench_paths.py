"""Path validation and routing on the demo map of Westeros.

Validates 10,000 random 50-tile land paths (contiguous walks) with the full check a march
order gets, and routes between 200 random pairs of holdfasts with the cheapest-route search.
"""

from __future__ import annotations

import random
import time

from bot.maps import demo_map
from rules.campaign.config import DEFAULT_RULES
from rules.campaign.paths import ArmyKind, cheapest_route, check_path


def _walks(count: int, length: int, rng: random.Random) -> list[tuple[str, list[str]]]:
    world = demo_map()
    land = [t.id for t in world if t.is_land]
    walks = []
    while len(walks) < count:
        start = rng.choice(land)
        here, path = start, []
        for _ in range(length):
            options = [n for n in world.neighbours(here) if world.tile(n).is_land]
            if not options:
                break
            here = rng.choice(options)
            path.append(here)
        if len(path) == length:
            walks.append((start, path))
    return walks


def run() -> list[tuple[str, int, float]]:
    rng = random.Random(11)
    world = demo_map()
    walks = _walks(10_000, 50, rng)
    began = time.perf_counter()
    total = 0
    for start, path in walks:
        total += check_path(world, start, path, ArmyKind.LAND, DEFAULT_RULES).total
    validate = time.perf_counter() - began
    holds = [t.id for t in world.holdfasts()]
    pairs = [(rng.choice(holds), rng.choice(holds)) for _ in range(200)]
    began = time.perf_counter()
    found = sum(1 for a, b in pairs
                if cheapest_route(world, a, b, ArmyKind.LAND, DEFAULT_RULES) is not None)
    route = time.perf_counter() - began
    print(f"validated paths' total cost {total}; {found} of 200 holdfast pairs reachable by land")
    return [("validate a 50-tile path", len(walks), validate),
            (f"cheapest route between holdfasts ({len(world)} tiles)", len(pairs), route)]


if __name__ == "__main__":
    for name, count, seconds in run():
        print(f"{name}: {count} ops, {seconds / count * 1e6:.1f} us/op")
