"""``maester map check|render|update`` and ``init``'s checks, run as a moderator would."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
from PIL import Image
from sqlmodel import select
from typer.testing import CliRunner

from bot.cli import app
from bot.db.engine import make_engine, transaction
from bot.db.models import Campaign, Event
from bot.maps import demo_map_text

runner = CliRunner()

SMALL_MAP = """\
# a small custom map
id,name,terrain,flags,resource_benefit,neighbours
0000,Northkeep,field,holdfast,,
0001,,field,,,
0100,,forest,resource,gold_mine,
0101,Southwatch,hill,holdfast;port,,
0102,,water,,,
0200,,field,,,-0101
0201,,field,,,
"""

ROSTER = """\
wars = [["House North", "House South"]]

[[claims]]
name = "House North"
holdfast = "Northkeep"
players = ["north_lord"]
infantry = 300
cavalry = 50
characters = ["Old Bear"]

[[claims]]
name = "House South"
holdfast = "0101"
players = ["south_lord"]
characters = ["Young Wolf"]
"""


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    (tmp_path / "map.csv").write_text(SMALL_MAP)
    (tmp_path / "roster.toml").write_text(ROSTER)
    (tmp_path / "config.toml").write_text(
        f'[campaign]\ndatabase_url = "sqlite:///{tmp_path / "c.db"}"\n'
        f'map = "{tmp_path / "map.csv"}"\n'
        'moderators = ["mod_jane"]\n\n[catalogue.resources.gold_mine]\n'
        'effects = [{ kind = "gold_income", amount = 10 }]\n')
    return {"map": tmp_path / "map.csv", "roster": tmp_path / "roster.toml",
            "config": tmp_path / "config.toml", "dir": tmp_path}


def invoke(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args), catch_exceptions=False)
    return result.exit_code, result.output


def test_a_misspelt_roster_key_and_a_shared_character_name_are_errors(
        files: dict[str, Path]) -> None:
    """`init` refuses both, so the check calls them errors, with the fix."""
    roster = files["roster"]
    text = roster.read_text()
    roster.write_text(text.replace("cavalry = 50", "cavalery = 50", 1))
    code, out = invoke("map", "check", "--roster", str(roster), "--config",
                       str(files["config"]))
    assert code == 1, out
    # the message of init's own check of an entry (issue 24: the check now makes init's check)
    assert "claims[0].cavalery: is not a known key; did you mean 'cavalry'?" in out
    roster.write_text(text.replace("Young Wolf", "Old Bear"))
    code, out = invoke("map", "check", "--roster", str(roster), "--config",
                       str(files["config"]))
    assert code == 1, out
    assert "character 'Old Bear' has the same name" in out


@pytest.mark.parametrize(("change", "words"), [
    (('players = ["north_lord"]', 'players = "north_lord"'), "claims[0].players"),
    (("infantry = 300", 'infantry = 300\ngold = "1_000"'), "claims[0].gold"),
    (('name = "House North"', 'name = "House [North](https://evil.example)"'), "claims[0].name"),
])
def test_the_check_refuses_what_init_refuses(files: dict[str, Path], tmp_path: Path,
                                             change: tuple[str, str], words: str) -> None:
    """Issue 24: ``players = "name"`` was read letter by letter and passed the check, which
    `init` then refused; the check now makes init's own check of every entry."""
    text = files["roster"].read_text()
    assert change[0] in text
    bad = text.replace(change[0], change[1], 1)
    roster = tmp_path / "bad.toml"
    roster.write_text(bad)
    code, out = invoke("map", "check", "--roster", str(roster), "--config",
                       str(files["config"]))
    assert code == 1, out
    assert words in out
    code, out = invoke("init", "--roster", str(roster), "--config", str(files["config"]))
    assert code != 0, out
    assert words.split(".")[-1] in out


def test_check_names_warnings_and_passes(files: dict[str, Path]) -> None:
    code, out = invoke("map", "check", "--roster", str(files["roster"]), "--config",
                       str(files["config"]))
    assert code == 0, out
    assert "line 8, tile 0200: cut to 0101, which is not a neighbour" in out
    assert "port Southwatch: its water reaches no other port" in out
    assert "0 error(s), 2 warning(s)" in out
    assert not (files["dir"] / "c.db").exists()  # no database needed, none made


