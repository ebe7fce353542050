"""The moderators' command line: ``maester ...``.

:data:`COMMANDS` is the one list of commands: each names the module that defines it and the
one-line summary ``maester --help`` prints. A command's module is imported only when that
command runs (or its own ``--help`` is asked for), so ``maester --help`` imports this table and
Typer, ``maester rules battle`` the rules engines, and ``maester status`` the database stack,
each nothing more. Each module holds its commands on its own :class:`typer.Typer` (made by
:func:`command_group`); nothing registers on a shared app by importing.

The Typer application itself is in :mod:`bot.cli.group` (``bot.cli.app`` and the helpers stay
reachable here, loaded on first use). :func:`main` first offers the command line to the
fast paths of :mod:`bot.cli.quick`: the plain forms of ``rules ENGINE``, ``engines`` and
``command`` run without Typer (and so without pydantic or Rich); anything else, ``--help`` and
every malformed call included, goes through Typer as before.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bot.cli.group import ConfigOpt, LazyGroup, app, command_group, load_command

__all__ = ["COMMANDS", "HELP", "ConfigOpt", "Entry", "LazyGroup", "app", "command_group",
           "load_command", "main"]
_FROM_APP = frozenset({"ConfigOpt", "LazyGroup", "app", "command_group", "load_command"})

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
          "Apply every due tick up to --until (default: now); --preview: show, apply nothing."),
    Entry("undo", "bot.cli.safety",
          "Take back the last tick or moderator command (what is posted needs --force)."),
    Entry("rollback", "bot.cli.safety",
          "Take the world back to just after tick --to TICK|TIME (as undo, further back)."),
    Entry("snapshots", "bot.cli.safety",
          "List the kept snapshots: what each tick or command can be taken back to."),
    Entry("pause", "bot.cli.safety",
          "Pause the campaign: no tick applies, orders are answered that it is paused."),
    Entry("resume", "bot.cli.safety",
          "End the pause: a holiday (the missed ticks are skipped), or --catch-up applies them."),
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



def __getattr__(name: str) -> Any:
    # The Typer application and its helpers live in bot.cli.group, imported on first use.
    if name in _FROM_APP:
        from bot.cli import group

        return getattr(group, name)
    raise AttributeError(f"module 'bot.cli' has no attribute {name!r}")


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
        from bot.cli.quick import fast_path

        code = fast_path(sys.argv[1:])
        if code is not None:
            sys.exit(code)
        from bot.cli.group import app

        app()
    except SystemExit:
        raise
    except Exception as exc:
        from bot.db.failures import report_failure

        report_failure(exc, debug=debug)
