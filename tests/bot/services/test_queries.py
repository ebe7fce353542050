"""The read-only queries behind ``maester status|claims|armies|log|outbox|export``: each sees
only its own campaign, on a real SQLite file holding two campaigns."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from sqlmodel import Session, select

from bot.db.engine import make_engine, transaction
from bot.db.models import Army, Campaign, Claim, Siege
from bot.maps import demo_map_text
from bot.services import queries
from bot.services.world import CampaignContext, all_claims, load_context
from tests.bot.services import scenario


def _second_campaign_with_a_siege(session: Session) -> int:
    """Another campaign in the same database, with one army besieging one holdfast."""
    other = Campaign(name="Elsewhere", secret="x", map_text=demo_map_text())
    session.add(other)
    session.flush()
    claim = Claim(campaign_id=other.id or 0, name="House Elsewhere", holdfast="1316")
    session.add(claim)
    session.flush()
    army = Army(campaign_id=other.id or 0, claim_id=claim.id or 0, tile="1316",
                state="besieging", infantry=10)
    session.add(army)
    session.flush()
    session.add(Siege(campaign_id=other.id or 0, army_id=army.id or 0,
                      besieger_claim=claim.id or 0, defender_claim=claim.id or 0,
                      holdfast="1316", started_tick=0))
    return other.id or 0


@pytest.fixture
def world(tmp_path: Path) -> tuple[str, CampaignContext]:
    url = f"sqlite:///{tmp_path / 'two.db'}"
    ctx = scenario.build(url)
    with transaction(make_engine(url)) as session:
        _second_campaign_with_a_siege(session)
    return url, ctx


def test_status_counts_only_its_own_campaigns_sieges(world: tuple[str, CampaignContext]
                                                     ) -> None:
    url, ctx = world
    now = scenario.START + timedelta(hours=13)
    with transaction(make_engine(url)) as session:
        report = queries.status(session, ctx, now)
        other = load_context(session, ctx.settings, ctx.campaign_id + 1)
        other_report = queries.status(session, other, now)
    assert report.sieges_active == 0 and other_report.sieges_active == 1
    assert report.name == "Scenario" and other_report.name == "Elsewhere"
    # START is 07:30; ticks at 12:00 and 18:00 fall before 20:30.
    assert report.ticks_due == 2 and report.next_tick_at == scenario.START.replace(
        hour=12, minute=0)


def test_claims_armies_and_export_see_one_campaign(world: tuple[str, CampaignContext]
                                                   ) -> None:
    url, ctx = world
    with transaction(make_engine(url)) as session:
        claims = queries.claims(session, ctx)
        armies = queries.army_rows(session, ctx)
        lannister = queries.army_rows(session, ctx, "lannister")
        exported = queries.export_world(session, ctx)
    assert "House Elsewhere" not in {c.name for c in claims}
    stark = next(c for c in claims if c.name == "House Stark")
    assert stark.armies == 1 and stark.players == ("ned_stark",)
    assert [a.claim for a in lannister] == ["House Lannister"]
    assert {a.claim for a in armies} >= {"House Stark", "House Lannister"}
    assert len(exported["armies"]) == len(armies) and exported["sieges"] == []
    assert sorted(c["name"] for c in exported["claims"]) == sorted(c.name for c in claims)


def test_log_and_outbox_read_newest_events_of_a_claim(world: tuple[str, CampaignContext]
                                                      ) -> None:
    url, ctx = world
    with transaction(make_engine(url)) as session:
        stark = queries.events(session, ctx, claim="House Stark", limit=100)
        last_two = queries.events(session, ctx, limit=2)
        everything = queries.events(session, ctx, limit=1000)
        pending = queries.outbox(session, ctx)
        stark_id = next(c.id for c in all_claims(session, ctx) if c.name == "House Stark")
        with pytest.raises(LookupError, match="no claim called 'House Nobody'"):
            queries.events(session, ctx, claim="House Nobody")
        with pytest.raises(LookupError):
            queries.army_rows(session, ctx, "House Nobody")
    assert stark and all(e.claim_id == stark_id for e in stark)
    assert [e.id for e in last_two] == [e.id for e in everything[-2:]]
    assert all(o.status == "pending" for o in pending)


def test_show_army_and_relations_see_one_campaign(world: tuple[str, CampaignContext]) -> None:
    url, ctx = world
    with transaction(make_engine(url)) as session:
        mine = queries.army_rows(session, ctx)
        detail = queries.army_detail(session, ctx, mine[0].id)
        theirs = max(a.id or 0 for a in session.exec(select(Army)).all())
        with pytest.raises(LookupError, match=f"no army {theirs}"):
            queries.army_detail(session, ctx, theirs)  # the other campaign's besieger
        relations = queries.relations(session, ctx)
        names = {c.name for c in queries.claims(session, ctx)}
    assert (detail.id, detail.claim, detail.tile, detail.infantry) == (
        mine[0].id, mine[0].claim, mine[0].tile, mine[0].infantry)
    assert all(b.resolve_at >= scenario.START for b in detail.battles)
    assert relations and all({r.claim_a, r.claim_b} <= names for r in relations)
    assert {r.status for r in relations} <= {"war", "allied", "neutral"}
