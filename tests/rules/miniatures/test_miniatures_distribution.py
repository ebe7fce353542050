"""Exact wound distributions: closed forms, exhaustive enumeration of the dice, and properties
(probabilities sum to 1; more dice or a better to-hit never lower expected wounds)."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from math import comb

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.dice import ScriptedDice, SeededDice
from rules.miniatures.attack import AttackSpec, resolve_attack
from rules.miniatures.distribution import (
    _by_counts,
    _face_counts,
    pool_distribution,
    wound_distribution,
)
from rules.miniatures.morale import PanicWounds
from rules.miniatures.rolls import (
    PoolRerolls,
    Reroll,
    RerollFaces,
    Side,
    roll_pool,
)
from tests.rules.miniatures.helpers import enumerate_outcomes

F = RerollFaces
A = Side.ATTACKER
D = Side.DEFENDER


def binomial(n: int, p: Fraction) -> tuple[Fraction, ...]:
    return tuple(comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(n + 1))


@pytest.mark.parametrize(("target", "modifier", "p"), [
    (2, 0, Fraction(5, 6)), (3, 0, Fraction(4, 6)), (4, 0, Fraction(3, 6)),
    (5, 0, Fraction(2, 6)), (6, 0, Fraction(1, 6)),
    (4, 1, Fraction(4, 6)), (4, -1, Fraction(2, 6)),
    (2, 6, Fraction(5, 6)),  # a natural 1 still misses
    (6, -6, Fraction(1, 6)),  # a natural 6 still hits
    (3, -3, Fraction(1, 6)),
])
def test_single_die_hit_chance_golden(target: int, modifier: int, p: Fraction) -> None:
    """One die's hit chance: the faces reaching the value after modifiers, with natural 1s
    always missing and natural 6s always hitting."""
    assert pool_distribution(1, target, modifier, PoolRerolls(), A) == (1 - p, p)


@pytest.mark.parametrize(("faces", "p"), [
    (F.FAILURES, Fraction(1, 2) + Fraction(1, 2) * Fraction(1, 2)),
    (F.ONES, Fraction(1, 2) + Fraction(1, 6) * Fraction(1, 2)),
    (F.SUCCESSES, Fraction(1, 2) * Fraction(1, 2)),
])
def test_single_die_reroll_golden(faces: RerollFaces, p: Fraction) -> None:
    """Re-rolling misses at 4+ gives 3/4, re-rolling 1s 7/12, a forced re-roll of hits 1/4."""
    side = D if faces is F.SUCCESSES else A
    rerolls = PoolRerolls(**{side.value: Reroll(faces)})
    assert pool_distribution(1, 4, 0, rerolls, A) == (1 - p, p)


def test_eight_dice_4_up_against_5_up_is_binomial_one_third() -> None:
    """Each die wounds when it hits (1/2) and its defense die fails (2/3): 8 dice give
    Binomial(8, 1/3) wounds, expected 8/3."""
    dist = wound_distribution(AttackSpec(8, 4, 5))
    assert dist.wounds == binomial(8, Fraction(1, 3))
    assert dist.expected == Fraction(8, 3)
    assert dist.exactly(0) == Fraction(2, 3) ** 8


def test_one_die_with_panic_golden() -> None:
    """One die at 4+ against 4+ wounds with chance 1/4; morale 7 fails on 15 of 36 rolls, then
    1 + d3 more wounds (updated rule): 0 = 3/4, 1 = 1/4 * 21/36, and 3, 4, 5 = 1/4 * 15/36 / 3
    each."""
    spec = AttackSpec(1, 4, 4, morale=7, panic_wounds=PanicWounds.ONE_PLUS_D3)
    dist = wound_distribution(spec)
    third = Fraction(1, 4) * Fraction(15, 36) / 3
    assert dist.wounds == (Fraction(3, 4), Fraction(1, 4) * Fraction(21, 36), Fraction(0),
                           third, third, third)
    assert dist.panic_chance == Fraction(1, 4) * Fraction(15, 36)


def test_distribution_caps_at_the_targets_remaining_wounds() -> None:
    """Wounds beyond what the target has left are lost, and a destroyed unit takes no panic
    test, so the top value collects every larger result."""
    free = wound_distribution(AttackSpec(6, 3, 6))
    capped = wound_distribution(AttackSpec(6, 3, 6, target_wounds=2, morale=12))
    assert len(capped.wounds) == 3
    assert capped.wounds[0] == free.wounds[0]
    assert capped.at_least(2) >= free.at_least(2)
    assert sum(capped.wounds) == 1


ENUMERATED_POOLS = [
    (2, 4, 0, PoolRerolls(attacker=Reroll(F.FAILURES), defender=Reroll(F.SUCCESSES)), A),
    (2, 4, 0, PoolRerolls(attacker=Reroll(F.FAILURES), defender=Reroll(F.SUCCESSES)), D),
    (2, 3, 1, PoolRerolls(attacker=Reroll(F.ONES)), A),
    (3, 5, 0, PoolRerolls(attacker=Reroll(F.FAILURES, 1)), A),
    (2, 4, -1, PoolRerolls(attacker=Reroll(F.FAILURES, 1), defender=Reroll(F.SUCCESSES, 1)), D),
    (3, 2, 0, PoolRerolls(defender=Reroll(F.SUCCESSES, 2)), A),
    (3, 6, 0, PoolRerolls(attacker=Reroll(F.ONES, 1), defender=Reroll(F.SUCCESSES)), A),
]


@pytest.mark.parametrize(("count", "target", "modifier", "rerolls", "active"), ENUMERATED_POOLS)
def test_pool_distribution_matches_every_way_the_dice_can_fall(
    count: int, target: int, modifier: int, rerolls: PoolRerolls, active: Side
) -> None:
    """The convolution equals an exhaustive walk through every die sequence that
    :func:`roll_pool` can be given, re-rolls and their order included."""

    def run(dice: ScriptedDice) -> int:
        return roll_pool(count, target, modifier, rerolls, active=active, dice=dice,
                         label="x").successes

    walked = enumerate_outcomes(run)
    exact = pool_distribution(count, target, modifier, rerolls, active)
    assert {k: p for k, p in enumerate(exact) if p} == walked


ENUMERATED_ATTACKS = [
    AttackSpec(1, 4, 4, morale=7, panic_wounds=PanicWounds.ONE_PLUS_D3),
    AttackSpec(1, 4, 4, morale=7, target_wounds=2, morale_modifier=-1),
    AttackSpec(1, 3, 5, attack_rerolls=PoolRerolls(Reroll(F.FAILURES), Reroll(F.SUCCESSES)),
               defense_rerolls=PoolRerolls(Reroll(F.SUCCESSES), Reroll(F.ONES))),
    AttackSpec(2, 4, 5, hit_modifier=1, defense_modifier=-1,
               attack_rerolls=PoolRerolls(defender=Reroll(F.SUCCESSES, 1)), active=D),
]


@pytest.mark.parametrize("spec", ENUMERATED_ATTACKS)
def test_wound_distribution_matches_every_way_the_dice_can_fall(spec: AttackSpec) -> None:
    """A whole attack's distribution (hits, defense, panic, cap) equals the exhaustive walk of
    :func:`resolve_attack` over every die sequence."""
    walked = enumerate_outcomes(lambda dice: resolve_attack(spec, dice=dice).wounds)
    assert dict(wound_distribution(spec).items()) == walked


def test_twelve_dice_with_rerolls_and_panic_is_fast_and_exact() -> None:
    """The benchmark case: 12 dice with re-rolls on both pools and a panic test is computed
    exactly (total 1) in well under a second."""
    import time

    spec = AttackSpec(12, 4, 5, morale=6,
                      attack_rerolls=PoolRerolls(Reroll(F.FAILURES), Reroll(F.SUCCESSES, 2)),
                      defense_rerolls=PoolRerolls(Reroll(F.SUCCESSES, 1), Reroll(F.FAILURES)))
    pool_distribution.cache_clear()
    start = time.perf_counter()
    dist = wound_distribution(spec)
    assert time.perf_counter() - start < 0.5
    assert sum(dist.wounds) == 1


rerolls_st = st.builds(
    Reroll, st.sampled_from(list(RerollFaces)), st.sampled_from([None, 1, 2, 3])
)
pool_rerolls_st = st.builds(PoolRerolls, rerolls_st, rerolls_st)
specs = st.builds(
    AttackSpec,
    dice=st.integers(0, 12),
    to_hit=st.integers(2, 6),
    defense=st.integers(2, 6),
    morale=st.none() | st.integers(2, 12),
    hit_modifier=st.integers(-2, 2),
    defense_modifier=st.integers(-2, 2),
    morale_modifier=st.integers(-2, 2),
    attack_rerolls=pool_rerolls_st,
    defense_rerolls=pool_rerolls_st,
    active=st.sampled_from(list(Side)),
    panic_wounds=st.sampled_from(list(PanicWounds)),
    target_wounds=st.none() | st.integers(1, 15),
)


@settings(max_examples=120, deadline=None)
@given(specs)
def test_property_probabilities_sum_to_exactly_one(spec: AttackSpec) -> None:
    """Every distribution's chances add up to exactly 1 (exact fractions, no rounding)."""
    dist = wound_distribution(spec)
    assert sum(dist.wounds, Fraction(0)) == 1
    assert sum(dist.hits, Fraction(0)) == 1
    assert all(p >= 0 for p in dist.wounds)


