"""Start-up of the ``maester`` command, whole process, against a bare ``python -c pass``.

Each case runs RUNS times; the median is printed with its ratio to ``python -c pass`` measured
in the same run, and checked against the 0.3 s goal for ``--help``, every ``rules ENGINE`` and
``command``. Then 10,000 battles go through ``maester rules battle --jsonl`` in one process and
are compared with the same 10,000 answered in-process by the JSON engine.

Usage: ``python -m benchmarks startup`` or ``python -m benchmarks.bench_startup``.
"""

from __future__ import annotations

import io
import json
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bot.jsonapi.engines import load_engines, run_engine

RUNS = 10
GOAL_SECONDS = 0.3
BATTLES = 10_000
ROOT = Path(__file__).resolve().parents[1]

EXAMPLE = re.compile(r"<!-- engine: (\S+) -->\n```json\n(.*?)\n```", re.S)


def _samples() -> dict[str, str]:
    """The worked example of each campaign engine in docs/engines.md (its real input); the
    tabletop engines get ``{}`` (an answer naming the missing field: start-up is the same)."""
    text = (ROOT / "docs" / "engines.md").read_text(encoding="utf-8")
    samples: dict[str, str] = {}
    for name, payload in EXAMPLE.findall(text):
        samples.setdefault(name, payload)
    return samples


def _maester() -> list[str]:
    script = Path(sys.executable).parent / "maester"
    return [str(script)] if script.exists() else [sys.executable, "-m", "bot"]


def _median(argv: list[str], stdin: str = "") -> float:
    times = []
    for _ in range(RUNS):
        start = time.perf_counter()
        subprocess.run(argv, input=stdin, capture_output=True, text=True, check=False,
                       cwd=ROOT)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _battles(count: int) -> list[str]:
    rng = random.Random(2026)
    return [json.dumps({"attacker": {"infantry": rng.randint(1, 5000),
                                     "cavalry": rng.randint(0, 800)},
                        "defender": {"infantry": rng.randint(1, 5000),
                                     "terrain": rng.choice(["field", "forest", "hill"]),
                                     "stationary": True},
                        "seed": i}) for i in range(count)]


def run() -> list[tuple[str, int, float]]:
    """Median start-up times (one op = one process) and the --jsonl batch."""
    maester = _maester()
    results: list[tuple[str, int, float]] = []
    base = _median([sys.executable, "-c", "pass"])
    print(f"python -c pass: median {base * 1000:.0f} ms of {RUNS}", flush=True)

    def case(name: str, argv: list[str], stdin: str = "", goal: bool = True) -> None:
        median = _median(maester + argv, stdin)
        verdict = ("" if not goal else
                   "  (goal <= 0.3 s: met)" if median <= GOAL_SECONDS else
                   "  (goal <= 0.3 s: MISSED)")
        print(f"maester {name}: median {median * 1000:.0f} ms, {median / base:.1f}x python -c "
              f"pass{verdict}", flush=True)
        results.append((f"start {name}", 1, median))

    case("--help", ["--help"])
    samples = _samples()
    for engine in sorted(load_engines()):
        case(f"rules {engine}", ["rules", engine], samples.get(engine, "{}"))
    case("command !attack", ["command", "!attack 8 dice 4+ vs 5+", "--seed", "1"])
    with tempfile.TemporaryDirectory() as tmp:
        config = Path(tmp) / "config.toml"
        config.write_text(f'[campaign]\ndatabase_url = "sqlite:///{Path(tmp) / "c.db"}"\n')
        subprocess.run([*maester, "init", "--demo", "-c", str(config)], capture_output=True,
                       check=True, cwd=ROOT)
        case("status (opens the database)", ["status", "-c", str(config)], goal=False)
        case("order --as (opens the database, writes)",
             ["order", "--as", "ned_stark", "help", "-c", str(config)], goal=False)

    lines = _battles(BATTLES)
    start = time.perf_counter()
    for line in lines:
        run_engine("battle", line)
    in_process = time.perf_counter() - start
    batch = "\n".join(lines) + "\n"
    start = time.perf_counter()
    done = subprocess.run([*maester, "rules", "battle", "--jsonl"], input=batch,
                          capture_output=True, text=True, check=True, cwd=ROOT)
    whole = time.perf_counter() - start
    answers = io.StringIO(done.stdout).read().splitlines()
    assert len(answers) == BATTLES and all("winner" in json.loads(a) for a in answers[:10])
    print(f"{BATTLES} battles: in-process {in_process:.2f} s; through `maester rules battle "
          f"--jsonl` {whole:.2f} s (in-process + {whole - in_process:.2f} s; one start is "
          f"about {results[0][2]:.2f} s)", flush=True)
    results.append(("battle in-process (run_engine)", BATTLES, in_process))
    results.append(("battle via rules --jsonl (whole process)", BATTLES, whole))
    return results


if __name__ == "__main__":
    for op, count, seconds in run():
        print(f"{op}: {count} ops in {seconds:.3f} s")
