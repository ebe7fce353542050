"""The fuzz run (benchmarks/fuzz.py, scripts/fuzz) at a small size: no crash, no state change.

The closing figures come from ``scripts/fuzz`` with 100,000 inputs per target.
"""

from __future__ import annotations

from benchmarks.fuzz import main, run_all
from bot.jsonapi.engines import run_engine


def test_a_small_fuzz_run_finds_no_crash_and_no_state_change() -> None:
    lines: list[str] = []
    tallies = run_all(300, seed=7, state_sample=40, report=lines.append)
    assert len(tallies) >= 12  # the order language and every JSON engine
    assert all(t.inputs == 300 for t in tallies)
    assert [t.name for t in tallies if t.crashes or t.state_changes] == [], lines
    assert tallies[0].state_checks > 0
    assert all(t.refused > 0 for t in tallies)


def test_the_command_line_reports_success() -> None:
    assert main(["--inputs", "50", "--state-sample", "0"]) == 0


def test_a_huge_exponent_is_refused_at_once() -> None:
    """Found by the fuzz run: gold 1e999999 made the upkeep engine spend minutes and raise."""
    code, answer = run_engine("upkeep", '{"infantry": 7, "cavalry": 3, "gold": "1e999999"}')
    assert code == 2 and answer["field"] == "gold"
