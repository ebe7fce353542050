"""Terrain pieces, their keywords and what those keywords do.

Each piece carries keywords: hindering denies the charge bonus to a charge that moved through or
ended on it; rough costs 1 inch of movement for moving into, out of or through it; horrific
gives -1 and inspiring +1 to morale test rolls within short range; fortified gives the defender
+1 to defense rolls against a charge that moved through or ended on it; cover and blocks-line-
of-sight stop ranged line of sight traced by units outside the piece; destructible pieces can
be removed by a melee attack from within 1 inch; impassable pieces can be pivoted over but never
entered; dangerous pieces deal d3 + 1 wounds (once per charge).

Effects with the same name do not add up (two horrific pieces still give -1); effects with
different names do (horrific and inspiring cancel out). Rough is a cost of moving through each
piece, so it counts once per rough piece.

The random terrain pool rolls 2 + d3 for the number of pieces and 2d6 for each piece.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum

from rules.dice import Dice
from rules.errors import InvalidInput


class Keyword(StrEnum):
    """Terrain keywords."""

    BLOCKS_LINE_OF_SIGHT = "blocks line of sight"
    COVER = "cover"
    DANGEROUS = "dangerous"
    DESTRUCTIBLE = "destructible"
    FORTIFIED = "fortified"
    HINDERING = "hindering"
    HORRIFIC = "horrific"
    IMPASSABLE = "impassable"
    INSPIRING = "inspiring"
    ROUGH = "rough"


class Terrain(StrEnum):
    """The terrain pieces of the rules text."""

    BOG = "bog"
    CORPSE_PILE = "corpse pile"
    FOREST = "forest"
    HEDGE = "hedge"
    WALL_RUIN = "wall ruin"
    PALISADE = "palisade"
    STAKES = "stakes"
    WEIRWOOD_TREE = "weirwood tree"

    @property
    def keywords(self) -> frozenset[Keyword]:
        """The piece's keywords."""
        return KEYWORDS[self]

    def has(self, keyword: Keyword) -> bool:
        """Whether the piece has ``keyword``."""
        return keyword in KEYWORDS[self]


K = Keyword
KEYWORDS: dict[Terrain, frozenset[Keyword]] = {
    Terrain.BOG: frozenset({K.HINDERING, K.ROUGH}),
    Terrain.CORPSE_PILE: frozenset({K.HINDERING, K.HORRIFIC}),
    Terrain.FOREST: frozenset({K.COVER, K.FORTIFIED}),
    Terrain.HEDGE: frozenset({K.COVER, K.DESTRUCTIBLE, K.ROUGH}),
    Terrain.WALL_RUIN: frozenset({K.DESTRUCTIBLE, K.FORTIFIED, K.HINDERING}),
    Terrain.PALISADE: frozenset({K.BLOCKS_LINE_OF_SIGHT, K.DESTRUCTIBLE, K.IMPASSABLE}),
    Terrain.STAKES: frozenset({K.DANGEROUS, K.DESTRUCTIBLE}),
    Terrain.WEIRWOOD_TREE: frozenset({K.INSPIRING}),
}

_ALIASES = {
    "wall": Terrain.WALL_RUIN,
    "walls": Terrain.WALL_RUIN,
    "ruin": Terrain.WALL_RUIN,
    "corpses": Terrain.CORPSE_PILE,
    "corpse": Terrain.CORPSE_PILE,
    "weirwood": Terrain.WEIRWOOD_TREE,
    "forrest": Terrain.FOREST,
    "woods": Terrain.FOREST,
    "stackes": Terrain.STAKES,
}


def parse_terrain(text: str) -> Terrain:
    """A terrain piece by name ("corpse pile", "corpse_pile", "wall"). Raises InvalidInput."""
    key = " ".join(text.strip().lower().replace("_", " ").replace("-", " ").split())
    try:
        return Terrain(key)
    except ValueError:
        pass
    if key in _ALIASES:
        return _ALIASES[key]
    raise InvalidInput("terrain", f"{text!r} is not a terrain piece",
                       "one of " + ", ".join(t.value for t in Terrain))


