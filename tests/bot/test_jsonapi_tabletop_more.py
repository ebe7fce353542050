"""The further tabletop rules in the JSON engines, checked against hand-computed cases:
miniatures charges, panic and morale tests, victory points by game size; the board game's
garrison after the combat; the card game's claim of 0."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from tests.engine_contract import run


def ok(engine: str, payload: dict[str, Any]) -> dict[str, Any]:
    code, out = run(engine, payload)
    assert code == 0, out
    return out


# --------------------------------------------------------------------------- charge


def test_failed_charge_rolls_its_panic_test_and_wounds() -> None:
    """8" with speed 5 needs a 3: a 2 falls 1" short; the panic test at 6+ rolls 2 + 2 = 4
    and its d3 (1): failed, one wound; the activation ends."""
    out = ok("miniatures-charge", {"distance": 8, "speed": 5, "morale": 6,
                                   "dice": [2, 2, 2, 1]})
    assert out["spec"]["needed"] == 3 and out["spec"]["reach"] == 11
    res = out["result"]
    assert (res["outcome"], res["reached"], res["total_distance"]) == ("failed", False, 7)
    assert res["activation_ends"] and res["panic_due"]
    assert res["panic"]["rolls"] == [2, 2] and res["panic"]["d3"] == 1
    assert res["panic"]["outcome"] == "failed" and res["wounds"] == 1


def test_failed_charge_passing_its_panic_test_takes_no_wounds() -> None:
    out = ok("miniatures-charge", {"distance": 8, "speed": 5, "morale": 6,
                                   "dice": [1, 6, 6, 3]})
    res = out["result"]
    assert res["outcome"] == "failed" and res["disorderly"]  # a natural 1, and short
    assert res["panic"]["outcome"] == "passed" and res["wounds"] == 0


def test_a_natural_one_that_reaches_is_disorderly() -> None:
    """6" with speed 5: a 1 reaches (6"), but disorderly: no charge bonus, no tactics cards."""
    res = ok("miniatures-charge", {"distance": 6, "speed": 5, "dice": [1]})["result"]
    assert (res["outcome"], res["reached"], res["disorderly"]) == ("disorderly", True, True)
    assert not res["charge_bonus"] and not res["may_play_tactics_cards"]
    assert res["panic"] is None


def test_an_orderly_charge_earns_the_charge_bonus() -> None:
    res = ok("miniatures-charge", {"distance": "7.5", "speed": 5, "dice": [3]})["result"]
    assert res["outcome"] == "charged" and res["charge_bonus"] and res["may_play_tactics_cards"]


def test_charge_odds_are_exact() -> None:
    """Needs 3+: 4/6 reach, 2/6 fail; failing then failing 6+ (10/36) is 1/3 * 5/18 = 5/54."""
    odds = ok("miniatures-charge", {"distance": 8, "speed": 5, "morale": 6,
                                    "distribution": True})["odds"]
    assert Fraction(odds["reached"]["fraction"]) == Fraction(2, 3)
    assert Fraction(odds["disorderly"]["fraction"]) == 0
    assert odds["disorderly"]["decimal"] == "0.000000000000000"
    assert Fraction(odds["failed_panic"]["fraction"]) == Fraction(5, 54)


def test_a_charge_re_roll_and_rough_terrain() -> None:
    """A bog is rough (-1"): 7" with speed 5 needs a 3; the re-roll replaces a short 2."""
    out = ok("miniatures-charge", {"distance": 7, "speed": 5, "terrain": ["bog"],
                                   "reroll": "if_short", "dice": [2, 4]})
    assert out["spec"]["rough"] == 1 and out["spec"]["needed"] == 3
    assert out["result"]["rolls"] == [2, 4] and out["result"]["reached"]
    assert not out["result"]["charge_bonus"]  # a bog is hindering


def test_an_unknown_terrain_piece_names_its_index() -> None:
    code, out = run("miniatures-charge", {"distance": 7, "speed": 5, "terrain": ["forest", "x"]})
    assert code == 2 and out["field"] == "terrain[1]"


# --------------------------------------------------------------------------- panic, morale


def test_stand_alone_panic_test_odds() -> None:
    """6+: 26 of 36 rolls pass (13/18); with 1+d3 each failure of 5/18 splits into 2, 3, 4
    wounds at 5/54 each; expected 5/18 * 3 = 5/6."""
    odds = ok("miniatures-panic", {"morale": 6, "panic_wounds": "1+d3",
                                   "distribution": True})["odds"]
    assert Fraction(odds["pass"]["fraction"]) == Fraction(13, 18)
    assert [(w["wounds"], Fraction(w["chance"]["fraction"])) for w in odds["wounds"]] == [
        (2, Fraction(5, 54)), (3, Fraction(5, 54)), (4, Fraction(5, 54))]
    assert Fraction(odds["expected_wounds"]["fraction"]) == Fraction(5, 6)


def test_panic_test_after_no_wounds_passes_without_rolling() -> None:
    out = ok("miniatures-panic", {"morale": 6, "wounds_suffered": 0, "dice": []})
    assert out["result"]["outcome"] == "automatic_pass" and out["result"]["taken"]
    assert out["rolls"] == []


def test_the_rulebook_panic_failure_example() -> None:
    """Stark Sworn Swords, 6+: 2 and 2 make 4, failed; the d3 shows 1: one wound."""
    res = ok("miniatures-panic", {"morale": 6, "dice": [2, 2, 1]})["result"]
    assert (res["total"], res["outcome"], res["wounds"]) == (4, "failed", 1)


def test_morale_test_rolled_and_as_odds() -> None:
    """The rulebook's -4 example: 1 + 2 - 4 is floored at 0 and fails 6+."""
    res = ok("miniatures-morale", {"morale": 6, "morale_modifier": -4, "dice": [1, 2]})["result"]
    assert (res["total"], res["passed"]) == (0, False)
    odds = ok("miniatures-morale", {"morale": 7, "distribution": True})["odds"]
    assert Fraction(odds["pass"]["fraction"]) == Fraction(21, 36)


# --------------------------------------------------------------------------- victory


@pytest.mark.parametrize(("size", "needed"), [(30, 8), (40, 10), (50, 12), (45, 10), (20, 8)])
def test_victory_points_by_game_size(size: int, needed: int) -> None:
    assert ok("miniatures-victory", {"game_size": size})["victory_points_needed"] == needed


def test_victory_check_at_the_end_of_a_round() -> None:
    out = ok("miniatures-victory", {"game_size": 50, "scores": {"A": 12, "B": 9}, "round": 3})
    assert out["check"] == {"outcome": "win", "reason": "victory_points", "winner": "A",
                            "eliminated": []}
    out = ok("miniatures-victory", {"game_size": 50, "scores": {"A": 11, "B": 9}, "round": 3})
    assert out["check"]["outcome"] == "continue"
    out = ok("miniatures-victory", {"game_size": 30, "scores": {"A": 5, "B": 5}, "round": 6,
                                    "battlefield_points": {"A": 12, "B": 9}})
    assert out["check"]["reason"] == "battlefield" and out["check"]["winner"] == "A"


def test_victory_check_needs_the_round() -> None:
    code, out = run("miniatures-victory", {"game_size": 40, "scores": {"A": 1, "B": 2}})
    assert code == 2 and out["field"] == "round"


# --------------------------------------------------------------------------- board game


def _combat(attacker_strength: int) -> dict[str, Any]:
    return {"attacker": {"house": "Lannister", "units": {"footmen": 1},
                         "card": {"strength": attacker_strength}},
            "defender": {"house": "Stark", "units": {"footmen": 1}, "card": {"strength": 0}},
            "garrison": 2}


def test_a_defender_who_wins_keeps_its_garrison() -> None:
    """1 + card 1 against 1 + garrison 2 + card 0: the defender wins, the garrison stays."""
    out = ok("boardgame-combat", _combat(1))
    assert out["outcome"] == "defender_wins"
    assert out["defender"]["strength"]["garrison"] == 2
    assert out["cleanup"]["garrison_after"] == 2 and not out["cleanup"]["garrison_removed"]


def test_a_defender_who_loses_loses_its_garrison() -> None:
    out = ok("boardgame-combat", _combat(4))
    assert out["outcome"] == "attacker_wins"
    assert out["cleanup"]["garrison_after"] == 0 and out["cleanup"]["garrison_removed"]


# --------------------------------------------------------------------------- card game


def test_a_claim_of_zero_wins_without_any_claim_effect() -> None:
    """The attacker wins a military challenge with claim 0: no character dies, no kill is
    owed, the unopposed bonus still comes."""
    out = ok("card-challenge", {
        "players": [{"name": "A", "characters": [{"name": "X", "str": 2,
                                                  "icons": ["military"]}]},
                    {"name": "B", "characters": [{"name": "Y", "str": 1}]}],
        "challenge": "military", "attackers": ["X"], "claim": 0})
    assert out["outcome"] == "attacker_wins" and out["unopposed"]
    assert out["claim"]["value"] == 0 and out["claim"]["applied"] == 0
    assert out["claim"]["killed"] == [] and out["claim"]["kills_owed"] == 0
    assert out["players"][1]["dead_pile"] == []
