"""Dice pools: modified results, natural 1s and 6s, re-rolls (rulebook: dice roll and attack
die modifiers; re-rolls; resolve attack steps 2-5)."""

from __future__ import annotations

import pytest

from rules.dice import ScriptedDice
from rules.errors import InvalidInput
from rules.miniatures.rolls import (
    PoolRerolls,
    Reroll,
    RerollFaces,
    Side,
    die_succeeds,
    modified_result,
    roll_pool,
    select_rerolls,
)

F = RerollFaces


@pytest.mark.parametrize(
    ("face", "modifier", "expected"),
    [
        (1, 0, 1), (3, 0, 3), (6, 0, 6),
        (5, 1, 6), (6, 1, 6), (6, 3, 6), (4, 6, 6),  # never above 6
        (2, -1, 1), (1, -1, 0), (2, -4, 0), (3, -6, 0),  # never below 0
        (4, -2, 2), (3, 2, 5),
    ],
)
def test_modifier_rule_result_is_kept_within_0_and_6(face: int, modifier: int, expected: int
                                                     ) -> None:
    """Effects can never push a die result below 0 or an individual die above 6."""
    assert modified_result(face, modifier) == expected


@pytest.mark.parametrize("modifier", range(-6, 7))
def test_roll_attack_dice_natural_1_always_misses(modifier: int) -> None:
    """Each die that rolls a 1 is always a miss, whatever the modifiers."""
    for target in range(2, 7):
        assert not die_succeeds(1, target, modifier)


@pytest.mark.parametrize("modifier", range(-6, 7))
def test_roll_attack_dice_natural_6_always_hits(modifier: int) -> None:
    """Each die that rolls a 6 is always a hit, whatever the modifiers."""
    for target in range(2, 7):
        assert die_succeeds(6, target, modifier)


@pytest.mark.parametrize(
    ("face", "target", "modifier", "hit"),
    [
        (4, 4, 0, True),  # equal to the value hits
        (3, 4, 0, False),  # below misses
        (5, 4, 0, True),
        (3, 4, 1, True),  # +1 lifts a 3 to 4
        (4, 4, -1, False),  # -1 drops a 4 to 3
        (2, 2, 0, True),
        (5, 6, 0, False),
        (5, 6, 1, True),
        (2, 3, 6, True),
        (5, 2, -4, False),
    ],
)
def test_roll_attack_dice_equal_or_exceed_to_hit_is_a_hit(face: int, target: int,
                                                           modifier: int, hit: bool) -> None:
    """Each roll equal to or above the to-hit value (after modifiers) hits; below it misses."""
    assert die_succeeds(face, target, modifier) is hit


def test_modifiers_change_the_result_not_the_die_facing() -> None:
    """A modified die keeps its face: effects triggering on a rolled 6 look at the face."""
    pool = roll_pool(2, 4, 1, PoolRerolls(), active=Side.ATTACKER, dice=ScriptedDice([5, 6]),
                     label="attack")
    assert [d.face for d in pool.dice] == [5, 6]
    assert [d.modified for d in pool.dice] == [6, 6]


def test_defense_dice_natural_6_always_saves_and_1_always_fails() -> None:
    """A defense die showing 6 always blocks a hit and a 1 never does, whatever the modifiers."""
    pool = roll_pool(2, 6, -3, PoolRerolls(), active=Side.ATTACKER,
                     dice=ScriptedDice([6, 1]), label="defense")
    assert [d.success for d in pool.dice] == [True, False]
    pool = roll_pool(1, 2, 5, PoolRerolls(), active=Side.ATTACKER, dice=ScriptedDice([1]),
                     label="defense")
    assert pool.successes == 0


def test_rerolls_a_die_is_rerolled_at_most_once_by_each_player() -> None:
    """A die may only be forced to be re-rolled once by each player: the attacker's re-roll of
    a miss that misses again is not re-rolled a second time by the attacker."""
    rerolls = PoolRerolls(attacker=Reroll(F.FAILURES))
    dice = ScriptedDice([2, 3])
    pool = roll_pool(1, 4, 0, rerolls, active=Side.ATTACKER, dice=dice, label="attack")
    assert pool.dice[0].faces == (2, 3)
    assert pool.successes == 0
    assert dice.remaining == 0


