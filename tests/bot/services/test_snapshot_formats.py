"""Snapshot formats, on SQLite and PostgreSQL.

- Format 2 (what :func:`bot.services.snapshots.take` writes: rows as arrays of the values the
  database stores) gives every stored value of every world column back exactly, whatever the
  rows hold (a property test over rows built from the columns' own types, so a new column is
  covered by itself); so does format 1, but for the order of the keys in JSON columns (it
  sorted them).
- Format 1 (rows as dicts of values converted for JSON, what maester wrote before format 2,
  reproduced by :func:`format_one`) still takes the world back, and the ticks applied again
  give the same world and dice; snapshots of both formats mix (the map and catalogue kept by
  a later format-2 snapshot put back a format-1 one).
"""

from __future__ import annotations

import hashlib
import json
import zlib
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import Phase, given, settings
from hypothesis import strategies as st
from sqlalchemy import (
    JSON,
    Boolean,
    Column,
    Engine,
    Integer,
    String,
    Table,
    TypeDecorator,
    UniqueConstraint,
    delete,
    insert,
    text,
    update,
)
from sqlalchemy import select as core_select
from sqlmodel import Session, SQLModel, col, select

from bot.db.engine import transaction
from bot.db.models import Campaign, Snapshot
from bot.db.types import ExactDecimal, StoredEnum, UTCDateTime
from bot.maps import demo_map_text
from bot.services import snapshots
from bot.services.setup import DEMO_ROSTER, DEMO_WARS, create_campaign
from bot.services.tick import catch_up
from bot.services.world import CampaignContext, Parses, load_context
from tests.bot.services import scenario
from tests.bot.services.test_snapshots import world

DAY = timedelta(days=1)


# --- format 1, as maester wrote it before format 2 ------------------------------------------

def format_one(session: Session, campaign_id: int, *, heavy: bool = False) -> dict[str, Any]:
    """The content of a format-1 snapshot of the campaign now: every world row as a dict of
    its values read through the columns' types and converted for JSON (decimals and times as
    text, enums as their values), the map and catalogue as digests of their values."""
    row = session.execute(core_select(snapshots._table(Campaign)).where(
        snapshots._table(Campaign).c.id == campaign_id)).mappings().one()
    tables: dict[str, list[dict[str, Any]]] = {}
    for model in snapshots.WORLD_TABLES:
        table = snapshots._table(model)
        rows = session.execute(core_select(table).where(table.c.campaign_id == campaign_id)
                               .order_by(table.c.id)).mappings().all()
        tables[table.name] = [{c.name: snapshots._dump(c, r[c.name]) for c in table.columns}
                              for r in rows]
    campaign = snapshots._table(Campaign)
    return {"format": 1,
            "campaign": {n: snapshots._dump(campaign.c[n], row[n])
                         for n in snapshots.CAMPAIGN_FIELDS},
            "digests": {n: snapshots._digest(row[n]) for n in snapshots.HEAVY_FIELDS},
            "heavy": {n: row[n] for n in snapshots.HEAVY_FIELDS} if heavy else {},
            "tables": tables, "outbox": snapshots._outbox_state(session, campaign_id)}


def take(session: Session, ctx: CampaignContext, fmt: int, label: str, *,
         heavy: bool = False) -> Snapshot:
    """A moderator command's snapshot, in format ``fmt`` (1: as maester wrote it then)."""
    snapshot = snapshots.take(session, ctx, kind="command", label=label, heavy=heavy,
                              now=scenario.START, actor="jane")
    if fmt == 1:
        snapshot.data = zlib.compress(json.dumps(
            format_one(session, ctx.campaign_id, heavy=heavy), separators=(",", ":"),
            sort_keys=True).encode(), 6)
        session.add(snapshot)
        session.flush()
    assert snapshots.content(snapshot)["format"] == fmt
    return snapshot


