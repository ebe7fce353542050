"""Nothing hidden reaches the realm, and a war room holds nothing of another claim.

Property tests over generated worlds: the web test campaign copied twice, one copy given
hidden facts (an undetected army on the march, a changed secret defence bonus, a private
detection, another claim's orders and their receipts, private news). The realm's HTML, JSON
and SVG must be byte-identical for the two copies, and so must the war room of every claim
the hidden facts do not belong to.
"""

from __future__ import annotations

import dataclasses
import shutil
import tempfile
from decimal import Decimal
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlmodel import Session, select

from bot.db.engine import make_engine, make_reader_engine, transaction
from bot.db.models import (
    Army,
    ArmyKind,
    ArmyState,
    Campaign,
    Claim,
    Event,
    InboxMessage,
    Outbox,
    Player,
)
from bot.services.world import load_context
from bot.web import data, pages
from rules.campaign.config import Terrain
from rules.campaign.worldmap import format_map, parse_map
from tests.bot.services import scenario
from tests.bot.web.world import _template, url_of


@dataclasses.dataclass(frozen=True)
class Hidden:
    """Hidden facts of one claim (by its index in the roster)."""

    claim: int
    army: tuple[int, int, int] | None  # tile index, infantry, cavalry of a secret march
    bonus: Decimal | None  # a new secret defence bonus of the claim's seat
    detection: int | None  # an army id the claim privately sighted
    order: str | None  # an order the claim's player sent (and its receipt)
    news: str | None  # a private note to the claim


hidden_facts = st.builds(
    Hidden,
    claim=st.integers(0, 13),
    army=st.none() | st.tuples(st.integers(0, 5000), st.integers(1, 9000),
                               st.integers(0, 3000)),
    bonus=st.none() | st.sampled_from([Decimal("1"), Decimal("1.5"), Decimal("2.9"),
                                       Decimal("3")]),
    detection=st.none() | st.integers(1, 4),
    order=st.none() | st.text(min_size=1, max_size=40),
    news=st.none() | st.text(min_size=1, max_size=40),
)


def _apply(url: str, facts: Hidden) -> str:
    """Give the world ``facts``; returns the claim's name."""
    engine = make_engine(url)
    with transaction(engine) as session:
        claims = session.exec(select(Claim).order_by(Claim.id)).all()  # type: ignore[arg-type]
        claim = claims[facts.claim]
        campaign = session.exec(select(Campaign)).one()
        world = parse_map(campaign.map_text)
        tick = campaign.last_tick
        if facts.army is not None:
            land = [t for t in world.tiles.values()
                    if t.terrain not in (Terrain.WATER, Terrain.IMPASSABLE) and not t.holdfast]
            tile = land[facts.army[0] % len(land)]
            ahead = [n for n in world.neighbours(tile.id)
                     if world.tiles[n].terrain not in (Terrain.WATER, Terrain.IMPASSABLE)]
            session.add(Army(campaign_id=campaign.id, claim_id=claim.id, kind=ArmyKind.LAND,
                             state=ArmyState.MARCHING, tile=tile.id, infantry=facts.army[1],
                             cavalry=facts.army[2], path_json=ahead[:2], costs_json=[1, 1][
                                 :len(ahead[:2])], depart_tick=tick - 1,
                             arrival_tick=tick + 3))
        if facts.bonus is not None:
            seat = world.tiles[claim.holdfast]
            tiles = dict(world.tiles)
            tiles[seat.id] = dataclasses.replace(seat, defense_bonus=facts.bonus)
            campaign.map_text = format_map(dataclasses.replace(world, tiles=tiles))
            session.add(campaign)
        if facts.detection is not None:
            session.add(Event(campaign_id=campaign.id, tick=tick, kind="detection",
                              claim_id=claim.id, public=False, summary="a private sighting",
                              data_json={"army": facts.detection, "detected": True,
                                         "at": claim.holdfast}))
        player = session.exec(select(Player).where(Player.claim_id == claim.id)).first()
        if facts.order is not None and player is not None:
            session.add(InboxMessage(campaign_id=campaign.id, message_id="hidden1",
                                     conversation_id="hiddenconv", author=player.reddit_name,
                                     outcome="orders"))
            session.add(Outbox(campaign_id=campaign.id, key="hidden-reply", kind="reply",
                               target="hiddenconv", body=f"> {facts.order}\n\nreceipt",
                               tick=tick))
        if facts.news is not None:
            session.add(Outbox(campaign_id=campaign.id, key="hidden-news", kind="message",
                               target=player.reddit_name if player else "x",
                               claim_id=claim.id, title="secret", body=facts.news, tick=tick))
        name = claim.name
    engine.dispose()
    return name


