"""Snapshots of a campaign's world, and taking ticks and commands back.

**What a snapshot holds.** Just before each tick (:func:`bot.services.tick.catch_up`) and each
moderator command that changes the world (``adjust``, ``season set``, ``relations set``,
``character set``, ``army remove``, ``skills grant/remove``, ``catalogue load``, ``map
update``), :func:`take` stores a :class:`~bot.db.models.Snapshot` row: every row of the
campaign's world tables (:data:`WORLD_TABLES` and the campaign row's own world columns) as
JSON compressed in zlib's format, plus three marks: the newest event, outbox entry and inbox
message then. A full copy, not a replay of the event log: restoring it needs no code of the tick,
so it stays right whatever the tick's internals become. Three things are kept more cheaply:
the keys of applied ticks and months (deleted past the snapshot's last tick and month), the
map and catalogue (digests; in full only before ``map update`` and ``catalogue load``, the
commands that change them), and of the outbox only the undelivered picture posts a later
tick may drop. The newest ``[bot] snapshots_kept`` per campaign are kept (default 200: seven
weeks of ticks at four a day).

**Catch-ups** (:func:`before_tick`). Every tick of a catch-up keeps its snapshot, whatever
interrupts the catch-up (each is committed with its tick): the one before its first tick
(the world before the catch-up, which ``undo`` of a mistaken catch-up needs) and the one
before the newest tick applied. A long catch-up does not push out the snapshots from before
it (a long pause resumed with ``--catch-up``, a week of downtime): it keeps its first
snapshot and its newest :func:`catch_up_room` ones, dropping its own older ones first.

**Cheap enough for every tick** (format 2, :func:`world_json`). The database itself builds
each world table's rows as one JSON array of arrays of the values it stores, in column order
(SQLite ``json_group_array(json_array(...))``, PostgreSQL ``json_agg(json_build_array(...))``):
no row passes through Python objects, none of our column types converts a value, and JSON
columns travel as their stored text. Restoring writes those stored values back unchanged, so
every value (decimals, times, enums, booleans, JSON text to the byte) comes back exactly;
a column of a type without such a form (a float would lose digits) is refused by
:func:`_kind`. The JSON is compressed in zlib's format: below :data:`SMALL` by zlib at level 6,
above it by ISA-L's deflate (the ``isal`` package, its fastest level: several times quicker
than zlib's level 1 for no larger a result). Any zlib reads both, so every snapshot ever
stored restores alike (those zlib packed at level 1 before too). How long it takes on the tick
benchmark's world is measured by ``scripts/bench snapshot`` (figures in benchmarks/README.md);
the demo campaign's is about 2 KiB. Format 1 (rows as dicts of values converted one by one,
written until format 2 came) is still restored, and snapshots of both formats mix. The tables
and the marks are read by one statement (one moment), the campaign row and the waiting
picture posts before it.

**Out of the tick's way** (:func:`before_tick`). The tick's own snapshot is read and compressed
by another thread, on a connection of its own, while the tick runs; the tick stores it just
before committing. That connection sees what is committed: the world as the locked tick found
it and none of the tick's changes (on SQLite no other writer can commit while the tick holds
the write lock; on PostgreSQL the statement sees the committed world of one moment, as the
tick's own statements do). The database's JSON and the compressors (zlib, isal) leave Python's
interpreter free, so on a second core the snapshot costs the tick almost nothing; a campaign
in an in-memory SQLite database (another connection would see another database) takes it in
the tick's transaction. Leaving ``campaign_id`` out of the rows was measured too: 2% less
work, not worth a new format.

**Taking back** (:func:`plan` then :func:`restore`, ``maester undo`` / ``rollback``): the world
rows are replaced by the snapshot's, events logged since are deleted (the ``undo`` event that
replaces them lists what was taken back), and the outbox entries queued since are handled:

- not delivered yet (pending or dead): *withdrawn* (deleted with their pictures);
- delivered players' or public entries (posts, comments, replies, private messages): refused
  unless ``force``; forced, they are listed for the moderators to delete or correct on Reddit,
  and with ``delete_posts`` a ``delete`` entry is queued for each post and comment (modmail
  cannot be deleted). Their keys are renamed so that the ticks, applied again, post afresh;
- an entry being delivered at this moment: refused, try again in a minute.

Orders sent after the snapshot are not replayed (their receipts may be wrong once the world
is older): they are listed for the moderators (a moderator's ``as House X:`` orders too: the
events after the snapshot by a player or a moderator that no moderator command logged), and
each player is told by private message which of their orders were taken back and that they
may send them again.

**Same dice.** Dice derive from the campaign secret, the tick and the ids of the rows they are
about (``battle:7``). Restoring gives every row its old id back, and PostgreSQL's sequences are
set to follow the restored rows (:func:`align_sequences`; SQLite reuses ids by itself), so the
ticks applied again roll the same dice and create rows under the same ids.

**Preview** (``maester tick --preview``, :mod:`bot.services.preview`) writes nothing at all:
it advances the world in memory on a connection that only reads, so no sequence moves.

The campaign's pause and its clock offset are not part of a snapshot (see
:mod:`bot.services.pause`): taking back changes the world, not the calendar's holidays. A
world taken back across a holiday stands as it stood on the world's clock: the scatter locks
and the claims' last messages (the world-clock instants the rows store on the wall clock,
:func:`bot.services.pause.move_wall_instants`) move on by the holidays since the snapshot
(:func:`bot.services.pause.offset_then`; the ``undo`` event records the offset it kept).
"""

from __future__ import annotations

import base64
import functools
import hashlib
import json
import zlib
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from enum import StrEnum
from typing import Any, Protocol

from isal import isal_zlib
from sqlalchemy import (
    JSON,
    Boolean,
    Column,
    Engine,
    Insert,
    Integer,
    LargeBinary,
    Select,
    String,
    Table,
    Text,
    TypeDecorator,
    bindparam,
    cast,
    delete,
    func,
    insert,
    literal_column,
    text,
    type_coerce,
    update,
)
from sqlalchemy import select as core_select
from sqlalchemy.engine import Dialect
from sqlalchemy.types import TypeEngine
from sqlmodel import Session, SQLModel, col, select