def stored(engine: Engine, *, json_text: bool = True) -> dict[str, list[tuple[Any, ...]]]:
    """The campaign row and every world row exactly as the database stores them (JSON as its
    text, or without ``json_text`` as the value it holds; read with plain SQL, none of our
    types in between), by id."""
    out = {}
    with engine.connect() as connection:
        for table in [snapshots._table(Campaign)] + [snapshots._table(m)
                                                     for m in snapshots.WORLD_TABLES]:
            values = ", ".join(f'CAST("{c.name}" AS TEXT)' if isinstance(c.type, JSON)
                               else f'"{c.name}"' for c in table.columns)
            rows = connection.execute(text(f'SELECT {values} FROM "{table.name}" ORDER BY id'))
            kinds = [isinstance(c.type, JSON) and not json_text for c in table.columns]
            out[table.name] = [tuple(json.loads(v) if k else v
                                     for k, v in zip(kinds, r, strict=True)) for r in rows]
    return out


def differences(now: dict[str, list[tuple[Any, ...]]], then: dict[str, list[tuple[Any, ...]]]
                ) -> list[str]:
    """What differs between two :func:`stored` pictures, value by value."""
    out = []
    for name in then:
        if len(now[name]) != len(then[name]):
            out.append(f"{name}: {len(now[name])} rows, {len(then[name])} before")
            continue
        names = [c.name for c in SQLModel.metadata.tables[name].columns]
        out += [f"{name} {a[0]} {names[i]}: {x!r} now, {y!r} before"
                for a, b in zip(now[name], then[name], strict=True)
                for i, (x, y) in enumerate(zip(a, b, strict=True)) if x != y]
    return out


def test_a_format_one_snapshot_takes_the_world_back_and_the_same_ticks_follow(db_url: str
                                                                             ) -> None:
    scenario.build(db_url)
    engine, ctx = scenario.context(db_url)
    catch_up(engine, ctx, scenario.START + DAY)
    at_one_day, rows = world(engine, ctx), stored(engine, json_text=False)
    with transaction(engine) as session:
        old = take(session, ctx, 1, "a command before this version")
    catch_up(engine, ctx, scenario.START + 6 * DAY)  # format-2 snapshots before each tick
    at_six_days = world(engine, ctx)
    assert any(e[1] == "battle" for e in at_six_days["events"])

    with transaction(engine) as session:
        chosen = snapshots.plan(session, ctx, session.get_one(Snapshot, old.id),
                                scenario.START + 6 * DAY)
        assert [s.kind for s in chosen.undone] == ["command"] + ["tick"] * 20
        snapshots.restore(session, ctx, chosen, actor="jane", now=scenario.START + 6 * DAY)
    assert world(engine, ctx) == at_one_day
    assert stored(engine, json_text=False) == rows  # every value as it was (format 1 sorted
    # the keys of JSON objects)

    catch_up(engine, ctx, scenario.START + 6 * DAY)
    assert world(engine, ctx) == at_six_days  # the same battles under the same ids and dice


@pytest.mark.parametrize(("target", "keeper"), [(1, 1), (1, 2), (2, 2)])
def test_the_map_and_catalogue_come_back_from_a_snapshot_of_either_format(
        db_url: str, target: int, keeper: int) -> None:
    """The snapshot taken back to, and the later one that kept the map and catalogue (format
    2 never comes before format 1)."""
    scenario.build(db_url)
    engine, ctx = scenario.context(db_url)
    before = stored(engine, json_text=target == 2)
    with transaction(engine) as session:
        back_to = take(session, ctx, target, "adjust House Stark")
    with transaction(engine) as session:  # as `map update` and `catalogue load` do
        take(session, ctx, keeper, "map update", heavy=True)
        campaign = snapshots._table(Campaign)
        session.execute(update(campaign).where(campaign.c.id == ctx.campaign_id).values(
            map_text=demo_map_text().replace("Winterfell", "Winterfell Ruins"),
            catalogue_json={"skills": {"Ünïcode": {"note": "a b"}}}))
    assert stored(engine, json_text=target == 2) != before
    with transaction(engine) as session:
        chosen = snapshots.plan(session, ctx, session.get_one(Snapshot, back_to.id),
                                scenario.START)
        snapshots.restore(session, ctx, chosen, actor="jane", now=scenario.START)
    assert stored(engine, json_text=target == 2) == before


