"""Painting a :class:`~bot.mapimage.scene.Scene`: PNG with Pillow, or SVG as plain text; and a
month of scenes as an animated picture (:func:`render_film`).

Pillow fills polygons without anti-aliasing, so a PNG is painted at a multiple of its size
(:func:`supersampling`) and scaled down: edges and text come out smooth. Text is set in the
map font shipped with Pillow (:mod:`bot.mapimage.font`).
"""

from __future__ import annotations

import functools
import io
import itertools
import math
from collections.abc import Sequence
from xml.sax.saxutils import escape

from PIL import Image, ImageColor, ImageDraw

from bot.mapimage.font import FAMILY, font
from bot.mapimage.geometry import Point
from bot.mapimage.scene import BACKGROUND, Circle, Line, Polygon, Scene, Shape, Text

_DASH = 5.0


SUPERSAMPLED_PIXELS = 36_000_000  # the most pixels painted for one picture (memory, time)


def supersampling(width: int, height: int) -> int:
    """How many times larger than its size a picture is painted: 3 for a small one, 2 for
    most, 1 (no smoothing) only past :data:`SUPERSAMPLED_PIXELS` at twice the size."""
    for factor in (3, 2):
        if width * height * factor * factor <= SUPERSAMPLED_PIXELS:
            return factor
    return 1


def _dashes(points: tuple[Point, ...]) -> list[tuple[Point, Point]]:
    out: list[tuple[Point, Point]] = []
    for (x0, y0), (x1, y1) in itertools.pairwise(points):
        length = math.hypot(x1 - x0, y1 - y0)
        steps = max(1, int(length // _DASH))
        for i in range(0, steps, 2):
            a, b = i / steps, min(1.0, (i + 1) / steps)
            out.append(((x0 + (x1 - x0) * a, y0 + (y1 - y0) * a),
                        (x0 + (x1 - x0) * b, y0 + (y1 - y0) * b)))
    return out


def arrow_head(points: tuple[Point, ...], length: float = 8.0) -> tuple[Point, Point, Point]:
    """The triangle at the end of a line's last segment."""
    (x0, y0), (x1, y1) = points[-2], points[-1]
    angle = math.atan2(y1 - y0, x1 - x0)
    return ((x1, y1),
            (x1 - length * math.cos(angle - 0.45), y1 - length * math.sin(angle - 0.45)),
            (x1 - length * math.cos(angle + 0.45), y1 - length * math.sin(angle + 0.45)))


def _arrow(line: Line) -> tuple[Point, Point, Point]:
    return arrow_head(line.points, 4.0 + 2.0 * line.width)


@functools.lru_cache(maxsize=4)
def _base_image(width: int, height: int, factor: int, shapes: tuple[Shape, ...]
                ) -> Image.Image:
    image = Image.new("RGB", (width * factor, height * factor), BACKGROUND)
    _paint(ImageDraw.Draw(image), shapes, factor)
    return image


def paint(scene: Scene) -> Image.Image:
    """The scene as an RGB image of its size, smoothed (see :func:`supersampling`); texts
    are painted last, over every other shape.

    The scene's base layer (the map alone) is painted once per map and reused."""
    factor = supersampling(scene.width, scene.height)
    image = _base_image(scene.width, scene.height, factor,
                        scene.shapes[:scene.base_count]).copy()
    rest = scene.shapes[scene.base_count:]
    _paint(ImageDraw.Draw(image), tuple(s for s in rest if not isinstance(s, Text)), factor)
    if factor > 1:
        image = image.reduce(factor)
    # the font is smooth by itself: text is set at the final size, sharper and faster
    _paint(ImageDraw.Draw(image), tuple(s for s in rest if isinstance(s, Text)), 1)
    return image


def render_png(scene: Scene) -> bytes:
    """The scene as PNG bytes (8-bit palette, the scene's size)."""
    out = io.BytesIO()
    _quantized(paint(scene), scene).save(out, "PNG", compress_level=6)
    return out.getvalue()


def _quantized(image: Image.Image, scene: Scene) -> Image.Image:
    return image.quantize(palette=_palette(scene), dither=Image.Dither.NONE)


def _paint(pen: ImageDraw.ImageDraw, shapes: tuple[Shape, ...], k: int) -> None:
    def at(points: tuple[Point, ...]) -> list[Point]:
        return [(x * k, y * k) for x, y in points]

    for shape in shapes:
        if isinstance(shape, Polygon):
            corners = at(shape.points)
            if shape.width * k <= 1 or shape.outline is None:
                pen.polygon(corners, fill=shape.fill, outline=shape.outline)
            else:  # Pillow's wide polygon outline paints a mask the picture's size: slow
                if shape.fill is not None:
                    pen.polygon(corners, fill=shape.fill)
                pen.line([*corners, corners[0], corners[1]], fill=shape.outline,
                         width=shape.width * k, joint="curve")
        elif isinstance(shape, Circle):
            (x, y), r = shape.centre, shape.radius
            pen.ellipse(((x - r) * k, (y - r) * k, (x + r) * k, (y + r) * k), fill=shape.fill,
                        outline=shape.outline, width=shape.width * k)
        elif isinstance(shape, Line):
            if shape.dashed:
                for a, b in _dashes(shape.points):
                    pen.line(at((a, b)), fill=shape.colour, width=shape.width * k)
            else:
                pen.line(at(shape.points), fill=shape.colour, width=shape.width * k,
                         joint="curve")
            if shape.arrow:
                pen.polygon(at(_arrow(shape)), fill=shape.colour)
        elif isinstance(shape, Text):
            pen.text((shape.at[0] * k, shape.at[1] * k), shape.text, fill=shape.colour,
                     font=font(shape.size * k), anchor=shape.anchor,
                     stroke_width=2 * k if shape.halo else 0, stroke_fill="#ffffff")


_CUBE = tuple((r, g, b) for r in range(0, 256, 51) for g in range(0, 256, 51)
              for b in range(0, 256, 51))


def scene_colours(scene: Scene) -> list[str]:
    """Every colour the scene names, background first."""
    seen: dict[str, None] = {BACKGROUND: None, "#ffffff": None}
    for shape in scene.shapes:
        if isinstance(shape, Polygon | Circle):
            for c in (shape.fill, shape.outline):
                if c:
                    seen[c] = None
        else:
            seen[shape.colour] = None
    return list(seen)


def _palette(*scenes: Scene) -> Image.Image:
    """An 8-bit palette holding every colour of the scenes exactly, the rest a colour cube
    for the smoothed edges: small files, fast to write, flat colours intact."""
    names = dict.fromkeys(c for scene in scenes for c in scene_colours(scene))
    exact = [ImageColor.getrgb(c)[:3] for c in names][:256]
    colours = exact + [c for c in _CUBE if c not in exact][:256 - len(exact)]
    flat = [v for rgb in colours for v in rgb]
    palette = Image.new("P", (1, 1))
    palette.putpalette(flat + [0] * (768 - len(flat)))
    return palette


def _pts(points: tuple[Point, ...]) -> str:
    return " ".join(f"{x:.1f},{y:.1f}" for x, y in points)


_SVG_ANCHOR = {"m": "middle", "l": "start", "r": "end"}


def render_svg(scene: Scene) -> str:
    """The scene as an SVG document (text)."""
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{scene.width}" '
             f'height="{scene.height}" viewBox="0 0 {scene.width} {scene.height}" '
             f'font-family="{FAMILY}">',
             f'<rect width="100%" height="100%" fill="{BACKGROUND}"/>']
    for shape in scene.shapes:
        if isinstance(shape, Polygon):
            parts.append(f'<polygon points="{_pts(shape.points)}" fill="{shape.fill or "none"}"'
                         f' stroke="{shape.outline or "none"}" stroke-width="{shape.width}"/>')
        elif isinstance(shape, Circle):
            (x, y), r = shape.centre, shape.radius
            parts.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r:.1f}" '
                         f'fill="{shape.fill or "none"}" stroke="{shape.outline or "none"}" '
                         f'stroke-width="{shape.width}"/>')
        elif isinstance(shape, Line):
            dash = f' stroke-dasharray="{_DASH:g},{_DASH:g}"' if shape.dashed else ""
            parts.append(f'<polyline points="{_pts(shape.points)}" fill="none" '
                         f'stroke="{shape.colour}" stroke-width="{shape.width}"{dash}/>')
            if shape.arrow:
                parts.append(f'<polygon points="{_pts(_arrow(shape))}" '
                             f'fill="{shape.colour}"/>')
        elif isinstance(shape, Text):
            halo = (' stroke="#ffffff" stroke-width="3" paint-order="stroke"'
                    if shape.halo else "")
            x, y = shape.at
            parts.append(f'<text x="{x:.1f}" y="{y:.1f}" font-size="{shape.size}" '
                         f'fill="{shape.colour}" text-anchor="{_SVG_ANCHOR[shape.anchor[0]]}" '
                         f'dominant-baseline="central"{halo}>{escape(shape.text)}</text>')
    if scene.title:
        parts.insert(1, f"<title>{escape(scene.title)}</title>")
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


