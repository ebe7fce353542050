"""The moderators' safety net through the CLI, the wall clock frozen with freezegun where the
CLI reads it: ``pause`` and ``resume`` (a holiday, or catching up), orders answered while
paused, ``tick --preview``, ``undo`` and ``rollback`` with their refusals."""

from __future__ import annotations

import json
import re
from datetime import datetime, timedelta
from pathlib import Path

from freezegun import freeze_time
from typer.testing import CliRunner

import bot.cli.campaign
import bot.cli.safety  # noqa: F401
from bot.cli import app
from bot.config import parse_settings

runner = CliRunner()
parse_settings({})  # pydantic builds its schemas with the real datetime, before any freezing
INIT = "2026-11-23T09:30:00+00:00"


def _config(tmp_path: Path) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(f'[campaign]\nname = "Safety"\ndatabase_url = "sqlite:///{tmp_path}/c.db"'
                    '\nmoderators = ["mod_jane"]\n')
    with freeze_time(INIT):
        done = runner.invoke(app, ["init", "--demo", "--seed", "s", "-c", str(path)])
    assert done.exit_code == 0, done.output
    return path


def cli(config: Path, when: str, *args: str, code: int = 0) -> str:
    with freeze_time(when):
        done = runner.invoke(app, [*args, "-c", str(config)], catch_exceptions=False)
    assert done.exit_code == code, done.output
    return done.output


def export(config: Path, when: str) -> dict[str, object]:
    data: dict[str, object] = json.loads(cli(config, when, "export"))
    return data


def line(output: str, label: str) -> str:
    found = re.search(rf"{label}:\s+(.*)", output)
    assert found, output
    return found.group(1)


def test_paused_no_tick_applies_orders_are_answered_paused_and_resume_is_a_holiday(
        tmp_path: Path) -> None:
    config = _config(tmp_path)
    cli(config, "2026-11-23T10:00:00Z", "order", "--as", "ned_stark", "muster 100 infantry")
    before = cli(config, "2026-11-23T11:00:00Z", "show", "army", "1")
    status = cli(config, "2026-11-23T11:00:00Z", "status")
    out = cli(config, "2026-11-23T11:00:00Z", "pause", "--note", "the feast at Winterfell",
              "--by", "jane")
    assert "Campaign paused until the moderators resume it (the feast at Winterfell)" in out
    cli(config, "2026-11-23T11:05:00Z", "pause", code=2)  # already paused

    # Two days pass: nothing applies, orders are answered that the campaign is paused.
    world = export(config, "2026-11-25T13:00:00Z")
    assert "is paused" in cli(config, "2026-11-25T13:00:00Z", "tick")
    paused = cli(config, "2026-11-25T13:00:00Z", "status")
    assert "paused:     since 2026-11-23 11:00 UTC, until the moderators resume it: the " \
           "feast" in paused and "9 tick(s) due" in paused
    reply = cli(config, "2026-11-25T13:00:00Z", "order", "--as", "ned_stark",
                "muster 50 cavalry\nstatus")
    assert "the campaign is paused until the moderators resume it" in reply
    assert export(config, "2026-11-25T13:00:00Z") == world  # the order changed nothing
    asked = cli(config, "2026-11-25T13:00:00Z", "order", "--as", "ned_stark", "status")
    assert "paused" not in asked and "House Stark" in asked  # questions still answer

    # A holiday: the 9 ticks due during the pause are never applied; the world's clock,
    # its in-game date and every due tick move on by 54 hours.
    out = cli(config, "2026-11-25T13:00:00Z", "resume", "--by", "jane")
    assert "holiday of 9 tick(s) (54 hours)" in out
    assert "0 tick(s) applied" in cli(config, "2026-11-25T13:00:00Z", "tick")
    assert export(config, "2026-11-25T13:00:00Z")["armies"] == world["armies"]
    after = cli(config, "2026-11-25T13:00:00Z", "status")
    assert line(after, "in-game") == line(status, "in-game")
    assert "last tick:  2026-11-25 12:00 UTC" in after and "holidays:   the world's clock " \
        "stands 9 tick(s) behind" in after and "paused" not in after
    ready = datetime.strptime(line(before, "ready")[:16], "%Y-%m-%d %H:%M")
    moved = line(cli(config, "2026-11-25T13:00:00Z", "show", "army", "1"), "ready")
    assert moved.startswith(f"{ready + timedelta(hours=54):%Y-%m-%d %H:%M} UTC")
    assert moved.endswith(line(before, "ready")[21:])  # the same in-game month
    assert "1 tick(s) applied" in cli(config, "2026-11-25T18:00:00Z", "tick")
    log = cli(config, "2026-11-25T18:00:00Z", "log", "--limit", "10")
    assert "campaign paused" in log and "campaign resumed after a holiday" in log
    cli(config, "2026-11-25T18:00:00Z", "resume", code=2)  # not paused


