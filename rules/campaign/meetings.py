"""Meetings: when hostile armies share a tile, and who holds the position.

"A battle occurs when two hostile armies occupy the same tile." The game tick moves every army,
then looks at every tile: armies of the same kind (land armies meet land armies, fleets meet
fleets) whose claims are at war, standing, besieging or in transit there at the end of the tick,
meet in a battle unless one of them is already in one. This catches every way two hostile armies
come to share a tile: two marches ending a tick on the same tile, a muster completing on a tile
an enemy holds, the loser of a battle that has no way back, an army halted next to an enemy.

Within one tick the armies move at the same time, so two armies that swap tiles (one from A to
B, the other from B to A) pass each other without a battle: at no tick do they stand on the same
tile. An army entering a tile where an enemy *stands or besieges* stops there (see the tick).

Who defends: the army that has stood on the tile the longest; who attacks: the one that came
later (an army in transit counts as having just come). Each army meets at most one enemy per
tick; the others meet on a later tick if they still share the tile.

Who holds the position (the terrain's defender bonus): only a defender that stood on the tile
since before the tick on which the battle began (:func:`holds_position`). Two armies that reach
a tile on the same tick both come off the march: neither gets the bonus.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Presence:
    """One army on a tile at the end of a tick.

    ``since`` is the tick from which it has stood there (None while in transit: it has just
    come). ``kind`` separates land armies from fleets. ``rank``: where the army comes among
    the others by what it is, not by its number (the tick gives each army its place in
    :func:`rules.campaign.world.army_order`); only armies of one claim that came on the same
    tick are told apart by it.
    """

    army: int
    claim: int
    tile: str
    kind: str
    since: int | None
    rank: int = 0


def hostile_meetings(presences: Sequence[Presence], at_war: Callable[[int, int], bool],
                     busy: Collection[int] = ()) -> list[tuple[Presence, Presence]]:
    """Every (attacker, defender) battle that starts because hostile armies share a tile.

    Armies in ``busy`` (already in a pending battle) start no new one. On each tile, armies are
    taken in the order they came (longest standing first, armies in transit last, then by
    claim, then by ``rank``: never by army number, so who attacks does not depend on it); each
    army not yet paired meets the first earlier army of a claim at war with its own, of the
    same kind, that is not paired either. The result is ordered by tile, then by that order,
    so it does not depend on the order of ``presences``. Two claims meet once on a
    tile (every army of theirs there fights in that battle, on its claim's side).
    """
    by_tile: dict[str, list[Presence]] = {}
    for p in presences:
        if p.army not in busy:
            by_tile.setdefault(p.tile, []).append(p)
    found: list[tuple[Presence, Presence]] = []
    for tile in sorted(by_tile):
        here = sorted(by_tile[tile], key=lambda p: (p.since is None, p.since or 0, p.claim,
                                                     p.rank, p.army))
        paired: set[int] = set()
        sides: set[tuple[str, frozenset[int]]] = set()
        for i, later in enumerate(here):
            if later.army in paired:
                continue
            for earlier in here[:i]:
                if earlier.army in paired or earlier.kind != later.kind \
                        or earlier.claim == later.claim or not at_war(earlier.claim, later.claim):
                    continue
                pair = (later.kind, frozenset((earlier.claim, later.claim)))
                if pair in sides:  # both fight in that battle, on their claims' sides
                    continue
                sides.add(pair)
                paired.update((earlier.army, later.army))
                found.append((later, earlier))
                break
    return found


def holds_position(defender_since: int | None, battle_began: int) -> bool:
    """Whether a battle's defender counts as stationary (the terrain's defender bonus): it must
    have stood on the tile since a tick before the one on which the battle began."""
    return defender_since is not None and defender_since < battle_began


@dataclass(frozen=True, slots=True)
class Step:
    """What one army would do in a tick's movement if nothing stopped it: from ``start`` it
    would enter the tiles of ``path``, in order (empty: it moves on no tile this tick)."""

    army: int
    claim: int
    kind: str
    start: str
    path: tuple[str, ...]


def settle_steps(steps: Sequence[Step], hostile: Callable[[int, int], bool],
                 standing: Mapping[str, Collection[tuple[int, str]]]) -> dict[int, int]:
    """How many tiles of its ``path`` each army of ``steps`` enters this tick, all armies
    moving at once (docs/rules.md "All armies move at once").

    An army stops on the first tile of its step where it meets a hostile army (``hostile``:
    claims at war; armies of the same kind): a tile where a hostile army stood at the tick's
    start and still stands (``standing``: the (claim, kind) of such armies on each tile), a
    tile a hostile army also enters, or the tile a hostile army ends its step on. Two armies
    that swap tiles pass each other. Stopping one army can end or make another meeting, so the
    steps are settled again from their full length until nothing changes (after as many rounds
    as there are armies, each army keeps the shortest step of the last two rounds).

    Nothing here depends on the order of ``steps`` or on the armies' numbers."""
    base: dict[int, int] = {}
    for s in steps:
        base[s.army] = len(s.path)
        for i, tile in enumerate(s.path):
            if any(kind == s.kind and hostile(s.claim, claim)
                   for claim, kind in standing.get(tile, ())):
                base[s.army] = i + 1
                break
    counts = dict(base)
    for _ in range(len(steps) + 1):
        settled = _settle_round(steps, hostile, base, counts)
        if settled == counts:
            return counts
        last, counts = counts, settled
    return {army: min(n, last[army]) for army, n in counts.items()}


def _settle_round(steps: Sequence[Step], hostile: Callable[[int, int], bool],
                  base: Mapping[int, int], counts: Mapping[int, int]) -> dict[int, int]:
    """One round of :func:`settle_steps`: each army's step cut at the first tile of its
    ``base`` length that a hostile army of its kind reaches with its step of ``counts`` tiles
    (the tiles it enters, or its start when it enters none). The armies reaching each tile
    are indexed once, by kind and claim, so a round costs the length of the steps, not the
    square of their number."""
    reaching: dict[str, dict[str, dict[int, list[int]]]] = {}  # kind, tile, claim: armies
    for s in steps:
        n = counts[s.army]
        tiles = reaching.get(s.kind)
        if tiles is None:
            tiles = reaching[s.kind] = {}
        for tile in set(s.path[:n]) if n else (s.start,):
            claims = tiles.get(tile)
            if claims is None:
                tiles[tile] = {s.claim: [s.army]}
            else:
                claims.setdefault(s.claim, []).append(s.army)
    settled: dict[int, int] = {}
    for s in steps:
        stop = base[s.army]
        tiles = reaching[s.kind]
        for i in range(stop):
            here = tiles.get(s.path[i])
            if here is None or (len(here) == 1 and here.get(s.claim) == [s.army]):
                continue  # nobody reaches it, or only this army
            if any((claim != s.claim or len(armies) > 1 or armies[0] != s.army)
                   and hostile(s.claim, claim) for claim, armies in here.items()):
                stop = i + 1
                break
        settled[s.army] = stop
    return settled
