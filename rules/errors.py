"""Errors raised by the pure rules engines.

Every error carries structured fields and a player-facing ``str()``; the bot renders them in
one place. Nothing here knows about Reddit or the database.
"""

from __future__ import annotations


class RulesError(ValueError):
    """Base class of every error a rules engine raises on bad input or an illegal action."""


class InvalidInput(RulesError):
    """An input value is malformed or out of range.

    ``field`` names the offending input (``"attacker.infantry"``), ``expected`` says what would
    have been accepted, so replies and the JSON interface can point at it.
    """

    def __init__(self, field: str, message: str, expected: str = "") -> None:
        self.field = field
        self.message = message
        self.expected = expected
        text = f"{field}: {message}"
        if expected:
            text += f" (expected {expected})"
        super().__init__(text)


class DiceExhausted(RulesError):
    """Scripted dice ran out before the engine finished rolling."""

    def __init__(self, sides: int, purpose: str, used: int) -> None:
        self.sides = sides
        self.purpose = purpose
        self.used = used
        super().__init__(
            f"dice: ran out of scripted dice after {used} roll(s); "
            f"needed a d{sides} for {purpose or 'a roll'}"
        )


class BadDie(RulesError):
    """A scripted die value does not fit the die being rolled."""

    def __init__(self, sides: int, value: int, purpose: str, index: int) -> None:
        self.sides = sides
        self.value = value
        self.purpose = purpose
        self.index = index
        super().__init__(
            f"dice[{index}]: {value} is not a possible d{sides} result for "
            f"{purpose or 'this roll'} (expected 1-{sides})"
        )
