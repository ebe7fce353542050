"""An order naming one of the claim's own armies that is gone says what became of it
(scattered at an upkeep, disbanded, removed by the moderators); another claim's gone army gets
the plain "there is no army or fleet N", as an army that never was does."""

from __future__ import annotations

from pathlib import Path

from sqlmodel import select

from bot.db.models import Event
from bot.services.moderation import remove_army
from rules.campaign import calendar
from tests.bot.catalogue_world import World, roster
from tests.bot.services.test_warnings import day

PLAIN = "there is no army or fleet 1"


def _event(w: World, kind: str) -> Event:
    """The one journal event of ``kind`` (it carries its moment)."""
    with w.session() as session:
        event = session.exec(select(Event).where(Event.kind == kind)).one()
    assert event.at is not None
    return event


def test_an_army_that_scattered_is_said_to_have_scattered(tmp_path: Path, db_url: str
                                                         ) -> None:
    """Found rehearsing by hand: `disband army 1` just after army 1 scattered at the month's
    upkeep was answered "there is no army or fleet 1"."""
    w = World(tmp_path, claims=roster("stark", "lannister", stark={"gold": "2"}), url=db_url)
    w.say("ned_stark", "muster 7 infantry 3 cavalry")
    w.run(day(3, 6))
    scatter = _event(w, "scatter")
    reply = w.say("ned_stark", "disband army 1")
    assert PLAIN not in reply
    assert (f"Army 1 scattered at the month's upkeep on {w.ctx.when(scatter.at)}: your gold did "
            "not cover it. The survivors of your armies (3 infantry, 1 cavalry) went home and "
            "cannot be raised again until "
            f"{w.ctx.when(calendar.scattered_until(scatter.at, w.ctx.rules))}") in reply
    claim = w.claim("House Stark")
    assert claim.scattered_until == calendar.scattered_until(scatter.at, w.ctx.rules)
    # another claim names Stark's gone army: nothing of it is told
    other = w.say("tywin_lannister", "disband army 1")
    assert PLAIN in other and "scattered" not in other and "upkeep" not in other


def _ready(tmp_path: Path, db_url: str) -> World:
    """Stark's army 1 (7 infantry, 3 cavalry) stands ready at Winterfell."""
    w = World(tmp_path, claims=roster("stark", "lannister", stark={"gold": "100"}), url=db_url)
    w.say("ned_stark", "muster 7 infantry 3 cavalry")
    w.run(day(2, 18))
    return w


def test_an_army_disbanded_is_said_to_be_disbanded(tmp_path: Path, db_url: str) -> None:
    w = _ready(tmp_path, db_url)
    assert "disbanded" in w.say("ned_stark", "disband army 1").lower()
    disband = _event(w, "disband")
    again = w.say("ned_stark", "move army 1 to Riverrun")
    assert PLAIN not in again
    assert (f"Army 1 was disbanded on {w.ctx.when(disband.at)}: its troops went home"
            in again)
    assert PLAIN in w.say("tywin_lannister", "disband army 1")


def test_an_army_removed_by_the_moderators_is_said_to_be_removed(tmp_path: Path, db_url: str
                                                                 ) -> None:
    w = _ready(tmp_path, db_url)
    with w.session() as session:
        remove_army(session, w.ctx, 1, reason="a ruling", actor="mod_jane", now=w.now)
    reply = w.say("ned_stark", "disband army 1")
    assert (f"Army 1 was removed by the moderators on {w.ctx.when(w.now)}: its troops are "
            "gone") in reply
    assert "a ruling" not in reply  # the moderators' reason is theirs
    other = w.say("tywin_lannister", "disband army 1")
    assert PLAIN in other and "removed" not in other


def test_an_army_that_never_was_gets_the_plain_answer(tmp_path: Path, db_url: str) -> None:
    w = _ready(tmp_path, db_url)
    assert PLAIN.replace(" 1", " 7") in w.say("ned_stark", "disband army 7")
