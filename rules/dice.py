"""Dice are an argument, never a global.

Rules engines take a :class:`Dice` and call :meth:`Dice.roll`. Two implementations ship:
:class:`ScriptedDice` replays given values (tests, the JSON interface, audits) and
:class:`SeededDice` draws from its own ``random.Random`` instance seeded by the caller (the bot
derives the seed from the campaign secret and the event, so every roll can be replayed).
Both record every roll with its purpose, so results can show every die.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

from rules.errors import BadDie, DiceExhausted


@dataclass(frozen=True, slots=True)
class Roll:
    """One die rolled: its size, its result and what it was for."""

    sides: int
    value: int
    purpose: str = ""


class Dice(Protocol):
    """A source of die results."""

    def roll(self, sides: int, purpose: str = "") -> int:
        """Roll one die with ``sides`` faces and return a value in ``1..sides``."""
        ...


class RecordingDice:
    """Shared bookkeeping: every roll is appended to :attr:`rolls`."""

    def __init__(self) -> None:
        self.rolls: list[Roll] = []

    def _record(self, sides: int, value: int, purpose: str) -> int:
        self.rolls.append(Roll(sides, value, purpose))
        return value

    @property
    def values(self) -> list[int]:
        """The values rolled so far, in order."""
        return [r.value for r in self.rolls]


class ScriptedDice(RecordingDice):
    """Replays a fixed sequence of die values; raises when it runs out or a value cannot fit."""

    def __init__(self, values: Iterable[int]) -> None:
        super().__init__()
        self._values = list(values)
        self._next = 0

    def roll(self, sides: int, purpose: str = "") -> int:
        if self._next >= len(self._values):
            raise DiceExhausted(sides, purpose, self._next)
        value = self._values[self._next]
        if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= sides:
            raise BadDie(sides, value, purpose, self._next)
        self._next += 1
        return self._record(sides, value, purpose)

    @property
    def remaining(self) -> int:
        """How many scripted values have not been used."""
        return len(self._values) - self._next


class SeededDice(RecordingDice):
    """Pseudo-random dice from a private generator; the same seed gives the same rolls."""

    def __init__(self, seed: int | str | bytes) -> None:
        super().__init__()
        self._rng = random.Random(derive_seed(seed))

    def roll(self, sides: int, purpose: str = "") -> int:
        if sides < 1:
            raise ValueError(f"a die needs at least one side, not {sides}")
        return self._record(sides, self._rng.randint(1, sides), purpose)


def derive_seed(*parts: int | str | bytes) -> int:
    """Turn any parts (campaign secret, tick, army id, purpose) into a stable 128-bit seed."""
    h = hashlib.sha256()
    for part in parts:
        data = part if isinstance(part, bytes) else str(part).encode()
        h.update(len(data).to_bytes(4, "big"))
        h.update(data)
    return int.from_bytes(h.digest()[:16], "big")
