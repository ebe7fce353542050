"""The dice proofs on a played campaign: every public roll verifies with the stand-alone
verifier once its period is revealed, a forged roll fails by name, dice need the orders, and
the public reveal recomputes no private roll."""

from __future__ import annotations

import re
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event
from sqlmodel import col, select

from bot.db.models import Event, Outbox
from bot.services import fairplay
from rules.fairdice import PUBLIC, DiceLine, EventKey, branch_secret
from tests.bot.catalogue_world import World, roster

VERIFIER = Path(__file__).resolve().parents[3] / "docs" / "verify_dice.py"
def day(n: int, hour: int = 0, minute: int = 0) -> datetime:
    return datetime(2026, 11, 22, tzinfo=UTC) + timedelta(days=n - 1, hours=hour,
                                                          minutes=minute)


KEY = re.compile(r"public dice key is `([0-9a-f]{64})`")


SECRET = "fair-dice"


def _played(tmp_path: Path) -> tuple[list[Outbox], list[Event]]:
    """Two claims over three in-game months: a march sighted by a holdfast (a private roll)
    and an attack (a public battle), then the reveals of their period."""
    w = _play(tmp_path)
    with w.session() as session:
        events = list(session.exec(select(Event).order_by(col(Event.id))).all())
    return w.outbox(public=True), events


def _play(tmp_path: Path) -> World:
    w = World(tmp_path, claims=roster("stark", "lannister"), seed=SECRET)
    w.say("ned_stark", "muster 300 infantry")
    w.say("tywin_lannister", "muster 300 infantry\nmuster 100 infantry")
    w.run(day(2, 12))
    w.place(1, "1316")
    w.place(2, "1316")
    w.place(3, "1213")
    w.say("tywin_lannister", "move army 3: 1214 > 1215 (cost 2)", at=day(2, 12, 30))
    w.say("tywin_lannister", "attack army 1 with army 2", at=day(2, 13))
    w.run(day(5))
    return w


def test_verify_reads_a_periods_record_once_for_all_its_lines(tmp_path: Path) -> None:
    """`maester verify` of a post holding many dice lines (a reveal lists its period's public
    events) reads each period's recorded events once, not once a line."""
    w = _play(tmp_path)
    lines = max((fairplay.lines_in(p.body) for p in w.outbox(public=True)
                 if p.title.startswith("[Dice]")), key=len)
    periods = {line.event.period for line in lines}
    assert len(lines) > len(periods), "a reveal with more lines than periods"
    reads: list[str] = []

    def seen(conn: Any, cursor: Any, statement: str, *rest: Any) -> None:
        if re.search(r"\bFROM event\b", statement):
            reads.append(statement)

    event.listen(w.engine, "before_cursor_execute", seen)
    try:
        with w.session() as session:
            report, fair = fairplay.check_lines(session, w.ctx, lines)
    finally:
        event.remove(w.engine, "before_cursor_execute", seen)
    assert fair, report
    assert len(reads) == len(periods)


def _verify(text: str, key: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(VERIFIER), "--key", key], input=text,
                          capture_output=True, text=True, check=False)


def test_a_played_period_is_revealed_and_every_public_roll_verifies(tmp_path: Path) -> None:
    posts, _ = _played(tmp_path)
    reveals = [p for p in posts if p.title.startswith("[Dice]") and KEY.search(p.body)]
    assert reveals, "no reveal post in four in-game months"
    keys = {}
    for post in reveals:
        period = int(re.search(r"Reveal of period (\d+)", post.body).group(1))  # type: ignore[union-attr]
        keys[period] = KEY.search(post.body).group(1)  # type: ignore[union-attr]
    rolled = [p for p in posts if "dice: v1" in p.body and not p.title.startswith("[Dice]")]
    assert any(p.title.startswith("[Battle]") for p in rolled)
    checked = 0
    for post in rolled:
        line = fairplay.lines_in(post.body)[0]
        if line.event.period not in keys:
            continue  # its period is still running: not revealed yet
        result = _verify(post.body, keys[line.event.period])
        assert result.returncode == 0, (post.title, result.stdout)
        assert f"OK   {line.event.key}" in result.stdout
        checked += 1
    assert checked >= 1
    # The reveal post lists the period's public events, and they verify too.
    for post in reveals:
        period = int(re.search(r"Reveal of period (\d+)", post.body).group(1))  # type: ignore[union-attr]
        if fairplay.lines_in(post.body):
            assert _verify(post.body, keys[period]).returncode == 0


