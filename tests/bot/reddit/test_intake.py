"""Intake: exactly once. Every test goes through real PRAW and the sandbox."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlmodel import select

from bot.db.engine import transaction
from bot.db.models import Army, ConversationCursor
from bot.reddit import intake
from bot.reddit.deliver import marker
from bot.reddit.gateway import Conversation, ModmailMessage
from bot.reddit.intake import (
    Outcome,
    claims_to_be_forward,
    parse_permalink,
    poll_once,
    should_read,
)
from bot.sandbox import BOT_USERNAME, MODERATOR, SUBREDDIT, Fault
from bot.services.tick import advancer
from tests.bot.reddit.conftest import Harness, make_harness
from tests.fixtures.db import sqlite_url


def _players_inbox(bot: Harness, player: str) -> list[str]:
    return [m.body for m in bot.sandbox.private_messages(player)]


def test_an_order_in_a_receipt_out(bot_any: Harness) -> None:
    """A player's modmail order is carried out and answered in the same conversation, with
    the hidden marker of its reply key."""
    bot = bot_any
    conversation, message = bot.send("ned_stark", "muster 300 infantry 50 cavalry")
    report = bot.poll()
    assert report.processed == 1 and report.replies_queued == 1
    bot.publish()
    replies = bot.bot_messages(conversation)
    assert len(replies) == 1
    assert "Army 1" in replies[0] and "mustering at Winterfell" in replies[0]
    assert marker(f"reply:{message}") in replies[0]
    with transaction(bot.engine) as session:
        army = session.exec(select(Army)).one()
    assert (army.infantry, army.cavalry, army.tile) == (300, 50, "1315")
    assert [(m.message_id, m.outcome) for m in bot.inbox()] == [(message, "orders")]
    # The player reads it as a legacy private message, as on Reddit.
    assert any("Army 1" in body for body in _players_inbox(bot, "ned_stark"))


def test_a_reply_in_an_old_conversation_is_read(bot: Harness) -> None:
    """A new message in a conversation the bot has answered before is found (the stream
    would never yield it again) and answered once."""
    conversation, _ = bot.send("ned_stark", "status")
    bot.cycle()
    bot.clock.advance(timedelta(hours=1))
    later = bot.sandbox.reply_modmail(conversation, "ned_stark", "muster 100 infantry")
    report = bot.poll()
    assert report.processed == 1 and report.conversations_fetched == 1
    bot.publish()
    replies = bot.bot_messages(conversation)
    assert len(replies) == 2 and marker(f"reply:{later}") in replies[1]
    assert bot.poll().processed == 0


def test_an_archived_conversation_reopened_by_the_player(bot: Harness) -> None:
    """A player writing again in an archived conversation reopens it; the bot reads it."""
    conversation, _ = bot.send("ned_stark", "status")
    bot.cycle()
    bot.sandbox.archive_conversation(conversation, by=MODERATOR)
    assert bot.poll().processed == 0
    again = bot.sandbox.reply_modmail(conversation, "ned_stark", "muster 100 infantry")
    assert bot.poll().processed == 1
    bot.publish()
    assert marker(f"reply:{again}") in bot.bot_messages(conversation)[-1]


def test_a_message_archived_before_the_bot_saw_it_is_still_read(bot: Harness) -> None:
    """A moderator archiving a conversation during downtime does not hide it from the bot."""
    conversation, message = bot.send("ned_stark", "status")
    bot.sandbox.archive_conversation(conversation, by=MODERATOR)
    assert bot.poll().processed == 1
    bot.publish()
    assert marker(f"reply:{message}") in bot.bot_messages(conversation)[0]


def test_downtime_every_waiting_message_is_handled_once(bot: Harness) -> None:
    """After hours down, 108 waiting messages in 103 conversations (more than one listing
    page) are each handled once, and later rounds find nothing new."""
    sent = []
    players = []
    for i in range(103):
        players.append(("ned_stark", "tywin_lannister", "hoster_tully")[i % 3])
        sent.append(bot.send(players[-1], "status", subject=f"status {i}"))
    for player, (conversation, _) in zip(players[:5], sent[:5], strict=True):
        bot.sandbox.reply_modmail(conversation, player, "status again")
    bot.clock.advance(timedelta(hours=7))
    report = bot.poll()
    assert report.processed == 108
    assert report.ticks_applied >= 1
    bot.publish(limit=500)
    for conversation, _ in sent[:5]:
        assert len(bot.bot_messages(conversation)) == 2
    for conversation, _ in sent[5:]:
        assert len(bot.bot_messages(conversation)) == 1
    again = bot.poll()
    assert (again.processed, again.conversations_fetched) == (0, 0)
    assert len(bot.inbox()) == 108


def test_a_genuine_automoderator_forward_counts_as_the_post_author(bot: Harness) -> None:
    """A forward from AutoModerator (isAuto, a moderator, a permalink into our subreddit) is
    read from the post itself, as its author's orders; the answer goes to that author."""
    seed = bot.sandbox.seed_automod_forward(
        "ned_stark", "[Orders] spring muster", "muster 200 infantry", subreddit=SUBREDDIT,
        flair_text="Orders")
    report = bot.poll()
    assert report.forwards == 1
    bot.publish()
    with transaction(bot.engine) as session:
        army = session.exec(select(Army)).one()
    assert army.infantry == 200 and army.tile == "1315"  # Winterfell: House Stark's
    answer = [b for b in _players_inbox(bot, "ned_stark") if "Army 1" in b]
    assert len(answer) == 1 and marker(f"reply:{seed.message_id}") in answer[0]
    assert sorted((m.author, m.message_id, m.outcome) for m in bot.inbox()) == [
        ("ned_stark", seed.message_id, "forward"),
        ("ned_stark", f"t3_{seed.post_id}", "forwarded")]


