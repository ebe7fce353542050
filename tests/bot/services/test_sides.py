"""Battles between sides, played through the order language and ticks (docs/rules.md
"Battles between sides"): every army on the tile that joins a claim's side fights on it."""

from __future__ import annotations

import csv
import io
from datetime import datetime, timedelta
from pathlib import Path

from sqlmodel import select

from bot.db.models import Claim, Relation
from bot.maps import demo_map_text
from bot.render.posts import realm_post
from bot.services import queries
from bot.services.mapview import load_situation
from bot.services.moderation import remove_army
from bot.services.world import set_relation
from rules.campaign.world import RelationStatus
from tests.bot.catalogue_world import START, World, roster


def day(n: int, hour: int = 0) -> datetime:
    return START.replace(hour=0, minute=0) + timedelta(days=n - 1, hours=hour)


def _relate(w: World, a: str, b: str, status: RelationStatus) -> None:
    with w.session() as session:
        ids = {c.name: c.id for c in (w.claim(a), w.claim(b))}
        set_relation(session, w.ctx, ids[a] or 0, ids[b] or 0, status)


def _field(tmp_path: Path, *, stark: list[str], lannister: str,
           tully: list[str] = (), tully_status: RelationStatus | None = None) -> World:
    """Stark's armies (``stark`` muster orders, one army each), Tully's (``tully``) and
    Lannister's one army (``lannister``) all stand on field 1320 on day 2 at 12:00."""
    w = World(tmp_path, claims=roster("stark", "lannister", "tully"))
    for text in stark:
        w.say("ned_stark", f"muster {text}")
    for text in tully:
        w.say("hoster_tully", f"muster {text}")
    w.say("tywin_lannister", f"muster {lannister}")
    if tully_status is not None:
        _relate(w, "House Stark", "House Tully", tully_status)
    w.run(day(2, 12))
    for army in range(1, len(stark) + len(tully) + 2):
        w.place(army, "1320")
    return w


def _attack(w: World, target: int, attacker: int) -> None:
    reply = w.say("tywin_lannister", f"attack army {target} with army {attacker}",
                  at=day(2, 13))
    assert "attack" in reply.lower() and "refused" not in reply.lower(), reply
    w.run(day(3, 0))


def test_two_armies_of_a_claim_defend_together(tmp_path: Path) -> None:
    """Lannister's 150 attack one of Stark's two armies of 100 on a field: the defending side
    is 200 (both armies): ratio 1.33, the 1.26-1.50 band (150 vs 100 alone would be 1.50 for
    the attacker), and both Stark armies take the same casualty %, never one alone."""
    w = _field(tmp_path, stark=["100 infantry", "100 infantry"], lannister="150 infantry")
    _attack(w, 1, 3)
    battle = w.events("battle")[0]
    assert battle.data_json["strengths"] == ["150", "200"]
    assert battle.data_json["band"] == "1.26-1.50"
    one, two = w.army(1), w.army(2)
    assert (one.state, one.infantry) == (two.state, two.infantry)
    assert one.infantry < 100


def test_an_ally_on_the_tile_joins_the_defence_and_goes_to_war(tmp_path: Path) -> None:
    """Tully, allied to Stark (and not to Lannister), stands with Stark's 100: Lannister's 150
    face 200, and Tully is at war with Lannister from then on."""
    w = _field(tmp_path, stark=["100 infantry"], tully=["100 infantry"], lannister="150 infantry",
               tully_status=RelationStatus.ALLIED)
    with w.session() as session:  # Tully and Lannister are at war in the demo; make it peace
        lannister, tully = w.claim("House Lannister").id, w.claim("House Tully").id
        set_relation(session, w.ctx, lannister or 0, tully or 0, RelationStatus.NEUTRAL)
    _attack(w, 1, 3)
    battle = w.events("battle")[0]
    assert battle.data_json["strengths"] == ["150", "200"]
    assert w.army(1).infantry == w.army(2).infantry
    with w.session() as session:
        wars = {(r.claim_a, r.claim_b) for r in session.exec(select(Relation)).all()
                if r.status == RelationStatus.WAR}
    assert tuple(sorted((lannister or 0, tully or 0))) in wars


def test_the_battle_post_names_every_claim_of_a_side(tmp_path: Path) -> None:
    """Found by hand: Tully's army fought beside Stark's, yet the post's title, its table and
    the public log named House Stark alone, as if Tully's 100 were Stark's. Every claim whose
    army fought on a side is named on it (and the side that wins "win")."""
    w = _field(tmp_path, stark=["100 infantry"], tully=["100 infantry"], lannister="50 infantry",
               tully_status=RelationStatus.ALLIED)
    _attack(w, 1, 3)
    post = next(p for p in w.posts() if p.title.startswith("[Battle]"))
    sides = "House Stark and House Tully"
    assert post.title == f"[Battle] House Lannister vs {sides} at 1320", post.title
    assert f"| House Lannister (attacker) | {sides} (defender) |" in post.body, post.body
    assert f"**{sides} win** (" in post.body, post.body
    battle = w.events("battle")[0]
    assert battle.summary == f"House Lannister vs {sides} at 1320: {sides} win", battle.summary


