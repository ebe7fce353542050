"""Test helpers: exact enumeration of every way scripted dice can fall."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from fractions import Fraction
from typing import TypeVar

from rules.dice import ScriptedDice
from rules.errors import DiceExhausted

T = TypeVar("T", bound=Hashable)


def enumerate_outcomes(run: Callable[[ScriptedDice], T], limit: int = 200_000) -> dict[T, Fraction]:
    """Run ``run`` with every possible die sequence and weigh each outcome by its chance.

    Each run that asks for one die more than scripted is branched into every face of that die,
    so the outcomes cover the whole tree of rolls and their chances sum to exactly 1.
    """
    outcomes: dict[T, Fraction] = {}
    stack: list[tuple[tuple[int, ...], Fraction]] = [((), Fraction(1))]
    runs = 0
    while stack:
        prefix, chance = stack.pop()
        runs += 1
        assert runs <= limit, "the dice tree is too big for a quick test"
        try:
            value = run(ScriptedDice(prefix))
        except DiceExhausted as exc:
            stack += [((*prefix, face), chance / exc.sides) for face in range(1, exc.sides + 1)]
            continue
        outcomes[value] = outcomes.get(value, Fraction(0)) + chance
    return outcomes
