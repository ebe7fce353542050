"""Scenario tests for challenges, one per sentence of the Rules Reference p.28 (steps 4.2-4.2.4).

Each test is named after the step it checks and paraphrases the sentence in its docstring.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from rules.cardgame import (
    ChallengeDeclaration,
    ChallengeOutcome,
    ChallengeType,
    Character,
    GameState,
    IllegalChallenge,
    IllegalReason,
    KillChoiceNeeded,
    Player,
    StealthTarget,
    can_initiate,
    compare_strength,
    eligible_attackers,
    eligible_defenders,
    kill_characters,
    resolve_challenge,
    validate_declaration,
)
from rules.dice import ScriptedDice
from rules.errors import DiceExhausted, InvalidInput

MIL, INT, POW = ChallengeType.MILITARY, ChallengeType.INTRIGUE, ChallengeType.POWER
ALL = frozenset(ChallengeType)


def char(name: str, strength: int, *icons: ChallengeType, **flags: bool | int) -> Character:
    return Character(name, strength, frozenset(icons or ALL), **flags)  # type: ignore[arg-type]


def game(
    attackers: tuple[Character, ...],
    defenders: tuple[Character, ...] = (),
    *,
    attacker_power: int = 0,
    defender_power: int = 0,
    hand: tuple[str, ...] = (),
    initiated: frozenset[ChallengeType] = frozenset(),
) -> GameState:
    return GameState(
        (
            Player("Lannister", power=attacker_power, characters=attackers,
                   challenges_initiated=initiated),
            Player("Stark", power=defender_power, characters=defenders, hand=hand),
        ),
        "Lannister",
    )


def declare(kind: ChallengeType, attackers: tuple[str, ...], defenders: tuple[str, ...] = (),
            **kwargs: object) -> ChallengeDeclaration:
    return ChallengeDeclaration(kind, attackers, defenders, **kwargs)  # type: ignore[arg-type]


def player(state: GameState, name: str) -> Player:
    found = state.player(name)
    assert found is not None
    return found


def character(state: GameState, owner: str, name: str) -> Character:
    found = player(state, owner).character(name)
    assert found is not None
    return found


def no_dice() -> ScriptedDice:
    return ScriptedDice([])


JAIME = char("Jaime", 4, MIL, POW)
BRONN = char("Bronn", 2, MIL)
VARYS = char("Varys", 1, INT)
NED = char("Ned", 3, MIL, POW)
ROBB = char("Robb", 2, MIL)
CATELYN = char("Catelyn", 2, INT, POW)


# --- Step 4.2: initiating a challenge -------------------------------------------------------


def test_4_2_a_player_who_cannot_initiate_moves_on() -> None:
    """A player who cannot initiate a challenge (no eligible attacker) goes on to step 4.3."""
    state = game((char("Tyrion", 2, INT, kneeling=True), BRONN), (NED,))
    assert not can_initiate(state, INT)
    assert can_initiate(state, MIL)
    assert eligible_attackers(state, MIL) == (BRONN,)


def test_4_2_initiation_is_atomic() -> None:
    """Every initiation criterion holds together or the challenge is not initiated at all."""
    state = game((JAIME, BRONN), (replace(NED, kneeling=True),))
    with pytest.raises(IllegalChallenge) as caught:
        resolve_challenge(state, declare(MIL, ("Jaime", "Bronn"), ("Ned",)), dice=no_dice())
    assert caught.value.reason is IllegalReason.DEFENDER_KNEELING
    # Values are immutable: the attackers were not knelt and the type is still available.
    assert character(state, "Lannister", "Jaime").is_standing
    assert can_initiate(state, MIL)


def test_4_2_announces_the_challenge_type() -> None:
    """The active player announces military, intrigue or power; nothing else is a type."""
    result = resolve_challenge(game((VARYS,), (CATELYN,)), declare(INT, ("Varys",), ()),
                               dice=ScriptedDice([]))
    assert result.challenge_type is INT
    with pytest.raises(InvalidInput) as caught:
        ChallengeDeclaration("diplomacy", ("Varys",))  # type: ignore[arg-type]
    assert caught.value.field == "challenge"


def test_4_2_each_challenge_type_once_per_phase() -> None:
    """A player initiates each challenge type at most once in the challenges phase."""
    state = game((JAIME, BRONN), (NED,), initiated=frozenset({MIL}))
    assert not can_initiate(state, MIL)
    with pytest.raises(IllegalChallenge) as caught:
        validate_declaration(state, declare(MIL, ("Bronn",)))
    assert caught.value.reason is IllegalReason.ALREADY_INITIATED
    assert "military" in str(caught.value)


def test_4_2_the_initiated_type_is_used_up_whatever_the_outcome() -> None:
    """Initiating the challenge uses the type for the phase even when nobody wins it."""
    state = game((char("Pod", 0, MIL),), ())
    result = resolve_challenge(state, declare(MIL, ("Pod",)), dice=no_dice())
    assert result.outcome is ChallengeOutcome.NO_WINNER
    assert player(result.state, "Lannister").challenges_initiated == {MIL}
    assert not can_initiate(result.state, MIL)


def test_4_2_announces_the_opponent() -> None:
    """The challenge is against one announced opponent; with one opponent it is implied."""
    valid = validate_declaration(game((JAIME,), (NED,)), declare(MIL, ("Jaime",)))
    assert valid.defending_player == "Stark"
    assert valid.declaration.opponent == "Stark"
    with pytest.raises(IllegalChallenge) as caught:
        validate_declaration(game((JAIME,), (NED,)),
                             declare(MIL, ("Jaime",), opponent="Lannister"))
    assert caught.value.reason is IllegalReason.UNKNOWN_OPPONENT


def test_4_2_a_melee_challenge_must_name_its_opponent() -> None:
    """With several opponents the active player must say which one is challenged."""
    state = GameState(
        (Player("Lannister", characters=(JAIME,)), Player("Stark", characters=(NED,)),
         Player("Tyrell", characters=(char("Loras", 4, MIL),))),
        "Lannister", melee=True,
    )
    with pytest.raises(IllegalChallenge) as caught:
        validate_declaration(state, declare(MIL, ("Jaime",)))
    assert caught.value.reason is IllegalReason.OPPONENT_REQUIRED
    result = resolve_challenge(state, declare(MIL, ("Jaime",), ("Loras",), opponent="Tyrell",
                                              kills=("Loras",)), dice=no_dice())
    assert result.defending_player == "Tyrell"
    assert result.outcome is ChallengeOutcome.ATTACKER_WINS
    assert player(result.state, "Tyrell").dead_pile == ("Loras",)
    assert player(result.state, "Stark").characters == (NED,)


def test_4_2_attackers_kneel_when_declared() -> None:
    """Declared attackers are knelt, all at the same time."""
    result = resolve_challenge(game((JAIME, BRONN, VARYS), (NED,)),
                               declare(MIL, ("Jaime", "Bronn"), kills=("Ned",)), dice=no_dice())
    after = player(result.state, "Lannister")
    assert [c.kneeling for c in after.characters] == [True, True, False]
    assert result.knelt == ("Jaime", "Bronn")


def test_4_2_an_attacker_needs_the_challenge_icon() -> None:
    """To attack, a character must have the icon of the challenge being initiated."""
    with pytest.raises(IllegalChallenge) as caught:
        validate_declaration(game((JAIME, VARYS), (NED,)), declare(MIL, ("Jaime", "Varys")))
    assert caught.value.reason is IllegalReason.ATTACKER_LACKS_ICON
    assert caught.value.name == "Varys"


def test_4_2_an_attacker_must_be_standing() -> None:
    """To attack, a character must be standing."""
    state = game((replace(JAIME, kneeling=True), BRONN), (NED,))
    with pytest.raises(IllegalChallenge) as caught:
        validate_declaration(state, declare(MIL, ("Bronn", "Jaime")))
    assert caught.value.reason is IllegalReason.ATTACKER_KNEELING
    assert caught.value.name == "Jaime"


def test_4_2_attackers_are_the_active_players_own_characters() -> None:
    """Attackers are characters under the attacking player's control, each declared once."""
    state = game((JAIME,), (NED,))
    with pytest.raises(IllegalChallenge) as caught:
        validate_declaration(state, declare(MIL, ("Ned",)))
    assert caught.value.reason is IllegalReason.UNKNOWN_ATTACKER
    with pytest.raises(IllegalChallenge) as caught:
        validate_declaration(state, declare(MIL, ("Jaime", "Jaime")))
    assert caught.value.reason is IllegalReason.DUPLICATE_ATTACKER


