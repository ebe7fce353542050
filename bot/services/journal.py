"""The append-only event log and the outbox, written in the caller's transaction.

Every change to the world is recorded as an :class:`~bot.db.models.Event` (with the dice that
caused it), and everything Reddit should see is queued as an :class:`~bot.db.models.Outbox`
row with a unique key, in the same transaction as the change. A rolled-back change therefore
leaves neither a log line nor a post behind, and a replayed change hits the key.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from weakref import WeakKeyDictionary

from sqlalchemy import Connection, Table, bindparam, insert
from sqlalchemy.engine import Dialect
from sqlmodel import Session, col, select

from bot.db.models import BotState, Event, Outbox, Player, PostImage
from bot.db.types import UTCDateTime
from bot.text import inert_links
from rules.dice import Roll

_SINK = "journal_sink"
_EVENT_TABLE: Table = Event.__table__  # type: ignore[attr-defined]
_OUTBOX_TABLE: Table = Outbox.__table__  # type: ignore[attr-defined]
_IMAGE_TABLE: Table = PostImage.__table__  # type: ignore[attr-defined]


@dataclass(slots=True)
class Sink:
    """Where a tick's rendered output goes: the event rows (journal lines), the outbox rows
    (public posts, private notes, notes to the moderators) and the pictures asked for
    (``postimage`` rows), as plain values in the order they were made.

    The real tick's sink is written (:func:`flush_sink`: a few batched inserts); the preview's
    (``writes=False``) only collects: :mod:`bot.services.preview` reads what it holds and
    nothing reaches the database. The same reporters render into both, so a preview shows
    the very bytes the tick then queues."""

    writes: bool = True
    events: list[dict[str, Any]] = field(default_factory=list)
    outbox: list[dict[str, Any]] = field(default_factory=list)
    images: list[dict[str, Any]] = field(default_factory=list)
    films: dict[str, dict[str, Any]] = field(default_factory=dict)
    """A preview's films of the month (``film:<month>`` -> its frames), over the stored
    ones (:func:`bot.services.realm.record_frame`); a writing sink has none."""

    def drop(self, keys: Collection[str]) -> None:
        """Forget the outbox rows and pictures under ``keys`` (superseded before delivery)."""
        self.outbox[:] = [r for r in self.outbox if r["key"] not in keys]
        self.images[:] = [r for r in self.images if r["key"] not in keys]


def start_buffering(session: Session) -> Sink:
    """Collect events and outbox rows in memory until :func:`flush_buffer` (a tick writes
    them as two batched inserts instead of one statement per row)."""
    sink = session.info[_SINK] = Sink()
    return sink


def start_collecting(session: Session) -> Sink:
    """Collect what ``session``'s work would log and queue, never to write it (a preview)."""
    sink = session.info[_SINK] = Sink(writes=False)
    return sink


def sink_of(session: Session) -> Sink | None:
    """The session's sink, if it has one."""
    sink: Sink | None = session.info.get(_SINK)
    return sink


def writes(session: Session) -> bool:
    """Whether ``session``'s work is written (False while a preview only collects it)."""
    sink = sink_of(session)
    return sink is None or sink.writes


def flush_buffer(session: Session) -> None:
    """Write the collected rows in order and stop buffering (a collecting sink stays)."""
    sink = sink_of(session)
    if sink is None or not sink.writes:
        return
    del session.info[_SINK]
    # Plain statements on the session's connection, after the session's pending changes (as
    # the ORM's bulk insert would flush them first).
    for table, rows in ((_EVENT_TABLE, sink.events), (_OUTBOX_TABLE, sink.outbox),
                        (_IMAGE_TABLE, sink.images)):
        if rows:
            if session.autoflush:
                session.flush()
            insert_rows(session.connection(), table, rows)


def insert_rows(connection: Connection, table: Table, rows: Sequence[dict[str, Any]]) -> None:
    """Insert ``rows`` (dicts of column values, as the ORM takes them) into ``table`` with one
    executemany through the driver: each value converted to its stored form by its column's
    type, as a Core insert would, and the columns a row leaves out given their default; a
    moment converted once however many rows repeat it (the tick's). Rows that do not all name
    the same columns, or that leave out a column whose default is worked out per row, go
    through a Core insert, as do all rows on a driver whose parameter style is neither
    ``qmark`` nor ``format``/``pyformat``. Nothing is returned (the rows' ids are not read
    back: :func:`bot.storage.world_rows.insert_returning_ids` does that)."""
    names = tuple(rows[0])
    shape = _insert_shape(table, names, connection.dialect)
    if shape is None or any(row.keys() != rows[0].keys() for row in rows):
        connection.execute(insert(table), list(rows))
        return
    sql, converters, defaults = shape
    params = []
    for row in rows:
        values = [row[n] for n in names]
        for i, convert, seen in converters:
            value = values[i]
            if seen is None:
                values[i] = convert(value)
            elif value in seen:
                values[i] = seen[value]
            else:
                values[i] = seen[value] = convert(value)
        values.extend(defaults)
        params.append(tuple(values))
    connection.exec_driver_sql(sql, params)


