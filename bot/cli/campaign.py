"""The moderators' campaign commands: init, inspect, order, tick, adjust, log, export."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from bot.cli.common import (
    ByOpt,
    fail,
    moderator_name,
    open_campaign,
    parse_time,
    settings_of,
    whole,
    world_now_in,
)
from bot.cli.options import ConfigOpt, command_group
from bot.cli.output import console
from bot.db.models import (
    Claim,
    Outbox,
    RelationStatus,
)
from bot.services import queries
from bot.services.world import (
    CampaignContext,
    claim_by_name,
    current,
    get_campaign,
)
from rules.campaign.inputs import MAX_LISTED_ROWS, parse_gold, parse_troops
from rules.errors import InvalidInput

app = command_group()


@app.command("init")
def init_cmd(
    config: ConfigOpt = None,
    demo: Annotated[bool, typer.Option("--demo", help="Load the demo roster and wars.")] = False,
    seed: Annotated[str | None, typer.Option("--seed", help="Fix the campaign secret.")] = None,
    roster: Annotated[Path | None, typer.Option("--roster", help="Roster TOML file.")] = None,
) -> None:
    """Create the database and the campaign (map from the config; --demo: demo roster).

    Runs the checks of `maester map check` first: any error stops it before anything is
    written.
    """
    from bot.cli.map import print_report
    from bot.clock import SystemClock
    from bot.db.engine import make_engine, transaction
    from bot.db.migrate import upgrade
    from bot.services.mapcheck import check_all
    from bot.services.setup import DEMO_ROSTER, DEMO_WARS, create_campaign

    settings = settings_of(config)
    report = check_all(settings=settings, roster=roster,
                       extra_roster=DEMO_ROSTER if demo else (),
                       extra_wars=DEMO_WARS if demo else ())
    print_report(report)
    if report.errors:
        console.print(f"[red]cannot create the campaign:[/red] {len(report.errors)} error(s) "
                      "above; nothing was written")
        raise typer.Exit(2)
    engine = make_engine(settings.campaign.database_url)
    upgrade(engine)
    map_text = report.map_text
    entries: list[dict[str, Any]] = report.roster
    wars: list[tuple[str, str]] = report.wars
    try:
        with transaction(engine) as session:
            ctx = create_campaign(session, settings, map_text=map_text, roster=entries,
                                  now=SystemClock().now(), seed=seed, wars=wars)
    except ValueError as exc:
        console.print(f"[red]cannot create the campaign:[/red] {exc}")
        raise typer.Exit(2) from None
    console.print(f"Campaign created in {settings.campaign.database_url} with "
                  f"{len(entries)} claims on a map of {len(ctx.world)} tiles.")


@app.command("armies")
def armies_cmd(config: ConfigOpt = None,
               claim: Annotated[str | None, typer.Option("--claim")] = None) -> None:
    """List raised armies (optionally of one claim)."""
    env = open_campaign(config)
    try:
        with env.session() as session:
            rows = queries.army_rows(session, env.ctx, claim)
    except LookupError as exc:
        raise fail(str(exc)) from None
    table = Table("Army", "Claim", "Kind", "State", "Tile", "Infantry", "Cavalry", "Ships",
                  "Marching to", "Arrives", "Equipment", "Siege")
    for a in rows:
        table.add_row(str(a.id), a.claim, a.kind, a.state, a.tile, str(a.infantry),
                      str(a.cavalry), str(a.ships), a.destination,
                      env.ctx.when(a.arrives) if a.arrives else "", ", ".join(a.equipment),
                      a.siege)
    console.print(table)


show_app = command_group(help="Show one thing in detail.", no_args_is_help=True)
app.add_typer(show_app, name="show")


@show_app.command("army")
def show_army_cmd(army_id: int, config: ConfigOpt = None) -> None:
    """Everything about one army: troops, state, path, pending battles."""
    whole(army_id, "army number", example="3", hint=" (see `maester armies`)")
    env = open_campaign(config)
    ctx = env.ctx
    with env.session() as session:
        try:
            a = queries.army_detail(session, ctx, army_id)
        except LookupError:
            console.print(f"[red]no army {army_id}[/red]")
            raise typer.Exit(2) from None
    console.print(f"[bold]Army {a.id}[/bold] of {a.claim}: {a.kind}, {a.state} at {a.tile} "
                  f"({a.tile_id})")
    console.print(f"  troops: {a.infantry} infantry, {a.cavalry} cavalry, {a.ships} ships")
    if a.path:
        console.print("  path left: " + " > ".join(a.path))
        if a.arrives:
            console.print(f"  arrives: {ctx.when(a.arrives)}")
    if a.ready:
        console.print(f"  ready: {ctx.when(a.ready)}")
    if a.characters:
        console.print("  characters: " + ", ".join(a.characters))
    for b in a.battles:
        console.print(f"  pending {b.kind} battle {b.id} at {b.tile}, fought "
                      f"{ctx.when(b.resolve_at)}, reaction: {b.reaction}")


@app.command("status")
def status_cmd(config: ConfigOpt = None) -> None:
    """Last tick, next tick, pending outbox, in-game date and season, proposals waiting."""
    env = open_campaign(config)
    ctx = env.ctx
    wall = env.clock.now()  # read once: the world is "ahead" only of this same reading
    with env.session() as session:
        now = world_now_in(session, ctx, wall)
        report = queries.status(session, ctx, now)
    due = report.ticks_due
    console.print(f"[bold]{report.name}[/bold] (r/{report.subreddit})")
    if report.created_on and report.created_on != report.subreddit:
        console.print(f"  subreddit:  [yellow]r/{report.subreddit}, from the config (the "
                      f"campaign was created on r/{report.created_on}); posts, replies and "
                      f"modmail go to r/{report.subreddit}[/yellow]")
    ahead = now - wall
    console.print(f"  now:        {ctx.when(report.now)}" + (
        f"  [yellow]the world is {_span(ahead)} ahead of the wall clock (ticks applied with "
        "--until); orders count from this time[/yellow]" if ahead > timedelta(0) else ""))
    console.print(f"  last tick:  {ctx.when(report.last_tick_at)}")
    console.print(f"  next tick:  {ctx.when(report.next_tick_at)}"
                  + (f"  [yellow]{due} tick(s) due[/yellow]" if due else ""))
    console.print(f"  in-game:    {report.game_date}, season {report.season}")
    console.print(f"  outbox:     {report.outbox_pending} pending, {report.outbox_dead} dead")
    console.print(f"  sieges:     {report.sieges_active} active")
    for line in report.sieges:
        console.print(f"    {escape(line)}")
    from bot.services.proposals import waiting_line

    line = waiting_line(report.proposals)
    console.print("  proposals:  " + (f"[yellow]{escape(line)}[/yellow]" if report.proposals
                                      else line))
    if report.paused:
        console.print(f"  [yellow]paused:     {escape(report.paused)}[/yellow] (`maester "
                      "resume`)")
    if report.holidays:
        console.print(f"  holidays:   the world's clock stands {report.holidays} tick(s) "
                      "behind the wall clock (pauses resumed without catching up)")
    from bot.reddit import state

    refused = state.load(env.engine, ctx.campaign_id, state.AUTH)
    halt = state.halt_of(env.engine, ctx.campaign_id)
    if refused:
        console.print(f"  [red]reddit:     Reddit refuses the bot's credentials since "
                      f"{refused['since'][:16]} ({refused['failures']} tries; next "
                      f"{refused['next_try'][11:19]} UTC): {refused['error']}[/red]")
    for lane, reason in state.halted_lanes(halt).items():
        assert halt is not None
        console.print(f"  [red]delivery:   {lane} halted (since {str(halt['since'])[:16]}; "
                      f"the rest goes on): {escape(reason)}; fix it, then `maester outbox "
                      "retry`[/red]")
    mentions = state.load(env.engine, ctx.campaign_id, state.MENTIONS)
    if mentions:
        console.print(f"  [red]mentions:   not read since {str(mentions['since'])[:16]}: "
                      f"{escape(str(mentions['reason']))}[/red]")


def _span(delta: timedelta) -> str:
    """``2d 6h``, ``5h 59m``, ``1m``: a length of time in words for the status line."""
    minutes = max(1, int(delta.total_seconds() // 60))
    days, rest = divmod(minutes, 24 * 60)
    hours, mins = divmod(rest, 60)
    parts = [f"{days}d" if days else "", f"{hours}h" if hours else "",
             f"{mins}m" if mins and not days else ""]
    return " ".join(p for p in parts if p) or "1m"


@app.command("order")
def order_cmd(
    text: Annotated[str, typer.Argument(help="The order text, as a player would send it.")],
    as_user: Annotated[str, typer.Option("--as", help="Reddit user the order comes from.")],
    config: ConfigOpt = None,
    at: Annotated[str | None, typer.Option(
        "--at", help="ISO UTC time the order is sent at (default: now, or just after the last "
        "applied tick when ticks were applied ahead of the wall clock).")] = None,
    yes: Annotated[bool, typer.Option(
        "--yes", help="Apply the ticks due before --at even beyond bot.max_catch_up_days.")]
    = False,
) -> None:
    """Process TEXT exactly as a modmail from that user would be; print the reply.

    The order is sent at --at (default: now, or just after the last applied tick when ticks
    were applied ahead); as for a player's message, the ticks due before it apply first.
    """
    from bot.messages import answer_message
    from bot.services.tick import CatchUpTooLong, catch_up, check_catch_up_bound

    env = open_campaign(config)
    ctx = env.ctx
    now = env.world_now()
    if at is not None:
        moment = parse_time("--at", at)
        with env.session() as session:
            ctx, campaign = current(session, ctx)
            last = ctx.tick_at(campaign.last_tick)
        if moment <= last:
            raise fail(f"--at {ctx.when(moment)}: the tick of {ctx.when(last)} is already "
                       "applied, and an order counts from the moment it is sent, after the "
                       f"ticks before it; give a time after it (e.g. --at "
                       f"{now + timedelta(minutes=1):%Y-%m-%dT%H:%M:%SZ}) or leave --at out")
        now = moment
    with env.session() as session:
        try:
            check_catch_up_bound(session, ctx, now)
        except CatchUpTooLong as exc:
            if not yes:
                raise fail(f"not sent: {exc} before the order; add --yes to apply them "
                           "first") from None
    applied = catch_up(env.engine, ctx, now)  # the ticks due before the order come first
    if applied:
        console.print(f"{len(applied)} tick(s) due before the order applied first.")
    with env.session() as session:
        ref = f"cli:{env.clock.now().timestamp():.6f}"
        answer = answer_message(session, ctx, author=as_user.removeprefix("u/"), text=text,
                                now=now, ref=ref)
    console.print(answer.text, markup=False)
    if answer.failed:  # an order's write failed and was rolled back
        raise typer.Exit(1)


@app.command("tick")
def tick_cmd(
    config: ConfigOpt = None,
    until: Annotated[str | None, typer.Option("--until", help="ISO UTC time (default now).")]
    = None,
    yes: Annotated[bool, typer.Option("--yes", help="Catch up beyond bot.max_catch_up_days.")]
    = False,
    preview: Annotated[bool, typer.Option(
        "--preview", help="Advance the world through the due ticks in memory and print the "
        "events, posts and messages they would make (the same dice); write nothing.")]
    = False,
) -> None:
    """Apply every due tick up to --until (default: now); --preview: show, apply nothing.

    Each tick first keeps a snapshot of the world (`maester undo` takes it back). Nothing
    applies while the campaign is paused (`maester resume`).
    """
    from rich.progress import Progress

    from bot.services.tick import CatchUpTooLong, catch_up, check_catch_up_bound, pending_ticks

    moment = parse_time("--until", until) if until is not None else None
    env = open_campaign(config)
    if moment is None:
        moment = env.clock.now()
    ctx = env.ctx
    with env.session() as session:
        total = pending_ticks(session, ctx, moment)
        try:
            check_catch_up_bound(session, ctx, moment)
        except CatchUpTooLong as exc:
            if not yes:
                console.print(f"[red]not applied:[/red] {exc}; add --yes to apply them all")
                raise typer.Exit(2) from None
    with env.session() as session:
        paused = queries.status(session, ctx, moment).paused
    if preview:
        _print_preview(ctx, env.engine, moment)
        if paused:
            console.print("[yellow]the campaign is paused[/yellow]: these ticks apply only "
                          "after `maester resume --catch-up --yes` (a plain resume skips them)")
        return
    if paused:
        console.print(f"[yellow]the campaign is paused[/yellow] ({escape(paused)}): no tick "
                      "applies; `maester resume` ends the pause")
        return
    with Progress(console=console) as progress:
        task = progress.add_task("ticks", total=total or 1)
        # Another process may apply some of them meanwhile: report what this one applied.
        applied = catch_up(env.engine, ctx, moment, on_tick=lambda r: progress.advance(task))
        events = sum(len(report.events) for report in applied)
    console.print(f"{len(applied)} tick(s) applied, {events} event(s).")


def _print_preview(ctx: CampaignContext, engine: Any, moment: datetime) -> None:
    """``tick --preview``: each due tick's events, then what it would post and send."""
    from bot.services.preview import preview

    ticks = preview(engine, ctx, moment)
    for tick in ticks:
        months = f", month(s) {', '.join(map(str, tick.months))} begin" if tick.months else ""
        console.print(f"[bold]tick {tick.tick}[/bold] ({ctx.when(tick.at)}{months})")
        for event in tick.events:
            console.print(f"  - {escape(event)}")
        for entry in tick.queued:
            to = f"r/{entry.target}" if entry.kind == "post" else (entry.target or "moderators")
            console.print(f"  {entry.kind} to {escape(to)}: {escape(entry.title)}")
            typer.echo("    " + entry.body.replace("\n", "\n    "))
    posts = sum(1 for t in ticks for e in t.queued if e.kind == "post")
    messages = sum(len(t.queued) for t in ticks) - posts
    console.print(f"Preview: {len(ticks)} tick(s), {sum(len(t.events) for t in ticks)} "
                  f"event(s), {posts} post(s), {messages} message(s); nothing was applied.")


