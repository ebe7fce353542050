"""Dice that players can verify: commit before, reveal after.

Every die the campaign rolls is drawn from a *branch secret* and a public *event key*:

- The campaign's dice are split into periods (an in-game month by default). Each period has one
  branch secret per branch: ``public`` for the rolls everybody sees (battles, retreats, fates),
  and ``claim:<id>`` for the rolls only one claim may see (its detections, assaults on its
  holdfast, which would show its secret defence bonus).
- Before a period starts, the SHA-256 of each of its branch secrets is published (the
  *commitment*). After it ends, the ``public`` secret is revealed in a public post and each
  ``claim:<id>`` secret is revealed privately to that claim.
- The dice of one event are drawn from ``HMAC(branch secret, event key | entropy)``, where the
  entropy is public information nobody knew in advance: the Reddit ids of the orders that led to
  the event. So even a moderator who knows the secrets cannot compute a battle's dice before the
  orders that caused it exist.

Byte layout (also in docs/dice.md, and re-implemented independently by docs/verify_dice.py):

- ``branch_secret = HMAC-SHA256(key=campaign secret (UTF-8),
  msg="maester-dice/v1|<period>|<branch>")``
- ``commitment = SHA-256(branch_secret)`` in lower-case hex
- ``event_seed = HMAC-SHA256(key=branch_secret, msg="<event key>|<entropy>")``, and when the
  event is bound to a public beacon round (:class:`Beacon`, docs/dice.md),
  ``msg="<event key>|<entropy>|drand:<round>:<randomness hex>"``
- the stream: block *i* = ``SHA-256(event_seed || i as 8 bytes big-endian)``; each block gives
  eight unsigned 32-bit big-endian words, used in order.
- a d\\ *n* takes the next word ``w``; it is rejected (and the next word taken) while
  ``w >= 2**32 - (2**32 mod n)``, so every face is exactly as likely (no modulo bias); the face
  is ``w mod n + 1``.

Everything here is pure: no clock, no global randomness, no I/O.
"""

from __future__ import annotations

import hashlib
import hmac
import struct
from collections.abc import Iterable
from dataclasses import dataclass, replace

from rules.dice import RecordingDice

VERSION = "maester-dice/v1"
PUBLIC = "public"
_WORD = 2**32
MAX_SIDES = _WORD - 1
"""The most sides a die drawn from 32-bit words can have (with 2**32 or more, every word
would be rejected and the draw would never end)."""
_EIGHT_WORDS = struct.Struct(">8I")
"""A block of the stream: eight unsigned 32-bit big-endian words."""
_BLOCK = 64
"""SHA-256's block size in bytes: an HMAC key is padded (or first hashed) to it."""
_INNER_PAD = bytes(b ^ 0x36 for b in range(256))
_OUTER_PAD = bytes(b ^ 0x5C for b in range(256))
"""The padded key XOR 0x36 (inner) and 0x5c (outer), as tables for ``bytes.translate``."""


class HmacKey:
    """HMAC-SHA256 (RFC 2104) under one key, for many messages: the key's two padded blocks
    are hashed once, and each message's MAC continues from copies of those hashes. The same
    bytes as ``hmac.digest(key, message, "sha256")`` (the tests compare the two), at a
    fraction of the cost when a key signs many messages (a tick derives hundreds of seeds
    and tokens from a few keys: the one-shot call sets the key up again each time)."""

    __slots__ = ("_inner", "_outer")

    def __init__(self, key: bytes) -> None:
        if len(key) > _BLOCK:
            key = hashlib.sha256(key).digest()
        key = key.ljust(_BLOCK, b"\0")
        self._inner = hashlib.sha256(key.translate(_INNER_PAD))
        self._outer = hashlib.sha256(key.translate(_OUTER_PAD))

    def digest(self, message: bytes) -> bytes:
        """The 32-byte HMAC-SHA256 of ``message`` under this key."""
        inner = self._inner.copy()
        inner.update(message)
        outer = self._outer.copy()
        outer.update(inner.digest())
        return outer.digest()


def claim_branch(claim_id: int) -> str:
    """The branch of the rolls that only one claim (and the moderators) may see."""
    return f"claim:{claim_id}"


