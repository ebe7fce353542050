"""The rules commands: ``maester rules ENGINE``, ``maester engines``, ``maester command``.

They import the rules engines and the bot commands only: no database, Reddit or scheduler
(a test checks ``sys.modules``), so scripts calling them pay a short start. Their plain forms
do not even come here: :mod:`bot.cli.quick` runs them without Typer, with the same functions.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from bot.cli.options import ConfigOpt, command_group
from bot.cli.quick import command_reply, engine_lines, run_rules

app = command_group()


@app.command("rules")
def rules_cmd(
    engine: Annotated[str, typer.Argument(help="Engine name (battle, odds, muster ...), "
                                          "'show' for the rules settings in force, or "
                                          "'schema' followed by an engine name.")],
    name: Annotated[str | None, typer.Argument(help="The engine, after 'schema'.")] = None,
    jsonl: Annotated[bool, typer.Option(
        "--jsonl", help="Read one JSON object per line; write one answer per line.")] = False,
    config: ConfigOpt = None,
) -> None:
    """Run a rules engine on JSON from stdin (one object, or one per line with --jsonl).

    Prints one JSON object; bad input gets {"error": ..., "field": ...} and exit code 2.
    With --jsonl every input line gets its answer line (errors too) and the exit code is 2
    at the end if any line failed. `maester rules show` prints every rules number in force
    instead; `maester rules schema ENGINE` prints the engine's JSON Schemas (input, output,
    error). See docs/engines.md.
    """
    if engine == "show":
        show_rules(config)
        return
    if engine == "schema":
        raise typer.Exit(print_schema(name or ""))
    if name is not None:
        sys.stdout.write(json.dumps({"error": f"input: unexpected argument {name!r}; the "
                                     "payload is read from stdin", "field": None}) + "\n")
        raise typer.Exit(2)
    raise typer.Exit(run_rules(engine, jsonl, sys.stdin, sys.stdout))


def print_schema(engine: str) -> int:
    """Print the shipped JSON Schemas of ``engine``; the exit code (2 for an unknown one)."""
    from bot.jsonapi.engines import shipped_schema, unknown_engine

    try:
        answer = shipped_schema(engine)
    except KeyError:
        sys.stdout.write(json.dumps(unknown_engine(engine)) + "\n")
        return 2
    sys.stdout.write(json.dumps(answer, indent=2) + "\n")
    return 0


def show_rules(config: Path | None) -> None:
    """Print every rules setting in force (``maester rules show``)."""
    from rich.console import Console
    from rich.table import Table

    from bot.cli.common import settings_of
    from bot.config import NOT_SETTINGS, rules_table

    settings = settings_of(config, required=False)
    table = Table("Setting", "Value in force")
    for name, value in rules_table(settings.rules_config()):
        if name not in NOT_SETTINGS:  # the campaign's state, not a setting of the file
            table.add_row(name, value)
    console = Console(width=None if sys.stdout.isatty() else 160)
    console.print(table)
    console.print("The campaign's holidays (how many ticks its world's clock stands behind the "
                  "wall clock after pauses resumed without catching up) are its state, not a "
                  "setting: `maester status` shows them.")


@app.command("engines")
def engines_cmd() -> None:
    """List the JSON engines that maester rules knows."""
    for line in engine_lines():
        typer.echo(line)


@app.command("command")
def command_cmd(
    text: Annotated[str, typer.Argument(help="A bot command, e.g. '!attack 8 dice 4+ vs 5+'")],
    seed: Annotated[str | None, typer.Option("--seed", help="Seed the dice")] = None,
) -> None:
    """Run a tabletop bot command (!combat, !attack, !challenge ...) and print its reply."""
    typer.echo(command_reply(text, seed))
