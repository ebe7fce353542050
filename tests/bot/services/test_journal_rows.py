"""The journal's buffered rows (a tick's events, outbox entries and pictures) are written through
the driver (:func:`bot.services.journal.insert_rows`) exactly as a Core insert of the same rows
writes them, on SQLite and PostgreSQL: every column's stored value, defaults included, compared
as the database holds it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import (
    Column,
    Engine,
    Integer,
    MetaData,
    Table,
    create_engine,
    event,
    insert,
    text,
)
from sqlalchemy.sql import Insert
from sqlmodel import Session

from bot.db.engine import transaction
from bot.db.models import Campaign
from bot.db.types import ExactDecimal, UTCDateTime
from bot.services import journal
from rules.dice import Roll

AT = datetime(2026, 11, 22, 6, 0, 0, 250, tzinfo=UTC)
ELSEWHERE = timezone(timedelta(hours=5, minutes=30))


def _buffer(session: Session, campaign_id: int, prefix: str) -> journal.Sink:
    """A tick's worth of varied rows in ``session``'s sink, outbox keys under ``prefix``."""
    sink = journal.start_buffering(session)
    journal.log_event(session, campaign_id, 7, "detection", "Hold 1 rolls to detect army 2",
                      at=AT, claim_id=3, data={"army": 2, "modifiers": ["Höhe", "\"x\""],
                                               "dice": "v1 é ✓", "none": None, "f": 1.5},
                      rolls=[Roll(20, 14, "detect"), Roll(6, 2, "tie")])
    journal.log_event(session, campaign_id, 7, "arrival", "army 2 arrives", at=AT,
                      public=True)  # no claim, no data, no dice
    journal.log_event(session, campaign_id, 7, "battle", "a battle", at=AT.astimezone(ELSEWHERE),
                      claim_id=None, actor="moderator", data={"nested": {"a": [1, [2, {}]]}})
    journal.queue(session, campaign_id, f"{prefix}:post", "post", body="see [a](http://x.y)",
                  at=AT, tick=7, target="sub", title="T" * 400, flair="battle", public=True,
                  footer="\n\nfooter")
    journal.queue(session, campaign_id, f"{prefix}:note", "message", body="private ✓", at=AT,
                  tick=7, target="player1", title="A note", claim_id=3)
    journal.queue(session, campaign_id, f"{prefix}:mod", "mod", body="refer", tick=7,
                  at=AT + timedelta(microseconds=1))
    for name, data in (("realm.png", b""), ("inset.png", b"\x89PNG\x00")):
        journal.request_image(session, {"campaign_id": campaign_id, "key": f"{prefix}:{name}",
                                        "name": name, "caption": "the realm", "data": data,
                                        "scene_json": {"tiles": [1, name]}, "created_at": AT})
    return sink


def _stored(engine: Engine, table: Table, prefix: str | None) -> list[tuple[Any, ...]]:
    """The rows of ``table`` as the database holds them (JSON and times as their text), in
    order, without their ids (and outbox keys without ``prefix``)."""
    names = [c.name for c in table.c if c.name != "id"]
    shown = ", ".join(f'CAST("{n}" AS TEXT)' if n.endswith("_json") else f'"{n}"'
                      for n in names)
    with engine.connect() as connection:
        rows = connection.execute(text(f"SELECT {shown} FROM {table.name} ORDER BY id")).all()
    if prefix is None:
        return [tuple(r) for r in rows]
    at = names.index("key")
    return [(*r[:at], r[at].split(":", 1)[1], *r[at + 1:]) for r in rows
            if r[at].startswith(prefix + ":")]


def _campaign(engine: Engine) -> int:
    """A new campaign's id (the journal's rows need one)."""
    with transaction(engine) as session:
        campaign = Campaign(name="Journal", secret="not-a-real-secret")
        session.add(campaign)
        session.flush()
        return campaign.id or 0


def test_rows_written_through_the_driver_equal_a_core_inserts(engine: Engine) -> None:
    cid = _campaign(engine)
    tables = [journal._EVENT_TABLE, journal._OUTBOX_TABLE, journal._IMAGE_TABLE]
    with transaction(engine) as session:  # the reference: Core inserts of the same rows
        sink = _buffer(session, cid, "core")
        del session.info["journal_sink"]
        for table, rows in zip(tables, (sink.events, sink.outbox, sink.images), strict=True):
            session.connection().execute(insert(table), rows)
    core = [_stored(engine, t, None if t is tables[0] else "core") for t in tables]
    with transaction(engine) as session:
        _buffer(session, cid, "driver")
        journal.flush_buffer(session)
        assert journal.sink_of(session) is None
    driver = [_stored(engine, t, None if t is tables[0] else "driver") for t in tables]
    assert len(driver[0]) == 6 and driver[0][3:] == core[0]  # the events: the core's, then ours
    assert core[1:] == driver[1:]
    assert len(core[1]) == 3 and len(core[2]) == 2
    outbox = [c.name for c in tables[1].c if c.name != "id"]
    assert {r[outbox.index("status")] for r in driver[1]} == {"pending"}  # a default
    assert {r[outbox.index("created_at")] for r in driver[1]} == {
        "2026-11-22T06:00:00.000250Z", "2026-11-22T06:00:00.000251Z"}


def test_a_naive_moment_is_refused_and_nothing_is_written(engine: Engine) -> None:
    cid = _campaign(engine)
    with pytest.raises(Exception, match="naive datetime"), transaction(engine) as session:
        journal.start_buffering(session)
        journal.log_event(session, cid, 1, "x", "fine", at=AT)
        journal.log_event(session, cid, 1, "x", "naive", at=datetime(2026, 11, 22, 6))
        journal.flush_buffer(session)
    assert _stored(engine, journal._EVENT_TABLE, None) == []


def _probe(engine: Engine) -> Table:
    """A table of an exact decimal and a moment, made in ``engine``'s database."""
    table = Table("journal_probe", MetaData(), Column("id", Integer, primary_key=True),
                  Column("amount", ExactDecimal(), nullable=False),
                  Column("at", UTCDateTime(), nullable=False))
    table.metadata.create_all(engine)
    return table


