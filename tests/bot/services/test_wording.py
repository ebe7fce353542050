"""Consistent wording through the order language: fleets are
fleets everywhere, the bare number names an army, path and tile errors say "Did you mean ...?",
catalogue names work in the singular, an assault can be called off (an attack says why not),
and every order a reply suggests is read and accepted in the situation it was suggested in."""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from pathlib import Path

from sqlmodel import Session, select

from bot.db.models import PendingBattle
from bot.messages import handle_message
from rules.campaign.language import OrderSyntaxError, parse_order
from rules.campaign.world import BattleStatus
from tests.bot.catalogue_world import START, World, roster

NOT_DONE = "**Not done:**"
_TICKED = re.compile(r"`([^`\n]+)`")
_PLACEHOLDER = re.compile(r"\b(?:TILE|N|NAME|HOLDFAST|CLAIM|ORDER)\b")


def day(n: int, hour: int = 0) -> datetime:
    """``n`` days after the campaign's first day, at ``hour`` UTC."""
    return START.replace(hour=0, minute=0) + timedelta(days=n - 1, hours=hour)


def _try(w: World, who: str, text: str, at: datetime) -> str:
    """The reply ``text`` would get now, with nothing kept (the transaction is rolled back)."""
    with Session(w.engine, expire_on_commit=False) as session, session.begin() as tx:
        reply = handle_message(session, w.ctx, author=who, text=text, now=at, ref="try")
        tx.rollback()
    return reply


def suggested_orders(reply: str) -> list[str]:
    """Every order a reply suggests in backticks (templates with TILE, N... left aside)."""
    found = []
    body = reply.rsplit("\n\n*maester", 1)[0]  # the footer's `help` is always accepted
    for snippet in _TICKED.findall(body):
        if _PLACEHOLDER.search(snippet):
            continue
        try:
            parse_order(snippet)
        except OrderSyntaxError:
            continue  # not an order (a word like `cancel` named in a sentence)
        found.append(snippet)
    return found


def assert_suggestions_work(w: World, who: str, reply: str, at: datetime) -> list[str]:
    """Each order ``reply`` suggests is read and accepted for ``who`` at ``at``."""
    orders = suggested_orders(reply)
    for order in orders:
        answer = _try(w, who, order, at)
        assert NOT_DONE not in answer, (reply, order, answer)
    return orders


def say(w: World, who: str, text: str, at: datetime) -> str:
    """Send ``text`` and check the orders its reply suggests."""
    reply = w.say(who, text, at=at)
    assert_suggestions_work(w, who, reply, at)
    return reply


def test_a_fleet_is_a_fleet_in_receipts_status_errors_and_notes(tmp_path: Path) -> None:
    """A fleet sails: its muster and move receipts, its status line, the refusals about it and
    the note that it is ready all call it a fleet, never an army that marches."""
    w = World(tmp_path, claims=roster("greyjoy", "stark"))
    reply = say(w, "balon_greyjoy", "muster 4 ships", day(1, 8))
    assert "**Fleet 1** (4 ships) is mustering at Pyke" in reply
    assert "order it to sail, e.g. `move fleet 1: 0030 (cost 1)`" in reply
    help_move = w.say("balon_greyjoy", "help move", at=day(1, 9))
    sail = help_move.split("A fleet sails with the same order:\n\n    ", 1)[1].split("\n")[0]
    assert sail.startswith("move fleet 1: ")
    assert "**Fleet 1** (4 ships) will sail from Pyke" in _try(w, "balon_greyjoy", sail,
                                                                day(1, 9))
    w.run(day(2, 12))
    notes = [m for m in w.outbox(public=False) if "is ready" in (m.title or "")]
    assert [m.title for m in notes] == ["Fleet 1 is ready"]
    assert "Fleet 1 (4 ships) has mustered at Pyke and is standing" in notes[0].body
    sea = w.ctx.world.water_adjacent(w.ctx.world.tile("Pyke").id)[0]
    for order in (f"move fleet 1: {sea} (cost 1)", f"move 1: {sea} (cost 1)",
                  f"sail 1: Pyke > {sea} (cost 1)"):
        reply = _try(w, "balon_greyjoy", order, day(2, 13))
        assert "**Fleet 1** (4 ships) will sail from Pyke" in reply, order
        assert "You may `cancel fleet 1` until it departs." in reply
    say(w, "balon_greyjoy", f"move fleet 1: {sea} (cost 1)", day(2, 13))
    status = say(w, "balon_greyjoy", "status", day(2, 13))
    # found by hand: it said "sailing at Pyke, sailing to ..." (the state twice)
    assert f"- Fleet 1: 4 ships, at Pyke, sailing to {sea}" in status
    refused = say(w, "balon_greyjoy", "disband fleet 1", day(2, 13))
    assert "fleet 1 must stand at Pyke to disband" in refused
    cancelled = say(w, "balon_greyjoy", "cancel 1", day(2, 13))
    assert "The voyage of fleet 1 is cancelled; it stays at Pyke." in cancelled
    route = say(w, "balon_greyjoy", f"route 1 to {sea}", day(2, 13))
    assert "To sail, send:" in route and f"move fleet 1: {sea} (cost 1)" in route
    halt = say(w, "balon_greyjoy", "stand 1", day(2, 13))
    assert "fleet 1 is not sailing and not facing a battle" in halt
    for reply in (status, refused, cancelled, route, halt):
        assert not re.search(r"\b[Aa]rmy 1\b", reply), reply
        assert "march" not in reply, reply


