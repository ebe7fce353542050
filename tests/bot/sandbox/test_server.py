"""The server itself: lifecycle, counting, the rate budget, the clock and threads."""

from __future__ import annotations

import threading
from datetime import UTC, datetime

import praw
import prawcore
import pytest
import requests

from bot.sandbox import (
    BOT_USERNAME,
    SUBREDDIT,
    RedditSandbox,
    SandboxError,
    populate_default_world,
)
from bot.sandbox.praw_client import make_reddit
from tests.fixtures.reddit import RedditFactory


def test_context_manager_starts_and_stops(praw_home: object) -> None:
    """Leaving the ``with`` block stops serving; a new sandbox can take the same port."""
    with RedditSandbox() as sandbox:
        port = sandbox.port
        assert sandbox.url == f"http://127.0.0.1:{port}"
        assert requests.get(sandbox.url + "/_sandbox/health", timeout=5).json()["ok"] is True
    with pytest.raises(RuntimeError):
        sandbox.port  # noqa: B018 -- the property raises
    with RedditSandbox(port=port) as again:
        assert again.port == port


def test_start_twice_is_refused(praw_home: object) -> None:
    """A sandbox serves once at a time."""
    with RedditSandbox() as sandbox, pytest.raises(RuntimeError, match="already running"):
        sandbox.start()


def test_request_counting_by_route_path_and_method(
    praw_reddit: praw.Reddit, sandbox: RedditSandbox
) -> None:
    """Each API request is logged with its route; control requests are not counted."""
    sandbox.send_modmail("ned_stark", "s", "b", subreddit=SUBREDDIT)
    praw_reddit.user.me()
    list(praw_reddit.subreddit(SUBREDDIT).modmail.conversations())
    requests.get(sandbox.url + "/_sandbox/health", timeout=5)
    assert sandbox.request_count() == 3
    assert sandbox.request_count(include_token=True) == 4
    assert sandbox.request_count(route="modmail.list") == 2
    assert sandbox.request_count(path="/api/v1/me", method="GET") == 1
    assert sandbox.request_count(method="POST") == 0
    assert sandbox.request_counts() == {"me": 1, "modmail.list": 2}
    assert sandbox.request_counts(include_token=True)["token"] == 1
    sandbox.reset_requests()
    assert sandbox.requests() == []


def test_unknown_route_is_404(praw_reddit: praw.Reddit, sandbox: RedditSandbox) -> None:
    """A path the sandbox does not implement answers 404, logged as route 'unknown'."""
    with pytest.raises(prawcore.NotFound):
        praw_reddit.get("/api/v1/me/trophies/nope")
    assert sandbox.requests()[-1].route == "unknown"


def test_rate_budget_answers_429_when_spent(
    praw_reddit: praw.Reddit, sandbox: RedditSandbox
) -> None:
    """With a budget, used/remaining count down per user and the excess gets 429."""
    sandbox.set_rate_budget(3, window_seconds=600)
    assert praw_reddit._core is not None
    token = praw_reddit._core._authorizer
    praw_reddit.user.me()
    assert token.access_token is not None
    headers = {"Authorization": f"bearer {token.access_token}"}
    answers = [
        requests.get(sandbox.url + "/api/v1/me", headers=headers, timeout=5) for _ in range(3)
    ]
    assert [a.status_code for a in answers] == [200, 200, 429]
    assert [a.headers["x-ratelimit-used"] for a in answers] == ["2", "3", "4"]
    assert [a.headers["x-ratelimit-remaining"] for a in answers] == ["1.0", "0.0", "0.0"]
    sandbox.set_rate_budget(None)
    assert requests.get(sandbox.url + "/api/v1/me", headers=headers, timeout=5).status_code == 200


def test_injected_clock_and_strictly_increasing_times(praw_home: object) -> None:
    """A frozen clock still gives every event its own later timestamp."""
    frozen = datetime(299, 3, 1, 6, 0, tzinfo=UTC)
    with RedditSandbox(clock=lambda: frozen) as sandbox:
        populate_default_world(sandbox)
        sandbox.send_modmail("ned_stark", "a", "a", subreddit=SUBREDDIT)
        sandbox.send_modmail("ned_stark", "b", "b", subreddit=SUBREDDIT)
        stamps = [c.last_updated for c in sandbox.conversations()]
        assert stamps[0].startswith("0299-03-01T06:00:00")
        assert stamps[0] < stamps[1]
    with pytest.raises(SandboxError, match="timezone-aware"):
        RedditSandbox(clock=lambda: datetime(2020, 1, 1))


def test_concurrent_clients_get_distinct_ids(sandbox: RedditSandbox) -> None:
    """Requests are served on threads; the world's lock keeps every post distinct."""
    ids: list[str] = []
    lock = threading.Lock()

    def post_many(name: str) -> None:
        reddit = make_reddit(sandbox.url, username=name, password=f"{name}-password")
        for i in range(5):
            post = reddit.subreddit(SUBREDDIT).submit(f"{name} {i}", selftext="x")
            with lock:
                ids.append(post.id)

    threads = [
        threading.Thread(target=post_many, args=(n,))
        for n in ("ned_stark", "daenerys_t", "cersei_lannister")
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(ids) == 15 == len(set(ids))
    assert sorted(ids) == sorted(p.id for p in sandbox.posts())


def test_hooks_refuse_what_reddit_lacks(sandbox: RedditSandbox) -> None:
    """Seeding names that do not exist, or duplicates, raises SandboxError."""
    with pytest.raises(SandboxError, match="no user"):
        sandbox.send_modmail("nobody", "s", "b", subreddit=SUBREDDIT)
    with pytest.raises(SandboxError, match="no subreddit"):
        sandbox.send_modmail("ned_stark", "s", "b", subreddit="essos")
    with pytest.raises(SandboxError, match="already exists"):
        sandbox.add_user(BOT_USERNAME, "x")
    conversation_id, _ = sandbox.send_modmail("ned_stark", "s", "b", subreddit=SUBREDDIT)
    with pytest.raises(SandboxError, match="not the participant"):
        sandbox.reply_modmail(conversation_id, "daenerys_t", "me too")
    with pytest.raises(SandboxError, match="refuse this post"):
        sandbox.submit_post("ned_stark", "", "empty title", subreddit=SUBREDDIT)
    sandbox.ban_user(SUBREDDIT, "ned_stark")
    with pytest.raises(SandboxError, match="banned"):
        sandbox.send_modmail("ned_stark", "s", "b", subreddit=SUBREDDIT)


def test_activity_feed_lists_new_things_in_order(
    praw_reddit: praw.Reddit, sandbox: RedditSandbox, reddit_for: RedditFactory
) -> None:
    """The activity feed (for ``maester demo``) shows posts, comments and modmail in order."""
    conversation_id, _ = sandbox.send_modmail(
        "ned_stark", "Muster", "muster 10", subreddit=SUBREDDIT
    )
    seen = len(sandbox.activity())
    praw_reddit.subreddit(SUBREDDIT).modmail(conversation_id).reply(body="ok")
    post = praw_reddit.subreddit(SUBREDDIT).submit("[Arrival] x", selftext="y")
    reddit_for("daenerys_t").submission(post.id).reply(body="nice")
    later = sandbox.activity(after=seen)
    assert [(a.kind, a.author, a.body) for a in later] == [
        ("modmail", BOT_USERNAME, "ok"),
        ("post", BOT_USERNAME, "y"),
        ("comment", "daenerys_t", "nice"),
    ]
    assert [a.seq for a in later] == [seen + 1, seen + 2, seen + 3]
