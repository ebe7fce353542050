"""Errors of the card game engine: an illegal challenge names its reason; an owed choice says so."""

from __future__ import annotations

from enum import StrEnum

from rules.errors import RulesError


class IllegalReason(StrEnum):
    """Why a challenge declaration cannot be made (each maps to a clause of the rules)."""

    ALREADY_INITIATED = "already_initiated"
    UNKNOWN_OPPONENT = "unknown_opponent"
    OPPONENT_REQUIRED = "opponent_required"
    NO_ATTACKERS = "no_attackers"
    UNKNOWN_ATTACKER = "unknown_attacker"
    DUPLICATE_ATTACKER = "duplicate_attacker"
    ATTACKER_KNEELING = "attacker_kneeling"
    ATTACKER_LACKS_ICON = "attacker_lacks_icon"
    STEALTH_NOT_ATTACKING = "stealth_not_attacking"
    NO_STEALTH_KEYWORD = "no_stealth_keyword"
    STEALTH_TARGET_TWICE = "stealth_target_twice"
    UNKNOWN_STEALTH_TARGET = "unknown_stealth_target"
    STEALTH_TARGET_HAS_STEALTH = "stealth_target_has_stealth"
    UNKNOWN_DEFENDER = "unknown_defender"
    DUPLICATE_DEFENDER = "duplicate_defender"
    DEFENDER_KNEELING = "defender_kneeling"
    DEFENDER_LACKS_ICON = "defender_lacks_icon"
    DEFENDER_IS_STEALTH_TARGET = "defender_is_stealth_target"
    REMOVED_NOT_PARTICIPATING = "removed_not_participating"
    UNKNOWN_KILL = "unknown_kill"
    DUPLICATE_KILL = "duplicate_kill"


_MESSAGES: dict[IllegalReason, str] = {
    IllegalReason.ALREADY_INITIATED:
        "{name} already initiated a {detail} challenge this phase (each type once per phase)",
    IllegalReason.UNKNOWN_OPPONENT: "{name} is not an opponent of the active player",
    IllegalReason.OPPONENT_REQUIRED:
        "with more than one opponent, the challenge must name the player it is against",
    IllegalReason.NO_ATTACKERS: "at least one character must be declared as an attacker",
    IllegalReason.UNKNOWN_ATTACKER: "{name} is not a character of the attacking player",
    IllegalReason.DUPLICATE_ATTACKER: "{name} is declared as an attacker twice",
    IllegalReason.ATTACKER_KNEELING: "{name} is kneeling; only standing characters may attack",
    IllegalReason.ATTACKER_LACKS_ICON:
        "{name} has no {detail} icon, so cannot attack in this {detail} challenge",
    IllegalReason.STEALTH_NOT_ATTACKING:
        "{name} chooses a stealth target but is not one of the attackers",
    IllegalReason.NO_STEALTH_KEYWORD: "{name} does not have stealth, so chooses no target",
    IllegalReason.STEALTH_TARGET_TWICE: "{name} may choose only one stealth target",
    IllegalReason.UNKNOWN_STEALTH_TARGET:
        "{name} is not a character of the defending player, so cannot be a stealth target",
    IllegalReason.STEALTH_TARGET_HAS_STEALTH:
        "{name} has stealth itself, so cannot be chosen as a stealth target",
    IllegalReason.UNKNOWN_DEFENDER: "{name} is not a character of the defending player",
    IllegalReason.DUPLICATE_DEFENDER: "{name} is declared as a defender twice",
    IllegalReason.DEFENDER_KNEELING: "{name} is kneeling; only standing characters may defend",
    IllegalReason.DEFENDER_LACKS_ICON:
        "{name} has no {detail} icon, so cannot defend in this {detail} challenge",
    IllegalReason.DEFENDER_IS_STEALTH_TARGET:
        "{name} was chosen as a stealth target, so cannot be declared as a defender",
    IllegalReason.REMOVED_NOT_PARTICIPATING:
        "{name} is removed from the challenge but was never participating in it",
    IllegalReason.UNKNOWN_KILL:
        "{name} is chosen to be killed but is not a character of the defending player",
    IllegalReason.DUPLICATE_KILL: "{name} is chosen to be killed twice; choose different ones",
}


class IllegalChallenge(RulesError):
    """A declaration breaks a rule. ``reason`` says which; ``name`` the character or player."""

    def __init__(self, reason: IllegalReason, name: str = "", detail: str = "") -> None:
        self.reason = reason
        self.name = name
        self.detail = detail
        super().__init__(_MESSAGES[reason].format(name=name or "?", detail=detail))


class KillChoiceNeeded(RulesError):
    """A military claim needs more characters named than the defending player chose."""

    def __init__(self, player: str, owed: int, chosen: int) -> None:
        self.player = player
        self.owed = owed
        self.chosen = chosen
        super().__init__(
            f"{player} must choose {owed} character(s) to kill for the military claim, "
            f"but only {chosen} were named"
        )
