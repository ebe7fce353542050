"""Two real ``maester publish --once`` (or ``poll --once``) processes and a slow Reddit: a
lapsed lease holder cannot write.

Process A claims a post and sends it; the sandbox stores it and holds the answer (a
``stored_then_held`` fault: slow without a clock). A's lease then lapses: on SQLite its row
expires (as it would when a stuck process stops renewing), on PostgreSQL the server drops the
connection that holds its advisory lock. Process B takes the lease over, releases A's claim,
finds A's post on Reddit by its marker and records it, and delivers the rest. Then the
sandbox answers A: A's attempt to record the delivery is refused by the lease fence (the
generation it took is no longer the row's), A exits with code 3 and says why. Every outbox
entry is delivered once, on Reddit and in the database. The ``poll --once`` case: A is held
reading the modmail list, B handles the order; A's writes are refused and the order is
recorded and answered once.

Every wait is for an observable state (a held answer, a process exit, a lock row), with a
generous deadline only as a safety net.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import Engine, text, update
from sqlmodel import col, select

from bot.db.engine import make_engine, transaction
from bot.db.migrate import upgrade
from bot.db.models import InboxMessage, Lease, Outbox, OutboxStatus
from bot.reddit.deliver import marker
from bot.reddit.lease import _advisory_key, lease_name
from bot.sandbox import (
    BOT_USERNAME,
    SUBREDDIT,
    Fault,
    RedditSandbox,
)
from bot.services import journal
from tests.bot.reddit.conftest import (
    add_demo_players,
    new_campaign,
    sandbox_config,
    settings_for,
)
from tests.fixtures.db import sqlite_url

REPO = Path(__file__).resolve().parents[3]
SAFETY = 180.0  # seconds: only a net for a hung process, never what the test waits for


def _config(path: Path, url: str, database_url: str) -> Path:
    # A lease far longer than the test: A's renewal thread never runs during it, so A's
    # lease lapses only when the test says so. The Reddit timeout outlasts the held answer.
    return sandbox_config(path, url, database_url, agent="lease",
                          reddit="timeout_seconds = 120", rest="""
[bot]
post_spacing_seconds = 0
message_spacing_seconds = 0
sends_per_minute = 0
lease_seconds = 3600

