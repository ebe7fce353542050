"""Column types: exact money and aware UTC times, on SQLite and PostgreSQL alike."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy import Engine, text
from sqlalchemy.exc import StatementError
from sqlalchemy.sql import sqltypes
from sqlmodel import col, select

from bot.db.engine import transaction
from bot.db.models import Claim, Event, Outbox
from bot.db.types import UTCDateTime, json_text

# Values whose binary float forms are not exact, trailing zeros, signs and long fractions.
EXACT_AMOUNTS = [
    Decimal("0.1") * 3,
    Decimal("-12.50"),
    Decimal("0.000001"),
    Decimal("1234567890.123456789"),
    Decimal("0"),
]


def test_exact_decimal_round_trips_exactly(shared_engine: Engine, campaign_id: int) -> None:
    """0.1 x 3 is stored and read back as 0.3 (not 0.30000000000000004), digit for digit."""
    with transaction(shared_engine) as session:
        for n, amount in enumerate(EXACT_AMOUNTS):
            session.add(Claim(campaign_id=campaign_id, name=f"c{n}", holdfast="0101",
                              gold=amount))
    with transaction(shared_engine) as session:
        read = session.exec(select(col(Claim.gold)).where(Claim.campaign_id == campaign_id)
                            .order_by(col(Claim.id))).all()
        stored = session.connection().execute(
            text("SELECT gold FROM claim WHERE campaign_id = :c ORDER BY id"), {"c": campaign_id}
        ).scalars().all()
    assert read[0] == Decimal("0.3")
    assert [str(v) for v in read] == [str(v) for v in EXACT_AMOUNTS]
    assert all(isinstance(v, Decimal) for v in read)
    assert stored == ["0.3", "-12.50", "0.000001", "1234567890.123456789", "0"]


def _outbox(campaign_id: int, key: str, *, created_at: datetime | None = None,
            not_before: datetime | None = None) -> Outbox:
    return Outbox(campaign_id=campaign_id, key=key, kind="post", created_at=created_at,
                  not_before=not_before)


def _outboxes(engine: Engine, campaign_id: int) -> list[Outbox]:
    with transaction(engine) as session:
        return list(session.exec(select(Outbox).where(Outbox.campaign_id == campaign_id)
                                 .order_by(col(Outbox.not_before))).all())


def test_naive_datetime_is_refused(shared_engine: Engine, campaign_id: int) -> None:
    """A datetime without a zone is a bug: storing one fails and nothing is written."""
    with pytest.raises(StatementError, match="naive datetime"), \
            transaction(shared_engine) as session:
        session.add(_outbox(campaign_id, "k", created_at=datetime(2026, 3, 1, 12, 0)))
    assert _outboxes(shared_engine, campaign_id) == []


def test_naive_datetime_is_refused_by_the_type_itself() -> None:
    """The refusal is the column type's own, before any backend sees the value."""
    with pytest.raises(ValueError, match="naive datetime"):
        UTCDateTime().process_bind_param(datetime(2026, 3, 1), sqltypes.NULLTYPE)  # type: ignore[arg-type]


def test_aware_datetime_comes_back_in_utc_and_sorts_in_sql(shared_engine: Engine,
                                                          campaign_id: int) -> None:
    """Any aware time is stored as the same instant in UTC and read back aware, in UTC.

    The stored text sorts like the instants, so SQL comparisons (``not_before <= now``)
    and ORDER BY are right even for times given in other zones.
    """
    plus_two = timezone(timedelta(hours=2))
    times = {
        "a": datetime(2026, 3, 1, 13, 30, 0, 123456, tzinfo=plus_two),  # 11:30:00.123456 UTC
        "b": datetime(2026, 3, 1, 11, 0, tzinfo=UTC),
        "c": datetime(2026, 3, 1, 7, 0, tzinfo=timezone(timedelta(hours=-5))),  # 12:00 UTC
        "d": datetime(2025, 12, 31, 23, 59, 59, tzinfo=UTC),
    }
    with transaction(shared_engine) as session:
        for key, moment in times.items():
            session.add(_outbox(campaign_id, key, not_before=moment))
    cutoff = datetime(2026, 3, 1, 13, 45, tzinfo=plus_two)  # 11:45 UTC
    with transaction(shared_engine) as session:
        due = session.exec(select(col(Outbox.key))
                           .where(Outbox.campaign_id == campaign_id,
                                  col(Outbox.not_before) <= cutoff)
                           .order_by(col(Outbox.not_before))).all()
    rows = _outboxes(shared_engine, campaign_id)
    assert [r.key for r in rows] == ["d", "b", "a", "c"]
    for row in rows:
        assert row.not_before is not None
        assert row.not_before.tzinfo is UTC
        assert row.not_before == times[row.key]
    assert rows[2].not_before == datetime(2026, 3, 1, 11, 30, 0, 123456, tzinfo=UTC)
    assert list(due) == ["d", "b", "a"]


JSON_DATA = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner,
                                                                 max_size=4),
    max_leaves=12)


@given(JSON_DATA)
def test_json_text_is_the_text_json_dumps_gives(value: Any) -> None:
    """Floats (nan and infinities too), any text, nesting: the same text as ``json.dumps``."""
    assert json_text(value) == json.dumps(value)


def test_json_text_refuses_what_json_dumps_refuses() -> None:
    with pytest.raises(TypeError):
        json_text({"when": datetime(2026, 1, 1, tzinfo=UTC)})
    assert json_text(["after a refusal"]) == '["after a refusal"]'


def test_json_columns_are_stored_as_json_dumps_text(shared_engine: Engine,
                                                    campaign_id: int) -> None:
    """The engines write JSON columns through :func:`json_text`: the stored text is what
    ``json.dumps`` gives (on PostgreSQL, as the column keeps it)."""
    data = {"army": 7, "rolled": ["1:0101"], "\u00e9t\u00e9": 1.5, "none": None}
    with transaction(shared_engine) as session:
        session.add(Event(campaign_id=campaign_id, tick=1, kind="detection", summary="s",
                          data_json=data, at=datetime(2026, 1, 1, tzinfo=UTC)))
    with transaction(shared_engine) as session:
        stored = session.connection().execute(
            text("SELECT CAST(data_json AS TEXT) FROM event WHERE campaign_id = :c"),
            {"c": campaign_id}).scalar_one()
    assert stored == json.dumps(data)
