"""Monthly jobs through the tick: upkeep, scatter, regeneration (real SQLite file)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlmodel import select

from bot.db.engine import create_all, make_engine, transaction
from bot.db.models import Army, ArmyState, Claim, Outbox
from bot.maps import demo_map_text
from bot.services.messages import handle_message
from bot.services.setup import create_campaign
from bot.services.tick import catch_up
from tests.bot.services.scenario import settings_for

START = datetime(2026, 11, 22, 7, 30, tzinfo=UTC)


def _world(url: str, gold: str) -> tuple[object, object]:
    engine = make_engine(url)
    create_all(engine)
    roster = [{"name": "House Poor", "holdfast": "Winterfell", "players": ["poor_lord"],
               "gold": gold, "infantry": 10, "cavalry": 5}]
    with transaction(engine) as session:
        ctx = create_campaign(session, settings_for(url), map_text=demo_map_text(),
                              roster=roster, now=START, seed="m")
    return engine, ctx


def test_scatter_sends_home_half_of_all_raised_troops_rounded_down(db_url: str) -> None:
    """If gold does not cover upkeep, gold becomes 0 and the raised troops scatter: half of the
    claim's raised troops per type, rounded down, go home (two armies of 3 infantry send 3
    home, not 1 + 1), and they are locked until the year ends; the scatter is public."""
    engine, ctx = _world(db_url, gold="0.5")
    with transaction(engine) as session:
        handle_message(session, ctx, author="poor_lord",  # type: ignore[arg-type]
                       text="muster 3 infantry\nmuster 3 infantry 1 cavalry", now=START,
                       ref="m1")
    catch_up(engine, ctx, START + timedelta(days=1))  # type: ignore[arg-type]
    with transaction(engine) as session:
        claim = session.exec(select(Claim)).one()
        armies = session.exec(select(Army)).all()
        posts = session.exec(select(Outbox).where(Outbox.public == True)).all()  # noqa: E712
    assert claim.gold == 0
    assert all(a.state == ArmyState.GONE for a in armies)
    # 10 - 6 = 4 infantry stayed home; 3 of the 6 raised come back: 7.
    assert (claim.infantry, claim.cavalry) == (7, 4)
    assert (claim.scattered_infantry, claim.scattered_cavalry) == (3, 0)
    assert claim.scattered_until is not None and claim.scattered_until > START
    assert [p.title for p in posts] == ["[Scatter] The armies of House Poor scatter"]


def test_upkeep_is_paid_exactly_when_gold_covers_it(db_url: str) -> None:
    """7 infantry and 3 cavalry cost exactly 1.9 gold a month: with 1.9 gold nothing
    scatters and the gold is exactly 0 afterwards."""
    engine, ctx = _world(db_url, gold="1.9")
    with transaction(engine) as session:
        handle_message(session, ctx, author="poor_lord",  # type: ignore[arg-type]
                       text="muster 7 infantry 3 cavalry", now=START, ref="m1")
    catch_up(engine, ctx, START + timedelta(hours=18))  # type: ignore[arg-type]
    with transaction(engine) as session:
        claim = session.exec(select(Claim)).one()
        army = session.exec(select(Army)).one()
    assert claim.gold == 0 and army.state != ArmyState.GONE


def test_the_strongest_standing_army_on_a_resource_tile_holds_its_benefit(db_url: str) -> None:
    """A standing army on a resource tile gains its benefit: the holder is recorded and told
    privately; when it leaves, nobody holds the tile."""
    from bot.db.models import ResourceHolder

    engine, ctx = _world(db_url, gold="100")
    world = ctx.world  # type: ignore[attr-defined]
    wolfswood = next(t for t in world if t.resource and t.name == "The Wolfswood")
    with transaction(engine) as session:
        handle_message(session, ctx, author="poor_lord",  # type: ignore[arg-type]
                       text="muster 5 cavalry", now=START, ref="r1")
    catch_up(engine, ctx, START + timedelta(days=1, hours=6))  # type: ignore[arg-type]
    route = f"route army 1 to {wolfswood.id}"
    with transaction(engine) as session:
        reply = handle_message(session, ctx, author="poor_lord",  # type: ignore[arg-type]
                               text=route, now=START + timedelta(days=1, hours=6), ref="r2")
    order = reply.split("To march, send:")[1].strip().splitlines()[0].strip()
    with transaction(engine) as session:
        handle_message(session, ctx, author="poor_lord", text=order,  # type: ignore[arg-type]
                       now=START + timedelta(days=1, hours=6), ref="r3")
    catch_up(engine, ctx, START + timedelta(days=6))  # type: ignore[arg-type]
    with transaction(engine) as session:
        holder = session.exec(select(ResourceHolder)).one()
        claim = session.exec(select(Claim)).one()
        notes = [o for o in session.exec(select(Outbox)).all() if o.key.startswith("resource:")]
    assert (holder.tile, holder.claim_id) == (wolfswood.id, claim.id)
    assert notes and notes[0].public is False and "The Wolfswood" in notes[0].title


def _march_to(engine: object, ctx: object, who: str, army: int, tile: str, at: datetime,
              ref: str) -> str:
    with transaction(engine) as session:  # type: ignore[arg-type]
        reply = handle_message(session, ctx, author=who,  # type: ignore[arg-type]
                               text=f"route army {army} to {tile}", now=at, ref=ref + "r")
    order = reply.split("To march, send:")[1].strip().splitlines()[0].strip()
    with transaction(engine) as session:  # type: ignore[arg-type]
        return handle_message(session, ctx, author=who, text=order,  # type: ignore[arg-type]
                              now=at, ref=ref + "m")


def test_the_holder_may_cede_a_resource_tile_to_another_occupant(db_url: str) -> None:
    """Several claims on a resource tile: the strongest gets the benefit unless it lets
    another occupant take it (`cede TILE to CLAIM`); a claim not standing there cannot get it."""
    from bot.db.models import ResourceHolder

    url = db_url
    engine = make_engine(url)
    create_all(engine)
    roster = [{"name": "House Poor", "holdfast": "Winterfell", "players": ["poor_lord"],
               "gold": "100", "cavalry": 10},
              {"name": "House Friend", "holdfast": "Deepwood Motte", "players": ["friend"],
               "gold": "100", "cavalry": 10}]
    with transaction(engine) as session:
        ctx = create_campaign(session, settings_for(url), map_text=demo_map_text(),
                              roster=roster, now=START, seed="c")
    with transaction(engine) as session:
        handle_message(session, ctx, author="poor_lord", text="muster 6 cavalry", now=START,
                       ref="a")
        handle_message(session, ctx, author="friend", text="muster 3 cavalry", now=START,
                       ref="b")
    ready = START + timedelta(days=1, hours=6)
    catch_up(engine, ctx, ready)
    with transaction(engine) as session:
        early = handle_message(session, ctx, author="poor_lord",
                               text="cede The Wolfswood to House Friend", now=ready, ref="c0")
    assert "do not hold" in early
    _march_to(engine, ctx, "poor_lord", 1, "The Wolfswood", ready, "p")
    _march_to(engine, ctx, "friend", 2, "The Wolfswood", ready, "f")
    later = START + timedelta(days=5)
    catch_up(engine, ctx, later)
    with transaction(engine) as session:
        poor, friend = sorted(session.exec(select(Claim)).all(), key=lambda c: c.id or 0)
        assert session.exec(select(ResourceHolder)).one().claim_id == poor.id
        reply = handle_message(session, ctx, author="poor_lord",
                               text="cede The Wolfswood to House Friend", now=later, ref="c1")
    assert "receives the benefit of The Wolfswood" in reply
    catch_up(engine, ctx, later + timedelta(hours=6))
    with transaction(engine) as session:
        holder = session.exec(select(ResourceHolder)).one()
    assert (holder.claim_id, holder.ceded_to) == (friend.id, friend.id)
