"""One active bot per campaign.

PostgreSQL: ``pg_try_advisory_lock`` on a connection kept open for the process's life; the
server drops the lock when that connection ends, however the process died. A ``Lease`` row
is written beside it only so that a refused second instance can say who runs and since when.

SQLite: the ``Lease`` row itself is the lock. It names its holder (``host:pid:token``) and
expires ``[bot] lease_seconds`` after the last renewal; the runner renews it from a job well
within that time. A row whose holder is a dead process on this same host is taken over at
once (after ``kill -9`` the restart need not wait for the expiry).

Fencing, both backends: every acquisition adds one to the row's ``generation`` and the
holder remembers the number it took. Once :meth:`CampaignLease.fence` is called, every commit
on the holder's engine first reads the row in the same transaction (SQLite: under the
``BEGIN IMMEDIATE`` write lock; PostgreSQL: ``FOR SHARE``, so a takeover waits for the commit
or the commit sees the takeover) and is refused with :class:`LeaseLost` unless the row still
names this holder and generation. A process whose lease lapsed while it was stuck (a slow
Reddit, a frozen host, a dropped PostgreSQL connection) therefore cannot mark anything
delivered, claim an entry or apply a tick after another process took over. Released, the
row stays (holder empty, no expiry) so that the generation keeps growing.

A second ``maester run`` (or ``poll``/``publish``) on the same database gets
:class:`LeaseHeld`, whose message says who holds the lease and until when.
"""

from __future__ import annotations

import hashlib
import logging
import os
import secrets
import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta

from sqlalchemy import Connection, Engine, event, select, text
from sqlmodel import Session, col

from bot.clock import Clock, SystemClock
from bot.db.engine import is_sqlite, transaction
from bot.db.models import Lease

log = logging.getLogger(__name__)


class LeaseLost(RuntimeError):
    """This process no longer holds the lease it was working under: its write is refused."""

    def __init__(self, name: str, holder: str, current: str | None) -> None:
        self.name, self.holder, self.current = name, holder, current
        super().__init__(f"lease {name} is no longer held by {holder} (now: "
                         f"{current or 'nobody'}); the write was refused and rolled back")


# Set while a lease writes its own row, so that the fence does not stop the renewal itself.
_OWN_WRITE = threading.local()


class LeaseHeld(Exception):
    """Another process is the campaign's active bot."""

    def __init__(self, name: str, holder: str, until: datetime | None) -> None:
        self.name = name
        self.holder = holder
        self.until = until
        when = f" until {until:%Y-%m-%d %H:%M:%S} UTC unless renewed" if until else ""
        super().__init__(
            f"another maester process is running this campaign ({name}): held by {holder}"
            f"{when}. Stop it first; only one bot may run a campaign at a time."
        )


@contextmanager
def _own_write() -> Iterator[None]:
    _OWN_WRITE.active = True
    try:
        yield
    finally:
        _OWN_WRITE.active = False


def lease_name(campaign_id: int) -> str:
    return f"campaign:{campaign_id}"


def new_holder() -> str:
    """``host:pid:token`` for this process."""
    return f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(3)}"


def holder_is_dead(holder: str) -> bool:
    """Whether ``holder`` names a process on this host that no longer exists."""
    parts = holder.split(":")
    if len(parts) < 3 or parts[0] != socket.gethostname():
        return False
    try:
        pid = int(parts[1])
    except ValueError:
        return False
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return _is_zombie(pid)


def _is_zombie(pid: int) -> bool:
    # A killed child not yet reaped by its parent still answers kill(pid, 0).
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] == "Z"
    except (OSError, IndexError):
        return False


