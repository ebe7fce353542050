"""Issue 29 through Mod Discussions (real PRAW against the sandbox, SQLite and PostgreSQL):
a moderator proposes (``!adjust``, ``!undo``), nothing changes until another moderator
``!approve``s; the proposer cannot approve; an approval after the world moved on is refused
with the reason; an approved ``!undo`` posts the public correction and tells the claims.
And: two worlds differing only in hidden facts get byte-identical correction posts."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from datetime import timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import col, select

from bot.config import ModeratorSettings
from bot.db.engine import make_engine, transaction
from bot.db.models import Claim, Event, Outbox, Proposal, Snapshot
from bot.messages import handle_message
from bot.sandbox import BOT_USERNAME, MODERATOR, SUBREDDIT, RedditSandbox, password_for
from bot.services import corrections, moderation, snapshots
from bot.services.proposals import undo_action
from bot.services.tick import catch_up
from tests.bot.reddit.conftest import Harness, make_harness, new_campaign, settings_for
from tests.fixtures.db import sqlite_url

BOB = "mod_bob"


@pytest.fixture
def mods(sandbox: RedditSandbox, db_url: str) -> Iterator[Harness]:
    """The harness with two moderators and ``[moderators] approval = ["adjust", "undo"]``."""
    harness = make_harness(sandbox, db_url)
    sandbox.add_user(BOB, password_for(BOB), moderator_of=(SUBREDDIT,))
    harness.ctx = dataclasses.replace(  # the context is a frozen value: a new one
        harness.ctx, settings=harness.ctx.settings.model_copy(update={
            "moderators": ModeratorSettings(approval=["adjust", "undo"])}),
        moderators=frozenset({MODERATOR.lower(), BOB}))
    yield harness
    harness.engine.dispose()


def discuss(bot: Harness, moderator: str, body: str) -> str:
    """``moderator`` writes a Mod Discussion; the bot reads it and answers there (returned)."""
    from bot.sandbox.praw_client import make_reddit

    reddit = make_reddit(bot.sandbox.url, username=moderator, password=password_for(moderator))
    before = {c.id for c in bot.sandbox.conversations()}
    reddit.subreddit(SUBREDDIT).message(subject="Steering", message=body)
    (new,) = [c for c in bot.sandbox.conversations() if c.id not in before]
    bot.poll()
    bot.publish()
    (answer,) = [m for m in bot.sandbox.conversation_messages(new.id)
                 if m.author == BOT_USERNAME]
    assert answer.is_internal
    shown = answer.body.replace("\\", "").replace("&#47;", "/")  # as Reddit shows it
    return " ".join(shown.split())


def world(bot: Harness) -> tuple[Any, list[Any], list[Any]]:
    """The world's rows, the event log and the snapshots (all but proposals and outbox)."""
    with transaction(bot.engine) as session:
        rows = json.loads(snapshots.world_json(session, bot.ctx.campaign_id))
        rows.pop("outbox")
        return (rows,
                [(e.id, e.kind, e.summary) for e in session.exec(select(Event)).all()],
                [s.id for s in session.exec(select(Snapshot)).all()])


def test_proposals_wait_for_a_second_moderator_in_mod_discussions(mods: Harness) -> None:
    bot = mods
    before = world(bot)
    answer = discuss(bot, MODERATOR, "!adjust House Stark gold +100 because a dowry")
    assert "Proposed as #1" in answer and "!approve 1" in answer
    assert world(bot) == before  # nothing changed but the proposal
    assert "grand_maester proposed #1: another moderator must approve it" in discuss(
        bot, MODERATOR, "!approve 1")
    assert world(bot) == before
    player, _ = bot.send("ned_stark", "!approve 1")
    bot.cycle()
    assert "for moderators only" in bot.bot_messages(player)[0]  # (and the attempt logged)
    with transaction(bot.engine) as session:
        assert session.exec(select(Proposal)).one().status.value == "pending"

    done = discuss(bot, BOB, "!approve 1")
    assert "House Stark after: gold 1000" in done and "approved by u/mod_bob" in done
    with transaction(bot.engine) as session:
        assert session.exec(select(Claim).where(Claim.name == "House Stark")).one().gold == 1000
        approval = session.exec(select(Event).where(Event.kind == "approval")).one()
        assert approval.actor == BOB and f"by {MODERATOR} approved by {BOB}" in \
            approval.summary

    # An undo, proposed and approved: the public correction and the note to House Stark.
    assert "Proposed as #2" in discuss(bot, MODERATOR, "!undo because the dowry was a jest")
    assert "no proposal is waiting" not in discuss(bot, BOB, "!proposals").lower()
    done = discuss(bot, BOB, "!approve 2")
    assert "Correction queued: a public [Correction] post and a private note to House " \
        "Stark." in done
    bot.drain()
    (post,) = [p for p in bot.sandbox.posts(author=BOT_USERNAME)
               if p.title.startswith("[Correction]")]
    assert "the dowry was a jest" in post.body and "1 moderator command" in post.body
    assert "approved by" in post.body and "mod\\_bob" in post.body
    notes = [m.body for c in bot.sandbox.conversations() if c.participant == "ned_stark"
             for m in bot.sandbox.conversation_messages(c.id) if m.author == BOT_USERNAME]
    assert any("gold: now 900 (before the correction: 1000)" in n for n in notes)
    with transaction(bot.engine) as session:
        assert session.exec(select(Claim).where(Claim.name == "House Stark")).one().gold == 900


