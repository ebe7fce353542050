"""The moderators' catalogue and skill commands, and the settings they read."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from bot.cli import app
from bot.config import parse_settings
from bot.services.catalogue import (
    CatalogueError,
    catalogue_from_settings,
    fate_settings,
)
from bot.services.world import Parses
from rules.campaign.catalogue import Section
from rules.campaign.characters import DEFAULT_DEATH_TABLE, DEFAULT_INJURY_TABLE
from tests.bot.catalogue_world import World, roster

runner = CliRunner()


def _world(tmp_path: Path) -> tuple[World, Path]:
    world = World(tmp_path, claims=roster("tully", "lannister"))
    config = tmp_path / "config.toml"
    config.write_text(f'[campaign]\ndatabase_url = "sqlite:///{tmp_path / "campaign.db"}"\n\n'
                      '[catalogue]\nfile = "demo"\n', encoding="utf-8")
    return world, config


def test_skills_grant_and_remove_are_logged_with_the_moderator(tmp_path: Path) -> None:
    """`maester skills grant CHARACTER SKILL` and `skills remove` change the character's
    skills, record the moderator's name in the event log and tell the claim privately; bad
    names get the valid ones."""
    world, config = _world(tmp_path)
    done = runner.invoke(app, ["skills", "grant", "brynden tully", "blackfish", "-c",
                               str(config), "--by", "mod_jane"])
    assert done.exit_code == 0, done.output
    assert "Brynden Tully gains the skill Blackfish" in done.output
    assert world.character("Brynden Tully").skills_json == ["Blackfish"]
    [event] = world.events("skill_granted")
    assert event.actor == "mod_jane" and event.claim_id == world.claim("House Tully").id
    assert any("gains a skill" in o.title for o in world.outbox(target="hoster_tully"))
    bad = runner.invoke(app, ["skills", "grant", "Brynden Tully", "Blackfsh", "-c",
                              str(config), "--by", "mod_jane"])
    assert bad.exit_code == 2 and "skills: Blackfish, Shieldwall" in bad.output
    nobody = runner.invoke(app, ["skills", "grant", "Ser Nobody", "Blackfish", "-c",
                                 str(config)])
    assert nobody.exit_code == 2
    assert "characters: Tywin Lannister, Jaime Lannister, Brynden Tully" in nobody.output
    again = runner.invoke(app, ["skills", "grant", "Brynden Tully", "Blackfish", "-c",
                                str(config)])
    assert again.exit_code == 2 and "already has Blackfish" in again.output
    gone = runner.invoke(app, ["skills", "remove", "Brynden Tully", "BLACKFISH", "-c",
                               str(config), "--by", "mod_ann"])
    assert gone.exit_code == 0, gone.output
    assert world.character("Brynden Tully").skills_json == []
    assert [e.actor for e in world.events("skill_removed")] == ["mod_ann"]


def test_catalogue_show_prints_every_entry_and_marks_hidden_ones(tmp_path: Path) -> None:
    """`maester catalogue show` lists the catalogue in force, hidden entries marked, with the
    fate-table settings; it is logged."""
    world, config = _world(tmp_path)
    shown = runner.invoke(app, ["catalogue", "show", "-c", str(config), "--by", "mod_jane"])
    assert shown.exit_code == 0, shown.output
    assert "6 skills, 4 improvements, 2 equipment, 4 resource benefits" in shown.output
    assert "Stone Walls: x1.3 strength (defense) (300 gold, 3 months, HIDDEN)" in shown.output
    assert "roll_fates = false" in shown.output and "death table (d100)" in shown.output
    assert [e.actor for e in world.events("catalogue_show")] == ["mod_jane"]


def test_catalogue_check_names_the_bad_key(tmp_path: Path) -> None:
    """`maester catalogue check FILE` accepts a good file and refuses a bad one with the key
    and the closed list; both are logged when a campaign exists."""
    world, config = _world(tmp_path)
    good = tmp_path / "good.toml"
    good.write_text('[skills.Brynden]\neffects = [{kind = "strength", amount = "1.2"}]\n',
                    encoding="utf-8")
    bad = tmp_path / "bad.toml"
    bad.write_text('[skills.Brynden]\neffects = [{kind = "strenght", amount = "1.2"}]\n',
                   encoding="utf-8")
    ok = runner.invoke(app, ["catalogue", "check", str(good), "-c", str(config)])
    assert ok.exit_code == 0, ok.output
    assert "1 skills, 0 improvements" in ok.output
    assert "warning: the map's resource benefit 'gold_mine' is not in the catalogue" \
        in ok.output
    refused = runner.invoke(app, ["catalogue", "check", str(bad), "-c", str(config)])
    assert refused.exit_code == 2
    assert "catalogue.skills.Brynden.effects[0].kind: unknown effect 'strenght'; valid: " \
           "strength, detection" in refused.output
    assert [e.summary.rsplit(": ", 1)[1] for e in world.events("catalogue_check")] == \
        ["ok", "invalid"]


def test_catalogue_load_replaces_the_catalogue_in_force(tmp_path: Path) -> None:
    """`maester catalogue load FILE` validates the file and makes it the campaign's catalogue;
    orders then know only its names. A bad file changes nothing."""
    world, config = _world(tmp_path)
    new = tmp_path / "new.toml"
    new.write_text('[equipment.Rams]\ncost = 40\n'
                   'effects = [{kind = "strength", amount = "1.1", role = "attack"}]\n',
                   encoding="utf-8")
    loaded = runner.invoke(app, ["catalogue", "load", str(new), "-c", str(config), "--by",
                                 "mod_jane"])
    assert loaded.exit_code == 0, loaded.output
    world.say("tywin_lannister", "muster 10 infantry")
    assert "one of: Rams" in world.say("tywin_lannister", "buy Trebuchets for army 1")
    assert "carries **Rams**" in world.say("tywin_lannister", "buy rams for army 1")
    broken = tmp_path / "broken.toml"
    broken.write_text("[equipment.Rams]\ncost = 40\n", encoding="utf-8")
    refused = runner.invoke(app, ["catalogue", "load", str(broken), "-c", str(config)])
    assert refused.exit_code == 2 and "catalogue.equipment.Rams.effects" in refused.output
    assert [e.actor for e in world.events("catalogue_loaded")] == ["mod_jane"]


def test_a_broken_catalogue_is_not_shown_to_players(tmp_path: Path) -> None:
    """A catalogue the moderators broke makes orders that need it fail with an apology, not
    with the catalogue's insides."""
    world = World(tmp_path, claims=roster("frey"), catalogue={"improvements": {"Secret Vault": {
        "hidden": True, "cost": "x", "months": 1, "effects": [{"kind": "gold_income",
                                                                "amount": 1}]}}})
    reply = world.say("walder_frey", "build Walls at The Twins")
    assert "something went wrong on my side" in reply
    assert "Secret Vault" not in reply and "catalogue" not in reply


