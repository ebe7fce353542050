"""Initiating and resolving one challenge (Rules Reference p.28, steps 4.2 to 4.2.4).

The call shape is ``resolve_challenge(state, declaration, *, dice) -> ChallengeResult``. The
declaration is checked as a whole first (initiation is atomic: every criterion holds or nothing
happens), then the challenge resolves in the rulebook's order: kneel the participants, compare
STR, grant challenge bonuses (unopposed, rivals) and renown, and apply the claim.

Two points the page leaves to the rest of the rules are settled here and documented: a stealth
attacker slips past at most one character, which must not have stealth itself (the keyword's
own entry); and a side's total STR never goes below 0, so a negative modifier cannot make an
empty defence anything other than unopposed. Renown gives 1 power to the card of each renown
character still participating on the winning side, after the winner is known and before the
claim (it is a reaction to winning).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum

from rules.cardgame.errors import IllegalChallenge, IllegalReason, KillChoiceNeeded
from rules.cardgame.model import (
    ChallengeDeclaration,
    ChallengeType,
    Character,
    GameState,
    Player,
    StealthTarget,
)
from rules.dice import Dice
from rules.errors import InvalidInput


class ChallengeOutcome(StrEnum):
    """Who won the challenge, if anyone."""

    ATTACKER_WINS = "attacker_wins"
    DEFENDER_WINS = "defender_wins"
    NO_WINNER = "no_winner"


@dataclass(frozen=True, slots=True)
class ValidChallenge:
    """A declaration that passed every initiation check, with the opponent filled in."""

    declaration: ChallengeDeclaration
    attacking_player: str
    defending_player: str

    @property
    def participating_attackers(self) -> tuple[str, ...]:
        """Declared attackers still in the challenge when STR is compared."""
        removed = set(self.declaration.removed)
        return tuple(n for n in self.declaration.attackers if n not in removed)

    @property
    def participating_defenders(self) -> tuple[str, ...]:
        """Declared defenders still in the challenge when STR is compared."""
        removed = set(self.declaration.removed)
        return tuple(n for n in self.declaration.defenders if n not in removed)


@dataclass(frozen=True, slots=True)
class ClaimResult:
    """What the claim did.

    ``value`` is the claim value; ``applied`` how much of it could be taken from what the
    losing player had (characters, cards in hand, power on the faction card). For a military
    claim whose victims were not chosen yet, ``kills_owed`` says how many the defending player
    still has to kill (see :func:`kill_characters`).
    """

    challenge_type: ChallengeType
    value: int
    applied: int
    killed: tuple[str, ...] = ()
    kills_owed: int = 0
    discarded: tuple[str, ...] = ()
    discard_rolls: tuple[int, ...] = ()
    power_moved: int = 0


@dataclass(frozen=True, slots=True)
class ChallengeResult:
    """The outcome of one challenge and the game after it."""

    outcome: ChallengeOutcome
    challenge_type: ChallengeType
    attacking_player: str
    defending_player: str
    attackers: tuple[str, ...]
    defenders: tuple[str, ...]
    knelt: tuple[str, ...]
    stealth_targets: tuple[StealthTarget, ...]
    attacking_strength: int
    defending_strength: int
    unopposed: bool
    unopposed_bonus: int
    rivals_bonus: int
    rival_defeated: str | None
    renown: tuple[str, ...]
    claim: ClaimResult | None
    state: GameState

    @property
    def winner(self) -> str | None:
        """The name of the player who won, or ``None`` when nobody did."""
        if self.outcome is ChallengeOutcome.ATTACKER_WINS:
            return self.attacking_player
        if self.outcome is ChallengeOutcome.DEFENDER_WINS:
            return self.defending_player
        return None

    @property
    def loser(self) -> str | None:
        """The name of the player who lost, or ``None`` when nobody won."""
        if self.outcome is ChallengeOutcome.ATTACKER_WINS:
            return self.defending_player
        if self.outcome is ChallengeOutcome.DEFENDER_WINS:
            return self.attacking_player
        return None


def eligible_attackers(state: GameState, challenge_type: ChallengeType) -> tuple[Character, ...]:
    """The active player's characters that may attack: standing and showing the icon."""
    return tuple(
        c for c in state.active_player.characters
        if c.is_standing and c.has_icon(challenge_type)
    )


def eligible_defenders(
    player: Player,
    challenge_type: ChallengeType,
    stealth_targets: Iterable[StealthTarget] = (),
) -> tuple[Character, ...]:
    """``player``'s characters that may defend: standing, with the icon, not a stealth target."""
    bypassed = {t.target for t in stealth_targets}
    return tuple(
        c for c in player.characters
        if c.is_standing and c.has_icon(challenge_type) and c.name not in bypassed
    )


