"""The moderators' command line: ``maester ...``.

:data:`COMMANDS` (kept in :mod:`bot.cli.listing`) is the one list of commands: each names the
module that defines it and the one-line summary ``maester --help`` prints. A command's module
is imported only when that command runs (or its own ``--help`` is asked for), so ``maester
--help`` imports this table and Typer, ``maester rules battle`` the rules engines, and
``maester status`` the database stack, each nothing more. Each module holds its commands on
its own :class:`typer.Typer` (made by :func:`command_group`); nothing registers on a shared app
by importing.

The Typer application itself is in :mod:`bot.cli.group` (``bot.cli.app`` and the helpers stay
reachable here, loaded on first use). :func:`main` first offers the command line to the
fast paths of :mod:`bot.cli.quick`: the plain forms of ``rules ENGINE``, ``engines`` and
``command`` run without Typer (and so without pydantic or Rich); anything else, ``--help`` and
every malformed call included, goes through Typer as before.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from bot.cli.listing import COMMANDS, HELP, Entry

if TYPE_CHECKING:
    from bot.cli.group import ConfigOpt, LazyGroup, app, command_group, load_command

__all__ = ["COMMANDS", "HELP", "ConfigOpt", "Entry", "LazyGroup", "app", "command_group",
           "load_command", "main"]
_FROM_APP = frozenset({"ConfigOpt", "LazyGroup", "app", "command_group", "load_command"})


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
