"""``maester run``: the listener, the game clock and the deliverer in one process.

APScheduler (3.11, UTC, in-memory job store) only wakes the process; the database is the
source of truth (``docs/storage.md``). The runner owns the game clock and hands the intake
:meth:`BotRunner.advance_to`: each intake round applies the ticks due before each order it
reads, then those due before the round began. At 00/06/12/18 UTC a round runs at once; the
heartbeat every minute catches up only as far as the intake has read (``horizon``), so a tick
missed while the process was down, asleep or stepped by NTP is applied after the orders sent
before it were read.
Intake runs every ``[bot] poll_seconds`` and delivery every ``[bot] publish_seconds`` (and
right after a poll that queued replies); the two share one Reddit client and take turns.

Start-up runs the same checks as ``maester check`` and refuses to start when one that would
kill the outbox fails, takes the campaign lease (a second instance refuses to run and says
who holds it), forgets claims a dead predecessor left on the outbox, polls (which catches up
order by order) and publishes once, then starts the scheduler. SIGTERM/SIGINT stop it
cleanly: running jobs finish, the lease is released, the exit code is 0.
"""

from __future__ import annotations

import logging
import signal
import threading
from collections.abc import Callable
from datetime import UTC, datetime
from types import FrameType
from typing import TYPE_CHECKING, Any

from apscheduler.executors.pool import ThreadPoolExecutor
from apscheduler.jobstores.memory import MemoryJobStore
from apscheduler.schedulers.background import BackgroundScheduler
from apscheduler.triggers.cron import CronTrigger
from apscheduler.triggers.interval import IntervalTrigger
from sqlalchemy import Connection, Engine, func
from sqlmodel import col, select

from bot.clock import Clock, SystemClock
from bot.config import Settings
from bot.db.engine import is_sqlite, transaction
from bot.db.models import Outbox, OutboxStatus
from bot.errors import DamagedValue
from bot.reddit import state
from bot.reddit.deliver import (
    DeliverReport,
    default_worker_id,
    publish_once,
    release_claims,
)
from bot.reddit.gateway import PrawGateway, RedditGateway, praw_gateway
from bot.reddit.intake import IntakeReport, horizon, poll_once
from bot.reddit.lease import CampaignLease, LeaseLost
from bot.reddit.pacing import Pacer
from bot.services import journal
from bot.services.access import open_campaign
from bot.services.tick import CatchUpTooLong, advancer, check_catch_up_bound
from bot.services.world import CampaignContext, current, get_campaign, refreshed

if TYPE_CHECKING:  # the web stack loads only when [web] asks for it
    from bot.web.serve import Background

log = logging.getLogger("maester.runner")

#: Wake-ups must never be dropped for being late: catch_up decides what is due anyway.
JOB_DEFAULTS: dict[str, Any] = {"coalesce": True, "max_instances": 1,
                                "misfire_grace_time": None}
TICK_HOURS = "0,6,12,18"
EXIT_OK = 0
EXIT_LEASE_LOST = 3


