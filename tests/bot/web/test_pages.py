"""The web pages over HTTP (Starlette's test client, a real SQLite campaign database opened
read-only): what each page shows, the links, the JSON, and the rules that hold (escaping,
CSP, the same 404 for wrong links, rate limiting, no traceback, nothing written)."""

from __future__ import annotations

import hashlib
import json
import re
import time
from pathlib import Path

import pytest
from sqlmodel import Session, select
from starlette.testclient import TestClient

from bot.db.engine import make_engine, make_reader_engine, transaction
from bot.db.models import Army, Claim
from bot.mapimage.scene import FADED
from bot.services import weblinks
from bot.web.app import CSP, create_app
from bot.web.notes import note_html
from tests.bot.services import scenario
from tests.bot.web.world import LANNISTER, STARK, TULLY, campaign, to_eve_of_battle

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def _links(url: str, ctx: object, *, renew: bool = False) -> dict[str, str]:
    engine = make_engine(url)
    with transaction(engine) as session:
        found = weblinks.links(session, ctx, scenario.START, renew=renew)  # type: ignore[arg-type]
    engine.dispose()
    return {link.name or "mod": link.path for link in found}


@pytest.fixture
def site(tmp_path: Path) -> tuple[TestClient, str, dict[str, str]]:
    url, ctx = campaign(tmp_path)
    links = _links(url, ctx)
    app = create_app(make_reader_engine(url), scenario.settings_for(url))
    return TestClient(app, client=("203.0.113.9", 5000)), url, links


def test_realm_shows_the_public_world(site: tuple[TestClient, str, dict[str, str]]) -> None:
    client, _, _ = site
    page = client.get("/")
    assert page.status_code == 200
    text = page.text
    assert "<svg" in text and "Riverrun" in text
    assert "House Lannister vs House Tully at Riverrun" in text  # the timeline's battle
    assert "/comments/abc12" in text  # the posts link to Reddit
    assert 'id="next-tick" datetime="' in text
    data = client.get("/api/realm").json()
    assert data["view"] == "realm"
    assert {c["name"] for c in data["claims"]} >= {STARK, TULLY, LANNISTER}
    assert any(e["kind"] == "battle" for e in data["timeline"])
    assert data["dice"]["revealed"] and data["dice"]["committed"]
    kinds = {k for a in data["map"]["situation"]["armies"] for k in a if a[k]}
    assert "infantry" not in kinds and "path" not in kinds  # no numbers or plans in public
    assert client.get("/map.svg").headers["content-type"].startswith("image/svg+xml")


def test_a_war_room_shows_its_claim_and_its_sighting(
        site: tuple[TestClient, str, dict[str, str]]) -> None:
    client, _, links = site
    data = client.get("/api" + links[TULLY]).json()
    assert data["claim"]["name"] == TULLY
    assert data["claim"]["defense_bonus"]
    seen = data["sightings"]
    assert seen and seen[0]["claim"] == LANNISTER and not seen[0]["current"]
    where = [a for a in data["map"]["situation"]["armies"]
             if a["claim"] == LANNISTER and a["tile"] == seen[0]["tile"]]
    assert where and where[0]["last_seen"] == seen[0]["tick"]  # drawn where it was seen
    assert seen[0]["in_view"]
    page = client.get(links[TULLY]).text
    assert "grey on the map: it may have moved on" in page
    assert re.search(r"seen \d+[hd] ago</text>", page)  # on the map, with its age
    assert client.get(links[TULLY]).headers["cache-control"] == "no-store"


def test_a_war_room_shows_its_news_as_text_not_markup(
        site: tuple[TestClient, str, dict[str, str]]) -> None:
    """Found by hand: a war room showed receipts and news as the bot's raw markdown (stars,
    backticks, ``\\>``). They are rendered: the dice key in a code span, no backtick left."""
    client, _, links = site
    page = client.get(links[TULLY]).text
    news = page[page.index('id="news"'):page.index("</section>", page.index('id="news"'))]
    assert "<code>" in news and "`" not in news and "**" not in news, news
    assert "[](#maester" not in news


