"""Dice bound to a public beacon, against a local beacon of the project's own (real HTTP, a
test key signing rounds under drand's scheme): the tick binds its dice to the first round at
or after its moment plus the margin, stores the round before using it (a replay rolls the same
dice, the preview never fetches), names it in the post with the verifiable mark; an
unreachable beacon, a wrong signature, a round from the wrong time or the wrong chain leave
the dice to commit-reveal alone, within the bounded wait, and the post says so."""

from __future__ import annotations

import hashlib
import math
import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlmodel import col, select

from bot.config import parse_settings
from bot.db.models import BeaconRound, Event, Outbox
from bot.sandbox.beacon import LocalBeacon
from bot.services import beacon, fairplay
from bot.services.preview import preview
from rules.beacon import BeaconLine, beacon_lines, signature_valid
from rules.fairdice import DiceLine, branch_secret, replay
from tests.bot.catalogue_world import START, World, roster

GENESIS = int(START.timestamp()) - 3 * 1000  # round 1001 is published at START


def day(n: int, hour: int = 0, minute: int = 0) -> datetime:
    return datetime(2026, 11, 22, tzinfo=UTC) + timedelta(days=n - 1, hours=hour,
                                                          minutes=minute)


@pytest.fixture
def local_beacon() -> Iterator[LocalBeacon]:
    server = LocalBeacon(genesis=GENESIS)
    server.start()
    yield server
    server.stop()


def _closed_port() -> str:
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}"  # nobody listens once it is closed


def _battle(w: World, *, fight: bool = True) -> None:
    """Stark and Lannister meet: public battles with dice, fought by day 3 (``fight``)."""
    w.say("ned_stark", "muster 300 infantry")
    w.say("tywin_lannister", "muster 300 infantry")
    w.run(day(2, 12))
    w.place(1, "1316")
    w.place(2, "1316")
    w.say("tywin_lannister", "attack army 1 with army 2", at=day(2, 13))
    if fight:
        w.run(day(3))


def _world(tmp_path: Path, dice: dict[str, object], url: str | None = None) -> World:
    return World(tmp_path, claims=roster("stark", "lannister"), seed="beacon-dice", dice=dice,
                 url=url)


def _battle_posts(w: World) -> list[Outbox]:
    return [p for p in w.outbox(public=True) if p.title.startswith("[Battle]")]


def test_a_battle_is_bound_to_the_first_round_after_its_tick_and_verifies(
        tmp_path: Path, local_beacon: LocalBeacon) -> None:
    w = _world(tmp_path, local_beacon.settings(margin=10))
    _battle(w)
    posts = _battle_posts(w)
    assert posts, "no battle was fought"
    post = posts[0]
    line = fairplay.lines_in(post.body)[0]
    assert line.beacon_round is not None
    # The round is the first published at or after the tick's moment plus the margin.
    with w.session() as session:
        battle = next(e for e in session.exec(select(Event)).all()
                      if (e.data_json or {}).get(fairplay.DICE_KEY) == str(line))
        row = session.exec(select(BeaconRound).where(BeaconRound.tick == battle.tick)).one()
    moment = w.ctx.tick_at(battle.tick).timestamp() + 10
    assert line.beacon_round == row.round == beacon.round_for(w.ctx, battle.tick)
    assert GENESIS + (row.round - 1) * 3 >= moment > GENESIS + (row.round - 2) * 3
    # The post names the round with its signature and carries the verifiable mark.
    printed = beacon_lines(post.body)[row.round]
    assert printed.signature.hex() == row.signature and printed.check(local_beacon.public_key) == []
    assert "✔ **Verifiable dice**" in post.body
    verdict = fairplay.verify_line(w.ctx, line, beacons=beacon_lines(post.body))
    assert verdict.fair, verdict.problems
    # Without the round's value, or with another round's, the line does not check.
    assert not fairplay.verify_line(w.ctx, line).fair
    other = BeaconLine(printed.chain, printed.round, local_beacon.signature(printed.round + 1))
    assert "not the chain's" in " ".join(
        fairplay.verify_line(w.ctx, line, beacons={row.round: other}).problems)