def test_rules_show_leaves_the_holidays_to_status(tmp_path: Path) -> None:
    """The holidays are the campaign's state, not a rules setting: ``rules show`` does not
    list the config's ``tick_offset`` (always 0) but says where they are shown, and
    ``status`` shows the campaign's own after a holiday."""
    config = _config(tmp_path)
    cli(config, "2026-11-23T11:00:00Z", "pause", "--by", "jane")
    cli(config, "2026-11-24T11:00:00Z", "resume", "--by", "jane")
    shown = cli(config, "2026-11-24T11:00:00Z", "rules", "show")
    assert "detection_radius" in shown and "tick_offset" not in shown
    assert "maester status" in " ".join(shown.split())
    assert "holidays:   the world's clock stands 4 tick(s) behind" in cli(
        config, "2026-11-24T11:00:00Z", "status")


def test_resume_with_catch_up_applies_the_missed_ticks_only_with_yes(tmp_path: Path) -> None:
    """Issue 24: ``resume --catch-up`` applied any number of missed ticks unasked; like
    ``tick`` it now says how many and changes nothing until --yes."""
    config = _config(tmp_path)
    cli(config, "2026-11-23T11:00:00Z", "pause")
    world = export(config, "2026-11-24T11:00:00Z")
    refused = cli(config, "2026-11-24T11:00:00Z", "resume", "--catch-up", code=2)
    assert "not resumed: 4 tick(s) (1.0 days) fell due during the pause" in refused
    assert "add --yes" in refused and "nothing changed" in refused
    assert "paused" in cli(config, "2026-11-24T11:00:00Z", "status")  # still paused
    assert export(config, "2026-11-24T11:00:00Z") == world
    far = cli(config, "2027-02-24T11:00:00Z", "resume", "--catch-up", code=2)
    assert "more than the 31-day bound (bot.max_catch_up_days)" in " ".join(far.split())
    out = cli(config, "2026-11-24T11:00:00Z", "resume", "--catch-up", "--yes")
    assert "4 missed tick(s) will be applied now" in out and "4 tick(s) applied" in out
    assert "due" not in cli(config, "2026-11-24T11:00:00Z", "status")


def test_tick_preview_prints_what_the_tick_would_do_and_applies_nothing(tmp_path: Path
                                                                       ) -> None:
    config = _config(tmp_path)
    cli(config, "2026-11-23T10:00:00Z", "order", "--as", "ned_stark", "muster 100 infantry")
    world = export(config, "2026-11-24T13:00:00Z")
    shown = cli(config, "2026-11-24T13:00:00Z", "tick", "--preview")
    assert "tick 83126 (2026-11-24 12:00 UTC" in shown and "Preview: 5 tick(s)" in shown
    assert "mustered at Winterfell and is standing" in shown
    assert "[Realm] The realm at the start of" in shown  # the new month's post, in full
    assert "**Holdfasts held:**" in shown and "nothing was applied" in shown
    assert export(config, "2026-11-24T13:00:00Z") == world
    assert "5 tick(s) due" in cli(config, "2026-11-24T13:00:00Z", "status")
    assert "5 tick(s) applied" in cli(config, "2026-11-24T13:00:00Z", "tick")


