"""Drawing the campaign map as PNG.

The 1,568-tile demo map in the public and moderator views (with 14 claims' holdfasts, 60
armies, 40 of them marching, sieges and battles), first render (the map's base layer is
painted) and the following ones (the base layer is reused); a 10,000-tile map (100 x 100);
and the film of one demo month (the [Realm] post's GIF: 16 frames of the public view with
armies moving, new battles flashing). Goals: the demo map under 0.5 s per view; the
10,000-tile map under 2 s; the film under 5 s and under Reddit's 20 MB upload limit.
"""

from __future__ import annotations

import random
import time

from bot.mapimage import draw as draw_module
from bot.mapimage.draw import render_film, render_png
from bot.mapimage.scene import MIN_WIDTHS, SceneOptions, at_least, build_scene
from bot.maps import demo_map
from rules.campaign.config import Terrain
from rules.campaign.mapview import (
    MODERATOR,
    PUBLIC,
    ArmyMark,
    BattleMark,
    SiegeMark,
    Situation,
    visible_to,
)
from rules.campaign.worldmap import Tile, WorldMap

CLAIMS = tuple(f"House {n}" for n in (
    "Stark", "Lannister", "Tully", "Frey", "Bolton", "Greyjoy", "Tyrell", "Martell",
    "Baratheon", "Arryn", "Manderly", "Reed", "Blackwood", "Mallister"))


def busy_situation(world: WorldMap, rng: random.Random) -> Situation:
    land = [t.id for t in world if t.is_land]
    holds = [t.id for t in world.holdfasts()]
    armies = []
    for i in range(60):
        tile = rng.choice(land)
        path: list[str] = []
        here = tile
        for _ in range(6 if i < 40 else 0):
            options = [n for n in world.neighbours(here) if world.tiles[n].is_land]
            if not options:
                break
            here = rng.choice(options)
            path.append(here)
        armies.append(ArmyMark(i + 1, CLAIMS[i % len(CLAIMS)], tile, infantry=rng.randint(50,
                               3000), cavalry=rng.randint(0, 800), path=tuple(path),
                               announced=i >= 40))
    return Situation(
        claims=CLAIMS,
        holders=tuple((h, CLAIMS[i % len(CLAIMS)]) for i, h in enumerate(holds[:28])),
        armies=tuple(armies),
        sieges=tuple(SiegeMark(h, CLAIMS[1]) for h in holds[28:31]),
        battles=tuple(BattleMark(rng.choice(land), CLAIMS[0], CLAIMS[1]) for _ in range(4)))


def big_map(size: int = 100) -> WorldMap:
    """A size x size map: land with a sea border, every 40th tile a holdfast."""
    terrains = [Terrain.FIELD, Terrain.FOREST, Terrain.HILL, Terrain.FIELD, Terrain.SWAMP]
    tiles = []
    for col in range(size):
        for row in range(size):
            edge = col in (0, size - 1) or row in (0, size - 1)
            n = col * size + row
            tiles.append(Tile(id=f"{col:02d}{row:02d}", name="", col=col, row=row,
                              terrain=Terrain.WATER if edge else terrains[n % 5],
                              holdfast=not edge and n % 40 == 7))
    return WorldMap.of(tiles)


def _time(world: WorldMap, situation: Situation, label: str, repeats: int
          ) -> list[tuple[str, int, float]]:
    draw_module._base_image.cache_clear()
    began, cpu = time.perf_counter(), time.process_time()
    png = render_png(build_scene(world, situation))
    first, first_cpu = time.perf_counter() - began, time.process_time() - cpu
    began, cpu = time.perf_counter(), time.process_time()
    for _ in range(repeats):
        png = render_png(build_scene(world, situation))
    again, again_cpu = time.perf_counter() - began, time.process_time() - cpu
    # on a shared machine the CPU time is the steadier figure
    print(f"{label}: {len(png) / 1024:.0f} KiB PNG; first render {first:.3f} s "
          f"({first_cpu:.3f} s CPU), next renders {again / repeats:.3f} s "
          f"({again_cpu / repeats:.3f} s CPU) each")
    return [(f"{label}, first render", 1, first), (f"{label}, next renders", repeats, again)]


def _film(world: WorldMap, rng: random.Random) -> list[tuple[str, int, float]]:
    frames = []
    busy = visible_to(busy_situation(world, rng), PUBLIC)
    for week in range(16):
        armies = tuple(ArmyMark(0, a.claim, a.path[min(week // 3, len(a.path) - 1)]
                                if a.path else a.tile, announced=True)
                       for a in busy_situation(world, random.Random(13)).armies[:40])
        frames.append(Situation(busy.claims, busy.holders, armies, busy.sieges, (),
                                busy.battles[:week // 4]))
    options = at_least(world, SceneOptions(), MIN_WIDTHS["realm"])
    draw_module._base_image.cache_clear()
    began, cpu = time.perf_counter(), time.process_time()
    scenes = [build_scene(world, f, options) for f in frames]
    flashes = [build_scene(world, f, SceneOptions(size=options.size, flash=(f.battles[-1].tile,)))
               if f.battles and i % 4 == 0 else None for i, f in enumerate(frames)]
    gif = render_film(scenes, flashes)
    took, took_cpu = time.perf_counter() - began, time.process_time() - cpu
    print(f"film of a demo month: {len(gif) / 1e6:.1f} MB GIF, {len(scenes)} frames, "
          f"{took:.2f} s ({took_cpu:.2f} s CPU)")
    return [(f"film of a demo month ({len(gif) / 1e6:.1f} MB)", 1, took)]


def run() -> list[tuple[str, int, float]]:
    rng = random.Random(13)
    world = demo_map()
    busy = busy_situation(world, rng)
    results = _time(world, visible_to(busy, PUBLIC), f"public view, {len(world)} tiles", 5)
    results += _time(world, visible_to(busy, MODERATOR), f"moderator view, {len(world)} tiles",
                     5)
    big = big_map()
    results += _time(big, busy_situation(big, rng), f"moderator view, {len(big)} tiles", 2)
    results += _film(world, rng)
    return results


if __name__ == "__main__":
    for name, count, seconds in run():
        print(f"{name}: {count} ops, {seconds / count * 1e3:.0f} ms/op")
