"""Game size and victory (rulebook: determine game size; victory 1/2 and 2/2)."""

from __future__ import annotations

import pytest

from rules.errors import InvalidInput
from rules.miniatures.victory import (
    GameSize,
    VictoryOutcome,
    VictoryReason,
    check_victory,
    destruction_points,
    victory_points_to_win,
)


def test_determine_game_size_suggested_sizes() -> None:
    """Suggested sizes: small 30, medium 40, large 50 points."""
    assert (GameSize.SMALL, GameSize.MEDIUM, GameSize.LARGE) == (30, 40, 50)


@pytest.mark.parametrize(("points", "needed"), [
    (30, 8), (40, 10), (50, 12), (60, 14), (70, 16), (100, 22),
    (45, 10), (59, 12), (31, 8), (20, 8), (1, 8),
])
def test_victory_points_needed_by_game_size(points: int, needed: int) -> None:
    """Small 8, medium 10, large 12, and 2 more for every further 10 points (only complete
    steps count; below 30 points the small game's 8)."""
    assert victory_points_to_win(points) == needed


def test_victory_points_needed_rejects_no_game() -> None:
    """A game needs a positive number of points."""
    with pytest.raises(InvalidInput):
        victory_points_to_win(0)


def test_victory_declared_with_target_and_more_than_any_opponent() -> None:
    """At the end of a round a player with the needed points and more than every opponent
    wins."""
    check = check_victory({"a": 10, "b": 7}, army_points=40, round_number=3)
    assert (check.outcome, check.winner, check.reason) == (
        VictoryOutcome.WIN, "a", VictoryReason.VICTORY_POINTS)


def test_victory_both_at_target_and_tied_the_game_continues() -> None:
    """Both players at the needed points but tied: no winner, the game goes on."""
    check = check_victory({"a": 10, "b": 10}, army_points=40, round_number=4)
    assert check.outcome is VictoryOutcome.CONTINUE


def test_victory_below_target_the_game_continues() -> None:
    """Without the needed points nobody wins before the last round."""
    assert check_victory({"a": 9, "b": 2}, army_points=40, round_number=5).outcome is (
        VictoryOutcome.CONTINUE)


def test_after_round_6_most_victory_points_wins() -> None:
    """If no one has won after the 6th round, the player with the most victory points wins."""
    check = check_victory({"a": 6, "b": 5}, army_points=40, round_number=6)
    assert (check.winner, check.reason) == ("a", VictoryReason.MOST_POINTS)


def test_after_round_6_tie_goes_to_most_points_on_the_battlefield() -> None:
    """Tied after round 6: the tied player with the most army points left on the table wins."""
    check = check_victory({"a": 6, "b": 6, "c": 2}, army_points=40, round_number=6,
                          battlefield_points={"a": 12, "b": 19, "c": 40})
    assert (check.winner, check.reason) == ("b", VictoryReason.BATTLEFIELD)


def test_after_round_6_still_tied_is_a_draw() -> None:
    """Tied on both counts the game is a draw."""
    check = check_victory({"a": 6, "b": 6}, army_points=40, round_number=6,
                          battlefield_points={"a": 12, "b": 12})
    assert check.outcome is VictoryOutcome.DRAW
    with pytest.raises(InvalidInput):
        check_victory({"a": 6, "b": 6}, army_points=40, round_number=6)


def test_eliminated_player_opponent_wins_at_once() -> None:
    """A player with no combat units left is eliminated; in a two-player game the opponent
    wins immediately, whatever the victory points."""
    check = check_victory({"a": 9, "b": 1}, army_points=40, round_number=2,
                          units_left={"a": 0, "b": 3})
    assert (check.outcome, check.winner, check.reason) == (
        VictoryOutcome.WIN, "b", VictoryReason.ELIMINATION)
    assert check.eliminated == ("a",)


def test_victory_through_combat_destroying_an_enemy_unit_earns_1() -> None:
    """A player always earns 1 victory point for destroying an enemy combat unit."""
    assert destruction_points("b", "a", ["a", "b"]) == {"a": 1}


def test_victory_through_combat_own_or_uncontrolled_effect_scores_for_opponents() -> None:
    """A unit destroyed by its owner's effect, or by no player's, earns each opponent 1."""
    assert destruction_points("b", "b", ["a", "b", "c"]) == {"a": 1, "c": 1}
    assert destruction_points("b", None, ["a", "b"]) == {"a": 1}


def test_victory_checks_reject_bad_input() -> None:
    """Rounds run 1 to 6 and a game has at least two players known by name."""
    with pytest.raises(InvalidInput):
        check_victory({"a": 1}, army_points=40, round_number=1)
    with pytest.raises(InvalidInput):
        check_victory({"a": 1, "b": 1}, army_points=40, round_number=7)
    with pytest.raises(InvalidInput):
        destruction_points("z", None, ["a", "b"])
