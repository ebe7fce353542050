"""The JSON engines ``battle``, ``odds`` and ``retreat``: the contract every engine keeps."""

from __future__ import annotations

from typing import Any

import pytest

from bot.jsonapi.campaign_battle import battle_engine, odds_engine, read_side, retreat_engine
from bot.jsonapi.engines import ENGINES
from rules.campaign.battle import Side
from rules.campaign.config import Terrain
from rules.dice import ScriptedDice
from rules.errors import InvalidInput
from tests.engine_contract import call, run


def test_engines_are_registered() -> None:
    assert ENGINES["battle"].fn is battle_engine
    assert ENGINES["odds"].fn is odds_engine
    assert ENGINES["retreat"].fn is retreat_engine


def test_battle_example_with_every_number_checked() -> None:
    """320 vs 140 is 2.29 (band 2.01-2.50, d20 + 5): a 4 makes 9, one short of the flat 10."""
    code, out = run("battle", {
        "attacker": {"infantry": 300, "cavalry": 10},
        "defender": {"infantry": 100, "terrain": "hill", "stationary": True},
        "dice": [4],
    })
    assert code == 0
    assert out == {
        "winner": "defender", "band": "2.01-2.50", "ratio": 2.29, "margin": 1,
        "attacker": {
            "strength": 320, "base_strength": 320, "applied": [], "roll": 9,
            "casualty_pct": 50, "losses": {"infantry": 150, "cavalry": 5, "ships": 0},
            "survivors": {"infantry": 150, "cavalry": 5, "ships": 0}, "captured": False,
            "characters": [],
        },
        "defender": {
            "strength": 140, "base_strength": 100, "applied": ["x1.4 hill (stationary)"],
            "roll": 10, "casualty_pct": 40, "losses": {"infantry": 40, "cavalry": 0, "ships": 0},
            "survivors": {"infantry": 60, "cavalry": 0, "ships": 0}, "captured": False,
            "characters": [],
        },
        "roll_log": [{"sides": 20, "value": 4, "purpose": "attacker d20 (2.01-2.50)"}],
        "rolls": [4],
    }


def test_battle_equal_band_defaults_and_ties() -> None:
    """Defaults: field, not stationary, commander 1, no penalty; ties re-roll."""
    code, out = run("battle", {"attacker": {"infantry": 100, "cavalry": 0},
                               "defender": {"infantry": 90, "cavalry": 5},
                               "dice": [6, 6, 2, 9]})
    assert code == 0
    assert (out["winner"], out["band"], out["ratio"], out["margin"]) == (
        "defender", "equal", 1, 7)
    assert (out["attacker"]["roll"], out["defender"]["roll"]) == (2, 9)
    assert out["attacker"]["casualty_pct"] == 62.5
    assert out["defender"]["casualty_pct"] == 25


def test_battle_auto_win_has_null_margin_and_rolls() -> None:
    code, out = run("battle", {"attacker": {"infantry": 1000, "cavalry": 0},
                               "defender": {"infantry": 10, "cavalry": 2}, "dice": []})
    assert code == 0
    assert (out["winner"], out["band"], out["margin"]) == ("attacker", "auto", None)
    assert out["attacker"]["roll"] is None and out["defender"]["roll"] is None
    assert out["defender"]["captured"] is True
    assert out["defender"]["losses"] == {"infantry": 10, "cavalry": 2, "ships": 0}
    assert out["attacker"]["losses"] == {"infantry": 0, "cavalry": 0, "ships": 0}


def test_battle_retreat_penalty_commander_modifiers_and_characters() -> None:
    payload = {
        "attacker": {"infantry": 100, "cavalry": 0, "commander_bonus": "1.5",
                     "characters": ["Ser Brynden"],
                     "modifiers": [{"name": "brynden", "amount": 1.2, "role": "attack",
                                    "label": "Ser Brynden's skill"}]},
        "defender": {"infantry": 100, "cavalry": 0, "retreat_penalty": True,
                     "characters": ["Lord Walder"],
                     "modifiers": [{"name": "walls", "amount": 3, "role": "defense",
                                    "hidden": True, "source": "holdfast"}]},
        "dice": [5, 50, 50],
    }
    code, out = run("battle", payload)
    assert code == 0
    # 180 vs 300: defender stronger (1.67, d20 + 2); attacker's flat stays 10, defender -1.
    assert out["band"] == "1.51-1.75"
    assert out["attacker"]["applied"] == ["x1.5 commander bonus", "x1.2 Ser Brynden's skill"]
    assert out["defender"]["applied"] == ["x3 walls (secret)"]
    assert (out["defender"]["roll"], out["attacker"]["roll"]) == (6, 10)
    assert (out["winner"], out["margin"]) == ("attacker", 4)
    assert out["attacker"]["characters"] == [
        {"name": "Ser Brynden", "fate": "safe", "roll": 50}]  # 50 > 1.5 x 32.5
    assert out["defender"]["characters"] == [
        {"name": "Lord Walder", "fate": "death_roll", "roll": 50}]