def test_rerolls_each_player_may_reroll_the_same_die_once() -> None:
    """The limit is per player: a die the attacker re-rolled into a hit can still be forced
    to be re-rolled by the defender."""
    rerolls = PoolRerolls(attacker=Reroll(F.FAILURES), defender=Reroll(F.SUCCESSES))
    pool = roll_pool(1, 4, 0, rerolls, active=Side.ATTACKER, dice=ScriptedDice([2, 5, 1]),
                     label="attack")
    assert pool.dice[0].faces == (2, 5, 1)
    assert pool.dice[0].rerolled_by == (Side.ATTACKER, Side.DEFENDER)


def test_rerolls_the_player_whose_turn_it_is_goes_first() -> None:
    """When both players re-roll, the active player uses their effects first, then the
    opponent, on the new results."""
    rerolls = PoolRerolls(attacker=Reroll(F.FAILURES), defender=Reroll(F.SUCCESSES))
    # The defender is active: it forces the hit (5) to be re-rolled first; it becomes a 2,
    # which the attacker then re-rolls as a miss.
    pool = roll_pool(2, 4, 0, rerolls, active=Side.DEFENDER, dice=ScriptedDice([5, 3, 2, 6, 4]),
                     label="attack")
    assert pool.dice[0].faces == (5, 2, 6)
    assert pool.dice[0].rerolled_by == (Side.DEFENDER, Side.ATTACKER)
    assert pool.dice[1].faces == (3, 4)
    assert pool.successes == 2


def test_rerolls_previous_results_are_discarded() -> None:
    """A re-rolled die's old result has no effect: the new one replaces it entirely, even
    when it is worse."""
    rerolls = PoolRerolls(defender=Reroll(F.SUCCESSES))
    pool = roll_pool(1, 4, 0, rerolls, active=Side.ATTACKER, dice=ScriptedDice([6, 1]),
                     label="attack")
    assert pool.dice[0].face == 1
    assert pool.successes == 0


@pytest.mark.parametrize(
    ("faces", "reroll", "expected"),
    [
        ((1, 3, 5, 1), Reroll(F.FAILURES), (0, 1, 3)),
        ((1, 3, 5, 1), Reroll(F.ONES), (0, 3)),
        ((1, 3, 5, 6), Reroll(F.SUCCESSES), (2, 3)),
        ((3, 1, 2, 1), Reroll(F.FAILURES, 2), (1, 3)),  # natural 1s are taken first
        ((3, 2, 1, 5), Reroll(F.FAILURES, 2), (0, 2)),
        ((5, 6, 4), Reroll(F.SUCCESSES, 1), (0,)),
        ((5, 6, 4), Reroll(), ()),
    ],
)
def test_rerolls_which_dice_an_effect_takes(faces: tuple[int, ...], reroll: Reroll,
                                             expected: tuple[int, ...]) -> None:
    """Failures are misses including natural 1s; with a limit natural 1s go first, then the
    lower-numbered dice."""
    assert select_rerolls(faces, 4, 0, reroll) == expected


def test_pool_scripted_dice_order_is_dice_then_active_rerolls_then_other() -> None:
    """Scripted dice are used for every die in order, then the active player's re-rolls in die
    order, then the other player's."""
    rerolls = PoolRerolls(attacker=Reroll(F.ONES), defender=Reroll(F.SUCCESSES))
    dice = ScriptedDice([1, 5, 1, 2, 3, 6])
    pool = roll_pool(3, 4, 0, rerolls, active=Side.ATTACKER, dice=dice, label="attack")
    assert [r.purpose for r in dice.rolls] == [
        "attack die 1", "attack die 2", "attack die 3",
        "attack die 1 re-roll (attacker)", "attack die 3 re-roll (attacker)",
        "attack die 2 re-roll (defender)",
    ]
    assert [d.face for d in pool.dice] == [2, 6, 3]


@pytest.mark.parametrize(("count", "target", "modifier"), [(-1, 4, 0), (41, 4, 0), (3, 1, 0),
                                                           (3, 7, 0), (3, 4, 7), (3, 4, -7)])
def test_pool_rejects_bad_input(count: int, target: int, modifier: int) -> None:
    """Counts, targets and modifiers out of range name the field."""
    with pytest.raises(InvalidInput):
        roll_pool(count, target, modifier, PoolRerolls(), active=Side.ATTACKER,
                  dice=ScriptedDice([]), label="attack")


def test_reroll_limit_must_be_positive() -> None:
    """A re-roll of up to 0 dice is meaningless and refused."""
    with pytest.raises(InvalidInput):
        Reroll(F.FAILURES, 0)
