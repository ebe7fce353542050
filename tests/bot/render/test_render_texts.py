"""The render layer's texts, from plain values and without a database: one shape for the two
retreat referrals, names escaped in bodies and kept plain in subjects, the battle post's dice
lines, the open sea's name."""

from __future__ import annotations

import re
from collections.abc import Callable
from decimal import Decimal

import pytest

from bot.render import notes, posts
from bot.render.common import place_label
from bot.text import name_md
from rules.campaign.config import Terrain
from rules.campaign.siege import SiegeLength
from rules.campaign.world import Army, ArmyKind, ArmyState
from rules.campaign.worldmap import Tile, tile_id

HOSTILE = "Evil *bold* [link](x) u/ping"
SHOWN = name_md(HOSTILE)


def test_the_two_retreat_referrals_share_their_subject_and_differ_in_wording() -> None:
    by_order = notes.retreat_referred_by_order(
        author="ned", claim="House Stark", kind=ArmyKind.LAND, army=3, troops="40 infantry",
        place="Moat Cailin", battle=9)
    in_battle = notes.retreat_referred_in_battle(claim="House Stark", kind=ArmyKind.LAND,
                                                 army=3, place="Moat Cailin")
    assert by_order[0] == in_battle[0] == "Retreat of army 3 referred to you"
    assert by_order[1].startswith("u/ned (House Stark) wants army 3 (40 infantry) to retreat "
                                  "from Moat Cailin before battle 9, but it did not march there")
    assert by_order[1].endswith("the battle stands unless you rule otherwise.")
    assert in_battle[1] == ("Army 3 of House Stark chose to retreat from Moat Cailin but has no "
                            "way back. Nothing was rolled and the battle was fought; rule on it "
                            "if needed.")
    fleet = notes.retreat_referred_in_battle(claim="House Greyjoy", kind=ArmyKind.FLEET,
                                             army=4, place="the sea at 0412")
    assert fleet[0] == "Retreat of fleet 4 referred to you"
    assert "did not sail there" in notes.retreat_referred_by_order(
        author="balon", claim="House Greyjoy", kind=ArmyKind.FLEET, army=4, troops="4 ships",
        place="Pyke", battle=2)[1]


_NOTES: dict[str, Callable[[str], tuple[str, str]]] = {
    "spared": lambda n: notes.spared_note(claim=n, kind=ArmyKind.LAND, army=2, place=n),
    "assault": lambda n: notes.assault_note(kind=ArmyKind.LAND, army=2, troops="5 infantry",
                                            holdfast=n, when="day 2"),
    "attacked": lambda n: notes.attacked_note(how="attack", kind=ArmyKind.LAND, army=2,
                                              target=5, troops="5 infantry", place=n,
                                              when="day 2"),
    "intercepted": lambda n: notes.attacked_note(how="intercept", kind=ArmyKind.FLEET, army=2,
                                                 target=5, troops="5 ships", place=n,
                                                 when="day 2"),
    "besieged": lambda n: notes.besieged_note(claim=n, kind=ArmyKind.LAND, army=2,
                                              troops="5 infantry", holdfast=n,
                                              length=SiegeLength(6, 6), own=()),
    "blockaded": lambda n: notes.blockaded_note(claim=n, fleet=2, ships=5, port=n),
    "war": lambda n: notes.war_note(n, notes.blockade_war(n)),
    "siege referral": lambda n: notes.siege_referral_note(
        author=n, claim=n, kind=ArmyKind.LAND, army=2, troops="5 infantry", holdfast=n,
        owner=n),
    "siege left": lambda n: notes.siege_left_note(n, 3),
    "call off": lambda n: notes.call_off_note(ArmyKind.LAND, 2, n),
    "retreat failed": lambda n: notes.retreat_failed_note(
        runner=Army(2, 1, ArmyKind.LAND, ArmyState.STANDING, "0101"), opponent_claim=n,
        place=n, until="day 2"),
    "opponent decides": lambda n: notes.opponent_decides_note(
        runner=Army(2, 1, ArmyKind.LAND, ArmyState.STANDING, "0101"), runner_claim=n,
        own=Army(5, 2, ArmyKind.LAND, ArmyState.STANDING, "0101"), place=n, until="day 2"),
}


