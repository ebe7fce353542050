"""The engine's settings: SQLite pragmas, BEGIN IMMEDIATE writers, PostgreSQL schemas by URL."""

from __future__ import annotations

import multiprocessing
import sqlite3
from pathlib import Path

import pytest
from sqlalchemy import Engine, text
from sqlalchemy.exc import IntegrityError
from sqlmodel import col, select

from bot.db.engine import BUSY_TIMEOUT_MS, make_engine, transaction
from bot.db.models import Campaign, Claim, TickRun
from tests.bot.db.conftest import add_campaign
from tests.fixtures.db import sqlite_url

WRITERS = 4
WRITES_EACH = 50


@pytest.mark.parametrize(
    ("pragma", "expected"),
    [
        ("journal_mode", "wal"),
        ("synchronous", 2),  # FULL: a commit survives a power cut, not only a crash
        ("foreign_keys", 1),
        ("busy_timeout", BUSY_TIMEOUT_MS),
    ],
)
def test_sqlite_pragmas_in_force(sqlite_file: Path, pragma: str, expected: object) -> None:
    """Every SQLite connection runs with WAL, synchronous=FULL, foreign keys and a timeout."""
    engine = make_engine(sqlite_url(sqlite_file))
    with engine.connect() as connection:
        assert connection.exec_driver_sql(f"PRAGMA {pragma}").scalar() == expected


def test_sqlite_transaction_takes_the_write_lock_at_begin(sqlite_file: Path) -> None:
    """A transaction starts with BEGIN IMMEDIATE: even one that has only read holds the lock.

    That is what lets a read-then-write transaction wait for another writer instead of
    failing: with a deferred BEGIN it would only ask for the lock at its first write, when
    SQLite can no longer wait (its snapshot may be stale) and reports "database is locked".
    """
    engine = make_engine(sqlite_url(sqlite_file))
    other = sqlite3.connect(sqlite_file, timeout=0, isolation_level=None)
    try:
        with transaction(engine) as session:
            session.connection().exec_driver_sql("SELECT count(*) FROM sqlite_master").one()
            with pytest.raises(sqlite3.OperationalError, match="database is locked"):
                other.execute("BEGIN IMMEDIATE")
        other.execute("BEGIN IMMEDIATE")  # free again once the transaction ended
        other.execute("ROLLBACK")
    finally:
        other.close()


def _bump_ticks(url: str, campaign_id: int, count: int) -> list[int]:
    """In another process: ``count`` short read-modify-write transactions on the clock row."""
    engine = make_engine(url)
    applied: list[int] = []
    try:
        for _ in range(count):
            with transaction(engine) as session:
                query = select(Campaign).where(Campaign.id == campaign_id).with_for_update()
                campaign = session.exec(query).one()
                campaign.last_tick += 1
                session.add(campaign)
                session.add(TickRun(campaign_id=campaign_id, tick=campaign.last_tick))
            applied.append(campaign.last_tick)
    finally:
        engine.dispose()
    return applied


def test_concurrent_writer_processes_never_see_database_is_locked(sqlite_engine: Engine,
                                                                  sqlite_file: Path) -> None:
    """4 processes x 50 transactions that read the clock row, then write it and a tick key.

    With BEGIN IMMEDIATE each transaction waits its turn; with a deferred BEGIN the first
    reader to try to write while another holds the lock fails at once with "database is
    locked" (a busy timeout cannot help a reader that must upgrade its lock). Nothing is lost
    or doubled either: the counter ends at 200 and ticks 1..200 were each applied once.
    """
    campaign_id = add_campaign(sqlite_engine)
    url = sqlite_url(sqlite_file)
    with multiprocessing.get_context("fork").Pool(WRITERS) as pool:
        results = pool.starmap(_bump_ticks, [(url, campaign_id, WRITES_EACH)] * WRITERS)
    total = WRITERS * WRITES_EACH
    applied = sorted(tick for result in results for tick in result)
    assert applied == list(range(1, total + 1))
    with transaction(sqlite_engine) as session:
        campaign = session.exec(select(Campaign)).one()
        ticks = session.exec(select(col(TickRun.tick)).order_by(col(TickRun.tick))).all()
    assert campaign.last_tick == total
    assert list(ticks) == list(range(1, total + 1))


def test_foreign_keys_are_enforced(shared_engine: Engine) -> None:
    """A claim of a campaign that does not exist is refused on both backends."""
    with pytest.raises(IntegrityError), transaction(shared_engine) as session:
        session.add(Claim(campaign_id=40_404, name="Nowhere", holdfast="0101"))
    with transaction(shared_engine) as session:
        assert session.exec(select(Claim).where(Claim.campaign_id == 40_404)).all() == []


# --- PostgreSQL schemas named by URL -----------------------------------------------------


@pytest.mark.postgres
def test_schema_from_the_url_becomes_the_search_path(pg_url: str) -> None:
    """``?schema=NAME`` is ours: it is taken off the URL and every connection uses NAME."""
    schema = pg_url.rsplit("schema=", 1)[1]
    engine = make_engine(pg_url)
    try:
        with engine.connect() as connection:
            assert connection.execute(text("SELECT current_schema()")).scalar() == schema
        assert "schema" not in engine.url.query
    finally:
        engine.dispose()


@pytest.mark.postgres
def test_engines_on_one_schema_url_share_rows_and_nothing_leaks_out(pg_url: str) -> None:
    """Two engines (as two processes would) on the same URL see the same tables and rows."""
    base, schema = pg_url.rsplit("?schema=", 1)
    first = make_engine(pg_url)
    second = make_engine(base, schema=schema)  # the argument form is the same thing
    try:
        with first.begin() as connection:
            connection.execute(text("CREATE TABLE probe (n integer)"))
            connection.execute(text("INSERT INTO probe VALUES (7)"))
        with second.connect() as connection:
            assert connection.execute(text("SELECT n FROM probe")).scalar() == 7
            where = connection.execute(
                text("SELECT table_schema FROM information_schema.tables"
                     " WHERE table_name = 'probe'")
            ).scalars().all()
        assert where == [schema]
    finally:
        first.dispose()
        second.dispose()


@pytest.mark.postgres
def test_schema_keeps_the_urls_own_options(pg_url: str) -> None:
    """An ``options`` parameter already in the URL still applies next to the search path."""
    schema = pg_url.rsplit("schema=", 1)[1]
    engine = make_engine(pg_url + "&options=-cstatement_timeout%3D4321")
    try:
        with engine.connect() as connection:
            assert connection.execute(text("SHOW statement_timeout")).scalar() == "4321ms"
            assert connection.execute(text("SELECT current_schema()")).scalar() == schema
    finally:
        engine.dispose()


@pytest.mark.parametrize(
    ("url", "schema", "problem"),
    [
        ("sqlite:///x.db?schema=games", None, "PostgreSQL URLs only"),
        ("sqlite:///x.db", "games", "PostgreSQL URLs only"),
        ("postgresql+psycopg://u@h/db?schema=Games", None, "lower-case identifier"),
        ("postgresql+psycopg://u@h/db", "x; DROP SCHEMA public", "lower-case identifier"),
        ("postgresql+psycopg://u@h/db", "1games", "lower-case identifier"),
        ("postgresql+psycopg://u@h/db", "a" * 64, "lower-case identifier"),
    ],
)
def test_bad_schema_settings_are_refused(url: str, schema: str | None, problem: str) -> None:
    """A schema on SQLite, or a name that is not a plain identifier, fails before connecting."""
    with pytest.raises(ValueError, match=problem):
        make_engine(url, schema=schema)
