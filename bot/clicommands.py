"""Registers the campaign and Reddit commands on :data:`bot.cli.app`."""

from __future__ import annotations

from bot import cli_campaign, cli_reddit  # noqa: F401
