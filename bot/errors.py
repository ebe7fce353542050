"""Player-facing errors and their one renderer.

A :class:`CommandError` says what was wrong, what was expected, and gives an example. Bot
commands raise it, and campaign orders through its subclass
:class:`bot.services.order_call.Rejected`; :meth:`CommandError.render` is the one place it
becomes a reply. :func:`apology` is the one answer to a failure on the bot's side (a bug, not
the player's mistake). This module sits below the services and the commands so both can use
it without importing each other.
"""

from __future__ import annotations

from bot.text import code_md, escape_md
from rules.errors import NotationError


class CommandError(Exception):
    """A player-facing failure: what was wrong, what was expected, and an example."""

    def __init__(self, problem: str, expected: str = "", example: str = "") -> None:
        self.problem = problem
        self.expected = expected
        self.example = example
        super().__init__(problem)

    def render(self) -> str:
        """``**Not done:** ... **Expected:** ... **Example:** `...``` as markdown."""
        lines = [f"**Not done:** {_sentence(self.problem)}"]
        if self.expected:
            lines.append(f"**Expected:** {_sentence(self.expected)}")
        if self.example:
            lines.append(f"**Example:** `{code_md(self.example)}`")
        return "\n\n".join(lines)


class DamagedValue(ValueError):
    """A value in the database that no command of the bot can have written (a hand-edited
    ``NaN`` gold): the work that read it stops with this one line, naming the row and how to
    set it right, instead of a traceback at every tick."""


INTERNAL_FAILURE = "something went wrong on my side"
"""The words of every apology for an unexpected failure (the CLI exits non-zero on them)."""


def apology(ref: str, doing: str) -> str:
    """The reply to a failure on the bot's side while ``doing`` something ("handling this
    order"): nothing changed, and ``ref`` lets the moderators find it in the log."""
    return (f"**Not done:** {INTERNAL_FAILURE} while {doing} (reference "
            f"`{code_md(ref, 80)}`). Nothing changed; the moderators can look it up.")


def notation_failure(err: NotationError) -> CommandError:
    """A tabletop notation error as a reply, the player's own words made inert."""
    return CommandError(err.problem(lambda text: escape_md(text, 60)), err.syntax, err.example)


def _sentence(text: str) -> str:
    text = text.strip()
    return text if text.endswith((".", "!", "?")) else text + "."
