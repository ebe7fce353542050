"""Registers the campaign and Reddit commands on :data:`bot.cli.app`."""

from __future__ import annotations

import bot.cli_catalogue  # noqa: F401  (issue 6: skills and catalogue commands)
from bot import cli_campaign, cli_reddit  # noqa: F401
