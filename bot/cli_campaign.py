"""The moderators' campaign commands: init, inspect, order, tick, adjust, log, export."""

from __future__ import annotations

import getpass
import json
import sys
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from sqlalchemy import Engine
from sqlmodel import Session, col, select

from bot.cli import app
from bot.clock import Clock, SystemClock
from bot.config import ConfigError, Settings, load_settings, rules_table
from bot.db.engine import make_engine, transaction
from bot.db.models import (
    Army,
    ArmyState,
    Campaign,
    Character,
    Claim,
    Event,
    Outbox,
    OutboxStatus,
    PendingBattle,
    Player,
    Relation,
    RelationStatus,
    Siege,
)
from bot.services import journal
from bot.services.world import (
    CampaignContext,
    all_claims,
    armies,
    claim_by_name,
    get_campaign,
    load_context,
    set_relation,
)
from rules.campaign.inputs import check_holdings, parse_gold, parse_troops
from rules.campaign.world import BattleStatus, SiegeStatus
from rules.errors import InvalidInput

# Piped or captured output gets wide tables instead of the 80-column default.
console = Console(highlight=False, soft_wrap=True,
                  width=None if sys.stdout.isatty() else 160)
DEFAULT_CONFIG = Path("config.toml")


@dataclass(slots=True)
class Env:
    settings: Settings
    engine: Engine
    clock: Clock


def open_env(config: Path | None, *, need_file: bool = False, create: bool = False) -> Env:
    """Settings, engine and clock for a CLI command; config errors end the command cleanly."""
    path = config if config is not None else DEFAULT_CONFIG
    try:
        if not path.exists() and not need_file and config is None:
            settings = load_settings(None)
        else:
            settings = load_settings(path)
    except ConfigError as exc:
        console.print(f"[red]config error:[/red] {exc}")
        raise typer.Exit(2) from None
    # Only init creates a database: elsewhere a missing file is an error, not a new campaign.
    return Env(settings, make_engine(settings.campaign.database_url, must_exist=not create),
               SystemClock())


def context(env: Env, session: Session) -> CampaignContext:
    try:
        return load_context(session, env.settings)
    except LookupError as exc:
        console.print(f"[red]{exc}[/red]")
        raise typer.Exit(2) from None


def moderator_name(by: str | None) -> str:
    return by or getpass.getuser()


ByOption = Annotated[str | None, typer.Option("--by", help="Moderator name for the log.")]
OptConfig = Annotated[Path | None, typer.Option("--config", "-c", envvar="MAESTER_CONFIG",
                                                help="Campaign config file (TOML).")]


@app.command("init")
def init_cmd(
    config: OptConfig = None,
    demo: Annotated[bool, typer.Option("--demo", help="Load the demo roster and wars.")] = False,
    seed: Annotated[str | None, typer.Option("--seed", help="Fix the campaign secret.")] = None,
    roster: Annotated[Path | None, typer.Option("--roster", help="Roster TOML file.")] = None,
) -> None:
    """Create the database and the campaign (map from the config; --demo: demo roster)."""
    import tomllib

    from bot.db.migrate import upgrade
    from bot.maps import demo_map_text, read_map_text
    from bot.services.setup import DEMO_ROSTER, DEMO_WARS, create_campaign

    env = open_env(config, create=True)
    upgrade(env.engine)
    map_text = demo_map_text() if env.settings.campaign.map == "demo" else \
        read_map_text(Path(env.settings.campaign.map))
    entries: list[dict[str, Any]] = []
    wars: list[tuple[str, str]] = []
    if demo:
        entries, wars = [dict(e) for e in DEMO_ROSTER], list(DEMO_WARS)
    if roster is not None:
        try:
            data = tomllib.loads(roster.read_text(encoding="utf-8"))
            claims, war_list = data.get("claims", []), data.get("wars", [])
            if not isinstance(claims, list) or not isinstance(war_list, list) or not all(
                    isinstance(w, list) and len(w) == 2 for w in war_list):
                raise ValueError("claims must be [[claims]] tables and wars a list of pairs")
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            console.print(f"[red]cannot read the roster {escape(str(roster))}:[/red] "
                          f"{escape(str(exc))}")
            raise typer.Exit(2) from None
        entries += claims
        wars += [(str(w[0]), str(w[1])) for w in war_list]
    try:
        with transaction(env.engine) as session:
            ctx = create_campaign(session, env.settings, map_text=map_text, roster=entries,
                                  now=env.clock.now(), seed=seed, wars=wars)
    except ValueError as exc:
        console.print(f"[red]cannot create the campaign:[/red] {exc}")
        raise typer.Exit(2) from None
    console.print(f"Campaign created in {env.settings.campaign.database_url} with "
                  f"{len(entries)} claims on a map of {len(ctx.world)} tiles.")


