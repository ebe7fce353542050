"""#30: a post is never doubled, whatever Reddit makes of its body. Posts with pictures go
out as rich text, and whether Reddit's conversion keeps a link without text (the hidden
marker) is recorded nowhere; the sandbox's ``drop_empty_links`` switch drops it. A submit
that Reddit stored but answered with a 502 must still leave one post: the retry finds the
first copy by its visible reference line. Real PRAW, the sandbox."""

from __future__ import annotations

from datetime import timedelta

import pytest

from bot.db.engine import transaction
from bot.reddit.deliver import marker, reference
from bot.sandbox import BOT_USERNAME, SUBREDDIT, Fault, media
from bot.services import journal
from bot.services.tick import catch_up
from tests.bot.reddit.conftest import Harness


def _queue_post(bot: Harness, key: str, title: str) -> None:
    now = bot.clock.now()
    with transaction(bot.engine) as session:
        journal.queue(session, bot.ctx.campaign_id, key, "post", body="The host arrives.",
                      at=now, tick=bot.ctx.tick_of(now), target=SUBREDDIT, title=title,
                      public=True)


def _realm_key(bot: Harness) -> tuple[str, str]:
    bot.clock.advance(timedelta(hours=bot.settings.calendar.month_hours))
    catch_up(bot.engine, bot.ctx, bot.clock.now())
    (entry,) = [e for e in bot.outbox() if e.key.startswith("realm:")][-1:]
    return entry.key, entry.title


@pytest.mark.parametrize("picture", [False, True], ids=["text", "picture"])
def test_a_stored_submit_answered_502_makes_one_post_when_reddit_drops_the_marker(
        bot: Harness, picture: bool) -> None:
    """The switch drops the hidden marker from what Reddit stores; the 502 makes the bot
    unsure whether the post exists; the next attempt finds it by its reference line and
    records it instead of posting again."""
    if picture:
        key, title = _realm_key(bot)
    else:
        key, title = "arrival:7:3", "[Arrival] House Stark arrives at Moat Cailin"
        _queue_post(bot, key, title)
    bot.sandbox.set_drop_empty_links()
    bot.sandbox.add_fault(Fault.stored_then_error(502), method="POST", path="/api/submit")
    first = bot.publish()
    assert key not in first.delivered_keys and key in bot.pending()
    bot.clock.advance(timedelta(hours=2))
    second = bot.publish()
    assert key in second.delivered_keys and second.found_existing >= 1
    (post,) = [p for p in bot.sandbox.posts(author=BOT_USERNAME) if p.title == title]
    assert marker(key) not in post.body  # Reddit really dropped it
    assert reference(bot.ctx, key) in post.body
    assert len(media.post_media(bot.sandbox, post.id)) == (1 if picture else 0)
    assert [e.reddit_id for e in bot.outbox() if e.key == key] == [f"t3_{post.id}"]


def test_the_reference_names_neither_the_key_nor_the_campaign(bot: Harness) -> None:
    """The visible line is a hash: it tells a reader nothing (an army's number, a claim)."""
    ref = reference(bot.ctx, "arrival:12:40")
    assert ref.startswith("mref-") and len(ref) == len("mref-") + 12
    assert "arrival" not in ref and ":" not in ref
    assert ref != reference(bot.ctx, "arrival:12:41")


def test_two_posts_with_the_same_title_are_told_apart(bot: Harness) -> None:
    """Two entries with one title (the same army arriving twice) are two posts: the second
    entry's retry does not take the first entry's post for its own."""
    title = "[Arrival] House Stark arrives at Moat Cailin"
    _queue_post(bot, "arrival:1:3", title)
    bot.publish()
    bot.sandbox.set_drop_empty_links()
    _queue_post(bot, "arrival:1:9", title)
    bot.sandbox.add_fault(Fault.server_error(502), method="POST", path="/api/submit")
    bot.publish()  # refused before storing: nothing on Reddit, unsure
    bot.clock.advance(timedelta(hours=2))
    bot.publish()
    posts = [p for p in bot.sandbox.posts(author=BOT_USERNAME) if p.title == title]
    assert len(posts) == 2
    ids = {e.key: e.reddit_id for e in bot.outbox()}
    assert ids["arrival:1:3"] != ids["arrival:1:9"]
