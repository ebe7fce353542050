"""Every order a reply or a private note gives as an example is one the order language reads
as written: no ``TILE``, ``N`` or ``YYYY-MM-DD`` in its place (found rehearsing by hand: a
muster's receipt suggested `move army 1: Stonegate > TILE (cost N)`, a blockade's `siege X
with army N`, the warnings `disband army N` and `away until YYYY-MM-DD`)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bot.db.models import Army, ArmyState
from rules.campaign import language as o
from tests.bot.catalogue_world import World
from tests.rules.campaign.builders import HEADER

# Row 0: Hold 0 (a port) .. Hold 5 (a port); row 1 under it: the sea.
MAP = HEADER + "".join(
    f"{c:02d}00,{'Hold ' + str(c) if c in (0, 5) else ''},field,"
    f"{'holdfast;port' if c in (0, 5) else ''},,,,\n" for c in range(6)) + "".join(
    f"{c:02d}01,,water,,,,,\n" for c in range(6))

ROSTER = [
    {"name": "House Ash", "holdfast": "Hold 0", "players": ["ash_lord"], "gold": "900",
     "infantry": 1000, "cavalry": 100, "ships": 6},
    {"name": "House Birch", "holdfast": "Hold 5", "players": ["birch_lord"], "gold": "900",
     "infantry": 1000, "cavalry": 100},
]

SPAN = re.compile(r"`([^`\n]+)`")


def order_examples(text: str) -> list[str]:
    """The code spans of ``text`` that begin with an order word and say more than it."""
    return [s for s in SPAN.findall(text)
            if len(s.split()) > 1 and s.split()[0].lower() in o.VERBS]


def assert_examples_parse(text: str) -> list[str]:
    found = order_examples(text)
    for example in found:
        try:
            o.parse_order(example)
        except o.OrderSyntaxError as exc:  # the reader would be refused sending it as written
            pytest.fail(f"{example!r} does not parse ({exc}) in:\n{text}")
    return found


@pytest.fixture
def world(tmp_path: Path) -> World:
    return World(tmp_path, claims=ROSTER, wars=[("House Ash", "House Birch")], map_text=MAP)


def test_a_musters_receipt_suggests_a_real_first_step(world: World) -> None:
    reply = world.say("ash_lord", "muster 300 infantry")
    assert "move army 1: 0100 (cost 1)" in assert_examples_parse(reply)
    reply = world.say("ash_lord", "muster 4 ships")
    assert "move fleet 2: 0001 (cost 1)" in assert_examples_parse(reply)


def test_a_blockades_receipt_names_an_army_of_the_claim_to_besiege_with(world: World
                                                                        ) -> None:
    world.say("ash_lord", "muster 4 ships")
    world.run(world.later(days=2))
    world.place(1, "0401")
    reply = world.say("ash_lord", "blockade Hold 5 with fleet 1")
    assert "muster one first" in reply and not order_examples(reply.split("blockades")[1])
    world.say("ash_lord", "muster 300 infantry")
    world.say("ash_lord", "muster 200 infantry")
    reply = world.say("ash_lord", "blockade Hold 5 with fleet 1")  # (its armies still muster)
    assert "you have no army standing" in reply and "no army raised" not in reply
    world.run(world.later(days=2))
    world.place(3, "Hold 5")
    reply = world.say("ash_lord", "blockade Hold 5 with fleet 1")
    assert "siege Hold 5 with army 3" in assert_examples_parse(reply)


def test_a_blockade_of_no_port_gives_a_port_that_is_one(world: World) -> None:
    world.say("ash_lord", "muster 4 ships")
    world.run(world.later(days=2))
    reply = world.say("ash_lord", "blockade 0300 with fleet 1")
    assert "is not a port holdfast" in reply
    assert "blockade Hold 5 with fleet 1" in assert_examples_parse(reply)


def test_the_warnings_of_upkeep_and_of_inactivity_give_orders_that_parse(tmp_path: Path
                                                                          ) -> None:
    poor = [{**ROSTER[0], "gold": "40"}, ROSTER[1]]
    world = World(tmp_path, claims=poor, wars=[("House Ash", "House Birch")], map_text=MAP)
    world.say("ash_lord", "muster 1000 infantry 100 cavalry")
    world.run(world.later(days=12))
    notes = [e for e in world.outbox(public=False) if e.kind == "message"]
    warned = [e for e in notes if "scatter" in e.title]
    inactive = [e for e in notes if "inactive" in e.title]
    assert warned and inactive, [e.title for e in notes]
    for note in (*warned, *inactive):
        assert_examples_parse(note.body)
        assert "army N" not in note.body and "YYYY" not in note.body
    assert any(s.startswith("away until 20") for s in order_examples(inactive[0].body))


def test_order_examples_finds_what_a_reader_would_copy() -> None:
    text = "Send `status`, `move army 1: 0100 (cost 1)` or `siege Hold 5 with army N`."
    assert order_examples(text) == ["move army 1: 0100 (cost 1)", "siege Hold 5 with army N"]


def test_a_muster_beyond_what_may_be_raised_gives_the_muster_that_may(tmp_path: Path
                                                                      ) -> None:
    """Found by hand: after its armies scattered, a claim asking for 300 infantry was told
    only 100 could be raised, and given `muster 300 infantry 50 cavalry` as the example."""
    poor = [{**ROSTER[0], "gold": "40", "infantry": 1200}, ROSTER[1]]
    world = World(tmp_path, claims=poor, wars=[("House Ash", "House Birch")], map_text=MAP)
    reply = world.say("ash_lord", "muster 5000 infantry 50 cavalry")
    assert "not enough troops at home" in reply
    assert order_examples(reply.split("Example")[1]) == ["muster 1200 infantry 50 cavalry"]
    world.say("ash_lord", "muster 1000 infantry 100 cavalry")
    world.run(world.later(days=2))  # the second month's upkeep scatters them
    assert world.events("scatter")
    reply = world.say("ash_lord", "muster 300 infantry 50 cavalry")
    assert "cannot be raised until" in reply
    assert order_examples(reply.split("Example")[1]) == ["muster 200 infantry"]
    reply = world.say("ash_lord", "muster 50 cavalry")
    assert "cannot be raised until" in reply and "`status`" in reply.split("Example")[1]


def test_too_few_at_home_while_some_are_scattered_gives_a_muster_that_is_accepted(
        tmp_path: Path) -> None:
    """Reviewed: a refusal for too few troops at home cut the muster to every troop at home,
    the scattered ones included, so the example it gave was itself refused as scattered."""
    poor = [{**ROSTER[0], "gold": "40", "infantry": 1200}, ROSTER[1]]
    world = World(tmp_path, claims=poor, wars=[("House Ash", "House Birch")], map_text=MAP)
    world.say("ash_lord", "muster 1000 infantry 100 cavalry")
    world.run(world.later(days=2))  # the second month's upkeep scatters them, home and locked
    assert world.events("scatter")
    reply = world.say("ash_lord", "muster 5000 infantry")
    assert "not enough troops at home" in reply
    [example] = order_examples(reply.split("Example")[1])
    assert example == "muster 200 infantry"  # the 200 never raised, not the scattered too
    reply = world.say("ash_lord", example)
    assert "(200 infantry) is mustering at Hold 0" in reply, reply  # accepted as given


def test_a_marching_army_with_no_arrival_tick_keeps_its_state_in_the_status(world: World
                                                                           ) -> None:
    """Reviewed: the status dropped the state word of a marching army, but said "marching
    to ..." only with an arrival tick: without one the line said no state at all."""
    world.say("ash_lord", "muster 300 infantry")
    world.run(world.later(days=2))
    world.say("ash_lord", "move army 1: 0100 > 0200 > 0300 (cost 3)")
    assert "- Army 1: 300 infantry, at Hold 0, marching to 0300, arrives" in world.say(
        "ash_lord", "status")
    with world.session() as session:
        army = session.get(Army, 1)
        assert army is not None and army.state is ArmyState.MARCHING and army.path_json
        army.arrival_tick = None
        session.add(army)
    assert "- Army 1: 300 infantry, marching at Hold 0\n" in world.say("ash_lord", "status")