@pytest.mark.parametrize("kind", sorted(_NOTES))
def test_a_note_escapes_every_name_in_its_body(kind: str) -> None:
    subject, body = _NOTES[kind](HOSTILE)
    body = re.sub(r"`[^`]*`", "`code`", body)  # a code span shows its text as written
    assert SHOWN in body and HOSTILE not in body
    assert "u/ping" not in body.replace(SHOWN, "")
    assert "**" not in subject.replace(HOSTILE, "")  # a subject is not markdown
    plain_subject, _ = _NOTES[kind]("Winterfell")
    assert "*" not in plain_subject


@pytest.mark.parametrize("post", [
    posts.siege_begins_post(claim=HOSTILE, holdfast=HOSTILE, owner=HOSTILE, when="day 2"),
    posts.blockade_post(claim=HOSTILE, port=HOSTILE, owner=HOSTILE, when="day 2"),
    posts.siege_over_post(HOSTILE, "The besiegers have marched away."),
    posts.retreat_post(claim=HOSTILE, place=HOSTILE, kind=ArmyKind.LAND, roll=17,
                       dice="x")[1],
])
def test_a_post_escapes_every_name(post: str) -> None:
    assert SHOWN in post and HOSTILE not in post


def test_the_retreat_post_titles_the_claim_plainly_and_ends_with_its_dice() -> None:
    title, body = posts.retreat_post(claim="House Stark", place="the sea at 0412",
                                     kind=ArmyKind.FLEET, roll=17, dice="retreat:3 d20=17")
    assert title == "[Battle] House Stark withdraws from the sea at 0412"
    assert body == ("Rather than give battle at **the sea at 0412**, the fleet of House Stark "
                    "withdraws (retreat roll 17).\n\n`retreat:3 d20=17`")


def test_a_blockade_of_an_unheld_port_names_no_seat() -> None:
    # on a date, as the siege posts say it (found by hand: "in 2026-12-01 00:00 UTC")
    assert posts.blockade_post(claim="House Greyjoy", port="Lordsport", owner=None,
                               when="day 2") == (
        "The ships of **House Greyjoy** close the harbour of **Lordsport** on day 2.")
    assert ", seat of House Tully," in posts.blockade_post(
        claim="House Greyjoy", port="Seagard", owner="House Tully", when="day 2")


def test_the_upkeep_note_has_its_subject() -> None:
    assert notes.upkeep_note("Month 5, 300 AC", Decimal("12.50"), Decimal(0), "", "5 infantry",
                             Decimal("100")) == (
        "Upkeep for Month 5, 300 AC", "Upkeep of 12.5 gold paid for 5 infantry. Gold left: 100.")


def test_open_water_without_a_name_is_the_sea_at_its_tile() -> None:
    sea = Tile(tile_id(4, 12), "", Terrain.WATER, 4, 12)
    assert place_label(sea) == f"the sea at {sea.id}"
    land = Tile(tile_id(1, 1), "Winterfell", Terrain.FIELD, 1, 1, holdfast=True)
    assert place_label(land) == "Winterfell"


def test_a_siege_month_says_when_a_broken_blockade_paused_it() -> None:
    # two months counted: the siege enters its third (issue #23: the post said "month 2")
    kept = posts.siege_month_post(date="Month 5, 300 AC", holdfast="Pyke",
                                  besieger="House Stark", months=2, paused=False)
    assert kept == "Month 5, 300 AC: the siege of **Pyke** by House Stark enters its month 3."
    paused = posts.siege_month_post(date="Month 5, 300 AC", holdfast="Pyke",
                                    besieger="House Stark", months=2, paused=True)
    assert paused == kept[:-1] + " (paused: the blockade is broken)."
    assert posts.siege_paused(False) == ""
