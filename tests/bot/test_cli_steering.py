"""A moderator steering a campaign by hand: characters and their fates, removing
an army, adjusting with a dry run, previewing the outbox; and a player who writes
``as House X:``. Driven through the CLI and the order language on a real SQLite file."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlmodel import col, select
from typer.testing import CliRunner

from bot.cli import app
from tests.bot.test_cli import config, run

__all__ = ["config"]  # the demo campaign fixture of test_cli, shared

runner = CliRunner()
SOON = (datetime.now(UTC) + timedelta(days=2)).strftime("%Y-%m-%dT%H:00:00Z")


def refused(config: Path, *args: str) -> str:
    result = runner.invoke(app, [*args, "--config", str(config)], catch_exceptions=False)
    assert result.exit_code == 2, result.output
    return result.output


def characters(config: Path) -> dict[str, dict[str, object]]:
    return {c["name"]: c for c in json.loads(run(config, "export"))["characters"]}


def test_characters_lists_army_skills_and_state(config: Path) -> None:
    run(config, "order", "--as", "ned_stark", "muster 100 infantry\nassign Eddard Stark to "
        "army 1")
    out = run(config, "characters", "--claim", "House Stark")
    assert "Eddard Stark" in out and "Robb Stark" in out and "Tywin" not in out
    assert "alive" in out
    assert characters(config)["Eddard Stark"] == {
        "name": "Eddard Stark", "claim": "House Stark", "army": 1, "skills": [],
        "state": "alive"}
    assert "no claim called" in refused(config, "characters", "--claim", "House Nobody")


def test_dead_and_captured_characters_cannot_be_assigned(config: Path) -> None:
    run(config, "order", "--as", "ned_stark", "muster 100 infantry\nassign Eddard Stark to "
        "army 1")
    out = run(config, "character", "set", "Eddard Stark", "dead", "--note", "fell at the "
              "ford", "--by", "jane")
    assert "alive -> dead" in out and "leaves army 1" in out
    run(config, "character", "set", "robb stark", "captured", "--by", "jane")
    fates = characters(config)
    assert (fates["Eddard Stark"]["state"], fates["Eddard Stark"]["army"]) == ("dead", None)
    assert fates["Robb Stark"]["state"] == "captured"

    dead = run(config, "order", "--as", "ned_stark", "assign Eddard Stark to army 1")
    assert "**Not done:** Eddard Stark is dead" in dead and "**Example:**" in dead
    captive = run(config, "order", "--as", "ned_stark", "assign Robb Stark to army 1")
    assert "Robb Stark is a captive" in captive and "**Expected:**" in captive
    assert characters(config)["Robb Stark"]["army"] is None

    run(config, "character", "set", "Robb Stark", "free", "--by", "jane")
    assert "takes command of army 1" in run(config, "order", "--as", "ned_stark",
                                            "assign Robb Stark to army 1")
    # Wounded: the moderators ruled an injury; the character keeps its command.
    run(config, "character", "set", "Robb Stark", "wounded", "--by", "jane")
    assert characters(config)["Robb Stark"] == {
        "name": "Robb Stark", "claim": "House Stark", "army": 1, "skills": [],
        "state": "wounded"}
    log = run(config, "log", "--limit", "10")
    assert log.count("jane") >= 4 and "fell at the ford" in log


@pytest.mark.parametrize(("args", "words"), [
    (["Eddard Stark", "missing"], "is not a fate"),
    (["Nobody Snow", "dead"], "no character called"),
    (["Eddard Stark", "dead", "--claim", "House Lannister"], "no character called"),
])
def test_a_bad_fate_or_name_is_refused_and_changes_nothing(config: Path, args: list[str],
                                                            words: str) -> None:
    out = refused(config, "character", "set", *args)
    assert words in out and "nothing changed" in out
    assert {c["state"] for c in characters(config).values()} == {"alive"}


def test_army_remove_takes_the_troops_away_and_logs_the_moderator(config: Path) -> None:
    run(config, "order", "--as", "ned_stark", "muster 100 infantry\nassign Robb Stark to "
        "army 1")
    out = run(config, "army", "remove", "1", "--reason", "duplicate muster", "--by", "jane")
    assert "Army 1 of House Stark removed: 100 infantry" in out and "are gone" in out
    world = json.loads(run(config, "export"))
    assert [a["state"] for a in world["armies"]] == ["gone"]
    stark = next(c for c in world["claims"] if c["name"] == "House Stark")
    assert stark["infantry"] == 2900  # not sent home
    assert characters(config)["Robb Stark"]["army"] is None
    log = run(config, "log", "--limit", "3")
    assert "army_removed" in log and "jane" in log and "duplicate muster" in log
    assert "no raised army or fleet 1" in refused(config, "army", "remove", "1", "--reason",
                                                   "again")
    assert "--reason must say why" in refused(config, "army", "remove", "1", "--reason", " ")


def test_removing_a_besieging_army_ends_its_siege(custom: Path) -> None:
    run(custom, "adjust", "House North", "--gold", "+1000")
    run(custom, "order", "--as", "north_lord", "muster 100 infantry")
    run(custom, "order", "--as", "north_lord", "move army 1: Greenfield > Southwatch (cost 3)")
    run(custom, "tick", "--until", (datetime.now(UTC) + timedelta(days=4)).strftime(
        "%Y-%m-%dT%H:00:00Z"))
    assert "Army 1 besieges Southwatch" in run(custom, "order", "--as", "north_lord",
                                                "siege Southwatch with army 1")
    run(custom, "army", "remove", "1", "--reason", "ruled void", "--by", "jane")
    world = json.loads(run(custom, "export"))
    assert [s["status"] for s in world["sieges"]] == ["lifted"]
    assert any("Siege lifted: Southwatch" in o["title"] for o in world["outbox"])
    assert [a["state"] for a in world["armies"]] == ["gone"]


def test_adjust_shows_before_and_after_and_dry_run_writes_nothing(config: Path) -> None:
    out = run(config, "adjust", "House Stark", "--gold", "+100", "--infantry", "-50",
              "--dry-run")
    assert "before: gold 900, 3000 infantry" in out
    assert "after:  gold 1000, 2950 infantry" in out and "Dry run: nothing written" in out
    stark = next(c for c in json.loads(run(config, "export"))["claims"]
                 if c["name"] == "House Stark")
    assert (stark["gold"], stark["infantry"]) == ("900", 3000)
    assert "adjust" not in run(config, "log")
    out = run(config, "adjust", "House Stark", "--gold", "+100", "--by", "jane")
    assert "after:  gold 1000" in out and "Dry run" not in out
    stark = next(c for c in json.loads(run(config, "export"))["claims"]
                 if c["name"] == "House Stark")
    assert stark["gold"] == "1000"


def test_gold_is_printed_as_the_players_read_it(config: Path) -> None:
    """Found by hand: `maester claims` and `adjust` printed gold as stored (``267.0``,
    ``910.50``) where every reply and post says ``267`` and ``910.5``."""
    out = run(config, "adjust", "House Stark", "--gold", "+10.50", "--by", "jane")
    assert "before: gold 900," in out and "after:  gold 910.5," in out, out
    listed = run(config, "claims")
    assert " 910.5 " in listed and "910.50" not in listed, listed


def _bodies(config: Path) -> dict[int, str]:
    """What the delivery itself composes for each outbox entry, read from the database."""
    from bot.config import load_settings
    from bot.db.engine import transaction
    from bot.db.models import Outbox
    from bot.reddit.deliver import _snapshot as snapshot
    from bot.reddit.deliver import compose_body, compose_group
    from bot.services.access import open_campaign

    engine, ctx = open_campaign(load_settings(config), check_schema=False)
    now = datetime.now(UTC)
    with transaction(engine) as session:
        rows = session.exec(select(Outbox).order_by(col(Outbox.id))).all()
        out = {}
        for row in rows:
            entry = snapshot(row)
            out[row.id or 0] = (compose_group(ctx, [entry], now) if entry.dispatch
                                else compose_body(ctx, entry, now))
    engine.dispose()
    return out


def test_outbox_show_prints_the_body_as_reddit_gets_it(config: Path) -> None:
    run(config, "order", "--as", "ned_stark", "muster 100 infantry")
    run(config, "tick", "--until", SOON)
    bodies = _bodies(config)
    assert len(bodies) >= 2
    for number, body in bodies.items():
        shown = run(config, "outbox", "show", str(number))
        assert body in shown and "[](#maester:" in shown
    listing = run(config, "outbox", "--body")
    assert all(body in listing for body in bodies.values())
    assert "[](#maester:" not in run(config, "outbox")
    assert "no outbox entry #999" in refused(config, "outbox", "show", "999")
    assert "usage" in refused(config, "outbox", "show")


def test_only_moderators_may_act_for_another_claim(config: Path) -> None:
    reply = run(config, "order", "--as", "ned_stark", "as House Lannister: muster 10 cavalry")
    assert "only moderators can act for another claim" in reply
    assert "**Expected:**" in reply and "**Example:**" in reply
    assert json.loads(run(config, "export"))["armies"] == []
    done = run(config, "order", "--as", "mod_jane", "as House Lannister: muster 10 cavalry")
    assert "is mustering" in done


CUSTOM_MAP = """\
id,name,terrain,flags,resource_benefit,neighbours
0000,Northkeep,field,holdfast,,
0001,Greenfield,field,,,
0002,Cold Hollow,forest,resource,gold_mine,
0100,Eastmarch,hill,,,
0101,Southwatch,hill,holdfast,,
0102,,water,,,
0200,,field,,,
0201,,field,,,
"""

CUSTOM_ROSTER = """\
wars = [["House North", "House South"]]

