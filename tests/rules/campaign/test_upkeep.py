"""Upkeep, scattering and regeneration (docs/rules.md "9. Upkeep, scatter and
regeneration")."""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.campaign.calendar import GameDate, next_month
from rules.campaign.config import DEFAULT_RULES, Season
from rules.campaign.modifiers import Effect, EffectKind, Modifier, Source
from rules.campaign.upkeep import (
    MonthAlreadyAccrued,
    SlainLedger,
    Troops,
    accrue_month,
    apply_upkeep,
    monthly_regeneration_rate,
    monthly_upkeep,
    record_loss,
    regenerate,
)
from rules.errors import InvalidInput

R = DEFAULT_RULES
D = Decimal
M0 = GameDate(300, 1)


@pytest.mark.parametrize(
    ("infantry", "cavalry", "season", "cost"),
    [
        (1, 0, Season.SUMMER, "0.1"),  # infantry .1 a month
        (0, 1, Season.SUMMER, "0.4"),  # cavalry .4 a month
        (7, 3, Season.SPRING, "1.9"),  # exactly 1.9, not 1.9000000000000001
        (7, 3, Season.AUTUMN, "1.9"),
        (7, 3, Season.WINTER, "3.8"),  # doubled in winter
        (1, 0, Season.WINTER, "0.2"),
        (0, 1, Season.WINTER, "0.8"),
        (0, 0, Season.WINTER, "0"),
        (1000, 250, Season.SUMMER, "200"),
    ],
)
def test_upkeep_chart(infantry: int, cavalry: int, season: Season, cost: str) -> None:
    """Infantry 0.1 and cavalry 0.4 gold per unit per month, doubled in winter, exactly."""
    result = monthly_upkeep(infantry, cavalry, season, R)
    assert result == D(cost)
    assert isinstance(result, Decimal)


def test_upkeep_seven_infantry_three_cavalry_is_exactly_one_point_nine() -> None:
    assert str(monthly_upkeep(7, 3, Season.SUMMER, R).normalize()) == "1.9"


def test_upkeep_of_ships_uses_the_configured_rate() -> None:
    assert monthly_upkeep(0, 0, Season.SUMMER, R, ships=3) == 3 * R.ship_upkeep
    assert monthly_upkeep(0, 0, Season.WINTER, R, ships=3) == 6 * R.ship_upkeep


def test_upkeep_rates_come_from_config() -> None:
    rules = replace(R, infantry_upkeep=D("0.25"), winter_upkeep_multiplier=D(3))
    assert monthly_upkeep(4, 0, Season.WINTER, rules) == D(3)


def test_upkeep_paid_when_gold_covers_it() -> None:
    result = apply_upkeep(D(10), 7, 3, Season.SUMMER, R)
    assert (result.cost, result.gold_after, result.scatter) == (D("1.9"), D("8.1"), False)
    assert result.survivors == Troops(7, 3)
    assert result.lost == Troops()


def test_upkeep_gold_exactly_covering_the_cost_is_enough() -> None:
    result = apply_upkeep(D("1.9"), 7, 3, Season.SUMMER, R)
    assert (result.gold_after, result.scatter) == (D(0), False)


@pytest.mark.parametrize(
    ("infantry", "cavalry", "survivors"),
    [(7, 3, (3, 1)), (8, 4, (4, 2)), (1, 1, (0, 0)), (101, 0, (50, 0)), (0, 0, (0, 0))],
)
def test_upkeep_out_of_gold_troops_scatter_half_rounded_down(
    infantry: int, cavalry: int, survivors: tuple[int, int]
) -> None:
    """If gold does not cover the upkeep, gold becomes 0 and the raised troops scatter: half
    (rounded down) of each type survive and go home."""
    result = apply_upkeep(D("0.05"), infantry, cavalry, Season.WINTER, R)
    if infantry + cavalry == 0:
        assert not result.scatter  # nothing raised, nothing to pay
        return
    assert result.scatter
    assert result.gold_after == 0
    assert (result.survivors.infantry, result.survivors.cavalry) == survivors
    assert result.lost == Troops(infantry - survivors[0], cavalry - survivors[1])


def test_upkeep_income_arrives_before_paying() -> None:
    """GOLD_INCOME effects add to the claim's gold before the month's upkeep is paid."""
    mine = Modifier("Silver mine", Source.RESOURCE, (Effect(EffectKind.GOLD_INCOME, D("2.5")),))
    result = apply_upkeep(D(0), 7, 3, Season.SUMMER, R, income_modifiers=[mine])
    assert (result.income, result.gold_after, result.scatter) == (D("2.5"), D("0.6"), False)
    assert result.income_labels == ("+2.5 Silver mine",)


def test_upkeep_refuses_negative_gold() -> None:
    with pytest.raises(InvalidInput) as err:
        apply_upkeep(D(-1), 1, 0, Season.SUMMER, R)
    assert err.value.field == "gold"


