"""Issue 29 through the CLI, on a real SQLite file: ``undo`` and ``rollback`` need a reason and
queue a public correction and private notes; actions named in ``[moderators] approval`` wait
for a second moderator (``proposals``, ``approve``, ``refuse``) and change nothing meanwhile;
a moderator who plays a claim (or one at war with it) always needs another moderator."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from freezegun import freeze_time
from sqlmodel import col, select

from bot.db.engine import make_engine, transaction
from bot.db.models import Campaign, Event, Outbox, OutboxStatus, Proposal
from tests.bot.test_cli_safety import INIT, cli, export, runner
from tests.fixtures.db import sqlite_url

AT = "2026-11-23T10:00:00Z"


def _config(tmp_path: Path, moderators: str = "") -> Path:
    path = tmp_path / "config.toml"
    path.write_text(f'[campaign]\nname = "Two keys"\ndatabase_url = "sqlite:///{tmp_path}/c.db"'
                    '\nmoderators = ["mod_jane", "mod_bob", "mod_ann"]\n' + moderators)
    from bot.cli import app

    with freeze_time(INIT):
        done = runner.invoke(app, ["init", "--demo", "--seed", "s", "-c", str(path)])
    assert done.exit_code == 0, done.output
    return path


def dump(tmp_path: Path) -> list[str]:
    """Every row of the database but the proposals, the outbox (where a proposal's note
    to the moderators waits) and the data version (which counts the proposal's write), as
    SQL."""
    with sqlite3.connect(tmp_path / "c.db") as db:
        return [line for line in db.iterdump()
                if not line.startswith(('INSERT INTO "proposal"', 'INSERT INTO "outbox"',
                                        'INSERT INTO "dataversion"'))]


def rows(tmp_path: Path, model: type) -> list:  # type: ignore[type-arg]
    engine = make_engine(sqlite_url(tmp_path / "c.db"))
    try:
        with transaction(engine) as session:
            return list(session.exec(select(model).order_by(col(model.id))).all())
    finally:
        engine.dispose()


def mod_room(config: Path) -> dict[str, Any]:
    """The moderators' web room's data (:func:`bot.web.data.moderators`)."""
    from bot.config import load_settings
    from bot.services.world import load_context
    from bot.web.data import moderators

    settings = load_settings(config)
    engine = make_engine(settings.campaign.database_url)
    try:
        with transaction(engine) as session:
            return moderators(session, load_context(session, settings)).data
    finally:
        engine.dispose()


def test_undo_and_rollback_need_a_reason(tmp_path: Path) -> None:
    config = _config(tmp_path)
    cli(config, AT, "adjust", "House Stark", "--gold", "+50", "--by", "mod_jane")
    before = dump(tmp_path)
    refused = cli(config, AT, "undo", code=2)
    assert "--reason must say why" in refused and "e.g. --reason" in refused \
        and "nothing changed" in refused
    assert "--reason must say why" in cli(config, AT, "rollback", "--to", "83121", code=2)
    assert "--reason must say why" in cli(config, AT, "undo", "--reason", "   ", code=2)
    assert "Dry run" in cli(config, AT, "undo", "--dry-run")  # a dry run needs none
    assert dump(tmp_path) == before


def test_undo_posts_a_correction_and_tells_each_changed_claim(tmp_path: Path) -> None:
    config = _config(tmp_path)
    cli(config, AT, "adjust", "House Tully", "--gold", "+70", "--by", "mod_jane")
    cli(config, AT, "order", "--as", "ned_stark", "muster 100 infantry")
    cli(config, "2026-11-23T12:01:00Z", "tick")
    out = cli(config, "2026-11-23T12:30:00Z", "rollback", "--to", "83121", "--reason",
              "the feast was counted twice", "--by", "mod_bob")
    assert "Correction queued: a public [Correction] post and a private note to House Stark, "\
        "House Tully." in " ".join(out.split())
    entries = [o for o in rows(tmp_path, Outbox) if o.key.startswith("correction:")]
    post = next(o for o in entries if o.kind == "post")
    assert post.public and post.title.startswith("[Correction] The world is taken back to "
                                                 "2026-11-23 06:00 UTC")
    assert "the feast was counted twice" in post.body and "mod\\_bob" in post.body
    assert "1 tick and 1 moderator command" in post.body
    assert "Orders sent since then were taken back" in post.body
    assert "House" not in post.body and "gold" not in post.body  # nothing of the claims
    notes = {o.target: o for o in entries if o.kind == "message"}
    assert set(notes) == {"ned_stark", "hoster_tully"}
    assert "- army 1: now none (before the correction: 100 infantry, 0 cavalry, mustering " \
        "at Winterfell)" in notes["ned_stark"].body
    assert "gold: now" in notes["hoster_tully"].body and "feast" in notes["hoster_tully"].body
    assert "army" not in notes["hoster_tully"].body  # only Tully's own state
    undo = [e for e in rows(tmp_path, Event) if e.kind == "undo"]
    assert undo[-1].data_json["reason"] == "the feast was counted twice"
    assert "the feast was counted twice" in undo[-1].summary  # the log keeps it
    (logged,) = [e for e in rows(tmp_path, Event) if e.kind == "correction"]
    assert logged.summary == ("public correction queued (the feast was counted twice); "
                              "private notes to House Stark, House Tully")

    # A correction is no post to take back: a later undo neither withdraws it nor refuses.
    cli(config, "2026-11-23T12:31:00Z", "adjust", "House Tully", "--gold", "+1")
    cli(config, "2026-11-23T12:32:00Z", "undo", "--reason", "one gold too many")
    kept = [o for o in rows(tmp_path, Outbox) if o.key.startswith("correction:")]
    assert [o.id for o in entries] == [o.id for o in kept[:len(entries)]]


def test_an_action_that_waits_changes_nothing_until_a_second_moderator_approves(
        tmp_path: Path) -> None:
    config = _config(tmp_path, '[moderators]\napproval = ["adjust", "undo", "army remove"]\n')
    before = dump(tmp_path)
    out = cli(config, AT, "adjust", "House Stark", "--gold", "+100", "--reason", "dowry",
              "--by", "u/mod_jane")
    assert "Proposed as #1" in out and "Nothing changed" in out and "maester approve 1" in out
    assert "House Stark once approved: gold 1000" in out and "after:" not in out
    assert dump(tmp_path) == before  # the world, the log and the snapshots are as they were
    assert "not one of the campaign's moderators" in cli(
        config, AT, "adjust", "House Stark", "--gold", "+1", "--by", "stranger", code=2)
    listed = cli(config, AT, "proposals")
    assert "#1 [pending] adjust: adjust House Stark: gold +100" in listed
    assert "[moderators] approval asks a second moderator" in listed
    assert [(p["id"], p["proposer"]) for p in mod_room(config)["proposals"]] == [(1, "mod_jane")]

    refused = cli(config, AT, "approve", "1", "--by", "mod_jane", code=2)
    assert "u/mod_jane proposed #1: another moderator must approve it" in refused
    assert dump(tmp_path) == before
    done = cli(config, AT, "approve", "1", "--by", "mod_bob")
    assert "House Stark after: gold 1000" in done and "approved by u/mod_bob" in done
    assert export(config, AT)["claims"][0]["gold"] == "1000"
    approval = [e for e in rows(tmp_path, Event) if e.kind == "approval"]
    assert len(approval) == 1 and approval[0].actor == "mod_bob"
    assert "by mod_jane approved by mod_bob" in approval[0].summary
    assert [e.actor for e in rows(tmp_path, Event) if e.kind == "adjust"] == ["mod_jane"]
    dry = cli(config, AT, "undo", "--dry-run")  # the approval is no order to take back
    assert "adjust House Stark (by mod_jane)" in dry and "Orders of" not in dry
    assert "was approved already" in cli(config, AT, "approve", "1", "--by", "mod_ann",
                                         code=2)

    # Refusing needs a reason; a refused proposal cannot be approved.
    cli(config, AT, "adjust", "House Tully", "--gold", "+5", "--by", "mod_jane")
    assert "needs a reason" in cli(config, AT, "refuse", "2", "--by", "mod_bob", code=2)
    assert "refused by u/mod_bob: not in the rules" in cli(
        config, AT, "refuse", "2", "--by", "mod_bob", "--reason", "not in the rules")
    assert "was refused already" in cli(config, AT, "approve", "2", "--by", "mod_ann", code=2)
    assert "no proposal #9" in cli(config, AT, "approve", "9", "--by", "mod_ann", code=2)
    assert "2 proposal(s)." in cli(config, AT, "proposals", "--all")


def test_a_proposed_undo_is_listed_with_its_action_once(tmp_path: Path) -> None:
    """Found by hand: `maester proposals` listed an undo as "undo: undo: take the world back
    ..." (its summary already names the action)."""
    config = _config(tmp_path, '[moderators]\napproval = ["undo"]\n')
    cli(config, AT, "adjust", "House Stark", "--gold", "+100", "--reason", "dowry",
        "--by", "u/mod_jane")
    assert "Proposed as #1: undo: take the world back" in cli(
        config, AT, "undo", "--reason", "the dowry was a mistake", "--by", "u/mod_jane")
    listed = cli(config, AT, "proposals")
    assert "#1 [pending] undo: take the world back to before" in listed, listed
    assert "undo: undo:" not in listed


def test_a_decided_proposal_withdraws_its_note_if_it_has_not_gone_out(tmp_path: Path) -> None:
    """Found by hand: a proposal refused before the round that sends modmail still had its
    note delivered afterwards, saying it waited ("Now 1 proposal waits"). Decided, its note
    is withdrawn while still queued; one already delivered stays (it was true when sent)."""
    config = _config(tmp_path, '[moderators]\napproval = ["adjust"]\n')
    for gold in ("+1", "+2"):
        cli(config, AT, "adjust", "House Stark", "--gold", gold, "--by", "u/mod_jane")
    notes = {o.key: o for o in rows(tmp_path, Outbox) if o.key.startswith("proposal:")}
    assert set(notes) == {"proposal:1", "proposal:2"}
    engine = make_engine(sqlite_url(tmp_path / "c.db"))
    with transaction(engine) as session:  # the second note went out before the decision
        sent = session.get(Outbox, notes["proposal:2"].id)
        assert sent is not None
        sent.status = OutboxStatus.DELIVERED
        session.add(sent)
    engine.dispose()
    cli(config, AT, "refuse", "1", "--by", "mod_jane", "--reason", "withdrawn")
    cli(config, AT, "approve", "2", "--by", "mod_bob")
    left = {o.key: o.status for o in rows(tmp_path, Outbox) if o.key.startswith("proposal:")}
    assert left == {"proposal:2": OutboxStatus.DELIVERED}, left


def test_a_decided_proposal_keeps_its_note_once_a_delivery_started_on_it(
        tmp_path: Path) -> None:
    """A note a delivery has tried (its answer lost, say: it may be on Reddit, and its retry
    looks for it there) is not withdrawn when the proposal is decided, as the sidebar's and
    the [Realm] post's older entries are not: only a note nobody has tried goes."""
    config = _config(tmp_path, '[moderators]\napproval = ["adjust"]\n')
    cli(config, AT, "adjust", "House Stark", "--gold", "+1", "--by", "u/mod_jane")
    (note,) = [o for o in rows(tmp_path, Outbox) if o.key == "proposal:1"]
    engine = make_engine(sqlite_url(tmp_path / "c.db"))
    with transaction(engine) as session:  # tried once, released for its retry
        tried = session.get(Outbox, note.id)
        assert tried is not None and tried.status is OutboxStatus.PENDING
        tried.attempts = 1
        session.add(tried)
    engine.dispose()
    cli(config, AT, "refuse", "1", "--by", "mod_jane", "--reason", "withdrawn")
    (kept,) = [o for o in rows(tmp_path, Outbox) if o.key == "proposal:1"]
    assert (kept.status, kept.attempts) == (OutboxStatus.PENDING, 1)


def test_an_approval_after_the_world_moved_on_is_checked_again(tmp_path: Path) -> None:
    config = _config(tmp_path, '[moderators]\napproval = ["undo", "army remove", "adjust"]\n')
    cli(config, AT, "relations", "set", "House Stark", "House Tully", "allied")
    cli(config, AT, "order", "--as", "ned_stark", "muster 100 infantry")
    cli(config, AT, "undo", "--reason", "no alliance yet", "--by", "mod_jane")  # 1
    cli(config, AT, "army", "remove", "1", "--reason", "duplicate", "--by", "mod_jane")  # 2
    cli(config, AT, "adjust", "House Stark", "--gold", "-100", "--by", "mod_jane")  # 3
    cli(config, "2026-11-23T12:01:00Z", "tick")  # the world moves on
    stale = cli(config, "2026-11-23T12:03:00Z", "approve", "1", "--by", "mod_bob", code=2)
    assert "Proposal #1 refused: no longer applies: the world moved on since it was " \
        "proposed: it would now take back tick 83122 as well" in " ".join(stale.split())
    # rollback needs no approval here: it takes the muster back, army 1 is gone
    cli(config, "2026-11-23T12:02:00Z", "rollback", "--to", "83121", "--reason", "a test",
        "--by", "mod_ann")
    gone = cli(config, "2026-11-23T12:03:00Z", "approve", "2", "--by", "mod_bob", code=2)
    assert "no longer applies: no raised army or fleet 1" in gone
    still = cli(config, "2026-11-23T12:03:00Z", "approve", "3", "--by", "mod_bob")
    assert "re-checked after the world moved on" in still
    decided = {p.id: (p.status.value, p.decided_by) for p in rows(tmp_path, Proposal)}
    assert decided == {1: ("refused", "mod_bob"), 2: ("refused", "mod_bob"),
                       3: ("approved", "mod_bob")}
    assert [e.data_json["rechecked"] for e in rows(tmp_path, Event)
            if e.kind == "approval"] == [True]


def test_a_moderator_who_plays_needs_another_whatever_the_config(tmp_path: Path) -> None:
    config = _config(tmp_path, '[moderators]\nplays = { "u/Mod_Jane" = ["House Stark"], '
                               '"mod_ann" = ["House Tully"] }\n')
    before = dump(tmp_path)
    own = cli(config, AT, "adjust", "House Stark", "--gold", "+100", "--by", "mod_jane")
    assert "Proposed as #1" in own and "u/mod_jane plays House Stark" in own
    enemy = cli(config, AT, "character", "set", "Jaime Lannister", "captured", "--by",
                "mod_jane")
    assert "Proposed as #2" in enemy and \
        "House Lannister is at war with House Stark, which u/mod_jane plays" in enemy
    peace = cli(config, AT, "relations", "set", "House Stark", "House Lannister", "neutral",
                "--by", "mod_jane")
    assert "Proposed as #3" in peace and "u/mod_jane plays House Stark" in peace
    seat = cli(config, AT, "holdfast", "give", "Winterfell", "House Tyrell", "--by",
               "mod_jane")  # taken from the claim she plays
    assert "Proposed as #4" in seat and "u/mod_jane plays House Stark" in seat
    assert dump(tmp_path) == before
    cli(config, AT, "adjust", "House Tully", "--gold", "+1", "--by", "mod_jane")  # at once
    assert export(config, AT)["claims"][2]["gold"] == "701"
    cli(config, AT, "adjust", "House Stark", "--gold", "+1", "--by", "mod_ann")  # not involved
    assert export(config, AT)["claims"][0]["gold"] == "901"
    # mod_ann plays House Tully, at war with House Lannister: she may not approve #2
    assert "House Lannister is at war with House Tully, which u/mod_ann plays: an " \
        "uninvolved moderator must approve #2" in " ".join(cli(
            config, AT, "approve", "2", "--by", "mod_ann", code=2).split())
    done = cli(config, AT, "approve", "2", "--by", "mod_bob")
    assert "Jaime Lannister: alive -> captured" in done
    approval = next(e for e in rows(tmp_path, Event) if e.kind == "approval")
    assert "[involved: u/mod_jane is" not in approval.summary
    assert "[involved: House Lannister is at war with House Stark, which u/mod_jane plays]" \
        in approval.summary


def test_a_player_listed_as_moderator_is_involved_in_their_claim(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    config = _config(tmp_path)
    path.write_text(path.read_text().replace('"mod_ann"]', '"mod_ann", "ned_stark"]'))
    out = cli(config, AT, "army", "remove", "1", "--reason", "x", "--by", "ned_stark",
              code=2)
    assert "no raised army or fleet 1" in out  # checked before anything is proposed
    cli(config, AT, "order", "--as", "ned_stark", "muster 100 infantry")
    out = cli(config, AT, "army", "remove", "1", "--reason", "mine", "--by", "ned_stark")
    assert "Proposed as #1" in out and "u/ned_stark plays House Stark" in out
    assert "Army 1 of House Stark removed" in cli(config, AT, "approve", "1", "--by",
                                                  "mod_bob")


def test_skills_fates_and_map_updates_wait_too(tmp_path: Path) -> None:
    from bot.maps import demo_map_text

    config = _config(tmp_path, '[moderators]\napproval = ["skills grant", "fates", '
                               '"map update"]\n')
    from bot.services.catalogue import demo_catalogue_text

    new = tmp_path / "new.csv"
    new.write_text(demo_map_text().replace("2755,,water,", "2755,The Far Deep,water,"))
    catalogue = tmp_path / "catalogue.toml"
    catalogue.write_text(demo_catalogue_text())
    cli(config, AT, "catalogue", "load", str(catalogue), "--by", "mod_jane")
    before = dump(tmp_path)
    assert "Proposed as #1" in cli(config, AT, "skills", "grant", "Brynden Tully", "Blackfish",
                                   "--by", "mod_jane")
    assert "Proposed as #2" in cli(config, AT, "character", "set", "Robb Stark", "wounded",
                                   "--by", "mod_jane")
    assert "Proposed as #3" in cli(config, AT, "map", "update", str(new), "--yes", "--by",
                                   "mod_jane")
    assert "no skill called" in cli(config, AT, "skills", "grant", "Brynden Tully", "Nothing",
                                    "--by", "mod_jane", code=2)  # checked before proposing
    assert dump(tmp_path) == before
    assert "Brynden Tully" in cli(config, AT, "approve", "1", "--by", "mod_bob")
    assert "Robb Stark: alive -> wounded" in cli(config, AT, "approve", "2", "--by", "mod_ann")
    assert "map updated" in cli(config, AT, "approve", "3", "--by", "mod_bob")
    assert "The Far Deep" in rows(tmp_path, Campaign)[0].map_text
    assert [e.actor for e in rows(tmp_path, Event) if e.kind == "approval"] == \
        ["mod_bob", "mod_ann", "mod_bob"]


def test_the_config_names_only_actions_that_can_wait() -> None:
    import pytest

    from bot.config import APPROVABLE, ConfigError, parse_settings
    from bot.services.proposals import KINDS

    assert set(KINDS) == set(APPROVABLE)  # each action the config may name has its row

    with pytest.raises(ConfigError, match=r"moderators.approval: Value error, 'undoo' is not "
                                          r"an action that can wait for approval: one of "
                                          r"'adjust', 'undo'.*e\.g\. approval = "):
        parse_settings({"moderators": {"approval": ["undoo"]}})
    settings = parse_settings({"moderators": {"approval": ["Map  Update"],
                                              "plays": {" U/Mod_Jane ": ["House Stark"]}}})
    assert settings.moderators.approval == ["map update"]
    assert settings.moderators.plays == {"mod_jane": ["House Stark"]}


def test_status_and_the_moderators_note_count_the_proposals_waiting(tmp_path: Path) -> None:
    config = _config(tmp_path, '[moderators]\napproval = ["adjust"]\n')
    assert "proposals:  no proposal waits for a second moderator" in cli(config, AT, "status")
    cli(config, AT, "adjust", "House Stark", "--gold", "+100", "--by", "mod_jane")
    cli(config, AT, "adjust", "House Tully", "--gold", "+5", "--by", "mod_jane")
    status = " ".join(cli(config, AT, "status").split())
    assert "proposals: 2 proposals wait for a second moderator (`maester proposals`, " \
        "`!proposals`)" in status
    notes = [r.body for r in rows(tmp_path, Outbox) if r.key.startswith("proposal:")]
    assert [n.rsplit("\n\n", 1)[1] for n in notes] == [
        "Now 1 proposal waits for a second moderator (`maester proposals`, `!proposals`).",
        "Now 2 proposals wait for a second moderator (`maester proposals`, `!proposals`)."]
    cli(config, AT, "refuse", "1", "--reason", "no dowry", "--by", "mod_bob")
    assert "proposals:  1 proposal waits" in cli(config, AT, "status")
    cli(config, AT, "approve", "2", "--by", "mod_bob")
    assert "proposals:  no proposal waits" in cli(config, AT, "status")