[[claims]]
name = "House North"
holdfast = "Northkeep"
players = ["north_lord"]
infantry = 300
characters = ["Lord Umbrell"]

[[claims]]
name = "House South"
holdfast = "Southwatch"
players = ["south_lord"]
characters = ["Lady Sorrel"]
"""

DEMO_NAMES = ("Winterfell", "Riverrun", "Pyke", "Wolfswood", "Manderly", "Brynden", "Stark",
              "Lannister", "Stone Walls", "trebuchet")


@pytest.fixture
def custom(tmp_path: Path) -> Path:
    (tmp_path / "map.csv").write_text(CUSTOM_MAP)
    (tmp_path / "roster.toml").write_text(CUSTOM_ROSTER)
    path = tmp_path / "config.toml"
    path.write_text(
        f'[campaign]\ndatabase_url = "sqlite:///{tmp_path / "c.db"}"\n'
        f'map = "{tmp_path / "map.csv"}"\nmoderators = ["mod_jane"]\n\n'
        '[posts]\nguide_url = "https://example.org/wiki/guide"\n\n'
        '[catalogue.resources.gold_mine]\n'
        'effects = [{ kind = "gold_income", amount = 10 }]\n')
    result = runner.invoke(app, ["init", "--roster", str(tmp_path / "roster.toml"),
                                 "--config", str(path)])
    assert result.exit_code == 0, result.output
    return path


def test_help_names_every_order_with_this_campaigns_names_and_links_the_guide(
        custom: Path) -> None:
    from rules.campaign.language import VERBS

    reply = run(custom, "order", "--as", "north_lord", "help")
    for verb in VERBS:
        assert f"- **{verb}**:" in reply, verb
    assert "The players' guide: https://example.org/wiki/guide" in reply
    assert not [name for name in DEMO_NAMES if name in reply]
    assert "siege Southwatch with army" in reply and "sally from Northkeep" in reply
    assert "cede Cold Hollow to House South" in reply


def test_help_for_one_order_gives_an_example_that_works(custom: Path) -> None:
    run(custom, "order", "--as", "north_lord", "muster 100 infantry")
    reply = run(custom, "order", "--as", "north_lord", "help march")
    assert "**move**:" in reply and "Write it as: `move army N:" in reply
    assert not [name for name in DEMO_NAMES if name in reply]
    example = next(line.strip() for line in reply.splitlines()
                   if line.startswith("    move army 1:"))
    receipt = run(custom, "order", "--as", "north_lord", example)
    assert "Not done" not in receipt, receipt
    assert "assign Lord Umbrell to army 1" in run(custom, "order", "--as", "north_lord",
                                                   "help assign")
    unknown = run(custom, "order", "--as", "north_lord", "help juggle")
    assert "no order called juggle" in unknown and "**Example:** `help move`" in unknown


def test_help_without_a_guide_url_links_nothing(config: Path) -> None:
    reply = run(config, "order", "--as", "ned_stark", "help")
    assert "players' guide:" not in reply and "- **cede**:" in reply


def test_every_order_has_a_help_example() -> None:
    from bot.render.help import EXAMPLES
    from rules.campaign.language import VERBS

    assert tuple(EXAMPLES) == VERBS


@pytest.mark.postgres
def test_fates_assign_and_help_on_postgresql(tmp_path: Path, pg_url: str) -> None:
    """The state filters (free = alive or wounded) run the same on PostgreSQL."""
    path = tmp_path / "config.toml"
    path.write_text(f'[campaign]\ndatabase_url = "{pg_url}"\nmoderators = ["mod_jane"]\n')
    result = runner.invoke(app, ["init", "--demo", "--seed", "s", "--config", str(path)])
    assert result.exit_code == 0, result.output
    run(path, "order", "--as", "ned_stark", "muster 100 infantry")
    run(path, "character", "set", "Eddard Stark", "wounded")
    run(path, "character", "set", "Robb Stark", "captured")
    assert "takes command of army 1" in run(path, "order", "--as", "ned_stark",
                                            "assign Eddard Stark to army 1")
    assert "is a captive" in run(path, "order", "--as", "ned_stark",
                                 "assign Robb Stark to army 1")
    assert "assign Eddard Stark to army 1" in run(path, "order", "--as", "ned_stark",
                                                  "help assign")
    assert {c["name"]: c["state"] for c in json.loads(run(path, "export"))["characters"]
            if c["claim"] == "House Stark"} == {"Eddard Stark": "wounded",
                                                "Robb Stark": "captured"}