_Converters = list[tuple[int, Callable[[Any], Any], dict[Any, Any] | None]]
_Shape = tuple[str, list[tuple[int, Callable[[Any], Any], bool]], tuple[Any, ...]]
"""An insert made ready for a table and the columns named: its SQL; per named column with a
converter, the value's position, the converter (the column type's bind processor) and whether
the column holds moments (:class:`~bot.db.types.UTCDateTime`: their converted values are
remembered within one call); and the stored values of the defaulted columns."""
_SHAPES: WeakKeyDictionary[Dialect, dict[tuple[str, tuple[str, ...]], _Shape | None]] = \
    WeakKeyDictionary()
""":func:`_insert_shape`'s statements, by dialect, table and columns named."""


def _insert_shape(table: Table, names: tuple[str, ...], dialect: Dialect
                  ) -> tuple[str, _Converters, tuple[Any, ...]] | None:
    """The driver-level ``INSERT`` of ``names`` and the defaulted columns of ``table``, the
    converters of the named columns (by position; a moment's with a fresh memo of the values
    it converted: equal moments are stored alike) and the defaults' stored values; None when
    a column left out has a default worked out per row, or when the driver's parameter
    style is one the statement is not written in (:data:`_MARKS`)."""
    made = _SHAPES.setdefault(dialect, {})
    key = (table.name, names)
    if key not in made:
        made[key] = _make_shape(table, names, dialect)
    shape = made[key]
    if shape is None:
        return None
    sql, converters, defaults = shape
    return sql, [(i, convert, {} if is_moment else None)
                 for i, convert, is_moment in converters], defaults


_MARKS = {"qmark": "?", "format": "%s", "pyformat": "%s"}
"""The parameter marker of the driver-level ``INSERT`` per DB-API parameter style (positional
values); a driver of another style (``named``, ``numeric``) is given a Core insert."""


def _make_shape(table: Table, names: tuple[str, ...], dialect: Dialect) -> _Shape | None:
    mark = _MARKS.get(dialect.paramstyle)
    if mark is None:
        return None
    converters: list[tuple[int, Callable[[Any], Any], bool]] = []
    for i, name in enumerate(names):
        kind = table.c[name].type
        convert = kind.dialect_impl(dialect).bind_processor(dialect)
        if convert is not None:
            converters.append((i, convert, isinstance(kind, UTCDateTime)))
    defaulted: list[str] = []
    defaults: list[Any] = []
    for column in table.c:
        if column.name in names or column.default is None:
            continue
        if not column.default.is_scalar:
            return None
        convert = column.type.dialect_impl(dialect).bind_processor(dialect)
        value = column.default.arg  # type: ignore[attr-defined]
        defaulted.append(column.name)
        defaults.append(value if convert is None else convert(value))
    preparer = dialect.identifier_preparer
    columns = [*names, *defaulted]
    return (f"INSERT INTO {preparer.format_table(table)} "
            f"({', '.join(preparer.quote(c) for c in columns)}) "
            f"VALUES ({', '.join([mark] * len(columns))})", converters, tuple(defaults))


def request_image(session: Session, row: dict[str, Any]) -> None:
    """Ask for a picture (a ``postimage`` row: its key, name, caption, what to draw)."""
    sink = sink_of(session)
    if sink is not None:
        sink.images.append(row)
    else:
        session.add(PostImage(**row))


