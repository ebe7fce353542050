"""The control endpoint and ``python -m bot.sandbox``: seeding a sandbox in another process."""

from __future__ import annotations

import inspect
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import praw.exceptions
import prawcore
import pytest

from bot.sandbox import (
    BOT_PASSWORD,
    BOT_USERNAME,
    DEFAULT_CLIENT_ID,
    SUBREDDIT,
    Fault,
    RedditSandbox,
    RemoteSandbox,
    SandboxError,
)
from bot.sandbox.control import CONTROL_METHODS
from bot.sandbox.praw_client import make_reddit

REPO = Path(__file__).resolve().parents[3]


@pytest.mark.parametrize("name", sorted(CONTROL_METHODS))
def test_remote_client_mirrors_every_hook(name: str) -> None:
    """Each control method exists on both sides with the same parameters."""
    local = inspect.signature(getattr(RedditSandbox, name))
    remote = inspect.signature(getattr(RemoteSandbox, name))
    assert list(local.parameters) == list(remote.parameters)
    for key, parameter in local.parameters.items():
        assert remote.parameters[key].kind == parameter.kind
        assert remote.parameters[key].default == parameter.default


@pytest.fixture
def remote(sandbox: RedditSandbox) -> RemoteSandbox:
    """A control client for the in-process sandbox (same wire as another process)."""
    return RemoteSandbox(sandbox.url)


def test_remote_seeding_and_reading(remote: RemoteSandbox, sandbox: RedditSandbox) -> None:
    """Seed players' modmail, forwards, posts and mentions remotely; read them back."""
    assert remote.health() is True
    remote.add_user("arya", "arya-password")
    conversation_id, message_id = remote.send_modmail(
        "arya", "Orders", "march Harrenhal", subreddit=SUBREDDIT
    )
    remote.archive_conversation(conversation_id, by=BOT_USERNAME)
    reply_id = remote.reply_modmail(conversation_id, "arya", "again")
    messages = remote.conversation_messages(conversation_id)
    assert [m.id for m in messages] == [message_id, reply_id]
    [conversation] = remote.conversations(subreddit=SUBREDDIT)
    assert (conversation.id, conversation.state, conversation.num_messages) == (
        conversation_id,
        1,
        2,
    )
    genuine = remote.seed_automod_forward("arya", "[Order] t", "march", subreddit=SUBREDDIT)
    fake = remote.seed_fake_automod_forward("arya", "[Order] t", "march", subreddit=SUBREDDIT)
    forwarded = remote.automod_forward(f"t3_{genuine.post_id}")
    assert remote.post(genuine.post_id).author == "arya"
    assert {
        c.is_auto
        for c in remote.conversations()
        if c.id in (genuine.conversation_id, fake.conversation_id, forwarded.conversation_id)
    } == {True, False}
    post_id = remote.submit_post("arya", "thread", "x", subreddit=SUBREDDIT)
    comment_id = remote.add_comment("arya", post_id, "hello")
    mention_id = remote.seed_mention("arya", BOT_USERNAME, subreddit=SUBREDDIT, post_id=post_id)
    assert [c.id for c in remote.comments(post_id=post_id)] == [comment_id, mention_id]
    assert len(remote.posts(author="arya")) == 3
    kinds = [a.kind for a in remote.activity()]
    assert kinds.count("modmail") == 5 and kinds.count("comment") == 2
    assert remote.private_messages("arya") == []
    assert remote.internal_errors() == []


def test_remote_world_setup_and_tokens(
    remote: RemoteSandbox, sandbox: RedditSandbox, fast_retries: list[float]
) -> None:
    """Accounts, subreddits, flairs, bans and tokens can all be set up remotely."""
    remote.add_subreddit("essos", title="Essos")
    remote.add_user("varys", "varys-password", moderator_of=["essos"])
    remote.add_moderator("essos", "ned_stark")
    flair = remote.add_link_flair("essos", "Rumour", text_editable=True)
    remote.add_app("other-app", "other-secret")
    token = remote.issue_refresh_token("varys", "other-app")
    varys = make_reddit(
        sandbox.url, refresh_token=token, client_id="other-app", client_secret="other-secret"
    )
    post = varys.subreddit("essos").submit("whispers", selftext="x", flair_id=flair)
    assert remote.post(post.id).flair_text == "Rumour"
    assert remote.revoke_tokens("varys") == 1
    remote.revoke_refresh_token(token)
    with pytest.raises(prawcore.OAuthException):
        varys.user.me()
    remote.ban_user("essos", "ned_stark")
    remote.remove_subreddit("essos")
    assert sandbox.post(post.id).subreddit == "essos"


