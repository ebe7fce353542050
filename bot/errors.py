"""Player-facing errors and their one renderer.

A :class:`CommandError` says what was wrong, what was expected, and gives an example. Bot
commands raise it, and campaign orders through its subclass
:class:`bot.services.order_call.Rejected`. :func:`render_error` is the one place any error
becomes a reply: a :class:`CommandError` as it says, a rules error in its own (escaped) words,
anything else as :func:`apology`, the one answer to a failure on the bot's side (a bug, not the
player's mistake). Replies travel as :class:`Answer` values, so a caller asks whether the bot
failed by ``Answer.failed``, never by reading the text. This module sits below the services
and the commands so both can use it without importing each other.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.text import code_md, escape_md
from rules.errors import NotationError, RulesError


@dataclass(frozen=True, slots=True)
class Answer:
    """A reply (markdown) and whether the bot failed on its side while making it (an
    unexpected error, apologised for in the text: nothing of that part changed)."""

    text: str
    failed: bool = False


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
"""The words of every apology for an unexpected failure."""


def apology(ref: str, doing: str) -> str:
    """The reply to a failure on the bot's side while ``doing`` something ("handling this
    order"): nothing changed, and ``ref`` lets the moderators find it in the log."""
    return (f"**Not done:** {INTERNAL_FAILURE} while {doing} (reference "
            f"`{code_md(ref, 80)}`). Nothing changed; the moderators can look it up.")


def render_error(exc: BaseException, *, ref: str, doing: str, example: str = "") -> Answer:
    """The reply to ``exc`` raised while ``doing`` something ("handling this order"): a
    :class:`CommandError` as it says (``example`` when it gives none), a rules error in its own
    words made inert, anything else an :func:`apology` with ``ref`` (``failed``: the caller
    logs it with its traceback)."""
    if isinstance(exc, CommandError):
        return Answer(CommandError(exc.problem, exc.expected, exc.example or example).render())
    if isinstance(exc, RulesError):
        return Answer(CommandError(escape_md(str(exc), 300), "", example).render())
    return Answer(apology(ref, doing), failed=True)


def notation_failure(err: NotationError) -> CommandError:
    """A tabletop notation error as a reply, the player's own words made inert."""
    return CommandError(err.problem(lambda text: escape_md(text, 60)), err.syntax, err.example)


def _sentence(text: str) -> str:
    text = text.strip()
    return text if text.endswith((".", "!", "?")) else text + "."
