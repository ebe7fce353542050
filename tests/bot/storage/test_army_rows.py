"""The tick's armies as read and kept between ticks (bot/storage/army_rows.py).

A process keeps the last tick's army rows and values and gives a row read again unchanged its
kept value: the values must be exactly those a fresh conversion of the stored rows gives, after
ticks that moved armies and after another writer changed a row. The armies a tick changed are
written with one statement per shape of change (a march's step, or any other), whatever their
number, and read back as the tick had them.
"""

from __future__ import annotations

import gc
import json
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import replace
from datetime import timedelta
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy import event, text

from benchmarks.bench_tick import START, build
from bot.db.engine import transaction
from bot.services.tick import catch_up
from bot.storage import army_rows
from bot.storage.army_rows import TickArmies, _costs_text, _tiles_text, load_armies
from rules.campaign.world import ArmyState, March, World
from tests.fixtures.db import fresh_schema, require_postgres, sqlite_url


@pytest.fixture(params=["sqlite", "postgres"])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """The URL of an empty database of each backend."""
    with ExitStack() as stack:
        yield (sqlite_url(tmp_path / "armies.db") if request.param == "sqlite"
               else stack.enter_context(fresh_schema(require_postgres())))


@pytest.fixture
def world(database: str) -> Iterator[tuple[Any, Any]]:
    engine, ctx = build(database, 40, 16, size=30)
    yield engine, ctx
    engine.dispose()


@contextmanager
def army_updates(engine: Any) -> Iterator[list[int]]:
    """The UPDATE statements of the army table run meanwhile: the rows each wrote."""
    seen: list[int] = []

    def record(conn: Any, cursor: Any, statement: str, parameters: Any, context: Any,
               executemany: bool) -> None:
        if statement.lstrip().upper().startswith("UPDATE ARMY "):
            seen.append(cursor.rowcount)

    event.listen(engine, "after_cursor_execute", record)
    try:
        yield seen
    finally:
        event.remove(engine, "after_cursor_execute", record)


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


def test_changed_columns_are_written_and_read_back_exactly(world: tuple[Any, Any]) -> None:
    engine, ctx = world
    with transaction(engine) as session:
        armies = load_armies(session, ctx.campaign_id)
    marching = [a for a in armies.now.values() if a.march.path]
    standing = [a for a in armies.now.values() if not a.march.path]
    odd = marching[1]  # its march stored by another writer, as compact JSON
    with transaction(engine) as session:
        session.execute(text("UPDATE army SET path_json = :path, costs_json = :costs, "
                             "travelled_json = :travelled WHERE id = :id"),
                        {"path": json.dumps(list(odd.march.path), separators=(",", ":")),
                         "costs": json.dumps(list(odd.march.costs), indent=1),
                         "travelled": '[ "0000" ] ', "id": odd.id})
    with transaction(engine) as session:
        armies = load_armies(session, ctx.campaign_id)
        before = World(armies=armies.current())

        def step(a: Any, tiles: int) -> Any:  # ``tiles`` tiles entered, a detection rolled
            m = a.march
            return replace(a, tile=m.path[tiles - 1], march=replace(
                m, path=m.path[tiles:], costs=m.costs[tiles:], saved=Fraction(1, 3)),
                travelled=(*a.travelled, a.tile, *m.path[:tiles - 1]),
                meta={**a.meta, "rolled": [tiles]})

        odd = armies.now[odd.id]
        assert odd.travelled == ("0000",)
        new = {a.id: a for a in (
            step(marching[0], 1), step(odd, 2),
            replace(marching[2], tile=marching[2].march.path[-1], state=ArmyState.STANDING,
                    march=replace(marching[2].march, path=(), costs=()),
                    arrival_tick=7, stationary_since=7, travelled=()),  # arrived
            replace(standing[0], state=ArmyState.MARCHING, march=March(
                (standing[0].tile, "0101"), (2, 3), Fraction(5, 2), 9), infantry=7),
            replace(standing[1], meta={**standing[1].meta}))}  # changed nothing stored
        armies.take(before, replace(before, armies={**before.armies, **new}))
        with army_updates(engine) as updates:
            assert armies.save(session) == 4
        assert updates == [2, 2]  # the march steps, then the others
    for fresh in (False, True):
        now = read(engine, ctx, fresh=fresh)
        for a in new.values():
            assert now[a.id] == (a, a.meta)
            assert now[a.id][0].march == a.march and now[a.id][0].travelled == a.travelled


