"""Refusals and help on a campaign with its own map give examples from that map and the
sender's own armies: no reply names a place of the demo map (issue #23)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bot.maps import demo_map
from tests.bot.catalogue_world import World
from tests.rules.campaign.builders import HEADER

ROW = HEADER + "".join(
    f"{c:02d}00,{'Hold ' + str(c) if c in (0, 9) else ''},field,"
    f"{'holdfast' if c in (0, 9) else ''},,,,\n" for c in range(10))
"""A row of ten field tiles, holdfasts ``Hold 0`` and ``Hold 9`` at both ends."""

ROSTER = [
    {"name": "House Ash", "holdfast": "Hold 0", "players": ["ash_lord"], "gold": "900",
     "infantry": 1000, "cavalry": 100, "characters": ["Alys Ash"]},
    {"name": "House Birch", "holdfast": "Hold 9", "players": ["birch_lord"], "gold": "900",
     "infantry": 1000, "cavalry": 100},
]

BAD_LETTERS = (
    "blorp the bridge",  # no order word at all
    "seige Hold 9 with army 1",  # an order word misspelt
    "siege with army 1",  # an order without its holdfast
    "move army 1 Hold 9",  # a march without its path
    "move army 1: 0200 > 0300 (cost 2)",  # a path that does not start next to the army
    "move army 1: 0100 > 0200 (cost 99)",  # a wrong cost
    "route army 1 to Nowhere",  # an unknown tile
    "siege Hold 9 with army 77",  # an unknown army
    "attack army 5 with army 1",  # no enemy there
    "build Nonsense at Hold 0",  # no such improvement
    "assign Nobody to army 1",  # no such character
    "cede 0400 to House Nobody",  # no such claim
    "lift siege of Hold 9",  # no siege
    "assault Hold 9 with army 1",  # not besieging
    "help",
    "help siege",
    "help nonsense",
    "hello, is anyone there?",
)


def demo_places() -> set[str]:
    """The demo map's tile names."""
    return {t.name for t in demo_map().tiles.values() if t.name}


@pytest.fixture
def world(tmp_path: Path) -> World:
    return World(tmp_path, claims=ROSTER, wars=[("House Ash", "House Birch")], map_text=ROW)


def test_no_reply_on_a_custom_map_names_a_demo_place(world: World) -> None:
    places = demo_places()
    assert "Riverrun" in places and "Winterfell" in places  # the check below can fail
    found: dict[str, list[str]] = {}
    for letter in BAD_LETTERS:
        reply = world.say("ash_lord", letter)
        assert "Example" in reply or "help" in letter, (letter, reply)
        named = [p for p in places if re.search(rf"(?<!\w){re.escape(p)}(?!\w)", reply)]
        if named:
            found[letter] = named
    assert found == {}


def test_examples_name_the_senders_own_map_and_army(world: World) -> None:
    reply = world.say("ash_lord", "seige Hold 9 with army 1")
    assert "siege Hold 9 with army 1" in reply  # the rival's holdfast, the sender's army
    reply = world.say("ash_lord", "blorp")
    assert "siege Hold 9 with army 1" in reply and "move army 1: " in reply
    reply = world.say("birch_lord", "siege with army 2")
    assert "siege Hold 0 with army" in reply