def test_an_approval_after_a_tick_is_refused_with_the_reason(mods: Harness) -> None:
    bot = mods
    discuss(bot, MODERATOR, "!adjust House Tully gold -700 because a fine")
    bot.clock.advance(timedelta(hours=6))  # a tick; then Tully can no longer pay 700
    bot.poll()
    with transaction(bot.engine) as session:
        tully = session.exec(select(Claim).where(Claim.name == "House Tully")).one()
        moderation.adjust_claim(session, bot.ctx, tully, moderation.Holdings(
            Decimal(-100), 0, 0, 0), reason="spent", actor="maester",
            now=bot.clock.now())
    before = world(bot)
    answer = discuss(bot, BOB, "!approve 1")
    assert "Proposal #1 refused: no longer applies" in answer and "gold" in answer
    assert world(bot) == before
    with transaction(bot.engine) as session:
        proposal = session.exec(select(Proposal)).one()
    assert (proposal.status.value, proposal.decided_by) == ("refused", BOB)
    assert "was refused already" in discuss(bot, MODERATOR, "!approve 1")
    assert "say why, after `because`" in discuss(bot, MODERATOR, "!undo")


def test_a_moderator_who_plays_waits_for_another_in_mod_discussions(mods: Harness) -> None:
    bot = mods
    bot.ctx = dataclasses.replace(bot.ctx, settings=bot.ctx.settings.model_copy(update={
        "moderators": ModeratorSettings(plays={MODERATOR: ["House Lannister"]})}))
    before = world(bot)
    answer = discuss(bot, MODERATOR, "!fate Robb Stark captured because taken at the Twins")
    assert "Proposed as #1" in answer and "House Stark is at war with House Lannister, " \
        f"which u/{MODERATOR} plays" in answer
    assert world(bot) == before
    done = discuss(bot, BOB, "!approve 1")
    assert "Robb Stark: alive -> captured (taken at the Twins)" in done
    with transaction(bot.engine) as session:
        approval = session.exec(select(Event).where(Event.kind == "approval")).one()
    assert f"[involved: House Stark is at war with House Lannister, which u/{MODERATOR} " \
        "plays]" in approval.summary
    # House Tyrell is neither played by them nor at war with House Lannister: at once
    assert "House Tyrell after: gold" in discuss(bot, MODERATOR,
                                                 "!adjust House Tyrell gold +5 because a gift")


# --- hidden facts never reach the correction --------------------------------------------

def _undo_in_a_world(tmp_path: Path, name: str, *, infantry: int, gold: str) -> Outbox:
    """A campaign where House Stark musters ``infantry`` (an army nobody saw) and gets
    ``gold`` (private), a tick passes, and a moderator rolls it all back."""
    from datetime import UTC, datetime

    url = sqlite_url(tmp_path / f"{name}.db")
    engine = make_engine(url)
    from bot.db.migrate import upgrade

    upgrade(engine)
    start = datetime(2026, 11, 23, 7, 0, tzinfo=UTC)
    settings = settings_for("http://127.0.0.1:1", url)
    ctx = new_campaign(engine, settings, start)
    with transaction(engine) as session:
        stark = session.exec(select(Claim).where(Claim.name == "House Stark")).one()
        moderation.adjust_claim(session, ctx, stark, moderation.Holdings(
            Decimal(gold), 0, 0, 0), reason="", actor="mod_jane", now=start)
        handle_message(session, ctx, author="ned_stark", text=f"muster {infantry} infantry",
                       now=start, ref=f"{name}-1")
    catch_up(engine, ctx, start + timedelta(hours=6))
    at = start + timedelta(hours=6, minutes=5)
    with transaction(engine) as session:
        _, plan = undo_action(session, ctx, to=ctx.tick_of(start), reason="a test",
                                   now=at)
        corrections.take_back(session, ctx, plan, reason="the map was wrong",
                              actor="mod_jane", approved_by=BOB, now=at)
    with transaction(engine) as session:
        post = session.exec(select(Outbox).where(col(Outbox.key).startswith("correction:"),
                                                 Outbox.kind == "post")).one()
        notes = session.exec(select(Outbox).where(col(Outbox.key).startswith("correction:"),
                                                  Outbox.kind == "message")).all()
    engine.dispose()
    assert any(f"{infantry} infantry" in n.body for n in notes)  # the claim is told privately
    return post


