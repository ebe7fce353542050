"""Run every benchmark module and print per-operation times.

Each ``benchmarks/bench_*.py`` exposes ``run() -> list[tuple[str, int, float]]`` giving
(operation, count, total seconds) and may print extra figures itself.
Usage: ``python -m benchmarks [NAME ...]`` (names without the ``bench_`` prefix).
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
from pathlib import Path


def main(argv: list[str]) -> int:
    here = Path(__file__).parent
    names = sorted(m.name for m in pkgutil.iter_modules([str(here)]) if m.name.startswith("bench_"))
    wanted = {f"bench_{a}" if not a.startswith("bench_") else a for a in argv}
    if wanted:
        names = [n for n in names if n in wanted]
    for name in names:
        module = importlib.import_module(f"benchmarks.{name}")
        print(f"== {name[len('bench_'):]}", flush=True)
        for op, count, seconds in module.run():
            per = seconds / count * 1e6 if count else 0.0
            print(f"{op}: {count} ops in {seconds:.3f} s, {per:.1f} us/op", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