@app.command("claims")
def claims_cmd(config: OptConfig = None) -> None:
    """List the claims: holdfast, gold, troops at home, raised armies, players."""
    env = open_env(config)
    with transaction(env.engine) as session:
        ctx = context(env, session)
        table = Table("Claim", "Holdfast", "Gold", "Infantry", "Cavalry", "Ships", "Armies",
                      "Players")
        for claim in all_claims(session, ctx):
            players = session.exec(select(Player.reddit_name).where(
                Player.claim_id == claim.id)).all()
            raised = armies(session, ctx, claim_id=claim.id)
            table.add_row(claim.name, ctx.world.tile(claim.holdfast).label, str(claim.gold),
                          str(claim.infantry), str(claim.cavalry), str(claim.ships),
                          str(len(raised)), ", ".join(f"u/{p}" for p in players))
    console.print(table)


def _army_row(ctx: CampaignContext, a: Army, claims: dict[int | None, Claim]) -> list[str]:
    dest = ctx.world.tile(a.path_json[-1]).label if a.path_json else ""
    arrival = ctx.when(ctx.tick_at(a.arrival_tick)) if a.path_json and a.arrival_tick else ""
    claim = claims.get(a.claim_id)
    return [str(a.id), claim.name if claim else "?", a.kind, a.state,
            ctx.world.tile(a.tile).label, str(a.infantry), str(a.cavalry), str(a.ships),
            dest, arrival]


@app.command("armies")
def armies_cmd(config: OptConfig = None,
               claim: Annotated[str | None, typer.Option("--claim")] = None) -> None:
    """List raised armies (optionally of one claim)."""
    env = open_env(config)
    with transaction(env.engine) as session:
        ctx = context(env, session)
        claims = {c.id: c for c in all_claims(session, ctx)}
        claim_id = None
        if claim is not None:
            found = claim_by_name(session, ctx, claim)
            if found is None:
                console.print(f"[red]no claim called {claim!r}[/red]")
                raise typer.Exit(2)
            claim_id = found.id
        table = Table("Army", "Claim", "Kind", "State", "Tile", "Infantry", "Cavalry", "Ships",
                      "Marching to", "Arrives")
        for a in armies(session, ctx, claim_id=claim_id):
            table.add_row(*_army_row(ctx, a, claims))
    console.print(table)


show_app = typer.Typer(help="Show one thing in detail.", no_args_is_help=True)
app.add_typer(show_app, name="show")


@show_app.command("army")
def show_army_cmd(army_id: int, config: OptConfig = None) -> None:
    """Everything about one army: troops, state, path, pending battles."""
    env = open_env(config)
    with transaction(env.engine) as session:
        ctx = context(env, session)
        a = session.get(Army, army_id)
        if a is None or a.campaign_id != ctx.campaign_id:
            console.print(f"[red]no army {army_id}[/red]")
            raise typer.Exit(2)
        claim = session.get(Claim, a.claim_id)
        console.print(f"[bold]Army {a.id}[/bold] of {claim.name if claim else '?'}: "
                      f"{a.kind}, {a.state} at {ctx.world.tile(a.tile).label} ({a.tile})")
        console.print(f"  troops: {a.infantry} infantry, {a.cavalry} cavalry, {a.ships} ships")
        if a.path_json:
            console.print("  path left: " + " > ".join(ctx.world.tile(t).label
                                                       for t in a.path_json))
            if a.arrival_tick:
                console.print(f"  arrives: {ctx.when(ctx.tick_at(a.arrival_tick))}")
        if a.ready_tick and a.state == ArmyState.MUSTERING:
            console.print(f"  ready: {ctx.when(ctx.tick_at(a.ready_tick))}")
        chars = session.exec(select(Character).where(Character.army_id == a.id)).all()
        if chars:
            console.print("  characters: " + ", ".join(c.name for c in chars))
        battles = session.exec(select(PendingBattle).where(
            PendingBattle.status == BattleStatus.PENDING,
            (col(PendingBattle.attacker_army) == a.id) | (col(PendingBattle.defender_army) ==
                                                          a.id))).all()
        for b in battles:
            console.print(f"  pending {b.kind} battle {b.id} at {b.tile}, fought "
                          f"{ctx.when(ctx.tick_at(b.resolve_tick))}, reaction: {b.reaction}")