def test_the_seed_changes_with_the_round(tmp_path: Path, local_beacon: LocalBeacon) -> None:
    """The same battle with the same orders and secret, bound to another round, rolls other
    dice: nobody can compute them before the round exists."""
    lines = []
    for margin in (10, 40):
        (tmp_path / str(margin)).mkdir()
        w = _world(tmp_path / str(margin), local_beacon.settings(margin=margin))
        _battle(w)
        lines.append(fairplay.lines_in(_battle_posts(w)[0].body)[0])
    a, b = lines
    assert a.event.key == b.event.key and a.event.entropy == b.event.entropy
    assert a.beacon_round != b.beacon_round
    assert a.rolls != b.rolls  # (a d20 and more: equal by chance about once in hundreds)


def test_the_preview_fetches_nothing_and_says_the_dice_will_change(
        tmp_path: Path, local_beacon: LocalBeacon) -> None:
    w = _world(tmp_path, local_beacon.settings(margin=10))
    _battle(w, fight=False)
    asked = len(local_beacon.asked)
    # The preview of the battle's ticks fetches nothing: its rounds are pending, and the
    # battle post it shows says its dice will change.
    shown = [q for t in preview(w.engine, w.ctx, day(3)) for q in t.queued
             if q.title.startswith("[Battle]")]
    assert shown and len(local_beacon.asked) == asked
    assert all("`beacon: pending round=" in q.body and "will change" in q.body for q in shown)
    assert all(fairplay.lines_in(q.body)[0].beacon_round is None for q in shown)
    w.run(day(3))
    assert len(local_beacon.asked) > asked  # the real ticks fetch their rounds
    with w.session() as session:
        rows = session.exec(select(BeaconRound).order_by(col(BeaconRound.tick))).all()
    assert rows and all(r.signature for r in rows)
    assert all(fairplay.lines_in(p.body)[0].beacon_round for p in _battle_posts(w))
    # A catch-up of many ticks at once (as after downtime: their rounds are in the past)
    # binds each tick to its own moment's round, fetched by number.
    assert len(rows) > 5 and all(r.round == beacon.round_for(w.ctx, r.tick) for r in rows)
    assert len({r.round for r in rows}) == len(rows)


def test_an_unreachable_beacon_leaves_commit_reveal_dice_and_says_so(tmp_path: Path) -> None:
    w = _world(tmp_path, {"beacon": "drand", "beacon_url": _closed_port(),
                          "beacon_timeout": 1.0})
    began = time.monotonic()
    _battle(w)
    elapsed = time.monotonic() - began
    post = _battle_posts(w)[0]
    line = fairplay.lines_in(post.body)[0]
    assert line.beacon_round is None
    assert "`beacon: none round=" in post.body and "commit-reveal dice alone" in post.body
    assert fairplay.verify_line(w.ctx, line).fair
    with w.session() as session:
        rows = session.exec(select(BeaconRound)).all()
    assert rows and all(not r.signature and "could not be reached" in r.reason for r in rows)
    # One catch-up waits the bound once, not once per tick (two catch-ups here, 13 ticks).
    assert elapsed < 2 * 1.0 + 8, elapsed


@pytest.mark.parametrize(("fault", "reason"), [
    ("forge", "wrong signature"),
    ("shift", "the beacon gave round"),
    ("other_chain", "wrong chain"),
])
def test_a_faulty_round_is_refused_with_its_reason(tmp_path: Path, local_beacon: LocalBeacon,
                                                   fault: str, reason: str) -> None:
    if fault == "shift":
        local_beacon.shift = -1  # the round before: published earlier than the one asked
    else:
        setattr(local_beacon, fault, True)
    w = _world(tmp_path, local_beacon.settings(margin=10))
    _battle(w)
    post = _battle_posts(w)[0]
    assert fairplay.lines_in(post.body)[0].beacon_round is None
    assert "`beacon: none round=" in post.body
    with w.session() as session:
        rows = session.exec(select(BeaconRound)).all()
    assert rows and all(reason in r.reason and not r.signature for r in rows), \
        [r.reason for r in rows]


