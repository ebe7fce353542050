"""The contract of the engines of :mod:`bot.jsonapi.cardgame`: their input and output models.

Imported only to build or print the JSON Schemas (``maester rules schema``, the tests); the
engines run without them (see :mod:`bot.jsonapi.contract`).
"""


from __future__ import annotations

from pydantic import Field

from bot.jsonapi.contract import DiceInput, DiceOutput, Strict
from rules.cardgame import (
    ChallengeType,
)

# --------------------------------------------------------------------------- the contract

_COUNT = Field(default=0, ge=0)


class CharacterInput(Strict):
    name: str = Field(min_length=1)
    strength: int = Field(alias="str", ge=0, description="The character's STR.")
    icons: list[ChallengeType] = Field(default_factory=list)
    kneeling: bool = False
    stealth: bool = False
    renown: bool = False
    power: int = _COUNT


class PlayerInput(Strict):
    name: str = Field(min_length=1)
    power: int = _COUNT
    hand: list[str] | int = Field(default_factory=list,
                                  description="Card names, or a count of cards.")
    deck: list[str] | int = Field(default_factory=list,
                                  description="Card names, or a count of cards.")
    characters: list[CharacterInput] = Field(default_factory=list)
    discard_pile: list[str] = Field(default_factory=list)
    dead_pile: list[str] = Field(default_factory=list)
    challenges_initiated: list[ChallengeType] = Field(default_factory=list)
    title: str | None = None
    rivals: list[str] = Field(default_factory=list)
    rivals_claimed: list[str] = Field(default_factory=list)


class StealthInput(Strict):
    attacker: str
    target: str


class ModifiersInput(Strict):
    attacker: int = 0
    defender: int = 0


class ChallengeInput(DiceInput):
    players: list[PlayerInput] = Field(min_length=1)
    active: str | None = Field(default=None, description="The attacking player (default: the "
                                                          "first).")
    melee: bool | None = Field(default=None, description="Default: more than two players.")
    challenge: ChallengeType
    attackers: list[str] = Field(default_factory=list)
    defenders: list[str] = Field(default_factory=list)
    opponent: str | None = None
    stealth: list[StealthInput] = Field(default_factory=list)
    claim: int = Field(default=1, ge=0, description="The claim value; 0 wins the challenge "
                                                    "without any claim effect.")
    modifiers: ModifiersInput | None = None
    removed: list[str] = Field(default_factory=list)
    kills: list[str] | None = Field(default=None, description="The defending player's choice "
                                                              "of characters for a military "
                                                              "claim.")


class CharacterOutput(Strict):
    name: str
    strength: int = Field(alias="str")
    icons: list[ChallengeType]
    kneeling: bool
    stealth: bool
    renown: bool
    power: int


class PlayerOutput(Strict):
    name: str
    power: int
    total_power: int
    hand: list[str]
    deck: list[str]
    characters: list[CharacterOutput]
    discard_pile: list[str]
    dead_pile: list[str]
    challenges_initiated: list[ChallengeType]
    title: str | None
    rivals: list[str]
    rivals_claimed: list[str]


class ClaimOutput(Strict):
    type: ChallengeType
    value: int
    applied: int
    killed: list[str]
    kills_owed: int
    discarded: list[str]
    power_moved: int


class StrengthSides(Strict):
    attacker: int
    defender: int


class BonusesOutput(Strict):
    unopposed: int
    rivals: int
    rival_defeated: str | None


class ChallengeOutput(DiceOutput):
    outcome: str
    winner: str | None
    loser: str | None
    challenge: ChallengeType
    attacking_player: str
    defending_player: str
    attackers: list[str]
    defenders: list[str]
    knelt: list[str]
    stealth: list[StealthInput]
    strength: StrengthSides
    unopposed: bool
    bonuses: BonusesOutput
    renown: list[str]
    claim: ClaimOutput | None
    players: list[PlayerOutput]
