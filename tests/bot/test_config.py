"""bot.config: the campaign's TOML settings, validated on start-up with errors naming the key."""

from __future__ import annotations

import dataclasses
import re
import tomllib
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from bot.config import (
    ConfigError,
    Settings,
    apply_rule_overrides,
    load_settings,
    parse_settings,
    rules_table,
)
from rules.campaign import calendar
from rules.campaign.battle import Side, band_for, casualty_row, resolve_battle
from rules.campaign.config import DEFAULT_RULES, RulesConfig, Terrain
from rules.campaign.siege import siege_months
from rules.dice import ScriptedDice

EXAMPLE = Path(__file__).resolve().parents[2] / "config.example.toml"


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "campaign.toml"
    path.write_text(text, encoding="utf-8")
    return path


def _error(data: dict[str, Any]) -> str:
    with pytest.raises(ConfigError) as caught:
        parse_settings(data, source="campaign.toml")
    return str(caught.value)


def _rules(overrides: dict[str, Any]) -> RulesConfig:
    return parse_settings({"rules": overrides}).rules_config()


# --- the example file ------------------------------------------------------------------------

def test_example_config_loads() -> None:
    """config.example.toml is a valid config: it loads with no error and no environment."""
    settings = load_settings(EXAMPLE, env={})
    assert settings.campaign.subreddit == "westeros_campaign"
    assert settings.campaign.map == "demo"
    assert settings.campaign.moderators == ["lordcommander", "maesteraemon"]
    assert settings.reddit.user_agent == ""  # built from the config (see test_gateway)
    assert settings.reddit.operator == "LordCommander"
    assert settings.calendar.epoch == datetime(2026, 1, 1, tzinfo=UTC)
    assert settings.rules_config() == DEFAULT_RULES


def test_example_config_overrides_are_valid_when_uncommented(tmp_path: Path) -> None:
    """The commented [rules] examples work once uncommented, chart override included."""
    text = EXAMPLE.read_text(encoding="utf-8")
    head, rules_part = text.split("\n[rules]\n", 1)
    rules_body, tail = rules_part.split("\n[posts]\n", 1)
    uncommented = "\n".join(
        line[2:] if re.match(r"# (\[|[a-z_]+ = )", line) else line
        for line in rules_body.splitlines()
    )
    path = _write(tmp_path, f"{head}\n[rules]\n{uncommented}\n[posts]\n{tail}")
    rules = load_settings(path, env={}).rules_config()
    assert rules.detection_radius == 2
    assert rules.reaction_ticks == 2
    assert rules.cost_of(Terrain.SWAMP) == 4
    assert rules.defender_bonus_of(Terrain.MOUNTAIN) == Decimal("2.5")
    assert rules.siege_months == DEFAULT_RULES.siege_months
    assert rules.siege_months[-1].max_size is None


def test_example_config_documents_every_environment_secret() -> None:
    """Every MAESTER_* variable the loader reads is named in the example's comments."""
    text = EXAMPLE.read_text(encoding="utf-8")
    for var in ("MAESTER_REDDIT_CLIENT_ID", "MAESTER_REDDIT_CLIENT_SECRET",
                "MAESTER_REDDIT_PASSWORD", "MAESTER_REDDIT_REFRESH_TOKEN",
                "MAESTER_DATABASE_URL"):
        assert var in text


# --- loading -----------------------------------------------------------------------------------

def test_no_file_means_all_defaults() -> None:
    """Without a config file every setting takes its default."""
    settings = load_settings(None, env={})
    assert settings == Settings()
    assert settings.rules_config() == DEFAULT_RULES


def test_missing_file_is_named(tmp_path: Path) -> None:
    """A config path that does not exist is an error naming the path."""
    path = tmp_path / "nope.toml"
    with pytest.raises(ConfigError, match=r"nope\.toml: no such config file"):
        load_settings(path, env={})