def test_4_2_at_least_one_attacker() -> None:
    """At least one character must be declared as an attacker to initiate a challenge."""
    with pytest.raises(IllegalChallenge) as caught:
        validate_declaration(game((JAIME,), (NED,)), declare(MIL, ()))
    assert caught.value.reason is IllegalReason.NO_ATTACKERS


ARYA = char("Arya", 2, MIL, INT, stealth=True)


def test_4_2_stealth_attackers_choose_targets_when_declared() -> None:
    """A stealth attacker chooses its stealth target as the challenge is initiated."""
    state = game((ARYA,), (NED, ROBB))
    result = resolve_challenge(
        state,
        declare(MIL, ("Arya",), ("Robb",), stealth_targets=(StealthTarget("Arya", "Ned"),),
                kills=("Robb",)),
        dice=no_dice(),
    )
    assert result.stealth_targets == (StealthTarget("Arya", "Ned"),)
    assert result.outcome is ChallengeOutcome.ATTACKER_WINS  # 2 against Robb's 2: a tie


def test_4_2_stealth_is_optional() -> None:
    """Using stealth is up to the attacker's controller: a stealth attacker may choose none."""
    result = resolve_challenge(game((ARYA,), (NED,)), declare(MIL, ("Arya",), ("Ned",)),
                               dice=no_dice())
    assert result.stealth_targets == ()
    assert result.outcome is ChallengeOutcome.DEFENDER_WINS