def test_an_army_allied_to_both_sides_stays_out(tmp_path: Path) -> None:
    """Tully, allied to both Stark and Lannister, does not fight: 150 against Stark's 100."""
    w = _field(tmp_path, stark=["100 infantry"], tully=["100 infantry"], lannister="150 infantry",
               tully_status=RelationStatus.ALLIED)
    _relate(w, "House Lannister", "House Tully", RelationStatus.ALLIED)
    _attack(w, 1, 3)
    battle = w.events("battle")[0]
    assert battle.data_json["strengths"] == ["150", "100"]
    assert (w.army(2).state, w.army(2).infantry) == ("standing", 100)


def test_odds_count_the_sides_the_battle_would_count(tmp_path: Path) -> None:
    """`odds` asked before the attack shows 150 against 200 (both Stark armies), names the
    other army, and the battle fought is the battle shown (the same strengths)."""
    w = _field(tmp_path, stark=["100 infantry", "100 infantry"], lannister="150 infantry")
    reply = w.say("tywin_lannister", "odds army 3 vs army 1", at=day(2, 13))
    assert "strength 150 against 200" in reply, reply
    assert "the defender's side" in reply and "army 2" in reply
    _attack(w, 1, 3)
    assert w.events("battle")[0].data_json["strengths"] == ["150", "200"]


# --- the garrison of a holdfast -----------------------------------------------------------


def _before_winterfell(tmp_path: Path, *, at_home: int, lannister: str) -> World:
    """House Stark has ``at_home`` infantry at home in Winterfell; Lannister's army 1
    (``lannister``, mustered on day 1) stands on Winterfell on day 2 at 12:00."""
    w = World(tmp_path, claims=roster("stark", "lannister",
                                      stark={"infantry": at_home, "cavalry": 0}))
    w.say("tywin_lannister", f"muster {lannister}")
    w.run(day(2, 12))
    w.place(1, "Winterfell")
    return w

def test_the_siege_length_counts_the_troops_mustering_inside(tmp_path: Path) -> None:
    """Stark has 250 infantry, 200 of them mustering in Winterfell: the garrison is 250
    (101-300: 11 months), not the 50 at home (12 months). The assault counts the same 250."""
    w = _before_winterfell(tmp_path, at_home=250, lannister="400 infantry")
    w.say("ned_stark", "muster 200 infantry", at=day(2, 13))
    assert w.claim("House Stark").infantry == 50
    reply = w.say("tywin_lannister", "siege Winterfell with army 1", at=day(2, 13))
    assert "**11** in-game months" in reply, reply
    assert w.siege().months_required == 11


def test_odds_count_an_ally_on_the_tile(tmp_path: Path) -> None:
    """Tully allied to Stark (not to Lannister) stands with Stark's 100: odds say 150 against
    200 and name Tully's army."""
    w = _field(tmp_path, stark=["100 infantry"], tully=["100 infantry"], lannister="150 infantry",
               tully_status=RelationStatus.ALLIED)
    reply = w.say("tywin_lannister", "odds army 3 vs army 1", at=day(2, 13))
    assert "strength 150 against 200" in reply and "army 2" in reply, reply


# --- holdfasts change hands -----------------------------------------------------------------

def _notes_to(w: World, player: str) -> str:
    return "\n".join(f"{n.title}: {n.body}" for n in w.outbox(public=False, target=player))


def test_a_fallen_seat_changes_hands_and_its_old_holder_cannot_muster(tmp_path: Path) -> None:
    """Lannister storms Winterfell (Stark's seat, 120 at home): Winterfell is Lannister's now.
    Stark has no seat: its muster is refused, its status says so and no longer shows
    Winterfell's secret defences, which Lannister's status now shows; Lannister cannot besiege
    its own conquest; both are told privately and the moderators get a referral."""
    w = _before_winterfell(tmp_path, at_home=120, lannister="2000 infantry 500 cavalry")
    w.say("tywin_lannister", "assault Winterfell with army 1", at=day(2, 13))
    w.run(day(2, 18))
    assert w.events("holdfast_falls")
    refused = w.say("ned_stark", "muster 10 infantry", at=day(2, 19))
    assert "no seat" in refused and w.army(1).claim_id != w.claim("House Stark").id
    status = w.say("ned_stark", "status", at=day(2, 19))
    assert "No seat" in status and "x2.6" not in status
    theirs = w.say("tywin_lannister", "status", at=day(2, 19))
    assert "Also holds Winterfell (defenses x2.6, secret)" in theirs
    again = w.say("tywin_lannister", "siege Winterfell with army 1", at=day(2, 19))
    assert "Winterfell is your own holdfast" in again
    assert "no seat" in _notes_to(w, "ned_stark")
    assert "Winterfell is yours" in _notes_to(w, "tywin_lannister")
    assert any("has no seat" in e.summary for e in w.events("referral"))


