"""Where the CLI reads the wall clock, frozen with freezegun: the time an order given with
``maester order`` is accepted, the ticks ``maester status`` says are due, the campaign's first
tick at ``maester init``, the time a moderator's change (``adjust``, ``catalogue check``) is
logged at."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from freezegun import freeze_time
from sqlmodel import col, select
from typer.testing import CliRunner

from bot.cli import app
from bot.cli import campaign as _loaded  # noqa: F401 (tables defined before time is frozen)
from bot.db.engine import make_engine, transaction
from bot.db.models import Army, Campaign, Event, Outbox, Proposal

runner = CliRunner()
INIT = "2026-11-23T09:30:00+00:00"


def _config(tmp_path: Path) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(f'[campaign]\nname = "Clock"\ndatabase_url = "sqlite:///{tmp_path}/c.db"\n')
    with freeze_time(INIT):
        done = runner.invoke(app, ["init", "--demo", "--seed", "s", "-c", str(path)])
    assert done.exit_code == 0, done.output
    return path


def _invoke(config: Path, *args: str) -> str:
    done = runner.invoke(app, [*args, "-c", str(config)], catch_exceptions=False)
    assert done.exit_code == 0, done.output
    return done.output


def test_init_starts_the_campaign_at_the_tick_of_now(tmp_path: Path) -> None:
    config = _config(tmp_path)
    with transaction(make_engine(f"sqlite:///{tmp_path}/c.db")) as session:
        campaign = session.exec(select(Campaign)).one()
        created = session.exec(select(Event).where(Event.kind == "campaign_created")).one()
    assert campaign.created_at == datetime(2026, 11, 23, 9, 30, tzinfo=UTC)
    assert created.at == campaign.created_at
    with freeze_time(INIT):
        out = _invoke(config, "status")
    assert "last tick:  2026-11-23 06:00 UTC" in out and "due" not in out


def test_an_order_without_a_time_is_accepted_now(tmp_path: Path) -> None:
    config = _config(tmp_path)
    with freeze_time("2026-11-23T10:45:12+00:00"):
        out = _invoke(config, "order", "--as", "ned_stark", "muster 100 infantry")
    assert "is mustering at Winterfell" in out
    with transaction(make_engine(f"sqlite:///{tmp_path}/c.db")) as session:
        army = session.exec(select(Army)).one()
        event = session.exec(select(Event).order_by(col(Event.id).desc())).first()
    assert army.accepted_at == datetime(2026, 11, 23, 10, 45, 12, tzinfo=UTC)
    assert event is not None and event.at == army.accepted_at


def test_status_counts_the_ticks_due_at_the_wall_clock(tmp_path: Path) -> None:
    config = _config(tmp_path)
    with freeze_time("2026-11-24T13:00:00+00:00"):  # 12:00, 18:00, 00:00, 06:00, 12:00
        out = _invoke(config, "status")
    assert "now:        2026-11-24 13:00 UTC" in out
    assert "next tick:  2026-11-23 12:00 UTC" in out and "5 tick(s) due" in out
    with freeze_time("2026-11-23T11:59:59+00:00"):
        assert "due" not in _invoke(config, "status")


# --- rehearsing ahead: the world's clock -------------------------------------------------------

def _ahead(tmp_path: Path) -> Path:
    """A campaign whose world was ticked to 2026-11-25 00:00 while the wall clock reads
    2026-11-23 10:00; Stark's army 1 (mustered at init) stands ready."""
    config = _config(tmp_path)
    with freeze_time("2026-11-23T09:45:00+00:00"):
        _invoke(config, "order", "--as", "ned_stark", "muster 100 infantry")
    with freeze_time("2026-11-23T10:00:00+00:00"):
        out = _invoke(config, "tick", "--until", "2026-11-25T00:00:00Z")
    assert "7 tick(s) applied" in out
    return config


def test_orders_after_ticking_ahead_count_strictly_after_the_last_tick(tmp_path: Path) -> None:
    """The receipt's times are all still to come: a march ordered after the world was ticked
    ahead departs at the next tick, and can be cancelled until then."""
    config = _ahead(tmp_path)
    with freeze_time("2026-11-23T10:05:00+00:00"):
        out = _invoke(config, "order", "--as", "ned_stark", "muster 10 infantry")
        # accepted just after the 00:00 tick: mustering starts at 06:00, ready 24 h later
        assert "Ready: 2026-11-26 06:00 UTC" in out
        march = _invoke(config, "order", "--as", "ned_stark",
                        "move army 1: 1316 > 1317 > 1318 > 1319 > 1320 (cost 5)")
        assert "**Not done:**" not in march
        cancel = _invoke(config, "order", "--as", "ned_stark", "cancel army 1")
    assert "**Not done:**" not in cancel and "already on the march" not in cancel
    with transaction(make_engine(f"sqlite:///{tmp_path}/c.db")) as session:
        new = session.exec(select(Army).order_by(col(Army.id).desc())).first()
    assert new is not None and new.accepted_at is not None
    assert new.accepted_at > datetime(2026, 11, 25, tzinfo=UTC)
    assert new.accepted_at < datetime(2026, 11, 25, 0, 0, 1, tzinfo=UTC)


