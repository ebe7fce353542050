"""Warnings before losses: the numbers a claim is told before its troops scatter."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal as D

from hypothesis import given, settings
from hypothesis import strategies as st

from rules.campaign import calendar
from rules.campaign.config import DEFAULT_RULES, Season
from rules.campaign.modifiers import Effect, EffectKind, Modifier, Source
from rules.campaign.upkeep import Troops, apply_upkeep, troops_of
from rules.campaign.warnings import (
    forecast_upkeep,
    next_upkeep_shortfall,
    upkeep_charged_at,
    winter_warning,
)

R = DEFAULT_RULES


def test_forecast_names_the_shortfall_and_the_scatter() -> None:
    # 7 infantry and 3 cavalry cost 1.9 a month; 1.5 gold is 0.4 short.
    f = forecast_upkeep(D("1.5"), Troops(7, 3), Season.SUMMER, R)
    assert f.scatter and (f.cost, f.shortfall) == (D("1.9"), D("0.4"))
    assert (f.survivors, f.lost) == (Troops(3, 1), Troops(4, 2))


def test_exact_gold_is_enough_and_nothing_is_lost() -> None:
    f = forecast_upkeep(D("1.9"), Troops(7, 3), Season.SUMMER, R)
    assert not f.scatter and f.shortfall == 0 and f.lost == Troops()


def test_income_counts_before_the_shortfall() -> None:
    mine = Modifier("Silver mine", Source.RESOURCE, (Effect(EffectKind.GOLD_INCOME, D("0.3")),))
    f = forecast_upkeep(D("1.5"), Troops(7, 3), Season.SUMMER, R, income_modifiers=[mine])
    assert (f.income, f.shortfall) == (D("0.3"), D("0.1"))


@settings(max_examples=200, deadline=None)
@given(gold=st.decimals(min_value=0, max_value=100, places=2),
       inf=st.integers(0, 300), cav=st.integers(0, 100), ships=st.integers(0, 20),
       winter=st.booleans())
def test_forecast_agrees_with_the_upkeep_it_announces(gold: D, inf: int, cav: int, ships: int,
                                                      winter: bool) -> None:
    season = Season.WINTER if winter else Season.SUMMER
    f = forecast_upkeep(gold, Troops(inf, cav, ships), season, R)
    paid = apply_upkeep(gold, inf, cav, season, R, ships)
    assert f.scatter == paid.scatter
    assert f.cost == paid.cost and (f.survivors, f.lost) == (paid.survivors, paid.lost)
    assert f.shortfall == max(D(0), paid.cost - gold)


def test_a_muster_adds_its_troops_to_the_forecast() -> None:
    """The raised troops are those of every raised army, the new army's included."""
    raised = troops_of([Troops(7, 3), Troops(10, 0)])
    assert raised == Troops(17, 3)
    f = forecast_upkeep(D(2), raised, Season.SUMMER, R)
    assert (f.cost, f.shortfall) == (D("2.9"), D("0.9"))


def test_winter_doubles_the_cost_and_warns_of_the_scatter() -> None:
    w = winter_warning(Season.AUTUMN, Season.WINTER, D(3), Troops(7, 3), R)
    assert w is not None
    assert (w.cost_before, w.forecast.cost, w.forecast.shortfall) == (D("1.9"), D("3.8"),
                                                                       D("0.8"))
    assert w.forecast.scatter


def test_winter_warning_only_when_winter_begins_for_raised_troops() -> None:
    assert winter_warning(Season.WINTER, Season.WINTER, D(0), Troops(7), R) is None
    assert winter_warning(Season.WINTER, Season.SPRING, D(0), Troops(7), R) is None
    assert winter_warning(Season.SUMMER, Season.WINTER, D(0), Troops(), R) is None
    rich = winter_warning(Season.SUMMER, Season.WINTER, D(100), Troops(7), R)
    assert rich is not None and not rich.forecast.scatter


def test_a_receipts_shortfall_names_the_next_months_charge() -> None:
    """Sent in some month, the warning names the charge of the next month's upkeep (the first
    tick at or after that month begins) and the same forecast as :func:`forecast_upkeep`."""
    at = datetime(2026, 1, 1, 7, tzinfo=UTC)
    short = next_upkeep_shortfall(D("1.5"), Troops(7, 3), Season.SUMMER, R, at, first=True)
    assert short is not None and short.first
    assert short.forecast == forecast_upkeep(D("1.5"), Troops(7, 3), Season.SUMMER, R)
    coming = calendar.next_month(calendar.game_date(at, R), R)
    assert short.charged == upkeep_charged_at(coming, R)
    assert short.charged > at and short.charged >= calendar.month_start(coming, R)
    assert calendar.tick_time(calendar.tick_index(short.charged, R), R) == short.charged
    assert next_upkeep_shortfall(D("1.9"), Troops(7, 3), Season.SUMMER, R, at) is None