def test_a_seatless_claims_status_keeps_no_home_at_the_fallen_seat(tmp_path: Path) -> None:
    """Found by hand: after its seat fell, a claim's status said its troops were "At home in
    Winterfell", which the enemy now holds, and listed its scattered troops as "0 infantry, 0
    cavalry" once none were left (they were captured with the seat)."""
    w = _before_winterfell(tmp_path, at_home=120, lannister="2000 infantry 500 cavalry")
    with w.session() as session:  # Stark's 120 scattered last month, locked till the year's end
        stark = session.exec(select(Claim).where(Claim.name == "House Stark")).one()
        stark.scattered_until, stark.scattered_infantry = day(9, 0), 120
        session.add(stark)
    before = w.say("ned_stark", "status", at=day(2, 13))
    assert "At home in Winterfell: 120 infantry" in before
    assert "): 120 infantry, 0 cavalry" in before  # the scattered line, while any are left
    w.say("tywin_lannister", "assault Winterfell with army 1", at=day(2, 13))
    w.run(day(2, 18))
    status = w.say("ned_stark", "status", at=day(2, 19))
    assert "At home (no seat): 0 infantry, 0 cavalry" in status and "At home in" not in status
    assert "Scattered" not in status


def test_the_claims_list_shows_a_fallen_seat_and_a_conquest(tmp_path: Path) -> None:
    """Found by hand: after Casterly Rock fell, `maester claims` still gave it as its old
    holder's holdfast, and the conqueror's row did not show it. Stark's row says Winterfell
    fell (no seat); Lannister's shows its seat and its conquest."""
    w = _before_winterfell(tmp_path, at_home=120, lannister="2000 infantry 500 cavalry")
    w.say("tywin_lannister", "assault Winterfell with army 1", at=day(2, 13))
    w.run(day(2, 18))
    with w.session() as session:
        rows = {r.name: r.holdfast for r in queries.claims(session, w.ctx, day(2, 19))}
    assert rows["House Stark"] == "Winterfell (fallen: no seat)", rows
    assert rows["House Lannister"] == "Casterly Rock + Winterfell", rows


def _at_barrowton(tmp_path: Path) -> World:
    """Stark's army 1 (100 infantry) stands on Barrowton, nobody's seat, on day 2 at 12:00."""
    w = World(tmp_path, claims=roster("stark", "lannister"))
    w.say("ned_stark", "muster 100 infantry")
    w.run(day(2, 12))
    w.place(1, "Barrowton")
    return w


def test_a_holdfast_nobody_holds_falls_without_a_war(tmp_path: Path) -> None:
    """Barrowton is nobody's seat and its map row gives no garrison: Stark besieges it without
    a war (none is declared). Ordered at 13:00, the siege begins at 18:00 (the tick at or after
    the order) and Barrowton is Stark's at the first tick after that, 00:00."""
    w = _at_barrowton(tmp_path)
    reply = w.say("ned_stark", "siege Barrowton with army 1", at=day(2, 13))
    assert "nobody holds or garrisons" in reply, reply
    # found by hand: the receipt said "at the next tick" (18:00); it states the true time
    assert f"it falls to you at {w.ctx.when(day(3, 0))}" in reply, reply
    assert not [e for e in w.events("relation")]
    w.run(day(2, 18))
    assert not w.events("holdfast_falls")
    w.run(day(3, 0))
    assert w.siege().status == "fallen"
    # found by hand: the post said "Its garrison is captured" of a holdfast nobody garrisoned
    [fell] = [p.body for p in w.posts() if p.title.endswith("Holdfast falls: Barrowton")]
    assert "**Barrowton**, which nobody held, has fallen to House Stark, taken without a " \
        "fight. The gold" in fell, fell
    assert "garrison" not in fell
    status = w.say("ned_stark", "status", at=day(3, 1))
    assert "Also holds Barrowton (defenses x1.5, secret)" in status
    assert "Barrowton is yours" in _notes_to(w, "ned_stark")