def test_undo_takes_back_a_command_and_a_tick_and_rollback_goes_further(tmp_path: Path
                                                                       ) -> None:
    config = _config(tmp_path)
    start = export(config, "2026-11-23T10:00:00Z")
    cli(config, "2026-11-23T10:00:00Z", "adjust", "House Stark", "--gold", "+5000", "--by",
        "jane")
    cli(config, "2026-11-23T10:01:00Z", "relations", "set", "House Stark", "House Tully",
        "war", "--by", "jane")
    listed = cli(config, "2026-11-23T10:02:00Z", "snapshots")
    assert "adjust House Stark" in listed and "relations set House Stark House Tully war" \
        in listed
    dry = cli(config, "2026-11-23T10:02:00Z", "undo", "--dry-run")
    assert "relations set" in dry and "Dry run: nothing changed" in dry
    out = cli(config, "2026-11-23T10:02:00Z", "undo", "--by", "jane", "--reason", "a test")
    assert "Taken back" in out and "relations set House Stark House Tully war" in out
    out = cli(config, "2026-11-23T10:03:00Z", "undo", "--by", "jane", "--reason", "a test")
    assert "adjust House Stark" in out
    assert export(config, "2026-11-23T10:03:00Z")["claims"] == start["claims"]
    assert "nothing to take back" in cli(config, "2026-11-23T10:03:00Z", "undo", "--reason",
                                             "a test", code=2)

    cli(config, "2026-11-24T01:00:00Z", "tick")
    after_ticks = export(config, "2026-11-24T01:00:00Z")
    assert "tick " in cli(config, "2026-11-24T01:00:00Z", "undo", "--reason", "a test")
    out = cli(config, "2026-11-24T01:00:00Z", "rollback", "--to", "2026-11-23T06:00:00Z",
              "--reason", "a test")
    assert "Taken back" in out
    assert export(config, "2026-11-24T01:00:00Z")["campaign"] == start["campaign"]
    cli(config, "2026-11-24T01:00:00Z", "tick")
    assert export(config, "2026-11-24T01:00:00Z")["claims"] == after_ticks["claims"]


def test_bad_undo_arguments_are_refused_and_change_nothing(tmp_path: Path) -> None:
    config = _config(tmp_path)
    world = export(config, "2026-11-23T10:00:00Z")
    assert "goes with --force" in cli(config, "2026-11-23T10:00:00Z", "undo", "--delete-posts",
                                      "--reason", "a test", code=2)
    assert "not an ISO time" in cli(config, "2026-11-23T10:00:00Z", "rollback", "--to",
                                    "yesterday", "--reason", "a test", code=2)
    assert "is not applied yet" in cli(config, "2026-11-23T10:00:00Z", "rollback", "--to",
                                       "2026-12-01T00:00:00Z", "--reason", "a test", code=2)
    assert "is not applied yet" in cli(config, "2026-11-23T10:00:00Z", "rollback", "--to",
                                       "9" * 40, "--reason", "a test", code=2)
    assert "needs a time zone" in cli(config, "2026-11-23T10:00:00Z", "pause", "--until",
                                      "2026-12-01T00:00:00", code=2)
    assert export(config, "2026-11-23T10:00:00Z") == world


