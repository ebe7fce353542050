"""Fixtures for the Reddit tests: the sandbox holding the demo roster's players, a campaign in
a real database, a real PRAW gateway, and a scan of every public post for secrets.

``bot`` is a :class:`Harness` on SQLite; ``bot_any`` the same on SQLite and PostgreSQL.
Every test that starts a sandbox has its public posts and comments scanned at teardown
(:func:`assert_no_secrets`): none may carry a holdfast's secret defense bonus or a detection
result, which only their owners may read in private modmail.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine
from sqlmodel import col, select

from bot.clock import ManualClock
from bot.config import Settings, parse_settings
from bot.db.engine import make_engine, transaction
from bot.db.migrate import upgrade
from bot.db.models import Event, InboxMessage, Outbox
from bot.maps import demo_map_text
from bot.reddit.deliver import DeliverReport, publish_once
from bot.reddit.gateway import PrawGateway, praw_gateway
from bot.reddit.intake import IntakeReport, poll_once
from bot.reddit.ratelimit import RequestBudget
from bot.sandbox import (
    BOT_PASSWORD,
    BOT_USERNAME,
    DEFAULT_CLIENT_ID,
    DEFAULT_CLIENT_SECRET,
    MODERATOR,
    SUBREDDIT,
    RedditSandbox,
    password_for,
)
from bot.services.setup import DEMO_ROSTER, DEMO_WARS, create_campaign
from bot.services.tick import advancer
from bot.services.world import CampaignContext, Parses, load_context
from rules.campaign.calendar import tick_index
from rules.campaign.worldmap import parse_map
from tests.fixtures.db import sqlite_url

#: Short enough that "stored then slow" faults make prawcore time out quickly.
TIMEOUT = 0.4
SLOW = 0.8
DEMO_PLAYERS = tuple(p for entry in DEMO_ROSTER for p in entry["players"])


def settings_for(url: str, database_url: str, *, dice: Mapping[str, Any] | None = None,
                 **bot: Any) -> Settings:
    """Settings pointing real PRAW at the sandbox at ``url`` (``dice``: more ``[dice]``)."""
    return parse_settings({
        "campaign": {"database_url": database_url, "subreddit": SUBREDDIT,
                     "moderators": [MODERATOR]},
        "reddit": {"client_id": DEFAULT_CLIENT_ID, "client_secret": DEFAULT_CLIENT_SECRET,
                   "username": BOT_USERNAME, "password": BOT_PASSWORD, "oauth_url": url,
                   "reddit_url": url},
        "bot": {"poll_seconds": 5, "publish_seconds": 1, "max_attempts": 8,
                "post_spacing_seconds": 0, "message_spacing_seconds": 0,
                "sends_per_minute": 0, **bot},
        # These tests count the posts and messages of their own scenarios; the [Dice] posts
        # (commit and reveal) are tested in tests/bot/services/test_fairplay*.py and the demo.
        "dice": {"publish": False, **(dice or {})},
    })


def add_demo_players(sandbox: Any) -> None:
    """Give every player of the demo roster a sandbox account (ned_stark exists already)."""
    existing = {"ned_stark", "cersei_lannister", "daenerys_t"}
    for name in DEMO_PLAYERS:
        if name not in existing:
            sandbox.add_user(name, password_for(name))


def new_campaign(engine: Engine, settings: Settings, now: datetime) -> CampaignContext:
    with transaction(engine) as session:
        return create_campaign(session, settings, map_text=demo_map_text(), roster=DEMO_ROSTER,
                               now=now, seed="reddit-tests-secret", wars=DEMO_WARS)


# --------------------------------------------------------------------------- secrets

_DETECTION = re.compile(r"detection roll|sighted|sight an army|your watchers", re.IGNORECASE)
_SECRET = re.compile(r"\bsecret\b", re.IGNORECASE)


def _bonus_patterns() -> list[re.Pattern[str]]:
    bonuses = sorted({str(t.defense_bonus) for t in parse_map(demo_map_text()).holdfasts()
                      if t.defense_bonus != 1})
    return [re.compile(r"[x×]\s?" + re.escape(b) + r"(?!\d)") for b in bonuses]


BONUS_PATTERNS = _bonus_patterns()


def secrets_in(text: str) -> list[str]:
    """What in ``text`` would give away a secret defense bonus or a detection result."""
    found = [m.group(0) for p in BONUS_PATTERNS for m in p.finditer(text)]
    found += [m.group(0) for m in _DETECTION.finditer(text)]
    found += [m.group(0) for m in _SECRET.finditer(text)]
    return found


def assert_no_secrets(texts: Iterable[tuple[str, str]]) -> int:
    """Fail on any public (where, text) holding a secret; returns how many were scanned."""
    scanned = 0
    for where, text in texts:
        scanned += 1
        leaked = secrets_in(text)
        assert not leaked, f"public {where} gives away {leaked}:\n{text}"
    return scanned


def public_texts(sandbox: Any) -> list[tuple[str, str]]:
    """Every post (title and body) and comment on the sandbox."""
    out = [(f"post {p.id}", f"{p.title}\n{p.body}") for p in sandbox.posts()]
    out += [(f"comment {c.id}", c.body) for c in sandbox.comments()]
    return out


@pytest.fixture
def sandbox(sandbox: RedditSandbox) -> Iterator[RedditSandbox]:
    """The shared sandbox fixture, plus the secrets scan of its public posts at teardown."""
    yield sandbox
    assert_no_secrets(public_texts(sandbox))


# --------------------------------------------------------------------------- the harness


def sandbox_config(path: Path, url: str, database_url: str, *, agent: str,
                   subreddit: str = SUBREDDIT, reddit: str = "", rest: str = "") -> Path:
    """A config.toml for a ``maester`` process against the sandbox at ``url``: the
    campaign and the bot's login (``agent`` names the test in the user agent), then
    ``reddit`` more lines of the ``[reddit]`` section and ``rest`` (the other sections)."""
    path.write_text(f"""
