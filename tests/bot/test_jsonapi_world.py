"""The JSON engines ``movement``, ``muster``, ``detection``, ``upkeep`` and ``siege``."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

import pytest

from bot.jsonapi.campaign_world import (
    detection_engine,
    exact_text,
    movement_engine,
    muster_engine,
    number,
    siege_engine,
    upkeep_engine,
)
from bot.jsonapi.engines import ENGINES
from rules.dice import ScriptedDice, SeededDice
from rules.errors import InvalidInput
from tests.engine_contract import call, run


def no_dice() -> ScriptedDice:
    return ScriptedDice([])


def test_world_engines_are_registered() -> None:
    assert ENGINES["movement"].fn is movement_engine
    assert ENGINES["muster"].fn is muster_engine
    assert ENGINES["detection"].fn is detection_engine
    assert ENGINES["upkeep"].fn is upkeep_engine
    assert ENGINES["siege"].fn is siege_engine


def test_muster_example_from_the_issue() -> None:
    """echo '{"accepted_at": "2026-11-22T07:30:00Z"}' | maester rules muster gives
    {"ready_at": "2026-11-23T12:00:00Z"}."""
    assert call("muster", {"accepted_at": "2026-11-22T07:30:00Z"}, no_dice()) == {
        "ready_at": "2026-11-23T12:00:00Z"
    }
    code, out = run("muster", {"accepted_at": "2026-11-22T07:30:00Z"})
    assert code == 0
    assert out["ready_at"] == "2026-11-23T12:00:00Z"


def test_muster_accepts_offsets_and_answers_in_utc() -> None:
    out = call("muster", {"accepted_at": "2026-11-22T09:30:00+02:00"}, no_dice())
    assert out == {"ready_at": "2026-11-23T12:00:00Z"}


def test_movement_full_answer() -> None:
    """Field, forest, hill, mountain (cost 8) at 1.5 a tick, leaving at the next tick and
    entering its first tile a tick later."""
    out = call("movement", {
        "terrains": ["field", "forest", "hill", "mountain"],
        "infantry": 100, "cavalry": 0, "accepted_at": "2026-11-22T07:30:00Z",
    }, no_dice())
    assert out == {
        "travel_cost": 8,
        "tile_costs": [1, 2, 2, 3],
        "speed_multiplier": 1,
        "speed_multiplier_exact": "1",
        "speed_reasons": [],
        "budget_per_tick": 1.5,
        "budget_per_tick_exact": "1.5",
        "departure": "2026-11-22T12:00:00Z",
        "arrival": "2026-11-24T00:00:00Z",
        "entries": ["2026-11-22T18:00:00Z", "2026-11-23T00:00:00Z", "2026-11-23T12:00:00Z",
                    "2026-11-24T00:00:00Z"],
    }


def test_movement_waits_for_muster_and_applies_speed() -> None:
    """A small all-cavalry army (x4, 6 a tick) leaves when its muster is ready."""
    code, out = run("movement", {
        "terrains": ["mountain", "mountain", "swamp"], "infantry": 0, "cavalry": 12,
        "accepted_at": "2026-11-22T07:30:00Z", "ready_at": "2026-11-23T12:00:00Z",
    })
    assert code == 0
    assert out["speed_multiplier"] == 4
    assert out["departure"] == "2026-11-23T12:00:00Z"
    assert out["entries"] == ["2026-11-23T18:00:00Z", "2026-11-23T18:00:00Z",
                              "2026-11-24T00:00:00Z"]
    assert out["arrival"] == "2026-11-24T00:00:00Z"


def test_movement_quartered_speed_is_an_exact_number() -> None:
    out = call("movement", {"terrains": ["field"], "infantry": 5001, "cavalry": 0,
                           "accepted_at": "2026-11-22T12:00:00Z"}, no_dice())
    assert out["speed_multiplier"] == 0.25
    assert out["budget_per_tick_exact"] == "0.375"
    assert out["arrival"] == "2026-11-23T06:00:00Z"  # 0.375 x 3 ticks covers 1 (18, 00, 06)


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({"terrains": ["field", "water"], "infantry": 1, "accepted_at": "2026-11-22T12:00:00Z"},
         "terrains[1]"),
        ({"terrains": ["lava"], "infantry": 1, "accepted_at": "2026-11-22T12:00:00Z"},
         "terrains[0]"),
        ({"terrains": [], "infantry": 1, "accepted_at": "2026-11-22T12:00:00Z"}, "terrains"),
        ({"terrains": ["field"], "infantry": 0, "accepted_at": "2026-11-22T12:00:00Z"},
         "infantry"),
        ({"terrains": ["field"], "infantry": 1}, "accepted_at"),
        ({"terrains": ["field"], "infantry": 1, "accepted_at": "2026-11-22T12:00:00"},
         "accepted_at"),
        ({"terrains": ["field"], "infantry": 1, "accepted_at": "2026-11-22T12:00:00Z",
          "ready_at": "soon"}, "ready_at"),
        ({"terrains": ["field"], "infantery": 1, "accepted_at": "2026-11-22T12:00:00Z"},
         "infantery"),
    ],
)
def test_movement_bad_input_names_the_field(payload: dict[str, Any], field: str) -> None:
    code, out = run("movement", payload)
    assert code == 2
    assert out["field"] == field
    with pytest.raises(InvalidInput):
        call("movement", payload, no_dice())


@pytest.mark.parametrize(
    ("payload", "expected"),
    [
        ({"force_size": 300, "observer": "holdfast", "dice": [5]},
         {"automatic": False, "detected": True, "target": 10, "roll": 5, "total": 10}),
        ({"force_size": 300, "observer": "holdfast", "dice": [4]},
         {"automatic": False, "detected": False, "target": 10, "roll": 4, "total": 9}),
        ({"force_size": 20, "observer": "none", "dice": [15]},
         {"automatic": False, "detected": True, "target": 15, "roll": 15, "total": 15}),
        ({"force_size": 21, "observer": "resource_tile", "dice": [6]},
         {"automatic": False, "detected": False, "target": 12, "roll": 6, "total": 11}),
        ({"force_size": 501, "observer": "holdfast", "dice": []},
         {"automatic": True, "detected": True, "target": None, "roll": None, "total": None}),
        ({"force_size": 1001, "observer": "none", "dice": []},
         {"automatic": True, "detected": True, "target": None, "roll": None, "total": None}),
    ],
)
def test_detection_engine(payload: dict[str, Any], expected: dict[str, Any]) -> None:
    code, out = run("detection", payload)
    assert code == 0
    assert {k: out[k] for k in expected} == expected


def test_detection_engine_errors() -> None:
    code, out = run("detection", {"force_size": 300, "observer": "castle", "dice": [5]})
    assert (code, out["field"]) == (2, "observer")
    code, out = run("detection", {"force_size": 0, "observer": "none", "dice": [5]})
    assert (code, out["field"]) == (2, "force_size")
    code, out = run("detection", {"force_size": 300, "observer": "none", "dice": []})
    assert (code, out["field"]) == (2, "dice")


def test_detection_engine_seeded_dice_are_repeatable() -> None:
    first = call("detection", {"force_size": 300, "observer": "none"}, SeededDice(7))
    second = call("detection", {"force_size": 300, "observer": "none"}, SeededDice(7))
    assert first == second
    assert 1 <= first["roll"] <= 20


def test_upkeep_engine_exact_money() -> None:
    """7 infantry and 3 cavalry cost exactly 1.9 gold."""
    out = call("upkeep", {"infantry": 7, "cavalry": 3, "winter": False, "gold": "10"}, no_dice())
    assert out == {
        "cost": 1.9, "cost_exact": "1.9", "gold_after": 8.1, "gold_after_exact": "8.1",
        "scatter": False, "survivors": {"infantry": 7, "cavalry": 3},
        "lost": {"infantry": 0, "cavalry": 0},
    }
    assert json.dumps(out["cost"]) == "1.9"


def test_upkeep_engine_winter_scatter() -> None:
    code, out = run("upkeep", {"infantry": 7, "cavalry": 3, "winter": True, "gold": 1})
    assert code == 0
    assert (out["cost_exact"], out["gold_after"], out["scatter"]) == ("3.8", 0, True)
    assert out["survivors"] == {"infantry": 3, "cavalry": 1}
    assert out["lost"] == {"infantry": 4, "cavalry": 2}


def test_upkeep_engine_errors() -> None:
    code, out = run("upkeep", {"infantry": 7, "cavalry": 3, "winter": "yes", "gold": 1})
    assert (code, out["field"]) == (2, "winter")
    code, out = run("upkeep", {"infantry": 7, "cavalry": 3, "gold": -1})
    assert (code, out["field"]) == (2, "gold")
    code, out = run("upkeep", {"infantry": 7, "cavalry": 3})
    assert (code, out["field"]) == (2, "gold")


@pytest.mark.parametrize(("garrison", "months"), [(100, 12), (101, 11), (300, 11), (301, 10),
                                                  (500, 10), (501, 8), (1000, 8), (1001, 6)])
def test_siege_engine(garrison: int, months: int) -> None:
    code, out = run("siege", {"garrison": garrison})
    assert code == 0
    assert out["months"] == months


def test_siege_engine_errors() -> None:
    code, out = run("siege", {"garrison": -5})
    assert (code, out["field"]) == (2, "garrison")
    code, out = run("siege", {})
    assert (code, out["field"]) == (2, "garrison")


@pytest.mark.parametrize(
    ("value", "text", "json_text"),
    [(Decimal("1.9"), "1.9", "1.9"), (Decimal("2.00"), "2", "2"), (Decimal("0.375"), "0.375",
                                                                     "0.375"),
     (Decimal("1E+2"), "100", "100")],
)
def test_money_is_rendered_exactly(value: Decimal, text: str, json_text: str) -> None:
    assert exact_text(value) == text
    assert json.dumps(number(value)) == json_text
