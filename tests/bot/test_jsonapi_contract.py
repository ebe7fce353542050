"""The contract every JSON engine keeps: strict fields, errors, dice, schemas."""

from __future__ import annotations

import json
from typing import Any

import pytest
from typer.testing import CliRunner

from bot.cli import app
from bot.jsonapi.engines import ENGINES, all_schemas, schema_text, shipped_schema
from tests.engine_contract import run, validators

# One small valid input per engine; the tests below vary it.
VALID: dict[str, dict[str, Any]] = {
    "battle": {"attacker": {"infantry": 300}, "defender": {"infantry": 100}, "seed": 1},
    "odds": {"attacker": {"infantry": 300}, "defender": {"infantry": 100}},
    "retreat": {"infantry": 10, "seed": 1},
    "movement": {"terrains": ["field"], "infantry": 10, "accepted_at": "2026-11-22T07:30:00Z"},
    "muster": {"accepted_at": "2026-11-22T07:30:00Z"},
    "detection": {"force_size": 100, "seed": 1},
    "upkeep": {"infantry": 7, "gold": 10},
    "siege": {"garrison": 100},
    "boardgame-combat": {"text": "Lannister 2 knights Tywin vs Stark 1 footman card 1/0/0"},
    "card-challenge": {
        "players": [{"name": "A", "characters": [{"name": "X", "str": 2,
                                                  "icons": ["power"]}]},
                    {"name": "B", "power": 3}],
        "challenge": "power", "attackers": ["X"]},
    "miniatures-attack": {"attack_dice": 4, "to_hit": 4, "defense": 5, "seed": 1},
    "miniatures-charge": {"distance": 7, "speed": 5, "morale": 6, "seed": 1},
    "miniatures-panic": {"morale": 6, "seed": 1},
    "miniatures-morale": {"morale": 6, "seed": 1},
    "miniatures-victory": {"game_size": 40},
}


def test_every_engine_has_a_valid_input() -> None:
    assert set(VALID) == set(ENGINES)


@pytest.mark.parametrize("engine", sorted(VALID))
def test_every_answer_has_the_one_shape_of_dice(engine: str) -> None:
    """`rolls` is the plain list of die values in the order used, `roll_log` the same dice
    with size and purpose, in every answer (empty when nothing was rolled)."""
    code, out = run(engine, VALID[engine])
    assert code == 0, out
    assert [r["value"] for r in out["roll_log"]] == out["rolls"]
    assert all(isinstance(v, int) for v in out["rolls"])
    if out["rolls"]:  # replaying the rolls as a script gives the same answer
        code, again = run(engine, {**{k: v for k, v in VALID[engine].items() if k != "seed"},
                                   "dice": out["rolls"]})
        assert code == 0 and again == out


@pytest.mark.parametrize(("engine", "payload", "field", "guess"), [
    ("miniatures-attack", {"attack_dice": 4, "to_hit": 4, "defense": 5, "morale": 6,
                           "panic_wound": "1+d3"}, "panic_wound", "panic_wounds"),
    ("boardgame-combat", {**VALID["boardgame-combat"], "blade_holdr": "Stark"}, "blade_holdr",
     "blade_holder"),
    ("battle", {"attacker": {"infantery": 300}, "defender": {"infantry": 1}},
     "attacker.infantery", "infantry"),
    ("battle", {"attacker": {"infantry": 3, "modifiers": [{"name": "x", "amont": 2}]},
                "defender": {"infantry": 1}}, "attacker.modifiers[0].amont", "amount"),
    ("card-challenge", {**VALID["card-challenge"], "claims": 2}, "claims", "claim"),
    ("card-challenge", {**VALID["card-challenge"],
                        "players": [{"name": "A", "characters": [{"name": "X", "strength": 2}]},
                                    {"name": "B"}]},
     "players[0].characters[0].strength", "str"),
    ("miniatures-attack", {"attack_dice": 4, "to_hit": 4, "defense": 5,
                           "target": {"kind": "infantry", "model": 3}}, "target.model", "models"),
    ("miniatures-charge", {"distance": 7, "sped": 5}, "sped", "speed"),
    ("siege", {"garison": 3}, "garison", "garrison"),
    ("boardgame-combat", {"attacker": {"house": "Stark", "card": "Eddard", "units": {
        "footman": 1}}, "defender": {"house": "Lannister", "card": "Tywin"}},
     "attacker.units.footman", "footmen"),
])
def test_an_unknown_field_is_refused_naming_the_closest(
        engine: str, payload: dict[str, Any], field: str, guess: str) -> None:
    """A misspelt field is bad input (exit 2), never silently ignored."""
    code, out = run(engine, payload)
    assert code == 2
    assert out["field"] == field
    assert f"did you mean {guess}?" in out["error"]


