"""The tick's read of its armies by row text (bot/storage/army_rows.py).

A process keeps the rows and values of the last tick's armies. The next tick reads each army
row as one text the database builds (the JSON array of its values) and decodes only the rows
whose text it did not keep. The kept values must never be stale: whoever changes an army
between two ticks (the ORM changing one column, plain SQL, another process, ``maester undo``,
a deleted or a new army, a tick rolled back), the next read gives exactly the values a fresh
conversion of the stored rows gives, and decodes the rows that changed, only those.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import replace
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text
from sqlmodel import Session, select

from benchmarks.bench_tick import START, build
from bot.db.engine import transaction
from bot.db.models import Army, ArmyKind, ArmyState
from bot.services import snapshots
from bot.services.tick import catch_up
from bot.storage import army_rows
from bot.storage.army_rows import TickArmies, load_armies, row_key
from rules.campaign.world import World
from tests.fixtures.db import fresh_schema, require_postgres, sqlite_url


@pytest.fixture(params=["sqlite", "postgres"])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """The URL of an empty database of each backend."""
    with ExitStack() as stack:
        yield (sqlite_url(tmp_path / "texts.db") if request.param == "sqlite"
               else stack.enter_context(fresh_schema(require_postgres())))


@pytest.fixture
def world(database: str) -> Iterator[tuple[Any, Any]]:
    """The tick benchmark's world at 40 armies, after one tick (the process keeps its
    armies)."""
    engine, ctx = build(database, 40, 16, size=30)
    assert len(catch_up(engine, ctx, START + timedelta(hours=6))) == 1
    yield engine, ctx
    engine.dispose()


@contextmanager
def decoded(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """The armies whose row text a read decoded (not kept), in order."""
    seen: list[int] = []
    decode = army_rows._key_row

    def counted(key: Any) -> Any:
        row = decode(key)
        seen.append(row[0])
        return row

    with monkeypatch.context() as patch:
        patch.setattr(army_rows, "_key_row", counted)
        yield seen


def read(engine: Any, ctx: Any, *, fresh: bool) -> dict[int, tuple[Any, dict[str, Any]]]:
    """Every army's value (with its meta), read by token with the kept rows, or converting
    every row afresh."""
    if fresh:
        TickArmies._kept = ({}, {})
    with transaction(engine) as session:
        armies = load_armies(session, ctx.campaign_id)
    return {i: (a, dict(a.meta)) for i, a in armies.now.items()}


def test_a_steady_tick_decodes_no_row_and_its_armies_are_the_stored_ones(
        world: tuple[Any, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    """After a tick the process knows every row's text (those of the rows it wrote too: it
    writes them as the database does): the next read decodes no row, and gives what a fresh
    conversion gives."""
    engine, ctx = world
    for hours in (12, 18):
        with decoded(monkeypatch) as seen:
            kept = read(engine, ctx, fresh=False)
        assert seen == []
        assert kept == read(engine, ctx, fresh=True)
        assert len(catch_up(engine, ctx, START + timedelta(hours=hours))) == 1


def change_elsewhere(database: str, sql: str, params: dict[str, Any]) -> None:
    """Run ``sql`` in another process, through the driver (no code of ours)."""
    code = ("import sys, json; from sqlalchemy import create_engine, text, make_url\n"
            "url = make_url(sys.argv[1]); schema = url.query.get('schema')\n"
            "url = url.difference_update_query(['schema'])\n"
            "args = {'options': f'-csearch_path={schema}'} if schema else {}\n"
            "engine = create_engine(url, connect_args=args)\n"
            "with engine.begin() as c: c.execute(text(sys.argv[2]), json.loads(sys.argv[3]))\n"
            "engine.dispose()\n")
    subprocess.run([sys.executable, "-c", code, database, sql, json.dumps(params)],
                   check=True, timeout=120)


@pytest.mark.parametrize("writer", ["orm", "sql", "process"])
def test_an_army_changed_between_ticks_is_read_again(world: tuple[Any, Any], database: str,
                                                    writer: str,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """One column of one army changed by the ORM, by plain SQL, or by another process: the
    next read decodes that row (only that one) and gives its new value."""
    engine, ctx = world
    with transaction(engine) as session:
        army = session.exec(select(Army).where(Army.campaign_id == ctx.campaign_id,
                                               Army.state == ArmyState.STANDING)
                            .order_by(Army.id)).first()
        assert army is not None
        target, infantry = army.id or 0, army.infantry + 7
        if writer == "orm":
            army.infantry = infantry
            session.add(army)
    if writer == "sql":
        with engine.begin() as connection:
            connection.execute(text("UPDATE army SET infantry = :n WHERE id = :id"),
                               {"n": infantry, "id": target})
    elif writer == "process":
        change_elsewhere(database, "UPDATE army SET infantry = :n WHERE id = :id",
                         {"n": infantry, "id": target})
    with decoded(monkeypatch) as seen:
        after = read(engine, ctx, fresh=False)
    assert seen == [target]
    assert after[target][0].infantry == infantry
    assert after == read(engine, ctx, fresh=True)


def test_deleted_and_new_armies_are_seen(world: tuple[Any, Any],
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    engine, ctx = world
    before = read(engine, ctx, fresh=False)
    gone = min(before)
    with transaction(engine) as session:
        session.execute(text("DELETE FROM army WHERE id = :id"), {"id": gone})
        claim = before[max(before)][0].claim_id
        new = Army(campaign_id=ctx.campaign_id, claim_id=claim, kind=ArmyKind.LAND,
                   state=ArmyState.STANDING, tile=before[max(before)][0].tile, infantry=11)
        session.add(new)
        session.flush()
        new_id = new.id
    with decoded(monkeypatch) as seen:
        after = read(engine, ctx, fresh=False)
    assert seen == [new_id]
    assert gone not in after and after[new_id][0].infantry == 11
    assert after == read(engine, ctx, fresh=True)


@pytest.mark.parametrize("how", ["deleted", "gone"])
def test_an_army_gone_alone_is_not_handed_over_from_the_kept_ones(
        world: tuple[Any, Any], how: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """One army deleted by SQL between two ticks, or set to 'gone' (no longer read), and none
    added: every row read is still a kept one, yet the kept mappings hold one army more, so
    the read does not hand them over (it would bring the army back)."""
    engine, ctx = world
    before = read(engine, ctx, fresh=False)
    target = min(before)
    sql = ("DELETE FROM army WHERE id = :id" if how == "deleted"
           else f"UPDATE army SET state = '{ArmyState.GONE.value}' WHERE id = :id")
    with engine.begin() as connection:
        connection.execute(text(sql), {"id": target})
    with decoded(monkeypatch) as seen:
        after = read(engine, ctx, fresh=False)
    assert seen == []  # every row still read is a kept one
    assert target not in after and set(after) == set(before) - {target}
    assert after == read(engine, ctx, fresh=True)


def test_an_undone_tick_gives_every_army_back_as_the_snapshot_kept_it(
        world: tuple[Any, Any]) -> None:
    """``maester undo`` puts the rows back as they were before the tick: the next read gives
    the armies as before that tick, not as the process kept them after it."""
    engine, ctx = world
    before_tick = read(engine, ctx, fresh=True)
    assert len(catch_up(engine, ctx, START + timedelta(hours=12))) == 1
    after_tick = read(engine, ctx, fresh=False)
    assert after_tick != before_tick
    with transaction(engine) as session:
        chosen = snapshots.plan(session, ctx, snapshots.newest(session, ctx),
                                START + timedelta(hours=12))
        snapshots.restore(session, ctx, chosen, actor="jane", now=START + timedelta(hours=12))
    undone = read(engine, ctx, fresh=False)
    assert undone == before_tick == read(engine, ctx, fresh=True)
    assert {i: m for i, (_, m) in undone.items()} == {i: m for i, (_, m) in before_tick.items()}


def test_a_rolled_back_tick_leaves_no_kept_row_behind(world: tuple[Any, Any]) -> None:
    """The tick writes its armies, then fails: the rows are as before, and the rows the
    process kept from the failed write are not taken for them."""
    engine, ctx = world
    stored = read(engine, ctx, fresh=True)

    class Failed(Exception):
        pass

    with pytest.raises(Failed), transaction(engine) as session:
        armies = load_armies(session, ctx.campaign_id)
        before = World(armies=armies.current())
        moved = {i: replace(a, infantry=a.infantry + 1) for i, a in armies.now.items()}
        armies.take(before, replace(before, armies=moved))
        assert armies.save(session) == len(moved)
        raise Failed
    assert read(engine, ctx, fresh=False) == stored == read(engine, ctx, fresh=True)


def test_the_text_of_a_written_row_is_the_databases(database: str) -> None:
    """The text the tick gives a row it wrote is the one the database builds for that row,
    whatever its values hold (quotes, backslashes, control characters, other alphabets,
    NULL, a retreat penalty): so the next tick need not decode it."""
    engine, ctx = build(database, 4, 2, size=30)
    try:
        odd = json.dumps({"note": 'a "b" \\ c\n\t\u0001 é ☃ \u2028', "n": [1, None]},
                         ensure_ascii=False)
        with engine.begin() as connection:
            connection.execute(text("UPDATE army SET meta_json = :meta, retreat_penalty = :p, "
                                    "arrival_tick = NULL, saved = :saved WHERE id = "
                                    "(SELECT MIN(id) FROM army)"),
                               {"meta": odd, "p": True, "saved": "7/3"})
        with engine.connect() as connection:
            keys = army_rows._row_keys(connection, ctx.campaign_id, army_rows.ACTIVE_STATES)
            rows = army_rows._select(Session(connection), ctx.campaign_id,
                                     army_rows.ACTIVE_STATES)
        assert len(keys) == 4 and any("\\u0001" in key[1] for key in keys)
        by_id = {army_rows._key_row(key)[0]: key for key in keys}
        for row in rows:
            assert army_rows._key_row(by_id[row[0]]) == row  # the driver's very values
            penalty = army_rows._READ.index("retreat_penalty")
            written = (*row[:penalty], bool(row[penalty]), *row[penalty + 1:])
            assert row_key(written, engine.dialect.name) == by_id[row[0]]
    finally:
        engine.dispose()
