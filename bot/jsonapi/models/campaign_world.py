"""The contract of the engines of :mod:`bot.jsonapi.campaign_world`: their input and output models.

Imported only to build or print the JSON Schemas (``maester rules schema``, the tests); the
engines run without them (see :mod:`bot.jsonapi.contract`).
"""


from __future__ import annotations

from datetime import datetime

from pydantic import Field

from bot.jsonapi.contract import DiceInput, DiceOutput, Strict
from rules.campaign.config import Terrain
from rules.campaign.detection import ObserverKind

# The contract: input and output models (schemas in bot/jsonapi/schemas/).

Number = int | float
_COUNT = Field(default=0, ge=0)


class MovementInput(DiceInput):
    terrains: list[Terrain] = Field(min_length=1,
                                    description="The terrain of each tile entered, in order.")
    infantry: int = _COUNT
    cavalry: int = _COUNT
    accepted_at: datetime = Field(description="When the march order was accepted (UTC).")
    ready_at: datetime | None = Field(default=None,
                                      description="When the army is ready, if later.")


class MovementOutput(DiceOutput):
    travel_cost: int
    tile_costs: list[int]
    speed_multiplier: Number
    speed_multiplier_exact: str
    speed_reasons: list[str]
    budget_per_tick: Number
    budget_per_tick_exact: str
    departure: datetime
    arrival: datetime
    entries: list[datetime] = Field(description="The tick each tile is entered.")


class MusterInput(DiceInput):
    accepted_at: datetime


class MusterOutput(DiceOutput):
    ready_at: datetime


class DetectionInput(DiceInput):
    force_size: int = Field(ge=1)
    observer: ObserverKind = ObserverKind.NONE


class DetectionOutput(DiceOutput):
    automatic: bool
    detected: bool
    target: int | None
    roll: int | None
    total: int | None
    bonus: int
    explanation: list[str]


class UpkeepInput(DiceInput):
    infantry: int = _COUNT
    cavalry: int = _COUNT
    ships: int = _COUNT
    winter: bool = False
    gold: Number | str = Field(description="Gold in the treasury (a number or an exact "
                                           "decimal string).")


class Troops(Strict):
    infantry: int
    cavalry: int
    ships: int | None = None


class UpkeepOutput(DiceOutput):
    cost: Number
    cost_exact: str
    gold_after: Number
    gold_after_exact: str
    scatter: bool
    survivors: Troops
    lost: Troops


class SiegeInput(DiceInput):
    garrison: int = Field(ge=0)


class SiegeOutput(DiceOutput):
    months: int
    base: int
