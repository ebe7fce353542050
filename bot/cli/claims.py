"""``maester claims``: the claims and their life over the campaign (who plays them, when they
last wrote, leave, hold, hand-over, new and retired claims)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, time, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape
from rich.table import Table

from bot.cli.common import (
    ByOpt,
    Opened,
    fail,
    moderator_name,
    open_campaign,
    parse_time,
)
from bot.cli.options import ConfigOpt, command_group
from bot.cli.output import console

if TYPE_CHECKING:
    from sqlmodel import Session

    from bot.db.models import Claim
    from bot.services.world import CampaignContext

app = command_group()
claims_app = command_group(
    help="List the claims: holdfast, gold, troops at home, raised armies, players.",
    invoke_without_command=True)
app.add_typer(claims_app, name="claims")

ClaimArg = Annotated[str, typer.Argument(metavar="CLAIM", help="The claim, e.g. 'House Stark'.")]


@claims_app.callback()
def claims_cmd(
    context: typer.Context,
    config: ConfigOpt = None,
    inactive: Annotated[bool, typer.Option(
        "--inactive", help="Only the claims that are inactive (or held).")] = False,
) -> None:
    """List the claims: holdfast, gold, troops at home, raised armies, players.

    Also when each claim's players last wrote (an order or a command), and whether it is
    active, away on leave, inactive or retired, and held. The subcommands manage a claim's
    life: away, hold, lift, transfer, add, retire.
    """
    if context.invoked_subcommand is not None:
        context.obj = config
        return
    from bot.render.common import money
    from bot.services import queries

    env = open_campaign(config)
    now = env.world_now()
    with env.session() as session:
        rows = queries.claims(session, env.ctx, now)
    if inactive:
        rows = [c for c in rows if c.standing == "inactive" or c.held]
    table = Table("Claim", "Holdfast", "Gold", "Infantry", "Cavalry", "Ships", "Armies",
                  "Players", "Last message", "Standing")
    for c in rows:
        standing = c.standing + (" until " + f"{c.away_until:%Y-%m-%d}"
                                 if c.standing == "away" and c.away_until else "")
        standing += ", held" if c.held else ""
        table.add_row(escape(c.name), c.holdfast, money(c.gold), str(c.infantry), str(c.cavalry),
                      str(c.ships), str(c.armies), ", ".join(f"u/{p}" for p in c.players),
                      f"{c.last_seen:%Y-%m-%d %H:%M}" if c.last_seen else "", standing)
    console.print(table)
    if inactive and not rows:
        console.print("No claim is inactive or held.")


def _opened(context: typer.Context, config: Path | None) -> Opened:
    return open_campaign(config if config is not None else context.obj)


def _claim(session: Session, ctx: CampaignContext, name: str) -> Claim:
    from bot.services.world import claim_by_name

    found = claim_by_name(session, ctx, name)
    if found is None:
        raise fail(f"no claim called {name[:80]!r} (see `maester claims`); nothing changed")
    return found


def _date(option: str, text: str) -> datetime:
    """A date (2027-01-10, the start of that day in UTC) or an ISO time with a zone
    (:func:`bot.cli.common.parse_time`)."""
    if len(text) > 10:
        return parse_time(option, text)
    try:
        return datetime.combine(datetime.strptime(text, "%Y-%m-%d").date(), time(), UTC)
    except ValueError:
        raise fail(f"{option}: {text!r} is not a date (e.g. 2027-01-10); nothing changed") \
            from None


Change = Callable[["Session", "CampaignContext", "Claim", str, datetime], str]
"""A change to one claim: (session, context, claim, moderator, world time) -> its summary;
raises LookupError (nothing changed) when it cannot be made."""


def _change_claim(context: typer.Context, config: Path | None, by: str | None, claim: str,
                  change: Change, *, hint: str = "") -> None:
    """Run ``change`` on the claim named ``claim`` in one transaction (the change keeps the
    snapshot ``maester undo`` goes back to); print its summary, or end with its refusal
    (nothing changed)."""
    env = _opened(context, config)
    now = env.world_now()
    actor = moderator_name(by)
    with env.session() as session:
        found = _claim(session, env.ctx, claim)
        try:
            summary = change(session, env.ctx, found, actor, now)
        except LookupError as exc:
            raise fail(f"{exc}{hint}; nothing changed") from None
    console.print(escape(summary) + ".")


@claims_app.command("away")
def away_cmd(
    context: typer.Context,
    claim: ClaimArg,
    until: Annotated[str, typer.Option("--until", help="The end of the leave: 2027-01-10.")],
    reason: Annotated[str, typer.Option("--reason", help="Why (told to the log).")] = "",
    config: ConfigOpt = None,
    by: ByOpt = None,
) -> None:
    """Put a claim on leave until a date: it is not marked inactive meanwhile (logged)."""
    from bot.services import absence

    end = _date("--until", until)

    def leave(session: Session, ctx: CampaignContext, found: Claim, actor: str,
              now: datetime) -> str:
        try:
            return absence.take_leave(session, ctx, found, end, reason, actor=actor, now=now,
                                      by_order=False)
        except absence.LeaveRefused as exc:
            longest = ctx.settings.claims.leave_max_days
            raise LookupError(f"{exc} (expected a date after today, at most {longest} days "
                              f"ahead, e.g. --until {now + timedelta(days=7):%Y-%m-%d})"
                              ) from None

    _change_claim(context, config, by, claim, leave)


def _hold(context: typer.Context, claim: str, held: bool, config: Path | None,
          by: str | None) -> None:
    from bot.services import absence

    def hold(session: Session, ctx: CampaignContext, found: Claim, actor: str,
             now: datetime) -> str:
        return absence.set_hold(session, ctx, found, held, actor=actor, now=now)

    _change_claim(context, config, by, claim, hold)


@claims_app.command("hold")
def hold_cmd(context: typer.Context, claim: ClaimArg, config: ConfigOpt = None,
             by: ByOpt = None) -> None:
    """Hold a claim by hand: at each tick its armies on the march stop (logged)."""
    _hold(context, claim, True, config, by)


@claims_app.command("lift")
def lift_cmd(context: typer.Context, claim: ClaimArg, config: ConfigOpt = None,
             by: ByOpt = None) -> None:
    """Lift a claim's hold (it is not held again until it has been active again)."""
    _hold(context, claim, False, config, by)


