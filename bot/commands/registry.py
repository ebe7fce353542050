"""Bot commands (``!attack ...``) in the style of discord.py's ``ext.commands``.

:func:`command` describes a handler (name, aliases, example) and changes nothing else: the
commands in force are the ones listed in :data:`bot.commands.dispatch.COMMANDS`, a
:class:`Registry`. A handler's docstring's first paragraph is its help, and ``example`` is shown
in help and in error replies. Names and aliases are unique: a duplicate fails when the registry
is built. Handlers are synchronous (PRAW is) and return markdown.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from bot.errors import CommandError
from rules.dice import Dice

__all__ = ["Command", "CommandContext", "CommandError", "Handler", "Registry", "command",
           "described"]


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


_DESCRIPTION = "__maester_command__"


def command(
    name: str,
    *,
    aliases: tuple[str, ...] = (),
    example: str = "",
    moderator_only: bool = False,
    private: bool = False,
) -> Callable[[Handler], Handler]:
    """Describe ``handler`` as ``!name`` (and ``!alias`` for each alias); list it in a
    :class:`Registry` to make it a command.

    ``private``: the answer shows private state (a claim's gold, troops, armies), so it is only
    ever sent by modmail, whatever channel the command came in.
    """

    def describe(handler: Handler) -> Handler:
        doc = inspect.getdoc(handler) or ""
        summary = doc.split("\n\n", 1)[0].replace("\n", " ").strip()
        setattr(handler, _DESCRIPTION,
                Command(name, tuple(aliases), summary, doc, example, moderator_only, handler,
                        private))
        return handler

    return describe


def described(handler: Handler) -> Command:
    """The :class:`Command` that :func:`command` attached to ``handler``."""
    found = getattr(handler, _DESCRIPTION, None)
    if not isinstance(found, Command):
        raise TypeError(f"{handler!r} is not decorated with @command")
    return found


class Registry:
    """A fixed set of commands, found by name or alias, case-insensitively."""

    def __init__(self, handlers: Iterable[Handler]) -> None:
        self._by_key: dict[str, Command] = {}
        self._commands: list[Command] = []
        for handler in handlers:
            cmd = described(handler)
            for key in (cmd.name, *cmd.aliases):
                key = key.lower()
                if key in self._by_key:
                    raise RuntimeError(f"command name {key!r} is listed twice")
                self._by_key[key] = cmd
            self._commands.append(cmd)
        self._commands.sort(key=lambda c: c.name.lower())

    def lookup(self, name: str) -> Command | None:
        """The command called ``name`` (or one of its aliases; a leading ``!`` is ignored)."""
        return self._by_key.get(name.lower().lstrip("!"))

    def all(self) -> list[Command]:
        """Every command once, sorted by name."""
        return list(self._commands)