[dice]
publish = false
""")


def _publish_once(config: Path, home: Path) -> subprocess.Popen[str]:
    return _maester_once("publish", config, home)


def _maester_once(command: str, config: Path, home: Path) -> subprocess.Popen[str]:
    env = {k: v for k, v in os.environ.items()
           if not k.lower().startswith(("praw", "maester_"))}
    env.update(HOME=str(home), PYTHONPATH=str(REPO), PYTHONUNBUFFERED="1")
    return subprocess.Popen(
        [sys.executable, "-c", "from bot.cli import main; main()", command, "--once",
         "--config", str(config)],
        cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def _wait_for(what: str, done: Callable[[], bool], proc: subprocess.Popen[str]) -> None:
    """Wait until ``done()``; fail at once (with the process's output) if ``proc`` ends."""
    deadline = time.monotonic() + SAFETY
    while not done():
        if proc.poll() is not None:
            output = proc.stdout.read() if proc.stdout else ""
            pytest.fail(f"{what}: the process ended first ({proc.returncode}):\n{output}")
        assert time.monotonic() < deadline, f"{what}: not reached"
        time.sleep(0.02)


def _finish(proc: subprocess.Popen[str]) -> tuple[int, str]:
    output, _ = proc.communicate(timeout=SAFETY)
    return proc.returncode, output


def _lapse(backend: str, engine: Engine, campaign_id: int) -> None:
    (_lapse_sqlite if backend == "sqlite" else _lapse_postgres)(engine, campaign_id)


def _lapse_sqlite(engine: Engine, campaign_id: int) -> None:
    """A's row expires, as it does when its holder stops renewing."""
    with transaction(engine) as session:
        session.execute(update(Lease).where(col(Lease.name) == lease_name(campaign_id))
                        .values(expires_at=datetime.now(UTC) - timedelta(seconds=1)))


def _lapse_postgres(engine: Engine, campaign_id: int) -> None:
    """The server drops the connection holding A's advisory lock."""
    with engine.connect() as connection:
        schema = connection.execute(text("SELECT current_schema()")).scalar()
        key = _advisory_key(f"{schema}:{lease_name(campaign_id)}")
        holders = connection.execute(text(
            "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted"
            " AND classid::bigint = :high AND objid::bigint = :low AND objsubid = 1"),
            {"high": (key >> 32) & 0xFFFFFFFF, "low": key & 0xFFFFFFFF}).scalars().all()
        assert len(holders) == 1, holders
        connection.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": holders[0]})
        connection.commit()
    deadline = time.monotonic() + SAFETY
    while True:  # the lock goes with the backend; wait until the server says it is free
        with engine.connect() as connection:
            left = connection.execute(text(
                "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'"
                " AND classid::bigint = :high AND objid::bigint = :low"),
                {"high": (key >> 32) & 0xFFFFFFFF, "low": key & 0xFFFFFFFF}).scalar()
        if not left:
            return
        assert time.monotonic() < deadline, "the advisory lock outlived its connection"
        time.sleep(0.02)


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_a_lapsed_publisher_cannot_record_what_the_new_holder_delivers(
        backend: str, sandbox: RedditSandbox, tmp_path: Path,
        request: pytest.FixtureRequest) -> None:
    database_url = (sqlite_url(tmp_path / "lease.db") if backend == "sqlite"
                    else str(request.getfixturevalue("pg_url")))
    add_demo_players(sandbox)
    engine = make_engine(database_url)
    upgrade(engine)
    now = datetime.now(UTC)
    ctx = new_campaign(engine, settings_for(sandbox.url, database_url), now)
    with transaction(engine) as session:
        for i in range(3):
            journal.queue(session, ctx.campaign_id, f"lease-test-post-{i}", "post",
                          title=f"Lease test {i}", body=f"Post number {i}.", at=now,
                          tick=ctx.tick_of(now))
    with transaction(engine) as session:
        keys = set(session.exec(select(Outbox.key).where(
            Outbox.campaign_id == ctx.campaign_id,
            Outbox.status == OutboxStatus.PENDING)).all())
    config = _config(tmp_path / "config.toml", sandbox.url, database_url)
    home = tmp_path / "home"  # the praw_home fixture (through sandbox) made it empty
    home.mkdir(exist_ok=True)
    sandbox.add_fault(Fault.stored_then_held(), method="POST", path="/api/submit", times=1)

    first = _publish_once(config, home)
    second: subprocess.Popen[str] | None = None
    try:
        _wait_for("A's post stored, its answer held", lambda: sandbox.held_answers() == 1,
                  first)
        with transaction(engine) as session:
            held = session.exec(select(Outbox).where(
                Outbox.campaign_id == ctx.campaign_id,
                col(Outbox.claimed_by).is_not(None))).one()
            lease = session.get(Lease, lease_name(ctx.campaign_id))
        assert held.kind == "post" and held.attempts == 1
        assert lease is not None and lease.generation == 1
        _lapse(backend, engine, ctx.campaign_id)

        second = _publish_once(config, home)
        code, output = _finish(second)
        assert code == 0, output
        assert "HALTED" not in output
        with transaction(engine) as session:
            entry = session.get(Outbox, held.id)
            lease = session.get(Lease, lease_name(ctx.campaign_id))
        assert entry is not None and entry.status == OutboxStatus.DELIVERED
        assert entry.attempts == 2  # B claimed it again and found A's copy by its marker
        assert lease is not None and lease.generation == 2 and lease.holder == ""

        assert sandbox.release_held() == 1
        code, output = _finish(first)
    finally:
        sandbox.release_held()
        for proc in (first, second):
            if proc is not None and proc.poll() is None:
                proc.kill()
                proc.wait()
    assert code == 3, output
    assert "lease" in output and "took this campaign over" in output
    assert "Traceback" not in output

    with transaction(engine) as session:
        rows = session.exec(select(Outbox).where(Outbox.campaign_id == ctx.campaign_id)).all()
    assert {r.key for r in rows} >= keys
    assert all(r.status == OutboxStatus.DELIVERED and r.claimed_by is None
               for r in rows if r.key in keys)
    # On Reddit: every entry once, and the held post is the one A sent (B only recorded it).
    posts = sandbox.posts(subreddit=SUBREDDIT)
    texts = [p.body for p in posts]
    for c in sandbox.conversations():
        texts += [m.body for m in sandbox.conversation_messages(c.id)
                  if m.author == BOT_USERNAME]
    copies = {key: sum(t.count(marker(key)) for t in texts) for key in keys}
    assert set(copies.values()) == {1}, copies
    submits = [r for r in sandbox.requests() if r.route == "submit"]
    assert len(submits) == sum(1 for r in rows if r.key in keys and r.kind == "post")
    assert entry.reddit_id == next(p.fullname for p in posts if held.key in p.body)
    engine.dispose()


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_a_lapsed_poller_cannot_record_what_the_new_holder_handled(
        backend: str, sandbox: RedditSandbox, tmp_path: Path,
        request: pytest.FixtureRequest) -> None:
    """``poll --once``: A is held reading the modmail list when its lease lapses; B takes
    over and handles the order; when Reddit answers A, A's writes are refused (exit 3) and
    the order is recorded and answered once."""
    database_url = (sqlite_url(tmp_path / "lease.db") if backend == "sqlite"
                    else str(request.getfixturevalue("pg_url")))
    engine = make_engine(database_url)
    upgrade(engine)
    ctx = new_campaign(engine, settings_for(sandbox.url, database_url), datetime.now(UTC))
    config = _config(tmp_path / "config.toml", sandbox.url, database_url)
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    conversation, message = sandbox.send_modmail("ned_stark", "Orders", "status",
                                                 subreddit=SUBREDDIT)
    sandbox.add_fault(Fault.stored_then_held(), method="GET", path="/api/mod/conversations",
                      times=1)
    first = _maester_once("poll", config, home)
    second: subprocess.Popen[str] | None = None
    try:
        _wait_for("A's modmail list held", lambda: sandbox.held_answers() == 1, first)
        _lapse(backend, engine, ctx.campaign_id)
        second = _maester_once("poll", config, home)
        code, output = _finish(second)
        assert code == 0, output
        assert "poll: 1 messages handled, 1 replies queued" in output
        assert sandbox.release_held() == 1
        code, output = _finish(first)
    finally:
        sandbox.release_held()
        for proc in (first, second):
            if proc is not None and proc.poll() is None:
                proc.kill()
                proc.wait()
    assert code == 3, output
    assert "took this campaign over" in output and "Traceback" not in output
    with transaction(engine) as session:
        handled = session.exec(select(InboxMessage).where(
            InboxMessage.campaign_id == ctx.campaign_id)).all()
        replies = session.exec(select(Outbox).where(
            Outbox.campaign_id == ctx.campaign_id, Outbox.kind == "reply",
            Outbox.target == conversation)).all()
    assert [m.message_id for m in handled] == [message]
    assert len(replies) == 1 and replies[0].status == OutboxStatus.PENDING
    engine.dispose()
