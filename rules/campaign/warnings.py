"""Warnings before losses: what a claim is told privately before its troops scatter.

A claim hears, by private message only:

* after each month's upkeep, when the **next** month's upkeep (at the same troops, season and
  income) will exceed its gold: the cost, the shortfall and the scatter that follows;
* when **winter** begins: the upkeep doubles (``winter_upkeep_multiplier``), with the new cost
  and, if the gold will not cover it, the same scatter forecast;
* in a **muster's receipt**, when the gold does not cover the first upkeep of all raised troops
  with the new army (and in a purchase's receipt and in ``status``, when the gold left will
  not cover the next upkeep): :func:`next_upkeep_shortfall`, carried by the receipt value;
* when its armies **scatter**: how many came home, how many were lost and until when the
  survivors cannot be raised (the numbers of :func:`rules.campaign.upkeep.apply_upkeep`).

Every forecast is the month's upkeep rule itself (:func:`~rules.campaign.upkeep.apply_upkeep`)
applied to today's values, so a warning and the upkeep it announces cannot disagree.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from rules.campaign import calendar
from rules.campaign.config import RulesConfig, Season
from rules.campaign.modifiers import Modifier
from rules.campaign.upkeep import Troops, UpkeepResult, apply_upkeep, monthly_upkeep


@dataclass(frozen=True, slots=True)
class UpkeepForecast:
    """A month's upkeep foreseen from today's gold and raised troops.

    ``shortfall`` is how much gold is missing (0 when the gold and income cover ``cost``);
    with a shortfall the raised troops scatter: ``survivors`` go home, ``lost`` never return.
    """

    gold: Decimal
    income: Decimal
    cost: Decimal
    shortfall: Decimal
    raised: Troops
    survivors: Troops
    lost: Troops

    @property
    def scatter(self) -> bool:
        """Whether the troops will scatter unless the claim acts."""
        return self.shortfall > 0


def forecast_upkeep(gold: Decimal, raised: Troops, season: Season, rules: RulesConfig, *,
                    income_modifiers: Iterable[Modifier] = ()) -> UpkeepForecast:
    """The next upkeep of ``raised`` troops out of ``gold`` (plus the month's income).

    Raises InvalidInput for negative gold (as the upkeep itself does).
    """
    result = apply_upkeep(gold, raised.infantry, raised.cavalry, season, rules, raised.ships,
                          income_modifiers=income_modifiers)
    shortfall = max(Decimal(0), result.cost - gold - result.income)
    return UpkeepForecast(gold, result.income, result.cost, shortfall, raised,
                          result.survivors, result.lost)


@dataclass(frozen=True, slots=True)
class UpkeepAhead:
    """The warning after a month's upkeep: month ``month``'s upkeep, charged at ``charged``,
    will exceed the claim's gold (``forecast``)."""

    forecast: UpkeepForecast
    month: calendar.GameDate
    charged: datetime


def upkeep_ahead(after_paying: UpkeepResult, raised: Troops, season: Season,
                 paid: calendar.GameDate, rules: RulesConfig, *,
                 income_modifiers: Iterable[Modifier] = ()) -> UpkeepAhead | None:
    """After month ``paid``'s upkeep (``after_paying``, of the ``raised`` troops): the warning
    when the next month's upkeep, at the same troops, season and income, will exceed the gold
    left; None when it will not (or the troops have just scattered)."""
    if after_paying.scatter:
        return None
    forecast = forecast_upkeep(after_paying.gold_after, raised, season, rules,
                               income_modifiers=income_modifiers)
    if not forecast.scatter:
        return None
    coming = calendar.next_month(paid, rules)
    return UpkeepAhead(forecast, coming, upkeep_charged_at(coming, rules))


@dataclass(frozen=True, slots=True)
class WinterWarning:
    """Winter has begun: the month's upkeep goes from ``cost_before`` to ``forecast.cost``."""

    cost_before: Decimal
    forecast: UpkeepForecast


def winter_warning(before: Season, after: Season, gold: Decimal, raised: Troops,
                   rules: RulesConfig, *, income_modifiers: Iterable[Modifier] = ()
                   ) -> WinterWarning | None:
    """The warning a claim gets when the season turns from ``before`` to ``after``: only when
    winter begins, and only for a claim with raised troops (nothing else costs more)."""
    if after is not Season.WINTER or before is Season.WINTER or raised.total == 0:
        return None
    cost_before = monthly_upkeep(raised.infantry, raised.cavalry, before, rules, raised.ships)
    return WinterWarning(cost_before, forecast_upkeep(gold, raised, after, rules,
                                                      income_modifiers=income_modifiers))


def upkeep_charged_at(month: calendar.GameDate, rules: RulesConfig) -> datetime:
    """When month ``month``'s upkeep is charged: the first tick at or after it begins."""
    return calendar.next_tick_at_or_after(calendar.month_start(month, rules), rules)


@dataclass(frozen=True, slots=True)
class Shortfall:
    """A receipt's warning: the next upkeep (charged at ``charged``) will exceed the claim's
    gold. ``first``: it is the first upkeep of a new army (a muster's receipt); otherwise the
    gold was just spent (a purchase) or is only being looked at (``status``)."""

    forecast: UpkeepForecast
    charged: datetime
    first: bool = False


def next_upkeep_shortfall(gold: Decimal, raised: Troops, season: Season, rules: RulesConfig,
                          at: datetime, *, income_modifiers: Iterable[Modifier] = (),
                          first: bool = False) -> Shortfall | None:
    """The warning for a reply sent at ``at``: None when ``gold`` (and the month's income)
    covers the next month's upkeep of ``raised``."""
    forecast = forecast_upkeep(gold, raised, season, rules, income_modifiers=income_modifiers)
    if not forecast.scatter:
        return None
    month = calendar.next_month(calendar.game_date(at, rules), rules)
    return Shortfall(forecast, upkeep_charged_at(month, rules), first)
