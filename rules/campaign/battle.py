"""Battles of the map campaign: strength, ratio bands, dice, margin, casualties and capture.

Everything follows docs/rules.md "Strength and battle"; every number comes from
:class:`~rules.campaign.config.RulesConfig`. The readings this module adds where those rules
are silent:

* **Retreat penalty in the equal band.** A side that failed a retreat takes
  ``rules.retreat_penalty`` off its d10. Ties are judged on these totals and re-rolled, and the
  totals are the rolls the margin is computed from.
* **Retreat penalty in an unequal band.** On the weaker side it lowers the flat roll (10 -> 9);
  on the stronger side it comes off the stronger side's total.
* **Both strengths 0.** Nobody can beat an empty army by rolling, so the defender holds: no dice
  are rolled, nobody loses anything and nobody is captured (band "auto", ratio and margin None).
* **One strength 0.** The other side wins automatically, as if by margin 22+: the empty side is
  "captured" (which matters for what the holdfast holds: gold and characters).
* **Captured troops** count in ``losses`` (the loser's whole army is gone from the loser) and
  ``captured`` says they were taken rather than slain. Characters of a captured army are
  captured too and roll no d100 (:attr:`~rules.campaign.characters.Fate.CAPTURED`).
* **Characters present** roll their d100 after the battle dice: the attacker's in the order
  given, then the defender's (see :mod:`rules.campaign.characters`).
* **Sides of several armies** (docs/rules.md "Battles between sides"): a side is one
  :class:`Side` per army. Each army's strength carries its own multipliers and the side's
  strength is their sum; the ratio, the band and the margin come from the sums. The casualty
  % applies to every army of a side, per troop type, each rounded half-up; a capture takes
  every army of the losing side. A side rolls with the retreat penalty when any of its armies
  carries one. A single :class:`Side` is a side of one army.

The die sizes (d10 in the equal band, d20 and d2 otherwise) are the shape of the chart, not
tunable numbers; everything else is config.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal, localcontext
from enum import StrEnum
from fractions import Fraction

from rules.campaign.characters import CharacterFate, Fate, character_fates
from rules.campaign.config import DEFAULT_RULES, BattleBand, CasualtyRow, RulesConfig, Terrain
from rules.campaign.modifiers import (
    Applied,
    Effect,
    EffectKind,
    Modifier,
    Role,
    Source,
    all_labels,
    collect,
    public_labels,
)
from rules.dice import Dice, Roll
from rules.errors import InvalidInput, RulesError

EQUAL_DIE = 10
BATTLE_DIE = 20
EXTRA_DIE = 2

# Strength products of a handful of short decimals are exact far below this precision; a
# generous context keeps them exact whatever the config and modifiers hold.
_EXACT_PRECISION = 400


class Winner(StrEnum):
    """Which side won the battle."""

    ATTACKER = "attacker"
    DEFENDER = "defender"

    @property
    def other(self) -> Winner:
        return Winner.DEFENDER if self is Winner.ATTACKER else Winner.ATTACKER


@dataclass(frozen=True, slots=True)
class Troops:
    """A count of units per troop type."""

    infantry: int = 0
    cavalry: int = 0
    ships: int = 0

    @property
    def total(self) -> int:
        return self.infantry + self.cavalry + self.ships

    def __sub__(self, other: Troops) -> Troops:
        return Troops(self.infantry - other.infantry, self.cavalry - other.cavalry,
                      self.ships - other.ships)


@dataclass(frozen=True, slots=True)
class Side:
    """One army (or fleet) going into battle.

    ``stationary`` is true when the army stands on its tile (not in transit): only then does the
    terrain's defender bonus count. ``retreat_penalty`` is true after a failed retreat.
    ``modifiers`` are skills, equipment, improvements, resource benefits and the holdfast's
    secret defense bonus (marked hidden); only their strength effects for the side's role count.
    ``characters`` are the names of player characters present.
    """

    infantry: int = 0
    cavalry: int = 0
    ships: int = 0
    terrain: Terrain = Terrain.FIELD
    stationary: bool = False
    commander_bonus: Decimal = Decimal(1)
    retreat_penalty: bool = False
    modifiers: tuple[Modifier, ...] = ()
    characters: tuple[str, ...] = ()

    @property
    def troops(self) -> Troops:
        return Troops(self.infantry, self.cavalry, self.ships)


@dataclass(frozen=True, slots=True)
class Strength:
    """A side's strength: ``base`` from its troops, ``value`` after every multiplier.

    ``applied`` lists each multiplier that changed it, in the documented order (terrain,
    commander, skills, improvements, equipment, resource tiles, holdfast), so a post can say
    "x1.4 hill (stationary)". Hidden ones (a holdfast's secret defense bonus) are flagged on their
    modifier; note that ``value`` itself reveals them, so public posts must not show ``value``
    when :attr:`has_hidden` is true.
    """

    base: int
    value: Decimal
    applied: tuple[Applied, ...] = ()
    parts: tuple[Strength, ...] = ()
    """Each army's own strength when the side has several (empty for one army)."""

    @property
    def has_hidden(self) -> bool:
        return any(a.modifier.hidden for a in self.applied)

    def public_labels(self) -> tuple[str, ...]:
        """Multipliers safe for public posts ("x1.2 Ser Brynden's skill"), hidden ones left out."""
        return public_labels(self.applied)

    def all_labels(self) -> tuple[str, ...]:
        """Every multiplier, hidden ones marked, for the claimant and the moderators."""
        return all_labels(self.applied)


Sides = Side | Sequence[Side]
"""A side in battle: one army, or every army that fights on it."""


def armies_of(side: Sides) -> tuple[Side, ...]:
    """The armies of a side, one :class:`Side` each (raises InvalidInput for an empty side)."""
    armies = (side,) if isinstance(side, Side) else tuple(side)
    if not armies:
        raise InvalidInput("side", "must have at least one army", "e.g. one army of 100 infantry")
    return armies


def _check_side(side: Side, prefix: str) -> None:
    for name in ("infantry", "cavalry", "ships"):
        count = getattr(side, name)
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise InvalidInput(f"{prefix}{name}", f"must be a whole number >= 0, not {count!r}")
    if not isinstance(side.commander_bonus, Decimal) or not side.commander_bonus.is_finite() \
            or side.commander_bonus <= 0:
        raise InvalidInput(f"{prefix}commander_bonus",
                           f"must be a number above 0, not {side.commander_bonus}", "e.g. 1.2")


def strength(side: Side, role: Role, rules: RulesConfig = DEFAULT_RULES) -> Strength:
    """The strength of ``side`` fighting in ``role`` (attack or defense).

    Base = infantry x rules.infantry_strength + cavalry x rules.cavalry_strength + ships x
    rules.ship_strength; then x the terrain's defender bonus if the side is stationary (field
    counts as x1), x the commander bonus, x every strength effect of its modifiers that applies
    in ``role`` (same-named modifiers do not stack; see :func:`rules.campaign.modifiers.collect`).
    Exact: the value is a Decimal product, never rounded.

    Raises InvalidInput for negative troop counts or a commander bonus not above 0.
    """
    _check_side(side, "")
    base = (side.infantry * rules.infantry_strength + side.cavalry * rules.cavalry_strength
            + side.ships * rules.ship_strength)
    fixed: list[Modifier] = []
    if side.stationary:
        bonus = rules.defender_bonus_of(side.terrain)
        if bonus != 1:
            fixed.append(Modifier(f"terrain:{side.terrain}", Source.TERRAIN,
                                  (Effect(EffectKind.STRENGTH, bonus),),
                                  label=f"{side.terrain} (stationary)"))
    if side.commander_bonus != 1:
        fixed.append(Modifier("commander bonus", Source.COMMANDER,
                              (Effect(EffectKind.STRENGTH, side.commander_bonus),)))
    applied = collect([*fixed, *side.modifiers], EffectKind.STRENGTH, role)
    with localcontext() as exact:
        exact.prec = _EXACT_PRECISION
        value = Decimal(base)
        for a in applied:
            value *= a.effect.amount
    return Strength(base, value, applied)


def side_strength(side: Sides, role: Role, rules: RulesConfig = DEFAULT_RULES) -> Strength:
    """The strength of a whole side: the sum of its armies' strengths, each with its own
    multipliers (:func:`strength`). ``applied`` lists every army's multipliers (so a hidden one
    of any army marks the sum hidden); ``parts`` each army's own strength."""
    armies = armies_of(side)
    if len(armies) == 1:
        return strength(armies[0], role, rules)
    parts = tuple(strength(a, role, rules) for a in armies)
    with localcontext() as exact:
        exact.prec = _EXACT_PRECISION
        value = sum((p.value for p in parts), Decimal(0))
    return Strength(sum(p.base for p in parts), value,
                    tuple(applied for p in parts for applied in p.applied), parts)


def round_half_up(value: Fraction) -> int:
    """``value`` (>= 0) rounded to a whole number, halves up."""
    return (value.numerator * 2 + value.denominator) // (value.denominator * 2)


def share_of(count: int, share: Decimal) -> int:
    """``count`` x ``share`` rounded half-up to whole units, exactly (integer arithmetic)."""
    num, den = share.as_integer_ratio()
    return (2 * count * num + den) // (2 * den)


def strength_ratio(a: Decimal, b: Decimal) -> Decimal | None:
    """Higher / lower of two strengths, rounded half-up to 2 decimals (exactly).

    None when the lower strength is 0 (no finite ratio: an automatic result).
    """
    high, low = (a, b) if a >= b else (b, a)
    if low == 0:
        return None
    h_num, h_den = high.as_integer_ratio()
    l_num, l_den = low.as_integer_ratio()
    hundredths = round_half_up(Fraction(100 * h_num * l_den, h_den * l_num))
    return Decimal(hundredths).scaleb(-2)


def band_for(ratio: Decimal | None, rules: RulesConfig = DEFAULT_RULES) -> BattleBand:
    """The row of ``rules.bands`` for a rounded ratio; None (a zero strength) is automatic.

    Raises RulesError when the configured bands have no automatic row to fall back on.
    """
    for band in rules.bands:
        if ratio is None:
            if band.auto:
                return band
        elif band.max_ratio is None or ratio <= band.max_ratio:
            return band
    raise RulesError("the battle chart in the config has no row for this ratio")


def casualty_row(margin: int | None, rules: RulesConfig = DEFAULT_RULES) -> CasualtyRow:
    """The casualty chart row for ``margin``; None (an automatic win) takes the last row (22+).

    Raises InvalidInput for a negative margin.
    """
    if margin is not None and margin < 0:
        raise InvalidInput("margin", f"cannot be negative, not {margin}")
    lowest = chosen = None
    for row in rules.casualties:
        if lowest is None or row.min_margin < lowest.min_margin:
            lowest = row
        fits = margin is None or row.min_margin <= margin
        if fits and (chosen is None or row.min_margin > chosen.min_margin):
            chosen = row
    if chosen is None:
        # A margin below the config's first row counts as that row.
        chosen = lowest
    if chosen is None:
        raise RulesError("the casualty chart in the config has no rows")
    return chosen


def losses_for(troops: Troops, pct: Decimal, captured: bool = False) -> Troops:
    """Units lost at ``pct`` percent, per troop type, rounded half-up; all of them if captured."""
    if captured:
        return troops
    share = pct.scaleb(-2)
    return Troops(min(troops.infantry, share_of(troops.infantry, share)),
                  min(troops.cavalry, share_of(troops.cavalry, share)),
                  min(troops.ships, share_of(troops.ships, share)))


@dataclass(frozen=True, slots=True)
class Matchup:
    """Both strengths, the ratio and its band: everything decided before any die is rolled.

    ``stronger`` is None in the equal band and when both strengths are 0.
    """

    attacker: Strength
    defender: Strength
    ratio: Decimal | None
    band: BattleBand
    stronger: Winner | None

    @property
    def both_empty(self) -> bool:
        return self.attacker.value == 0 and self.defender.value == 0

    @property
    def automatic_winner(self) -> Winner | None:
        """The side that wins without dice (defender when both are empty), else None."""
        if self.both_empty:
            return Winner.DEFENDER
        if self.band.auto:
            return self.stronger
        return None


def matchup(attacker: Sides, defender: Sides, rules: RulesConfig = DEFAULT_RULES) -> Matchup:
    """Strengths, ratio and band of a battle between two sides (each one army or several: the
    sums count). Raises InvalidInput naming the bad side's field."""
    for prefix, side in (("attacker", attacker), ("defender", defender)):
        armies = armies_of(side)
        for i, army in enumerate(armies):
            _check_side(army, f"{prefix}." if len(armies) == 1 else f"{prefix}[{i}].")
    a = side_strength(attacker, Role.ATTACK, rules)
    d = side_strength(defender, Role.DEFENSE, rules)
    if a.value == 0 and d.value == 0:
        auto = band_for(None, rules)
        return Matchup(a, d, None, auto, None)
    ratio = strength_ratio(a.value, d.value)
    band = band_for(ratio, rules)
    stronger = None if band.equal else (
        Winner.ATTACKER if a.value > d.value else Winner.DEFENDER)
    return Matchup(a, d, ratio, band, stronger)


@dataclass(frozen=True, slots=True)
class SideResult:
    """What the battle did to one side.

    ``roll`` is the side's final roll (its d20 total, its flat 10 or 9, or its final d10 after
    any penalty); None for an automatic result. ``losses`` include captured units. ``troops``
    and ``losses`` of a side of several armies are the sums of its ``parts`` (one result per
    army, in the side's order; empty for a side of one army: :meth:`armies`).
    """

    strength: Strength
    roll: int | None
    casualty_pct: Decimal
    troops: Troops
    losses: Troops
    captured: bool
    fates: tuple[CharacterFate, ...] = ()
    parts: tuple[SideResult, ...] = ()

    def armies(self) -> tuple[SideResult, ...]:
        """One result per army of the side, in the side's order."""
        return self.parts or (self,)

    @property
    def survivors(self) -> Troops:
        return self.troops - self.losses


@dataclass(frozen=True, slots=True)
class BattleResult:
    """The outcome of :func:`resolve_battle`. ``rolls`` are every die rolled, in order."""

    winner: Winner
    band: str
    ratio: Decimal | None
    margin: int | None
    attacker: SideResult
    defender: SideResult
    rolls: tuple[Roll, ...] = ()

    @property
    def automatic(self) -> bool:
        return self.margin is None

    @property
    def loser(self) -> Winner:
        return self.winner.other

    def side(self, which: Winner) -> SideResult:
        return self.attacker if which is Winner.ATTACKER else self.defender


class _Recorder:
    """Passes rolls through to the caller's dice and keeps them for the audit log."""

    def __init__(self, dice: Dice) -> None:
        self._dice = dice
        self.rolls: list[Roll] = []

    def roll(self, sides: int, purpose: str = "") -> int:
        value = self._dice.roll(sides, purpose)
        self.rolls.append(Roll(sides, value, purpose))
        return value


def penalty_of(side: Sides, rules: RulesConfig = DEFAULT_RULES) -> int:
    """What a failed retreat takes off this side's roll (0 without the penalty; a side of
    several armies takes it when any of them failed a retreat)."""
    return rules.retreat_penalty if any(a.retreat_penalty for a in armies_of(side)) else 0


def flat_roll_of(side: Sides, rules: RulesConfig = DEFAULT_RULES) -> int:
    """The weaker side's flat roll in an unequal band: 10, or 9 after a failed retreat."""
    return rules.flat_roll - penalty_of(side, rules)


def _roll_equal(attacker: Sides, defender: Sides, dice: Dice, rules: RulesConfig
                ) -> tuple[Winner, int, int]:
    a_pen, d_pen = penalty_of(attacker, rules), penalty_of(defender, rules)
    while True:
        a = dice.roll(EQUAL_DIE, "attacker d10") - a_pen
        d = dice.roll(EQUAL_DIE, "defender d10") - d_pen
        if a != d:
            return (Winner.ATTACKER if a > d else Winner.DEFENDER), a, d


def stronger_total(d20: int, d2: int, band: BattleBand, side: Sides,
                   rules: RulesConfig = DEFAULT_RULES) -> int:
    """The stronger side's total from its dice (``d2`` ignored unless the band rolls one)."""
    return d20 + (d2 if band.d2 else 0) + band.bonus - penalty_of(side, rules)


def _roll_unequal(m: Matchup, attacker: Sides, defender: Sides, dice: Dice, rules: RulesConfig
                  ) -> tuple[Winner, int, int]:
    assert m.stronger is not None
    strong, weak = (attacker, defender) if m.stronger is Winner.ATTACKER else (defender, attacker)
    who = m.stronger.value
    d20 = dice.roll(BATTLE_DIE, f"{who} d20 ({m.band.name})")
    d2 = dice.roll(EXTRA_DIE, f"{who} d2 ({m.band.name})") if m.band.d2 else 0
    total = stronger_total(d20, d2, m.band, strong, rules)
    flat = flat_roll_of(weak, rules)
    winner = m.stronger if total >= flat else m.stronger.other
    if m.stronger is Winner.ATTACKER:
        return winner, total, flat
    return winner, flat, total


def _side_result(side: Sides, power: Strength, roll: int | None, pct: Decimal,
                 captured: bool, fates: tuple[CharacterFate, ...]) -> SideResult:
    """What the battle did to a side: each army loses ``pct`` of each troop type, rounded
    half-up on its own (all of it when ``captured``); ``fates`` are shared out by name."""
    armies = armies_of(side)
    if len(armies) == 1:
        troops = armies[0].troops
        return SideResult(power, roll, pct, troops, losses_for(troops, pct, captured),
                          captured, fates)
    parts = []
    start = 0
    for army, own in zip(armies, power.parts, strict=True):
        mine = fates[start:start + len(army.characters)]
        start += len(army.characters)
        troops = army.troops
        parts.append(SideResult(own, roll, pct, troops, losses_for(troops, pct, captured),
                                captured, mine))
    return SideResult(power, roll, pct, _sum_troops(p.troops for p in parts),
                      _sum_troops(p.losses for p in parts), captured, fates, tuple(parts))


def _sum_troops(counts: Iterable[Troops]) -> Troops:
    total = Troops()
    for t in counts:
        total = Troops(total.infantry + t.infantry, total.cavalry + t.cavalry,
                       total.ships + t.ships)
    return total


def _fates(side: Sides, pct: Decimal, captured: bool, dice: Dice, rules: RulesConfig
           ) -> tuple[CharacterFate, ...]:
    names = tuple(name for army in armies_of(side) for name in army.characters)
    if captured:
        return tuple(CharacterFate(name, Fate.CAPTURED, None, pct) for name in names)
    return character_fates(names, pct, dice=dice, rules=rules)


def resolve_battle(attacker: Sides, defender: Sides, *, dice: Dice,
                   rules: RulesConfig = DEFAULT_RULES) -> BattleResult:
    """Fight a battle and decide winner, margin, casualties, capture and who must roll for fate.

    Each side is one army or several (the strengths are summed; every army takes the side's
    casualty %, see the module's docstring); the dice are the same either way. Fates come in
    the order of the armies, so each part of a side gets its own characters' fates.

    Dice, in order: equal band, attacker d10 then defender d10, again while tied; unequal band,
    the stronger side's d20, then its d2 in the band that has one; automatic results roll
    nothing. Then one d100 per character present (attacker's, then defender's) unless their
    side's casualty % is 0 or they were captured.

    Raises InvalidInput for a malformed side (the field is named ``attacker.infantry`` etc.),
    and whatever ``dice`` raises (DiceExhausted, BadDie for scripted dice).
    """
    m = matchup(attacker, defender, rules)
    recorder = _Recorder(dice)
    auto = m.automatic_winner
    a_roll: int | None
    d_roll: int | None
    if m.both_empty:
        none = Decimal(0)
        return BattleResult(
            Winner.DEFENDER, m.band.name, None, None,
            _side_result(attacker, m.attacker, None, none, False,
                         _fates(attacker, none, False, recorder, rules)),
            _side_result(defender, m.defender, None, none, False,
                         _fates(defender, none, False, recorder, rules)))
    if auto is not None:
        winner, a_roll, d_roll, margin = auto, None, None, None
    else:
        if m.band.equal:
            winner, a_roll, d_roll = _roll_equal(attacker, defender, recorder, rules)
        else:
            winner, a_roll, d_roll = _roll_unequal(m, attacker, defender, recorder, rules)
        margin = abs(a_roll - d_roll)
    row = casualty_row(margin, rules)
    a_won = winner is Winner.ATTACKER
    a_pct = row.winner_pct if a_won else row.loser_pct
    d_pct = row.loser_pct if a_won else row.winner_pct
    a_captured = row.captured and not a_won
    d_captured = row.captured and a_won
    a_fates = _fates(attacker, a_pct, a_captured, recorder, rules)
    d_fates = _fates(defender, d_pct, d_captured, recorder, rules)
    return BattleResult(
        winner, m.band.name, m.ratio, margin,
        _side_result(attacker, m.attacker, a_roll, a_pct, a_captured, a_fates),
        _side_result(defender, m.defender, d_roll, d_pct, d_captured, d_fates),
        tuple(recorder.rolls),
    )