def test_a_war_room_names_a_sallying_garrison_and_prints_gold_as_players_read_it(
        tmp_path: Path) -> None:
    """Found by hand: a war room listed a pending sally as "House Targaryen (army 0) attacks
    House Lannister (army 5)" and the claim's gold as "324.0"."""
    from bot.web.data import war_room
    from bot.web.pages import html
    from tests.bot.catalogue_world import World, roster
    from tests.bot.services.test_sides import day

    w = World(tmp_path, claims=roster("stark", "lannister",
                                      stark={"infantry": 250, "cavalry": 0, "gold": "900.50"}))
    w.say("tywin_lannister", "muster 400 infantry")
    w.run(day(2, 12))
    w.place(1, "Winterfell")
    w.say("tywin_lannister", "siege Winterfell with army 1", at=day(2, 13))
    w.run(day(2, 18))
    w.say("ned_stark", "sally from Winterfell", at=day(2, 19))
    with w.session() as session:
        page = html(war_room(session, w.ctx, w.claim("House Stark").id or 0))
    battles = page[page.index('id="battles"'):page.index("</section>", page.index('id="battles"'))]
    assert "House Stark (its garrison) attacks House Lannister (army 1)" in battles, battles
    assert "army 0" not in battles
    assert "900.5<" in page and "900.50" not in page


def test_a_note_is_rendered_with_everything_escaped() -> None:
    """The bot's markdown as the war room shows it: a quoted order (with its escaped ``>``),
    bold, a list, a rule, a table; a player's ``<script>`` and a link stay text."""
    html = str(note_html(
        "> move army 2: Winterfell \\> 0100 (cost 1) <script>alert(1)</script>\n\n"
        "**Army 2** will march. See [the guide](javascript:void).\n\n- Path: 0100\n"
        "- Departs: `12:00`\n\n---\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n"
        "[](#maester:reply:1)"))
    assert html == (
        "<blockquote>move army 2: Winterfell &gt; 0100 (cost 1) "
        "&lt;script&gt;alert(1)&lt;/script&gt;</blockquote>"
        "<p><strong>Army 2</strong> will march. See the guide.</p>"
        "<ul><li>Path: 0100</li><li>Departs: <code>12:00</code></li></ul><hr>"
        "<table><thead><tr><th>a</th><th>b</th></tr></thead>"
        "<tbody><tr><td>1</td><td>2</td></tr></tbody></table>"), html


def test_a_sighting_the_rules_forgot_stays_on_the_war_rooms_map(tmp_path: Path) -> None:
    """Once the army sets out on a new march, the claim's view of the map forgets where its
    watchers saw it; the war room keeps that sighting on the map, greyed, with its age."""
    url, ctx = campaign(tmp_path)
    engine = make_engine(url)
    with transaction(engine) as session:  # what a new march does to the bookkeeping
        for army in session.exec(select(Army)).all():
            army.meta_json = {k: v for k, v in army.meta_json.items() if k != "detected_by"}
            session.add(army)
    engine.dispose()
    links = _links(url, ctx)
    client = TestClient(create_app(make_reader_engine(url), scenario.settings_for(url)))
    data = client.get("/api" + links[TULLY]).json()
    seen = data["sightings"][0]
    assert seen["claim"] == LANNISTER and seen["in_view"] is False
    assert not any(a["claim"] == LANNISTER and a["tile"] == seen["tile"]
                   for a in data["map"]["situation"]["armies"])
    page = client.get(links[TULLY]).text
    assert f'fill="{FADED}"' in page
    assert re.search(r"House Lannister seen \d+[hd] ago</text>", page)


