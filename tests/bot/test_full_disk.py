"""A full disk: one clear line, a non-zero exit, and nothing half-written.

Two ways to fill it:

* a real full disk: a 4 MB tmpfs mounted in a private mount namespace (``unshare``; root or
  unprivileged user namespaces), with the campaign's SQLite file on it and a filler file
  taking the free space. The real ``maester`` runs there. Skipped where ``unshare`` cannot
  mount (the reason is printed).
* a full database file, everywhere: SQLite's ``PRAGMA max_page_count`` caps the file at its
  current size, which takes the same SQLITE_FULL path as a full disk ("database or disk is
  full") without needing a mount.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event
from sqlalchemy.exc import DBAPIError

from bot.db.engine import make_engine, transaction
from bot.db.failures import explain_failure
from bot.services.queries import export_world
from bot.services.tick import catch_up
from tests.bot.services import scenario

ROOT = Path(__file__).resolve().parents[2]


def _unshare_prefix() -> list[str] | None:
    if shutil.which("unshare") is None:
        return None
    for prefix in (["unshare", "--mount", "--propagation", "private"],
                   ["unshare", "--user", "--map-root-user", "--mount", "--propagation",
                    "private"]):
        probe = subprocess.run([*prefix, "sh", "-c", "mount -t tmpfs -o size=64k tmpfs /mnt "
                                "2>/dev/null || mount -t tmpfs -o size=64k tmpfs /tmp"],
                               capture_output=True, timeout=60)
        if probe.returncode == 0:
            return prefix
    return None


SCRIPT = r"""
set -u
mount -t tmpfs -o size=4m tmpfs "$DISK"  # room for the WAL of 48 ticks once freed
cp "$OUT/c.db" "$DISK/c.db"
sed "s#$OUT/c.db#$DISK/c.db#" "$OUT/config.toml" > "$DISK/config.toml"
fill() {  # leave $1 bytes free
    rm -f "$DISK/filler"
    avail=$(df -B1 --output=avail "$DISK" | tail -1)
    if [ "$avail" -gt "$1" ]; then
        head -c $((avail - $1)) /dev/zero > "$DISK/filler" 2>/dev/null || true
    fi
}
run() {  # NAME ARGS...: run maester, keep its exit code and stderr
    name=$1; shift
    "$PYTHON" -m bot.cli "$@" --config "$DISK/config.toml" > /dev/null 2> "$OUT/$name.err"
    echo $? > "$OUT/$name.rc"
}
fill 0
run order-none order --as ned_stark "muster 10 infantry"
fill 40000
run order-some order --as ned_stark "muster 10 infantry"
cp "$DISK/c.db" "$OUT/after-orders.db"
fill 100000
run tick tick --until "$UNTIL"
rm -f "$DISK/filler"
run tick-again tick --until "$UNTIL"
"$PYTHON" -m bot.cli export --config "$DISK/config.toml" > "$OUT/export.json"
"""


def _maester(config: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "MAESTER_DEBUG"}
    return subprocess.run([sys.executable, "-m", "bot.cli", *args, "--config", str(config)],
                          cwd=ROOT, capture_output=True, text=True, env=env, timeout=600)


def _state(path: Path) -> list[Any]:
    with sqlite3.connect(path) as db:
        return [db.execute("pragma integrity_check").fetchall(),
                db.execute("select name, gold, infantry, cavalry from claim order by id")
                .fetchall(),
                db.execute("select count(*) from army").fetchall(),
                db.execute("select count(*) from event").fetchall(),
                db.execute("select count(*) from outbox").fetchall()]


def _one_line(folder: Path, name: str, *words: str) -> str:
    err = (folder / f"{name}.err").read_text()
    assert (folder / f"{name}.rc").read_text().strip() == "1", err
    assert "Traceback" not in err, err
    lines = [line for line in err.splitlines() if line.startswith("maester:")]
    assert len(lines) == 1, err
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]


@pytest.mark.slow
def test_a_real_full_disk(tmp_path: Path) -> None:
    """Orders and ticks on a full disk end with one line and exit 1; the orders changed
    nothing, and once space is freed the tick ends exactly where a tick that never met a
    full disk ends."""
    prefix = _unshare_prefix()
    if prefix is None:
        pytest.skip("unshare cannot mount a tmpfs here (needs root or user namespaces); "
                    "test_a_full_database_file_rolls_back covers the SQLITE_FULL path")
    config = tmp_path / "config.toml"
    config.write_text("[campaign]\nname = 'T'\nsubreddit = 'tt'\nmap = 'demo'\n"
                      f"database_url = 'sqlite:///{tmp_path / 'c.db'}'\nmoderators = ['mod']\n")
    assert _maester(config, "init", "--demo").returncode == 0
    moment = (datetime.now(UTC) + timedelta(days=12)).strftime("%Y-%m-%dT%H:%M:%SZ")
    before = _state(tmp_path / "c.db")
    (tmp_path / "disk").mkdir()
    env = {**{k: v for k, v in os.environ.items() if k != "MAESTER_DEBUG"},
           "DISK": str(tmp_path / "disk"), "OUT": str(tmp_path), "UNTIL": moment,
           "PYTHON": sys.executable}
    done = subprocess.run([*prefix, "bash", "-c", SCRIPT], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=1200)
    assert done.returncode == 0, done.stderr
    _one_line(tmp_path, "order-none", "most likely full")
    _one_line(tmp_path, "order-some", "full")
    assert _state(tmp_path / "after-orders.db") == before  # neither order left a trace
    _one_line(tmp_path, "tick", "full", "rolled back")
    assert (tmp_path / "tick-again.rc").read_text().strip() == "0", \
        (tmp_path / "tick-again.err").read_text()
    # the same ticks on the same campaign with room to spare
    ample = _maester(config, "tick", "--until", moment)
    assert ample.returncode == 0, ample.stderr
    expected = json.loads(_maester(config, "export").stdout)
    assert json.loads((tmp_path / "export.json").read_text()) == expected
    assert expected["campaign"]["last_tick"] > 40


def test_a_full_database_file_rolls_back(tmp_path: Path) -> None:
    """The database file capped at its current size (SQLITE_FULL, as on a full disk): the
    tick fails with the disk-full line and the world is as before, tick for tick."""
    url = f"sqlite:///{tmp_path / 's.db'}"
    scenario.build(url)
    engine, ctx = scenario.context(url)
    with transaction(engine) as session:
        before = export_world(session, ctx)
    engine.dispose()
    capped = make_engine(url)

    @event.listens_for(capped, "connect")
    def _cap(dbapi_connection: Any, _record: Any) -> None:
        pages = dbapi_connection.execute("PRAGMA page_count").fetchone()[0]
        dbapi_connection.execute(f"PRAGMA max_page_count = {pages}")

    with pytest.raises(DBAPIError) as failed:
        catch_up(capped, ctx, scenario.START + timedelta(days=30))
    line = explain_failure(failed.value)
    assert line is not None and "full" in line and "rolled back" in line
    capped.dispose()
    engine, ctx = scenario.context(url)
    with transaction(engine) as session:
        after = export_world(session, ctx)
    engine.dispose()
    # ticks are committed one batch at a time: what was written is whole ticks, and the
    # failed batch left nothing, so finishing the catch-up ends where an uncapped one ends
    assert after["campaign"]["last_tick"] >= before["campaign"]["last_tick"]
    url2 = f"sqlite:///{tmp_path / 'ample.db'}"
    scenario.build(url2)
    for target in (url, url2):
        engine, ctx = scenario.context(target)
        catch_up(engine, ctx, scenario.START + timedelta(days=30))
        engine.dispose()
    finals = []
    for target in (url, url2):
        engine, ctx = scenario.context(target)
        with transaction(engine) as session:
            finals.append(export_world(session, ctx))
        engine.dispose()
    assert finals[0] == finals[1]