def test_statements_per_tick_do_not_grow_with_the_armies(database: str) -> None:
    counts = []
    for armies in (20, 60):
        engine, ctx = build(database, armies, armies * 2 // 5, size=30)
        with army_updates(engine) as updates:
            for hours in (6, 12):
                assert len(catch_up(engine, ctx, START + timedelta(hours=hours))) == 1
        engine.dispose()
        assert sum(updates) >= armies * 2 // 5  # every march stepped or saved its budget
        counts.append(len(updates))
    assert counts[0] == counts[1]



def test_what_a_tick_keeps_goes_to_the_collectors_oldest_generation(
        world: tuple[Any, Any]) -> None:
    """The collector is paused during a tick; afterwards it runs again, and the army values
    the process keeps for the next tick are in its oldest generation already (no young
    collection goes over them); a collector paused before the tick stays paused."""
    engine, ctx = world
    assert gc.isenabled()
    assert len(catch_up(engine, ctx, START + timedelta(hours=6))) == 1
    assert gc.isenabled()
    kept = {id(a) for a in TickArmies._kept[1].values()}
    assert len(kept) == 40
    young = {id(o) for generation in (0, 1) for o in gc.get_objects(generation)}
    assert not kept & young
    assert kept <= {id(o) for o in gc.get_objects(2)}
    gc.disable()
    try:
        assert len(catch_up(engine, ctx, START + timedelta(hours=12))) == 1
        assert not gc.isenabled()
    finally:
        gc.enable()


@given(st.lists(st.one_of(st.text(max_size=5), st.integers()), max_size=6))
def test_the_text_of_tiles_is_their_json(tiles: list[Any]) -> None:
    assert _tiles_text(tuple(tiles)) == json.dumps(tiles)


@given(st.lists(st.integers(1, 10**6), min_size=1, max_size=8), st.integers(0, 8),
       st.sampled_from([{}, {"separators": (",", ":")}, {"indent": 1}, {"indent": 0}]))
def test_the_costs_ahead_keep_the_stored_text_less_the_costs_paid(
        costs: list[int], dropped: int, style: dict[str, Any]) -> None:
    """Whatever the spacing of the stored text, the text written for the costs ahead reads
    back as them (and is json.dumps's own when the stored text was)."""
    old = tuple(costs)
    new = old[min(dropped, len(old)):]
    written = _costs_text(json.dumps(costs, **style), old, new)
    assert json.loads(written) == list(new)
    if not style:
        assert written == json.dumps(list(new))
    assert json.loads(_costs_text(json.dumps(costs), old, (*new, 7))) == [*new, 7]


@given(st.lists(st.one_of(st.text(max_size=8), st.none(), st.integers()), min_size=6,
                max_size=6), st.sampled_from(["sqlite", "postgresql"]))
def test_a_steps_text_is_the_encoders_whatever_its_values(values: list[Any],
                                                          dialect: str) -> None:
    """The second text of a stepped row's key (texts quoted one by one, or any other value
    through the encoder) is the one the row encoder gives: quotes, backslashes, control
    characters, other alphabets, NULL."""
    step = tuple(values)
    key = army_rows.step_key(("first", "old"), step, dialect)
    assert key == ("first", army_rows._ROW_TEXT[dialect](step))
    assert json.loads(key[1]) == values
