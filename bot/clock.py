"""Time is injected: services take a :class:`Clock`, never call ``datetime.now`` themselves."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Protocol


class Clock(Protocol):
    def now(self) -> datetime:
        """The current instant, timezone-aware UTC."""
        ...


class SystemClock:
    """The machine's clock, in UTC."""

    def now(self) -> datetime:
        return datetime.now(UTC)


class ManualClock:
    """A clock that moves only when told to (tests, the demo, replays)."""

    def __init__(self, start: datetime) -> None:
        require_aware(start)
        self._now = start.astimezone(UTC)

    def now(self) -> datetime:
        return self._now

    def set(self, moment: datetime) -> None:
        require_aware(moment)
        self._now = moment.astimezone(UTC)

    def advance(self, delta: timedelta) -> datetime:
        self._now += delta
        return self._now


def require_aware(moment: datetime) -> datetime:
    """Refuse naive datetimes: in maester every instant is UTC-aware."""
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise ValueError(f"naive datetime {moment!r}: maester uses timezone-aware UTC only")
    return moment
