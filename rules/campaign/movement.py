"""Movement: travel cost, speed, departure and the tick on which each tile is entered.

Travel cost
    The cost of a path is the sum of the terrain costs of every tile entered; the start tile
    is free. Land armies cannot enter tiles whose terrain has no cost (water, impassable).

Speed
    An army earns ``base_speed_per_day * tick_hours / 24`` travel cost per tick (1.5 by
    default), times its speed multiplier: x2 for 20 units or fewer, x2 when it is all cavalry
    (both: x4), x0.5 from 1001 units and x0.25 from 5001 units (the x0.25 replaces the x0.5),
    then any SPEED modifiers. Fleets earn ``ship_speed_per_day`` instead; the size and cavalry
    multipliers are for land armies, so fleets only take SPEED modifiers.

Marching, tick by tick
    Movement starts at the departure tick: the next tick at or after the order was accepted, or
    at muster readiness when that is later. At departure the army has marched for no time and
    has no budget: **no tile is ever entered on the departure tick**. On every tick after it the
    army adds one tick's budget (six hours of marching) to what it has saved, then enters as
    many of the next tiles as that saving covers, paying each tile's cost; what is left carries
    over to the next tick. The army arrives on the tick it enters the last tile. So a budget
    ``b`` reaches cumulative cost ``C`` ``ceil(C / b)`` ticks after departure: with 1.5 per
    tick, a single field is entered on the first tick after departure and six fields (cost 6)
    on the fourth, exactly 24 hours after departure (the seed's "6 Travel Cost per day").

Budgets are exact fractions (:class:`fractions.Fraction`), so any speed or tick length in the
config gives exact schedules.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from fractions import Fraction

from rules.campaign.calendar import (
    is_tick,
    next_tick_at_or_after,
    require_aware,
    tick_index,
    tick_time,
)
from rules.campaign.config import RulesConfig, Terrain
from rules.campaign.modifiers import EffectKind, Modifier, Role, collect, product, public_labels
from rules.errors import InvalidInput


def tile_costs(terrains: Sequence[Terrain], rules: RulesConfig, field: str = "terrains"
               ) -> tuple[int, ...]:
    """The travel cost of entering each tile of a path, in order (the start tile excluded).

    Raises InvalidInput naming ``terrains[i]`` when a land army cannot enter tile ``i``.
    """
    costs = []
    for i, terrain in enumerate(terrains):
        cost = rules.cost_of(terrain)
        if cost is None:
            raise InvalidInput(
                f"{field}[{i}]", f"a land army cannot enter {terrain.value} tiles",
                "a land terrain",
            )
        costs.append(cost)
    return tuple(costs)


def _count(value: int, field: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InvalidInput(field, f"must be a whole number of at least 0, not {value!r}")
    return value


def _plain(value: Decimal) -> str:
    return format(value.normalize(), "f")


def speed_multiplier(
    infantry: int,
    cavalry: int,
    rules: RulesConfig,
    *,
    modifiers: Iterable[Modifier] = (),
    is_fleet: bool = False,
) -> tuple[Decimal, tuple[str, ...]]:
    """The army's speed multiplier and the public reasons for it, in the order applied.

    Land armies: x``small_army_multiplier`` at ``small_army_max`` units or fewer,
    x``all_cavalry_multiplier`` when every unit is cavalry, x``huge_army_multiplier`` from
    ``huge_army_min`` units or else x``large_army_multiplier`` from ``large_army_min``; then
    SPEED modifiers (stacking rule of :func:`modifiers.collect`; hidden ones count but are not
    listed). Fleets (``is_fleet``) take only the SPEED modifiers and ignore troop counts.
    Raises InvalidInput for negative counts or a land army of no units.
    """
    _count(infantry, "infantry")
    _count(cavalry, "cavalry")
    multiplier = Decimal(1)
    reasons: list[str] = []
    if not is_fleet:
        size = infantry + cavalry
        if size < 1:
            raise InvalidInput("infantry", "an army needs at least one unit", "1 or more units")
        if size <= rules.small_army_max:
            multiplier *= rules.small_army_multiplier
            reasons.append(
                f"x{_plain(rules.small_army_multiplier)} small army "
                f"({rules.small_army_max} units or fewer)"
            )
        if infantry == 0:
            multiplier *= rules.all_cavalry_multiplier
            reasons.append(f"x{_plain(rules.all_cavalry_multiplier)} all cavalry")
        if size >= rules.huge_army_min:
            multiplier *= rules.huge_army_multiplier
            reasons.append(
                f"x{_plain(rules.huge_army_multiplier)} huge army "
                f"({rules.huge_army_min} units or more)"
            )
        elif size >= rules.large_army_min:
            multiplier *= rules.large_army_multiplier
            reasons.append(
                f"x{_plain(rules.large_army_multiplier)} large army "
                f"({rules.large_army_min} units or more)"
            )
    applied = collect(modifiers, EffectKind.SPEED, Role.BOTH)
    multiplier *= product(applied)
    reasons.extend(public_labels(applied))
    return multiplier, tuple(reasons)


def budget_per_tick(
    infantry: int,
    cavalry: int,
    rules: RulesConfig,
    *,
    modifiers: Iterable[Modifier] = (),
    is_fleet: bool = False,
) -> Fraction:
    """Travel cost the army earns per tick: speed per day / ticks per day x multiplier.

    1.5 for an ordinary army under the default rules. Raises InvalidInput as
    :func:`speed_multiplier` does, and when the configured speed is not positive.
    """
    per_day = rules.ship_speed_per_day if is_fleet else rules.base_speed_per_day
    if per_day <= 0:
        field = "ship_speed_per_day" if is_fleet else "base_speed_per_day"
        raise InvalidInput(field, f"must be above 0, not {per_day}")
    if rules.tick_hours < 1:
        raise InvalidInput("tick_hours", f"must be at least 1, not {rules.tick_hours}")
    multiplier, _ = speed_multiplier(
        infantry, cavalry, rules, modifiers=modifiers, is_fleet=is_fleet
    )
    return Fraction(per_day) * Fraction(rules.tick_hours, 24) * Fraction(multiplier)


def departure_tick(accepted_at: datetime, ready_at: datetime | None, rules: RulesConfig
                   ) -> datetime:
    """The tick a movement order starts: the next tick at or after acceptance, or the first
    tick at or after muster readiness when that is later. Raises InvalidInput for naive times.
    """
    start = next_tick_at_or_after(require_aware(accepted_at, "accepted_at"), rules)
    if ready_at is None:
        return start
    return max(start, next_tick_at_or_after(require_aware(ready_at, "ready_at"), rules))


def marches_on(tick: int, departure: int | None) -> bool:
    """Whether an army that departs on tick index ``departure`` earns a budget on ``tick``.

    Only on the ticks strictly after departure: at the departure tick the army has marched for
    no time. An army with no departure does not march.
    """
    return departure is not None and tick > departure


def _checked_costs(costs: Sequence[int]) -> tuple[int, ...]:
    """``costs`` (the cost of each tile of a path) as a tuple; raises InvalidInput naming the
    first that is not a whole number above 0."""
    checked = tuple(costs)
    if checked and (set(map(type, checked)) != {int} or min(checked) < 1):  # checked in bulk
        for i, cost in enumerate(checked):
            if isinstance(cost, bool) or not isinstance(cost, int) or cost < 1:
                raise InvalidInput(f"costs[{i}]", f"must be a whole number above 0, not {cost!r}")
    return checked


def _budget(budget: Fraction | Decimal | int) -> Fraction:
    value = budget if type(budget) is Fraction else Fraction(budget)  # usually one already
    if value <= 0:
        raise InvalidInput("budget", f"must be above 0, not {budget}")
    return value


def enter_tiles(costs: Sequence[int], index: int, saved: Fraction, earned: Fraction,
                known: dict[tuple[int, int], Fraction] | None = None) -> tuple[int, Fraction]:
    """The arithmetic of one tick of marching (each tick after departure, :func:`marches_on`):
    add ``earned`` to ``saved``, then from tile ``index`` of a path whose tiles cost ``costs``
    enter every next tile the saving covers, paying its cost. Returns the index of the next
    tile to enter and what is saved. Exact, in whole numbers over the saving's denominator (a
    tick moves thousands of armies; fraction arithmetic costs more than the rest).

    ``known``: the savings worked out before, by numerator and denominator (the marches of a
    tick save a few distinct amounts: with it each is made once, and kept in it)."""
    (p, q), (r, s) = saved.as_integer_ratio(), earned.as_integer_ratio()  # (one call each)
    num, den = (p + r, q) if q == s else (p * s + r * q, q * s)
    count = len(costs)
    while index < count and num >= costs[index] * den:
        num -= costs[index] * den
        index += 1
    if known is None:
        return index, Fraction(num, den)
    left = known.get((num, den))
    if left is None:
        left = known[num, den] = Fraction(num, den)
    return index, left


def ticks_to_cross(costs: Sequence[int], budget: Fraction | Decimal | int) -> int:
    """How many ticks after departure an army earning ``budget`` a tick enters the last of
    tiles costing ``costs``: ``ceil(sum(costs) / budget)`` (0 for an empty path).

    Raises InvalidInput for a budget not above 0.
    """
    return math.ceil(Fraction(sum(costs)) / _budget(budget))


@dataclass(frozen=True, slots=True)
class MarchSchedule:
    """When each tile of a path is entered (``entries[i]`` for tile ``i``) and the arrival."""

    departure: datetime
    entries: tuple[datetime, ...]
    arrival: datetime


def schedule_march(costs: Sequence[int], budget: Fraction | Decimal | int, departure: datetime,
                   rules: RulesConfig) -> MarchSchedule:
    """The full timetable of a march leaving on tick ``departure`` with ``budget`` per tick.

    Tile ``i`` is entered on the tick when the budget earned so far (nothing on the departure
    tick, one budget on each tick after it) covers the cost of tiles ``0..i``, i.e.
    ``ceil(cost of 0..i / budget)`` ticks after departure; this is exactly what repeated
    :func:`enter_tiles` on the ticks after departure gives. Raises InvalidInput for an empty
    path, a tile cost below 1, a budget not above 0, or a departure that is not a tick.
    """
    if not costs:
        raise InvalidInput("terrains", "the path enters no tile", "at least one tile")
    checked = _checked_costs(costs)
    earned = _budget(budget)
    departure = require_aware(departure, "departure")
    if not is_tick(departure, rules):
        raise InvalidInput("departure", f"{departure.isoformat()} is not a tick")
    first = tick_index(departure, rules)
    entries = [tick_time(first + ticks_to_cross(checked[:i + 1], earned), rules)
               for i in range(len(checked))]
    return MarchSchedule(departure, tuple(entries), entries[-1])
