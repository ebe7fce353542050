"""The Reddit commands: ``maester run``, ``maester poll --once``, ``maester publish --once``,
``maester check``.

Exit codes: 0 done; 1 another process holds the campaign's lease; 2 a config or database
problem (the message names it); 3 the lease was lost while running.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, TypeVar

import typer

from bot.cli.common import fail, settings_of, whole
from bot.cli.options import ConfigOpt, command_group
from bot.clock import SystemClock
from bot.config import Settings
from bot.db.migrate import MigrationError
from rules.campaign.inputs import MAX_LISTED_ROWS

if TYPE_CHECKING:  # PRAW and SQLAlchemy load only when a Reddit command runs
    from sqlalchemy import Engine

    from bot.reddit.gateway import RedditGateway
    from bot.reddit.preflight import Check
    from bot.services.world import CampaignContext

T = TypeVar("T")

app = command_group()
OnceOpt = Annotated[bool, typer.Option("--once", help="One round, then exit (for cron).")]


def _configure_logging() -> None:
    logging.basicConfig(level=logging.INFO,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")


@app.command("run")
def run_cmd(config: ConfigOpt = None) -> None:
    """Run the bot: modmail intake, game ticks and posting, until SIGTERM/Ctrl-C."""
    from bot.reddit.gateway import GatewayConfigError
    from bot.reddit.lease import LeaseHeld
    from bot.reddit.preflight import PreflightFailed
    from bot.runner import run

    _configure_logging()
    settings = settings_of(config)
    try:
        code = run(settings)
    except LeaseHeld as exc:
        raise fail(str(exc), 1) from None
    except (LookupError, GatewayConfigError, MigrationError, PreflightFailed) as exc:
        raise fail(str(exc), 2) from None
    raise typer.Exit(code)


@app.command("check")
def check_cmd(config: ConfigOpt = None) -> None:
    """Check the login, the subreddit, the bot's permissions, flairs, modmail and posting.

    With a dice beacon in the config, check it too (reachable, and the pinned chain)."""
    from bot.reddit.gateway import GatewayConfigError, praw_gateway
    from bot.reddit.preflight import run_checks
    from bot.reddit.state import DatabaseTokenStore
    from bot.services.access import open_campaign

    settings = settings_of(config)
    store = None
    halts: list[str] = []
    try:
        engine, ctx = open_campaign(settings)
        store = DatabaseTokenStore(engine, ctx.campaign_id)
        halts = _halts(engine, ctx.campaign_id)
    except (LookupError, MigrationError) as exc:
        typer.echo(f"note: {exc} (the Reddit checks run anyway)")
    try:
        gateway = praw_gateway(settings, token_store=store)
    except GatewayConfigError as exc:
        raise fail(f"config error: {exc}", 2) from None
    try:
        checks = run_checks(settings, gateway)
    except Exception as exc:  # a bug or a surprise from the network stack: one clear line
        logging.getLogger(__name__).debug("maester check failed", exc_info=True)
        raise fail(f"maester check could not finish: {type(exc).__name__} ({exc}); "
                   "nothing was changed, try again", 2) from None
    for check in checks:
        _echo_check(check)
    for line in halts:
        typer.echo(f"[warn] {line}")
    beacon = _beacon_check(settings)
    if beacon is not None:
        _echo_check(beacon)
    failed = [c for c in checks if not c.ok and c.fatal]
    typer.echo("maester check: " + ("all good" if not failed else
                                    f"{len(failed)} problem(s) would stop the bot"))
    raise typer.Exit(1 if failed else 0)


def _echo_check(check: Check) -> None:
    """One check's line (and, when it did not pass, the fix under it)."""
    mark = "ok  " if check.ok else ("FAIL" if check.fatal else "warn")
    typer.echo(f"[{mark}] {check.name}: {check.detail}")
    if not check.ok:
        typer.echo(f"       fix: {check.fix}")


def _beacon_check(settings: Settings) -> Check | None:
    """The beacon's check when ``[dice] beacon = "drand"``: a warning, never a failure (the
    dice fall back to commit-reveal alone by design)."""
    from bot.reddit.preflight import Check
    from bot.services import beacon

    if settings.dice.beacon != "drand":
        return None
    found = beacon.probe(settings.dice)
    if not found.problem:
        return Check("beacon", True, found.detail)
    fix = ("check the network from this machine to [dice] beacon_url; the ticks do not wait "
           "for it longer than beacon_timeout" if found.problem == beacon.UNREACHABLE else
           "[dice] beacon_url, beacon_chain, beacon_public_key, beacon_genesis and "
           "beacon_period must all name the same chain (docs/dice.md); until they do, the "
           "dice fall back to commit-reveal alone")
    return Check(f"beacon ({found.problem})", False, found.detail, fix, fatal=False)