def test_ships_fight_like_troops() -> None:
    code, out = run("battle", {"attacker": {"infantry": 0, "cavalry": 0, "ships": 10},
                               "defender": {"infantry": 0, "cavalry": 0, "ships": 10},
                               "dice": [3, 1]})
    assert code == 0
    assert out["attacker"]["strength"] == out["defender"]["strength"] == 100
    assert (out["winner"], out["band"], out["margin"]) == ("attacker", "equal", 2)
    # Margin 2: loser 52.5% of 10 ships = 5.25 -> 5; winner 37.5% = 3.75 -> 4.
    assert out["defender"]["losses"]["ships"] == 5
    assert out["attacker"]["losses"]["ships"] == 4


@pytest.mark.parametrize(("payload", "field"), [
    ({"defender": {"infantry": 1}}, "attacker"),
    ({"attacker": [], "defender": {}}, "attacker"),
    ({"attacker": {"infantry": -5}, "defender": {}}, "attacker.infantry"),
    ({"attacker": {"infantry": "ten"}, "defender": {}}, "attacker.infantry"),
    ({"attacker": {}, "defender": {"cavalry": 1.5}}, "defender.cavalry"),
    ({"attacker": {}, "defender": {"terrain": "lava"}}, "defender.terrain"),
    ({"attacker": {}, "defender": {"stationary": "yes"}}, "defender.stationary"),
    ({"attacker": {"commander_bonus": 0}, "defender": {}}, "attacker.commander_bonus"),
    ({"attacker": {"retreat_penalty": 1}, "defender": {}}, "attacker.retreat_penalty"),
    ({"attacker": {"infantery": 5}, "defender": {}}, "attacker.infantery"),
    ({"attacker": {"modifiers": [{"amount": 2}]}, "defender": {}}, "attacker.modifiers[0].name"),
    ({"attacker": {"modifiers": [{"name": "x", "amount": -1}]}, "defender": {}},
     "attacker.modifiers[0].amount"),
    ({"attacker": {"modifiers": [{"name": "x", "amount": 2, "role": "sideways"}]},
      "defender": {}}, "attacker.modifiers[0].role"),
    ({"attacker": {"modifiers": ["x"]}, "defender": {}}, "attacker.modifiers[0]"),
    ({"attacker": {"characters": [""]}, "defender": {}}, "attacker.characters[0]"),
    ({"attacker": {"infantry": 10}, "defender": {"infantry": 10}, "dice": [1]}, "dice"),
])
def test_bad_input_names_the_field(payload: dict[str, Any], field: str) -> None:
    """Bad input: exit 2 and an error naming the dotted field."""
    code, out = run("battle", payload)
    assert code == 2
    assert out["field"] == field
    assert out["error"].startswith(field)


def test_bad_die_value_is_refused() -> None:
    code, out = run("battle", {"attacker": {"infantry": 10}, "defender": {"infantry": 10},
                               "dice": [11, 2]})
    assert code == 2 and "d10" in out["error"]


def test_read_side_builds_the_side() -> None:
    side = read_side({"a": {"infantry": 5, "cavalry": 2, "terrain": "Swamp", "stationary": True}},
                     "a")
    assert side == (Side(5, 2, terrain=Terrain.SWAMP, stationary=True),)  # a side of one army
    with pytest.raises(InvalidInput):
        read_side({"a": {"ships": -1}}, "a")


def test_odds_contract() -> None:
    """odds: attacker_win and defender_win as numbers, exact strings, expected losses."""
    code, out = run("odds", {"attacker": {"infantry": 150, "cavalry": 0},
                             "defender": {"infantry": 100, "cavalry": 0}})
    assert code == 0
    assert (out["attacker_win"], out["defender_win"]) == (0.6, 0.4)
    assert (out["attacker_win_exact"], out["defender_win_exact"]) == ("3/5", "2/5")
    assert out["band"] == "1.26-1.50"
    assert set(out["expected_losses"]) == {"attacker", "defender"}
    assert set(out["expected_losses"]["attacker"]) >= {"infantry", "cavalry"}
    exact = out["expected_losses_exact"]["attacker"]["infantry"]
    assert float(eval_fraction(exact)) == out["expected_losses"]["attacker"]["infantry"]


