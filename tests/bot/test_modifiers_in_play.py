"""The catalogue in play: the catalogue's orders, each effect kind through the services, hidden
modifiers kept out of public posts, fleets and blockades, and the characters' fate tables.

Every test drives a real SQLite campaign through the message handler and the tick.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from decimal import Decimal
from pathlib import Path

import pytest

from bot.db.models import ArmyState
from tests.bot.catalogue_world import START, World, demo_catalogue_data, roster

D = Decimal


def day(n: int, hour: int = 0) -> datetime:
    """``hour``:00 UTC ``n`` days after the start day (each 00:00 begins an in-game month)."""
    return START.replace(hour=0, minute=0) + timedelta(days=n, hours=hour)


# --- build ----------------------------------------------------------------------------------

def test_build_pays_now_and_finishes_at_a_month_boundary(tmp_path: Path) -> None:
    """`build IMPROVEMENT at HOLDFAST` pays the gold at once; the improvement is finished at the
    month boundary its build months later, and the claim gets a private note."""
    w = World(tmp_path, claims=roster("frey", "stark"))
    reply = w.say("walder_frey", "build Granaries at The Twins")
    assert "Building **Granaries** at The Twins for 200 gold (gold left: 1000)" in reply
    assert w.claim("House Frey").gold == D(1000)
    w.run(day(1, 12))  # one month boundary passed: not yet
    assert w.claim("House Frey").improvements_json[0]["done"] is False
    w.run(day(2))  # the second boundary: finished
    assert w.claim("House Frey").improvements_json[0]["done"] is True
    notes = [o for o in w.outbox(target="walder_frey") if "Granaries" in o.title]
    assert len(notes) == 1 and not notes[0].public
    assert "+2 siege months (defender)" in notes[0].body
    assert not [o for o in w.posts() if "Granaries" in o.body]


def test_build_refuses_bad_names_with_the_valid_ones(tmp_path: Path) -> None:
    """A name not in the catalogue is refused with the list of valid improvements (and a
    did-you-mean); building elsewhere than one's holdfast, twice, or without the gold is
    refused too, and nothing is paid."""
    w = World(tmp_path, claims=roster("frey", "reed"))
    reply = w.say("walder_frey", "build Stone Wals at The Twins")
    assert "there is no improvement called Stone Wals (did you mean Stone Walls?)" in reply
    assert "one of: Stone Walls, Watchtowers, Granaries, Barracks" in reply
    assert "only build in your own holdfast, The Twins" in w.say(
        "walder_frey", "build Watchtowers at Greywater Watch")
    w.say("walder_frey", "build Watchtowers at The Twins")
    assert "already being built" in w.say("walder_frey", "build watchtowers at the twins")
    assert "costs 300 gold and House Reed has 200" in w.say(
        "howland_reed", "build Stone Walls at Greywater Watch")
    assert w.claim("House Frey").gold == D(1080)
    assert w.claim("House Reed").gold == D(200)


# --- buy and assign -------------------------------------------------------------------------

def test_buy_pays_and_the_army_carries_the_equipment(tmp_path: Path) -> None:
    """`buy EQUIPMENT for army N` pays the gold and the army carries it; unknown names get the
    valid list; a second one of the same name is refused (it would not stack); fleets carry no
    siege equipment."""
    w = World(tmp_path, claims=roster("lannister", "greyjoy"))
    w.say("tywin_lannister", "muster 100 infantry")
    reply = w.say("tywin_lannister", "buy Trebuchets for army 1")
    assert "Army 1 now carries **Trebuchets** (150 gold; gold left: 4850)" in reply
    assert [e["name"] for e in w.army(1).equipment_json] == ["Trebuchets"]
    [item] = w.army(1).equipment_json  # stored with what it cost and when it was bought
    assert (item["cost"], type(item["bought_tick"])) == ("150", int)
    assert "one of: Trebuchets, Siege Towers" in w.say("tywin_lannister",
                                                       "buy catapults for army 1")
    assert "does not stack" in w.say("tywin_lannister", "buy 2 siege towers for army 1")
    assert "already carries Trebuchets" in w.say("tywin_lannister", "buy trebuchets for army 1")
    w.say("balon_greyjoy", "muster 5 ships")
    assert "fleet 2 carries no siege equipment" in w.say("balon_greyjoy",
                                                          "buy Trebuchets for army 2")
    assert w.claim("House Lannister").gold == D(4850)


def test_assign_puts_a_living_character_in_command(tmp_path: Path) -> None:
    """`assign COMMANDER to army N` takes one of the claim's living characters; its skills go
    with the army; a bad name gets the list of the claim's characters; moving a commander to
    another army leaves the first without one."""
    w = World(tmp_path, claims=roster("stark", "tully"))
    w.grant("Robb Stark", "Blackfish")
    w.say("ned_stark", "muster 100 infantry\nmuster 50 cavalry")
    reply = w.say("ned_stark", "assign Robb to army 1")
    assert "**Robb Stark** takes command of army 1" in reply
    assert "Blackfish (x1.2 strength)" in reply
    assert w.army(1).commander_id == w.character("Robb Stark").id
    refused = w.say("ned_stark", "assign Brynden Tully to army 1")
    assert "no living character called Brynden Tully" in refused
    assert "one of: Eddard Stark, Robb Stark" in refused
    moved = w.say("ned_stark", "assign Robb Stark to army 2")
    assert "leaves army 1" in moved
    assert w.army(1).commander_id is None
    assert w.character("Robb Stark").army_id == 2


# --- each effect kind in play ---------------------------------------------------------------

def _field_battle(w: World, skill: str) -> str:
    """Tully's army 1 under Brynden (with ``skill``) attacks Lannister's army 2 at Riverrun;
    returns the public battle post."""
    w.grant("Brynden Tully", skill)
    w.say("hoster_tully", "muster 100 infantry\nassign Brynden Tully to army 1")
    w.say("tywin_lannister", "muster 100 infantry")
    w.run(day(1, 12))
    w.place(2, "Riverrun")
    w.say("hoster_tully", "attack army 2 with army 1", at=day(1, 13))
    w.run(day(2, 0))
    # the first battle (the beaten Lannisters have no way back, so they meet again later)
    post = next(o for o in w.posts() if o.title.startswith("[Battle]"))
    return post.body


def test_strength_skill_shows_in_the_public_battle_post(tmp_path: Path) -> None:
    """A commander's strength skill multiplies the army's strength and the public battle post
    says so: "120 (100 x1.2 Blackfish)"."""
    w = World(tmp_path, claims=roster("tully", "lannister"))
    body = _field_battle(w, "Blackfish")
    assert "| Strength | 120 (100 x1.2 Blackfish) | 100 |" in body


def test_hidden_skill_stays_out_of_the_post_and_goes_to_its_owner(tmp_path: Path) -> None:
    """A hidden skill counts in battle, but the public post names neither it nor the strength
    it gives; the owner gets a private note with every multiplier, marked secret."""
    catalogue = demo_catalogue_data(skills={"Shadowcat": {
        "hidden": True, "effects": [{"kind": "strength", "amount": "1.5"}]}})
    w = World(tmp_path, claims=roster("tully", "lannister"), catalogue=catalogue)
    body = _field_battle(w, "Shadowcat")
    assert "Shadowcat" not in body and "x1.5" not in body and "150" not in body
    assert "| Strength | hidden | 100 |" in body
    note = next(o for o in w.outbox(target="hoster_tully") if "in full" in o.title)
    assert "x1.5 Shadowcat (secret)" in note.body and "strength 150" in note.body
    assert not [o for o in w.outbox(target="tywin_lannister") if "Shadowcat" in o.body]


def test_assault_with_siege_towers_against_hidden_stone_walls(tmp_path: Path) -> None:
    """In an assault the attacker's siege equipment counts and is named ("x1.2 Siege
    Towers"); the holdfast's Stone Walls (hidden) and secret defense bonus count for the
    garrison but only its claimant learns them."""
    w = World(tmp_path, claims=roster("frey", "lannister"),
              wars=[("House Frey", "House Lannister")])
    w.say("walder_frey", "build Stone Walls at The Twins")
    w.say("tywin_lannister", "muster 3000 infantry\nbuy Siege Towers for army 1")
    w.run(day(3, 6))  # the walls are finished at the third boundary
    w.place(1, "The Twins")
    w.say("tywin_lannister", "assault The Twins with army 1", at=day(3, 7))
    w.run(day(3, 12))
    [post] = [o for o in w.posts() if o.title.startswith("[Battle]")]
    assert "| Strength | 3600 (3000 x1.2 Siege Towers) | hidden (holdfast defenses) |" \
        in post.body
    assert "Stone Walls" not in post.body and "1.3" not in post.body
    [note] = [o for o in w.outbox(target="walder_frey") if "assault on" in o.title]
    assert "x1.3 Stone Walls (secret)" in note.body
    assert "x2.3 holdfast defenses (secret)" in note.body


def test_siege_receipt_names_the_months_each_modifier_changed(tmp_path: Path) -> None:
    """The siege receipt shows "-1 month Trebuchets" and the defenders' "+2 months
    Granaries"; a hidden improvement's months count but the besieger never reads its name,
    while the defender's note names it as secret."""
    catalogue = demo_catalogue_data(improvements={"Secret Tunnels": {
        "hidden": True, "cost": 10, "months": 1,
        "effects": [{"kind": "siege_months", "amount": 1, "role": "defense"}]}})
    w = World(tmp_path, claims=roster("frey", "lannister"), catalogue=catalogue)
    w.say("walder_frey", "build Granaries at The Twins\nbuild Secret Tunnels at The Twins")
    w.say("tywin_lannister", "muster 300 infantry\nbuy Trebuchets for army 1")
    w.run(day(2, 6))
    w.place(1, "The Twins")
    reply = w.say("tywin_lannister", "siege The Twins with army 1", at=day(2, 7))
    assert "falls after **8** in-game months (chart 6 months; -1 month Trebuchets, +2 months " \
           "Granaries)" in reply
    assert "Secret Tunnels" not in reply
    assert w.siege().months_required == 8
    [note] = [o for o in w.outbox(target="walder_frey") if "besieged" in o.title]
    assert "-1 month Trebuchets, +2 months Granaries, +1 month Secret Tunnels (secret)" \
        in note.body


