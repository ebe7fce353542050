"""Database engines with the settings that keep writers safe, and the transaction helper.

SQLite: WAL, foreign keys, a busy timeout, ``synchronous=FULL``, and every transaction starts
with ``BEGIN IMMEDIATE`` (SQLAlchemy's documented recipe: the driver's own transaction handling
is switched off and the ``begin`` event issues the statement), so concurrent writers queue
instead of failing with "database is locked". PostgreSQL: plain READ COMMITTED with explicit
row locks where the services need them.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.pool import NullPool
from sqlmodel import Session

BUSY_TIMEOUT_MS = 60_000


def is_sqlite(engine: Engine) -> bool:
    return engine.dialect.name == "sqlite"


def make_engine(url: str, *, echo: bool = False) -> Engine:
    """An engine for ``url`` (``sqlite:///path`` or ``postgresql+psycopg://...``)."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        engine = create_engine(
            url,
            echo=echo,
            connect_args={"timeout": BUSY_TIMEOUT_MS / 1000, "check_same_thread": False},
            poolclass=NullPool,
        )
        _configure_sqlite(engine)
        return engine
    return create_engine(url, echo=echo, pool_pre_ping=True)


def _configure_sqlite(engine: Engine) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, connection_record: Any) -> None:
        # Let SQLAlchemy's begin event, not the driver, decide how transactions start.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=FULL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.close()

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

    from bot.db import models  # noqa: F401  (registers the tables)

    SQLModel.metadata.create_all(engine)