def test_the_bare_number_names_the_army_in_every_single_army_order(tmp_path: Path) -> None:
    """`move 1: ...`, `march 1: ...`, `stand 1`, `retreat 1`, `cancel 1`, `disband 1`... are
    read as orders for army 1 and answered by the order itself, as docs/orders.md promises."""
    w = World(tmp_path, claims=roster("stark", "lannister"))
    w.say("ned_stark", "muster 300 infantry", at=day(1, 8))
    w.run(day(2, 12))
    for order in ("move 1: Winterfell > 1316 (cost 1)", "march 1: 1316 (cost 1)",
                  "move 1 Winterfell > 1316 (cost 1)"):
        assert "**Army 1** (300 infantry) will march from Winterfell to 1316" in _try(
            w, "ned_stark", order, day(2, 13)), order
    answers = {order: _try(w, "ned_stark", order, day(2, 13)) for order in (
        "stand 1", "retreat 1", "spare 1", "route 1 to 1316", "buy trebuchet for 1")}
    assert "army 1 is not marching and not facing a battle" in answers["stand 1"]
    assert "army 1 faces no battle to retreat from" in answers["retreat 1"]
    assert "not an enemy army or fleet whose retreat" in answers["spare 1"]
    assert "The cheapest route for army 1" in answers["route 1 to 1316"]
    assert "Army 1 now carries **Trebuchets**" in answers["buy trebuchet for 1"]
    assert "The muster" not in _try(w, "ned_stark", "cancel 1", day(2, 13))
    assert "Army 1 is disbanded" in _try(w, "ned_stark", "disband 1", day(2, 13))
    for reply in answers.values():
        assert "no army was named" not in reply and "could not be read" not in reply


def test_path_and_tile_errors_say_did_you_mean(tmp_path: Path) -> None:
    """A misspelt tile is answered "Did you mean Lannisport?", the step named in words (never
    `path[1]: step 2`), and the example is an order the player can send as it is."""
    w = World(tmp_path, claims=roster("stark", "lannister"))
    w.say("tywin_lannister", "muster 100 infantry", at=day(1, 8))
    w.run(day(2, 12))
    reply = say(w, "tywin_lannister", "move army 1: Casterly Rock > Lannisprt (cost 1)",
                day(2, 13))
    assert ("the 2nd tile of your path, 'Lannisprt', is not on the map. Did you mean "
            "Lannisport?") in reply
    assert "path\\[" not in reply and "path[" not in reply and "step 2" not in reply
    assert "**Example:** `route army 1 to Lannisport`" in reply
    reply = say(w, "tywin_lannister", "route army 1 to Riverun", day(2, 13))
    assert "no tile is called 'Riverun'. Did you mean Riverrun?" in reply
    assert "**Example:** `route army 1 to Riverrun`" in reply and "tile:" not in reply
    far = say(w, "tywin_lannister", "move army 1: Casterly Rock > 0536 > 0436 (cost 2)",
              day(2, 13))
    assert "does not border" in far and "the tile before it" in far


