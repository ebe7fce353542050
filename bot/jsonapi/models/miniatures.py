"""The contract of the engines of :mod:`bot.jsonapi.miniatures`: their input and output models.

Imported only to build or print the JSON Schemas (``maester rules schema``, the tests); the
engines run without them (see :mod:`bot.jsonapi.contract`).
"""


from __future__ import annotations

from pydantic import Field

from bot.jsonapi.contract import DiceInput, DiceOutput, Strict
from bot.jsonapi.miniatures import DECIMAL_PLACES
from rules.miniatures.charge import (
    MAX_SPEED,
    ChargeReroll,
)
from rules.miniatures.morale import (
    MAX_MORALE,
    MIN_MORALE,
    PanicOutcome,
    PanicWounds,
)
from rules.miniatures.rolls import (
    MAX_MODIFIER,
    MAX_POOL,
    RerollFaces,
    Side,
)
from rules.miniatures.terrain import Terrain
from rules.miniatures.units import UnitKind
from rules.miniatures.victory import LAST_ROUND

# --------------------------------------------------------------------------- the contract

_DICE_MODIFIER = Field(default=0, ge=-MAX_MODIFIER, le=MAX_MODIFIER)
_MORALE_MODIFIER = Field(default=0, ge=-12, le=12)
_MORALE = Field(ge=MIN_MORALE, le=MAX_MORALE, description="The morale value (6 for 6+).")
_DISTRIBUTION = Field(default=False, description="Give the exact chances; without `dice` only "
                                                 "the chances.")
_PANIC_WOUNDS = Field(default=PanicWounds.D3, description="What a failed panic test costs: "
                                                          "d3 (the rulebook) or 1+d3.")


class ProfileInput(Strict):
    name: str = "attack"
    dice: list[int] = Field(description="Attack dice by remaining ranks, full unit first.")
    ranks: int | None = Field(default=None, ge=1)
    highest: bool = False
    lowest: bool = False


class RerollsInput(Strict):
    attacker: RerollFaces = RerollFaces.NONE
    attacker_limit: int | None = Field(default=None, ge=1, le=MAX_POOL)
    defender: RerollFaces = RerollFaces.NONE
    defender_limit: int | None = Field(default=None, ge=1, le=MAX_POOL)


class TargetInput(Strict):
    kind: UnitKind = UnitKind.INFANTRY
    models: int | None = Field(default=None, ge=1)
    wounds_per_model: int = Field(default=1, ge=1)
    damage: int = Field(default=0, ge=0)


class AttackInput(DiceInput):
    attack_dice: int | None = Field(default=None, ge=0, le=MAX_POOL,
                                    description="Required unless `profile` is given.")
    profile: ProfileInput | None = None
    to_hit: int = Field(ge=2, le=6)
    defense: int = Field(ge=2, le=6)
    morale: int | None = Field(default=None, ge=MIN_MORALE, le=MAX_MORALE,
                               description="The defender's morale; a panic test follows.")
    panic: bool = True
    hit_modifier: int = _DICE_MODIFIER
    defense_modifier: int = _DICE_MODIFIER
    morale_modifier: int = _MORALE_MODIFIER
    attack_rerolls: RerollsInput | None = None
    defense_rerolls: RerollsInput | None = None
    charge: bool = Field(default=False, description="The charge bonus: re-roll any attack dice.")
    active: Side = Side.ATTACKER
    panic_wounds: PanicWounds = _PANIC_WOUNDS
    target: TargetInput | None = None
    target_wounds: int | None = Field(default=None, ge=1)
    distribution: bool = _DISTRIBUTION


class RerollsOutput(Strict):
    attacker: RerollFaces
    attacker_limit: int | None
    defender: RerollFaces
    defender_limit: int | None


class SpecOutput(Strict):
    attack_dice: int
    to_hit: int
    defense: int
    morale: int | None
    hit_modifier: int
    defense_modifier: int
    morale_modifier: int
    attack_rerolls: RerollsOutput
    defense_rerolls: RerollsOutput
    active: Side
    panic_wounds: PanicWounds
    target_wounds: int | None


class HitDie(Strict):
    faces: list[int]
    rerolled_by: list[Side]
    modified: int
    hit: bool


class SaveDie(Strict):
    faces: list[int]
    rerolled_by: list[Side]
    modified: int
    save: bool


class AttackPool(Strict):
    to_hit: int
    modifier: int
    dice: list[HitDie]
    hits: int


class DefensePool(Strict):
    defense: int
    modifier: int
    dice: list[SaveDie]
    saves: int


class PanicTestOutput(Strict):
    outcome: PanicOutcome
    taken: bool
    morale: int
    rolls: list[int] = Field(description="The test's two d6 (none on an automatic pass).")
    modifier: int
    total: int | None
    d3: int | None = Field(description="The d3 rolled with the 2d6 (a wound count only on a "
                                       "failure).")
    wounds: int
    rule: PanicWounds


class UnitOutput(Strict):
    kind: UnitKind
    models: int
    wounds_per_model: int
    damage: int
    ranks: int
    remaining_wounds: int


class DamageOutput(Strict):
    before: UnitOutput
    after: UnitOutput
    models_removed: int
    ranks_lost: int
    destroyed: bool