def test_a_post_forwarded_twice_is_handled_once(bot: Harness) -> None:
    """A post caught by both the flair rule and the title rule arrives twice; its orders are
    carried out and answered once (the post itself is the exactly-once key)."""
    first = bot.sandbox.seed_automod_forward("ned_stark", "[Orders] muster", "muster 120 "
                                             "infantry", subreddit=SUBREDDIT,
                                             flair_text="Orders")
    second = bot.sandbox.automod_forward(f"t3_{first.post_id}")
    report = bot.poll()
    assert report.forwards == 1 and report.processed == 2
    bot.publish()
    with transaction(bot.engine) as session:
        assert [a.infantry for a in session.exec(select(Army)).all()] == [120]
    assert sorted(m.outcome for m in bot.inbox()) == ["duplicate", "forward", "forwarded"]
    assert [m.message_id for m in bot.inbox() if m.outcome == "duplicate"] == \
        [second.message_id]
    assert len([b for b in _players_inbox(bot, "ned_stark") if "Army 1" in b]) == 1


def test_a_forward_is_read_from_the_api_not_from_its_copy(bot: Harness) -> None:
    """The forwarded copy may be stale or doctored; the post as the API returns it decides."""
    post = bot.sandbox.submit_post("ned_stark", "[Orders] x", "muster 150 infantry",
                                   subreddit=SUBREDDIT)
    bot.sandbox.automod_forward(
        f"t3_{post}", template="{{permalink}}\n\nAuthor: u/ned_stark\n\nmuster 999 cavalry")
    bot.poll()
    with transaction(bot.engine) as session:
        army = session.exec(select(Army)).one()
    assert (army.infantry, army.cavalry, army.tile) == (150, 0, "1315")


def test_an_imitation_forward_is_refused_and_logged(bot: Harness) -> None:
    """A player's message laid out like an AutoModerator forward of someone else's post is
    refused (nothing carried out), answered with why, and logged as an imitation."""
    seed = bot.sandbox.seed_fake_automod_forward(
        "tywin_lannister", "[Orders] march", "muster 500 infantry", subreddit=SUBREDDIT,
        post_author="ned_stark")
    report = bot.poll()
    assert report.imitations == 1 and report.forwards == 0
    bot.publish()
    with transaction(bot.engine) as session:
        assert session.exec(select(Army)).all() == []
    reply = bot.bot_messages(seed.conversation_id)
    assert len(reply) == 1
    assert "not by AutoModerator" in reply[0] and "Nothing in it was carried out" in reply[0]
    logged = bot.events("imitation")
    assert len(logged) == 1 and logged[0].actor == "tywin_lannister"
    assert [m.outcome for m in bot.inbox()] == ["imitation"]


def test_an_automoderator_forward_from_another_subreddit_is_not_trusted(bot: Harness) -> None:
    """Only permalinks into our subreddit count; the forward of a foreign post is refused."""
    bot.sandbox.add_subreddit("essos")
    post = bot.sandbox.submit_post("ned_stark", "[Orders]", "muster 100 infantry",
                                   subreddit="essos")
    seed = bot.sandbox.automod_forward(f"t3_{post}")
    bot.poll()
    with transaction(bot.engine) as session:
        assert session.exec(select(Army)).all() == []
    assert [m.outcome for m in bot.inbox()] in ([], ["ignored"])
    assert bot.bot_messages(seed.conversation_id) == []


