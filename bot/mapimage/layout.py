"""Collision-aware label placement: every label gets a box, and no box may cover a marker or
another label.

:class:`Placer` keeps the boxes already taken in a grid of cells (so a check looks only at
the boxes near it) and tries a label's candidate positions in order, then smaller sizes,
until one is free; a label with no free position is dropped, never drawn over a marker.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from bot.mapimage.font import glyph_height, text_width
from bot.mapimage.geometry import Point

_PAD = 1.5  # room for the white halo around a label's letters


@dataclass(frozen=True, slots=True)
class Box:
    """An axis-aligned rectangle in picture pixels (``x0 <= x1``, ``y0 <= y1``)."""

    x0: float
    y0: float
    x1: float
    y1: float

    @classmethod
    def around(cls, centre: Point, half_width: float, half_height: float) -> Box:
        x, y = centre
        return cls(x - half_width, y - half_height, x + half_width, y + half_height)

    @property
    def centre(self) -> Point:
        return ((self.x0 + self.x1) / 2, (self.y0 + self.y1) / 2)

    def overlaps(self, other: Box) -> bool:
        """True when the two boxes share more than an edge."""
        return (self.x0 < other.x1 and other.x0 < self.x1
                and self.y0 < other.y1 and other.y0 < self.y1)

    def inside(self, other: Box) -> bool:
        return (other.x0 <= self.x0 and self.x1 <= other.x1
                and other.y0 <= self.y0 and self.y1 <= other.y1)

    def union(self, other: Box) -> Box:
        return Box(min(self.x0, other.x0), min(self.y0, other.y0),
                   max(self.x1, other.x1), max(self.y1, other.y1))

    def nearest_edge_point(self, towards: Point) -> Point:
        """The point of the box's outline closest to ``towards`` (a leader line's end)."""
        x = min(max(towards[0], self.x0), self.x1)
        y = min(max(towards[1], self.y0), self.y1)
        return (x, y)


def text_box(text: str, size: int, centre: Point) -> Box:
    """The box a label ``text`` of ``size`` pixels takes when centred on ``centre``."""
    return Box.around(centre, text_width(text, size) / 2 + _PAD,
                      glyph_height(text, size) / 2 + _PAD)


@dataclass(frozen=True, slots=True)
class Spot:
    """A candidate position: the label's centre is the anchor moved by (``dx``, ``dy``)
    pixels; with ``align`` -1 (or 1) the label's right (left) edge sits there instead.
    ``far`` positions get a leader line back to the anchor."""

    dx: float
    dy: float
    align: int = 0
    far: bool = False


@dataclass(frozen=True, slots=True)
class Placed:
    box: Box
    size: int
    far: bool


class Placer:
    """The boxes taken so far (markers and placed labels), and the picture's free area."""

    def __init__(self, area: Box, cell: float) -> None:
        self.area = area
        self.cell = max(4.0, cell)
        self._grid: dict[tuple[int, int], list[Box]] = {}

    def _cells(self, box: Box) -> Iterator[tuple[int, int]]:
        c = self.cell
        for i in range(int(box.x0 // c), int(box.x1 // c) + 1):
            for j in range(int(box.y0 // c), int(box.y1 // c) + 1):
                yield (i, j)

    def take(self, box: Box) -> None:
        for key in self._cells(box):
            self._grid.setdefault(key, []).append(box)

    def free(self, box: Box) -> bool:
        if not box.inside(self.area):
            return False
        return not any(box.overlaps(other) for key in self._cells(box)
                       for other in self._grid.get(key, ()))

    def place(self, text: str, anchor: Point, spots: Sequence[Spot], sizes: Sequence[int]
              ) -> Placed | None:
        """The first free box for ``text`` (every spot at the first size, then at the next
        size ...), taken; None when there is none (the label is dropped)."""
        for size in sizes:
            width = text_width(text, size) / 2 + _PAD
            for spot in spots:
                x = anchor[0] + spot.dx + spot.align * width
                box = text_box(text, size, (x, anchor[1] + spot.dy))
                if self.free(box):
                    self.take(box)
                    return Placed(box, size, spot.far)
        return None