def branch_secret(campaign_secret: str | HmacKey, period: int, branch: str) -> bytes:
    """The 32-byte secret of one branch of one period, derived from the campaign secret (or
    its :class:`HmacKey`, of its UTF-8 bytes)."""
    return _mac(campaign_secret, f"{VERSION}|{period}|{branch}".encode())


def _mac(key: str | bytes | HmacKey, message: bytes) -> bytes:
    """HMAC-SHA256 of ``message`` under ``key``: raw (a campaign secret's text, as its UTF-8
    bytes, or a branch secret's bytes) or as its :class:`HmacKey`."""
    if isinstance(key, HmacKey):
        return key.digest(message)
    return hmac.digest(key.encode() if isinstance(key, str) else key, message, "sha256")


def key_token(campaign_secret: str | HmacKey, *parts: object) -> str:
    """An opaque stand-in for ``parts`` in a printed event key: the first 10 hex digits of
    HMAC-SHA256 of the campaign secret over ``VERSION|token|`` and the parts joined by ``|``.
    Nobody without the campaign secret (never revealed: a branch secret does not give it) can
    tell the parts from it, yet the key stays the same whenever the same parts are rolled
    again. (Its message never equals a branch secret's, whose second field is a number.)
    ``campaign_secret`` may be given as its :class:`HmacKey` (of its UTF-8 bytes) already."""
    message = f"{VERSION}|token|" + "|".join(map(str, parts))
    return _mac(campaign_secret, message.encode()).hex()[:10]


def commitment(secret: bytes) -> str:
    """The public commitment to a branch secret: its SHA-256 in lower-case hex."""
    return hashlib.sha256(secret).hexdigest()


def format_entropy(order_ids: Iterable[str]) -> str:
    """The public entropy of an event: the ids of the orders behind it, sorted, comma-joined."""
    return ",".join(sorted({str(i) for i in order_ids if str(i)}))


@dataclass(frozen=True, slots=True)
class Beacon:
    """A public randomness beacon's round, mixed into an event's seed: its number and its
    32-byte randomness (published only when the round comes, after the orders were final)."""

    round: int
    randomness: bytes

    def __post_init__(self) -> None:
        if self.round < 1 or len(self.randomness) != 32:
            raise ValueError("a beacon round is numbered from 1 and has 32 bytes of randomness")

    @property
    def mix(self) -> str:
        """What the seed's message gains from the beacon."""
        return f"drand:{self.round}:{self.randomness.hex()}"


def event_seed(secret: bytes | HmacKey, event_key: str, entropy: str = "",
               beacon: Beacon | None = None) -> bytes:
    """The 32-byte seed of one event's dice stream: from the branch secret (or its
    :class:`HmacKey`), the event key, the orders behind it and (when the event is bound to
    one) the beacon round's randomness."""
    message = (f"{event_key}|{entropy}" + (f"|{beacon.mix}" if beacon is not None else "")
               ).encode()
    return _mac(secret, message)


class FairDice(RecordingDice):
    """The dice of one event: a SHA-256 counter stream drawn without modulo bias."""

    def __init__(self, seed: bytes) -> None:
        super().__init__()
        self._seed = seed
        self._block = 0
        self._words: list[int] = []

    def _next_word(self) -> int:
        if not self._words:
            digest = hashlib.sha256(self._seed + self._block.to_bytes(8, "big")).digest()
            self._block += 1
            self._words = list(_EIGHT_WORDS.unpack(digest))
        return self._words.pop(0)

    def roll(self, sides: int, purpose: str = "") -> int:
        if not 1 <= sides <= MAX_SIDES:
            raise ValueError(f"a die has 1 to {MAX_SIDES} sides, not {sides}")
        limit = _WORD - _WORD % sides
        word = self._next_word()
        while word >= limit:
            word = self._next_word()
        return self._record(sides, word % sides + 1, purpose)