def test_detection_and_stealth_change_the_detection_roll(tmp_path: Path) -> None:
    """Watchtowers (+2) and a beacon (+20) add to the holdfast's detection roll and a Scout
    with the passing army takes 2 off; the roll records all three and the watchers' note
    names them."""
    catalogue = demo_catalogue_data(improvements={"Beacon": {
        "cost": 10, "months": 1, "effects": [{"kind": "detection", "amount": 20}]}})
    w = World(tmp_path, claims=roster("stark", "lannister"), catalogue=catalogue)
    w.grant("Jaime Lannister", "Scout")
    w.say("ned_stark", "build Watchtowers at Winterfell\nbuild Beacon at Winterfell")
    w.say("tywin_lannister", "muster 10 cavalry\nassign Jaime to army 1")
    w.run(day(1, 12))
    w.place(1, "1317")
    w.say("tywin_lannister", "move army 1: 1316 (cost 1)", at=day(1, 13))
    w.run(day(2))
    [roll] = [e for e in w.events("detection") if e.data_json["observer"] == "1315"]
    assert (roll.data_json["target"], roll.data_json["bonus"]) == (15, 5 + 2 + 20 - 2)
    assert roll.data_json["modifiers"] == ["+2 Watchtowers", "+20 Beacon", "-2 Scout (stealth)"]
    assert roll.data_json["detected"] is True  # a d20 + 25 always reaches 15
    [note] = [o for o in w.outbox(target="ned_stark") if "sighted" in o.title]
    assert f"d20 {roll.data_json['roll']} + 25 = {roll.data_json['roll'] + 25} vs 15 " \
           "(+2 Watchtowers, +20 Beacon, -2 Scout (stealth))" in note.body
    assert not [o for o in w.outbox(target="tywin_lannister") if "Beacon" in o.body]


