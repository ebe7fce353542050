"""Every JSON engine has one runnable example in docs/engines.md or its pages, and it gives
what the docs show."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from bot.jsonapi.engines import ENGINES
from tests.engine_contract import run

DOCS = Path(__file__).resolve().parent.parent / "docs"
PAGES = [DOCS / "engines.md", *sorted((DOCS / "engines").glob("*.md"))]
EXAMPLE = re.compile(r"<!-- engine: (\S+) -->\n(?:<!-- [^>]* -->\n)?```json\n(.*?)\n```", re.S)
FULL_OUTPUT = re.compile(r"\A[^#]*?<!-- example: [^>]* output -->\n```json\n(.*?)\n```", re.S)


def _examples() -> list[tuple[str, str, str]]:
    """(engine, input, the text that follows it up to the next example or heading)."""
    found = []
    for page in PAGES:
        text = page.read_text()
        for match in EXAMPLE.finditer(text):
            rest = text[match.end():]
            stop = min((rest.find(m) for m in ("<!-- engine:", "\n#") if m in rest),
                       default=len(rest))
            found.append((match.group(1), match.group(2), rest[:stop]))
    return found


def test_every_engine_has_exactly_one_worked_example() -> None:
    names = [name for name, _, _ in _examples()]
    assert sorted(names) == sorted(ENGINES)


@pytest.mark.parametrize(("engine", "payload", "shown"), _examples(), ids=lambda v: str(v)[:24])
def test_worked_example_gives_what_the_docs_show(engine: str, payload: str, shown: str) -> None:
    code, answer = run(engine, payload)  # also validates both against the schemas
    assert code == 0, answer
    full = FULL_OUTPUT.search(shown)
    if full is not None:
        assert answer == json.loads(full.group(1))
        return
    # Every "key": value pair the doc shows after the input must be in the real answer.
    pairs = re.findall(r'"(\w+)": ("[^"]*"|[-\d.]+|true|false|null)', shown)
    assert pairs, "the example shows no output"
    flat = json.dumps(answer)
    for key, value in pairs:
        assert f'"{key}": {value}' in flat, f"{key}: {value} not in {flat}"


def test_the_documented_error_is_real() -> None:
    code, answer = run("siege", '{"garrison": "x"}')
    assert code == 2
    assert answer == {"error": "garrison: must be a whole number, not 'x' (expected e.g. 300)",
                      "field": "garrison"}


CONSOLE = re.compile(r"```(?:console|sh)\n(.*?)\n```", re.S)
COMMAND = re.compile(r"\$ (?:printf|echo) '(.*?)' \| maester rules (\S+)( --jsonl)?(; echo \$\?)?$")


def test_the_shell_examples_print_what_they_show() -> None:
    """Each `$ printf/echo '...' | maester rules ENGINE [--jsonl] [; echo $?]` of
    docs/engines.md prints exactly the lines shown under it (the answer, then the exit code
    when `echo $?` is run): a reader pasting one sees the same. The `...` the page puts in a
    long list of names stands for the rest of that list."""
    from io import StringIO

    from bot.cli.quick import run_rules

    checked = 0
    for block in CONSOLE.findall((DOCS / "engines.md").read_text()):
        lines = block.splitlines()
        for i, line in enumerate(lines):
            command = COMMAND.fullmatch(line)
            if command is None:
                continue
            text, engine, jsonl, echo = command.groups()
            shown = []
            for after in lines[i + 1:]:
                if after.startswith("$ "):
                    break
                shown.append(after)
            out = StringIO()
            code = run_rules(engine, bool(jsonl), StringIO(text.replace("\\n", "\n") + "\n"),
                             out)
            printed = out.getvalue().splitlines() + ([str(code)] if echo else [])
            assert len(printed) == len(shown), (line, printed)
            for real, doc in zip(printed, shown, strict=True):
                head, dots, tail = doc.partition("...")
                assert real == doc if not dots else (
                    real.startswith(head) and real.endswith(tail)), (real, doc)
            checked += 1
    assert checked >= 4
