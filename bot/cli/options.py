"""What every ``maester`` command module uses: the one declaration of ``--config``
(:data:`ConfigOpt`) and :func:`command_group`, the Typer each module holds its commands on."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

# The one declaration of the config option; every command that reads a config takes it.
ConfigOpt = Annotated[Path | None, typer.Option(
    "--config", "-c", envvar="MAESTER_CONFIG",
    help="Campaign config file (TOML); default ./config.toml if it exists.")]


def command_group(help: str = "", **options: Any) -> typer.Typer:
    """A Typer for one module's commands, formatted like the top level (plain help)."""
    return typer.Typer(help=help or None, rich_markup_mode=None, add_completion=False,
                       pretty_exceptions_enable=False, **options)