def test_speed_skill_shortens_the_march(tmp_path: Path) -> None:
    """A commander's speed skill multiplies the march budget; the receipt names it and the
    army arrives on the tick the receipt announced."""
    w = World(tmp_path, claims=roster("lannister"))
    w.grant("Jaime Lannister", "Forced March")
    w.say("tywin_lannister", "muster 100 infantry\nassign Jaime to army 1")
    w.run(day(1, 12))
    reply = w.say("tywin_lannister", "move army 1: 0436 > 0535 (cost 5)", at=day(1, 13))
    assert "15/8 travel cost per tick, x1.25 (x1.25 Forced March)" in reply
    arrival = w.army(1).arrival_tick
    assert arrival is not None
    w.run(day(3))
    army = w.army(1)
    assert army.tile == "0535" and army.arrival_tick == arrival
    # departs at 18:00; 1.875 a tick enters 0436 (2) at 06:00 and 0535 (3) at 12:00, where
    # the plain 1.5 a tick would have needed until 18:00
    assert w.ctx.tick_at(arrival) == day(2, 12)


def test_gold_income_of_held_resources_with_the_stacking_rule(tmp_path: Path) -> None:
    """Standing armies on the gold mine and both timber tiles bring +50 and +15: the second
    timber tile has the same name and adds nothing. Income comes before upkeep."""
    w = World(tmp_path, claims=roster("lannister"))
    w.say("tywin_lannister", "muster 10 infantry\nmuster 10 infantry\nmuster 10 infantry")
    w.run(day(1, 12))
    for army_id, tile in ((1, "0535"), (2, "The Wolfswood"), (3, "The Kingswood")):
        w.place(army_id, tile)
    gold = w.claim("House Lannister").gold
    w.run(day(2))
    notes = [o for o in w.outbox(target="tywin_lannister") if o.title.startswith("Upkeep")]
    assert "Income" not in notes[0].body  # the first month: nothing held yet
    assert "Income: 65 gold (+50 gold mine, +15 timber)" in notes[-1].body
    assert w.claim("House Lannister").gold == gold + 65 - 3
    held = [o.body for o in w.outbox(target="tywin_lannister") if o.title.startswith("You hold")]
    assert any("receives gold mine" in body for body in held), held  # the label, not the key
    assert not any("gold_mine" in body for body in held)


