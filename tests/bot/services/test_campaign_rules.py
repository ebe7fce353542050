"""The campaign rules as the seed says, played through the order language and ticks.

Each test sends orders as players (``handle_message``) and applies ticks (``catch_up``) on a
real SQLite campaign, then checks the world, the replies, the posts and the private notes.
"""

from __future__ import annotations

import math
from datetime import datetime, timedelta
from fractions import Fraction
from pathlib import Path

from tests.bot.catalogue_world import START, World, roster

H = timedelta(hours=1)


def day(n: int, hour: int = 0) -> datetime:
    """``n`` days after the campaign's first day, at ``hour`` UTC."""
    return START.replace(hour=0, minute=0) + timedelta(days=n - 1, hours=hour)


# --- movement timing (docs/rules.md "3. Movement") ------------------------------------------------

def test_a_march_ordered_during_a_muster_enters_nothing_on_the_readiness_tick(
        tmp_path: Path) -> None:
    """Muster at 07:30 day 1 (ready 12:00 day 2) with a march of five fields (cost 5): it
    departs at readiness, is still home at that tick, enters its first field six hours later
    and arrives ceil(5 / 1.5) = 4 ticks = 24 hours after departure, as the receipt said."""
    w = World(tmp_path, claims=roster("stark", "lannister"))
    reply = w.say("ned_stark", "muster 300 infantry\n"
                               "move army 1: 1316 > 1317 > 1318 > 1319 > 1320 (cost 5)")
    assert f"Departs: {w.ctx.when(day(2, 12))}" in reply
    assert f"Arrives: {w.ctx.when(day(3, 12))}" in reply
    w.run(day(2, 12))
    army = w.army(1)
    assert (army.state, army.tile) == ("marching", "1315")  # ready, and has marched no time
    w.run(day(2, 18))
    assert w.army(1).tile == "1316"
    w.run(day(3, 6))
    assert w.army(1).tile == "1319"
    w.run(day(3, 12))
    army = w.army(1)
    assert (army.state, army.tile) == ("standing", "1320")
    assert army.arrival_tick == w.ctx.tick_of(day(3, 12))


def test_a_small_cavalry_band_crosses_six_fields_in_one_tick_not_none(tmp_path: Path) -> None:
    """20 cavalry (x4: 6 a tick) ordered at 13:00 depart at 18:00 and arrive at 00:00."""
    w = World(tmp_path, claims=roster("stark", "lannister"))
    w.say("ned_stark", "muster 20 cavalry")
    w.run(day(2, 12))
    reply = w.say("ned_stark", "move army 1: 1316 > 1317 > 1318 > 1319 > 1320 > 1321 (cost 6)",
                  at=day(2, 13))
    assert f"Departs: {w.ctx.when(day(2, 18))}" in reply
    assert f"Arrives: {w.ctx.when(day(3, 0))}" in reply
    w.run(day(2, 18))
    assert w.army(1).tile == "1315"
    w.run(day(3, 0))
    assert (w.army(1).state, w.army(1).tile) == ("standing", "1321")


def test_every_receipt_keeps_its_timetable_in_play(tmp_path: Path) -> None:
    """For armies of several sizes, the tick's arrival is the receipt's, and arrival minus
    departure is ceil(cost / budget) x 6 hours."""
    w = World(tmp_path, claims=roster("stark", "lannister"))
    sizes = [("300 infantry", Fraction(3, 2)), ("1500 infantry", Fraction(3, 4)),
             ("10 infantry", Fraction(3)), ("100 cavalry", Fraction(3))]
    for text, _ in sizes:
        w.say("ned_stark", f"muster {text}")
    w.run(day(2, 12))
    for i, (_, budget) in enumerate(sizes, start=1):
        w.say("ned_stark", f"move army {i}: 1316 > 1317 > 1318 > 1319 > 1320 (cost 5)",
              at=day(2, 13))
        army = w.army(i)
        assert army.depart_tick is not None and army.arrival_tick is not None
        assert army.arrival_tick - army.depart_tick == math.ceil(5 / budget)
    w.run(day(5))
    for i, _ in enumerate(sizes, start=1):
        assert w.army(i).tile == "1320"


