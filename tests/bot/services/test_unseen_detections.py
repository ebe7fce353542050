"""A detection that saw nothing tells the watcher nothing (hidden information): the same
campaign played on a real SQLite database twice through the tick service, once with an army
slipping unseen past Riverrun and once without it, gives House Tully the same private notes,
byte for byte (the key note revealing its dice branch at the end of the period included), and
the same war room. The detection that did see an army is in its key note and verifies, with
the stand-alone verifier and with `maester verify`'s check."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import col, select

from bot.db.engine import make_engine, transaction
from bot.db.models import Army, Campaign, Claim, Event, Outbox
from bot.services import fairplay
from bot.services.tick import catch_up
from bot.services.world import load_context
from bot.web.data import war_room
from rules.campaign.paths import entry_cost
from rules.campaign.world import ArmyKind, ArmyState
from tests.bot.services import scenario

VERIFIER = Path(__file__).resolve().parents[3] / "docs" / "verify_dice.py"
KEY = re.compile(r"Your private dice key for period (\d+) \(claim:\d+\): `([0-9a-f]{64})`")
RIVERRUN = "0831"
SEEN = {"claim": "House Stark", "tile": "0632", "path": ["0731", "0632"], "infantry": 120,
        "order": "t1_seen2"}
"""Enters 0731, next to Riverrun, on its first step: Riverrun rolls and sees it."""
UNSEEN = {"claim": "House Blackwood", "tile": "0733", "path": ["0832", *["0733", "0734"] * 12],
          "infantry": 20, "order": "t1_unseen6"}
"""Enters 0832, next to Riverrun, on its first step: Riverrun rolls and sees nothing. Its
claim comes after Stark's, so it steps after the seen army (whose roll's rank it leaves be).
It is still marching to and fro out of sight when the play ends (an army that arrives is
announced to all)."""
TICKS = 10
"""Enough ticks for the detections' dice period to end and be revealed."""


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A new demo campaign (no armies yet), copied for every play."""
    path = Path(tmp_path_factory.mktemp("unseen")) / "template.db"
    scenario.new_demo_campaign(f"sqlite:///{path}", "unseen-secret")
    return path


def _play(template: Path, where: Path, armies: list[dict[str, Any]]) -> dict[str, Any]:
    """Play the campaign with ``armies`` marching for :data:`TICKS` ticks: what House Tully
    was sent (title, body, in order), its war room, the detections rolled (the journal) and
    the outbox rows."""
    shutil.copy(template, where)
    url = f"sqlite:///{where}"
    engine = make_engine(url)
    with transaction(engine) as session:
        ctx = load_context(session, scenario.settings_for(url))
        last = session.exec(select(Campaign)).one().last_tick
        claims = {c.name: c.id or 0 for c in session.exec(select(Claim)).all()}
        for army in armies:
            path = army["path"]
            session.add(Army(
                campaign_id=ctx.campaign_id, claim_id=claims[army["claim"]], kind=ArmyKind.LAND,
                state=ArmyState.MARCHING, tile=army["tile"], infantry=army["infantry"],
                cavalry=0, depart_tick=last - 1, path_json=path,
                costs_json=[entry_cost(ctx.world.tile(t), ArmyKind.LAND, ctx.rules) or 1
                            for t in path],
                meta_json={"order": army["order"]}))
    catch_up(engine, ctx, ctx.tick_at(last + TICKS))
    tully = claims["House Tully"]
    with transaction(engine) as session:
        notes = [(r.title, r.body) for r in session.exec(
            select(Outbox).where(Outbox.claim_id == tully).order_by(col(Outbox.id))).all()]
        room = war_room(session, ctx, tully).data
        detections = [e.data_json for e in session.exec(
            select(Event).where(Event.kind == "detection", Event.claim_id == tully)
            .order_by(col(Event.id))).all()]
        lines = [fairplay.lines_in(body) for _, body in notes]
        checked = [fairplay.check_lines(session, ctx, found, secret_hex=KEY.search(body)[2])
                   for (_, body), found in zip(notes, lines, strict=True)
                   if found and KEY.search(body)]
    engine.dispose()
    return {"notes": notes, "room": room, "detections": detections, "checked": checked}


def test_an_army_passing_unseen_changes_nothing_the_watcher_is_told(
        template: Path, tmp_path: Path) -> None:
    alone = _play(template, tmp_path / "alone.db", [SEEN])
    passed = _play(template, tmp_path / "passed.db", [SEEN, UNSEEN])
    # the worlds are as meant: Riverrun saw the one army (rolling a die for it) and, in the
    # second world, also rolled for the other and saw nothing
    seen = [d for d in alone["detections"] if d["observer"] == RIVERRUN]
    assert [(d["detected"], d["roll"] is not None) for d in seen] == [(True, True)]
    rolled = [d for d in passed["detections"] if d["observer"] == RIVERRUN]
    assert sorted(d["detected"] for d in rolled) == [False, True]
    missed = next(d for d in rolled if not d["detected"])
    # the key note came and lists the seen army's roll, never the one that saw nothing
    keyed = [body for _, body in passed["notes"] if KEY.search(body)]
    assert keyed and str(seen[0]["dice"]) in keyed[0]
    assert str(missed["dice"]) not in "".join(body for _, body in passed["notes"])
    assert "t1_unseen6" not in repr(passed["notes"]) + repr(passed["room"])
    # byte for byte the same notes, and the same war room (dice panel included)
    assert passed["notes"] == alone["notes"]
    assert passed["room"] == alone["room"]
    assert [line["line"] for r in passed["room"]["dice"]["revealed"]
            for line in r["lines"]] == [seen[0]["dice"]]
    # the seen army's line verifies with the revealed key: `maester verify`'s check...
    [(report, fair)] = passed["checked"]
    assert fair and report[0].startswith("OK") and "| detect:83" in report[0], report
    # ... and the players' stand-alone verifier, given the key note as it came
    period, key = KEY.search(keyed[0]).groups()  # type: ignore[union-attr]
    done = subprocess.run([sys.executable, str(VERIFIER), "--key", key], input=keyed[0],
                          capture_output=True, text=True, check=False, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"period {period}" in keyed[0] and "detect:" in done.stdout and "FAIL" not in done.stdout