def test_check_fails_on_errors_with_line_and_tile(files: dict[str, Path], tmp_path: Path
                                                  ) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text(SMALL_MAP.replace("0001,,field", "0001,,lava"))
    code, out = invoke("map", "check", str(bad), "--config", str(files["config"]))
    assert code == 1
    assert "line 4, tile 0001: unknown terrain 'lava'" in out
    roster = tmp_path / "r.toml"
    roster.write_text(ROSTER.replace("infantry = 300", "infantry = -5")
                      .replace('holdfast = "0101"', 'holdfast = "0001"')
                      .replace('"House South"\nholdfast', '"house north"\nholdfast'))
    code, out = invoke("map", "check", "--roster", str(roster), "--config",
                       str(files["config"]))
    assert code == 1, out
    assert "claims[0].infantry: is out of range" in out  # init's own message (issue 24)
    assert "0001 is not a holdfast" in out
    assert "claim name 'house north' is already used" in out
    assert "wars[0] names 'House South', which is no claim" in out


def test_check_warns_about_resources_missing_from_the_catalogue(files: dict[str, Path]
                                                                ) -> None:
    files["config"].write_text(files["config"].read_text().split("[catalogue")[0])
    code, out = invoke("map", "check", "--config", str(files["config"]))
    assert code == 0
    assert "resource benefit 'gold_mine' (tile 0100) is not in the catalogue" in out


def test_init_runs_the_checks_first_and_writes_nothing_on_error(files: dict[str, Path]
                                                                ) -> None:
    files["roster"].write_text(ROSTER.replace("infantry = 300", "infantry = -5"))
    result = runner.invoke(app, ["init", "--roster", str(files["roster"]), "--config",
                                 str(files["config"])])
    assert result.exit_code == 2
    assert "claims[0].infantry: is out of range" in result.output
    assert "Traceback" not in result.output and isinstance(result.exception, SystemExit)
    assert not (files["dir"] / "c.db").exists()
    broken = files["dir"] / "broken.toml"
    broken.write_text("[[claims]\nname =")
    result = runner.invoke(app, ["init", "--roster", str(broken), "--config",
                                 str(files["config"])])
    assert result.exit_code == 2 and "not valid TOML" in result.output
    assert isinstance(result.exception, SystemExit)


@pytest.fixture
def campaign(files: dict[str, Path]) -> dict[str, Path]:
    code, out = invoke("init", "--roster", str(files["roster"]), "--seed", "s", "--config",
                       str(files["config"]))
    assert code == 0, out
    assert "Campaign created" in out
    return files


def test_render_writes_a_png_of_the_campaign(campaign: dict[str, Path]) -> None:
    out_file = campaign["dir"] / "public.png"
    code, out = invoke("map", "render", "--out", str(out_file), "--config",
                       str(campaign["config"]))
    assert code == 0, out
    image = Image.open(io.BytesIO(out_file.read_bytes()))
    assert image.format == "PNG" and f"{image.size[0]}x{image.size[1]} px" in out
    svg = campaign["dir"] / "mod.svg"
    code, out = invoke("map", "render", "--out", str(svg), "--view", "moderator", "--labels",
                       "names", "--config", str(campaign["config"]))
    assert code == 0 and "Northkeep" in svg.read_text()
    code, out = invoke("map", "render", "--out", str(svg), "--view", "claim:House North",
                       "--around", "Northkeep", "--radius", "1", "--config",
                       str(campaign["config"]))
    assert code == 0 and "0102" not in svg.read_text()  # two steps away


@pytest.mark.parametrize(("args", "message"), [
    (("--view", "claim:House Nobody"), "no claim is called 'House Nobody'"),
    (("--view", "everyone"), "public, moderator or claim:NAME"),
    (("--around", "Nowhere"), "no tile is called 'Nowhere'"),
    (("--labels", "all"), "expected ids, names or both"),
    (("--out", "map.jpg"), "expected a file ending in .png or .svg"),
])
def test_render_refuses_bad_options_clearly(campaign: dict[str, Path], args: tuple[str, ...],
                                            message: str) -> None:
    result = runner.invoke(app, ["map", "render", *args, "--config", str(campaign["config"])])
    assert result.exit_code == 2 and message in result.output
    assert isinstance(result.exception, SystemExit)


def test_render_a_map_file_alone_needs_no_campaign(files: dict[str, Path]) -> None:
    out_file = files["dir"] / "alone.png"
    code, out = invoke("map", "render", "--map", str(files["map"]), "--out", str(out_file),
                       "--config", str(files["config"]))
    assert code == 0, out
    assert Image.open(out_file).format == "PNG"