# --- sieges and assaults --------------------------------------------------------------------

def _at_winterfell(tmp_path: Path, *, stark: dict[str, int], lannister: str) -> World:
    """Lannister's army 1 (``lannister`` troops, mustered day 1) stands on Winterfell on day 2
    at 12:00; House Stark has ``stark`` troops at home."""
    w = World(tmp_path, claims=roster("stark", "lannister", stark=stark))
    w.say("tywin_lannister", f"muster {lannister}")
    w.run(day(2, 12))
    w.place(1, "Winterfell")
    return w


def _post_bodies(w: World) -> str:
    return "\n".join(f"{p.title}: {p.body}" for p in w.posts())


def test_an_assault_is_defended_by_the_troops_still_mustering_in_the_holdfast(
        tmp_path: Path) -> None:
    """20 cavalry assault Winterfell whose 250 infantry are all mustering: those 250 defend
    (x2.6 behind the walls, 650 against 40), so the assault fails instead of an automatic win."""
    w = _at_winterfell(tmp_path, stark={"infantry": 250, "cavalry": 0}, lannister="20 cavalry")
    w.say("ned_stark", "muster 250 infantry", at=day(2, 13))
    assert w.claim("House Stark").infantry == 0
    reply = w.say("tywin_lannister", "assault Winterfell with army 1", at=day(2, 13))
    assert "will assault Winterfell" in reply
    w.run(day(2, 18))
    assert "Holdfast falls" not in _post_bodies(w)
    assert w.army(1).state == "gone"  # 40 against 650: the attackers are captured
    assert (w.army(2).state, w.army(2).infantry) == ("mustering", 250)  # lost none


def test_every_troop_of_the_claim_on_the_tile_shares_the_holdfasts_fate(tmp_path: Path) -> None:
    """A won assault captures the troops at home and the armies mustering there alike."""
    w = _at_winterfell(tmp_path, stark={"infantry": 120, "cavalry": 0},
                       lannister="2000 infantry 500 cavalry")
    w.say("ned_stark", "muster 60 infantry", at=day(2, 13))
    w.say("tywin_lannister", "assault Winterfell with army 1", at=day(2, 13))
    w.run(day(2, 18))
    assert "Holdfast falls" in _post_bodies(w)
    assert w.army(2).state == "gone"
    assert w.claim("House Stark").infantry == 0  # 60 at home and the 60 mustering


def test_siege_months_are_whole_months_from_the_start(tmp_path: Path) -> None:
    """A siege ordered before the 18:00 tick starts at 18:00 and completes each month at
    18:00 (one in-game month a day): it does not count the first midnight as a month, and
    falls exactly its length later."""
    w = _at_winterfell(tmp_path, stark={"infantry": 200, "cavalry": 0}, lannister="500 infantry")
    reply = w.say("tywin_lannister", "siege Winterfell with army 1", at=day(2, 17))
    assert "besieges Winterfell" in reply
    months = w.siege().months_required
    w.run(day(3, 12))
    assert w.siege().months_elapsed == 0  # the midnight after the order is no month
    w.run(day(3, 18))
    assert w.siege().months_elapsed == 1
    w.run(day(2, 18) + timedelta(days=months) - 6 * H)
    assert w.siege().status == "active"
    w.run(day(2, 18) + timedelta(days=months))
    assert w.siege().status == "fallen"


def test_a_siege_ordered_exactly_on_a_tick_starts_on_it(tmp_path: Path) -> None:
    """Ordered at exactly 18:00, once the 18:00 tick is applied (the tick comes before orders
    of its instant), the siege counts from 18:00, the tick at or after the order (issue #23:
    it counted from 00:00, six hours later than the rules' reading)."""
    w = _at_winterfell(tmp_path, stark={"infantry": 200, "cavalry": 0}, lannister="500 infantry")
    w.run(day(2, 18))
    assert "besieges Winterfell" in w.say("tywin_lannister", "siege Winterfell with army 1",
                                          at=day(2, 18))
    assert w.siege().started_tick == w.ctx.tick_of(day(2, 18))
    w.run(day(3, 12))
    assert w.siege().months_elapsed == 0
    w.run(day(3, 18))
    assert w.siege().months_elapsed == 1