def test_catalogue_names_work_in_the_singular(tmp_path: Path) -> None:
    """`buy trebuchet` buys the catalogue's "Trebuchets"; `build stone wall` builds "Stone
    Walls"."""
    w = World(tmp_path, claims=roster("stark", "lannister"))
    w.say("tywin_lannister", "muster 100 infantry", at=day(1, 8))
    assert "Army 1 now carries **Trebuchets**" in say(w, "tywin_lannister",
                                                      "buy a trebuchet for army 1", day(1, 9))
    assert "Building **Stone Walls** at Casterly Rock" in say(
        w, "tywin_lannister", "build stone wall at Casterly Rock", day(1, 9))


def _battles(w: World) -> list[PendingBattle]:
    with w.session() as session:
        return list(session.exec(select(PendingBattle)).all())


def test_an_assault_can_be_called_off_before_it_is_fought(tmp_path: Path) -> None:
    """`cancel army N` (or `call off the assault of army N`) before the reaction window closes
    calls the assault off: no battle is fought, the holdfast's claim is told, and the receipt
    said so."""
    w = World(tmp_path, claims=roster("stark", "lannister"))
    w.say("tywin_lannister", "muster 500 infantry", at=day(1, 8))
    w.run(day(2, 12))
    w.place(1, "Winterfell")
    receipt = say(w, "tywin_lannister", "assault Winterfell with army 1", day(2, 13))
    assert "You may call it off until then: `cancel army 1`." in receipt
    reply = w.say("tywin_lannister", "call off the assault of army 1", at=day(2, 14))
    assert "The assault of army 1 on Winterfell is called off: there is no battle" in reply
    assert [b.status for b in _battles(w)] == [BattleStatus.CALLED_OFF]
    notes = [m for m in w.outbox(public=False) if "called off" in (m.title or "")]
    assert [m.title for m in notes] == ["The assault on Winterfell is called off"]
    w.run(day(3, 0))
    assert not [p for p in w.posts() if "Winterfell" in (p.title or "")
                and "ssault" in (p.title or "")]
    assert w.army(1).infantry == 500
    again = w.say("tywin_lannister", "cancel army 1", at=day(3, 1))
    assert NOT_DONE in again and "nothing to cancel" in again


def test_an_attack_cannot_be_called_off_and_the_reply_says_why(tmp_path: Path) -> None:
    """An attack puts the claims at war, and hostile armies on one tile always fight: `cancel`
    is refused with that reason, and the order it suggests instead (`odds`) is accepted; the
    attack receipt and the defender's note suggest only orders that are accepted."""
    w = World(tmp_path, claims=roster("stark", "lannister"), wars=[])
    w.say("tywin_lannister", "muster 500 infantry", at=day(1, 8))
    w.say("ned_stark", "muster 300 infantry", at=day(1, 8))
    w.run(day(2, 12))
    w.place(1, "1316")
    w.place(2, "1316")
    receipt = say(w, "tywin_lannister", "attack army 2 with army 1", day(2, 13))
    assert "An attack cannot be called off" in receipt
    refused = say(w, "tywin_lannister", "cancel the attack of army 1", day(2, 14))
    assert "an attack cannot be called off: ordering it put your claims at war" in refused
    assert "**Example:** `odds army 1 vs army 2`" in refused
    assert [b.status for b in _battles(w)] == [BattleStatus.PENDING]
    caught = say(w, "ned_stark", "move army 2: 1317 (cost 1)", day(2, 14))
    assert "army 2 is caught in a battle" in caught
    assert "**Example:** `retreat army 2`" in caught  # the defender may still choose
    caught = say(w, "tywin_lannister", "move army 1: 1317 (cost 1)", day(2, 14))
    assert "army 1 is caught in a battle" in caught and "**Example:** `status`" in caught
    note = next(m for m in w.outbox(public=False) if "is attacked" in (m.title or ""))
    # (and, issue #23, the odds of the battle it faces)
    assert assert_suggestions_work(w, "ned_stark", note.body, day(2, 14)) == [
        "retreat army 2", "stand army 2", "odds army 2 vs army 1"]


