"""``maester check`` with ``[dice] beacon = "drand"``, against the project's local beacon over
real HTTP (and a real Reddit sandbox for the rest of the check): the pinned chain answering is
``ok``; a beacon that is down, one that serves another chain, one whose /info differs from the
pin and one whose rounds are not signed by the pinned key are warnings (the exit code stays
0: the dice fall back to commit-reveal alone by design), with a network failure told apart
from a wrong chain."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bot.cli import app
from bot.sandbox.beacon import LocalBeacon
from tests.bot.reddit.conftest import Harness
from tests.bot.reddit.test_runner import write_config

cli = CliRunner()


@pytest.fixture
def local_beacon() -> Iterator[LocalBeacon]:
    genesis = int(time.time()) - 3000
    server = LocalBeacon(genesis=genesis, latest=1000)
    server.start()
    yield server
    server.stop()


def _dice(beacon: LocalBeacon, **change: object) -> str:
    values = {**beacon.settings(timeout=3.0), **change}
    return "[dice]\n" + "".join(f"{k} = {v!r}\n".replace("'", '"') for k, v in values.items())


def _check(bot: Harness, tmp_path: Path, dice: str) -> str:
    config = write_config(bot, tmp_path / "config.toml", dice)
    result = cli.invoke(app, ["check", "--config", str(config)])
    assert result.exit_code == 0, result.output  # a warning, never a failure
    assert "maester check: all good" in result.output
    return " ".join(result.output.split())


def test_check_finds_the_pinned_chain_on_the_beacon(bot: Harness, tmp_path: Path,
                                                    local_beacon: LocalBeacon) -> None:
    out = _check(bot, tmp_path, _dice(local_beacon))
    assert f"[ok ] beacon: {local_beacon.url} serves the pinned chain " \
        f"{local_beacon.chain_hash[:16]}...; its latest round 1000 is signed by the pinned " \
        "key" in out
    assert local_beacon.asked == [f"/{local_beacon.chain_hash}/info",
                                  f"/{local_beacon.chain_hash}/public/latest"]


def test_a_beacon_that_is_down_is_a_network_warning(bot: Harness, tmp_path: Path,
                                                    local_beacon: LocalBeacon) -> None:
    dice = _dice(local_beacon)
    url = local_beacon.url
    local_beacon.stop()  # its port is closed now: nobody answers there
    out = _check(bot, tmp_path, dice)
    assert f"[warn] beacon (unreachable): {url} could not be reached within 3 s" in out
    assert "fix: check the network from this machine to [dice] beacon_url" in out
    assert "wrong chain" not in out


def test_a_wrong_chain_is_told_apart_from_the_network(bot: Harness, tmp_path: Path,
                                                      local_beacon: LocalBeacon) -> None:
    # a chain hash this beacon does not serve
    out = _check(bot, tmp_path, _dice(local_beacon, beacon_chain="ab" * 32))
    assert f"[warn] beacon (wrong chain): {local_beacon.url} answers, but not for the " \
        "pinned chain abababababababab...: /info gave status 404" in out
    assert "fix: [dice] beacon_url, beacon_chain, beacon_public_key" in out
    assert "unreachable" not in out
    # an /info that differs from the pin (here: the period)
    out = _check(bot, tmp_path, _dice(local_beacon, beacon_period=30))
    assert "[warn] beacon (wrong chain):" in out and "describes another chain than the " \
        "pinned one: period is 3, the campaign pins 30" in out
    # the right /info, but rounds signed by another key
    local_beacon.forge = True
    out = _check(bot, tmp_path, _dice(local_beacon))
    assert "[warn] beacon (wrong chain):" in out and "round 1000's signature is not the " \
        "chain's (wrong signature)" in out


def test_no_beacon_no_beacon_line(bot: Harness, tmp_path: Path) -> None:
    out = _check(bot, tmp_path, "")
    assert "beacon" not in out
