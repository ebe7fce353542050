"""The contract of the JSON engines: their input and output models, and the strict field check.

Every engine declares a pydantic model of its input and one of its output (see
:class:`bot.jsonapi.Engine`). The models are the one description of the contract:

* :func:`check_fields` walks a payload against the input model and refuses the first unknown
  (misspelt) field, naming it and the closest valid name (``did you mean panic_wounds?``);
* :func:`schemas` turns both models into JSON Schema documents, shipped with the package as
  ``bot/jsonapi/schemas/ENGINE.input.json`` and ``ENGINE.output.json`` and printed by
  ``maester rules schema ENGINE``.

The engines read the values themselves (with the typed readers of :mod:`bot.jsonapi.fields`,
which give the detailed messages); the tests validate every input and every answer against the
schemas, so the models and the readers cannot drift apart.
"""

from __future__ import annotations

import difflib
import functools
import types
import typing
from collections.abc import Mapping
from typing import Any, Union, get_args, get_origin

from pydantic import BaseModel, ConfigDict, Field

from rules.errors import InvalidInput

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


def _models_in(annotation: Any) -> tuple[type[Strict] | None, type[Strict] | None]:
    """The model an object value and the model a list item must follow, if any."""
    obj: type[Strict] | None = None
    item: type[Strict] | None = None
    args = get_args(annotation)
    origin = get_origin(annotation)
    if isinstance(annotation, type) and issubclass(annotation, Strict):
        return annotation, None
    if origin in (list, tuple) and args and isinstance(args[0], type) and issubclass(
            args[0], Strict):
        return None, args[0]
    if origin in (Union, types.UnionType) or origin is typing.Annotated:
        for arg in args:
            sub_obj, sub_item = _models_in(arg)
            obj = obj or sub_obj
            item = item or sub_item
    return obj, item


def closest(name: str, known: list[str]) -> str | None:
    """The valid name closest to a misspelt one, if any is close enough."""
    folded = {k.lower(): k for k in known}
    lower = name.lower()
    # An abbreviation or a longer spelling of a valid name ("str" for "strength") first.
    stems = [k for k in folded if len(k) >= 3 and (lower.startswith(k) or k.startswith(lower))]
    if stems:
        return folded[max(stems, key=len)]
    match = difflib.get_close_matches(lower, list(folded), n=1, cutoff=0.6)
    return folded[match[0]] if match else None


def unknown_field(path: str, name: str, known: list[str]) -> InvalidInput:
    """The error for an unknown field ``name`` at ``path``, suggesting the closest name."""
    guess = closest(name, known)
    message = "is not a known field"
    if guess is not None:
        message += f"; did you mean {guess}?"
    return InvalidInput(path, message, "one of " + ", ".join(sorted(known)))


@functools.cache
def _field_table(model: type[Strict]
                 ) -> tuple[list[str], dict[str, tuple[type[Strict] | None, type[Strict] | None]]]:
    """A model's JSON field names, and for each the models its object value or list items
    follow (read once per model)."""
    table = {info.alias or name: _models_in(info.annotation)
             for name, info in model.model_fields.items()}
    return list(table), table


def check_fields(model: type[Strict], data: Mapping[str, Any], prefix: str = "") -> None:
    """Refuse the first field of ``data`` (recursively) that ``model`` does not declare.

    Only names are checked here; the engine's readers check the values.
    """
    known, table = _field_table(model)
    for key, value in data.items():
        path = f"{prefix}.{key}" if prefix else str(key)
        if key not in table:
            raise unknown_field(path, str(key), known)
        obj, item = table[key]
        if obj is not None and isinstance(value, Mapping):
            check_fields(obj, value, path)
        elif item is not None and isinstance(value, list):
            for index, element in enumerate(value):
                if isinstance(element, Mapping):
                    check_fields(item, element, f"{path}[{index}]")


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
