"""#30: a post is never doubled, whatever Reddit makes of its body. Posts with pictures go
out as rich text, and whether Reddit's conversion keeps a link without text (the hidden
marker) is recorded nowhere; the sandbox's ``drop_empty_links`` switch drops it. A submit
that Reddit stored but answered with a 502 must still leave one post: the retry finds the
first copy by its visible reference line. Real PRAW, the sandbox."""

from __future__ import annotations

from datetime import timedelta

import pytest

from bot.db.engine import transaction
from bot.reddit import deliver
from bot.reddit.deliver import marker, reference
from bot.reddit.media import UPLOAD_NOTE
from bot.sandbox import BOT_USERNAME, SUBREDDIT, Fault, media
from bot.services import journal
from bot.services.tick import catch_up
from tests.bot.reddit.conftest import SLOW, Harness


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


# --------------------------------------------------------------------------- pictures

@pytest.mark.parametrize(("fault", "method", "path"), [
    (Fault.forbidden(), "POST", media.UPLOAD_PATH),          # storage 403
    (Fault.server_error(503), "POST", media.UPLOAD_PATH),    # storage 503
    (Fault.lost(SLOW), "POST", media.UPLOAD_PATH),           # the upload times out
    (Fault.server_error(500), "POST", "/api/media/asset"),   # the lease fails
], ids=["storage-403", "storage-503", "timeout", "lease-500"])
def test_a_passing_upload_failure_is_retried_with_the_picture(
        bot: Harness, fault: Fault, method: str, path: str) -> None:
    """#30: a failure before the upload finished posts nothing; the outbox tries again
    after its back-off and the post goes out once, with its picture."""
    key, title = _realm_key(bot)
    bot.sandbox.add_fault(fault, method=method, path=path)
    first = bot.publish()
    assert key in bot.pending() and first.retry_later >= 1
    assert [p for p in bot.sandbox.posts(author=BOT_USERNAME) if p.title == title] == []
    (row,) = [e for e in bot.outbox() if e.key == key]
    assert "picture" in row.last_error
    bot.clock.advance(deliver.BACKOFF_BASE)
    assert key in bot.publish().delivered_keys
    (post,) = [p for p in bot.sandbox.posts(author=BOT_USERNAME) if p.title == title]
    assert len(media.post_media(bot.sandbox, post.id)) == 1
    assert not post.body.startswith(UPLOAD_NOTE.strip())


def test_an_upload_that_keeps_failing_falls_back_to_text_after_the_bound(
        bot: Harness) -> None:
    """The retries are bounded: after ``[bot] picture_attempts`` attempts the post goes out
    as text with a note, once."""
    key, title = _realm_key(bot)
    bot.sandbox.add_fault(Fault.server_error(503), method="POST", path=media.UPLOAD_PATH,
                          times=None)
    rounds = 0
    while key in bot.pending():
        rounds += 1
        assert rounds <= bot.settings.bot.picture_attempts
        bot.publish()
        bot.clock.advance(deliver.BACKOFF_CAP)
    assert rounds == bot.settings.bot.picture_attempts
    (post,) = [p for p in bot.sandbox.posts(author=BOT_USERNAME) if p.title == title]
    assert post.body.startswith(UPLOAD_NOTE.strip())
    assert media.post_media(bot.sandbox, post.id) == []
    assert bot.sandbox.request_count(route="media.upload") == \
        bot.settings.bot.picture_attempts
