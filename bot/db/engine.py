"""Database engines with the settings that keep writers safe, and the transaction helper.

SQLite: WAL, foreign keys, a busy timeout, ``synchronous=FULL``, and every transaction starts
with ``BEGIN IMMEDIATE`` (SQLAlchemy's documented recipe: the driver's own transaction handling
is switched off and the ``begin`` event issues the statement), so concurrent writers queue
instead of failing with "database is locked". PostgreSQL: plain READ COMMITTED with explicit
row locks where the services need them.

Every engine made here counts the transactions that write (:func:`_count_writes`): each one
adds one to the ``dataversion`` row as it commits, in the same transaction, so a reader that
finds the same number (:func:`data_version`) in its snapshot reads the same data.

PostgreSQL URLs may carry one query parameter of our own, ``?schema=NAME``: it is removed from
the URL before connecting and becomes the connection's ``search_path``, so every table lives in
that schema. Separate processes given the same URL therefore share one schema (the tests give
each test its own schema in one database; a host may run several campaigns in one database).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import Engine, create_engine, event, text
from sqlalchemy.engine import URL, make_url
from sqlalchemy.pool import QueuePool
from sqlmodel import Session

from bot.db.types import json_text

BUSY_TIMEOUT_MS = 60_000
SCHEMA_QUERY_KEY = "schema"
# Unquoted PostgreSQL identifiers only: the name goes into a connection option verbatim.
_SCHEMA_NAME = re.compile(r"[a-z_][a-z0-9_]{0,62}")


def is_sqlite(engine: Engine) -> bool:
    return engine.dialect.name == "sqlite"


class MissingDatabase(RuntimeError):
    """The SQLite database file does not exist, or vanished while the bot used it."""

    def __init__(self, path: str, vanished: bool = False) -> None:
        self.path = path
        self.vanished = vanished
        super().__init__(f"the database file {path} "
                         + ("was deleted or replaced while in use" if vanished
                            else "does not exist"))


def _use_wal(cursor: Any) -> None:
    """Switch the file to WAL (it stays so). Changing the journal mode needs the file to
    itself, and SQLite answers "database is locked" at once, without its busy timeout, while
    another process writes a new file (two `maester db upgrade` at the same moment): wait
    for that, a bounded number of times."""
    import sqlite3
    import time

    if str(cursor.execute("PRAGMA journal_mode").fetchone()[0]).lower() == "wal":
        return
    for _ in range(BUSY_TIMEOUT_MS // 50):
        try:
            cursor.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc):
                raise
            time.sleep(0.05)
    cursor.execute("PRAGMA journal_mode=WAL")


def make_engine(url: str | URL, *, echo: bool = False, schema: str | None = None,
                must_exist: bool = False) -> Engine:
    """An engine for ``url`` (``sqlite:///path`` or ``postgresql+psycopg://...[?schema=NAME]``).

    ``must_exist`` (every command but ``init``): a missing SQLite file raises MissingDatabase
    instead of being created empty. A SQLite file deleted or replaced while the engine uses
    it makes the next commit raise MissingDatabase (nothing is written into a lost file).

    ``schema`` (or the URL's ``schema`` query parameter; the argument wins) makes a PostgreSQL
    engine use that existing schema as its ``search_path``. Raises ValueError for a schema name
    that is not a lower-case identifier, or for a schema on any backend but PostgreSQL.
    """
    parsed = make_url(url)
    from_url = parsed.query.get(SCHEMA_QUERY_KEY)
    if from_url is not None:
        parsed = parsed.difference_update_query([SCHEMA_QUERY_KEY])
        if schema is None:
            schema = from_url if isinstance(from_url, str) else from_url[-1]
    if parsed.get_backend_name() == "sqlite":
        if schema is not None:
            raise ValueError("a schema applies to PostgreSQL URLs only, not SQLite")
        path = parsed.database or ""
        is_file = path not in ("", ":memory:") and not path.startswith("file:")
        if must_exist and is_file and not os.path.isfile(path):
            raise MissingDatabase(path)
        engine = create_engine(
            parsed,
            echo=echo,
            connect_args={"timeout": BUSY_TIMEOUT_MS / 1000, "check_same_thread": False},
            # A small pool keeps connections open: closing the last connection to a WAL
            # database checkpoints and fsyncs, which would cost every transaction ~10 ms.
            pool_size=2,
            max_overflow=8,
            json_serializer=json_text,
        )
        _configure_sqlite(engine, path if is_file else None)
        _count_writes(engine)
        return engine
    connect_args: dict[str, Any] = {}
    if schema is not None:
        if parsed.get_backend_name() != "postgresql":
            raise ValueError("a schema applies to PostgreSQL URLs only")
        if not _SCHEMA_NAME.fullmatch(schema):
            raise ValueError(
                f"schema {schema!r}: expected a lower-case identifier (letters, digits, _)"
            )
        # SQLAlchemy lets connect_args replace the URL's own ``options``: keep both.
        existing = parsed.query.get("options")
        options = [existing] if isinstance(existing, str) else list(existing or ())
        connect_args["options"] = " ".join([*options, f"-csearch_path={schema}"])
    engine = create_engine(parsed, echo=echo, pool_pre_ping=True, connect_args=connect_args,
                           json_serializer=json_text)
    _count_writes(engine)
    return engine


# --------------------------------------------------------------------- the data version

DATA_VERSION_TABLE = "dataversion"
_WROTE = "maester_wrote"
_READ_VERBS = frozenset({"SELECT", "PRAGMA", "SHOW", "SET", "BEGIN", "SAVEPOINT", "RELEASE",
                         "ROLLBACK", "COMMIT", "EXPLAIN", "VALUES"})
# The lease row (bot/reddit/lease.py) is renewed every minute and read by no page: a
# transaction that writes only it leaves the data version alone, so an idle bot does not
# make the moderators' room compute its preview again every minute.
_LEASE_ONLY = re.compile(r'\s*(?:UPDATE|INSERT\s+INTO|DELETE\s+FROM)\s+"?lease"?\s', re.I)
_BUMP_SQLITE = f"UPDATE {DATA_VERSION_TABLE} SET n = n + 1 WHERE id = 1"
# One statement, harmless before the migration that made the table and in a READ ONLY
# transaction (the pages' readers: nothing they run can have written).
_BUMP_POSTGRESQL = (
    f"DO $$BEGIN IF to_regclass('{DATA_VERSION_TABLE}') IS NOT NULL "
    "AND current_setting('transaction_read_only') = 'off' THEN "
    f"UPDATE {DATA_VERSION_TABLE} SET n = n + 1 WHERE id = 1; END IF; END$$")
_DML = re.compile(r"\b(?:INSERT|UPDATE|DELETE|MERGE)\b", re.I)


def writes(statement: str) -> bool:
    """Whether ``statement`` may change what a reader reads: anything but a plain read or
    transaction control (unknown verbs count as writes: a write missed would let a page show
    stale data, a read counted only costs it a recomputation), and not a write of the lease
    row alone."""
    words = statement.lstrip(" (\n\t").split(None, 1)
    verb = words[0].upper() if words else ""
    if verb == "WITH":  # a common table expression: a read unless it holds a write
        return bool(_DML.search(statement))
    return verb not in _READ_VERBS and not _LEASE_ONLY.match(statement)


_FAILED = 3  # psycopg's TransactionStatus.INERROR (libpq's PQTRANS_INERROR)


def _count_writes(engine: Engine) -> None:
    """Count each transaction that wrote: every statement that ran is looked at
    (:func:`writes`), and a transaction that sent a write adds one to the data version just
    before it commits, in the same transaction (a rolled-back one adds nothing). Whatever
    writes through our engines, the ORM or plain SQL, a tick, an order, an undo or a
    migration, is counted. Plain SQL, not the ORM: the commit is under way."""
    bump = _BUMP_SQLITE if is_sqlite(engine) else _BUMP_POSTGRESQL

    @event.listens_for(engine, "begin")
    def _begin(connection: Any) -> None:
        connection.info.pop(_WROTE, None)

    @event.listens_for(engine, "after_cursor_execute")
    def _seen(connection: Any, cursor: Any, statement: str, parameters: Any, context: Any,
              executemany: bool) -> None:
        if _WROTE not in connection.info and writes(statement):
            connection.info[_WROTE] = True

    @event.listens_for(engine, "commit")
    def _commit(connection: Any) -> None:
        if not connection.info.pop(_WROTE, None):
            return
        import sqlite3

        dbapi = connection.connection.dbapi_connection
        if getattr(getattr(dbapi, "info", None), "transaction_status", None) == _FAILED:
            return  # a PostgreSQL transaction that failed: its COMMIT rolls it back
        cursor = dbapi.cursor()
        try:
            cursor.execute(bump)
        except sqlite3.OperationalError as exc:  # a database from before the table
            if "no such table" not in str(exc):
                raise
        finally:
            cursor.close()

    @event.listens_for(engine, "rollback")
    def _rollback(connection: Any) -> None:
        connection.info.pop(_WROTE, None)


def data_version(session: Session) -> int | None:
    """The database's data version as of ``session``'s transaction (None: a database without
    the row, whose readers must not keep anything). Read it first in a read transaction: on
    PostgreSQL at REPEATABLE READ (the pages' readers) and on SQLite (one snapshot per
    transaction) the transaction's later reads see the data of exactly this version."""
    value = session.execute(text(f"SELECT n FROM {DATA_VERSION_TABLE} WHERE id = 1")).scalar()
    return None if value is None else int(value)


def _file_id(path: str) -> tuple[int, int] | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_dev, info.st_ino


def _configure_sqlite(engine: Engine, path: str | None) -> None:
    identity: list[tuple[int, int] | None] = []

    if path is not None:
        @event.listens_for(engine, "commit")
        def _on_commit(connection: Any) -> None:
            # A deleted or replaced file: SQLite would go on writing into the lost inode.
            current = _file_id(path)
            if not identity:
                identity.append(current)
            if current is None or current != identity[0]:
                raise MissingDatabase(path, vanished=True)

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, connection_record: Any) -> None:
        # Let SQLAlchemy's begin event, not the driver, decide how transactions start.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        _use_wal(cursor)
        cursor.execute("PRAGMA synchronous=FULL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.close()
        if path is not None and not identity:
            identity.append(_file_id(path))

    @event.listens_for(engine, "begin")
    def _on_begin(connection: Any) -> None:
        connection.exec_driver_sql("BEGIN IMMEDIATE")


@contextmanager
def transaction(engine: Engine) -> Iterator[Session]:
    """One unit of work: commit on success, roll back on any exception."""
    with Session(engine, expire_on_commit=False) as session, session.begin():
        yield session


def create_all(engine: Engine) -> None:
    """Create every table (tests; production uses Alembic migrations)."""
    from sqlmodel import SQLModel

    from bot.db import models  # registers the tables

    SQLModel.metadata.create_all(engine)
    with transaction(engine) as session:  # the data version's row, as the migration makes it
        if data_version(session) is None:
            session.add(models.DataVersion(id=1, n=0))


def make_reader_engine(url: str | URL) -> Engine:
    """An engine that only reads (the web pages): it never takes a write lock, so it never
    blocks or waits for a tick.

    SQLite: the file opened read-only (``mode=ro``), transactions begun with a plain
    ``BEGIN`` (a reader sees one consistent snapshot; in WAL mode a writer goes on meanwhile).
    PostgreSQL: every transaction ``READ ONLY`` at ``REPEATABLE READ`` (one snapshot per
    request). Raises MissingDatabase for a SQLite file that does not exist.
    """
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite":
        engine = make_engine(parsed)
        return engine.execution_options(isolation_level="REPEATABLE READ",
                                        postgresql_readonly=True)
    path = parsed.database or ""
    if path in ("", ":memory:") or path.startswith("file:"):
        raise ValueError("the web pages need a SQLite database file, not an in-memory one")
    if not os.path.isfile(path):
        raise MissingDatabase(path)
    uri = f"file:{os.path.abspath(path)}?mode=ro"
    engine = create_engine("sqlite://", creator=lambda: _open_read_only(uri),
                           poolclass=QueuePool, pool_size=2, max_overflow=8)

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, connection_record: Any) -> None:
        dbapi_connection.isolation_level = None
        dbapi_connection.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")

    @event.listens_for(engine, "begin")
    def _on_begin(connection: Any) -> None:
        connection.exec_driver_sql("BEGIN")

    return engine


def reader_for(engine: Engine) -> Engine:
    """An engine that only reads the database ``engine`` writes (a preview): on PostgreSQL
    the same pool (and schema) with every transaction ``READ ONLY``; on SQLite the file
    opened read-only (:func:`make_reader_engine`), an engine of its own to dispose of when
    done (the PostgreSQL one is ``engine`` itself with options: leave it)."""
    if engine.dialect.name == "postgresql":
        return engine.execution_options(isolation_level="REPEATABLE READ",
                                        postgresql_readonly=True)
    return make_reader_engine(engine.url)


def _open_read_only(uri: str) -> Any:
    import sqlite3

    return sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_MS / 1000,
                           check_same_thread=False)