def test_a_siege_post_says_who_holds_the_holdfast_not_whose_seat_it_is(tmp_path: Path) -> None:
    """Found by hand: the siege post called every besieged holdfast its holder's seat, and a
    holdfast nobody held the seat of "nobody (its neutral garrison)". Barrowton, nobody's, is
    besieged as one that no claim holds; once it fell to Stark (not Stark's seat), Lannister's
    siege of it says it is held by House Stark."""
    w = World(tmp_path, claims=roster("stark", "lannister"))
    w.say("ned_stark", "muster 100 infantry")
    w.say("tywin_lannister", "muster 300 infantry")
    w.run(day(2, 12))
    w.place(1, "Barrowton")
    w.say("ned_stark", "siege Barrowton with army 1", at=day(2, 13))
    w.run(day(3, 0))
    with w.session() as session:
        remove_army(session, w.ctx, 1, reason="a ruling", actor="mod_jane", now=day(3, 1))
    w.place(2, "Barrowton")
    reply = w.say("tywin_lannister", "siege Barrowton with army 2", at=day(3, 2))
    assert "besieges Barrowton" in reply, reply
    begun = [p.body for p in w.posts() if p.title.endswith("Siege begins: Barrowton")]
    assert "laid siege to **Barrowton**, which no claim holds, on" in begun[0], begun[0]
    assert "laid siege to **Barrowton**, held by House Stark, on" in begun[1], begun[1]


def test_assault_on_a_holdfast_nobody_holds_points_to_a_siege(tmp_path: Path) -> None:
    """The refusal's example is another order, never the refused one."""
    w = _at_barrowton(tmp_path)
    reply = w.say("ned_stark", "assault Barrowton with army 1", at=day(2, 13))
    assert "siege Barrowton with army 1" in reply and "`assault Barrowton" not in reply


def test_the_attacked_side_sees_the_odds_of_the_battle_it_faces(tmp_path: Path) -> None:
    """Lannister attacks Stark's army 1 (with army 2 beside it): Stark's note says how to ask,
    and `odds army 1 vs army 3` from Stark shows that battle, Lannister the attacker, 150
    against Stark's 200, with Stark's own chance to win."""
    w = _field(tmp_path, stark=["100 infantry", "100 infantry"], lannister="150 infantry")
    w.say("tywin_lannister", "attack army 1 with army 3", at=day(2, 13))
    assert "`odds army 1 vs army 3`" in _notes_to(w, "ned_stark")
    reply = w.say("ned_stark", "odds army 1 vs army 3", at=day(2, 14))
    assert "The battle of army 3 (the attacker) against army 1" in reply, reply
    assert "strength 150 against 200" in reply
    # found by hand: which strength is whose, when the asker's side is the second one
    assert "band 1.26-1.50 (their side's strength first)" in reply, reply
    mine = w.say("tywin_lannister", "odds army 3 vs army 1", at=day(2, 14))
    assert "band 1.26-1.50 (your side's strength first)" in mine, mine
    chances = [float(next(line for line in text.splitlines()
                          if "for your side to win" in line).split("**")[1].rstrip("%"))
               for text in (reply, mine)]
    assert round(sum(chances), 1) == 100.0  # each side sees its own chance of one battle


# --- every change to a claim's armies reaches that claim ---------------------------------------

def test_an_army_captured_in_an_assault_is_told_to_its_claim(tmp_path: Path) -> None:
    """20 cavalry assault Winterfell, held by 250 mustering inside: the attackers are captured
    and Lannister is told privately, with the battle's number."""
    w = _before_winterfell(tmp_path, at_home=250, lannister="20 cavalry")
    w.say("ned_stark", "muster 250 infantry", at=day(2, 13))
    w.say("tywin_lannister", "assault Winterfell with army 1", at=day(2, 13))
    w.run(day(2, 18))
    assert w.army(1).state == "gone"
    assert "Army 1 is no more: its troops were captured in battle" in _notes_to(
        w, "tywin_lannister")


def test_a_sally_that_cannot_happen_is_told_to_both_claims(tmp_path: Path) -> None:
    """Stark orders a sally from besieged Winterfell; the moderators remove the besiegers
    (the siege ends) before it is fought: the sally does not happen and both claims are
    told."""
    w = _before_winterfell(tmp_path, at_home=250, lannister="400 infantry")
    w.say("tywin_lannister", "siege Winterfell with army 1", at=day(2, 13))
    w.run(day(2, 18))
    reply = w.say("ned_stark", "sally from Winterfell", at=day(2, 19))
    assert "sally" in reply.lower()
    with w.session() as session:
        remove_army(session, w.ctx, 1, reason="a ruling", actor="mod_jane", now=day(2, 20))
    w.run(day(3, 6))
    for player in ("ned_stark", "tywin_lannister"):
        assert "does not happen" in _notes_to(w, player), player


