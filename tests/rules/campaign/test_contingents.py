"""Sharing one side's losses among its contingents (every defender shares the fate)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.campaign.contingents import split_losses
from rules.errors import InvalidInput


def test_losses_are_shared_in_proportion() -> None:
    assert split_losses([300, 100], 200) == (150, 50)
    assert split_losses([250, 0, 50], 30) == (25, 0, 5)


def test_leftover_units_go_to_the_largest_remainders_then_the_first() -> None:
    assert split_losses([1, 1, 1], 2) == (1, 1, 0)
    assert split_losses([2, 1], 1) == (1, 0)


def test_no_troops_lose_nothing() -> None:
    assert split_losses([0, 0], 0) == (0, 0)
    assert split_losses([], 0) == ()


def test_bad_input_is_refused() -> None:
    with pytest.raises(InvalidInput):
        split_losses([5], 6)
    with pytest.raises(InvalidInput):
        split_losses([-1, 5], 1)


@given(st.lists(st.integers(min_value=0, max_value=5000), max_size=8), st.data())
@settings(max_examples=300)
def test_shares_add_up_and_never_exceed_a_contingent(counts: list[int], data: st.DataObject
                                                     ) -> None:
    lost = data.draw(st.integers(min_value=0, max_value=sum(counts)))
    shares = split_losses(counts, lost)
    assert sum(shares) == lost
    assert all(0 <= share <= count for share, count in zip(shares, counts, strict=True))
    total = sum(counts)
    for share, count in zip(shares, counts, strict=True):
        assert abs(share * total - count * lost) < max(total, 1)  # within a unit of its part
