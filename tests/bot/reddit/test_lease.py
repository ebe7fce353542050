"""One active bot per campaign: the lease."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import Engine

from bot.clock import ManualClock
from bot.db.engine import create_all, make_engine, transaction
from bot.db.models import Campaign, Lease
from bot.reddit.lease import CampaignLease, LeaseHeld, LeaseLost, holder_is_dead
from tests.fixtures.db import sqlite_url

START = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)


def _campaign(engine: Engine) -> int:
    with transaction(engine) as session:
        campaign = Campaign(name="Lease test", secret="s")
        session.add(campaign)
        session.flush()
        assert campaign.id is not None
        return campaign.id


def test_a_second_instance_refuses_and_says_who_and_until_when(engine: Engine) -> None:
    """While one process holds the lease, another is refused with the holder's name and
    the lease's expiry; after a release it may take it."""
    campaign = _campaign(engine)
    clock = ManualClock(START)
    first = CampaignLease(engine, campaign, seconds=120, clock=clock, holder="host-a:1:aa")
    first.acquire()
    second = CampaignLease(engine, campaign, seconds=120, clock=clock, holder="host-b:2:bb")
    with pytest.raises(LeaseHeld) as refused:
        second.acquire()
    assert refused.value.holder == "host-a:1:aa"
    assert "held by host-a:1:aa" in str(refused.value)
    assert "until 2026-11-22 12:02:00 UTC" in str(refused.value)
    first.release()
    second.acquire()
    assert second.held
    second.release()


def test_the_lease_is_per_campaign(engine: Engine) -> None:
    """Two campaigns in one database each have their own active bot."""
    one, two = _campaign(engine), _campaign(engine)
    with CampaignLease(engine, one, seconds=60, holder="h:1:a"), \
            CampaignLease(engine, two, seconds=60, holder="h:2:b") as other:
        assert other.held


def test_an_expired_lease_is_taken_over(sqlite_engine: Engine) -> None:
    """SQLite: a holder that stopped renewing loses the lease after lease_seconds; its next
    renewal says so, and the runner then stops."""
    campaign = _campaign(sqlite_engine)
    clock = ManualClock(START)
    stale = CampaignLease(sqlite_engine, campaign, seconds=60, clock=clock,
                          holder="elsewhere:1:aa")
    stale.acquire()
    clock.advance(timedelta(seconds=30))
    assert stale.renew() and stale.expires_at == START + timedelta(seconds=90)
    clock.advance(timedelta(seconds=91))
    fresh = CampaignLease(sqlite_engine, campaign, seconds=60, clock=clock,
                          holder="elsewhere:2:bb")
    fresh.acquire()
    assert stale.renew() is False and not stale.held
    with transaction(sqlite_engine) as session:
        row = session.get(Lease, f"campaign:{campaign}")
    assert row is not None and row.holder == "elsewhere:2:bb"


def test_a_lease_left_by_a_killed_process_is_taken_over_at_once(sqlite_engine: Engine) -> None:
    """After kill -9 the restart need not wait for the expiry: a holder that is a dead
    process on this host is replaced immediately."""
    campaign = _campaign(sqlite_engine)
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    dead = f"{socket.gethostname()}:{child.pid}:aa"
    assert holder_is_dead(dead)
    clock = ManualClock(START)
    CampaignLease(sqlite_engine, campaign, seconds=600, clock=clock, holder=dead).acquire()
    restarted = CampaignLease(sqlite_engine, campaign, seconds=600, clock=clock)
    restarted.acquire()
    assert restarted.held
    restarted.release()


@pytest.mark.parametrize(("holder", "dead"), [
    ("other-host:1:aa", False),
    (f"{socket.gethostname()}:1:aa", False),  # pid 1 is alive
    (f"{socket.gethostname()}:notapid:aa", False),
    ("garbage", False),
])
def test_only_provably_dead_holders_are_dead(holder: str, dead: bool) -> None:
    """A holder on another host, or a live process, is never presumed dead."""
    assert holder_is_dead(holder) is dead


