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

from sqlalchemy import Table, insert
from sqlmodel import Session, col, select

from bot.db.models import BotState, Event, Outbox, Player
from bot.text import inert_links
from rules.dice import Roll

_BUFFER = "journal_buffer"
_EVENT_TABLE: Table = Event.__table__  # type: ignore[attr-defined]
_OUTBOX_TABLE: Table = Outbox.__table__  # type: ignore[attr-defined]


def start_buffering(session: Session) -> None:
    """Collect events and outbox rows in memory until :func:`flush_buffer` (a tick writes
    them as two batched inserts instead of one statement per row)."""
    session.info[_BUFFER] = {"event": [], "outbox": []}


def flush_buffer(session: Session) -> None:
    """Write the collected rows in order and stop buffering."""
    buffer = session.info.pop(_BUFFER, None)
    if not buffer:
        return
    # Core statements on the session's connection, after the session's pending changes (the
    # ORM's bulk insert flushes them first): the rows are plain dicts, which the ORM's bulk
    # path would only hand to the same executemany after bookkeeping of its own.
    for table, rows in ((_EVENT_TABLE, buffer["event"]), (_OUTBOX_TABLE, buffer["outbox"])):
        if rows:
            if session.autoflush:
                session.flush()
            session.connection().execute(insert(table), rows)


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
) -> None:
    """Append one event (never updated afterwards)."""
    row: dict[str, Any] = {
        "campaign_id": campaign_id, "tick": tick, "kind": kind, "claim_id": claim_id,
        "public": public, "actor": actor, "summary": summary, "data_json": data or {},
        "dice_json": [{"sides": r.sides, "value": r.value, "purpose": r.purpose} for r in rolls],
        "at": at,
    }
    buffer = session.info.get(_BUFFER)
    if buffer is not None:
        buffer["event"].append(row)
    else:
        session.add(Event(**row))


PUBLIC_KINDS = frozenset({"post", "comment"})
"""Outbox kinds everyone can read."""


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
    if not session.info.get("outbox_keys_unique"):
        existing = session.exec(
            select(col(Outbox.id)).where(Outbox.campaign_id == campaign_id, Outbox.key == key)
        ).first()
        if existing is not None:
            return None
    if public or kind in PUBLIC_KINDS:
        body = inert_links(body)  # the last step before everyone can read it
    row: dict[str, Any] = {
        "campaign_id": campaign_id, "key": key, "kind": kind, "public": public,
        "target": target, "claim_id": claim_id, "title": title[:300], "body": body,
        "flair": flair, "tick": tick, "created_at": at,
    }
    buffer = session.info.get(_BUFFER)
    if buffer is not None:
        buffer["outbox"].append(row)
        return None
    entry = Outbox(**row)
    session.add(entry)
    return entry


_PLAYERS = "players_by_claim"
"""``session.info`` key of :func:`players_of`'s cache (one read of the players per session)."""


def players_of(session: Session, claim_id: int) -> list[str]:
    """Reddit names of a claim's players, sorted (read once per session: after changing who
    plays a claim, call :func:`players_changed`)."""
    cache: dict[int, list[str]] | None = session.info.get(_PLAYERS)
    if cache is None:
        cache = {}
        for claim, name in session.exec(select(Player.claim_id, Player.reddit_name)).all():
            cache.setdefault(claim, []).append(name)
        for names in cache.values():
            names.sort()
        session.info[_PLAYERS] = cache
    return list(cache.get(claim_id, ()))


def players_changed(session: Session) -> None:
    """The players of some claim changed in ``session``: :func:`players_of` reads them again."""
    session.info.pop(_PLAYERS, None)


CLAIM_WEBHOOK_PREFIX = "webhook:claim:"
"""``BotState`` name of a claim's private webhook: the prefix and the claim's id."""
_HOOKED = "claims_with_webhooks"
"""``session.info`` key of :func:`claims_with_webhooks`'s cache."""


def claims_with_webhooks(session: Session, campaign_id: int) -> frozenset[int]:
    """The claims that registered a private webhook (read once per session: after one
    registers or removes it, call :func:`webhooks_changed`)."""
    cache: frozenset[int] | None = session.info.get(_HOOKED)
    if cache is None:
        names = session.exec(select(BotState.name).where(
            BotState.campaign_id == campaign_id,
            col(BotState.name).startswith(CLAIM_WEBHOOK_PREFIX))).all()
        cache = frozenset(int(n[len(CLAIM_WEBHOOK_PREFIX):]) for n in names
                          if n[len(CLAIM_WEBHOOK_PREFIX):].isdigit())
        session.info[_HOOKED] = cache
    return cache


def webhooks_changed(session: Session) -> None:
    """A claim's webhook was registered or removed in ``session``."""
    session.info.pop(_HOOKED, None)


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
    """Queue private news for every player of a claim (modmail to each), and once for the
    claim's own webhook if it registered one (``webhook`` entries, target ``claim:<id>``:
    the address is looked up when it is sent, so it never sits in the outbox)."""
    for name in players if players is not None else players_of(session, claim_id):
        queue(session, campaign_id, f"{key}:{name}", "message", body=body, at=at, tick=tick,
              target=name, title=subject, claim_id=claim_id)
    if claim_id in claims_with_webhooks(session, campaign_id):
        queue(session, campaign_id, f"{key}:webhook"[:120], "webhook", body=body, at=at,
              tick=tick, target=f"claim:{claim_id}", title=subject, claim_id=claim_id)


def notify_moderators(session: Session, campaign_id: int, key: str, *, subject: str, body: str,
                      at: datetime, tick: int) -> None:
    """Queue an internal note to the moderators (a modmail only they read), e.g. a referral of
    something the rules leave to their discretion."""
    queue(session, campaign_id, key, "mod", body=body, at=at, tick=tick, title=subject)
