"""The JSON interface: ``maester rules ENGINE`` reads one object on stdin, writes one on stdout.

Each engine is an :class:`Engine`: a function that takes the decoded payload and a
:class:`Dice` (scripted from ``"dice"``, or seeded from ``"seed"``, or random) and returns a
JSON-ready dict, plus the pydantic models of its input and output (the contract, see
:mod:`bot.jsonapi.contract`). The engines are listed in one place,
:data:`bot.jsonapi.engines.ENGINES`. Bad input raises :class:`rules.errors.InvalidInput` naming
the field; the runner turns it into ``{"error": ..., "field": ...}`` and exit code 2.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from bot.jsonapi.contract import Strict
from rules.dice import Dice

Payload = Mapping[str, Any]
EngineFn = Callable[[Payload, Dice], dict[str, Any]]


@dataclass(frozen=True, slots=True)
class Engine:
    """One JSON engine: its name, a one-line summary, the function and its contract."""

    name: str
    summary: str
    fn: EngineFn
    input_model: type[Strict]
    output_model: type[Strict]