@app.command("status")
def status_cmd(config: OptConfig = None) -> None:
    """Last tick, next tick, pending outbox, in-game date and season."""
    from rules.campaign import calendar

    env = open_env(config)
    now = env.clock.now()
    with transaction(env.engine) as session:
        ctx = context(env, session)
        campaign = get_campaign(session, ctx)
        pending = len(session.exec(select(Outbox.id).where(
            Outbox.campaign_id == ctx.campaign_id,
            Outbox.status == OutboxStatus.PENDING.value)).all())
        dead = len(session.exec(select(Outbox.id).where(
            Outbox.campaign_id == ctx.campaign_id,
            Outbox.status == OutboxStatus.DEAD.value)).all())
        sieges = len(session.exec(select(Siege.id).where(Siege.status == SiegeStatus.ACTIVE)).all())
    last = ctx.tick_at(campaign.last_tick)
    nxt = ctx.tick_at(campaign.last_tick + 1)
    due = max(0, ctx.tick_of(now) - campaign.last_tick)
    console.print(f"[bold]{campaign.name}[/bold] (r/{campaign.subreddit})")
    console.print(f"  now:        {ctx.when(now)}")
    console.print(f"  last tick:  {ctx.when(last)}")
    console.print(f"  next tick:  {ctx.when(nxt)}" + (f"  [yellow]{due} tick(s) due[/yellow]"
                                                     if due else ""))
    console.print(f"  in-game:    {calendar.format_game_date(calendar.game_date(now, ctx.rules))}"
                  f", season {campaign.season}")
    console.print(f"  outbox:     {pending} pending, {dead} dead")
    console.print(f"  sieges:     {sieges} active")


@app.command("order")
def order_cmd(
    text: Annotated[str, typer.Argument(help="The order text, as a player would send it.")],
    as_user: Annotated[str, typer.Option("--as", help="Reddit user the order comes from.")],
    config: OptConfig = None,
) -> None:
    """Process TEXT exactly as a modmail from that user would be; print the reply."""
    from bot.services.messages import handle_message
    from bot.services.orders import INTERNAL_FAILURE

    env = open_env(config)
    now = env.clock.now()
    with transaction(env.engine) as session:
        ctx = context(env, session)
        ref = f"cli:{now.timestamp():.6f}"
        reply = handle_message(session, ctx, author=as_user.removeprefix("u/"), text=text,
                               now=now, ref=ref)
    console.print(reply, markup=False)
    if INTERNAL_FAILURE in reply:  # an order's write failed and was rolled back
        raise typer.Exit(1)


@app.command("tick")
def tick_cmd(
    config: OptConfig = None,
    until: Annotated[str | None, typer.Option("--until", help="ISO UTC time (default now).")]
    = None,
    yes: Annotated[bool, typer.Option("--yes", help="Catch up beyond bot.max_catch_up_days.")]
    = False,
) -> None:
    """Apply every due tick up to --until (default: now), with a progress bar."""
    from rich.progress import Progress

    from bot.services.tick import CatchUpTooLong, catch_up, check_catch_up_bound, pending_ticks

    env = open_env(config)
    moment = env.clock.now()
    if until is not None:
        try:
            moment = datetime.fromisoformat(until.replace("Z", "+00:00"))
        except ValueError:
            console.print(f"[red]--until: {until!r} is not an ISO time[/red] (e.g. "
                          "2026-11-23T12:00:00Z)")
            raise typer.Exit(2) from None
        if moment.tzinfo is None:
            console.print("[red]--until needs a time zone, e.g. 2026-11-23T12:00:00Z[/red]")
            raise typer.Exit(2)
    with transaction(env.engine) as session:
        ctx = context(env, session)
        total = pending_ticks(session, ctx, moment)
        try:
            check_catch_up_bound(session, ctx, moment)
        except CatchUpTooLong as exc:
            if not yes:
                console.print(f"[red]not applied:[/red] {exc}; add --yes to apply them all")
                raise typer.Exit(2) from None
    events = 0
    with Progress(console=console) as progress:
        task = progress.add_task("ticks", total=total or 1)
        # Another process may apply some of them meanwhile: report what this one applied.
        applied = catch_up(env.engine, ctx, moment, on_tick=lambda r: progress.advance(task))
        events = sum(len(report.events) for report in applied)
    console.print(f"{len(applied)} tick(s) applied, {events} event(s).")