def test_a_garrison_that_sallied_is_told_what_it_cost(tmp_path: Path) -> None:
    """Found by hand: Targaryen's whole garrison sallied and lost half its troops at home, yet
    only the besieger heard of the battle privately (troops at home are no army, so no army's
    note went to Targaryen). The garrison's claim is told how it went and what it lost."""
    w = _before_winterfell(tmp_path, at_home=250, lannister="400 infantry")
    w.say("tywin_lannister", "siege Winterfell with army 1", at=day(2, 13))
    w.run(day(2, 18))
    w.say("ned_stark", "sally from Winterfell", at=day(2, 19))
    w.run(day(3, 0))
    [battle] = w.events("battle")
    stark = w.claim("House Stark")
    [note] = [o.body for o in w.outbox(target="ned_stark")
              if o.title == f"Battle {battle.data_json['battle']} at Winterfell: your garrison"]
    lost = 250 - stark.infantry
    assert f"The sally from Winterfell is {'won' if 'Stark wins' in battle.summary else 'lost'}" \
        in note, note
    assert f"your garrison lost {lost} infantry" in note and "`status`" in note, note


def test_a_disbanded_armys_commander_goes_home_with_it(tmp_path: Path) -> None:
    """Robb commands army 1; disbanded at Winterfell, the army is gone and Robb is at home
    (no army), so `characters` no longer lists a gone army's number."""
    w = World(tmp_path, claims=roster("stark", "lannister"))
    w.say("ned_stark", "muster 100 infantry")
    w.run(day(2, 12))
    reply = w.say("ned_stark", "assign Robb Stark to army 1", at=day(2, 13))
    assert w.character("Robb Stark").army_id == 1, reply
    reply = w.say("ned_stark", "disband army 1", at=day(2, 14))
    assert w.army(1).state == "gone", reply
    assert w.character("Robb Stark").army_id is None


def test_an_order_stamped_exactly_on_a_tick_starts_at_that_tick(tmp_path: Path) -> None:
    """The 12:00 tick has run; a muster accepted at exactly 12:00 starts at 12:00 and is ready
    24 hours later, at 12:00 the next day (not 18:00, six hours late)."""
    w = World(tmp_path, claims=roster("stark", "lannister"))
    w.run(day(2, 12))
    reply = w.say("ned_stark", "muster 10 infantry", at=day(2, 12))
    assert w.ctx.when(day(3, 12)) in reply and w.ctx.when(day(3, 18)) not in reply, reply
    w.run(day(3, 12))
    assert w.army(1).state == "standing"


def test_a_march_ordered_exactly_on_a_tick_is_not_offered_a_cancel(tmp_path: Path) -> None:
    """Found by hand: a march ordered exactly at 12:00 (the 12:00 tick run) departs at 12:00,
    yet its receipt said "You may cancel army 1 until it departs", and a cancel is refused.
    The receipt says it sets off at once and that `stand` halts it; a later order still gets
    the offer."""
    w = World(tmp_path, claims=roster("stark", "lannister"))
    w.say("ned_stark", "muster 10 infantry")
    w.run(day(2, 12))
    w.place(1, "1319")
    reply = w.say("ned_stark", "move army 1: 1320 (cost 1)", at=day(2, 12))
    assert f"Departs: {w.ctx.when(day(2, 12))}" in reply, reply
    assert "until it departs" not in reply and "`stand army 1` halts it" in reply, reply
    assert "**Not done:**" in w.say("ned_stark", "cancel army 1", at=day(2, 12))
    halted = w.say("ned_stark", "stand army 1", at=day(2, 13))
    assert "**Not done:**" not in halted, halted
    later = w.say("ned_stark", "move army 1: 1320 (cost 1)", at=day(2, 14))
    assert "You may `cancel army 1` until it departs." in later, later


# --- three hostile claims, meetings on the march, whatever the armies' numbers ---------------


def test_three_hostile_claims_fight_the_strongest_pair_of_sides_first(tmp_path: Path) -> None:
    """Stark (100), Tully (150) and Lannister's two armies of 50, all three claims at war with
    each other, stand on field 1320: Lannister meets Stark (battle 1) and Tully (battle 2) on
    the same tick. Tully against Lannister (250 in all) is fought first, though numbered
    second; what is left of Lannister's side then meets Stark's 100."""
    w = World(tmp_path, claims=roster("stark", "lannister", "tully"))
    w.say("ned_stark", "muster 100 infantry")
    w.say("hoster_tully", "muster 150 infantry")
    w.say("tywin_lannister", "muster 50 infantry\nmuster 50 infantry")
    _relate(w, "House Stark", "House Tully", RelationStatus.WAR)
    w.run(day(2, 12))
    for army in (1, 2, 3, 4):
        w.place(army, "1320")
    w.run(day(3, 0))
    met = w.events("encounter")
    assert len([e for e in met if e.tick == met[0].tick]) == 2  # two battles begun at once
    fought = w.events("battle")
    assert fought[0].tick == fought[1].tick == met[0].tick + 1
    first, second = fought[0].data_json, fought[1].data_json
    assert (first["battle"], first["strengths"]) == (2, ["150", "100"])
    assert second["battle"] == 1
    lannister_left = second["strengths"][0]  # Lannister attacked Stark in battle 1
    assert second["strengths"][1] == "100" and float(lannister_left) < 100


