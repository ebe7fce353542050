"""Modmail through real PRAW: listing and paging, conversations, replies, archive, state."""

from __future__ import annotations

import praw
import praw.exceptions
import prawcore
import pytest

from bot.sandbox import BOT_USERNAME, MODERATOR, SUBREDDIT, RedditSandbox
from tests.fixtures.reddit import RedditFactory


def _listing(reddit: praw.Reddit, **kwargs: object) -> list[praw.models.ModmailConversation]:
    subreddit = reddit.subreddit(SUBREDDIT)
    return list(subreddit.modmail.conversations(sort="recent", **kwargs))


def test_listing_pages_past_100_conversations(
    praw_reddit: praw.Reddit, sandbox: RedditSandbox
) -> None:
    """Reddit gives at most 100 per page; PRAW asks for the next with after=<last id>."""
    seeded = [
        sandbox.send_modmail("ned_stark", f"order {i}", f"march {i}", subreddit=SUBREDDIT)[0]
        for i in range(130)
    ]
    got = [c.id for c in _listing(praw_reddit, state="all", limit=None)]
    assert got == list(reversed(seeded))
    pages = [r for r in sandbox.requests() if r.route == "modmail.list"]
    # 100, then 30, then an empty page that ends PRAW's generator.
    assert len(pages) == 3


def test_unknown_after_cursor_is_not_found(
    praw_reddit: praw.Reddit, sandbox: RedditSandbox
) -> None:
    """An ``after`` id that names no conversation is CONVERSATION_NOT_FOUND (404)."""
    sandbox.send_modmail("ned_stark", "hello", "hi", subreddit=SUBREDDIT)
    subreddit = praw_reddit.subreddit(SUBREDDIT)
    with pytest.raises(prawcore.NotFound):
        list(subreddit.modmail.conversations(params={"after": "zzzzz"}))


def test_summary_holds_only_the_newest_message(
    praw_reddit: praw.Reddit, sandbox: RedditSandbox
) -> None:
    """In the listing, objIds names only the newest message even when there are more."""
    conversation_id, _ = sandbox.send_modmail("ned_stark", "Muster", "one", subreddit=SUBREDDIT)
    sandbox.reply_modmail(conversation_id, "ned_stark", "two")
    [summary] = _listing(praw_reddit, state="all")
    assert summary.num_messages == 2
    # PRAW attaches messages to a summary only when all of them are present.
    assert "messages" not in vars(summary)
    full = praw_reddit.subreddit(SUBREDDIT).modmail(conversation_id)
    assert [m.body_markdown for m in full.messages] == ["one", "two"]
    assert [m.author.name for m in full.messages] == ["ned_stark", "ned_stark"]
    assert full.participant.name == "ned_stark"
    assert full.owner.display_name == SUBREDDIT
    assert full.user.name == "ned_stark"


def test_single_message_summary_carries_its_message(
    praw_reddit: praw.Reddit, sandbox: RedditSandbox
) -> None:
    """A one-message conversation's summary already holds that message."""
    sandbox.send_modmail("cersei_lannister", "Muster", "muster 50", subreddit=SUBREDDIT)
    [summary] = _listing(praw_reddit, state="all")
    assert [m.body_markdown for m in summary.messages] == ["muster 50"]
    assert summary.state == 0
    assert summary.is_auto is False
    assert summary.last_user_update == summary.last_updated
    assert summary.last_mod_update is None


def test_reply_returns_the_new_message_last(
    praw_reddit: praw.Reddit, sandbox: RedditSandbox
) -> None:
    """A reply answers 201 with the conversation; the new message is the last objIds entry."""
    conversation_id, _ = sandbox.send_modmail("ned_stark", "Muster", "muster", subreddit=SUBREDDIT)
    conversation = praw_reddit.subreddit(SUBREDDIT).modmail(conversation_id)
    message = conversation.reply(body="Receipt [](#maester:abc)")
    assert message.body_markdown == "Receipt [](#maester:abc)"
    assert message.author.name == BOT_USERNAME
    assert message.author.is_subreddit_mod is True
    assert [r.status for r in sandbox.requests() if r.route == "modmail.reply"] == [201]
    stored = sandbox.conversation_messages(conversation_id)
    assert [(m.author, m.id) for m in stored][-1] == (BOT_USERNAME, message.id)
    assert [c.state for c in sandbox.conversations()] == [1]


