"""The moderators' catalogue and skill commands: ``maester skills ...``, ``maester catalogue ...``.

``skills grant CHARACTER SKILL`` and ``skills remove CHARACTER SKILL`` change a character's
skills; ``catalogue show`` prints the catalogue in force; ``catalogue check FILE`` validates a
catalogue TOML file; ``catalogue load FILE`` validates it and makes it the campaign's catalogue.
Every command is recorded in the event log with the moderator's name (``--by``, default the
operating-system user); ``check`` is recorded when the config names a database with a campaign.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Annotated

import typer
from sqlalchemy.exc import SQLAlchemyError
from sqlmodel import Session

from bot.cli.common import (
    ByOpt,
    campaign_session,
    fail,
    moderator_name,
    settings_of,
    world_now_in,
)
from bot.cli.options import ConfigOpt, command_group
from bot.clock import SystemClock
from bot.db.engine import MissingDatabase, transaction
from bot.services import journal
from bot.services.access import open_campaign
from bot.services.catalogue import (
    CatalogueError,
    catalogue_of,
    fate_settings,
    grant_skill,
    parse_or_raise,
    read_catalogue_file,
    remove_skill,
    store_catalogue,
    summary_of,
)
from bot.services.world import CampaignContext, NotFound, get_campaign
from rules.campaign.catalogue import Catalogue, Section, missing_resources

app = command_group()
skills_app = command_group(help="Grant and remove characters' skills.", no_args_is_help=True)
catalogue_app = command_group(help="Show, check and load the campaign's catalogue.",
                              no_args_is_help=True)
app.add_typer(skills_app, name="skills")
app.add_typer(catalogue_app, name="catalogue")


def _now(session: Session, ctx: CampaignContext) -> datetime:
    """The world's clock: moderator changes are logged at the time the world stands at."""
    return world_now_in(session, ctx, SystemClock().now())


# --- skills ---------------------------------------------------------------------------------

@skills_app.command("grant")
def skills_grant(
    character: Annotated[str, typer.Argument(help="The character, e.g. \"Brynden Tully\".")],
    skill: Annotated[str, typer.Argument(help="A skill of the catalogue, e.g. Blackfish.")],
    config: ConfigOpt = None, by: ByOpt = None,
) -> None:
    """Give a character a skill of the catalogue (its claim gets a private note)."""
    from bot.cli.approval import proposed
    from bot.services.proposals import Refused, skill_action

    with campaign_session(config) as (session, ctx):
        try:
            if proposed(session, ctx, skill_action(session, ctx, character, skill), by,
                        _now(session, ctx)):
                return
            summary = grant_skill(session, ctx, character, skill, by=moderator_name(by),
                                  now=_now(session, ctx))
        except (NotFound, ValueError, CatalogueError, Refused) as exc:
            raise fail(str(exc)) from None
    typer.echo(summary)


@skills_app.command("remove")
def skills_remove(
    character: Annotated[str, typer.Argument(help="The character.")],
    skill: Annotated[str, typer.Argument(help="The skill to take away.")],
    config: ConfigOpt = None, by: ByOpt = None,
) -> None:
    """Take a skill from a character (its claim gets a private note)."""
    with campaign_session(config) as (session, ctx):
        try:
            summary = remove_skill(session, ctx, character, skill, by=moderator_name(by),
                                   now=_now(session, ctx))
        except (NotFound, CatalogueError) as exc:
            raise fail(str(exc)) from None
    typer.echo(summary)


# --- catalogue ------------------------------------------------------------------------------

def _print_catalogue(catalogue: Catalogue) -> None:
    for section in Section:
        entries = catalogue.section(section)
        typer.echo(f"[{section.value}]" + ("" if entries else " (none)"))
        for entry in entries:
            extra = []
            if section in (Section.IMPROVEMENTS, Section.EQUIPMENT):
                extra.append(f"{entry.cost} gold")
            if section is Section.IMPROVEMENTS:
                extra.append(f"{entry.months} months")
            if entry.hidden:
                extra.append("HIDDEN")
            if entry.label:
                extra.append(f"shown as {entry.label!r}")
            tail = f" ({', '.join(extra)})" if extra else ""
            typer.echo(f"  {entry.name}: {entry.describe_effects()}{tail}")