def test_lift_ends_a_siege_and_the_army_stands(tmp_path: Path) -> None:
    w = _at_winterfell(tmp_path, stark={"infantry": 200, "cavalry": 0}, lannister="500 infantry")
    w.say("tywin_lannister", "siege Winterfell with army 1", at=day(2, 13))
    reply = w.say("tywin_lannister", "lift siege of Winterfell", at=day(2, 14))
    assert "The siege of Winterfell is lifted" in reply
    assert (w.siege().status, w.army(1).state) == ("lifted", "standing")
    assert "The besiegers of House Lannister have lifted the siege." in _post_bodies(w)
    refused = w.say("ned_stark", "lift siege of Winterfell", at=day(2, 14))
    assert "you are not besieging Winterfell" in refused


def test_a_besieging_army_may_march_away_which_ends_the_siege(tmp_path: Path) -> None:
    w = _at_winterfell(tmp_path, stark={"infantry": 200, "cavalry": 0}, lannister="500 infantry")
    w.say("tywin_lannister", "siege Winterfell with army 1", at=day(2, 13))
    reply = w.say("tywin_lannister", "move army 1: 1316 (cost 1)", at=day(2, 14))
    assert "will march" in reply and "The siege of Winterfell is lifted" in reply
    assert w.siege().status == "lifted"
    assert "The besiegers of House Lannister have marched away." in _post_bodies(w)


def test_sally_from_the_holdfast_sends_the_whole_ready_garrison(tmp_path: Path) -> None:
    """`sally from HOLDFAST` (as the besieged notice says) is accepted; a mustering army may
    not sally; a sally that captures the besiegers ends the siege at once, saying so."""
    w = _at_winterfell(tmp_path, stark={"infantry": 400, "cavalry": 0}, lannister="20 cavalry")
    w.say("ned_stark", "muster 100 infantry", at=day(2, 13))
    w.say("tywin_lannister", "siege Winterfell with army 1", at=day(2, 13))
    [notice] = [o for o in w.outbox(target="ned_stark") if "besieged" in o.title]
    assert "`sally from Winterfell`" in notice.body
    early = w.say("ned_stark", "sally from Winterfell with army 2", at=day(2, 14))
    assert "still mustering" in early and "only ready troops sally" in early
    reply = w.say("ned_stark", "sally from Winterfell", at=day(2, 14))
    assert "The whole ready garrison will sally from Winterfell" in reply
    w.run(day(2, 18))
    assert w.army(1).state == "gone"  # 300 against 40: captured
    assert w.siege().status == "broken"
    assert "The besiegers of House Lannister were captured in battle." in _post_bodies(w)
    assert w.army(2).state == "mustering"  # it did not ride out


def test_a_siege_ends_at_once_when_its_besiegers_are_captured(tmp_path: Path) -> None:
    """A relief army captures the besiegers: the siege ends on that tick, and the post says
    they were captured (not that they left)."""
    w = World(tmp_path, claims=roster("stark", "lannister"))
    w.say("tywin_lannister", "muster 20 cavalry")
    w.say("ned_stark", "muster 1000 infantry")
    w.run(day(2, 12))
    w.place(1, "Winterfell")
    w.place(2, "1316")
    w.say("tywin_lannister", "siege Winterfell with army 1", at=day(2, 13))
    w.say("ned_stark", "move army 2: Winterfell (cost 1)", at=day(2, 13))
    w.run(day(3, 0))  # enters at 00:00, fights at 06:00
    assert w.siege().status == "active"
    w.run(day(3, 6))
    assert w.army(1).state == "gone"
    assert w.siege().status == "lifted"
    posts = _post_bodies(w)
    assert "The besiegers of House Lannister were captured in battle." in posts
    assert "have left" not in posts


def test_a_siege_of_a_special_holdfast_reaches_the_moderators(tmp_path: Path) -> None:
    w = World(tmp_path, claims=roster("reed", "lannister"),
              wars=[("House Reed", "House Lannister")])
    w.say("tywin_lannister", "muster 500 infantry")
    w.run(day(2, 12))
    w.place(1, "Greywater Watch")
    reply = w.say("tywin_lannister", "siege Greywater Watch with army 1", at=day(2, 13))
    assert "referred to the moderators" in reply
    [note] = [o for o in w.outbox() if o.kind == "mod"]
    assert "Greywater Watch" in note.title and "army 1" in note.body
    assert w.events("referral")
    assert w.army(1).state == "standing"