def _converging(tmp_path: Path, *, stark_first: bool) -> tuple[World, int, int]:
    """Stark's and Lannister's 1500 infantry cross the forest 1913 from either side on the
    same ticks; ``stark_first``: Stark musters first (so its army is army 1)."""
    w = World(tmp_path, claims=roster("stark", "lannister"))
    order = ("ned_stark", "tywin_lannister") if stark_first else ("tywin_lannister",
                                                                  "ned_stark")
    for who in order:
        w.say(who, "muster 1500 infantry")
    w.run(day(2, 12))
    stark, lannister = (1, 2) if stark_first else (2, 1)
    w.place(stark, "1912")
    w.place(lannister, "1914")
    w.say("ned_stark", f"move army {stark}: 1913 > 1914 (cost 3)", at=day(2, 13))
    w.say("tywin_lannister", f"move army {lannister}: 1913 > 1912 (cost 3)", at=day(2, 13))
    w.run(day(3, 12))
    return w, stark, lannister


def test_armies_meeting_on_the_march_meet_whatever_their_numbers(tmp_path: Path) -> None:
    """The issue's case through the order language: two hostile armies whose marches cross
    the same tile at the same times meet there whichever of them has the lower number (they
    once met or passed each other by their numbers); neither has the first reaction, so
    neither may retreat, and the battle comes at the next tick."""
    seen = []
    for stark_first in (True, False):
        (tmp_path / str(stark_first)).mkdir()
        w, stark, lannister = _converging(tmp_path / str(stark_first), stark_first=stark_first)
        assert (w.army(stark).tile, w.army(stark).state) == ("1913", "standing")
        assert (w.army(lannister).tile, w.army(lannister).state) == ("1913", "standing")
        [met] = w.events("encounter")
        assert met.data_json["reactor"] is None
        for who, army in (("ned_stark", stark), ("tywin_lannister", lannister)):
            reply = w.say(who, f"retreat army {army}", at=day(3, 13))
            assert "**Not done:**" in reply and "first reaction" in reply, reply
        w.run(day(3, 18))
        [battle] = w.events("battle")
        seen.append((battle.tick, battle.data_json["strengths"] if stark_first
                     else battle.data_json["strengths"][::-1]))
    assert seen[0][0] == seen[1][0]  # fought on the same tick either way


def test_an_army_marching_onto_a_standing_enemy_gives_it_the_first_reaction(
        tmp_path: Path) -> None:
    """Stark's army 1 marches onto 1320 where Lannister's army 2 stands: the battle is Stark's
    doing, so Lannister has the first reaction (its note says so and how to see the odds);
    Stark's retreat is refused, Lannister's is taken."""
    w = World(tmp_path, claims=roster("stark", "lannister"))
    w.say("ned_stark", "muster 300 infantry")
    w.say("tywin_lannister", "muster 300 infantry")
    w.run(day(2, 12))
    w.place(1, "1319")
    w.place(2, "1320")
    w.say("ned_stark", "move army 1: 1320 (cost 1)", at=day(2, 13))
    w.run(day(3, 0))
    [met] = w.events("encounter")
    assert (met.data_json["attacker"], met.data_json["defender"]) == (1, 2)
    assert met.data_json["reactor"] == w.claim("House Lannister").id
    [note] = [o.body for o in w.outbox(target="tywin_lannister") if "Battle looms" in o.title]
    assert "You have the first reaction" in note and "odds army 2 vs army 1" in note
    refused = w.say("ned_stark", "retreat army 1", at=day(3, 1))
    assert "**Not done:**" in refused and "first reaction" in refused
    taken = w.say("tywin_lannister", "retreat army 2: 1321", at=day(3, 1))
    assert "**Not done:**" not in taken, taken


def test_the_realm_names_every_claim_of_a_side_among_the_months_battles(
        tmp_path: Path) -> None:
    """Found by hand: the [Realm] post's "Battles last month" (and the realm page) named only
    the battle's two claims when an ally fought on a side; the public situation names all."""
    w = _field(tmp_path, stark=["100 infantry"], tully=["100 infantry"], lannister="50 infantry",
               tully_status=RelationStatus.ALLIED)
    _attack(w, 1, 3)
    with w.session() as session:
        situation = load_situation(session, w.ctx)
    assert [(b.attacker, b.defender) for b in situation.battles] == [
        ("House Lannister", "House Stark and House Tully")], situation.battles
    assert "House Lannister vs House Stark and House Tully at 1320" in realm_post(
        situation, w.ctx.world, "Month 5", 9)


