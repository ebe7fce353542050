"""What the due ticks would do, without doing it (``maester tick --preview``).

:func:`preview` applies the due ticks (:func:`bot.services.tick.apply_tick`) in one transaction
that is rolled back, and returns what they logged and what they left in the outbox.
PostgreSQL's sequences are not transactional: they are set to follow the rows before and after
(:func:`bot.services.snapshots.align_sequences`), so the real ticks create (and roll for) the
same ids as the preview.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Engine, func
from sqlmodel import Session, SQLModel, col, select

from bot.db.models import Event, MonthlyRun, Outbox, PostImage, TickRun
from bot.services.snapshots import WORLD_TABLES, align_sequences
from bot.services.tick import apply_tick
from bot.services.world import CampaignContext, current


@dataclass(frozen=True, slots=True)
class QueuedEntry:
    """An outbox entry a previewed tick would queue."""

    kind: str
    target: str
    title: str
    body: str
    public: bool


@dataclass(slots=True)
class TickPreview:
    """What one previewed tick would do."""

    tick: int
    at: datetime
    months: list[int]
    events: list[str]
    queued: list[QueuedEntry]


def preview(engine: Engine, ctx: CampaignContext, until: datetime) -> list[TickPreview]:
    """Apply the ticks due at ``until`` in one transaction, roll it back, and return what
    each would log and queue (the same dice: they derive from the secret and the rows' ids,
    which :func:`align_sequences` keeps the same for the real tick)."""
    out: list[TickPreview] = []
    models: tuple[type[SQLModel], ...] = (*WORLD_TABLES, TickRun, MonthlyRun, Event, Outbox,
                                          PostImage)
    with Session(engine, expire_on_commit=False) as session:
        session.begin()
        try:
            align_sequences(session, models)
            ctx, campaign = current(session, ctx, lock=True)
            mark = session.exec(select(func.max(Outbox.id))).one() or 0
            for index in range(campaign.last_tick + 1, ctx.tick_of(until) + 1):
                report = apply_tick(session, ctx, campaign, index)
                out.append(TickPreview(report.tick, report.at, list(report.months),
                                       list(report.events), []))
            session.flush()
            # What the ticks leave in the outbox (a newer [Realm] post supersedes an older
            # one not yet delivered), under the tick that queued it.
            by_tick = {t.tick: t for t in out}
            for row in session.exec(select(Outbox).where(
                    Outbox.campaign_id == ctx.campaign_id, col(Outbox.id) > mark)
                    .order_by(col(Outbox.id))).all():
                if row.tick in by_tick:
                    by_tick[row.tick].queued.append(
                        QueuedEntry(row.kind, row.target, row.title, row.body, row.public))
        finally:
            session.rollback()
    with Session(engine) as session, session.begin():
        align_sequences(session, models)
    return out