def test_an_altered_roll_fails_and_names_the_event(tmp_path: Path) -> None:
    posts, _ = _played(tmp_path)
    battle = next(p for p in posts if p.title.startswith("[Battle]") and "dice: v1" in p.body)
    line = fairplay.lines_in(battle.body)[0]
    key = branch_secret(SECRET, line.event.period, PUBLIC).hex()
    sides, value = line.rolls[0]
    forged = DiceLine(line.event, ((sides, value % sides + 1), *line.rolls[1:]))
    result = _verify(battle.body.replace(str(line), str(forged)), key)
    assert result.returncode == 1
    assert f"FAIL {line.event.key}" in result.stdout and "roll 1" in result.stdout
    wrong_key = _verify(battle.body, branch_secret("not-it", line.event.period, PUBLIC).hex())
    assert wrong_key.returncode == 1


def test_a_battles_dice_need_the_orders_behind_it(tmp_path: Path) -> None:
    """With the period's key alone (no order ids, or other ones) the battle's dice do not come
    out: they could not be known before the orders existed."""
    posts, _ = _played(tmp_path)
    battle = next(p for p in posts if p.title.startswith("[Battle]") and "dice: v1" in p.body)
    line = fairplay.lines_in(battle.body)[0]
    assert line.event.entropy, "a battle's dice must depend on the orders behind it"
    key = branch_secret(SECRET, line.event.period, PUBLIC)
    assert line.mismatches(key) == []
    for entropy in ("", "o99:1", line.event.entropy + ",o98:1"):
        guess = DiceLine(EventKey(line.event.period, PUBLIC, line.event.key, entropy), line.rolls)
        assert guess.mismatches(key) != []


def test_the_public_reveal_recomputes_no_private_roll(tmp_path: Path) -> None:
    """Detections roll on the watching claim's branch: the public key does not give them."""
    posts, events = _played(tmp_path)
    private = [DiceLine.parse(str(e.data_json[fairplay.DICE_KEY])) for e in events
               if fairplay.DICE_KEY in (e.data_json or {}) and e.kind == "detection"]
    assert private, "the scenario has detections"
    for line in private:
        assert line.event.branch.startswith("claim:")
        public_key = branch_secret(SECRET, line.event.period, PUBLIC)
        assert line.mismatches(public_key) != []
        own = branch_secret(SECRET, line.event.period, line.event.branch)
        assert line.mismatches(own) == []
    public_text = "\n".join(p.body for p in posts)
    assert "key=detect:" not in public_text


def test_maester_verify_checks_an_event_and_a_pasted_post(tmp_path: Path) -> None:
    """`maester verify EVENT` with the campaign's own key, `maester verify -` with a post's
    text and a revealed key; a forged post or a wrong key exits 1 and says why."""
    from typer.testing import CliRunner

    from bot.cli import app

    posts, events = _played(tmp_path)
    config = tmp_path / "config.toml"
    config.write_text(f'[campaign]\ndatabase_url = "sqlite:///{tmp_path / "campaign.db"}"\n')
    runner = CliRunner()
    battle_event = next(e for e in events if e.kind == "battle")
    ok = runner.invoke(app, ["verify", str(battle_event.id), "--config", str(config)])
    assert ok.exit_code == 0, ok.output
    assert ok.output.startswith("OK ") and "battle:" in ok.output
    post = next(p for p in posts if p.title.startswith("[Battle]") and "dice: v1" in p.body)
    line = fairplay.lines_in(post.body)[0]
    key = branch_secret(SECRET, line.event.period, PUBLIC).hex()
    pasted = runner.invoke(app, ["verify", "-", "--key", key, "--config", str(config)],
                           input=post.body)
    assert pasted.exit_code == 0, pasted.output
    sides, value = line.rolls[0]
    forged = post.body.replace(str(line), str(DiceLine(
        line.event, ((sides, value % sides + 1), *line.rolls[1:]))))
    bad = runner.invoke(app, ["verify", "-", "--key", key, "--config", str(config)],
                        input=forged)
    assert bad.exit_code == 1 and "FAIL" in bad.output and "roll 1" in bad.output
    other = branch_secret("another", line.event.period, PUBLIC).hex()
    wrong = runner.invoke(app, ["verify", "-", "--key", other, "--config", str(config)],
                          input=post.body)
    assert wrong.exit_code == 1 and "not the one committed to" in wrong.output
    none = runner.invoke(app, ["verify", "99999", "--config", str(config)])
    assert none.exit_code == 2 and "there is no event 99999" in none.output


def _verify_args(text: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(VERIFIER), *args], input=text,
                          capture_output=True, text=True, check=False, timeout=60)