def test_a_war_room_holds_nothing_of_another_claim(
        site: tuple[TestClient, str, dict[str, str]]) -> None:
    client, url, links = site
    stark = client.get("/api" + links[STARK]).json()
    engine = make_engine(url)
    with transaction(engine) as session:
        tully = session.exec(select(Claim).where(Claim.name == TULLY)).one()
    engine.dispose()
    text = json.dumps(stark)
    assert stark["sightings"] == [] and stark["battles"] == []
    assert all(a["id"] != 2 for a in stark["armies"])  # Tully's army
    assert f"claim:{tully.id}" not in text  # nor its dice branch
    assert all(n["title"] for n in stark["news"])


def test_the_moderators_room_shows_everything(
        site: tuple[TestClient, str, dict[str, str]]) -> None:
    client, _, links = site
    data = client.get("/api" + links["mod"]).json()
    assert {a["claim"] for a in data["armies"]} >= {STARK, LANNISTER}
    assert any(not e["public"] for e in data["log"])
    page = client.get(links["mod"]).text
    assert "Outbox" in page and "Every army" in page
    assert data["preview"]["tick"] == data["tick"] + 1
    assert data["preview"]["at"] == data["next_tick"]
    assert "Next tick: what it would do" in page


def test_the_moderators_room_previews_the_battle_of_the_next_tick(tmp_path: Path) -> None:
    """Issue 26: on the eve of the battle at Riverrun the moderators' room shows what the
    next tick will do, from the real preview (the tick's own reporters, nothing written):
    the battle, its public post and the claims' private notes. The realm and the war room of
    a claim that is not in it show none of it, and the database is unchanged."""
    from tests.bot.services.test_snapshots import every_row

    url, ctx = campaign(tmp_path, "before")
    battle = to_eve_of_battle(url)
    links = _links(url, ctx)
    engine = make_engine(url)
    before = every_row(engine)
    client = TestClient(create_app(make_reader_engine(url), scenario.settings_for(url)))
    shown = client.get("/api" + links["mod"]).json()["preview"]
    assert shown["tick"] == battle
    assert any("House Lannister vs House Tully at Riverrun" in b["summary"]
               for b in shown["battles"])
    assert any(p["title"].startswith("[Battle]") for p in shown["posts"])
    notes = {n["claim"] for n in shown["notes"]}
    assert {LANNISTER, TULLY} <= notes
    page = client.get(links["mod"]).text
    assert "[Battle]" in page and "House Lannister vs House Tully at Riverrun" in page
    private = [n["title"] for n in shown["notes"]] + [
        e["summary"] for part in ("battles", "arrivals", "musters", "everything")
        for e in shown[part] if not e["public"]]
    for where in ("/", "/api/realm", "/map.svg", links[STARK], "/api" + links[STARK]):
        text = client.get(where).text
        assert "[Battle]" not in text and "preview" not in text.lower()
        assert not [p for p in private if p in text], where  # nothing private, nothing ahead
    assert every_row(engine) == before  # the pages wrote nothing
    engine.dispose()


def test_wrong_links_get_the_same_404_as_unknown_pages(
        site: tuple[TestClient, str, dict[str, str]]) -> None:
    client, _, links = site
    unknown = client.get("/no/such/page")
    wrong = client.get("/claim/" + "A" * 43)
    short = client.get("/claim/x")
    mod_as_claim = client.get("/claim/" + links["mod"].split("/")[-1])
    claim_as_mod = client.get("/mod/" + links[STARK].split("/")[-1])
    for answer in (wrong, short, mod_as_claim, claim_as_mod):
        assert answer.status_code == 404 == unknown.status_code
        assert answer.text == unknown.text
    assert client.get("/api/claim/" + "A" * 43).json() == {"error": "not found"}