season_app = typer.Typer(help="The season (winter doubles upkeep).", no_args_is_help=True)
app.add_typer(season_app, name="season")


@season_app.command("set")
def season_set_cmd(season: str, config: OptConfig = None, by: ByOption = None) -> None:
    """Set the season: winter, spring, summer or autumn."""
    from rules.campaign.config import Season

    try:
        value = Season(season.lower())
    except ValueError:
        console.print(f"[red]{season!r} is not a season[/red]: winter, spring, summer, autumn")
        raise typer.Exit(2) from None
    env = open_env(config)
    now = env.clock.now()
    with transaction(env.engine) as session:
        ctx = context(env, session)
        campaign = get_campaign(session, ctx, lock=True)
        before = campaign.season
        campaign.season = value.value
        session.add(campaign)
        journal.log_event(session, ctx.campaign_id, ctx.tick_of(now), "season",
                          f"season set from {before} to {value.value}", at=now,
                          actor=moderator_name(by), public=True,
                          data={"before": before, "after": value.value})
    console.print(f"Season is now {value.value}.")


relations_app = typer.Typer(help="Relations between claims.", no_args_is_help=True)
app.add_typer(relations_app, name="relations")


@relations_app.command("set")
def relations_set_cmd(claim_a: str, claim_b: str, status: str, config: OptConfig = None,
                      by: ByOption = None) -> None:
    """Set how two claims stand: war, neutral or allied."""
    try:
        value = RelationStatus(status.lower())
    except ValueError:
        console.print(f"[red]{status!r} is not a relation[/red]: war, neutral, allied")
        raise typer.Exit(2) from None
    env = open_env(config)
    now = env.clock.now()
    with transaction(env.engine) as session:
        ctx = context(env, session)
        a, b = claim_by_name(session, ctx, claim_a), claim_by_name(session, ctx, claim_b)
        if a is None or b is None or a.id == b.id:
            console.print("[red]name two different claims[/red] (see `maester claims`)")
            raise typer.Exit(2)
        before = set_relation(session, ctx, a.id or 0, b.id or 0, value)
        journal.log_event(session, ctx.campaign_id, ctx.tick_of(now), "relation",
                          f"{a.name} and {b.name}: {before.value} -> {value.value}", at=now,
                          actor=moderator_name(by), data={"claims": [a.id, b.id]})
    console.print(f"{a.name} and {b.name} are now {value.value} (were {before.value}).")


@relations_app.command("list")
def relations_list_cmd(config: OptConfig = None) -> None:
    """List recorded relations (unlisted pairs are neutral)."""
    env = open_env(config)
    with transaction(env.engine) as session:
        ctx = context(env, session)
        names = {c.id: c.name for c in all_claims(session, ctx)}
        table = Table("Claim", "Claim", "Relation")
        for r in session.exec(select(Relation).where(Relation.campaign_id == ctx.campaign_id)):
            table.add_row(names.get(r.claim_a, "?"), names.get(r.claim_b, "?"), r.status)
    console.print(table)


