"""The moderators' rulings as services (what ``maester season set``, ``relations set`` and
``adjust`` call): each changes the world in the caller's transaction and logs it; a change that
would leave a claim with negative holdings is refused and changes nothing. Real SQLite file."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from pathlib import Path

import pytest
from sqlmodel import select

from bot.db.engine import make_engine, transaction
from bot.db.models import Campaign, Claim, Event, Outbox
from bot.services.moderation import Holdings, adjust_claim, set_relations, set_season
from bot.services.world import NotFound, claim_by_name, find_character
from rules.campaign.config import Season
from rules.campaign.world import RelationStatus
from rules.errors import InvalidInput
from tests.bot.services import scenario

NOW = scenario.START + timedelta(hours=4)


def test_season_relations_and_adjust_change_the_world_and_log_it(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'mod.db'}"
    ctx = scenario.build(url)
    engine = make_engine(url)
    try:
        with transaction(engine) as session:
            before, told = set_season(session, ctx, Season.WINTER, actor="jane", now=NOW)
            assert before is Season.SUMMER and told >= 1  # the scenario has raised armies
            reed, frey = claim_by_name(session, ctx, "House Reed"), \
                claim_by_name(session, ctx, "House Frey")
            assert reed is not None and frey is not None
            was = set_relations(session, ctx, reed, frey, RelationStatus.WAR, actor="jane",
                                now=NOW)
            assert was is RelationStatus.NEUTRAL
            stark = claim_by_name(session, ctx, "House Stark")
            assert stark is not None
            gold, infantry = stark.gold, stark.infantry
            after = adjust_claim(session, ctx, stark, Holdings(Decimal("-10.5"), -5, 0, 0),
                                 reason="a ruling", actor="jane", now=NOW)
            assert after == Holdings(gold - Decimal("10.5"), infantry - 5, stark.cavalry,
                                     stark.ships)
        with transaction(engine) as session:
            campaign = session.get(Campaign, ctx.campaign_id)
            assert campaign is not None and campaign.season is Season.WINTER
            kinds = [e.kind for e in session.exec(select(Event).where(Event.actor == "jane"))]
            assert kinds == ["season", "relation", "adjust"]
            keys = [o.key for o in session.exec(select(Outbox))]
            assert any(k.startswith("winter:") for k in keys)
            assert sum(k.startswith("war:") for k in keys) == 2  # both claims are told
            stored = session.exec(select(Claim).where(Claim.name == "House Stark")).one()
            assert (stored.gold, stored.infantry) == (gold - Decimal("10.5"), infantry - 5)
    finally:
        engine.dispose()


def test_an_adjustment_below_zero_is_refused_and_changes_nothing(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'mod.db'}"
    ctx = scenario.build(url)
    engine = make_engine(url)
    try:
        with transaction(engine) as session:
            stark = claim_by_name(session, ctx, "House Stark")
            assert stark is not None
            held = Holdings(stark.gold, stark.infantry, stark.cavalry, stark.ships)
            with pytest.raises(InvalidInput, match="infantry"):
                adjust_claim(session, ctx, stark, Holdings(Decimal(0), -held.infantry - 1, 0, 0),
                             reason="", actor="jane", now=NOW)
            assert Holdings(stark.gold, stark.infantry, stark.cavalry, stark.ships) == held
            assert session.exec(select(Event).where(Event.kind == "adjust")).first() is None
    finally:
        engine.dispose()


def test_a_character_is_found_by_name_in_any_case_and_within_its_claim(tmp_path: Path) -> None:
    """The one lookup the moderators' commands use (fates and skills alike)."""
    url = f"sqlite:///{tmp_path / 'mod.db'}"
    ctx = scenario.build(url)
    engine = make_engine(url)
    try:
        with transaction(engine) as session:
            ned = find_character(session, ctx, "  eddard   STARK ")
            assert ned.name == "Eddard Stark"
            assert find_character(session, ctx, "Eddard Stark", "stark").id == ned.id
            with pytest.raises(NotFound) as elsewhere:
                find_character(session, ctx, "Eddard Stark", "House Lannister")
            assert str(elsewhere.value).startswith(
                "no character called 'Eddard Stark' in House Lannister; characters: "
                "Tywin Lannister, Jaime Lannister")
            with pytest.raises(NotFound, match="no claim called 'House Nobody'"):
                find_character(session, ctx, "Eddard Stark", "House Nobody")
    finally:
        engine.dispose()


def test_every_moderator_change_keeps_a_snapshot_first(tmp_path: Path) -> None:
    """Snapshot-taking is part of each moderator service (one unit of work), so no caller
    can forget it: each change is listed, labelled as the moderator's command, and taking the
    newest back restores the world before that change."""
    from bot.services import snapshots

    url = f"sqlite:///{tmp_path / 'snap.db'}"
    ctx = scenario.build(url)
    engine = make_engine(url)
    try:
        with transaction(engine) as session:
            stark = claim_by_name(session, ctx, "House Stark")
            assert stark is not None
            gold = stark.gold
            set_season(session, ctx, Season.WINTER, actor="jane", now=NOW)
            adjust_claim(session, ctx, stark, Holdings(Decimal(-1), 0, 0, 0), reason="fine",
                         actor="jane", now=NOW)
        with transaction(engine) as session:
            kept = snapshots.listing(session, ctx)
            assert [(s.kind, s.label, s.actor) for s in kept] == [
                ("command", "season set winter", "jane"),
                ("command", "adjust House Stark", "jane")]
            plan = snapshots.plan(session, ctx, snapshots.newest(session, ctx), NOW)
            snapshots.restore(session, ctx, plan, actor="jane", now=NOW)
        with transaction(engine) as session:
            stark = claim_by_name(session, ctx, "House Stark")
            campaign = session.get(Campaign, ctx.campaign_id)
            assert stark is not None and stark.gold == gold
            assert campaign is not None and campaign.season is Season.WINTER
    finally:
        engine.dispose()
