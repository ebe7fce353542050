"""The moderators' log names places as players read them: a named tile by its name, never by
its map id (``army 1 is ready at Winterfell``, not ``... at 1315``), on a real SQLite
campaign played through orders and ticks."""

from __future__ import annotations

import re
from pathlib import Path

from sqlmodel import col, select

from bot.db.models import Event
from bot.services import queries
from tests.bot.catalogue_world import World, roster
from tests.bot.services.test_campaign_rules import day


def test_the_log_names_named_tiles_by_their_names(tmp_path: Path) -> None:
    """Musters ready, an attack, its battle, an encounter, marches' arrivals: each summary
    names the place by its label, and ``show army`` names its pending battle's."""
    w = World(tmp_path, claims=roster("stark", "lannister"))
    w.say("ned_stark", "muster 300 infantry\nmuster 20 cavalry")
    w.say("tywin_lannister", "muster 300 infantry\nmuster 100 infantry")
    w.run(day(2, 12))
    w.place(3, "Winterfell")
    w.say("tywin_lannister", "attack army 1 with army 3", at=day(2, 13))
    with w.session() as session:
        [pending] = queries.army_detail(session, w.ctx, 1).battles
    assert pending.tile == "Winterfell"
    w.say("ned_stark", "move army 2: 1316 > 1317 > 1318 > 1319 > 1320 > 1321 > 1322 > "
          "Moat Cailin (cost 10)", at=day(2, 13))
    w.say("tywin_lannister", "move army 4: 0436 > Gold mines of the Westerlands (cost 5)",
          at=day(2, 13))
    w.run(day(4))
    with w.session() as session:
        events = session.exec(select(Event).order_by(col(Event.id))).all()
    summaries = {e.kind: e.summary for e in events}
    assert summaries["muster_done"].endswith("is ready at Casterly Rock")
    assert "army 3 attacks army 1 at Winterfell" in summaries["attack"]
    assert " at Winterfell: " in summaries["battle"]
    assert summaries["encounter"].endswith(" at Winterfell")
    arrivals = [e.summary for e in events if e.kind == "arrival"]
    assert any(a.endswith("arrives at Moat Cailin") for a in arrivals), arrivals
    assert any(a.endswith("arrives at Gold mines of the Westerlands") for a in arrivals)
    named = {tile.id for tile in w.ctx.world if tile.name}
    for e in events:
        ids = set(re.findall(r"\b\d{4}\b", e.summary)) & named
        assert not ids, (e.kind, e.summary)
