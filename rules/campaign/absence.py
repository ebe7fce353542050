"""A claim's life over a long campaign, as rules: when it is inactive, what a leave may be,
and what holding a claim does to its armies.

A campaign runs for months and its players come and go. A claim whose players sent nothing
(no order, no command) for ``inactive_after`` is *inactive*; its players are warned
``warn_ahead`` before; a claim on leave (``away until DATE``) is never inactive, and its
inactivity is counted from the end of its leave. An inactive claim is *held* (or a held one
by the moderators' hand): at each tick its armies on the march stop where they stand, and a
march queued behind a muster is dropped (the muster itself completes). Nothing else changes:
upkeep is paid (and may scatter troops), battles are fought against it, and it never retreats
(retreating is an order, and nobody gives it).

Everything here is pure: the times and the world are arguments (:mod:`bot.services.absence`
loads them, journals what changed and tells the players and the moderators).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from enum import StrEnum

from rules.campaign.world import Army, ArmyState, World, no_march

__all__ = ["Hold", "Standing", "Stopped", "inactive_from", "is_held", "leave_problem",
           "standing", "stop_held", "warn_from"]


class Hold(StrEnum):
    """A claim's hold, as stored (None: never held, or active again since)."""

    INACTIVE = "inactive"  # held because it went inactive
    MODERATOR = "moderator"  # held by a moderator's hand
    LIFTED = "lifted"  # a moderator lifted the hold: not held again until it is active again


class Standing(StrEnum):
    """Where a claim stands at a moment (``maester claims`` shows it)."""

    ACTIVE = "active"
    AWAY = "away"  # on an announced leave
    INACTIVE = "inactive"  # no message for the configured days
    RETIRED = "retired"


def is_held(hold: str | None, retired: bool) -> bool:
    """Whether a claim's armies are held: held as inactive or by hand, or retired (a retired
    claim's forces the moderators kept stand where they are)."""
    return retired or hold in (Hold.INACTIVE, Hold.MODERATOR)


def inactive_from(last_seen: datetime, away_until: datetime | None,
                  inactive_after: timedelta) -> datetime:
    """The instant a claim last heard from at ``last_seen`` becomes inactive: ``inactive_after``
    after that, or after the end of its leave when that is later."""
    start = max(last_seen, away_until) if away_until is not None else last_seen
    return start + inactive_after


def warn_from(last_seen: datetime, away_until: datetime | None, inactive_after: timedelta,
              warn_ahead: timedelta) -> datetime | None:
    """When its players are warned that the claim will go inactive (None: no warning)."""
    if not warn_ahead or warn_ahead >= inactive_after:
        return None
    return inactive_from(last_seen, away_until, inactive_after) - warn_ahead


def standing(now: datetime, *, last_seen: datetime, away_until: datetime | None,
             retired: bool, inactive_after: timedelta) -> Standing:
    """The claim's standing at ``now``."""
    if retired:
        return Standing.RETIRED
    if away_until is not None and now < away_until:
        return Standing.AWAY
    if now >= inactive_from(last_seen, away_until, inactive_after):
        return Standing.INACTIVE
    return Standing.ACTIVE


def leave_problem(until: datetime, now: datetime, longest: timedelta) -> str | None:
    """Why a leave until ``until`` announced at ``now`` cannot be taken (None: it can)."""
    if until <= now:
        return f"{until:%Y-%m-%d} is not in the future"
    if until - now > longest:
        return (f"{until:%Y-%m-%d} is more than {longest.days} days away (the longest leave "
                "this campaign allows)")
    return None


@dataclass(frozen=True, slots=True)
class Stopped:
    """An army of a held claim stopped at this tick: on the march (now standing on ``tile``),
    or a march queued behind its muster dropped (``queued``)."""

    army: Army
    tile: str
    queued: bool


def stop_held(world: World, held: Iterable[int], tick: int) -> tuple[World, list[Stopped]]:
    """The world with the marches of the held claims' armies ended at ``tick``: an army on the
    march stands where it is, a march queued behind a muster is dropped. Armies retreating,
    besieging, standing or in garrison are left as they are (a battle still comes to them)."""
    claims = frozenset(held)
    if not claims:
        return world, []
    changed: dict[int, Army] = {}
    events: list[Stopped] = []
    for army in world.armies.values():
        if army.claim_id not in claims:
            continue
        if army.state is ArmyState.MARCHING:
            after = no_march(army, state=ArmyState.STANDING, stationary_since=tick)
        elif army.state is ArmyState.MUSTERING and army.march.path:
            after = no_march(army)
        else:
            continue
        changed[army.id] = after
        events.append(Stopped(after, after.tile, army.state is ArmyState.MUSTERING))
    if not changed:
        return world, []
    return replace(world, armies={**world.armies, **changed}), events
