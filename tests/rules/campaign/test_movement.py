"""Movement (docs/rules.md "3. Movement")."""

from __future__ import annotations

import math
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.campaign.calendar import tick_index, tick_time
from rules.campaign.config import DEFAULT_RULES, Terrain
from rules.campaign.modifiers import Effect, EffectKind, Modifier, Source
from rules.campaign.movement import (
    budget_per_tick,
    departure_tick,
    enter_tiles,
    schedule_march,
    speed_multiplier,
    ticks_to_cross,
    tile_costs,
)
from rules.errors import InvalidInput

R = DEFAULT_RULES
D = Decimal
F = Fraction
DEPART = datetime(2026, 11, 22, 12, tzinfo=UTC)
H = timedelta(hours=1)


def utc(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


# --- travel cost ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("terrain", "cost"),
    [(Terrain.FIELD, 1), (Terrain.FOREST, 2), (Terrain.HILL, 2), (Terrain.MOUNTAIN, 3),
     (Terrain.SAND, 3), (Terrain.SWAMP, 3)],
)
def test_terrain_chart_travel_cost(terrain: Terrain, cost: int) -> None:
    """Each terrain has its travel cost from the chart."""
    assert tile_costs([terrain], R) == (cost,)


def test_travel_cost_is_the_sum_of_tiles_entered() -> None:
    """Travel cost of a path = sum of the terrain costs of every tile entered."""
    path = [Terrain.FIELD, Terrain.FOREST, Terrain.MOUNTAIN, Terrain.FIELD]
    assert tile_costs(path, R) == (1, 2, 3, 1)
    assert sum(tile_costs(path, R)) == 7
    assert tile_costs([], R) == ()


@pytest.mark.parametrize("terrain", [Terrain.WATER, Terrain.IMPASSABLE])
def test_land_armies_cannot_enter_water_or_impassable(terrain: Terrain) -> None:
    """Land armies: no water, no impassable tiles; the error names the tile."""
    with pytest.raises(InvalidInput) as err:
        tile_costs([Terrain.FIELD, terrain], R)
    assert err.value.field == "terrains[1]"


def test_terrain_costs_come_from_config() -> None:
    rules = replace(R, terrain_cost=((Terrain.FIELD, 2),))
    assert tile_costs([Terrain.FIELD, Terrain.FIELD], R) == (1, 1)
    assert tile_costs([Terrain.FIELD, Terrain.FIELD], rules) == (2, 2)


# --- speed ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("infantry", "cavalry", "multiplier"),
    [
        (20, 0, D(2)),  # 20 units or fewer: twice as fast
        (21, 0, D(1)),
        (1000, 0, D(1)),
        (1001, 0, D("0.5")),  # over 1000: halved
        (5000, 0, D("0.5")),
        (5001, 0, D("0.25")),  # over 5000: quartered, not halved again
        (0, 20, D(4)),  # small and all cavalry: four times
        (0, 21, D(2)),  # all cavalry: twice
        (0, 1000, D(2)),
        (0, 1001, D(1)),
        (0, 5000, D(1)),
        (0, 5001, D("0.5")),
        (10, 10, D(2)),  # mixed small army
        (1, 20, D(1)),  # 21 units, not all cavalry
        (1, 0, D(2)),
    ],
)
def test_speed_multiplier_chart(infantry: int, cavalry: int, multiplier: Decimal) -> None:
    """Size <= 20: x2; all cavalry: x2 (both: x4); size >= 1001: x0.5; size >= 5001: x0.25,
    replacing the x0.5."""
    value, _ = speed_multiplier(infantry, cavalry, R)
    assert value == multiplier


def test_speed_multiplier_explains_itself() -> None:
    _, reasons = speed_multiplier(0, 15, R)
    assert reasons == ("x2 small army (20 units or fewer)", "x2 all cavalry")
    _, reasons = speed_multiplier(6000, 0, R)
    assert reasons == ("x0.25 huge army (5001 units or more)",)
    assert speed_multiplier(100, 0, R) == (D(1), ())


def test_speed_modifiers_multiply_after_the_size_rules() -> None:
    """SPEED effects multiply the speed; same-named ones do not stack; hidden ones count but
    are not explained."""
    roads = Modifier("Kingsroad", Source.RESOURCE, (Effect(EffectKind.SPEED, D("1.5")),))
    roads_again = Modifier("kingsroad", Source.RESOURCE, (Effect(EffectKind.SPEED, D("1.2")),))
    secret = Modifier("Guides", Source.IMPROVEMENT, (Effect(EffectKind.SPEED, D("1.1")),),
                      hidden=True)
    value, reasons = speed_multiplier(10, 0, R, modifiers=[roads, roads_again, secret])
    assert value == D("3.30")
    assert reasons == ("x2 small army (20 units or fewer)", "x1.5 Kingsroad")


def test_speed_of_an_empty_army_is_invalid() -> None:
    with pytest.raises(InvalidInput):
        speed_multiplier(0, 0, R)


