"""Failures a moderator can fix end the CLI with one clear line and a non-zero exit code.

Each runs the real ``maester`` entry point in a subprocess: no traceback unless ``--debug``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlmodel import select

from bot.db.engine import MissingDatabase, create_all, make_engine, transaction
from bot.db.models import Campaign

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def campaign(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A config and an initialised demo campaign (SQLite)."""
    folder = tmp_path_factory.mktemp("cli")
    config = folder / "config.toml"
    config.write_text("[campaign]\nname = 'T'\nsubreddit = 'tt'\nmap = 'demo'\n"
                      f"database_url = 'sqlite:///{folder / 'c.db'}'\nmoderators = ['mod']\n")
    assert _maester(config, "init", "--demo").returncode == 0
    return config


def _maester(config: Path, *args: str, url: str | None = None
             ) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "MAESTER_DEBUG"}
    if url is not None:
        env["MAESTER_DATABASE_URL"] = url
    return subprocess.run([sys.executable, "-m", "bot.cli", *args, "--config", str(config)],
                          cwd=ROOT, capture_output=True, text=True, env=env, timeout=120)


def _one_line(result: subprocess.CompletedProcess[str], *words: str) -> None:
    assert result.returncode != 0, result.stdout + result.stderr
    assert "Traceback" not in result.stderr, result.stderr
    lines = [line for line in result.stderr.splitlines() if line.startswith("maester:")]
    assert len(lines) == 1, result.stderr
    for word in words:
        assert word in lines[0], lines[0]


def test_a_missing_database_is_never_created_outside_init(campaign: Path) -> None:
    missing = campaign.parent / "nothing.db"
    _one_line(_maester(campaign, "status", url=f"sqlite:///{missing}"), "does not exist",
              "maester init")
    assert not missing.exists()


def test_a_garbage_database_file(campaign: Path) -> None:
    garbage = campaign.parent / "garbage.db"
    garbage.write_bytes(os.urandom(4096))
    _one_line(_maester(campaign, "status", url=f"sqlite:///{garbage}"), "not an SQLite")


def test_an_unknown_url_scheme(campaign: Path) -> None:
    _one_line(_maester(campaign, "status", url="mysqlx://nobody@nowhere/db"), "database_url")


@pytest.mark.parametrize("url", [
    "postgresql+psycopg://postgres@127.0.0.1:1/test",
    "postgresql+psycopg://postgres@127.0.0.1:5432/no_such_database_here",
])
def test_an_unreachable_or_misconfigured_postgresql(campaign: Path, url: str) -> None:
    _one_line(_maester(campaign, "status", url=url), "cannot reach the database")


def test_a_read_only_database_refuses_writes_and_orders(campaign: Path) -> None:
    """Adjust and order on a read-only database: one line, exit 1, nothing written."""
    url = f"sqlite:///file:{campaign.parent / 'c.db'}?mode=ro&uri=true"
    _one_line(_maester(campaign, "adjust", "House Stark", "--gold", "5", url=url), "read-only")
    _one_line(_maester(campaign, "order", "--as", "ned_stark", "muster 10 infantry", url=url),
              "read-only")


@pytest.mark.parametrize(("args", "words"), [
    (["show", "army", "9" * 30], ["army number", "out of range", "maester armies"]),
    (["log", "--limit", "9" * 30], ["--limit", "out of range", "1 to 100000"]),
    (["log", "--limit", "0"], ["--limit", "0 is out of range"]),
    (["log", "--limit=-5"], ["--limit", "-5 is out of range"]),
    (["outbox", "show", "9" * 30], ["entry number", "maester outbox --all"]),
    (["outbox", "retry", "9" * 30], ["entry number", "nothing changed"]),
    (["army", "remove", "9" * 30, "--reason", "x"], ["army number", "nothing changed"]),
    (["verify", "9" * 30], ["event number", "maester log"]),
    (["verify", "0"], ["event number", "out of range"]),
    (["verify", "²"], ["not an event number"]),
    (["publish", "--once", "--limit", "0"], ["--limit", "out of range"]),
    (["adjust", "House Stark", "--gold", "1e99"], ["--gold", "out of range"]),
    (["adjust", "House Stark", "--infantry", "9" * 30], ["--infantry", "out of range"]),
    (["adjust", "House Stark", "--gold", "NaN"], ["--gold", "finite"]),
    (["adjust", "House Stark", "--infantry", "-99999"], ["infantry", "would become"]),
])
def test_huge_negative_or_zero_numbers(campaign: Path, args: list[str],
                                       words: list[str]) -> None:
    """Each number argument out of its range: one line naming it and the range, exit non-zero,
    no traceback, and the database untouched."""
    before = (campaign.parent / "c.db").read_bytes()
    _one_line(_maester(campaign, *args), *words)
    assert (campaign.parent / "c.db").read_bytes() == before