@claims_app.command("transfer")
def transfer_cmd(
    context: typer.Context,
    claim: ClaimArg,
    to: Annotated[str, typer.Option("--to", help="The new player's Reddit name.")],
    add: Annotated[bool, typer.Option(
        "--add", help="Add the player; the claim's players stay.")] = False,
    config: ConfigOpt = None,
    by: ByOpt = None,
) -> None:
    """Give a claim to a new player (or --add one): notes to both, a post if configured."""
    from bot.services import tenure

    def hand_over(session: Session, ctx: CampaignContext, found: Claim, actor: str,
                  now: datetime) -> str:
        return tenure.transfer(session, ctx, found, to, add=add, actor=actor, now=now)

    _change_claim(context, config, by, claim, hand_over,
                  hint=f" (e.g. `maester claims transfer {claim[:80]!r} --to new_player`)")


@claims_app.command("add")
def add_cmd(
    context: typer.Context,
    roster: Annotated[Path, typer.Option("--roster", help="A roster TOML snippet: [[claims]] "
                                                          "tables as init's roster.")],
    config: ConfigOpt = None,
    by: ByOpt = None,
) -> None:
    """Add claims mid-campaign from a roster snippet, checked as init's roster is."""
    from bot.cli.map import print_report
    from bot.services import tenure
    from bot.services.mapcheck import CheckReport, check_roster, read_roster

    env = _opened(context, config)
    report = CheckReport(world=env.ctx.world)
    read_roster(roster, report)
    check_roster(report.roster, [], env.ctx.world, report, source=str(roster))
    if not report.roster and not report.errors:
        report.errors.append(f"roster {roster}: no [[claims]] table (expected e.g. "
                             '[[claims]] name = "House Dayne" holdfast = "Starfall")')
    if report.errors:
        print_report(report)
        raise fail(f"{len(report.errors)} error(s) above; nothing changed")
    now = env.world_now()
    with env.session() as session:
        try:
            summaries = tenure.add_claims(session, env.ctx, report.roster, report.wars,
                                          actor=moderator_name(by), now=now)
        except LookupError as exc:
            raise fail(f"{exc}; nothing changed") from None
    for summary in summaries:
        console.print(escape(summary[0].upper() + summary[1:]) + ".")


@claims_app.command("retire")
def retire_cmd(
    context: typer.Context,
    claim: ClaimArg,
    armies: Annotated[str, typer.Option(
        "--armies", help="disband: its raised armies are removed; hold: they stay, held.")],
    config: ConfigOpt = None,
    by: ByOpt = None,
) -> None:
    """End a claim: its players leave it, its armies disband or stay as held forces."""
    from bot.services import tenure

    if armies not in ("disband", "hold"):
        raise fail(f"--armies {armies!r}: expected disband or hold (e.g. --armies hold); "
                   "nothing changed")

    def end(session: Session, ctx: CampaignContext, found: Claim, actor: str,
            now: datetime) -> str:
        return tenure.retire(session, ctx, found, disband=armies == "disband", actor=actor,
                             now=now)

    _change_claim(context, config, by, claim, end)