from bot.db.models import (
    Army,
    Campaign,
    Character,
    Claim,
    Event,
    InboxMessage,
    MonthlyRun,
    Outbox,
    OutboxStatus,
    PendingBattle,
    Player,
    PostImage,
    Relation,
    ResourceHolder,
    Siege,
    Snapshot,
    TickRun,
)
from bot.db.types import ExactDecimal, UTCDateTime
from bot.render.notes import orders_taken_back_note
from bot.services import journal, pause
from bot.services.world import CampaignContext, Parses, current, get_campaign

FORMAT = 2
"""The snapshot format :func:`take` writes (1: rows as dicts of converted values, until
2026-11; 2: rows as arrays of stored values, built by the database)."""
READABLE = frozenset({1, 2})
"""The formats :func:`restore` reads."""
SMALL = 64 * 1024
"""A snapshot's JSON below this size is compressed harder (zlib level 6, under a millisecond):
a small campaign's snapshots stay small; larger ones get ISA-L's deflate at level 1, in zlib's
format (level 6 costs a large tick far more time for a quarter less: benchmarks/README.md)."""
WORLD_TABLES: tuple[type[SQLModel], ...] = (
    Claim, Player, Army, Character, Relation, Siege, PendingBattle, ResourceHolder)
"""The campaign-scoped tables a snapshot copies, parents before children. (The keys of the
applied ticks and months, ``TickRun`` and ``MonthlyRun``, are not copied: those after the
snapshot's last tick and month are deleted.)"""
CAMPAIGN_FIELDS = ("name", "subreddit", "season", "last_tick", "last_month")
"""The campaign row's world columns (its secret, creation time and pause stay as they are)."""
HEAVY_FIELDS = ("map_text", "catalogue_json")
"""The campaign's large columns, which only ``map update`` and ``catalogue load`` change: every
snapshot keeps their digests, and those two commands' snapshots their values too."""
SEEN_KINDS = frozenset({"post", "comment", "reply", "message", "webhook"})
"""Outbox kinds players or the public read: once delivered, taking them back needs force."""
COMMAND_KINDS = frozenset({"adjust", "season", "relation", "character", "army_removed",
                           "skill_granted", "skill_removed", "catalogue_loaded", "map_updated",
                           "catalogue_check", "catalogue_show", "undo", "pause", "resume",
                           "claim_away", "claim_hold", "claim_unheld", "claim_transfer",
                           "claim_added", "claim_retired", "approval", "correction"})
"""Events the moderators' own commands log (the rest, by a player or a moderator, are orders)."""
DELETABLE_KINDS = frozenset({"post", "comment"})

CORRECTION_KEY = "correction:"
"""Outbox keys of the corrections an ``undo`` queues (:mod:`bot.services.corrections`): a
later ``undo`` neither withdraws them nor refuses over them (they stay true: that correction
did happen), so :func:`queued_since` leaves them out."""
"""What the bot can delete on Reddit (a modmail message cannot be deleted)."""


class UndoRefused(Exception):
    """Taking back is not possible as asked; the message says why and what to do."""


def _table(model: type[SQLModel]) -> Table:
    table = model.__table__  # type: ignore[attr-defined]
    assert isinstance(table, Table)
    return table


# --- (de)serialising rows ----------------------------------------------------------------

def _dump(column: Column[Any], value: Any) -> Any:
    if value is None:
        return None
    if isinstance(column.type, ExactDecimal):
        return str(value)
    if isinstance(column.type, UTCDateTime):
        return value.isoformat()
    if isinstance(value, StrEnum):
        return value.value
    if isinstance(value, bytes):
        return base64.b64encode(value).decode()
    return value


def _load(column: Column[Any], value: Any) -> Any:
    if value is None:
        return None
    if isinstance(column.type, ExactDecimal):
        return Decimal(value)
    if isinstance(column.type, UTCDateTime):
        return datetime.fromisoformat(value)
    if isinstance(column.type, LargeBinary):
        return base64.b64decode(value)
    return value


class _Kind(StrEnum):
    """How a world column's stored value goes into a format-2 snapshot and back."""

    INT = "int"  # a JSON number
    BOOL = "bool"  # a JSON number (SQLite) or boolean (PostgreSQL); restored as a boolean
    TEXT = "text"  # a JSON string: text, and the types stored as text (decimals, times, enums)
    JSON = "json"  # the stored JSON text itself, as a JSON string (SQLite stores a bare
    # number as a number, and prints a float with 15 digits: JSON columns hold lists and dicts)


def _kind(column: Column[Any]) -> _Kind:
    """The column's kind; a column of any other type (a float would lose digits on the way)
    is refused, so a new one gets a decision of its own."""
    stored = column.type.impl if isinstance(column.type, TypeDecorator) else column.type
    if isinstance(stored, JSON):
        return _Kind.JSON
    if isinstance(stored, Boolean):
        return _Kind.BOOL
    if isinstance(stored, Integer):
        return _Kind.INT
    if isinstance(stored, String):
        return _Kind.TEXT
    raise TypeError(f"column {column.table.name}.{column.name} of type {column.type!r} has no "
                    "snapshot form: decide one in bot.services.snapshots._kind")


@functools.cache
def _rows_query(name: str, dialect: str) -> Select[Any]:
    """The rows of world table ``name`` of the campaign ``:cid`` as one JSON array of arrays,
    built by the database itself: each row's stored values in column order, JSON columns as
    their stored text (a string). Rows in no particular order (:func:`restore` sorts them):
    sorting costs more than reading. Built once per table and backend."""
    table = SQLModel.metadata.tables[name]
    json_columns = {c.name for c in table.columns if _kind(c) is _Kind.JSON}  # all checked
    if dialect == "postgresql":
        values = [cast(c, Text) if c.name in json_columns else c for c in table.columns]
        rows: Any = func.coalesce(cast(func.json_agg(func.json_build_array(*values)), Text),
                                  literal_column("'[]'"))
    else:  # SQLite: a text argument of json_array is a string, stored JSON text included
        rows = func.json_group_array(func.json_array(*table.columns))
    return core_select(rows).where(table.c.campaign_id == bindparam("cid"))


def _plain_type(kind: _Kind) -> TypeEngine[Any]:
    """The type that passes a stored value of ``kind`` as it is."""
    if kind is _Kind.INT:
        return Integer()
    if kind is _Kind.BOOL:
        return Boolean()
    return Text()


