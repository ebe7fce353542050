"""The campaign context is a frozen value (issue #25, "no hidden state"): a holiday's clock and
a new map come as a new context that the caller takes up, and what is parsed from the stored
texts is kept by its text, so a map update is never served a stale parse."""

from __future__ import annotations

import dataclasses
import threading
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import select

from bot.db.engine import transaction
from bot.db.models import Campaign
from bot.runner import BotRunner
from bot.services import pause
from bot.services.world import CampaignContext, Parses, current, refreshed
from rules.campaign.worldmap import parse_map
from tests.bot.services import scenario

DAY = timedelta(days=1)


def _campaign(tmp_path: Path) -> tuple[Any, CampaignContext]:
    url = f"sqlite:///{tmp_path / 'c.db'}"
    scenario.build(url)
    return scenario.context(url)


def _store_map(engine: Any, text: str) -> None:
    """What ``maester map update`` leaves in the database, written by another process."""
    with transaction(engine) as session:
        campaign = session.exec(select(Campaign)).one()
        campaign.map_text = text
        session.add(campaign)


def test_nothing_assigns_into_a_context(tmp_path: Path) -> None:
    """Assigning a field fails; a changed setting comes as a new context, the old one and its
    settings as they were."""
    _, ctx = _campaign(tmp_path)
    with pytest.raises(dataclasses.FrozenInstanceError):
        ctx.world = parse_map("id,name,terrain\n0000,,water\n")  # type: ignore[misc]
    kept = ctx.settings.bot.snapshots_kept
    changed = ctx.configured(bot={"snapshots_kept": kept + 5})
    assert changed.settings.bot.snapshots_kept == kept + 5
    assert ctx.settings.bot.snapshots_kept == kept and changed.world is ctx.world


def test_a_holiday_comes_as_a_new_context_on_the_worlds_new_clock(tmp_path: Path) -> None:
    """After ``maester resume`` ends a holiday, reading the campaign gives a context on its
    stored clock; the context the caller held counts as before until it takes the new one."""
    engine, ctx = _campaign(tmp_path)
    with transaction(engine) as session:
        pause.pause(session, ctx, note="", until=None, actor="jane", now=scenario.START)
    with transaction(engine) as session:
        pause.resume(session, ctx, catch_up=False, actor="jane", now=scenario.START + 2 * DAY)
    assert ctx.rules.tick_offset == 0
    with transaction(engine) as session:
        now, campaign = current(session, ctx)
        offset = campaign.tick_offset
        assert refreshed(session, ctx).rules.tick_offset == offset
    assert offset and now.rules.tick_offset == offset and now is not ctx
    assert now.tick_of(scenario.START + 2 * DAY) == ctx.tick_of(scenario.START + 2 * DAY) - offset
    with transaction(engine) as session:
        assert current(session, now)[0] is now  # the same clock: the same context


def test_a_new_map_is_taken_up_by_the_running_bot_and_never_served_stale(tmp_path: Path
                                                                          ) -> None:
    """The running bot swaps in the context with the stored map in one place
    (:meth:`BotRunner.refresh`); each text is parsed once, and a changed text is parsed anew."""
    engine, ctx = _campaign(tmp_path)
    runner = BotRunner(ctx.settings, engine, ctx, gateway=None)  # type: ignore[arg-type]
    assert runner.refresh() is ctx  # nothing stored since: the same context
    with transaction(engine) as session:
        old_text = session.exec(select(Campaign)).one().map_text
    new_text = old_text.replace("Seagard", "Seagard Keep")
    _store_map(engine, new_text)
    taken_up = runner.refresh()
    assert runner.ctx is taken_up and taken_up is not ctx
    assert taken_up.world.tile("Seagard Keep").label == "Seagard Keep"
    assert "Seagard Keep" not in {t.label for t in ctx.world.tiles.values()}  # the old one
    assert runner.refresh() is taken_up  # parsed once per text
    _store_map(engine, old_text)
    back = runner.refresh()
    assert back.world is ctx.world  # the old text's parse, kept by its text


def test_threads_sharing_the_parses_get_one_value_per_text() -> None:
    """The running bot's threads share its context's parses: whoever asks first, every
    thread gets the same value for the same text."""
    parses = Parses()
    text = "id,name,terrain\n0000,,water\n0001,,field\n"
    got: list[object] = []
    start = threading.Barrier(8)

    def ask() -> None:
        start.wait()
        got.append(parses.keep("map", text, parse_map))

    threads = [threading.Thread(target=ask) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(got) == 8 and all(value is got[0] for value in got)
    assert parses.keep("map", text + "0002,,field\n", parse_map) is not got[0]
