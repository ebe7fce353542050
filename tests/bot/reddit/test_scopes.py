"""#30: OAuth scopes. The bot asks for every scope it uses (``edit`` for deletions);
`maester check` tries each scope on its own, never trusting a cached token; a refusal for
want of a scope halts only the kind of work refused, once, and says so in the log,
`maester status` and `maester check`. Real PRAW against the sandbox, whose tokens carry
the scopes they were granted."""

from __future__ import annotations

import logging
import socket
from collections.abc import Sequence
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bot.cli import app
from bot.config import Settings
from bot.db.engine import transaction
from bot.reddit import state
from bot.reddit.gateway import SCOPE_USES, SCOPES, PrawGateway, praw_gateway
from bot.reddit.preflight import run_checks
from bot.reddit.state import DatabaseTokenStore
from bot.sandbox import BOT_USERNAME, DEFAULT_CLIENT_ID, SUBREDDIT
from bot.sandbox.server import ROUTE_SCOPES
from bot.services import journal
from tests.bot.reddit.conftest import TIMEOUT, Harness
from tests.bot.reddit.test_runner import write_config

cli = CliRunner()


def _narrow(bot: Harness, scopes: Sequence[str], *, store: bool = False) -> Settings:
    """The harness's settings with a refresh token granted only ``scopes``; the harness
    uses it from now on (its token cached in the database when ``store``)."""
    token = bot.sandbox.issue_refresh_token(BOT_USERNAME, DEFAULT_CLIENT_ID, scopes=scopes)
    reddit = bot.settings.reddit.model_copy(update={"password": "", "username": "",
                                                    "refresh_token": token})
    settings = bot.settings.model_copy(update={"reddit": reddit})
    bot.gateway = praw_gateway(settings, timeout=TIMEOUT, token_store=DatabaseTokenStore(
        bot.engine, bot.ctx.campaign_id) if store else None)
    return settings


def _refresh_config(bot: Harness, path: Path, settings: Settings) -> Path:
    config = write_config(bot, path)
    text = config.read_text().replace(f'password = "{bot.settings.reddit.password}"',
                                      f'refresh_token = "{settings.reddit.refresh_token}"')
    config.write_text(text.replace(f'username = "{bot.settings.reddit.username}"\n', ""))
    return config


def test_every_scope_a_call_needs_is_asked_for() -> None:
    """Each scope the sandbox's routes need (Reddit's documented scope per endpoint) that
    a gateway call uses is in SCOPES, ``edit`` (POST /api/del) among them; every scope
    asked for says what needs it."""
    used = {"me", "modmail.create", "modmail.get", "modmail.list", "modmail.read",
            "modmail.reply", "modmail.state", "modmail.unread_count", "submit",
            "media.asset", "convert_rte", "comment", "del", "inbox", "read_message", "info",
            "subreddit.about", "subreddit.moderators", "user.comments", "user.submitted",
            "subreddit.link_flair", "widgets", "widget.create", "widget.modify"}
    assert {ROUTE_SCOPES[route] for route in used} == set(SCOPES)
    assert "edit" in SCOPES and all(SCOPE_USES[s] for s in SCOPES)


def test_a_token_with_exactly_the_scopes_does_every_call(bot: Harness) -> None:
    """Every gateway call, deletion included, works with a token of exactly SCOPES."""
    _narrow(bot, SCOPES)
    gateway = bot.gateway
    sent = gateway.submit("[Arrival] test", "body")
    gateway.reply_comment(f"t1_{bot.sandbox.add_comment('ned_stark', sent.reddit_id, 'hi')}",
                          "answer")
    assert gateway.recent_submissions() and gateway.recent_comments()
    assert gateway.thing(sent.reddit_id) is not None
    started = gateway.start_conversation("ned_stark", "News", "text")
    gateway.reply(started.reddit_id, "more")
    gateway.archive(started.reddit_id)
    assert list(gateway.conversations("archived")) and gateway.unread_counts() is not None
    gateway.mark_conversations_read([started.reddit_id])
    gateway.unread_mentions()
    gateway.put_text_widget("Campaign clock", "the date")
    gateway.put_text_widget("Campaign clock", "the next date")
    gateway.delete(sent.reddit_id)
    assert [r for r in bot.sandbox.requests() if r.status == 403] == []


def _queue(bot: Harness, key: str, kind: str, target: str, title: str = "") -> None:
    now = bot.clock.now()
    with transaction(bot.engine) as session:
        journal.queue(session, bot.ctx.campaign_id, key, kind, body="text", at=now,
                      tick=bot.ctx.tick_of(now), target=target, title=title,
                      public=kind == "post")