def test_a_field_with_nothing_close_lists_the_valid_names() -> None:
    code, out = run("siege", {"zzzz": 1})
    assert code == 2 and out["field"] == "zzzz"
    assert "did you mean" not in out["error"] and "garrison" in out["error"]


@pytest.mark.parametrize(("engine", "raw", "text"), [
    ("siege", "{not json", "not valid JSON"),
    ("siege", "[1, 2]", "must be one JSON object"),
    ("seige", "{}", "did you mean siege?"),
])
def test_errors_without_a_field_carry_field_null(engine: str, raw: str, text: str) -> None:
    code, out = run(engine, raw)
    assert code == 2
    assert set(out) == {"error", "field"} and out["field"] is None
    assert text in out["error"]


def test_a_rules_error_without_a_field_still_carries_field() -> None:
    """A charge out of reach is refused by the rules (not a field's value): field is null."""
    code, out = run("miniatures-charge", {"distance": 20, "speed": 5})
    assert code == 2 and set(out) == {"error", "field"} and out["field"] is None
    assert "cannot be declared" in out["error"]


def test_left_over_dice_are_an_error_and_there_is_no_unused_count() -> None:
    code, out = run("miniatures-morale", {"morale": 6, "dice": [3, 3, 1]})
    assert code == 2 and out["field"] == "dice"
    assert "1 scripted dice were not used" in out["error"]
    code, out = run("miniatures-attack", {"attack_dice": 1, "to_hit": 4, "defense": 5,
                                          "dice": [2]})
    assert code == 0 and "dice_unused" not in out


def test_a_passed_panic_test_takes_the_rulebook_dice_2d6_and_d3() -> None:
    """The rulebook rolls the panic test's 2d6 and d3 together: a script of those three dice
    is complete whether the test passes (3 + 5 against 6+) or fails (2 + 2)."""
    code, out = run("miniatures-panic", {"morale": 6, "dice": [3, 5, 1]})
    assert code == 0, out
    assert out["result"]["outcome"] == "passed" and out["result"]["wounds"] == 0
    code, out = run("miniatures-panic", {"morale": 6, "dice": [2, 2, 1]})
    assert out["result"]["outcome"] == "failed" and out["result"]["wounds"] == 1
    code, out = run("miniatures-attack", {"attack_dice": 1, "to_hit": 4, "defense": 5,
                                          "morale": 6, "dice": [4, 2, 3, 5, 1]})
    assert code == 0, out
    assert out["result"]["panic"]["outcome"] == "passed"


# --------------------------------------------------------------------------- schemas


def test_shipped_schemas_are_generated_from_the_models() -> None:
    """bot/jsonapi/schemas/ holds exactly what the models generate (regenerate with
    `python -m bot.jsonapi.engines --write-schemas`)."""
    for stem, document in all_schemas().items():
        name = stem.rsplit(".", 1)[0] if stem != "error" else "siege"
        kind = stem.rsplit(".", 1)[1] if stem != "error" else "error"
        shipped = shipped_schema(name)[kind]
        assert schema_text(shipped) == schema_text(document), f"{stem} is stale"


@pytest.mark.parametrize("engine", sorted(ENGINES))
def test_every_engine_has_strict_valid_schemas(engine: str) -> None:
    docs = shipped_schema(engine)
    assert docs["input"]["additionalProperties"] is False
    assert docs["output"]["additionalProperties"] is False
    assert {"rolls", "roll_log"} <= set(docs["output"]["required"])
    assert set(docs["error"]["required"]) == {"error", "field"}
    validators(engine)  # each is a valid 2020-12 schema


def test_the_schema_refuses_what_the_engine_refuses() -> None:
    check = validators("miniatures-attack")["input"]
    assert not check.is_valid({"attack_dice": 4, "to_hit": 4, "defense": 5, "panic_wound": 1})
    assert not check.is_valid({"attack_dice": 4, "to_hit": 7, "defense": 5})
    assert check.is_valid({"attack_dice": 4, "to_hit": 4, "defense": 5})


def test_maester_rules_schema_prints_the_shipped_schemas() -> None:
    result = CliRunner().invoke(app, ["rules", "schema", "miniatures-panic"])
    assert result.exit_code == 0, result.output
    printed = json.loads(result.output)
    assert printed == shipped_schema("miniatures-panic")
    assert "wounds_suffered" in printed["input"]["properties"]


def test_maester_rules_schema_of_an_unknown_engine_is_an_error() -> None:
    result = CliRunner().invoke(app, ["rules", "schema", "miniatures-panik"])
    assert result.exit_code == 2
    out = json.loads(result.output)
    assert out["field"] is None and "did you mean miniatures-panic?" in out["error"]


def test_maester_engines_lists_every_engine() -> None:
    result = CliRunner().invoke(app, ["engines"])
    assert result.exit_code == 0
    assert [line.split()[0] for line in result.output.splitlines()] == sorted(ENGINES)