def test_internal_note_and_hidden_author(praw_reddit: praw.Reddit, sandbox: RedditSandbox) -> None:
    """isInternal notes stay among moderators; isAuthorHidden hides the name from the player."""
    conversation_id, _ = sandbox.send_modmail("ned_stark", "Muster", "muster", subreddit=SUBREDDIT)
    conversation = praw_reddit.subreddit(SUBREDDIT).modmail(conversation_id)
    note = conversation.reply(body="secret defense bonus +2", internal=True)
    assert note.is_internal is True
    conversation.reply(body="Receipt", author_hidden=True)
    seen_by_player = sandbox.private_messages("ned_stark")
    assert [(m.body, m.author) for m in seen_by_player] == [("Receipt", None)]
    assert [m.is_internal for m in sandbox.conversation_messages(conversation_id)] == [
        False,
        True,
        False,
    ]


def test_archive_moves_conversation_out_of_all(
    praw_reddit: praw.Reddit, sandbox: RedditSandbox
) -> None:
    """Archive answers 204; the conversation leaves ``all`` and shows in ``archived``."""
    conversation_id, _ = sandbox.send_modmail("ned_stark", "Muster", "muster", subreddit=SUBREDDIT)
    praw_reddit.subreddit(SUBREDDIT).modmail(conversation_id).archive()
    assert [r.status for r in sandbox.requests() if r.route == "modmail.state"] == [204]
    assert _listing(praw_reddit, state="all") == []
    [archived] = _listing(praw_reddit, state="archived")
    assert archived.id == conversation_id and archived.state == 2
    full = praw_reddit.subreddit(SUBREDDIT).modmail(conversation_id)
    assert [a.action_type_id for a in full.mod_actions] == [2]
    full.unarchive()
    assert [c.id for c in _listing(praw_reddit, state="all")] == [conversation_id]


def test_player_reply_reopens_archived_conversation_as_new_activity(
    praw_reddit: praw.Reddit, sandbox: RedditSandbox
) -> None:
    """A user's reply to an archived conversation moves it back to in progress, on top."""
    old_id, _ = sandbox.send_modmail("ned_stark", "Old order", "march", subreddit=SUBREDDIT)
    newer_id, _ = sandbox.send_modmail("daenerys_t", "Newer", "muster", subreddit=SUBREDDIT)
    before = praw_reddit.subreddit(SUBREDDIT).modmail(old_id)
    before.reply(body="Receipt")
    before.archive()
    stamp = praw_reddit.subreddit(SUBREDDIT).modmail(old_id).last_updated
    assert [c.id for c in _listing(praw_reddit, state="all")] == [newer_id]

    sandbox.reply_modmail(old_id, "ned_stark", "and another march")

    listed = _listing(praw_reddit, state="all")
    assert [c.id for c in listed] == [old_id, newer_id]
    reopened = listed[0]
    assert reopened.state == 1
    assert reopened.last_updated > stamp
    assert reopened.last_user_update == reopened.last_updated
    assert reopened.num_messages == 3
    full = praw_reddit.subreddit(SUBREDDIT).modmail(old_id)
    assert full.messages[-1].body_markdown == "and another march"


def test_sort_by_recent_follows_last_updated(
    praw_reddit: praw.Reddit, sandbox: RedditSandbox
) -> None:
    """sort=recent orders by lastUpdated: a reply in an old conversation brings it first."""
    first, _ = sandbox.send_modmail("ned_stark", "a", "a", subreddit=SUBREDDIT)
    second, _ = sandbox.send_modmail("daenerys_t", "b", "b", subreddit=SUBREDDIT)
    assert [c.id for c in _listing(praw_reddit, state="all")] == [second, first]
    sandbox.reply_modmail(first, "ned_stark", "again")
    assert [c.id for c in _listing(praw_reddit, state="all")] == [first, second]


def test_bot_starts_a_conversation_with_a_player(
    praw_reddit: praw.Reddit, sandbox: RedditSandbox, reddit_for: RedditFactory
) -> None:
    """The bot sends private news with modmail.create; the player sees and answers it."""
    subreddit = praw_reddit.subreddit(SUBREDDIT)
    created = subreddit.modmail.create(
        subject="Scouting report", body="Riders seen near the Twins", recipient="ned_stark"
    )
    assert created.participant.name == "ned_stark"
    assert [m.body_markdown for m in created.messages] == ["Riders seen near the Twins"]
    assert created.is_internal is False

    ned = reddit_for("ned_stark")
    [message] = list(ned.inbox.unread())
    assert message.subject == "Scouting report"
    assert message.body == "Riders seen near the Twins"
    assert message.author.name == BOT_USERNAME
    message.reply(body="thanks, march on")

    full = subreddit.modmail(created.id)
    assert [m.author.name for m in full.messages] == [BOT_USERNAME, "ned_stark"]
    assert full.last_user_update == full.last_updated