def can_initiate(state: GameState, challenge_type: ChallengeType) -> bool:
    """Whether the active player could initiate a challenge of ``challenge_type`` right now.

    True when that type was not initiated yet this phase and at least one character is
    eligible to attack; when it is false for every type the player moves on to step 4.3.
    """
    if challenge_type in state.active_player.challenges_initiated:
        return False
    return bool(eligible_attackers(state, challenge_type))


def _duplicate(names: Sequence[str]) -> str | None:
    seen: set[str] = set()
    for name in names:
        if name in seen:
            return name
        seen.add(name)
    return None


def validate_declaration(state: GameState, declaration: ChallengeDeclaration) -> ValidChallenge:
    """Check a declaration against the game as a whole, as the atomic initiation requires.

    Checks, in the order the rules give them: the type was not initiated yet this phase; the
    opponent exists (and is named when there is more than one); at least one attacker, each
    the active player's own, standing, with the icon, declared once; stealth targets chosen
    only by stealth attackers, one each, among the defending player's characters without
    stealth; defenders the defending player's own, standing, with the icon, not a stealth
    target, declared once; removed characters were participating; characters chosen to be
    killed belong to the defending player and are different.

    Raises :class:`IllegalChallenge` naming the first broken rule.
    """
    kind = declaration.challenge_type
    attacker = state.active_player
    if kind in attacker.challenges_initiated:
        raise IllegalChallenge(IllegalReason.ALREADY_INITIATED, attacker.name, kind.value)

    defender = _opponent(state, declaration.opponent)

    if not declaration.attackers:
        raise IllegalChallenge(IllegalReason.NO_ATTACKERS)
    twice = _duplicate(declaration.attackers)
    if twice is not None:
        raise IllegalChallenge(IllegalReason.DUPLICATE_ATTACKER, twice)
    for name in declaration.attackers:
        character = attacker.character(name)
        if character is None:
            raise IllegalChallenge(IllegalReason.UNKNOWN_ATTACKER, name)
        if not character.is_standing:
            raise IllegalChallenge(IllegalReason.ATTACKER_KNEELING, name)
        if not character.has_icon(kind):
            raise IllegalChallenge(IllegalReason.ATTACKER_LACKS_ICON, name, kind.value)

    chosen_by: set[str] = set()
    for pick in declaration.stealth_targets:
        if pick.attacker not in declaration.attackers:
            raise IllegalChallenge(IllegalReason.STEALTH_NOT_ATTACKING, pick.attacker)
        sneaking = attacker.character(pick.attacker)
        assert sneaking is not None  # every attacker was found above
        if not sneaking.stealth:
            raise IllegalChallenge(IllegalReason.NO_STEALTH_KEYWORD, pick.attacker)
        if pick.attacker in chosen_by:
            raise IllegalChallenge(IllegalReason.STEALTH_TARGET_TWICE, pick.attacker)
        chosen_by.add(pick.attacker)
        target = defender.character(pick.target)
        if target is None:
            raise IllegalChallenge(IllegalReason.UNKNOWN_STEALTH_TARGET, pick.target)
        if target.stealth:
            raise IllegalChallenge(IllegalReason.STEALTH_TARGET_HAS_STEALTH, pick.target)

    bypassed = {pick.target for pick in declaration.stealth_targets}
    twice = _duplicate(declaration.defenders)
    if twice is not None:
        raise IllegalChallenge(IllegalReason.DUPLICATE_DEFENDER, twice)
    for name in declaration.defenders:
        character = defender.character(name)
        if character is None:
            raise IllegalChallenge(IllegalReason.UNKNOWN_DEFENDER, name)
        if not character.is_standing:
            raise IllegalChallenge(IllegalReason.DEFENDER_KNEELING, name)
        if not character.has_icon(kind):
            raise IllegalChallenge(IllegalReason.DEFENDER_LACKS_ICON, name, kind.value)
        if name in bypassed:
            raise IllegalChallenge(IllegalReason.DEFENDER_IS_STEALTH_TARGET, name)

    participants = set(declaration.attackers) | set(declaration.defenders)
    for name in declaration.removed:
        if name not in participants:
            raise IllegalChallenge(IllegalReason.REMOVED_NOT_PARTICIPATING, name)

    if declaration.kills is not None:
        twice = _duplicate(declaration.kills)
        if twice is not None:
            raise IllegalChallenge(IllegalReason.DUPLICATE_KILL, twice)
        for name in declaration.kills:
            if defender.character(name) is None:
                raise IllegalChallenge(IllegalReason.UNKNOWN_KILL, name)

    return ValidChallenge(replace(declaration, opponent=defender.name), attacker.name,
                          defender.name)


