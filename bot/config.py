"""The campaign's settings: one object loaded from TOML and validated on start-up.

Errors name the key (``reddit.user_agent: field required``). Secrets may come from the
environment instead of the file: ``MAESTER_REDDIT_CLIENT_SECRET``, ``MAESTER_REDDIT_PASSWORD``,
``MAESTER_REDDIT_REFRESH_TOKEN``, ``MAESTER_REDDIT_CLIENT_ID``, and ``MAESTER_DATABASE_URL``.
Nothing here connects to anything: engines and clients are made by the caller.
"""

from __future__ import annotations

import dataclasses
import os
import re
import tomllib
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from rules.beacon import QUICKNET_GENESIS, QUICKNET_HASH, QUICKNET_PERIOD, QUICKNET_PUBLIC_KEY
from rules.campaign import config as rc
from rules.campaign.characters import read_fate_settings
from rules.campaign.inputs import MAX_GOLD, MAX_TROOPS
from rules.errors import InvalidInput


class ConfigError(Exception):
    """The config file is missing or wrong; the message names the key."""


class _Section(BaseModel):
    # Frozen: settings are shared by the scheduler's threads through the campaign context;
    # a change is a new value (:meth:`Settings.configured`), never an assignment.
    model_config = ConfigDict(extra="forbid", frozen=True)


class CampaignSettings(_Section):
    name: str = "Westeros campaign"
    subreddit: str = Field(default="westeros", pattern=r"^[A-Za-z0-9_]{2,21}$")
    database_url: str = "sqlite:///maester.db"
    map: str = "demo"  # "demo" or a path to a map CSV file
    moderators: list[str] = Field(default_factory=list)
    seed: str | None = None

    @field_validator("moderators")
    @classmethod
    def _lower(cls, value: list[str]) -> list[str]:
        return [v.strip().lower().removeprefix("u/") for v in value if v.strip()]


class RedditSettings(_Section):
    client_id: str = ""
    client_secret: str = ""
    username: str = ""
    password: str = ""
    refresh_token: str = ""
    #: "" builds ``python:maester-campaign.<bot>:v<version> (by /u/<operator>)``.
    user_agent: str = ""
    #: The moderator who runs the bot (named in the user agent); "" for the first moderator.
    operator: str = ""
    oauth_url: str = "https://oauth.reddit.com"
    reddit_url: str = "https://www.reddit.com"
    timeout_seconds: int = Field(default=16, ge=1, le=120)


class BotSettings(_Section):
    poll_seconds: int = Field(default=30, ge=5, le=3600)
    publish_seconds: int = Field(default=15, ge=1, le=3600)
    #: Pacing: the least time between two posts, and between two messages or replies.
    post_spacing_seconds: float = Field(default=5.0, ge=0, le=600)
    message_spacing_seconds: float = Field(default=1.0, ge=0, le=600)
    #: Pacing: at most this many posts, messages and replies in any minute (0: no cap).
    sends_per_minute: int = Field(default=20, ge=0, le=100)
    comment_commands: bool = True
    requests_per_minute: int = Field(default=60, ge=1, le=100)
    max_attempts: int = Field(default=8, ge=1, le=100)
    #: A post's picture upload failing for a passing reason (storage 403/503, a timeout, a
    #: lease 500) is tried again with the outbox's back-off this many attempts in all
    #: (at most max_attempts); then the post goes out as text with a note.
    picture_attempts: int = Field(default=4, ge=1, le=100)
    #: A claim's dispatch conversation takes the bot's private news for this many real days;
    #: then the next note starts a new one (named after its in-game month).
    dispatch_days: float = Field(default=7, gt=0, le=366)
    #: The file where every process of the bot's account on this machine counts its sends
    #: for pacing ("": ~/.cache/maester/pace-<account>.json).
    pace_file: str = Field(default="", max_length=500)
    archive_answered: bool = False
    lease_seconds: int = Field(default=180, ge=30, le=3600)
    # A clock jump or an --until further than this is not caught up without a moderator.
    max_catch_up_days: int = Field(default=31, ge=1, le=36600)
    # snapshots of the world kept for `maester undo` / `rollback` (one per tick and command)
    snapshots_kept: int = Field(default=200, ge=1, le=100_000)
    # a due tick waits at most this long for modmail the bot cannot read (Reddit down)
    tick_wait_minutes: int = Field(default=30, ge=0, le=1440)
    # the longest time between two intake rounds that list every modmail folder (between
    # them an idle round only asks Reddit for the unread counts)
    full_poll_minutes: int = Field(default=10, ge=1, le=1440)
    # the campaign's AutoModerator orders rule (docs/automoderator.yaml): a forward is read
    # as orders only if its subject starts with `forward_subject`, it holds the template's
    # marker line, or the forwarded post has the orders flair or title tag
    forward_subject: str = Field(default="Orders from u/", max_length=100)
    orders_flair: str = Field(default="Orders", max_length=64)
    orders_title_tag: str = Field(default="[Orders]", max_length=64)
    # the orders rule also removes the posts (`action: remove`, to keep orders secret): the
    # bot then needs the moderator permission 'posts' to read them (`maester check` fails
    # without it)
    orders_posts_removed: bool = False