def test_undo_puts_back_a_catalogue_loaded_before_later_ticks(tmp_path: Path) -> None:
    """The catalogue is kept in full only by the snapshot of `catalogue load`: a rollback
    further back than that finds it there, and a later snapshot's digest still matches."""
    config = _config(tmp_path)
    before = cli(config, "2026-11-23T10:00:00Z", "catalogue", "show")
    rams = tmp_path / "rams.toml"
    rams.write_text('[equipment.Rams]\ncost = 40\n'
                    'effects = [{kind = "strength", amount = "1.1", role = "attack"}]\n',
                    encoding="utf-8")
    cli(config, "2026-11-23T10:00:00Z", "catalogue", "load", str(rams))
    loaded = cli(config, "2026-11-23T10:00:00Z", "catalogue", "show")
    assert "Rams" in loaded and loaded != before
    cli(config, "2026-11-23T13:00:00Z", "tick")  # one tick, with the new catalogue
    cli(config, "2026-11-23T13:00:00Z", "undo", "--reason", "t")  # the tick: the catalogue stays
    assert cli(config, "2026-11-23T13:00:00Z", "catalogue", "show") == loaded
    cli(config, "2026-11-23T13:00:00Z", "undo", "--reason", "t")  # the load: the old one is back
    assert cli(config, "2026-11-23T13:00:00Z", "catalogue", "show") == before


def test_rollback_past_a_catalogue_load_finds_the_old_catalogue_in_its_snapshot(
        tmp_path: Path) -> None:
    config = _config(tmp_path)
    before = cli(config, "2026-11-23T13:00:00Z", "catalogue", "show")
    cli(config, "2026-11-23T13:00:00Z", "tick")  # tick 83122's snapshot: the catalogue digest
    rams = tmp_path / "rams.toml"
    rams.write_text('[equipment.Rams]\ncost = 40\n'
                    'effects = [{kind = "strength", amount = "1.1", role = "attack"}]\n',
                    encoding="utf-8")
    cli(config, "2026-11-23T13:00:00Z", "catalogue", "load", str(rams))
    out = cli(config, "2026-11-23T13:00:00Z", "rollback", "--to", "83121", "--reason", "a test")
    assert "tick 83122" in out and "catalogue load rams.toml" in out
    assert cli(config, "2026-11-23T13:00:00Z", "catalogue", "show") == before


def test_after_a_holiday_status_orders_ticks_and_log_keep_the_worlds_clock(
        tmp_path: Path) -> None:
    """A holiday of three ticks (paused at 11:00, resumed at 05:00 the next day): status names
    the world's last and next tick on the wall clock and the in-game date the pause began in;
    a muster ordered after it is ready when its receipt says, on the world's clock (24 hours
    from the next tick); and the log dates what happened before the holiday as it was then."""
    config = _config(tmp_path)
    cli(config, "2026-11-23T10:00:00Z", "order", "--as", "ned_stark", "muster 100 infantry")
    before = cli(config, "2026-11-23T11:00:00Z", "status")
    cli(config, "2026-11-23T11:00:00Z", "pause")
    assert "holiday of 3 tick(s)" in cli(config, "2026-11-24T05:00:00Z", "resume")
    after = cli(config, "2026-11-24T05:00:00Z", "status")
    assert line(after, "in-game") == line(before, "in-game")
    assert line(after, "last tick").startswith("2026-11-24 00:00 UTC")
    assert line(after, "last tick").endswith(line(before, "last tick")[21:])  # same month
    assert line(after, "next tick").startswith("2026-11-24 06:00 UTC") and "due" not in after
    receipt = cli(config, "2026-11-24T05:30:00Z", "order", "--as", "ned_stark",
                  "muster 10 infantry")
    ready = line(receipt, "- Ready")
    assert ready.startswith("2026-11-25 06:00 UTC")
    assert line(cli(config, "2026-11-24T05:30:00Z", "show", "army", "2"), "ready") == ready
    assert "4 tick(s) applied" in cli(config, "2026-11-25T00:00:00Z", "tick")
    assert "mustering at" in cli(config, "2026-11-25T00:00:00Z", "show", "army", "2")
    assert "1 tick(s) applied" in cli(config, "2026-11-25T06:00:00Z", "tick")
    assert "standing at" in cli(config, "2026-11-25T06:00:00Z", "show", "army", "2")
    with freeze_time("2026-11-25T06:00:00Z"):
        log = runner.invoke(app, ["log", "--limit", "50", "-c", str(config)],
                            env={"COLUMNS": "300"}, catch_exceptions=False).output
    ordered = next(row for row in log.splitlines() if "2026-11-23 10:00 UTC" in row)
    assert line(before, "in-game").split(",")[0] in ordered  # Nov 23's in-game month