def _stored_column(column: Column[Any]) -> Any:
    """``column`` read as stored: JSON as its text, no type of ours converting the value."""
    kind = _kind(column)
    if kind is _Kind.JSON:
        return cast(column, Text)
    return type_coerce(column, _plain_type(kind))


@functools.cache
def _campaign_query(names: tuple[str, ...]) -> Select[Any]:
    """The campaign row's columns ``names`` as stored."""
    campaign = _table(Campaign)
    return core_select(*(_stored_column(campaign.c[n]) for n in names)).where(
        campaign.c.id == bindparam("cid"))


def _stored_param(column: Column[Any], name: str, dialect: str) -> Any:
    """A parameter ``name`` that writes a stored value (as a format-2 snapshot holds it) into
    ``column`` unchanged: no type of ours converts it on the way."""
    kind = _kind(column)
    if kind is _Kind.JSON:
        if dialect == "postgresql":
            return cast(bindparam(name, type_=Text), column.type)
        return bindparam(name, type_=Text)
    return bindparam(name, type_=_plain_type(kind))


@functools.cache
def _stored_insert(name: str, columns: tuple[str, ...], dialect: str) -> Insert:
    table = SQLModel.metadata.tables[name]
    return insert(table).values({table.c[c]: _stored_param(table.c[c], f"v{i}", dialect)
                                 for i, c in enumerate(columns)})


def _insert_stored(session: Session, table: Table, columns: list[str],
                   rows: list[list[Any]]) -> None:
    """Insert format-2 ``rows`` (stored values in the order of ``columns``), by id."""
    if not rows:
        return
    dialect = session.get_bind().dialect.name
    present = [c for c in columns if c in table.c]  # a column dropped since: left out
    at = [columns.index(c) for c in present]
    flags = [_kind(table.c[c]) is _Kind.BOOL for c in present]
    by_id = columns.index("id")
    params = [{f"v{i}": (bool(row[j]) if flag and row[j] is not None else row[j])
               for i, (j, flag) in enumerate(zip(at, flags, strict=True))}
              for row in sorted(rows, key=lambda r: int(r[by_id]))]
    session.execute(_stored_insert(table.name, tuple(present), dialect), params)


def _update_stored(session: Session, campaign_id: int, values: dict[str, Any]) -> None:
    """Write stored ``values`` (format 2) into the campaign row unchanged."""
    if not values:
        return
    campaign = _table(Campaign)
    dialect = session.get_bind().dialect.name
    names = sorted(values)
    session.execute(update(campaign).where(campaign.c.id == campaign_id).values(
        {campaign.c[n]: _stored_param(campaign.c[n], f"v{i}", dialect)
         for i, n in enumerate(names)}), {f"v{i}": values[n] for i, n in enumerate(names)})


def _digest(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True).encode()).hexdigest()


def _heavy_digest(fmt: int, name: str, stored: str, parses: Parses | None = None) -> str:
    """The digest a snapshot of format ``fmt`` keeps of the heavy column ``name`` holding
    ``stored`` (format 1: of the value, format 2: of the stored text). ``parses``: where the
    digests of texts already hashed are kept (the context's, :class:`Parses`): the map's text
    comes back from the database unchanged tick after tick, and finding it there costs far
    less than hashing it again."""
    if fmt == 1:
        json_column = _kind(_table(Campaign).c[name]) is _Kind.JSON
        return _digest(json.loads(stored) if json_column else stored)
    return _text_digest(stored) if parses is None else \
        parses.keep("digest", stored, _text_digest)


def _text_digest(stored: str) -> str:
    """The format-2 digest of a stored text: its SHA-256, the first 128 bits (enough to tell
    versions apart)."""
    return hashlib.sha256(stored.encode()).hexdigest()[:32]


def _heavy_stored(fmt: int, name: str, kept: Any) -> str:
    """A heavy value a snapshot of format ``fmt`` kept, as the column stores it (SQLAlchemy
    writes JSON with :func:`json.dumps`)."""
    if fmt == 1 and _kind(_table(Campaign).c[name]) is _Kind.JSON:
        return json.dumps(kept)
    return str(kept)


def world_json(session: Session, campaign_id: int, *, heavy: bool = False,
               parses: Parses | None = None) -> str:
    """Every world row of the campaign as a format-2 snapshot's JSON text: the campaign's
    world columns, its map and catalogue as digests (and, ``heavy``, in full), the outbox
    state (:func:`_outbox_state`), and per world table its column names and its rows as
    arrays of stored values. The database builds the tables' JSON; nothing is converted."""
    return "".join(_world_pieces(session, campaign_id, heavy=heavy, parses=parses)[0])


@dataclass(slots=True)
class _Head:
    """What a snapshot reads before the tables: the campaign's world columns, its map and
    catalogue as stored, and the outbox state when picture posts wait (else None: it follows
    from the newest outbox entry, read with the tables)."""

    campaign: dict[str, Any]
    heavy: dict[str, str]
    digests: dict[str, str]
    outbox: dict[str, Any] | None
    keep_heavy: bool

    @property
    def last_tick(self) -> int:
        return int(self.campaign["last_tick"])


def _read_head(session: Session, campaign_id: int, *, heavy: bool, parses: Parses | None
               ) -> _Head:
    cid = {"cid": campaign_id}
    row = session.execute(_campaign_query(CAMPAIGN_FIELDS + HEAVY_FIELDS), cid).one()
    pending = _undrawn_posts(session, campaign_id)
    stored = dict(zip(HEAVY_FIELDS, row[len(CAMPAIGN_FIELDS):], strict=True))
    return _Head(dict(zip(CAMPAIGN_FIELDS, row[:len(CAMPAIGN_FIELDS)], strict=True)), stored,
                 {n: _heavy_digest(FORMAT, n, v, parses) for n, v in stored.items()},
                 _outbox_state(session, campaign_id, pending) if pending else None, heavy)


def _assemble(head: _Head, found: Sequence[Any]) -> tuple[list[str], tuple[int, int, int]]:
    """A snapshot's JSON text in pieces (the tables' JSON as the database gave it: not copied
    into one string) from ``head`` and the row of :func:`_tables_query`; and the marks."""
    rows, marks = found[:len(WORLD_TABLES)], [int(m or 0) for m in found[len(WORLD_TABLES):]]
    data = {"format": FORMAT, "campaign": head.campaign,
            "digests": head.digests,
            "heavy": head.heavy if head.keep_heavy else {},
            "outbox": head.outbox if head.outbox is not None else _no_pending(marks[1]),
            "columns": _columns()}
    pieces = [json.dumps(data, separators=(",", ":"))[:-1] + ',"tables":{']
    for i, (model, table_rows) in enumerate(zip(WORLD_TABLES, rows, strict=True)):
        pieces += [f'{"," if i else ""}"{_table(model).name}":', table_rows]
    pieces.append("}}")
    return pieces, (marks[0], marks[1], marks[2])


