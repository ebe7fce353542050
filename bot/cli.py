"""The moderators' command line: ``maester ...``."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Annotated

import typer

app = typer.Typer(
    name="maester",
    help="maester: runs a Game of Thrones map campaign on a subreddit.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

@app.callback()
def _global_options(
    config: Annotated[Path | None, typer.Option(
        "--config", "-c", help="Campaign config file (TOML), for every command.")] = None,
) -> None:
    """maester: runs a Game of Thrones map campaign on a subreddit."""
    if config is not None:
        # Commands read their --config option from this variable when it is not given.
        os.environ["MAESTER_CONFIG"] = str(config)


ConfigOption = Annotated[
    Path,
    typer.Option("--config", "-c", help="Campaign config file (TOML).", envvar="MAESTER_CONFIG"),
]


@app.command("rules")
def rules_cmd(
    engine: Annotated[str, typer.Argument(help="Engine name (battle, odds, muster ...) or "
                                          "'show' for the rules settings in force.")],
    config: Annotated[Path | None, typer.Option("--config", "-c", envvar="MAESTER_CONFIG",
                                                help="Config file (for 'show').")] = None,
) -> None:
    """Run a rules engine on one JSON object from stdin; print one JSON object.

    Exit code 2 and {"error": ...} for bad input. See docs/engines.md.
    `maester rules show` prints every rules number in force instead.
    """
    from bot.jsonapi.engines import run_engine

    if engine == "show":
        from bot.cli_campaign import show_rules

        show_rules(config)
        return

    code, answer = run_engine(engine, sys.stdin.read())
    sys.stdout.write(json.dumps(answer, sort_keys=False) + "\n")
    raise typer.Exit(code)


@app.command("engines")
def engines_cmd() -> None:
    """List the JSON engines that ``maester rules`` knows."""
    from bot.jsonapi.engines import load_engines

    for name, engine in sorted(load_engines().items()):
        typer.echo(f"{name:22} {engine.summary}")


def main() -> None:
    """Console entry point."""
    from bot import clicommands  # noqa: F401  (registers the campaign commands)
    from bot.db.failures import run_cli

    run_cli(app)  # a known failure: one line and exit 1, not a traceback


if __name__ == "__main__":
    # Run through the imported module so commands register on the same app object.
    from bot.cli import main as _main

    _main()