class CalendarSettings(_Section):
    epoch: datetime = datetime(2026, 1, 1, tzinfo=UTC)
    epoch_year: int = 300
    month_hours: int = Field(default=24, ge=6)
    months_per_year: int = Field(default=12, ge=1, le=100)

    @field_validator("epoch")
    @classmethod
    def _aware(cls, value: datetime) -> datetime:
        if value.tzinfo is None:
            raise ValueError("must be a UTC time with an offset or Z, e.g. 2026-01-01T00:00:00Z")
        return value.astimezone(UTC)


class PostSettings(_Section):
    arrival_title: str = "[Arrival] {claim} arrives at {tile}"
    battle_title: str = "[Battle] {attacker} vs {defender} at {tile}"
    siege_title: str = "[Siege] {event}: {holdfast}"
    scatter_title: str = "[Scatter] The armies of {claim} scatter"
    arrival_flair: str = ""
    battle_flair: str = ""
    siege_flair: str = ""
    scatter_flair: str = ""
    # the public post of a moderator's undo or rollback ({date}: the moment taken back to)
    correction_title: str = "[Correction] The world is taken back to {date}"
    correction_flair: str = ""
    # the monthly [Realm] post with the public map, and inset maps on posts
    realm_post: bool = True
    realm_title: str = "[Realm] The realm at the start of {date}"
    realm_flair: str = ""
    # the [Realm] post shows the month past as an animated picture (GIF) ending on the map
    realm_film: bool = False
    inset_maps: bool = False
    inset_radius: int = Field(default=3, ge=1, le=10)
    # the players' guide, linked from the `help` reply ("" = no link)
    guide_url: str = Field(default="", max_length=300)
    # a sidebar widget (a text area) showing the in-game date and the next tick, kept up to
    # date by the outbox after every tick (needs the structuredstyles scope and the bot's
    # "Manage Settings" moderator permission)
    sidebar_widget: bool = False
    sidebar_widget_name: str = Field(default="Campaign clock", min_length=1, max_length=30)


