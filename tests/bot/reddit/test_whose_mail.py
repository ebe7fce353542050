"""Whose modmail the bot answers (#24 item 6, #30): a campaign player's message wherever
Reddit files it (a player who moderates the subreddit included, served as a player), and
nobody else's: the subreddit's other mail stays untouched and unread for the moderators.
Also the quiet idle round and the late-listed message (#30). Real PRAW, the sandbox."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from sqlmodel import select

from bot.db.engine import transaction
from bot.db.models import Army, Claim
from bot.reddit import intake
from bot.sandbox import BOT_USERNAME, SUBREDDIT, RedditSandbox, password_for
from bot.sandbox.praw_client import make_reddit
from bot.services import journal
from tests.bot.reddit.conftest import Harness, make_harness
from tests.fixtures.db import sqlite_url


def _armies(bot: Harness) -> list[tuple[str, int]]:
    with transaction(bot.engine) as session:
        names = {c.id: c.name for c in session.exec(select(Claim)).all()}
        return sorted((names[a.claim_id], a.infantry)
                      for a in session.exec(select(Army)).all())


def _bot_notes(bot: Harness, conversation_id: str) -> list[str]:
    return [m.body for m in bot.sandbox.conversation_messages(conversation_id)
            if m.author == BOT_USERNAME]


@pytest.fixture
def archiving(sandbox: RedditSandbox, tmp_path: Path,
              tmp_path_factory: pytest.TempPathFactory) -> Iterator[Harness]:
    """The harness with ``archive_answered`` on (so "not archived" means something)."""
    harness = make_harness(sandbox, sqlite_url(tmp_path / "bot.db"), tmp_path_factory,
                           archive_answered=True)
    with harness.engine.connect():
        yield harness
    harness.engine.dispose()


def test_a_player_who_moderates_the_subreddit_is_served_as_a_player(bot: Harness) -> None:
    """#24 item 6: Reddit files a moderator's message as a Mod Discussion. A campaign player
    who moderates the subreddit (not a campaign moderator) gets their orders carried out
    for their own claim and an internal answer, and no moderator powers."""
    bot.sandbox.add_moderator(SUBREDDIT, "ned_stark")
    ned = make_reddit(bot.sandbox.url, username="ned_stark", password=password_for("ned_stark"))
    ned.subreddit(SUBREDDIT).message(subject="Orders", message="muster 100 infantry")
    ned.subreddit(SUBREDDIT).message(subject="Orders",
                                     message="as House Lannister: muster 900 infantry")
    discussions = [c for c in bot.sandbox.conversations() if c.is_internal]
    assert len(discussions) == 2
    report = bot.poll()
    assert report.processed == 2
    bot.publish()
    assert _armies(bot) == [("House Stark", 100)]
    for conversation in discussions:
        (note,) = [m for m in bot.sandbox.conversation_messages(conversation.id)
                   if m.author == BOT_USERNAME]
        assert note.is_internal
    assert "Army 1" in _bot_notes(bot, discussions[0].id)[0]
    assert sorted(m.outcome for m in bot.inbox()) == ["orders", "orders"]


def test_a_player_moderator_answers_in_their_dispatch_conversation(bot: Harness) -> None:
    """#30: the bot's dispatch to a player who moderates the subreddit becomes a Mod
    Discussion; the player's answer in it is read as that player's orders."""
    bot.sandbox.add_moderator(SUBREDDIT, "ned_stark")
    with transaction(bot.engine) as session:
        journal.notify_claim(session, bot.ctx.campaign_id, 1, "news:1", subject="Ravens",
                             body="A raven from the Wall.", at=bot.clock.now(),
                             tick=bot.ctx.tick_of(bot.clock.now()))
    bot.publish()
    (dispatch,) = [c for c in bot.sandbox.conversations() if c.subject.startswith("Dispatch")]
    assert dispatch.is_internal
    bot.sandbox.moderator_writes(dispatch.id, "ned_stark", "muster 70 infantry")
    assert bot.poll().processed == 1
    bot.publish()
    assert _armies(bot) == [("House Stark", 70)]
    assert "Army 1" in _bot_notes(bot, dispatch.id)[-1]


@pytest.mark.parametrize("folder", ["all", "filtered", "archived", "join_requests"])
def test_a_players_message_is_answered_whatever_folder(bot: Harness, folder: str) -> None:
    """Whatever folder Reddit files a campaign player's message in, it is answered."""
    if folder == "join_requests":
        conversation, _ = bot.sandbox.send_join_request("ned_stark", "muster 40 infantry",
                                                        subreddit=SUBREDDIT)
    else:
        text = "attack army 9 with army 8" if folder == "filtered" else "muster 40 infantry"
        conversation, _ = bot.send("ned_stark", text)
        if folder == "archived":
            bot.sandbox.archive_conversation(conversation, by="grand_maester")
    (listed,) = [c for c in bot.sandbox.conversations() if c.id == conversation]
    assert listed.filtered is (folder == "filtered")
    assert bot.poll().processed == 1
    bot.publish()
    assert len(_bot_notes(bot, conversation)) == 1


