"""Verifiable dice: commitments, the per-event stream, the printed dice line, the verifier."""

from __future__ import annotations

import hashlib
import hmac
import importlib.util
import subprocess
import sys
from collections import Counter
from pathlib import Path
from types import ModuleType

from hypothesis import given, settings
from hypothesis import strategies as st

from rules.fairdice import (
    PUBLIC,
    Beacon,
    DiceLine,
    EventKey,
    FairDice,
    HmacKey,
    branch_secret,
    claim_branch,
    commitment,
    dice_line,
    event_seed,
    format_entropy,
    key_token,
    matches_commitment,
    replay,
)

VERIFIER = Path(__file__).resolve().parents[2] / "docs" / "verify_dice.py"
SIDES = st.sampled_from([2, 3, 6, 10, 20, 100])
KEYS = st.text(st.characters(min_codepoint=33, max_codepoint=126, exclude_characters="|"),
               min_size=1, max_size=20)


def _verifier() -> ModuleType:
    spec = importlib.util.spec_from_file_location("verify_dice", VERIFIER)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_same_event_gives_the_same_dice() -> None:
    """Replays and crash-restarts must roll identically: the dice are a function of the key."""
    event = EventKey(4, PUBLIC, "battle:9", "m1,m2")
    first = event.dice("campaign secret")
    again = event.dice("campaign secret")
    assert [first.roll(20) for _ in range(30)] == [again.roll(20) for _ in range(30)]


def test_every_part_of_the_key_changes_the_dice() -> None:
    """Period, branch, event key, entropy and secret each lead to another stream."""
    base = EventKey(4, PUBLIC, "battle:9", "m1")
    variants = [base, EventKey(5, PUBLIC, "battle:9", "m1"),
                EventKey(4, "claim:2", "battle:9", "m1"),
                EventKey(4, PUBLIC, "battle:10", "m1"), EventKey(4, PUBLIC, "battle:9", "m2")]
    streams = {tuple(v.dice("s").roll(1000) for _ in range(8)) for v in variants}
    streams.add(tuple(base.dice("other").roll(1000) for _ in range(8)))
    assert len(streams) == len(variants) + 1


def test_faces_are_even_with_no_modulo_bias() -> None:
    """60,000 d6 and d20 from a fixed seed land within 5% of the even share on every face."""
    for sides in (6, 20, 7):
        dice = FairDice(event_seed(b"k" * 32, "spread", ""))
        counts = Counter(dice.roll(sides) for _ in range(60_000))
        assert set(counts) == set(range(1, sides + 1))
        even = 60_000 / sides
        assert all(abs(c - even) < 0.05 * even for c in counts.values()), counts


def test_words_in_the_uneven_top_slice_are_rejected() -> None:
    """A d3 never takes a word at or above 2**32 - (2**32 mod 3): such words are skipped."""
    class Words(FairDice):
        def __init__(self, words: list[int]) -> None:
            super().__init__(b"")
            self._words = words

    limit = 2**32 - 2**32 % 3
    dice = Words([limit, limit + 0, 2**32 - 1, 4])
    assert dice.roll(3) == 4 % 3 + 1


@given(st.binary(max_size=150), st.lists(st.binary(max_size=200), min_size=1, max_size=4))
@settings(max_examples=200)
def test_a_key_set_up_once_signs_as_the_standard_hmac(key: bytes, messages: list[bytes]
                                                      ) -> None:
    """HmacKey gives hmac's HMAC-SHA256 bytes for every key (empty, short, a whole block,
    longer than a block, which is hashed first) and every message, however many it signs."""
    keyed = HmacKey(key)
    for message in messages:
        assert keyed.digest(message) == hmac.digest(key, message, "sha256")


@given(st.text(max_size=80), KEYS, st.text(max_size=30))
def test_secrets_seeds_and_tokens_from_a_key_set_up_once_are_the_same(secret: str, key: str,
                                                              entropy: str) -> None:
    """A branch secret, an event's seed and a key's token are the same bytes whether the
    secret is given as such or as its HmacKey (what the tick's dice keep)."""
    branch = branch_secret(secret, 3, "claim:7")
    beacon = Beacon(9, bytes(range(32)))
    for bound in (None, beacon):
        assert event_seed(HmacKey(branch), key, entropy, bound) == \
            event_seed(branch, key, entropy, bound)
    campaign = HmacKey(secret.encode())
    assert key_token(campaign, "detect", 12, key, 3) == key_token(secret, "detect", 12, key, 3)
    assert branch_secret(campaign, 3, "claim:7") == branch


