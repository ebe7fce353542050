"""``maester rules ENGINE --jsonl``: one answer line per input line, errors included, exit 2 at
the end if any line was wrong."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from bot.cli import app
from bot.jsonapi.engines import run_engine

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
