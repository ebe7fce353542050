"""The links from the players' side (the ``link`` order) and the moderators' commands:
``maester web links [CLAIM] [--rotate]`` and ``maester web export DIR``."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from sqlmodel import select
from starlette.testclient import TestClient
from typer.testing import CliRunner

from bot.cli import app
from bot.db.engine import make_engine, make_reader_engine, transaction
from bot.db.models import Outbox
from bot.messages import handle_message
from bot.services import pause
from bot.web.app import create_app
from tests.bot.services import scenario
from tests.bot.web.world import STARK, TULLY, campaign

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
cli = CliRunner()
PUBLIC_URL = "https://maester.example.org"


def _config(tmp_path: Path, url: str) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(f'[campaign]\ndatabase_url = "{url}"\nname = "Scenario"\n'
                    f'moderators = ["mod_jane"]\n\n[web]\npublic_url = "{PUBLIC_URL}"\n',
                    encoding="utf-8")
    return path


def _order(url: str, author: str, text: str, ref: str) -> str:
    settings = scenario.settings_for(url).configured(web={"public_url": PUBLIC_URL})
    engine = make_engine(url)
    with transaction(engine) as session:
        from bot.services.world import load_context

        ctx = load_context(session, settings)
        reply = handle_message(session, ctx, author=author, text=text, now=scenario.START,
                               ref=ref)
    engine.dispose()
    return reply


def _path(text: str) -> str:
    found = re.search(re.escape(PUBLIC_URL) + r"(/claim/[A-Za-z0-9_-]{43})", text)
    assert found, text
    return found.group(1)


def test_the_link_order_answers_the_claims_war_room(tmp_path: Path) -> None:
    url, _ = campaign(tmp_path)
    reply = _order(url, "ned_stark", "link", "l1")
    assert "The war room of House Stark" in reply and "Keep it private" in reply
    path = _path(reply)
    client = TestClient(create_app(make_reader_engine(url), scenario.settings_for(url)))
    page = client.get(path)
    assert page.status_code == 200 and "House Stark · war room" in page.text
    assert _path(_order(url, "ned_stark", "link please", "l2")) == path  # the same link
    assert _path(_order(url, "hoster_tully", "link", "l3")) != path
    refused = _order(url, "a_stranger", "link", "l4")
    assert "does not play a claim" in refused and "/claim/" not in refused


def test_the_link_order_is_answered_while_the_campaign_is_paused(tmp_path: Path) -> None:
    url, _ = campaign(tmp_path)
    engine, ctx = scenario.context(url)
    with transaction(engine) as session:
        pause.pause(session, ctx, note="a holiday", until=None, actor="mod_jane",
                    now=scenario.START)
    engine.dispose()
    assert "/claim/" in _order(url, "ned_stark", "link", "p1")


def test_web_links_shows_and_rotates_and_sends_the_new_links(tmp_path: Path) -> None:
    url, _ = campaign(tmp_path)
    config = _config(tmp_path, url)
    shown = cli.invoke(app, ["web", "links", "--config", str(config)])
    assert shown.exit_code == 0, shown.output
    assert f"moderators: {PUBLIC_URL}/mod/" in shown.output
    assert f"{STARK}: {PUBLIC_URL}/claim/" in shown.output
    again = cli.invoke(app, ["web", "links", "--config", str(config)])
    assert again.output == shown.output
    one = cli.invoke(app, ["web", "links", TULLY, "--config", str(config)])
    assert one.output.strip().startswith(f"{TULLY}: ") and "moderators" not in one.output
    rotated = cli.invoke(app, ["web", "links", STARK, "--rotate", "--config", str(config)])
    assert rotated.exit_code == 0 and "replaced" in rotated.output
    old = _path(shown.output.split(f"{STARK}: ")[1])
    new = _path(rotated.output)
    assert new != old
    client = TestClient(create_app(make_reader_engine(url), scenario.settings_for(url)))
    assert client.get(old).status_code == 404 and client.get(new).status_code == 200
    engine = make_engine(url)
    with transaction(engine) as session:
        sent = session.exec(select(Outbox).where(Outbox.title == "Your war room")).all()
    engine.dispose()
    assert [o.target for o in sent] == ["ned_stark"] and new in sent[0].body
    unknown = cli.invoke(app, ["web", "links", "House Nobody", "--config", str(config)])
    assert unknown.exit_code == 2 and "no claim is called 'House Nobody'" in unknown.output


def test_web_export_writes_the_public_realm(tmp_path: Path) -> None:
    url, _ = campaign(tmp_path)
    config = _config(tmp_path, url)
    folder = tmp_path / "site"
    result = cli.invoke(app, ["web", "export", str(folder), "--config", str(config)])
    assert result.exit_code == 0, result.output
    index = (folder / "index.html").read_text(encoding="utf-8")
    assert 'src="static/app.js"' in index and "<svg" in index
    assert (folder / "static" / "style.css").is_file()
    assert (folder / "map.svg").read_text(encoding="utf-8").startswith("<svg")
    client = TestClient(create_app(make_reader_engine(url), scenario.settings_for(url)))
    assert json.loads((folder / "api" / "realm.json").read_text(encoding="utf-8")) == \
        client.get("/api/realm").json()
    assert not list(folder.rglob("claim*")) and "war room" not in index
    (tmp_path / "elsewhere").mkdir()
    gone = _config(tmp_path / "elsewhere", f"sqlite:///{tmp_path / 'none.db'}")
    missing = cli.invoke(app, ["web", "export", str(tmp_path / "x"), "--config", str(gone)])
    assert missing.exit_code == 2 and "does not exist" in missing.output