@dataclass(frozen=True, slots=True)
class EventKey:
    """Where one event's dice come from: the period, the branch, the key, the entropy and the
    beacon round (None: commit-reveal alone)."""

    period: int
    branch: str
    key: str
    entropy: str = ""
    beacon: Beacon | None = None

    def dice(self, campaign_secret: str) -> FairDice:
        """The event's dice, for whoever holds the campaign secret (the bot, the moderators)."""
        return self.dice_from_secret(branch_secret(campaign_secret, self.period, self.branch))

    def dice_from_secret(self, secret: bytes | HmacKey) -> FairDice:
        """The event's dice from the revealed branch secret (what a player verifies with), or
        from its :class:`HmacKey`."""
        return FairDice(event_seed(secret, self.key, self.entropy, self.beacon))

    def __str__(self) -> str:
        tail = f" | orders {self.entropy}" if self.entropy else ""
        tail += f" | beacon round {self.beacon.round}" if self.beacon else ""
        return f"period {self.period} | {self.branch} | {self.key}{tail}"


def replay(secret: bytes, event_key: str, entropy: str, sides: Iterable[int],
           beacon: Beacon | None = None) -> list[int]:
    """The values a sequence of dice (by their sides) took in one event: what verifying checks."""
    dice = FairDice(event_seed(secret, event_key, entropy, beacon))
    return [dice.roll(n) for n in sides]


def matches_commitment(secret: bytes, published: str) -> bool:
    """Whether a revealed secret is the one committed to (constant-time compare)."""
    return hmac.compare_digest(commitment(secret), published.strip().lower())


@dataclass(frozen=True, slots=True)
class DiceLine:
    """The dice of one event as a post prints them, so that anyone can check them later.

    ``beacon_round``: the beacon round the event is bound to (the line prints its number only;
    the round's randomness and signature stand on the post's ``beacon:`` line,
    :class:`rules.beacon.BeaconLine`). A line read back knows the number alone:
    :meth:`with_beacon` gives it the round's value before it is checked."""

    event: EventKey
    rolls: tuple[tuple[int, int], ...]  # (sides, value) in the order rolled
    beacon_round: int | None = None

    def __post_init__(self) -> None:
        if self.event.beacon is not None and self.beacon_round != self.event.beacon.round:
            object.__setattr__(self, "beacon_round", self.event.beacon.round)

    def __str__(self) -> str:
        rolls = ",".join(f"{s}:{v}" for s, v in self.rolls) or "-"
        orders = self.event.entropy or "-"
        beacon = f" beacon={self.beacon_round}" if self.beacon_round is not None else ""
        return (f"dice: v1 period={self.event.period} branch={self.event.branch} "
                f"key={self.event.key} orders={orders}{beacon} rolls={rolls}")

    def with_beacon(self, beacon: Beacon) -> DiceLine:
        """The line with its beacon round's value (which must be the round it names)."""
        if beacon.round != self.beacon_round:
            raise ValueError(f"this line is bound to beacon round {self.beacon_round}, "
                             f"not {beacon.round}")
        return DiceLine(replace(self.event, beacon=beacon), self.rolls, beacon.round)

    @classmethod
    def parse(cls, text: str) -> DiceLine:
        """Read the line :meth:`__str__` writes; raises ValueError on anything else."""
        words = text.strip().strip("`").split()
        if words[:2] != ["dice:", "v1"]:
            raise ValueError("a dice line starts with 'dice: v1'")
        pairs = [w.split("=", 1) for w in words[2:] if "=" in w]
        fields = dict(pairs)
        shown = text.strip()[:120]
        if len(fields) != len(pairs):
            raise ValueError(f"a dice line names each field once: {shown!r}")
        try:
            orders = "" if fields["orders"] == "-" else fields["orders"]
            rolls = () if fields["rolls"] == "-" else tuple(
                _roll(r) for r in fields["rolls"].split(","))
            event = EventKey(_whole(fields["period"]), fields["branch"], fields["key"], orders)
            beacon = _whole(fields["beacon"]) if "beacon" in fields else None
        except (KeyError, ValueError) as exc:
            raise ValueError(f"not a complete dice line ({exc}): {shown!r}") from None
        return cls(event, rolls, beacon)

    def mismatches(self, secret: bytes) -> list[str]:
        """What differs between the printed rolls and the ones the secret gives (empty: fair).
        A line bound to a beacon round needs the round's value (:meth:`with_beacon`)."""
        if self.beacon_round is not None and self.event.beacon is None:
            return [f"the line is bound to beacon round {self.beacon_round}, whose randomness "
                    "is not known here (the post's 'beacon:' line gives it)"]
        expected = replay(secret, self.event.key, self.event.entropy, (s for s, _ in self.rolls),
                          self.event.beacon)
        return [f"roll {i + 1} (d{s}): printed {v}, the secret gives {e}"
                for i, ((s, v), e) in enumerate(zip(self.rolls, expected, strict=True)) if v != e]