def test_invalid_toml_is_named(tmp_path: Path) -> None:
    """A file that is not TOML is an error naming the file."""
    path = _write(tmp_path, "[campaign\nname = 1\n")
    with pytest.raises(ConfigError, match=r"campaign.toml: not valid TOML"):
        load_settings(path, env={})


def test_binary_or_directory_config_is_one_clear_error(tmp_path: Path) -> None:
    """A config that is a directory or not text is a ConfigError naming the path."""
    binary = tmp_path / "binary.toml"
    binary.write_bytes(bytes(range(256)))
    with pytest.raises(ConfigError, match=r"binary\.toml: not a text file"):
        load_settings(binary, env={})
    with pytest.raises(ConfigError, match=r"cannot be read"):
        load_settings(tmp_path, env={})


def test_errors_name_the_file(tmp_path: Path) -> None:
    """A validation error starts with the file it came from."""
    path = _write(tmp_path, "[bot]\npoll_seconds = 'often'\n")
    with pytest.raises(ConfigError, match=r"^.*campaign\.toml: bot\.poll_seconds"):
        load_settings(path, env={})


@pytest.mark.parametrize(("table", "problem"), [
    ('roll_fate = true', "characters.roll_fate: unknown setting"),
    ('roll_fates = "yes"', "characters.roll_fates: must be true or false"),
    ('death_table = { "1-50" = "dies" }', "characters.death_table.rows: rows must cover 1-100"),
    ('injury_table = { "one" = "scar" }', "characters.injury_table.one: is not a die range"),
    ('death_outcomes = ["vanishes"]', "'vanishes' is not an outcome of the death table"),
])
def test_a_malformed_characters_table_is_refused_when_the_config_loads(
        tmp_path: Path, table: str, problem: str) -> None:
    """A bad ``[characters]`` table stops the config from loading, with one line naming the
    file and the key (not every tick later)."""
    path = _write(tmp_path, f"[characters]\n{table}\n")
    with pytest.raises(ConfigError) as caught:
        load_settings(path, env={})
    message = str(caught.value)
    assert message.startswith(str(path) + ": characters.") and problem in message
    assert "\n" not in message


def test_a_good_characters_table_loads(tmp_path: Path) -> None:
    path = _write(tmp_path, '[characters]\nroll_fates = true\n'
                            'death_table = { "1-50" = "falls", "51-100" = "lives" }\n'
                            'death_outcomes = ["falls"]\n')
    assert load_settings(path, env={}).characters["roll_fates"] is True


# --- every key error names the key -----------------------------------------------------------

@pytest.mark.parametrize(("data", "key"), [
    ({"bot": {"pol_seconds": 30}}, "bot.pol_seconds"),
    ({"campaign": {"subredit": "westeros"}}, "campaign.subredit"),
    ({"battles": {}}, "battles"),
    ({"reddit": {"timeout": 10}}, "reddit.timeout"),
])
def test_unknown_key_is_named(data: dict[str, Any], key: str) -> None:
    """A key no section knows is refused, naming the section and the key."""
    assert f"{key}: Extra inputs are not permitted" in _error(data)


@pytest.mark.parametrize(("data", "key"), [
    ({"bot": {"poll_seconds": "often"}}, "bot.poll_seconds"),
    ({"bot": {"poll_seconds": 1}}, "bot.poll_seconds"),
    ({"bot": {"comment_commands": "maybe"}}, "bot.comment_commands"),
    ({"reddit": {"timeout_seconds": 0}}, "reddit.timeout_seconds"),
    ({"campaign": {"moderators": "u/one"}}, "campaign.moderators"),
    ({"calendar": {"month_hours": 2}}, "calendar.month_hours"),
    ({"calendar": {"months_per_year": 0}}, "calendar.months_per_year"),
    ({"posts": {"battle_title": 3}}, "posts.battle_title"),
    ({"rules": []}, "rules"),
])
def test_wrong_type_or_range_is_named(data: dict[str, Any], key: str) -> None:
    """A value of the wrong type or out of range is refused, naming the key."""
    assert f"campaign.toml: {key}: " in _error(data)