def test_worlds_differing_in_hidden_facts_get_identical_corrections(tmp_path: Path) -> None:
    one = _undo_in_a_world(tmp_path, "one", infantry=100, gold="5")
    two = _undo_in_a_world(tmp_path, "two", infantry=2500, gold="777")
    assert (one.title, one.body) == (two.title, two.body)
    assert "100" not in one.body and "777" not in one.body and "Stark" not in one.body


# --- the actions the CLI could already propose, now in Mod Discussions too ---------------

def test_skills_relations_and_holdfasts_are_proposed_in_mod_discussions(mods: Harness) -> None:
    from bot.db.models import Character, Relation
    from bot.services.catalogue import read_catalogue_file, store_catalogue

    bot = mods
    bot.ctx = dataclasses.replace(bot.ctx, settings=bot.ctx.settings.model_copy(update={
        "moderators": ModeratorSettings(approval=["skills grant", "relations set",
                                                  "holdfast give"])}))
    with transaction(bot.engine) as session:
        store_catalogue(session, bot.ctx, read_catalogue_file("demo"), by=MODERATOR,
                        now=bot.clock.now(), source="demo")
    before = world(bot)
    skill = discuss(bot, MODERATOR, "!grantskill Brynden Tully Blackfish because the Fords")
    assert "Proposed as #1: grant Blackfish to Brynden Tully (the Fords)" in skill
    peace = discuss(bot, MODERATOR, "!relations House Stark House Lannister neutral")
    assert "Proposed as #2: relations set House Stark House Lannister neutral" in peace
    seat = discuss(bot, MODERATOR, "!giveholdfast Moat Cailin House Tully seat because sworn")
    assert "Proposed as #3: holdfast give Moat Cailin House Tully --seat (sworn)" in seat
    # bad input: what was wrong, what was expected, an example; nothing stored
    for body, wrong, expected in (
            ("!grantskill Nobody Here Blackfish", "no character's name starts `Nobody Here "
             "Blackfish`", "a character's name"),
            ("!grantskill Brynden Tully Nothing", "Not done:** no skill called 'Nothing'",
             "a skill of the catalogue"),
            ("!relations House Stark House Lannister friends", "`friends` is not a relation",
             "then war, neutral or allied"),
            ("!relations House Stark House Nobody war", "`House Stark House Nobody` is not "
             "two different claims", "two claims' names"),
            ("!relations House Stark House Stark war", "is not two different claims",
             "two claims' names"),
            ("!giveholdfast Nowhere House Tully", "no tile is called 'Nowhere'",
             "a holdfast's name or tile"),
            ("!giveholdfast Moat Cailin House Nobody", "`Moat Cailin House Nobody` is not a "
             "holdfast then a claim", "a holdfast's name or tile"),
            ("!giveholdfast The Kingswood House Tully", "The Kingswood is not a holdfast",
             "a holdfast's name")):
        answer = discuss(bot, MODERATOR, body)
        assert wrong in answer and expected in answer and "Example:** `!" in answer, answer
    assert world(bot) == before  # nothing changed but the proposals
    with transaction(bot.engine) as session:
        assert len(session.exec(select(Proposal)).all()) == 3

    assert "Blackfish" in discuss(bot, BOB, "!approve 1")
    assert "House Stark and House Lannister are now neutral (were war)" in discuss(
        bot, BOB, "!approve 2")
    assert "Moat Cailin given to House Tully as its seat" in discuss(bot, BOB, "!approve 3")
    with transaction(bot.engine) as session:
        brynden = session.exec(select(Character).where(
            Character.name == "Brynden Tully")).one()
        assert "Blackfish" in brynden.skills_json
        assert all(r.status.value != "war" for r in session.exec(select(Relation)).all()
                   if {r.claim_a, r.claim_b} == {1, 4})
        tully = session.exec(select(Claim).where(Claim.name == "House Tully")).one()
        assert bot.ctx.world.tile(tully.holdfast).label == "Moat Cailin"
        assert [e.actor for e in session.exec(select(Event).where(
            Event.kind == "approval")).all()] == [BOB, BOB, BOB]


def test_a_map_update_in_mod_discussions_says_how_to_propose_it(mods: Harness) -> None:
    before = world(mods)
    answer = discuss(mods, MODERATOR, "!mapupdate")
    assert "a message cannot carry" in answer and "maester map update NEW-MAP.yaml --yes " \
        "--by u/YOUR_NAME" in answer and "!approve N" in answer
    assert world(mods) == before