def test_capacity_follows_improvements_and_the_resource_tile_held(tmp_path: Path) -> None:
    """Barracks (+200 infantry) add troops at home when they are finished; holding the horse
    pastures adds 100 cavalry at the next month boundary, and when the army leaves the 100 go
    at the following one while the barracks' 200 stay."""
    w = World(tmp_path, claims=roster("tyrell"))
    w.say("mace_tyrell", "build Barracks at Highgarden\nmuster 20 cavalry")
    w.run(day(1, 12))
    w.place(1, "Horse pastures of the Reach")
    w.run(day(2))
    tyrell = w.claim("House Tyrell")
    assert (tyrell.infantry, tyrell.cavalry) == (4000 + 200, 1200 - 20 + 100)
    [note] = [o for o in w.outbox(target="mace_tyrell") if o.title == "Troops at home"]
    assert "+200 infantry, +100 cavalry (+200 Barracks, +100 horse breeding)" in note.body
    w.place(1, "Highgarden")
    w.run(day(3))
    tyrell = w.claim("House Tyrell")
    assert (tyrell.infantry, tyrell.cavalry) == (4000 + 200, 1200 - 20)


# --- characters in battle -------------------------------------------------------------------

ALL_FALL = {"casualties": [{"min_margin": 0, "winner_pct": "100", "loser_pct": "100"}]}


@pytest.mark.parametrize("roll_fates", [True, False])
def test_fate_tables_are_rolled_or_the_post_says_who_must_roll(tmp_path: Path,
                                                               roll_fates: bool) -> None:
    """With roll_fates the bot rolls the moderators' death table and the post shows the
    outcome (a death outcome marks the character dead); without it the post lists who must
    make a death roll and nothing else changes."""
    w = World(tmp_path, claims=roster("tully", "lannister"), rules=ALL_FALL,
              characters={"roll_fates": roll_fates, "death_table": {"1-100": "dies"}})
    body = _field_battle(w, "Blackfish")
    brynden = w.character("Brynden Tully")
    if roll_fates:
        assert re.search(r"Brynden Tully \(House Tully\) made a \*\*death roll\*\* \(d100 \d+\), "
                         r"death table \d+: dies", body)
        assert brynden.status == "dead" and brynden.army_id is None
        [fate] = w.events("character_fate")
        assert fate.data_json["dies"] is True and fate.dice_json[0]["sides"] == 100
        # the post carries the fate roll's dice line, so players can check it
        line = str(fate.data_json["dice"])
        assert f"`{line}`" in body and "key=fate:" in line and "branch=public" in line
    else:
        assert "Brynden Tully (House Tully) must make a **death roll**" in body
        assert brynden.status == "alive"
        assert not w.events("character_fate")


