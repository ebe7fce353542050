"""Orders against the world: only a valid order changes state; every order gets a reply."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import ExitStack
from datetime import timedelta
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlmodel import select

from bot.db.engine import transaction
from bot.db.models import Event
from bot.messages import handle_message
from bot.services.orders import process_message
from bot.services.queries import export_world
from bot.services.world import CampaignContext
from tests.bot.services import scenario
from tests.fixtures.db import BACKENDS, fresh_schema, require_postgres

T0 = scenario.START


@pytest.fixture(scope="module", params=BACKENDS)
def world(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
          ) -> Iterator[tuple[Any, CampaignContext]]:
    """The scenario world on an SQLite file and on a PostgreSQL schema: the same tests run on
    both backends."""
    with ExitStack() as stack:
        if request.param == "sqlite":
            url = f"sqlite:///{tmp_path_factory.mktemp('orders') / 'w.db'}"
        else:
            url = stack.enter_context(fresh_schema(require_postgres()))
        scenario.build(url)
        engine, ctx = scenario.context(url)
        yield engine, ctx
        engine.dispose()


def _say(world: tuple[Any, CampaignContext], who: str, text: str,
         when: timedelta = timedelta(hours=4)) -> str:
    engine, ctx = world
    with transaction(engine) as session:
        return handle_message(session, ctx, author=who, text=text, now=T0 + when,
                              ref=f"t:{who}:{hash(text)}")


def _snapshot(world: tuple[Any, CampaignContext]) -> dict[str, Any]:
    engine, ctx = world
    with transaction(engine) as session:
        data = export_world(session, ctx)
    return data


def test_muster_receipt_says_when_the_troops_are_ready(world: Any) -> None:
    """Muster: ready 24 h after the next tick at or after acceptance (accepted 11:30 -> the
    12:00 tick -> ready the next day at 12:00)."""
    reply = _say(world, "walder_frey", "muster 100 infantry", timedelta(hours=4))
    assert "is mustering at The Twins" in reply
    assert "Ready: 2026-11-23 12:00 UTC" in reply


def test_an_invalid_order_changes_nothing_and_says_what_was_expected(world: Any) -> None:
    before = _snapshot(world)
    reply = _say(world, "walder_frey", "muster 99999 infantry")
    assert "**Not done:**" in reply and "**Expected:**" in reply and "**Example:**" in reply
    assert _snapshot(world) == before


def test_a_misspelt_order_word_is_answered_with_the_players_own_line_put_right(
        world: Any) -> None:
    """Found by hand: "sige Harrenhal with army 5" was answered with an example about another
    holdfast and another army. The example is the player's own line with the order word it
    probably meant, when that reads as an order; nothing changes."""
    before = _snapshot(world)
    reply = _say(world, "ned_stark", "sige Riverrun with army 1\nmvoe army 1: 1316 > 1317 "
                 "(cost 2)")
    assert "did you mean siege?" in reply and "did you mean move?" in reply, reply
    assert "**Example:** `siege Riverrun with army 1`" in reply, reply
    assert "**Example:** `move army 1: 1316 > 1317 (cost 2)`" in reply, reply
    assert _snapshot(world) == before


def test_a_wrong_stated_cost_is_rejected_with_the_breakdown(world: Any) -> None:
    """The player states the total cost; a different one is rejected with the computed cost
    and the per-tile breakdown, and nothing changes."""
    before = _snapshot(world)
    reply = _say(world, "ned_stark", "move army 1: 1316 > 1317 (cost 5)",
                 timedelta(hours=4))
    assert "this path costs 2" in reply and "1316 (field) 1 + 1317 (field) 1 = 2" in reply
    assert _snapshot(world) == before


def test_orders_for_another_claims_army_are_refused_and_logged(world: Any) -> None:
    before = _snapshot(world)
    reply = _say(world, "walder_frey", "move army 1: 1316 (cost 1)\ncancel army 1")
    assert reply.count("is not yours") == 2
    assert _snapshot(world) == before
    engine, _ = world
    with transaction(engine) as session:
        refused = session.exec(select(Event).where(Event.kind == "refused")).all()
    assert any(e.actor == "walder_frey" for e in refused)


def test_a_stranger_is_told_to_ask_the_moderators(world: Any) -> None:
    reply = _say(world, "random_person", "muster 5 infantry")
    assert "does not play a claim" in reply


def test_moderators_may_act_for_any_claim(world: Any) -> None:
    reply = _say(world, "mod_jane", "as House Reed: status")
    assert "**House Reed**" in reply
    reply = _say(world, "walder_frey", "as House Reed: status")
    assert "House Reed" not in reply.split("\n")[2]


def test_several_orders_in_one_message_each_get_an_answer(world: Any) -> None:
    reply = _say(world, "mace_tyrell",
                 "- status\n- **route army 4 to Horn Hill**\n- muster lots of infantry")
    assert reply.count("---") >= 2
    assert "cheapest route" in reply and "Not done" in reply


def test_hostile_text_is_answered_not_crashed(world: Any) -> None:
    before = _snapshot(world)
    nasty = ("move army 1: '; DROP TABLE army; -- > u/spez > r/all (cost 1)\n"
             "\u202e\u200bmuster\x00 999999 infantry\n" + "[x](javascript:alert(1)) " * 20)
    reply = _say(world, "ned_stark", nasty)
    assert "Not done" in reply
    assert "u/spez" not in reply and "r/all" not in reply
    assert _snapshot(world) == before
    huge = _say(world, "ned_stark", "status " + "A" * 1_000_000)
    assert len(huge) < 20_000


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(text=st.text(max_size=300) | st.sampled_from([
    "move army 1: 1316 > 9999 (cost 2)", "attack army 99 with army 1", "siege Pyke with army 2",
    "assault Winterfell with army 3", "retreat army 2", "cancel army 77", "odds army 1 vs army 3",
    "muster -5 infantry", "muster 1e9 cavalry", "sally from Riverrun with army 1"]))
def test_fuzz_rejected_messages_never_change_the_world(world: Any, text: str) -> None:
    """No input crashes the service, and a message whose orders were all rejected changes
    nothing."""
    engine, ctx = world
    before = _snapshot(world)
    with transaction(engine) as session:
        outcome = process_message(session, ctx, author="ned_stark", text=text,
                                  now=T0 + timedelta(hours=4), ref="fuzz")
    assert outcome.reply or outcome.commands  # commands are answered by the command registry
    if outcome.accepted == 0:
        assert _snapshot(world) == before


def test_a_moderator_command_from_a_player_is_refused_and_logged(world: Any) -> None:
    reply = _say(world, "walder_frey", "!claim House Stark")
    assert "for moderators only" in reply and "Gold" not in reply
    engine, _ = world
    with transaction(engine) as session:
        refused = session.exec(select(Event).where(Event.kind == "refused")).all()
    assert any("!claim" in e.summary and e.actor == "walder_frey" for e in refused)


def test_a_moderator_may_look_at_any_claim(world: Any) -> None:
    reply = _say(world, "mod_jane", "!claim u/ned_stark")
    assert "**House Stark**" in reply and "Gold" in reply


def test_odds_shows_strengths_band_and_exact_chance(world: Any) -> None:
    """`odds army A vs army B`: both strengths as the battle would count them, the band and
    the exact chance (a moderator may ask about any two armies)."""
    reply = _say(world, "mod_jane", "as House Stark: odds army 1 vs army 3")
    assert "strength 400 against 3000: ratio 7.5, band auto" in reply and "exactly 0" in reply


def test_odds_about_an_army_you_cannot_see_is_refused(world: Any) -> None:
    before = _snapshot(world)
    reply = _say(world, "ned_stark", "odds army 1 vs army 3")
    assert "is not on" in reply and _snapshot(world) == before


def test_cancel_on_a_mustering_army_with_a_queued_march_cancels_the_march_only(
        world: Any) -> None:
    """`cancel army N` on a mustering army that has a march queued cancels the march and says
    how to cancel the muster; a second cancel then cancels the muster."""
    reply = _say(world, "doran_martell", "muster 100 infantry")
    found = re.search(r"\*\*Army (\d+)\*\*", reply)
    assert found is not None, reply
    army = int(found.group(1))
    route = _say(world, "doran_martell", f"route army {army} to 2550")
    move = route.split("To march, send:", 1)[1].strip()
    assert "will march" in _say(world, "doran_martell", move)
    reply = _say(world, "doran_martell", f"cancel army {army}")
    assert "march" in reply and "still mustering" in reply
    assert f"cancel army {army}" in reply
    armies = {a["id"]: a for a in _snapshot(world)["armies"]}
    assert armies[army]["state"] == "mustering" and armies[army]["path"] == []
    reply = _say(world, "doran_martell", f"cancel army {army}")
    assert "muster of army" in reply
    armies = {a["id"]: a for a in _snapshot(world)["armies"]}
    assert armies[army]["state"] == "gone"


def test_every_order_kind_has_exactly_one_listed_kind() -> None:
    """The order table is explicit (no registration on import) and covers the language."""
    from rules.campaign.decide import ORDER_KINDS
    from rules.campaign.language import ORDER_TYPES

    assert set(ORDER_KINDS) == set(ORDER_TYPES)
    assert len({kind.verb for kind in ORDER_KINDS.values()}) == len(ORDER_KINDS)