def test_after_a_holiday_rollback_to_a_time_reads_the_worlds_clock_as_snapshots_list_it(
        tmp_path: Path) -> None:
    """After a holiday of three ticks, each snapshot's world time is where its tick falls on
    the world's clock as it runs now, and ``rollback --to`` that time takes the world back to
    just after that tick (a tick number does the same)."""
    config = _config(tmp_path)
    cli(config, "2026-11-23T13:00:00Z", "tick")  # 12:00
    cli(config, "2026-11-23T13:00:00Z", "pause")
    cli(config, "2026-11-24T07:00:00Z", "resume")  # 18:00, 00:00, 06:00 skipped
    cli(config, "2026-11-24T13:00:00Z", "tick")  # the world's 18:00 tick, at 12:00
    after_first = export(config, "2026-11-24T13:00:00Z")
    cli(config, "2026-11-24T19:00:00Z", "tick")
    listed = cli(config, "2026-11-24T19:00:00Z", "snapshots")
    assert "2026-11-24 12:00 UTC" in listed  # the snapshot before the world's 00:00 tick
    out = cli(config, "2026-11-24T19:00:00Z", "rollback", "--to", "2026-11-24T12:00:00Z",
              "--reason", "a test")
    assert "Taken back" in out
    assert export(config, "2026-11-24T19:00:00Z")["armies"] == after_first["armies"]
    assert export(config, "2026-11-24T19:00:00Z")["campaign"] == after_first["campaign"]


def test_moderators_give_a_holdfast_and_a_seat_and_can_undo_it(tmp_path: Path) -> None:
    """`holdfast give Barrowton "House Stark"` makes Barrowton Stark's (journaled, told
    privately, undoable); with --seat, Stark musters there; giving Stark's seat Winterfell to
    Bolton leaves Stark without a seat (told privately) until it is given one."""
    config = _config(tmp_path)
    start = export(config, "2026-11-23T10:00:00Z")
    out = cli(config, "2026-11-23T10:00:00Z", "holdfast", "give", "Barrowton", "House Stark",
              "--by", "jane")
    assert "Barrowton given to House Stark (held by nobody)" in out
    status = cli(config, "2026-11-23T10:01:00Z", "order", "--as", "ned_stark", "status")
    assert "Also holds Barrowton" in status
    assert "holdfast give Barrowton House Stark" in cli(config, "2026-11-23T10:02:00Z",
                                                        "snapshots")
    cli(config, "2026-11-23T10:02:00Z", "undo", "--by", "jane", "--reason", "a test")
    assert export(config, "2026-11-23T10:02:00Z")["claims"] == start["claims"]
    status = cli(config, "2026-11-23T10:03:00Z", "order", "--as", "ned_stark", "status")
    assert "Also holds Barrowton" not in status

    out = cli(config, "2026-11-23T10:04:00Z", "holdfast", "give", "Winterfell", "House Bolton")
    assert "held by House Stark" in out
    refused = cli(config, "2026-11-23T10:05:00Z", "order", "--as", "ned_stark",
                  "muster 10 infantry")
    assert "no seat" in refused
    cli(config, "2026-11-23T10:06:00Z", "holdfast", "give", "Barrowton", "House Stark",
        "--seat")
    mustered = cli(config, "2026-11-23T10:07:00Z", "order", "--as", "ned_stark",
                   "muster 10 infantry")
    assert "Barrowton" in mustered and "no seat" not in mustered
    assert "not a holdfast" in cli(config, "2026-11-23T10:08:00Z", "holdfast", "give", "1316",
                                   "House Stark", code=2)
    outbox = cli(config, "2026-11-23T10:09:00Z", "outbox")
    assert "Winterfell is no longer yours" in outbox and "Barrowton is your seat" in outbox