@pytest.mark.postgres
def test_postgres_campaigns_in_two_schemas_do_not_share_a_lock(pg_url: str) -> None:
    """Advisory locks are database-wide; campaign 1 of one schema must not block campaign 1
    of another schema in the same database."""
    from bot.db.engine import make_engine
    from bot.db.migrate import upgrade
    from tests.fixtures.db import fresh_schema, pg_base_url

    with fresh_schema(pg_base_url()) as other_url:
        engines = [make_engine(pg_url), make_engine(other_url)]
        for engine in engines:
            upgrade(engine)
        ids = [_campaign(engine) for engine in engines]
        assert ids[0] == ids[1]
        leases = [CampaignLease(e, i, seconds=60, holder=f"h:{n}:x")
                  for n, (e, i) in enumerate(zip(engines, ids, strict=True))]
        for lease in leases:
            lease.acquire()
        for lease in leases:
            lease.release()
        for engine in engines:
            engine.dispose()


@pytest.mark.postgres
def test_postgres_advisory_lock_dies_with_its_connection(pg_url: str) -> None:
    """PostgreSQL: the lock belongs to the holder's connection; when that connection ends
    (the process died), the next instance gets the lease without waiting."""
    from bot.db.engine import make_engine
    from bot.db.migrate import upgrade

    engine = make_engine(pg_url)
    upgrade(engine)
    campaign = _campaign(engine)
    first = CampaignLease(engine, campaign, seconds=600, holder="host-a:1:aa")
    first.acquire()
    with pytest.raises(LeaseHeld, match="host-a:1:aa"):
        CampaignLease(engine, campaign, seconds=600, holder="host-b:2:bb").acquire()
    assert first.renew()
    assert first._connection is not None
    first._connection.invalidate()  # the socket closes as when a process is killed
    second = CampaignLease(engine, campaign, seconds=600, holder="host-b:2:bb")
    deadline = time.monotonic() + 10
    while not second.held:  # the server notices the closed socket within moments
        try:
            second.acquire()
        except LeaseHeld:
            assert time.monotonic() < deadline, "the lock outlived its connection"
            time.sleep(0.05)
    assert first.renew() is False
    second.release()
    engine.dispose()


def test_a_lapsed_holder_cannot_write_after_a_takeover(tmp_path: Path) -> None:
    """SQLite fencing: two processes (two engines on one file). The first stops renewing,
    the second takes the lapsed lease; every later commit of the first is refused with
    LeaseLost and rolled back, while the new holder writes normally."""
    url = sqlite_url(tmp_path / "fence.db")
    first_engine, second_engine = make_engine(url), make_engine(url)
    create_all(first_engine)
    with transaction(first_engine) as session:
        campaign = Campaign(name="Fence test", secret="s")
        session.add(campaign)
        session.flush()
        campaign_id = campaign.id or 0
    clock = ManualClock(datetime(2026, 11, 22, tzinfo=UTC))
    first = CampaignLease(first_engine, campaign_id, seconds=60, clock=clock, holder="h:1:a")
    first.acquire()
    first.fence()
    with transaction(first_engine) as session:  # the holder writes
        session.get(Campaign, campaign_id).name = "by the holder"  # type: ignore[union-attr]
    clock.advance(timedelta(seconds=61))
    second = CampaignLease(second_engine, campaign_id, seconds=60, clock=clock,
                           holder="h:2:b")
    second.acquire()
    second.fence()
    with pytest.raises(LeaseLost), transaction(first_engine) as session:
        session.get(Campaign, campaign_id).name = "by the lapsed holder"  # type: ignore[union-attr]
    with transaction(second_engine) as session:
        assert session.get(Campaign, campaign_id).name == "by the holder"  # type: ignore[union-attr]
        session.get(Campaign, campaign_id).name = "by the new holder"  # type: ignore[union-attr]
    assert first.renew() is False
    first.release()
    second.release()
    with transaction(first_engine) as session:
        assert session.get(Campaign, campaign_id).name == "by the new holder"  # type: ignore[union-attr]
    first_engine.dispose()
    second_engine.dispose()