@pytest.mark.parametrize(
    ("picks", "reason", "name"),
    [
        ((StealthTarget("Bronn", "Ned"),), IllegalReason.NO_STEALTH_KEYWORD, "Bronn"),
        ((StealthTarget("Shae", "Ned"),), IllegalReason.STEALTH_NOT_ATTACKING, "Shae"),
        ((StealthTarget("Arya", "Ned"), StealthTarget("Arya", "Robb")),
         IllegalReason.STEALTH_TARGET_TWICE, "Arya"),
        ((StealthTarget("Arya", "Hodor"),), IllegalReason.UNKNOWN_STEALTH_TARGET, "Hodor"),
        ((StealthTarget("Arya", "Jaqen"),), IllegalReason.STEALTH_TARGET_HAS_STEALTH, "Jaqen"),
    ],
)
def test_4_2_stealth_targets_are_chosen_legally(
    picks: tuple[StealthTarget, ...], reason: IllegalReason, name: str
) -> None:
    """Only a declared stealth attacker chooses a target: one character without stealth
    controlled by the defending player (the stealth keyword's own rule)."""
    state = game((ARYA, BRONN, char("Shae", 1, INT)),
                 (NED, ROBB, char("Jaqen", 3, MIL, stealth=True)))
    with pytest.raises(IllegalChallenge) as caught:
        validate_declaration(state, declare(MIL, ("Arya", "Bronn"), stealth_targets=picks))
    assert caught.value.reason is reason
    assert caught.value.name == name


def test_4_2_two_stealth_attackers_choose_a_target_each() -> None:
    """Each stealth attacker chooses its own target."""
    state = game((ARYA, char("Varys", 1, MIL, stealth=True)), (NED, ROBB))
    picks = (StealthTarget("Arya", "Ned"), StealthTarget("Varys", "Robb"))
    result = resolve_challenge(state, declare(MIL, ("Arya", "Varys"), stealth_targets=picks,
                                              kills=("Ned",)), dice=no_dice())
    assert result.unopposed
    assert eligible_defenders(player(state, "Stark"), MIL, picks) == ()


# --- Step 4.2.1: defenders ----------------------------------------------------------------


def test_4_2_1_declaring_defenders_is_optional() -> None:
    """The defending player may declare defenders, or none at all."""
    result = resolve_challenge(game((JAIME,), (NED,)), declare(MIL, ("Jaime",), (),
                                                               kills=("Ned",)), dice=no_dice())
    assert result.defenders == ()
    assert result.outcome is ChallengeOutcome.ATTACKER_WINS


def test_4_2_1_defenders_kneel_when_declared() -> None:
    """Declared defenders are knelt, all at the same time."""
    result = resolve_challenge(game((JAIME,), (NED, ROBB, CATELYN)),
                               declare(MIL, ("Jaime",), ("Ned", "Robb")), dice=no_dice())
    after = player(result.state, "Stark")
    assert [c.kneeling for c in after.characters] == [True, True, False]


def test_4_2_1_a_defender_needs_the_challenge_icon() -> None:
    """To defend, a character must have the icon of the challenge under way."""
    with pytest.raises(IllegalChallenge) as caught:
        validate_declaration(game((JAIME,), (NED, CATELYN)),
                             declare(MIL, ("Jaime",), ("Ned", "Catelyn")))
    assert caught.value.reason is IllegalReason.DEFENDER_LACKS_ICON
    assert caught.value.name == "Catelyn"


def test_4_2_1_a_defender_must_be_standing() -> None:
    """To defend, a character must be standing."""
    with pytest.raises(IllegalChallenge) as caught:
        validate_declaration(game((JAIME,), (replace(ROBB, kneeling=True),)),
                             declare(MIL, ("Jaime",), ("Robb",)))
    assert caught.value.reason is IllegalReason.DEFENDER_KNEELING


