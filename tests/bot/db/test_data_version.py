"""The data version (bot/db/engine.py): every transaction that writes through our engines adds
one as it commits, nothing else does, and a reader reads it in its own snapshot. The moderators'
room keeps its preview while the number stays (tests/bot/web/test_preview_cache.py), so a
write this count missed would show a stale preview."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import Engine, text, update
from sqlmodel import Session, select

from bot.db.engine import (
    create_all,
    data_version,
    make_engine,
    make_reader_engine,
    transaction,
    writes,
)
from bot.db.migrate import downgrade, upgrade
from bot.db.models import Campaign, Lease
from tests.bot.db.conftest import add_campaign
from tests.fixtures.db import sqlite_url


def version(engine: Engine) -> int | None:
    with Session(engine) as session:
        return data_version(session)


def test_each_committed_write_counts_once_and_nothing_else_counts(engine: Engine) -> None:
    assert version(engine) == 1  # the migration made the row, and wrote
    add_campaign(engine)  # the ORM
    assert version(engine) == 2
    with transaction(engine) as session:  # plain SQL, two statements: one transaction
        session.execute(text("UPDATE campaign SET season = 'winter'"))
        session.execute(update(Campaign).values(last_tick=Campaign.last_tick + 1))
    assert version(engine) == 3
    with transaction(engine) as session:  # reads only, a row locked included
        session.exec(select(Campaign)).all()
        session.execute(select(Campaign).with_for_update()).all()
    assert version(engine) == 3
    with pytest.raises(RuntimeError), transaction(engine) as session:  # rolled back
        session.execute(text("UPDATE campaign SET name = 'Essos'"))
        raise RuntimeError("changed my mind")
    assert version(engine) == 3
    with transaction(engine) as session:  # the lease alone: an idle bot's minute
        session.add(Lease(name="campaign:1", holder="me",
                          expires_at=datetime(2026, 11, 28, tzinfo=UTC)))
    assert version(engine) == 3
    with transaction(engine) as session:  # the lease and something else
        lease = session.get(Lease, "campaign:1")
        assert lease is not None
        lease.generation += 1
        session.add(lease)
        session.execute(text("UPDATE campaign SET name = 'Essos'"))
    assert version(engine) == 4


def test_another_engine_and_the_readers_see_the_same_count(db_url: str) -> None:
    """Two processes' engines count into one row; the pages' reader reads it."""
    one, two = make_engine(db_url), make_engine(db_url)
    try:
        upgrade(one)
        add_campaign(one)
        add_campaign(two, "Essos")
        reader = make_reader_engine(db_url)
        try:
            with Session(reader) as session:
                assert data_version(session) == 3  # the migration wrote too
        finally:
            reader.dispose()
    finally:
        one.dispose()
        two.dispose()


def test_a_database_without_the_row_writes_as_before(db_url: str) -> None:
    """Before the migration that makes it (an upgrade under way, a downgrade) a write commits
    as ever, and a reader finds no version: it must keep nothing."""
    engine = make_engine(db_url)
    try:
        upgrade(engine, "0011")
        add_campaign(engine)
        with Session(engine) as session:
            assert session.exec(select(Campaign.name)).all() == ["Westeros"]
        upgrade(engine)
        assert version(engine) == 1  # counted from the migration on
        add_campaign(engine, "Essos")
        assert version(engine) == 2
        downgrade(engine, "0011")
        add_campaign(engine, "Sothoryos")
    finally:
        engine.dispose()


@pytest.mark.postgres
def test_a_read_only_transaction_never_counts(pg_url: str) -> None:
    """The pages' PostgreSQL reader runs READ ONLY transactions on an engine that counts: a
    statement it runs that looks like a write (it cannot be one) commits without counting,
    where an UPDATE would fail the commit."""
    engine = make_engine(pg_url)
    try:
        upgrade(engine)
        before = version(engine)
        reader = make_reader_engine(pg_url)
        try:
            with Session(reader) as session, session.begin():
                session.execute(text("DO $$BEGIN PERFORM 1; END$$"))
        finally:
            reader.dispose()
        assert version(engine) == before
    finally:
        engine.dispose()


def test_create_all_makes_the_row_as_the_migration_does(tmp_path: Path) -> None:
    engine = make_engine(sqlite_url(tmp_path / "t.db"))
    try:
        create_all(engine)
        assert version(engine) == 1  # its own row's insert counted
        add_campaign(engine)
        assert version(engine) == 2
    finally:
        engine.dispose()


@pytest.mark.parametrize("statement", [
    "INSERT INTO army (x) VALUES (1)", "update claim set gold = 1", " DELETE FROM event",
    "WITH x AS (SELECT 1) INSERT INTO army SELECT * FROM x", "CREATE TABLE t (a int)",
    "DROP TABLE t", "ALTER TABLE t ADD b int",
    "UPDATE lease_history SET a = 1", 'UPDATE "leases" SET a = 1',
])
def test_what_counts_as_a_write(statement: str) -> None:
    assert writes(statement)


@pytest.mark.parametrize("statement", [
    "SELECT * FROM army", "  select 1", "PRAGMA foreign_key_check", "BEGIN IMMEDIATE",
    "SAVEPOINT sa_1", "RELEASE SAVEPOINT sa_1", "ROLLBACK TO SAVEPOINT sa_1",
    "UPDATE lease SET expires_at = 'x' WHERE lease.name = 'c'",
    'INSERT INTO "lease" (name) VALUES (1)', "DELETE FROM lease WHERE name = 'c'",
    "SHOW search_path", "SET lock_timeout = '1s'", "(SELECT 1) UNION (SELECT 2)",
    "WITH x AS (SELECT 1) SELECT * FROM x",
])
def test_what_does_not(statement: str) -> None:
    assert not writes(statement)