def _looming(tmp_path: Path) -> World:
    """Lannister's army 3 marches onto 1320, where Stark's army 1 stands with Tully's army 2
    (Tully allied to Stark, at peace with Lannister): a battle looms there (day 3, 00:00)."""
    w = _field(tmp_path, stark=["100 infantry"], tully=["100 infantry"], lannister="150 infantry",
               tully_status=RelationStatus.ALLIED)
    with w.session() as session:  # Tully and Lannister are at war in the demo; make it peace
        lannister, tully = w.claim("House Lannister").id, w.claim("House Tully").id
        set_relation(session, w.ctx, lannister or 0, tully or 0, RelationStatus.NEUTRAL)
    w.place(3, "1319")
    w.say("tywin_lannister", "move army 3: 1320 (cost 1)", at=day(2, 13))
    w.run(day(3, 0))
    return w


def test_an_ally_standing_where_a_battle_looms_is_told(tmp_path: Path) -> None:
    """Found by hand: Lannister's army 3 marches onto 1320, where Stark's army 1 stands with
    Tully's army 2 (Tully allied to Stark, at peace with Lannister). Tully's army will fight
    on Stark's side, and its claim goes to war, yet only Stark and Lannister heard that a
    battle loomed. Tully is told too: whose side, against whom, when, and how to stay out."""
    w = _looming(tmp_path)
    assert w.events("encounter")
    [note] = [o.body for o in w.outbox(target="hoster_tully") if "Battle looms" in o.title]
    assert "Your army 2 stands at 1320 with army 1 of House Stark, your ally" in note, note
    assert "army 3 of House Lannister" in note and "on House Stark's side" in note
    assert "march away" in note
    assert not [o for o in w.outbox(target="tywin_lannister")
                if "Battle looms" in o.title and "army 2" in o.body]


def test_a_beaten_army_is_told_it_falls_back_not_that_it_stands(tmp_path: Path) -> None:
    """Found by hand: after a lost battle the army's note said "... left and is standing" while
    the army was in fact turning back the way it came. Stark's 100 march from 1319 onto
    Lannister's 270 at 1320 and lose: Stark's note says army 1 falls back to 1319 and when it
    gets there; the winner's note says it stands."""
    w = World(tmp_path, claims=roster("stark", "lannister"))
    w.say("ned_stark", "muster 100 infantry")
    w.say("tywin_lannister", "muster 270 infantry")
    w.run(day(2, 12))
    w.place(1, "1319")
    w.place(2, "1320")
    w.say("ned_stark", "move army 1: 1320 (cost 1)", at=day(2, 13))
    w.run(day(3, 6))
    [battle] = w.events("battle")
    assert battle.summary.endswith("House Lannister wins"), battle.summary
    assert w.army(1).state == "retreating"
    [note] = [o.body for o in w.outbox(target="ned_stark") if o.title.startswith("Battle 1 at")]
    assert "and falls back the way it came, to 1319, arriving" in note, note
    assert "is standing" not in note
    [theirs] = [o.body for o in w.outbox(target="tywin_lannister")
                if o.title.startswith("Battle 1 at")]
    assert "left and is standing" in theirs, theirs


def test_a_beaten_army_with_no_way_back_is_told_it_stays_and_fights_again(
        tmp_path: Path) -> None:
    """Found by hand: an army beaten where it had not marched to (Lannister's, at the end of a
    retreat) stayed and was attacked again every tick, its note saying only "is standing" and
    its orders refused until "after the battle". Stark's 100, attacked where they stand by
    Lannister's 270 and beaten, are told they stay and meet the enemy again (they do)."""
    w = _field(tmp_path, stark=["100 infantry"], lannister="270 infantry")
    _attack(w, 1, 2)
    battle = w.events("battle")[0]
    assert battle.summary.endswith("House Lannister wins"), battle.summary
    [note] = [o.body for o in w.outbox(target="ned_stark") if o.title.startswith("Battle 1 at")]
    assert "left and stays at 1320: it has no path to fall back along, so it meets the " \
        "enemy again" in note, note
    assert any("Battle looms at 1320" in o.title for o in w.outbox(target="ned_stark"))
    [theirs] = [o.body for o in w.outbox(target="tywin_lannister")
                if o.title.startswith("Battle 1 at")]
    assert "left and is standing" in theirs, theirs  # the winner simply stands