[campaign]
database_url = "{database_url}"
subreddit = "{subreddit}"
moderators = ["{MODERATOR}"]

[reddit]
client_id = "{DEFAULT_CLIENT_ID}"
client_secret = "{DEFAULT_CLIENT_SECRET}"
username = "{BOT_USERNAME}"
password = "{BOT_PASSWORD}"
user_agent = "python:maester-{agent}-test:v0.1 (by /u/{MODERATOR})"
oauth_url = "{url}"
reddit_url = "{url}"
{reddit}
{rest}""", encoding="utf-8")
    return path

@dataclass
class Harness:
    """A campaign on a database, the sandbox, a real PRAW gateway and a manual clock."""

    sandbox: RedditSandbox
    settings: Settings
    engine: Engine
    ctx: CampaignContext
    gateway: PrawGateway
    clock: ManualClock

    def send(self, player: str, body: str, subject: str = "Orders") -> tuple[str, str]:
        return self.sandbox.send_modmail(player, subject, body, subreddit=SUBREDDIT)

    def poll(self) -> IntakeReport:
        return poll_once(self.engine, self.ctx, self.gateway, self.clock,
                         advance_to=advancer(self.engine, self.ctx))

    def publish(self, worker: str = "test-worker", limit: int = 200) -> DeliverReport:
        return publish_once(self.engine, self.ctx, self.gateway, self.clock, worker_id=worker,
                            limit=limit)

    def cycle(self) -> tuple[IntakeReport, DeliverReport]:
        return self.poll(), self.publish()

    def drain(self, rounds: int = 50, step: timedelta = timedelta(minutes=2)) -> int:
        """Poll and publish, moving the clock on, until the outbox is empty; rounds used."""
        for used in range(1, rounds + 1):
            self.poll()
            self.publish()
            if not self.pending():
                return used
            self.clock.advance(step)
        raise AssertionError(f"outbox not empty after {rounds} rounds: {self.pending()}")

    def pending(self) -> list[str]:
        with transaction(self.engine) as session:
            return list(session.exec(select(col(Outbox.key)).where(
                Outbox.campaign_id == self.ctx.campaign_id, Outbox.status == "pending")).all())

    def outbox(self) -> list[Outbox]:
        with transaction(self.engine) as session:
            return list(session.exec(select(Outbox).order_by(col(Outbox.id))).all())

    def inbox(self) -> list[InboxMessage]:
        with transaction(self.engine) as session:
            return list(session.exec(select(InboxMessage).order_by(col(InboxMessage.id))).all())

    def events(self, kind: str) -> list[Event]:
        with transaction(self.engine) as session:
            return list(session.exec(select(Event).where(Event.kind == kind)).all())

    def bot_messages(self, conversation_id: str) -> list[str]:
        return [m.body for m in self.sandbox.conversation_messages(conversation_id)
                if m.author == BOT_USERNAME]


_TEMPLATE: dict[int, Path] = {}
"""The template database of each tick a session needed one in (by the tick's index)."""

_PARSES = Parses()
"""The parses of the harnesses' contexts, for the test session: every harness plays the demo
map, parsed once (a running bot keeps its own the same way, for its process)."""


def _sqlite_copy(database_url: str, tmp_factory: pytest.TempPathFactory, now: datetime,
                 settings: Settings) -> None:
    """Copy a migrated database holding the demo campaign, created in the tick of ``now``, to
    the SQLite file of ``database_url`` (migrating and creating the campaign once per tick
    saves most of each test's set-up time; the campaign is the same every time). A campaign
    created before a tick boundary the session crossed would stand a tick behind ``now``."""
    tick = tick_index(now, settings.rules_config())
    if tick not in _TEMPLATE:
        path = tmp_factory.mktemp("template") / "campaign.db"
        engine = make_engine(sqlite_url(path))
        upgrade(engine)
        new_campaign(engine, settings_for("http://127.0.0.1:1", sqlite_url(path)), now)
        engine.dispose()  # closing the last connection folds the WAL into the file
        _TEMPLATE[tick] = path
    shutil.copyfile(_TEMPLATE[tick], database_url.removeprefix("sqlite:///"))


def make_harness(sandbox: RedditSandbox, database_url: str,
                 tmp_factory: pytest.TempPathFactory | None = None,
                 clock: ManualClock | None = None, dice: Mapping[str, Any] | None = None,
                 **bot: Any) -> Harness:
    """The harness on ``database_url`` (SQLite with ``tmp_factory``: a copy of a template);
    ``clock`` defaults to a manual clock at the wall-clock time; ``dice``: more ``[dice]``."""
    add_demo_players(sandbox)
    settings = settings_for(sandbox.url, database_url, dice=dice, **bot)
    clock = clock or ManualClock(datetime.now(UTC))
    if tmp_factory is not None and database_url.startswith("sqlite:///"):
        _sqlite_copy(database_url, tmp_factory, clock.now(), settings)
        engine = make_engine(database_url)
        with transaction(engine) as session:
            ctx = load_context(session, settings, parses=_PARSES)
    else:
        engine = make_engine(database_url)
        upgrade(engine)
        ctx = new_campaign(engine, settings, clock.now())
    gateway = praw_gateway(settings, budget=RequestBudget(100_000, max_wait=5.0),
                           timeout=TIMEOUT)
    return Harness(sandbox, settings, engine, ctx, gateway, clock)


@pytest.fixture
def bot(sandbox: RedditSandbox, tmp_path: Path,
        tmp_path_factory: pytest.TempPathFactory) -> Iterator[Harness]:
    """The harness on a SQLite file.

    One idle connection stays open meanwhile: with the engine's NullPool every transaction
    otherwise closes the file's last connection, which checkpoints and deletes the WAL
    (an fsync per transaction). Long-running bots keep connections open the same way.
    """
    harness = make_harness(sandbox, sqlite_url(tmp_path / "bot.db"), tmp_path_factory)
    with harness.engine.connect():
        yield harness
    harness.engine.dispose()


@pytest.fixture
def sqlite_engine(tmp_path: Path) -> Iterator[Engine]:
    """A migrated, empty SQLite database."""
    engine = make_engine(sqlite_url(tmp_path / "empty.db"))
    upgrade(engine)
    yield engine
    engine.dispose()


@pytest.fixture
def bot_any(sandbox: RedditSandbox, db_url: str) -> Iterator[Harness]:
    """The harness on SQLite and on PostgreSQL."""
    harness = make_harness(sandbox, db_url)
    yield harness
    harness.engine.dispose()