class BotRunner:
    """The scheduled bot for one campaign. :meth:`start` and :meth:`stop`, or :func:`run`."""

    def __init__(self, settings: Settings, engine: Engine, ctx: CampaignContext,
                 gateway: RedditGateway, *, clock: Clock | None = None,
                 lease: CampaignLease | None = None, worker_id: str | None = None,
                 on_fatal: Callable[[int], None] | None = None) -> None:
        self.settings = settings
        self.engine = engine
        self.ctx = ctx
        self.gateway = gateway
        self.clock = clock or SystemClock()
        self.lease = lease
        self.worker_id = worker_id or default_worker_id()
        self.on_fatal = on_fatal
        self.scheduler: BackgroundScheduler | None = None
        self._reddit = threading.Lock()
        self.polls = 0
        self.publishes = 0
        self.pacer = Pacer.shared(ctx.settings)
        self._keeper: Connection | None = None
        self.web: Background | None = None
        self._exported: int | None = None  # the last tick written to [web] export_dir

    # --------------------------------------------------------------- jobs

    def wake(self, reason: str = "wake-up") -> int:
        """Apply the due ticks the intake has vouched for; returns how many were applied.

        The game clock is the runner's, but it advances only as far as
        :func:`~bot.reddit.intake.horizon`: the start of the newest complete intake round
        (every order sent before it was read), or ``[bot] tick_wait_minutes`` ago when
        Reddit cannot be read. At a tick's hour the wake-up is an intake round, which reads
        the orders sent before the tick and then applies it (once: no second catch-up)."""
        report = self.poll() if reason == "tick" else None
        if report is not None:
            self.export_pages()
            return report.ticks_applied  # the round applied what was due
        if not self._reddit.acquire(blocking=False):
            return 0  # an intake round is running: it advances the world when it is done
        try:
            ctx = self.refresh()  # a holiday's clock, a map stored by `maester map update`
            if not self.within_catch_up_bound(ctx):
                return 0
            applied = self.advance_to(horizon(self.engine, ctx, self.clock.now()))
        except LeaseLost as exc:
            self.lease_lost(exc)
            return 0
        except DamagedValue as exc:
            self.damaged(exc)
            return 0
        except Exception:
            log.exception("catch_up failed (%s); the next wake-up retries", reason)
            return 0
        finally:
            self._reddit.release()
        if applied:
            log.info("%s: applied %d tick(s)", reason, applied)
        self.export_pages()
        return applied

    def refresh(self) -> CampaignContext:
        """Take up what other processes stored since the bot's context was made: the clock
        of a holiday (``maester resume``), a map (``maester map update``). The one place the
        bot's context changes: a new frozen context (:func:`~bot.services.world.refreshed`)
        swapped in whole, so a job holding the old one goes on with it unchanged and none sees
        one half changed."""
        with transaction(self.engine) as session:
            ctx = refreshed(session, self.ctx)
        self.ctx = ctx
        return ctx

    def advance_to(self, moment: datetime) -> int:
        """Apply every tick due at ``moment`` (idempotent); how many were applied. The
        intake calls it before each order, with the order's send time."""
        return advancer(self.engine, self.ctx)(moment)

    def damaged(self, exc: DamagedValue) -> None:
        """A hand-damaged value stops the ticks: one log line each wake-up (no traceback)
        and one note to the moderators per due tick, saying which row and how to fix it."""
        log.error("not applying ticks: %s", exc)
        now = self.clock.now()
        due = self.ctx.tick_of(now)
        with transaction(self.engine) as session:
            journal.queue(session, self.ctx.campaign_id, f"damaged-value:{due}", "mod",
                          title="maester stopped: a damaged value in the database",
                          body=f"**No tick was applied:** {exc}.", at=now, tick=due)

    def send_new_links(self) -> None:
        """With the pages public (``[web] public_url``), every claim that has no war-room
        link yet gets one in its dispatch."""
        if not self.settings.web.public_url:
            return
        from bot.services.weblinks import send_new_links

        now = self.clock.now()
        try:
            with transaction(self.engine) as session:
                sent = send_new_links(session, self.ctx, now, self.ctx.tick_of(now))
        except Exception:
            log.exception("could not send the war-room links; `maester web links` shows them")
            return
        if sent:
            log.info("sent %d claims their war-room link", sent)

    def export_pages(self) -> None:
        """Refresh ``[web] export_dir`` with the static realm when a tick was applied since
        the last refresh (by this wake-up or by the intake's catch-up)."""
        folder = self.settings.web.export_dir
        if not folder:
            return
        from pathlib import Path

        from bot.db.engine import make_reader_engine
        from bot.web.export import export_realm

        try:
            with transaction(self.engine) as session:
                last = get_campaign(session, self.ctx).last_tick
            if last == self._exported:
                return
            reader = make_reader_engine(self.settings.campaign.database_url)
            try:
                export_realm(reader, self.settings, Path(folder), parses=self.ctx.parses)
                self._exported = last
            finally:
                reader.dispose()
        except Exception:
            log.exception("could not refresh the static realm in %s; the next tick retries",
                          folder)

    def within_catch_up_bound(self, ctx: CampaignContext) -> bool:
        """False (and the moderators told, once per jump) when the due ticks span more days
        than ``bot.max_catch_up_days``: a clock jump is never caught up unasked."""
        now = self.clock.now()
        with transaction(self.engine) as session:
            try:
                check_catch_up_bound(session, ctx, now)
            except CatchUpTooLong as exc:
                log.error("not catching up: %s", exc)
                due = ctx.tick_of(now)
                journal.queue(session, ctx.campaign_id, f"clock-jump:{due}", "mod",
                              title="maester stopped: the clock jumped",
                              body=(f"**The bot did not apply the ticks due:** {exc}. If the "
                                    "host clock is wrong, fix it; if the time really passed, "
                                    "run `maester tick --yes` once, then restart the bot."),
                              at=now, tick=due)
                return False
        return True

    def heartbeat(self) -> None:
        """The one-minute wake-up: catch up, then log one line on the bot's health."""
        self.wake("heartbeat")
        try:
            with transaction(self.engine) as session:
                ctx, campaign = current(session, self.ctx)
                counts = dict(session.exec(
                    select(Outbox.status, func.count(col(Outbox.id)))
                    .where(Outbox.campaign_id == ctx.campaign_id)
                    .group_by(Outbox.status)).all())
            due = ctx.tick_of(self.clock.now())
            until = self.lease.expires_at if self.lease else None
            log.info(
                "heartbeat: campaign %d, last tick %d (due %d), outbox %d pending / %d dead, "
                "%d polls / %d publish rounds, lease until %s",
                ctx.campaign_id, campaign.last_tick, due,
                counts.get(OutboxStatus.PENDING, 0),
                counts.get(OutboxStatus.DEAD, 0), self.polls, self.publishes,
                until.isoformat() if until else "-")
        except Exception:
            log.exception("heartbeat could not read the database")

    def lease_lost(self, exc: LeaseLost) -> None:
        """A write was refused because another process took the campaign over: stop."""
        log.error("%s: stopping so that two bots never run the same campaign", exc)
        if self.on_fatal is not None:
            self.on_fatal(EXIT_LEASE_LOST)

    def renew_lease(self) -> None:
        """Keep the lease; losing it stops the process (another bot may be running)."""
        if self.lease is None:
            return
        try:
            kept = self.lease.renew()
        except Exception:
            log.exception("lease renewal failed; trying again at the next renewal")
            return
        if not kept:
            log.error("lease lost: stopping so that two bots never run the same campaign")
            if self.on_fatal is not None:
                self.on_fatal(EXIT_LEASE_LOST)

    def poll(self) -> IntakeReport | None:
        """One intake round (then a delivery round if it queued replies)."""
        try:
            ctx = self.refresh()  # a holiday's clock, a map stored by `maester map update`
            if not self.within_catch_up_bound(ctx):  # the intake catches up first
                return None
        except LeaseLost as exc:
            self.lease_lost(exc)
            return None
        except Exception:
            log.exception("poll could not read the database")
            return None
        with self._reddit:
            try:
                report = poll_once(self.engine, ctx, self.gateway, self.clock,
                                   advance_to=self.advance_to)
            except LeaseLost as exc:
                self.lease_lost(exc)
                return None
            except DamagedValue as exc:  # the round's catch-up met a hand-damaged value
                self.damaged(exc)
                return None
            except Exception:
                log.exception("intake round failed; the next round retries")
                return None
            self.polls += 1
            if report.processed:
                log.info("intake: %d messages handled (%d forwards, %d imitations refused, "
                         "%d comments), %d replies queued", report.processed, report.forwards,
                         report.imitations, report.comments, report.replies_queued)
            if report.replies_queued:
                self._publish_locked()
        return report

    def publish(self) -> DeliverReport | None:
        """One delivery round."""
        with self._reddit:
            return self._publish_locked()

    def _publish_locked(self) -> DeliverReport | None:
        try:
            report = publish_once(self.engine, self.ctx, self.gateway, self.clock,
                                  worker_id=self.worker_id, limit=50, pacer=self.pacer)
        except LeaseLost as exc:
            self.lease_lost(exc)
            return None
        except Exception:
            log.exception("delivery round failed; the next round retries")
            return None
        self.publishes += 1
        if report.delivered or report.dead:
            log.info("delivery: %d delivered (%d were already there), %d retry later, %d dead",
                     report.delivered, report.found_existing, report.retry_later, report.dead)
        return report

    # --------------------------------------------------------------- lifecycle

    def build_scheduler(self) -> BackgroundScheduler:
        """The scheduler with its five jobs (not started)."""
        bot = self.settings.bot
        scheduler = BackgroundScheduler(
            timezone=UTC,
            jobstores={"default": MemoryJobStore()},
            executors={"default": ThreadPoolExecutor(4)},
            job_defaults=JOB_DEFAULTS,
        )
        scheduler.add_job(self.wake, CronTrigger(hour=TICK_HOURS, minute=0, timezone=UTC),
                          args=["tick"], id="ticks", name="game ticks")
        scheduler.add_job(self.heartbeat, IntervalTrigger(minutes=1, timezone=UTC),
                          id="heartbeat", name="heartbeat")
        scheduler.add_job(self.poll, IntervalTrigger(seconds=bot.poll_seconds, timezone=UTC),
                          id="poll", name="modmail intake")
        scheduler.add_job(self.publish,
                          IntervalTrigger(seconds=bot.publish_seconds, timezone=UTC),
                          id="publish", name="outbox delivery")
        if self.lease is not None:
            scheduler.add_job(self.renew_lease,
                              IntervalTrigger(seconds=self.lease.renew_every, timezone=UTC),
                              id="lease", name="lease renewal")
        return scheduler

    def start(self) -> None:
        """:meth:`start_up`, then the scheduler."""
        if is_sqlite(self.engine) and self._keeper is None:
            # With no pool, closing a file's last connection checkpoints and deletes its WAL
            # (an fsync per transaction); one idle connection kept open avoids that.
            self._keeper = self.engine.connect()
        if self.settings.web.enabled and self.web is None:
            from bot.web.serve import start_background

            self.web = start_background(self.settings)
            self.send_new_links()
        self.start_up()
        self.export_pages()  # the static realm as of now (then after every tick)
        self.scheduler = self.build_scheduler()
        self.scheduler.start()
        log.info("maester is running campaign %d on r/%s (poll every %d s, publish every %d s)",
                 self.ctx.campaign_id, self.settings.campaign.subreddit,
                 self.settings.bot.poll_seconds, self.settings.bot.publish_seconds)

    def start_up(self) -> None:
        """What a starting process does once: forget a dead predecessor's outbox claims, read
        the modmail of the downtime (which catches the world up order by order), deliver."""
        released = release_claims(self.engine, self.ctx)
        if released:
            log.info("forgot %d outbox claims left by a previous process", released)
        # The start-up round reads the orders sent during the downtime, each before the
        # ticks due after it; only if Reddit cannot be read does the catch-up go on alone.
        if self.poll() is None:
            self.wake("start-up")
        self.publish()

    def stop(self) -> None:
        """Stop the scheduler (running jobs finish) and give up the lease."""
        if self.scheduler is not None and self.scheduler.running:
            self.scheduler.shutdown(wait=True)
        if self.lease is not None:
            self.lease.release()
        if self.web is not None:
            self.web.stop()
            self.web = None
        if self._keeper is not None:
            self._keeper.close()
            self._keeper = None
        log.info("maester stopped")


