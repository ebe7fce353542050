"""The Typer-free fast path of ``maester rules/engines/command`` (bot.cli.quick) answers
exactly as the Typer commands do, and leaves every other command line to Typer."""

from __future__ import annotations

import io
import json

import pytest
from typer.testing import CliRunner

from bot.cli import app
from bot.cli.quick import fast_path

BATTLE = json.dumps({"attacker": {"infantry": 100}, "defender": {"infantry": 80}, "seed": 1})


def quick(args: list[str], stdin: str, capsys: pytest.CaptureFixture[str],
          monkeypatch: pytest.MonkeyPatch) -> tuple[int | None, str]:
    monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    code = fast_path(args)
    return code, capsys.readouterr().out


@pytest.mark.parametrize(("args", "stdin"), [
    (["rules", "battle"], BATTLE),
    (["rules", "--jsonl", "odds"], f"{BATTLE}\n\n{{}}\nnot json\n{BATTLE}\n"),
    (["rules", "nope"], "{}"),
    (["rules", "battle"], '{"atacker": {}}'),
    (["rules", "battle"], "[1]"),
    (["engines"], ""),
    (["command", "!attack 8 dice 4+ vs 5+", "--seed", "1"], ""),
    (["command", "--seed=7", "!nonsense"], ""),
])
def test_the_fast_path_answers_as_typer_does(args: list[str], stdin: str,
                                             capsys: pytest.CaptureFixture[str],
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    code, out = quick(args, stdin, capsys, monkeypatch)
    typer_run = CliRunner().invoke(app, args, input=stdin)
    assert code == typer_run.exit_code
    assert out == typer_run.stdout and out.strip()


@pytest.mark.parametrize("args", [
    [], ["--help"], ["rules"], ["rules", "--help"], ["rules", "battle", "--help"],
    ["rules", "show"], ["rules", "schema", "battle"], ["rules", "battle", "extra"],
    ["rules", "battle", "-c", "config.toml"], ["rules", "--", "battle"], ["engines", "x"],
    ["command"], ["command", "!attack", "--seed"], ["command", "!help", "--seed", "1",
                                                    "--seed", "2"],
    ["command", "!help", "--bogus"], ["command", "a", "b"], ["-c", "x.toml", "rules", "battle"],
    ["status"],
])
def test_anything_else_is_left_to_typer(args: list[str], capsys: pytest.CaptureFixture[str],
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    assert quick(args, "{}", capsys, monkeypatch) == (None, "")
