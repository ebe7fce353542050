"""What the CLI's commands share: the config, the open campaign, the moderator, errors."""

from __future__ import annotations

import getpass
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from bot.clock import Clock, SystemClock
from bot.config import ConfigError, Settings, load_settings
from rules.campaign.inputs import MAX_ROW_NUMBER, check_whole
from rules.errors import InvalidInput

if TYPE_CHECKING:  # the database stack loads only for the commands that open a campaign
    from sqlalchemy import Engine
    from sqlmodel import Session

    from bot.services.world import CampaignContext

DEFAULT_CONFIG = Path("config.toml")

ByOpt = Annotated[str | None, typer.Option(
    "--by", help="Who acts: your Reddit name as in [campaign] moderators, for the log and "
    "for approvals (default: $MAESTER_MODERATOR, else the OS user).")]


def fail(message: str, code: int = 2) -> typer.Exit:
    """Print ``maester: MESSAGE`` on stderr; raise the returned Exit to end with ``code``."""
    typer.echo(f"maester: {message}", err=True)
    return typer.Exit(code)


def whole(value: int, field: str, *, low: int = 1, high: int = MAX_ROW_NUMBER,
          example: str = "3", hint: str = "") -> int:
    """``value`` checked by :func:`rules.campaign.inputs.check_whole`; out of range, the
    command ends with one line naming ``field``, the range and ``hint`` (what to look at)."""
    try:
        return check_whole(value, field, low=low, high=high, example=example)
    except InvalidInput as exc:
        raise fail(f"{exc}{hint}") from None


NO_CONFIG = ("no config file: there is no ./config.toml here and no --config FILE (or "
             "MAESTER_CONFIG) was given")


def settings_of(config: Path | None, *, required: bool = True) -> Settings:
    """The settings of ``--config``, else of ./config.toml.

    With neither, a command that needs a campaign (``required``) ends with a line saying so,
    rather than silently running on the defaults (the demo map and ./maester.db); the others
    (rules, map checks) say on stderr that they use the defaults.
    """
    path: Path | None = config if config is not None else DEFAULT_CONFIG
    if config is None and not DEFAULT_CONFIG.exists():
        if required:
            raise fail(f"{NO_CONFIG}; copy config.example.toml to config.toml and fill it in, "
                       "or pass --config FILE")
        typer.echo(f"maester: {NO_CONFIG}: using the default settings", err=True)
        path = None
    try:
        return load_settings(path)
    except ConfigError as exc:
        raise fail(f"config error: {exc}") from None


def parse_time(option: str, text: str) -> datetime:
    """An ISO time with a zone given as ``option`` (``--until``, ``--at``); a bad one ends the
    command with the example."""
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise fail(f"{option}: {text!r} is not an ISO time (e.g. 2026-11-23T12:00:00Z)") \
            from None
    if moment.tzinfo is None:
        raise fail(f"{option} needs a time zone, e.g. 2026-11-23T12:00:00Z")
    return moment.astimezone(UTC)


def moderator_name(by: str | None) -> str:
    """Who runs the command: ``--by``, else ``$MAESTER_MODERATOR``, else the OS user. Actions
    that wait for a second moderator (:mod:`bot.services.proposals`) and approvals require it
    to be one of ``[campaign] moderators``."""
    import os

    name = by or os.environ.get("MAESTER_MODERATOR") or getpass.getuser() or "moderator"
    return name.strip()[:60]


@dataclass(slots=True)
class Opened:
    """An open campaign: its settings, database engine, context, and the wall clock."""

    settings: Settings
    engine: Engine
    ctx: CampaignContext
    clock: Clock

    def world_now(self) -> datetime:
        """The world's clock (:func:`rules.campaign.timing.world_time`): the wall clock, or
        just after the last applied tick when ticks were applied ahead of it. Everything a
        moderator does to the world counts, and is logged, at this time."""
        with self.session() as session:
            return world_now_in(session, self.ctx, self.clock.now())

    @contextmanager
    def session(self) -> Iterator[Session]:
        """One transaction on the campaign's database."""
        from bot.db.engine import transaction

        with transaction(self.engine) as session:
            yield session


def open_campaign(config: Path | None, *, check_schema: bool = False) -> Opened:
    """The campaign of ``--config``; a missing campaign or bad config ends the command."""
    from bot.services.access import open_campaign as open_settings_campaign

    settings = settings_of(config)
    try:
        engine, ctx = open_settings_campaign(settings, check_schema=check_schema)
    except LookupError as exc:
        raise fail(str(exc)) from None
    return Opened(settings, engine, ctx, SystemClock())


def world_now_in(session: Session, ctx: CampaignContext, wall: datetime) -> datetime:
    """The world's clock read inside an open transaction (see :meth:`Opened.world_now`)."""
    from bot.services.world import current
    from rules.campaign.timing import world_time

    ctx, campaign = current(session, ctx)
    return world_time(wall, ctx.tick_at(campaign.last_tick))


@contextmanager
def campaign_session(config: Path | None) -> Iterator[tuple[Session, CampaignContext]]:
    """A transaction on the campaign of ``--config`` with its context (engine closed after)."""
    opened = open_campaign(config)
    try:
        with opened.session() as session:
            yield session, opened.ctx
    finally:
        opened.engine.dispose()
