"""What an assault's public post may say without narrowing down the secret defense bonus.

A holdfast's defense bonus is secret, but the size of the attacker, the garrison, the terrain
and the battle chart are public. Casualty percentages come from the margin of the rolls, and
the margin's possible values depend on the band of the strength ratio, which depends on the
bonus: publishing exact percentages let two assaults pin a bonus to [2.01, 2.50], and a
capture showed the ratio was above 4.

The bonus of every holdfast lies in the campaign's public range
(``defense_bonus_min``..``defense_bonus_max``). :func:`public_assault` publishes a fact only
when, for **every** bonus in that range, some roll of the dice produces the same fact; then the
post is consistent with each bonus of the range, whatever else is published, and no number of
posts narrows it (the dice of different assaults are independent). It tries, from most to
least informative: the winner and each side's losses as a band of percentages; the winner
alone; nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from decimal import Decimal
from fractions import Fraction
from itertools import pairwise, product

from rules.campaign.battle import (
    BATTLE_DIE,
    EQUAL_DIE,
    EXTRA_DIE,
    BattleResult,
    Side,
    Winner,
    matchup,
    resolve_battle,
)
from rules.campaign.config import DEFAULT_RULES, RulesConfig
from rules.campaign.modifiers import Effect, EffectKind, Modifier, Role, Source
from rules.dice import ScriptedDice
from rules.errors import RulesError

LOSS_BANDS: tuple[tuple[Decimal, Decimal], ...] = (
    (Decimal(0), Decimal(20)),
    (Decimal(20), Decimal(45)),
    (Decimal(45), Decimal(70)),
    (Decimal(70), Decimal(100)),
)
"""Losses are published as one of these percentage ranges (a capture counts as 100)."""


@dataclass(frozen=True, slots=True)
class PublicAssault:
    """The facts of an assault that may be published.

    ``winner`` None: the outcome is not published. ``attacker_losses``/``defender_losses``:
    a (low, high) percentage range from :data:`LOSS_BANDS`, or None when not published.
    """

    winner: Winner | None
    attacker_losses: tuple[Decimal, Decimal] | None = None
    defender_losses: tuple[Decimal, Decimal] | None = None


def loss_band(pct: Decimal) -> tuple[Decimal, Decimal]:
    """The published range holding a casualty percentage (0-100)."""
    for low, high in LOSS_BANDS:
        if pct < high:
            return low, high
    return LOSS_BANDS[-1]


def _is_secret_bonus(modifier: Modifier) -> bool:
    return modifier.hidden and modifier.source is Source.HOLDFAST


def with_bonus(defender: Side, bonus: Decimal) -> Side:
    """``defender`` with its secret holdfast bonus (its hidden holdfast modifier) set to
    ``bonus``; a defender without one gets one."""
    effect = Effect(EffectKind.STRENGTH, bonus, Role.DEFENSE)
    kept = tuple(m for m in defender.modifiers if not _is_secret_bonus(m))
    secret = next((m for m in defender.modifiers if _is_secret_bonus(m)), None)
    if secret is None:
        secret = Modifier("holdfast defenses", Source.HOLDFAST, (effect,),
                          label="holdfast defenses", hidden=True)
    else:
        secret = replace(secret, effects=(effect,))
    return replace(defender, modifiers=(*kept, secret))


Fact = tuple[Winner, tuple[Decimal, Decimal], tuple[Decimal, Decimal]]


def _facts(result: BattleResult) -> Fact:
    return (result.winner, loss_band(result.attacker.casualty_pct),
            loss_band(result.defender.casualty_pct))


def possible_facts(attacker: Side, defender: Side, rules: RulesConfig = DEFAULT_RULES
                   ) -> frozenset[Fact]:
    """Every (winner, attacker loss band, defender loss band) some roll of the dice gives."""
    attacker = replace(attacker, characters=())
    defender = replace(defender, characters=())
    m = matchup(attacker, defender, rules)
    if m.band.auto or m.both_empty:
        rolls: list[tuple[int, ...]] = [()]
    elif m.band.equal:
        rolls = [(a, d) for a, d in product(range(1, EQUAL_DIE + 1), repeat=2)]
    elif m.band.d2:
        rolls = list(product(range(1, BATTLE_DIE + 1), range(1, EXTRA_DIE + 1)))
    else:
        rolls = [(d,) for d in range(1, BATTLE_DIE + 1)]
    found: set[Fact] = set()
    for values in rolls:
        try:
            result = resolve_battle(attacker, defender, dice=ScriptedDice(values), rules=rules)
        except RulesError:  # a tie on equal dice needs more rolls: covered by other pairs
            continue
        found.add(_facts(result))
    return frozenset(found)


def bonus_samples(attacker: Side, defender: Side, rules: RulesConfig = DEFAULT_RULES
                  ) -> tuple[Decimal, ...]:
    """Bonuses of the public range that meet every distinct band: its ends, each band
    boundary's bonus with the bonuses just either side of it, and a point between each two
    (the band is constant between boundaries)."""
    low, high = rules.defense_bonus_min, rules.defense_bonus_max
    edges = {low, high}
    neutral = matchup(attacker, with_bonus(defender, Decimal(1)), rules)
    base_a, base_d = neutral.attacker.value, neutral.defender.value
    tiny = Decimal("0.00001")
    if base_d > 0 and base_a > 0:
        for band in rules.bands:
            if band.max_ratio is None:
                continue
            for ratio in (band.max_ratio, band.max_ratio + Decimal("0.005"),
                          band.max_ratio + Decimal("0.01")):
                # defender stronger: ratio = d*b/a; attacker stronger: ratio = a/(d*b)
                for b in (Fraction(ratio) * Fraction(base_a) / Fraction(base_d),
                          Fraction(base_a) / (Fraction(ratio) * Fraction(base_d))):
                    value = (Decimal(b.numerator) / Decimal(b.denominator)).quantize(tiny)
                    edges.update(v for v in (value - tiny, value, value + tiny)
                                 if low <= v <= high)
    ordered = sorted(edges)
    middles = ((a + b) / 2 for a, b in pairwise(ordered))
    return tuple(sorted({*ordered, *middles}))


_FACTS: dict[tuple[object, ...], frozenset[Fact]] = {}


def public_assault(attacker: Side, defender: Side, result: BattleResult,
                   rules: RulesConfig = DEFAULT_RULES) -> PublicAssault:
    """The most that may be published of ``result`` (an assault of ``attacker`` on
    ``defender``, whose secret bonus is unknown to the public) without excluding any bonus of
    the public range. Pure: the dice are enumerated, not rolled."""
    # The facts depend only on the band, which side is stronger, the failed-retreat penalties
    # and the rules: each distinct matchup is enumerated once (and remembered, a pure cache).
    possible = []
    for b in bonus_samples(attacker, defender, rules):
        side = with_bonus(defender, b)
        m = matchup(attacker, side, rules)
        key = (m.band, m.stronger, m.both_empty, attacker.retreat_penalty,
               defender.retreat_penalty, rules)
        facts = _FACTS.get(key)
        if facts is None:
            facts = possible_facts(attacker, side, rules)
            if len(_FACTS) < 4096:
                _FACTS[key] = facts
        possible.append(facts)
    actual = _facts(result)
    if all(actual in facts for facts in possible):
        return PublicAssault(actual[0], actual[1], actual[2])
    if all(any(f[0] is actual[0] for f in facts) for facts in possible):
        return PublicAssault(actual[0])
    return PublicAssault(None)