def test_status_and_log_show_the_worlds_clock_when_it_is_ahead(tmp_path: Path) -> None:
    config = _ahead(tmp_path)
    with freeze_time("2026-11-23T10:00:00+00:00"):
        _invoke(config, "season", "set", "winter", "--by", "jane")
        status = _invoke(config, "status")
        log = _invoke(config, "log", "--limit", "3")
    assert "now:        2026-11-25 00:00 UTC" in status
    assert "1d 14h ahead of the wall clock" in status and "due" not in status
    assert "2026-11-23 10:00" not in status
    # the moderator's change is logged at the world's time, after the ticks, not before them
    assert "2026-11-25 00:00" in log and "2026-11-23 10:00" not in log


def test_order_at_a_time_applies_the_ticks_before_it_first(tmp_path: Path) -> None:
    config = _config(tmp_path)
    with freeze_time("2026-11-23T10:00:00+00:00"):
        out = _invoke(config, "order", "--as", "ned_stark", "muster 100 infantry",
                      "--at", "2026-11-23T19:30:00Z")
    assert "2 tick(s) due before the order applied first." in out  # 12:00 and 18:00
    assert "Ready: 2026-11-25 00:00 UTC" in out
    with transaction(make_engine(f"sqlite:///{tmp_path}/c.db")) as session:
        army = session.exec(select(Army)).one()
        campaign = session.exec(select(Campaign)).one()
    assert army.accepted_at == datetime(2026, 11, 23, 19, 30, tzinfo=UTC)
    six_hours = (datetime(2026, 11, 23, 18, tzinfo=UTC) - datetime(1970, 1, 1, tzinfo=UTC)
                 ) // timedelta(hours=6)
    assert campaign.last_tick == six_hours  # the 18:00 tick, not the 00:00 one after the order


def test_order_at_a_time_already_ticked_is_refused_and_changes_nothing(tmp_path: Path
                                                                      ) -> None:
    config = _ahead(tmp_path)
    with freeze_time("2026-11-23T10:00:00+00:00"):
        for at in ("2026-11-24T12:00:00Z", "2026-11-25T00:00:00Z"):
            done = runner.invoke(app, ["order", "--as", "ned_stark", "muster 5 infantry",
                                       "--at", at, "-c", str(config)])
            assert done.exit_code == 2
            assert "already applied" in done.output and "Traceback" not in done.output
        bad = runner.invoke(app, ["order", "--as", "ned_stark", "status", "--at", "noon",
                                  "-c", str(config)])
    assert bad.exit_code == 2 and "is not an ISO time" in bad.output
    with transaction(make_engine(f"sqlite:///{tmp_path}/c.db")) as session:
        assert len(session.exec(select(Army)).all()) == 1


def test_moderators_changes_are_logged_at_the_wall_clock(tmp_path: Path) -> None:
    config = _config(tmp_path)
    catalogue = Path(__file__).resolve().parents[2] / "bot" / "data" / "demo_catalogue.toml"
    with freeze_time("2026-11-23T10:05:00+00:00"):
        _invoke(config, "adjust", "House Stark", "--gold", "+5")
    with freeze_time("2026-11-23T11:15:30+00:00"):
        _invoke(config, "catalogue", "check", str(catalogue))
    with transaction(make_engine(f"sqlite:///{tmp_path}/c.db")) as session:
        adjusted = session.exec(select(Event).where(Event.kind == "adjust")).one()
        checked = session.exec(select(Event).where(Event.kind == "catalogue_check")).one()
    assert adjusted.at == datetime(2026, 11, 23, 10, 5, tzinfo=UTC)
    assert checked.at == datetime(2026, 11, 23, 11, 15, 30, tzinfo=UTC)


