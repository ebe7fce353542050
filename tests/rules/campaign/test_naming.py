"""A fleet is a fleet: the words every reply uses for an army or a fleet."""

from __future__ import annotations

from rules.campaign.naming import force_name, force_noun, host, state_word, travel
from rules.campaign.paths import ArmyKind


def test_forces_are_named_by_their_kind() -> None:
    assert force_name(ArmyKind.FLEET, 6, capital=True) == "Fleet 6"
    assert force_name(ArmyKind.LAND, 2) == "army 2"
    assert force_name(None, 3) == "army or fleet 3"
    assert force_noun(ArmyKind.FLEET, plural=True) == "fleets"
    assert force_noun(ArmyKind.LAND, article=True) == "an army"
    assert host(ArmyKind.FLEET) == "fleet" and host(ArmyKind.LAND) == "host"


def test_fleets_sail_and_armies_march() -> None:
    assert [travel(ArmyKind.FLEET, f) for f in ("base", "s", "ing", "ed", "noun")] == [
        "sail", "sails", "sailing", "sailed", "voyage"]
    assert travel(ArmyKind.LAND, "noun") == "march"
    assert state_word(ArmyKind.FLEET, "marching") == "sailing"
    assert state_word(ArmyKind.FLEET, "standing") == "standing"
    assert state_word(ArmyKind.LAND, "marching") == "marching"
