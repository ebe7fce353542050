"""The moderators' CLI, driven as a moderator would: real config file, real SQLite file."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bot.cli import app

ROOT = Path(__file__).resolve().parents[2]
runner = CliRunner()
# A few days ahead of the wall clock (the CLI uses the real clock): a dozen ticks to apply.
_SOON = datetime.now(UTC) + timedelta(days=3)
LATER = (datetime.now(UTC) + timedelta(days=365)).strftime("%Y-%m-%dT%H:%M:%SZ")
SOON = _SOON.replace(hour=_SOON.hour - _SOON.hour % 6).strftime("%Y-%m-%dT%H:00:00Z")


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(
        "[campaign]\n"
        'name = "CLI test"\n'
        f'database_url = "sqlite:///{tmp_path / "campaign.db"}"\n'
        'moderators = ["mod_jane"]\n'
    )
    result = runner.invoke(app, ["init", "--demo", "--seed", "s", "--config", str(path)])
    assert result.exit_code == 0, result.output
    return path


def run(config: Path, *args: str) -> str:
    result = runner.invoke(app, [*args, "--config", str(config)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def test_init_twice_is_refused_and_changes_nothing(config: Path) -> None:
    result = runner.invoke(app, ["init", "--demo", "--config", str(config)])
    assert result.exit_code == 2 and "already holds a campaign" in result.output


def test_order_as_a_player_prints_the_reply_and_changes_the_world(config: Path) -> None:
    out = run(config, "order", "--as", "ned_stark", "muster 100 infantry")
    assert "is mustering at Winterfell" in out
    armies = json.loads(run(config, "export"))["armies"]
    assert [(a["infantry"], a["state"]) for a in armies] == [(100, "mustering")]


def test_tick_until_applies_the_ticks_and_status_shows_them(config: Path) -> None:
    run(config, "order", "--as", "ned_stark", "muster 100 infantry")
    out = run(config, "tick", "--until", SOON)
    assert "tick(s) applied" in out
    assert "ticks due" not in run(config, "status")


def test_moderator_changes_are_logged_with_the_moderator(config: Path) -> None:
    run(config, "adjust", "House Stark", "--gold", "+100", "--infantry", "-50", "--by", "jane")
    run(config, "season", "set", "winter", "--by", "jane")
    run(config, "relations", "set", "House Stark", "House Bolton", "war", "--by", "jane")
    log = run(config, "log", "--limit", "5")
    assert log.count("jane") >= 3
    claims = json.loads(run(config, "export"))["claims"]
    stark = next(c for c in claims if c["name"] == "House Stark")
    assert stark["gold"] == "1000" and stark["infantry"] == 2950


@pytest.mark.parametrize("args", [
    ["adjust", "House Nobody", "--gold", "5"],
    ["adjust", "House Stark", "--gold", "lots"],
    ["adjust", "House Stark", "--infantry", "-999999"],
    ["adjust", "House Stark", "--gold", "NaN"],
    ["adjust", "House Stark", "--gold", "1e999999"],
    ["adjust", "House Stark", "--gold", "Infinity"],
    ["adjust", "House Stark", "--infantry", "1.5"],
    ["adjust", "House Stark", "--cavalry", "99999999999999999999999999"],
    ["season", "set", "monsoon"],
    ["relations", "set", "House Stark", "House Stark", "war"],
    ["holdfast", "give", "Barrowton", "House Nobody"],
    ["holdfast", "give", "1316", "House Stark"],  # no holdfast
    ["holdfast", "give", "Nowhere", "House Stark", "--seat"],
    ["tick", "--until", "tomorrow"],
    ["tick", "--until", "2030-01-01T00:00:00"],
])
def test_bad_moderator_input_is_refused_with_exit_2(config: Path, args: list[str]) -> None:
    before = run(config, "export")
    result = runner.invoke(app, [*args, "--config", str(config)])
    assert result.exit_code == 2, result.output
    assert run(config, "export") == before


def test_rules_show_lists_the_numbers_in_force(config: Path) -> None:
    out = run(config, "rules", "show")
    assert "detection_radius" in out and "infantry_upkeep" in out


def test_a_missing_or_broken_config_names_the_problem(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("[campaign]\nsubreddit = 'no spaces allowed'\n")
    result = runner.invoke(app, ["status", "--config", str(bad)])
    assert result.exit_code == 2 and "campaign.subreddit" in result.output


def test_cli_command_runs_a_tabletop_command() -> None:
    result = runner.invoke(app, ["command", "!attack 8 dice 4+ vs 5+", "--seed", "1"])
    assert result.exit_code == 0 and "Expected wounds" in result.output


@pytest.mark.slow
def test_cli_writes_while_ticks_apply_never_show_database_locked(config: Path) -> None:
    """A process applies a year of ticks while the CLI keeps writing: every CLI call
    succeeds (writers queue on BEGIN IMMEDIATE instead of failing)."""
    ticker = subprocess.Popen(
        [sys.executable, "-m", "bot.cli", "tick", "--until", LATER, "--yes",
         "--config", str(config)], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    failures = []
    calls = 0
    deadline = time.monotonic() + 60
    while ticker.poll() is None and time.monotonic() < deadline:
        proc = subprocess.run(
            [sys.executable, "-m", "bot.cli", "adjust", "House Reed", "--gold", "+1",
             "--config", str(config)], cwd=ROOT, capture_output=True, text=True)
        calls += 1
        if proc.returncode != 0 or "locked" in proc.stdout + proc.stderr:
            failures.append(proc.stdout + proc.stderr)
    out, err = ticker.communicate(timeout=120)
    assert ticker.returncode == 0, err.decode()
    assert b"locked" not in out + err
    assert calls >= 2 and failures == []


def wide(config: Path, *args: str) -> str:
    result = CliRunner(env={"COLUMNS": "250"}).invoke(app, [*args, "--config", str(config)],
                                                      catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def test_inspection_commands_show_the_world(config: Path) -> None:
    """claims, armies --claim, show army, outbox, log --claim, relations list, db upgrade."""
    run(config, "order", "--as", "ned_stark", "muster 100 infantry")
    run(config, "order", "--as", "tywin_lannister", "muster 50 cavalry")
    claims = wide(config, "claims")
    assert "House Stark" in claims and "u/ned_stark" in claims and "Winterfell" in claims
    armies = wide(config, "armies", "--claim", "House Stark")
    assert "House Stark" in armies and "House Lannister" not in armies
    shown = wide(config, "show", "army", "1")
    assert "Army 1" in shown and "100 infantry" in shown and "ready:" in shown
    assert runner.invoke(app, ["show", "army", "99", "--config", str(config)]).exit_code == 2
    log = wide(config, "log", "--claim", "House Lannister")
    assert "musters" in log and "House Stark musters" not in log
    assert "war" in wide(config, "relations", "list")
    assert "Database is up to date." in wide(config, "db", "upgrade")
    run(config, "tick", "--until", SOON)
    assert "message" in wide(config, "outbox")  # the "army is ready" notes wait for delivery


def test_orders_after_a_tick_ahead_are_accepted_at_the_worlds_time(config: Path) -> None:
    """A moderator ticked the world ahead of the wall clock: the receipt's times follow the
    world, not the wall clock; the order counts just after the last applied tick, so the
    muster starts at the next one."""
    run(config, "tick", "--until", SOON)
    out = run(config, "order", "--as", "ned_stark", "muster 10 infantry")
    world = datetime.fromisoformat(SOON.replace("Z", "+00:00"))  # the last tick applied
    assert f"Ready: {world + timedelta(hours=30):%Y-%m-%d %H:%M} UTC" in out


def test_the_bot_refuses_an_out_of_date_database_and_says_how_to_fix_it(tmp_path: Path
                                                                         ) -> None:
    """`maester poll --once` on a database whose schema is not at the newest migration stops
    with exit 2 and names `maester db upgrade`."""
    from bot.db.engine import make_engine
    from bot.db.migrate import downgrade

    path = tmp_path / "config.toml"
    path.write_text(f'[campaign]\ndatabase_url = "sqlite:///{tmp_path / "old.db"}"\n'
                    '[reddit]\nclient_id = "x"\nusername = "bot"\npassword = "pw"\n')
    assert runner.invoke(app, ["init", "--demo", "--config", str(path)]).exit_code == 0
    downgrade(make_engine(f"sqlite:///{tmp_path / 'old.db'}"), "base")
    result = runner.invoke(app, ["poll", "--once", "--config", str(path)])
    assert result.exit_code == 2
    assert "maester db upgrade" in result.output


def test_tick_beyond_the_catch_up_bound_asks_for_yes(config: Path) -> None:
    """A --until more than bot.max_catch_up_days (31) ahead applies nothing without --yes;
    with it, the ticks are applied and the count is what this process applied."""
    far = (datetime.now(UTC) + timedelta(days=40)).strftime("%Y-%m-%dT%H:%M:%SZ")
    before = run(config, "export")
    result = runner.invoke(app, ["tick", "--until", far, "--config", str(config)])
    assert result.exit_code == 2 and "--yes" in result.output
    assert run(config, "export") == before
    out = run(config, "tick", "--until", far, "--yes")
    assert re.search(r"\b1[56]\d tick\(s\) applied", out), out
    assert "0 tick(s) applied" in run(config, "tick", "--until", far, "--yes")


def test_winter_and_a_war_set_by_the_moderators_warn_the_claims_privately(config: Path
                                                                          ) -> None:
    run(config, "order", "--as", "ned_stark", "muster 100 infantry")
    out = run(config, "season", "set", "winter")
    assert "1 claim(s) with raised troops were warned privately" in out
    # leaving winter tells them too (issue #23: ending winter sent no note)
    assert "1 claim(s) with raised troops were warned privately that their upkeep falls back" \
        in run(config, "season", "set", "spring")
    run(config, "relations", "set", "House Reed", "House Frey", "war")
    entries = wide(config, "outbox")
    assert "Winter has begun" in entries
    assert "House Frey is at war with you" in entries and "House Reed is at war with" in entries
    body = wide(config, "outbox", "--body")
    assert "now cost 20 gold a month instead of 10" in body
    assert "Winter has ended: your raised troops (100 infantry) now cost 10 gold a month " \
        "instead of 20" in body