@app.command("adjust")
def adjust_cmd(
    claim: str,
    config: OptConfig = None,
    gold: Annotated[str | None, typer.Option(help="Change in gold, e.g. +100 or -25.5")] = None,
    infantry: Annotated[str, typer.Option(help="Change in infantry at home")] = "0",
    cavalry: Annotated[str, typer.Option(help="Change in cavalry at home")] = "0",
    ships: Annotated[str, typer.Option(help="Change in ships at home")] = "0",
    reason: Annotated[str, typer.Option(help="Why (goes to the log)")] = "",
    by: ByOption = None,
) -> None:
    """Change a claim's gold and troops at home; recorded in the log with the moderator."""
    env = open_env(config)
    now = env.clock.now()
    try:
        delta = parse_gold(gold or "0", "--gold", signed=True)
        infantry_n, cavalry_n, ships_n = (
            parse_troops(v, f"--{k}", signed=True)
            for k, v in (("infantry", infantry), ("cavalry", cavalry), ("ships", ships)))
    except InvalidInput as exc:
        console.print(f"[red]{escape(str(exc))}; nothing changed[/red]")
        raise typer.Exit(2) from None
    with transaction(env.engine) as session:
        ctx = context(env, session)
        found = claim_by_name(session, ctx, claim)
        if found is None:
            console.print(f"[red]no claim called {escape(repr(claim[:80]))}[/red]")
            raise typer.Exit(2)
        new = (found.gold + delta, found.infantry + infantry_n, found.cavalry + cavalry_n,
               found.ships + ships_n)
        try:
            check_holdings(new[0], dict(zip(("infantry", "cavalry", "ships"), new[1:],
                                            strict=True)), found.name)
        except InvalidInput as exc:
            console.print(f"[red]{escape(str(exc))}; nothing changed[/red]")
            raise typer.Exit(2) from None
        found.gold, found.infantry, found.cavalry, found.ships = new
        session.add(found)
        journal.log_event(session, ctx.campaign_id, ctx.tick_of(now), "adjust",
                          f"{found.name}: gold {delta:+}, infantry {infantry_n:+}, cavalry "
                          f"{cavalry_n:+}, ships {ships_n:+}" + (f" ({reason})" if reason else ""),
                          at=now, claim_id=found.id, actor=moderator_name(by),
                          data={"gold": str(delta), "infantry": infantry_n, "cavalry": cavalry_n,
                                "ships": ships_n, "reason": reason})
    console.print(f"{found.name}: gold {found.gold}, {found.infantry} infantry, "
                  f"{found.cavalry} cavalry, {found.ships} ships.")


@app.command("log")
def log_cmd(config: OptConfig = None,
            claim: Annotated[str | None, typer.Option("--claim")] = None,
            limit: Annotated[int, typer.Option("--limit")] = 50) -> None:
    """The event log with dice, newest last."""
    env = open_env(config)
    with transaction(env.engine) as session:
        ctx = context(env, session)
        query = select(Event).where(Event.campaign_id == ctx.campaign_id)
        if claim is not None:
            found = claim_by_name(session, ctx, claim)
            if found is None:
                console.print(f"[red]no claim called {claim!r}[/red]")
                raise typer.Exit(2)
            query = query.where(Event.claim_id == found.id)
        rows = list(session.exec(query.order_by(col(Event.id).desc()).limit(limit)).all())
    table = Table("#", "When", "Kind", "By", "What", "Dice")
    for e in reversed(rows):
        dice = " ".join(f"d{d['sides']}={d['value']}" for d in e.dice_json)
        table.add_row(str(e.id), ctx.when(e.at) if e.at else "", e.kind, e.actor, e.summary,
                      dice)
    console.print(table)


@app.command("outbox")
def outbox_cmd(config: OptConfig = None,
               all_entries: Annotated[bool, typer.Option("--all")] = False) -> None:
    """Posts, replies and messages waiting to be delivered (--all: delivered and dead too)."""
    env = open_env(config)
    with transaction(env.engine) as session:
        ctx = context(env, session)
        query = select(Outbox).where(Outbox.campaign_id == ctx.campaign_id)
        if not all_entries:
            query = query.where(Outbox.status == OutboxStatus.PENDING.value)
        rows = session.exec(query.order_by(col(Outbox.id))).all()
        table = Table("#", "Kind", "To", "Title", "Status", "Tries", "Error")
        for o in rows:
            table.add_row(str(o.id), o.kind, o.target, o.title[:60], o.status,
                          str(o.attempts), o.last_error[:40])
    console.print(table)


@app.command("export")
def export_cmd(config: OptConfig = None) -> None:
    """The whole world as JSON on stdout."""
    env = open_env(config)
    with transaction(env.engine) as session:
        ctx = context(env, session)
        data = export_world(session, ctx)
    typer.echo(json.dumps(data, indent=2, sort_keys=True))


