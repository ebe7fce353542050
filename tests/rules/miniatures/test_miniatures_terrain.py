"""Terrain pieces and keywords (rulebook: terrain; randomized pool)."""

from __future__ import annotations

import pytest

from rules.dice import ScriptedDice
from rules.errors import InvalidInput
from rules.miniatures.terrain import (
    RANDOM_TERRAIN,
    Keyword,
    Terrain,
    blocks_ranged_line_of_sight,
    can_be_destroyed,
    can_enter,
    charge_defense_bonus,
    denies_charge_bonus,
    morale_modifier,
    movement_penalty,
    parse_terrain,
    random_terrain_piece,
    roll_random_terrain,
)

K = Keyword


@pytest.mark.parametrize(("piece", "keywords"), [
    (Terrain.BOG, {K.HINDERING, K.ROUGH}),
    (Terrain.CORPSE_PILE, {K.HINDERING, K.HORRIFIC}),
    (Terrain.FOREST, {K.COVER, K.FORTIFIED}),
    (Terrain.HEDGE, {K.COVER, K.DESTRUCTIBLE, K.ROUGH}),
    (Terrain.WALL_RUIN, {K.DESTRUCTIBLE, K.FORTIFIED, K.HINDERING}),
    (Terrain.PALISADE, {K.BLOCKS_LINE_OF_SIGHT, K.DESTRUCTIBLE, K.IMPASSABLE}),
    (Terrain.STAKES, {K.DANGEROUS, K.DESTRUCTIBLE}),
    (Terrain.WEIRWOOD_TREE, {K.INSPIRING}),
])
def test_terrain_pieces_and_their_keywords(piece: Terrain, keywords: set[Keyword]) -> None:
    """Each piece carries the keywords the rules list for it."""
    assert piece.keywords == keywords


def test_horrific_minus_1_to_morale_within_short_range() -> None:
    """Within short range of a horrific piece, units suffer -1 to morale test rolls."""
    assert morale_modifier([Terrain.CORPSE_PILE]) == -1


def test_inspiring_plus_1_to_morale_within_short_range() -> None:
    """Within short range of an inspiring piece, units gain +1 to morale test rolls."""
    assert morale_modifier([Terrain.WEIRWOOD_TREE]) == 1


def test_ability_stacking_same_named_effects_do_not_add_up() -> None:
    """Effects with the same name are not cumulative; differently named ones are."""
    assert morale_modifier([Terrain.CORPSE_PILE, Terrain.CORPSE_PILE]) == -1
    assert morale_modifier([Terrain.CORPSE_PILE, Terrain.WEIRWOOD_TREE]) == 0
    assert charge_defense_bonus([Terrain.FOREST, Terrain.WALL_RUIN]) == 1


def test_hindering_denies_the_charge_bonus() -> None:
    """A charge through or onto hindering terrain gains no charge bonus."""
    assert denies_charge_bonus([Terrain.BOG])
    assert not denies_charge_bonus([Terrain.FOREST, Terrain.HEDGE])


def test_rough_subtracts_an_inch_per_piece() -> None:
    """Moving into, out of or through a rough piece subtracts 1 inch."""
    assert movement_penalty([Terrain.BOG]) == 1
    assert movement_penalty([Terrain.BOG, Terrain.HEDGE, Terrain.FOREST]) == 2


def test_cover_and_blocking_stop_ranged_line_of_sight_from_outside() -> None:
    """Ranged line of sight cannot be traced through cover or a line-of-sight-blocking piece
    by units not inside it."""
    assert blocks_ranged_line_of_sight(Terrain.FOREST, attacker_inside=False)
    assert not blocks_ranged_line_of_sight(Terrain.FOREST, attacker_inside=True)
    assert blocks_ranged_line_of_sight(Terrain.PALISADE, attacker_inside=False)
    assert not blocks_ranged_line_of_sight(Terrain.BOG, attacker_inside=False)


def test_impassable_and_destructible() -> None:
    """Impassable pieces can never be entered; destructible ones can be removed by a melee
    attack."""
    assert not can_enter(Terrain.PALISADE)
    assert can_enter(Terrain.STAKES)
    assert can_be_destroyed(Terrain.HEDGE)
    assert not can_be_destroyed(Terrain.FOREST)


@pytest.mark.parametrize(("total", "piece"), [
    (2, Terrain.CORPSE_PILE), (3, Terrain.CORPSE_PILE), (4, Terrain.BOG),
    (5, Terrain.PALISADE), (6, Terrain.HEDGE), (7, None), (8, Terrain.WALL_RUIN),
    (9, Terrain.STAKES), (10, Terrain.FOREST), (11, Terrain.WEIRWOOD_TREE),
    (12, Terrain.WEIRWOOD_TREE),
])
def test_randomized_pool_table(total: int, piece: Terrain | None) -> None:
    """Every 2d6 total of the random terrain table (7: the players choose; 9 is the project's
    reading: stakes, the one piece the table does not name)."""
    assert random_terrain_piece(total) is piece


def test_randomized_pool_covers_every_2d6_total() -> None:
    """The table has exactly the totals 2 to 12."""
    assert sorted(RANDOM_TERRAIN) == list(range(2, 13))
    with pytest.raises(InvalidInput):
        random_terrain_piece(13)


def test_randomized_pool_two_plus_d3_pieces() -> None:
    """The number of pieces is 2 + a d3; each piece is then rolled on 2d6."""
    dice = ScriptedDice([1, 1, 1, 3, 4, 6, 6])
    pieces = roll_random_terrain(dice=dice)
    assert pieces == (Terrain.CORPSE_PILE, None, Terrain.WEIRWOOD_TREE)
    assert dice.remaining == 0
    assert len(roll_random_terrain(dice=ScriptedDice([3] + [5] * 10))) == 5


@pytest.mark.parametrize(("text", "piece"), [
    ("bog", Terrain.BOG), ("Corpse Pile", Terrain.CORPSE_PILE),
    ("corpse_pile", Terrain.CORPSE_PILE), ("wall", Terrain.WALL_RUIN),
    ("forrest", Terrain.FOREST), ("weirwood", Terrain.WEIRWOOD_TREE),
])
def test_parse_terrain_names(text: str, piece: Terrain) -> None:
    """Pieces are found by name, with common spellings."""
    assert parse_terrain(text) is piece


def test_parse_terrain_unknown_name() -> None:
    """An unknown piece names the field and the choices."""
    with pytest.raises(InvalidInput, match="terrain"):
        parse_terrain("lava")
