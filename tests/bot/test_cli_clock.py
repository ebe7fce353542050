"""Where the CLI reads the wall clock, frozen with freezegun: the time an order given with
``maester order`` is accepted, the ticks ``maester status`` says are due, the campaign's first
tick at ``maester init``."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from freezegun import freeze_time
from sqlmodel import col, select
from typer.testing import CliRunner

from bot.cli import app
from bot.db.engine import make_engine, transaction
from bot.db.models import Army, Campaign, Event

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
