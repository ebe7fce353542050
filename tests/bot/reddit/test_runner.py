"""Running: the scheduler wiring, the heartbeat, clean shutdown, and the CLI commands."""

from __future__ import annotations

import logging
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from apscheduler.triggers.cron import CronTrigger
from apscheduler.triggers.interval import IntervalTrigger
from sqlmodel import select
from typer.testing import CliRunner

from bot.cli import app
from bot.db.engine import transaction
from bot.db.models import InboxMessage, Lease, TickRun
from bot.reddit.lease import CampaignLease
from bot.runner import EXIT_LEASE_LOST, BotRunner, run
from bot.sandbox import MODERATOR, SUBREDDIT, Fault
from tests.bot.reddit.conftest import Harness

cli = CliRunner()


def _released(row: Lease | None) -> bool:
    """No process holds the lease (a released row stays, empty, to keep its generation)."""
    return row is None or (row.holder == "" and row.expires_at is None)


def write_config(bot: Harness, path: Path, extra: str = "") -> Path:
    """A config.toml equivalent to the harness settings (plus ``extra`` sections)."""
    r = bot.settings.reddit
    path.write_text(f"""
[campaign]
database_url = "{bot.settings.campaign.database_url}"
subreddit = "{SUBREDDIT}"
moderators = ["{MODERATOR}"]

[reddit]
client_id = "{r.client_id}"
client_secret = "{r.client_secret}"
username = "{r.username}"
password = "{r.password}"
user_agent = "{r.user_agent}"
oauth_url = "{r.oauth_url}"
reddit_url = "{r.reddit_url}"
timeout_seconds = 5

[bot]
poll_seconds = 5
publish_seconds = 1
post_spacing_seconds = 0
message_spacing_seconds = 0
sends_per_minute = 0
lease_seconds = 60
{extra}""", encoding="utf-8")
    return path


def test_the_scheduler_only_wakes_the_process(bot: Harness) -> None:
    """APScheduler in UTC with an in-memory store: a cron job at 00/06/12/18, a heartbeat
    every minute, intake and delivery at their intervals; late wake-ups are never dropped
    (no misfire grace), coalesced, one at a time."""
    runner = BotRunner(bot.settings, bot.engine, bot.ctx, bot.gateway, clock=bot.clock)
    scheduler = runner.build_scheduler()
    scheduler.start(paused=True)
    try:
        jobs = {job.id: job for job in scheduler.get_jobs()}
        assert set(jobs) == {"ticks", "heartbeat", "poll", "publish"}
        assert str(scheduler.timezone) == "UTC"
        for job in jobs.values():
            assert job.misfire_grace_time is None and job.coalesce and job.max_instances == 1
        ticks = jobs["ticks"].trigger
        assert isinstance(ticks, CronTrigger)
        moment = datetime(2026, 11, 22, 13, 7, tzinfo=UTC)
        fires = []
        for _ in range(5):
            moment = ticks.get_next_fire_time(None, moment + timedelta(seconds=1))
            fires.append(moment.strftime("%d %H:%M"))
        assert fires == ["22 18:00", "23 00:00", "23 06:00", "23 12:00", "23 18:00"]
        assert isinstance(jobs["heartbeat"].trigger, IntervalTrigger)
        assert jobs["heartbeat"].trigger.interval == timedelta(minutes=1)
        assert jobs["poll"].trigger.interval == timedelta(seconds=5)
        assert jobs["publish"].trigger.interval == timedelta(seconds=1)
        assert jobs["ticks"].func == runner.wake and jobs["ticks"].args == ("tick",)
        assert jobs["heartbeat"].func == runner.heartbeat
    finally:
        scheduler.shutdown(wait=False)