def test_a_line_with_rolls_left_out_fails_in_both_verifiers(tmp_path: Path) -> None:
    """Issue 24: a dice line with its last rolls left out replayed fine (each printed roll
    is right) and both verifiers said OK. The stand-alone verifier, given the reveal post too
    (which lists every public event whole), sees the two disagree; `maester verify` compares
    with the campaign's record."""
    from typer.testing import CliRunner

    from bot.cli import app

    posts, _ = _played(tmp_path)
    battle = next(p for p in posts if p.title.startswith("[Battle]") and "dice: v1" in p.body)
    line = fairplay.lines_in(battle.body)[0]
    assert len(line.rolls) >= 2, "the battle rolled at least two dice"
    cut = DiceLine(line.event, line.rolls[:-1])
    forged = battle.body.replace(str(line), str(cut))
    key = branch_secret(SECRET, line.event.period, PUBLIC).hex()
    assert _verify(forged, key).returncode == 0  # the printed rolls alone are all right...
    reveal = next((p for p in posts if p.title.startswith("[Dice]") and str(line) in p.body),
                  None)
    assert reveal is not None, "the battle's period is revealed in four in-game months"
    both = _verify(forged + "\n" + reveal.body, key)  # ...not next to the reveal's record
    assert both.returncode == 1, both.stdout
    assert "one leaves rolls out" in both.stdout
    config = tmp_path / "config.toml"
    config.write_text(f'[campaign]\ndatabase_url = "sqlite:///{tmp_path / "campaign.db"}"\n')
    bad = CliRunner().invoke(app, ["verify", "-", "--key", key, "--config", str(config)],
                             input=forged)
    assert bad.exit_code == 1, bad.output
    assert f"has {len(line.rolls)} roll(s) and this line prints {len(cut.rolls)}" in bad.output
    good = CliRunner().invoke(app, ["verify", "-", "--key", key, "--config", str(config)],
                              input=battle.body)
    assert good.exit_code == 0, good.output


KEY_ZERO = "00" * 32
FINE = "dice: v1 period=3 branch=public key=battle:1 orders=- rolls=20:{v}"


def _fine_line() -> str:
    return FINE.format(v=EventKey(3, PUBLIC, "battle:1").dice_from_secret(bytes(32)).roll(20))


@pytest.mark.parametrize("hostile", [
    "dice: v1 period=3 branch=public key=battle:2 orders=- rolls=4294967296:1",
    "dice: v1 period=3 branch=public key=battle:2 orders=- rolls=99999999999999999999:1",
    "dice: v1 period=3 branch=public key=battle:2 orders=-",
    "dice: v1 period=x branch=public key=battle:2 orders=- rolls=20:3",
    "dice: v1 period=3 branch=public key=battle:2 orders=- rolls=20:21",
    "dice: v1 period=3 branch=public key=battle:2 orders=- rolls=20:0",
    "dice: v1 period=3 branch=public key=battle:2 orders=- rolls=20:3,,20:4",
    "dice: v1 period=3 branch=public key=battle:2 orders=- rolls=20",
    "dice: v1 period=3 branch=public key=battle:2 orders=- rolls=20:3 rolls=20:5",
    "dice: v1 period=3 branch=public key=battle:2 orders=- rolls=٢٠:٣",
])
def test_hostile_lines_are_named_and_the_others_still_checked(hostile: str) -> None:
    """Issue 24: a side count of 2^32 or more never returned (every word was thrown away) and
    other hostile lines crashed the stand-alone verifier; each is now named BAD and the
    next line is still checked. The bot's reader refuses the same lines."""
    fine = _fine_line()
    result = _verify_args(f"{hostile}\n{fine}\n", "--key", KEY_ZERO)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    assert "BAD " in result.stdout and "not a complete dice line" in result.stdout
    assert "OK   battle:1 (period 3, branch public)" in result.stdout
    with pytest.raises(ValueError):
        DiceLine.parse(hostile)


def test_a_key_checks_only_its_own_period_and_branch() -> None:
    """Issue 24: period= and branch= were ignored, so a line of another period was checked
    with this period's key. Lines of several are refused unless --period and --branch say
    which the key is for; then the others are skipped."""
    fine = _fine_line()
    other = fine.replace("period=3", "period=4")
    mixed = f"{fine}\n{other}\n"
    refused = _verify_args(mixed, "--key", KEY_ZERO)
    assert refused.returncode == 2
    assert "period 3 branch public; period 4 branch public" in refused.stdout
    chosen = _verify_args(mixed, "--key", KEY_ZERO, "--period", "3", "--branch", "public")
    assert chosen.returncode == 0, chosen.stdout
    assert "OK   battle:1 (period 3" in chosen.stdout
    assert "SKIP battle:1 (period 4" in chosen.stdout