def _render(url: str) -> dict[str, str]:
    """The realm's HTML, JSON and SVG, and each claim's war room (HTML and JSON)."""
    engine = make_reader_engine(url)
    out: dict[str, str] = {}
    with Session(engine) as session, session.begin():
        ctx = load_context(session, scenario.settings_for(url))
        realm = data.realm(session, ctx)
        out["realm.html"] = pages.html(realm)
        out["realm.json"] = pages.json_text(realm)
        out["realm.svg"] = pages.map_svg(realm)
        for claim in session.exec(select(Claim)).all():
            room = data.war_room(session, ctx, claim.id or 0)
            out[f"{claim.name}.html"] = pages.html(room)
            out[f"{claim.name}.json"] = pages.json_text(room)
    engine.dispose()
    return out


_BASE: dict[str, dict[str, str]] = {}


def _base() -> dict[str, str]:
    if "after" not in _BASE:
        _BASE["after"] = _render(url_of(_template("after")))
    return _BASE["after"]


@settings(max_examples=12, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(facts=hidden_facts)
def test_hidden_facts_change_nothing_public_nor_another_claims_room(facts: Hidden) -> None:
    base = _base()
    folder = Path(tempfile.mkdtemp(prefix="maester-hidden-"))
    try:
        path = folder / "world.db"
        shutil.copyfile(_template("after"), path)
        owner = _apply(url_of(path), facts)
        other = _render(url_of(path))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    for key in ("realm.html", "realm.json", "realm.svg"):
        assert other[key] == base[key], f"{key} shows a hidden fact of {owner}: {facts}"
    for key, text in base.items():
        if key.startswith("realm.") or key.startswith(f"{owner}."):
            continue
        assert other[key] == text, f"{key} shows a hidden fact of {owner}: {facts}"


def test_the_hidden_facts_do_reach_their_own_claim(tmp_path: Path) -> None:
    """The property above is not empty: the claim's own war room does show its facts."""
    path = tmp_path / "world.db"
    shutil.copyfile(_template("after"), path)
    facts = Hidden(claim=0, army=(7, 1234, 56), bonus=Decimal("2.9"), detection=1,
                   order="muster 5 infantry", news="only for you")
    owner = _apply(url_of(path), facts)
    other = _render(url_of(path))
    room = other[f"{owner}.json"]
    assert "1234" in room and "2.9" in room and "only for you" in room
    assert "muster 5 infantry" in room
    assert other["realm.json"] == _base()["realm.json"]


def test_the_moderators_preview_reaches_no_realm_nor_another_claims_room(
        tmp_path: Path) -> None:
    """The moderators' room's preview of the next tick (issue 26) holds hidden facts: each
    claim's private notes and the tick's private journal lines. On the eve of the battle at
    Riverrun none of them is in the realm's HTML, JSON or SVG, and a claim's note is in no
    other claim's war room (the preview writes nothing, so no other page can show it)."""
    from tests.bot.web.world import campaign, to_eve_of_battle

    url, _ = campaign(tmp_path, "before")
    to_eve_of_battle(url)
    engine = make_reader_engine(url)
    with Session(engine) as session:
        ctx = load_context(session, scenario.settings_for(url))
        preview = data.next_tick(session, ctx)
    engine.dispose()
    notes = [(n["claim"], n["title"]) for n in preview["notes"]]
    private = [e["summary"] for part in ("battles", "arrivals", "musters", "everything")
               for e in preview[part] if not e["public"]]
    assert notes and preview["battles"]  # the eve of a battle: there is something to hide
    pages_now = _render(url)
    for key, text in pages_now.items():
        assert not [line for line in private if line in text], key
        assert not [title for claim, title in notes
                    if title in text and not key.startswith(f"{claim}.")], key
        assert '"preview"' not in text, key
