"""The JSON engines, listed in one place, and the runner of ``maester rules ENGINE``."""

from __future__ import annotations

import functools
import importlib
import json
import re
import secrets
import sys
from importlib import resources
from pathlib import Path
from typing import Any

from bot.jsonapi import Engine
from bot.jsonapi.fields import FieldTable, check_fields, closest, field_table
from rules.dice import Dice, RecordingDice, ScriptedDice, SeededDice
from rules.errors import BadDie, DiceExhausted, InvalidInput, RulesError

# Every engine, listed here and nowhere else: name -> (module, summary, function, input model,
# output model). `maester rules NAME` imports only NAME's module (see load_engines); the models
# are in bot.jsonapi.models.MODULE, imported only for the schemas.
_TABLE: dict[str, tuple[str, str, str, str, str]] = {
    "battle": ("campaign_battle", "Resolve a campaign battle: winner, rolls, margin, "
               "casualties, capture.", "battle_engine", "BattleInput", "BattleOutput"),
    "odds": ("campaign_battle", "Exact chances of a campaign battle and the expected losses of "
             "each side.", "odds_engine", "BattleInput", "OddsOutput"),
    "retreat": ("campaign_battle", "Roll a retreat: success, the share that escapes, the battle "
                "penalty.", "retreat_engine", "RetreatInput", "RetreatOutput"),
    "movement": ("campaign_world", "Travel cost, speed, departure and the tick each tile is "
                 "entered.", "movement_engine", "MovementInput", "MovementOutput"),
    "muster": ("campaign_world", "When troops of a muster order accepted at a given time are "
               "ready.", "muster_engine", "MusterInput", "MusterOutput"),
    "detection": ("campaign_world", "Roll one detection of a passing force by a holdfast or "
                  "other observer.", "detection_engine", "DetectionInput", "DetectionOutput"),
    "upkeep": ("campaign_world", "A month's upkeep of raised troops: cost, gold left, scatter, "
               "survivors.", "upkeep_engine", "UpkeepInput", "UpkeepOutput"),
    "siege": ("campaign_world", "How many in-game months a siege takes for a garrison size.",
              "siege_engine", "SiegeInput", "SiegeOutput"),
    "boardgame-combat": ("boardgame", "AGoT board game (2nd ed.): resolve one combat.",
                         "boardgame_combat", "CombatInput", "CombatOutput"),
    "card-challenge": ("cardgame", "AGoT card game (2nd ed.): initiate and resolve one "
                       "challenge.", "card_challenge", "ChallengeInput", "ChallengeOutput"),
    "miniatures-attack": ("miniatures", "ASOIAF Tabletop Miniatures: resolve an attack with "
                          "dice, or its exact wound distribution.", "miniatures_attack",
                          "AttackInput", "AttackOutput"),
    "miniatures-charge": ("miniatures", "ASOIAF Tabletop Miniatures: a charge (reached, "
                          "disorderly, the failed charge's panic test), rolled or as exact "
                          "chances.", "miniatures_charge", "ChargeInput", "ChargeOutput"),
    "miniatures-panic": ("miniatures", "ASOIAF Tabletop Miniatures: a panic test and its "
                         "wounds, rolled or as exact chances.", "miniatures_panic",
                         "PanicInput", "PanicOutput"),
    "miniatures-morale": ("miniatures", "ASOIAF Tabletop Miniatures: a morale test, rolled or "
                          "as its exact chance.", "miniatures_morale", "MoraleInput",
                          "MoraleOutput"),
    "miniatures-victory": ("miniatures", "ASOIAF Tabletop Miniatures: victory points to win "
                           "by game size, and the end-of-round victory check.",
                           "miniatures_victory", "VictoryInput", "VictoryOutput"),
}
ENGINE_NAMES: tuple[str, ...] = tuple(sorted(_TABLE))
# Which module defines which engines (from the table above).
ENGINE_MODULES: dict[str, tuple[str, ...]] = {
    f"bot.jsonapi.{module}": tuple(n for n, row in _TABLE.items() if row[0] == module)
    for module in dict.fromkeys(row[0] for row in _TABLE.values())
}