def _whole(text: str) -> int:
    if not text.isascii() or not text.isdigit() or len(text) > 12:
        raise ValueError(f"{text[:20]!r} is not a whole number")
    return int(text)


def _roll(text: str) -> tuple[int, int]:
    """One ``sides:value`` of a dice line: a die of 1..MAX_SIDES sides showing a face of it."""
    sides, _, value = text.partition(":")
    s, v = _whole(sides), _whole(value)
    if not 1 <= s <= MAX_SIDES:
        raise ValueError(f"a d{s} is no die (1 to {MAX_SIDES} sides)")
    if not 1 <= v <= s:
        raise ValueError(f"a d{s} cannot show {v}")
    return s, v


def dice_line(event: EventKey, dice: RecordingDice) -> DiceLine:
    """The printable dice line of an event once its dice have been rolled."""
    return DiceLine(event, tuple((r.sides, r.value) for r in dice.rolls))


# --- periods: what is committed to and revealed when ----------------------------------------

def dice_period(month: int, period_months: int) -> int:
    """The dice period in-game month number ``month`` belongs to."""
    return month // period_months


@dataclass(frozen=True, slots=True)
class Branch:
    """One branch of a period with its commitment."""

    name: str
    commitment: str


def branches(campaign_secret: str, period: int, claim_ids: Iterable[int]) -> tuple[Branch, ...]:
    """The public branch and every claim's branch of ``period`` (claims by id), with their
    commitments."""
    names = [PUBLIC, *(claim_branch(c) for c in sorted(claim_ids))]
    return tuple(Branch(n, commitment(branch_secret(campaign_secret, period, n))) for n in names)


@dataclass(frozen=True, slots=True)
class Reveal:
    """The secret of a branch of an ended period, for whoever may read it (``claim_id`` None:
    the public branch, for everybody)."""

    claim_id: int | None
    branch: str
    secret: bytes

    @property
    def commitment(self) -> str:
        return commitment(self.secret)


@dataclass(frozen=True, slots=True)
class PeriodTurn:
    """What a month boundary that begins dice period ``period`` publishes: the commitments of
    the period after it (``commit``), and, but at the first period, the secrets of the period
    that ended (``ended``): the public one (``public``) and each claim's (``claims``)."""

    period: int
    commit: tuple[Branch, ...]
    ended: int | None
    public: Reveal | None
    claims: tuple[Reveal, ...]


def period_turn(campaign_secret: str, month: int, period_months: int,
                claim_ids: Iterable[int]) -> PeriodTurn | None:
    """What in-game month number ``month`` commits to and reveals; None when it does not begin
    a dice period."""
    if month % period_months:
        return None
    ids = sorted(claim_ids)
    period = dice_period(month, period_months)
    commit = branches(campaign_secret, period + 1, ids)
    ended = period - 1
    if ended < 0:
        return PeriodTurn(period, commit, None, None, ())
    public = Reveal(None, PUBLIC, branch_secret(campaign_secret, ended, PUBLIC))
    claims = tuple(Reveal(c, claim_branch(c), branch_secret(campaign_secret, ended,
                                                            claim_branch(c))) for c in ids)
    return PeriodTurn(period, commit, ended, public, claims)


def lines_by_branch(lines: Iterable[str]) -> dict[str, list[str]]:
    """Printed dice lines grouped by the branch they rolled on (in the order given)."""
    grouped: dict[str, list[str]] = {}
    for line in lines:
        grouped.setdefault(DiceLine.parse(line).event.branch, []).append(line)
    return grouped