season_app = command_group(help="The season (winter doubles upkeep).", no_args_is_help=True)
app.add_typer(season_app, name="season")


@season_app.command("set")
def season_set_cmd(season: str, config: ConfigOpt = None, by: ByOpt = None) -> None:
    """Set the season: winter, spring, summer or autumn."""
    from bot.services.moderation import set_season
    from rules.campaign.config import Season

    try:
        value = Season(season.lower())
    except ValueError:
        console.print(f"[red]{season!r} is not a season[/red]: winter, spring, summer, autumn")
        raise typer.Exit(2) from None
    env = open_campaign(config)
    now = env.world_now()
    ctx = env.ctx
    with env.session() as session:
        get_campaign(session, ctx, lock=True)
        _, told = set_season(session, ctx, value, actor=moderator_name(by), now=now)
    change = "doubles" if value is Season.WINTER else "falls back"
    console.print(f"Season is now {value.value}."
                  + (f" {told} claim(s) with raised troops were warned privately that their "
                     f"upkeep {change}." if told else ""))


relations_app = command_group(help="Relations between claims.", no_args_is_help=True)
app.add_typer(relations_app, name="relations")


@relations_app.command("set")
def relations_set_cmd(claim_a: str, claim_b: str, status: str, config: ConfigOpt = None,
                      by: ByOpt = None) -> None:
    """Set how two claims stand: war, neutral or allied."""
    from bot.cli.approval import proposed
    from bot.services.moderation import set_relations
    from bot.services.proposals import relations_action

    try:
        value = RelationStatus(status.lower())
    except ValueError:
        console.print(f"[red]{status!r} is not a relation[/red]: war, neutral, allied")
        raise typer.Exit(2) from None
    env = open_campaign(config)
    now = env.world_now()
    ctx = env.ctx
    with env.session() as session:
        a, b = claim_by_name(session, ctx, claim_a), claim_by_name(session, ctx, claim_b)
        if a is None or b is None or a.id == b.id:
            console.print("[red]name two different claims[/red] (see `maester claims`)")
            raise typer.Exit(2)
        if proposed(session, ctx, relations_action(a, b, value), by, now):
            return
        before = set_relations(session, ctx, a, b, value, actor=moderator_name(by), now=now)
    console.print(f"{a.name} and {b.name} are now {value.value} (were {before.value}).")


