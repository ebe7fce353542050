"""The tick's notes and posts of moves (bot.render) name fleets as fleets."""

from __future__ import annotations

from bot.render.notes import encounter_note, muster_note, sighting_note
from bot.render.posts import arrival_post
from rules.campaign.world import Army, ArmyKind, ArmyState


def test_a_sighted_fleet_is_a_fleet_and_the_guard_that_may_intercept_it_too() -> None:
    subject, body = sighting_note(watch_place="Pyke", claim="House Stark", place="0412",
                                  when="day 3", troops="4 ships", roll="automatic", guard=2,
                                  army_id=7, until="day 4", kind=ArmyKind.FLEET)
    assert subject == "A fleet is sighted near Pyke"
    assert body.startswith("Your watchers at Pyke sight a fleet of House Stark at 0412")
    assert "Your fleet 2 stands at Pyke" in body and "`intercept fleet 7 with fleet 2`" in body
    subject, body = sighting_note(watch_place="Pyke", claim="House Stark", place="0412",
                                  when="day 3", troops="40 infantry", roll="automatic",
                                  guard=None, army_id=7, until="day 4", kind=ArmyKind.LAND)
    assert subject == "A host is sighted near Pyke" and "sight an army of House Stark" in body


def test_fleets_meeting_arriving_and_ready_are_fleets() -> None:
    _, body = encounter_note(own=1, enemy=2, enemy_claim="House Stark", place="0412",
                             when="day 4", first_reaction=True, kind=ArmyKind.FLEET)
    assert body.startswith("Your fleet 1 faces fleet 2 of House Stark")
    assert "`retreat fleet 1` or `stand fleet 1`" in body
    assert arrival_post("House Greyjoy", "0412", "day 4", returned=False,
                        kind=ArmyKind.FLEET).startswith("A fleet of **House Greyjoy** arrives")
    assert arrival_post("House Stark", "Winterfell", "day 4", returned=True,
                        kind=ArmyKind.LAND).startswith("A host of **House Stark** returns")
    fleet = Army(3, 1, ArmyKind.FLEET, ArmyState.MARCHING, "0412", ships=4)
    assert muster_note(fleet, "4 ships", "Pyke", ArmyState.MARCHING) == (
        "Fleet 3 is ready", "Fleet 3 (4 ships) has mustered at Pyke and is sailing.")