@pytest.mark.parametrize(
    ("infantry", "cavalry", "budget"),
    [(100, 0, F(3, 2)), (20, 0, F(3)), (0, 20, F(6)), (1001, 0, F(3, 4)), (5001, 0, F(3, 8)),
     (0, 100, F(3))],
)
def test_base_speed_is_six_a_day_spent_evenly_per_tick(infantry: int, cavalry: int,
                                                       budget: Fraction) -> None:
    """Base speed 6 travel cost per 24 h, spent evenly: 1.5 per tick, times the multiplier."""
    assert budget_per_tick(infantry, cavalry, R) == budget


def test_fleets_use_ship_speed_and_ignore_the_size_rules() -> None:
    assert budget_per_tick(0, 0, R, is_fleet=True) == R.ship_speed_per_day * 6 / 24
    assert budget_per_tick(3, 0, R, is_fleet=True) == F(3)
    assert speed_multiplier(3, 0, R, is_fleet=True) == (D(1), ())


# --- departure ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("accepted", "ready", "departure"),
    [
        ("2026-11-22T07:30:00", None, "2026-11-22T12:00:00"),
        ("2026-11-22T12:00:00", None, "2026-11-22T12:00:00"),
        ("2026-11-22T07:30:00", "2026-11-23T12:00:00", "2026-11-23T12:00:00"),  # muster later
        ("2026-11-24T01:00:00", "2026-11-23T12:00:00", "2026-11-24T06:00:00"),  # order later
        ("2026-11-22T07:30:00", "2026-11-23T13:00:00", "2026-11-23T18:00:00"),  # snapped to tick
    ],
)
def test_movement_starts_at_next_tick_or_muster_readiness(accepted: str, ready: str | None,
                                                          departure: str) -> None:
    """Movement starts at the next tick at or after the order is accepted, or at muster
    readiness, whichever is later."""
    ready_at = utc(ready) if ready else None
    assert departure_tick(utc(accepted), ready_at, R) == utc(departure)


# --- marching -------------------------------------------------------------------------------


def test_march_enters_nothing_on_the_departure_tick() -> None:
    """docs/rules.md: at departure the army has marched for no time, so even a single field
    (cost 1 <= 1.5) is entered on the first tick after departure, never at departure."""
    schedule = schedule_march([1], F(3, 2), DEPART, R)
    assert schedule.entries == (DEPART + 6 * H,)
    assert schedule.arrival == DEPART + 6 * H


def test_march_enters_a_tile_when_the_accumulated_budget_covers_it() -> None:
    """The army enters the next tile on the tick when its accumulated budget covers that tile's
    cost: a mountain (3) at 1.5 a tick is entered on the second tick after departure."""
    schedule = schedule_march([3], F(3, 2), DEPART, R)
    assert schedule.entries == (DEPART + 12 * H,)


def test_march_worked_example_of_the_decisions() -> None:
    """The worked example of docs/rules.md: 300 infantry accepted 07:30 day 1 over field, forest,
    hill, field (cost 6): departs 12:00 day 1; enters 18:00, 00:00, then 12:00 day 2 twice."""
    departure = departure_tick(utc("2026-11-22T07:30:00"), None, R)
    costs = tile_costs([Terrain.FIELD, Terrain.FOREST, Terrain.HILL, Terrain.FIELD], R)
    schedule = schedule_march(costs, budget_per_tick(300, 0, R), departure, R)
    assert departure == utc("2026-11-22T12:00:00")
    assert schedule.entries == (utc("2026-11-22T18:00:00"), utc("2026-11-23T00:00:00"),
                                utc("2026-11-23T12:00:00"), utc("2026-11-23T12:00:00"))
    assert schedule.arrival - departure == 24 * H


@pytest.mark.parametrize(("infantry", "cavalry", "costs", "hours"), [
    (300, 0, [1] * 6, 24),      # six fields at the base speed: a day
    (0, 20, [1] * 6, 6),        # 20 cavalry (x4, 6 a tick): the first tick after departure
    (1500, 0, [1] * 6, 48),     # a large host (x0.5): two days
    (6000, 0, [1] * 6, 96),     # a huge host (x0.25): four days
    (0, 50, [3], 6),            # the demo's all-cavalry march of cost 3
])
def test_march_takes_the_seeds_travel_time(infantry: int, cavalry: int, costs: list[int],
                                           hours: int) -> None:
    """The measured march times, as the seed says."""
    schedule = schedule_march(costs, budget_per_tick(infantry, cavalry, R), DEPART, R)
    assert schedule.arrival - DEPART == hours * H


def test_march_unspent_budget_carries_over() -> None:
    """Unspent budget carries over: fields at 1.5 a tick are entered 1, 2, 1, 2 per tick."""
    costs, index, saved = (1, 1, 1, 1, 1, 1), 0, F(0)
    entered = []
    for _ in range(4):
        after, saved = enter_tiles(costs, index, saved, F(3, 2))
        entered.append(after - index)
        index = after
    assert entered == [1, 2, 1, 2]
    assert index == len(costs)
    assert saved == 0