def test_status_on_the_real_clock_never_says_the_world_is_ahead(tmp_path: Path) -> None:
    """Issue 24: ``status`` read the wall clock twice and compared the later reading (the
    world's clock) with the earlier one, so on any real, moving clock it said the world was
    ahead of the wall clock. Not frozen here, on purpose: the clock must move."""
    config = tmp_path / "config.toml"
    config.write_text(f'[campaign]\nname = "Clock"\ndatabase_url = "sqlite:///{tmp_path}/c.db"\n')
    done = runner.invoke(app, ["init", "--demo", "--seed", "s", "-c", str(config)])
    assert done.exit_code == 0, done.output
    for _ in range(3):
        out = _invoke(config, "status")
        assert "now:" in out
        assert "ahead of the wall clock" not in out


def test_an_undo_ahead_is_logged_at_the_worlds_time_not_before_the_ticks(tmp_path: Path
                                                                         ) -> None:
    """Found rehearsing by hand: the ``undo`` and ``correction`` log lines, the public
    [Correction] post and the claims' notes carried the wall clock, so ``maester log`` listed
    the undo days before the ticks it took back."""
    config = _ahead(tmp_path)
    with freeze_time("2026-11-23T10:10:00+00:00"):
        _invoke(config, "adjust", "House Stark", "--gold", "+5", "--reason", "a feast")
        _invoke(config, "undo", "--reason", "the feast was a mistake", "--by", "jane")
        log = _invoke(config, "log", "--limit", "4")
    ahead = datetime(2026, 11, 25, tzinfo=UTC)
    with transaction(make_engine(f"sqlite:///{tmp_path}/c.db")) as session:
        undo = session.exec(select(Event).where(Event.kind == "undo")).one()
        correction = session.exec(select(Event).where(Event.kind == "correction")).one()
        queued = session.exec(select(Outbox).where(col(Outbox.key).startswith("correction:"))
                              ).all()
    assert queued and {o.created_at for o in queued} == {undo.at}
    for moment in (undo.at, correction.at):
        assert moment is not None and ahead < moment < ahead + timedelta(seconds=1)
    assert "2026-11-23 10:10" not in log and "2026-11-25 00:00" in log


def test_a_refusal_ahead_is_decided_at_the_worlds_time(tmp_path: Path) -> None:
    config = _ahead(tmp_path)
    config.write_text(config.read_text().replace(
        "[campaign]\n", '[campaign]\nmoderators = ["jane", "joe"]\n')
        + '[moderators]\napproval = ["adjust"]\n')
    with freeze_time("2026-11-23T10:10:00+00:00"):
        proposed = runner.invoke(app, ["adjust", "House Stark", "--gold", "+5", "--reason",
                                       "a feast", "--by", "jane", "-c", str(config)])
        assert "Proposed as #1" in proposed.output
        _invoke(config, "refuse", "1", "--reason", "no feast", "--by", "joe")
    with transaction(make_engine(f"sqlite:///{tmp_path}/c.db")) as session:
        proposal = session.exec(select(Proposal)).one()
    assert proposal.decided_at is not None
    assert proposal.decided_at > datetime(2026, 11, 25, tzinfo=UTC)


def test_an_approved_undo_ahead_is_proposed_and_approved_at_the_worlds_time(
        tmp_path: Path) -> None:
    """Found rehearsing by hand: an undo waiting for a second moderator was proposed and
    approved at the wall clock (its delivery leases are on it), so ``maester log`` showed the
    approval days before the undo it approved."""
    config = _ahead(tmp_path)
    config.write_text(config.read_text().replace(
        "[campaign]\n", '[campaign]\nmoderators = ["jane", "joe"]\n')
        + '[moderators]\napproval = ["undo"]\n')
    with freeze_time("2026-11-23T10:10:00+00:00"):
        _invoke(config, "adjust", "House Stark", "--gold", "+5", "--reason", "a feast",
                "--by", "jane")
        proposed = _invoke(config, "undo", "--reason", "the feast was a mistake", "--by",
                           "jane")
        assert "Proposed as #1" in proposed
        with transaction(make_engine(f"sqlite:///{tmp_path}/c.db")) as session:
            notes = session.exec(select(Outbox).where(
                col(Outbox.key).startswith("proposal:1"))).all()
        _invoke(config, "approve", "1", "--by", "joe")
    ahead = datetime(2026, 11, 25, tzinfo=UTC)
    with transaction(make_engine(f"sqlite:///{tmp_path}/c.db")) as session:
        proposal = session.exec(select(Proposal)).one()
        approval = session.exec(select(Event).where(Event.kind == "approval")).one()
        undo = session.exec(select(Event).where(Event.kind == "undo")).one()
    assert notes
    for moment in (proposal.created_at, *(n.created_at for n in notes), proposal.decided_at,
                   approval.at):
        assert moment is not None and ahead < moment < ahead + timedelta(seconds=1), moment
    assert undo.at is not None and approval.at is not None and approval.at >= undo.at