def test_4_2_1_defenders_are_the_defending_players_own_characters() -> None:
    """Defenders are characters the defending player controls, each declared once."""
    state = game((JAIME,), (NED,))
    with pytest.raises(IllegalChallenge) as caught:
        validate_declaration(state, declare(MIL, ("Jaime",), ("Jaime",)))
    assert caught.value.reason is IllegalReason.UNKNOWN_DEFENDER
    with pytest.raises(IllegalChallenge) as caught:
        validate_declaration(state, declare(MIL, ("Jaime",), ("Ned", "Ned")))
    assert caught.value.reason is IllegalReason.DUPLICATE_DEFENDER


def test_4_2_1_a_stealth_target_cannot_defend() -> None:
    """A character chosen as a stealth target is not eligible to be declared as a defender."""
    state = game((ARYA,), (NED, ROBB))
    picks = (StealthTarget("Arya", "Ned"),)
    assert [c.name for c in eligible_defenders(player(state, "Stark"), MIL, picks)] == ["Robb"]
    with pytest.raises(IllegalChallenge) as caught:
        validate_declaration(state, declare(MIL, ("Arya",), ("Ned",), stealth_targets=picks))
    assert caught.value.reason is IllegalReason.DEFENDER_IS_STEALTH_TARGET


# --- Step 4.2.2: comparing STR ------------------------------------------------------------


def test_4_2_2_combined_str_plus_modifiers_is_compared() -> None:
    """Each side's total is its participants' combined STR plus any active modifiers."""
    result = resolve_challenge(
        game((JAIME, BRONN), (NED, ROBB)),
        declare(MIL, ("Jaime", "Bronn"), ("Ned", "Robb"), attacker_modifier=-1,
                defender_modifier=2),
        dice=no_dice(),
    )
    assert (result.attacking_strength, result.defending_strength) == (5, 7)
    assert result.outcome is ChallengeOutcome.DEFENDER_WINS


def test_4_2_2_a_side_total_never_goes_below_zero() -> None:
    """A negative modifier takes a side's total down to 0 at most."""
    result = resolve_challenge(game((JAIME,), (ROBB,)),
                               declare(MIL, ("Jaime",), ("Robb",), defender_modifier=-5,
                                       kills=("Robb",)), dice=no_dice())
    assert result.defending_strength == 0
    assert result.unopposed


def test_4_2_2_the_higher_total_wins() -> None:
    """The player whose side has the higher total STR wins the challenge."""
    won = resolve_challenge(game((JAIME,), (ROBB,)), declare(MIL, ("Jaime",), ("Robb",),
                                                             kills=("Robb",)), dice=no_dice())
    assert won.outcome is ChallengeOutcome.ATTACKER_WINS
    assert (won.winner, won.loser) == ("Lannister", "Stark")
    lost = resolve_challenge(game((BRONN,), (NED,)), declare(MIL, ("Bronn",), ("Ned",)),
                             dice=no_dice())
    assert lost.outcome is ChallengeOutcome.DEFENDER_WINS
    assert (lost.winner, lost.loser) == ("Stark", "Lannister")


def test_4_2_2_a_tie_goes_to_the_attacker() -> None:
    """When the totals are equal, the attacking player wins."""
    result = resolve_challenge(game((BRONN,), (ROBB,)), declare(MIL, ("Bronn",), ("Robb",),
                                                                kills=("Robb",)), dice=no_dice())
    assert (result.attacking_strength, result.defending_strength) == (2, 2)
    assert result.outcome is ChallengeOutcome.ATTACKER_WINS


def test_4_2_2_no_winner_below_str_one() -> None:
    """If the side that would win has a total below 1, neither player wins or loses."""
    result = resolve_challenge(game((char("Pod", 0, MIL),), (char("Hodor", 0, MIL),)),
                               declare(MIL, ("Pod",), ("Hodor",)), dice=no_dice())
    assert result.outcome is ChallengeOutcome.NO_WINNER
    assert result.winner is None and result.loser is None
    assert result.claim is None and not result.unopposed


def test_4_2_2_no_winner_without_participating_characters() -> None:
    """If no character is participating on the side that would win, neither player wins."""
    # The defence has STR only from a modifier and no defender.
    result = resolve_challenge(game((BRONN,), (NED,)),
                               declare(MIL, ("Bronn",), (), defender_modifier=3),
                               dice=no_dice())
    assert (result.attacking_strength, result.defending_strength) == (2, 3)
    assert result.outcome is ChallengeOutcome.NO_WINNER
    # Every attacker left the challenge before STR was compared; a modifier alone cannot win.
    result = resolve_challenge(game((JAIME,), (NED,)),
                               declare(MIL, ("Jaime",), (), removed=("Jaime",),
                                       attacker_modifier=2), dice=no_dice())
    assert result.attacking_strength == 2
    assert result.attackers == ()
    assert result.outcome is ChallengeOutcome.NO_WINNER
    assert player(result.state, "Lannister").power == 0