def test_remote_faults_and_counting(remote: RemoteSandbox, sandbox: RedditSandbox) -> None:
    """Faults and the rate budget set remotely reach PRAW; counts come back remotely."""
    reddit = make_reddit(sandbox.url, username=BOT_USERNAME, password=BOT_PASSWORD)
    reddit.user.me()
    remote.reset_requests()
    remote.add_fault(Fault.api_error("SUBREDDIT_NOTALLOWED"), path="/api/submit")
    with pytest.raises(praw.exceptions.RedditAPIException):
        reddit.subreddit(SUBREDDIT).submit("t", selftext="x")
    remote.set_random_faults(1.0, [Fault.forbidden()], seed=1, methods=["GET"])
    with pytest.raises(prawcore.Forbidden):
        reddit.user.me(use_cache=False)
    remote.clear_faults()
    remote.set_rate_budget(1000)
    reddit.user.me(use_cache=False)
    remote.set_rate_budget(None)
    assert remote.request_count(route="submit") == 1
    assert remote.request_counts() == {"submit": 1, "me": 2}
    assert [(r.route, r.status, r.fault) for r in remote.requests()] == [
        ("submit", 200, "api_error"),
        ("me", 403, "forbidden"),
        ("me", 200, None),
    ]


def test_remote_errors_raise_sandbox_error(remote: RemoteSandbox) -> None:
    """A refused hook call comes back as SandboxError with Reddit's reason."""
    with pytest.raises(SandboxError, match="no user"):
        remote.send_modmail("nobody", "s", "b", subreddit=SUBREDDIT)
    with pytest.raises(SandboxError, match="no control method"):
        remote._call("stop")
    assert RemoteSandbox("http://127.0.0.1:9", timeout=0.5).health() is False


@pytest.fixture
def sandbox_process(praw_home: Path) -> Iterator[tuple[subprocess.Popen[str], str]]:
    """``python -m bot.sandbox --port 0`` as a child process, stopped after the test."""
    process = subprocess.Popen(
        [sys.executable, "-m", "bot.sandbox", "--port", "0"],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert process.stdout is not None
    line = process.stdout.readline()
    assert line.startswith("SANDBOX READY "), process.stderr.read() if process.stderr else line
    try:
        yield process, line.split()[-1]
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(timeout=10)


def test_sandbox_as_a_separate_process(
    sandbox_process: tuple[subprocess.Popen[str], str],
) -> None:
    """The child serves the default world; PRAW and RemoteSandbox both reach it."""
    process, url = sandbox_process
    remote = RemoteSandbox(url)
    conversation_id, _ = remote.send_modmail("ned_stark", "Muster", "muster 5", subreddit=SUBREDDIT)
    reddit = make_reddit(url, username=BOT_USERNAME, password=BOT_PASSWORD)
    conversation = reddit.subreddit(SUBREDDIT).modmail(conversation_id)
    conversation.reply(body="Receipt [](#maester:m1)")
    assert [m.author for m in remote.conversation_messages(conversation_id)] == [
        "ned_stark",
        BOT_USERNAME,
    ]
    assert remote.request_count(route="modmail.reply") == 1
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=10) == 0


def test_module_entry_point_options(praw_home: Path) -> None:
    """--empty starts without the default world; the client id is configurable."""
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "bot.sandbox",
            "--empty",
            "--client-id",
            "cid",
            "--client-secret",
            "sec",
        ],
        cwd=REPO,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        url = process.stdout.readline().split()[-1]
        remote = RemoteSandbox(url)
        assert remote.conversations() == []
        remote.add_subreddit("westeros")
        remote.add_user("someone", "pw", moderator_of=["westeros"])
        reddit = make_reddit(
            url, username="someone", password="pw", client_id="cid", client_secret="sec"
        )
        me = reddit.user.me()
        assert me is not None and me.name == "someone"
        with pytest.raises(SandboxError):
            remote.issue_refresh_token("someone", DEFAULT_CLIENT_ID)
    finally:
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=10) == 0


def test_malformed_control_requests_are_400(sandbox: RedditSandbox) -> None:
    """Bad JSON, a non-object body or a bad fault is the caller's error, not the sandbox's."""
    import requests

    call = sandbox.url + "/_sandbox/call/add_fault"
    json_headers = {"Content-Type": "application/json"}
    answers = [
        requests.post(call, data="{not json", headers=json_headers, timeout=5),
        requests.post(call, json=[1, 2], timeout=5),
        requests.post(call, json={"fault": {"kind": "meteor"}}, timeout=5),
        requests.post(call, json={"fault": Fault.forbidden().to_json(), "when": 3}, timeout=5),
    ]
    assert [a.status_code for a in answers] == [400, 400, 400, 400]
    assert sandbox.pending_faults() == []
    assert sandbox.internal_errors() == []