@given(st.integers(0, 10**6), st.integers(0, 10**6), st.sampled_from(list(Season)),
       st.decimals(min_value=0, max_value=10**6, places=2))
@settings(max_examples=200)
def test_upkeep_properties(infantry: int, cavalry: int, season: Season, gold: Decimal) -> None:
    result = apply_upkeep(gold, infantry, cavalry, season, R)
    assert result.scatter is (gold < result.cost)
    assert result.gold_after >= 0
    assert result.survivors.infantry + result.lost.infantry == infantry
    assert result.survivors.cavalry + result.lost.cavalry == cavalry
    if result.scatter:
        assert result.survivors.infantry == infantry // 2
        assert result.survivors.cavalry == cavalry // 2
    else:
        assert result.gold_after == gold - result.cost


# --- regeneration -------------------------------------------------------------------------------


def test_regeneration_rate_is_15_percent_a_year_accrued_monthly() -> None:
    """15% of the slain count per in-game year, accrued monthly: 1.25% a month."""
    assert monthly_regeneration_rate(R) == Fraction(1, 80)
    assert regenerate(100, 12, R) == 15


def _run(ledger: SlainLedger, first: GameDate, months: int) -> tuple[SlainLedger, list[int],
                                                                     list[int]]:
    inf: list[int] = []
    cav: list[int] = []
    month = first
    for _ in range(months):
        ledger, i, c = accrue_month(ledger, month, R)
        inf.append(i)
        cav.append(c)
        month = next_month(month, R)
    return ledger, inf, cav


def test_regeneration_starts_the_month_after_the_loss() -> None:
    """Regeneration runs from the first month after the loss."""
    ledger = record_loss(SlainLedger(), M0, 80, 0)
    ledger, back_inf, _ = accrue_month(ledger, M0, R)  # the month of the loss itself
    assert back_inf == 0
    ledger, back_inf, _ = accrue_month(ledger, next_month(M0, R), R)
    assert back_inf == 1  # 80 x 1.25% = 1


def test_regeneration_fractions_carry_over() -> None:
    """Fractions carry: 100 slain return 1, 1, 1, 2, 1, 1, 1, 2 ... (1.25 a month)."""
    ledger = record_loss(SlainLedger(), M0, 100, 40)
    _, inf, cav = _run(ledger, next_month(M0, R), 8)
    assert inf == [1, 1, 1, 2, 1, 1, 1, 2]
    assert cav == [0, 1, 0, 1, 0, 1, 0, 1]  # 40 x 1.25% = 0.5 a month


def test_regeneration_stops_when_all_are_back() -> None:
    """Troops regenerate until all are back, and the loss then leaves the ledger."""
    ledger = record_loss(SlainLedger(), M0, 100, 3)
    ledger, inf, cav = _run(ledger, next_month(M0, R), 100)
    assert sum(inf) == 100 and sum(cav) == 3
    assert sum(inf[:80]) == 100  # 80 months at 1.25 each
    assert inf[80:] == [0] * 20
    assert ledger.losses == ()
    assert ledger.outstanding == Troops()


def test_regeneration_losses_are_kept_separately() -> None:
    ledger = record_loss(SlainLedger(), M0, 80, 0)
    ledger, _, _ = accrue_month(ledger, GameDate(300, 2), R)
    ledger = record_loss(ledger, GameDate(300, 2), 80, 0)
    ledger, inf, _ = accrue_month(ledger, GameDate(300, 3), R)
    assert inf == 2  # one from each loss
    assert ledger.outstanding == Troops(160 - 3, 0)


def test_regeneration_a_month_is_accrued_once() -> None:
    """Every missed month boundary runs once, in order: repeating one is refused."""
    ledger, _, _ = accrue_month(record_loss(SlainLedger(), M0, 10, 0), GameDate(300, 2), R)
    with pytest.raises(MonthAlreadyAccrued):
        accrue_month(ledger, GameDate(300, 2), R)
    with pytest.raises(MonthAlreadyAccrued):
        accrue_month(ledger, M0, R)


def test_regeneration_of_nobody_changes_nothing() -> None:
    assert record_loss(SlainLedger(), M0, 0, 0) == SlainLedger()


def test_regeneration_rate_comes_from_config() -> None:
    rules = replace(R, regeneration_per_year=D("0.24"))
    assert regenerate(100, 1, rules) == 2


@given(st.integers(0, 5000), st.integers(0, 500), st.integers(1, 120))
@settings(max_examples=100, deadline=None)
def test_regeneration_ledger_matches_the_closed_form(infantry: int, cavalry: int,
                                                     months: int) -> None:
    ledger = record_loss(SlainLedger(), M0, infantry, cavalry)
    _, inf, cav = _run(ledger, next_month(M0, R), months)
    assert sum(inf) == regenerate(infantry, months, R)
    assert sum(cav) == regenerate(cavalry, months, R)
    assert sum(inf) <= infantry and sum(cav) <= cavalry
