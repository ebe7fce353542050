"""The fault queue and random mode, without HTTP."""

from __future__ import annotations

import pytest

from bot.sandbox import Fault, FaultKind
from bot.sandbox.faults import FaultPlan


def test_queued_fault_applies_to_next_matching_request_only() -> None:
    """A queued fault hits the next request matching method and path glob, once."""
    plan = FaultPlan()
    plan.add(Fault.server_error(503), method="POST", path="/api/submit")
    assert plan.take("GET", "/api/submit") is None
    assert plan.take("POST", "/api/comment") is None
    assert plan.take("POST", "/api/submit") == Fault.server_error(503)
    assert plan.take("POST", "/api/submit") is None


def test_queued_fault_counts_down_times_and_lasting_fault_stays() -> None:
    """``times=N`` hits N requests; ``times=None`` stays until cleared."""
    plan = FaultPlan()
    plan.add(Fault.forbidden(), path="/api/mod/conversations/*", times=2)
    hits = [plan.take("GET", "/api/mod/conversations/abc") for _ in range(3)]
    assert hits == [Fault.forbidden(), Fault.forbidden(), None]
    plan.add(Fault.forbidden(), times=None)
    assert all(plan.take("GET", f"/x/{i}") == Fault.forbidden() for i in range(20))
    plan.clear()
    assert plan.take("GET", "/x") is None
    assert plan.pending() == []


def test_queued_faults_apply_in_order_added() -> None:
    """Two rules matching the same request apply first-in, first-out."""
    plan = FaultPlan()
    plan.add(Fault.too_many_requests())
    plan.add(Fault.server_error())
    assert plan.take("GET", "/api/v1/me") == Fault.too_many_requests()
    assert plan.take("GET", "/api/v1/me") == Fault.server_error()


def test_token_endpoint_only_matched_when_named() -> None:
    """A wildcard rule leaves the token endpoint alone; naming it explicitly hits it."""
    plan = FaultPlan()
    plan.add(Fault.server_error(), times=None)
    assert plan.take("POST", "/api/v1/access_token") is None
    plan.clear()
    plan.add(Fault.server_error(), path="/api/v1/access_token")
    assert plan.take("POST", "/api/v1/access_token") == Fault.server_error()


def test_random_mode_is_reproducible_from_its_seed() -> None:
    """The same seed and request sequence give the same faults."""
    faults = [Fault.server_error(), Fault.too_many_requests(), Fault.stored_then_slow(0.1)]

    def run() -> list[Fault | None]:
        plan = FaultPlan()
        plan.set_random(0.3, faults, seed=42)
        return [plan.take("POST" if i % 2 else "GET", f"/p/{i}") for i in range(200)]

    first, second = run(), run()
    assert first == second
    hit = sum(f is not None for f in first)
    assert 30 <= hit <= 90  # about 60 of 200 at p = 0.3


def test_random_mode_never_gives_post_only_faults_to_get() -> None:
    """RATELIMIT and API errors are answers to actions, so GETs never draw them."""
    plan = FaultPlan()
    plan.set_random(1.0, [Fault.ratelimit(), Fault.api_error(), Fault.server_error()], seed=1)
    gets = {plan.take("GET", "/api/v1/me") for _ in range(50)}
    assert gets == {Fault.server_error()}
    posts = {plan.take("POST", "/api/submit") for _ in range(200)}
    assert posts == {Fault.ratelimit(), Fault.api_error(), Fault.server_error()}
    assert plan.random_hits == 250


def test_random_mode_respects_methods_and_path_and_spares_token() -> None:
    """Random faults hit only the listed methods and path glob, never the token endpoint."""
    plan = FaultPlan()
    plan.set_random(1.0, [Fault.server_error()], seed=3, methods=["POST"], path="/api/*")
    assert plan.take("GET", "/api/info") is None
    assert plan.take("POST", "/comments/abc") is None
    assert plan.take("POST", "/api/v1/access_token") is None
    assert plan.take("POST", "/api/submit") == Fault.server_error()
    plan.set_random(0.0, [], seed=3)
    assert plan.take("POST", "/api/submit") is None


@pytest.mark.parametrize(
    "fault",
    [
        Fault.too_many_requests(reset_seconds=5),
        Fault.server_error(502),
        Fault.invalid_token(),
        Fault.ratelimit(3, "seconds"),
        Fault.forbidden(),
        Fault.api_error("THREAD_LOCKED", "comments are locked", None),
        Fault.stored_then_slow(1.5),
        Fault.stored_then_error(500),
        Fault.lost(0.5),
    ],
)
def test_fault_json_round_trip(fault: Fault) -> None:
    """Faults travel to a sandbox in another process as JSON and come back equal."""
    assert Fault.from_json(fault.to_json()) == fault
    assert fault.kind in FaultKind


def test_fault_validation() -> None:
    """Nonsense faults are refused when built, not when they would fire."""
    with pytest.raises(ValueError, match="server error"):
        Fault.server_error(404)
    with pytest.raises(ValueError, match="unit"):
        Fault.ratelimit(2, "hours")
    with pytest.raises(ValueError, match="unknown fault fields"):
        Fault.from_json({"kind": "forbidden", "colour": "red"})
    plan = FaultPlan()
    with pytest.raises(ValueError, match="times"):
        plan.add(Fault.forbidden(), times=0)
    with pytest.raises(ValueError, match="probability"):
        plan.set_random(1.5, [Fault.forbidden()], seed=0)
    with pytest.raises(ValueError, match="at least one"):
        plan.set_random(0.5, [], seed=0)


def test_ratelimit_text_is_what_praw_parses() -> None:
    """The RATELIMIT message carries "N minutes" the way PRAW's regex reads it."""
    assert Fault.ratelimit(9).ratelimit_text == (
        "you are doing that too much. try again in 9 minutes."
    )