def test_failed_attempts_are_rate_limited_per_address(tmp_path: Path) -> None:
    url, ctx = campaign(tmp_path)
    links = _links(url, ctx)
    settings = scenario.settings_for(url).configured(web={"failed_per_minute": 3})
    app = create_app(make_reader_engine(url), settings)
    attacker = TestClient(app, client=("198.51.100.7", 1))
    other = TestClient(app, client=("198.51.100.8", 1))
    codes = [attacker.get(f"/claim/{'B' * 42}{i}").status_code for i in range(5)]
    assert codes == [404, 404, 404, 429, 429]
    assert attacker.get(links[STARK]).status_code == 429  # even a right link, for a minute
    assert other.get(links[STARK]).status_code == 200
    assert attacker.get("/").status_code == 200  # the public realm stays open


def test_a_rotated_link_stops_working_at_once(tmp_path: Path) -> None:
    url, ctx = campaign(tmp_path)
    old = _links(url, ctx)
    app = create_app(make_reader_engine(url), scenario.settings_for(url))
    client = TestClient(app)
    assert client.get(old[STARK]).status_code == 200
    new = _links(url, ctx, renew=True)
    assert new[STARK] != old[STARK]
    assert client.get(old[STARK]).status_code == 404
    assert client.get(new[STARK]).status_code == 200
    assert _links(url, ctx) == new  # shown again: the same link


def test_links_are_stored_only_as_hashes(tmp_path: Path) -> None:
    url, ctx = campaign(tmp_path)
    links = _links(url, ctx)
    raw = Path(url.removeprefix("sqlite:///")).read_bytes()
    for path in links.values():
        token = path.rsplit("/", 1)[1]
        assert len(token) == weblinks.TOKEN_CHARS
        assert token.encode() not in raw
        assert hashlib.sha256(token.encode()).hexdigest().encode() in raw


def test_every_answer_has_a_strict_policy_and_only_reads(
        site: tuple[TestClient, str, dict[str, str]]) -> None:
    client, url, links = site
    path = Path(url.removeprefix("sqlite:///"))
    before = path.read_bytes()
    for where in ("/", "/api/realm", links[STARK], links["mod"], "/nothing",
                  "/static/app.js"):
        answer = client.get(where)
        assert answer.headers["content-security-policy"] == CSP
        assert answer.headers["x-content-type-options"] == "nosniff"
        assert "unsafe-inline" not in CSP
    assert client.post("/").status_code == 405
    assert client.delete(links[STARK]).status_code == 405
    assert path.read_bytes() == before
    page = client.get("/").text
    assert "<script>" not in page.replace('<script type="application/json"', "")


def test_the_reader_cannot_write(tmp_path: Path) -> None:
    url, _ = campaign(tmp_path)
    reader = make_reader_engine(url)
    with reader.connect() as connection, pytest.raises(Exception, match="readonly"):
        connection.exec_driver_sql("UPDATE campaign SET name = 'x'")
    reader.dispose()


def test_no_traceback_reaches_the_browser(tmp_path: Path) -> None:
    url, _ = campaign(tmp_path)
    app = create_app(make_reader_engine(url), scenario.settings_for(url))
    client = TestClient(app, raise_server_exceptions=False)
    assert client.get("/").status_code == 200
    engine = make_engine(url)
    with transaction(engine) as session:  # a database the pages cannot read
        session.connection().exec_driver_sql("DROP TABLE event")
    engine.dispose()
    for where in ("/", "/api/realm"):
        answer = client.get(where)
        assert answer.status_code == 500
        assert "Traceback" not in answer.text and "event" not in answer.text.lower()


HOSTILE = '<script>alert("x")</script>&amp;\'"'


