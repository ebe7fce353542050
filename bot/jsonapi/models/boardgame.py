"""The contract of the engines of :mod:`bot.jsonapi.boardgame`: their input and output models.

Imported only to build or print the JSON Schemas (``maester rules schema``, the tests); the
engines run without them (see :mod:`bot.jsonapi.contract`).
"""


from __future__ import annotations

from pydantic import Field

from bot.jsonapi.contract import DiceInput, DiceOutput, Strict
from rules.boardgame.model import (
    AreaKind,
    OrderKind,
    Structure,
    SupportTo,
    Track,
    Upgrade,
)

# --------------------------------------------------------------------------- the contract

_COUNT = Field(default=0, ge=0, le=99)


class UnitsInput(Strict):
    footmen: int = _COUNT
    knights: int = _COUNT
    ships: int = _COUNT
    siege_engines: int = _COUNT


class CardNumbers(Strict):
    strength: int = Field(ge=0, le=20)
    swords: int = Field(default=0, ge=0, le=20)
    fortifications: int = Field(default=0, ge=0, le=20)


CardInput = str | CardNumbers


class OrderInput(Strict):
    kind: OrderKind
    bonus: int | None = Field(default=None, ge=-1, le=2)


class CombatantInput(Strict):
    house: str
    units: UnitsInput | None = None
    routed: UnitsInput | None = None
    card: CardInput = Field(description="A House card by name, or its numbers.")
    order: OrderInput | None = None
    replacement: CardInput | None = None
    discard: list[str] = Field(default_factory=list,
                               description="The discard pile before this combat.")
    cancel_opponent_card: bool = False
    queen_removes: str | None = None
    doran_track: Track | None = None
    upgrade: Upgrade = Upgrade.AUTO
    patchface_discard: CardInput | None = None
    power_tokens: int | None = Field(default=None, ge=0)
    use_blade: bool = True


class SupportInput(Strict):
    house: str
    units: UnitsInput | None = None
    to: SupportTo
    bonus: int = Field(default=0, ge=0, le=1)
    label: str = ""


class RetreatAreaInput(Strict):
    name: str
    kind: AreaKind = AreaKind.LAND
    enemy: bool = False
    friendly_units: int = _COUNT
    max_army: int | None = Field(default=None, ge=0, le=99)
    origin: bool = False
    by_transport: bool = False


class CombatInput(DiceInput):
    text: str | None = Field(default=None, description="The whole combat in the !combat "
                             "syntax, instead of the structured fields.")
    attacker: CombatantInput | None = None
    defender: CombatantInput | None = None
    area: AreaKind = AreaKind.LAND
    structure: Structure = Structure.NONE
    garrison: int = Field(default=0, ge=0, le=10)
    supports: list[SupportInput] = Field(default_factory=list)
    blade_holder: str | None = None
    blade_available: bool = True
    fiefdoms: list[str] = Field(default_factory=list)
    iron_throne: list[str] = Field(default_factory=list)
    defender_power_token: bool = False
    retreat_areas: list[RetreatAreaInput] | None = None
    retreat_to: str | None = None
    casualties: UnitsInput | None = None


class UnitsOutput(Strict):
    footmen: int
    knights: int
    ships: int
    siege_engines: int


class CardOutput(Strict):
    name: str
    house: str | None
    strength: int
    swords: int
    fortifications: int
    ability: str | None


class StrengthOutput(Strict):
    units: int
    support: int
    order: int
    garrison: int
    announced: int
    initial: int
    card: int
    card_bonus: int
    blade: int
    total: int
    final: int


class SideOutput(Strict):
    house: str
    card: CardOutput | None
    cards_revealed: list[str]
    strength: StrengthOutput
    swords: int
    fortifications: int
    units: UnitsOutput
    destroyed_by_card: UnitsOutput
    casualties: UnitsOutput
    destroyed_retreating: UnitsOutput
    routed_destroyed: UnitsOutput
    survivors: UnitsOutput
    survivors_routed: bool
    upgrade: str
    power_gained: int
    power_spent: int
    hand: list[str] | None
    discard: list[str] | None
    hand_refreshed: bool | None


class SupportOutput(Strict):
    label: str
    house: str
    units: UnitsOutput
    bonus: int
    to: str
    counted_for: str
    strength: int
    note: str


class CasualtiesOutput(Strict):
    required: int
    taken: int


class RetreatOption(Strict):
    name: str
    losses: int


class RetreatOutput(Strict):
    role: str
    status: str
    units: UnitsOutput
    area: str | None
    options: list[RetreatOption]
    chosen_by: str | None
    supply_losses: UnitsOutput


class CleanupOutput(Strict):
    march_order: str
    defender_order_removed: bool
    defender_power_token_removed: bool
    support_orders_kept: list[str]
    attacker_moves_in: bool
    garrison_after: int = Field(description="The defender's garrison after the combat.")
    garrison_removed: bool


class CombatOutput(DiceOutput):
    outcome: str
    decided_by: str
    winner: str
    loser: str
    attacker: SideOutput
    defender: SideOutput
    supports: list[SupportOutput]
    casualties: CasualtiesOutput
    retreat: RetreatOutput
    cleanup: CleanupOutput
    blade_used: bool
    effects: list[str]
    setup: str = Field(description="The combat as read, in the !combat syntax.")