def test_march_arrival_is_the_tick_the_last_tile_is_entered() -> None:
    """Arrival = the tick on which the army enters the last tile."""
    schedule = schedule_march([1, 2, 2, 3], F(3, 2), DEPART, R)
    assert schedule.entries == (DEPART + 6 * H, DEPART + 12 * H, DEPART + 24 * H,
                                DEPART + 36 * H)
    assert schedule.arrival == schedule.entries[-1]


def test_march_six_travel_cost_take_a_day() -> None:
    """Six fields (a day's travel cost) are crossed in exactly 24 hours: four ticks after
    departure."""
    assert schedule_march([1] * 6, F(3, 2), DEPART, R).arrival == DEPART + 24 * H


def test_march_refuses_bad_input() -> None:
    with pytest.raises(InvalidInput):
        schedule_march([], F(3, 2), DEPART, R)
    with pytest.raises(InvalidInput):
        schedule_march([1, 0], F(3, 2), DEPART, R)
    with pytest.raises(InvalidInput):
        schedule_march([1], F(0), DEPART, R)
    with pytest.raises(InvalidInput) as err:
        schedule_march([1], F(3, 2), DEPART + H, R)
    assert err.value.field == "departure"


def test_march_scenario_from_order_to_arrival() -> None:
    """Muster accepted 07:30, ready next day 12:00; 150 infantry then cross forest, hill and
    swamp (cost 7 at 1.5 a tick)."""
    departure = departure_tick(utc("2026-11-22T07:30:00"), utc("2026-11-23T12:00:00"), R)
    costs = tile_costs([Terrain.FOREST, Terrain.HILL, Terrain.SWAMP], R)
    schedule = schedule_march(costs, budget_per_tick(150, 0, R), departure, R)
    assert schedule.entries == (utc("2026-11-24T00:00:00"), utc("2026-11-24T06:00:00"),
                                utc("2026-11-24T18:00:00"))


# --- properties -------------------------------------------------------------------------------

costs_st = st.lists(st.integers(min_value=1, max_value=5), min_size=1, max_size=15)
budgets = st.builds(F, st.integers(min_value=1, max_value=40), st.integers(min_value=1,
                                                                           max_value=16))


def _by_stepping(costs: list[int], budget: Fraction) -> list[datetime]:
    """When the tick's marching (:func:`enter_tiles`) enters each tile."""
    index, saved = 0, F(0)
    entries: list[datetime] = []
    first = tick_index(DEPART, R)
    k = 1  # the first budget is earned on the first tick after departure
    while index < len(costs):
        after, saved = enter_tiles(costs, index, saved, budget)
        entries.extend([tick_time(first + k, R)] * (after - index))
        index, k = after, k + 1
    return entries


@given(costs_st, st.integers(min_value=1, max_value=7000), st.integers(min_value=0,
                                                                        max_value=7000),
       st.booleans())
@settings(max_examples=300)
def test_arrival_minus_departure_is_whole_ticks_of_budget(costs: list[int], infantry: int,
                                                          cavalry: int, fleet: bool) -> None:
    """For every path and army: arrival - departure = ceil(cost / budget) x 6 hours, and no
    tile is entered at the departure tick."""
    if fleet:
        infantry = cavalry = 0
    budget = budget_per_tick(infantry, cavalry, R, is_fleet=fleet)
    schedule = schedule_march(costs, budget, DEPART, R)
    ticks = math.ceil(F(sum(costs)) / budget)
    assert schedule.arrival - schedule.departure == ticks * R.tick_hours * H
    assert ticks_to_cross(costs, budget) == ticks
    assert min(schedule.entries) > schedule.departure


@given(costs_st, budgets)
@settings(max_examples=200)
def test_schedule_agrees_with_repeated_stepping(costs: list[int], budget: Fraction) -> None:
    schedule = schedule_march(costs, budget, DEPART, R)
    assert list(schedule.entries) == _by_stepping(costs, budget)
    assert schedule.arrival == schedule.entries[-1]
    assert list(schedule.entries) == sorted(schedule.entries)


@given(costs_st, budgets, st.data())
@settings(max_examples=200)
def test_arrival_never_earlier_for_a_costlier_path(costs: list[int], budget: Fraction,
                                                    data: st.DataObject) -> None:
    extra = data.draw(st.lists(st.integers(min_value=0, max_value=3), min_size=len(costs),
                               max_size=len(costs)))
    costlier = [c + e for c, e in zip(costs, extra, strict=True)]
    longer = costs + data.draw(st.lists(st.integers(min_value=1, max_value=5), max_size=3))
    arrival = schedule_march(costs, budget, DEPART, R).arrival
    assert schedule_march(costlier, budget, DEPART, R).arrival >= arrival
    assert schedule_march(longer, budget, DEPART, R).arrival >= arrival


@given(costs_st, budgets, budgets)
@settings(max_examples=200)
def test_arrival_never_later_for_a_faster_army(costs: list[int], a: Fraction, b: Fraction
                                                ) -> None:
    slow, fast = sorted((a, b))
    assert (schedule_march(costs, fast, DEPART, R).arrival
            <= schedule_march(costs, slow, DEPART, R).arrival)