def _opponent(state: GameState, named: str | None) -> Player:
    opponents = state.opponents()
    if named is None:
        if len(opponents) != 1:
            raise IllegalChallenge(IllegalReason.OPPONENT_REQUIRED)
        return opponents[0]
    for candidate in opponents:
        if candidate.name == named:
            return candidate
    raise IllegalChallenge(IllegalReason.UNKNOWN_OPPONENT, named)


def side_strength(characters: Iterable[Character], modifier: int = 0) -> int:
    """A side's total STR: its participating characters' STR plus modifiers, never below 0."""
    return max(0, sum(c.strength for c in characters) + modifier)


def compare_strength(
    attacking: int,
    defending: int,
    *,
    attackers_participating: bool,
    defenders_participating: bool,
) -> ChallengeOutcome:
    """Decide the winner from the two totals (step 4.2.2).

    The higher total wins and a tie goes to the attacker; but the side that would win needs a
    total of 1 or more and at least one participating character, or nobody wins.
    """
    if attacking >= defending:
        if attacking >= 1 and attackers_participating:
            return ChallengeOutcome.ATTACKER_WINS
        return ChallengeOutcome.NO_WINNER
    if defending >= 1 and defenders_participating:
        return ChallengeOutcome.DEFENDER_WINS
    return ChallengeOutcome.NO_WINNER


def _kneel(player: Player, names: Iterable[str]) -> Player:
    chosen = set(names)
    return player.with_characters(
        replace(c, kneeling=True) if c.name in chosen else c for c in player.characters
    )


def _add_renown(player: Player, names: Iterable[str]) -> Player:
    chosen = set(names)
    return player.with_characters(
        replace(c, power=c.power + 1) if c.name in chosen else c for c in player.characters
    )


def kill_characters(state: GameState, player_name: str, names: Sequence[str]) -> GameState:
    """Kill the named characters of ``player_name``: they leave play for the dead pile.

    Power on a killed character leaves with it. Used for a military claim and for kills
    chosen after a challenge left them owed. Raises :class:`InvalidInput` for an unknown
    player, and :class:`IllegalChallenge` for a name that is not the player's character or is
    named twice.
    """
    player = state.player(player_name)
    if player is None:
        raise InvalidInput("player", f"{player_name!r} is not a player")
    twice = _duplicate(names)
    if twice is not None:
        raise IllegalChallenge(IllegalReason.DUPLICATE_KILL, twice)
    for name in names:
        if player.character(name) is None:
            raise IllegalChallenge(IllegalReason.UNKNOWN_KILL, name)
    doomed = set(names)
    survivors = [c for c in player.characters if c.name not in doomed]
    updated = replace(
        player.with_characters(survivors),
        dead_pile=player.dead_pile + tuple(names),
    )
    return state.with_player(updated)


def _apply_claim(
    state: GameState,
    valid: ValidChallenge,
    dice: Dice,
) -> tuple[GameState, ClaimResult]:
    declaration = valid.declaration
    kind = declaration.challenge_type
    value = declaration.claim
    loser = state.player(valid.defending_player)
    winner = state.player(valid.attacking_player)
    assert loser is not None and winner is not None
    if value == 0:
        return state, ClaimResult(kind, 0, 0)

    if kind is ChallengeType.MILITARY:
        owed = min(value, len(loser.characters))
        if declaration.kills is None:
            return state, ClaimResult(kind, value, owed, kills_owed=owed)
        if len(declaration.kills) < owed:
            raise KillChoiceNeeded(loser.name, owed, len(declaration.kills))
        victims = declaration.kills[:owed]
        return (kill_characters(state, loser.name, victims),
                ClaimResult(kind, value, owed, killed=victims))

    if kind is ChallengeType.INTRIGUE:
        count = min(value, loser.hand_size)
        hand = list(loser.hand)
        discarded: list[str] = []
        rolls: list[int] = []
        for number in range(1, count + 1):
            roll = dice.roll(len(hand), f"intrigue claim: random discard {number} of {count}")
            rolls.append(roll)
            discarded.append(hand.pop(roll - 1))
        updated = replace(loser, hand=tuple(hand),
                          discard_pile=loser.discard_pile + tuple(discarded))
        return (state.with_player(updated),
                ClaimResult(kind, value, count, discarded=tuple(discarded),
                            discard_rolls=tuple(rolls)))

    moved = min(value, loser.power)
    state = state.with_player(replace(loser, power=loser.power - moved))
    state = state.with_player(replace(winner, power=winner.power + moved))
    return state, ClaimResult(kind, value, moved, power_moved=moved)