def test_modmail_create_to_a_moderator_is_internal(
    praw_reddit: praw.Reddit, sandbox: RedditSandbox
) -> None:
    """Without a user recipient (or to a moderator) Reddit makes a moderator discussion."""
    created = praw_reddit.subreddit(SUBREDDIT).modmail.create(
        subject="Dead letter", body="post failed for good", recipient=MODERATOR
    )
    assert created.is_internal is True
    assert _listing(praw_reddit, state="all") == []
    assert [c.id for c in _listing(praw_reddit, state="mod")] == [created.id]


def test_player_writes_modmail_through_praw(
    praw_reddit: praw.Reddit, reddit_for: RedditFactory, sandbox: RedditSandbox
) -> None:
    """``subreddit.message`` by a player opens a conversation the bot lists as new."""
    reddit_for("daenerys_t").subreddit(SUBREDDIT).message(
        subject="Orders", message="march Dragonstone -> Kings Landing"
    )
    [summary] = _listing(praw_reddit, state="new")
    assert summary.subject == "Orders"
    assert summary.participant.name == "daenerys_t"
    assert [m.author.name for m in summary.messages] == ["daenerys_t"]


def test_modmail_errors(
    praw_reddit: praw.Reddit, reddit_for: RedditFactory, sandbox: RedditSandbox
) -> None:
    """Empty replies, unknown conversations and non-moderators are refused as Reddit does."""
    conversation_id, _ = sandbox.send_modmail("ned_stark", "Muster", "muster", subreddit=SUBREDDIT)
    with pytest.raises(praw.exceptions.RedditAPIException) as empty:
        praw_reddit.subreddit(SUBREDDIT).modmail(conversation_id).reply(body="  ")
    assert empty.value.items[0].error_type == "NO_TEXT"
    with pytest.raises(prawcore.NotFound):
        praw_reddit.subreddit(SUBREDDIT).modmail("zzzzzz").reply(body="hi")
    player = reddit_for("ned_stark")
    with pytest.raises(prawcore.Forbidden):
        player.subreddit(SUBREDDIT).modmail(conversation_id).reply(body="I am a mod now")
    with pytest.raises(praw.exceptions.RedditAPIException) as listing:
        list(player.subreddit(SUBREDDIT).modmail.conversations())
    assert listing.value.items[0].error_type == "BAD_SR_NAME"


def test_unread_count_and_mark_read(praw_reddit: praw.Reddit, sandbox: RedditSandbox) -> None:
    """Player messages mark a conversation unread until it is read (markRead or read())."""
    conversation_id, _ = sandbox.send_modmail("ned_stark", "Muster", "muster", subreddit=SUBREDDIT)
    subreddit = praw_reddit.subreddit(SUBREDDIT)
    assert subreddit.modmail.unread_count()["new"] == 1
    subreddit.modmail(conversation_id, mark_read=True).messages  # noqa: B018 -- fetches
    assert subreddit.modmail.unread_count()["new"] == 0
    subreddit.modmail(conversation_id).unread()
    assert subreddit.modmail.unread_count()["new"] == 1
    subreddit.modmail(conversation_id).read()
    assert subreddit.modmail.unread_count()["new"] == 0


def test_a_moderator_writing_to_their_subreddit_makes_a_mod_discussion(
    reddit_for: RedditFactory, sandbox: RedditSandbox
) -> None:
    """As on Reddit: a moderator's message to their own subreddit is internal with no
    participant (in the ``mod`` folder), the same as a moderator-created conversation
    ``to`` a moderator; a player's message is an ordinary user conversation."""
    reddit_for(MODERATOR).subreddit(SUBREDDIT).message(subject="plans", message="hello")
    reddit_for("ned_stark").subreddit(SUBREDDIT).message(subject="orders", message="hi")
    bot = reddit_for(BOT_USERNAME)
    bot.subreddit(SUBREDDIT).modmail.create(subject="to a mod", body="x", recipient=MODERATOR)
    views = {c.subject: c for c in sandbox.conversations()}
    assert views["plans"].is_internal and views["plans"].participant is None
    assert views["to a mod"].is_internal and views["to a mod"].participant is None
    assert not views["orders"].is_internal and views["orders"].participant == "ned_stark"
    assert {c.subject for c in _listing(bot, state="mod")} == {"plans", "to a mod"}
    assert {c.subject for c in _listing(bot, state="all")} == {"orders"}