def test_4_2_2_removed_characters_stop_counting() -> None:
    """Only characters still participating when STR is compared count (removed ones stay knelt)."""
    state = game((JAIME, BRONN), (NED,))
    result = resolve_challenge(state, declare(MIL, ("Jaime", "Bronn"), ("Ned",),
                                              removed=("Jaime",)), dice=no_dice())
    assert result.attacking_strength == 2
    assert result.outcome is ChallengeOutcome.DEFENDER_WINS
    assert character(result.state, "Lannister", "Jaime").kneeling
    with pytest.raises(IllegalChallenge) as caught:
        validate_declaration(state, declare(MIL, ("Bronn",), removed=("Jaime",)))
    assert caught.value.reason is IllegalReason.REMOVED_NOT_PARTICIPATING


@pytest.mark.parametrize(
    ("attacking", "defending", "attackers", "defenders", "expected"),
    [
        (1, 0, True, False, ChallengeOutcome.ATTACKER_WINS),
        (1, 0, True, True, ChallengeOutcome.ATTACKER_WINS),
        (0, 0, True, True, ChallengeOutcome.NO_WINNER),
        (0, 0, True, False, ChallengeOutcome.NO_WINNER),
        (3, 3, True, True, ChallengeOutcome.ATTACKER_WINS),
        (3, 3, False, True, ChallengeOutcome.NO_WINNER),
        (3, 4, True, True, ChallengeOutcome.DEFENDER_WINS),
        (3, 4, True, False, ChallengeOutcome.NO_WINNER),
        (0, 1, True, True, ChallengeOutcome.DEFENDER_WINS),
        (5, 4, False, True, ChallengeOutcome.NO_WINNER),
        (4, 5, True, True, ChallengeOutcome.DEFENDER_WINS),
        (10, 9, True, True, ChallengeOutcome.ATTACKER_WINS),
    ],
)
def test_4_2_2_strength_comparison_table(
    attacking: int, defending: int, attackers: bool, defenders: bool,
    expected: ChallengeOutcome,
) -> None:
    """Golden table of the comparison: higher wins, ties to the attacker, the would-be winner
    needs STR 1+ and a participating character."""
    assert compare_strength(attacking, defending, attackers_participating=attackers,
                            defenders_participating=defenders) is expected


def test_4_2_2_unopposed_when_the_defence_totals_zero() -> None:
    """An attacker who wins while the defending side's total STR is 0 wins unopposed."""
    empty = resolve_challenge(game((BRONN,), (NED,)), declare(MIL, ("Bronn",),
                                                              kills=("Ned",)), dice=no_dice())
    assert empty.unopposed
    zero = resolve_challenge(game((BRONN,), (char("Hodor", 0, MIL),)),
                             declare(MIL, ("Bronn",), ("Hodor",), kills=("Hodor",)),
                             dice=no_dice())
    assert zero.defenders == ("Hodor",)
    assert zero.unopposed
    opposed = resolve_challenge(game((JAIME,), (char("Page", 1, MIL),)),
                                declare(MIL, ("Jaime",), ("Page",), kills=("Page",)),
                                dice=no_dice())
    assert opposed.outcome is ChallengeOutcome.ATTACKER_WINS
    assert not opposed.unopposed


# --- Step 4.2.3: challenge bonuses --------------------------------------------------------


def test_4_2_3_unopposed_bonus() -> None:
    """After an unopposed win the attacking player gains 1 power for the faction card."""
    result = resolve_challenge(game((JAIME,), (NED,), attacker_power=2),
                               declare(POW, ("Jaime",)), dice=no_dice())
    assert result.unopposed_bonus == 1
    assert player(result.state, "Lannister").power == 3


def test_4_2_3_only_the_attacker_gets_an_unopposed_bonus() -> None:
    """A defender who wins against an attacking total of 0 gains no unopposed bonus."""
    state = game((char("Pod", 0, MIL),), (NED,), attacker_power=1, defender_power=1)
    result = resolve_challenge(state, declare(MIL, ("Pod",), ("Ned",)), dice=no_dice())
    assert result.outcome is ChallengeOutcome.DEFENDER_WINS
    assert not result.unopposed and result.unopposed_bonus == 0
    assert player(result.state, "Stark").power == 1


def melee(*, lannister_claimed: frozenset[str] = frozenset()) -> GameState:
    return GameState(
        (
            Player("Lannister", power=0, characters=(JAIME, BRONN), title="Hand of the King",
                   rivals=frozenset({"Master of Whispers", "Master of Laws"}),
                   rivals_claimed=lannister_claimed),
            Player("Stark", power=3, characters=(NED,), title="Master of Whispers",
                   rivals=frozenset({"Hand of the King"})),
            Player("Tyrell", power=3, characters=(char("Loras", 4, MIL, POW),),
                   title="Master of Laws"),
            Player("Greyjoy", power=3, characters=(char("Theon", 2, MIL, POW),),
                   title="Master of Ships"),
        ),
        "Lannister",
        melee=True,
    )