@pytest.mark.parametrize("name", ["r/westeros", "wes teros", "w", "a" * 22, "westeros!"])
def test_bad_subreddit_name_is_named(name: str) -> None:
    """A subreddit must be its bare name: 2-21 letters, digits or underscores."""
    assert "campaign.subreddit" in _error({"campaign": {"subreddit": name}})


def test_naive_calendar_epoch_is_refused(tmp_path: Path) -> None:
    """An epoch written without a time zone (a TOML local date-time) is refused by key."""
    path = _write(tmp_path, "[calendar]\nepoch = 2026-01-01T00:00:00\n")
    with pytest.raises(ConfigError, match=r"calendar\.epoch: .*time zone|calendar\.epoch: .*Z"):
        load_settings(path, env={})


def test_calendar_epoch_with_offset_is_read_as_utc(tmp_path: Path) -> None:
    """An epoch with any offset is kept as the same instant in UTC."""
    path = _write(tmp_path, "[calendar]\nepoch = 2026-01-01T02:00:00+02:00\n")
    epoch = load_settings(path, env={}).calendar.epoch
    assert epoch == datetime(2026, 1, 1, tzinfo=UTC)
    assert epoch.tzinfo is UTC


def test_moderator_names_are_normalised() -> None:
    """Moderators may be written with u/ and any case; blanks are dropped."""
    settings = parse_settings({"campaign": {"moderators": [" u/Ser_Davos ", "Sam", " "]}})
    assert settings.campaign.moderators == ["ser_davos", "sam"]


# --- [rules] overrides -------------------------------------------------------------------------

def test_unknown_rules_key_is_named() -> None:
    """A [rules] key that is not a RulesConfig field is refused, listing the known ones."""
    message = _error({"rules": {"detection_radiuss": 2}})
    assert "campaign.toml: rules.detection_radiuss: unknown rule setting" in message
    assert "detection_radius" in message


@pytest.mark.parametrize(("overrides", "key"), [
    ({"detection_radius": "2"}, "rules.detection_radius"),
    ({"detection_radius": 1.5}, "rules.detection_radius"),
    ({"detection_radius": True}, "rules.detection_radius"),
    ({"detection_radius": -1}, "rules.detection_radius"),
    ({"tick_hours": 0}, "rules.tick_hours"),
    ({"months_per_year": 0}, "rules.months_per_year"),
    ({"infantry_upkeep": True}, "rules.infantry_upkeep"),
    ({"infantry_upkeep": "a lot"}, "rules.infantry_upkeep"),
    ({"infantry_upkeep": "-0.1"}, "rules.infantry_upkeep"),
    ({"infantry_upkeep": float("nan")}, "rules.infantry_upkeep"),
    ({"cavalry_upkeep": "Infinity"}, "rules.cavalry_upkeep"),
    ({"cavalry_upkeep": [1]}, "rules.cavalry_upkeep"),
    ({"month_length": 1.5}, "rules.month_length"),
    ({"month_length": 0}, "rules.month_length"),
    ({"epoch": "2026-01-01"}, "rules.epoch"),
    ({"tick_offset": 3}, "rules.tick_offset"),  # the holidays: set by `maester resume`
    ({"terrain_cost": 2}, "rules.terrain_cost"),
    ({"terrain_cost": {"lava": 2}}, "rules.terrain_cost"),
    ({"terrain_cost": {"forest": "2"}}, "rules.terrain_cost"),
    ({"terrain_cost": {"forest": 0}}, "rules.terrain_cost"),
    ({"defender_bonus": {"hill": "steep"}}, "rules.defender_bonus"),
    ({"bands": []}, "rules.bands"),
    ({"bands": {"name": "equal"}}, "rules.bands"),
    ({"retreat": [18, 15]}, "rules.retreat"),
    ({"tick_hours": 10**30}, "rules.tick_hours"),
    ({"month_length": 10**30}, "rules.month_length"),
    ({"detection_radius": 10**30}, "rules.detection_radius"),
    ({"infantry_upkeep": "1e999999"}, "rules.infantry_upkeep"),
    ({"defender_bonus": {"hill": "NaN"}}, "rules.defender_bonus"),
    ({"casualties": [{"min_margin": 10**30, "winner_pct": "40", "loser_pct": "50"}]},
     "rules.casualties"),
])
def test_wrong_typed_rules_value_is_named(overrides: dict[str, Any], key: str) -> None:
    """A [rules] value of the wrong type or out of range is refused, naming the key."""
    assert f"campaign.toml: {key}: " in _error({"rules": overrides})