def test_a_claimant_sees_its_own_holdfasts_secret_defenses_in_status(tmp_path: Path) -> None:
    w = World(tmp_path, claims=roster("stark", "lannister"))
    assert "Defenses of Winterfell: x2.6" in w.say("ned_stark", "status")
    assert "x2.6" not in w.say("tywin_lannister", "status")


# --- retreat route ----------------------------------------------------------------------------

def _attacked_at_1316(tmp_path: Path, seed: str = "issue-6") -> World:
    """Stark's army 1 (300 infantry) and Lannister's army 2 (300 infantry) stand on 1316, where
    neither marched; at 13:00 on day 2 the Lannisters attack, so Stark has the first reaction.
    (With ``seed`` "s2" Stark's retreat succeeds whole.)"""
    w = World(tmp_path, claims=roster("stark", "lannister"), seed=seed)
    w.say("ned_stark", "muster 300 infantry")
    w.say("tywin_lannister", "muster 300 infantry")
    w.run(day(2, 12))
    w.place(1, "1316")
    w.place(2, "1316")
    assert "will attack army 1" in w.say("tywin_lannister", "attack army 1 with army 2",
                                         at=day(2, 13))
    return w


def test_a_retreat_with_no_way_back_is_referred_not_rolled(tmp_path: Path) -> None:
    w = _attacked_at_1316(tmp_path)
    reply = w.say("ned_stark", "retreat army 1", at=day(2, 14))
    assert "referred to the moderators" in reply and "nothing was rolled" in reply
    [note] = [o for o in w.outbox() if o.kind == "mod"]
    assert "Retreat of army 1" in note.title
    assert w.events("referral")
    w.run(day(2, 18))
    assert not w.events("retreat") and not w.events("retreat_failed")
    assert not [p for p in w.posts() if "withdraws" in p.title]  # no untrue post


def test_a_retreat_may_name_its_route_and_then_really_leaves(tmp_path: Path) -> None:
    w = _attacked_at_1316(tmp_path, seed="s2")  # its retreat roll is 18 or more
    reply = w.say("ned_stark", "retreat army 1: 1315", at=day(2, 14))
    assert "will try to retreat" in reply and "falls back by Winterfell" in reply
    w.run(day(2, 18))
    [retreat] = w.events("retreat")
    assert "keeps 100%" in retreat.summary
    army = w.army(1)
    assert (army.state, army.tile, army.path_json) == ("retreating", "1316", ["1315"])
    # its arrival time is in the future, for the player too
    assert army.arrival_tick == w.ctx.tick_of(day(3, 0))
    status = w.say("ned_stark", "status", at=day(2, 19))
    assert f"arrives {w.ctx.when(day(3, 0))}" in status
    w.run(day(3, 0))
    assert (w.army(1).tile, w.army(1).state) == ("1315", "standing")


def test_a_retreat_to_a_tile_takes_the_cheapest_way(tmp_path: Path) -> None:
    w = _attacked_at_1316(tmp_path)
    reply = w.say("ned_stark", "retreat army 1 to 1318", at=day(2, 14))
    assert "falls back by 1317 > 1318" in reply
    bad = w.say("ned_stark", "retreat army 1: 1320", at=day(2, 14))
    assert "**Not done:**" in bad


# --- hostile armies sharing a tile, arriving together, resource tiles --------------------------

def _two_hosts(tmp_path: Path, troops: str = "300 infantry") -> World:
    """Stark's army 1 and Lannister's army 2, ``troops`` each, ready at 12:00 on day 2."""
    w = World(tmp_path, claims=roster("stark", "lannister"))
    w.say("ned_stark", f"muster {troops}")
    w.say("tywin_lannister", f"muster {troops}")
    w.run(day(2, 12))
    return w


def _battle_posts(w: World) -> list[str]:
    return [p.body for p in w.posts() if p.title.startswith("[Battle]")]