def test_4_2_3_rivals_bonus_in_melee() -> None:
    """In a melee, winning against a player whose title is a Rival on the winner's title gives
    the winner 1 power, together with the unopposed bonus."""
    result = resolve_challenge(melee(), declare(POW, ("Jaime",), (), opponent="Stark", claim=1),
                               dice=no_dice())
    assert result.rivals_bonus == 1
    assert result.rival_defeated == "Master of Whispers"
    lannister = player(result.state, "Lannister")
    # 1 unopposed + 1 rivals, gained together, then 1 power claimed.
    assert lannister.power == 3
    assert lannister.rivals_claimed == {"Master of Whispers"}


def test_4_2_3_rivals_bonus_goes_to_the_challenge_winner() -> None:
    """The rivals bonus goes to whoever wins, so a defender can earn it against an attacker."""
    result = resolve_challenge(melee(), declare(MIL, ("Bronn",), ("Ned",), opponent="Stark"),
                               dice=no_dice())
    assert result.outcome is ChallengeOutcome.DEFENDER_WINS
    assert result.rivals_bonus == 1
    assert player(result.state, "Stark").power == 4
    assert player(result.state, "Stark").rivals_claimed == {"Hand of the King"}


def test_4_2_3_rivals_bonus_once_per_rival_per_round() -> None:
    """No rivals bonus for a rival the winner already claimed it for this round; a different
    rival still gives one."""
    state = melee(lannister_claimed=frozenset({"Master of Whispers"}))
    again = resolve_challenge(state, declare(POW, ("Jaime",), (), opponent="Stark"),
                              dice=no_dice())
    assert again.rivals_bonus == 0
    other = resolve_challenge(state, declare(POW, ("Jaime",), (), opponent="Tyrell"),
                              dice=no_dice())
    assert other.rivals_bonus == 1
    assert player(other.state, "Lannister").rivals_claimed == {"Master of Whispers",
                                                               "Master of Laws"}


def test_4_2_3_no_rivals_bonus_against_a_non_rival() -> None:
    """Beating a player whose title is not a Rival on the winner's title gives no rivals bonus."""
    result = resolve_challenge(melee(), declare(POW, ("Jaime",), (), opponent="Greyjoy"),
                               dice=no_dice())
    assert result.rivals_bonus == 0
    assert player(result.state, "Lannister").power == 2  # unopposed bonus and claim


def test_4_2_3_no_rivals_bonus_outside_melee() -> None:
    """The rivals bonus belongs to melee games only."""
    state = GameState(
        (Player("Lannister", characters=(JAIME,), title="Hand of the King",
                rivals=frozenset({"Master of Whispers"})),
         Player("Stark", characters=(NED,), title="Master of Whispers")),
        "Lannister",
    )
    result = resolve_challenge(state, declare(POW, ("Jaime",)), dice=no_dice())
    assert result.rivals_bonus == 0
    assert player(result.state, "Lannister").power == 1


def test_4_2_3_no_bonus_when_nobody_wins() -> None:
    """Without a winner there are no challenge bonuses, no renown and no claim."""
    state = replace(melee(), players=tuple(
        p.with_characters((char("Pod", 0, POW, renown=True),)) if p.name == "Lannister" else p
        for p in melee().players))
    result = resolve_challenge(state, declare(POW, ("Pod",), (), opponent="Stark"),
                               dice=no_dice())
    assert result.outcome is ChallengeOutcome.NO_WINNER
    assert (result.unopposed_bonus, result.rivals_bonus, result.renown) == (0, 0, ())
    assert player(result.state, "Lannister").total_power == 0


# --- Renown ----------------------------------------------------------------------------------


def test_renown_participating_winners_gain_power() -> None:
    """Each participating renown character on the winning side gains 1 power on its card."""
    state = game((replace(JAIME, renown=True), replace(BRONN, renown=True),
                  char("Tywin", 5, MIL, renown=True)), (NED,))
    result = resolve_challenge(state, declare(MIL, ("Jaime", "Bronn"), ("Ned",),
                                              kills=("Ned",)), dice=no_dice())
    assert result.renown == ("Jaime", "Bronn")
    after = player(result.state, "Lannister")
    assert [c.power for c in after.characters] == [1, 1, 0]
    assert after.power == 0 and after.total_power == 2


