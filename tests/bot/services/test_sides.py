"""Battles between sides, played through the order language and ticks (docs/rules.md
"Battles between sides"): every army on the tile that joins a claim's side fights on it."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

from sqlmodel import select

from bot.db.models import Relation
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
    assert "their side" in reply and "army 2" in reply
    _attack(w, 1, 3)
    assert w.events("battle")[0].data_json["strengths"] == ["150", "200"]


# --- the garrison of a holdfast -----------------------------------------------------------

def test_the_siege_length_counts_the_troops_mustering_inside(tmp_path: Path) -> None:
    """Stark has 250 infantry, 200 of them mustering in Winterfell: the garrison is 250
    (101-300: 11 months), not the 50 at home (12 months). The assault counts the same 250."""
    w = World(tmp_path, claims=roster("stark", "lannister",
                                      stark={"infantry": 250, "cavalry": 0}))
    w.say("tywin_lannister", "muster 400 infantry")
    w.run(day(2, 12))
    w.place(1, "Winterfell")
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