def test_two_marching_armies_ending_a_tick_on_one_tile_fight_and_neither_holds_it(
        tmp_path: Path) -> None:
    """Both cross the forest 1913 from either side and stand in it on the same tick, mid-path:
    they stop and fight at the next tick, and neither gets the forest's x1.4."""
    w = _two_hosts(tmp_path, "1500 infantry")  # 0.75 a tick: the forest leaves 0.25 over
    w.place(1, "1912")
    w.place(2, "1914")
    w.say("ned_stark", "move army 1: 1913 > 1914 (cost 3)", at=day(2, 13))
    w.say("tywin_lannister", "move army 2: 1913 > 1912 (cost 3)", at=day(2, 13))
    w.run(day(3, 12))  # departs 18:00; three ticks of 0.75 cover the forest (2) at 12:00
    assert (w.army(1).tile, w.army(1).state) == ("1913", "standing")
    assert (w.army(2).tile, w.army(2).state) == ("1913", "standing")
    assert w.events("encounter")
    w.run(day(3, 18))
    [battle] = _battle_posts(w)
    strength = next(line for line in battle.splitlines() if line.startswith("| Strength"))
    assert "1.4" not in strength and "forest" not in strength


def test_a_muster_completing_on_an_enemy_held_tile_is_a_battle(tmp_path: Path) -> None:
    w = World(tmp_path, claims=roster("stark", "lannister"))
    w.say("tywin_lannister", "muster 300 infantry")
    w.say("ned_stark", "muster 300 infantry", at=day(1, 13))  # ready at 18:00 on day 2
    w.run(day(2, 12))
    w.place(1, "Winterfell")  # standing there, not besieging
    w.run(day(2, 18))
    assert (w.army(2).state, w.army(2).tile) == ("standing", "1315")
    [met] = w.events("encounter")
    assert met.data_json["attacker"] == 2 and met.data_json["defender"] == 1
    notes = [o.body for o in w.outbox(target="ned_stark") if "Battle looms" in o.title]
    assert notes
    w.run(day(3))
    assert len(_battle_posts(w)) == 1


def test_a_retreat_passing_through_an_enemy_is_stopped(tmp_path: Path) -> None:
    """With seed s1 the retreat succeeds; its route crosses 1317 where another Lannister army
    stands, so it stops there and a battle looms."""
    w = World(tmp_path, claims=roster("stark", "lannister"), seed="s1")
    w.say("ned_stark", "muster 300 infantry")
    w.say("tywin_lannister", "muster 300 infantry\nmuster 100 infantry")
    w.run(day(2, 12))
    w.place(1, "1316")
    w.place(2, "1316")
    w.place(3, "1317")
    w.say("tywin_lannister", "attack army 1 with army 2", at=day(2, 13))
    w.say("ned_stark", "retreat army 1: 1317 > 1318", at=day(2, 14))
    w.run(day(2, 18))
    assert w.events("retreat")
    w.run(day(3, 0))
    army = w.army(1)
    assert (army.tile, army.state) == ("1317", "standing")
    [met] = w.events("encounter")
    assert (met.data_json["attacker"], met.data_json["defender"]) == (1, 3)


def test_a_loser_with_no_way_back_meets_the_winner_again(tmp_path: Path) -> None:
    """Neither army marched to 1316: the loser cannot go back, so it stays, and two hostile
    armies on one tile meet in a new battle at the next tick."""
    w = _two_hosts(tmp_path)
    w.place(1, "1316")
    w.place(2, "1316")
    w.say("tywin_lannister", "attack army 1 with army 2", at=day(2, 13))
    w.run(day(2, 18))
    [first] = _battle_posts(w)
    loser = 1 if "House Lannister wins" in first else 2
    assert (w.army(loser).tile, w.army(loser).state) == ("1316", "standing")
    [met] = w.events("encounter")
    assert met.tick == w.ctx.tick_of(day(2, 18))
    w.run(day(3, 0))
    assert len(_battle_posts(w)) == 2