def test_the_harassment_filter_moves_conversations_to_filtered(
    praw_reddit: praw.Reddit, sandbox: RedditSandbox
) -> None:
    """A user's message with a filtered word lands only in ``filtered``; moderators and
    AutoModerator are never filtered; the filter can be turned off."""
    caught, _ = sandbox.send_modmail("ned_stark", "war", "ATTACK Casterly Rock",
                                     subreddit=SUBREDDIT)
    fine, _ = sandbox.send_modmail("ned_stark", "peace", "attacking is not a word here",
                                   subreddit=SUBREDDIT)
    sandbox.send_modmail(MODERATOR, "mod", "attack plan", subreddit=SUBREDDIT)
    assert [c.id for c in _listing(praw_reddit, state="filtered")] == [caught]
    assert [c.id for c in _listing(praw_reddit, state="all")] == [fine]
    assert praw_reddit.subreddit(SUBREDDIT).modmail.unread_count()["filtered"] == 1
    sandbox.set_harassment_filter(SUBREDDIT, enabled=False)
    later, _ = sandbox.send_modmail("ned_stark", "war 2", "attack again", subreddit=SUBREDDIT)
    assert later in [c.id for c in _listing(praw_reddit, state="all")]


def test_moderator_permissions_are_listed_and_mail_is_needed_for_modmail(
    reddit_for: RedditFactory, sandbox: RedditSandbox
) -> None:
    """``/about/moderators`` lists each moderator's permissions; without ``mail`` every
    modmail endpoint answers 403."""
    sandbox.add_moderator(SUBREDDIT, BOT_USERNAME, permissions=["posts", "flair"])
    bot = reddit_for(BOT_USERNAME)
    listed = {m.name: m.mod_permissions for m in bot.subreddit(SUBREDDIT).moderator()}
    assert listed[BOT_USERNAME] == ["posts", "flair"] and listed[MODERATOR] == ["all"]
    with pytest.raises(prawcore.Forbidden):
        _listing(bot, state="all")


def test_unread_is_per_moderator(reddit_for: RedditFactory, sandbox: RedditSandbox) -> None:
    """As on Reddit, a conversation is unread for each moderator who has not read its newest
    message by someone else: a moderator's Mod Discussion is unread for the bot, not for its
    author; the bot's own reply makes nothing unread for the bot; reading is per reader."""
    reddit_for(MODERATOR).subreddit(SUBREDDIT).message(subject="plans", message="hello")
    bot = reddit_for(BOT_USERNAME).subreddit(SUBREDDIT)
    moderator = reddit_for(MODERATOR).subreddit(SUBREDDIT)
    assert bot.modmail.unread_count()["mod"] == 1
    assert moderator.modmail.unread_count()["mod"] == 0
    (plans,) = [c.id for c in sandbox.conversations()]
    bot.modmail(plans).read()
    bot.modmail(plans).reply(body="noted", internal=True)
    assert bot.modmail.unread_count()["mod"] == 0
    assert moderator.modmail.unread_count()["mod"] == 1


def test_ban_appeals_and_join_requests_have_folders_and_are_listed_in_all(
    praw_reddit: praw.Reddit, sandbox: RedditSandbox
) -> None:
    """A banned user's appeal lands in ``appeals``, a join request in ``join_requests``;
    both are listed with the rest in ``all`` and counted in their own folder only."""
    sandbox.add_user("arya", "arya-password")
    sandbox.ban_user(SUBREDDIT, "ned_stark")
    appeal, _ = sandbox.send_ban_appeal("ned_stark", "unban me", subreddit=SUBREDDIT)
    join, _ = sandbox.send_join_request("arya", "let me in", subreddit=SUBREDDIT)
    assert [c.id for c in _listing(praw_reddit, state="appeals")] == [appeal]
    assert [c.id for c in _listing(praw_reddit, state="join_requests")] == [join]
    assert {c.id for c in _listing(praw_reddit, state="all")} == {appeal, join}
    counts = praw_reddit.subreddit(SUBREDDIT).modmail.unread_count()
    assert (counts["appeals"], counts["join_requests"], counts["new"]) == (1, 1, 0)
    with pytest.raises(ValueError, match="not banned"):
        sandbox.send_ban_appeal("arya", "unban me", subreddit=SUBREDDIT)


def test_a_listing_may_show_a_conversation_late(
    praw_reddit: praw.Reddit, sandbox: RedditSandbox
) -> None:
    """``delay_listing`` leaves a conversation out of listings (it can still be fetched)."""
    late, _ = sandbox.send_modmail("ned_stark", "late", "hi", subreddit=SUBREDDIT)
    sandbox.delay_listing(late)
    assert _listing(praw_reddit, state="all") == []
    assert praw_reddit.subreddit(SUBREDDIT).modmail(late).subject == "late"
    sandbox.delay_listing(late, delayed=False)
    assert [c.id for c in _listing(praw_reddit, state="all")] == [late]