def _claim_or_exit(session: Any, ctx: CampaignContext, name: str) -> Claim:
    """The claim called ``name``; with none, says so and exits with code 2."""
    found = claim_by_name(session, ctx, name)
    if found is None:
        console.print(f"[red]no claim called {escape(repr(name[:80]))}[/red] (see `maester "
                      "claims`)")
        raise typer.Exit(2)
    return found


holdfast_app = command_group(help="Who holds a holdfast, and claims' seats.",
                             no_args_is_help=True)
app.add_typer(holdfast_app, name="holdfast")


@holdfast_app.command("give")
def holdfast_give_cmd(holdfast: str, claim: str,
                      seat: Annotated[bool, typer.Option(
                          "--seat", help="make it the claim's seat (where it musters)")] = False,
                      config: ConfigOpt = None, by: ByOpt = None) -> None:
    """Give a holdfast to a claim (--seat: as its seat); both claims are told privately."""
    from bot.cli.approval import proposed
    from bot.services.moderation import give_holdfast
    from bot.services.proposals import Refused, holdfast_action

    env = open_campaign(config)
    now = env.world_now()
    ctx = env.ctx
    with env.session() as session:
        found = _claim_or_exit(session, ctx, claim)
        try:
            if proposed(session, ctx, holdfast_action(session, ctx, holdfast, found, seat), by,
                        now):
                return
            summary = give_holdfast(session, ctx, found, holdfast, seat=seat,
                                    actor=moderator_name(by), now=now)
        except (LookupError, InvalidInput, Refused) as exc:
            console.print(f"[red]{exc}[/red]")
            raise typer.Exit(2) from None
    console.print(summary + ".")


