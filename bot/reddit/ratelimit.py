"""Keeping the bot within Reddit's request budget: a token bucket on monotonic time.

Reddit allows about 100 requests a minute per OAuth client, averaged over ten minutes, and
says how much is left in ``x-ratelimit-remaining``/``x-ratelimit-reset`` headers. The bucket
refills at ``[bot] requests_per_minute`` and holds at most ``burst`` tokens, so over any
minute the bot sends at most ``requests_per_minute + burst`` requests and, over ten minutes,
ten minutes' worth plus one burst. When the headers say the budget is spent, the bucket
pauses until Reddit's reset. Every HTTP request the gateway makes (token requests too)
takes one token first, through :class:`~bot.reddit.gateway.BudgetedRequestor`.

Waits use monotonic time, never the wall clock: an NTP step must not stall or flood.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable


class BudgetExhausted(Exception):
    """Taking a token would mean waiting longer than the caller allows."""

    def __init__(self, wait_seconds: float) -> None:
        self.wait_seconds = wait_seconds
        super().__init__(f"the request budget is spent for {wait_seconds:.1f} s")


class RequestBudget:
    """A thread-safe token bucket of Reddit requests.

    ``per_minute`` tokens are added each minute, continuously; ``burst`` (default: half a
    minute's worth) is the most that can pile up. ``max_wait`` is the longest
    :meth:`acquire` sleeps before it gives up with :class:`BudgetExhausted`, so a round of
    work stops instead of hanging. ``monotonic`` and ``sleep`` are injectable for tests.
    """

    def __init__(
        self,
        per_minute: int,
        *,
        burst: int | None = None,
        max_wait: float = 30.0,
        monotonic: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if per_minute < 1:
            raise ValueError("per_minute must be at least 1")
        self.per_minute = per_minute
        self.capacity = float(burst if burst is not None else max(1, per_minute // 2))
        if self.capacity < 1:
            raise ValueError("burst must be at least 1")
        self.max_wait = max_wait
        self._monotonic = monotonic
        self._sleep = sleep
        self._lock = threading.Lock()
        self._tokens = self.capacity
        self._stamp = monotonic()
        self._paused_until = 0.0
        self.taken = 0
        self.waited = 0.0

    @property
    def rate(self) -> float:
        """Tokens added per second."""
        return self.per_minute / 60.0

    def _refill(self, now: float) -> None:
        elapsed = max(0.0, now - self._stamp)
        self._tokens = min(self.capacity, self._tokens + elapsed * self.rate)
        self._stamp = now

    def wait_needed(self) -> float:
        """Seconds until a token is available (0 when one is there now)."""
        with self._lock:
            now = self._monotonic()
            self._refill(now)
            return self._wait_locked(now)

    def _wait_locked(self, now: float) -> float:
        pause = max(0.0, self._paused_until - now)
        shortfall = max(0.0, 1.0 - self._tokens)
        return max(pause, shortfall / self.rate)

    def acquire(self) -> float:
        """Take one token, sleeping until one is there; returns the seconds slept.

        Raises :class:`BudgetExhausted` (and takes nothing) when the wait would exceed
        ``max_wait``. The token is reserved before sleeping, so concurrent callers queue
        up behind each other instead of all waking at once.
        """
        with self._lock:
            now = self._monotonic()
            self._refill(now)
            wait = self._wait_locked(now)
            if wait > self.max_wait:
                raise BudgetExhausted(wait)
            self._tokens -= 1.0
            self.taken += 1
            if wait > 0:
                # The refill during the wait is already counted in the negative balance.
                self._paused_until = max(self._paused_until, now + wait)
                self.waited += wait
        if wait > 0:
            self._sleep(wait)
        return wait

    def observe(self, remaining: float | None, reset_seconds: float | None) -> None:
        """Take Reddit's ``x-ratelimit`` headers into account.

        With less than one request left, nothing more is sent until the reset; with fewer
        left than the bucket holds, the bucket shrinks to what Reddit still allows.
        """
        if remaining is None or reset_seconds is None:
            return
        with self._lock:
            now = self._monotonic()
            self._refill(now)
            if remaining < 1:
                self._paused_until = max(self._paused_until, now + max(reset_seconds, 1.0))
                self._tokens = min(self._tokens, 0.0)
            else:
                self._tokens = min(self._tokens, float(remaining))


def parse_ratelimit_headers(headers: object) -> tuple[float | None, float | None]:
    """(remaining, seconds to reset) from a response's headers; None when absent or bad."""
    get = getattr(headers, "get", None)
    if get is None:
        return None, None
    try:
        remaining = get("x-ratelimit-remaining")
        reset = get("x-ratelimit-reset")
        return (
            None if remaining is None else float(remaining),
            None if reset is None else float(reset),
        )
    except (TypeError, ValueError):
        return None, None