# --- fleets and blockades -------------------------------------------------------------------

FLEET_CLAIMS = [
    {"name": "House Hightower", "holdfast": "Oldtown", "players": ["baelor_hightower"],
     "gold": "3000", "infantry": 1000, "cavalry": 0, "ships": 10},
    {"name": "House Dayne", "holdfast": "Starfall", "players": ["arthur_dayne"],
     "gold": "500", "infantry": 250, "cavalry": 0, "ships": 40},
]


def test_a_port_is_besieged_only_under_blockade_and_a_broken_blockade_pauses(
        tmp_path: Path) -> None:
    """Fleets muster at a port and sail on water; a port holdfast cannot be besieged until a
    fleet blockades it from an adjacent water tile; fleets fight fleets with the same battle
    rules; when the blockading fleet is lost the siege pauses."""
    w = World(tmp_path, claims=FLEET_CLAIMS, wars=[],
              rules={"siege_months": [{"value": 3}]})
    w.say("baelor_hightower", "muster 600 infantry\nmuster 4 ships\n"
          "move army 1: 0547 > 0648 > 0649 > Starfall (cost 10)")
    w.say("arthur_dayne", "muster 30 ships\nmove army 3: 0449 (cost 1)")
    assert "a fleet cannot enter 0547 (field)" in w.say("baelor_hightower",
                                                        "move army 2: 0547 (cost 1)")
    w.run(day(3, 12))
    assert (w.army(1).tile, w.army(1).state) == ("0549", ArmyState.STANDING)
    assert w.army(3).tile == "0449"
    refused = w.say("baelor_hightower", "siege Starfall with army 1")
    assert "blockade it first" in refused
    assert "must stand on a water tile next to Starfall" in w.say(
        "baelor_hightower", "blockade Starfall with fleet 2")
    # ordered after the 12:00 tick: it departs at 18:00 and sails at midnight
    w.say("baelor_hightower", "move army 2: 0447 > 0448 > 0548 (cost 3)")
    w.run(day(4, 0))
    assert w.army(2).tile == "0548"
    blockade = w.say("baelor_hightower", "blockade Starfall with fleet 2")
    assert "**Fleet 2** (4 ships) blockades Starfall" in blockade and "No siege yet" in blockade
    [war] = [m for m in w.outbox(public=False, target="arthur_dayne")
             if "is at war with you" in m.title]  # the blockade declared it: told privately
    assert "(its fleet blockades Starfall)" in war.body
    assert "falls after **3** in-game months" in w.say("baelor_hightower",
                                                       "siege Starfall with army 1")
    assert any(p.title == "[Siege] Blockade: Starfall" for p in w.posts())
    # ordered exactly on the 00:00 tick, the siege starts on it (issue #23: it started at
    # 06:00) and its months are whole months from there
    w.run(day(4, 18))
    assert w.siege().months_elapsed == 0
    w.run(day(5, 0))
    assert (w.siege().months_elapsed, w.siege().paused) == (1, False)
    w.run(day(5, 6))
    assert w.siege().months_elapsed == 1
    # Dayne's fleet sails into the blockaders: an encounter, fought by the battle rules.
    w.say("arthur_dayne", "move army 3: 0548 (cost 1)")  # departs 12:00, meets them at 18:00
    w.run(day(6, 0))
    [battle] = [p for p in w.posts() if p.title.startswith("[Battle]")]
    assert "| Troops | 30 ships | 4 ships |" in battle.body
    assert "House Dayne wins" in battle.body
    assert w.army(2).state == ArmyState.GONE
    w.run(day(6, 12))
    siege = w.siege()
    assert (siege.status, siege.months_elapsed, siege.paused) == ("active", 1, True)
    assert any("paused: the blockade is broken" in p.body for p in w.posts())