# --- settings ---------------------------------------------------------------------------------

def test_fate_settings_default_to_the_documented_tables() -> None:
    """Without a [characters] table the bot does not roll, and the tables are the defaults."""
    fates = fate_settings(parse_settings({}))
    assert not fates.roll
    assert fates.death_table == DEFAULT_DEATH_TABLE and fates.injury_table == DEFAULT_INJURY_TABLE
    assert fates.death_outcomes == frozenset({"dies"})


def test_fate_settings_read_the_moderators_tables() -> None:
    """Moderators set roll_fates, their own tables and which death outcomes kill."""
    fates = fate_settings(parse_settings({"characters": {
        "roll_fates": True, "death_table": {"1-50": "falls", "51-100": "lives"},
        "death_outcomes": ["falls"]}}))
    assert fates.roll and fates.death_table.outcome_of(50) == "falls"
    assert fates.death_table.name == "death" and fates.death_outcomes == frozenset({"falls"})


@pytest.mark.parametrize(("characters", "message"), [
    ({"roll_fate": True}, "characters.roll_fate: unknown setting"),
    ({"roll_fates": "yes"}, "characters.roll_fates: must be true or false"),
    ({"death_table": {"1-50": "dies"}}, "characters.death_table.rows: rows must cover 1-100"),
    ({"injury_table": {"one": "scar"}}, "characters.injury_table.one: is not a die range"),
    ({"death_outcomes": ["vanishes"]}, "'vanishes' is not an outcome of the death table"),
])
def test_fate_settings_errors_name_the_key(characters: dict[str, object], message: str) -> None:
    """A bad [characters] table is refused with the key at fault."""
    with pytest.raises(CatalogueError) as caught:
        fate_settings(parse_settings({"characters": characters}))
    assert message in str(caught.value)


def test_fate_settings_are_read_once_per_table() -> None:
    """The tick asks for the fate settings every time; the same table gives the same value
    without reading it again, and a changed table is read afresh."""
    settings = parse_settings({"characters": {"roll_fates": True}})
    parses = Parses()  # where a context keeps what it read
    first = fate_settings(settings, parses)
    assert fate_settings(parse_settings({"characters": {"roll_fates": True}}), parses) is first
    settings.characters["roll_fates"] = False
    assert not fate_settings(settings, parses).roll


def test_the_config_names_a_catalogue_file_or_holds_the_sections(tmp_path: Path) -> None:
    """[catalogue] is either file = "demo" / a path, or the sections themselves, not both."""
    assert catalogue_from_settings(parse_settings({"catalogue": {"file": "demo"}})).find(
        Section.SKILLS, "Blackfish") is not None
    inline = {"skills": {"Valour": {"effects": [{"kind": "strength", "amount": 2}]}}}
    assert catalogue_from_settings(parse_settings({"catalogue": inline})).names(
        Section.SKILLS) == ("Valour",)
    with pytest.raises(CatalogueError, match="either file"):
        catalogue_from_settings(parse_settings({"catalogue": {"file": "demo", **inline}}))
    with pytest.raises(CatalogueError, match="cannot be read"):
        catalogue_from_settings(parse_settings({"catalogue": {
            "file": str(tmp_path / "missing.toml")}}))