def test_every_wake_up_catches_up_only_as_far_as_the_intake_has_read(bot: Harness) -> None:
    """Changed by #24: the heartbeat and start-up apply the due ticks only up to the last
    complete intake round, or ``tick_wait_minutes`` ago when no round completes (the
    game goes on); the tick's wake-up is one intake round, which applies what is due
    exactly once. Calling again applies nothing."""
    runner = BotRunner(bot.settings, bot.engine, bot.ctx, bot.gateway, clock=bot.clock)
    first = bot.ctx.tick_of(bot.clock.now())
    bot.clock.set(bot.ctx.tick_at(first + 8) + timedelta(minutes=10))  # down for two days
    assert runner.wake("start-up") == 7  # 30 minutes ago: not the tick ten minutes ago
    assert runner.wake("heartbeat") == 0
    assert runner.wake("tick") == 1  # a complete round: every message before it was read
    assert runner.wake("tick") == 0
    bot.clock.advance(timedelta(hours=6))
    runner.heartbeat()  # the last round was six hours ago: the new tick waits for a round
    with transaction(bot.engine) as session:
        assert len(session.exec(select(TickRun)).all()) == 8
    assert runner.wake("tick") == 1


def test_a_clock_jump_beyond_the_bound_is_refused_and_the_moderators_told(bot: Harness
                                                                           ) -> None:
    """A jump of more than bot.max_catch_up_days applies no tick, reads no modmail, and
    queues one note to the moderators (once, however many wake-ups see it)."""
    runner = BotRunner(bot.settings, bot.engine, bot.ctx, bot.gateway, clock=bot.clock)
    bot.clock.advance(timedelta(days=40))
    assert runner.wake("start-up") == 0
    assert runner.wake("tick") == 0
    assert runner.poll() is None
    notes = [o for o in bot.outbox() if o.key.startswith("clock-jump:")]
    assert len(notes) == 1 and notes[0].kind == "mod" and "--yes" in notes[0].body
    with transaction(bot.engine) as session:
        assert session.exec(select(TickRun)).all() == []


def test_the_heartbeat_logs_one_line(bot: Harness, caplog: pytest.LogCaptureFixture) -> None:
    """A heartbeat line says the tick, the outbox and the lease."""
    bot.send("ned_stark", "status")
    bot.poll()
    runner = BotRunner(bot.settings, bot.engine, bot.ctx, bot.gateway, clock=bot.clock)
    with caplog.at_level(logging.INFO, logger="maester.runner"):
        runner.heartbeat()
    (line,) = [r.getMessage() for r in caplog.records if "heartbeat" in r.getMessage()]
    assert f"campaign {bot.ctx.campaign_id}" in line and "outbox 1 pending / 0 dead" in line


def test_a_lost_lease_stops_the_runner(bot: Harness) -> None:
    """If another process took the lease over, the renewal job stops this one."""
    lease = CampaignLease(bot.engine, bot.ctx.campaign_id, seconds=60, clock=bot.clock,
                          holder="here:1:aa")
    lease.acquire()
    stopped: list[int] = []
    runner = BotRunner(bot.settings, bot.engine, bot.ctx, bot.gateway, clock=bot.clock,
                       lease=lease, on_fatal=stopped.append)
    runner.renew_lease()
    assert stopped == []
    bot.clock.advance(timedelta(minutes=2))
    CampaignLease(bot.engine, bot.ctx.campaign_id, seconds=60, clock=bot.clock,
                  holder="there:2:bb").acquire()
    runner.renew_lease()
    assert stopped == [EXIT_LEASE_LOST]


def test_a_refused_write_stops_the_runner_before_the_renewal_notices(bot: Harness) -> None:
    """A fenced runner whose lease was taken over: its next round's write is refused
    (nothing recorded) and the runner stops with the lease-lost code at once."""
    lease = CampaignLease(bot.engine, bot.ctx.campaign_id, seconds=60, clock=bot.clock,
                          holder="here:1:aa")
    lease.acquire()
    lease.fence()
    stopped: list[int] = []
    runner = BotRunner(bot.settings, bot.engine, bot.ctx, bot.gateway, clock=bot.clock,
                       lease=lease, on_fatal=stopped.append)
    conversation, _ = bot.send("ned_stark", "status")
    bot.clock.advance(timedelta(minutes=2))
    other = CampaignLease(bot.engine, bot.ctx.campaign_id, seconds=60, clock=bot.clock,
                          holder="there:2:bb")
    other.acquire()
    try:
        assert runner.poll() is None
    finally:
        lease.release()  # unfences this engine: the test reads with it below
        other.release()
    assert stopped == [EXIT_LEASE_LOST]
    with transaction(bot.engine) as session:
        assert session.exec(select(InboxMessage)).all() == []
    assert not bot.bot_messages(conversation)