def preflight(settings: Settings, engine: Engine, ctx: CampaignContext,
              gateway: PrawGateway) -> None:
    """``maester check`` at start-up: log every check; raise
    :class:`~bot.reddit.preflight.PreflightFailed` on a failure that would kill the outbox.
    When all is well, a delivery halt left by an earlier run is lifted (the operator fixed
    the cause and restarted)."""
    from bot.reddit.preflight import PreflightFailed, fatal_failures, run_checks

    checks = run_checks(settings, gateway)
    for check in checks:
        if check.ok:
            log.info("check %s: %s", check.name, check.detail)
        else:
            log.warning("check %s FAILED: %s (fix: %s)", check.name, check.detail, check.fix)
    failed = fatal_failures(checks)
    if failed:
        raise PreflightFailed(failed)
    if state.halt_of(engine, ctx.campaign_id) is not None:
        state.store(engine, ctx.campaign_id, state.HALT, None, SystemClock().now())
        log.info("the checks pass: the delivery halt of an earlier run is lifted")
    if state.load(engine, ctx.campaign_id, state.MENTIONS) is not None:
        state.store(engine, ctx.campaign_id, state.MENTIONS, None, SystemClock().now())
        log.info("the checks pass: mentions are read again")


def install_stop_signals(stop: threading.Event) -> None:
    """SIGTERM and SIGINT set ``stop`` (main thread only)."""

    def handler(signum: int, frame: FrameType | None) -> None:
        log.info("signal %s received: stopping", signal.Signals(signum).name)
        stop.set()

    signal.signal(signal.SIGTERM, handler)
    signal.signal(signal.SIGINT, handler)


