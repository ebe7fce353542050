"""The moderators' command line: ``maester ...``.

:data:`COMMANDS` is the one list of commands: each names the module that defines it and the
one-line summary ``maester --help`` prints. A command's module is imported only when that
command runs (or its own ``--help`` is asked for), so ``maester --help`` imports this table and
Typer, ``maester rules battle`` the rules engines, and ``maester status`` the database stack,
each nothing more. Each module holds its commands on its own :class:`typer.Typer` (made by
:func:`command_group`); nothing registers on a shared app by importing.
"""

from __future__ import annotations

import importlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer
from typer.core import TyperCommand, TyperGroup

HELP = "maester: runs a Game of Thrones map campaign on a subreddit."


@dataclass(frozen=True, slots=True)
class Entry:
    """One top-level command: its name, the module defining it, and its one-line summary."""

    name: str
    module: str
    summary: str


# Every top-level command, in the order ``maester --help`` lists them. A test checks each
# summary against the command's own docstring and each module's commands against this list.
COMMANDS: tuple[Entry, ...] = (
    Entry("init", "bot.cli.campaign",
          "Create the database and the campaign (map from the config; --demo: demo roster)."),
    Entry("status", "bot.cli.campaign", "Last tick, next tick, pending outbox, in-game date "
          "and season."),
    Entry("claims", "bot.cli.campaign",
          "List the claims: holdfast, gold, troops at home, raised armies, players."),
    Entry("armies", "bot.cli.campaign", "List raised armies (optionally of one claim)."),
    Entry("show", "bot.cli.campaign", "Show one thing in detail."),
    Entry("order", "bot.cli.campaign",
          "Process TEXT exactly as a modmail from that user would be; print the reply."),
    Entry("tick", "bot.cli.campaign",
          "Apply every due tick up to --until (default: now), with a progress bar."),
    Entry("season", "bot.cli.campaign", "The season (winter doubles upkeep)."),
    Entry("relations", "bot.cli.campaign", "Relations between claims."),
    Entry("adjust", "bot.cli.campaign", "Change a claim's gold and troops at home; recorded "
          "in the log with the moderator."),
    Entry("characters", "bot.cli.steering",
          "List the characters (optionally of one claim) with army, skills and state."),
    Entry("character", "bot.cli.steering",
          "Record a character's fate (dead, wounded, captured or free)."),
    Entry("army", "bot.cli.steering", "Remove an army or fleet by hand."),
    Entry("skills", "bot.cli.catalogue", "Grant and remove characters' skills."),
    Entry("catalogue", "bot.cli.catalogue", "Show, check and load the campaign's catalogue."),
    Entry("log", "bot.cli.campaign", "The event log with dice, newest last."),
    Entry("outbox", "bot.cli.campaign",
          "Posts, replies and messages waiting to be delivered (--all: delivered and dead too)."),
    Entry("export", "bot.cli.campaign", "The whole world as JSON on stdout."),
    Entry("verify", "bot.cli.dice",
          "Recompute the dice of an event or a post and compare them with what was published."),
    Entry("check", "bot.cli.reddit",
          "Check the login, the subreddit, the bot's permissions, flairs, modmail and posting."),
    Entry("run", "bot.cli.reddit",
          "Run the bot: modmail intake, game ticks and posting, until SIGTERM/Ctrl-C."),
    Entry("poll", "bot.cli.reddit",
          "Read modmail (and mentions) and handle new orders; --once for a single round."),
    Entry("publish", "bot.cli.reddit",
          "Deliver the outbox (posts, replies, private news); --once for a single round."),
    Entry("db", "bot.cli.campaign", "Database maintenance."),
    Entry("rules", "bot.cli.rules",
          "Run a rules engine on JSON from stdin (one object, or one per line with --jsonl)."),
    Entry("engines", "bot.cli.rules", "List the JSON engines that maester rules knows."),
    Entry("command", "bot.cli.rules",
          "Run a tabletop bot command (!combat, !attack, !challenge ...) and print its reply."),
    Entry("map", "bot.cli.map", "Check, draw and update the campaign map."),
    Entry("demo", "bot.cli.campaign",
          "Play a whole demo campaign against a local Reddit sandbox (no credentials needed)."),
)
_BY_NAME = {entry.name: entry for entry in COMMANDS}

# The one declaration of the config option; every command that reads a config takes it.
ConfigOpt = Annotated[Path | None, typer.Option(
    "--config", "-c", envvar="MAESTER_CONFIG",
    help="Campaign config file (TOML); default ./config.toml if it exists.")]


def command_group(help: str = "", **options: Any) -> typer.Typer:
    """A Typer for one module's commands, formatted like the top level (plain help)."""
    return typer.Typer(help=help or None, rich_markup_mode=None, add_completion=False,
                       pretty_exceptions_enable=False, **options)


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

    def list_commands(self, ctx: Any) -> list[str]:
        return [*self.commands, *(e.name for e in COMMANDS if e.name not in self.commands)]

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        if cmd_name in self.commands:
            return self.commands[cmd_name]
        entry = _BY_NAME.get(cmd_name)
        if entry is None:
            return None
        if self._listing:  # the help page needs only the name and summary
            return TyperCommand(entry.name, help=entry.summary, rich_markup_mode=None)
        command = load_command(entry)
        self.commands[cmd_name] = command
        return command

    def format_help(self, ctx: Any, formatter: Any) -> None:
        self._listing = True
        try:
            super().format_help(ctx, formatter)
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


def main() -> None:
    """Console entry point (``maester``, ``python -m bot``, ``python -m bot.cli``).

    A known failure (a missing or unreadable database, PostgreSQL out of reach, a full disk...)
    ends with one line on stderr and exit code 1; ``--debug`` (or MAESTER_DEBUG=1) adds the
    traceback (see :mod:`bot.db.failures`, loaded only once something failed).
    """
    import sys

    debug = "--debug" in sys.argv or os.environ.get("MAESTER_DEBUG") == "1"
    if "--debug" in sys.argv:
        sys.argv.remove("--debug")
    try:
        app()
    except SystemExit:
        raise
    except Exception as exc:
        from bot.db.failures import report_failure

        report_failure(exc, debug=debug)