@relations_app.command("list")
def relations_list_cmd(config: ConfigOpt = None) -> None:
    """List recorded relations (unlisted pairs are neutral)."""
    env = open_campaign(config)
    ctx = env.ctx
    with env.session() as session:
        rows = queries.relations(session, ctx)
    table = Table("Claim", "Claim", "Relation")
    for r in rows:
        table.add_row(r.claim_a, r.claim_b, r.status)
    console.print(table)


@app.command("adjust")
def adjust_cmd(
    claim: str,
    config: ConfigOpt = None,
    gold: Annotated[str | None, typer.Option(help="Change in gold, e.g. +100 or -25.5")] = None,
    infantry: Annotated[str, typer.Option(help="Change in infantry at home")] = "0",
    cavalry: Annotated[str, typer.Option(help="Change in cavalry at home")] = "0",
    ships: Annotated[str, typer.Option(help="Change in ships at home")] = "0",
    reason: Annotated[str, typer.Option(help="Why (goes to the log)")] = "",
    dry_run: Annotated[bool, typer.Option(
        "--dry-run", help="Show the claim before and after; write nothing.")] = False,
    by: ByOpt = None,
) -> None:
    """Change a claim's gold and troops at home; recorded in the log with the moderator.

    Prints the claim before and after; with --dry-run nothing is written or logged.
    """
    from bot.cli.approval import proposed
    from bot.render.common import money
    from bot.services.moderation import Holdings, adjust_claim, adjusted
    from bot.services.proposals import adjust_action

    env = open_campaign(config)
    now = env.world_now()
    try:
        delta = parse_gold(gold or "0", "--gold", signed=True)
        infantry_n, cavalry_n, ships_n = (
            parse_troops(v, f"--{k}", signed=True)
            for k, v in (("infantry", infantry), ("cavalry", cavalry), ("ships", ships)))
    except InvalidInput as exc:
        raise fail(f"{exc}; nothing changed") from None
    ctx = env.ctx
    with env.session() as session:
        found = _claim_or_exit(session, ctx, claim)
        change = Holdings(delta, infantry_n, cavalry_n, ships_n)
        try:
            new = adjusted(found, change)
        except InvalidInput as exc:
            raise fail(f"{exc}; nothing changed") from None

        def holdings(values: Holdings) -> str:
            return (f"gold {money(values.gold)}, {values.infantry} infantry, {values.cavalry} "
                    f"cavalry, {values.ships} ships")

        before = Holdings(found.gold, found.infantry, found.cavalry, found.ships)
        console.print(f"{escape(found.name)} before: {holdings(before)}")
        if dry_run:
            console.print(f"{escape(found.name)} after:  {holdings(new)}")
            console.print("Dry run: nothing written.")
            return
        if proposed(session, ctx, adjust_action(found, change, reason), by, now):
            # (the claim has not changed: what it would hold is said as such)
            console.print(f"{escape(found.name)} once approved: {holdings(new)}")
            return
        console.print(f"{escape(found.name)} after:  {holdings(new)}")
        adjust_claim(session, ctx, found, change, reason=reason, actor=moderator_name(by),
                     now=now)


