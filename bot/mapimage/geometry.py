"""Where each hex of the map goes in a picture: flat-topped hexes in the odd-q layout.

The same geometry as the map file (:mod:`rules.campaign.worldmap`): column ``c`` sits
``1.5 * size`` pixels right of column ``c - 1``; odd columns sit half a hex lower. Two grid
neighbours' centres are therefore exactly ``sqrt(3) * size`` apart and share one edge.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

Point = tuple[float, float]

SQRT3 = math.sqrt(3.0)
_CORNERS = tuple((math.cos(math.radians(60 * i)), math.sin(math.radians(60 * i)))
                 for i in range(6))


@dataclass(frozen=True, slots=True)
class HexLayout:
    """Pixel geometry of a block of hexes: ``size`` is a hex's circumradius in pixels and
    (``min_col``, ``min_row``) the top-left tile of the block, drawn at ``origin``."""

    size: float
    min_col: int = 0
    min_row: int = 0
    origin: Point = (0.0, 0.0)

    @classmethod
    def fitting(cls, coords: Iterable[tuple[int, int]], size: float, margin: float
                ) -> HexLayout:
        """A layout whose tiles (``coords``: column, row) start ``margin`` pixels from the
        top-left corner. Raises ValueError for no tiles."""
        cols_rows = list(coords)
        if not cols_rows:
            raise ValueError("no tiles to lay out")
        min_col = min(c for c, _ in cols_rows)
        min_row = min(r for _, r in cols_rows)
        # An odd first column sits half a hex lower; start the block at an even column so
        # the half-row shift of every column stays the same as on the whole map.
        min_col -= min_col % 2
        return cls(size, min_col, min_row, (margin + size, margin + SQRT3 * size / 2))

    def centre(self, col: int, row: int) -> Point:
        """The pixel centre of the hex at ``col``, ``row``."""
        c = col - self.min_col
        r = row - self.min_row
        x = self.origin[0] + 1.5 * self.size * c
        y = self.origin[1] + SQRT3 * self.size * (r + 0.5 * (col & 1))
        return (x, y)

    def corners(self, col: int, row: int, inset: float = 0.0) -> tuple[Point, ...]:
        """The six corners of the hex, clockwise from the east corner (``inset`` pixels in)."""
        x, y = self.centre(col, row)
        radius = self.size - inset
        return tuple((x + radius * cx, y + radius * cy) for cx, cy in _CORNERS)

    def extent(self, coords: Iterable[tuple[int, int]]) -> tuple[float, float]:
        """Right and bottom pixel edges of the hexes at ``coords``."""
        right = bottom = 0.0
        half = SQRT3 * self.size / 2
        for col, row in coords:
            x, y = self.centre(col, row)
            right = max(right, x + self.size)
            bottom = max(bottom, y + half)
        return right, bottom

    def shared_edge(self, a: tuple[int, int], b: tuple[int, int]) -> tuple[Point, Point]:
        """The two corners two neighbouring hexes share (for drawing a cut between them)."""
        ax, ay = self.centre(*a)
        bx, by = self.centre(*b)
        angle = math.atan2(by - ay, bx - ax)
        half = math.radians(30)
        return ((ax + self.size * math.cos(angle - half), ay + self.size * math.sin(angle - half)),
                (ax + self.size * math.cos(angle + half), ay + self.size * math.sin(angle + half)))