def test_a_resource_tile_changes_hands_only_when_its_holder_is_beaten_or_leaves(
        tmp_path: Path) -> None:
    """Stark holds the Horse pastures of the Reach; a stronger Lannister army arrives: Stark
    keeps the benefit until the battle; whoever then stands there alone holds it."""
    w = World(tmp_path, claims=roster("stark", "lannister"))
    w.say("ned_stark", "muster 100 infantry")
    w.say("tywin_lannister", "muster 900 infantry")
    w.run(day(2, 12))
    w.place(1, "1041")
    w.place(2, "1040")
    w.run(day(2, 18))
    assert w.claim("House Stark").id in [e.data_json["holder"] for e in
                                         w.events("resource_holder")]
    w.say("tywin_lannister", "move army 2: 1041 (cost 1)", at=day(2, 19))
    w.run(day(3, 6))  # arrives: a battle looms, Stark still holds the benefit
    assert w.army(2).tile == "1041"
    assert [e.data_json["holder"] for e in w.events("resource_holder")] == [
        w.claim("House Stark").id]
    w.run(day(3, 12))  # the battle: 900 against 100, Stark is beaten
    holders = [e.data_json["holder"] for e in w.events("resource_holder")]
    assert holders[-1] == w.claim("House Lannister").id


# --- holes found by playing -------------------------------------------------------------------

def test_a_fleet_sails_home_into_its_port_and_disbands(tmp_path: Path) -> None:
    w = World(tmp_path, claims=roster("greyjoy", "stark"))
    w.say("balon_greyjoy", "muster 4 ships")
    w.run(day(2, 12))
    pyke = w.ctx.world.tile("Pyke").id
    sea = w.ctx.world.water_adjacent(pyke)[0]
    assert "**Fleet 1** (4 ships) will sail" in w.say("balon_greyjoy",
                                                      f"move fleet 1: {sea} (cost 1)",
                                                      at=day(2, 13))
    w.run(day(3))
    assert w.army(1).tile == sea
    route = w.say("balon_greyjoy", "route fleet 1 to Pyke", at=day(3, 1))
    assert "To sail, send:" in route and "move fleet 1: Pyke (cost 1)" in route
    assert "will sail" in w.say("balon_greyjoy", "move fleet 1: Pyke (cost 1)", at=day(3, 1))
    w.run(day(3, 12))
    assert (w.army(1).tile, w.army(1).state) == (pyke, "standing")
    ships = w.claim("House Greyjoy").ships
    assert "is disbanded" in w.say("balon_greyjoy", "disband fleet 1", at=day(3, 13))
    assert w.claim("House Greyjoy").ships == ships + 4


def test_a_captured_character_cannot_be_given_a_new_army(tmp_path: Path) -> None:
    w = World(tmp_path, claims=roster("stark", "lannister"))
    w.say("ned_stark", "muster 300 infantry")
    w.say("tywin_lannister", "muster 20 cavalry\nassign Jaime to army 2\nmuster 50 cavalry")
    w.run(day(2, 12))
    w.place(1, "1316")
    w.place(2, "1316")
    w.say("tywin_lannister", "attack army 1 with army 2", at=day(2, 13))
    w.run(day(2, 18))  # 40 against 300: captured, and Jaime with them
    assert w.army(2).state == "gone"
    assert w.character("Jaime Lannister").status == "captured"
    reply = w.say("tywin_lannister", "assign Jaime to army 3", at=day(2, 19))
    assert "Jaime Lannister is a captive" in reply and "**Not done:**" in reply
    assert w.army(3).commander_id is None


def test_a_receipt_reflects_the_whole_message(tmp_path: Path) -> None:
    """The commander assigned on a later line of the same message speeds the march: the
    march's receipt (computed after all lines) says so, and the army arrives when it says."""
    w = World(tmp_path, claims=roster("lannister", "stark"))
    w.grant("Jaime Lannister", "Forced March")
    reply = w.say("tywin_lannister", "muster 100 infantry\n"
                                     "move army 1: 0436 > 0535 (cost 5)\n"
                                     "assign Jaime to army 1")
    assert "15/8 travel cost per tick, x1.25 (x1.25 Forced March)" in reply
    # departs 12:00 day 2; 1.875 a tick covers 5 on the third tick: 06:00 day 3
    assert f"Arrives: {w.ctx.when(day(3, 6))}" in reply
    assert w.army(1).arrival_tick == w.ctx.tick_of(day(3, 6))
    w.run(day(3, 6))
    assert (w.army(1).tile, w.army(1).state) == ("0535", "standing")