def test_mail_that_is_not_the_games_is_left_unread(
        archiving: Harness, caplog: pytest.LogCaptureFixture) -> None:
    """#30: a banned user's appeal, a join request, a question from someone who does not
    play, and another moderator's discussion get no reply, are not marked read and not
    archived, and the log says what was left. A player's message in the same round is
    answered, marked read and archived."""
    bot = archiving
    bot.sandbox.add_user("arya", "arya-password")
    bot.sandbox.add_user("ser_rodrik", "ser_rodrik-password", moderator_of=(SUBREDDIT,))
    bot.sandbox.ban_user(SUBREDDIT, "daenerys_t")
    appeal, _ = bot.sandbox.send_ban_appeal("daenerys_t", "please unban me",
                                            subreddit=SUBREDDIT)
    join, _ = bot.sandbox.send_join_request("arya", "let me in", subreddit=SUBREDDIT)
    question, _ = bot.send("cersei_lannister", "When is the next AMA? muster 500 infantry")
    rodrik = make_reddit(bot.sandbox.url, username="ser_rodrik",
                         password=password_for("ser_rodrik"))
    rodrik.subreddit(SUBREDDIT).message(subject="Rules", message="Shall we change rule 3?")
    player, _ = bot.send("ned_stark", "muster 30 infantry")
    left = [appeal, join, question] + [c.id for c in bot.sandbox.conversations()
                                       if c.is_internal]
    before = bot.gateway.unread_counts()
    assert before["appeals"] == 1 and before["join_requests"] == 1 and before["mod"] == 1
    with caplog.at_level(logging.INFO, logger="bot.reddit.intake"):
        report = bot.poll()
    bot.publish()
    assert report.replies_queued == 1 and _armies(bot) == [("House Stark", 30)]
    for conversation in left:
        assert _bot_notes(bot, conversation) == []
    states = {c.id: c.state for c in bot.sandbox.conversations()}
    assert all(states[c] != 2 for c in left) and states[player] == 2
    after = bot.gateway.unread_counts()
    assert (after["appeals"], after["join_requests"], after["mod"]) == (1, 1, 1)
    assert after["new"] == before["new"] - 1  # the player's, read; the others, not
    logged = "\n".join(r.getMessage() for r in caplog.records)
    for conversation in left:
        assert conversation in logged
    assert bot.poll().processed == 0


def test_an_idle_round_costs_one_request_for_the_modmail(bot: Harness) -> None:
    """#30: a round first asks for the unread counts and lists only folders whose count
    changed: idle, that is the only modmail request (plus the unread mentions when comment
    commands are on). A new message makes the next round list its folder only."""
    bot.send("ned_stark", "status")
    bot.cycle()
    bot.poll()  # the counts after the bot read its mail
    bot.sandbox.reset_requests()
    bot.poll()
    assert bot.sandbox.request_counts() == {"modmail.unread_count": 1, "inbox": 1}
    bot.send("tywin_lannister", "status")
    bot.sandbox.reset_requests()
    assert bot.poll().processed == 1
    counts = bot.sandbox.request_counts()
    assert counts["modmail.list"] == 1 and counts["modmail.read"] == 1
    bot.sandbox.reset_requests()
    bot.poll()
    assert bot.sandbox.request_counts() == {"modmail.unread_count": 1, "inbox": 1}


def test_without_comment_commands_an_idle_round_is_one_request(
        sandbox: RedditSandbox, tmp_path: Path,
        tmp_path_factory: pytest.TempPathFactory) -> None:
    bot = make_harness(sandbox, sqlite_url(tmp_path / "bot.db"), tmp_path_factory,
                       comment_commands=False)
    bot.poll()
    bot.sandbox.reset_requests()
    bot.poll()
    assert bot.sandbox.request_counts() == {"modmail.unread_count": 1}
    bot.engine.dispose()


def test_every_folder_is_listed_when_a_tick_is_due_or_after_full_poll_minutes(
        bot: Harness) -> None:
    """Counts cannot show a new message in a conversation still unread: a round lists every
    folder whenever a tick is due and at least every ``full_poll_minutes``."""
    bot.poll()
    next_tick = bot.ctx.tick_at(bot.ctx.tick_of(bot.clock.now()) + 1)
    bot.clock.set(next_tick + timedelta(seconds=1))
    bot.sandbox.reset_requests()
    assert bot.poll().ticks_applied == 1
    assert bot.sandbox.request_count(route="modmail.list") == len(intake.FOLDERS)
    bot.sandbox.reset_requests()
    bot.clock.advance(timedelta(minutes=bot.settings.bot.full_poll_minutes - 1))
    bot.poll()
    assert bot.sandbox.request_count(route="modmail.list") == 0
    bot.clock.advance(timedelta(minutes=1))
    bot.poll()
    assert bot.sandbox.request_count(route="modmail.list") == len(intake.FOLDERS)


def test_a_message_listed_late_is_not_skipped_by_the_watermark(bot: Harness) -> None:
    """#30: Reddit's listing shows a conversation only after a newer one moved the folder's
    watermark past it; a later full round still finds and answers it."""
    late, _ = bot.send("ned_stark", "muster 20 infantry")
    bot.sandbox.delay_listing(late)
    bot.clock.advance(timedelta(seconds=30))
    bot.send("tywin_lannister", "status")
    assert bot.poll().processed == 1
    bot.sandbox.delay_listing(late, delayed=False)
    bot.clock.advance(timedelta(minutes=bot.settings.bot.full_poll_minutes))
    assert bot.poll().processed == 1
    bot.publish()
    assert _armies(bot) == [("House Stark", 20)]
    assert len(_bot_notes(bot, late)) == 1
