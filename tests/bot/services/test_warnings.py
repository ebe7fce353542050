"""Warnings before losses, through the order language and the ticks: they reach the claim's
players privately, and no public post carries them."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

from bot.db.models import Outbox
from bot.services import forewarn
from bot.services.world import get_campaign
from rules.campaign.config import Season
from tests.bot.catalogue_world import START, World, roster


def day(n: int, hour: int = 0) -> datetime:
    return START.replace(hour=0, minute=0) + timedelta(days=n - 1, hours=hour)


def _private(w: World, who: str, subject: str) -> list[Outbox]:
    return [o for o in w.outbox(public=False) if o.target == who and subject in o.title]


def _nothing_public_about(w: World, *texts: str) -> None:
    for post in w.outbox(public=True):
        for text in texts:
            assert text not in post.title and text not in post.body, (post.title, text)


def test_next_months_shortfall_is_foretold_then_the_scatter_is_told(tmp_path: Path) -> None:
    """2 gold pays one month of 7 infantry and 3 cavalry (1.9) but not the next: after the
    first upkeep the claim is warned of the 1.8 shortfall and what would scatter; at the next
    it is told what came home, what was lost and until when."""
    w = World(tmp_path, claims=roster("stark", stark={"gold": "2"}))
    receipt = w.say("ned_stark", "muster 7 infantry 3 cavalry")
    assert "too little gold" not in receipt  # the first upkeep is covered
    w.run(day(2, 6))
    [warning] = _private(w, "ned_stark", "will scatter")
    assert warning.title.startswith("Warning: your armies will scatter in Month ")
    assert "1.9 gold" in warning.body and "**1.8 gold short**" in warning.body
    assert "3 infantry, 1 cavalry come home" in warning.body
    assert "4 infantry, 2 cavalry are lost for good" in warning.body
    assert f"charged {w.ctx.when(day(3))}" in warning.body
    assert not _private(w, "ned_stark", "scattered")
    w.run(day(3, 6))
    [note] = _private(w, "ned_stark", "scattered")
    claim = w.claim("House Stark")
    assert claim.scattered_until is not None
    assert "did not cover the upkeep of 1.9 gold" in note.body
    assert "- Came home: 3 infantry, 1 cavalry" in note.body
    assert "- Lost for good: 4 infantry, 2 cavalry" in note.body
    assert f"cannot be raised again until {w.ctx.when(claim.scattered_until)}" in note.body
    assert len(_private(w, "ned_stark", "will scatter")) == 1  # no second warning after it
    _nothing_public_about(w, "gold short", "Came home", "Lost for good", "1.8")


def test_no_warning_while_the_gold_lasts(tmp_path: Path) -> None:
    w = World(tmp_path, claims=roster("stark", stark={"gold": "100"}))
    w.say("ned_stark", "muster 7 infantry 3 cavalry")
    w.run(day(4, 6))
    assert not _private(w, "ned_stark", "scatter")
    assert len(_private(w, "ned_stark", "Upkeep for")) == 3


def test_a_muster_receipt_warns_when_the_first_upkeep_is_not_covered(tmp_path: Path) -> None:
    """The first upkeep counts every raised troop, the new army's and the others'."""
    w = World(tmp_path, claims=roster("stark", stark={"gold": "2.5"}))
    assert "too little gold" not in w.say("ned_stark", "muster 7 infantry 3 cavalry")
    receipt = w.say("ned_stark", "muster 10 infantry")
    assert "**Warning: too little gold for the first upkeep**" in receipt
    assert "will be 2.9 gold; you have 2.5 gold, **0.4 gold short**" in receipt
    assert "8 infantry, 1 cavalry come home" in receipt
    assert f"charged {w.ctx.when(day(2))}" in receipt


def test_winter_warns_each_claim_with_raised_troops_privately(tmp_path: Path) -> None:
    w = World(tmp_path, claims=roster("stark", "lannister", stark={"gold": "3"}))
    w.say("ned_stark", "muster 7 infantry 3 cavalry")
    with w.session() as session:
        campaign = get_campaign(session, w.ctx)
        before = Season(campaign.season)
        campaign.season = Season.WINTER.value
        told = forewarn.winter_begins(session, w.ctx, before, Season.WINTER, at=w.now,
                                      tick=w.ctx.tick_of(w.now))
    assert told == 1  # Lannister raised nothing: nothing costs it more
    [note] = _private(w, "ned_stark", "Winter has begun")
    assert "now cost 3.8 gold a month instead of 1.9" in note.body
    assert "**0.8 gold short**" in note.body
    assert not _private(w, "tywin_lannister", "Winter")
    _nothing_public_about(w, "gold short", "Winter has begun")


def test_the_claim_attacked_is_told_privately_that_war_is_declared(tmp_path: Path) -> None:
    w = World(tmp_path, claims=roster("stark", "lannister"), wars=[])
    w.say("ned_stark", "muster 300 infantry")
    w.say("tywin_lannister", "muster 300 infantry")
    w.run(day(2, 12))
    w.place(1, "1316")
    w.place(2, "1316")
    assert "will attack army 1" in w.say("tywin_lannister", "attack army 1 with army 2",
                                         at=day(2, 13))
    [note] = _private(w, "ned_stark", "is at war with you")
    assert note.title == "House Lannister is at war with you" and note.kind == "message"
    assert not _private(w, "tywin_lannister", "is at war with you")  # it knows already
    _nothing_public_about(w, "is at war with you")
    # a second attack between the same claims declares nothing new
    w.say("tywin_lannister", "attack army 1 with army 2", at=day(2, 14))
    assert len(_private(w, "ned_stark", "is at war with you")) == 1


def test_spending_gold_below_the_next_upkeep_is_warned_in_the_receipt(tmp_path: Path) -> None:
    """200 gold, 1000 infantry raised (100 a month): Trebuchets for 150 leave 50, too little
    for the next upkeep; the receipt says so (the purchase still stands)."""
    w = World(tmp_path, claims=roster("stark", stark={"gold": "200"}))
    assert "too little gold" not in w.say("ned_stark", "muster 1000 infantry")
    receipt = w.say("ned_stark", "buy Trebuchets for army 1")
    assert "now carries **Trebuchets**" in receipt
    assert "**Warning: too little gold left for the next upkeep**" in receipt
    assert "will be 100 gold; you have 50 gold, **50 gold short**" in receipt
    (tmp_path / "rich").mkdir()
    rich = World(tmp_path / "rich", claims=roster("stark"))
    rich.say("ned_stark", "muster 1000 infantry")
    assert "Warning" not in rich.say("ned_stark", "buy Trebuchets for army 1")


def test_status_repeats_the_warning_while_it_holds(tmp_path: Path) -> None:
    w = World(tmp_path, claims=roster("stark", stark={"gold": "1"}))
    w.say("ned_stark", "muster 7 infantry 3 cavalry")
    status = w.say("ned_stark", "status")
    assert "- Upkeep of raised troops: 1.9 gold" in status and "**0.9 gold short**" in status
    w.say("ned_stark", "cancel army 1")
    assert "Warning" not in w.say("ned_stark", "status")
