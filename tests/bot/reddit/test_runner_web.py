"""``maester run`` with ``[web]``: it serves the pages beside the bot and refreshes the
static realm after each tick; the pages read on their own connection while ticks apply."""

from __future__ import annotations

import dataclasses
import urllib.request
from datetime import timedelta
from pathlib import Path

from bot.runner import BotRunner
from tests.bot.reddit.conftest import Harness


def _get(url: str) -> tuple[int, str]:
    with urllib.request.urlopen(url, timeout=20) as answer:
        return answer.status, answer.read().decode()


def test_run_serves_the_pages_and_refreshes_the_export(bot: Harness, tmp_path: Path) -> None:
    settings = bot.settings.configured(web={  # port 0: any free port
        "enabled": True, "port": 0, "export_dir": str(tmp_path / "site")})
    runner = BotRunner(settings, bot.engine, bot.ctx, bot.gateway, clock=bot.clock)
    runner.start()
    try:
        assert runner.web is not None
        status, page = _get(f"http://127.0.0.1:{runner.web.port}/")
        assert status == 200 and "<svg" in page
        first = (tmp_path / "site" / "index.html").read_text()  # written at start-up
        bot.clock.advance(timedelta(hours=12))
        runner.wake("tick")  # its intake round applies the due ticks first
        exported = (tmp_path / "site" / "index.html").read_text()
        assert "<svg" in exported and 'src="static/app.js"' in exported
        assert exported != first  # refreshed: a later date and countdown
        assert (tmp_path / "site" / "static" / "app.js").is_file()
        status, data = _get(f"http://127.0.0.1:{runner.web.port}/api/realm")
        assert status == 200 and f'"tick":{bot.ctx.tick_of(bot.clock.now())}' in data
    finally:
        runner.stop()
    assert runner.web is None


def test_run_sends_each_claim_its_war_room_link_once(bot: Harness) -> None:
    from sqlmodel import select

    from bot.db.engine import transaction
    from bot.db.models import Outbox

    settings = bot.settings.configured(web={"enabled": True, "port": 0,
                                             "public_url": "https://maester.example.org"})

    def notes() -> list[Outbox]:
        with transaction(bot.engine) as session:
            return list(session.exec(select(Outbox).where(Outbox.title == "Your war room")))

    ctx = dataclasses.replace(bot.ctx, settings=settings)
    for _ in range(2):  # a restart sends nothing again
        runner = BotRunner(settings, bot.engine, ctx, bot.gateway, clock=bot.clock)
        runner.start()
        try:
            sent = notes()
            assert sent, "no link sent"
            assert all("https://maester.example.org/claim/" in n.body for n in sent), \
                sent[0].body
            assert runner.web is not None
            path = sent[0].body.split("https://maester.example.org", 1)[1].split()[0]
            status, page = _get(f"http://127.0.0.1:{runner.web.port}{path}")
            assert status == 200 and "war room" in page
        finally:
            runner.stop()
    assert len(notes()) == len({n.target for n in notes()})  # one per player, sent once