def test_a_round_not_published_yet_is_waited_for_within_the_bound(
        local_beacon: LocalBeacon) -> None:
    settings = parse_settings({"dice": local_beacon.settings(timeout=5.0)}).dice
    local_beacon.latest = 2000
    fetcher = beacon.Fetcher(settings)
    # published while the fetcher waits
    threading.Timer(0.6, lambda: setattr(local_beacon, "latest", 2001)).start()
    signature, reason = fetcher.fetch(2001)
    assert signature and reason == ""
    # never published: the fetcher gives up after the bound, and then asks no more
    began = time.monotonic()
    late = beacon.Fetcher(parse_settings({"dice": local_beacon.settings(timeout=1.0)}).dice)
    signature, reason = late.fetch(5000)
    assert not signature and "not published in time" in reason
    assert 0.9 < time.monotonic() - began < 3
    asked = len(local_beacon.asked)
    assert late.fetch(5001)[0] == b"" and len(local_beacon.asked) == asked


def test_round_for_is_the_first_round_at_or_after_the_moment(local_beacon: LocalBeacon) -> None:
    chain = beacon.chain_of(parse_settings({"dice": local_beacon.settings()}).dice)
    for offset in range(0, 7):
        moment = GENESIS + 3000 + offset
        number = chain.round_at_or_after(moment)
        assert chain.time_of(number) >= moment > chain.time_of(number - 1)
        assert number == math.ceil((moment - GENESIS) / 3) + 1


def test_a_dice_line_with_its_round_reads_back(local_beacon: LocalBeacon) -> None:
    text = "dice: v1 period=3 branch=public key=battle:1 orders=m1 beacon=1042 rolls=20:4"
    line = DiceLine.parse(text)
    assert line.beacon_round == 1042 and str(line) == text
    assert re.search("whose randomness is not known", " ".join(line.mismatches(b"k" * 32)))


VERIFIER = Path(__file__).resolve().parents[3] / "docs" / "verify_dice.py"
KEY = re.compile(r"public dice key is `([0-9a-f]{64})`")


def _verify(text: str, *args: str, env: dict[str, str] | None = None
            ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(VERIFIER), *args], input=text,
                          capture_output=True, text=True, check=False, env=env)


def test_the_players_verifier_checks_the_round_and_works_without_the_bls_library(
        tmp_path: Path, local_beacon: LocalBeacon) -> None:
    w = _world(tmp_path, local_beacon.settings(margin=10))
    _battle(w)
    w.run(day(5))  # the battle's period ends and its public key is revealed
    posts = w.outbox(public=True)
    post = _battle_posts(w)[0]
    line = fairplay.lines_in(post.body)[0]
    reveal = next(p for p in posts if p.title.startswith("[Dice]")
                  and f"Reveal of period {line.event.period}" in p.body)
    key = KEY.search(reveal.body).group(1)  # type: ignore[union-attr]
    # The reveal lists the round the battle is bound to.
    assert line.beacon_round in beacon_lines(reveal.body)
    chain = ("--beacon-key", local_beacon.public_key, "--beacon-genesis", str(GENESIS),
             "--beacon-period", "3")
    for text in (post.body, reveal.body):
        result = _verify(text, "--key", key, *chain)
        assert result.returncode == 0, result.stdout
        assert f"OK   beacon round {line.beacon_round}: the chain's signature" in result.stdout
        assert f"OK   {line.event.key}" in result.stdout
    # The battle post and the reveal post say which moment its round is bound to (the
    # tick's moment plus the margin), and the verifier checks it from either.
    with w.session() as session:
        tick = session.exec(select(BeaconRound).where(
            BeaconRound.round == line.beacon_round)).one().tick
    due = beacon.due_text(w.ctx, tick)
    for text in (post.body, reveal.body):
        assert f"(drand's first round at or after {due})" in text
        assert f"OK   beacon round {line.beacon_round} is the first at or after {due[:-4]}" \
            in _verify(text, "--key", key, *chain).stdout
    # A reveal post whose round line names a later round than its tick's fails on the round.
    later = _rebound(reveal.body, line, local_beacon, key)
    result = _verify(later, "--key", key, *chain)
    assert result.returncode == 1 and f"FAIL beacon round {line.beacon_round + 1} is not " \
        f"the first at or after {due[:-4]}" in result.stdout, result.stdout
    # Under another chain's key the round fails by name.
    result = _verify(post.body, "--key", key)  # quicknet's key: not this beacon's
    assert result.returncode == 1 and f"FAIL beacon round {line.beacon_round}" in result.stdout
    # Without py-ecc the dice still check; the signature is reported unchecked.
    blocker = tmp_path / "no_bls" / "py_ecc"
    blocker.mkdir(parents=True)
    (blocker / "__init__.py").write_text("raise ImportError('py-ecc is not installed')\n")
    env = {**os.environ, "PYTHONPATH": str(blocker.parent)}
    result = _verify(post.body, "--key", key, *chain[2:], env=env)
    assert result.returncode == 0, result.stdout
    assert "signature not checked (install py-ecc" in result.stdout
    assert f"OK   {line.event.key}" in result.stdout
    # A post whose beacon line was swapped for another round's signature fails.
    other = local_beacon.signature(line.beacon_round + 1)
    printed = beacon_lines(post.body)[line.beacon_round]
    forged = post.body.replace(printed.signature.hex(), other.hex()).replace(
        hashlib.sha256(printed.signature).hexdigest(), hashlib.sha256(other).hexdigest())
    result = _verify(forged, "--key", key, *chain)
    assert result.returncode == 1
    assert f"FAIL beacon round {line.beacon_round}" in result.stdout
    assert f"FAIL {line.event.key}" in result.stdout
    # A post bound to a later round than its tick's (its dice redrawn with it, as a moderator
    # choosing among rounds would) fails on the round, in both verifiers.
    later = _rebound(post.body, line, local_beacon, key)
    result = _verify(later, "--key", key, *chain)
    assert result.returncode == 1 and "is not the first at or after" in result.stdout, \
        result.stdout
    assert f"OK   {line.event.key}" in result.stdout  # its dice agree with the round it names