def _halts(engine: Engine, campaign_id: int) -> list[str]:
    """What of the bot's work is halted now by a refusal of Reddit's, one line each."""
    from bot.reddit import state

    halt = state.halt_of(engine, campaign_id)
    lines = [f"delivery: {lane} halted since {str(halt['since'])[:16]} UTC (the rest goes "
             f"on): {reason}" for lane, reason in state.halted_lanes(halt).items()
             if halt is not None]
    mentions = state.load(engine, campaign_id, state.MENTIONS)
    if mentions:
        lines.append(f"mentions: not read since {str(mentions['since'])[:16]} UTC: "
                     f"{mentions['reason']}")
    return lines


def _with_lease(settings: Settings,
                work: Callable[[Engine, CampaignContext, RedditGateway], T]) -> T:
    """Run ``work`` while holding the campaign lease (refusing if a bot is running)."""
    from bot.reddit.deliver import release_claims
    from bot.reddit.gateway import GatewayConfigError, praw_gateway
    from bot.reddit.lease import CampaignLease, LeaseHeld, LeaseLost
    from bot.reddit.state import DatabaseTokenStore
    from bot.services.access import open_campaign

    try:
        engine, ctx = open_campaign(settings)
        # The token outlives the process: cron's rounds log in once a day, not each minute.
        gateway = praw_gateway(settings,
                               token_store=DatabaseTokenStore(engine, ctx.campaign_id))
    except (LookupError, GatewayConfigError, MigrationError) as exc:
        raise fail(str(exc), 2) from None
    lease = CampaignLease(engine, ctx.campaign_id, seconds=settings.bot.lease_seconds)
    try:
        lease.acquire()
    except LeaseHeld as exc:
        raise fail(str(exc), 1) from None
    lease.fence()  # a lapsed holder cannot write
    try:
        release_claims(engine, ctx)
        with lease.kept_alive():  # renewed while a long round runs
            return work(engine, ctx, gateway)
    except LeaseLost as exc:
        raise fail(f"stopped: {exc}. Another maester process took this campaign over while "
                   "this one was working (its lease had lapsed); nothing more was written "
                   "by this process, and the other one carries on.", 3) from None
    finally:
        lease.release()
        engine.dispose()


def _loop(every: int, round_: Callable[[], None]) -> None:
    from bot.runner import install_stop_signals

    stop = threading.Event()
    install_stop_signals(stop)
    while True:
        round_()
        if stop.wait(every):
            return


@app.command("poll")
def poll_cmd(
    config: ConfigOpt = None,
    once: OnceOpt = False,
    mark_seen: Annotated[bool, typer.Option(
        "--mark-seen", help="Record the modmail already there without answering it "
        "(before the first run on a subreddit with old modmail).")] = False,
) -> None:
    """Read modmail (and mentions) and handle new orders; --once for a single round."""
    from bot.reddit.intake import poll_once
    from bot.services.tick import advancer

    _configure_logging()
    settings = settings_of(config)
    clock = SystemClock()

    def work(engine: Engine, ctx: CampaignContext, gateway: RedditGateway) -> None:
        def one() -> None:
            report = poll_once(engine, ctx, gateway, clock, mark_seen=mark_seen,
                               advance_to=advancer(engine, ctx))
            typer.echo(f"poll: {report.processed} messages handled, {report.replies_queued} "
                       f"replies queued, {report.conversations_fetched} conversations read"
                       + (f", problems: {'; '.join(report.errors)}" if report.errors else ""))

        if once or mark_seen:
            one()
        else:
            _loop(settings.bot.poll_seconds, one)

    _with_lease(settings, work)


@app.command("publish")
def publish_cmd(
    config: ConfigOpt = None,
    once: OnceOpt = False,
    limit: Annotated[int, typer.Option("--limit", help="Most entries a round.")] = 100,
) -> None:
    """Deliver the outbox (posts, replies, private news); --once for a single round."""
    whole(limit, "--limit", high=MAX_LISTED_ROWS, example="100")
    from bot.reddit.deliver import publish_once
    from bot.reddit.pacing import Pacer

    _configure_logging()
    settings = settings_of(config)
    clock = SystemClock()

    def work(engine: Engine, ctx: CampaignContext, gateway: RedditGateway) -> None:
        pacer = Pacer.shared(ctx.settings)

        def one() -> None:
            report = publish_once(engine, ctx, gateway, clock, limit=limit, pacer=pacer)
            typer.echo(f"publish: {report.delivered} delivered, {report.retry_later} to retry,"
                       f" {report.dead} dead"
                       + (f", HALTED: {report.halted}" if report.halted else "")
                       + (f", problems: {'; '.join(report.errors)}" if report.errors else ""))

        if once:
            one()
        else:
            _loop(settings.bot.publish_seconds, one)

    _with_lease(settings, work)
