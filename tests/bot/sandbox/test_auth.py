"""OAuth tokens and /api/v1/me, through real PRAW."""

from __future__ import annotations

import os

import praw
import praw.exceptions
import prawcore
import pytest

from bot.sandbox import (
    BOT_PASSWORD,
    BOT_USERNAME,
    DEFAULT_CLIENT_ID,
    Fault,
    RedditSandbox,
)
from bot.sandbox.praw_client import make_reddit
from tests.fixtures.reddit import RedditFactory


def test_no_praw_ini_leaks_in(praw_reddit: praw.Reddit) -> None:
    """Tests run with HOME pointing at an empty folder: no user praw.ini is read."""
    home = os.environ["HOME"]
    assert os.listdir(home) == []
    assert praw_reddit.config.oauth_url.startswith("http://127.0.0.1:")


def test_password_grant_logs_the_bot_in(praw_reddit: praw.Reddit, sandbox: RedditSandbox) -> None:
    """A script app with username and password gets a token; /api/v1/me names the bot."""
    me = praw_reddit.user.me()
    assert me is not None
    assert me.name == BOT_USERNAME
    assert me.is_mod is True
    assert sandbox.request_count(route="token") == 1
    assert sandbox.request_count(route="me") == 1
    assert [r.user for r in sandbox.requests()] == [BOT_USERNAME, BOT_USERNAME]


def test_refresh_token_grant(sandbox: RedditSandbox) -> None:
    """A refresh token issued to the bot logs in without a password."""
    token = sandbox.issue_refresh_token(BOT_USERNAME, DEFAULT_CLIENT_ID)
    reddit = make_reddit(sandbox.url, refresh_token=token)
    me = reddit.user.me()
    assert me is not None and me.name == BOT_USERNAME


def test_revoked_refresh_token_is_an_invalid_grant(sandbox: RedditSandbox) -> None:
    """A refresh token Reddit no longer honours answers 200 with an error: OAuthException."""
    token = sandbox.issue_refresh_token(BOT_USERNAME, DEFAULT_CLIENT_ID)
    sandbox.revoke_refresh_token(token)
    reddit = make_reddit(sandbox.url, refresh_token=token)
    with pytest.raises(prawcore.OAuthException, match="invalid_grant"):
        reddit.user.me()


def test_wrong_password_is_an_oauth_error(sandbox: RedditSandbox) -> None:
    """Bad user credentials answer 200 with {"error": ...}; prawcore raises OAuthException."""
    reddit = make_reddit(sandbox.url, username=BOT_USERNAME, password="not-it")
    with pytest.raises(prawcore.OAuthException, match="invalid_grant"):
        reddit.user.me()


def test_wrong_client_secret_is_a_401(sandbox: RedditSandbox) -> None:
    """Bad app credentials answer 401 on the token endpoint: ResponseException."""
    reddit = make_reddit(
        sandbox.url, username=BOT_USERNAME, password=BOT_PASSWORD, client_secret="nope"
    )
    with pytest.raises(prawcore.ResponseException, match="401"):
        reddit.user.me()


def test_revoked_access_token_makes_praw_fetch_a_new_one(
    praw_reddit: praw.Reddit, sandbox: RedditSandbox, fast_retries: list[float]
) -> None:
    """A revoked token answers 401 with the invalid_token header; PRAW re-authenticates."""
    praw_reddit.user.me()
    assert sandbox.revoke_tokens(BOT_USERNAME) == 1
    me = praw_reddit.user.me(use_cache=False)
    assert me is not None and me.name == BOT_USERNAME
    statuses = [(r.route, r.status) for r in sandbox.requests()]
    assert statuses == [("token", 200), ("me", 200), ("me", 401), ("token", 200), ("me", 200)]


def test_401_carries_the_invalid_token_header(sandbox: RedditSandbox) -> None:
    """Without a valid bearer token the answer is 401 with www-authenticate, as PRAW needs."""
    import requests

    answer = requests.get(
        sandbox.url + "/api/v1/me", headers={"Authorization": "bearer nonsense"}, timeout=5
    )
    assert answer.status_code == 401
    assert answer.headers["www-authenticate"] == 'Bearer realm="reddit", error="invalid_token"'


def test_token_fault_must_name_the_token_path(
    sandbox: RedditSandbox, reddit_for: RedditFactory
) -> None:
    """A 500 on the token endpoint is not retried by prawcore: the caller sees it."""
    sandbox.add_fault(Fault.server_error(), path="/api/v1/access_token")
    reddit = reddit_for("ned_stark")
    with pytest.raises(prawcore.ResponseException, match="500"):
        reddit.user.me()
    me = reddit.user.me()
    assert me is not None and me.name == "ned_stark"
