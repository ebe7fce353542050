"""``kill -9`` of ``maester run`` at random moments, then restart: nothing lost, nothing twice.

The sandbox runs as its own process (``python -m bot.sandbox``), the bot as ``maester run``
subprocesses on one SQLite file; the test seeds orders through the sandbox's control
endpoint while the bot runs and kills it with SIGKILL at random moments. Thirty percent of
the bot's POSTs are answered slowly after Reddit stored them, which widens the window in
which a kill leaves a post on Reddit that the database does not know about.
"""

from __future__ import annotations

import contextlib
import os
import random
import re
import signal
import subprocess
import sys
import time
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlmodel import select

from bot.db.engine import make_engine, transaction
from bot.db.migrate import upgrade
from bot.db.models import InboxMessage, Outbox
from bot.sandbox import (
    BOT_USERNAME,
    SUBREDDIT,
    Fault,
    RemoteSandbox,
)
from tests.bot.reddit.conftest import (
    DEMO_PLAYERS,
    add_demo_players,
    assert_no_secrets,
    new_campaign,
    public_texts,
    sandbox_config,
    settings_for,
)
from tests.fixtures.db import sqlite_url

REPO = Path(__file__).resolve().parents[3]
KILLS = 5
_MARKER = re.compile(r"\[\]\(#maester:([^)]+)\)")


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.lower().startswith(("praw", "maester_"))}
    env.update(HOME=str(home), PYTHONPATH=str(REPO), PYTHONUNBUFFERED="1")
    return env


def _start_sandbox(env: dict[str, str]) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen([sys.executable, "-m", "bot.sandbox", "--port", "0"], cwd=REPO,
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            text=True)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    assert line.startswith("SANDBOX READY "), line
    return proc, line.split()[-1]


def _maester(config: Path, env: dict[str, str], *args: str,
             log: Path | None = None) -> subprocess.Popen[str]:
    out = open(log, "a", encoding="utf-8") if log else subprocess.PIPE  # noqa: SIM115
    return subprocess.Popen(
        [sys.executable, "-c", "from bot.cli import main; main()", *args, "--config",
         str(config)], cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT, text=True)


def _write_config(path: Path, url: str, database_url: str) -> None:
    sandbox_config(path, url, database_url, agent="kill", reddit="timeout_seconds = 5", rest="""
[bot]
poll_seconds = 5
publish_seconds = 1
post_spacing_seconds = 0
message_spacing_seconds = 0
sends_per_minute = 0
requests_per_minute = 100
lease_seconds = 30
""")


@pytest.mark.slow
def test_kill_9_at_random_moments_loses_nothing_and_doubles_nothing(tmp_path: Path) -> None:
    """Five SIGKILLs at random moments while orders keep arriving, then a clean run: every
    order is answered exactly once, every outbox key is on Reddit exactly once, a second
    instance is refused while the bot runs, and SIGTERM ends the bot with exit code 0."""
    home = tmp_path / "home"
    home.mkdir()
    env = _env(home)
    sandbox_proc, url = _start_sandbox(env)
    remote = RemoteSandbox(url)
    log = tmp_path / "maester.log"
    rng = random.Random(4242)
    try:
        add_demo_players(remote)
        database_url = sqlite_url(tmp_path / "kill.db")
        engine = make_engine(database_url)
        upgrade(engine)
        ctx = new_campaign(engine, settings_for(url, database_url), datetime.now(UTC))
        engine.dispose()
        config = tmp_path / "config.toml"
        _write_config(config, url, database_url)
        remote.set_random_faults(0.3, [Fault.stored_then_slow(0.7)], seed=7, methods=["POST"])

        sent: dict[str, str] = {}

        def seed(count: int) -> None:
            for _ in range(count):
                player = rng.choice(DEMO_PLAYERS)
                order = rng.choice(["status", "muster 10 infantry", "!help", "hello"])
                conversation, message = remote.send_modmail(player, f"order {len(sent)}",
                                                            order, subreddit=SUBREDDIT)
                sent[message] = conversation

        seed(4)
        for _ in range(KILLS):
            bot = _maester(config, env, "run", log=log)
            kill_at = rng.uniform(1.0, 3.5)
            started = time.monotonic()
            seeded = False
            while time.monotonic() - started < kill_at:
                if not seeded and time.monotonic() - started > kill_at / 2:
                    seed(3)
                    seeded = True
                time.sleep(0.02)
            bot.send_signal(signal.SIGKILL)
            assert bot.wait(10) == -signal.SIGKILL

        seed(3)  # waiting before the final start: its start-up poll reads them at once
        bot = _maester(config, env, "run", log=log)
        deadline = time.monotonic() + 45
        answered: dict[str, list[str]] = {}
        while time.monotonic() < deadline:
            answered = {}
            for conversation in set(sent.values()):
                for m in remote.conversation_messages(conversation):
                    if m.author == BOT_USERNAME:
                        answered.setdefault(conversation, []).append(m.body)
            if len(answered) == len(set(sent.values())):
                break
            time.sleep(0.3)
        second = _maester(config, env, "poll", "--once")  # while the bot holds the lease
        output, _ = second.communicate(timeout=30)
        assert second.returncode == 1 and "held by" in output, output
        bot.send_signal(signal.SIGTERM)
        assert bot.wait(30) == 0, log.read_text(encoding="utf-8")[-3000:]
    finally:
        sandbox_faults_off(remote)
        texts = public_texts(remote)
        sandbox_proc.terminate()
        sandbox_proc.wait(10)

    # Every order answered exactly once, in its own conversation, under its own key.
    for message, conversation in sent.items():
        replies = [b for b in answered.get(conversation, [])
                   if f"#maester:reply:{message})" in b]
        assert len(replies) == 1, f"order {message}: {len(replies)} answers"
    assert all(len(bodies) == 1 for bodies in answered.values())
    engine = make_engine(database_url)
    with transaction(engine) as session:
        recorded = session.exec(select(InboxMessage.message_id)).all()
        outbox = session.exec(select(Outbox)).all()
    engine.dispose()
    assert sorted(recorded) == sorted(sent)
    assert {e.status for e in outbox} == {"delivered"}
    markers = Counter(k for bodies in answered.values() for b in bodies
                      for k in _MARKER.findall(b))
    assert set(markers.values()) == {1}
    assert ctx.campaign_id == 1
    assert "lease" in log.read_text(encoding="utf-8")
    assert_no_secrets(texts)


def sandbox_faults_off(remote: RemoteSandbox) -> None:
    with contextlib.suppress(Exception):  # the sandbox process may already be gone
        remote.clear_faults()