class DiceSettings(_Section):
    """Verifiable dice (docs/dice.md): commit before each period, reveal after it."""

    period_months: int = Field(default=1, ge=1, le=120)
    publish: bool = True
    title: str = "[Dice] Period {period}: commitments and reveal"
    flair: str = ""
    #: A public randomness beacon mixed into every event's seed (docs/dice.md): "drand", or ""
    #: for commit-reveal alone. Each tick is bound to the first round at or after its moment
    #: plus ``beacon_margin`` seconds; the chain is pinned by hash, public key, genesis, period.
    beacon: str = Field(default="", pattern=r"^(drand)?$")
    beacon_url: str = Field(default="https://api.drand.sh", max_length=300,
                            pattern=r"^https?://[^\s]+$")
    beacon_chain: str = Field(default=QUICKNET_HASH, pattern=r"^[0-9a-f]{64}$")
    beacon_public_key: str = Field(default=QUICKNET_PUBLIC_KEY, pattern=r"^[0-9a-f]{192}$")
    beacon_genesis: int = Field(default=QUICKNET_GENESIS, ge=0)
    beacon_period: int = Field(default=QUICKNET_PERIOD, ge=1, le=3600)
    #: seconds after a tick's moment: the tick's orders are final at its moment (by Reddit's
    #: clock); the margin covers the clocks' drift between Reddit, the bot and the beacon
    beacon_margin: int = Field(default=10, ge=0, le=3600)
    #: the longest a catch-up waits for the beacon, in seconds, in all: then the dice of the
    #: ticks it could not bind come from commit-reveal alone, and their posts say so
    beacon_timeout: float = Field(default=15.0, gt=0, le=300)
    #: where players read docs/dice.md's steps, linked from every post with dice when the
    #: campaign's web pages have no public address ("": the steps are named in words)
    verify_url: str = Field(default="", max_length=300, pattern=r"^(https?://[^\s]*)?$")


APPROVABLE = ("adjust", "undo", "rollback", "map update", "skills grant", "army remove",
              "fates", "relations set", "holdfast give")
"""The moderators' actions ``[moderators] approval`` may put behind a second moderator."""


def reddit_name(value: str) -> str:
    """A Reddit user name as the config compares them: trimmed, without ``u/``, lower case."""
    return value.strip().lower().removeprefix("u/").removeprefix("/u/")


class ModeratorSettings(_Section):
    """Second approval and involved moderators (:mod:`bot.services.proposals`)."""

    approval: list[str] = Field(default_factory=list)
    plays: dict[str, list[str]] = Field(default_factory=dict)

    @field_validator("approval")
    @classmethod
    def _actions(cls, value: list[str]) -> list[str]:
        out = [" ".join(v.lower().split()) for v in value]
        for action in out:
            if action not in APPROVABLE:
                raise ValueError(f"{action!r} is not an action that can wait for approval: "
                                 f"one of {', '.join(repr(a) for a in APPROVABLE)}, e.g. "
                                 'approval = ["undo", "rollback"]')
        return out

    @field_validator("plays")
    @classmethod
    def _names(cls, value: dict[str, list[str]]) -> dict[str, list[str]]:
        return {reddit_name(k): [c.strip() for c in v if c.strip()] for k, v in value.items()}


class ClaimsSettings(_Section):
    """A claim's life over a long campaign: inactivity, leave, hold and hand-over
    (:mod:`bot.services.absence`)."""

    # real days without a message from the claim's players before it is inactive (and held)
    inactive_after_days: int = Field(default=14, ge=1, le=3650)
    # its players are warned privately this many days before (0: no warning)
    warn_days_ahead: int = Field(default=3, ge=0, le=3650)
    # the longest leave a player or moderator may announce, in real days
    leave_max_days: int = Field(default=90, ge=1, le=3650)
    # what holding a claim does: "stop" (its armies stop where they stand) or "none"
    hold: str = Field(default="stop", pattern=r"^(stop|none)$")
    # a public post when a claim is handed over to a new player
    transfer_post: bool = True
    # whether one Reddit user may play several claims (``claims transfer/add``); such a
    # player starts each message with `as House X:` to say which claim it is for
    players_may_play_several: bool = False


class WebSettings(_Section):
    """The campaign's web pages (docs/web.md): served by ``maester run`` when ``enabled``."""

    enabled: bool = False
    host: str = "127.0.0.1"
    port: int = Field(default=8080, ge=1, le=65535)
    #: The pages' public address (e.g. https://maester.example.org), used in the links the
    #: players receive; empty: links are sent as paths only.
    public_url: str = Field(default="", max_length=300, pattern=r"^(https?://[^\s]*)?$")
    #: A folder that ``maester run`` refreshes with the static realm after each tick ("": none).
    export_dir: str = ""
    #: Failed link attempts allowed per address per minute before it gets 429s.
    failed_per_minute: int = Field(default=10, ge=1, le=10_000)


