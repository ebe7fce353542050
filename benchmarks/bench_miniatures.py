"""Miniatures benchmark: the exact wound distribution of a 12-die attack with re-rolls and a
panic test (the issue asks for well under a second), plus resolving attacks with seeded dice.

``run()`` returns (operation, count, total seconds); ``python -m benchmarks.bench_miniatures``
prints them. The pool cache is cleared before every distribution so each one is computed
from scratch.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from rules.dice import SeededDice
from rules.miniatures.attack import AttackSpec, resolve_attack
from rules.miniatures.distribution import pool_distribution, wound_distribution
from rules.miniatures.rolls import PoolRerolls, Reroll, RerollFaces

F = RerollFaces

# Attacker re-rolls misses (a charge), defender re-rolls failed saves, panic test at 6+.
TWELVE_DICE = AttackSpec(
    12, 4, 5, morale=6,
    attack_rerolls=PoolRerolls(attacker=Reroll(F.FAILURES)),
    defense_rerolls=PoolRerolls(defender=Reroll(F.FAILURES)),
)
# The same with limited re-rolls on both sides, which takes the slower exact path.
TWELVE_DICE_LIMITED = AttackSpec(
    12, 4, 5, morale=6,
    attack_rerolls=PoolRerolls(Reroll(F.FAILURES, 3), Reroll(F.SUCCESSES, 2)),
    defense_rerolls=PoolRerolls(Reroll(F.SUCCESSES, 1), Reroll(F.FAILURES, 2)),
)


def _time(count: int, op: Callable[[int], object]) -> float:
    start = time.perf_counter()
    for i in range(count):
        op(i)
    return time.perf_counter() - start


def _cold_distribution(spec: AttackSpec) -> Callable[[int], object]:
    def op(_: int) -> object:
        pool_distribution.cache_clear()
        return wound_distribution(spec)

    return op


def run() -> list[tuple[str, int, float]]:
    """Time the operations; returns (operation, count, total seconds) per operation."""
    results = []
    for name, spec, count in (
        ("distribution 12 dice, re-rolls, panic", TWELVE_DICE, 200),
        ("distribution 12 dice, limited re-rolls both sides, panic", TWELVE_DICE_LIMITED, 50),
    ):
        results.append((name, count, _time(count, _cold_distribution(spec))))
    dice = SeededDice("bench")
    count = 5_000
    seconds = _time(count, lambda _: resolve_attack(TWELVE_DICE, dice=dice))
    results.append(("resolve 12-die attack with seeded dice", count, seconds))
    return results


def main() -> None:
    """Print each operation as "name: count ops, X us/op"."""
    for name, count, seconds in run():
        print(f"{name}: {count} ops, {seconds / count * 1e6:.1f} us/op")


if __name__ == "__main__":
    main()
