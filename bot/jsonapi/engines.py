"""Loads every JSON engine and runs one on a payload (the core of ``maester rules ENGINE``)."""

from __future__ import annotations

import importlib
import json
import secrets
from typing import Any

from bot.jsonapi import ENGINES, Engine
from rules.dice import Dice, ScriptedDice, SeededDice
from rules.errors import BadDie, DiceExhausted, InvalidInput, RulesError

# Which module defines which engines: `maester rules NAME` imports only NAME's module.
ENGINE_MODULES: dict[str, tuple[str, ...]] = {
    "bot.jsonapi.campaign_battle": ("battle", "odds", "retreat"),
    "bot.jsonapi.campaign_world": ("movement", "muster", "detection", "upkeep", "siege"),
    "bot.jsonapi.boardgame": ("boardgame-combat",),
    "bot.jsonapi.miniatures": ("miniatures-attack",),
    "bot.jsonapi.cardgame": ("card-challenge",),
}


def load_engines(*names: str) -> dict[str, Engine]:
    """Import the modules of the engines ``names`` (all of them when none is given) and
    return the registry."""
    for module, engines in ENGINE_MODULES.items():
        if not names or any(name in engines for name in names):
            importlib.import_module(module)
    return ENGINES


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


def run_engine(name: str, raw: str) -> tuple[int, dict[str, Any]]:
    """Run engine ``name`` on the JSON text ``raw``: (exit code, answer object)."""
    engine = load_engines(name).get(name)
    if engine is None:
        known = ", ".join(sorted(load_engines()))
        return 2, {"error": f"engine: unknown engine {name!r}; known engines: {known}"}
    try:
        payload = json.loads(raw)
    except json.JSONDecodeError as exc:
        return 2, {"error": f"input: not valid JSON ({exc.msg} at line {exc.lineno})"}
    if not isinstance(payload, dict):
        return 2, {"error": "input: must be one JSON object"}
    try:
        dice = dice_for(payload)
        result = engine.fn(payload, dice)
    except InvalidInput as exc:
        return 2, {"error": str(exc), "field": exc.field}
    except DiceExhausted as exc:
        return 2, {"error": str(exc), "field": "dice"}
    except BadDie as exc:
        return 2, {"error": str(exc), "field": f"dice[{exc.index}]"}
    except RulesError as exc:
        return 2, {"error": str(exc)}
    if isinstance(dice, ScriptedDice) and dice.remaining:
        used = len(dice.values)
        return 2, {"error": f"dice: {dice.remaining} scripted dice were not used (this input "
                            f"needs {used}); remove them or check the order of the dice",
                   "field": "dice"}
    rolled = list(getattr(dice, "values", []))
    if rolled and "rolls" not in result:
        result["rolls"] = rolled
    return 0, result