def test_render_sizes_a_picture_by_width_or_hex_size(files: dict[str, Path]) -> None:
    """A small map is drawn at least 1,000 px wide by default; --width sets the width,
    --hex-size the hexes; both together, or a width under 300 px, are refused."""
    out_file = files["dir"] / "sized.png"
    base = ("map", "render", "--map", str(files["map"]), "--out", str(out_file), "--config",
            str(files["config"]))
    code, out = invoke(*base)
    assert code == 0, out
    assert Image.open(out_file).size[0] >= 1000
    code, out = invoke(*base, "--width", "2400")
    assert code == 0, out
    assert Image.open(out_file).size[0] == 2400 and "2400x" in out
    code, out = invoke(*base, "--hex-size", "20")
    assert code == 0, out
    small = Image.open(out_file).size[0]
    code, out = invoke(*base, "--hex-size", "40")
    assert Image.open(out_file).size[0] > small
    result = runner.invoke(app, [*base, "--width", "900", "--hex-size", "20"])
    assert result.exit_code == 2 and "give one of them" in result.output
    result = runner.invoke(app, [*base, "--width", "200"])
    assert result.exit_code == 2 and "greater than or equal to 300" in result.output


def _stored_map(config: dict[str, Path]) -> str:
    engine = make_engine(f"sqlite:///{config['dir'] / 'c.db'}")
    with transaction(engine) as session:
        return session.exec(select(Campaign)).one().map_text


def test_update_shows_the_difference_and_needs_yes(campaign: dict[str, Path]) -> None:
    from bot.config import load_settings
    from bot.services.world import load_context, refreshed

    engine = make_engine(f"sqlite:///{campaign['dir'] / 'c.db'}")
    with transaction(engine) as session:  # a running bot's context, made before the update
        running = load_context(session, load_settings(campaign["config"]))
    with transaction(engine) as session:
        assert refreshed(session, running) is running  # nothing to take up yet
    new = campaign["dir"] / "new.csv"
    new.write_text(SMALL_MAP.replace("0000,Northkeep", "0000,North Keep")
                   + "0202,,field,,,\n")
    code, out = invoke("map", "update", str(new), "--config", str(campaign["config"]))
    assert code == 0
    assert "added tiles (1): 0202" in out and "renamed 0000: Northkeep -> North Keep" in out
    assert "run again with --yes" in out
    assert _stored_map(campaign) == SMALL_MAP
    code, out = invoke("map", "update", str(new), "--yes", "--by", "mod_jane", "--config",
                       str(campaign["config"]))
    assert code == 0 and "map updated" in out
    assert _stored_map(campaign) == new.read_text()
    engine = make_engine(f"sqlite:///{campaign['dir'] / 'c.db'}")
    with transaction(engine) as session:
        event = session.exec(select(Event).where(Event.kind == "map_updated")).one()
    assert event.actor == "mod_jane" and event.data_json["added"] == ["0202"]
    assert not event.public
    assert "0202" not in running.world
    with transaction(engine) as session:
        taken_up = refreshed(session, running)
    assert taken_up is not running and "0202" in taken_up.world


def test_update_refuses_a_map_that_strands_a_claim(campaign: dict[str, Path]) -> None:
    new = campaign["dir"] / "new.csv"
    new.write_text(SMALL_MAP.replace("0000,Northkeep,field,holdfast", "0000,Northkeep,field,"))
    code, out = invoke("map", "update", str(new), "--yes", "--config", str(campaign["config"]))
    assert code == 1
    assert "House North's holdfast 0000 (Northkeep) is no longer a holdfast" in out
    assert "NOT changed" in out and _stored_map(campaign) == SMALL_MAP
    bad = campaign["dir"] / "bad.csv"
    bad.write_text("id,terrain\n0000,lava\n")
    code, out = invoke("map", "update", str(bad), "--config", str(campaign["config"]))
    assert code == 2 and "unknown terrain 'lava'" in out


def test_check_of_the_demo_map_with_the_demo_catalogue_is_clean(tmp_path: Path) -> None:
    config = tmp_path / "c.toml"
    config.write_text('[catalogue]\nfile = "demo"\n')
    code, out = invoke("map", "check", "--config", str(config))
    assert code == 0 and "0 error(s), 0 warning(s)" in out, out
    assert json.dumps(demo_map_text())  # the shipped map is text


def _with_bonus(value: str) -> str:
    return (SMALL_MAP.replace("neighbours\n", "neighbours,defense_bonus\n")
            .replace("0000,Northkeep,field,holdfast,,\n",
                     f"0000,Northkeep,field,holdfast,,,{value}\n"))