def test_a_forward_of_a_deleted_post_is_reported_to_the_moderators(bot: Harness) -> None:
    """A genuine forward whose post the API no longer has is not read; the moderators are
    told in AutoModerator's conversation."""
    seed = bot.sandbox.seed_automod_forward("ned_stark", "[Orders] x", "muster 100 infantry",
                                            subreddit=SUBREDDIT)
    bot.sandbox.add_fault(Fault.forbidden(), method="GET", path="/api/info")
    bot.poll()
    bot.publish()
    assert [m.outcome for m in bot.inbox()] == ["bad_forward"]
    assert "not read" in bot.bot_messages(seed.conversation_id)[0]


def test_an_order_for_another_claims_army_is_refused_and_logged(bot: Harness) -> None:
    """Tywin cannot order Ned's army: the order is refused, the army stays, the try is
    logged."""
    bot.send("ned_stark", "muster 300 infantry")
    bot.cycle()
    conversation, _ = bot.send("tywin_lannister", "cancel army 1")
    bot.cycle()
    reply = bot.bot_messages(conversation)[0]
    assert "army 1 is not yours" in reply
    with transaction(bot.engine) as session:
        assert session.exec(select(Army)).one().state == "mustering"
    refused = bot.events("refused")
    assert len(refused) == 1 and refused[0].actor == "tywin_lannister"


def test_the_bot_never_answers_itself(bot: Harness) -> None:
    """Private news the bot started, its own replies and moderators' notes are never read
    as orders; the player's reply to the news is."""
    sent = bot.gateway.start_conversation("ned_stark", "News", "Army 1 is ready")
    conversation = sent.reddit_id
    bot.gateway.reply(conversation, "muster 100 infantry (the bot quoting an order)")
    bot.sandbox.reply_modmail(conversation, "ned_stark", "status")
    report = bot.poll()
    assert report.processed == 1
    assert [m.author for m in bot.inbox()] == ["ned_stark"]
    bot.publish()
    assert bot.poll().processed == 0
    with transaction(bot.engine) as session:
        assert session.exec(select(Army)).all() == []


def test_a_moderators_reply_to_a_player_is_not_taken_for_orders(bot: Harness,
                                                              reddit_for: Any) -> None:
    """In a player's conversation only the player's own messages are orders."""
    conversation, _ = bot.send("ned_stark", "status")
    bot.cycle()
    moderator = reddit_for(MODERATOR)
    moderator.subreddit(SUBREDDIT).modmail(conversation).reply(body="muster 900 infantry")
    assert bot.poll().processed == 0


def test_a_message_in_an_unknown_language_gets_help(bot: Harness) -> None:
    """Not silence: a message with no order in it is answered with the help text."""
    conversation, _ = bot.send("ned_stark", "Bonjour, je voudrais lever une armée.")
    bot.cycle()
    reply = bot.bot_messages(conversation)[0]
    assert "I found no order" in reply and "muster" in reply


def test_a_comment_mentioning_the_bot_gets_a_public_reply(bot: Harness) -> None:
    """Commands in a comment that mentions the bot run and are answered under it, once;
    campaign orders in public comments are not carried out."""
    comment = bot.sandbox.seed_mention("cersei_lannister", BOT_USERNAME,
                                       f"u/{BOT_USERNAME} !help\nmuster 100 infantry",
                                       subreddit=SUBREDDIT)
    report = bot.poll()
    assert report.comments == 1
    bot.publish()
    answers = bot.sandbox.comments(author=BOT_USERNAME)
    assert len(answers) == 1 and answers[0].parent_id == f"t1_{comment}"
    assert marker(f"comment:{comment}") in answers[0].body
    with transaction(bot.engine) as session:
        assert session.exec(select(Army)).all() == []
    assert bot.poll().comments == 0
    bot.publish()
    assert len(bot.sandbox.comments(author=BOT_USERNAME)) == 1


def test_comment_commands_can_be_switched_off(bot: Harness) -> None:
    """With ``comment_commands = false`` mentions are not read at all."""
    bot.ctx = bot.ctx.configured(bot={"comment_commands": False})
    bot.sandbox.seed_mention("cersei_lannister", BOT_USERNAME, subreddit=SUBREDDIT)
    assert bot.poll().comments == 0
    assert bot.sandbox.request_count(route="inbox") == 0


class Crash(Exception):
    """A simulated crash at a chosen point of the intake."""


