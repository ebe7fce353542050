"""What the due ticks would do, without doing it (``maester tick --preview``, the moderators'
room of the web pages).

A preview is "advance and render, write nothing": it reads the world once, on a connection
that only reads, runs :func:`rules.campaign.tick.advance` for each due tick in memory (the
world one tick leaves is the next one's, monthly jobs included, with the same dice), and
renders each tick's events through the tick's own reporters
(:data:`bot.services.tick.REPORTERS`) into a sink that collects instead of writing
(:func:`bot.services.journal.start_collecting`). No transaction is rolled back and no
sequence is touched; the ids a real tick would give (battle numbers from the rules, a new
siege's row id) are the ones shown. So what a preview shows is, byte for byte, what the real
ticks then queue, as long as nothing else changes the world in between (an order, a
moderator's command).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import Engine
from sqlmodel import Session

from bot.db.engine import reader_for
from bot.services import journal
from bot.services.realm import Previewed
from bot.services.tick import collector_paused, preview_tick
from bot.services.world import CampaignContext, current


@dataclass(frozen=True, slots=True)
class QueuedEntry:
    """An outbox entry a previewed tick would queue."""

    kind: str
    target: str
    title: str
    body: str
    public: bool
    key: str = ""
    claim_id: int | None = None


@dataclass(slots=True)
class TickPreview:
    """What one previewed tick would do: its events' summaries (as the tick reports them),
    the outbox entries it would queue, the journal rows and pictures it would write."""

    tick: int
    at: datetime
    months: list[int]
    events: list[str]
    queued: list[QueuedEntry]
    journal: list[dict[str, Any]] = field(default_factory=list)
    images: list[dict[str, Any]] = field(default_factory=list)


def preview(engine: Engine, ctx: CampaignContext, until: datetime) -> list[TickPreview]:
    """What each tick due at ``until`` would log and queue, read on a connection of its own
    that cannot write (:func:`bot.db.engine.reader_for`)."""
    reader = reader_for(engine)
    try:
        # closed, never committed: the read ends and what the session holds is dropped
        with Session(reader, autoflush=False) as session:
            return preview_session(session, ctx, until)
    finally:
        if reader.dialect.name == "sqlite":
            reader.dispose()


def preview_session(session: Session, ctx: CampaignContext, until: datetime,
                    *, limit: int | None = None) -> list[TickPreview]:
    """:func:`preview` in the caller's (read) transaction, at most ``limit`` ticks. The
    session's objects may be changed in memory (a claim the review holds): the session must
    be closed afterwards, never flushed or committed (:func:`preview` and the web pages read
    on connections that cannot write, so a slip raises instead of writing)."""
    sink = journal.start_collecting(session)
    ctx, campaign = current(session, ctx)  # the clock as stored
    last = ctx.tick_of(until)
    if limit is not None:
        last = min(last, campaign.last_tick + limit)
    out: list[TickPreview] = []
    previous: Previewed | None = None
    with collector_paused():
        for index in range(campaign.last_tick + 1, last + 1):
            events = len(sink.events)
            report, previous = preview_tick(session, ctx, campaign, index, previous)
            out.append(TickPreview(report.tick, report.at, list(report.months),
                                   list(report.events), [], sink.events[events:]))
    # What the ticks leave in the outbox (a newer [Realm] post supersedes an older one not
    # yet delivered), under the tick that queued it.
    by_tick = {t.tick: t for t in out}
    for row in sink.outbox:
        by_tick[row["tick"]].queued.append(QueuedEntry(
            row["kind"], row["target"], row["title"], row["body"], row["public"], row["key"],
            row["claim_id"]))
    for image in sink.images:
        tick = ctx.tick_of(image["created_at"])
        if tick in by_tick:
            by_tick[tick].images.append(image)
    return out
