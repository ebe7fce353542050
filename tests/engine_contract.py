"""Every JSON engine input and answer the tests use is checked against the shipped schemas.

Tests run engines through :func:`run` (the whole runner, as ``maester rules`` does) or
:func:`call` (the engine function with given dice). Both validate: an accepted input against
the engine's input schema, the answer against its output schema, an error against the error
schema. So the schemas (generated from the models) cannot drift from what the engines accept
and answer.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import jsonschema

from bot.jsonapi.engines import ENGINES, input_fields, run_engine, shipped_schema
from bot.jsonapi.fields import check_fields
from rules.dice import Dice, RecordingDice

Answer = dict[str, Any]


@cache
def validators(engine: str) -> dict[str, jsonschema.protocols.Validator]:
    """The input, output and error validators of ``engine`` (from the shipped files)."""
    out = {}
    for kind, document in shipped_schema(engine).items():
        cls = jsonschema.validators.validator_for(document)
        cls.check_schema(document)
        out[kind] = cls(document, format_checker=cls.FORMAT_CHECKER)
    return out


def check_input(engine: str, payload: Any) -> None:
    """Raise jsonschema.ValidationError unless ``payload`` fits the input schema."""
    validators(engine)["input"].validate(payload)


def check_answer(engine: str, code: int, answer: Answer) -> None:
    """Raise unless ``answer`` fits the output schema (code 0) or the error schema."""
    validators(engine)["output" if code == 0 else "error"].validate(answer)


def run(engine: str, payload: Any) -> tuple[int, Answer]:
    """Run ``engine`` on ``payload`` (an object, or raw JSON text) through the runner."""
    raw = payload if isinstance(payload, str) else json.dumps(payload)
    code, answer = run_engine(engine, raw)
    json.dumps(answer)  # everything must be plain JSON
    if engine in ENGINES:
        check_answer(engine, code, answer)
        if code == 0:
            check_input(engine, json.loads(raw))
    return code, answer


def call(engine: str, payload: dict[str, Any], dice: Dice) -> Answer:
    """The engine function itself on ``payload`` with ``dice``, checked like :func:`run`.

    Raises what the engine raises (an unknown field as the runner would).
    """
    check_fields(input_fields(engine), payload)
    answer = ENGINES[engine].fn(payload, dice)
    check_input(engine, payload)
    rolled = dice.rolls if isinstance(dice, RecordingDice) else []
    full = {**answer, "rolls": [r.value for r in rolled],
            "roll_log": [{"sides": r.sides, "value": r.value, "purpose": r.purpose}
                         for r in rolled]}
    check_answer(engine, 0, json.loads(json.dumps(full)))
    return answer
