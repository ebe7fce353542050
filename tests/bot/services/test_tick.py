"""The game clock: every due tick exactly once, in order, whatever happens to the process."""

from __future__ import annotations

import contextlib
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from contextlib import closing
from datetime import timedelta
from itertools import pairwise
from pathlib import Path

import pytest
from sqlmodel import col, select

from bot.db.engine import transaction
from bot.db.models import Campaign, Event, MonthlyRun, Outbox, TickRun
from bot.services.queries import export_world
from bot.services.tick import catch_up
from tests.bot.services import scenario

ROOT = Path(__file__).resolve().parents[3]


def _url(tmp_path: Path, name: str = "world.db") -> str:
    return f"sqlite:///{tmp_path / name}"


def _export(url: str) -> dict[str, object]:
    engine, ctx = scenario.context(url)
    with transaction(engine) as session:
        data = export_world(session, ctx)
    engine.dispose()
    return data


def test_catch_up_applies_each_due_tick_in_order_once(db_url: str) -> None:
    """catch_up(now) applies every tick after the last applied one, in order; called again,
    or with an earlier time, it does nothing (SQLite and PostgreSQL)."""
    url = db_url
    scenario.build(url)
    engine, ctx = scenario.context(url)
    first = catch_up(engine, ctx, scenario.START + timedelta(days=1))
    assert [r.tick for r in first] == list(range(first[0].tick, first[0].tick + 4))
    assert catch_up(engine, ctx, scenario.START + timedelta(days=1)) == []
    assert catch_up(engine, ctx, scenario.START) == []
    with transaction(engine) as session:
        ticks = session.exec(select(TickRun.tick).order_by(col(TickRun.tick))).all()
    assert list(ticks) == [r.tick for r in first]


def test_three_days_of_downtime_apply_12_ticks_and_every_month_in_order(db_url: str) -> None:
    """After 3 days down, the 12 missed ticks and the 3 in-game month boundaries between them
    (one month per real day by default) are applied in order (SQLite and PostgreSQL)."""
    url = db_url
    scenario.build(url)
    engine, ctx = scenario.context(url)
    with transaction(engine) as session:
        start_tick = session.exec(select(Campaign)).one().last_tick
    reports = catch_up(engine, ctx, ctx.tick_at(start_tick + 12))
    assert [r.tick for r in reports] == [start_tick + i for i in range(1, 13)]
    months = [m for r in reports for m in r.months]
    assert len(months) == 3 and months == sorted(months)
    assert all(r.at.hour == 0 for r in reports if r.months)
    with transaction(engine) as session:
        runs = session.exec(select(MonthlyRun).order_by(col(MonthlyRun.month))).all()
    assert [r.month for r in runs] == months


def test_the_scenario_marches_arrive_and_fight(tmp_path: Path) -> None:
    """The scripted campaign produces arrivals, a detection and upkeep within ten days."""
    url = _url(tmp_path)
    scenario.build(url)
    engine, ctx = scenario.context(url)
    catch_up(engine, ctx, scenario.START + timedelta(days=10))
    with transaction(engine) as session:
        kinds = {e.kind for e in session.exec(select(Event)).all()}
        posts = session.exec(select(Outbox).where(Outbox.public == True)).all()  # noqa: E712
    assert {"muster", "march", "muster_done", "arrival", "detection"} <= kinds
    assert any(p.title.startswith("[Arrival]") for p in posts)


def _last_tick(url: str) -> int:
    engine, _ = scenario.context(url)
    with transaction(engine) as session:
        last = session.exec(select(Campaign)).one().last_tick
    engine.dispose()
    return last


def _applied(url: str) -> int:
    """The last applied tick, read straight from the SQLite file (a cheap, read-only look
    while a worker applies ticks)."""
    path = url.removeprefix("sqlite:///")
    with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=60)) as db:
        row = db.execute("SELECT last_tick FROM campaign").fetchone()
    return int(row[0])


def _reference(tmp_path: Path, until: str) -> dict[str, object]:
    url = _url(tmp_path, "reference.db")
    scenario.build(url)
    engine, ctx = scenario.context(url)
    catch_up(engine, ctx, scenario.START + timedelta(days=int(until)))
    engine.dispose()
    return _export(url)