def test_a_crushing_win_captures_every_army_of_the_losing_side(tmp_path: Path) -> None:
    """Lannister's 1000 attack Stark's two armies of 100 on one field: above 4.00 to 1 the
    battle is won without dice (margin 22+), and both Stark armies are captured, not only the
    one attacked; Stark is told of each privately."""
    w = _field(tmp_path, stark=["100 infantry", "100 infantry"], lannister="1000 infantry")
    _attack(w, 1, 3)
    battle = w.events("battle")[0]
    assert battle.data_json["strengths"] == ["1000", "200"]
    for army in (1, 2):
        assert w.army(army).state == "gone"
        assert "captured" in str(w.army(army).meta_json.get("fate")), w.army(army).meta_json
    told = [o.body for o in w.outbox(target="ned_stark") if o.title.startswith("Battle 1 ")]
    assert sorted(told) == [f"After the battle at 1320: Army {n} is no more: its troops were "
                            "captured in battle. The public post gives the battle in full."
                            for n in (1, 2)]
    assert (w.army(3).state, w.army(3).infantry) == ("standing", 1000)


def _with_garrison(holdfast: str, garrison: int) -> str:
    """The demo map with a ``garrison`` column giving ``holdfast`` a neutral garrison."""
    rows = []
    for line in demo_map_text().splitlines():
        if not line or line.startswith("#"):
            rows.append(line)
            continue
        cells = next(csv.reader([line]))
        cells.append("garrison" if cells[0] == "id" else
                     str(garrison) if cells[1] == holdfast else "")
        out = io.StringIO()
        csv.writer(out, lineterminator="").writerow(cells)
        rows.append(out.getvalue())
    return "\n".join(rows) + "\n"


def test_a_holdfast_nobody_holds_with_a_neutral_garrison_takes_the_siege_chart(
        tmp_path: Path) -> None:
    """The map gives Barrowton (nobody's seat) a neutral garrison of 250: Stark besieges it
    without a war, for the chart's 11 months (101-300 troops), and it does not fall at the
    first tick as an ungarrisoned one would."""
    w = World(tmp_path, claims=roster("stark", "lannister"),
              map_text=_with_garrison("Barrowton", 250))
    w.say("ned_stark", "muster 100 infantry")
    w.run(day(2, 12))
    w.place(1, "Barrowton")
    reply = w.say("ned_stark", "siege Barrowton with army 1", at=day(2, 13))
    assert "**11** in-game months" in reply, reply
    assert not w.events("relation")
    w.run(day(3, 6))
    assert (w.siege().status, w.siege().months_required) == ("active", 11)
    assert not w.events("holdfast_falls")


def test_the_conqueror_musters_at_its_own_seat_not_at_its_conquest(tmp_path: Path) -> None:
    """Lannister takes Winterfell by assault: its next muster is raised at Casterly Rock, its
    seat; a conquest is no seat until the moderators make it one."""
    w = _before_winterfell(tmp_path, at_home=120, lannister="2000 infantry 500 cavalry")
    w.say("tywin_lannister", "assault Winterfell with army 1", at=day(2, 13))
    w.run(day(2, 18))
    assert w.events("holdfast_falls")
    reply = w.say("tywin_lannister", "muster 10 infantry", at=day(2, 19))
    assert "Casterly Rock" in reply and "Winterfell" not in reply, reply
    w.run(day(3, 12))
    assert w.army(2).tile == w.claim("House Lannister").holdfast


def test_the_war_room_lists_a_battle_an_allys_army_would_be_drawn_into(tmp_path: Path) -> None:
    """Found by hand: Tully's war room said "No battle pending" while its army 2 stood where
    Lannister's march met Stark's army 1, and would fight on Stark's side. It lists the
    battle, says which army of Tully's would fight beside whom, and its odds count that army
    (as the tick and the `odds` order do: Lannister's 150 against Stark's and Tully's 200)."""
    from bot.web import data
    from bot.web.pages import html

    w = _looming(tmp_path)
    stark, tully = w.claim("House Stark").id or 0, w.claim("House Tully").id or 0
    with w.session() as session:
        room = data.war_room(session, w.ctx, tully)
        tully_room, page = room.data, html(room)
        stark_room = data.war_room(session, w.ctx, stark).data
    assert "Your army 2</strong> would fight beside House Stark if still there" in page
    [battle] = tully_room["battles"]
    assert (battle["attacker"], battle["defender"]) == ("House Lannister", "House Stark")
    assert (battle["joins"], battle["joining_armies"]) == ("defender", [2])
    [own] = stark_room["battles"]
    assert own["joins"] == "" and own["attacker_wins"] == battle["attacker_wins"]
    w.place(2, "1319")  # Tully's army gone from the tile: the attacker's chance is higher
    with w.session() as session:
        alone = data.war_room(session, w.ctx, stark).data
        assert not data.war_room(session, w.ctx, tully).data["battles"]
    assert float(alone["battles"][0]["attacker_wins"]) > float(own["attacker_wins"])
