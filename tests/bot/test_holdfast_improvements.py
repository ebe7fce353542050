"""A holdfast that changes hands takes its improvements with it (DECISIONS "Sides, holdfasts
and simultaneous moves"): built through the order language, given through the moderators'
`holdfast give` service, on a real SQLite campaign."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from bot.services.moderation import give_holdfast
from rules.campaign.improvements import move_improvements
from tests.bot.catalogue_world import START, World, roster


def test_given_holdfast_takes_its_improvements(tmp_path: Path) -> None:
    """Frey builds Granaries at The Twins; the moderators give The Twins to Stark: the record
    (and its finished effect) is Stark's now, Frey keeps nothing of it."""
    w = World(tmp_path, claims=roster("frey", "stark"))
    assert "Building **Granaries**" in w.say("walder_frey", "build Granaries at The Twins")
    w.run(START.replace(hour=0, minute=0) + timedelta(days=2))
    assert w.claim("House Frey").improvements_json[0]["done"] is True
    twins = w.ctx.world.tile("The Twins").id
    with w.session() as session:
        give_holdfast(session, w.ctx, w.claim("House Stark"), "The Twins", seat=False,
                      actor="mod_jane", now=w.now)
    frey, stark = w.claim("House Frey"), w.claim("House Stark")
    assert [r for r in frey.improvements_json if "name" in r] == []
    assert [(r["name"], r["holdfast"], r["done"]) for r in stark.improvements_json] == [
        ("Granaries", twins, True)]


def test_move_keeps_other_holdfasts_and_the_bookkeeping() -> None:
    """Only the records of the holdfast that changed hands move; each side keeps its own
    capacity bookkeeping."""
    giver = [{"name": "Walls", "holdfast": "a", "done": True},
             {"name": "Barracks", "holdfast": "b", "done": False},
             {"capacity": {"infantry": 100, "cavalry": 0}}]
    taker = [{"name": "Granaries", "holdfast": "c", "done": True}]
    kept, taken = move_improvements(giver, taker, "a")
    assert kept == ({"name": "Barracks", "holdfast": "b", "done": False},
                    {"capacity": {"infantry": 100, "cavalry": 0}})
    assert taken == ({"name": "Granaries", "holdfast": "c", "done": True},
                     {"name": "Walls", "holdfast": "a", "done": True})
