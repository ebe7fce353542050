"""Errors of the miniatures engine beyond the shared ones in :mod:`rules.errors`."""

from __future__ import annotations

from rules.errors import RulesError


class IllegalAction(RulesError):
    """The game does not allow this action here (a charge out of reach, through impassable
    terrain, an attack by a destroyed unit ...). ``action`` names it, ``reason`` says why."""

    def __init__(self, action: str, reason: str) -> None:
        self.action = action
        self.reason = reason
        super().__init__(f"{action}: {reason}")