def test_a_crash_before_the_commit_loses_nothing(bot: Harness,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """A crash while the order is handled rolls back the message record with the order: the
    next run handles it, once."""
    conversation, _ = bot.send("ned_stark", "muster 300 infantry")
    real = intake.handle_message

    def crash(*args: Any, **kwargs: Any) -> str:
        real(*args, **kwargs)  # the order's effects are written, then the process dies
        raise SystemExit("killed")

    monkeypatch.setattr(intake, "handle_message", crash)
    with pytest.raises(SystemExit):
        bot.poll()
    assert bot.inbox() == [] and bot.outbox() == []
    with transaction(bot.engine) as session:
        assert session.exec(select(Army)).all() == []
    monkeypatch.setattr(intake, "handle_message", real)
    assert bot.poll().processed == 1
    bot.publish()
    assert len(bot.bot_messages(conversation)) == 1
    with transaction(bot.engine) as session:
        assert len(session.exec(select(Army)).all()) == 1


def test_a_crash_after_the_commit_answers_nothing_twice(bot: Harness,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """A crash right after a message committed, while the next message of the conversation
    was waiting (so the conversation's cursor had not moved): the next run fetches the
    conversation again, skips the recorded message and handles only the other."""
    conversation, first = bot.send("ned_stark", "muster 300 infantry")
    bot.sandbox.reply_modmail(conversation, "ned_stark", "status")
    real = intake.handle_inbound

    def crash(*args: Any, **kwargs: Any) -> bool:
        real(*args, **kwargs)
        raise SystemExit("killed")

    monkeypatch.setattr(intake, "handle_inbound", crash)
    with pytest.raises(SystemExit):
        bot.poll()
    assert [m.message_id for m in bot.inbox()] == [first]
    monkeypatch.undo()
    again = bot.poll()
    assert again.processed == 1 and again.already_done == 1
    assert bot.poll().processed == 0
    bot.publish()
    assert len(bot.bot_messages(conversation)) == 2
    with transaction(bot.engine) as session:
        assert len(session.exec(select(Army)).all()) == 1


def test_a_message_that_always_fails_is_answered_with_an_apology(
        bot: Harness, monkeypatch: pytest.MonkeyPatch) -> None:
    """A bug in the orders must not block the intake: the message is recorded as an error
    and the player gets an apology with a reference."""
    conversation, message = bot.send("ned_stark", "status")

    def broken(*args: Any, **kwargs: Any) -> str:
        raise ZeroDivisionError("bug")

    monkeypatch.setattr(intake, "handle_message", broken)
    report = bot.poll()
    assert report.processed == 1 and report.errors
    bot.publish()
    assert f"reference `{message}`" in bot.bot_messages(conversation)[0]
    assert [m.outcome for m in bot.inbox()] == ["error"]


def test_unchanged_conversations_cost_no_fetch(bot: Harness) -> None:
    """An idle round lists no folder and fetches nothing; the cursor of a
    conversation answered by the bot already includes the bot's reply."""
    conversation, _ = bot.send("ned_stark", "status")
    bot.sandbox.reply_modmail(conversation, "ned_stark", "status")
    bot.cycle()
    with transaction(bot.engine) as session:
        cursor = session.exec(select(ConversationCursor).where(
            ConversationCursor.conversation_id == conversation)).one()
    assert cursor.last_updated == bot.sandbox.conversations()[0].last_updated
    bot.sandbox.reset_requests()
    report = bot.poll()
    assert report.conversations_fetched == 0
    assert bot.sandbox.request_count(route="modmail.get") == 0
    # quiet when idle: the unread counts, and the unread mentions (comment commands are on)
    assert bot.sandbox.request_counts() == {"modmail.unread_count": 1, "inbox": 1}


def test_mark_seen_records_old_modmail_without_answering(bot: Harness) -> None:
    """``poll --mark-seen`` before the first run: old messages are recorded, not answered."""
    conversation, _ = bot.send("ned_stark", "an old question for the moderators")
    report = poll_once(bot.engine, bot.ctx, bot.gateway, bot.clock, mark_seen=True,
                       advance_to=advancer(bot.engine, bot.ctx))
    assert report.processed == 1 and report.replies_queued == 0
    assert [m.outcome for m in bot.inbox()] == [Outcome.SEEN.value]
    assert bot.poll().processed == 0
    bot.publish()
    assert bot.bot_messages(conversation) == []


def test_a_rate_limited_listing_ends_the_round_without_loss(bot: Harness,
                                                            fast_retries: list[float]) -> None:
    """A 429 while listing stops the round (reported, not raised); the next round reads
    the message."""
    _conversation, _ = bot.send("ned_stark", "status")
    bot.sandbox.add_fault(Fault.too_many_requests(reset_seconds=0), method="GET",
                          path="/api/mod/conversations")
    report = bot.poll()
    assert report.rate_limited is not None and report.processed == 0
    assert bot.poll().processed == 1


@pytest.mark.parametrize(("url", "expected"), [
    ("https://www.reddit.com/r/westeros/comments/abc12/orders_march/", "t3_abc12"),
    ("https://old.reddit.com/r/Westeros/comments/abc12/x/", "t3_abc12"),
    ("https://www.reddit.com/r/westeros/comments/abc12/orders/def34/", "t1_def34"),
    ("/r/westeros/comments/abc12/", "t3_abc12"),
    ("<https://www.reddit.com/r/westeros/comments/abc12/x/>", "t3_abc12"),
    ("https://www.reddit.com/r/essos/comments/abc12/x/", None),
    ("https://www.reddit.com/r/westerosi/comments/abc12/x/", None),
    ("see https://www.reddit.com/r/westeros/comments/abc12/x/", None),
    ("https://www.reddit.com/user/ned/comments/abc12/x/", None),
])
def test_permalinks_into_our_subreddit(url: str, expected: str | None) -> None:
    """Only a whole first line that is a permalink into our subreddit names a thing."""
    assert parse_permalink(url, SUBREDDIT) == expected


def _conversation(**kw: Any) -> Conversation:
    base: dict[str, Any] = dict(id="c1", subject="Orders", subreddit=SUBREDDIT, is_auto=False,
                                is_internal=False, state=1, num_messages=1, last_updated="",
                                participant="ned_stark", messages=())
    base.update(kw)
    return Conversation(**base)


def _message(author: str, body: str = "status", **kw: Any) -> ModmailMessage:
    base: dict[str, Any] = dict(id="m1", author=author, author_is_mod=False, body=body,
                                date="", is_internal=False)
    base.update(kw)
    return ModmailMessage(**base)


@pytest.mark.parametrize(("conversation", "message", "read"), [
    (_conversation(), _message("ned_stark"), True),
    (_conversation(), _message("NED_STARK"), True),
    (_conversation(), _message(BOT_USERNAME), False),
    (_conversation(), _message("maester_BOT"), False),
    (_conversation(), _message(MODERATOR, author_is_mod=True), False),
    (_conversation(), _message("ned_stark", is_internal=True), False),
    (_conversation(participant=None, is_auto=True), _message("AutoModerator"), True),
    (_conversation(), _message("AutoModerator"), False),
    (_conversation(participant=None, is_auto=True), _message(MODERATOR), False),
])
def test_which_messages_the_bot_reads(conversation: Conversation, message: ModmailMessage,
                                      read: bool) -> None:
    """The participant's messages and AutoModerator's forwards; never the bot, never notes."""
    assert should_read(conversation, message, BOT_USERNAME) is read


@pytest.mark.parametrize(("subject", "body", "claims"), [
    ("AutoModerator notification", "muster 10 infantry", True),
    ("Orders", "https://www.reddit.com/r/westeros/comments/a1/x/\n\nAuthor: u/ned_stark\n\nx",
     True),
    ("Orders", "https://www.reddit.com/r/westeros/comments/a1/x/\n\nmy post, please read",
     False),
    ("Orders", "muster 10 infantry\nAuthor: u/ned_stark", False),
])
def test_what_claims_to_be_a_forward(subject: str, body: str, claims: bool) -> None:
    """AutoModerator's subject, or its layout (permalink first, then an author line)."""
    assert claims_to_be_forward(_conversation(subject=subject), _message("x", body)) is claims


def test_answered_conversations_may_be_archived(sandbox: Any, tmp_path: Any,
                                                tmp_path_factory: Any) -> None:
    """With ``archive_answered`` the bot archives a conversation after answering it; the
    player writing again reopens it and is answered."""
    bot = make_harness(sandbox, sqlite_url(tmp_path / "a.db"), tmp_path_factory,
                       archive_answered=True)
    conversation, _ = bot.send("ned_stark", "status")
    bot.cycle()
    assert bot.sandbox.conversations()[0].state == 2
    bot.sandbox.reply_modmail(conversation, "ned_stark", "status")
    assert bot.poll().processed == 1
    bot.publish()
    assert len(bot.bot_messages(conversation)) == 2
    bot.engine.dispose()


def test_an_arrival_post_at_the_right_tick(bot: Harness) -> None:
    """End to end: a muster and a march by modmail; the receipt names the arrival time; the
    [Arrival] post appears in the round that reaches that tick, not before, and says when."""
    conversation, _ = bot.send(
        "ned_stark", "muster 300 infantry\nmove army 1: 1316 > 1317 > 1318 > 1319 > 1320 "
        "(cost 5)")
    bot.cycle()
    receipt = bot.bot_messages(conversation)[0]
    found = re.search(r"Arrives: (\d{4}-\d\d-\d\d \d\d:\d\d) UTC", receipt)
    assert found, receipt
    arrives = datetime.strptime(found.group(1), "%Y-%m-%d %H:%M").replace(tzinfo=UTC)
    for _ in range(40):
        before = bot.clock.now()
        bot.clock.set(bot.ctx.tick_at(bot.ctx.tick_of(before) + 1))
        bot.cycle()
        posts = [p for p in bot.sandbox.posts(author=BOT_USERNAME) if "[Arrival]" in p.title]
        if bot.clock.now() < arrives:
            assert posts == []
            continue
        assert bot.clock.now() == arrives
        assert len(posts) == 1 and bot.ctx.when(arrives) in posts[0].body
        assert posts[0].title == "[Arrival] House Stark arrives at 1320"
        break
    else:
        raise AssertionError("the army never arrived")


# --------------------------------------------------------------------------- the real Reddit

def _moderator_writes(bot: Harness, moderator: str, body: str, subject: str = "Orders"
                      ) -> str:
    """A moderator writes to their own subreddit's modmail through PRAW, as on Reddit."""
    from bot.sandbox import password_for
    from bot.sandbox.praw_client import make_reddit

    reddit = make_reddit(bot.sandbox.url, username=moderator, password=password_for(moderator))
    before = {c.id for c in bot.sandbox.conversations()}
    reddit.subreddit(SUBREDDIT).message(subject=subject, message=body)
    (new,) = [c for c in bot.sandbox.conversations() if c.id not in before]
    return new.id


def test_a_moderators_own_modmail_is_a_mod_discussion_answered_internally(bot: Harness
                                                                          ) -> None:
    """Reddit files a moderator's message to their own subreddit as a Mod Discussion
    (internal, no participant). The bot reads it when a configured moderator wrote it,
    acts for the claim named, and answers with an internal note."""
    conversation_id = _moderator_writes(bot, MODERATOR,
                                        "as House Stark: muster 150 infantry")
    (conversation,) = [c for c in bot.sandbox.conversations() if c.id == conversation_id]
    assert conversation.is_internal and conversation.participant is None
    report = bot.poll()
    assert report.processed == 1
    bot.publish()
    with transaction(bot.engine) as session:
        assert session.exec(select(Army)).one().infantry == 150
    answer = [m for m in bot.sandbox.conversation_messages(conversation_id)
              if m.author == BOT_USERNAME]
    assert len(answer) == 1 and answer[0].is_internal and "Army 1" in answer[0].body
    assert [m.outcome for m in bot.inbox()] == ["moderator"]
    assert bot.poll().processed == 0  # its own answer is not read again


def test_other_mod_discussions_are_not_read(bot: Harness) -> None:
    """A discussion started by a moderator who is not configured, and the bot's own notes
    (even when a configured moderator answers in them), are never taken for orders."""
    bot.sandbox.add_user("ser_rodrik", "ser_rodrik-password", moderator_of=(SUBREDDIT,))
    _moderator_writes(bot, "ser_rodrik", "as House Stark: muster 150 infantry")
    with transaction(bot.engine) as session:
        from bot.services import journal
        journal.queue(session, bot.ctx.campaign_id, "dead:z", "mod", title="a report",
                      body="something failed", at=bot.clock.now(), tick=0)
    bot.publish()
    (note,) = [c for c in bot.sandbox.conversations() if c.subject == "a report"]
    bot.gateway.reddit.subreddit(SUBREDDIT)  # the harness client stays the bot's
    from bot.sandbox import password_for
    from bot.sandbox.praw_client import make_reddit
    moderator = make_reddit(bot.sandbox.url, username=MODERATOR,
                            password=password_for(MODERATOR))
    moderator.subreddit(SUBREDDIT).modmail(note.id).reply(body="thanks", internal=True)
    report = bot.poll()
    assert report.processed == 0 and bot.inbox() == []
    with transaction(bot.engine) as session:
        assert session.exec(select(Army)).all() == []


def test_orders_the_harassment_filter_caught_are_answered(bot: Harness) -> None:
    """"attack" is what Reddit's modmail filter catches: the conversation is only in the
    ``filtered`` folder, which the bot polls too (one more listing request a round)."""
    conversation_id, _ = bot.send("ned_stark", "attack army 2 with army 1")
    (conversation,) = bot.sandbox.conversations()
    assert conversation.filtered
    bot.sandbox.reset_requests()
    report = bot.poll()
    assert report.processed == 1
    # the first round lists every folder
    assert bot.sandbox.request_count(route="modmail.list") == len(intake.FOLDERS)
    bot.publish()
    assert len(bot.bot_messages(conversation_id)) == 1


@pytest.mark.parametrize("template", [
    "{{permalink}}\n\nOrders posted by u/{{author}}: {{title}}",  # docs/automoderator.yaml
    "<{{permalink}}>\n\nAuthor: u/{{author}}",
    "[the post]({{permalink}})\n\nby u/{{author}}\n\n{{body}}",
    "by u/{{author}}: {{title}}",  # no {{permalink}}: Reddit puts it on the first line
])
def test_a_forward_is_read_when_its_first_line_is_the_permalink(bot: Harness,
                                                                template: str) -> None:
    """The orders template's place for the permalink is the first line (bare, between angle
    brackets or as a markdown link), and the author it names is the post's."""
    seed = bot.sandbox.seed_automod_forward("ned_stark", "[Orders] muster",
                                            "muster 80 infantry", subreddit=SUBREDDIT,
                                            template=template)
    body = bot.sandbox.conversation_messages(seed.conversation_id)[0].body
    assert seed.permalink in body.splitlines()[0]
    assert bot.poll().forwards == 1
    with transaction(bot.engine) as session:
        assert session.exec(select(Army)).one().infantry == 80


@pytest.mark.parametrize(("template", "why"), [
    ("Orders from u/{{author}}: {{title}}\n\n{{body}}\n\n[the post]({{permalink}})",
     "first line is not a permalink"),
    ("{{body}}\n\nSee https://www.reddit.com/r/essos/comments/zz9/x/ and <{{permalink}}>",
     "first line is not a permalink"),
    ("Title: {{title}}\n\n{{body}}", "does not name the author"),
])
def test_a_forward_whose_template_misplaces_the_permalink_is_not_run(
        bot: Harness, template: str, why: str) -> None:
    """A template that puts anything before ``{{permalink}}`` (or names no author) is not
    trusted: a title or body could carry a permalink of its own. Nothing runs; the
    moderators get a note saying what to fix."""
    seed = bot.sandbox.seed_automod_forward("ned_stark", "[Orders] muster",
                                            "muster 80 infantry", subreddit=SUBREDDIT,
                                            template=template)
    assert bot.poll().forwards == 0
    bot.publish()
    with transaction(bot.engine) as session:
        assert session.exec(select(Army)).all() == []
    (note,) = [m for m in bot.sandbox.conversation_messages(seed.conversation_id)
               if m.author == BOT_USERNAME]
    assert note.is_internal and why in note.body


@pytest.mark.parametrize(("rival_flair", "outcome"), [(None, "notice"),
                                                      ("Orders", "bad_forward")])
def test_a_title_with_a_rivals_permalink_runs_nothing_of_the_rival(
        bot: Harness, rival_flair: str | None, outcome: str) -> None:
    """#30: a template with ``{{title}}`` first, and a player's order post titled with the
    permalink of a rival's post. The rival's lines never run as the rival's: a role-play
    post is not an orders post, and an orders post's author is not the one named."""
    rival = bot.sandbox.submit_post("ned_stark", "Winter is coming", "muster 900 infantry",
                                    subreddit=SUBREDDIT, flair_text=rival_flair)
    link = bot.sandbox.post(rival).permalink
    seed = bot.sandbox.seed_automod_forward(
        "tywin_lannister", f"{bot.sandbox.public_url}{link}", "muster 10 cavalry",
        subreddit=SUBREDDIT, flair_text="Orders",
        template="{{title}}\n\n{{permalink}}\n\nby u/{{author}}")
    assert bot.poll().forwards == 0
    with transaction(bot.engine) as session:
        assert session.exec(select(Army)).all() == []
    assert [m.outcome for m in bot.inbox()] == [outcome]
    assert seed.conversation_id


def test_a_forward_naming_another_author_is_not_run(bot: Harness) -> None:
    """The forwarded item's author must be the one the forward names."""
    post = bot.sandbox.submit_post("ned_stark", "[Orders] x", "muster 150 infantry",
                                   subreddit=SUBREDDIT)
    bot.sandbox.automod_forward(f"t3_{post}",
                                template="{{permalink}}\n\nAuthor: u/tywin_lannister")
    assert bot.poll().forwards == 0
    with transaction(bot.engine) as session:
        assert session.exec(select(Army)).all() == []
    assert [m.outcome for m in bot.inbox()] == ["bad_forward"]


def test_a_report_notice_with_a_permalink_is_a_note_not_orders(bot: Harness) -> None:
    """#24 item 2: an AutoModerator "reported 3 times" notice holds the permalink of a
    role-play post; it is not the orders rule, so nothing runs and the moderators get a
    note."""
    post = bot.sandbox.submit_post("ned_stark", "A feast at Winterfell", "muster 700 infantry",
                                   subreddit=SUBREDDIT)
    seed = bot.sandbox.automod_forward(
        f"t3_{post}", subject="Post reported 3 times",
        template="{{permalink}}\n\nThe post by u/{{author}} was reported 3 times.")
    report = bot.poll()
    assert report.forwards == 0
    bot.publish()
    with transaction(bot.engine) as session:
        assert session.exec(select(Army)).all() == []
    assert [m.outcome for m in bot.inbox()] == ["notice"]
    (note,) = [m for m in bot.sandbox.conversation_messages(seed.conversation_id)
               if m.author == BOT_USERNAME]
    assert note.is_internal and "orders rule" in note.body
    assert bot.sandbox.private_messages("ned_stark") == []


@pytest.mark.parametrize(("subject", "template", "flair", "title"), [
    ("Orders from u/ned_stark", "{{permalink}}\n\nby u/{{author}}", None, "Muster"),
    ("Notice", "{{permalink}}\n\nby u/{{author}}\n\nForwarded to maester as orders.", None,
     "Muster"),
    ("Notice", "{{permalink}}\n\nby u/{{author}}", "Orders", "Muster"),
    ("Notice", "{{permalink}}\n\nby u/{{author}}", None, "[Orders] Muster"),
])
def test_the_orders_rule_is_known_by_subject_marker_flair_or_title(
        bot: Harness, subject: str, template: str, flair: str | None, title: str) -> None:
    """Any one sign of the campaign's orders rule is enough: its configured subject, the
    template's marker line, or the fetched post's orders flair or title tag."""
    post = bot.sandbox.submit_post("ned_stark", title, "muster 60 infantry",
                                   subreddit=SUBREDDIT, flair_text=flair)
    bot.sandbox.automod_forward(f"t3_{post}", subject=subject, template=template)
    assert bot.poll().forwards == 1
    with transaction(bot.engine) as session:
        assert session.exec(select(Army)).one().infantry == 60


def test_an_unreadable_automoderator_message_is_never_dropped_silently(bot: Harness) -> None:
    """An AutoModerator message with no permalink into our subreddit is logged and the
    moderators get an internal note in its conversation, not a reply to AutoModerator."""
    conversation_id, _ = bot.sandbox.send_automod_message(
        SUBREDDIT, "A post by u/ned_stark needs review: [Orders] muster")
    bot.poll()
    bot.publish()
    assert [m.outcome for m in bot.inbox()] == ["bad_forward"]
    assert len(bot.events("bad_forward")) == 1
    (note,) = [m for m in bot.sandbox.conversation_messages(conversation_id)
               if m.author == BOT_USERNAME]
    assert note.is_internal and "holds no permalink into" in note.body
    assert bot.sandbox.private_messages("AutoModerator") == []


def test_first_permalink_skips_other_subreddits() -> None:
    text = ("see https://www.reddit.com/r/essos/comments/aa1/x/ then "
            "[post](https://www.reddit.com/r/westeros/comments/bb2/y/cc3/) and "
            "/r/westeros/comments/dd4/")
    assert intake.first_permalink(text, SUBREDDIT) == "t1_cc3"
    assert intake.first_permalink("no link here", SUBREDDIT) is None


def test_wrong_credentials_back_off_and_tell_the_moderators_once(bot: Harness) -> None:
    """A refused login is not retried every round: 1 minute, then 2, 4... at most hourly;
    one event, one note to the moderators (delivered once the login works again), and
    `maester status` material in the bot state."""
    from bot.reddit import state
    from bot.reddit.gateway import praw_gateway
    from tests.bot.reddit.conftest import TIMEOUT

    good = bot.gateway
    wrong = bot.settings.model_copy(update={"reddit": bot.settings.reddit.model_copy(
        update={"password": "wrong"})})
    bot.gateway = praw_gateway(wrong, timeout=TIMEOUT)
    bot.sandbox.reset_requests()
    for _ in range(5):  # five rounds in the first minute: one login attempt
        bot.poll()
        bot.publish()
        bot.clock.advance(timedelta(seconds=10))
    assert bot.sandbox.request_count(route="token") == 1
    refused = state.load(bot.engine, bot.ctx.campaign_id, state.AUTH)
    assert refused is not None and refused["failures"] == 1
    bot.clock.advance(timedelta(seconds=15))
    bot.poll()  # the second try, then 2 minutes
    assert bot.sandbox.request_count(route="token") == 2
    assert state.auth_wait(bot.engine, bot.ctx.campaign_id, bot.clock.now()) == \
        bot.clock.now() + timedelta(minutes=2)
    assert len(bot.events("auth_refused")) == 1
    bot.gateway = good  # the operator fixes the config
    bot.clock.advance(timedelta(minutes=2))
    bot.poll()
    assert state.load(bot.engine, bot.ctx.campaign_id, state.AUTH) is None
    bot.publish()
    notes = [c for c in bot.sandbox.conversations()
             if c.is_internal and "could not log in" in c.subject]
    assert len(notes) == 1
