"""Registers the campaign and Reddit commands on :data:`bot.cli.app`."""

from __future__ import annotations

import bot.cli_catalogue  # noqa: F401  (issue 6: skills and catalogue commands)
from bot import (  # noqa: F401
    cli_campaign,
    cli_map,
    cli_reddit,
)
