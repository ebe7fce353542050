"""Hypothesis properties of challenges: more STR never hurts; a claim never overreaches."""

from __future__ import annotations

from dataclasses import dataclass, replace

from hypothesis import given, settings
from hypothesis import strategies as st

from rules.cardgame import (
    ChallengeDeclaration,
    ChallengeOutcome,
    ChallengeResult,
    ChallengeType,
    Character,
    GameState,
    Player,
    resolve_challenge,
)
from rules.dice import SeededDice

ALL = frozenset(ChallengeType)


@dataclass(frozen=True)
class Table:
    state: GameState
    declaration: ChallengeDeclaration
    seed: int


@st.composite
def tables(draw: st.DrawFn) -> Table:
    attack = draw(st.lists(st.integers(0, 8), min_size=1, max_size=4))
    defend = draw(st.lists(st.integers(0, 8), max_size=4))
    idle = draw(st.lists(st.integers(0, 5), max_size=3))
    attackers = tuple(Character(f"A{i}", s, ALL, renown=draw(st.booleans()))
                      for i, s in enumerate(attack))
    defenders = tuple(Character(f"D{i}", s, ALL) for i, s in enumerate(defend))
    resting = tuple(Character(f"R{i}", s, ALL, kneeling=True) for i, s in enumerate(idle))
    hand = tuple(f"card {n}" for n in range(draw(st.integers(0, 6))))
    participants = [c.name for c in attackers + defenders]
    removed = tuple(draw(st.lists(st.sampled_from(participants), unique=True, max_size=2)))
    state = GameState(
        (Player("Lannister", power=draw(st.integers(0, 10)), characters=attackers),
         Player("Stark", power=draw(st.integers(0, 10)), hand=hand,
                characters=defenders + resting)),
        "Lannister",
    )
    declaration = ChallengeDeclaration(
        draw(st.sampled_from(list(ChallengeType))),
        attackers=tuple(c.name for c in attackers),
        defenders=tuple(c.name for c in defenders),
        claim=draw(st.integers(0, 6)),
        attacker_modifier=draw(st.integers(-4, 4)),
        defender_modifier=draw(st.integers(-4, 4)),
        removed=removed,
        kills=tuple(c.name for c in defenders + resting),
    )
    return Table(state, declaration, draw(st.integers(0, 2**32)))


def resolve(table: Table, declaration: ChallengeDeclaration | None = None) -> ChallengeResult:
    return resolve_challenge(table.state, declaration or table.declaration,
                             dice=SeededDice(table.seed))


def with_attacker_strength(table: Table, index: int, extra: int) -> Table:
    attacker = table.state.players[0]
    boosted = tuple(replace(c, strength=c.strength + extra) if i == index else c
                    for i, c in enumerate(attacker.characters))
    return replace(table, state=table.state.with_player(attacker.with_characters(boosted)))


@settings(max_examples=200, deadline=None)
@given(tables(), st.integers(0, 6), st.data())
def test_higher_attacker_str_never_loses_where_lower_wins(
    table: Table, extra: int, data: st.DataObject
) -> None:
    """Raising the attacking side's STR (a character's or a modifier) never turns an attacker's
    win into anything else, and never hands the defender a win it did not already have."""
    base = resolve(table).outcome
    index = data.draw(st.integers(0, len(table.declaration.attackers) - 1))
    stronger = [
        resolve(with_attacker_strength(table, index, extra)).outcome,
        resolve(table, replace(table.declaration,
                               attacker_modifier=table.declaration.attacker_modifier + extra)
                ).outcome,
    ]
    for outcome in stronger:
        if base is ChallengeOutcome.ATTACKER_WINS:
            assert outcome is ChallengeOutcome.ATTACKER_WINS
        if outcome is ChallengeOutcome.DEFENDER_WINS:
            assert base is ChallengeOutcome.DEFENDER_WINS


@settings(max_examples=200, deadline=None)
@given(tables(), st.integers(0, 6))
def test_higher_defender_str_never_loses_where_lower_wins(table: Table, extra: int) -> None:
    """The same holds for the defending side: more STR never costs the defender a win."""
    base = resolve(table).outcome
    stronger = resolve(table, replace(
        table.declaration, defender_modifier=table.declaration.defender_modifier + extra
    )).outcome
    if base is ChallengeOutcome.DEFENDER_WINS:
        assert stronger is ChallengeOutcome.DEFENDER_WINS
    if stronger is ChallengeOutcome.ATTACKER_WINS:
        assert base is ChallengeOutcome.ATTACKER_WINS


@settings(max_examples=200, deadline=None)
@given(tables())
def test_claim_never_takes_more_than_the_loser_has(table: Table) -> None:
    """A claim takes exactly the claim value or everything the loser has, whichever is less,
    and what the loser loses is what the claim reports (power goes to the winner)."""
    result = resolve(table)
    before = table.state.players[1]
    after = result.state.players[1]
    if result.claim is None:
        assert result.outcome is not ChallengeOutcome.ATTACKER_WINS
        assert (after.power, after.hand, len(after.characters)) == (
            before.power, before.hand, len(before.characters))
        return
    claim = result.claim
    kind = table.declaration.challenge_type
    had = {ChallengeType.MILITARY: len(before.characters),
           ChallengeType.INTRIGUE: before.hand_size,
           ChallengeType.POWER: before.power}[kind]
    left = {ChallengeType.MILITARY: len(after.characters),
            ChallengeType.INTRIGUE: after.hand_size,
            ChallengeType.POWER: after.power}[kind]
    assert claim.applied == min(table.declaration.claim, had)
    assert left == had - claim.applied >= 0
    if kind is ChallengeType.POWER:
        gained = result.state.players[0].power - table.state.players[0].power
        assert gained == claim.power_moved + result.unopposed_bonus + result.rivals_bonus
    if kind is ChallengeType.INTRIGUE:
        assert sorted(after.hand + claim.discarded) == sorted(before.hand)
