"""The request budget: a token bucket on monotonic time, and Reddit's x-ratelimit headers."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.reddit.ratelimit import BudgetExhausted, RequestBudget, parse_ratelimit_headers


class FakeTime:
    """Monotonic time that moves only when slept through."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.slept: list[float] = []

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


def budget(per_minute: int, burst: int | None = None, max_wait: float = 600.0
           ) -> tuple[RequestBudget, FakeTime]:
    clock = FakeTime()
    return RequestBudget(per_minute, burst=burst, max_wait=max_wait,
                         monotonic=clock.monotonic, sleep=clock.sleep), clock


def test_a_burst_goes_out_at_once_then_the_rate_applies() -> None:
    """The bucket starts full: ``burst`` requests need no wait; then one every 60/rate s."""
    bucket, clock = budget(60, burst=5)
    assert [bucket.acquire() for _ in range(5)] == [0, 0, 0, 0, 0]
    assert bucket.acquire() == pytest.approx(1.0)
    assert bucket.acquire() == pytest.approx(1.0)
    assert clock.now == pytest.approx(1002.0)


def test_the_default_burst_is_half_a_minute() -> None:
    """Without ``burst``: half a minute's worth, so the bot never bursts a whole minute."""
    bucket, _ = budget(100)
    assert bucket.capacity == 50


def test_idle_time_refills_but_never_beyond_the_burst() -> None:
    """After a long pause the bucket is full again, not fuller."""
    bucket, clock = budget(60, burst=3)
    for _ in range(3):
        bucket.acquire()
    clock.now += 3600
    assert [bucket.acquire() for _ in range(3)] == [0, 0, 0]
    assert bucket.acquire() > 0


def test_a_wait_longer_than_allowed_raises_and_takes_nothing() -> None:
    """Rounds of work stop instead of hanging: BudgetExhausted names the wait."""
    bucket, clock = budget(6, burst=1, max_wait=5)
    bucket.acquire()
    with pytest.raises(BudgetExhausted) as exhausted:
        bucket.acquire()
    assert exhausted.value.wait_seconds == pytest.approx(10.0)
    assert bucket.taken == 1 and clock.slept == []


def test_reddit_saying_nothing_is_left_pauses_until_its_reset() -> None:
    """``x-ratelimit-remaining: 0`` with reset 42 s: the next request waits 42 s."""
    bucket, _ = budget(600, burst=100)
    bucket.observe(0.0, 42.0)
    assert bucket.acquire() == pytest.approx(42.0)


def test_reddits_remaining_caps_the_bucket() -> None:
    """With 2 requests left at Reddit, at most 2 go out before the bucket refills."""
    bucket, _ = budget(60, burst=50)
    bucket.observe(2.0, 300.0)
    assert [bucket.acquire() for _ in range(2)] == [0, 0]
    assert bucket.acquire() > 0


@pytest.mark.parametrize(("headers", "parsed"), [
    ({"x-ratelimit-remaining": "95.0", "x-ratelimit-reset": "288"}, (95.0, 288.0)),
    ({"x-ratelimit-remaining": "0"}, (0.0, None)),
    ({}, (None, None)),
    ({"x-ratelimit-remaining": "lots", "x-ratelimit-reset": "1"}, (None, None)),
])
def test_headers_are_read_leniently(headers: dict[str, str],
                                    parsed: tuple[float | None, float | None]) -> None:
    """Missing or malformed headers are ignored rather than trusted."""
    assert parse_ratelimit_headers(headers) == parsed


@settings(max_examples=200, deadline=None)
@given(per_minute=st.integers(1, 100), burst=st.integers(1, 50),
       gaps=st.lists(st.floats(0, 30), min_size=1, max_size=80))
def test_no_minute_ever_sees_more_than_the_rate_plus_the_burst(
        per_minute: int, burst: int, gaps: list[float]) -> None:
    """However the requests come, any 60 s window holds at most per_minute + burst."""
    bucket, clock = budget(per_minute, burst=burst)
    sent: list[float] = []
    for gap in gaps:
        clock.now += gap
        bucket.acquire()
        sent.append(clock.now)
    for i, start in enumerate(sent):
        in_window = sum(1 for t in sent[i:] if t < start + 60)
        assert in_window <= per_minute + burst


def test_invalid_budgets_are_refused() -> None:
    with pytest.raises(ValueError):
        RequestBudget(0)
    with pytest.raises(ValueError):
        RequestBudget(10, burst=0)
