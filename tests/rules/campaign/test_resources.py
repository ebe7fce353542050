"""Resource tiles (docs/rules.md "8. Resource tiles"): who receives a tile's benefit."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.campaign.resources import benefit_holder
from rules.errors import InvalidInput

D = Decimal


def test_resource_single_standing_army_gains_the_benefit() -> None:
    """A standing army currently sitting within a resource tile gains its benefit."""
    assert benefit_holder([("Stark", 100)]) == "Stark"


def test_resource_unoccupied_tile_benefits_nobody() -> None:
    assert benefit_holder([]) is None
    assert benefit_holder([("Stark", 0)]) is None


def test_resource_highest_strength_receives_the_benefit() -> None:
    """When several claims occupy the tile, the one with the highest army strength receives
    the benefit."""
    occupants: list[tuple[str, Decimal | int]] = [
        ("Martell", D("140.0")), ("Dayne", D("220.5")), ("Yronwood", 90)
    ]
    assert benefit_holder(occupants) == "Dayne"


def test_resource_strongest_may_let_another_take_it() -> None:
    """The strongest claim may choose to let another occupant take the benefit."""
    occupants = [("Martell", 140), ("Dayne", 220)]
    assert benefit_holder(occupants, ceded_to="Martell") == "Martell"


def test_resource_can_only_be_ceded_to_an_occupant() -> None:
    with pytest.raises(InvalidInput) as err:
        benefit_holder([("Martell", 140)], ceded_to="Lannister")
    assert err.value.field == "ceded_to"


def test_resource_tie_current_holder_keeps_it() -> None:
    """Ties: the claim already holding the benefit keeps it if it is among the tied."""
    occupants = [("Martell", 200), ("Dayne", 200)]
    assert benefit_holder(occupants, holder="Dayne") == "Dayne"


def test_resource_tie_first_listed_otherwise() -> None:
    """Ties without the holder among them: the first listed (earliest arrival) wins."""
    occupants = [("Yronwood", 50), ("Martell", 200), ("Dayne", 200)]
    assert benefit_holder(occupants, holder="Yronwood") == "Martell"
    assert benefit_holder(occupants) == "Martell"


def test_resource_bad_occupants() -> None:
    with pytest.raises(InvalidInput):
        benefit_holder([("Stark", -1)])
    with pytest.raises(InvalidInput):
        benefit_holder([("Stark", 1), ("Stark", 2)])


@given(st.lists(st.integers(0, 50), max_size=6), st.data())
@settings(max_examples=200)
def test_resource_holder_is_always_a_strongest_occupant(strengths: list[int],
                                                        data: st.DataObject) -> None:
    occupants = [(f"claim{i}", s) for i, s in enumerate(strengths)]
    shuffled = data.draw(st.permutations(occupants))
    positive = [s for s in strengths if s > 0]
    for order in (occupants, shuffled):
        holder = benefit_holder(order)
        if not positive:
            assert holder is None
            continue
        assert holder is not None
        assert dict(occupants)[holder] == max(positive)
        # the incumbent among the tied always keeps it, whatever the order
        assert benefit_holder(list(reversed(order)), holder=holder) == holder