def test_blockade_needs_a_fleet_next_to_a_port_that_is_not_ones_own(tmp_path: Path) -> None:
    """Only a fleet blockades, only a port holdfast, never one's own; an unclaimed port can be
    blockaded (no war, nothing to besiege); the blockade is announced publicly."""
    w = World(tmp_path, claims=roster("greyjoy"))
    w.say("balon_greyjoy", "muster 6 ships\nmuster 50 infantry")
    w.run(day(1, 12))
    assert "army 2 is not a fleet" in w.say("balon_greyjoy", "blockade Hammerhorn with fleet 2")
    assert "Casterly Rock is not a port holdfast" in w.say("balon_greyjoy",
                                                            "blockade Casterly Rock with fleet 1")
    w.place(1, "0030")
    assert "Pyke is your own port" in w.say("balon_greyjoy", "blockade Pyke with fleet 1")
    w.place(1, "0229")
    reply = w.say("balon_greyjoy", "blockade Hammerhorn with fleet 1")
    assert "**Fleet 1** (6 ships) blockades Hammerhorn" in reply
    assert "No claim holds Hammerhorn" in reply
    [post] = [p for p in w.posts() if p.title == "[Siege] Blockade: Hammerhorn"]
    assert "The ships of **House Greyjoy** close the harbour of **Hammerhorn** on" in post.body


# --- hidden modifiers never reach public posts ----------------------------------------------

def test_public_posts_never_show_hidden_modifiers(tmp_path: Path) -> None:
    """After field battles, a siege and an assault in which hidden skills, hidden improvements
    and the secret defense bonus all counted, no public post names any of them or shows their
    amounts, and no other claim's messages name them."""
    catalogue = demo_catalogue_data(
        skills={"Shadowcat": {"hidden": True, "effects": [{"kind": "strength",
                                                           "amount": "1.5"}]}},
        improvements={"Secret Tunnels": {"hidden": True, "cost": 10, "months": 1, "effects": [
            {"kind": "siege_months", "amount": 1, "role": "defense"}]}})
    w = World(tmp_path, claims=roster("frey", "lannister", "tully"),
              wars=[("House Frey", "House Lannister"), ("House Tully", "House Lannister")],
              catalogue=catalogue)
    w.grant("Brynden Tully", "Shadowcat")
    w.say("walder_frey", "build Stone Walls at The Twins\nbuild Secret Tunnels at The Twins")
    w.say("hoster_tully", "muster 100 infantry\nassign Brynden Tully to army 1")
    w.say("tywin_lannister", "muster 100 infantry\nmuster 3000 infantry\n"
          "buy Siege Towers for army 3\nbuy Trebuchets for army 3")
    w.run(day(3, 6))
    w.place(2, "Riverrun")
    w.place(3, "The Twins")
    w.say("hoster_tully", "attack army 2 with army 1", at=day(3, 7))
    w.say("tywin_lannister", "siege The Twins with army 3\nassault The Twins with army 3",
          at=day(3, 7))
    w.run(day(4))
    posts = w.posts()
    # the field battle, the assault, and the beaten Lannisters (no way back from Riverrun)
    # meeting the Tullys again on each later tick
    assert len([p for p in posts if p.title.startswith("[Battle]")]) >= 2
    secrets = ("Shadowcat", "Stone Walls", "Secret Tunnels", "secret", "x1.5", "x1.3", "x2.3",
               "2.3", "holdfast defenses (")
    for post in posts:
        text = post.title + "\n" + post.body
        for secret in secrets:
            assert secret not in text, (secret, post.title)
    for player, own in (("tywin_lannister", ()), ("walder_frey", ("Stone Walls",
                                                                   "Secret Tunnels")),
                        ("hoster_tully", ("Shadowcat",))):
        for message in w.outbox(public=False, target=player):
            for name in ("Shadowcat", "Stone Walls", "Secret Tunnels"):
                assert name in own or name not in message.body, (player, message.title)
