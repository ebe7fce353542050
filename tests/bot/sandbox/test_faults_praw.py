"""Every fault kind, and what real PRAW 8.0.3 / prawcore 4.0.0 do about it."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import praw
import praw.exceptions
import prawcore
import pytest
import requests

from bot.sandbox import BOT_PASSWORD, BOT_USERNAME, SUBREDDIT, Fault, RedditSandbox
from bot.sandbox.praw_client import make_reddit

REPO = Path(__file__).resolve().parents[3]


def _submit(reddit: praw.Reddit, title: str = "[Arrival] host") -> praw.models.Submission:
    return reddit.subreddit(SUBREDDIT).submit(title, selftext="body [](#maester:k)")


def _statuses(sandbox: RedditSandbox, route: str) -> list[int]:
    return [r.status for r in sandbox.requests() if r.route == route]


def test_every_answer_has_ratelimit_headers(sandbox: RedditSandbox) -> None:
    """x-ratelimit-remaining/used/reset come with every answer; used is 0 by default."""
    answers = [
        requests.get(sandbox.url + "/api/v1/me", timeout=5),
        requests.post(sandbox.url + "/api/v1/access_token", timeout=5),
        requests.get(sandbox.url + "/no/such/route", timeout=5),
    ]
    for answer in answers:
        assert answer.headers["x-ratelimit-used"] == "0"
        assert float(answer.headers["x-ratelimit-remaining"]) > 0
        assert 0 < int(answer.headers["x-ratelimit-reset"]) <= 600


def test_401_revoked_token_then_praw_refreshes_and_succeeds(
    praw_reddit: praw.Reddit, sandbox: RedditSandbox, fast_retries: list[float]
) -> None:
    """A 401 with invalid_token makes prawcore drop the token, fetch another and retry."""
    praw_reddit.user.me()
    sandbox.add_fault(Fault.invalid_token(), path="/api/submit")
    post = _submit(praw_reddit)
    assert _statuses(sandbox, "submit") == [401, 200]
    assert sandbox.request_count(route="token") == 2
    assert [p.id for p in sandbox.posts()] == [post.id]


def test_429_raises_too_many_requests(praw_reddit: praw.Reddit, sandbox: RedditSandbox) -> None:
    """prawcore does not retry a 429: TooManyRequests, nothing stored, limiter exhausted."""
    sandbox.add_fault(Fault.too_many_requests(), path="/api/submit")
    with pytest.raises(prawcore.TooManyRequests):
        _submit(praw_reddit)
    assert _statuses(sandbox, "submit") == [429]
    assert sandbox.posts() == []
    # remaining 0 in the headers: prawcore will wait max(1, reset) s before its next call.
    assert praw_reddit._core is not None
    assert praw_reddit._core._rate_limiter.remaining == 0


@pytest.mark.parametrize("status", [500, 502, 503])
def test_5xx_is_retried_by_prawcore(
    praw_reddit: praw.Reddit, sandbox: RedditSandbox, fast_retries: list[float], status: int
) -> None:
    """A 5xx on a POST is retried (up to two extra tries); one 5xx then success = one post."""
    sandbox.add_fault(Fault.server_error(status), path="/api/submit")
    post = _submit(praw_reddit)
    assert _statuses(sandbox, "submit") == [status, 200]
    assert [p.id for p in sandbox.posts()] == [post.id]
    assert len(fast_retries) == 1


def test_three_5xx_in_a_row_raise_server_error(
    praw_reddit: praw.Reddit, sandbox: RedditSandbox, fast_retries: list[float]
) -> None:
    """After the two extra tries prawcore gives up with ServerError."""
    sandbox.add_fault(Fault.server_error(503), method="POST", path="/api/submit", times=3)
    with pytest.raises(prawcore.ServerError):
        _submit(praw_reddit)
    assert _statuses(sandbox, "submit") == [503, 503, 503]
    assert sandbox.posts() == []


def test_5xx_on_a_read_is_retried(
    praw_reddit: praw.Reddit, sandbox: RedditSandbox, fast_retries: list[float]
) -> None:
    """GETs are retried the same way (here the modmail listing)."""
    sandbox.send_modmail("ned_stark", "s", "b", subreddit=SUBREDDIT)
    sandbox.add_fault(Fault.server_error(502), method="GET", path="/api/mod/conversations")
    listed = list(praw_reddit.subreddit(SUBREDDIT).modmail.conversations())
    assert len(listed) == 1
    # The retried first page, then the empty page after it that ends PRAW's generator.
    assert _statuses(sandbox, "modmail.list") == [502, 200, 200]


def test_long_ratelimit_raises_reddit_api_exception(
    praw_reddit: praw.Reddit, sandbox: RedditSandbox
) -> None:
    """RATELIMIT asking for more than ratelimit_seconds (5 s) is raised, not slept through."""
    sandbox.add_fault(Fault.ratelimit(9, "minutes"), path="/api/submit")
    with pytest.raises(praw.exceptions.RedditAPIException) as caught:
        _submit(praw_reddit)
    item = caught.value.items[0]
    assert item.error_type == "RATELIMIT"
    assert item.message is not None and "9 minutes" in item.message
    assert sandbox.posts() == []


def test_short_ratelimit_is_slept_through(
    praw_reddit: praw.Reddit, sandbox: RedditSandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    """RATELIMIT of N <= 5 s: PRAW sleeps N + 1 s and posts again (up to three attempts)."""
    slept: list[float] = []
    monkeypatch.setattr("praw.reddit.time", SimpleNamespace(sleep=slept.append))
    sandbox.add_fault(Fault.ratelimit(3, "seconds"), path="/api/submit")
    post = _submit(praw_reddit)
    assert slept == [4]
    assert _statuses(sandbox, "submit") == [200, 200]
    assert [p.id for p in sandbox.posts()] == [post.id]


def test_403_raises_forbidden(praw_reddit: praw.Reddit, sandbox: RedditSandbox) -> None:
    """A 403 without www-authenticate is prawcore.Forbidden; the bot should give up."""
    sandbox.add_fault(Fault.forbidden(), path="/api/submit")
    with pytest.raises(prawcore.Forbidden):
        _submit(praw_reddit)
    assert sandbox.posts() == []


def test_api_error_subreddit_notallowed(praw_reddit: praw.Reddit, sandbox: RedditSandbox) -> None:
    """SUBREDDIT_NOTALLOWED arrives as a 200 with json errors: RedditAPIException."""
    sandbox.add_fault(Fault.api_error(), path="/api/submit", times=None)
    for _ in range(2):
        with pytest.raises(praw.exceptions.RedditAPIException) as caught:
            _submit(praw_reddit)
        assert caught.value.items[0].error_type == "SUBREDDIT_NOTALLOWED"
        assert caught.value.items[0].field == "sr"
    assert sandbox.posts() == []


def test_stored_then_slow_once_makes_two_posts(
    sandbox: RedditSandbox, fast_retries: list[float]
) -> None:
    """The post is stored, the answer is late, prawcore retries: Reddit now has it twice."""
    reddit = make_reddit(sandbox.url, username=BOT_USERNAME, password=BOT_PASSWORD, timeout=0.5)
    reddit.user.me()
    sandbox.add_fault(Fault.stored_then_slow(1.0), path="/api/submit")
    post = _submit(reddit)
    stored = sandbox.posts()
    assert len(stored) == 2
    assert post.id == stored[1].id
    assert _statuses(sandbox, "submit") == [200, 200]


def test_stored_then_slow_three_times_raises_a_timeout(
    sandbox: RedditSandbox, fast_retries: list[float]
) -> None:
    """Three late answers: prawcore raises RequestException (ReadTimeout), three posts exist."""
    reddit = make_reddit(sandbox.url, username=BOT_USERNAME, password=BOT_PASSWORD, timeout=0.2)
    reddit.user.me()
    sandbox.add_fault(Fault.stored_then_slow(0.5), path="/api/submit", times=3)
    with pytest.raises(prawcore.RequestException) as caught:
        _submit(reddit)
    assert isinstance(caught.value.original_exception, requests.exceptions.ReadTimeout)
    assert len(sandbox.posts()) == 3


def test_stored_then_slow_on_a_modmail_reply(
    sandbox: RedditSandbox, fast_retries: list[float]
) -> None:
    """Replies are actions too: a late answer to a reply duplicates the message."""
    conversation_id, _ = sandbox.send_modmail("ned_stark", "s", "order", subreddit=SUBREDDIT)
    reddit = make_reddit(sandbox.url, username=BOT_USERNAME, password=BOT_PASSWORD, timeout=0.5)
    conversation = reddit.subreddit(SUBREDDIT).modmail(conversation_id)
    sandbox.add_fault(
        Fault.stored_then_slow(1.0), method="POST", path=f"/api/mod/conversations/{conversation_id}"
    )
    conversation.reply(body="receipt [](#maester:r1)")
    bodies = [m.body for m in sandbox.conversation_messages(conversation_id)]
    assert bodies == ["order", "receipt [](#maester:r1)", "receipt [](#maester:r1)"]


def test_stored_then_held_keeps_the_answer_until_released(sandbox: RedditSandbox) -> None:
    """The post is stored at once; PRAW waits for the answer until the test releases it
    (observable: the held count), then gets the one post it made."""
    reddit = make_reddit(sandbox.url, username=BOT_USERNAME, password=BOT_PASSWORD)
    reddit.user.me()
    sandbox.add_fault(Fault.stored_then_held(), path="/api/submit")
    answers: list[praw.models.Submission] = []
    sender = threading.Thread(target=lambda: answers.append(_submit(reddit)))
    sender.start()
    try:
        while sandbox.held_answers() != 1:
            assert sender.is_alive(), "the answer was not held"
            time.sleep(0.01)
        assert [p.title for p in sandbox.posts()] == ["[Arrival] host"]
        assert answers == []
    finally:
        released = sandbox.release_held()
        sender.join(30)
    assert released == 1 and sandbox.held_answers() == 0
    assert [a.id for a in answers] == [p.id for p in sandbox.posts()]
    assert _statuses(sandbox, "submit") == [200]


def test_stored_then_error_duplicates_and_lost_does_not(
    praw_reddit: praw.Reddit, sandbox: RedditSandbox, fast_retries: list[float]
) -> None:
    """A 504 after storing makes prawcore post again; a lost request stores nothing."""
    sandbox.add_fault(Fault.stored_then_error(504), path="/api/submit")
    _submit(praw_reddit, "first")
    assert [p.title for p in sandbox.posts()] == ["first", "first"]
    sandbox.add_fault(Fault.lost(0.05), path="/api/submit")
    _submit(praw_reddit, "second")
    assert [p.title for p in sandbox.posts()] == ["first", "first", "second"]
    assert _statuses(sandbox, "submit") == [504, 200, 504, 200]


def test_praw_ignores_its_own_timeout_setting(sandbox: RedditSandbox) -> None:
    """praw.Reddit(timeout=...) does not reach prawcore: a 1.2 s answer beats timeout=1."""
    reddit = praw.Reddit(
        client_id=sandbox.client_id,
        client_secret=sandbox.client_secret,
        username=BOT_USERNAME,
        password=BOT_PASSWORD,
        user_agent="maester-test/0.1",
        oauth_url=sandbox.url,
        reddit_url=sandbox.url,
        check_for_updates=False,
        timeout=1,
    )
    reddit.user.me()
    sandbox.add_fault(Fault.stored_then_slow(1.2), path="/api/submit")
    _submit(reddit)
    assert len(sandbox.posts()) == 1


def test_prawcore_timeout_environment_variable(sandbox: RedditSandbox, tmp_path: Path) -> None:
    """PRAWCORE_TIMEOUT, read when prawcore is imported, is what shortens the timeout."""
    script = textwrap.dedent(
        """
        import sys
        import prawcore.const
        import prawcore.sessions
        prawcore.sessions.FiniteRetryStrategy._sleep_seconds = lambda self: None
        from bot.sandbox.praw_client import make_reddit
        reddit = make_reddit(sys.argv[1], username=sys.argv[2], password=sys.argv[3])
        post = reddit.subreddit("westeros").submit("[Arrival] late", selftext="x")
        print(prawcore.const.TIMEOUT, post.id)
        """
    )
    sandbox.add_fault(Fault.stored_then_slow(2.0), path="/api/submit")
    env = {**os.environ, "PRAWCORE_TIMEOUT": "0.8", "HOME": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-c", script, sandbox.url, BOT_USERNAME, BOT_PASSWORD],
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    timeout, post_id = done.stdout.split()
    assert float(timeout) == 0.8
    stored = sandbox.posts()
    assert [p.title for p in stored] == ["[Arrival] late", "[Arrival] late"]
    assert post_id == stored[1].id


def _random_run(seed: int) -> list[tuple[str, int]]:
    with RedditSandbox() as sandbox:
        from bot.sandbox import populate_default_world

        populate_default_world(sandbox)
        reddit = make_reddit(sandbox.url, username=BOT_USERNAME, password=BOT_PASSWORD)
        reddit.user.me()
        sandbox.set_random_faults(
            0.3,
            [Fault.server_error(500), Fault.stored_then_error(503)],
            seed=seed,
            methods=["POST"],
        )
        for i in range(15):
            with contextlib.suppress(prawcore.ServerError):
                _submit(reddit, f"post {i}")
        return [(r.route, r.status) for r in sandbox.requests()]


def test_random_faults_are_reproducible_through_praw(
    fast_retries: list[float], praw_home: Path
) -> None:
    """A seeded random mode fails the same requests on every run; reads were spared."""
    first = _random_run(seed=7)
    assert first == _random_run(seed=7)
    statuses = [status for route, status in first if route == "submit"]
    assert 500 in statuses or 503 in statuses
    assert statuses.count(200) >= 15 - statuses.count(500)
    assert all(status == 200 for route, status in first if route != "submit")