#: Where a webhook may point without an allow list: Discord's own webhook addresses.
DISCORD_WEBHOOK_PREFIXES = ("https://discord.com/api/webhooks/",
                            "https://discordapp.com/api/webhooks/",
                            "https://ptb.discord.com/api/webhooks/",
                            "https://canary.discord.com/api/webhooks/")
_WEBHOOK_TAIL = re.compile(r"[0-9]{1,25}/[A-Za-z0-9_-]{10,100}")
WEBHOOK_EXAMPLE = "https://discord.com/api/webhooks/123456789012345678/AbCdEf-GhIjKl_MnOp"


def webhook_url_problem(url: str, allowed_prefixes: tuple[str, ...] | list[str] = ()
                        ) -> str | None:
    """Why ``url`` is not a webhook address maester sends to (None: it is one).

    It must be a Discord webhook (``https://discord.com/api/webhooks/ID/TOKEN``; also
    discordapp.com, ptb. and canary.) or start with one of ``allowed_prefixes`` (``[webhooks]
    allowed_prefixes``, each ending in ``/``), followed by ``ID/TOKEN`` and nothing else: no
    query, no fragment, no spaces, no user name or password.
    """
    if len(url) > 300:
        return "it is too long (at most 300 characters)"
    prefix = next((p for p in (*DISCORD_WEBHOOK_PREFIXES, *allowed_prefixes)
                   if p.endswith("/") and url.startswith(p)), None)
    if prefix is None:
        if not url.startswith("https://"):
            return "it must start with https://"
        return ("it is not a Discord webhook address (https://discord.com/api/webhooks/"
                "ID/TOKEN)")
    if not _WEBHOOK_TAIL.fullmatch(url[len(prefix):]):
        return "after /api/webhooks/ it must have the webhook's number and token, nothing else"
    return None


class WebhookSettings(_Section):
    """Outbound webhooks (Discord-compatible): public posts, and each claim's private news to
    the webhook the claim registered by modmail (``webhook URL``)."""

    #: Further address prefixes a webhook may start with besides Discord's (each ending in /).
    allowed_prefixes: list[str] = Field(default_factory=list)
    #: Webhooks that receive every public post once it is on Reddit (title, text, link).
    public: list[str] = Field(default_factory=list)
    #: Whether players may register a private webhook for their claim (``webhook URL``).
    claims: bool = True
    #: Seconds between two sends to webhooks (Discord allows about 5 per 2 s per webhook).
    spacing_seconds: float = Field(default=1.0, ge=0, le=600)
    timeout_seconds: float = Field(default=10.0, gt=0, le=120)

    @field_validator("allowed_prefixes")
    @classmethod
    def _prefixes(cls, value: list[str]) -> list[str]:
        for prefix in value:
            if not re.fullmatch(r"https?://[^\s?#]+/", prefix):
                raise ValueError(f"{prefix!r} must be an http(s) address ending in /")
        return value

    @field_validator("public")
    @classmethod
    def _public(cls, value: list[str], info: Any) -> list[str]:
        allowed = (info.data or {}).get("allowed_prefixes") or []
        for url in value:
            problem = webhook_url_problem(url, allowed)
            if problem:
                raise ValueError(f"{url[:40]!r}...: {problem}")
        return value


