"""The JSON interface: ``maester rules ENGINE`` reads one object on stdin, writes one on stdout.

Engines register with :func:`json_engine`. Each takes the decoded payload and a :class:`Dice`
(scripted from ``"dice"``, or seeded from ``"seed"``, or random) and returns a JSON-ready dict.
Bad input raises :class:`rules.errors.InvalidInput` naming the field; the runner turns it into
``{"error": ...}`` and exit code 2.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from rules.dice import Dice

Payload = Mapping[str, Any]
EngineFn = Callable[[Payload, Dice], dict[str, Any]]


@dataclass(frozen=True, slots=True)
class Engine:
    name: str
    summary: str
    fn: EngineFn


ENGINES: dict[str, Engine] = {}


def json_engine(name: str, summary: str) -> Callable[[EngineFn], EngineFn]:
    """Register ``fn`` as the JSON engine ``name``."""

    def register(fn: EngineFn) -> EngineFn:
        if name in ENGINES:
            raise RuntimeError(f"JSON engine {name!r} is registered twice")
        ENGINES[name] = Engine(name, summary, fn)
        return fn

    return register