def test_replies_suggest_only_orders_that_are_accepted(tmp_path: Path) -> None:
    """Through a short campaign, every order suggested in a reply (receipts, refusals of
    orders that were read, their examples) is read and accepted if sent at once by the same
    player. (A line that cannot be read at all is answered with its order's form and example,
    which shows how the order is written.)"""
    w = World(tmp_path, claims=roster("stark", "lannister"))
    muster = say(w, "ned_stark", "muster 300 infantry", day(1, 8))
    assert "e.g. `move army 1: 1215 (cost 1)`" in muster  # a real first step
    say(w, "ned_stark", "move army 1: Winterfell > 1316 (cost 1)", day(1, 9))
    queued = say(w, "ned_stark", "cancel army 1", day(1, 9))
    assert suggested_orders(queued) == ["cancel army 1"]
    w.run(day(2, 12))
    wrong_cost = say(w, "ned_stark", "move army 1: Winterfell > 1316 > 1317 (cost 5)",
                     day(2, 13))
    assert suggested_orders(wrong_cost) == ["move army 1: 1316 > 1317 (cost 2)"]
    say(w, "ned_stark", "move army 1: 1316 > 1317 > 1318 > 1319 (cost 4)", day(2, 13))
    w.run(day(3, 6))  # on its way
    departed = say(w, "ned_stark", "cancel army 1", day(3, 7))
    assert NOT_DONE in departed and suggested_orders(departed) == ["stand army 1"]
    again = say(w, "ned_stark", "move army 1: 1318 (cost 1)", day(3, 7))
    assert NOT_DONE in again and "stand army 1" in again
    say(w, "ned_stark", "stand army 1", day(3, 7))
    standing = say(w, "ned_stark", "cancel army 1", day(3, 8))
    assert NOT_DONE in standing and "**Example:** `status`" in standing
    w.say("tywin_lannister", "muster 100 infantry", at=day(3, 8))
    for text in ("attack army 9 with army 1", "odds army 1 vs army 9", "siege Pyke with army 1",
                 "disband army 1", "retreat army 1", "stand army 1", "assault Casterly Rock "
                 "with army 1", "route army 1 to Pyke", "route army 1 to Riverun",
                 "move army 2: 1316 (cost 1)", "cancel army 2", "odds army 1 vs army 2",
                 "lift siege of Casterly Rock", "sally from Winterfell", "sally from Riverrun",
                 "intercept army 2 with army 1", "blockade Pyke with fleet 1", "spare army 2",
                 "assign Nobody to army 1", "build Moat at Winterfell", "buy catapult for army 1",
                 "build Stone Walls at Casterly Rock", "cede Riverrun to House Lannister",
                 "muster 99999 infantry", "muster 300", "as House Lannister: status",
                 "move army 1: 1318 > Winterfel (cost 3)", "help siege"):
        say(w, "ned_stark", text, day(3, 8))
    unread = w.say("ned_stark", "siege with army 1", at=day(3, 8))  # the form, with own names
    assert "**Example:** `siege Casterly Rock with army 1`" in unread


def test_a_standing_armys_retreat_and_halt_are_refused_in_good_english(tmp_path: Path) -> None:
    """Found by hand: "Expected: a army that has been attacked and got the first reaction"
    (and "a army on its way to halt"); a fleet's say "a fleet"."""
    w = World(tmp_path, claims=roster("greyjoy", "stark"))
    say(w, "ned_stark", "muster 300 infantry", day(1, 8))
    say(w, "balon_greyjoy", "muster 4 ships", day(1, 8))
    w.run(day(2, 12))
    retreat = say(w, "ned_stark", "retreat army 1", day(2, 13))
    assert "**Expected:** an army that has been attacked" in retreat, retreat
    halt = say(w, "ned_stark", "stand army 1", day(2, 13))
    assert "an army on its way to halt" in halt and "a army" not in halt, halt
    fleet = say(w, "balon_greyjoy", "retreat fleet 2", day(2, 13))
    assert "**Expected:** a fleet that has been attacked" in fleet, fleet