@app.command("log")
def log_cmd(config: ConfigOpt = None,
            claim: Annotated[str | None, typer.Option("--claim")] = None,
            limit: Annotated[int, typer.Option("--limit")] = 50) -> None:
    """The event log with dice, newest last."""
    whole(limit, "--limit", high=MAX_LISTED_ROWS, example="50")
    env = open_campaign(config)
    try:
        with env.session() as session:
            rows = queries.events(session, env.ctx, claim=claim, limit=limit)
    except LookupError as exc:
        raise fail(str(exc)) from None
    table = Table("#", "When", "Kind", "By", "What", "Dice")
    for e in rows:
        dice = " ".join(f"d{d['sides']}={d['value']}" for d in e.dice_json)
        table.add_row(str(e.id), env.ctx.when_logged(e.at, e.tick) if e.at else "", e.kind, e.actor,
                      e.summary, dice)
    console.print(table)


@app.command("outbox")
def outbox_cmd(
    action: Annotated[str | None, typer.Argument(
        help="'retry': try again at once (lifts a delivery halt and back-offs); 'show N': "
        "print entry N's body exactly as Reddit will get it.")] = None,
    entry: Annotated[int | None, typer.Argument(
        help="With retry: the entry (#) to make pending again with fresh attempts; with "
        "show: the entry to print.")] = None,
    config: ConfigOpt = None,
    all_entries: Annotated[bool, typer.Option("--all")] = False,
    all_dead: Annotated[bool, typer.Option(
        "--all-dead", help="With retry: every dead entry too.")] = False,
    body: Annotated[bool, typer.Option(
        "--body", help="Print each entry's body, as Reddit will get it, after the list.")]
    = False,
) -> None:
    """Posts, replies and messages waiting to be delivered (--all: delivered and dead too)."""
    if entry is not None:
        whole(entry, "entry number", example="12",
              hint=" (see `maester outbox --all`); nothing changed")
    env = open_campaign(config)
    if action == "show":
        if entry is None:
            console.print("[red]usage:[/red] maester outbox show N (N from `maester outbox`)")
            raise typer.Exit(2)
        with env.session() as session:
            rows = [o for o in queries.outbox(session, env.ctx, everything=True)
                    if o.id == entry]
        if not rows:
            console.print(f"[red]no outbox entry #{entry}[/red] (see `maester outbox --all`)")
            raise typer.Exit(2)
        _print_entry(env.ctx, rows[0], env.clock.now())
        return
    if action is not None:
        if action != "retry" or (entry is not None and all_dead):
            console.print("[red]usage:[/red] maester outbox retry [N | --all-dead]")
            raise typer.Exit(2)
        from bot.reddit.deliver import retry

        changed = retry(env.engine, env.ctx, env.clock.now(), entry_id=entry,
                        all_dead=all_dead)
        if entry is not None and not changed:
            console.print(f"[red]no pending or dead outbox entry #{entry}[/red]")
            raise typer.Exit(2)
        console.print(f"{changed} entr{'y' if changed == 1 else 'ies'} will be tried at the "
                      "next delivery round; delivery halts and back-offs are lifted.")
        return
    with env.session() as session:
        rows = list(queries.outbox(session, env.ctx, everything=all_entries))
    table = Table("#", "Kind", "To", "Title", "Status", "Tries", "Error")
    for o in rows:
        table.add_row(str(o.id), o.kind, o.target, o.title[:60], o.status,
                      str(o.attempts), o.last_error[:40])
    console.print(table)
    if body:
        now = env.clock.now()
        for row in rows:
            _print_entry(env.ctx, row, now)


