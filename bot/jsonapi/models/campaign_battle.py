"""The contract of the engines of :mod:`bot.jsonapi.campaign_battle`: their input and output models.

Imported only to build or print the JSON Schemas (``maester rules schema``, the tests); the
engines run without them (see :mod:`bot.jsonapi.contract`).
"""


from __future__ import annotations

from pydantic import Field

from bot.jsonapi.contract import DiceInput, DiceOutput, Strict
from rules.campaign.config import Terrain
from rules.campaign.modifiers import (
    EffectKind,
    Role,
    Source,
)

# The contract: input and output models (schemas in bot/jsonapi/schemas/).

Number = int | float
_COUNT = Field(default=0, ge=0)


class ModifierInput(Strict):
    name: str = Field(min_length=1)
    amount: Number | str = Field(description="A multiplier for strength (1.2), else an amount.")
    kind: EffectKind = EffectKind.STRENGTH
    role: Role = Role.BOTH
    hidden: bool = False
    label: str = ""
    source: Source = Source.OTHER


class SideInput(Strict):
    infantry: int = _COUNT
    cavalry: int = _COUNT
    ships: int = _COUNT
    terrain: Terrain = Terrain.FIELD
    stationary: bool = False
    commander_bonus: Number | str = 1
    retreat_penalty: bool = False
    modifiers: list[ModifierInput] = Field(default_factory=list)
    characters: list[str] = Field(default_factory=list)


class BattleInput(DiceInput):
    attacker: SideInput | list[SideInput] = Field(
        description="One army, or every army that fights on the attacking side.")
    defender: SideInput | list[SideInput] = Field(
        description="One army, or every army that fights on the defending side.")


class TroopsOutput(Strict):
    infantry: int
    cavalry: int
    ships: int


class FateOutput(Strict):
    name: str
    fate: str
    roll: int | None


class SideOutput(Strict):
    strength: Number
    base_strength: Number
    applied: list[str]
    roll: int | None
    casualty_pct: Number
    losses: TroopsOutput
    survivors: TroopsOutput
    captured: bool
    characters: list[FateOutput]
    armies: list[SideOutput] | None = Field(
        default=None, description="Each army's own result, when the side had several.")


class BattleOutput(DiceOutput):
    winner: str
    band: str
    ratio: Number | None
    margin: int | None
    attacker: SideOutput
    defender: SideOutput


class ExpectedOutput(Strict):
    infantry: Number | str
    cavalry: Number | str
    ships: Number | str


class ExpectedSides(Strict):
    attacker: ExpectedOutput
    defender: ExpectedOutput


class ChanceSides(Strict):
    attacker: float
    defender: float


class StrengthOutput(Strict):
    strength: Number
    base_strength: Number
    applied: list[str]


class OddsOutput(DiceOutput):
    attacker_win: float
    defender_win: float
    attacker_win_exact: str
    defender_win_exact: str
    band: str | None
    ratio: Number | None
    expected_losses: ExpectedSides
    expected_losses_exact: ExpectedSides
    captured_chance: ChanceSides
    attacker: StrengthOutput
    defender: StrengthOutput


class RetreatInput(DiceInput):
    infantry: int = _COUNT
    cavalry: int = _COUNT
    ships: int = _COUNT


class RetreatOutput(DiceOutput):
    roll: int | None
    success: bool
    fraction: Number
    escaped: TroopsOutput
    lost: TroopsOutput
    penalty: bool
