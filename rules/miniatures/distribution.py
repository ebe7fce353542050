"""Exact wound distributions, by convolution over dice outcomes (no sampling).

A pool's dice fall into three kinds that every re-roll effect can tell apart: natural 1s, other
failures, and successes. Without re-roll limits the dice are independent, so one die's chance of
ending as a success (after both players' re-rolls) gives a binomial count. With a limit the dice
are not independent any more, and the pool is followed as counts of the three kinds, with
integer weights over a power-of-six denominator. Hits then feed the defense pool (one die per
hit), unblocked hits are wounds, and a panic test adds its wounds when the unit was wounded but
not destroyed. Every figure is a :class:`fractions.Fraction`.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from math import comb

from rules.miniatures.attack import AttackSpec
from rules.miniatures.morale import morale_pass_chance
from rules.miniatures.rolls import (
    MAX_POOL,
    PoolRerolls,
    RerollFaces,
    Side,
    check_modifier,
    check_target,
    check_whole,
    die_succeeds,
)

_Kinds = tuple[int, int, int]  # natural 1s, other failures, successes


def _face_counts(target: int, modifier: int) -> _Kinds:
    successes = sum(1 for face in range(2, 7) if die_succeeds(face, target, modifier))
    return 1, 5 - successes, successes


@lru_cache(maxsize=512)
def _outcomes(count: int, weights: _Kinds) -> tuple[tuple[_Kinds, int], ...]:
    """Every split of ``count`` fresh dice into the three kinds, with its number of face
    combinations (so its chance is that weight over 6**count)."""
    w1, wf, ws = weights
    out = []
    for ones in range(count + 1):
        for fails in range(count - ones + 1):
            succ = count - ones - fails
            ways = comb(count, ones) * comb(count - ones, fails)
            weight = ways * w1**ones * wf**fails * ws**succ
            if weight:
                out.append(((ones, fails, succ), weight))
    return tuple(out)


def _take(state: _Kinds, faces: RerollFaces, limit: int | None) -> tuple[_Kinds, int]:
    """The dice a re-roll effect leaves alone, and how many it re-rolls (same choice as
    :func:`rules.miniatures.rolls.select_rerolls`: natural 1s before other failures)."""
    ones, fails, succ = state
    cap = limit if limit is not None else ones + fails + succ
    if faces is RerollFaces.ONES:
        n = min(ones, cap)
        return (ones - n, fails, succ), n
    if faces is RerollFaces.FAILURES:
        n1 = min(ones, cap)
        n2 = min(fails, cap - n1)
        return (ones - n1, fails - n2, succ), n1 + n2
    if faces is RerollFaces.SUCCESSES:
        n = min(succ, cap)
        return (ones, fails, succ - n), n
    return state, 0


def _binomial(count: int, p: Fraction) -> tuple[Fraction, ...]:
    num, den = p.numerator, p.denominator
    total = den**count
    return tuple(
        Fraction(comb(count, k) * num**k * (den - num) ** (count - k), total)
        for k in range(count + 1)
    )


def _independent(count: int, weights: _Kinds, stages: tuple[RerollFaces, ...]
                 ) -> tuple[Fraction, ...]:
    fresh = tuple(Fraction(w, 6) for w in weights)
    one, fail, succ = fresh
    for faces in stages:
        if faces is RerollFaces.ONES:
            moved, one = one, Fraction(0)
        elif faces is RerollFaces.FAILURES:
            moved, one, fail = one + fail, Fraction(0), Fraction(0)
        elif faces is RerollFaces.SUCCESSES:
            moved, succ = succ, Fraction(0)
        else:
            continue
        one, fail, succ = one + moved * fresh[0], fail + moved * fresh[1], succ + moved * fresh[2]
    return _binomial(count, succ)


def _by_counts(count: int, weights: _Kinds,
               stages: tuple[tuple[RerollFaces, int | None], ...]) -> tuple[Fraction, ...]:
    states: dict[_Kinds, int] = dict(_outcomes(count, weights))
    scale = 6**count  # the common denominator so far
    for faces, limit in stages:
        nxt: dict[_Kinds, int] = {}
        for state, weight in states.items():
            kept, n = _take(state, faces, limit)
            # Rolling n dice has denominator 6**n; lift it to the shared 6**count.
            lift = weight * 6 ** (count - n)
            for (a, b, c), w in _outcomes(n, weights):
                key = (kept[0] + a, kept[1] + b, kept[2] + c)
                nxt[key] = nxt.get(key, 0) + lift * w
        states = nxt
        scale *= 6**count
    result = [0] * (count + 1)
    for (_, _, succ), weight in states.items():
        result[succ] += weight
    return tuple(Fraction(w, scale) for w in result)


@lru_cache(maxsize=4096)
def pool_distribution(count: int, target: int, modifier: int, rerolls: PoolRerolls,
                      active: Side) -> tuple[Fraction, ...]:
    """The exact chance of each number of successes (index = successes) when ``count`` dice
    roll against ``target`` with ``modifier`` and both players' re-rolls, active player first.

    Raises InvalidInput for a bad count, target or modifier.
    """
    check_whole("count", count, 0, MAX_POOL, f"0 to {MAX_POOL} dice")
    check_target("target", target)
    check_modifier("modifier", modifier)
    weights = _face_counts(target, modifier)
    stages = tuple((r.faces, r.limit) for _, r in rerolls.in_order(active))
    if all(limit is None or limit >= count for _, limit in stages):
        return _independent(count, weights, tuple(faces for faces, _ in stages))
    return _by_counts(count, weights, stages)


@dataclass(frozen=True, slots=True)
class WoundDistribution:
    """The exact distribution of an attack's total wounds (index = wounds)."""

    spec: AttackSpec
    wounds: tuple[Fraction, ...]  # total wounds, panic included
    hits: tuple[Fraction, ...]  # attack dice that hit
    attack_wounds: tuple[Fraction, ...]  # unblocked hits, before the panic test
    panic_failure: Fraction  # chance that the defender fails a rolled panic test

    @property
    def expected(self) -> Fraction:
        """The expected total wounds."""
        return sum((k * p for k, p in enumerate(self.wounds)), Fraction(0))

    @property
    def expected_hits(self) -> Fraction:
        """The expected number of hits."""
        return sum((k * p for k, p in enumerate(self.hits)), Fraction(0))

    @property
    def panic_chance(self) -> Fraction:
        """The chance that the attack ends with a failed panic test."""
        spec = self.spec
        if spec.morale is None:
            return Fraction(0)
        cap = spec.target_wounds
        wounded = sum(
            (p for w, p in enumerate(self.attack_wounds) if w > 0 and (cap is None or w < cap)),
            Fraction(0),
        )
        return wounded * self.panic_failure

    def exactly(self, wounds: int) -> Fraction:
        """The chance of exactly ``wounds`` wounds."""
        return self.wounds[wounds] if 0 <= wounds < len(self.wounds) else Fraction(0)

    def at_least(self, wounds: int) -> Fraction:
        """The chance of ``wounds`` wounds or more."""
        return sum(self.wounds[max(wounds, 0):], Fraction(0))

    def items(self) -> Iterator[tuple[int, Fraction]]:
        """(wounds, chance) for every possible number of wounds."""
        return ((w, p) for w, p in enumerate(self.wounds) if p)


