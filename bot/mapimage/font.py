"""The one font of every map picture, and how wide a text set in it is.

The font is the scalable sans-serif Pillow ships inside the package (no system font is
needed, so a picture looks the same on every machine). The scene model sizes its label boxes
with :func:`text_box`; the painter sets the text with :func:`font`.
"""

from __future__ import annotations

import functools

from PIL import ImageFont

_REFERENCE = 200  # metrics are read once at this size and scaled
FAMILY = "Aileron, DejaVu Sans, Arial, sans-serif"  # the SVG's font list, ours first


@functools.lru_cache(maxsize=64)
def font(size: int) -> ImageFont.FreeTypeFont:
    """The map font at ``size`` pixels (the em size)."""
    loaded = ImageFont.load_default(size=size)
    if not isinstance(loaded, ImageFont.FreeTypeFont):  # pragma: no cover - Pillow w/o FreeType
        raise RuntimeError("maester needs Pillow built with FreeType for its map font")
    return loaded


@functools.lru_cache(maxsize=512)
def _advance(char: str) -> float:
    return float(font(_REFERENCE).getlength(char)) / _REFERENCE


@functools.cache
def _digit_height() -> float:
    _, top, _, bottom = font(_REFERENCE).getbbox("0123456789")
    return (bottom - top) / _REFERENCE


def text_width(text: str, size: float) -> float:
    """The advance width of ``text`` at ``size`` pixels (kerning left out: a pixel or so)."""
    return sum(_advance(c) for c in text) * size


def glyph_height(text: str, size: float) -> float:
    """How tall ``text`` stands: the height of its digits when it is all digits (a tile id),
    else the full line from the ascender to the descender."""
    if text.isdigit():
        return _digit_height() * size
    ascent, descent = font(_REFERENCE).getmetrics()
    return (ascent + descent) / _REFERENCE * size * 0.82


def size_for_digit_height(pixels: float) -> int:
    """The smallest font size whose digits stand at least ``pixels`` tall."""
    size = max(1, int(pixels / _digit_height()))
    while _digit_height() * size < pixels:
        size += 1
    return size