class Settings(_Section):
    campaign: CampaignSettings = Field(default_factory=CampaignSettings)
    reddit: RedditSettings = Field(default_factory=RedditSettings)
    bot: BotSettings = Field(default_factory=BotSettings)
    calendar: CalendarSettings = Field(default_factory=CalendarSettings)
    rules: dict[str, Any] = Field(default_factory=dict)
    posts: PostSettings = Field(default_factory=PostSettings)
    dice: DiceSettings = Field(default_factory=DiceSettings)
    claims: ClaimsSettings = Field(default_factory=ClaimsSettings)
    moderators: ModeratorSettings = Field(default_factory=ModeratorSettings)
    web: WebSettings = Field(default_factory=WebSettings)
    webhooks: WebhookSettings = Field(default_factory=WebhookSettings)
    catalogue: dict[str, Any] = Field(default_factory=dict)
    characters: dict[str, Any] = Field(default_factory=dict)

    def configured(self, **sections: Mapping[str, object]) -> Settings:
        """These settings with some values changed, by section
        (``settings.configured(web={"port": 0})``); these are left as they are."""
        return self.model_copy(update={
            name: getattr(self, name).model_copy(update=dict(values))
            for name, values in sections.items()})

    def rules_config(self) -> rc.RulesConfig:
        """The rules numbers in force: docs/rules.md defaults, the calendar, then [rules]."""
        base = dataclasses.replace(
            rc.DEFAULT_RULES,
            epoch=self.calendar.epoch,
            epoch_year=self.calendar.epoch_year,
            month_length=timedelta(hours=self.calendar.month_hours),
            months_per_year=self.calendar.months_per_year,
        )
        return apply_rule_overrides(base, self.rules)


_ENV = {
    ("reddit", "client_id"): "MAESTER_REDDIT_CLIENT_ID",
    ("reddit", "client_secret"): "MAESTER_REDDIT_CLIENT_SECRET",
    ("reddit", "password"): "MAESTER_REDDIT_PASSWORD",
    ("reddit", "refresh_token"): "MAESTER_REDDIT_REFRESH_TOKEN",
    ("campaign", "database_url"): "MAESTER_DATABASE_URL",
}


def load_settings(path: Path | None, *, env: Mapping[str, str] | None = None) -> Settings:
    """Read and validate ``path`` (None or a missing default file: all defaults)."""
    env = os.environ if env is None else env
    data: dict[str, Any] = {}
    if path is not None:
        if not path.exists():
            raise ConfigError(f"{path}: no such config file (copy config.example.toml)")
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{path}: not valid TOML: {exc}") from None
        except UnicodeDecodeError:
            raise ConfigError(f"{path}: not a text file (a config is UTF-8 TOML; see "
                              "config.example.toml)") from None
        except OSError as exc:
            raise ConfigError(f"{path}: cannot be read ({exc.strerror or exc}); give the path "
                              "of a TOML file") from None
        campaign = data.setdefault("campaign", {})
        if isinstance(campaign, dict):  # (a wrong type is reported by the validation)
            url = campaign.get("database_url", CampaignSettings.model_fields[
                "database_url"].default)
            if isinstance(url, str):
                campaign["database_url"] = resolve_sqlite_path(url, path.resolve().parent)
    for (section, key), var in _ENV.items():
        if env.get(var):
            data.setdefault(section, {})[key] = env[var]
    source = str(path) if path else "defaults"
    settings = parse_settings(data, source=source)
    try:  # refused here, once, rather than by every tick that would read it
        read_fate_settings(settings.characters)
    except InvalidInput as exc:
        raise ConfigError(f"{source}: {exc}") from None
    return settings


_SQLITE_URL = re.compile(r"^(sqlite(?:\+\w+)?:///)(.*)$")


def resolve_sqlite_path(url: str, base: Path) -> str:
    """A SQLite URL whose file path is relative, made absolute against ``base`` (the config
    file's folder): ``sqlite:///maester.db`` in /srv/camp/config.toml is /srv/camp/maester.db
    wherever the bot is started. Absolute paths, in-memory databases and other databases are
    left alone."""
    match = _SQLITE_URL.match(url)
    if match is None:
        return url
    prefix, rest = match.groups()
    if not rest or rest.startswith(("/", ":memory:", "file:")) or Path(rest).is_absolute():
        return url
    return prefix + str(base / rest)


def parse_settings(data: Mapping[str, Any], source: str = "config") -> Settings:
    """Validate a decoded TOML document."""
    try:
        settings = Settings.model_validate(data)
        settings.rules_config()  # overrides are checked here too
    except ValidationError as exc:
        problems = []
        for err in exc.errors():
            key = ".".join(str(p) for p in err["loc"])
            problems.append(f"{key}: {err['msg']}")
        raise ConfigError(f"{source}: " + "; ".join(problems)) from None
    except ConfigError as exc:
        raise ConfigError(f"{source}: {exc}") from None
    return settings