@pytest.mark.parametrize(("row", "problem"), [
    ({"min_margin": 0, "winner_pct": "40", "loser_pct": "50", "capturd": True},
     "unknown key 'capturd'"),
    ({"winner_pct": "40", "loser_pct": "50"}, "missing min_margin"),
    ({"min_margin": "0", "winner_pct": "40", "loser_pct": "50"}, "min_margin must be a whole"),
    ({"min_margin": 0, "winner_pct": "many", "loser_pct": "50"}, "winner_pct 'many' is not"),
    ({"min_margin": 0, "winner_pct": "40", "loser_pct": "50", "captured": 1},
     "captured must be true or false"),
])
def test_bad_chart_row_is_named(row: dict[str, Any], problem: str) -> None:
    """A bad row of a chart override names the chart, the row and what is wrong with it."""
    message = _error({"rules": {"casualties": [row]}})
    assert "rules.casualties: row 0: " in message
    assert problem in message


def test_scalar_overrides_apply() -> None:
    """Scalars are set by field name; decimals given as strings stay exact."""
    rules = _rules({"detection_radius": 3, "infantry_upkeep": "0.15", "cavalry_upkeep": 1,
                    "month_length": 48, "muster_hours": 12})
    assert rules.detection_radius == 3
    assert rules.infantry_upkeep == Decimal("0.15")
    assert rules.cavalry_upkeep == Decimal(1)
    assert rules.month_length == timedelta(hours=48)
    assert rules.muster_hours == 12
    assert dataclasses.replace(rules, detection_radius=1, infantry_upkeep=Decimal("0.1"),
                               cavalry_upkeep=Decimal("0.4"), month_length=timedelta(days=1),
                               muster_hours=24) == DEFAULT_RULES


def test_terrain_table_overrides_change_only_the_named_terrains() -> None:
    """[rules.terrain_cost] and [rules.defender_bonus] change the terrains named, keep the rest."""
    rules = _rules({"terrain_cost": {"Forest": 3}, "defender_bonus": {"hill": "1.6"}})
    assert rules.cost_of(Terrain.FOREST) == 3
    assert rules.cost_of(Terrain.HILL) == 2
    assert rules.defender_bonus_of(Terrain.HILL) == Decimal("1.6")
    assert rules.defender_bonus_of(Terrain.MOUNTAIN) == Decimal("2.2")


def test_chart_override_replaces_the_chart(tmp_path: Path) -> None:
    """An array of tables replaces the whole chart; a row without its upper bound is open-ended.

    Here a harsher battle chart (automatic win from 2.01) and a two-row casualty chart decide a
    battle that the default charts would not.
    """
    path = _write(tmp_path, """
[[rules.bands]]
name = "equal"
max_ratio = "1.25"
equal = true
[[rules.bands]]
name = "1.26-2.00"
max_ratio = "2.00"
bonus = 4
[[rules.bands]]
name = "auto"
auto = true

[[rules.casualties]]
min_margin = 0
winner_pct = "10"
loser_pct = "90"
[[rules.casualties]]
min_margin = 10
winner_pct = "0"
loser_pct = "100"
captured = true
""")
    rules = load_settings(path, env={}).rules_config()
    assert [b.name for b in rules.bands] == ["equal", "1.26-2.00", "auto"]
    assert rules.bands[-1].max_ratio is None
    assert len(rules.casualties) == 2
    assert band_for(Decimal("2.01"), rules).auto
    assert casualty_row(9, rules).loser_pct == Decimal(90)
    result = resolve_battle(Side(infantry=150), Side(infantry=100), dice=ScriptedDice([7]),
                            rules=rules)
    assert result.band == "1.26-2.00"
    assert (result.attacker.roll, result.defender.roll, result.margin) == (11, 10, 1)
    assert result.attacker.losses.infantry == 15
    assert result.defender.losses.infantry == 90
    assert rules.siege_months == DEFAULT_RULES.siege_months


