"""A whole tick as one call, with no database (issue #25): ``advance(world, tick, dice)`` runs
the jobs of the in-game month it begins (claim by claim, with the modifiers in force worked out
from the tick's catalogue and the world), then every phase; the same world and tick give the
same world and events; a world whose month has run does not run it again."""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal

from rules.campaign.improvements import finished_improvements
from rules.campaign.tick import (
    Arrival,
    CapacityChanged,
    ImprovementDone,
    MonthBegins,
    MonthEnds,
    Tick,
    UpkeepPaid,
    advance,
    months_due,
)
from rules.campaign.world import ArmyState, ClaimState, World
from tests.rules.campaign.builders import T, army
from tests.rules.campaign.test_advance import DICE, MAP, RULES, STARK, world
from tests.rules.campaign.test_monthly_and_aftermath import CATALOGUE


def first_month_tick() -> tuple[int, int]:
    """The first tick that begins an in-game month, and that month's number."""
    index = 1
    while not months_due(World(), Tick(index, MAP, RULES)):
        index += 1
    [(month, _date)] = months_due(World(), Tick(index, MAP, RULES))
    return index, month


def a_world(month: int) -> World:
    """Stark with two improvements due this month and an army on the march (and at war)."""
    records = tuple({"name": name, "holdfast": T[0], "cost": "100", "ordered_tick": 1,
                     "ready_month": month, "done": False} for name in ("Barracks", "Market"))
    stark = replace(STARK, gold=Decimal(500), improvements=records)
    return replace(world(army(1, 1, T[1], ArmyState.MARCHING, path=(T[2],), depart=1),
                         claims=(stark, ClaimState(2, "House Lannister", T[9]))),
                   last_month=month - 1)


def test_a_whole_tick_runs_its_month_then_its_phases() -> None:
    index, month = first_month_tick()
    before = a_world(month)
    tick = Tick(index, MAP, RULES, catalogue=CATALOGUE)
    after, events = advance(before, tick, DICE)
    kinds = [type(e) for e in events]
    assert kinds[0] is MonthBegins and MonthEnds in kinds and Arrival in kinds
    assert kinds.index(MonthEnds) < kinds.index(Arrival)  # the month's jobs come first
    assert kinds.count(ImprovementDone) == 2 and CapacityChanged in kinds
    assert after.last_month == month
    stark = after.claims[1]
    assert finished_improvements(stark.improvements) == ("Barracks", "Market")
    assert stark.infantry == 200  # the capacity the catalogue says, at once
    [paid] = [e for e in events if isinstance(e, UpkeepPaid) and e.claim.id == 1]
    assert "Market" in [m.name for m in paid.income]  # in force at once, just finished
    assert paid.result.income == Decimal(40) and stark.gold == paid.result.gold_after
    assert after.armies[1].tile == T[2]
    # A value: the same world and tick give the same world and events; the month ran once.
    assert advance(before, tick, DICE) == (after, events)
    again, more = advance(after, replace(tick, index=index + 1), DICE)
    assert not any(isinstance(e, MonthBegins) for e in more) and again.last_month == month


def test_without_a_catalogue_nothing_modifies_the_month() -> None:
    index, month = first_month_tick()
    after, events = advance(a_world(month), Tick(index, MAP, RULES), DICE)
    [paid] = [e for e in events if isinstance(e, UpkeepPaid) and e.claim.id == 1]
    assert paid.income == () and paid.result.income == 0
    assert not any(isinstance(e, CapacityChanged) for e in events)
    assert after.claims[1].infantry == 0
