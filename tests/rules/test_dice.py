"""Dice are arguments: scripted dice replay, seeded dice repeat, both record every roll."""

from __future__ import annotations

import pytest

from rules.dice import ScriptedDice, SeededDice, derive_seed
from rules.errors import BadDie, DiceExhausted


def test_scripted_dice_replay_in_order_and_record_purpose() -> None:
    dice = ScriptedDice([3, 20, 1])
    assert [dice.roll(6, "a"), dice.roll(20, "b"), dice.roll(2, "c")] == [3, 20, 1]
    assert [r.purpose for r in dice.rolls] == ["a", "b", "c"]
    assert dice.remaining == 0


def test_scripted_dice_refuse_impossible_values() -> None:
    """A d10 cannot show 11: the script is wrong, and the error says which die."""
    with pytest.raises(BadDie) as err:
        ScriptedDice([11]).roll(10, "battle")
    assert "dice[0]" in str(err.value) and "d10" in str(err.value)


def test_scripted_dice_running_out_is_an_error() -> None:
    dice = ScriptedDice([4])
    dice.roll(6)
    with pytest.raises(DiceExhausted):
        dice.roll(6, "second")


def test_seeded_dice_repeat_for_the_same_seed() -> None:
    a, b = SeededDice("secret:tick:5"), SeededDice("secret:tick:5")
    rolls_a = [a.roll(20) for _ in range(50)]
    assert rolls_a == [b.roll(20) for _ in range(50)]
    assert all(1 <= r <= 20 for r in rolls_a)
    assert rolls_a != [SeededDice("secret:tick:6").roll(20) for _ in range(50)]


def test_derive_seed_separates_parts() -> None:
    """("ab", "c") and ("a", "bc") must not collide: parts are length-prefixed."""
    assert derive_seed("ab", "c") != derive_seed("a", "bc")
    assert derive_seed(b"x", 1) == derive_seed(b"x", "1")