def load_engines(*names: str) -> dict[str, Engine]:
    """The engines ``names`` (all of them when none is given), importing only their modules.

    Unknown names are left out."""
    wanted = [n for n in (names or ENGINE_NAMES) if n in _TABLE]
    out = {}
    for name in wanted:
        module, summary, fn, input_model, output_model = _TABLE[name]
        mod = importlib.import_module(f"bot.jsonapi.{module}")
        out[name] = Engine(name, summary, getattr(mod, fn), f"bot.jsonapi.models.{module}",
                           input_model, output_model)
    return out


def __getattr__(name: str) -> dict[str, Engine]:
    # ``ENGINES``: every engine, loaded on first use (imports all the engine modules).
    if name == "ENGINES":
        return load_engines()
    raise AttributeError(name)


def error(message: str, field: str | None) -> dict[str, Any]:
    """The answer to bad input: ``{"error", "field"}`` (field null when none applies)."""
    return {"error": message, "field": field}  # as bot.jsonapi.contract.ErrorOutput


def dice_for(payload: dict[str, Any]) -> Dice:
    """Scripted dice from ``"dice"``, else seeded from ``"seed"``, else fresh randomness."""
    if "dice" in payload and payload["dice"] is not None:
        values = payload["dice"]
        if not isinstance(values, list) or not all(
            isinstance(v, int) and not isinstance(v, bool) for v in values
        ):
            raise InvalidInput("dice", "must be a list of whole numbers", "[7, 3]")
        return ScriptedDice(values)
    seed = payload.get("seed")
    if seed is None:
        return SeededDice(secrets.token_hex(16))
    if isinstance(seed, bool) or not isinstance(seed, int | str):
        raise InvalidInput("seed", "must be a whole number or a string", "42")
    return SeededDice(seed)


def unknown_engine(name: str) -> dict[str, Any]:
    known = list(ENGINE_NAMES)
    guess = closest(name, known)
    hint = f"; did you mean {guess}?" if guess else ""
    return error(f"engine: unknown engine {name!r}{hint} (known engines: {', '.join(known)})",
                 None)


@functools.cache
def input_fields(name: str) -> FieldTable:
    """The fields engine ``name`` accepts, read from its shipped input schema."""
    return field_table(shipped_schema(name)["input"])


MAX_JSON_DEPTH = 32
"""The deepest nesting of arrays and objects an engine input may have (the engines' own
schemas need fewer than 6 levels); deeper input is refused before it is parsed, so no depth
can exhaust the parser's recursion."""

_JSON_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{},:]')


def too_deep(raw: str, limit: int = MAX_JSON_DEPTH) -> str | None:
    """The dotted path (``attacker.infantry[0]``) of the first value of the JSON text ``raw``
    nested deeper than ``limit`` arrays and objects, or None when none is. Reads only the
    brackets, strings, colons and commas, without recursion, so any depth is safe; it does not
    check that the text is valid JSON (the parser does, afterwards)."""
    path: list[str | int | None] = []  # per open container: its current key or index
    for token in _JSON_TOKEN.finditer(raw):
        text = token.group()
        if text in "[{":
            if len(path) >= limit:
                return _json_path(path) or "input"
            path.append(0 if text == "[" else None)
        elif text in "]}":
            if path:
                path.pop()
        elif text == "," and path and isinstance(path[-1], int):
            path[-1] += 1
        elif text.startswith('"') and path and not isinstance(path[-1], int):
            tail = raw[token.end():token.end() + 64].lstrip()
            if tail.startswith(":"):
                try:
                    path[-1] = str(json.loads(text))
                except ValueError:
                    path[-1] = text[1:-1]
    return None


def _json_path(path: list[str | int | None]) -> str:
    out = ""
    for step in path:
        if isinstance(step, int):
            out += f"[{step}]"
        elif step is not None:
            out += f".{step}" if out else step
    return out


