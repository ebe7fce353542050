"""The JSON engines, listed in one place, and the runner of ``maester rules ENGINE``."""

from __future__ import annotations

import json
import secrets
import sys
from importlib import resources
from pathlib import Path
from typing import Any

from bot.jsonapi import Engine, boardgame, campaign_battle, campaign_world, cardgame, miniatures
from bot.jsonapi.contract import SCHEMA_DIALECT, ErrorOutput, check_fields, closest, schemas
from rules.dice import Dice, RecordingDice, ScriptedDice, SeededDice
from rules.errors import BadDie, DiceExhausted, InvalidInput, RulesError

ENGINES: dict[str, Engine] = {e.name: e for e in (
    Engine("battle", "Resolve a campaign battle: winner, rolls, margin, casualties, capture.",
           campaign_battle.battle_engine, campaign_battle.BattleInput,
           campaign_battle.BattleOutput),
    Engine("odds", "Exact chances of a campaign battle and the expected losses of each side.",
           campaign_battle.odds_engine, campaign_battle.BattleInput, campaign_battle.OddsOutput),
    Engine("retreat", "Roll a retreat: success, the share that escapes, the battle penalty.",
           campaign_battle.retreat_engine, campaign_battle.RetreatInput,
           campaign_battle.RetreatOutput),
    Engine("movement", "Travel cost, speed, departure and the tick each tile is entered.",
           campaign_world.movement_engine, campaign_world.MovementInput,
           campaign_world.MovementOutput),
    Engine("muster", "When troops of a muster order accepted at a given time are ready.",
           campaign_world.muster_engine, campaign_world.MusterInput,
           campaign_world.MusterOutput),
    Engine("detection", "Roll one detection of a passing force by a holdfast or other observer.",
           campaign_world.detection_engine, campaign_world.DetectionInput,
           campaign_world.DetectionOutput),
    Engine("upkeep", "A month's upkeep of raised troops: cost, gold left, scatter, survivors.",
           campaign_world.upkeep_engine, campaign_world.UpkeepInput,
           campaign_world.UpkeepOutput),
    Engine("siege", "How many in-game months a siege takes for a garrison size.",
           campaign_world.siege_engine, campaign_world.SiegeInput, campaign_world.SiegeOutput),
    Engine("boardgame-combat", "AGoT board game (2nd ed.): resolve one combat.",
           boardgame.boardgame_combat, boardgame.CombatInput, boardgame.CombatOutput),
    Engine("card-challenge", "AGoT card game (2nd ed.): initiate and resolve one challenge.",
           cardgame.card_challenge, cardgame.ChallengeInput, cardgame.ChallengeOutput),
    Engine("miniatures-attack", "ASOIAF Tabletop Miniatures: resolve an attack with dice, or "
           "its exact wound distribution.",
           miniatures.miniatures_attack, miniatures.AttackInput, miniatures.AttackOutput),
    Engine("miniatures-charge", "ASOIAF Tabletop Miniatures: a charge (reached, disorderly, "
           "the failed charge's panic test), rolled or as exact chances.",
           miniatures.miniatures_charge, miniatures.ChargeInput, miniatures.ChargeOutput),
    Engine("miniatures-panic", "ASOIAF Tabletop Miniatures: a panic test and its wounds, "
           "rolled or as exact chances.",
           miniatures.miniatures_panic, miniatures.PanicInput, miniatures.PanicOutput),
    Engine("miniatures-morale", "ASOIAF Tabletop Miniatures: a morale test, rolled or as its "
           "exact chance.",
           miniatures.miniatures_morale, miniatures.MoraleInput, miniatures.MoraleOutput),
    Engine("miniatures-victory", "ASOIAF Tabletop Miniatures: victory points to win by game "
           "size, and the end-of-round victory check.",
           miniatures.miniatures_victory, miniatures.VictoryInput, miniatures.VictoryOutput),
)}


def error(message: str, field: str | None) -> dict[str, Any]:
    """The answer to bad input: ``{"error", "field"}`` (field null when none applies)."""
    return ErrorOutput(error=message, field=field).model_dump()


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
    known = sorted(ENGINES)
    guess = closest(name, known)
    hint = f"; did you mean {guess}?" if guess else ""
    return error(f"engine: unknown engine {name!r}{hint} (known engines: {', '.join(known)})",
                 None)


def run_engine(name: str, raw: str) -> tuple[int, dict[str, Any]]:
    """Run engine ``name`` on the JSON text ``raw``: (exit code, answer object)."""
    engine = ENGINES.get(name)
    if engine is None:
        return 2, unknown_engine(name)
    try:
        payload = json.loads(raw)
    except json.JSONDecodeError as exc:
        return 2, error(f"input: not valid JSON ({exc.msg} at line {exc.lineno})", None)
    if not isinstance(payload, dict):
        return 2, error("input: must be one JSON object", None)
    try:
        check_fields(engine.input_model, payload)
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
    engine = ENGINES[name]
    return schemas(name, engine.input_model, engine.output_model)


def shipped_schema(name: str) -> dict[str, Any]:
    """``{"input": ..., "output": ..., "error": ...}`` as shipped in the package's schemas.

    Raises KeyError for an unknown engine.
    """
    if name not in ENGINES:
        raise KeyError(name)
    folder = resources.files("bot.jsonapi") / "schemas"
    return {kind: json.loads((folder / f"{stem}.json").read_text(encoding="utf-8"))
            for kind, stem in (("input", f"{name}.input"), ("output", f"{name}.output"),
                               ("error", "error"))}


def all_schemas() -> dict[str, dict[str, Any]]:
    """Every shipped schema document by file stem (``battle.input``, ``error`` ...)."""
    out: dict[str, dict[str, Any]] = {}
    for name in sorted(ENGINES):
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