def _rebound(body: str, line: DiceLine, local: LocalBeacon, key: str) -> str:
    """``body`` with its dice line bound to the next round, dice and beacon line redrawn."""
    assert line.beacon_round is not None
    printed = beacon_lines(body)[line.beacon_round]
    moved = BeaconLine(printed.chain, printed.round + 1, local.signature(printed.round + 1))
    assert moved.value is not None
    event = replace(line.event, beacon=moved.value)
    redrawn = replay(bytes.fromhex(key), event.key, event.entropy,
                     [s for s, _ in line.rolls], moved.value)
    new_line = DiceLine(event, tuple(zip([s for s, _ in line.rolls], redrawn, strict=True)))
    return body.replace(str(line), str(new_line)).replace(str(printed), str(moved))


def test_maester_verify_checks_the_round_of_an_event_and_of_a_pasted_post(
        tmp_path: Path, local_beacon: LocalBeacon) -> None:
    from typer.testing import CliRunner

    from bot.cli import app

    settings = local_beacon.settings(margin=10)
    w = _world(tmp_path, settings)
    _battle(w)
    post = _battle_posts(w)[0]
    line = fairplay.lines_in(post.body)[0]
    with w.session() as session:
        battle = next(e for e in session.exec(select(Event)).all()
                      if fairplay.DICE_KEY in (e.data_json or {})
                      and str(line) == e.data_json[fairplay.DICE_KEY])
    dice = "\n".join(f"{k} = {v!r}".replace("'", '"') for k, v in settings.items())
    config = tmp_path / "config.toml"
    config.write_text(f'[campaign]\ndatabase_url = "sqlite:///{tmp_path / "campaign.db"}"\n'
                      f"[dice]\n{dice}\n")
    runner = CliRunner()
    ok = runner.invoke(app, ["verify", str(battle.id), "--config", str(config)])
    assert ok.exit_code == 0, ok.output
    assert f"beacon round {line.beacon_round} (signature checked)" in ok.output
    pasted = runner.invoke(app, ["verify", "-", "--config", str(config)], input=post.body)
    assert pasted.exit_code == 0, pasted.output
    # A post whose round was swapped for another (its randomness made to agree) fails.
    printed = beacon_lines(post.body)[line.beacon_round]  # type: ignore[index]
    other = local_beacon.signature(printed.round + 1)
    forged = post.body.replace(printed.signature.hex(), other.hex()).replace(
        hashlib.sha256(printed.signature).hexdigest(), hashlib.sha256(other).hexdigest())
    bad = runner.invoke(app, ["verify", "-", "--config", str(config)], input=forged)
    assert bad.exit_code == 1 and "not the chain's" in bad.output, bad.output
    # A post bound to another round than its tick's, dice redrawn to agree, fails on the round.
    key = branch_secret("beacon-dice", line.event.period, line.event.branch).hex()
    later = _rebound(post.body, line, local_beacon, key)
    moved = runner.invoke(app, ["verify", "-", "--config", str(config)], input=later)
    assert moved.exit_code == 1, moved.output
    assert "is not its tick's" in moved.output and "record binds this event" in moved.output


