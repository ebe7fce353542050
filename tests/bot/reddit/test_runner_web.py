"""``maester run`` with ``[web]``: it serves the pages beside the bot and refreshes the
static realm after each tick; the pages read on their own connection while ticks apply."""

from __future__ import annotations

import urllib.request
from datetime import timedelta
from pathlib import Path

from bot.runner import BotRunner
from tests.bot.reddit.conftest import Harness


def _get(url: str) -> tuple[int, str]:
    with urllib.request.urlopen(url, timeout=20) as answer:
        return answer.status, answer.read().decode()


def test_run_serves_the_pages_and_refreshes_the_export(bot: Harness, tmp_path: Path) -> None:
    settings = bot.settings.model_copy(deep=True)
    settings.web.enabled = True
    settings.web.port = 0  # any free port
    settings.web.export_dir = str(tmp_path / "site")
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
