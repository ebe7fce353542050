"""Fuzzing the order language and every JSON engine: crashes and state changes on refusal.

``python -m benchmarks.fuzz [--inputs N] [--seed S] [--state-sample K]`` (or ``scripts/fuzz``)
mutates real inputs (every order form's example, every JSON example of the engine docs) with
hostile characters, numbers and types, and feeds:

* every order text to :func:`parse_message`, which must never raise;
* a sample of them (``--state-sample``) to the order service against a real SQLite campaign:
  when every order of a message is refused, the exported world must not change;
* every JSON text to each engine through :func:`run_engine`, which must answer with exit code
  0 or 2 and never raise.

It prints one line per target (inputs, crashes, refusals, state changes) and exits non-zero on
any crash or state change. The test suite runs it with a few hundred inputs.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

HOSTILE_TEXT = (
    "-", "−", "+", ".", ",", "0", "9", "²", "½", "١", "１", "e9", "1e999999", "NaN", "∞",
    "999999999999999999999", '"', "“", ";", "|", "[x](https://e.example)", "u/ned_stark",
    "r/all", "**", "_", "`", ">", "#", "\n", "\t", "\u200b", "\u202e", "\x00", "&gt;", "&#x200B;",
    " ", "army", "fleet", "#2", "to", ">", "→", "(cost 7)", "cost", "retreat", "!claim",
    "House Stark", "Winterfell", "0412", "'", "é", "İ", "🐺", "\ufe0f", "\\", "~~", ">!",
)
HOSTILE_VALUES: tuple[Any, ...] = (
    None, True, False, 0, -1, 1, 2, 3, 6, 20, 100, 10**9, -10**9, 10**30, -10**30, 1.5, -0.5,
    1e308, "", "x", "NaN", "Infinity", "1e999999", "-5", "3", "field", "hill", "winter",
    "x" * 500, [], {}, [1, 2], [None], {"a": 1}, [7, 3], [20] * 50,
)


@dataclass
class Tally:
    """What one fuzz target saw."""

    name: str
    inputs: int = 0
    crashes: int = 0
    refused: int = 0
    state_checks: int = 0
    state_changes: int = 0
    examples: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def crash(self, what: str) -> None:
        self.crashes += 1
        if len(self.examples) < 5:
            self.examples.append(what)

    def line(self) -> str:
        extra = (f", {self.state_checks} state checks, {self.state_changes} state changes"
                 if self.state_checks else "")
        return (f"{self.name}: {self.inputs} inputs, {self.crashes} crashes, "
                f"{self.refused} refused{extra} ({self.seconds:.1f} s)")


# --------------------------------------------------------------------------- order language

def order_seeds() -> list[str]:
    from rules.campaign.language import ORDER_FORMS

    seeds = [line for form in ORDER_FORMS.values() for line in form.example.split("\n")]
    guide = (ROOT / "docs" / "orders.md").read_text(encoding="utf-8")
    seeds += [m.group(1) for m in re.finditer(r"`([a-z][^`\n]{3,80})`", guide)]
    return sorted(set(seeds))


def mutate_text(rng: random.Random, text: str) -> str:
    out = text
    for _ in range(rng.randint(1, 4)):
        pos = rng.randint(0, len(out))
        op = rng.random()
        piece = rng.choice(HOSTILE_TEXT)
        if op < 0.4:
            out = out[:pos] + piece + out[pos:]
        elif op < 0.7 and out:
            end = min(len(out), pos + rng.randint(1, 4))
            out = out[:pos] + piece + out[end:]
        elif op < 0.85 and out:
            out = out[:pos] + out[pos + 1:]
        else:
            out = "\n".join([out, rng.choice(HOSTILE_TEXT) + text])
    return out


def fuzz_orders(count: int, rng: random.Random, state_sample: int) -> Tally:
    from rules.campaign.language import OrderSyntaxError, parse_message

    tally = Tally("order language")
    seeds = order_seeds()
    texts = [mutate_text(rng, rng.choice(seeds)) for _ in range(count)]
    start = time.perf_counter()
    for text in texts:
        tally.inputs += 1
        try:
            parsed = parse_message(text)
        except Exception:
            tally.crash(f"{text!r}: {traceback.format_exc(limit=1)}")
            continue
        if all(isinstance(item.result, OrderSyntaxError) for item in parsed.items):
            tally.refused += 1
    if state_sample:
        _check_state(tally, rng.sample(texts, min(state_sample, len(texts))))
    tally.seconds = time.perf_counter() - start
    return tally


def _check_state(tally: Tally, texts: list[str]) -> None:
    """Each text as a player's message to a real campaign: a message whose orders are all
    refused leaves the world as it was (checked inside the transaction, then rolled back)."""
    from sqlmodel import Session

    from bot.services.orders import process_message
    from bot.services.queries import export_world
    from tests.bot.services import scenario

    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite:///{Path(folder) / 'fuzz.db'}"
        scenario.build(url)
        engine, ctx = scenario.context(url)
        now = scenario.START + timedelta(hours=4)
        players = ("ned_stark", "tywin_lannister", "walder_frey", "nobody_at_all")
        for i, text in enumerate(texts):
            with Session(engine, expire_on_commit=False) as session, session.begin():
                before = export_world(session, ctx)
                try:
                    outcome = process_message(session, ctx, author=players[i % len(players)],
                                              text=text, now=now, ref=f"fuzz:{i}")
                except Exception:
                    tally.crash(f"service {text!r}: {traceback.format_exc(limit=1)}")
                    session.rollback()
                    continue
                if outcome.accepted == 0:
                    tally.state_checks += 1
                    if export_world(session, ctx) != before:
                        tally.state_changes += 1
                        tally.examples.append(f"state changed by {text!r}")
                session.rollback()
        engine.dispose()


# --------------------------------------------------------------------------- JSON engines

def engine_seeds() -> dict[str, list[Any]]:
    """Every JSON example of the engine docs that an engine accepts, by engine."""
    from bot.jsonapi.engines import load_engines, run_engine

    blocks: list[Any] = []
    for doc in [ROOT / "docs" / "engines.md", *sorted((ROOT / "docs" / "engines").glob("*.md"))]:
        for m in re.finditer(r"```json\n(.*?)\n```", doc.read_text(encoding="utf-8"), re.S):
            try:
                blocks.append(json.loads(m.group(1)))
            except json.JSONDecodeError:
                continue
    seeds: dict[str, list[Any]] = {}
    for name in sorted(load_engines()):
        seeds[name] = [b for b in blocks if isinstance(b, dict)
                       and run_engine(name, json.dumps(b))[0] == 0] or [{}]
    return seeds


def mutate_value(rng: random.Random, value: Any, depth: int = 0) -> Any:
    if depth > 4 or rng.random() < 0.25:
        return rng.choice(HOSTILE_VALUES)
    if isinstance(value, dict) and value:
        out = dict(value)
        key = rng.choice(list(out))
        roll = rng.random()
        if roll < 0.15:
            del out[key]
        elif roll < 0.25:
            out[rng.choice(["extra", "dice", "seed", key + "x"])] = rng.choice(HOSTILE_VALUES)
        else:
            out[key] = mutate_value(rng, out[key], depth + 1)
        return out
    if isinstance(value, list) and value:
        out_list = list(value)
        i = rng.randrange(len(out_list))
        out_list[i] = mutate_value(rng, out_list[i], depth + 1)
        if rng.random() < 0.2:
            out_list.append(rng.choice(HOSTILE_VALUES))
        return out_list
    return rng.choice(HOSTILE_VALUES)


NESTING_DEPTHS = (33, 500, 990, 2_000, 100_000)
"""Depths of hostile nesting: past the engines' limit, about Python's recursion limit, far
past it (issue 24: a RecursionError ended the run)."""


def nest_deeply(rng: random.Random, text: str, seed: Any) -> str:
    """``text`` wrapped in, or one of ``seed``'s fields replaced by, deep arrays or objects
    (built as text: json.dumps itself cannot write them)."""
    depth = rng.choice(NESTING_DEPTHS)
    opener, closer = rng.choice([("[", "]"), ('{"a":', "}")])
    inner = opener * depth + ("1" if opener != "[" else "") + closer * depth
    if isinstance(seed, dict) and seed and rng.random() < 0.7:
        return json.dumps({**seed, rng.choice(list(seed)): "@"}).replace('"@"', inner, 1)
    return opener * depth + text + closer * depth if opener == "[" else inner


def fuzz_engine(name: str, seeds: list[Any], count: int, rng: random.Random) -> Tally:
    from bot.jsonapi.engines import run_engine

    tally = Tally(f"engine {name}")
    start = time.perf_counter()
    for _ in range(count):
        seed = rng.choice(seeds)
        payload = mutate_value(rng, seed)
        for _ in range(rng.randint(0, 2)):
            payload = mutate_value(rng, payload)
        if isinstance(payload, dict) and "dice" not in payload and rng.random() < 0.5:
            payload["seed"] = rng.randint(0, 10**6)
        text = json.dumps(payload) if rng.random() < 0.97 else mutate_text(rng, json.dumps(seed))
        if rng.random() < 0.03:
            text = nest_deeply(rng, text, seed)
        tally.inputs += 1
        try:
            code, answer = run_engine(name, text)
        except Exception:
            tally.crash(f"{text[:200]!r}: {traceback.format_exc(limit=1)}")
            continue
        if code not in (0, 2) or not isinstance(answer, dict):
            tally.crash(f"{text[:200]!r}: exit code {code}")
        elif code == 2:
            tally.refused += 1
            json.dumps(answer)  # the refusal itself must be printable
    tally.seconds = time.perf_counter() - start
    return tally


# --------------------------------------------------------------------------- main

def run_all(inputs: int, seed: int, state_sample: int,
            report: Callable[[str], None] = print) -> list[Tally]:
    rng = random.Random(seed)
    tallies = [fuzz_orders(inputs, rng, state_sample)]
    report(tallies[-1].line())
    for name, seeds in engine_seeds().items():
        tallies.append(fuzz_engine(name, seeds, inputs, rng))
        report(tallies[-1].line())
    return tallies


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.fuzz")
    parser.add_argument("--inputs", type=int, default=100_000, help="inputs per target")
    parser.add_argument("--seed", type=int, default=16)
    parser.add_argument("--state-sample", type=int, default=2_000,
                        help="order texts also run against a real campaign")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    started = datetime.now(UTC)
    tallies = run_all(args.inputs, args.seed, args.state_sample)
    bad = [t for t in tallies if t.crashes or t.state_changes]
    for t in bad:
        for example in t.examples:
            print(f"  {t.name}: {example}")
    total = sum(t.inputs for t in tallies)
    print(f"total: {total} inputs over {len(tallies)} targets, "
          f"{sum(t.crashes for t in tallies)} crashes, "
          f"{sum(t.state_changes for t in tallies)} state changes "
          f"(seed {args.seed}, started {started:%Y-%m-%d %H:%M} UTC)")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
