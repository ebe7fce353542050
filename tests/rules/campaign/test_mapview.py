"""What each viewer of the map may know (rules.campaign.mapview.visible_to)."""

from __future__ import annotations

import pytest

from rules.campaign.mapview import (
    MODERATOR,
    PUBLIC,
    ArmyMark,
    BattleMark,
    BlockadeMark,
    SiegeMark,
    Situation,
    Viewer,
    ViewKind,
    situation_from_data,
    situation_to_data,
    visible_to,
)
from rules.errors import InvalidInput

STARK, LANNISTER, TULLY = "House Stark", "House Lannister", "House Tully"
MARCHING = ArmyMark(7, LANNISTER, "0633", infantry=2000, cavalry=500,
                    path=("0732", "0731"), seen=((TULLY, "0533"),))
ARRIVED = ArmyMark(3, STARK, "1320", infantry=300, cavalry=50, announced=True)
WORLD = Situation(
    claims=(STARK, LANNISTER, TULLY),
    holders=(("1315", STARK), ("0436", LANNISTER), ("0830", TULLY)),
    armies=(MARCHING, ARRIVED),
    sieges=(SiegeMark("0830", LANNISTER),),
    battles=(BattleMark("1328", STARK, LANNISTER),),
)


def test_moderators_see_everything() -> None:
    assert visible_to(WORLD, MODERATOR) == WORLD


def test_the_public_sees_holdings_sieges_battles_and_announced_hosts_without_numbers() -> None:
    seen = visible_to(WORLD, PUBLIC)
    assert seen.holders == WORLD.holders and seen.sieges == WORLD.sieges
    assert seen.battles == WORLD.battles
    assert seen.armies == (ArmyMark(0, STARK, "1320", announced=True),)


def test_an_undetected_march_is_invisible_to_the_public_and_to_other_claims() -> None:
    without = Situation(WORLD.claims, WORLD.holders, (ARRIVED,), WORLD.sieges, (),
                        WORLD.battles)
    assert visible_to(WORLD, PUBLIC) == visible_to(without, PUBLIC)
    stark = Viewer(ViewKind.CLAIM, STARK)
    assert visible_to(WORLD, stark) == visible_to(without, stark)


def test_a_claim_sees_its_own_armies_in_full() -> None:
    seen = visible_to(WORLD, Viewer(ViewKind.CLAIM, LANNISTER))
    (own,) = [a for a in seen.armies if a.claim == LANNISTER]
    assert own.own and own.id == 7 and own.path == ("0732", "0731")
    assert own.infantry == 2000 and own.seen == ()  # who sighted it is not its business


def test_a_claim_sees_a_sighted_army_where_it_was_sighted_with_the_counted_troops() -> None:
    seen = visible_to(WORLD, Viewer(ViewKind.CLAIM, TULLY))
    (spotted,) = [a for a in seen.armies if a.claim == LANNISTER]
    assert spotted == ArmyMark(0, LANNISTER, "0533", infantry=2000, cavalry=500)


def test_parsing_views() -> None:
    assert Viewer.parse("public") == PUBLIC
    assert Viewer.parse(" Moderator ") == MODERATOR
    assert Viewer.parse("claim:House Stark") == Viewer(ViewKind.CLAIM, STARK)
    assert str(Viewer.parse("claim:House Stark")) == "claim:House Stark"
    for bad in ("everyone", "claim:", "public:x"):
        with pytest.raises(InvalidInput, match="public, moderator or claim:NAME"):
            Viewer.parse(bad)


def test_an_unknown_claim_viewer_is_refused_with_the_claims() -> None:
    with pytest.raises(InvalidInput, match="House Stark, House Lannister"):
        visible_to(WORLD, Viewer(ViewKind.CLAIM, "House Nobody"))


def test_a_situation_survives_its_stored_form() -> None:
    busy = Situation(WORLD.claims, WORLD.holders, WORLD.armies, WORLD.sieges,
                     (BlockadeMark("0237", "0337", LANNISTER),), WORLD.battles)
    assert situation_from_data(situation_to_data(busy)) == busy
    with pytest.raises(InvalidInput, match="unreadable"):
        situation_from_data({"armies": [{"claim": "x"}]})