def test_commitment_is_the_sha256_of_the_secret() -> None:
    secret = branch_secret("s", 3, PUBLIC)
    assert commitment(secret) == hashlib.sha256(secret).hexdigest()
    assert matches_commitment(secret, commitment(secret).upper())
    assert not matches_commitment(branch_secret("s", 4, PUBLIC), commitment(secret))


def test_claim_branches_are_independent_of_the_public_secret() -> None:
    """A public reveal gives nothing of a claim's private rolls: its rolls do not replay."""
    public = branch_secret("s", 3, PUBLIC)
    private = branch_secret("s", 3, claim_branch(2))
    assert public != private
    rolled = EventKey(3, claim_branch(2), "detect:7:army:5:tile:0304", "m9").dice("s")
    line = dice_line(EventKey(3, claim_branch(2), "detect:7:army:5:tile:0304", "m9"), rolled)
    for _ in range(6):
        rolled.roll(20)
    line = dice_line(line.event, rolled)
    assert line.mismatches(private) == []
    assert line.mismatches(public) != []


def test_entropy_is_sorted_and_deduplicated() -> None:
    assert format_entropy(["b2", "a1", "b2", ""]) == "a1,b2"


@settings(max_examples=60, deadline=None)
@given(period=st.integers(0, 10_000), key=KEYS, orders=st.lists(KEYS, max_size=3),
       sides=st.lists(SIDES, min_size=1, max_size=8))
def test_dice_line_round_trips_and_verifies(period: int, key: str, orders: list[str],
                                            sides: list[int]) -> None:
    """The printed line parses back to itself and the branch secret reproduces every roll."""
    event = EventKey(period, PUBLIC, key, format_entropy(o.replace(",", "") for o in orders))
    dice = event.dice("campaign")
    for n in sides:
        dice.roll(n)
    line = dice_line(event, dice)
    assert DiceLine.parse(str(line)) == line
    assert line.mismatches(branch_secret("campaign", period, PUBLIC)) == []


def test_an_altered_roll_is_named() -> None:
    event = EventKey(1, PUBLIC, "battle:3")
    dice = event.dice("s")
    dice.roll(20)
    dice.roll(20)
    line = dice_line(event, dice)
    sides, value = line.rolls[1]
    forged = DiceLine(event, (line.rolls[0], (sides, value % 20 + 1)))
    problems = forged.mismatches(branch_secret("s", 1, PUBLIC))
    assert len(problems) == 1 and problems[0].startswith("roll 2 (d20)")


@settings(max_examples=60, deadline=None)
@given(key=KEYS, orders=KEYS, sides=st.lists(SIDES, min_size=1, max_size=10))
def test_the_standalone_verifier_agrees_with_the_bot(key: str, orders: str,
                                                      sides: list[int]) -> None:
    """docs/verify_dice.py, written from docs/dice.md alone, draws the same values."""
    verifier = _verifier()
    secret = branch_secret("c", 2, PUBLIC)
    words = verifier.dice_stream(secret, key, orders)
    assert [verifier.roll(words, n) for n in sides] == replay(secret, key, orders, sides)


def test_the_verifier_command_passes_a_fair_post_and_fails_a_forged_one() -> None:
    event = EventKey(2, PUBLIC, "battle:12", "m1,m2")
    dice = event.dice("c")
    for n in (20, 20, 2):
        dice.roll(n)
    line = dice_line(event, dice)
    secret = branch_secret("c", 2, PUBLIC)
    post = f"**Battle at the Twins**\n\nSome text.\n\n`{line}`\n"
    args = [sys.executable, str(VERIFIER), "--secret", secret.hex(),
            "--commitment", commitment(secret)]
    ok = subprocess.run(args, input=post, capture_output=True, text=True, check=False)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "commitment OK" in ok.stdout and "OK   battle:12" in ok.stdout
    forged = post.replace(f"rolls={line.rolls[0][0]}:{line.rolls[0][1]}",
                          f"rolls={line.rolls[0][0]}:{line.rolls[0][1] % 20 + 1}")
    bad = subprocess.run(args, input=forged, capture_output=True, text=True, check=False)
    assert bad.returncode == 1 and "FAIL battle:12" in bad.stdout and "roll 1 (d20)" in bad.stdout