def test_a_rolled_back_battle_fought_again_rolls_the_same_bound_dice(
        tmp_path: Path, db_url: str, local_beacon: LocalBeacon) -> None:
    """On SQLite and PostgreSQL: a rollback to before the battle, then the same ticks again,
    rolls the same dice bound to the same round, from the stored round (nothing fetched)."""
    from bot.services import snapshots

    w = _world(tmp_path, local_beacon.settings(margin=10), url=db_url)
    _battle(w)
    before = _battle_posts(w)[0]
    fought_before = [(p.tick, p.body) for p in _battle_posts(w)]
    line = fairplay.lines_in(before.body)[0]
    with w.session() as session:
        fought = next(e for e in session.exec(select(Event)).all()
                      if (e.data_json or {}).get(fairplay.DICE_KEY) == str(line))
        snapshot = snapshots.after_tick(session, w.ctx, fought.tick - 1)
        chosen = snapshots.plan(session, w.ctx, snapshot, day(3))
        snapshots.restore(session, w.ctx, chosen, actor="mod_jane", now=day(3))
    assert [p.tick for p in _battle_posts(w)] == []  # the battles are undone
    asked = len(local_beacon.asked)
    w.run(day(3))
    assert [(p.tick, p.body) for p in _battle_posts(w)] == fought_before
    assert len(local_beacon.asked) == asked


def test_without_a_beacon_every_post_with_dice_still_carries_the_mark_and_link(
        tmp_path: Path) -> None:
    """The verifiable mark does not depend on the beacon: with none, the post has no beacon
    line, and its link is ``[dice] verify_url`` (no web pages' public address here)."""
    w = _world(tmp_path, {"verify_url": "https://westeros.example.org/dice-you-can-check"})
    _battle(w)
    post = _battle_posts(w)[0]
    assert "beacon:" not in post.body and fairplay.lines_in(post.body)[0].beacon_round is None
    assert post.body.rstrip().endswith(
        "✔ **Verifiable dice**: anyone can check them at "
        "https://westeros.example.org/dice-you-can-check")
    with w.session() as session:
        assert session.exec(select(BeaconRound)).first() is None
    quiet = [p for p in w.outbox(public=True) if "dice: v1" not in p.body]
    assert quiet and not any("Verifiable dice" in p.body for p in quiet)


def test_a_round_checked_again_in_the_same_process_is_answered_from_memory(
        local_beacon: LocalBeacon) -> None:
    """A signature check costs tenths of a second: the same question asked again in one process
    (a post and its reveal, worlds replayed) is answered from memory, the same answer, and a
    forged signature of the same round keeps its own (false) answer."""
    key = bytes.fromhex(local_beacon.public_key)
    number = 987_654  # a round no other test checks
    signature = local_beacon.signature(number)
    forged = local_beacon.signature(number, local_beacon.secret + 1)
    start = signature_valid.cache_info()
    assert signature_valid(key, number, signature)
    assert not signature_valid(key, number, forged)
    checked = signature_valid.cache_info()
    assert checked.misses == start.misses + 2
    assert signature_valid(key, number, signature)
    assert not signature_valid(key, number, forged)
    again = signature_valid.cache_info()
    assert (again.misses, again.hits) == (checked.misses, checked.hits + 2)