def _advisory_key(name: str) -> int:
    digest = hashlib.sha256(f"maester:{name}".encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


class CampaignLease:
    """The lease of one campaign for this process. Use :meth:`acquire`, :meth:`renew`
    (from a periodic job) and :meth:`release` (or the context manager)."""

    def __init__(self, engine: Engine, campaign_id: int, *, seconds: int,
                 clock: Clock | None = None, holder: str | None = None) -> None:
        self.engine = engine
        self.name = lease_name(campaign_id)
        self.seconds = seconds
        self.clock = clock or SystemClock()
        self.holder = holder or new_holder()
        self.held = False
        self.expires_at: datetime | None = None
        self._connection: Connection | None = None
        self._key = 0
        self.generation: int | None = None  # of the row, as this holder took it
        self._fence: Callable[[Session], None] | None = None

    def __enter__(self) -> CampaignLease:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()

    @property
    def renew_every(self) -> float:
        """Seconds between renewals: a third of the lease, so two may fail in a row."""
        return max(5.0, self.seconds / 3)

    def acquire(self) -> None:
        """Become the campaign's active bot, or raise :class:`LeaseHeld`."""
        if self.held:
            return
        if is_sqlite(self.engine):
            self._acquire_row(takeover=True)
        else:
            self._acquire_advisory()
        self.held = True
        log.info("lease %s held by %s until %s", self.name, self.holder, self.expires_at)

    def _acquire_row(self, *, takeover: bool) -> None:
        now = self.clock.now()
        with _own_write(), transaction(self.engine) as session:
            row = session.get(Lease, self.name)
            if row is not None and row.holder != self.holder:
                live = row.expires_at is not None and row.expires_at > now
                if live and not (takeover and holder_is_dead(row.holder)):
                    raise LeaseHeld(self.name, row.holder, row.expires_at)
                if live:
                    log.warning("taking over lease %s from dead process %s", self.name,
                                row.holder)
            self._take(session, row, now)

    def _take(self, session: Session, row: Lease | None, now: datetime) -> None:
        """Write this holder and the next generation into the lease row."""
        if row is None:
            row = Lease(name=self.name, holder=self.holder)
        row.holder = self.holder
        row.generation = (row.generation or 0) + 1
        row.expires_at = now + timedelta(seconds=self.seconds)
        session.add(row)
        self.generation = row.generation
        self.expires_at = row.expires_at

    def _acquire_advisory(self) -> None:
        connection = self.engine.connect().execution_options(isolation_level="AUTOCOMMIT")
        try:
            # Advisory locks are per database, campaign ids per schema: key on both.
            schema = connection.execute(text("SELECT current_schema()")).scalar()
            self._key = _advisory_key(f"{schema}:{self.name}")
            got = connection.execute(text("SELECT pg_try_advisory_lock(:key)"),
                                     {"key": self._key}).scalar()
        except Exception:
            connection.close()
            raise
        if not got:
            connection.close()
            with transaction(self.engine) as session:
                row = session.get(Lease, self.name)
            raise LeaseHeld(self.name, row.holder if row else "an unknown process",
                            row.expires_at if row else None)
        self._connection = connection
        # The advisory lock decides; the row names the holder for a refused second instance
        # and carries the generation that fences this holder's writes.
        with _own_write(), transaction(self.engine) as session:
            row = session.get(Lease, self.name, with_for_update=True)
            self._take(session, row, self.clock.now())

    def fence(self) -> None:
        """From now on, every commit on this process's engine first checks, in the same
        transaction, that this process still holds the lease: the row names this holder and
        the generation it took (read under SQLite's write lock, or ``FOR SHARE`` on
        PostgreSQL). A lapsed holder's write raises :class:`LeaseLost` and is rolled back,
        so a second instance that took over never sees two writers."""
        if self._fence is not None:
            return
        query = select(col(Lease.holder), col(Lease.generation)).where(
            col(Lease.name) == self.name)
        if not is_sqlite(self.engine):
            query = query.with_for_update(read=True)

        def check(session: Session) -> None:
            if session.get_bind() is not self.engine or getattr(_OWN_WRITE, "active", False):
                return
            row = session.execute(query).first()
            if not self.held or row is None or tuple(row) != (self.holder, self.generation):
                raise LeaseLost(self.name, self.holder, row[0] if row is not None else None)

        event.listen(Session, "before_commit", check)
        self._fence = check

    def _unfence(self) -> None:
        if self._fence is not None:
            event.remove(Session, "before_commit", self._fence)
            self._fence = None

    @contextmanager
    def kept_alive(self, every: float | None = None) -> Iterator[None]:
        """Renew the lease from a background thread while the block runs (a long
        ``poll --once`` or ``publish --once`` round against a slow Reddit)."""
        stop = threading.Event()

        def loop() -> None:
            while not stop.wait(every if every is not None else self.renew_every):
                try:
                    if not self.renew():
                        log.error("lease %s lost while working; writes are refused", self.name)
                        return
                except Exception:
                    log.exception("lease renewal failed; trying again")

        thread = threading.Thread(target=loop, name="lease-renewal", daemon=True)
        thread.start()
        try:
            yield
        finally:
            stop.set()
            thread.join()

    def renew(self) -> bool:
        """Extend the lease; False if it was lost (then the caller must stop working)."""
        if not self.held:
            return False
        if self._connection is not None and not self._still_locked():
            log.error("lease %s: the connection holding the lock is gone", self.name)
            self.held = False
            return False
        return self._refresh_row()

    def _still_locked(self) -> bool:
        """Whether this connection still holds the advisory lock (a dropped connection may
        have been replaced by a fresh one that holds nothing)."""
        assert self._connection is not None
        key = self._key
        try:
            held = self._connection.execute(text(
                "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted"
                " AND pid = pg_backend_pid() AND classid::bigint = :high"
                " AND objid::bigint = :low AND objsubid = 1"),
                {"high": (key >> 32) & 0xFFFFFFFF, "low": key & 0xFFFFFFFF}).scalar()
        except Exception:
            return False
        return bool(held)

    def _refresh_row(self) -> bool:
        """Move the expiry on, if the row still carries this holder's generation."""
        now = self.clock.now()
        with _own_write(), transaction(self.engine) as session:
            row = session.get(Lease, self.name, with_for_update=not is_sqlite(self.engine))
            if row is None or row.holder != self.holder or row.generation != self.generation:
                log.error("lease %s was taken over by %s", self.name,
                          row.holder if row is not None and row.holder else "nobody")
                self.held = False
                return False
            row.expires_at = now + timedelta(seconds=self.seconds)
            self.expires_at = row.expires_at
        return True

    def release(self) -> None:
        """Give the lease up (idempotent). A lock whose connection the server already
        dropped is gone with it: that is said in the log, not raised."""
        self._unfence()
        held, self.held = self.held, False
        try:
            if held:
                with _own_write(), transaction(self.engine) as session:
                    row = session.get(Lease, self.name)
                    if row is not None and row.holder == self.holder \
                            and row.generation == self.generation:
                        # The row stays, so that the next holder's generation is higher.
                        row.holder, row.expires_at = "", None
        finally:
            if self._connection is not None:
                connection, self._connection = self._connection, None
                try:
                    connection.execute(text("SELECT pg_advisory_unlock(:key)"),
                                       {"key": self._key})
                    connection.close()
                except Exception as exc:
                    log.warning("lease %s: the connection holding the lock is gone (%s)",
                                self.name, str(exc).splitlines()[0] if str(exc) else exc)
                    connection.invalidate()
        if not held:
            return
        log.info("lease %s released by %s", self.name, self.holder)
