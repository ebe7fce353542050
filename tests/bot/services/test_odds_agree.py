"""The `odds` order and the battle agree by construction: over random armies, terrains and
modifiers, the strengths the odds order shows are the strengths the tick then fights with."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlmodel import col, select

from bot.db.engine import transaction
from bot.db.models import Army, Campaign, Character, Claim, Event, PendingBattle
from bot.services.catalogue import read_catalogue_file, store_catalogue
from bot.services.messages import handle_message
from bot.services.tick import catch_up
from bot.services.world import CampaignContext
from rules.campaign.config import Terrain
from rules.campaign.world import ArmyKind, ArmyState
from tests.bot.services import scenario

SHOWN = re.compile(r"strength ([\d.]+)(?: \([^)]*\))? against ([\d.]+)")
SKILLS = (None, "Blackfish", "Shieldwall")


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, CampaignContext]]:
    url = f"sqlite:///{Path(tmp_path_factory.mktemp('odds')) / 'w.db'}"
    scenario.build(url)
    engine, ctx = scenario.context(url)
    with transaction(engine) as session:
        store_catalogue(session, ctx, read_catalogue_file("demo"), by="mod_jane",
                        now=scenario.START, source="demo")
    yield engine, ctx
    engine.dispose()


def _open_tiles(ctx: CampaignContext) -> dict[Terrain, list[str]]:
    """Land tiles that are no holdfast and no resource tile, by terrain."""
    found: dict[Terrain, list[str]] = {}
    for tile in ctx.world:
        if tile.is_land and not tile.holdfast and not tile.resource:
            found.setdefault(tile.terrain, []).append(tile.id)
    return found


@settings(max_examples=12, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(terrain=st.sampled_from([Terrain.FIELD, Terrain.FOREST, Terrain.HILL,
                                Terrain.MOUNTAIN, Terrain.SWAMP]),
       pick=st.integers(0, 10_000),
       attacker=st.tuples(st.integers(1, 600), st.integers(0, 200)),
       defender=st.tuples(st.integers(1, 600), st.integers(0, 200)),
       held_for=st.integers(0, 3),
       skills=st.tuples(st.sampled_from(SKILLS), st.sampled_from(SKILLS)))
def test_odds_order_shows_the_strengths_the_battle_counts(
        world: tuple[Any, CampaignContext], terrain: Terrain, pick: int,
        attacker: tuple[int, int], defender: tuple[int, int], held_for: int,
        skills: tuple[str | None, str | None]) -> None:
    """Both armies stand on the tile (the attacker too: it never gets the defender bonus);
    skills with the armies count for both; the battle event records what was fought with."""
    engine, ctx = world
    with transaction(engine) as session:
        last = session.exec(select(Campaign)).one().last_tick
        occupied = {a.tile for a in session.exec(select(Army)).all()}
        tiles = [t for t in _open_tiles(ctx).get(terrain, []) if t not in occupied]
        if not tiles:
            return
        tile = tiles[pick % len(tiles)]
        claims = {c.name: c.id for c in session.exec(select(Claim)).all()}
        rows = []
        for claim, (inf, cav) in (("House Stark", attacker), ("House Lannister", defender)):
            row = Army(campaign_id=ctx.campaign_id, claim_id=claims[claim] or 0,
                       kind=ArmyKind.LAND, state=ArmyState.STANDING, tile=tile, infantry=inf,
                       cavalry=cav, stationary_since=last - held_for,
                       arrival_tick=last - held_for)
            session.add(row)
            rows.append(row)
        session.flush()
        for character in session.exec(select(Character)).all():
            character.army_id = None
            session.add(character)
        for claim, row, skill in (("House Stark", rows[0], skills[0]),
                                  ("House Lannister", rows[1], skills[1])):
            if skill is None:
                continue
            character = session.exec(select(Character).where(
                Character.claim_id == claims[claim]).order_by(col(Character.id))).first()
            assert character is not None
            character.army_id, character.skills_json = row.id, [skill]
            session.add(character)
        ids = (rows[0].id or 0, rows[1].id or 0)
    now = ctx.tick_at(last) + timedelta(hours=1)

    def say(text: str) -> str:
        with transaction(engine) as session:
            return handle_message(session, ctx, author="mod_jane", text=f"as House Stark: {text}",
                                  now=now, ref=f"{ids[0]}:{text}")

    reply = say(f"odds army {ids[0]} vs army {ids[1]}")
    shown = SHOWN.search(reply)
    assert shown is not None, reply
    assert f"army {ids[0]} is the attacker" in reply
    assert "will attack" in say(f"attack army {ids[1]} with army {ids[0]}")
    with transaction(engine) as session:
        battle = session.exec(select(PendingBattle).where(
            PendingBattle.attacker_army == ids[0])).one()
        due = battle.resolve_tick
    catch_up(engine, ctx, ctx.tick_at(due))
    with transaction(engine) as session:
        fought = [e for e in session.exec(select(Event).where(Event.kind == "battle")).all()
                  if e.data_json.get("battle") == battle.id]
        for row_id in ids:  # out of the way of the next example
            row = session.get(Army, row_id)
            assert row is not None
            row.state = ArmyState.GONE
            session.add(row)
    assert len(fought) == 1
    counted = [Decimal(v) for v in fought[0].data_json["strengths"]]
    assert [Decimal(shown.group(1)), Decimal(shown.group(2))] == counted
