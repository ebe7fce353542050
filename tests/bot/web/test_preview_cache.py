"""The moderators' room keeps its preview of the next tick while nothing changed, and makes it
again after every kind of write (bot/web/app.Previews, issue #25): an order by modmail through
the sandbox and real PRAW, a tick, a moderator's undo and pause on the command line. On SQLite
and PostgreSQL, the pages reading on their own read-only connection."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from freezegun import freeze_time
from sqlmodel import select
from starlette.testclient import TestClient
from typer.testing import CliRunner

from bot.db.engine import make_reader_engine, transaction
from bot.db.models import Army
from bot.sandbox import RedditSandbox
from bot.services import weblinks
from bot.web.app import Previews, create_app
from tests.bot.reddit.conftest import Harness, make_harness, sandbox_config

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture
def harness(sandbox: RedditSandbox, db_url: str) -> Iterator[Harness]:
    made = make_harness(sandbox, db_url)
    yield made
    made.engine.dispose()


def _cli(config: Path, at: Any, *args: str) -> str:
    from bot.cli import app

    with freeze_time(at):
        done = CliRunner().invoke(app, [*args, "-c", str(config)], catch_exceptions=False)
    assert done.exit_code == 0, done.output
    return done.output


class Room:
    """The moderators' room of the harness's campaign, served by the web app."""

    def __init__(self, bot: Harness) -> None:
        with transaction(bot.engine) as session:
            self.path = "/api" + next(link.path for link in weblinks.links(
                session, bot.ctx, bot.clock.now()) if not link.name)
        self.reader = make_reader_engine(bot.settings.campaign.database_url)
        app = create_app(self.reader, bot.settings)
        self.previews: Previews = app.state.site.previews
        self.client = TestClient(app)

    def preview(self) -> dict[str, Any]:
        answer = self.client.get(self.path)
        assert answer.status_code == 200, answer.text
        shown: dict[str, Any] = answer.json()["preview"]
        return shown


def test_the_room_keeps_its_preview_until_a_write_changes_it(harness: Harness,
                                                             tmp_path: Path) -> None:
    bot = harness
    bot.send("ned_stark", "muster 300 infantry")
    bot.poll()
    with transaction(bot.engine) as session:
        army = session.exec(select(Army)).one()
    assert army.ready_tick is not None
    bot.clock.set(bot.ctx.tick_at(army.ready_tick - 1) + timedelta(minutes=5))
    bot.poll()  # the ticks up to the eve of the muster's end
    room = Room(bot)
    try:
        eve = room.preview()
        assert eve["tick"] == army.ready_tick and room.previews.made == 1
        assert [m["kind"] for m in eve["musters"]] == ["muster_done"]
        assert "is standing" in eve["notes"][0]["body"]
        for _ in range(3):  # nothing changed: served as kept
            assert room.preview() == eve
        assert room.previews.made == 1

        # an order by modmail, through the sandbox and PRAW: the army will march at once
        bot.send("ned_stark", f"move army {army.id}: Winterfell > 1215 (cost 1)")
        bot.poll()
        ordered = room.preview()
        assert room.previews.made == 2
        assert ordered["tick"] == eve["tick"] and "is marching" in ordered["notes"][0]["body"]
        assert room.preview() == ordered and room.previews.made == 2

        # the tick
        bot.clock.advance(timedelta(hours=6))
        bot.poll()
        ticked = room.preview()
        assert room.previews.made == 3
        assert ticked["tick"] == eve["tick"] + 1 and not ticked["musters"]

        # a moderator's undo, on the command line: the world of the eve again
        config = sandbox_config(tmp_path / "config.toml", bot.sandbox.url,
                                bot.settings.campaign.database_url, agent="preview")
        _cli(config, bot.clock.now(), "undo", "--reason", "too early")
        undone = room.preview()
        assert room.previews.made == 4
        assert undone == ordered

        # a moderator's pause
        _cli(config, bot.clock.now(), "pause", "--note", "a feast")
        paused = room.preview()
        assert room.previews.made == 5
        assert paused["paused"] and not undone["paused"]
        assert room.preview() == paused and room.previews.made == 5
    finally:
        room.client.close()
        room.reader.dispose()


def test_a_kept_preview_lives_no_longer_than_its_lifetime(harness: Harness) -> None:
    """Even with nothing written, the preview is made again once its lifetime is over (the
    lifetime is the app's, on its clock)."""
    room = Room(harness)
    now = [0.0]
    room.previews.clock = lambda: now[0]
    try:
        first = room.preview()
        now[0] = room.previews.lifetime - 1
        assert room.preview() == first and room.previews.made == 1
        now[0] = room.previews.lifetime
        assert room.preview() == first and room.previews.made == 2
    finally:
        room.client.close()
        room.reader.dispose()
