"""``maester rules ENGINE --jsonl``: one answer line per input line, errors included, exit 2 at
the end if any line was wrong."""

from __future__ import annotations

import io
import json

import pytest
from typer.testing import CliRunner

from bot.cli import app
from bot.cli.quick import run_jsonl
from bot.jsonapi.engines import ENGINE_NAMES, MAX_JSON_DEPTH, run_engine, too_deep

runner = CliRunner()


def test_each_line_gets_its_answer_in_order_and_errors_do_not_stop_the_rest() -> None:
    lines = ['{"garrison": 250}', '{"garrison": "x"}', "", "not json", '{"garrison": 40}']
    done = runner.invoke(app, ["rules", "siege", "--jsonl"], input="\n".join(lines) + "\n")
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert done.exit_code == 2
    assert len(answers) == 4  # the blank line is skipped
    assert answers[0] == run_engine("siege", lines[0])[1]
    assert answers[1] == {"error": "garrison: must be a whole number, not 'x' (expected e.g. "
                                   "300)", "field": "garrison"}
    assert answers[2]["error"].startswith("input: not valid JSON")
    assert answers[3] == run_engine("siege", lines[4])[1]


def test_all_good_lines_exit_0_and_match_the_one_object_mode() -> None:
    battles = [json.dumps({"attacker": {"infantry": 100 + i}, "defender": {"infantry": 90},
                           "seed": i}) for i in range(20)]
    done = runner.invoke(app, ["rules", "battle", "--jsonl"], input="\n".join(battles) + "\n")
    assert done.exit_code == 0, done.output
    single = [json.loads(runner.invoke(app, ["rules", "battle"], input=b).stdout)
              for b in battles[:3]]
    assert [json.loads(a) for a in done.stdout.splitlines()[:3]] == single
    assert len(done.stdout.splitlines()) == 20


def test_an_unknown_engine_answers_every_line_with_the_known_names() -> None:
    done = runner.invoke(app, ["rules", "nope", "--jsonl"], input="{}\n{}\n")
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert done.exit_code == 2 and len(answers) == 2
    assert all("known engines: battle" in a["error"] for a in answers)


@pytest.mark.parametrize("engine", ENGINE_NAMES)
@pytest.mark.parametrize("depth", [MAX_JSON_DEPTH + 1, 990, 2_000, 200_000])
def test_hostile_nesting_at_any_depth_is_refused_and_the_next_line_still_runs(
        engine: str, depth: int) -> None:
    """Issue 24 item 8: nesting past Python's recursion limit (about 990) used to end the run
    with a RecursionError; every depth now gets ``{"error", "field"}`` naming where the
    nesting went too deep, and the next ``--jsonl`` line is answered."""
    deep = [
        "[" * depth + "]" * depth,
        '{"a":' * depth + "1" + "}" * depth,
        '{"dice": [1, ' + "[" * depth + "]" * depth + "]}",
    ]
    good = '{"seed": 7}'
    out = io.StringIO()
    code = run_jsonl(engine, io.StringIO("\n".join([*deep, good]) + "\n"), out)
    answers = [json.loads(line) for line in out.getvalue().splitlines()]
    assert code == 2
    assert len(answers) == 4
    fields = [a["field"] for a in answers[:3]]
    assert fields[0] == "[0]" * MAX_JSON_DEPTH
    assert fields[1] == ".".join(["a"] * MAX_JSON_DEPTH)
    assert fields[2] == "dice[1]" + "[0]" * (MAX_JSON_DEPTH - 2)
    assert all(f"nested more than {MAX_JSON_DEPTH}" in a["error"] for a in answers[:3])
    assert answers[3] == run_engine(engine, good)[1]


def test_nesting_within_the_limit_reaches_the_engine_and_brackets_in_strings_do_not_count(
        ) -> None:
    fine = '{"attacker": {"infantry": "' + "[" * 5000 + '"}, "defender": {"infantry": 9}}'
    code, answer = run_engine("battle", fine)
    assert code == 2
    assert answer["field"] == "attacker.infantry"
    assert too_deep("[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH) is None
    assert too_deep('{"k\\"ey": [' + "[" * MAX_JSON_DEPTH) == 'k"ey' + "[0]" * (MAX_JSON_DEPTH - 1)
