"""Schema migrations: bring a database to the models' schema, and say where it stands.

The Alembic scripts live inside the package (``bot/db/migrations``) and are found through a
programmatic Alembic config, so an installed maester needs no ``alembic.ini`` and works from
any directory. ``maester db upgrade`` calls :func:`upgrade`; the bot checks
:func:`ensure_current` at start-up.

An upgrade runs in one transaction on both backends (SQLite and PostgreSQL both have
transactional DDL), so a failed or interrupted upgrade leaves the previous schema intact:

- SQLite: the transaction starts with ``BEGIN IMMEDIATE`` (see :mod:`bot.db.engine`), so it
  waits for a running bot's write to finish instead of failing. Foreign keys are switched off
  for the connection while Alembic's batch mode copies tables (dropping a referenced table with
  them on would fail or cascade), and ``PRAGMA foreign_key_check`` must find nothing before
  the commit.
- PostgreSQL: a transaction-level advisory lock, so two upgrades started at once run one
  after the other; the second finds the schema current and does nothing.

For developers: ``python -m bot.db.migrate revision -m "what changed"`` writes the next
numbered revision by comparing the models with an empty database upgraded to head.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, Engine, text

from bot.db.engine import is_sqlite, make_engine

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
# pg_advisory_xact_lock key for upgrades: the bytes "maesterM" as a (positive) bigint.
_UPGRADE_LOCK_KEY = int.from_bytes(b"maesterM", "big")


class MigrationError(RuntimeError):
    """A migration could not be applied, or the database is not at the expected revision."""


class SchemaOutOfDate(MigrationError):
    """The database's schema revision is not the code's head: run ``maester db upgrade``."""

    def __init__(self, current: str | None, head: str) -> None:
        self.current = current
        self.head = head
        where = "has no schema yet" if current is None else f"is at schema revision {current}"
        super().__init__(
            f"the database {where}; this version of maester needs revision {head}: "
            "run `maester db upgrade` (back the database up first)"
        )


def alembic_config() -> Config:
    """An Alembic config pointing at the packaged migrations (no ini file involved)."""
    config = Config()
    # Config options go through configparser interpolation: a literal % must be doubled.
    config.set_main_option("script_location", str(MIGRATIONS).replace("%", "%%"))
    config.set_main_option("file_template", "v%%(rev)s_%%(slug)s")
    return config


def head_revision() -> str:
    """The newest revision the code knows. Raises MigrationError if the history has branches."""
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    if head is None:
        raise MigrationError("no migrations found in " + str(MIGRATIONS))
    return head


@contextmanager
def _engine_for(engine_or_url: Engine | str) -> Iterator[Engine]:
    if isinstance(engine_or_url, Engine):
        yield engine_or_url
        return
    engine = make_engine(engine_or_url)
    try:
        yield engine
    finally:
        engine.dispose()


def _sqlite_pragma(connection: Connection, pragma: str) -> None:
    # Through the driver, not SQLAlchemy: SQLAlchemy would first begin a transaction, and
    # SQLite ignores ``PRAGMA foreign_keys`` inside one.
    connection.connection.driver_connection.execute(f"PRAGMA {pragma}")  # type: ignore[union-attr]


def _check_foreign_keys(connection: Connection) -> None:
    broken = connection.exec_driver_sql("PRAGMA foreign_key_check").fetchall()
    if broken:
        sample = ", ".join(f"{row[0]} row {row[1]} -> {row[2]}" for row in broken[:5])
        raise MigrationError(f"{len(broken)} broken foreign key(s) after migrating: {sample}")


def _run(engine: Engine, action: Callable[[Config], Any]) -> None:
    config = alembic_config()
    sqlite = is_sqlite(engine)
    with engine.connect() as connection:
        if sqlite:
            _sqlite_pragma(connection, "foreign_keys=OFF")
        try:
            with connection.begin():
                if engine.dialect.name == "postgresql":
                    connection.execute(text("SELECT pg_advisory_xact_lock(:key)"),
                                       {"key": _UPGRADE_LOCK_KEY})
                config.attributes["connection"] = connection
                action(config)
                if sqlite:
                    _check_foreign_keys(connection)
        finally:
            if sqlite:
                _sqlite_pragma(connection, "foreign_keys=ON")


def upgrade(engine_or_url: Engine | str, revision: str = "head") -> None:
    """Migrate the database up to ``revision`` (default: the newest), in one transaction.

    An empty database gets the whole schema; a current one is left alone. Raises
    MigrationError if SQLite foreign keys are broken afterwards (nothing is committed then)
    and lets database errors propagate (also after rolling everything back).
    """
    with _engine_for(engine_or_url) as engine:
        _run(engine, lambda config: command.upgrade(config, revision))


def downgrade(engine_or_url: Engine | str, revision: str) -> None:
    """Migrate the database down to ``revision`` (``"base"``: no tables), in one transaction.

    Downgrades drop tables and columns with their data: for development and tests.
    """
    with _engine_for(engine_or_url) as engine:
        _run(engine, lambda config: command.downgrade(config, revision))


def current_revision(engine_or_url: Engine | str) -> str | None:
    """The database's schema revision, or None for a database never migrated."""
    with _engine_for(engine_or_url) as engine, engine.connect() as connection:
        return MigrationContext.configure(connection).get_current_revision()


def ensure_current(engine_or_url: Engine | str) -> None:
    """Raise SchemaOutOfDate unless the database is at the code's head revision."""
    head = head_revision()
    current = current_revision(engine_or_url)
    if current != head:
        raise SchemaOutOfDate(current, head)


def new_revision(message: str, *, rev_id: str | None = None) -> Path:
    """Write the next revision script: the models compared with an empty database at head.

    The id defaults to the next four-digit number. Review the script by hand before
    committing it. Raises MigrationError if Alembic wrote nothing.
    """
    script = ScriptDirectory.from_config(alembic_config())
    if rev_id is None:
        numbers = [int(r.revision) for r in script.walk_revisions() if r.revision.isdigit()]
        rev_id = f"{max(numbers, default=0) + 1:04d}"
    with tempfile.TemporaryDirectory(prefix="maester-revision-") as tmp:
        engine = make_engine(f"sqlite:///{Path(tmp) / 'empty.db'}")
        try:
            upgrade(engine)
            with engine.connect() as connection:
                config = alembic_config()
                config.attributes["connection"] = connection
                written = command.revision(config, message=message, autogenerate=True,
                                           rev_id=rev_id)
        finally:
            engine.dispose()
    if written is None or isinstance(written, list):
        raise MigrationError("alembic wrote no single revision script")
    return Path(written.path)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m bot.db.migrate upgrade URL | current URL | head | revision -m MESSAGE``."""
    parser = argparse.ArgumentParser(prog="python -m bot.db.migrate", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="action", required=True)
    for name in ("upgrade", "current"):
        sub.add_parser(name).add_argument("url", help="database URL, e.g. sqlite:///maester.db")
    sub.add_parser("head")
    rev = sub.add_parser("revision", help="autogenerate the next revision script")
    rev.add_argument("-m", "--message", required=True)
    rev.add_argument("--rev-id", default=None)
    args = parser.parse_args(argv)
    if args.action == "upgrade":
        upgrade(args.url)
        print(current_revision(args.url))
    elif args.action == "current":
        print(current_revision(args.url) or "(none)")
    elif args.action == "head":
        print(head_revision())
    else:
        print(new_revision(args.message, rev_id=args.rev_id))
    return 0


if __name__ == "__main__":
    sys.exit(main())
