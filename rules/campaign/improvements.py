"""A claim's improvements as stored, and what they change when a month begins.

A claim keeps its improvements as a list of records ``{"name", "holdfast", "cost",
"ordered_tick", "ready_month", "done"}`` plus at most one bookkeeping entry
``{"capacity": {"infantry": N, "cavalry": N}}``: the troops that capacity effects have added to
its troops at home so far (``Claim.improvements_json``, :attr:`ClaimState.improvements
<rules.campaign.world.ClaimState.improvements>`). The functions here read and write that list;
:func:`rules.campaign.tick.advance_improvements` finishes the improvements due at a month
boundary and brings the troops at home in line with the capacity effects in force.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from rules.campaign.catalogue import Catalogue, Section
from rules.campaign.modifiers import Modifier

CAPACITY_KEY = "capacity"
"""Key of the bookkeeping entry in a claim's improvement list."""

Items = Iterable[Any]
"""A claim's stored improvement list: records, the bookkeeping entry (anything else is
ignored)."""


def improvement_records(items: Items) -> list[dict[str, Any]]:
    """The built and in-progress improvements (copies; the bookkeeping entry left out)."""
    return [dict(item) for item in items if isinstance(item, Mapping) and "name" in item]


def finished_improvements(items: Items) -> tuple[str, ...]:
    """Names of the finished improvements."""
    return tuple(str(r["name"]) for r in improvement_records(items) if r.get("done"))


def capacity_granted(items: Items) -> tuple[int, int]:
    """(infantry, cavalry) that capacity effects have added to the troops at home so far."""
    for item in items:
        if isinstance(item, Mapping) and CAPACITY_KEY in item:
            granted = item[CAPACITY_KEY]
            return int(granted.get("infantry", 0)), int(granted.get("cavalry", 0))
    return 0, 0


def stored_items(records: Sequence[Mapping[str, Any]], granted: tuple[int, int]
                 ) -> tuple[dict[str, Any], ...]:
    """The list to store: the records, then the bookkeeping entry (none while nothing is
    granted)."""
    items = [dict(r) for r in records]
    if granted != (0, 0):
        items.append({CAPACITY_KEY: {"infantry": granted[0], "cavalry": granted[1]}})
    return tuple(items)


def improvement_modifiers(catalogue: Catalogue, items: Items) -> tuple[Modifier, ...]:
    """The modifiers of the finished improvements the catalogue knows (in the list's order)."""
    found: list[Modifier] = []
    for name in finished_improvements(items):
        entry = catalogue.find(Section.IMPROVEMENTS, name)
        if entry is not None:
            found.append(entry.modifier())
    return tuple(found)


def move_improvements(giver: Items, taker: Items, holdfast: str
                      ) -> tuple[tuple[dict[str, Any], ...], tuple[dict[str, Any], ...]]:
    """The two lists after the improvements at ``holdfast`` (built and in progress) went from
    ``giver`` to ``taker``: a holdfast that changes hands takes its improvements with it. Each
    keeps its own capacity bookkeeping (the next month boundary brings its troops at home in
    line with the effects it now has)."""
    given = list(giver)
    moved = [r for r in improvement_records(given) if r.get("holdfast") == holdfast]
    kept = [r for r in improvement_records(given) if r.get("holdfast") != holdfast]
    received = list(taker)
    return (stored_items(kept, capacity_granted(given)),
            stored_items([*improvement_records(received), *moved], capacity_granted(received)))
