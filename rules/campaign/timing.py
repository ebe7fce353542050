"""When an order counts: from the moment the player sent it.

An order is judged as of Reddit's timestamp of the message: the ticks due before it are applied
first, then the order, then the ticks after it. When the bot was behind and a tick after the
send time has already been applied, the order can no longer go in before that tick; it then
counts from the moment it is read, and the reply says so.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta


@dataclass(frozen=True, slots=True)
class OrderMoment:
    """``at``: the time the order is judged at; ``late``: a tick after the send time had
    already been applied (the order counts from ``at``, the time it was read)."""

    at: datetime
    late: bool = False


def order_moment(sent_at: datetime | None, read_at: datetime, last_applied_tick: int,
                 tick_of: Callable[[datetime], int]) -> OrderMoment:
    """The moment an order sent at ``sent_at`` and read at ``read_at`` counts from.

    ``last_applied_tick`` is the newest tick already applied and ``tick_of`` maps a time to
    the index of the last tick at or before it. No send time, or one in the future (a wrong
    clock), counts from ``read_at``.
    """
    if sent_at is None or sent_at > read_at:
        return OrderMoment(read_at)
    if tick_of(sent_at) < last_applied_tick:
        return OrderMoment(read_at, late=True)
    return OrderMoment(sent_at)


EARLIEST_AFTER_TICK = timedelta(microseconds=1)
"""How soon after an applied tick an order can count: strictly after it (the tick is done)."""


def world_time(wall: datetime, last_applied_at: datetime) -> datetime:
    """The world's clock: the wall clock, or just after the last applied tick when the world
    stands later (a moderator applied ticks ahead with ``tick --until``).

    An order given at this moment comes after every applied tick, so its receipt's times (the
    tick it starts on, when it departs, when troops are ready) are still to come. An order sent
    exactly on the last applied tick keeps its moment: it starts on that tick, as the rules
    read "the next tick at or after" (nothing happens on a start tick itself: a march earns
    its first budget, a muster counts its 24 hours, a battle is fought, only after it).
    """
    return wall if wall >= last_applied_at else last_applied_at + EARLIEST_AFTER_TICK
