"""The rules of a claim's life over months (:mod:`rules.campaign.absence`): when a claim is
inactive, what a leave may be, and what a hold does to its armies."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest

from rules.campaign.absence import (
    Hold,
    Standing,
    inactive_from,
    is_held,
    leave_problem,
    standing,
    stop_held,
    warn_from,
)
from rules.campaign.language import Away, OrderSyntaxError, parse_order
from rules.campaign.world import Army, ArmyState, ClaimState
from tests.rules.campaign import builders

NOW = datetime(2026, 11, 23, 12, tzinfo=UTC)
DAY = timedelta(days=1)


def test_a_claim_is_inactive_after_the_quiet_days_counted_from_the_end_of_its_leave() -> None:
    seen = NOW - 10 * DAY
    assert inactive_from(seen, None, 14 * DAY) == NOW + 4 * DAY
    assert inactive_from(seen, NOW + DAY, 14 * DAY) == NOW + 15 * DAY
    assert inactive_from(seen, NOW - 20 * DAY, 14 * DAY) == NOW + 4 * DAY  # an old leave
    assert warn_from(seen, None, 14 * DAY, 3 * DAY) == NOW + DAY
    assert warn_from(seen, None, 14 * DAY, timedelta(0)) is None
    assert warn_from(seen, None, 3 * DAY, 3 * DAY) is None  # warned before it was quiet: no


@pytest.mark.parametrize(("seen", "away", "retired", "expected"), [
    (NOW - DAY, None, False, Standing.ACTIVE),
    (NOW - 14 * DAY, None, False, Standing.INACTIVE),
    (NOW - 30 * DAY, NOW + DAY, False, Standing.AWAY),
    (NOW - 30 * DAY, NOW - DAY, False, Standing.ACTIVE),  # back yesterday: the count restarts
    (NOW - 30 * DAY, NOW - 14 * DAY, False, Standing.INACTIVE),
    (NOW - DAY, None, True, Standing.RETIRED),
])
def test_standing(seen: datetime, away: datetime | None, retired: bool,
                  expected: Standing) -> None:
    assert standing(NOW, last_seen=seen, away_until=away, retired=retired,
                    inactive_after=14 * DAY) is expected


def test_held_claims() -> None:
    assert is_held(Hold.INACTIVE, False) and is_held(Hold.MODERATOR, False)
    assert not is_held(Hold.LIFTED, False) and not is_held(None, False)
    assert is_held(None, True)  # a retired claim's kept forces


def test_a_leave_must_be_ahead_and_not_too_far() -> None:
    assert leave_problem(NOW + DAY, NOW, 90 * DAY) is None
    assert leave_problem(NOW + 90 * DAY, NOW, 90 * DAY) is None
    assert "not in the future" in (leave_problem(NOW, NOW, 90 * DAY) or "")
    assert "more than 90 days away" in (leave_problem(NOW + 91 * DAY, NOW, 90 * DAY) or "")


def _army(army_id: int, claim: int, state: ArmyState, path: tuple[str, ...] = ()) -> Army:
    return builders.army(army_id, claim, "0101", state, path=path,
                         depart=5 if path else None, arrival_tick=9 if path else None)


def test_a_hold_stops_marches_and_queued_marches_and_nothing_else() -> None:
    world = builders.world(
        _army(1, 1, ArmyState.MARCHING, ("0102", "0103")),
        _army(2, 1, ArmyState.MUSTERING, ("0102",)),
        _army(3, 1, ArmyState.MUSTERING),
        _army(4, 1, ArmyState.BESIEGING),
        _army(5, 1, ArmyState.RETREATING, ("0102",)),
        _army(6, 2, ArmyState.MARCHING, ("0102",)),
        claims=(ClaimState(1, "House Stark", "0101"), ClaimState(2, "House Tully", "0202")))
    after, stopped = stop_held(world, {1}, 7)
    assert [(s.army.id, s.tile, s.queued) for s in stopped] == [(1, "0101", False),
                                                                 (2, "0101", True)]
    one, two = after.armies[1], after.armies[2]
    assert (one.state, one.march.path, one.arrival_tick, one.stationary_since) == (
        ArmyState.STANDING, (), None, 7)
    assert (two.state, two.march.path) == (ArmyState.MUSTERING, ())
    for unchanged in (3, 4, 5, 6):  # a muster, a siege, a retreat, another claim's march
        assert after.armies[unchanged] is world.armies[unchanged]
    assert after.claims is world.claims
    assert stop_held(world, (), 7) == (world, [])
    again, none = stop_held(after, {1}, 8)
    assert again is after and none == []  # stopped once: nothing more to stop


@pytest.mark.parametrize(("line", "until", "reason"), [
    ("away until 2027-01-10", date(2027, 1, 10), ""),
    ("Away until 2027-1-5 travelling for work", date(2027, 1, 5), "travelling for work"),
    ("leave till 2027-01-10: exams", date(2027, 1, 10), "exams"),
    ("away 2027-01-10 - at sea", date(2027, 1, 10), "at sea"),
])
def test_the_away_order_reads_a_date_and_a_reason(line: str, until: date, reason: str) -> None:
    order = parse_order(line)
    assert order == Away(until, reason)
    assert parse_order(str(order)) == order


@pytest.mark.parametrize(("line", "words"), [
    ("away until tomorrow", "say until when, as a date YYYY-MM-DD"),
    ("away until 2027-02-30", "2027-02-30 is not a date"),
    ("away until 2027-01-10 " + "x" * 201, "the reason is too long"),
])
def test_a_bad_away_order_says_what_was_expected(line: str, words: str) -> None:
    with pytest.raises(OrderSyntaxError) as caught:
        parse_order(line)
    assert words in caught.value.problem
    assert caught.value.example == "away until 2027-01-10 travelling for work"
