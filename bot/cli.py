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
    engine: Annotated[str, typer.Argument(help="Engine name (battle, odds, muster ...), "
                                          "'show' for the rules settings in force, or "
                                          "'schema' followed by an engine name.")],
    name: Annotated[str | None, typer.Argument(help="The engine, after 'schema'.")] = None,
    config: Annotated[Path | None, typer.Option("--config", "-c", envvar="MAESTER_CONFIG",
                                                help="Config file (for 'show').")] = None,
) -> None:
    """Run a rules engine on one JSON object from stdin; print one JSON object.

    Exit code 2 and {"error": ..., "field": ...} for bad input. See docs/engines.md.
    `maester rules show` prints every rules number in force instead;
    `maester rules schema ENGINE` prints the engine's JSON Schemas (input, output, error).
    """
    from bot.jsonapi.engines import run_engine, shipped_schema, unknown_engine

    if engine == "show":
        from bot.cli_campaign import show_rules

        show_rules(config)
        return
    if engine == "schema":
        try:
            answer = shipped_schema(name or "")
        except KeyError:
            sys.stdout.write(json.dumps(unknown_engine(name or "")) + "\n")
            raise typer.Exit(2) from None
        sys.stdout.write(json.dumps(answer, indent=2) + "\n")
        return
    if name is not None:
        sys.stdout.write(json.dumps({"error": f"input: unexpected argument {name!r}; the "
                                     "payload is read from stdin", "field": None}) + "\n")
        raise typer.Exit(2)

    code, answer = run_engine(engine, sys.stdin.read())
    sys.stdout.write(json.dumps(answer, sort_keys=False) + "\n")
    raise typer.Exit(code)


@app.command("engines")
def engines_cmd() -> None:
    """List the JSON engines that ``maester rules`` knows."""
    from bot.jsonapi.engines import ENGINES

    for engine_name, engine in sorted(ENGINES.items()):
        typer.echo(f"{engine_name:22} {engine.summary}")


def main() -> None:
    """Console entry point."""
    from bot import clicommands  # noqa: F401  (registers the campaign commands)

    app()


if __name__ == "__main__":
    # Run through the imported module so commands register on the same app object.
    from bot.cli import main as _main

    _main()
