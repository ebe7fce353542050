"""The rules commands without Typer: ``maester rules ENGINE``, ``engines`` and ``command``.

Tools and scripts call these many times, so their start counts: Typer alone (with the pydantic
it loads to convert arguments) costs them more than the engine. :func:`fast_path` reads the
plain forms of these command lines itself and runs them with the same functions the Typer
commands of :mod:`bot.cli.rules` call, so both give the same output and exit code. Whatever it
does not recognise (``--help``, ``rules show``, ``rules schema``, a missing or extra argument,
an unknown option, ``--``) it leaves to Typer, which answers as it always did.
"""

from __future__ import annotations

import errno
import json
import os
import sys
from collections.abc import Callable
from typing import TextIO


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


def run_rules(engine: str, jsonl: bool, lines: TextIO, out: TextIO) -> int:
    """``maester rules ENGINE [--jsonl]``: answer the JSON of ``lines`` on ``out``; the exit
    code (2 for bad input)."""
    if jsonl:
        return run_jsonl(engine, lines, out)
    from bot.jsonapi.engines import run_engine

    code, answer = run_engine(engine, lines.read())
    out.write(json.dumps(answer, sort_keys=False) + "\n")
    return code


def engine_lines() -> list[str]:
    """``maester engines``: one line per JSON engine, its name and summary."""
    from bot.jsonapi.engines import load_engines

    return [f"{name:22} {engine.summary}" for name, engine in sorted(load_engines().items())]


def command_reply(text: str, seed: str | None) -> str:
    """``maester command TEXT``: the reply of the tabletop bot command ``TEXT`` (dice seeded
    from ``seed``, else random), run as a moderator."""
    import secrets

    from bot.clock import SystemClock
    from bot.commands.dispatch import run_command
    from bot.commands.registry import CommandContext
    from rules.dice import SeededDice

    line = text.strip().lstrip("!")
    name, _, args = line.partition(" ")
    cmd_ctx = CommandContext(author="moderator", dice=SeededDice(seed or secrets.token_hex(8)),
                         now=SystemClock().now(), is_moderator=True)
    return run_command(name, args, cmd_ctx, ref="cli").text


def _echo(lines: list[str]) -> int:
    for line in lines:
        sys.stdout.write(line + "\n")
    sys.stdout.flush()
    return 0


def _plain_rules(args: list[str]) -> Callable[[], int] | None:
    """``rules ENGINE`` with at most ``--jsonl`` besides."""
    names = [a for a in args if a != "--jsonl"]
    if len(names) != 1 or names[0].startswith("-") or names[0] in ("show", "schema"):
        return None
    engine, jsonl = names[0], len(names) != len(args)
    return lambda: run_rules(engine, jsonl, sys.stdin, sys.stdout)


def _plain_command(args: list[str]) -> Callable[[], int] | None:
    """``command TEXT`` with at most one ``--seed VALUE`` (or ``--seed=VALUE``) besides."""
    texts: list[str] = []
    seeds: list[str] = []
    rest = list(args)
    while rest:
        arg = rest.pop(0)
        if arg == "--seed" and rest and not rest[0].startswith("-"):
            seeds.append(rest.pop(0))
        elif arg.startswith("--seed="):
            seeds.append(arg.removeprefix("--seed="))
        elif arg.startswith("-"):
            return None
        else:
            texts.append(arg)
    if len(texts) != 1 or len(seeds) > 1:
        return None
    text, seed = texts[0], (seeds[0] if seeds else None)
    return lambda: _echo([command_reply(text, seed)])


def fast_path(args: list[str]) -> int | None:
    """Run the command line ``args`` (without the program name) if it is a plain ``rules``,
    ``engines`` or ``command`` call, and return its exit code; None to leave it to Typer."""
    runner: Callable[[], int] | None = None
    if args[:1] == ["rules"]:
        runner = _plain_rules(args[1:])
    elif args == ["engines"]:
        runner = lambda: _echo(engine_lines())  # noqa: E731
    elif args[:1] == ["command"]:
        runner = _plain_command(args[1:])
    if runner is None:
        return None
    # The same endings as a Typer command's: end of input and Ctrl-C, a closed pipe.
    try:
        return runner()
    except EOFError:
        sys.stderr.write("\nAborted!\n")
        return 1
    except KeyboardInterrupt:
        return 130
    except OSError as exc:
        if exc.errno != errno.EPIPE:
            raise
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
