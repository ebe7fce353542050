"""Mistakes at set-up end with a clear line and a non-zero exit, never a traceback.

Each case runs the real ``maester`` entry point in a subprocess, from a folder of its own (the
current directory matters: ./config.toml is the default config).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

GOOD = """\
[[claims]]
name = "House Stark"
holdfast = "Winterfell"
players = ["ned_stark"]
infantry = 300

[[claims]]
name = "House Tully"
holdfast = "Riverrun"
players = ["hoster_tully"]
"""


def maester(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("MAESTER_DEBUG", "MAESTER_CONFIG", "MAESTER_DATABASE_URL")}
    env["PYTHONPATH"] = str(ROOT)
    return subprocess.run([sys.executable, "-m", "bot.cli", *args], cwd=cwd,
                          capture_output=True, text=True, env=env, timeout=120)


def write_config(folder: Path, *, database: str = "sqlite:///campaign.db", map_: str = "demo",
                 subreddit: str = "westeros_test") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "config.toml"
    path.write_text(f'[campaign]\nname = "Setup"\nsubreddit = "{subreddit}"\n'
                    f'database_url = "{database}"\nmap = "{map_}"\n')
    return path


def no_traceback(result: subprocess.CompletedProcess[str]) -> str:
    out = result.stdout + result.stderr
    assert result.returncode != 0, out
    assert "Traceback" not in out, out
    return out


def test_status_before_init_says_to_run_init(tmp_path: Path) -> None:
    config = write_config(tmp_path)
    out = no_traceback(maester(tmp_path, "status", "--config", str(config)))
    assert "does not exist" in out and "maester init" in out
    assert not (tmp_path / "campaign.db").exists()


def test_no_config_file_here_and_no_config_option_is_said(tmp_path: Path) -> None:
    result = maester(tmp_path, "status")
    out = no_traceback(result)
    [line] = [x for x in result.stderr.splitlines() if x.startswith("maester:")]
    assert "no config file" in line and "--config" in line and "config.example.toml" in line
    assert not list(tmp_path.iterdir())  # nothing made, no demo database either
    assert "no config file" in out
    init = maester(tmp_path, "init", "--demo")
    assert "no config file" in no_traceback(init) and not list(tmp_path.iterdir())


# the messages of init's own check of an entry, which `map check` now makes too (issue 24)
@pytest.mark.parametrize(("roster", "expected"), [
    ('wars = [["House Stark", "House Tully"]]\n' + GOOD, None),
    ('wars = [["House Stark", "House Bolton"]]\n' + GOOD,
     "wars[0] names 'House Bolton', which is no claim"),
    (GOOD + '\n[[claims]]\nname = "House Stark"\nholdfast = "The Twins"\n',
     "claim name 'House Stark' is already used"),
    (GOOD + '\n[[claims]]\nname = "House Frey"\nplayers = ["walder"]\n',
     ".holdfast: is missing"),
    (GOOD.replace("infantry = 300", "infantry = -300"), ".infantry: is out of range"),
    (GOOD.replace("infantry = 300", "ships = -2"), ".ships: is out of range"),
    (GOOD.replace("infantry = 300", "infantery = 300"),
     ".infantery: is not a known key; did you mean 'infantry'?"),
])
def test_roster_mistakes_are_named_and_nothing_is_written(tmp_path: Path, roster: str,
                                                          expected: str | None) -> None:
    config = write_config(tmp_path)
    (tmp_path / "roster.toml").write_text(roster)
    result = maester(tmp_path, "init", "--roster", "roster.toml", "--config", str(config))
    if expected is None:  # the control: a good roster makes the campaign
        assert result.returncode == 0, result.stdout + result.stderr
        return
    out = no_traceback(result)
    errors = [line for line in out.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and expected in errors[0], out
    assert "nothing was written" in out
    assert not (tmp_path / "campaign.db").exists()


def test_a_missing_map_file_is_named(tmp_path: Path) -> None:
    config = write_config(tmp_path, map_="maps/westeros.csv")
    (tmp_path / "roster.toml").write_text(GOOD)
    out = no_traceback(maester(tmp_path, "init", "--roster", "roster.toml", "--config",
                               str(config)))
    assert "maps/westeros.csv: cannot be read (No such file or directory)" in out
    assert not (tmp_path / "campaign.db").exists()


def test_a_relative_database_path_is_next_to_the_config_file(tmp_path: Path) -> None:
    config = write_config(tmp_path / "campaign", database="sqlite:///data/w.db")
    (tmp_path / "campaign" / "data").mkdir()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    done = maester(elsewhere, "init", "--demo", "--config", str(config))
    assert done.returncode == 0, done.stdout + done.stderr
    assert (tmp_path / "campaign" / "data" / "w.db").exists()
    assert not list(elsewhere.iterdir())
    status = maester(tmp_path, "status", "--config", "campaign/config.toml")
    assert status.returncode == 0 and "Setup" in status.stdout, status.stderr


def test_the_config_is_the_subreddits_one_source_and_status_shows_a_change(tmp_path: Path
                                                                          ) -> None:
    config = write_config(tmp_path)
    assert maester(tmp_path, "init", "--demo").returncode == 0
    assert "(r/westeros_test)" in maester(tmp_path, "status").stdout
    write_config(tmp_path, subreddit="westeros_live")
    status = maester(tmp_path, "status", "--config", str(config)).stdout
    assert "(r/westeros_live)" in status
    assert "the campaign was created on r/westeros_test" in status
    assert '"subreddit": "westeros_live"' in maester(tmp_path, "export").stdout


def test_ships_is_a_roster_key(tmp_path: Path) -> None:
    write_config(tmp_path)
    (tmp_path / "roster.toml").write_text(
        GOOD + '\n[[claims]]\nname = "House Greyjoy"\nholdfast = "Pyke"\nships = 12\n')
    done = maester(tmp_path, "init", "--roster", "roster.toml")
    assert done.returncode == 0, done.stdout + done.stderr
    claims = maester(tmp_path, "export").stdout
    assert '"name": "House Greyjoy"' in claims and '"ships": 12' in claims