@settings(max_examples=120, deadline=None)
@given(specs.filter(lambda s: s.dice < 12))
def test_property_more_dice_never_lower_expected_wounds(spec: AttackSpec) -> None:
    """Adding an attack die never lowers the expected wounds."""
    more = replace(spec, dice=spec.dice + 1)
    assert wound_distribution(more).expected >= wound_distribution(spec).expected


@settings(max_examples=120, deadline=None)
@given(specs.filter(lambda s: s.to_hit > 2))
def test_property_better_to_hit_never_lowers_expected_wounds(spec: AttackSpec) -> None:
    """A lower (better) to-hit value never lowers the expected wounds."""
    better = replace(spec, to_hit=spec.to_hit - 1)
    assert wound_distribution(better).expected >= wound_distribution(spec).expected


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 8), st.integers(2, 6), st.integers(-2, 2), pool_rerolls_st,
       st.sampled_from(list(Side)))
def test_property_independent_shortcut_equals_the_count_walk(
    count: int, target: int, modifier: int, rerolls: PoolRerolls, active: Side
) -> None:
    """The binomial shortcut used without re-roll limits agrees with the general walk over
    counts of natural 1s, other failures and successes."""
    unlimited = PoolRerolls(Reroll(rerolls.attacker.faces), Reroll(rerolls.defender.faces))
    stages = tuple((r.faces, r.limit) for _, r in unlimited.in_order(active))
    general = _by_counts(count, _face_counts(target, modifier), stages)
    assert pool_distribution(count, target, modifier, unlimited, active) == general


@settings(max_examples=60, deadline=None)
@given(specs, st.integers(0, 2**32))
def test_property_rolled_attacks_land_inside_the_distribution(spec: AttackSpec, seed: int
                                                              ) -> None:
    """Any attack actually rolled ends on a number of wounds the distribution gives a
    positive chance."""
    result = resolve_attack(spec, dice=SeededDice(seed))
    assert wound_distribution(spec).exactly(result.wounds) > 0

