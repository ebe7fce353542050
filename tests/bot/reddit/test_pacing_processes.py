"""#30: pacing is per account, not per process. Two campaigns run by one bot account (two
real ``maester publish --once`` processes, each with its own database and subreddit) share
one pacing budget through the account's pace file, so their posts together keep the
spacing. Also the shared pacer itself, with a fake clock."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import UTC, datetime
from itertools import pairwise
from pathlib import Path

import pytest

from bot.db.engine import make_engine, transaction
from bot.db.migrate import upgrade
from bot.reddit.pacing import Pacer, SharedPacer, pace_file
from bot.sandbox import (
    BOT_USERNAME,
    SUBREDDIT,
    RedditSandbox,
)
from bot.services import journal
from tests.bot.reddit.conftest import (
    add_demo_players,
    new_campaign,
    sandbox_config,
    settings_for,
)
from tests.bot.reddit.test_ratelimit import FakeTime
from tests.fixtures.db import sqlite_url

REPO = Path(__file__).resolve().parents[3]
SAFETY = 120.0  # seconds: only a net for a hung process
SPACING = 1.0
OTHER = "essos"


def _config(path: Path, url: str, database_url: str, subreddit: str, pace: Path) -> Path:
    return sandbox_config(path, url, database_url, agent="pace", subreddit=subreddit, rest=f"""
[bot]
post_spacing_seconds = {SPACING}
message_spacing_seconds = 0
sends_per_minute = 0
pace_file = "{pace}"

[dice]
publish = false
""")


def _campaign(sandbox: RedditSandbox, tmp_path: Path, subreddit: str) -> str:
    database_url = sqlite_url(tmp_path / f"{subreddit}.db")
    engine = make_engine(database_url)
    upgrade(engine)
    base = settings_for(sandbox.url, database_url)
    settings = base.model_copy(update={"campaign": base.campaign.model_copy(
        update={"subreddit": subreddit})})
    now = datetime.now(UTC)
    ctx = new_campaign(engine, settings, now)
    with transaction(engine) as session:
        for n in range(3):
            journal.queue(session, ctx.campaign_id, f"pace-{subreddit}-{n}", "post",
                          title=f"{subreddit} post {n}", body="News.", at=now,
                          tick=ctx.tick_of(now), target=subreddit, public=True)
    engine.dispose()
    return database_url


@pytest.mark.slow
def test_two_processes_of_one_account_share_the_spacing(
        sandbox: RedditSandbox, tmp_path: Path) -> None:
    add_demo_players(sandbox)
    sandbox.add_subreddit(OTHER)
    sandbox.add_moderator(OTHER, BOT_USERNAME)
    pace = tmp_path / "pace" / "maester_bot.json"
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)  # the praw_home fixture (through sandbox) made it empty
    env = {k: v for k, v in os.environ.items()
           if not k.lower().startswith(("praw", "maester_"))}
    env.update(HOME=str(home), PYTHONPATH=str(REPO), PYTHONUNBUFFERED="1")
    processes = []
    for subreddit in (SUBREDDIT, OTHER):
        config = _config(tmp_path / f"{subreddit}.toml", sandbox.url,
                         _campaign(sandbox, tmp_path, subreddit), subreddit, pace)
        processes.append(subprocess.Popen(
            [sys.executable, "-c", "from bot.cli import main; main()", "publish", "--once",
             "--config", str(config)],
            cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True))
    for proc in processes:
        output, _ = proc.communicate(timeout=SAFETY)
        assert proc.returncode == 0, output
        assert "3 delivered" in output, output
    posts = sorted(sandbox.posts(author=BOT_USERNAME), key=lambda p: p.created_utc)
    assert len(posts) == 6 and {p.subreddit for p in posts} == {SUBREDDIT, OTHER}
    gaps = [b.created_utc - a.created_utc for a, b in pairwise(posts)]
    # Each send takes its slot SPACING after the last one, whichever process made it; the
    # posts land a request's latency after their slots.
    assert min(gaps) > SPACING * 0.6, gaps
    assert pace.exists()


def test_a_shared_pacer_counts_every_users_sends(tmp_path: Path) -> None:
    """Two pacers on one file (two processes) keep one spacing and one cap per minute; a
    slot is taken when the send is let go, so two never take the same one."""
    fake = FakeTime()
    path = tmp_path / "pace.json"
    first = SharedPacer(path, 5.0, 1.0, 4, wall=fake.monotonic, sleep=fake.sleep)
    second = SharedPacer(path, 5.0, 1.0, 4, wall=fake.monotonic, sleep=fake.sleep)
    assert first.pace("post") == 0.0
    assert second.pace("post") == 5.0  # slept until first's spacing was over
    assert second.pace("message") == 0.0 and first.pace("message") == 1.0
    assert first.pace("message") is None  # the cap: 4 a minute, for both together
    fake.now += 60
    assert second.pace("post") == 0.0


def test_the_pace_file_is_named_after_the_account(sandbox: RedditSandbox,
                                                   tmp_path: Path) -> None:
    settings = settings_for(sandbox.url, sqlite_url(tmp_path / "x.db"))
    assert pace_file(settings).name == "pace-maester_bot.json"
    token = settings.model_copy(update={"reddit": settings.reddit.model_copy(
        update={"username": "", "password": "", "refresh_token": "rt-secret"})})
    assert pace_file(token).name.startswith("pace-token-")
    assert "secret" not in str(pace_file(token))
    assert isinstance(Pacer.shared(settings), SharedPacer)