# --- reacting to a detection ------------------------------------------------------------------

def _sighted_passing_winterfell(tmp_path: Path) -> World:
    """Stark's army 1 stands on Winterfell; Lannister's army 2 (600 infantry, always seen by a
    holdfast) marches 1417 > 1416 > ... > 1716 past it and is sighted at 00:00 on day 3 in 1416
    (it reaches 1616 at 06:00 and 1716 at 12:00)."""
    w = _two_hosts(tmp_path, "600 infantry")
    w.place(1, "Winterfell")
    w.place(2, "1417")
    w.say("tywin_lannister", "move army 2: 1416 > 1516 > 1616 > 1716 (cost 4)", at=day(2, 13))
    w.run(day(3))
    assert w.army(2).tile == "1416"
    return w


def test_a_standing_army_may_intercept_a_force_its_watchers_sighted(tmp_path: Path) -> None:
    w = _sighted_passing_winterfell(tmp_path)
    [note] = [o for o in w.outbox(target="ned_stark") if "sighted" in o.title]
    assert "`intercept army 2 with army 1` before " + w.ctx.when(day(3, 6)) in note.body
    reply = w.say("ned_stark", "intercept army 2 with army 1", at=day(3, 1))
    assert "intercepts army 2" in reply and w.ctx.when(day(3, 6)) in reply
    assert (w.army(2).state, w.army(2).tile, w.army(2).path_json) == ("standing", "1416", [])
    assert w.army(1).tile == "1416"
    [told] = [o for o in w.outbox(target="tywin_lannister") if "intercepted" in o.title]
    assert "`retreat army 2`" in told.body
    w.run(day(3, 6))
    [battle] = _battle_posts(w)
    strength = next(line for line in battle.splitlines() if line.startswith("| Strength"))
    assert "1.4" not in strength  # neither side was standing there before


def test_the_chance_to_intercept_ends_at_the_next_tick(tmp_path: Path) -> None:
    w = _sighted_passing_winterfell(tmp_path)
    w.run(day(3, 6))
    assert (w.army(2).state, w.army(2).tile) == ("marching", "1616")
    late = w.say("ned_stark", "intercept army 2 with army 1", at=day(3, 7))
    assert "the chance to intercept army 2 has passed" in late
    assert w.army(1).tile == "1315"
    stranger = w.say("ned_stark", "intercept army 1 with army 1", at=day(3, 7))
    assert "have not sighted" in stranger


# --- after a failed retreat the opponent decides ----------------------------------------------

def _failed_retreat(tmp_path: Path) -> World:
    """Stark's army 1 tries to retreat from the Lannister attack and fails (d20 under 13 with
    this campaign's dice) at 18:00 on day 2."""
    w = _attacked_at_1316(tmp_path)
    w.say("ned_stark", "retreat army 1: 1315", at=day(2, 14))
    w.run(day(2, 18))
    assert w.events("retreat_failed") and w.army(1).retreat_penalty
    return w


def test_after_a_failed_retreat_the_opponent_may_let_them_stay(tmp_path: Path) -> None:
    w = _failed_retreat(tmp_path)
    assert not _battle_posts(w)  # not fought at once
    [ask] = [o for o in w.outbox(target="tywin_lannister") if "failed to retreat" in o.title]
    assert "`stand army 2`" in ask.body and "`spare army 1`" in ask.body
    reply = w.say("tywin_lannister", "spare army 1", at=day(2, 19))
    assert "there is no battle" in reply
    w.run(day(3, 6))
    assert not _battle_posts(w)  # spared: they share the tile in peace
    assert (w.army(1).state, w.army(2).state) == ("standing", "standing")
    assert "**Not done:**" in w.say("ned_stark", "spare army 2", at=day(3, 7))


def test_after_a_failed_retreat_without_an_answer_the_battle_is_fought_at_minus_one(
        tmp_path: Path) -> None:
    w = _failed_retreat(tmp_path)
    w.run(day(3, 0))
    assert len(_battle_posts(w)) == 1
    [event] = w.events("battle")
    assert event.tick == w.ctx.tick_of(day(3, 0))
