"""The worked examples of docs/engines.md are what the engines really answer."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.engine_contract import run

DOC = Path(__file__).resolve().parent.parent / "docs" / "engines.md"
EXAMPLE = re.compile(r"<!-- engine: (\S+) -->\n```json\n(.*?)\n```", re.S)


def _examples() -> list[tuple[str, str]]:
    return EXAMPLE.findall(DOC.read_text())


def test_every_campaign_engine_has_a_worked_example() -> None:
    names = {name for name, _ in _examples()}
    assert names == {"battle", "odds", "movement", "muster", "detection", "retreat", "upkeep",
                     "siege"}


@pytest.mark.parametrize(("engine", "payload"), _examples(), ids=lambda v: str(v)[:20])
def test_worked_example_gives_the_documented_numbers(engine: str, payload: str) -> None:
    code, answer = run(engine, payload)
    assert code == 0, answer
    text = DOC.read_text()
    section = text[text.index(f"<!-- engine: {engine} -->"):]
    section = section[:section.index("\n## ")] if "\n## " in section else section
    # Every "key": value pair the doc shows after the input must be in the real answer.
    shown = re.findall(r'"(\w+)": ("[^"]*"|[-\d.]+|true|false)', section.split("```", 2)[2])
    flat = json.dumps(answer)
    assert shown, "the example shows no output"
    for key, value in shown:
        assert f'"{key}": {value}' in flat, f"{key}: {value} not in {flat}"


def test_the_documented_error_is_real() -> None:
    code, answer = run("siege", '{"garrison": "x"}')
    assert code == 2
    assert answer == {"error": "garrison: must be a whole number, not 'x' (expected e.g. 300)",
                      "field": "garrison"}