def test_debug_shows_the_traceback(campaign: Path) -> None:
    result = _maester(campaign, "status", "--debug", url="mysqlx://nobody@nowhere/db")
    assert result.returncode == 1 and "Traceback" in result.stderr


def test_a_database_file_deleted_in_use_takes_no_more_writes(tmp_path: Path) -> None:
    """Deleted (or replaced) while the engine uses it, the file's next commit fails instead
    of writing into the lost file."""
    path = tmp_path / "gone.db"
    engine = make_engine(f"sqlite:///{path}")
    create_all(engine)
    with transaction(engine) as session:
        session.exec(select(Campaign)).all()
    path.unlink()
    with pytest.raises(MissingDatabase), transaction(engine) as session:
        session.exec(select(Campaign)).all()
    with pytest.raises(MissingDatabase):
        make_engine(f"sqlite:///{path}", must_exist=True)
    engine.dispose()


def test_a_binary_or_directory_config(tmp_path: Path) -> None:
    binary = tmp_path / "binary.toml"
    binary.write_bytes(bytes(range(256)))
    _one_line(_maester(binary, "status"), "not a text file")
    _one_line(_maester(tmp_path, "status"), "cannot be read")


@pytest.mark.parametrize("damage", ["NaN", "Infinity", "-sNaN"])
def test_a_hand_written_nan_gold_stops_the_tick_with_one_line_and_adjust_mends_it(
        tmp_path: Path, damage: str) -> None:
    """Issue 24: a NaN gold written into the database by hand made every tick raise
    InvalidOperation with a traceback. The tick now stops before applying anything, with one
    line naming the claim and the fix; `adjust` counts the damaged gold as 0 and sets it."""
    config = tmp_path / "config.toml"
    config.write_text("[campaign]\nname = 'T'\nsubreddit = 'tt'\nmap = 'demo'\n"
                      f"database_url = 'sqlite:///{tmp_path / 'c.db'}'\nmoderators = ['mod']\n")
    assert _maester(config, "init", "--demo").returncode == 0
    engine = make_engine(f"sqlite:///{tmp_path / 'c.db'}")
    with engine.begin() as connection:
        connection.exec_driver_sql("UPDATE claim SET gold = ? WHERE name = 'House Stark'",
                                   (damage,))
    with transaction(engine) as session:
        last = session.exec(select(Campaign)).one().last_tick
    # two days on from now (the campaign began now): past a month's upkeep (a month is a
    # day), where the gold is read
    until = (datetime.now(UTC) + timedelta(days=2)).isoformat()
    _one_line(_maester(config, "tick", "--until", until, "--yes"), "House Stark",
              "not a number", "maester adjust")
    with transaction(engine) as session:
        assert session.exec(select(Campaign)).one().last_tick == last  # nothing applied
    mended = _maester(config, "adjust", "House Stark", "--gold", "+900")
    assert mended.returncode == 0, mended.stdout + mended.stderr
    assert "after:  gold 900" in mended.stdout
    ticked = _maester(config, "tick", "--until", until, "--yes")
    assert ticked.returncode == 0, ticked.stdout + ticked.stderr
    with transaction(engine) as session:
        assert session.exec(select(Campaign)).one().last_tick > last