def _watch(engine: Engine) -> tuple[list[Any], list[tuple[str, bool, bool]]]:
    """What ``engine`` is asked to run from now on: the Core statements (``before_execute``,
    which a driver-level statement does not pass through) and every statement the cursor
    runs, with whether it ran many rows and whether SQLAlchemy compiled it."""
    core: list[Any] = []
    cursor: list[tuple[str, bool, bool]] = []
    event.listen(engine, "before_execute",
                 lambda _c, clause, *_rest: core.append(clause))
    event.listen(engine, "before_cursor_execute",
                 lambda _c, _cur, sql, _p, context, many: cursor.append(
                     (sql, many, context is not None and context.compiled is not None)))
    return core, cursor


PROBE_ROWS = [{"amount": Decimal("1"), "at": AT}, {"amount": Decimal("1.0"), "at": AT},
              {"amount": Decimal("1.00"), "at": AT.astimezone(ELSEWHERE)},
              {"amount": Decimal("1"), "at": AT}]


def test_equal_values_that_are_not_moments_are_stored_each_as_its_own(engine: Engine
                                                                      ) -> None:
    """Decimal('1') and Decimal('1.0') are equal (and hash alike) but are stored as '1' and
    '1.0': a value converted once for all its equals stored the first one's text for both
    (before 13307f4 every column but a JSON one shared its conversions); equal moments are
    still stored alike."""
    table = _probe(engine)
    with engine.begin() as connection:
        journal.insert_rows(connection, table, PROBE_ROWS)
    assert _stored(engine, table, None) == [
        ("1", "2026-11-22T06:00:00.000250Z"), ("1.0", "2026-11-22T06:00:00.000250Z"),
        ("1.00", "2026-11-22T06:00:00.000250Z"), ("1", "2026-11-22T06:00:00.000250Z")]


def test_the_journal_writes_its_rows_through_the_driver(engine: Engine) -> None:
    """Not silently through the Core insert it falls back to: one executemany per table of
    a statement SQLAlchemy did not compile, and no Core statement."""
    cid = _campaign(engine)
    core, cursor = _watch(engine)
    with transaction(engine) as session:
        _buffer(session, cid, "driver")
        journal.flush_buffer(session)
    inserts = [run for run in cursor if run[0].startswith("INSERT")]
    assert [(sql.split(" (")[0], many, compiled) for sql, many, compiled in inserts] == [
        ("INSERT INTO event", True, False), ("INSERT INTO outbox", True, False),
        ("INSERT INTO postimage", True, False)]
    assert not any(isinstance(clause, Insert) for clause in core)


def test_a_driver_of_named_parameters_is_given_a_core_insert(tmp_path: Path) -> None:
    """The driver-level statement is written with positional markers: a driver taking named
    ones (here SQLite's, set to them) is given the Core insert, which writes the same."""
    engine = create_engine(f"sqlite:///{tmp_path / 'named.db'}", paramstyle="named")
    try:
        assert engine.dialect.paramstyle == "named"
        table = _probe(engine)
        core, cursor = _watch(engine)
        with engine.begin() as connection:
            journal.insert_rows(connection, table, PROBE_ROWS)
        assert [type(clause) for clause in core] == [Insert]
        assert any(":amount" in sql for sql, _, _ in cursor)
        assert [row[0] for row in _stored(engine, table, None)] == ["1", "1.0", "1.00", "1"]
    finally:
        engine.dispose()
