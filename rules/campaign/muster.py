"""Mustering: when raised troops are ready, and whether a claim may raise what it asks for.

A muster order accepted at any moment starts at the next tick at or after it (an order accepted
exactly on a tick starts on that tick) and the troops are ready ``rules.muster_hours`` later
(default 24). A claim may raise any number of its troops at home, but troops that scattered for
want of gold cannot be raised again until the in-game year ends
(:func:`rules.campaign.calendar.scattered_until`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta

from rules.campaign.calendar import next_tick_at_or_after, require_aware
from rules.campaign.config import RulesConfig
from rules.errors import InvalidInput, RulesError


def muster_ready_at(accepted_at: datetime, rules: RulesConfig) -> datetime:
    """When troops of an order accepted at ``accepted_at`` are ready to fight and move.

    The next tick at or after acceptance plus ``rules.muster_hours``: accepted
    2026-11-22T07:30Z, ready 2026-11-23T12:00Z. Raises InvalidInput for a naive datetime.
    """
    if rules.muster_hours < 0:
        raise InvalidInput("muster_hours", f"must not be negative, not {rules.muster_hours}")
    start = next_tick_at_or_after(require_aware(accepted_at, "accepted_at"), rules)
    return start + timedelta(hours=rules.muster_hours)


class MusterError(RulesError):
    """A muster order that cannot be carried out."""


class NothingToMuster(MusterError):
    """The order raises no troops at all."""

    def __init__(self) -> None:
        super().__init__("the muster order raises no troops; name how many to raise")


@dataclass(frozen=True, slots=True)
class Shortfall:
    """One troop type asked for beyond what is available."""

    kind: str
    requested: int
    available: int


class NotEnoughTroops(MusterError):
    """More troops were asked for than the claim has at home (per type in ``shortfalls``).

    ``raisable`` gives, per type, what may be raised now (:func:`raisable_now`): fewer than
    at home while scattered troops are locked.
    """

    def __init__(self, shortfalls: tuple[Shortfall, ...],
                 raisable: Mapping[str, int]) -> None:
        self.shortfalls = shortfalls
        self.raisable = dict(raisable)
        parts = [f"{s.requested} {s.kind} asked for, {s.available} at home" for s in shortfalls]
        super().__init__("not enough troops at home: " + "; ".join(parts))


class ScatteredTroops(MusterError):
    """Troops asked for are among those that scattered and are locked until ``until``.

    ``shortfalls`` gives, per type asked for beyond it, what could be raised now;
    ``raisable`` gives it for every type (:func:`raisable_now`).
    """

    def __init__(self, until: datetime, shortfalls: tuple[Shortfall, ...],
                 raisable: Mapping[str, int]) -> None:
        self.until = until
        self.shortfalls = shortfalls
        self.raisable = dict(raisable)
        parts = [f"{s.available} {s.kind} can be raised now" for s in shortfalls]
        super().__init__(
            "troops that scattered cannot be raised until the in-game year ends at "
            f"{until.strftime('%Y-%m-%d %H:%M UTC')}: " + "; ".join(parts)
        )


class NoPort(MusterError):
    """Ships can only be mustered at a port holdfast."""

    def __init__(self) -> None:
        super().__init__("ships can only be mustered at a port holdfast")


@dataclass(frozen=True, slots=True)
class MusterRequest:
    """A muster order that passed :func:`check_muster`."""

    infantry: int
    cavalry: int
    ships: int = 0


def _count(value: int, field: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InvalidInput(field, f"must be a whole number of at least 0, not {value!r}")
    return value


def check_muster(
    infantry: int,
    cavalry: int,
    at_home_infantry: int,
    at_home_cavalry: int,
    scattered_until: datetime | None,
    now: datetime,
    ships: int = 0,
    *,
    at_home_ships: int = 0,
    scattered_infantry: int | None = None,
    scattered_cavalry: int | None = None,
    scattered_ships: int | None = None,
    home_is_port: bool = True,
) -> MusterRequest:
    """Check that a claim may raise ``infantry``, ``cavalry`` and ``ships`` at ``now``.

    ``at_home_*`` count every troop at home, scattered ones included. While ``now`` is before
    ``scattered_until`` the scattered troops are locked: ``scattered_*`` say how many of each
    type scattered; left as None, every troop of that type at home is treated as locked (for
    callers that only record a claim-wide lock). From ``scattered_until`` on nothing is locked.

    Raises :class:`NothingToMuster` when nothing is raised, :class:`NotEnoughTroops` when a
    type exceeds what is at home at all, :class:`ScatteredTroops` when it only exceeds what is
    not locked, :class:`NoPort` for ships away from a port, and InvalidInput for negative
    counts or a naive datetime.
    """
    now = require_aware(now, "now")
    requested = {
        "infantry": _count(infantry, "infantry"),
        "cavalry": _count(cavalry, "cavalry"),
        "ships": _count(ships, "ships"),
    }
    at_home = {
        "infantry": _count(at_home_infantry, "at_home_infantry"),
        "cavalry": _count(at_home_cavalry, "at_home_cavalry"),
        "ships": _count(at_home_ships, "at_home_ships"),
    }
    scattered_given = {
        "infantry": scattered_infantry,
        "cavalry": scattered_cavalry,
        "ships": scattered_ships,
    }
    if not any(requested.values()):
        raise NothingToMuster()
    if requested["ships"] and not home_is_port:
        raise NoPort()
    free = raisable_now(at_home, scattered_given, scattered_until, now)
    missing = tuple(
        Shortfall(kind, requested[kind], at_home[kind])
        for kind in requested
        if requested[kind] > at_home[kind]
    )
    if missing:
        raise NotEnoughTroops(missing, free)
    locked_short = tuple(
        Shortfall(kind, wanted, free[kind])
        for kind, wanted in requested.items()
        if wanted > free[kind]
    )
    if locked_short and scattered_until is not None:  # short only while troops are locked
        raise ScatteredTroops(scattered_until.astimezone(now.tzinfo), locked_short, free)
    return MusterRequest(requested["infantry"], requested["cavalry"], requested["ships"])


def raisable_now(
    at_home: Mapping[str, int],
    scattered: Mapping[str, int | None],
    scattered_until: datetime | None,
    now: datetime,
) -> dict[str, int]:
    """What a claim may raise at ``now``, per troop type of ``at_home``: all of it, but while
    ``now`` is before ``scattered_until`` not the scattered troops (``scattered``; a type
    missing or None there counts as all locked). Raises InvalidInput for a negative count or
    a naive datetime."""
    now = require_aware(now, "now")
    if scattered_until is None or now >= require_aware(scattered_until, "scattered_until"):
        return dict(at_home)
    free: dict[str, int] = {}
    for kind, home in at_home.items():
        given = scattered.get(kind)
        locked = home if given is None else _count(given, f"scattered_{kind}")
        free[kind] = max(0, home - locked)
    return free


def still_scattered(until: datetime | None, infantry: int, cavalry: int, at: datetime) -> bool:
    """Whether a claim has scattered troops still locked at ``at``: before ``until`` (the end
    of the in-game year of the scatter), and only while any of them (``infantry``,
    ``cavalry``) are left at home: lost, captured with the seat or raised, none are."""
    return until is not None and until > at and infantry + cavalry > 0
