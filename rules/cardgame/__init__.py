"""A Game of Thrones: The Card Game (2nd edition): initiating and resolving challenges."""

from rules.cardgame.challenge import (
    ChallengeOutcome,
    ChallengeResult,
    ClaimResult,
    ValidChallenge,
    can_initiate,
    compare_strength,
    eligible_attackers,
    eligible_defenders,
    kill_characters,
    resolve_challenge,
    side_strength,
    validate_declaration,
)
from rules.cardgame.errors import IllegalChallenge, IllegalReason, KillChoiceNeeded
from rules.cardgame.model import (
    ChallengeDeclaration,
    ChallengeType,
    Character,
    GameState,
    Player,
    StealthTarget,
)

__all__ = [
    "ChallengeDeclaration",
    "ChallengeOutcome",
    "ChallengeResult",
    "ChallengeType",
    "Character",
    "ClaimResult",
    "GameState",
    "IllegalChallenge",
    "IllegalReason",
    "KillChoiceNeeded",
    "Player",
    "StealthTarget",
    "ValidChallenge",
    "can_initiate",
    "compare_strength",
    "eligible_attackers",
    "eligible_defenders",
    "kill_characters",
    "resolve_challenge",
    "side_strength",
    "validate_declaration",
]
