"""Alembic migrations: ``upgrade head`` on an empty database gives exactly the models' schema."""

from __future__ import annotations

import multiprocessing
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine, inspect, text
from sqlmodel import SQLModel, select

from bot.db import models
from bot.db.engine import make_engine, transaction
from bot.db.migrate import (
    MIGRATIONS,
    MigrationError,
    SchemaOutOfDate,
    alembic_config,
    current_revision,
    downgrade,
    ensure_current,
    head_revision,
    upgrade,
)
from tests.bot.db.conftest import add_campaign
from tests.fixtures.db import sqlite_url


def schema_diff(engine: Engine) -> list[Any]:
    """Alembic's differences between the database and the models (empty: identical).

    Nothing is ignored: tables, columns, types (``compare_type``), nullability, indexes,
    unique constraints and foreign keys all count. Server defaults are compared too; the
    models declare none, so any default the migration added would show up.
    """
    with engine.connect() as connection:
        context = MigrationContext.configure(
            connection, opts={"compare_type": True, "compare_server_default": True}
        )
        return list(compare_metadata(context, SQLModel.metadata))


def test_upgrade_head_on_empty_database_gives_exactly_the_models_schema(db_url: str) -> None:
    """An empty database, upgraded to head, has the schema the models describe: no diff."""
    engine = make_engine(db_url)
    try:
        assert current_revision(engine) is None
        tables = set(inspect(engine).get_table_names())
        assert tables == set()
        upgrade(engine)
        assert current_revision(engine) == head_revision()
        assert schema_diff(engine) == []
        tables = set(inspect(engine).get_table_names())
        assert tables == set(SQLModel.metadata.tables) | {"alembic_version"}
    finally:
        engine.dispose()


def test_schema_comparison_notices_a_missing_index(sqlite_engine: Engine) -> None:
    """The comparison above is not blind: dropping one index makes it report that index."""
    with sqlite_engine.begin() as connection:
        connection.execute(text("DROP INDEX ix_outbox_status"))
    diff = schema_diff(sqlite_engine)
    assert [(d[0], d[1].name) for d in diff] == [("add_index", "ix_outbox_status")]


def test_upgrade_keeps_rows_and_downgrade_undoes_every_revision(engine: Engine) -> None:
    """Upgrading a current database changes nothing and keeps every row; every revision can
    be undone (down to no tables) and redone to the same schema."""
    add_campaign(engine)
    upgrade(engine)
    assert current_revision(engine) == head_revision()
    with transaction(engine) as session:
        assert session.exec(select(models.Campaign.name)).all() == ["Westeros"]
    downgrade(engine, "base")
    assert current_revision(engine) is None
    assert set(inspect(engine).get_table_names()) <= {"alembic_version"}
    upgrade(engine)
    assert schema_diff(engine) == []


def test_ensure_current_refuses_an_unmigrated_database(sqlite_file: Path) -> None:
    """The bot must not start on an old schema: the error says what to run.

    Also: ``upgrade`` and ``current_revision`` take a URL, as ``maester db upgrade`` does.
    """
    url = sqlite_url(sqlite_file)
    with pytest.raises(SchemaOutOfDate, match="maester db upgrade") as caught:
        ensure_current(url)
    assert caught.value.current is None
    assert caught.value.head == head_revision()
    upgrade(url)
    assert current_revision(url) == head_revision()
    ensure_current(url)


def test_the_history_is_one_line_of_numbered_revisions() -> None:
    """No branches (two heads would make ``upgrade head`` ambiguous); ids are 0001, 0002..."""
    script = ScriptDirectory.from_config(alembic_config())
    assert script.get_heads() == [head_revision()]
    revisions = [r.revision for r in script.walk_revisions("base", "heads")]
    assert sorted(revisions) == [f"{n:04d}" for n in range(1, len(revisions) + 1)]


def test_migrations_are_found_from_any_directory(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """The config is built in code from the package's own path: no alembic.ini, no cwd."""
    monkeypatch.chdir(tmp_path)
    assert Path(alembic_config().get_main_option("script_location") or "") == MIGRATIONS
    newest = max(p.name[1:5] for p in (MIGRATIONS / "versions").glob("v[0-9]*.py"))
    assert head_revision() == newest


def test_migration_files_are_packaged() -> None:
    """setuptools finds packages by ``__init__.py`` and takes *.mako as package data."""
    assert (MIGRATIONS / "__init__.py").is_file()
    assert (MIGRATIONS / "versions" / "__init__.py").is_file()
    assert (MIGRATIONS / "env.py").is_file()
    template = (MIGRATIONS / "script.py.mako").read_text()
    assert "import sqlmodel" in template


def test_sqlite_upgrade_refuses_broken_foreign_keys(sqlite_engine: Engine,
                                                    sqlite_file: Path) -> None:
    """Batch migrations run with foreign keys off; the check before commit catches breakage."""
    raw = sqlite3.connect(sqlite_file)  # foreign keys are off by default in a bare connection
    with raw:
        raw.execute("INSERT INTO claim (campaign_id, name, holdfast, gold, infantry, cavalry,"
                    " ships, scattered_infantry, scattered_cavalry, slain_json,"
                    " improvements_json)"
                    " VALUES (42, 'Orphan', '0101', '0', 0, 0, 0, 0, 0, '[]', '[]')")
    raw.close()
    with pytest.raises(MigrationError, match="1 broken foreign key"):
        upgrade(sqlite_engine)
    with sqlite_engine.connect() as connection:
        assert connection.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1


def _upgrade_in_process(url: str) -> str | None:
    upgrade(url)
    return current_revision(url)


def test_two_upgrades_at_once_both_succeed(db_url: str) -> None:
    """Two moderators upgrading at the same moment: one waits for the other, neither fails."""
    with multiprocessing.get_context("fork").Pool(2) as pool:
        results = pool.map(_upgrade_in_process, [db_url, db_url])
    assert results == [head_revision(), head_revision()]
    engine = make_engine(db_url)
    try:
        assert schema_diff(engine) == []
    finally:
        engine.dispose()


def test_the_journal_is_read_by_kind_through_its_index(sqlite_file: Path) -> None:
    """The journal's reads by kind (a holiday's pause and resume, a map's detections and
    battles) use the ``(campaign_id, kind)`` index, not a scan of every event."""
    engine = make_engine(f"sqlite:///{sqlite_file}")
    try:
        upgrade(engine)
        with engine.connect() as connection:
            plan = " ".join(str(row[-1]) for row in connection.exec_driver_sql(
                "EXPLAIN QUERY PLAN SELECT id FROM event WHERE campaign_id = 1 AND kind = 'resume'"
                " ORDER BY id DESC"))
        assert "ix_event_campaign_kind" in plan, plan
    finally:
        engine.dispose()