def test_a_missing_edit_scope_halts_only_deletions_once(
        bot: Harness, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """A token without ``edit``: 30 queued deletions make one refused call, not 30; the
    posts and modmail queued with them go out; the log, the moderators' note, `maester
    status` and `maester check` name the halted lane and the missing scope. A second round
    makes no refused call at all."""
    posts = [bot.gateway.submit(f"[Arrival] {n}", "x").reddit_id for n in range(30)]
    settings = _narrow(bot, [s for s in SCOPES if s != "edit"])
    for n, post in enumerate(posts):
        _queue(bot, f"delete:{n}", "delete", post)
    _queue(bot, "arrival:1", "post", SUBREDDIT, "[Arrival] House Stark")
    _queue(bot, "news:1", "message", "ned_stark", "News")
    with caplog.at_level(logging.ERROR, logger="bot.reddit.deliver"):
        report = bot.publish()
    assert bot.sandbox.request_count(route="del") == 1
    assert {"arrival:1", "news:1"} <= set(report.delivered_keys)
    halt = state.halt_of(bot.engine, bot.ctx.campaign_id)
    assert halt is not None and halt["blocked"] == ["delete"]
    assert list(state.halted_lanes(halt)) == ["deleting"]
    assert "'edit' OAuth scope" in state.halted_lanes(halt)["deleting"]
    assert "deleting halted" in caplog.text
    assert len(bot.events("delivery_halted")) == 1
    bot.publish()  # the note to the moderators; no second refused deletion
    assert bot.sandbox.request_count(route="del") == 1
    assert len([p for p in bot.pending() if p.startswith("delete:")]) == 30
    (note,) = [c for c in bot.sandbox.conversations() if c.subject.startswith(
        "maester stopped deleting")]
    assert "'edit'" in bot.sandbox.conversation_messages(note.id)[0].body
    config = _refresh_config(bot, tmp_path / "config.toml", settings)
    status = cli.invoke(app, ["status", "--config", str(config)])
    assert "deleting halted" in status.output and "'edit' OAuth scope" in status.output
    check = cli.invoke(app, ["check", "--config", str(config)])
    assert "[warn] scope edit: the token lacks it" in check.output
    assert "[warn] delivery: deleting halted" in check.output
    assert check.exit_code == 0, check.output  # deletions are a rare command: a warning


def test_check_tries_each_scope_and_never_trusts_a_cached_token(
        bot: Harness, tmp_path: Path) -> None:
    """A refresh token without ``modmail`` and ``history``, whose access token an earlier
    process cached: `maester check` logs in afresh and reports each scope on its own
    line; the missing ones fail, naming what needs them."""
    settings = _narrow(bot, [s for s in SCOPES if s not in ("modmail", "history")],
                       store=True)
    bot.gateway.me()  # cached in the database for the next process
    assert state.load(bot.engine, bot.ctx.campaign_id, state.TOKEN) is not None
    config = _refresh_config(bot, tmp_path / "config.toml", settings)
    result = cli.invoke(app, ["check", "--config", str(config)])
    assert result.exit_code == 1, result.output
    assert "[FAIL] scope modmail: the token lacks it: a call that needs it was refused" \
        in result.output
    assert "[FAIL] scope history: the token lacks it" in result.output
    for scope in ("identity", "read", "privatemessages"):
        assert f"[ok  ] scope {scope}: a call that needs it worked" in result.output
    assert "[ok  ] scope submit: granted to a fresh login" in result.output
    assert "[ok  ] scope edit: granted to a fresh login" in result.output
    checks = {c.name: c for c in run_checks(settings, PrawGateway(
        bot.gateway.reddit, SUBREDDIT))}
    assert not checks["scope modmail"].ok and checks["scope modmail"].fatal


def test_a_token_without_privatemessages_stops_only_the_mentions(bot: Harness) -> None:
    """Comment commands wait, once; modmail orders go on in every round; `maester check`
    warns (the bot still starts)."""
    settings = _narrow(bot, [s for s in SCOPES if s != "privatemessages"])
    checks = {c.name: c for c in run_checks(settings, bot.gateway)}
    assert not checks["scope privatemessages"].ok
    assert not checks["scope privatemessages"].fatal  # `maester run` still starts
    bot.sandbox.reset_requests()
    bot.send("ned_stark", "muster 10 infantry")
    first = bot.poll()
    assert first.processed == 1 and any("mentions not read" in e for e in first.errors)
    bot.send("ned_stark", "muster 20 infantry")
    assert bot.poll().processed == 1
    assert bot.sandbox.request_count(route="inbox") == 1
    assert len(bot.events("mentions_halted")) == 1
    assert state.load(bot.engine, bot.ctx.campaign_id, state.MENTIONS) is not None


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_check_tells_a_network_failure_from_bad_credentials(
        bot: Harness, tmp_path: Path) -> None:
    """Nothing answers at the configured address: the check says Reddit could not be
    reached and does not blame the credentials; no raw exception is printed."""
    config = write_config(bot, tmp_path / "config.toml")
    url = f"http://127.0.0.1:{_closed_port()}"
    config.write_text(config.read_text().replace(bot.settings.reddit.oauth_url, url))
    result = cli.invoke(app, ["check", "--config", str(config)])
    assert result.exit_code == 1, result.output
    assert "[FAIL] reddit reachable: no answer from Reddit: the connection was refused" \
        in result.output
    assert "credentials are wrong" in result.output and "[FAIL] login" not in result.output
    for raw in ("Traceback", "ConnectionError(", "MaxRetryError", "HTTPConnectionPool"):
        assert raw not in result.output


def test_check_blames_the_credentials_only_when_reddit_refuses_them(
        bot: Harness, tmp_path: Path) -> None:
    config = write_config(bot, tmp_path / "config.toml")
    config.write_text(config.read_text().replace(
        f'password = "{bot.settings.reddit.password}"', 'password = "wrong"'))
    result = cli.invoke(app, ["check", "--config", str(config)])
    assert result.exit_code == 1
    assert "[FAIL] login:" in result.output and "client_id, client_secret" in result.output


def test_outbox_kinds_have_a_lane_each() -> None:
    assert state.lane_of("delete") == "deleting" and state.lane_of("post") == "posting"
    assert state.lane_of("comment") == "posting" and state.lane_of("reply") == "modmail"