def wound_distribution(spec: AttackSpec) -> WoundDistribution:
    """The exact chance of each total number of wounds ``spec`` deals, with the panic test's
    wounds when ``spec.morale`` is set. Raises nothing beyond AttackSpec's own validation."""
    hits = pool_distribution(spec.dice, spec.to_hit, spec.hit_modifier, spec.attack_rerolls,
                             spec.active)
    unblocked = [Fraction(0)] * (spec.dice + 1)
    for h, p_hits in enumerate(hits):
        if not p_hits:
            continue
        saves = pool_distribution(h, spec.defense, spec.defense_modifier, spec.defense_rerolls,
                                  spec.active)
        for s, p_saves in enumerate(saves):
            if p_saves:
                unblocked[h - s] += p_hits * p_saves
    cap = spec.target_wounds
    if cap is not None:
        capped = [Fraction(0)] * (min(cap, spec.dice) + 1)
        for w, p in enumerate(unblocked):
            capped[min(w, cap)] += p
        unblocked = capped
    fail = Fraction(0)
    if spec.morale is None:
        return WoundDistribution(spec, tuple(unblocked), hits, tuple(unblocked), fail)
    fail = 1 - morale_pass_chance(spec.morale, spec.morale_modifier)
    extra = spec.panic_wounds.possible
    top = len(unblocked) - 1 + max(extra)
    if cap is not None:
        top = min(top, cap)
    total = [Fraction(0)] * (top + 1)
    for w, p in enumerate(unblocked):
        if not p:
            continue
        if w == 0 or (cap is not None and w >= cap):
            total[w] += p
            continue
        total[w] += p * (1 - fail)
        share = p * fail / len(extra)
        for k in extra:
            total[w + k if cap is None else min(w + k, cap)] += share
    while len(total) > 1 and not total[-1]:
        total.pop()
    return WoundDistribution(spec, tuple(total), hits, tuple(unblocked), fail)