NOT_SETTINGS = {"tick_offset": "is the campaign's holidays, set by `maester resume`"}
"""Campaign state the rules carry, not settings (refused in ``[rules]``, left out of
``maester rules show``): the holidays are set by ``maester resume``, shown by ``maester
status``."""
# Whole-number settings that the clock divides by or counts in: 0 would stop the game.
_AT_LEAST_ONE = frozenset({"tick_hours", "months_per_year"})
# Counts of hours and months: a huge one would overflow the calendar.
_INT_LIMITS = {"tick_hours": 24 * 31, "muster_hours": 24 * 366, "months_per_year": 1000,
               "epoch_year": 1_000_000, "reaction_ticks": 1000}


def apply_rule_overrides(base: rc.RulesConfig, overrides: Mapping[str, Any]) -> rc.RulesConfig:
    """Apply ``[rules]`` keys to ``base``; unknown keys and wrong types raise ConfigError.

    Scalars by field name (``detection_radius = 2``, ``infantry_upkeep = "0.2"``);
    ``terrain_cost`` and ``defender_bonus`` as tables keyed by terrain; ``[[rules.bands]]``,
    ``[[rules.casualties]]``, ``[[rules.retreat]]``, ``[[rules.detection]]`` and
    ``[[rules.siege_months]]`` as arrays of tables replacing the whole chart (a row without its
    ``max_ratio``/``max_size`` is the open-ended last row; unknown row keys are refused).
    """
    fields = {f.name: f for f in dataclasses.fields(base)}
    changes: dict[str, Any] = {}
    for key, value in overrides.items():
        where = f"rules.{key}"
        if key in NOT_SETTINGS:
            raise ConfigError(f"{where}: {NOT_SETTINGS[key]}, not a setting")
        if key not in fields:
            known = sorted(set(fields) - set(NOT_SETTINGS))
            raise ConfigError(f"{where}: unknown rule setting; known: {', '.join(known)}")
        current = getattr(base, key)
        try:
            changes[key] = _convert(key, current, value)
        except (TypeError, ValueError, ArithmeticError) as exc:
            raise ConfigError(f"{where}: {exc}") from None
    rules = dataclasses.replace(base, **changes)
    _check_bonus_range(rules)
    return rules


def _check_bonus_range(rules: rc.RulesConfig) -> None:
    """The public range of the secret defense bonuses must be a range of positive bonuses:
    posts promise that an assault never narrows it, and a map bonus must lie inside it."""
    low, high = rules.defense_bonus_min, rules.defense_bonus_max
    if low <= 0:
        raise ConfigError(f"rules.defense_bonus_min: must be above 0 (a bonus multiplies the "
                          f"garrison's strength), not {low}")
    if high < low:
        raise ConfigError(f"rules.defense_bonus_max: must be at least defense_bonus_min "
                          f"({low}), not {high}")


def _convert(key: str, current: Any, value: Any) -> Any:
    if isinstance(current, bool):
        if not isinstance(value, bool):
            raise TypeError("must be true or false")
        return value
    if isinstance(current, int):
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError("must be a whole number")
        if value < (1 if key in _AT_LEAST_ONE else 0):
            raise ValueError(f"must be at least {1 if key in _AT_LEAST_ONE else 0}, not {value}")
        if value > _INT_LIMITS.get(key, MAX_TROOPS):
            raise ValueError(f"must be at most {_INT_LIMITS.get(key, MAX_TROOPS)}")
        return value
    if isinstance(current, Decimal):
        number = _decimal(value)
        if number < 0:
            raise ValueError(f"must not be negative, not {number}")
        return number
    if isinstance(current, timedelta):
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 24 * 366:
            raise TypeError(f"must be a whole number of hours from 1 to {24 * 366}")
        return timedelta(hours=value)
    if key in ("terrain_cost", "defender_bonus"):
        if not isinstance(value, Mapping):
            raise TypeError("must be a table keyed by terrain, e.g. {forest = 2}")
        table = dict(current)
        for name, amount in value.items():
            terrain = rc.Terrain(str(name).lower())
            if key == "defender_bonus":
                table[terrain] = _decimal(amount)
            elif isinstance(amount, bool) or not isinstance(amount, int) or amount < 1:
                raise TypeError(f"{name}: must be a whole number of at least 1")
            else:
                table[terrain] = amount
        return tuple(table.items())
    if isinstance(current, datetime):
        raise TypeError("cannot be changed here; set it in [calendar]")
    row_types: dict[str, type] = {
        "bands": rc.BattleBand, "casualties": rc.CasualtyRow, "retreat": rc.RetreatRow,
        "detection": rc.SizeRow, "siege_months": rc.SizeRow,
    }
    if key in row_types:
        if not isinstance(value, list) or not value:
            raise TypeError("must be a non-empty array of tables")
        return tuple(_row(row_types[key], i, row) for i, row in enumerate(value))
    raise TypeError("cannot be changed from the config file")