@pytest.mark.parametrize("fmt", [1, 2])
def test_a_map_changed_without_a_snapshot_of_it_refuses_the_undo(tmp_path: Any, fmt: int
                                                                ) -> None:
    url = f"sqlite:///{tmp_path / 'w.db'}"
    scenario.build(url)
    engine, ctx = scenario.context(url)
    with transaction(engine) as session:
        back_to = take(session, ctx, fmt, "adjust House Stark")
        campaign = snapshots._table(Campaign)
        session.execute(update(campaign).where(campaign.c.id == ctx.campaign_id).values(
            map_text=demo_map_text() + "\n"))
    before = stored(engine)
    with transaction(engine) as session:
        chosen = snapshots.plan(session, ctx, back_to, scenario.START)
        with pytest.raises(snapshots.UndoRefused, match="map changed since then"):
            snapshots.restore(session, ctx, chosen, actor="jane", now=scenario.START)
    assert stored(engine) == before


def test_an_unknown_format_is_refused_with_the_reason(tmp_path: Any) -> None:
    url = f"sqlite:///{tmp_path / 'w.db'}"
    scenario.build(url)
    engine, ctx = scenario.context(url)
    with transaction(engine) as session:
        snapshot = snapshots.take(session, ctx, kind="command", label="x", now=scenario.START)
        snapshot.data = zlib.compress(b'{"format":3}')
        with pytest.raises(snapshots.UndoRefused, match="has format 3, which this version"):
            snapshots.content(snapshot)


# --- every stored value comes back exactly ---------------------------------------------------

def _characters() -> st.SearchStrategy[str]:
    # Any text PostgreSQL can store (no NUL character) and Python can encode (no surrogate).
    return st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00")


JSON_SCALARS = (st.none() | st.booleans() | st.integers(-2**63, 2**63 - 1)
                | st.text(_characters(), max_size=8))
JSON_VALUES = st.recursive(
    JSON_SCALARS | st.floats(allow_nan=False, allow_infinity=False),
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(st.text(_characters(), max_size=6), inner, max_size=4),
    max_leaves=12).filter(lambda v: not isinstance(v, float)) | JSON_SCALARS
"""What a JSON column may hold: anything, but a bare float (the world's JSON columns hold lists
and dicts; SQLite would store a bare float as a number, see ``snapshots._Kind``)."""


def values_of(column: Column[Any]) -> st.SearchStrategy[Any]:
    """Any value the column's own type accepts (a column of a new type fails here, so it
    gets a strategy of its own)."""
    kind = column.type
    strategy: st.SearchStrategy[Any]
    if isinstance(kind, ExactDecimal):
        strategy = st.decimals(min_value=Decimal("-1e15"), max_value=Decimal("1e15"),
                               allow_nan=False, allow_infinity=False, places=8) \
            | st.decimals(min_value=-10**9, max_value=10**9, places=0)
    elif isinstance(kind, UTCDateTime):
        strategy = st.datetimes(datetime(1970, 1, 1), datetime(2200, 1, 1),
                                timezones=st.just(UTC))
    elif isinstance(kind, StoredEnum):
        strategy = st.sampled_from(list(kind.enum))
    elif isinstance(kind, JSON):
        strategy = JSON_VALUES
    elif isinstance(kind, Boolean):
        strategy = st.booleans()
    elif isinstance(kind, Integer):
        strategy = st.integers(-2**31, 2**31 - 1)
    elif isinstance(kind, String) or (isinstance(kind, TypeDecorator)
                                      and isinstance(kind.impl, String)):
        length = getattr(kind, "length", None) or getattr(kind.impl, "length", None) or 40
        strategy = st.text(_characters(), max_size=min(length, 24))
    else:
        raise AssertionError(f"no strategy for {column.table.name}.{column.name}: {kind!r}")
    return st.none() | strategy if column.nullable else strategy