def _any(pieces: Iterable[Terrain], keyword: Keyword) -> bool:
    return any(p.has(keyword) for p in pieces)


def denies_charge_bonus(pieces: Iterable[Terrain]) -> bool:
    """Whether a charge through or onto ``pieces`` loses its charge bonus (hindering)."""
    return _any(pieces, Keyword.HINDERING)


def charge_defense_bonus(pieces: Iterable[Terrain]) -> int:
    """The defender's bonus to defense rolls against a charge through or onto ``pieces``:
    +1 if any piece is fortified (same-named effects do not add up)."""
    return 1 if _any(pieces, Keyword.FORTIFIED) else 0


def movement_penalty(pieces: Iterable[Terrain]) -> int:
    """Inches lost moving into, out of or through ``pieces``: 1 per rough piece."""
    return sum(1 for p in pieces if p.has(Keyword.ROUGH))


def morale_modifier(pieces_in_short_range: Iterable[Terrain]) -> int:
    """The modifier to morale test rolls of a unit within short range of these pieces:
    -1 for horrific, +1 for inspiring, each counted once."""
    pieces = list(pieces_in_short_range)
    return (1 if _any(pieces, Keyword.INSPIRING) else 0) - (
        1 if _any(pieces, Keyword.HORRIFIC) else 0
    )


def blocks_ranged_line_of_sight(piece: Terrain, *, attacker_inside: bool) -> bool:
    """Whether ranged line of sight cannot be traced through ``piece`` (cover, or a piece that
    blocks line of sight), which is so unless the attacking unit is inside it."""
    blocking = piece.has(Keyword.COVER) or piece.has(Keyword.BLOCKS_LINE_OF_SIGHT)
    return blocking and not attacker_inside


def can_enter(piece: Terrain) -> bool:
    """Whether a unit may move into, through or end on ``piece`` (not impassable)."""
    return not piece.has(Keyword.IMPASSABLE)


def can_be_destroyed(piece: Terrain) -> bool:
    """Whether a melee attack action from within 1 inch removes ``piece`` (destructible)."""
    return piece.has(Keyword.DESTRUCTIBLE)


def dangerous_wounds(*, dice: Dice) -> int:
    """Roll the wounds a dangerous piece deals: d3 + 1."""
    return dice.roll(3, "dangerous terrain d3") + 1


# 2d6 totals of the random terrain pool; None is the players' choice.
RANDOM_TERRAIN: dict[int, Terrain | None] = {
    2: Terrain.CORPSE_PILE,
    3: Terrain.CORPSE_PILE,
    4: Terrain.BOG,
    5: Terrain.PALISADE,
    6: Terrain.HEDGE,
    7: None,
    8: Terrain.WALL_RUIN,
    # The digest leaves 9 out; stakes is the one listed piece the table never names.
    9: Terrain.STAKES,
    10: Terrain.FOREST,
    11: Terrain.WEIRWOOD_TREE,
    12: Terrain.WEIRWOOD_TREE,
}


def random_terrain_piece(total: int) -> Terrain | None:
    """The piece for a 2d6 total of the random pool (None: the players choose). Raises
    InvalidInput for a total outside 2..12."""
    if total not in RANDOM_TERRAIN:
        raise InvalidInput("total", f"{total} is not a 2d6 total", "2 to 12")
    return RANDOM_TERRAIN[total]


def roll_random_terrain(*, dice: Dice) -> tuple[Terrain | None, ...]:
    """Roll the random terrain pool: a d3 for the count (2 + d3 pieces), then 2d6 per piece."""
    count = 2 + dice.roll(3, "terrain count d3")
    return tuple(
        random_terrain_piece(dice.roll(6, f"terrain {i + 1} die 1")
                             + dice.roll(6, f"terrain {i + 1} die 2"))
        for i in range(count)
    )
