"""The append-only event log and the outbox, written in the caller's transaction.

Every change to the world is recorded as an :class:`~bot.db.models.Event` (with the dice that
caused it), and everything Reddit should see is queued as an :class:`~bot.db.models.Outbox`
row with a unique key, in the same transaction as the change. A rolled-back change therefore
leaves neither a log line nor a post behind, and a replayed change hits the key.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from sqlmodel import Session, col, select

from bot.db.models import Event, Outbox, Player
from rules.dice import Roll


def log_event(
    session: Session,
    campaign_id: int,
    tick: int,
    kind: str,
    summary: str,
    *,
    at: datetime,
    claim_id: int | None = None,
    public: bool = False,
    actor: str = "maester",
    data: dict[str, Any] | None = None,
    rolls: Sequence[Roll] = (),
) -> Event:
    """Append one event (never updated afterwards)."""
    event = Event(
        campaign_id=campaign_id,
        tick=tick,
        kind=kind,
        claim_id=claim_id,
        public=public,
        actor=actor,
        summary=summary,
        data_json=data or {},
        dice_json=[{"sides": r.sides, "value": r.value, "purpose": r.purpose} for r in rolls],
        at=at,
    )
    session.add(event)
    return event


def queue(
    session: Session,
    campaign_id: int,
    key: str,
    kind: str,
    *,
    body: str,
    at: datetime,
    tick: int,
    target: str = "",
    title: str = "",
    flair: str = "",
    public: bool = False,
    claim_id: int | None = None,
) -> Outbox | None:
    """Queue one post/reply/message under ``key``; a key already queued is left alone."""
    existing = session.exec(
        select(col(Outbox.id)).where(Outbox.campaign_id == campaign_id, Outbox.key == key)
    ).first()
    if existing is not None:
        return None
    entry = Outbox(
        campaign_id=campaign_id,
        key=key,
        kind=kind,
        public=public,
        target=target,
        claim_id=claim_id,
        title=title[:300],
        body=body,
        flair=flair,
        tick=tick,
        created_at=at,
    )
    session.add(entry)
    return entry


def players_of(session: Session, claim_id: int) -> list[str]:
    """Reddit names of a claim's players, sorted."""
    rows = session.exec(select(col(Player.reddit_name)).where(Player.claim_id == claim_id)).all()
    return sorted(rows)


def notify_claim(
    session: Session,
    campaign_id: int,
    claim_id: int,
    key: str,
    *,
    subject: str,
    body: str,
    at: datetime,
    tick: int,
    players: Iterable[str] | None = None,
) -> None:
    """Queue private news for every player of a claim (modmail to each)."""
    for name in players if players is not None else players_of(session, claim_id):
        queue(session, campaign_id, f"{key}:{name}", "message", body=body, at=at, tick=tick,
              target=name, title=subject, claim_id=claim_id)