def test_siege_chart_override_applies() -> None:
    """A replaced siege chart decides siege lengths, its last row covering every larger garrison."""
    rules = _rules({"siege_months": [{"max_size": 500, "value": 9}, {"value": 4}]})
    assert siege_months(500, rules).months == 9
    assert siege_months(501, rules).months == 4
    assert siege_months(100_000, rules).months == 4


def test_apply_rule_overrides_without_a_file() -> None:
    """apply_rule_overrides works on any base and leaves the base unchanged."""
    changed = apply_rule_overrides(DEFAULT_RULES, {"flat_roll": 11})
    assert changed.flat_roll == 11
    assert DEFAULT_RULES.flat_roll == 10
    assert apply_rule_overrides(DEFAULT_RULES, {}) == DEFAULT_RULES


# --- the calendar and the environment ----------------------------------------------------------

def test_rules_config_applies_the_calendar() -> None:
    """[calendar] sets the epoch, the epoch year, the month length and the months per year."""
    settings = parse_settings({"calendar": {
        "epoch": datetime(2027, 3, 1, 6, tzinfo=UTC), "epoch_year": 298, "month_hours": 48,
        "months_per_year": 10,
    }})
    rules = settings.rules_config()
    assert rules.epoch == datetime(2027, 3, 1, 6, tzinfo=UTC)
    assert rules.epoch_year == 298
    assert rules.month_length == timedelta(hours=48)
    assert rules.months_per_year == 10
    later = datetime(2027, 3, 1, 6, tzinfo=UTC) + timedelta(days=2 * 10)
    assert calendar.game_date(later, rules) == calendar.GameDate(299, 1)


def test_rules_keys_win_over_the_calendar() -> None:
    """A [rules] key for a calendar number is applied after [calendar]."""
    rules = parse_settings({"calendar": {"month_hours": 48, "months_per_year": 10},
                            "rules": {"months_per_year": 6}}).rules_config()
    assert rules.month_length == timedelta(hours=48)
    assert rules.months_per_year == 6


def test_environment_overrides_secrets(tmp_path: Path) -> None:
    """MAESTER_* variables win over the file for the Reddit secrets and the database URL."""
    path = _write(tmp_path, """
[campaign]
database_url = "sqlite:///file.db"
[reddit]
client_id = "file-id"
client_secret = "file-secret"
password = "file-password"
""")
    env = {
        "MAESTER_REDDIT_CLIENT_ID": "env-id",
        "MAESTER_REDDIT_CLIENT_SECRET": "env-secret",
        "MAESTER_REDDIT_PASSWORD": "env-password",
        "MAESTER_REDDIT_REFRESH_TOKEN": "env-token",
        "MAESTER_DATABASE_URL": "postgresql+psycopg://maester@127.0.0.1/maester",
    }
    settings = load_settings(path, env=env)
    assert settings.reddit.client_id == "env-id"
    assert settings.reddit.client_secret == "env-secret"
    assert settings.reddit.password == "env-password"
    assert settings.reddit.refresh_token == "env-token"
    assert settings.campaign.database_url == "postgresql+psycopg://maester@127.0.0.1/maester"


def test_empty_environment_variable_keeps_the_file_value(tmp_path: Path) -> None:
    """An empty MAESTER_* variable does not blank out the file's value."""
    path = _write(tmp_path, '[reddit]\nclient_secret = "file-secret"\n')
    settings = load_settings(path, env={"MAESTER_REDDIT_CLIENT_SECRET": ""})
    assert settings.reddit.client_secret == "file-secret"