def draw_rows(data: st.DataObject, table: Table, campaign_id: int,
              ids: dict[str, list[int]]) -> list[dict[str, Any]]:
    """Up to four rows of ``table`` with any values: explicit ids (any, not in sequence), the
    campaign's id, references to rows drawn before, unique columns kept unique."""
    parents = {c.name: ids[next(iter(c.foreign_keys)).column.table.name]
               for c in table.columns if c.foreign_keys and c.name != "campaign_id"}
    if any(not found for found in parents.values()):
        ids[table.name] = []
        return []
    row_ids = data.draw(st.lists(st.integers(1, 2**31 - 2), max_size=4, unique=True))  # the
    # next id must fit too: PostgreSQL's sequence is set to follow the highest
    unique = [tuple(c.name for c in u.columns) for u in table.constraints
              if isinstance(u, UniqueConstraint)]
    rows: list[dict[str, Any]] = []
    for row_id in row_ids:
        row = {"id": row_id, "campaign_id": campaign_id}
        for column in table.columns:
            if column.name in row:
                continue
            row[column.name] = data.draw(st.sampled_from(parents[column.name])
                                         if column.name in parents else values_of(column))
        if all(tuple(row[n] for n in names) not in {tuple(r[n] for n in names) for r in rows}
               for names in unique):
            rows.append(row)
    ids[table.name] = [r["id"] for r in rows]
    return rows


@pytest.mark.parametrize("fmt", [1, 2])
def test_every_stored_value_of_every_world_column_comes_back_exactly(engine: Engine, fmt: int
                                                                    ) -> None:
    with transaction(engine) as session:
        create_campaign(session, scenario.settings_for("unused"), map_text=demo_map_text(),
                        roster=DEMO_ROSTER, now=scenario.START, seed="s", wars=DEMO_WARS)
    with transaction(engine) as session:
        ctx = load_context(session, scenario.settings_for("unused"))
    campaign = snapshots._table(Campaign)
    tables = [snapshots._table(m) for m in snapshots.WORLD_TABLES]

    # Each example is five transactions: no shrinking (minutes), the failing rows are shown.
    @settings(max_examples=15, deadline=None, database=None, phases=[Phase.generate])
    @given(st.data())
    def round_trip(data: st.DataObject) -> None:
        ids: dict[str, list[int]] = {}
        drawn = [(table, draw_rows(data, table, ctx.campaign_id, ids)) for table in tables]
        fields = {n: data.draw(values_of(campaign.c[n]) if n not in ("last_tick", "last_month")
                               else st.integers(0, 100_000), label=n)
                  for n in snapshots.CAMPAIGN_FIELDS}
        with transaction(engine) as session:
            for table in reversed(tables):
                session.execute(delete(table).where(table.c.campaign_id == ctx.campaign_id))
            for table, rows in drawn:
                if rows:
                    session.execute(insert(table), rows)
            session.execute(update(campaign).where(campaign.c.id == ctx.campaign_id)
                            .values(fields))
        before = stored(engine, json_text=fmt == 2)
        with transaction(engine) as session:
            snapshot = take(session, ctx, fmt, "the drawn world")
        with transaction(engine) as session:  # the world changes: every row gone, a new clock
            for table in reversed(tables):
                session.execute(delete(table).where(table.c.campaign_id == ctx.campaign_id))
            session.execute(update(campaign).where(campaign.c.id == ctx.campaign_id).values(
                last_tick=0, last_month=0, season="winter", name="changed"))
        assert stored(engine, json_text=fmt == 2) != before
        with transaction(engine) as session:
            chosen = snapshots.plan(session, ctx, session.get_one(Snapshot, snapshot.id),
                                    scenario.START)
            snapshots.restore(session, ctx, chosen, actor="jane", now=scenario.START)
        assert not differences(stored(engine, json_text=fmt == 2), before)
        with transaction(engine) as session:  # restore removed the snapshot it went back to
            assert session.exec(select(Snapshot).where(col(Snapshot.id) >= snapshot.id)
                                ).first() is None

    round_trip()


def test_a_remembered_digest_is_that_of_the_same_text_only() -> None:
    """The map's digest is remembered between snapshots; a text of the same length and the
    same beginning that differs further on (a map edited in one tile) gets its own."""
    first = "id,name\n" + "a" * 5000
    second = first[:-1] + "b"
    parses = Parses()  # where a context remembers its digests
    for text_ in (first, second, first, second):
        assert snapshots._heavy_digest(2, "map_text", text_, parses) == \
            hashlib.sha256(text_.encode()).hexdigest()[:32]
