"""The contract of the JSON engines: their input and output models, and the strict field check.

Every engine declares a pydantic model of its input and one of its output (see
:class:`bot.jsonapi.Engine`). The models are the one description of the contract:

* :func:`schemas` turns both models into JSON Schema documents, shipped with the package as
  ``bot/jsonapi/schemas/ENGINE.input.json`` and ``ENGINE.output.json`` and printed by
  ``maester rules schema ENGINE``;
* :func:`bot.jsonapi.fields.check_fields` walks a payload against the shipped input schema and
  refuses the first unknown (misspelt) field, naming it and the closest valid name (``did you
  mean panic_wounds?``).

The engines' models live in :mod:`bot.jsonapi.models` and this module is imported only with
them (to write, print or test the schemas): running an engine never loads pydantic.

The engines read the values themselves (with the typed readers of :mod:`bot.jsonapi.fields`,
which give the detailed messages); the tests validate every input and every answer against the
schemas, so the models and the readers cannot drift apart.
"""

from __future__ import annotations

import typing
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"


class Strict(BaseModel):
    """Base of every contract model: unknown fields are refused."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class DiceInput(Strict):
    """The fields every engine accepts: scripted dice or a seed."""

    dice: list[int] | None = Field(
        default=None,
        description="Scripted die results, used in the order the engine rolls them. Too few, "
                    "a value that does not fit its die, or any left over is an error.")
    seed: int | str | None = Field(
        default=None, description="Seed for repeatable random dice when `dice` is absent.")


class RollEntry(Strict):
    """One die rolled: its size, its result and what it was for."""

    sides: int
    value: int
    purpose: str


class DiceOutput(Strict):
    """The fields every answer carries: the dice rolled, in the order they were used."""

    rolls: list[int] = Field(description="Every die rolled, in the order used (scripted dice "
                                         "replayed as given).")
    roll_log: list[RollEntry] = Field(description="The same dice with their size and purpose.")


class ErrorOutput(Strict):
    """The answer to bad input (exit code 2)."""

    error: str = Field(description="What was wrong and what was expected.")
    field: str | None = Field(description="The dotted path of the offending field "
                                          "(attacker.infantry, dice[3]); null when no field "
                                          "applies (invalid JSON, unknown engine).")


def schemas(name: str, input_model: type[BaseModel], output_model: type[BaseModel]
            ) -> dict[str, dict[str, Any]]:
    """The input and output JSON Schema documents of engine ``name``."""
    out = {}
    for kind, model in (("input", input_model), ("output", output_model)):
        mode: typing.Literal["validation", "serialization"] = (
            "validation" if kind == "input" else "serialization")
        body = model.model_json_schema(mode=mode)
        out[kind] = {"$schema": SCHEMA_DIALECT,
                     "$id": f"https://maester.invalid/schemas/{name}.{kind}.json", **body}
    return out