@pytest.mark.parametrize("value", ["9.9", "1e999", "0.5", "3.000001"])
def test_a_defense_bonus_outside_the_public_range_is_an_error_in_check_and_update(
        files: dict[str, Path], campaign: dict[str, Path], value: str) -> None:
    """Issue 24: bonuses such as 9.9 or 1e999 were accepted by `map check` and `map update`,
    though posts promise players every bonus lies in defense_bonus_min..defense_bonus_max
    (1 to 3 by default). The error names the tile and the range, never the bonus."""
    bad = files["dir"] / "bonus.csv"
    bad.write_text(_with_bonus(value))
    code, out = invoke("map", "check", str(bad), "--config", str(files["config"]))
    assert code == 1, out
    assert "tile 0000: the defense bonus is outside the public range 1 to 3" in out
    assert value not in out
    code, out = invoke("map", "update", str(bad), "--yes", "--config", str(campaign["config"]))
    assert code == 1, out
    assert "tile 0000: the defense bonus is outside the public range 1 to 3" in out
    assert "NOT changed" in out and _stored_map(campaign) == SMALL_MAP


def test_a_defense_bonus_inside_the_range_passes_and_a_wider_configured_range_allows_more(
        files: dict[str, Path]) -> None:
    good = files["dir"] / "bonus.csv"
    good.write_text(_with_bonus("2.5"))
    code, out = invoke("map", "check", str(good), "--config", str(files["config"]))
    assert code == 0, out
    good.write_text(_with_bonus("9.9"))
    files["config"].write_text(files["config"].read_text().replace(
        "[catalogue", "[rules]\ndefense_bonus_max = \"10\"\n\n[catalogue", 1))
    code, out = invoke("map", "check", str(good), "--config", str(files["config"]))
    assert code == 0, out


@pytest.mark.parametrize(("rules", "words"), [
    ('defense_bonus_max = "0.5"', "rules.defense_bonus_max: must be at least defense_bonus_min"),
    ('defense_bonus_min = "0"', "rules.defense_bonus_min: must be above 0"),
    ('defense_bonus_min = "4"', "rules.defense_bonus_max: must be at least defense_bonus_min"),
])
def test_a_defense_bonus_range_that_is_no_range_is_refused(tmp_path: Path, rules: str,
                                                           words: str) -> None:
    """Issue 24: defense_bonus_max below the minimum was accepted."""
    from bot.config import ConfigError, load_settings

    config = tmp_path / "c.toml"
    config.write_text(f"[rules]\n{rules}\n")
    with pytest.raises(ConfigError, match=re.escape(words)):
        load_settings(config)


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
def test_a_map_file_that_never_ends_is_refused_not_read_for_ever(
        files: dict[str, Path], campaign: dict[str, Path]) -> None:
    """Issue 24: `map update /dev/zero` read for ever; reading stops at MAX_MAP_BYTES."""
    from bot.maps import MAX_MAP_BYTES

    code, out = invoke("map", "update", "/dev/zero", "--config", str(campaign["config"]))
    assert code == 2
    assert f"larger than {MAX_MAP_BYTES // (1024 * 1024)} MB" in out
    code, out = invoke("map", "check", "/dev/zero", "--config", str(files["config"]))
    assert code == 1 and "larger than" in out


def test_check_lists_the_neutral_garrisons_of_unheld_holdfasts(files: dict[str, Path],
                                                              tmp_path: Path) -> None:
    """Issue 23: the map's `garrison` column is shown for every holdfast that is no claim's
    seat (the troops a besieger meets there without a war); the seats are left out."""
    text = SMALL_MAP.replace("region,neighbours", "region,neighbours,garrison")
    text = text.replace("resource_benefit,neighbours", "resource_benefit,neighbours,garrison")
    text = text.replace("0201,,field,,,", "0201,Stonegate,field,holdfast,,,250")
    text = text.replace("0001,,field,,,", "0001,Oldtower,field,holdfast,,,")
    mapped = tmp_path / "garrisons.csv"
    mapped.write_text(text)
    code, out = invoke("map", "check", str(mapped), "--roster", str(files["roster"]),
                       "--config", str(files["config"]))
    assert code == 0, out
    line = next(x for x in out.splitlines() if x.startswith("neutral garrisons"))
    assert line == ("neutral garrisons (holdfasts that are no claim's seat): Oldtower 0, "
                    "Stonegate 250")
