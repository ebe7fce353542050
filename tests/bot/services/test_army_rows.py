"""The tick's armies as read and kept between ticks (bot/services/army_rows.py).

A process keeps the last tick's army rows and values and gives a row read again unchanged its
kept value: the values must be exactly those a fresh conversion of the stored rows gives, after
ticks that moved armies and after another writer changed a row.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text

from benchmarks.bench_tick import START, build
from bot.db.engine import transaction
from bot.services.army_rows import TickArmies, load_armies
from bot.services.tick import catch_up
from tests.fixtures.db import fresh_schema, require_postgres, sqlite_url


@pytest.fixture(params=["sqlite", "postgres"])
def world(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Any, Any]]:
    with ExitStack() as stack:
        url = (sqlite_url(tmp_path / "armies.db") if request.param == "sqlite"
               else stack.enter_context(fresh_schema(require_postgres())))
        engine, ctx = build(url, 40, 16, size=30)
        yield engine, ctx
        engine.dispose()


def read(engine: Any, ctx: Any, *, fresh: bool) -> dict[int, tuple[Any, dict[str, Any]]]:
    """Every army's value (with its meta, which values leave out of equality), read with the
    kept rows or converting every row afresh."""
    if fresh:
        TickArmies._kept = ({}, {})
    with transaction(engine) as session:
        armies = load_armies(session, ctx.campaign_id)
    return {i: (a, dict(a.meta)) for i, a in armies.now.items()}


def test_kept_values_are_the_stored_rows_values(world: tuple[Any, Any]) -> None:
    engine, ctx = world
    for hours in (6, 12, 18):  # marches step on, detection rolls fill in the armies' meta
        assert len(catch_up(engine, ctx, START + timedelta(hours=hours))) == 1
        kept = read(engine, ctx, fresh=False)
        assert kept == read(engine, ctx, fresh=True)
        assert any(meta.get("rolled") for _, meta in kept.values())
    marching = next(a for a, _ in kept.values() if a.march.path)
    with transaction(engine) as session:  # another writer moves an army the tick kept
        session.execute(text("UPDATE army SET tile = :tile, path_json = :path WHERE id = :id"),
                        {"tile": marching.march.path[0], "path": "[]", "id": marching.id})
    after = read(engine, ctx, fresh=False)
    assert after[marching.id][0].tile == marching.march.path[0]
    assert after[marching.id][0].march.path == ()
    assert after == read(engine, ctx, fresh=True)