def test_renown_for_a_winning_defender_not_a_losing_attacker() -> None:
    """Renown follows the winner: defending renown characters gain power, losing ones do not."""
    state = game((replace(BRONN, renown=True),), (replace(NED, renown=True),))
    result = resolve_challenge(state, declare(MIL, ("Bronn",), ("Ned",)), dice=no_dice())
    assert result.renown == ("Ned",)
    assert character(result.state, "Stark", "Ned").power == 1
    assert character(result.state, "Lannister", "Bronn").power == 0


def test_renown_not_for_removed_characters() -> None:
    """A renown character removed from the challenge is no longer participating and gains none."""
    state = game((replace(JAIME, renown=True), BRONN), ())
    result = resolve_challenge(state, declare(MIL, ("Jaime", "Bronn"), removed=("Jaime",)),
                               dice=no_dice())
    assert result.outcome is ChallengeOutcome.ATTACKER_WINS
    assert result.renown == ()


# --- Step 4.2.4: claim ----------------------------------------------------------------------


def test_4_2_4_claim_uses_the_claim_value() -> None:
    """The attacker's claim value (with modifiers) sets the size of the claim."""
    result = resolve_challenge(game((JAIME,), (NED,), defender_power=5),
                               declare(POW, ("Jaime",), claim=3), dice=no_dice())
    assert result.claim is not None
    assert (result.claim.value, result.claim.power_moved) == (3, 3)


def test_4_2_4_military_claim_kills_chosen_characters() -> None:
    """Military: the defending player chooses that many different characters and kills them;
    they need not have taken part in the challenge."""
    state = game((JAIME, BRONN), (NED, ROBB, replace(CATELYN, power=2)))
    result = resolve_challenge(state, declare(MIL, ("Jaime", "Bronn"), ("Ned",), claim=2,
                                              kills=("Catelyn", "Ned")), dice=no_dice())
    assert result.claim is not None
    assert result.claim.killed == ("Catelyn", "Ned")
    stark = player(result.state, "Stark")
    assert [c.name for c in stark.characters] == ["Robb"]
    assert stark.dead_pile == ("Catelyn", "Ned")
    assert stark.total_power == 0  # power on a killed character leaves with it


def test_4_2_4_military_claim_victims_are_different() -> None:
    """The characters chosen for a military claim must be different ones."""
    with pytest.raises(IllegalChallenge) as caught:
        resolve_challenge(game((JAIME,), (NED, ROBB)),
                          declare(MIL, ("Jaime",), claim=2, kills=("Ned", "Ned")),
                          dice=no_dice())
    assert caught.value.reason is IllegalReason.DUPLICATE_KILL
    with pytest.raises(IllegalChallenge) as caught:
        resolve_challenge(game((JAIME,), (NED,)), declare(MIL, ("Jaime",), kills=("Jaime",)),
                          dice=no_dice())
    assert caught.value.reason is IllegalReason.UNKNOWN_KILL


def test_4_2_4_military_claim_needs_enough_victims_named() -> None:
    """The defending player must name as many characters as the claim (or all they have)."""
    with pytest.raises(KillChoiceNeeded) as caught:
        resolve_challenge(game((JAIME,), (NED, ROBB)),
                          declare(MIL, ("Jaime",), claim=2, kills=("Ned",)), dice=no_dice())
    assert (caught.value.owed, caught.value.chosen) == (2, 1)


def test_4_2_4_military_kills_can_stay_owed() -> None:
    """Until the defending player chooses, the claim records how many kills are owed."""
    state = game((JAIME,), (NED, ROBB))
    result = resolve_challenge(state, declare(MIL, ("Jaime",), claim=3), dice=no_dice())
    assert result.claim is not None
    assert (result.claim.kills_owed, result.claim.killed) == (2, ())
    later = kill_characters(result.state, "Stark", ("Robb", "Ned"))
    assert player(later, "Stark").characters == ()
    assert player(later, "Stark").dead_pile == ("Robb", "Ned")


def test_4_2_4_intrigue_claim_discards_at_random() -> None:
    """Intrigue: the defending player discards that many cards from hand at random."""
    hand = ("Tears of Lys", "Nightmares", "Treachery", "Put to the Sword")
    result = resolve_challenge(game((VARYS,), (CATELYN,), hand=hand),
                               declare(INT, ("Varys",), claim=2), dice=ScriptedDice([4, 1]))
    assert result.claim is not None
    assert result.claim.discard_rolls == (4, 1)
    assert result.claim.discarded == ("Put to the Sword", "Tears of Lys")
    stark = player(result.state, "Stark")
    assert stark.hand == ("Nightmares", "Treachery")
    assert stark.discard_pile == ("Put to the Sword", "Tears of Lys")


