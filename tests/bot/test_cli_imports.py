"""The CLI imports only what a command uses: each case runs ``maester ...`` in a fresh process
and reads ``sys.modules`` at its end.

The rules engines, ``maester command`` and ``--help`` never load the storage, Reddit or
scheduler stacks; the database commands never load Reddit, the scheduler or the migration tool.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bot.cli import COMMANDS, app, load_command
from bot.jsonapi.engines import ENGINE_MODULES, load_engines

STACKS = ("sqlalchemy", "sqlmodel", "alembic", "psycopg", "praw", "prawcore", "apscheduler")
# What the plain rules commands (run by bot.cli.quick) leave out besides: the argument parser
# and the pydantic it converts arguments with, the contract models, Rich, package metadata.
HEAVY = ("typer", "pydantic", "pydantic_core", "rich", "bot.jsonapi.contract",
         "bot.jsonapi.models", "importlib.metadata")
ROOT = Path(__file__).resolve().parents[2]

# Runs the CLI as the console script does, then writes the loaded top-level packages (and
# every bot.* module, and importlib.metadata) to stderr after a marker line.
_PROBE = """
import json, sys
from bot.cli import main
sys.argv = ["maester", *json.loads(sys.argv[1])]
try:
    main()
except SystemExit:
    pass
finally:
    names = sorted({m.split(".")[0] for m in sys.modules} | {
        m for m in sys.modules if m.startswith("bot.") or m == "importlib.metadata"})
    sys.stderr.write("\\nMODULES " + json.dumps(names) + "\\n")
"""


def loaded_modules(*args: str, stdin: str = "") -> tuple[set[str], str]:
    """The modules loaded by ``maester ARGS`` (fed ``stdin``) and its standard output."""
    done = subprocess.run([sys.executable, "-c", _PROBE, json.dumps(list(args))], cwd=ROOT,
                          input=stdin, capture_output=True, text=True, timeout=120, check=False)
    marker = done.stderr.rpartition("\nMODULES ")[2]
    assert marker.strip(), done.stderr
    return set(json.loads(marker)), done.stdout


@pytest.mark.parametrize("engine", sorted(load_engines()))
def test_every_rules_engine_runs_without_the_storage_reddit_or_scheduler_stacks(engine: str
                                                                               ) -> None:
    modules, out = loaded_modules("rules", engine, stdin="{}\n")
    assert json.loads(out)  # the engine answered (here: which field is missing)
    assert modules.isdisjoint(STACKS), sorted(modules.intersection(STACKS))
    assert modules.isdisjoint(HEAVY), sorted(modules.intersection(HEAVY))


def test_jsonl_and_battle_with_a_real_payload_stay_light() -> None:
    """A campaign engine loads neither the other stacks nor the tabletop engines."""
    payload = {"attacker": {"infantry": 100}, "defender": {"infantry": 80}, "seed": 1}
    modules, out = loaded_modules("rules", "battle", "--jsonl",
                                  stdin=json.dumps(payload) + "\n")
    assert json.loads(out)["winner"] in ("attacker", "defender")
    assert modules.isdisjoint(STACKS), sorted(modules.intersection(STACKS))
    assert modules.isdisjoint(HEAVY), sorted(modules.intersection(HEAVY))
    assert {"bot.jsonapi.campaign_battle"} <= modules
    assert modules.isdisjoint({"bot.jsonapi.boardgame", "bot.jsonapi.miniatures",
                               "bot.jsonapi.cardgame", "bot.jsonapi.campaign_world"})


def test_each_engine_is_in_the_module_the_table_names() -> None:
    engines = load_engines()
    named = {name: module for module, names in ENGINE_MODULES.items() for name in names}
    assert named == {name: engine.fn.__module__ for name, engine in engines.items()}


def test_bot_command_and_engine_list_stay_light() -> None:
    modules, out = loaded_modules("command", "!attack 8 dice 4+ vs 5+", "--seed", "1")
    assert "Expected wounds" in out
    assert modules.isdisjoint(STACKS), sorted(modules.intersection(STACKS))
    assert modules.isdisjoint(HEAVY), sorted(modules.intersection(HEAVY))
    modules, out = loaded_modules("engines")
    assert "battle" in out and modules.isdisjoint(STACKS)
    assert modules.isdisjoint(HEAVY), sorted(modules.intersection(HEAVY))


def test_an_unusual_rules_call_still_goes_through_typer() -> None:
    """What the fast path does not recognise (here --help) is Typer's, with its full help."""
    modules, out = loaded_modules("rules", "--help")
    assert "--jsonl" in out and "typer" in modules
    assert modules.isdisjoint(STACKS), sorted(modules.intersection(STACKS))


def test_help_lists_every_command_and_imports_only_the_command_table() -> None:
    modules, out = loaded_modules("--help")
    for entry in COMMANDS:
        assert f"  {entry.name} " in out, entry.name
    assert modules.isdisjoint(STACKS)
    assert "rich" not in modules and "pydantic" not in modules
    assert {m for m in modules if m.startswith("bot.")} == {
        "bot.cli", "bot.cli.listing", "bot.cli.options", "bot.cli.group", "bot.cli.quick"}


def test_the_command_table_matches_the_commands_it_names() -> None:
    """Each entry's summary is its command's own first help line, and each command module
    defines no command that the table does not list."""
    import importlib

    import typer

    modules: dict[str, set[str]] = {}
    for entry in COMMANDS:
        command = load_command(entry)
        assert (command.help or "").strip().splitlines()[0] == entry.summary, entry.name
        modules.setdefault(entry.module, set()).add(entry.name)
    for module, names in modules.items():
        built = typer.main.get_command(importlib.import_module(module).app)
        assert set(getattr(built, "commands", {built.name: built})) == names, module


def test_database_commands_do_not_load_reddit_the_scheduler_or_migrations(
        tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text(f'[campaign]\ndatabase_url = "sqlite:///{tmp_path / "c.db"}"\n')
    assert CliRunner().invoke(app, ["init", "--demo", "-c", str(config)]).exit_code == 0
    for args in (["status"], ["order", "--as", "ned_stark", "muster 10 infantry"]):
        modules, out = loaded_modules(*args, "-c", str(config))
        assert "sqlalchemy" in modules and out.strip(), args  # it did open the database
        assert modules.isdisjoint({"praw", "prawcore", "apscheduler", "alembic"}), (
            args, sorted(modules.intersection(STACKS)))