def test_run_answers_at_start_up_and_stops_cleanly(bot: Harness) -> None:
    """``run`` takes the lease, catches up, answers waiting modmail, and on the stop signal
    finishes, releases the lease and returns 0."""
    conversation, _ = bot.send("ned_stark", "muster 100 infantry")
    stop = threading.Event()
    result: list[int] = []
    thread = threading.Thread(target=lambda: result.append(
        run(bot.settings, gateway=bot.gateway, stop=stop, install_signals=False)))
    thread.start()
    deadline = time.monotonic() + 20
    while not bot.bot_messages(conversation) and time.monotonic() < deadline:
        time.sleep(0.05)
    with transaction(bot.engine) as session:
        assert session.get(Lease, f"campaign:{bot.ctx.campaign_id}") is not None
    stop.set()
    thread.join(20)
    assert result == [0]
    assert len(bot.bot_messages(conversation)) == 1
    with transaction(bot.engine) as session:
        assert _released(session.get(Lease, f"campaign:{bot.ctx.campaign_id}"))


def test_poll_once_and_publish_once(bot: Harness, tmp_path: Path) -> None:
    """``maester poll --once`` reads the order, ``maester publish --once`` answers it."""
    config = write_config(bot, tmp_path / "config.toml")
    conversation, _ = bot.send("ned_stark", "muster 100 infantry")
    polled = cli.invoke(app, ["poll", "--once", "--config", str(config)])
    assert polled.exit_code == 0, polled.output
    assert "poll: 1 messages handled, 1 replies queued" in polled.output
    assert bot.bot_messages(conversation) == []
    published = cli.invoke(app, ["publish", "--once", "--config", str(config)])
    assert published.exit_code == 0, published.output
    assert "publish: 1 delivered" in published.output
    assert len(bot.bot_messages(conversation)) == 1


def test_a_second_instance_refuses_to_run(bot: Harness, tmp_path: Path) -> None:
    """``maester run`` (or poll/publish) while another process holds the lease exits 1 and
    says who holds it and until when."""
    config = write_config(bot, tmp_path / "config.toml")
    holder = CampaignLease(bot.engine, bot.ctx.campaign_id, seconds=600, holder="otherbox:42:ab")
    holder.acquire()
    for command in (["run"], ["poll", "--once"], ["publish", "--once"]):
        result = cli.invoke(app, [*command, "--config", str(config)])
        assert result.exit_code == 1, result.output
        assert "held by otherbox:42:ab until" in result.output
    holder.release()


@pytest.mark.parametrize(("config", "message"), [
    ("[reddit]\nclient_id = \"\"\n", "reddit.client_id"),
    ("[bot]\npoll_seconds = 1\n", "bot.poll_seconds"),
])
def test_config_problems_name_the_key(bot: Harness, tmp_path: Path, config: str,
                                      message: str) -> None:
    """Missing credentials or a bad setting end the command with exit code 2 and the key."""
    path = tmp_path / "config.toml"
    path.write_text(f"[campaign]\ndatabase_url = \"{bot.settings.campaign.database_url}\"\n"
                    + config, encoding="utf-8")
    result = cli.invoke(app, ["poll", "--once", "--config", str(path)])
    assert result.exit_code == 2 and message in result.output


def test_clean_shutdown_on_sigterm_is_wired(monkeypatch: pytest.MonkeyPatch) -> None:
    """SIGTERM and SIGINT both set the stop event."""
    import signal

    from bot.runner import install_stop_signals

    installed: dict[int, Any] = {}
    monkeypatch.setattr(signal, "signal", lambda sig, handler: installed.setdefault(sig, handler))
    stop = threading.Event()
    install_stop_signals(stop)
    assert set(installed) == {signal.SIGTERM, signal.SIGINT}
    installed[signal.SIGTERM](signal.SIGTERM, None)
    assert stop.is_set()