def _decimal(value: Any) -> Decimal:
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise TypeError("must be a number (write decimals as strings: \"0.1\")")
    try:
        number = Decimal(str(value).strip())
    except ArithmeticError:
        raise ValueError(f"{value!r} is not a number") from None
    if not number.is_finite():
        raise ValueError(f"{value!r} is not a finite number")
    if abs(number) > MAX_GOLD:
        raise ValueError(f"must be at most {MAX_GOLD} in size")
    return number


def _row(cls: type, index: int, row: Any) -> Any:
    """One chart row from a TOML table; a missing ``max_*`` bound means "and above"."""
    if not isinstance(row, Mapping):
        raise TypeError(f"row {index} must be a table")
    fields = {f.name: f for f in dataclasses.fields(cls)}
    unknown = sorted(set(row) - set(fields))
    if unknown:
        raise TypeError(f"row {index}: unknown key {unknown[0]!r}; known: {', '.join(fields)}")
    kwargs: dict[str, Any] = {}
    for name, f in fields.items():
        kind = str(f.type)
        if name not in row:
            if kind.endswith("| None"):
                kwargs[name] = None  # TOML has no null: an open-ended last row omits its bound
            continue
        raw = row[name]
        try:
            if kind.startswith("Decimal"):
                kwargs[name] = _decimal(raw)
            elif kind.startswith("int"):
                if isinstance(raw, bool) or not isinstance(raw, int):
                    raise TypeError("must be a whole number")
                if abs(raw) > MAX_TROOPS:
                    raise ValueError(f"must be at most {MAX_TROOPS} in size")
                kwargs[name] = raw
            elif kind == "bool":
                if not isinstance(raw, bool):
                    raise TypeError("must be true or false")
                kwargs[name] = raw
            else:
                kwargs[name] = str(raw)
        except (TypeError, ValueError) as exc:
            raise type(exc)(f"row {index}: {name} {exc}") from None
    try:
        return cls(**kwargs)
    except TypeError:
        missing = [n for n in fields if n not in kwargs
                   and fields[n].default is dataclasses.MISSING]
        raise TypeError(f"row {index}: missing {', '.join(missing)}") from None


def rules_table(config: rc.RulesConfig) -> list[tuple[str, str]]:
    """Every field of the rules and its value in force (``maester rules show`` leaves out
    :data:`NOT_SETTINGS`)."""
    out: list[tuple[str, str]] = []
    for f in dataclasses.fields(config):
        value = getattr(config, f.name)
        if isinstance(value, tuple):
            text = "; ".join(_row_text(v) for v in value)
        else:
            text = str(value)
        out.append((f.name, text))
    return out


def _row_text(row: Any) -> str:
    if isinstance(row, tuple):
        return f"{row[0]}={row[1]}"
    if dataclasses.is_dataclass(row):
        parts = []
        for f in dataclasses.fields(row):
            value = getattr(row, f.name)
            if value is None:
                value = "and above"
            parts.append(f"{f.name}={value}")
        return "(" + " ".join(parts) + ")"
    return str(row)
