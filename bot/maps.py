"""Loading campaign maps: a map file on disk, or the demo map shipped in ``bot/data``.

The parsing itself is pure (:func:`rules.campaign.worldmap.parse_map`); this module only reads
text. Map errors (:class:`~rules.campaign.worldmap.MapError`) pass through unchanged: they
already name the line and the tile.
"""

from __future__ import annotations

import errno
from functools import cache
from importlib import resources
from pathlib import Path

from rules.campaign.worldmap import WorldMap, parse_map

DEMO_MAP = "westeros.csv"
"""File name of the demo map inside the ``bot.data`` package."""


def demo_map_text() -> str:
    """The CSV text of the shipped demo map (Westeros)."""
    return resources.files("bot.data").joinpath(DEMO_MAP).read_text(encoding="utf-8")


@cache
def demo_map() -> WorldMap:
    """The shipped demo map, parsed once per process."""
    return parse_map(demo_map_text())


MAX_MAP_BYTES = 16 * 1024 * 1024
"""The largest map file read (the shipped Westeros map is under 40 KB): reading stops there,
so a device (``/dev/zero``) or a huge file is refused instead of read for ever."""


def read_map_text(path: str | Path) -> str:
    """The text of the map file at ``path``; a byte order mark is dropped.

    Raises OSError when the file cannot be read or is larger than :data:`MAX_MAP_BYTES`, and
    UnicodeDecodeError when it is not UTF-8.
    """
    with Path(path).open("rb") as file:
        data = file.read(MAX_MAP_BYTES + 1)
    if len(data) > MAX_MAP_BYTES:
        raise OSError(errno.EFBIG, f"larger than {MAX_MAP_BYTES // (1024 * 1024)} MB; a map is "
                                   "a CSV file of tiles (expected well under 1 MB)")
    # as text mode reads it: every line break becomes "\n"
    return data.decode("utf-8-sig").replace("\r\n", "\n").replace("\r", "\n")


def load_map(path: str | Path | None = None) -> WorldMap:
    """The map in the file at ``path``, or the demo map when ``path`` is None.

    Raises MapError (naming the line and tile) for a malformed map, OSError when the file
    cannot be read.
    """
    if path is None:
        return demo_map()
    return parse_map(read_map_text(path))