def _world_pieces(session: Session, campaign_id: int, *, heavy: bool,
                  parses: Parses | None = None
                  ) -> tuple[list[str], int, tuple[int, int, int]]:
    """:func:`world_json`'s text in pieces, the campaign's last applied tick, and the newest
    event, outbox entry and inbox message (read by the statement that reads the tables: the
    marks and the rows are of one moment)."""
    head = _read_head(session, campaign_id, heavy=heavy, parses=parses)
    found = session.execute(_tables_query(session.get_bind().dialect.name),
                            {"cid": campaign_id}).one()
    pieces, marks = _assemble(head, found)
    return pieces, head.last_tick, marks


@functools.cache
def _tables_query(dialect: str) -> Select[Any]:
    """Every world table's :func:`_rows_query`, then the newest event, outbox entry and inbox
    message (a snapshot's marks), in one statement (one round trip, one moment)."""
    return core_select(*(_rows_query(_table(m).name, dialect).scalar_subquery()
                         for m in WORLD_TABLES),
                       *(_max_query(_table(m).name).scalar_subquery()
                         for m in (Event, Outbox, InboxMessage)))


@functools.cache
def _columns() -> dict[str, str]:
    """Each world table's column names in the order of its rows, comma-separated (short: a
    small campaign's snapshot is mostly these)."""
    return {_table(m).name: ",".join(c.name for c in _table(m).columns) for m in WORLD_TABLES}


@functools.cache
def _undrawn_query() -> Select[Any]:
    image = _table(PostImage)
    return core_select(image.c.key).where(image.c.campaign_id == bindparam("cid"),
                                          func.length(image.c.data) == 0)


def _undrawn_posts(session: Session, campaign_id: int) -> Sequence[Any]:
    """The undelivered picture posts whose picture is not drawn yet, by id (none, one query,
    when no picture waits)."""
    outbox = _table(Outbox)
    keys = session.execute(_undrawn_query(), {"cid": campaign_id}).scalars().all()
    return [] if not keys else session.execute(core_select(outbox).where(
        outbox.c.campaign_id == campaign_id, outbox.c.status == OutboxStatus.PENDING,
        outbox.c.key.in_(keys)).order_by(outbox.c.id)).mappings().all()


def _outbox_state(session: Session, campaign_id: int, pending: Sequence[Any] | None = None
                  ) -> dict[str, Any]:
    """The undelivered picture posts whose picture is not drawn yet (``pending``, read now
    when not given), in full with their pictures (a later tick drops them: a newer [Realm]
    post supersedes an older one), and which entries exist from the oldest of them on (SQLite
    may give a later entry the id of a dropped one)."""
    outbox, image = _table(Outbox), _table(PostImage)
    if pending is None:
        pending = _undrawn_posts(session, campaign_id)
    if not pending:
        return _no_pending(_max_id(session, Outbox))
    low = pending[0]["id"]
    ids = session.execute(core_select(outbox.c.id).where(
        outbox.c.campaign_id == campaign_id, outbox.c.id >= low)).scalars().all()
    wanted = {r["key"] for r in pending}
    images = session.execute(core_select(image).where(
        image.c.campaign_id == campaign_id, image.c.key.in_(sorted(wanted)))).mappings().all()
    return {"low": low, "ids": sorted(ids),
            "pending": [{c.name: _dump(c, r[c.name]) for c in outbox.columns} for r in pending],
            "images": [{c.name: _dump(c, r[c.name]) for c in image.columns if c.name != "id"}
                       for r in images]}


def _no_pending(newest: int) -> dict[str, Any]:
    """The outbox state when no picture post waits: nothing is kept, and no entry exists
    after the newest (``newest``, its id)."""
    return {"low": newest + 1, "ids": [], "pending": [], "images": []}


@functools.cache
def _max_query(name: str) -> Select[Any]:
    return core_select(func.max(SQLModel.metadata.tables[name].c.id))


def _max_id(session: Session, model: type[SQLModel]) -> int:
    return int(session.execute(_max_query(_table(model).name)).scalar() or 0)


@functools.cache
def _prune_statement() -> Any:
    """Delete the campaign ``:cid``'s snapshots older than its newest ``:kept``, in one
    statement (none when there are no more than that)."""
    snapshot = _table(Snapshot)
    oldest_kept = core_select(snapshot.c.id).where(snapshot.c.campaign_id == bindparam("cid")) \
        .order_by(snapshot.c.id.desc()).limit(1).offset(bindparam("skip")).scalar_subquery()
    return delete(snapshot).where(snapshot.c.campaign_id == bindparam("cid"),
                                  snapshot.c.id < oldest_kept)


def take(session: Session, ctx: CampaignContext, *, kind: str, label: str, now: datetime,
         actor: str = "maester", heavy: bool = False) -> Snapshot:
    """Keep the world as it is now, in the caller's transaction (before it changes it); drop
    the snapshots beyond ``[bot] snapshots_kept``. ``heavy``: before a command that changes
    the map or the catalogue (they are kept in full)."""
    session.flush()
    pieces, last_tick, marks = _world_pieces(session, ctx.campaign_id, heavy=heavy,
                                             parses=ctx.parses)
    return _store(session, ctx, kind=kind, label=label, actor=actor, tick=last_tick, now=now,
                  marks=marks, data=_compress(pieces))


def _store(session: Session, ctx: CampaignContext, *, kind: str, label: str, actor: str,
           tick: int, now: datetime, marks: tuple[int, int, int], data: bytes) -> Snapshot:
    """Store a snapshot's row; drop the campaign's snapshots beyond ``[bot] snapshots_kept``."""
    snapshot = Snapshot(campaign_id=ctx.campaign_id, kind=kind, label=label[:200],
                        actor=actor[:60], tick=tick, taken_at=now, event_mark=marks[0],
                        outbox_mark=marks[1], inbox_mark=marks[2], data=data)
    session.add(snapshot)
    session.flush()
    session.execute(_prune_statement(), {"cid": ctx.campaign_id,
                                         "skip": ctx.settings.bot.snapshots_kept - 1})
    return snapshot


