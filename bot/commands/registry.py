"""A small command registry in the style of discord.py's ``ext.commands``.

A handler is registered with :func:`command`; its docstring's first paragraph is its help, and
``example`` is shown in help and in error replies. Names and aliases are unique: registering a
duplicate fails at import. Handlers are synchronous (PRAW is) and return markdown.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from rules.dice import Dice


class CommandError(Exception):
    """A player-facing failure: what was wrong, what was expected, and an example.

    Bot commands and campaign orders raise it (orders through its subclass
    ``bot.services.orders.Rejected``); :meth:`render` is the one place it becomes a reply.
    """

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
            lines.append(f"**Example:** `{self.example}`")
        return "\n\n".join(lines)


def _sentence(text: str) -> str:
    text = text.strip()
    return text if text.endswith((".", "!", "?")) else text + "."


@dataclass(slots=True)
class CommandContext:
    """What a handler may know about the call: who asked, with which dice, when."""

    author: str
    dice: Dice
    now: datetime
    is_moderator: bool = False
    extra: dict[str, Any] = field(default_factory=dict)


Handler = Callable[[CommandContext, str], str]


@dataclass(frozen=True, slots=True)
class Command:
    name: str
    aliases: tuple[str, ...]
    summary: str
    help: str
    example: str
    moderator_only: bool
    handler: Handler
    private: bool = False  # its answer shows private state: sent by modmail only


_REGISTRY: dict[str, Command] = {}
_BY_NAME: dict[str, Command] = {}


def command(
    name: str,
    *,
    aliases: tuple[str, ...] = (),
    example: str = "",
    moderator_only: bool = False,
    private: bool = False,
) -> Callable[[Handler], Handler]:
    """Register ``handler`` as ``!name`` (and ``!alias`` for each alias).

    ``private``: the answer shows private state (a claim's gold, troops, armies), so it is only
    ever sent by modmail, whatever channel the command came in.
    """

    def register(handler: Handler) -> Handler:
        doc = inspect.getdoc(handler) or ""
        summary = doc.split("\n\n", 1)[0].replace("\n", " ").strip()
        cmd = Command(name, tuple(aliases), summary, doc, example, moderator_only, handler,
                      private)
        for key in (name, *aliases):
            key = key.lower()
            if key in _REGISTRY:
                raise RuntimeError(f"command name {key!r} is registered twice")
            _REGISTRY[key] = cmd
        _BY_NAME[name.lower()] = cmd
        return handler

    return register


def lookup(name: str) -> Command | None:
    """The command called ``name`` (or one of its aliases), case-insensitively."""
    return _REGISTRY.get(name.lower().lstrip("!"))


def is_private(name: str) -> bool:
    """Whether ``!name`` is answered by modmail only (an unknown name is not private)."""
    found = lookup(name)
    return found is not None and found.private


def all_commands() -> list[Command]:
    """Every registered command once, sorted by name."""
    return [
        _BY_NAME[k]
        for k in sorted(_BY_NAME)
    ]
