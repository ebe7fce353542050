"""The Typer application behind ``maester``: the top-level group, which lists
:data:`bot.cli.listing.COMMANDS` and imports a command's module (by its name there) when it
runs. The helpers every command module uses (:data:`ConfigOpt`, :func:`command_group`) are in
:mod:`bot.cli.options`, below both, so no command module imports the group that loads it.

Imported only when a command goes through Typer (everything but the fast paths of
:mod:`bot.cli.quick`), so ``maester rules ENGINE`` never loads Typer or pydantic.
"""

from __future__ import annotations

import importlib
import os
from typing import Any

import typer
from typer.core import TyperCommand, TyperGroup

from bot.cli.listing import BY_NAME, COMMANDS, HELP, Entry
from bot.cli.options import ConfigOpt, command_group

__all__ = ["ConfigOpt", "LazyGroup", "app", "command_group", "load_command"]


def load_command(entry: Entry) -> Any:
    """The click command behind ``entry`` (imports its module)."""
    module = importlib.import_module(entry.module)
    built = typer.main.get_command(module.app)
    if isinstance(built, TyperGroup):
        found = built.commands.get(entry.name)
        if found is not None:
            return found
    elif built.name == entry.name:
        return built
    raise LookupError(f"{entry.module} does not define the command {entry.name!r}")


class LazyGroup(TyperGroup):
    """The top-level group: lists :data:`COMMANDS`, imports a command's module when it runs."""

    _listing = False

    def list_commands(self, click_ctx: Any) -> list[str]:
        return [*self.commands, *(e.name for e in COMMANDS if e.name not in self.commands)]

    def get_command(self, click_ctx: Any, cmd_name: str) -> Any:
        if cmd_name in self.commands:
            return self.commands[cmd_name]
        entry = BY_NAME.get(cmd_name)
        if entry is None:
            return None
        if self._listing:  # the help page needs only the name and summary
            return TyperCommand(entry.name, help=entry.summary, rich_markup_mode=None)
        command = load_command(entry)
        self.commands[cmd_name] = command
        return command

    def format_help(self, click_ctx: Any, formatter: Any) -> None:
        self._listing = True
        try:
            super().format_help(click_ctx, formatter)
        finally:
            self._listing = False


app = typer.Typer(
    name="maester",
    cls=LazyGroup,
    help=HELP,
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    # A fixed width keeps the command list whole when piped (click's default is 80 columns).
    context_settings={"terminal_width": 100, "max_content_width": 100},
)


@app.callback()
def _global_options(config: ConfigOpt = None) -> None:
    """maester: runs a Game of Thrones map campaign on a subreddit."""
    if config is not None:
        # Every command's --config falls back to this variable: `maester -c FILE status`.
        os.environ["MAESTER_CONFIG"] = str(config)