def export_world(session: Session, ctx: CampaignContext) -> dict[str, Any]:
    """Claims, armies, sieges, battles, last tick and outbox, as plain JSON data."""
    campaign = session.get(Campaign, ctx.campaign_id)
    assert campaign is not None
    players: dict[int, list[str]] = {}
    for p in session.exec(select(Player).where(Player.campaign_id == ctx.campaign_id)):
        players.setdefault(p.claim_id, []).append(p.reddit_name)
    return {
        "campaign": {"name": campaign.name, "subreddit": campaign.subreddit,
                     "season": campaign.season, "last_tick": campaign.last_tick,
                     "last_tick_at": ctx.tick_at(campaign.last_tick).isoformat(),
                     "last_month": campaign.last_month},
        "claims": [
            {"id": c.id, "name": c.name, "holdfast": c.holdfast, "gold": str(c.gold),
             "infantry": c.infantry, "cavalry": c.cavalry, "ships": c.ships,
             "scattered_infantry": c.scattered_infantry,
             "scattered_cavalry": c.scattered_cavalry, "slain": c.slain_json,
             "players": sorted(players.get(c.id or 0, []))}
            for c in all_claims(session, ctx)],
        "armies": [
            {"id": a.id, "claim": a.claim_id, "kind": a.kind, "state": a.state, "tile": a.tile,
             "infantry": a.infantry, "cavalry": a.cavalry, "ships": a.ships,
             "path": a.path_json, "saved": a.saved, "depart_tick": a.depart_tick,
             "arrival_tick": a.arrival_tick, "retreat_penalty": a.retreat_penalty}
            for a in session.exec(select(Army).where(Army.campaign_id == ctx.campaign_id)
                                  .order_by(col(Army.id)))],
        "sieges": [
            {"id": s.id, "holdfast": s.holdfast, "army": s.army_id, "status": s.status,
             "months_elapsed": s.months_elapsed, "months_required": s.months_required,
             "paused": s.paused}
            for s in session.exec(select(Siege).where(Siege.campaign_id == ctx.campaign_id)
                                  .order_by(col(Siege.id)))],
        "battles": [
            {"id": b.id, "kind": b.kind, "tile": b.tile, "attacker": b.attacker_army,
             "defender": b.defender_army, "status": b.status, "resolve_tick": b.resolve_tick}
            for b in session.exec(select(PendingBattle).where(
                PendingBattle.campaign_id == ctx.campaign_id).order_by(col(PendingBattle.id)))],
        "outbox": [
            {"key": o.key, "kind": o.kind, "target": o.target, "title": o.title,
             "status": o.status, "public": o.public}
            for o in session.exec(select(Outbox).where(Outbox.campaign_id == ctx.campaign_id)
                                  .order_by(col(Outbox.id)))],
    }


@app.command("command")
def command_cmd(
    text: Annotated[str, typer.Argument(help="A bot command, e.g. '!attack 8 dice 4+ vs 5+'")],
    seed: Annotated[str | None, typer.Option("--seed", help="Seed the dice")] = None,
) -> None:
    """Run a tabletop bot command (!combat, !attack, !challenge ...) and print its reply."""
    import secrets

    from bot.commands.dispatch import run_command
    from bot.commands.registry import CommandContext
    from rules.dice import SeededDice

    line = text.strip().lstrip("!")
    name, _, args = line.partition(" ")
    ctx = CommandContext(author="moderator", dice=SeededDice(seed or secrets.token_hex(8)),
                         now=SystemClock().now(), is_moderator=True)
    console.print(run_command(name, args, ctx, ref="cli"), markup=False)


def show_rules(config: Path | None) -> None:
    """Print every rules setting in force (``maester rules show``)."""
    env = open_env(config)
    table = Table("Setting", "Value in force")
    for name, value in rules_table(env.settings.rules_config()):
        table.add_row(name, value)
    console.print(table)


db_app = typer.Typer(help="Database maintenance.", no_args_is_help=True)
app.add_typer(db_app, name="db")


@db_app.command("upgrade")
def db_upgrade_cmd(config: OptConfig = None) -> None:
    """Apply the database migrations up to the newest."""
    from bot.db.migrate import upgrade

    env = open_env(config)
    upgrade(env.engine)
    console.print("Database is up to date.")



@app.command("demo")
def demo_cmd() -> None:
    """Play a whole demo campaign against a local Reddit sandbox (no credentials needed)."""
    from bot.demo import main

    raise typer.Exit(main(lambda text: console.print(text, markup=False)))