def _print_entry(ctx: CampaignContext, row: Outbox, now: datetime) -> None:
    """One outbox entry: a header line, then its body exactly as the delivery composes it."""
    from bot.reddit.deliver import preview_body

    console.print(f"--- #{row.id} {row.kind} to {escape(row.target)}: {escape(row.title)} "
                  f"({row.status})", markup=True)
    typer.echo(preview_body(ctx, row, now))


@app.command("export")
def export_cmd(config: ConfigOpt = None) -> None:
    """The whole world as JSON on stdout."""
    env = open_campaign(config)
    with env.session() as session:
        data = queries.export_world(session, env.ctx)
    typer.echo(json.dumps(data, indent=2, sort_keys=True))


db_app = command_group(help="Database maintenance.", no_args_is_help=True)
app.add_typer(db_app, name="db")


@db_app.command("upgrade")
def db_upgrade_cmd(config: ConfigOpt = None) -> None:
    """Apply the database migrations up to the newest."""
    from bot.db.engine import make_engine
    from bot.db.migrate import upgrade

    upgrade(make_engine(settings_of(config).campaign.database_url))
    console.print("Database is up to date.")

@app.command("demo")
def demo_cmd(
    serve: Annotated[bool, typer.Option(
        "--serve", help="Keep the demo's web pages up after it, until Ctrl-C.")] = False,
    port: Annotated[int, typer.Option(
        "--port", min=0, max=65535, help="The web pages' port (a free one if taken).")] = 8080,
) -> None:
    """Play a whole demo campaign against a local Reddit sandbox (no credentials needed)."""
    from bot.demo import main

    raise typer.Exit(main(lambda text: console.print(text, markup=False), web_port=port,
                          serve=serve))