def test_4_2_4_intrigue_discards_use_the_dice() -> None:
    """The random discards come from the dice passed in: one die sized to the cards left."""
    dice = ScriptedDice([2, 2, 1])
    result = resolve_challenge(game((VARYS,), (), hand=("a", "b", "c")),
                               declare(INT, ("Varys",), claim=3), dice=dice)
    assert [(r.sides, r.value) for r in dice.rolls] == [(3, 2), (2, 2), (1, 1)]
    assert result.claim is not None and result.claim.discarded == ("b", "c", "a")
    with pytest.raises(DiceExhausted):
        resolve_challenge(game((VARYS,), (), hand=("a", "b")), declare(INT, ("Varys",), claim=2),
                          dice=ScriptedDice([1]))


def test_4_2_4_power_claim_moves_power() -> None:
    """Power: the defending player's faction card loses that much power to the attacker's."""
    result = resolve_challenge(game((JAIME,), (NED,), attacker_power=1, defender_power=4),
                               declare(POW, ("Jaime",), ("Ned",), claim=2), dice=no_dice())
    assert result.claim is not None and result.claim.power_moved == 2
    assert player(result.state, "Lannister").power == 3
    assert player(result.state, "Stark").power == 2


def test_4_2_4_power_claim_leaves_power_on_characters() -> None:
    """A power claim takes power from the faction card only, not from characters."""
    state = game((JAIME,), (replace(NED, power=3),), defender_power=1)
    result = resolve_challenge(state, declare(POW, ("Jaime",), claim=2), dice=no_dice())
    assert result.claim is not None and result.claim.power_moved == 1
    assert character(result.state, "Stark", "Ned").power == 3


def test_4_2_4_no_claim_when_the_defender_wins() -> None:
    """If the defending player wins the challenge, no claim result occurs."""
    state = game((BRONN,), (NED,), defender_power=3, hand=("x",))
    for kind in (MIL, POW):
        attacker = replace(BRONN, icons=frozenset({kind}))
        defender = replace(NED, icons=frozenset({kind}))
        result = resolve_challenge(
            replace(state, players=(state.players[0].with_characters((attacker,)),
                                    state.players[1].with_characters((defender,)))),
            declare(kind, ("Bronn",), ("Ned",), claim=2), dice=no_dice())
        assert result.outcome is ChallengeOutcome.DEFENDER_WINS
        assert result.claim is None
        assert player(result.state, "Stark").power == 3
        assert [c.name for c in player(result.state, "Stark").characters] == ["Ned"]


@pytest.mark.parametrize(
    ("kind", "claim", "expected"),
    [
        (MIL, 3, 2),
        (MIL, 2, 2),
        (MIL, 1, 1),
        (INT, 5, 3),
        (INT, 3, 3),
        (INT, 2, 2),
        (POW, 9, 4),
        (POW, 4, 4),
        (POW, 3, 3),
    ],
)
def test_4_2_4_claim_is_capped_by_what_the_loser_has(
    kind: ChallengeType, claim: int, expected: int
) -> None:
    """A claim takes at most what the losing player has: characters, cards in hand, power."""
    state = game((replace(JAIME, icons=ALL),), (NED, ROBB), defender_power=4,
                 hand=("a", "b", "c"))
    result = resolve_challenge(state, declare(kind, ("Jaime",), claim=claim,
                                              kills=("Robb", "Ned")),
                               dice=ScriptedDice([1] * 5))
    assert result.claim is not None
    assert result.claim.applied == expected
    stark = player(result.state, "Stark")
    left = {MIL: len(stark.characters), INT: stark.hand_size, POW: stark.power}[kind]
    had = {MIL: 2, INT: 3, POW: 4}[kind]
    assert left == had - expected


@pytest.mark.parametrize("kind", list(ChallengeType))
def test_4_2_4_claim_zero_does_nothing(kind: ChallengeType) -> None:
    """A claim value of 0 kills, discards and moves nothing, and rolls no dice."""
    state = game((replace(JAIME, icons=ALL),), (replace(NED, icons=ALL),), defender_power=4,
                 hand=("a", "b"))
    dice = ScriptedDice([])
    result = resolve_challenge(state, declare(kind, ("Jaime",), ("Ned",), claim=0, kills=()),
                               dice=dice)
    assert result.claim is not None and result.claim.applied == 0
    stark = player(result.state, "Stark")
    assert (len(stark.characters), stark.hand_size, stark.power) == (1, 2, 4)
    assert dice.rolls == []


def test_4_2_4_claim_from_an_empty_hand_rolls_nothing() -> None:
    """An intrigue claim against an empty hand discards nothing and rolls no dice."""
    dice = ScriptedDice([])
    result = resolve_challenge(game((VARYS,), ()), declare(INT, ("Varys",), claim=2), dice=dice)
    assert result.claim is not None and result.claim.discarded == ()
    assert dice.rolls == []