def run_engine(name: str, raw: str) -> tuple[int, dict[str, Any]]:
    """Run engine ``name`` on the JSON text ``raw``: (exit code, answer object)."""
    engine = load_engines(name).get(name)
    if engine is None:
        return 2, unknown_engine(name)
    deep = too_deep(raw)
    if deep is not None:
        return 2, error(f"{deep}: nested more than {MAX_JSON_DEPTH} arrays or objects deep "
                        "(no engine input needs more than a few levels)", deep)
    try:
        payload = json.loads(raw)
    except json.JSONDecodeError as exc:
        return 2, error(f"input: not valid JSON ({exc.msg} at line {exc.lineno})", None)
    except RecursionError:  # unreachable after too_deep; kept so no input can crash the CLI
        return 2, error("input: nested too deep to read", None)
    if not isinstance(payload, dict):
        return 2, error("input: must be one JSON object", None)
    try:
        check_fields(input_fields(name), payload)
        dice = dice_for(payload)
        result = engine.fn(payload, dice)
    except InvalidInput as exc:
        return 2, error(str(exc), exc.field)
    except DiceExhausted as exc:
        return 2, error(str(exc), "dice")
    except BadDie as exc:
        return 2, error(str(exc), f"dice[{exc.index}]")
    except RulesError as exc:
        return 2, error(str(exc), getattr(exc, "field", None))
    if isinstance(dice, ScriptedDice) and dice.remaining:
        used = len(dice.values)
        return 2, error(f"dice: {dice.remaining} scripted dice were not used (this input needs "
                        f"{used}); remove them or check the order of the dice", "dice")
    rolled = dice.rolls if isinstance(dice, RecordingDice) else []
    result["rolls"] = [r.value for r in rolled]
    result["roll_log"] = [{"sides": r.sides, "value": r.value, "purpose": r.purpose}
                          for r in rolled]
    return 0, result


def engine_schemas(name: str) -> dict[str, dict[str, Any]]:
    """The input and output JSON Schemas of engine ``name``, generated from its models.

    Raises KeyError for an unknown engine.
    """
    from bot.jsonapi.contract import schemas

    engine = load_engines(name)[name]
    return schemas(name, engine.input_model, engine.output_model)


def shipped_schema(name: str) -> dict[str, Any]:
    """``{"input": ..., "output": ..., "error": ...}`` as shipped in the package's schemas.

    Raises KeyError for an unknown engine.
    """
    if name not in _TABLE:
        raise KeyError(name)
    folder = resources.files("bot.jsonapi") / "schemas"
    return {kind: json.loads((folder / f"{stem}.json").read_text(encoding="utf-8"))
            for kind, stem in (("input", f"{name}.input"), ("output", f"{name}.output"),
                               ("error", "error"))}


def all_schemas() -> dict[str, dict[str, Any]]:
    """Every shipped schema document by file stem (``battle.input``, ``error`` ...)."""
    from bot.jsonapi.contract import SCHEMA_DIALECT, ErrorOutput

    out: dict[str, dict[str, Any]] = {}
    for name in ENGINE_NAMES:
        for kind, document in engine_schemas(name).items():
            out[f"{name}.{kind}"] = document
    error_doc = ErrorOutput.model_json_schema()
    out["error"] = {"$schema": SCHEMA_DIALECT,
                    "$id": "https://maester.invalid/schemas/error.json", **error_doc}
    return out


def schema_text(document: dict[str, Any]) -> str:
    """A schema document as written in the package: sorted keys, two-space indent."""
    return json.dumps(document, indent=2, sort_keys=True) + "\n"


def write_schemas() -> list[str]:
    """Write every schema file into the package's ``schemas`` folder; return the file names."""
    folder = Path(__file__).resolve().parent / "schemas"
    names = []
    for stem, document in all_schemas().items():
        (folder / f"{stem}.json").write_text(schema_text(document), encoding="utf-8")
        names.append(f"{stem}.json")
    return names


if __name__ == "__main__":
    if sys.argv[1:] != ["--write-schemas"]:
        sys.exit("usage: python -m bot.jsonapi.engines --write-schemas")
    for written in write_schemas():
        print(written)