class AttackResultOutput(Strict):
    outcome: str
    attack: AttackPool
    defense: DefensePool
    attack_wounds: int
    panic: PanicTestOutput | None
    wounds: int
    target: DamageOutput | None = None


class Probability(Strict):
    fraction: str = Field(description="Exact, as numerator/denominator.")
    decimal: str = Field(description=f"Rounded to {DECIMAL_PLACES} places.")
    float: float


class WoundRow(Strict):
    wounds: int
    probability: str
    probability_float: float
    fraction: str
    at_least: str
    at_least_float: float


class DistributionOutput(Strict):
    wounds: list[WoundRow]
    expected_wounds: Probability
    expected_hits: Probability
    panic_failure_chance: Probability
    total_probability: str


class AttackOutput(DiceOutput):
    engine: str
    spec: SpecOutput
    result: AttackResultOutput | None = None
    distribution: DistributionOutput | None = None
    mode: str = Field(description="resolve when there is a result, else distribution.")


class PanicInput(DiceInput):
    morale: int = _MORALE
    morale_modifier: int = _MORALE_MODIFIER
    panic_wounds: PanicWounds = _PANIC_WOUNDS
    wounds_suffered: int | None = Field(
        default=None, ge=0, description="Wounds of the attack that called for the test: 0 is an "
                                        "automatic pass; absent, the test is always rolled.")
    distribution: bool = _DISTRIBUTION


class WoundChance(Strict):
    wounds: int
    chance: Probability


class PanicOddsOutput(Strict):
    automatic: bool
    # "pass" is a Python keyword: the model names it pass_, the JSON "pass".
    pass_: Probability = Field(alias="pass")
    fail: Probability
    wounds: list[WoundChance]
    expected_wounds: Probability


class PanicOutput(DiceOutput):
    engine: str
    morale: int
    morale_modifier: int
    panic_wounds: PanicWounds
    wounds_suffered: int | None
    odds: PanicOddsOutput | None = None
    result: PanicTestOutput | None = None
    mode: str


class MoraleInput(DiceInput):
    morale: int = _MORALE
    morale_modifier: int = _MORALE_MODIFIER
    distribution: bool = _DISTRIBUTION


class MoraleOddsOutput(Strict):
    pass_: Probability = Field(alias="pass")
    fail: Probability


class MoraleResultOutput(Strict):
    rolls: list[int]
    modifier: int
    total: int
    passed: bool


class MoraleOutput(DiceOutput):
    engine: str
    morale: int
    morale_modifier: int
    odds: MoraleOddsOutput | None = None
    result: MoraleResultOutput | None = None
    mode: str


class ChargeInput(DiceInput):
    distance: int | float | str = Field(description="Inches to the target (7.5 or \"7.5\").")
    speed: int = Field(ge=1, le=MAX_SPEED)
    terrain: list[str] = Field(default_factory=list, description="Terrain pieces the move enters, "
                               "crosses or ends on: " + ", ".join(t.value for t in Terrain))
    morale: int | None = Field(default=None, ge=MIN_MORALE, le=MAX_MORALE,
                               description="The charger's morale, for a failed charge's panic "
                                           "test; without it no test is rolled.")
    morale_modifier: int = _MORALE_MODIFIER
    reroll: ChargeReroll = ChargeReroll.NONE
    panic_wounds: PanicWounds = _PANIC_WOUNDS
    distribution: bool = _DISTRIBUTION


class ChargeSpecOutput(Strict):
    distance: int | float
    speed: int
    terrain: list[str]
    rough: int
    needed: int
    reach: int
    morale: int | None
    morale_modifier: int
    reroll: ChargeReroll
    panic_wounds: PanicWounds


class ChargeOddsOutput(Strict):
    charged: Probability
    disorderly: Probability
    reached: Probability
    failed: Probability
    failed_panic: Probability


class ChargeResultOutput(Strict):
    outcome: str
    rolls: list[int] = Field(description="The charge die, then its re-roll if one was used.")
    roll: int
    total_distance: int
    reached: bool
    disorderly: bool
    charge_bonus: bool
    defense_bonus: int
    may_play_tactics_cards: bool
    activation_ends: bool
    panic_due: bool
    dangerous_wounds: int
    panic: PanicTestOutput | None
    wounds: int


class ChargeOutput(DiceOutput):
    engine: str
    spec: ChargeSpecOutput
    odds: ChargeOddsOutput | None = None
    result: ChargeResultOutput | None = None
    mode: str


class VictoryInput(DiceInput):
    game_size: int = Field(ge=1, le=1000, description="Army points: 30, 40 or 50.")
    scores: dict[str, int] | None = Field(default=None, description="Victory points by player; "
                                          "with it the end-of-round check is made.")
    round: int | None = Field(default=None, ge=1, le=LAST_ROUND)
    units_left: dict[str, int] | None = None
    battlefield_points: dict[str, int] | None = None


class VictoryCheckOutput(Strict):
    outcome: str
    reason: str
    winner: str | None
    eliminated: list[str]


class VictoryOutput(DiceOutput):
    engine: str
    game_size: int
    victory_points_needed: int
    check: VictoryCheckOutput | None = None
