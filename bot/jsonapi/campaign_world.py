"""JSON engines for the campaign world: ``movement``, ``muster``, ``detection``, ``upkeep`` and
``siege``. They use the default rules (:data:`rules.campaign.config.DEFAULT_RULES`).

Times are ISO 8601 UTC with a ``Z``. Exact decimal values (money, multipliers) come out as JSON
numbers -- an integer when whole, otherwise the nearest float, whose JSON text is the exact
decimal (``1.9``) whenever the value has at most 15 significant digits -- and always also as
exact decimal strings under the same name with ``_exact`` appended (``"cost_exact": "1.9"``),
so nothing depends on a reader's float handling. The models of :mod:`bot.jsonapi.models.
campaign_world` are the contract; the runner refuses any field they do not declare, so a
misspelt field cannot silently count as 0.
"""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction
from typing import Any

from bot.jsonapi import Payload
from bot.jsonapi.fields import (
    format_time,
    get_bool,
    get_decimal,
    get_int,
    get_list,
    get_str,
    get_time,
)
from rules.campaign.config import DEFAULT_RULES, Season, Terrain
from rules.campaign.detection import ObserverKind, roll_detection
from rules.campaign.movement import (
    budget_per_tick,
    departure_tick,
    schedule_march,
    speed_multiplier,
    tile_costs,
)
from rules.campaign.muster import muster_ready_at
from rules.campaign.siege import siege_months
from rules.campaign.upkeep import apply_upkeep
from rules.dice import Dice
from rules.errors import InvalidInput

_TERRAINS = tuple(t.value for t in Terrain)
_OBSERVERS = tuple(o.value for o in ObserverKind)


def exact_text(value: Decimal | Fraction | int) -> str:
    """The exact decimal text of a value (``"1.9"``, ``"0"``, ``"12.5"``)."""
    decimal = value if isinstance(value, Decimal) else Decimal(value.numerator) / value.denominator
    if decimal == decimal.to_integral_value():
        return str(int(decimal))
    return format(decimal.normalize(), "f")


def number(value: Decimal | Fraction | int) -> int | float:
    """A JSON number: an int when whole, else the float nearest the exact value."""
    if isinstance(value, int):
        return value
    if value == int(value):
        return int(value)
    return float(value)


def _terrains(payload: Payload) -> tuple[Terrain, ...]:
    items = get_list(payload, "terrains")
    if not items:
        raise InvalidInput("terrains", "the path enters no tile", "at least one terrain")
    out = []
    for i, item in enumerate(items):
        if not isinstance(item, str) or item.strip().lower() not in _TERRAINS:
            raise InvalidInput(
                f"terrains[{i}]", f"{item!r} is not a terrain", "one of " + ", ".join(_TERRAINS)
            )
        out.append(Terrain(item.strip().lower()))
    return tuple(out)


def movement_engine(payload: Payload, dice: Dice) -> dict[str, Any]:
    """In: terrains (each tile entered), infantry, cavalry, accepted_at, ready_at (optional)."""
    rules = DEFAULT_RULES
    terrains = _terrains(payload)
    infantry = get_int(payload, "infantry", default=0)
    cavalry = get_int(payload, "cavalry", default=0)
    if infantry + cavalry < 1:
        raise InvalidInput("infantry", "the army needs at least one unit", "infantry or cavalry")
    accepted_at = get_time(payload, "accepted_at")
    ready_at = get_time(payload, "ready_at", default=None)
    costs = tile_costs(terrains, rules)
    multiplier, reasons = speed_multiplier(infantry, cavalry, rules)
    budget = budget_per_tick(infantry, cavalry, rules)
    departure = departure_tick(accepted_at, ready_at, rules)
    schedule = schedule_march(costs, budget, departure, rules)
    return {
        "travel_cost": sum(costs),
        "tile_costs": list(costs),
        "speed_multiplier": number(multiplier),
        "speed_multiplier_exact": exact_text(multiplier),
        "speed_reasons": list(reasons),
        "budget_per_tick": number(budget),
        "budget_per_tick_exact": exact_text(budget),
        "departure": format_time(schedule.departure),
        "arrival": format_time(schedule.arrival),
        "entries": [format_time(t) for t in schedule.entries],
    }


def muster_engine(payload: Payload, dice: Dice) -> dict[str, Any]:
    """In: accepted_at. Out: ready_at."""
    ready = muster_ready_at(get_time(payload, "accepted_at"), DEFAULT_RULES)
    return {"ready_at": format_time(ready)}


def detection_engine(payload: Payload, dice: Dice) -> dict[str, Any]:
    """In: force_size, observer (holdfast, resource_tile, none; default none), dice."""
    size = get_int(payload, "force_size", minimum=1)
    observer = ObserverKind(get_str(payload, "observer", default="none", choices=_OBSERVERS))
    result = roll_detection(size, observer, dice=dice, rules=DEFAULT_RULES)
    return {
        "automatic": result.automatic,
        "detected": result.detected,
        "target": result.target,
        "roll": result.roll,
        "total": result.total,
        "bonus": result.bonus,
        "explanation": list(result.explanation),
    }


def upkeep_engine(payload: Payload, dice: Dice) -> dict[str, Any]:
    """In: infantry, cavalry, winter (default false), gold, ships (default 0)."""
    infantry = get_int(payload, "infantry", default=0)
    cavalry = get_int(payload, "cavalry", default=0)
    ships = get_int(payload, "ships", default=0)
    season = Season.WINTER if get_bool(payload, "winter", default=False) else Season.SUMMER
    gold = get_decimal(payload, "gold", minimum=Decimal(0))
    result = apply_upkeep(gold, infantry, cavalry, season, DEFAULT_RULES, ships)
    survivors = {"infantry": result.survivors.infantry, "cavalry": result.survivors.cavalry}
    lost = {"infantry": result.lost.infantry, "cavalry": result.lost.cavalry}
    if ships:
        survivors["ships"] = result.survivors.ships
        lost["ships"] = result.lost.ships
    return {
        "cost": number(result.cost),
        "cost_exact": exact_text(result.cost),
        "gold_after": number(result.gold_after),
        "gold_after_exact": exact_text(result.gold_after),
        "scatter": result.scatter,
        "survivors": survivors,
        "lost": lost,
    }


def siege_engine(payload: Payload, dice: Dice) -> dict[str, Any]:
    """In: garrison. Out: months."""
    length = siege_months(get_int(payload, "garrison"), DEFAULT_RULES)
    return {"months": length.months, "base": length.base}
