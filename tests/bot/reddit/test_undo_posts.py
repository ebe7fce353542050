"""Taking back ticks whose posts are already on Reddit (real PRAW against the sandbox):
refused without force; forced, the posts are listed; with deletion, the bot deletes them
through the outbox, and the ticks applied again post afresh."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlmodel import col, select

from bot.db.engine import transaction
from bot.db.models import Outbox, Snapshot
from bot.reddit.gateway import GatewayError
from bot.sandbox import BOT_USERNAME
from bot.services import snapshots
from tests.bot.reddit.conftest import Harness


def test_posts_on_reddit_are_deleted_through_the_outbox_when_asked(bot: Harness) -> None:
    bot.clock.advance(timedelta(days=1))  # a month begins: the [Realm] post
    bot.drain()
    posts = [p for p in bot.sandbox.posts() if p.author == BOT_USERNAME]
    assert any(p.title.startswith("[Realm]") for p in posts)
    with transaction(bot.engine) as session:
        first = session.exec(select(Snapshot).order_by(col(Snapshot.id))).first()
        assert first is not None and first.kind == "tick"
        chosen = snapshots.plan(session, bot.ctx, first, bot.clock.now())
        with pytest.raises(snapshots.UndoRefused, match="already on Reddit"):
            snapshots.restore(session, bot.ctx, chosen, actor="jane", now=bot.clock.now())
    with transaction(bot.engine) as session:
        chosen = snapshots.plan(session, bot.ctx, first, bot.clock.now())
        lines = snapshots.restore(session, bot.ctx, chosen, actor="jane", now=bot.clock.now(),
                                  force=True, delete_posts=True)
    realm = next(e for e in chosen.sent if e.title.startswith("[Realm]"))
    assert any(realm.reddit_id in line and "public post" in line for line in lines)

    bot.publish()
    gone = bot.sandbox.post(realm.reddit_id)
    assert (gone.author, gone.body) == ("[deleted]", "[deleted]")
    with transaction(bot.engine) as session:
        deletion = session.exec(select(Outbox).where(Outbox.kind == "delete")).one()
    assert deletion.status == "delivered" and deletion.target == realm.reddit_id

    bot.poll()  # the ticks apply again: the [Realm] post is queued and posted afresh
    bot.drain()
    again = [p for p in bot.sandbox.posts()
             if p.author == BOT_USERNAME and p.title == realm.title]
    assert len(again) == 1 and again[0].id != realm.reddit_id.removeprefix("t3_")


def test_deleting_twice_or_someone_elses_post_changes_nothing(bot: Harness) -> None:
    post_id = bot.sandbox.submit_post("ned_stark", "[Orders] mine", "muster 10 infantry",
                                      subreddit="westeros")
    with pytest.raises(GatewayError):
        bot.gateway.delete(f"t3_{post_id}")
    assert bot.sandbox.post(post_id).author == "ned_stark"
    bot.gateway.delete("t3_zzzzzz")  # nothing there: nothing happens