def test_the_lease_is_renewed_while_a_long_round_runs(sqlite_engine: Engine) -> None:
    """kept_alive renews from a thread: the expiry moves on while the block runs (waits for
    the observable renewal, not for a time)."""
    campaign = _campaign(sqlite_engine)
    lease = CampaignLease(sqlite_engine, campaign, seconds=60, holder="h:3:c")
    lease.acquire()
    first_expiry = lease.expires_at
    assert first_expiry is not None
    renewed = threading.Event()
    with lease.kept_alive(every=0.01):
        for _ in range(5000):
            with transaction(sqlite_engine) as session:
                row = session.get(Lease, f"campaign:{campaign}")
                if row is not None and row.expires_at is not None \
                        and row.expires_at > first_expiry:
                    renewed.set()
                    break
            threading.Event().wait(0.005)
    lease.release()
    assert renewed.is_set()


def test_a_lapsed_holder_stays_out_after_the_new_holder_released(tmp_path: Path) -> None:
    """The generation, not the holder's name, fences: after the new holder released the
    lease, the lapsed one can neither renew it nor write, and the next taker counts on."""
    url = sqlite_url(tmp_path / "generation.db")
    first_engine, second_engine = make_engine(url), make_engine(url)
    create_all(first_engine)
    campaign_id = _campaign(first_engine)
    clock = ManualClock(START)
    first = CampaignLease(first_engine, campaign_id, seconds=60, clock=clock, holder="h:1:a")
    first.acquire()
    first.fence()
    clock.advance(timedelta(seconds=61))
    second = CampaignLease(second_engine, campaign_id, seconds=60, clock=clock, holder="h:2:b")
    second.acquire()
    assert (first.generation, second.generation) == (1, 2)
    second.release()
    with pytest.raises(LeaseLost), transaction(first_engine) as session:
        session.get(Campaign, campaign_id).name = "by the lapsed holder"  # type: ignore[union-attr]
    assert first.renew() is False and not first.held
    third = CampaignLease(second_engine, campaign_id, seconds=60, clock=clock, holder="h:3:c")
    third.acquire()
    assert third.generation == 3
    third.release()
    first.release()
    with transaction(second_engine) as session:
        row = session.get(Lease, f"campaign:{campaign_id}")
        assert session.get(Campaign, campaign_id).name == "Lease test"  # type: ignore[union-attr]
    assert row is not None and (row.holder, row.expires_at, row.generation) == ("", None, 3)
    first_engine.dispose()
    second_engine.dispose()


def test_postgres_a_holder_whose_lock_connection_dropped_cannot_write(pg_url: str) -> None:
    """PostgreSQL fencing: the first holder's lock connection is dropped, a second process
    takes the advisory lock (generation 2); the first one's next commit is refused."""
    first_engine, second_engine = make_engine(pg_url), make_engine(pg_url)
    create_all(first_engine)
    campaign_id = _campaign(first_engine)
    first = CampaignLease(first_engine, campaign_id, seconds=60, holder="h:1:a")
    first.acquire()
    first.fence()
    with transaction(first_engine) as session:  # the holder writes
        session.get(Campaign, campaign_id).name = "by the holder"  # type: ignore[union-attr]
    assert first._connection is not None
    first._connection.invalidate()  # as when the server drops it: the lock goes with it
    second = CampaignLease(second_engine, campaign_id, seconds=60, holder="h:2:b")
    deadline = time.monotonic() + 30
    while not second.held:  # the server frees the lock once it sees the socket closed
        try:
            second.acquire()
        except LeaseHeld:
            assert time.monotonic() < deadline, "the lock outlived its connection"
            time.sleep(0.05)
    second.fence()
    assert (first.generation, second.generation) == (1, 2)
    with pytest.raises(LeaseLost), transaction(first_engine) as session:
        session.get(Campaign, campaign_id).name = "by the lapsed holder"  # type: ignore[union-attr]
    with transaction(second_engine) as session:
        assert session.get(Campaign, campaign_id).name == "by the holder"  # type: ignore[union-attr]
        session.get(Campaign, campaign_id).name = "by the new holder"  # type: ignore[union-attr]
    assert first.renew() is False
    first.release()
    second.release()
    first_engine.dispose()
    second_engine.dispose()