def _compress(pieces: Sequence[str]) -> bytes:
    """The JSON text in ``pieces`` as one zlib stream: below :data:`SMALL` by zlib at level
    6, else by the fast packer (:func:`_fast_packer`)."""
    size = sum(len(p) for p in pieces)
    packer = zlib.compressobj(6) if size < SMALL else _fast_packer()
    return b"".join([*(packer.compress(p.encode()) for p in pieces), packer.flush()])


class _Packer(Protocol):
    """A compressor object (``zlib.compressobj``'s kind)."""

    def compress(self, data: bytes, /) -> bytes: ...

    def flush(self) -> bytes: ...


def _fast_packer() -> _Packer:
    """A compressor of a large snapshot into zlib's format: ISA-L's deflate (``isal``, a
    dependency) at its level 1."""
    return isal_zlib.compressobj(1)


def catch_up_room(ctx: CampaignContext) -> int:
    """How many of its own newest snapshots a catch-up keeps besides its first: a quarter of
    ``[bot] snapshots_kept`` (at least 1), so a catch-up never takes more than about a
    quarter of the snapshots kept and those from before it stay."""
    return max(1, ctx.settings.bot.snapshots_kept // 4)


def before_tick(session: Session, ctx: CampaignContext, index: int, now: datetime, *,
                catch_up_from: int | None = None) -> PendingSnapshot:
    """The snapshot before tick ``index`` of a catch-up to ``now``. ``catch_up_from`` is the
    id of the catch-up's first snapshot (None for its first tick): storing this one drops the
    catch-up's own snapshots after that first one beyond its newest :func:`catch_up_room`
    (this one included).

    Called first in the tick's transaction, with the campaign locked. On a database another
    connection shares (a SQLite file, PostgreSQL) the world's rows are read and compressed by
    another thread on its own connection while the tick runs; elsewhere (an in-memory SQLite
    database) they are read at once in the tick's transaction. Either way the caller stores it
    with :meth:`PendingSnapshot.store` before committing."""
    label = f"tick {index}"
    session.flush()
    bind = session.get_bind()
    if not isinstance(bind, Engine) or not _shared(bind):
        pieces, last_tick, marks = _world_pieces(session, ctx.campaign_id, heavy=False,
                                                 parses=ctx.parses)
        done: Future[tuple[bytes, tuple[int, int, int]]] = Future()
        done.set_result((_compress(pieces), marks))
        return PendingSnapshot(ctx, label, now, last_tick, done, catch_up_from)
    head = _read_head(session, ctx.campaign_id, heavy=False, parses=ctx.parses)
    return PendingSnapshot(ctx, label, now, head.last_tick, _workers().submit(
        _read_elsewhere, bind, ctx.campaign_id, head), catch_up_from)


def _shared(engine: Engine) -> bool:
    """Whether another connection of ``engine`` sees the same database (not an in-memory
    SQLite one)."""
    if engine.dialect.name != "sqlite":
        return True
    path = engine.url.database or ""
    return path not in ("", ":memory:") and "mode=memory" not in path


@functools.cache
def _workers() -> ThreadPoolExecutor:
    """The threads that read and compress the ticks' snapshots (one per tick at a time)."""
    return ThreadPoolExecutor(max_workers=2, thread_name_prefix="snapshot")


@functools.cache
def _driver_tables_query(dialect: Dialect) -> tuple[str, tuple[str, ...] | None]:
    """:func:`_tables_query` as the driver takes it: its SQL, and for a positional driver the
    names of its parameters in order."""
    compiled = _tables_query(dialect.name).compile(dialect=dialect)
    return str(compiled), tuple(compiled.positiontup or ()) if dialect.positional else None


def _read_elsewhere(engine: Engine, campaign_id: int, head: _Head
                    ) -> tuple[bytes, tuple[int, int, int]]:
    """The world's tables and marks, read by one statement on a connection of its own (it sees
    what was committed: the world as the locked tick found it, none of the tick's changes,
    since no other tick can commit meanwhile), as a snapshot's compressed JSON and its marks.
    Runs in another thread; everything here releases the interpreter while the database and
    zlib work."""
    sql, order = _driver_tables_query(engine.dialect)
    raw = engine.raw_connection()
    try:
        cursor = raw.cursor()
        cursor.execute(sql, {"cid": campaign_id} if order is None
                       else tuple(campaign_id for _ in order))
        found = cursor.fetchone()
        cursor.close()
        assert found is not None  # a SELECT of values: always one row
    finally:
        raw.close()
    pieces, marks = _assemble(head, found)
    return _compress(pieces), marks


def _thin(session: Session, ctx: CampaignContext, first: int) -> None:
    """Make room for a catch-up's next snapshot: of its own after its first (``first``), keep
    the newest :func:`catch_up_room` ``- 1``."""
    table = _table(Snapshot)
    own = session.execute(core_select(table.c.id).where(
        table.c.campaign_id == ctx.campaign_id, table.c.id > first, table.c.kind == "tick")
        .order_by(table.c.id.desc())).scalars().all()
    extra = own[catch_up_room(ctx) - 1:]
    if extra:
        session.execute(delete(table).where(table.c.id.in_(extra)))


@dataclass(slots=True)
class PendingSnapshot:
    """A tick's snapshot being read and compressed by another thread (:func:`before_tick`)."""

    ctx: CampaignContext
    label: str
    now: datetime
    tick: int
    made: Future[tuple[bytes, tuple[int, int, int]]]
    catch_up_from: int | None = None

    def store(self, session: Session) -> Snapshot:
        """Wait for it and store it in the tick's transaction; drop the catch-up's own older
        snapshots beyond its first and its newest :func:`catch_up_room`, then the snapshots
        beyond ``[bot] snapshots_kept``."""
        data, marks = self.made.result()
        if self.catch_up_from is not None:
            _thin(session, self.ctx, self.catch_up_from)
        return _store(session, self.ctx, kind="tick", label=self.label, actor="maester",
                      tick=self.tick, now=self.now, marks=marks, data=data)

    def drop(self) -> None:
        """The tick failed: wait for the other thread to let its connection go."""
        self.made.exception()


def content(snapshot: Snapshot) -> dict[str, Any]:
    """The world a snapshot holds (format 2 as :func:`world_json` wrote it, or format 1)."""
    data: dict[str, Any] = json.loads(zlib.decompress(snapshot.data))
    if data.get("format") not in READABLE:
        raise UndoRefused(f"snapshot {snapshot.id} has format {data.get('format')!r}, which "
                          f"this version of maester cannot restore (it writes format {FORMAT})")
    return data


def listing(session: Session, ctx: CampaignContext) -> Sequence[Snapshot]:
    """The campaign's snapshots, oldest first."""
    return session.exec(select(Snapshot).where(Snapshot.campaign_id == ctx.campaign_id)
                        .order_by(col(Snapshot.id))).all()


# --- choosing what to take back ----------------------------------------------------------

def newest(session: Session, ctx: CampaignContext) -> Snapshot:
    """The snapshot ``maester undo`` goes back to: the one before the last tick or command."""
    found = session.exec(select(Snapshot).where(Snapshot.campaign_id == ctx.campaign_id)
                         .order_by(col(Snapshot.id).desc())).first()
    if found is None:
        raise UndoRefused("there is nothing to take back: no tick or moderator command was "
                          "recorded since the snapshots began (see `maester snapshots`)")
    return found


def after_tick(session: Session, ctx: CampaignContext, tick: int) -> Snapshot:
    """The snapshot of the world just after tick ``tick`` was applied (before anything
    later): the first one taken while ``tick`` was the last applied tick."""
    ctx, campaign = current(session, ctx)
    last = campaign.last_tick
    if tick > last:
        raise UndoRefused(f"tick {tick} is not applied yet; the last applied tick is {last} "
                          f"({ctx.when(ctx.tick_at(last))})")
    snapshots = listing(session, ctx)
    later = [s for s in snapshots if s.tick >= tick]
    if not later:
        raise UndoRefused(f"nothing changed after tick {tick}: there is nothing to take back")
    if later[0].tick != tick:
        oldest = snapshots[0]
        raise UndoRefused(f"no snapshot of tick {tick} is kept: the oldest is from tick "
                          f"{oldest.tick} ({ctx.when(ctx.tick_at(oldest.tick))}); "
                          "`maester snapshots` lists them ([bot] snapshots_kept sets how many "
                          "are kept)")
    return later[0]


@dataclass(slots=True)
class SentEntry:
    """An outbox entry already delivered that taking back would leave on Reddit."""

    id: int
    kind: str
    target: str
    title: str
    reddit_id: str

    @property
    def deletable(self) -> bool:
        return self.kind in DELETABLE_KINDS and bool(self.reddit_id)

    def describe(self) -> str:
        what = {"post": "public post", "comment": "comment", "reply": "modmail reply",
                "message": "private message",
                "webhook": "webhook notice (cannot be taken back)"}.get(self.kind, self.kind)
        where = f" {self.reddit_id}" if self.reddit_id else ""
        to = "" if self.kind in DELETABLE_KINDS else f" to {self.target}"
        return f"#{self.id} {what}{where}{to}: {self.title or '(no title)'}"


@dataclass(slots=True)
class Plan:
    """What taking the world back to ``snapshot`` would do."""

    snapshot: Snapshot
    undone: list[Snapshot]  # the ticks and commands taken back, oldest first
    sent: list[SentEntry] = field(default_factory=list)  # seen on Reddit already
    withdrawn: list[str] = field(default_factory=list)  # queued, not delivered: withdrawn
    busy: list[int] = field(default_factory=list)  # being delivered right now
    orders: dict[str, list[str]] = field(default_factory=dict)  # who -> orders taken back
    players: set[str] = field(default_factory=set)  # of those, the players (they are told)
    messages: int = 0  # modmail messages read since
    revealed: list[int] = field(default_factory=list)  # dice periods whose key is out since

    def lines(self, ctx: CampaignContext) -> list[str]:
        """The plan in words, for the moderator."""
        snap = self.snapshot
        out = [f"Back to the world before {snap.label} (snapshot {snap.id}, tick {snap.tick}, "
               f"{ctx.when(ctx.tick_at(snap.tick))}); taken back:"]
        out += [f"  - {s.label} (by {s.actor})" for s in self.undone]
        if self.withdrawn:
            out.append(f"Withdrawn before delivery: {len(self.withdrawn)} outbox entr"
                       f"{'y' if len(self.withdrawn) == 1 else 'ies'}: "
                       + "; ".join(self.withdrawn[:10])
                       + (" ..." if len(self.withdrawn) > 10 else ""))
        if self.sent:
            out.append("Already on Reddit (delete or correct them there):")
            out += [f"  - {e.describe()}" + ("" if e.deletable else " (modmail: cannot be "
                                             "deleted; send a correction)") for e in self.sent]
        if self.messages:
            out.append(f"{self.messages} modmail message(s) were read since; what their orders "
                       "did is taken back (below).")
        if self.revealed:
            out.append(f"Dice: the key of period(s) {', '.join(map(str, self.revealed))} was "
                       "revealed since (a [Dice] post or a claim's private key note): the "
                       "ticks applied again would roll dice anyone holding it can compute.")
        for who, orders in sorted(self.orders.items()):
            told = "they are told to send them again" if who in self.players \
                else "a moderator's: send them again if still wanted"
            out.append(f"Orders of u/{who} taken back ({told}): " + "; ".join(orders))
        return out


def queued_since(session: Session, ctx: CampaignContext, snapshot: Snapshot
                 ) -> list[Outbox]:
    """The outbox entries queued after ``snapshot`` was taken, oldest first."""
    state = content(snapshot)["outbox"]
    known = set(state["ids"])
    return [entry for entry in session.exec(select(Outbox).where(
        Outbox.campaign_id == ctx.campaign_id, col(Outbox.id) >= min(state["low"],
                                                                     snapshot.outbox_mark + 1))
        .order_by(col(Outbox.id))).all()
        if ((entry.id or 0) > snapshot.outbox_mark or entry.id not in known)
        and not entry.key.startswith(CORRECTION_KEY)]


def plan(session: Session, ctx: CampaignContext, snapshot: Snapshot, now: datetime) -> Plan:
    """What :func:`restore` to ``snapshot`` would do (changes nothing; locks the campaign
    row, so the plan holds for a restore in the same transaction)."""
    get_campaign(session, ctx, lock=True)
    undone = [s for s in listing(session, ctx) if s.id is not None and s.id >= (snapshot.id or 0)]
    result = Plan(snapshot, undone)
    revealed: set[int] = set()
    for entry in queued_since(session, ctx, snapshot):
        if entry.status == OutboxStatus.DELIVERED:
            period = revealed_period(entry.key)
            if period is not None:
                revealed.add(period)
            if entry.kind in SEEN_KINDS and entry.reddit_id != journal.WEBHOOK_DROPPED:  # went out
                result.sent.append(SentEntry(entry.id or 0, entry.kind, entry.target,
                                             entry.title, entry.reddit_id or ""))
        elif entry.status == OutboxStatus.PENDING and entry.claimed_by is not None \
                and entry.claimed_until is not None and entry.claimed_until > now:
            result.busy.append(entry.id or 0)
        else:
            result.withdrawn.append(f"#{entry.id} {entry.kind} {entry.title or entry.key}"[:90])
    result.revealed = sorted(revealed)
    result.players = set(session.exec(select(Player.reddit_name).where(
        Player.campaign_id == ctx.campaign_id)).all())
    ordering = sorted(result.players | ctx.moderators)  # a moderator's `as House X:` orders
    for event in session.exec(select(Event).where(
            Event.campaign_id == ctx.campaign_id, col(Event.id) > snapshot.event_mark,
            col(Event.actor).in_(ordering), col(Event.kind).not_in(sorted(COMMAND_KINDS)))
            .order_by(col(Event.id))).all():
        result.orders.setdefault(event.actor, []).append(event.summary[:120])
    result.messages = len(session.exec(select(InboxMessage.id).where(
        InboxMessage.campaign_id == ctx.campaign_id,
        col(InboxMessage.id) > snapshot.inbox_mark)).all())
    return result


def revealed_period(key: str) -> int | None:
    """The dice period whose key an outbox entry reveals, by the entry's key (None: it
    reveals none): a period's [Dice] post (``dice:period:P``) reveals period P - 1's public
    key, a claim's key note (``dice:reveal:P:CLAIM:...``) its branch of period P."""
    parts = key.split(":")
    if len(parts) >= 3 and parts[0] == "dice" and parts[2].isdigit():
        if parts[1] == "period" and int(parts[2]) > 0:
            return int(parts[2]) - 1
        if parts[1] == "reveal":
            return int(parts[2])
    return None


# --- restoring ---------------------------------------------------------------------------

def check_restorable(chosen: Plan, *, force: bool = False, replay_revealed: bool = False
                     ) -> None:
    """Raise :class:`UndoRefused` when :func:`restore` would refuse ``chosen`` (see there)."""
    if chosen.busy:
        raise UndoRefused(f"outbox entr{'y' if len(chosen.busy) == 1 else 'ies'} "
                          f"{', '.join(f'#{i}' for i in chosen.busy)} "
                          "{} being delivered right now; try again in a minute".format(
                              "is" if len(chosen.busy) == 1 else "are"))
    if chosen.revealed and not replay_revealed:
        periods = ", ".join(map(str, chosen.revealed))
        raise UndoRefused(
            f"the dice key of period(s) {periods} was revealed after that snapshot, so the "
            "ticks applied again would roll dice that anyone holding the key can compute, and "
            "a player could resend an order until its dice suit them. Take back to a later "
            "snapshot, or add --replay-revealed-dice to go ahead knowingly (the undo is "
            "logged with it)")
    if chosen.sent and not force:
        raise UndoRefused(
            f"{len(chosen.sent)} post(s) or message(s) made since then are already on "
            "Reddit:\n" + "\n".join(f"  - {e.describe()}" for e in chosen.sent)
            + "\nAdd --force to take back anyway (they stay on Reddit; you delete or correct "
            "them), or --force --delete-posts to have the bot delete the posts and comments")


def restore(session: Session, ctx: CampaignContext, chosen: Plan, *, actor: str,
            now: datetime, force: bool = False, delete_posts: bool = False,
            replay_revealed: bool = False, reason: str = "",
            approved_by: str = "") -> list[str]:
    """Take the world back to ``chosen.snapshot`` in the caller's transaction (see the
    module's docstring); returns the plan's lines. Raises :class:`UndoRefused` (nothing
    changed) while an entry is being delivered, when a dice period's key was revealed since
    and ``replay_revealed`` is not given (the ticks applied again would roll dice anyone can
    compute, so a player could resend an order until its dice suit), or when delivered
    entries would stay on Reddit and ``force`` is not given. ``reason`` and ``approved_by``
    (the second moderator, :mod:`bot.services.proposals`) go into the ``undo`` event; the
    public correction is :func:`bot.services.corrections.take_back`'s. ``now`` is the
    moment its log line, notes and deletions carry: the world's clock, which take_back reads
    (the plan, made before, checked the delivery leases on the wall clock)."""
    check_restorable(chosen, force=force, replay_revealed=replay_revealed)
    snapshot = chosen.snapshot
    data = content(snapshot)
    cid = ctx.campaign_id
    snap_id, snap_tick, label = snapshot.id or 0, snapshot.tick, snapshot.label
    lines = chosen.lines(ctx)
    undone = [s.label for s in chosen.undone]
    ctx, stored = current(session, ctx, lock=True)  # the clock as stored
    offset = stored.tick_offset or 0
    held = pause.offset_then(session, ctx, snapshot.event_mark)
    session.flush()
    heavy = _heavy_values(session, ctx, data, chosen.undone)  # may refuse: nothing changed yet
    for model in reversed(WORLD_TABLES):
        table = _table(model)
        session.execute(delete(table).where(table.c.campaign_id == cid))
    campaign = _table(Campaign)
    if data["format"] == 1:  # rows as dicts of values converted for JSON
        for model in WORLD_TABLES:
            table = _table(model)
            rows = [{name: _load(table.c[name], value) for name, value in row.items()}
                    for row in data["tables"].get(table.name, [])]
            if rows:
                session.execute(insert(table), rows)
        session.execute(update(campaign).where(campaign.c.id == cid).values(
            {name: _load(campaign.c[name], value) for name, value in data["campaign"].items()}))
    else:  # rows as arrays of stored values
        for model in WORLD_TABLES:
            table = _table(model)
            _insert_stored(session, table, data["columns"][table.name].split(","),
                           data["tables"][table.name])
        _update_stored(session, cid, data["campaign"])
    _update_stored(session, cid, heavy)
    ticks, months = _table(TickRun), _table(MonthlyRun)
    session.execute(delete(ticks).where(ticks.c.campaign_id == cid,
                                        ticks.c.tick > int(data["campaign"]["last_tick"])))
    session.execute(delete(months).where(months.c.campaign_id == cid,
                                         months.c.month > int(data["campaign"]["last_month"])))
    event = _table(Event)
    session.execute(delete(event).where(event.c.campaign_id == cid,
                                        event.c.id > snapshot.event_mark))
    _settle_outbox(session, ctx, snapshot, delete_posts=delete_posts, now=now)
    for player, orders in chosen.orders.items():
        if player not in chosen.players:
            continue  # a moderator's orders: listed to the moderator who takes back
        title, body = orders_taken_back_note(ctx.when(ctx.tick_at(snap_tick)), orders)
        journal.queue(session, cid, f"undo:{snap_id}:{player}"[:120], "message",
                      target=player, at=now, tick=snap_tick, title=title, body=body)
    session.execute(delete(_table(Snapshot)).where(_table(Snapshot).c.campaign_id == cid,
                                                   _table(Snapshot).c.id >= snap_id))
    session.flush()
    session.expunge_all()  # rows read before are stale; the objects keep what they held
    # Scatter locks and last messages are wall-clock instants: those of a snapshot from before
    # a holiday move with the world's clock, which keeps its offset (same world tick).
    pause.move_wall_instants(session, ctx, offset - held)
    align_sequences(session, [*WORLD_TABLES, TickRun, MonthlyRun, Event])
    journal.log_event(session, cid, snap_tick, "undo",
                      f"world taken back to before {label} "
                      f"({len(undone)} tick(s)/command(s))"
                      + (f": {reason}" if reason else "")
                      + (f" (approved by {approved_by})" if approved_by else ""),
                      at=now, actor=actor,
                      data={"snapshot": snap_id, "undone": undone, "reason": reason,
                            "approved_by": approved_by,
                            "withdrawn": len(chosen.withdrawn),
                            "sent": [e.describe() for e in chosen.sent],
                            "deleted": delete_posts,
                            "orders": chosen.orders, "offset": offset,
                            "revealed_dice_replayed": chosen.revealed})
    return lines


def _heavy_values(session: Session, ctx: CampaignContext, data: dict[str, Any],
                  undone: Sequence[Snapshot]) -> dict[str, str]:
    """The map and catalogue as the snapshot saw them (as stored), where they differ from
    now: from the first later snapshot that kept them (the one taken before they changed).
    A format-1 snapshot may be restored from a later format-2 one (its digests are of the
    values: they match however the text was written); format 2 never comes before format 1."""
    now = session.execute(_campaign_query(HEAVY_FIELDS), {"cid": ctx.campaign_id}).one()
    out: dict[str, str] = {}
    for name, stored in zip(HEAVY_FIELDS, now, strict=True):
        wanted = data["digests"][name]
        if _heavy_digest(data["format"], name, stored, ctx.parses) == wanted:
            continue
        for later in undone:
            found = content(later)
            if name not in found["heavy"]:
                continue
            kept = _heavy_stored(found["format"], name, found["heavy"][name])
            if _heavy_digest(data["format"], name, kept) == wanted:
                out[name] = kept
                break
        else:
            what = {"map_text": "map", "catalogue_json": "catalogue"}.get(name, name)
            raise UndoRefused(f"the campaign's {what} changed since "
                              "then without a snapshot of it; put it back with `maester map "
                              "update` or `maester catalogue load` first")
    return out


def _settle_outbox(session: Session, ctx: CampaignContext, snapshot: Snapshot, *,
                   delete_posts: bool, now: datetime) -> None:
    """Withdraw what was queued since the snapshot and not delivered; rename what was
    delivered (the ticks applied again queue their entries afresh); queue deletions."""
    cid = ctx.campaign_id
    entries = queued_since(session, ctx, snapshot)
    image = _table(PostImage)
    keys = [e.key for e in entries]
    for start in range(0, len(keys), 500):
        session.execute(delete(image).where(image.c.campaign_id == cid,
                                            image.c.key.in_(keys[start:start + 500])))
    for entry in entries:
        if entry.status != OutboxStatus.DELIVERED:
            session.delete(entry)
            continue
        entry.key = f"undone{snapshot.id}:{entry.key}"[:120]
        session.add(entry)
        if delete_posts and entry.kind in DELETABLE_KINDS and entry.reddit_id:
            journal.queue(session, cid, f"delete:{entry.reddit_id}", "delete",
                          target=entry.reddit_id, title=entry.title, public=False,
                          body=f"taken back: {entry.title}"[:300], at=now, tick=snapshot.tick)
    session.flush()
    # Undelivered entries of the snapshot that a later tick dropped come back.
    state = content(snapshot)["outbox"]
    outbox = _table(Outbox)
    wanted = {row["id"]: row for row in state["pending"]}
    present = set(session.execute(core_select(outbox.c.id).where(
        outbox.c.id.in_(sorted(wanted)))).scalars().all()) if wanted else set()
    back = [{name: _load(outbox.c[name], value) for name, value in row.items()}
            for i, row in wanted.items() if i not in present]
    if back:
        session.execute(insert(outbox), back)
        returned = {row["key"] for row in back}
        pictures = [{name: _load(image.c[name], value) for name, value in row.items()}
                    for row in state["images"] if row["key"] in returned]
        if pictures:
            session.execute(insert(image), pictures)


def align_sequences(session: Session, models: Sequence[type[SQLModel]]) -> None:
    """PostgreSQL: make each table's next id follow its highest (a rolled-back transaction
    or a restore leaves the sequence further on; SQLite reuses ids by itself). The table is
    locked meanwhile, so no insert races the change."""
    bind = session.get_bind()
    if bind.dialect.name != "postgresql":
        return
    quote = bind.dialect.identifier_preparer.quote
    for model in models:
        name = quote(_table(model).name)
        session.execute(text(f"LOCK TABLE {name} IN SHARE ROW EXCLUSIVE MODE"))
        session.execute(text(
            f"SELECT setval(pg_get_serial_sequence(:table, 'id'), "
            f"COALESCE((SELECT MAX(id) FROM {name}), 0) + 1, false)"), {"table": name})
