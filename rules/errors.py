"""Errors raised by the pure rules engines.

Every error carries structured fields and a player-facing ``str()``; the bot renders them in
one place. Nothing here knows about Reddit or the database.
"""

from __future__ import annotations

from collections.abc import Callable


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


class NotationError(RulesError):
    """Command text (a tabletop notation such as ``!attack 8 dice 4+ vs 5+``) that cannot be
    read.

    ``template`` has a ``{}`` for each piece of the player's own text in ``quoted``, so whoever
    shows the message can make those pieces inert (the bot escapes them for markdown);
    ``syntax`` and ``example`` say what would have been read.
    """

    def __init__(self, template: str, *quoted: str, syntax: str = "", example: str = ""
                 ) -> None:
        self.template = template
        self.quoted = quoted
        self.syntax = syntax
        self.example = example
        super().__init__(self.problem())

    def problem(self, show: Callable[[str], str] = str) -> str:
        """The message, each quoted piece passed through ``show``."""
        return self.template.format(*(show(q) for q in self.quoted))

    @classmethod
    def of(cls, err: RulesError, syntax: str, example: str) -> NotationError:
        """A rules error met while reading notation, as a NotationError with its text."""
        if isinstance(err, InvalidInput):
            text = f"{err.field.replace('_', ' ')}: {err.message}"
            syntax = err.expected or syntax
        else:
            text = str(err)
        return cls(text.replace("{", "{{").replace("}", "}}"), syntax=syntax, example=example)
