"""Campaign battles: resolving 100,000 battles with seeded dice, and 1,000 exact odds.

Usage: ``python -m benchmarks battle`` or ``python -m benchmarks.bench_battle``.
"""

from __future__ import annotations

import random
import time
from decimal import Decimal

from rules.campaign.battle import Side, resolve_battle
from rules.campaign.config import LAND_TERRAINS, Terrain
from rules.campaign.modifiers import Effect, EffectKind, Modifier, Role, Source
from rules.campaign.odds import battle_odds
from rules.dice import SeededDice

BATTLES = 100_000
ODDS = 1_000
ARMIES = 2_000

_TERRAINS = sorted(LAND_TERRAINS)
_BONUSES = (Decimal(1), Decimal("1.1"), Decimal("1.25"), Decimal("1.5"))
_SKILL = Modifier("veterans", Source.SKILL,
                  (Effect(EffectKind.STRENGTH, Decimal("1.2"), Role.ATTACK),), "Veterans")


def _armies(rng: random.Random, count: int) -> list[Side]:
    armies: list[Side] = []
    for _ in range(count):
        size = rng.choice((20, 200, 2000, 10_000))
        terrain: Terrain = rng.choice(_TERRAINS)
        armies.append(Side(
            infantry=rng.randint(0, size), cavalry=rng.randint(0, size // 4),
            terrain=terrain, stationary=rng.random() < 0.5,
            commander_bonus=rng.choice(_BONUSES), retreat_penalty=rng.random() < 0.1,
            modifiers=(_SKILL,) if rng.random() < 0.2 else (),
            characters=("Ser Brynden",) if rng.random() < 0.1 else (),
        ))
    return armies


def run() -> list[tuple[str, int, float]]:
    """(operation, count, total seconds) for battles and exact odds over varied armies."""
    rng = random.Random(2026)
    armies = _armies(rng, ARMIES)
    pairs = [(rng.choice(armies), rng.choice(armies)) for _ in range(BATTLES)]
    dice = SeededDice("bench-battle")
    start = time.perf_counter()
    for attacker, defender in pairs:
        resolve_battle(attacker, defender, dice=dice)
    battles = time.perf_counter() - start
    start = time.perf_counter()
    for attacker, defender in pairs[:ODDS]:
        battle_odds(attacker, defender)
    odds = time.perf_counter() - start
    return [("resolve battle (seeded dice)", BATTLES, battles),
            ("exact battle odds", ODDS, odds)]


if __name__ == "__main__":
    for name, count, seconds in run():
        print(f"{name}: {count} ops, {seconds / count * 1e6:.1f} us/op")