def resolve_challenge(
    state: GameState,
    declaration: ChallengeDeclaration,
    *,
    dice: Dice,
) -> ChallengeResult:
    """Initiate and resolve one challenge; return its outcome and the game after it.

    Attackers and defenders kneel; totals are compared (:func:`compare_strength`); an attacker
    who wins against a total of 0 is unopposed and gains 1 power; in a melee the winner gains
    1 power for beating a player whose title is a Rival on the winner's title, once per rival
    per round; each participating renown character on the winning side gains 1 power; and if
    the attacker won, the claim is applied, capped by what the defending player has (a military
    claim kills the defending player's chosen characters, an intrigue claim discards cards from
    hand at random using ``dice``, a power claim moves power between faction cards). The
    challenge type is recorded as initiated for the phase whatever the outcome.

    Raises :class:`IllegalChallenge` for an illegal declaration, :class:`KillChoiceNeeded` when
    too few victims were named for a military claim, and :class:`rules.errors.DiceExhausted`
    or :class:`rules.errors.BadDie` when scripted dice cannot cover the random discards.
    """
    valid = validate_declaration(state, declaration)
    declaration = valid.declaration
    kind = declaration.challenge_type
    attacker_name, defender_name = valid.attacking_player, valid.defending_player

    attacker = state.active_player
    state = state.with_player(replace(
        _kneel(attacker, declaration.attackers),
        challenges_initiated=attacker.challenges_initiated | {kind},
    ))
    defender = state.player(defender_name)
    assert defender is not None
    state = state.with_player(_kneel(defender, declaration.defenders))

    attackers = valid.participating_attackers
    defenders = valid.participating_defenders
    attacking = side_strength(_characters(state, attacker_name, attackers),
                              declaration.attacker_modifier)
    defending = side_strength(_characters(state, defender_name, defenders),
                              declaration.defender_modifier)
    outcome = compare_strength(
        attacking, defending,
        attackers_participating=bool(attackers),
        defenders_participating=bool(defenders),
    )

    unopposed = outcome is ChallengeOutcome.ATTACKER_WINS and defending == 0
    unopposed_bonus = 1 if unopposed else 0
    rivals_bonus = 0
    rival_defeated: str | None = None
    renown: tuple[str, ...] = ()
    claim: ClaimResult | None = None

    if outcome is not ChallengeOutcome.NO_WINNER:
        attacker_won = outcome is ChallengeOutcome.ATTACKER_WINS
        winner_name = attacker_name if attacker_won else defender_name
        loser_name = defender_name if attacker_won else attacker_name
        winner = state.player(winner_name)
        loser = state.player(loser_name)
        assert winner is not None and loser is not None
        if (state.melee and winner.has_rival(loser)
                and loser.title not in winner.rivals_claimed):
            rivals_bonus = 1
            rival_defeated = loser.title
        winning_side = attackers if attacker_won else defenders
        renown = tuple(
            c.name for c in _characters(state, winner_name, winning_side) if c.renown
        )
        # Both bonuses are gained at once, so they are added in one step.
        winner = replace(
            _add_renown(winner, renown),
            power=winner.power + unopposed_bonus + rivals_bonus,
            rivals_claimed=(winner.rivals_claimed | {rival_defeated}
                            if rival_defeated is not None else winner.rivals_claimed),
        )
        state = state.with_player(winner)
        if attacker_won:
            state, claim = _apply_claim(state, valid, dice)

    return ChallengeResult(
        outcome=outcome,
        challenge_type=kind,
        attacking_player=attacker_name,
        defending_player=defender_name,
        attackers=attackers,
        defenders=defenders,
        knelt=declaration.attackers + declaration.defenders,
        stealth_targets=declaration.stealth_targets,
        attacking_strength=attacking,
        defending_strength=defending,
        unopposed=unopposed,
        unopposed_bonus=unopposed_bonus,
        rivals_bonus=rivals_bonus,
        rival_defeated=rival_defeated,
        renown=renown,
        claim=claim,
        state=state,
    )


def _characters(state: GameState, player_name: str, names: Iterable[str]) -> list[Character]:
    player = state.player(player_name)
    assert player is not None
    found = [player.character(n) for n in names]
    return [c for c in found if c is not None]