def pending_events(session: Session, ticks: range | None = None, kind: str | None = None
                   ) -> list[Event]:
    """The events collected and not written yet (a preview's earlier ticks; those of ``ticks``
    and of ``kind`` when given), in order, as rows that are not in the session: readers of the
    journal add them to what they read."""
    sink = sink_of(session)
    if sink is None:
        return []
    return [Event(**row) for row in sink.events
            if (ticks is None or row["tick"] in ticks) and (kind is None or row["kind"] == kind)]


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
    sink = sink_of(session)
    if sink is not None:
        sink.events.append(row)
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
    footer: str = "",
) -> Outbox | None:
    """Queue one post/reply/message under ``key``; a key already queued is left alone.

    ``footer``: the bot's own closing words, appended after the body's links are made inert:
    only text the bot writes from its config (the dice's verification link), never a
    player's."""
    info = session.info
    if not info.get("outbox_keys_unique"):
        existing = session.exec(
            select(col(Outbox.id)).where(Outbox.campaign_id == campaign_id, Outbox.key == key)
        ).first()
        if existing is not None:
            return None
    if public or kind in PUBLIC_KINDS:
        body = inert_links(body)  # the last step before everyone can read it
    body += footer
    row: dict[str, Any] = {
        "campaign_id": campaign_id, "key": key, "kind": kind, "public": public,
        "target": target, "claim_id": claim_id, "title": title[:300], "body": body,
        "flair": flair, "tick": tick, "created_at": at,
    }
    sink = sink_of(session)
    if sink is not None:
        sink.outbox.append(row)
        return None
    entry = Outbox(**row)
    session.add(entry)
    return entry


_PLAYERS = "players_by_claim"
"""``session.info`` key of :func:`players_of`'s cache (one read of the players per session)."""
_PLAYERS_QUERY = select(Player.claim_id, Player.reddit_name)


def players_of(session: Session, claim_id: int) -> list[str]:
    """Reddit names of a claim's players, sorted (read once per session: after changing who
    plays a claim, call :func:`players_changed`)."""
    return list(_players(session).get(claim_id, ()))


def _players(session: Session) -> dict[int, list[str]]:
    """:func:`players_of`'s cache: every claim's players, sorted (not to be changed)."""
    cache: dict[int, list[str]] | None = session.info.get(_PLAYERS)
    if cache is None:
        cache = {}
        for claim, name in session.exec(_PLAYERS_QUERY).all():
            cache.setdefault(claim, []).append(name)
        for names in cache.values():
            names.sort()
        session.info[_PLAYERS] = cache
    return cache


def players_changed(session: Session) -> None:
    """The players of some claim changed in ``session``: :func:`players_of` reads them again."""
    session.info.pop(_PLAYERS, None)


def read_state(session: Session, campaign_id: int, name: str) -> dict[str, Any] | None:
    """The JSON object stored in ``BotState`` under ``name``, or None (no row, empty, or not
    an object)."""
    row = session.exec(select(BotState).where(BotState.campaign_id == campaign_id,
                                              BotState.name == name)).first()
    if row is None or not row.value:
        return None
    try:
        value = json.loads(row.value)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def write_state(session: Session, campaign_id: int, name: str, value: dict[str, Any] | None,
                now: datetime) -> None:
    """Store the JSON object ``value`` in ``BotState`` under ``name`` (None: forget it), in
    the caller's transaction; :func:`read_state` reads it back."""
    row = session.exec(select(BotState).where(BotState.campaign_id == campaign_id,
                                              BotState.name == name)).first()
    if value is None:
        if row is not None:
            session.delete(row)
        return
    if row is None:
        row = BotState(campaign_id=campaign_id, name=name)
    row.value = json.dumps(value, sort_keys=True)
    row.updated_at = now
    session.add(row)


WEBHOOK_DROPPED = "dropped"
"""The ``reddit_id`` delivery records on a webhook entry it dropped (its webhook gone or
switched off): nothing went out (an undo does not count it as sent)."""

CLAIM_WEBHOOK_PREFIX = "webhook:claim:"
"""``BotState`` name of a claim's private webhook: the prefix and the claim's id."""
_HOOKED = "claims_with_webhooks"
"""``session.info`` key of :func:`claims_with_webhooks`'s cache."""
_HOOKED_QUERY = select(BotState.name).where(
    BotState.campaign_id == bindparam("cid"), col(BotState.name).startswith(CLAIM_WEBHOOK_PREFIX))


def claims_with_webhooks(session: Session, campaign_id: int) -> frozenset[int]:
    """The claims that registered a private webhook (read once per session: after one
    registers or removes it, call :func:`webhooks_changed`)."""
    cache: frozenset[int] | None = session.info.get(_HOOKED)
    if cache is None:
        names = session.exec(_HOOKED_QUERY, params={"cid": campaign_id}).all()
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
    for name in players if players is not None else _players(session).get(claim_id, ()):
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