def _warnings(catalogue: Catalogue, ctx: CampaignContext | None) -> list[str]:
    if ctx is None:
        return []
    benefits = [t.resource_benefit for t in ctx.world.resource_tiles()]
    return [f"the map's resource benefit {name!r} is not in the catalogue (no effect)"
            for name in missing_resources(catalogue, benefits)]


@catalogue_app.command("show")
def catalogue_show(config: ConfigOpt = None, by: ByOpt = None) -> None:
    """Print the catalogue in force (hidden entries marked) and the fate-table settings."""
    with campaign_session(config) as (session, ctx):
        try:
            catalogue = catalogue_of(session, ctx)
            fates = fate_settings(ctx.settings, ctx.parses)
        except CatalogueError as exc:
            raise fail(str(exc)) from None
        stored = bool(get_campaign(session, ctx).catalogue_json)
        now = _now(session, ctx)
        journal.log_event(session, ctx.campaign_id, ctx.tick_of(now), "catalogue_show",
                          "catalogue shown", at=now, actor=moderator_name(by))
        source = "loaded into the campaign" if stored else "from the config file"
        typer.echo(f"Catalogue ({source}): {summary_of(catalogue)}")
        _print_catalogue(catalogue)
        for warning in _warnings(catalogue, ctx):
            typer.echo(f"warning: {warning}")
    typer.echo(f"Characters: roll_fates = {str(fates.roll).lower()}; death outcomes: "
               + (", ".join(sorted(fates.death_outcomes)) or "none"))
    for table in (fates.death_table, fates.injury_table):
        rows = "; ".join(f"{r.low}-{r.high} {r.outcome}" for r in table.rows)
        typer.echo(f"  {table.name} table (d{table.sides}): {rows}")


@catalogue_app.command("check")
def catalogue_check(
    file: Annotated[Path, typer.Argument(help="A catalogue TOML file.")],
    config: ConfigOpt = None, by: ByOpt = None,
) -> None:
    """Validate a catalogue TOML file; errors name the key. Exit code 2 when it is invalid."""
    settings = settings_of(config)
    problem = ""
    catalogue: Catalogue | None = None
    try:
        catalogue = parse_or_raise(read_catalogue_file(file))
    except CatalogueError as exc:
        problem = str(exc)
    ctx: CampaignContext | None = None
    try:
        engine, ctx = open_campaign(settings, check_schema=False)
    except (MissingDatabase, LookupError, SQLAlchemyError):
        ctx = None  # no campaign there yet: the file is checked on its own
    else:
        try:
            with transaction(engine) as session:
                now = _now(session, ctx)
                journal.log_event(session, ctx.campaign_id, ctx.tick_of(now),
                                  "catalogue_check", f"catalogue file {file.name} checked: "
                                  + ("invalid" if problem else "ok"), at=now,
                                  actor=moderator_name(by), data={"file": str(file),
                                                              "problem": problem})
        except SQLAlchemyError:
            ctx = None  # an older database without the tables it needs: checked on its own
        finally:
            engine.dispose()
    if catalogue is None:
        raise fail(problem)
    typer.echo(f"ok: {file} ({summary_of(catalogue)})")
    for warning in _warnings(catalogue, ctx):
        typer.echo(f"warning: {warning}")


@catalogue_app.command("load")
def catalogue_load(
    file: Annotated[Path, typer.Argument(help="A catalogue TOML file.")],
    config: ConfigOpt = None, by: ByOpt = None,
) -> None:
    """Validate a catalogue TOML file and make it the campaign's catalogue."""
    with campaign_session(config) as (session, ctx):
        try:
            data = read_catalogue_file(file)
            catalogue = store_catalogue(session, ctx, data, by=moderator_name(by),
                                        now=_now(session, ctx),
                                        source=file.name)
        except (CatalogueError, NotFound) as exc:
            raise fail(str(exc)) from None
        warnings = _warnings(catalogue, ctx)
    typer.echo(f"loaded: {summary_of(catalogue)}")
    for warning in warnings:
        typer.echo(f"warning: {warning}")