def test_maester_check_passes_on_a_ready_subreddit(bot: Harness, tmp_path: Path) -> None:
    """Each check printed on its own line; exit 0 when everything is in place."""
    bot.sandbox.add_link_flair(SUBREDDIT, "Battle")
    config = write_config(bot, tmp_path / "config.toml", '[posts]\nbattle_flair = "Battle"\n')
    result = cli.invoke(app, ["check", "--config", str(config)])
    assert result.exit_code == 0, result.output
    for line in ("[ok  ] user agent: python:maester-campaign.maester_bot:v",
                 "[ok  ] login: logged in as u/maester_bot", "[ok  ] permissions:",
                 "[ok  ] flair battle_flair: 'Battle' exists", "[ok  ] modmail:",
                 "[ok  ] posting:", "maester check: all good"):
        assert line in result.output


def test_maester_check_names_each_problem_with_its_fix_and_run_refuses(
        bot: Harness, tmp_path: Path) -> None:
    """No mail permission, a flair that does not exist, a moderator-only flair without the
    flair permission: each printed with a fix; `maester run` refuses to start."""
    bot.sandbox.add_moderator(SUBREDDIT, "maester_bot", permissions=["posts"])
    bot.sandbox.add_link_flair(SUBREDDIT, "Arrival", mod_only=True)
    config = write_config(bot, tmp_path / "config.toml",
                          '[posts]\narrival_flair = "Arrival"\nbattle_flair = "Battle"\n')
    result = cli.invoke(app, ["check", "--config", str(config)])
    assert result.exit_code == 1, result.output
    assert "[FAIL] permissions: u/maester_bot has posts; missing mail" in result.output
    assert "fix: give u/maester_bot 'Manage Mod Mail'" in result.output
    assert "[warn] flair battle_flair: no post flair with the text 'Battle'" in result.output
    assert "[FAIL] flair arrival_flair: 'Arrival' is moderator-only" in result.output
    assert "[FAIL] modmail:" in result.output
    assert "3 problem(s) would stop the bot" in result.output
    refused = cli.invoke(app, ["run", "--config", str(config)])
    assert refused.exit_code == 2
    assert "maester check failed" in refused.output and "Manage Mod Mail" in refused.output
    with transaction(bot.engine) as session:
        assert _released(session.get(Lease, f"campaign:{bot.ctx.campaign_id}"))


def test_a_wrong_subreddit_fails_the_check(bot: Harness, tmp_path: Path) -> None:
    config = write_config(bot, tmp_path / "config.toml")
    config.write_text(config.read_text().replace(f'subreddit = "{SUBREDDIT}"',
                                                 'subreddit = "westeross"'))
    result = cli.invoke(app, ["check", "--config", str(config)])
    assert result.exit_code == 1
    assert "[FAIL] subreddit: r/westeross" in result.output
    assert "fix: check [campaign] subreddit" in result.output


def test_status_shows_a_halt_and_outbox_retry_lifts_it(bot: Harness, tmp_path: Path) -> None:
    """A wrong subreddit halts posting; `maester status` says so; after the fix
    `maester outbox retry` sends everything at the next round; `retry N` revives a dead
    entry."""
    from bot.services import journal

    config = write_config(bot, tmp_path / "config.toml")
    now = bot.clock.now()
    with transaction(bot.engine) as session:
        for n in range(3):
            journal.queue(session, bot.ctx.campaign_id, f"arrival:{n}", "post", body="x",
                          at=now, tick=bot.ctx.tick_of(now), target=SUBREDDIT,
                          title=f"[Arrival] {n}", public=True)
    bot.sandbox.add_fault(Fault.api_error("SUBREDDIT_NOEXIST", "that subreddit doesn't "
                                          "exist", "sr"), path="/api/submit", times=None)
    bot.publish()
    status = cli.invoke(app, ["status", "--config", str(config)])
    assert "delivery:   posting halted" in status.output and "SUBREDDIT_NOEXIST" in status.output
    bot.sandbox.clear_faults()
    retried = cli.invoke(app, ["outbox", "retry", "--config", str(config)])
    assert retried.exit_code == 0, retried.output
    assert bot.publish().delivered == 3
    assert "halted" not in cli.invoke(app, ["status", "--config", str(config)]).output
    bad = cli.invoke(app, ["outbox", "retry", "999", "--config", str(config)])
    assert bad.exit_code == 2 and "no pending or dead outbox entry #999" in bad.output


