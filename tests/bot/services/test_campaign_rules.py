"""Issue 9: the campaign rules as the seed says, played through the order language and ticks.

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


# --- movement timing (DECISIONS.md "Movement") ------------------------------------------------

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
