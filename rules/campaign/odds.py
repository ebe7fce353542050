"""Exact odds of a battle, computed from the dice rather than sampled.

Every die result of :func:`rules.campaign.battle.resolve_battle` is enumerated with
:class:`fractions.Fraction` weights. In the equal band ties are re-rolled, so the chance of each
final pair is conditional on the pair not being tied (uniform over the untied pairs). The same
chart lookups as the battle itself give each outcome's casualties, so the expected losses are
exact too. With the default config the chart's published odds come out: 60% for 1.26-1.50, 65%,
70%, 80%, 90%, 95% and 97.5% for 3.51-4.00, and 50% in the equal band.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

from rules.campaign.battle import (
    BATTLE_DIE,
    EQUAL_DIE,
    EXTRA_DIE,
    Matchup,
    Sides,
    Strength,
    Winner,
    armies_of,
    casualty_row,
    flat_roll_of,
    losses_for,
    matchup,
    penalty_of,
    stronger_total,
)
from rules.campaign.config import DEFAULT_RULES, RulesConfig


@dataclass(frozen=True, slots=True)
class Outcome:
    """One way the battle can end: the winner, the margin (None: automatic) and its chance."""

    winner: Winner
    margin: int | None
    probability: Fraction


@dataclass(frozen=True, slots=True)
class ExpectedLosses:
    """Expected units lost per troop type (captured units included), exactly."""

    infantry: Fraction = Fraction(0)
    cavalry: Fraction = Fraction(0)
    ships: Fraction = Fraction(0)

    @property
    def total(self) -> Fraction:
        return self.infantry + self.cavalry + self.ships


@dataclass(frozen=True, slots=True)
class Odds:
    """The exact chances of a battle and what each side can expect to lose.

    ``attacker_win + defender_win == 1``. ``*_captured`` is the chance that side's whole army is
    captured (margin 22+ or an automatic defeat). ``outcomes`` lists every (winner, margin) with
    its chance, most likely first within each winner.
    """

    band: str
    ratio: Decimal | None
    attacker_strength: Strength
    defender_strength: Strength
    attacker_win: Fraction
    defender_win: Fraction
    attacker_losses: ExpectedLosses
    defender_losses: ExpectedLosses
    attacker_captured: Fraction
    defender_captured: Fraction
    outcomes: tuple[Outcome, ...]


def _raw_outcomes(m: Matchup, attacker: Sides, defender: Sides, rules: RulesConfig
                  ) -> tuple[int, Iterator[tuple[Winner, int | None]]]:
    """How many equally likely die results there are, and the (winner, margin) of each."""
    auto = m.automatic_winner
    if auto is not None:
        return 1, iter([(auto, None)])
    if m.band.equal:
        a_pen, d_pen = penalty_of(attacker, rules), penalty_of(defender, rules)
        # Tied pairs are re-rolled: the final pair is uniform over the untied ones.
        pairs = [(a - a_pen, d - d_pen) for a in range(1, EQUAL_DIE + 1)
                 for d in range(1, EQUAL_DIE + 1) if a - a_pen != d - d_pen]
        return len(pairs), ((Winner.ATTACKER if a > d else Winner.DEFENDER, abs(a - d))
                            for a, d in pairs)
    assert m.stronger is not None
    stronger = m.stronger
    strong, weak = (attacker, defender) if stronger is Winner.ATTACKER else (defender, attacker)
    flat = flat_roll_of(weak, rules)
    extra = range(1, EXTRA_DIE + 1) if m.band.d2 else range(1)
    totals = [stronger_total(d20, d2, m.band, strong, rules)
              for d20 in range(1, BATTLE_DIE + 1) for d2 in extra]
    return len(totals), ((stronger if total >= flat else stronger.other, abs(total - flat))
                         for total in totals)


def battle_odds(attacker: Sides, defender: Sides, rules: RulesConfig = DEFAULT_RULES) -> Odds:
    """The exact probability that each side wins, and each side's expected losses.

    Each side is one army or several (their strengths summed; each army's losses rounded on
    their own, as the battle does).

    Follows :func:`rules.campaign.battle.resolve_battle` outcome by outcome (same bands,
    penalties, casualty chart and capture). Raises InvalidInput for a malformed side.
    """
    m = matchup(attacker, defender, rules)
    # Whole counts of equally likely results, divided once at the end: exact and quick.
    den, results = _raw_outcomes(m, attacker, defender, rules)
    counts: dict[tuple[Winner, int | None], int] = {}
    for key in results:
        counts[key] = counts.get(key, 0) + 1
    win = {Winner.ATTACKER: 0, Winner.DEFENDER: 0}
    captured = {Winner.ATTACKER: 0, Winner.DEFENDER: 0}
    lost = {Winner.ATTACKER: [0, 0, 0], Winner.DEFENDER: [0, 0, 0]}
    troops = {Winner.ATTACKER: [a.troops for a in armies_of(attacker)],
              Winner.DEFENDER: [a.troops for a in armies_of(defender)]}
    for (winner, margin), n in counts.items():
        win[winner] += n
        if m.both_empty:
            continue
        row = casualty_row(margin, rules)
        loser = winner.other
        if row.captured:
            captured[loser] += n
        for side, pct, taken in ((winner, row.winner_pct, False),
                                 (loser, row.loser_pct, row.captured)):
            acc = lost[side]
            for army in troops[side]:
                losses = losses_for(army, pct, taken)
                acc[0] += n * losses.infantry
                acc[1] += n * losses.cavalry
                acc[2] += n * losses.ships
    merged = {key: Fraction(n, den) for key, n in counts.items()}
    expected = {side: ExpectedLosses(*(Fraction(v, den) for v in acc))
                for side, acc in lost.items()}
    outcomes = tuple(Outcome(w, margin, p) for (w, margin), p in sorted(
        merged.items(), key=lambda item: (item[0][0] is Winner.DEFENDER, -item[1],
                                          item[0][1] or 0)))
    return Odds(m.band.name, m.ratio, m.attacker, m.defender,
                Fraction(win[Winner.ATTACKER], den), Fraction(win[Winner.DEFENDER], den),
                expected[Winner.ATTACKER], expected[Winner.DEFENDER],
                Fraction(captured[Winner.ATTACKER], den), Fraction(captured[Winner.DEFENDER], den),
                outcomes)
