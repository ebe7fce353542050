"""maester: the campaign bot. The distribution is ``maester-campaign`` (the console command
is ``maester``; ``maester`` on the package index is an unrelated project)."""

from __future__ import annotations

from importlib import metadata

DISTRIBUTION = "maester-campaign"

try:
    __version__ = metadata.version(DISTRIBUTION)
except metadata.PackageNotFoundError:  # running from a checkout that is not installed
    __version__ = "0.1.0"