def test_hostile_names_are_escaped_everywhere(tmp_path: Path) -> None:
    url, ctx = campaign(tmp_path)
    engine = make_engine(url)
    with transaction(engine) as session:
        claim = session.exec(select(Claim).where(Claim.name == STARK)).one()
        claim.name = HOSTILE
        session.add(claim)
    engine.dispose()
    links = _links(url, ctx)
    client = TestClient(create_app(make_reader_engine(url), scenario.settings_for(url)))
    for where in ("/", links[HOSTILE], links["mod"]):
        page = client.get(where).text
        assert HOSTILE not in page
        assert "<script>alert" not in page
        assert "&lt;script&gt;alert" in page or "\\u003cscript\\u003ealert" in page
    data = client.get("/api/realm").json()
    assert HOSTILE in {c["name"] for c in data["claims"]}  # JSON keeps the name, as data
    assert HOSTILE not in client.get("/map.svg").text


def test_the_realm_moves_with_the_ticks(tmp_path: Path) -> None:
    url, _ = campaign(tmp_path, "before")
    client = TestClient(create_app(make_reader_engine(url), scenario.settings_for(url)))
    first = client.get("/api/realm").json()
    assert not any(e["kind"] == "battle" for e in first["timeline"])
    from tests.bot.web.world import advance

    advance(url)
    later = client.get("/api/realm").json()
    assert later["tick"] > first["tick"]
    assert any(e["kind"] == "battle" for e in later["timeline"])
    assert later["next_tick"] > first["next_tick"]  # the countdown's target moves on


def test_the_realm_is_made_again_after_a_tick_before_anyone_asks(tmp_path: Path) -> None:
    url, _ = campaign(tmp_path, "before")
    app = create_app(make_reader_engine(url), scenario.settings_for(url))
    site = app.state.site
    site.warm_every = 0.05
    with TestClient(app) as client:  # the server's lifespan runs the warmer
        assert client.get("/").status_code == 200
        made = site._realm
        assert made is not None
        from tests.bot.web.world import advance

        advance(url)
        deadline = time.monotonic() + 60
        while site._realm is made and time.monotonic() < deadline:
            time.sleep(0.02)
        assert site._realm is not made and site._realm.version != made.version
        assert "House Lannister vs House Tully" in client.get("/").text


def test_a_reader_in_the_middle_of_a_page_never_holds_up_a_tick(tmp_path: Path) -> None:
    """SQLite in WAL mode: the pages' read transaction stays open (a slow page) while the
    ticks apply and commit on the bot's connection."""
    import threading

    from sqlalchemy import text

    from tests.bot.web.world import advance

    url, _ = campaign(tmp_path, "before")
    reader = make_reader_engine(url)
    with reader.connect() as connection:  # its first statement begins the transaction
        before = connection.execute(text("SELECT last_tick FROM campaign")).scalar_one()
        done = threading.Event()
        worker = threading.Thread(target=lambda: (advance(url), done.set()))
        worker.start()
        worker.join(120)
        assert done.is_set()  # the ticks committed while the reader was still reading
        # the reader's snapshot is unchanged until it ends its transaction
        assert connection.execute(text("SELECT last_tick FROM campaign")).scalar_one() == before
        connection.commit()
        after = connection.execute(text("SELECT last_tick FROM campaign")).scalar_one()
    assert after > before
    reader.dispose()


@pytest.mark.postgres
def test_the_pages_read_postgresql_read_only(pg_url: str) -> None:
    scenario.build(pg_url)
    engine, ctx = scenario.context(pg_url)
    with transaction(engine) as session:
        links = {link.name or "mod": link.path
                 for link in weblinks.links(session, ctx, scenario.START)}
    engine.dispose()
    reader = make_reader_engine(pg_url)
    client = TestClient(create_app(reader, scenario.settings_for(pg_url)))
    assert client.get("/").status_code == 200
    assert client.get("/api" + links[STARK]).json()["claim"]["name"] == STARK
    assert client.get("/claim/" + "C" * 43).status_code == 404
    with Session(reader) as session, session.begin(), pytest.raises(Exception,
                                                                    match="read-only"):
        session.connection().exec_driver_sql("UPDATE campaign SET name = 'x'")
    reader.dispose()
