"""The exactly-once keys: outbox, inbox, tick runs and monthly runs, enforced by the database."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlalchemy import Engine
from sqlalchemy.exc import IntegrityError
from sqlmodel import col, select

from bot.db.engine import transaction
from bot.db.models import InboxMessage, MonthlyRun, Outbox, TickRun
from bot.services import journal
from tests.bot.db.conftest import add_campaign

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def test_outbox_key_queued_twice_gives_one_row(shared_engine: Engine, campaign_id: int) -> None:
    """A post queued again under its key (a replayed change) is not queued twice.

    ``journal.queue`` skips a known key, in the same transaction or a later one; and the
    database refuses a second row with the key even if that check is bypassed (two
    processes racing past it).
    """
    engine = shared_engine
    with transaction(engine) as session:
        first = journal.queue(session, campaign_id, "battle:7", "post", body="One", at=NOW,
                              tick=7)
        again = journal.queue(session, campaign_id, "battle:7", "post", body="Two", at=NOW,
                              tick=7)
    with transaction(engine) as session:
        later = journal.queue(session, campaign_id, "battle:7", "post", body="Three", at=NOW,
                              tick=8)
    assert first is not None
    assert again is None
    assert later is None
    with pytest.raises(IntegrityError), transaction(engine) as session:
        session.add(Outbox(campaign_id=campaign_id, key="battle:7", kind="post", body="Four"))
    with transaction(engine) as session:
        bodies = session.exec(select(col(Outbox.body))
                              .where(Outbox.campaign_id == campaign_id)).all()
    assert bodies == ["One"]


def test_inbox_message_id_is_unique_per_campaign(shared_engine: Engine,
                                                 campaign_id: int) -> None:
    """A redelivered message id hits the key; another campaign may hold the same id; and a
    rolled-back effect takes its inbox record with it, so the message is processed later."""
    engine = shared_engine
    with transaction(engine) as session:
        session.add(InboxMessage(campaign_id=campaign_id, message_id="m1", outcome="ok"))
    with pytest.raises(IntegrityError), transaction(engine) as session:
        session.add(InboxMessage(campaign_id=campaign_id, message_id="m1", outcome="again"))
    other = add_campaign(engine, "Essos")
    with transaction(engine) as session:
        session.add(InboxMessage(campaign_id=other, message_id="m1"))
    with pytest.raises(RuntimeError, match="effect failed"), transaction(engine) as session:
        session.add(InboxMessage(campaign_id=campaign_id, message_id="m2"))
        session.flush()
        raise RuntimeError("effect failed")
    with transaction(engine) as session:
        seen = session.exec(select(InboxMessage.campaign_id, InboxMessage.message_id)
                            .where(col(InboxMessage.campaign_id).in_([campaign_id, other]))
                            .order_by(col(InboxMessage.id))).all()
    assert [tuple(row) for row in seen] == [(campaign_id, "m1"), (other, "m1")]


def test_tick_and_month_apply_once(shared_engine: Engine, campaign_id: int) -> None:
    """A tick index, and a month index, can be recorded once per campaign, never twice."""
    engine = shared_engine
    with transaction(engine) as session:
        session.add(TickRun(campaign_id=campaign_id, tick=5))
        session.add(MonthlyRun(campaign_id=campaign_id, month=2, tick=5))
    with pytest.raises(IntegrityError), transaction(engine) as session:
        session.add(TickRun(campaign_id=campaign_id, tick=5))
    with pytest.raises(IntegrityError), transaction(engine) as session:
        session.add(MonthlyRun(campaign_id=campaign_id, month=2, tick=6))
    with transaction(engine) as session:
        session.add(TickRun(campaign_id=campaign_id, tick=6))
    with transaction(engine) as session:
        ticks = session.exec(select(col(TickRun.tick)).where(TickRun.campaign_id == campaign_id)
                             .order_by(col(TickRun.tick))).all()
        months = session.exec(select(MonthlyRun.month, MonthlyRun.tick)
                              .where(MonthlyRun.campaign_id == campaign_id)).all()
    assert list(ticks) == [5, 6]
    assert [tuple(m) for m in months] == [(2, 5)]
