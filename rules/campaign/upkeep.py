"""Monthly upkeep, scattering for want of gold, and regeneration of slain troops.

Upkeep
    Every in-game month a claim pays for its raised troops (mustering or in the field):
    ``infantry_upkeep`` (0.1) per infantry, ``cavalry_upkeep`` (0.4) per cavalry and
    ``ship_upkeep`` per ship, times ``winter_upkeep_multiplier`` (2) in winter. GOLD_INCOME
    effects are added to the claim's gold first, then the upkeep is paid. When the gold does not
    cover the upkeep the claim's gold becomes 0 and its raised troops scatter: of each type,
    ``scatter_survival`` (half) rounded down survives and goes home at once; the survivors cannot
    be raised until the in-game year ends (:func:`rules.campaign.calendar.scattered_until`).
    Gold that exactly covers the upkeep is enough. All money is exact :class:`~decimal.Decimal`.

Regeneration
    Troops slain in battle come back at ``regeneration_per_year`` (15%) of the number slain per
    in-game year, accrued monthly (1.25% a month by default); whole troops return as soon as the
    accrued share reaches them and the fraction carries to the next month. Accrual starts with
    the first month after the loss and stops when all are back. Each loss is kept separately in
    a :class:`SlainLedger`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, replace
from decimal import ROUND_FLOOR, Decimal
from fractions import Fraction
from typing import Protocol

from rules.campaign.calendar import GameDate
from rules.campaign.config import RulesConfig, Season
from rules.campaign.modifiers import EffectKind, Modifier, Role, collect, public_labels, total
from rules.errors import InvalidInput

SCATTERED_FATE = "scattered, unpaid and unfed"
"""The fate of an army that scattered at an upkeep its claim could not pay (an order naming it
afterwards is told so by this fate)."""


def _count(value: int, field: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InvalidInput(field, f"must be a whole number of at least 0, not {value!r}")
    return value


@dataclass(frozen=True, slots=True)
class Troops:
    """A number of infantry, cavalry and ships."""

    infantry: int = 0
    cavalry: int = 0
    ships: int = 0

    def __post_init__(self) -> None:
        _count(self.infantry, "infantry")
        _count(self.cavalry, "cavalry")
        _count(self.ships, "ships")

    @property
    def total(self) -> int:
        return self.infantry + self.cavalry + self.ships


class HasTroops(Protocol):
    """Anything with troops: an army as the rules or the database hold it."""

    @property
    def infantry(self) -> int: ...

    @property
    def cavalry(self) -> int: ...

    @property
    def ships(self) -> int: ...


def troops_of(armies: Iterable[HasTroops]) -> Troops:
    """The troops of ``armies`` together (a claim's raised troops: what its upkeep pays for)."""
    inf = cav = ships = 0
    for a in armies:
        inf, cav, ships = inf + a.infantry, cav + a.cavalry, ships + a.ships
    return Troops(inf, cav, ships)


def monthly_upkeep(infantry: int, cavalry: int, season: Season, rules: RulesConfig,
                   ships: int = 0) -> Decimal:
    """What a month of raised troops costs in ``season``, exactly (7 infantry and 3 cavalry:
    1.9 gold). Raises InvalidInput for negative counts.
    """
    cost = (
        _count(infantry, "infantry") * rules.infantry_upkeep
        + _count(cavalry, "cavalry") * rules.cavalry_upkeep
        + _count(ships, "ships") * rules.ship_upkeep
    )
    if season is Season.WINTER:
        cost *= rules.winter_upkeep_multiplier
    return cost


def monthly_income(modifiers: Iterable[Modifier]) -> tuple[Decimal, tuple[str, ...]]:
    """Gold added each month by GOLD_INCOME effects (stacking rule applied) and their public
    labels."""
    applied = collect(modifiers, EffectKind.GOLD_INCOME, Role.BOTH)
    return total(applied), public_labels(applied)


@dataclass(frozen=True, slots=True)
class UpkeepResult:
    """A month's upkeep.

    ``scatter`` is True when the gold (after income) did not cover ``cost``; ``survivors`` are
    then the troops that go home and ``lost`` those that never return. Without a scatter
    ``survivors`` are the raised troops, unchanged, and ``lost`` is empty.
    """

    cost: Decimal
    income: Decimal
    gold_after: Decimal
    scatter: bool
    survivors: Troops
    lost: Troops
    income_labels: tuple[str, ...] = ()


def _survive(count: int, share: Decimal) -> int:
    return int((Decimal(count) * share).to_integral_value(rounding=ROUND_FLOOR))


def apply_upkeep(
    gold: Decimal,
    raised_infantry: int,
    raised_cavalry: int,
    season: Season,
    rules: RulesConfig,
    raised_ships: int = 0,
    *,
    income_modifiers: Iterable[Modifier] = (),
) -> UpkeepResult:
    """Pay a month's upkeep out of ``gold`` (plus this month's income), or scatter.

    Raises InvalidInput for negative gold or counts, or a ``scatter_survival`` outside 0..1.
    """
    if gold < 0:
        raise InvalidInput("gold", f"must not be negative, not {gold}")
    if not 0 <= rules.scatter_survival <= 1:
        raise InvalidInput("scatter_survival", f"must be within 0..1, not {rules.scatter_survival}")
    raised = Troops(
        _count(raised_infantry, "raised_infantry"),
        _count(raised_cavalry, "raised_cavalry"),
        _count(raised_ships, "raised_ships"),
    )
    cost = monthly_upkeep(raised.infantry, raised.cavalry, season, rules, raised.ships)
    income, labels = monthly_income(income_modifiers)
    available = gold + income
    if available >= cost:
        return UpkeepResult(cost, income, available - cost, False, raised, Troops(), labels)
    share = rules.scatter_survival
    survivors = Troops(
        _survive(raised.infantry, share),
        _survive(raised.cavalry, share),
        _survive(raised.ships, share),
    )
    lost = Troops(
        raised.infantry - survivors.infantry,
        raised.cavalry - survivors.cavalry,
        raised.ships - survivors.ships,
    )
    return UpkeepResult(cost, income, Decimal(0), True, survivors, lost, labels)


# --- regeneration --------------------------------------------------------------------------


def monthly_regeneration_rate(rules: RulesConfig) -> Fraction:
    """Share of a loss that regenerates each in-game month (0.15 / 12 = 1/80 by default)."""
    if rules.months_per_year < 1:
        raise InvalidInput("months_per_year", f"must be at least 1, not {rules.months_per_year}")
    if rules.regeneration_per_year < 0:
        raise InvalidInput(
            "regeneration_per_year", f"must not be negative, not {rules.regeneration_per_year}"
        )
    return Fraction(rules.regeneration_per_year) / rules.months_per_year


def regenerate(slain: int, months_elapsed: int, rules: RulesConfig) -> int:
    """How many of ``slain`` troops are back after ``months_elapsed`` accruing months.

    The closed form of :func:`accrue_month`: ``min(slain, floor(slain x rate x months))``.
    """
    _count(slain, "slain")
    _count(months_elapsed, "months_elapsed")
    return min(slain, math.floor(slain * monthly_regeneration_rate(rules) * months_elapsed))


@dataclass(frozen=True, slots=True)
class SlainLoss:
    """Troops slain in one loss, in in-game month ``month``, and how many have come back.

    ``carry_*`` are the fractions of a troop accrued but not returned yet.
    """

    month: GameDate
    infantry: int
    cavalry: int
    returned_infantry: int = 0
    returned_cavalry: int = 0
    carry_infantry: Fraction = Fraction(0)
    carry_cavalry: Fraction = Fraction(0)

    def __post_init__(self) -> None:
        _count(self.infantry, "infantry")
        _count(self.cavalry, "cavalry")
        if not 0 <= self.returned_infantry <= self.infantry:
            raise InvalidInput("returned_infantry", "must be within 0..infantry")
        if not 0 <= self.returned_cavalry <= self.cavalry:
            raise InvalidInput("returned_cavalry", "must be within 0..cavalry")

    @property
    def complete(self) -> bool:
        """Whether every troop of this loss is back."""
        return self.returned_infantry == self.infantry and self.returned_cavalry == self.cavalry

    @property
    def outstanding(self) -> Troops:
        """Troops of this loss still to come back."""
        return Troops(
            self.infantry - self.returned_infantry, self.cavalry - self.returned_cavalry
        )


@dataclass(frozen=True, slots=True)
class SlainLedger:
    """Every loss still regenerating, and the last month accrued (None before the first)."""

    losses: tuple[SlainLoss, ...] = ()
    last_accrued: GameDate | None = None

    @property
    def outstanding(self) -> Troops:
        """All troops still to come back."""
        inf = sum(loss.outstanding.infantry for loss in self.losses)
        cav = sum(loss.outstanding.cavalry for loss in self.losses)
        return Troops(inf, cav)


class MonthAlreadyAccrued(InvalidInput):
    """A month was accrued twice or out of order."""

    def __init__(self, month: GameDate, last: GameDate) -> None:
        self.month = month
        self.last = last
        super().__init__(
            "game_month", f"{month} is not after {last}, the last month accrued",
            "each month once, in order",
        )


def record_loss(ledger: SlainLedger, month: GameDate, infantry: int, cavalry: int
                ) -> SlainLedger:
    """The ledger with troops slain in ``month`` added; a loss of nobody changes nothing."""
    loss = SlainLoss(month, _count(infantry, "infantry"), _count(cavalry, "cavalry"))
    if loss.complete:
        return ledger
    return replace(ledger, losses=(*ledger.losses, loss))


def _accrue(slain: int, returned: int, carry: Fraction, rate: Fraction
            ) -> tuple[int, Fraction]:
    if returned >= slain:
        return 0, Fraction(0)
    carry += slain * rate
    whole = min(math.floor(carry), slain - returned)
    carry -= whole
    if returned + whole >= slain:
        carry = Fraction(0)
    return whole, carry


def accrue_month(ledger: SlainLedger, game_month: GameDate, rules: RulesConfig
                 ) -> tuple[SlainLedger, int, int]:
    """Run regeneration for in-game month ``game_month``.

    Every loss from a month before ``game_month`` accrues one month; losses of ``game_month``
    itself start next month. Completed losses leave the ledger. Returns the new ledger and the
    infantry and cavalry that came back this month. Raises :class:`MonthAlreadyAccrued` when
    ``game_month`` is not after the last month accrued.
    """
    if ledger.last_accrued is not None and game_month <= ledger.last_accrued:
        raise MonthAlreadyAccrued(game_month, ledger.last_accrued)
    rate = monthly_regeneration_rate(rules)
    kept: list[SlainLoss] = []
    back_inf = back_cav = 0
    for loss in ledger.losses:
        if loss.month >= game_month:
            kept.append(loss)
            continue
        inf, carry_inf = _accrue(loss.infantry, loss.returned_infantry, loss.carry_infantry, rate)
        cav, carry_cav = _accrue(loss.cavalry, loss.returned_cavalry, loss.carry_cavalry, rate)
        back_inf += inf
        back_cav += cav
        updated = replace(
            loss,
            returned_infantry=loss.returned_infantry + inf,
            returned_cavalry=loss.returned_cavalry + cav,
            carry_infantry=carry_inf,
            carry_cavalry=carry_cav,
        )
        if not updated.complete:
            kept.append(updated)
    return SlainLedger(tuple(kept), game_month), back_inf, back_cav
