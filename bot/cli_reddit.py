"""The Reddit commands: ``maester run``, ``maester poll --once``, ``maester publish --once``.

Exit codes: 0 done; 1 another process holds the campaign's lease; 2 a config or database
problem (the message names it); 3 the lease was lost while running.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, TypeVar

import typer

from bot.cli import app
from bot.clock import SystemClock
from bot.config import ConfigError, Settings, load_settings
from bot.db.migrate import MigrationError

if TYPE_CHECKING:  # PRAW and SQLAlchemy load only when a Reddit command runs
    from sqlalchemy import Engine

    from bot.reddit.gateway import RedditGateway
    from bot.services.world import CampaignContext

T = TypeVar("T")

DEFAULT_CONFIG = Path("config.toml")
ConfigOpt = Annotated[Path | None, typer.Option("--config", "-c", envvar="MAESTER_CONFIG",
                                                help="Campaign config file (TOML).")]
OnceOpt = Annotated[bool, typer.Option("--once", help="One round, then exit (for cron).")]


def _configure_logging() -> None:
    logging.basicConfig(level=logging.INFO,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")


def _fail(message: str, code: int) -> typer.Exit:
    typer.echo(f"maester: {message}", err=True)
    return typer.Exit(code)


def _settings(config: Path | None) -> Settings:
    path = config if config is not None else DEFAULT_CONFIG
    try:
        return load_settings(path if (config is not None or path.exists()) else None)
    except ConfigError as exc:
        raise _fail(f"config error: {exc}", 2) from None


@app.command("run")
def run_cmd(config: ConfigOpt = None) -> None:
    """Run the bot: modmail intake, game ticks and posting, until SIGTERM/Ctrl-C."""
    from bot.reddit.gateway import GatewayConfigError
    from bot.reddit.lease import LeaseHeld
    from bot.runner import run

    _configure_logging()
    settings = _settings(config)
    try:
        code = run(settings)
    except LeaseHeld as exc:
        raise _fail(str(exc), 1) from None
    except (LookupError, GatewayConfigError, MigrationError) as exc:
        raise _fail(str(exc), 2) from None
    raise typer.Exit(code)


def _with_lease(settings: Settings,
                work: Callable[[Engine, CampaignContext, RedditGateway], T]) -> T:
    """Run ``work`` while holding the campaign lease (refusing if a bot is running)."""
    from bot.reddit.deliver import release_claims
    from bot.reddit.gateway import GatewayConfigError, praw_gateway
    from bot.reddit.lease import CampaignLease, LeaseHeld
    from bot.runner import open_campaign

    try:
        engine, ctx = open_campaign(settings)
        gateway = praw_gateway(settings)
    except (LookupError, GatewayConfigError, MigrationError) as exc:
        raise _fail(str(exc), 2) from None
    lease = CampaignLease(engine, ctx.campaign_id, seconds=settings.bot.lease_seconds)
    try:
        lease.acquire()
    except LeaseHeld as exc:
        raise _fail(str(exc), 1) from None
    lease.fence()  # a lapsed holder cannot write
    try:
        release_claims(engine, ctx)
        with lease.kept_alive():  # renewed while a long round runs
            return work(engine, ctx, gateway)
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

    _configure_logging()
    settings = _settings(config)
    clock = SystemClock()

    def work(engine: Engine, ctx: CampaignContext, gateway: RedditGateway) -> None:
        def one() -> None:
            report = poll_once(engine, ctx, gateway, clock, mark_seen=mark_seen)
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
    limit: Annotated[int, typer.Option("--limit", min=1, help="Most entries a round.")] = 100,
) -> None:
    """Deliver the outbox (posts, replies, private news); --once for a single round."""
    from bot.reddit.deliver import publish_once

    _configure_logging()
    settings = _settings(config)
    clock = SystemClock()

    def work(engine: Engine, ctx: CampaignContext, gateway: RedditGateway) -> None:
        def one() -> None:
            report = publish_once(engine, ctx, gateway, clock, limit=limit)
            typer.echo(f"publish: {report.delivered} delivered, {report.retry_later} to retry,"
                       f" {report.dead} dead"
                       + (f", problems: {'; '.join(report.errors)}" if report.errors else ""))

        if once:
            one()
        else:
            _loop(settings.bot.publish_seconds, one)

    _with_lease(settings, work)