def eval_fraction(text: str) -> float:
    num, _, den = text.partition("/")
    return int(num) / int(den or 1)


def test_odds_ignore_dice() -> None:
    code, out = run("odds", {"attacker": {"infantry": 400}, "defender": {"infantry": 100},
                             "dice": []})
    assert code == 0 and out["attacker_win_exact"] == "39/40"


def test_odds_field_errors() -> None:
    code, out = run("odds", {"attacker": {"infantry": 1}, "defender": {"cavalry": -1}})
    assert (code, out["field"]) == (2, "defender.cavalry")


@pytest.mark.parametrize(("roll", "success", "fraction", "escaped"), [
    (20, True, 1, {"infantry": 7, "cavalry": 3, "ships": 0}),
    (15, True, 0.75, {"infantry": 5, "cavalry": 2, "ships": 0}),
    (13, True, 0.5, {"infantry": 4, "cavalry": 2, "ships": 0}),
    (12, False, 0, {"infantry": 0, "cavalry": 0, "ships": 0}),
])
def test_retreat_contract(roll: int, success: bool, fraction: float,
                          escaped: dict[str, int]) -> None:
    code, out = run("retreat", {"infantry": 7, "cavalry": 3, "dice": [roll]})
    assert code == 0
    assert (out["success"], out["fraction"], out["escaped"], out["penalty"]) == (
        success, fraction, escaped, not success)
    assert out["roll"] == roll


def test_retreat_field_errors() -> None:
    code, out = run("retreat", {"infantry": -1, "cavalry": 3, "dice": [20]})
    assert (code, out["field"]) == (2, "infantry")
    code, out = run("retreat", {"infantry": 1, "cavalry": 3, "dice": []})
    assert (code, out["field"]) == (2, "dice")


def test_engines_take_dice_directly() -> None:
    out = call("retreat", {"infantry": 4, "cavalry": 0}, ScriptedDice([18]))
    assert out["escaped"]["infantry"] == 4


def test_a_side_of_several_armies_sums_their_strengths_and_shares_the_casualty_pct() -> None:
    """Two defending armies, one of 100 infantry stationary on a hill (x1.4: 140) and one of
    35 infantry just arrived (35): the side's strength is 175, against 320 a ratio of 1.83
    (band 1.76-2.00, d20 + 3). A 2 makes 5, short of the flat 10: the defenders win by 5
    (25% / 15%, chart row 5-7): each army loses 15% of its own troops, rounded half-up."""
    code, out = run("battle", {
        "attacker": [{"infantry": 300, "cavalry": 10}],
        "defender": [{"infantry": 100, "terrain": "hill", "stationary": True},
                     {"infantry": 35}],
        "dice": [2],
    })
    assert code == 0, out
    assert (out["winner"], out["band"], out["ratio"], out["margin"]) == (
        "defender", "1.76-2.00", 1.83, 5)
    defender = out["defender"]
    assert (defender["strength"], defender["base_strength"]) == (175, 135)
    assert [a["strength"] for a in defender["armies"]] == [140, 35]
    pct = defender["casualty_pct"]
    assert [a["casualty_pct"] for a in defender["armies"]] == [pct, pct]
    lost = [a["losses"]["infantry"] for a in defender["armies"]]
    assert lost == [round(100 * pct / 100 + 0.001), int(35 * pct / 100 + 0.5)]
    assert defender["losses"]["infantry"] == sum(lost)
    assert "armies" not in out["attacker"]  # a list of one army is one army


def test_a_side_list_names_the_bad_army_and_must_not_be_empty() -> None:
    code, out = run("battle", {"attacker": {"infantry": 10},
                               "defender": [{"infantry": 5}, {"infantry": -1}], "dice": [1]})
    assert code != 0 and "defender[1].infantry" in str(out)
    code, out = run("battle", {"attacker": [], "defender": {"infantry": 5}, "dice": [1]})
    assert code != 0 and "attacker" in str(out)


def test_odds_of_sides_count_every_army() -> None:
    """150 against two armies of 100 is 150 against 200: the odds engine sees the sum."""
    code, out = run("odds", {"attacker": {"infantry": 150},
                             "defender": [{"infantry": 100}, {"infantry": 100}]})
    assert code == 0, out
    assert (out["band"], out["ratio"]) == ("1.26-1.50", 1.33)
    assert out["defender"]["strength"] == 200