def run(settings: Settings, *, gateway: RedditGateway | None = None,
        stop: threading.Event | None = None, install_signals: bool = True) -> int:
    """Run the bot until SIGTERM/SIGINT (or ``stop`` is set); returns the exit code.

    Raises :class:`~bot.reddit.lease.LeaseHeld` if another process runs the campaign,
    LookupError if the database holds no campaign, and
    :class:`~bot.reddit.gateway.GatewayConfigError` for missing credentials.
    """
    stop = stop or threading.Event()
    exit_code = [EXIT_OK]
    engine, ctx = open_campaign(settings)
    if gateway is None:
        gateway = praw_gateway(settings,
                               token_store=state.DatabaseTokenStore(engine, ctx.campaign_id))
    if isinstance(gateway, PrawGateway):
        preflight(settings, engine, ctx, gateway)
    lease = CampaignLease(engine, ctx.campaign_id, seconds=settings.bot.lease_seconds)
    lease.acquire()
    lease.fence()  # a lapsed holder cannot write

    def fatal(code: int) -> None:
        exit_code[0] = code
        stop.set()

    runner = BotRunner(settings, engine, ctx, gateway, lease=lease, on_fatal=fatal)
    if install_signals:
        install_stop_signals(stop)
    try:
        runner.start()
        while not stop.wait(1.0):
            pass
    finally:
        runner.stop()
        engine.dispose()
    return exit_code[0]
