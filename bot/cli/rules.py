"""The rules commands: ``maester rules ENGINE``, ``maester engines``, ``maester command``.

They import the rules engines and the bot commands only: no database, Reddit or scheduler
(a test checks ``sys.modules``), so scripts calling them pay a short start.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, TextIO

import typer

from bot.cli import ConfigOpt, command_group

app = command_group()


def run_jsonl(engine: str, lines: TextIO, out: TextIO) -> int:
    """Answer each JSON line of ``lines`` on its own line of ``out``; 2 if any line failed.

    Blank lines are skipped. A failed line's answer is its ``{"error", "field"}`` object and
    the next lines still run.
    """
    from bot.jsonapi.engines import run_engine

    failed = False
    for raw in lines:
        if not raw.strip():
            continue
        code, answer = run_engine(engine, raw)
        failed = failed or code != 0
        out.write(json.dumps(answer) + "\n")
    out.flush()
    return 2 if failed else 0


@app.command("rules")
def rules_cmd(
    engine: Annotated[str, typer.Argument(help="Engine name (battle, odds, muster ...) or "
                                          "'show' for the rules settings in force.")],
    jsonl: Annotated[bool, typer.Option(
        "--jsonl", help="Read one JSON object per line; write one answer per line.")] = False,
    config: ConfigOpt = None,
) -> None:
    """Run a rules engine on JSON from stdin (one object, or one per line with --jsonl).

    Prints one JSON object; bad input gets {"error": ..., "field": ...} and exit code 2.
    With --jsonl every input line gets its answer line (errors too) and the exit code is 2
    at the end if any line failed. `maester rules show` prints every rules number in force
    instead. See docs/engines.md.
    """
    if engine == "show":
        show_rules(config)
        return
    if jsonl:
        raise typer.Exit(run_jsonl(engine, sys.stdin, sys.stdout))
    from bot.jsonapi.engines import run_engine

    code, answer = run_engine(engine, sys.stdin.read())
    sys.stdout.write(json.dumps(answer, sort_keys=False) + "\n")
    raise typer.Exit(code)


def show_rules(config: Path | None) -> None:
    """Print every rules setting in force (``maester rules show``)."""
    from rich.console import Console
    from rich.table import Table

    from bot.cli.common import settings_of
    from bot.config import rules_table

    settings = settings_of(config)
    table = Table("Setting", "Value in force")
    for name, value in rules_table(settings.rules_config()):
        table.add_row(name, value)
    Console(width=None if sys.stdout.isatty() else 160).print(table)


@app.command("engines")
def engines_cmd() -> None:
    """List the JSON engines that maester rules knows."""
    from bot.jsonapi.engines import load_engines

    for name, engine in sorted(load_engines().items()):
        typer.echo(f"{name:22} {engine.summary}")


@app.command("command")
def command_cmd(
    text: Annotated[str, typer.Argument(help="A bot command, e.g. '!attack 8 dice 4+ vs 5+'")],
    seed: Annotated[str | None, typer.Option("--seed", help="Seed the dice")] = None,
) -> None:
    """Run a tabletop bot command (!combat, !attack, !challenge ...) and print its reply."""
    import secrets

    from bot.clock import SystemClock
    from bot.commands.dispatch import run_command
    from bot.commands.registry import CommandContext
    from rules.dice import SeededDice

    line = text.strip().lstrip("!")
    name, _, args = line.partition(" ")
    ctx = CommandContext(author="moderator", dice=SeededDice(seed or secrets.token_hex(8)),
                         now=SystemClock().now(), is_moderator=True)
    typer.echo(run_command(name, args, ctx, ref="cli"))