def test_a_harness_made_after_a_tick_boundary_gets_a_campaign_of_its_own_tick(
        tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    """The harness's copied campaign stands at the tick of the harness's clock, also when the
    session crossed a tick boundary since an earlier harness was made (the runner's catch-up
    counts would otherwise be off by one)."""
    from freezegun import freeze_time

    from bot.db.engine import make_engine
    from bot.db.models import Campaign
    from bot.services.world import load_context
    from tests.bot.reddit.conftest import _sqlite_copy, settings_for
    from tests.fixtures.db import sqlite_url

    for i, moment in enumerate(("2031-03-04T05:59:59+00:00", "2031-03-04T06:00:01+00:00")):
        url = sqlite_url(tmp_path / f"h{i}.db")
        settings = settings_for("http://127.0.0.1:1", url)
        with freeze_time(moment):
            now = datetime.now(UTC)
            _sqlite_copy(url, tmp_path_factory, now, settings)
        engine = make_engine(url)
        try:
            with transaction(engine) as session:
                ctx = load_context(session, settings)
                campaign = session.get(Campaign, ctx.campaign_id)
                assert campaign is not None and campaign.last_tick == ctx.tick_of(now)
        finally:
            engine.dispose()


def test_a_damaged_gold_stops_the_ticks_with_one_line_and_one_note_per_tick(
        bot: Harness, caplog: pytest.LogCaptureFixture) -> None:
    """Issue 24: a NaN gold written into the database by hand made every wake-up log a
    traceback. The runner logs one line naming the claim (no traceback), applies nothing, and
    queues one note to the moderators per due tick, however many wake-ups see it."""
    from sqlalchemy import text

    with bot.engine.begin() as connection:
        connection.execute(text("UPDATE claim SET gold = :gold WHERE name = 'House Stark'"),
                           {"gold": "NaN"})
    runner = BotRunner(bot.settings, bot.engine, bot.ctx, bot.gateway, clock=bot.clock)
    bot.clock.advance(timedelta(hours=7))
    with caplog.at_level(logging.ERROR, logger="maester.runner"):
        assert runner.wake("heartbeat") == 0
        assert runner.wake("heartbeat") == 0
    lines = [r for r in caplog.records if "not applying ticks" in r.getMessage()]
    assert len(lines) == 2 and all(r.exc_info is None for r in lines)
    assert "House Stark" in lines[0].getMessage() and "maester adjust" in lines[0].getMessage()
    notes = [o for o in bot.outbox() if o.key.startswith("damaged-value:")]
    assert len(notes) == 1 and notes[0].kind == "mod" and "House Stark" in notes[0].body
    with transaction(bot.engine) as session:
        assert session.exec(select(TickRun)).all() == []


def test_a_damaged_value_met_by_an_intake_round_is_one_note_not_a_traceback(
        bot: Harness, caplog: pytest.LogCaptureFixture) -> None:
    """The intake round catches the world up (advance_to); a hand-written NaN gold met there
    stops the ticks as the wake-ups do: one log line and one note to the moderators."""
    with bot.engine.begin() as connection:
        connection.exec_driver_sql("UPDATE claim SET gold = 'NaN' WHERE name = 'House Stark'")
    runner = BotRunner(bot.settings, bot.engine, bot.ctx, bot.gateway, clock=bot.clock)
    month = bot.ctx.rules.month_length
    bot.clock.advance(month + timedelta(hours=6))  # past a month's upkeep, which reads gold
    with caplog.at_level(logging.ERROR, logger="maester.runner"):
        assert runner.poll() is None
    assert not [r for r in caplog.records if r.exc_info]
    notes = [o for o in bot.outbox() if o.key.startswith("damaged-value:")]
    assert len(notes) == 1 and "House Stark" in notes[0].body
