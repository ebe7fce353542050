"""A claim's life over months (issue #28), through the order language and the CLI on a real
database (SQLite and PostgreSQL), the wall clock frozen with freezegun: activity and its
warning, inactivity held and referred, a leave and its return, a hold (armies stop, upkeep
paid, a battle fought while held), a hand-over with the old player's order refused, a claim
added and one retired; every change journaled and taken back by ``undo``."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import select

import bot.cli.claims  # noqa: F401
from bot.cli.common import settings_of
from bot.db.engine import make_engine, transaction
from bot.db.models import Army, ArmyState, Claim, Outbox
from bot.services import weblinks
from bot.services.world import load_context
from tests.bot.test_cli_safety import cli  # the CLI with the wall clock frozen

T0 = datetime(2026, 11, 23, 9, 30, tzinfo=UTC)


def at(days: float = 0, hours: float = 0) -> str:
    return (T0 + timedelta(days=days, hours=hours)).strftime("%Y-%m-%dT%H:%M:%SZ")


@pytest.fixture
def config(tmp_path: Path, db_url: str) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(f'[campaign]\nname = "Months"\ndatabase_url = "{db_url}"\n'
                    'moderators = ["mod_jane"]\n'
                    "[claims]\ninactive_after_days = 3\nwarn_days_ahead = 1\n"
                    "leave_max_days = 30\n")
    cli(path, at(), "init", "--demo", "--seed", "s")
    return path


def say(config: Path, when: str, who: str, text: str) -> str:
    return cli(config, when, "order", "--as", who, text)


def export(config: Path, when: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(cli(config, when, "export"))
    return data


def outbox(config: Path) -> list[Outbox]:
    engine = make_engine(_url(config))
    try:
        with transaction(engine) as session:
            return list(session.exec(select(Outbox).order_by(Outbox.id)).all())  # type: ignore[arg-type]
    finally:
        engine.dispose()


def _url(config: Path) -> str:
    return settings_of(config).campaign.database_url


def rows(config: Path, model: type[Any]) -> list[Any]:
    engine = make_engine(_url(config))
    try:
        with transaction(engine) as session:
            return list(session.exec(select(model)).all())
    finally:
        engine.dispose()


def claim_row(config: Path, name: str) -> Claim:
    return next(c for c in rows(config, Claim) if c.name == name)


def standing(config: Path, when: str, name: str, *extra: str) -> str:
    listed = cli(config, when, "claims", *extra)
    found = next((line for line in listed.splitlines() if name in line), "")
    return found


def test_activity_warning_inactivity_hold_referral_and_return(config: Path) -> None:
    say(config, at(hours=1), "ned_stark", "muster 100 infantry")
    listed = standing(config, at(hours=2), "House Stark")
    assert "2026-11-23 10:30" in listed and "active" in listed
    # one day before the three days are up, the silent claims are warned privately
    cli(config, at(days=2, hours=3), "tick")
    warned = [o for o in outbox(config) if "will soon be marked inactive" in o.title]
    assert {o.target for o in warned} >= {"hoster_tully", "ned_stark"}
    assert all(o.kind == "message" and not o.public for o in warned)
    assert "tywin_lannister" in {o.target for o in warned}
    # three days on: inactive and held, the moderators get a referral (previewed first)
    shown = cli(config, at(days=2, hours=3), "tick", "--preview", "--until", at(days=3, hours=3))
    assert "House Tully is inactive (nothing for 3 days) and held" in shown
    assert "Referral: House Tully is inactive" in shown
    cli(config, at(days=3, hours=3), "tick")
    inactive = cli(config, at(days=3, hours=3), "claims", "--inactive")
    assert "House Tully" in inactive and "inactive, held" in inactive
    referrals = [o for o in outbox(config) if o.kind == "mod"
                 and o.title == "Referral: House Tully is inactive"]
    assert len(referrals) == 1 and "u/hoster_tully" in referrals[0].body
    assert claim_row(config, "House Tully").hold == "inactive"
    log = cli(config, at(days=3, hours=3), "log", "--limit", "200")
    assert "claim_held" in log and "inactive_warning" in log
    # a word from the player and the claim is active again
    say(config, at(days=3, hours=4), "hoster_tully", "status")
    assert claim_row(config, "House Tully").hold is None
    assert "House Tully" not in cli(config, at(days=3, hours=4), "claims", "--inactive")
    assert any(o.title == "House Tully is active again" for o in outbox(config))


def test_leave_by_order_and_by_moderator_its_return_and_bad_dates(config: Path) -> None:
    before = export(config, at(hours=1))
    past = say(config, at(hours=1), "tywin_lannister", "away until 2026-11-01")
    assert "**Not done:** 2026-11-01 is not in the future" in past and "**Example:**" in past
    far = say(config, at(hours=1), "tywin_lannister", "away until 2027-06-01")
    assert "more than 30 days away" in far and "**Expected:**" in far
    bad = say(config, at(hours=1), "tywin_lannister", "away until next week")
    assert "YYYY-MM-DD" in bad
    assert claim_row(config, "House Lannister").away_until is None
    assert export(config, at(hours=1))["claims"] == before["claims"]

    noted = say(config, at(hours=2), "tywin_lannister", "away until 2026-12-03 visiting Lys")
    assert "House Lannister is away until 2026-12-03 (visiting Lys)" in noted
    assert "away until 2026-12-03" in standing(config, at(hours=3), "House Lannister")
    # a moderator may put a claim on leave too (its players are told); a past date is refused
    cli(config, at(hours=3), "claims", "away", "House Tully", "--until", "2026-11-01",
        code=2)
    done = cli(config, at(hours=3), "claims", "away", "House Tully", "--until", "2026-11-26",
               "--reason", "exams", "--by", "jane")
    assert "House Tully is away until 2026-11-26 (exams)" in done
    assert any(o.target == "hoster_tully" and o.title == "House Tully is on leave"
               for o in outbox(config))
    # on leave, never inactive: four days on only the others are held
    cli(config, at(days=4), "tick")
    assert claim_row(config, "House Lannister").hold is None
    assert claim_row(config, "House Stark").hold == "inactive"
    # Tully's leave ended on the 26th: the return is noted and the clock starts again
    titles = [o.title for o in outbox(config)]
    assert "House Tully's leave ended" in titles and "Welcome back, House Tully" in titles
    assert claim_row(config, "House Tully").hold is None
    cli(config, at(days=6), "tick")
    assert claim_row(config, "House Tully").hold == "inactive"  # three days after the 26th
    # a message during the leave ends it early, noted for the moderators
    say(config, at(days=6, hours=1), "tywin_lannister", "status")
    assert claim_row(config, "House Lannister").away_until is None
    assert "House Lannister is back from leave" in [o.title for o in outbox(config)]


def _stark_marching(config: Path) -> None:
    _stark_marching_at(config, days=0)


def _stark_marching_at(config: Path, *, days: float) -> None:
    """Stark musters 100 and Lannister 300 infantry; Stark's army 1 then sets off for
    Riverrun, the next afternoon."""
    say(config, at(days, hours=1), "ned_stark", "muster 100 infantry")
    say(config, at(days, hours=1), "tywin_lannister", "muster 300 infantry")
    cli(config, at(days + 1, hours=13), "tick")
    route = say(config, at(days + 1, hours=14), "ned_stark", "route army 1 to Riverrun")
    move = next(line.strip() for line in route.splitlines() if line.strip().startswith("move"))
    assert "will march" in say(config, at(days + 1, hours=14), "ned_stark", move)


def test_a_held_claims_armies_stop_upkeep_is_paid_and_a_battle_is_still_fought(
        config: Path) -> None:
    _stark_marching(config)
    cli(config, at(days=1, hours=15), "claims", "hold", "House Stark", "--by", "jane")
    assert "already held" in cli(config, at(days=1, hours=15), "claims", "hold",
                                 "House Stark", code=2)
    assert "House Stark is held" in [o.title for o in outbox(config)]
    gold = claim_row(config, "House Stark").gold
    shown = cli(config, at(days=1, hours=15), "tick", "--preview", "--until", at(days=2, hours=1))
    assert "army 1 of House Stark (held) stops at Winterfell" in shown
    cli(config, at(days=2, hours=1), "tick")  # the march would have begun: it stops at home
    army = next(a for a in rows(config, Army) if a.id == 1)
    assert army.state == ArmyState.STANDING and army.path_json == [] and army.tile == "1315"
    assert "army_held" in cli(config, at(days=2, hours=1), "log", "--limit", "50")
    assert claim_row(config, "House Stark").gold < gold  # the month's upkeep was paid
    # the Lannisters come to Winterfell and attack; the held army fights (and never retreats)
    engine = make_engine(_url(config))
    with transaction(engine) as session:
        lannister = session.get(Army, 2)
        assert lannister is not None
        lannister.tile, lannister.state, lannister.stationary_since = "1315", ArmyState.STANDING, 0
        session.add(lannister)
    engine.dispose()
    attack = say(config, at(days=2, hours=2), "tywin_lannister", "attack army 1 with army 2")
    assert "Not done" not in attack
    cli(config, at(days=3, hours=1), "tick")
    assert any(o.public and o.title.startswith("[Battle]") for o in outbox(config))
    assert "retreat" not in cli(config, at(days=3, hours=1), "log", "--claim", "House Stark",
                                "--limit", "50").lower().replace("never retreats", "")
    # lifted by hand: Stark orders again, and it is not held again until it was active again
    cli(config, at(days=3, hours=2), "claims", "lift", "House Stark", "--by", "jane")
    assert claim_row(config, "House Stark").hold == "lifted"
    cli(config, at(days=7), "tick")
    assert claim_row(config, "House Stark").hold == "lifted"


def test_hand_over_refuses_the_old_players_orders_and_undo_takes_it_back(config: Path
                                                                         ) -> None:
    before = export(config, at(hours=1))
    for args, words in [
        (["House Nobody", "--to", "arya_stark"], "no claim called"),
        (["House Stark", "--to", "tywin_lannister"], "already plays House Lannister"),
        (["House Stark", "--to", "ned_stark"], "already plays this claim"),
        (["House Stark", "--to", "a!"], "is not a Reddit user name"),
    ]:
        assert words in cli(config, at(hours=1), "claims", "transfer", *args, code=2)
    assert export(config, at(hours=1)) == before
    cli(config, at(hours=1), "claims", "transfer", "House Stark", "--to", "jon_snow")
    assert export(config, at(hours=1))["claims"][0]["players"] == ["jon_snow"]
    cli(config, at(hours=1), "undo", "--reason", "t")  # taken back: nothing of it was delivered yet
    after = export(config, at(hours=1))
    corrections = [o for o in after["outbox"] if o["key"].startswith("correction:")]
    assert [o["kind"] for o in corrections] == ["post"]  # the public [Correction] only
    assert {**after, "outbox": [o for o in after["outbox"] if o not in corrections]} == before
    assert not any(o.target == "jon_snow" for o in outbox(config))
    cli(config, at(hours=1), "tick")
    done = cli(config, at(hours=2), "claims", "transfer", "House Stark", "--to", "u/Arya_Stark",
               "--by", "jane")
    assert "u/arya_stark takes over from u/ned_stark" in done
    entries = outbox(config)
    assert any(o.target == "ned_stark" and o.title == "You no longer play House Stark"
               for o in entries)
    assert any(o.target == "arya_stark" and o.title == "You now play House Stark"
               for o in entries)
    post = next(o for o in entries if o.public and o.title.startswith("[Claims]"))
    assert post.title == "[Claims] u/arya_stark now plays House Stark"
    assert "900" not in post.body and "3000" not in post.body  # no numbers of the claim
    # an order of the old player sent before the hand-over but read after it: refused
    old = say(config, at(hours=3), "ned_stark", "muster 100 infantry")
    assert "does not play a claim" in old
    assert not any(a.claim_id == 1 for a in rows(config, Army))
    assert "is mustering at Winterfell" in say(config, at(hours=3), "arya_stark",
                                               "muster 100 infantry")
    # from now on private news goes to the new player only
    mark = max(o.id or 0 for o in outbox(config))
    cli(config, at(days=3), "tick")
    later = [o for o in outbox(config) if (o.id or 0) > mark and o.claim_id == 1]
    assert later and {o.target for o in later} == {"arya_stark"}
    # --add: one more player
    cli(config, at(days=3, hours=1), "claims", "transfer", "House Stark", "--to", "sansa_stark",
        "--add")
    assert export(config, at(days=3, hours=1))["claims"][0]["players"] == ["arya_stark",
                                                                            "sansa_stark"]
    # the notes were sent: forced
    cli(config, at(days=3, hours=1), "undo", "--force", "--reason", "t")
    assert export(config, at(days=3, hours=1))["claims"][0]["players"] == ["arya_stark"]


def test_a_hand_over_replaces_the_war_room_link_and_the_old_copy_opens_nothing(config: Path
                                                                               ) -> None:
    """Everything private goes to the new player only (issue #28), the war room's link too:
    the removed player's copy stops working and the new player receives a new one."""
    old_link = re.search(r"/claim/([A-Za-z0-9_-]{43})", say(config, at(hours=1), "ned_stark",
                                                             "link"))
    assert old_link, "the link order answers the war room's address"
    cli(config, at(hours=2), "claims", "transfer", "House Stark", "--to", "arya_stark")
    sent = [o for o in outbox(config) if o.target == "arya_stark" and o.title == "Your war room"]
    assert len(sent) == 1
    new_link = re.search(r"/claim/([A-Za-z0-9_-]{43})", sent[0].body)
    assert new_link and new_link.group(1) != old_link.group(1)
    stark = weblinks.claim_scope(claim_row(config, "House Stark").id or 0)
    engine = make_engine(_url(config))
    with transaction(engine) as session:
        ctx = load_context(session, settings_of(config))
        assert weblinks.scope_of(session, ctx, old_link.group(1), moderators=False) is None
        assert weblinks.scope_of(session, ctx, new_link.group(1), moderators=False) == stark
    engine.dispose()
    assert not any(o.target == "ned_stark" and old_link.group(1) not in o.body
                   and "/claim/" in o.body for o in outbox(config))  # nothing new for ned


def test_a_claim_added_from_a_roster_snippet_and_one_retired(config: Path, tmp_path: Path
                                                            ) -> None:
    snippet = tmp_path / "dayne.toml"
    snippet.write_text('[[claims]]\nname = "House Glover"\nholdfast = "Deepwood Motte"\n'
                       'players = ["robett_glover"]\ngold = "300"\ninfantry = 400\n'
                       'characters = ["Robett Glover"]\n')
    taken = tmp_path / "taken.toml"
    taken.write_text('[[claims]]\nname = "House Snow"\nholdfast = "Winterfell"\n'
                     'players = ["ned_stark"]\n')
    before = export(config, at(hours=1))
    refused = cli(config, at(hours=1), "claims", "add", "--roster", str(taken), code=2)
    assert "already claimed" in refused or "already plays" in refused
    assert export(config, at(hours=1)) == before
    added = cli(config, at(hours=1), "claims", "add", "--roster", str(snippet), "--by", "jane")
    assert "Claim House Glover added at Deepwood Motte" in added
    assert "is mustering at Deepwood Motte" in say(config, at(hours=2), "robett_glover",
                                                   "muster 100 infantry")
    assert any(o.target == "robett_glover" and o.title.startswith("Welcome")
               for o in outbox(config))
    # retire Stark with its army kept as a held force; Bolton with its army disbanded
    say(config, at(hours=2), "ned_stark", "muster 100 infantry")
    say(config, at(hours=2), "roose_bolton", "muster 100 infantry")
    cli(config, at(hours=3), "claims", "retire", "House Stark", "--armies", "maybe", code=2)
    out = cli(config, at(hours=3), "claims", "retire", "House Stark", "--armies", "hold")
    assert "1 army(ies) stay as held forces" in out and "nobody holds Winterfell now" in out
    out = cli(config, at(hours=3), "claims", "retire", "House Bolton", "--armies", "disband")
    assert "1 army(ies) disbanded" in out
    states = {a.claim_id: a.state for a in rows(config, Army)}
    stark, bolton = claim_row(config, "House Stark"), claim_row(config, "House Bolton")
    assert states[stark.id] == ArmyState.MUSTERING and states[bolton.id] == ArmyState.GONE
    assert stark.retired_at is not None
    assert "does not play a claim" in say(config, at(hours=4), "ned_stark", "status")
    assert "retired" in standing(config, at(hours=4), "House Stark")
    assert "already retired" in cli(config, at(hours=4), "claims", "retire", "House Stark",
                                    "--armies", "hold", code=2)
    cli(config, at(hours=4), "undo", "--reason", "t")  # the 12:00 tick, before ned's message
    cli(config, at(hours=4), "undo", "--reason", "t")  # Bolton's retirement
    bolton = claim_row(config, "House Bolton")
    assert bolton.retired_at is None and claim_row(config, "House Stark").retired_at
    assert {a.claim_id: a.state for a in rows(config, Army)}[bolton.id] == \
        ArmyState.MUSTERING
    assert "u/roose_bolton" in standing(config, at(hours=4), "House Bolton")


def _public_after_hold_and_hand_over(tmp_path: Path, gold: str, infantry: str
                                     ) -> list[tuple[str, str]]:
    path = tmp_path / "config.toml"
    path.write_text(f'[campaign]\nname = "Hidden"\ndatabase_url = "sqlite:///{tmp_path}/c.db"'
                    '\nmoderators = ["mod_jane"]\n[claims]\ninactive_after_days = 2\n')
    cli(path, at(), "init", "--demo", "--seed", "s")
    cli(path, at(), "adjust", "House Stark", "--gold", gold, "--infantry", infantry)
    say(path, at(hours=1), "ned_stark", "muster 100 infantry")
    cli(path, at(days=3), "tick")  # Stark goes inactive and is held
    assert claim_row(path, "House Stark").hold == "inactive"
    cli(path, at(days=3, hours=1), "claims", "transfer", "House Stark", "--to", "arya_stark")
    cli(path, at(days=5), "tick")
    return [(o.title, o.body) for o in outbox(path) if o.public]


def test_holds_and_hand_overs_publish_nothing_of_the_claims_hidden_numbers(tmp_path: Path
                                                                           ) -> None:
    """Two worlds that differ only in House Stark's treasury and troops at home (hidden from
    everyone but its players): the held claim and its hand-over make the same public posts."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    one = _public_after_hold_and_hand_over(tmp_path / "a", "+0", "+0")
    other = _public_after_hold_and_hand_over(tmp_path / "b", "+4321", "+777")
    assert one == other
    assert any(title == "[Claims] u/arya_stark now plays House Stark" for title, _ in one)


def test_a_holiday_is_no_silence_and_hold_none_only_refers(config: Path) -> None:
    """Ten days of holiday do not make the claims inactive: their last messages move on with
    the world's clock. With ``hold = "none"`` an inactive claim is referred, its armies march."""
    cli(config, at(hours=1), "pause", "--by", "jane")
    cli(config, at(days=10), "resume", "--by", "jane")
    cli(config, at(days=11), "tick")
    assert all(c.hold is None for c in rows(config, Claim))
    assert "No claim is inactive or held." in cli(config, at(days=11), "claims", "--inactive")
    config.write_text(config.read_text().replace("[claims]\n", '[claims]\nhold = "none"\n'))
    _stark_marching_at(config, days=11)
    cli(config, at(days=16), "tick")  # three days after Stark's last message, and more
    assert claim_row(config, "House Stark").hold == "inactive"
    stark = next(a for a in rows(config, Army) if a.id == 1)
    assert stark.tile != "1315" and stark.state == ArmyState.MARCHING  # not stopped
    assert "army_held" not in cli(config, at(days=16), "log", "--limit", "300")


def test_one_player_of_two_claims_names_the_claim_with_as_when_the_config_allows_it(
        config: Path, tmp_path: Path) -> None:
    refused = cli(config, at(hours=1), "claims", "transfer", "House Lannister", "--to",
                  "ned_stark", "--add", code=2)  # not allowed by default
    assert "already plays House Stark" in refused and "players_may_play_several" in refused
    glover = tmp_path / "glover.toml"
    glover.write_text('[[claims]]\nname = "House Glover"\nholdfast = "Deepwood Motte"\n'
                      'players = ["ned_stark"]\n')
    refused = cli(config, at(hours=1), "claims", "add", "--roster", str(glover), code=2)
    assert "u/ned_stark already plays another claim" in refused
    assert "players_may_play_several" in refused
    config.write_text(config.read_text().replace(
        "[claims]\n", "[claims]\nplayers_may_play_several = true\n"))
    assert "Claim House Glover added at Deepwood Motte" in cli(
        config, at(hours=1), "claims", "add", "--roster", str(glover))
    # the claim added: the rest of the test plays two claims
    cli(config, at(hours=1), "undo", "--reason", "t")
    assert "already plays this claim" in cli(config, at(hours=1), "claims", "transfer",
                                             "House Stark", "--to", "ned_stark", code=2)
    cli(config, at(hours=1), "claims", "transfer", "House Lannister", "--to", "ned_stark",
        "--add")
    lannister, stark = claim_row(config, "House Lannister"), claim_row(config, "House Stark")
    players = {c["name"]: c["players"] for c in export(config, at(hours=1))["claims"]}
    assert players["House Lannister"] == ["ned_stark", "tywin_lannister"]
    assert players["House Stark"] == ["ned_stark"]
    before = export(config, at(hours=2))
    unnamed = say(config, at(hours=2), "ned_stark", "muster 100 infantry")
    assert "you play several claims (House Lannister, House Stark)" in unnamed
    assert "as House Lannister: status" in unnamed  # the example
    wrong = say(config, at(hours=2), "ned_stark", "as House Tyrell: muster 100 infantry")
    assert "you do not play a claim called House Tyrell" in wrong
    assert "one of your claims: House Lannister, House Stark" in wrong
    assert export(config, at(hours=2)) == before  # refused messages change nothing
    assert "is mustering at Winterfell" in say(config, at(hours=2), "ned_stark",
                                               "as House Stark: muster 100 infantry")
    assert "is mustering" in say(config, at(hours=2), "ned_stark",
                                 "as lannister: muster 200 infantry")
    mustered = {(a.claim_id, a.infantry) for a in rows(config, Army)
                if a.state == ArmyState.MUSTERING}
    assert (stark.id, 100) in mustered and (lannister.id, 200) in mustered
    # a player of one claim is unaffected, and still may not act for another
    assert "is mustering" in say(config, at(hours=2), "tywin_lannister", "muster 50 infantry")
    assert "only moderators can act for another claim" in say(
        config, at(hours=2), "tywin_lannister", "as House Stark: status")
