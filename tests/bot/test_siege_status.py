"""Equipment bought for an army and a siege's progress (months counted, months left) in the
claims' `status` replies and in the moderators' `maester armies` and `maester status`
(issue 23), on a real SQLite campaign driven through the order language and the CLI."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

from typer.testing import CliRunner

from bot.cli import app
from tests.bot.catalogue_world import START, World, roster


def day(n: int, hour: int = 0) -> datetime:
    """``hour``:00 UTC ``n`` days after the start day (each 00:00 begins an in-game month)."""
    return START.replace(hour=0, minute=0) + timedelta(days=n, hours=hour)


def besieged(tmp_path: Path) -> World:
    """Lannister's army 1 (300 infantry, Trebuchets) besieges Frey's The Twins from day 2
    07:00; two month counts have passed by day 4 06:00. Stark has nothing to do with it."""
    w = World(tmp_path, claims=roster("frey", "lannister", "stark"))
    w.say("tywin_lannister", "muster 300 infantry\nbuy Trebuchets for army 1")
    w.run(day(2, 6))
    w.place(1, "The Twins")
    assert "besieges The Twins" in w.say("tywin_lannister", "siege The Twins with army 1",
                                         at=day(2, 7))
    w.run(day(4, 13))
    assert w.siege().months_elapsed == 2
    return w


def test_status_shows_equipment_and_siege_months_to_the_two_claims_only(tmp_path: Path
                                                                        ) -> None:
    """The besieger sees its army's equipment and the siege's months counted and left; the
    defender sees the months too; a third claim's status says nothing of either."""
    w = besieged(tmp_path)
    left = w.siege().months_required - 2
    mine = w.say("tywin_lannister", "status", at=day(4, 13))
    assert "siege equipment: Trebuchets" in mine
    assert (f"- Siege of The Twins by Army 1 (held by House Frey): 2 in-game months counted, "
            f"{left} left") in mine
    theirs = w.say("walder_frey", "status", at=day(4, 13))
    assert f"- The Twins besieged by House Lannister: 2 in-game months counted, {left} left" \
        in theirs
    assert "Trebuchets" not in theirs
    other = w.say("ned_stark", "status", at=day(4, 13))
    assert "Twins" not in other and "Trebuchets" not in other and "months counted" not in other


def test_the_moderators_listings_show_equipment_and_siege_months(tmp_path: Path) -> None:
    """`maester armies` has the army's equipment and siege months; `maester status` lists
    each running siege."""
    w = besieged(tmp_path)
    required = w.siege().months_required
    config = tmp_path / "config.toml"
    config.write_text(f'[campaign]\ndatabase_url = "sqlite:///{tmp_path / "campaign.db"}"\n'
                      'moderators = ["mod_jane"]\n\n[catalogue]\nfile = "demo"\n')
    runner = CliRunner(env={"COLUMNS": "300", "MAESTER_NOW": "2026-11-30T00:00:00Z"})
    armies = runner.invoke(app, ["armies", "--config", str(config)], catch_exceptions=False)
    assert armies.exit_code == 0, armies.output
    row = next(line for line in armies.output.splitlines() if "Trebuchets" in line)
    assert f"2 of {required} months, {required - 2} left" in row
    status = runner.invoke(app, ["status", "--config", str(config)], catch_exceptions=False)
    assert status.exit_code == 0, status.output
    assert (f"The Twins by House Lannister (army 1) against House Frey: 2 of {required} "
            f"months, {required - 2} left") in status.output
