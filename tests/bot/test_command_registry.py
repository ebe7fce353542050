"""The bot's ``!commands`` are the ones listed in ``bot.commands.dispatch.COMMANDS``:
describing a handler registers nothing, every described handler is listed, names are unique."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

import bot.commands
from bot.commands.dispatch import COMMANDS, lookup
from bot.commands.registry import CommandContext, Registry, command, described


def test_every_described_handler_is_listed_once() -> None:
    described_handlers = set()
    for info in pkgutil.iter_modules(bot.commands.__path__):
        module = importlib.import_module(f"bot.commands.{info.name}")
        for _, fn in inspect.getmembers(module, inspect.isfunction):
            if getattr(fn, "__maester_command__", None) is not None:
                described_handlers.add(described(fn).name)
    assert described_handlers == {c.name for c in COMMANDS.all()}
    assert len(COMMANDS.all()) == len(described_handlers)


def test_the_lazy_table_names_each_command_as_its_handler_does() -> None:
    """dispatch._TABLE (which module to import for a name) agrees with the @command names."""
    from bot.commands import dispatch

    for module, handler, names in dispatch._TABLE:
        cmd = described(getattr(importlib.import_module(f"bot.commands.{module}"), handler))
        assert (cmd.name, *cmd.aliases) == names
        for name in names:
            assert lookup(name) == cmd and lookup(f"!{name.upper()}") == cmd
    assert len(dispatch._TABLE) == len(COMMANDS.all())
    assert lookup("nonsense") is None


def test_describing_a_handler_changes_no_registry() -> None:
    before = [c.name for c in COMMANDS.all()]

    @command("shout", aliases=("yell",), example="!shout hi")
    def shout(ctx: CommandContext, args: str) -> str:
        """Shouts.

        More help."""
        return args.upper()

    assert [c.name for c in COMMANDS.all()] == before and lookup("shout") is None
    mine = Registry([shout])
    found = mine.lookup("!YELL")
    assert found is not None and found.name == "shout" and found.summary == "Shouts."
    assert found.example == "!shout hi" and found.handler is shout


def test_a_name_listed_twice_is_refused() -> None:
    @command("odds")
    def other_odds(ctx: CommandContext, args: str) -> str:
        """Another odds."""
        return ""

    with pytest.raises(RuntimeError, match="'odds' is listed twice"):
        Registry([*(c.handler for c in COMMANDS.all()), other_odds])
    with pytest.raises(TypeError):
        described(lambda ctx, args: "")