def test_environment_secrets_without_a_file() -> None:
    """Secrets from the environment apply even when no config file is given."""
    settings = load_settings(None, env={"MAESTER_REDDIT_CLIENT_SECRET": "s3cret"})
    assert settings.reddit.client_secret == "s3cret"


# --- the values in force -----------------------------------------------------------------------

def test_rules_table_lists_every_setting() -> None:
    """rules_table has one row per RulesConfig field, in field order."""
    names = [name for name, _ in rules_table(DEFAULT_RULES)]
    assert names == [f.name for f in dataclasses.fields(RulesConfig)]


def test_rules_table_shows_the_values_in_force() -> None:
    """Overridden values appear in the table; charts are shown row by row."""
    rules = _rules({"detection_radius": 2, "infantry_upkeep": "0.2",
                    "siege_months": [{"max_size": 100, "value": 12}, {"value": 5}]})
    table = dict(rules_table(rules))
    assert table["detection_radius"] == "2"
    assert table["infantry_upkeep"] == "0.2"
    assert table["siege_months"] == "(max_size=100 value=12); (max_size=and above value=5)"
    assert table["terrain_cost"].startswith("field=1; forest=2")


def test_example_file_is_plain_toml() -> None:
    """The example parses as TOML on its own, with every section of the settings present."""
    data = tomllib.loads(EXAMPLE.read_text(encoding="utf-8"))
    assert set(data) == set(Settings.model_fields)


# --- webhooks (issue #30) ---------------------------------------------------------------------

@pytest.mark.parametrize("url", [
    "https://discord.com/api/webhooks/123456789012345678/AbCdEf-GhIjKl_MnOp",
    "https://discordapp.com/api/webhooks/1/abcdefghijkl",
    "https://canary.discord.com/api/webhooks/1/abcdefghijkl",
])
def test_discord_webhook_addresses_are_accepted(url: str) -> None:
    from bot.config import webhook_url_problem

    assert webhook_url_problem(url) is None


@pytest.mark.parametrize(("url", "why"), [
    ("http://discord.com/api/webhooks/1/abcdefghijkl", "https"),
    ("https://discord.com.evil.example/api/webhooks/1/abcdefghijkl", "not a Discord"),
    ("https://user:pw@discord.com/api/webhooks/1/abcdefghijkl", "not a Discord"),
    ("https://discord.com/api/webhooks/1/abcdefghijkl/extra", "nothing else"),
    ("https://discord.com/api/webhooks/1/abcdefghijkl#x", "nothing else"),
    ("https://discord.com/api/webhooks/1/short", "nothing else"),
    ("https://hooks.example.org/api/webhooks/1/abcdefghijkl", "not a Discord"),
])
def test_other_addresses_are_refused_with_the_reason(url: str, why: str) -> None:
    from bot.config import webhook_url_problem

    problem = webhook_url_problem(url)
    assert problem is not None and why in problem


def test_an_allowed_prefix_opens_another_host_and_public_webhooks_are_checked() -> None:
    """``allowed_prefixes`` admits another service; a public webhook outside Discord and the
    prefixes is refused at load time, naming the key without printing the token."""
    from bot.config import webhook_url_problem

    prefix = "https://hooks.example.org/api/webhooks/"
    assert webhook_url_problem(prefix + "1/abcdefghijkl", [prefix]) is None
    parse_settings({"webhooks": {"allowed_prefixes": [prefix],
                                 "public": [prefix + "1/abcdefghijkl"]}})
    with pytest.raises(ConfigError, match=r"webhooks\.public") as info:
        parse_settings({"webhooks": {"public": [
            "https://evil.example/api/webhooks/1/secret-token-value-xyz"]}})
    assert "secret-token-value-xyz" not in str(info.value)
    with pytest.raises(ConfigError, match="allowed_prefixes"):
        parse_settings({"webhooks": {"allowed_prefixes": ["https://no-slash"]}})
