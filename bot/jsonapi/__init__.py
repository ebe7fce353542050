"""The JSON interface: ``maester rules ENGINE`` reads one object on stdin, writes one on stdout.

Each engine is an :class:`Engine`: a function that takes the decoded payload and a
:class:`Dice` (scripted from ``"dice"``, or seeded from ``"seed"``, or random) and returns a
JSON-ready dict, plus the pydantic models of its input and output (the contract, see
:mod:`bot.jsonapi.contract`; loaded only when asked for, by the schemas and the tests). The
engines are listed in one place, :data:`bot.jsonapi.engines.ENGINES`. Bad input raises
:class:`rules.errors.InvalidInput` naming the field; the runner turns it into
``{"error": ..., "field": ...}`` and exit code 2.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rules.dice import Dice

if TYPE_CHECKING:
    from bot.jsonapi.contract import Strict

Payload = Mapping[str, Any]
EngineFn = Callable[[Payload, Dice], dict[str, Any]]


@dataclass(frozen=True, slots=True)
class Engine:
    """One JSON engine: its name, a one-line summary, the function and its contract (the
    module of its models and their names there)."""

    name: str
    summary: str
    fn: EngineFn
    models: str
    input_name: str
    output_name: str

    @property
    def input_model(self) -> type[Strict]:
        """The pydantic model of the input (imports pydantic and the engine's models)."""
        model: type[Strict] = getattr(importlib.import_module(self.models), self.input_name)
        return model

    @property
    def output_model(self) -> type[Strict]:
        """The pydantic model of the answer (imports pydantic and the engine's models)."""
        model: type[Strict] = getattr(importlib.import_module(self.models), self.output_name)
        return model
