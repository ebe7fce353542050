"""The journal's buffered rows (a tick's events, outbox entries and pictures) are written through
the driver (:func:`bot.services.journal.insert_rows`) exactly as a Core insert of the same rows
writes them, on SQLite and PostgreSQL: every column's stored value, defaults included, compared
as the database holds it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest
from sqlalchemy import Engine, Table, insert, text
from sqlmodel import Session

from bot.db.engine import transaction
from bot.db.models import Campaign
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


def test_rows_written_through_the_driver_equal_a_core_inserts(engine: Engine) -> None:
    with transaction(engine) as session:
        campaign = Campaign(name="Journal", secret="not-a-real-secret")
        session.add(campaign)
        session.flush()
        cid = campaign.id or 0
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
    with transaction(engine) as session:
        campaign = Campaign(name="Journal", secret="not-a-real-secret")
        session.add(campaign)
        session.flush()
        cid = campaign.id or 0
    with pytest.raises(Exception, match="naive datetime"), transaction(engine) as session:
        journal.start_buffering(session)
        journal.log_event(session, cid, 1, "x", "fine", at=AT)
        journal.log_event(session, cid, 1, "x", "naive", at=datetime(2026, 11, 22, 6))
        journal.flush_buffer(session)
    assert _stored(engine, journal._EVENT_TABLE, None) == []
