"""Beacon-bound dice through Reddit: a battle ordered by modmail and posted through real PRAW
to the sandbox, on SQLite and on PostgreSQL. The post names the beacon round its dice are
bound to (the first at or after its tick's moment plus the margin, fetched over real HTTP from
the local beacon), carries the verifiable mark with the link to the web pages' dice panel, and
its dice check with the round's signature; the post holds no secret."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta

import pytest
from sqlmodel import select

from bot.db.engine import transaction
from bot.db.models import Army, ArmyState, BeaconRound
from bot.sandbox import BOT_USERNAME, RedditSandbox
from bot.sandbox.beacon import LocalBeacon
from bot.services import beacon, fairplay
from rules.beacon import beacon_lines
from tests.bot.reddit.conftest import Harness, assert_no_secrets, make_harness, public_texts


@pytest.fixture
def beacon_bot(sandbox: RedditSandbox, db_url: str) -> Iterator[tuple[Harness, LocalBeacon]]:
    local = LocalBeacon(genesis=1_700_000_000)
    local.start()
    harness = make_harness(sandbox, db_url, dice=local.settings(margin=10))
    web = {"public_url": "https://realm.example.org"}
    harness.settings = harness.settings.configured(web=web)
    harness.ctx = harness.ctx.configured(web=web)
    yield harness, local
    harness.engine.dispose()
    local.stop()


def _place_standing(bot: Harness, tile: str) -> None:
    with transaction(bot.engine) as session:
        for army in session.exec(select(Army)).all():
            army.tile, army.state, army.stationary_since = tile, ArmyState.STANDING, 0
            army.path_json, army.costs_json = [], []
            session.add(army)


def test_a_battle_post_on_reddit_names_its_round_and_verifies(
        beacon_bot: tuple[Harness, LocalBeacon]) -> None:
    bot, local = beacon_bot
    bot.send("ned_stark", "muster 300 infantry")
    bot.send("tywin_lannister", "muster 300 infantry")
    for _ in range(8):  # two days: the musters are done
        bot.clock.advance(timedelta(hours=6))
        bot.cycle()
    _place_standing(bot, "1316")
    with transaction(bot.engine) as session:
        ids = {a.claim_id: a.id for a in session.exec(select(Army)).all()}
    assert len(ids) == 2
    stark, lannister = sorted(ids.values())
    bot.send("tywin_lannister", f"attack army {stark} with army {lannister}")
    for _ in range(4):
        bot.clock.advance(timedelta(hours=6))
        bot.cycle()
    bot.drain()
    posts = [p for p in bot.sandbox.posts(author=BOT_USERNAME) if p.title.startswith("[Battle]")]
    assert posts, [p.title for p in bot.sandbox.posts(author=BOT_USERNAME)]
    body = posts[0].body
    line = fairplay.lines_in(body)[0]
    battle = next(e for e in bot.events("battle")
                  if (e.data_json or {}).get(fairplay.DICE_KEY) == str(line))
    with transaction(bot.engine) as session:
        row = session.exec(select(BeaconRound).where(BeaconRound.tick == battle.tick)).one()
    assert row.signature and line.beacon_round == row.round == beacon.round_for(bot.ctx,
                                                                                 battle.tick)
    assert "✔ **Verifiable dice**: anyone can check them at https://realm.example.org/#dice" \
        in body
    printed = beacon_lines(body)
    assert printed[row.round].check(local.public_key) == []
    assert fairplay.verify_line(bot.ctx, line, beacons=printed).fair
    assert any(f"/{local.chain_hash}/public/{row.round}" in path for path in local.asked)
    assert_no_secrets(public_texts(bot.sandbox))
