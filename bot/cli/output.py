"""The console the moderators' commands print on (Rich, no highlighting, soft wrapping)."""

from __future__ import annotations

import sys

from rich.console import Console

# Piped or captured output gets wide tables instead of the 80-column default.
console = Console(highlight=False, soft_wrap=True,
                  width=None if sys.stdout.isatty() else 160)
