"""One clear line for the failures a moderator can fix: what failed, where, what to do.

The CLI shows this line instead of a traceback (``--debug`` shows the traceback too); an
exception this module does not know is a bug and keeps its traceback.
"""

from __future__ import annotations

import errno
import os
import sys
import traceback

from sqlalchemy.exc import ArgumentError, DBAPIError, NoSuchModuleError

from bot.db.engine import MissingDatabase
from bot.errors import DamagedValue


def _url() -> str:
    return os.environ.get("MAESTER_DATABASE_URL", "") or "campaign.database_url"


def _sqlite_code(exc: DBAPIError) -> str:
    name = getattr(exc.orig, "sqlite_errorname", "")
    return f", {name}" if isinstance(name, str) and name else ""


def explain_failure(exc: BaseException) -> str | None:
    """The one line for ``exc``, or None when it is not a known operational failure."""
    if isinstance(exc, MissingDatabase):
        if exc.vanished:
            return (f"{exc}: nothing more was written. Restore the file from a backup (or "
                    "run `maester init` for a new campaign) before going on.")
        return (f"{exc}. Run `maester init` to create a campaign there, or point "
                "campaign.database_url at the existing database.")
    if isinstance(exc, NoSuchModuleError | ArgumentError):
        return (f"campaign.database_url is not a database URL maester can use ({exc}). Use "
                "sqlite:///path/to/campaign.db or postgresql+psycopg://user@host/dbname.")
    if isinstance(exc, DBAPIError):
        text = str(exc.orig) if exc.orig is not None else str(exc)
        first = text.strip().splitlines()[0] if text.strip() else type(exc).__name__
        lower = text.lower()
        if "file is not a database" in lower or "not a database" in lower:
            return (f"the database file is not an SQLite database ({first}). Check "
                    "campaign.database_url; restore the file from a backup if it was damaged.")
        if "readonly" in lower or "read-only" in lower:
            return (f"the database is read-only ({first}). Give the bot write access to the "
                    "file and its folder.")
        if "disk is full" in lower or "no space" in lower:
            return (f"the disk holding the database is full ({first}). Free some space and "
                    "run the command again; the failed transaction was rolled back.")
        if "disk i/o error" in lower:
            # SQLite reports a full disk as an I/O error when it cannot even grow its
            # shared-memory index (the first write of a connection)
            return (f"the database file could not be read or written ({first}"
                    f"{_sqlite_code(exc)}): the disk holding it is most likely full, or gone. "
                    "Free some space (or check the disk) and run the command again; the "
                    "failed transaction was rolled back.")
        if "unable to open database" in lower:
            return (f"cannot open the database file ({first}). Check the path in "
                    "campaign.database_url and its folder's permissions.")
        if exc.connection_invalidated or "connection" in lower or "connect" in lower \
                or "authentication" in lower or "does not exist" in lower:
            return (f"cannot reach the database ({first}). Check that PostgreSQL is running "
                    "and that campaign.database_url (host, port, user, database) is right.")
        return None
    if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EROFS, errno.EACCES):
        return f"{exc.strerror}: {exc.filename or ''}. Fix the disk or the permissions and retry."
    if isinstance(exc, DamagedValue):
        return str(exc)
    if isinstance(exc, OverflowError):
        return f"a number is far too large ({exc}); give a sensible value."
    return None


def report_failure(exc: Exception, *, debug: bool) -> None:
    """End with one clear line for a known failure (exit 1); re-raise anything else."""
    line = explain_failure(exc)
    if line is None:
        raise exc
    if debug:
        traceback.print_exception(exc)
    print(f"maester: {line}", file=sys.stderr)
    raise SystemExit(1) from None