def _worker(url: str, days: int) -> subprocess.Popen[bytes]:
    until = (scenario.START + timedelta(days=days)).isoformat()
    return subprocess.Popen([sys.executable, "-m", "tests.bot.services.scenario", url, until],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_kill_9_twenty_times_then_resume_equals_an_uninterrupted_run(tmp_path: Path) -> None:
    """A process applying ticks is killed with SIGKILL 20 times at random moments; resumed,
    the world equals that of an uninterrupted run with the same seed and orders."""
    # ~480 ticks (120 in-game months): each worker is killed within 20 ms of committing its
    # first tick, so the 20 kills take a few dozen ticks at most; the rest is left to the
    # resumed run (and the test checks that the worker did not finish first)
    days = 120
    expected = _reference(tmp_path, str(days))
    url = _url(tmp_path)
    scenario.build(url)
    rng = random.Random(1234)
    kills = 0
    progress: list[int] = []
    while kills < 20:
        before = _applied(url)
        proc = _worker(url, days)
        assert proc.stdout is not None
        proc.stdout.readline()  # "ready": imports done, ticks start now
        # Kill only once this worker has committed a tick (an observable state, not a guess
        # at how fast a loaded machine applies ticks), then at a random moment after it.
        deadline = time.monotonic() + 60
        while _applied(url) == before and proc.poll() is None \
                and time.monotonic() < deadline:
            time.sleep(0.002)
        time.sleep(rng.uniform(0.0, 0.02))
        if proc.poll() is not None:
            break  # it finished before we could kill it
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        kills += 1
        progress.append(_last_tick(url))
    final = _worker(url, days)
    assert final.wait(timeout=600) == 0, final.stderr.read() if final.stderr else ""
    assert kills == 20, "the worker finished too fast for the kill test to mean anything"
    advanced = sum(1 for a, b in pairwise(progress) if b > a)
    assert advanced >= 10, f"too few kills landed while ticks were applied: {progress}"
    assert _export(url) == expected


@pytest.mark.slow
def test_two_processes_applying_ticks_apply_each_tick_once(tmp_path: Path, db_url: str
                                                          ) -> None:
    """Two processes catching up on one database at once (an SQLite file, a PostgreSQL
    schema): every tick is applied once and the world equals a single process's."""
    days = 30
    expected = _reference(tmp_path, str(days))
    url = db_url
    scenario.build(url)
    procs = [_worker(url, days) for _ in range(2)]
    for proc in procs:
        assert proc.wait(timeout=120) == 0, proc.stderr.read() if proc.stderr else ""
    assert _export(url) == expected
    engine, _ = scenario.context(url)
    with transaction(engine) as session:
        ticks = session.exec(select(TickRun.tick)).all()
    assert len(ticks) == len(set(ticks))


def _queued(url: str, mark: int) -> list[tuple[str, str, str, str, bool]]:
    engine, _ = scenario.context(url)
    with transaction(engine) as session:
        rows = [(o.kind, o.target, o.title, o.body, o.public) for o in session.exec(
            select(Outbox).where(col(Outbox.id) > mark).order_by(col(Outbox.id)))]
    engine.dispose()
    return rows


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_kill_9_inside_a_tick_that_begins_battles_rolls_the_dice_the_preview_showed(
        db_url: str, tmp_path: Path) -> None:
    """Issue 24 item 3: on PostgreSQL a tick killed mid-transaction gave its battles new ids
    when tried again (sequences are not rolled back) and a battle's dice key is its id, so a
    failed tick re-rolled its battles. Killed three times inside the tick that begins the
    scenario's battles (after their rows are written), then run to the end: the posts and
    events are the preview's, and the world equals an uninterrupted run's, byte for byte
    (SQLite and PostgreSQL)."""
    from bot.services.preview import preview
    from tests.fixtures.db import fresh_schema, pg_base_url

    until = scenario.START + 6 * timedelta(days=1)
    scenario.build(db_url)
    engine, ctx = scenario.context(db_url)
    catch_up(engine, ctx, scenario.START + timedelta(days=1))
    shown = preview(engine, ctx, until)
    with transaction(engine) as session:
        mark = max(session.exec(select(col(Outbox.id))).all())
    engine.dispose()
    kills = 0
    for _ in range(3):
        proc = subprocess.Popen(
            [sys.executable, "-m", "tests.bot.services.tick_kill_worker", db_url,
             until.isoformat(), "stop"], cwd=ROOT, stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert proc.stdout is not None
        lines = [proc.stdout.readline().strip() for _ in range(2)]
        assert lines == ["ready", "inside"], (lines, proc.stderr.read() if proc.stderr else "")
        os.kill(proc.pid, signal.SIGKILL)  # inside the tick: its battles' ids were taken
        proc.wait()
        kills += 1
    final = subprocess.run([sys.executable, "-m", "tests.bot.services.tick_kill_worker",
                            db_url, until.isoformat()], cwd=ROOT, capture_output=True,
                           text=True, timeout=400, check=False)
    assert final.returncode == 0, final.stderr
    assert kills == 3
    queued = _queued(db_url, mark)
    assert queued == [(q.kind, q.target, q.title, q.body, q.public)
                      for t in shown for q in t.queued]
    assert any(kind == "post" and title.startswith("[Battle]")
               for kind, _, title, _, _ in queued), "the scenario fights a battle"
    with contextlib.ExitStack() as stack:
        reference = (_url(tmp_path, "reference.db") if db_url.startswith("sqlite")
                     else stack.enter_context(fresh_schema(pg_base_url())))
        scenario.build(reference)
        ref_engine, ref_ctx = scenario.context(reference)
        catch_up(ref_engine, ref_ctx, scenario.START + timedelta(days=1))
        catch_up(ref_engine, ref_ctx, until)
        ref_engine.dispose()
        assert _export(db_url) == _export(reference)
        assert _queued(db_url, 0) == _queued(reference, 0)