FRAME_MS = 900
FLASH_MS = 300
LAST_FRAME_MS = 4000


def render_film(frames: Sequence[Scene], flashes: Sequence[Scene | None] = ()) -> bytes:
    """The ``frames`` as an animated GIF that plays once through and rests on the last
    frame, looping. ``flashes[i]``, when given, is shown briefly before ``frames[i]`` (a
    battle flashing). Frames of different heights are padded at the bottom.
    Raises ValueError for no frames."""
    if not frames:
        raise ValueError("a film needs at least one frame")
    shown: list[tuple[Scene, int]] = []
    for i, scene in enumerate(frames):
        flash = flashes[i] if i < len(flashes) else None
        if flash is not None:
            shown.append((flash, FLASH_MS))
        shown.append((scene, LAST_FRAME_MS if i == len(frames) - 1 else FRAME_MS))
    width = max(s.width for s, _ in shown)
    height = max(s.height for s, _ in shown)
    palette = _palette(*(s for s, _ in shown))
    images = []
    for scene, _ in shown:
        canvas = Image.new("RGB", (width, height), BACKGROUND)
        canvas.paste(paint(scene), (0, 0))
        images.append(canvas.quantize(palette=palette, dither=Image.Dither.NONE))
    out = io.BytesIO()
    images[0].save(out, "GIF", save_all=True, append_images=images[1:], loop=0,
                   duration=[ms for _, ms in shown], disposal=1, optimize=False)
    return out.getvalue()
