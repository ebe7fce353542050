"""A public randomness beacon (drand) as the dice see it: which round an event is bound to, and
whether a round's signature is the chain's (docs/dice.md, *Bound to a public beacon*).

drand's chains publish one round every ``period`` seconds from ``genesis`` on. On a chain of
the ``bls-unchained-g1-rfc9380`` scheme (the League of Entropy's *quicknet*), round ``n``'s
signature is a BLS signature on the curve BLS12-381's group G1 of ``SHA-256(n as 8 bytes,
big-endian)``, hashed to G1 as RFC 9380 says (domain tag :data:`DST`), under the chain's public
key in G2; its randomness is ``SHA-256(signature)``. Nobody, not the chain's own nodes alone,
can make a round's signature before the round's time comes (it takes a threshold of them), and
anyone can check it with the public key.

Everything here is pure (no network, no clock): the bot fetches rounds (:mod:`bot.services.
beacon`), the verifier scripts and the tests check them with these functions. The pairing
check uses py_ecc (a pure-Python BLS12-381, imported when a signature is checked: a check
costs about 0.2-1 s, so a checked round is stored and not checked again).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from rules.fairdice import Beacon

SCHEME = "bls-unchained-g1-rfc9380"
"""The one drand scheme maester checks: unchained rounds, signatures on G1, RFC 9380."""
DST = b"BLS_SIG_BLS12381G1_XMD:SHA-256_SSWU_RO_NUL_"
"""The domain separation tag of the scheme's hash to G1."""

QUICKNET_HASH = "52db9ba70e0cc0f6eaf7803dd07447a1f5477735fd3f661792ba94600c84e971"
QUICKNET_PUBLIC_KEY = (
    "83cf0f2896adee7eb8b5f01fcad3912212c437e0073e911fb90022d3e760183c8c4b450b6a0a6c3ac6a5776a"
    "2d1064510d1fec758c921cc22b0e17e63aaf4bcb5ed66304de9cf809bd274ca73bab4af5a6e9c76a4bc09e76"
    "eae8991ef5ece45a")
QUICKNET_GENESIS = 1692803367
QUICKNET_PERIOD = 3

_HEX = re.compile(r"[0-9a-f]+")


@dataclass(frozen=True, slots=True)
class Chain:
    """A drand chain as the campaign pins it: its hash (the chain's name in the HTTP API), its
    public key (hex of the compressed G2 point), its genesis (Unix seconds) and its period."""

    hash: str
    public_key: str
    genesis: int
    period: int

    def round_at_or_after(self, unix_seconds: int) -> int:
        """The first round published at or after ``unix_seconds`` (round 1 before genesis)."""
        if unix_seconds <= self.genesis:
            return 1
        return -((self.genesis - unix_seconds) // self.period) + 1

    def time_of(self, round_number: int) -> int:
        """When round ``round_number`` is published (Unix seconds)."""
        return self.genesis + (round_number - 1) * self.period

    def info_mismatches(self, info: dict[str, Any]) -> list[str]:
        """What differs between the chain's ``/info`` answer and the pinned chain (empty: the
        same chain)."""
        wanted = {"hash": self.hash, "public_key": self.public_key,
                  "genesis_time": self.genesis, "period": self.period, "schemeID": SCHEME}
        return [f"{name} is {info.get(name)!r}, the campaign pins {value!r}"
                for name, value in wanted.items() if info.get(name) != value]


QUICKNET = Chain(QUICKNET_HASH, QUICKNET_PUBLIC_KEY, QUICKNET_GENESIS, QUICKNET_PERIOD)


def round_message(round_number: int) -> bytes:
    """What a round's signature signs: SHA-256 of the round number as 8 bytes, big-endian."""
    return hashlib.sha256(round_number.to_bytes(8, "big")).digest()


def randomness_of(signature: bytes) -> bytes:
    """A round's randomness: SHA-256 of its signature."""
    return hashlib.sha256(signature).digest()


@lru_cache(maxsize=256)
def signature_valid(public_key: bytes, round_number: int, signature: bytes) -> bool:
    """Whether ``signature`` (48 bytes, a compressed G1 point) is the chain's signature of round
    ``round_number`` under ``public_key`` (96 bytes, a compressed G2 point): the pairing check
    e(signature, G2's generator) == e(hash_to_G1(message), public key).

    The answer depends on the arguments alone, and a check costs a few tenths of a second of
    CPU, so a process remembers its last answers (a verifier reading a battle post and its
    period's reveal checks their one round once; so do worlds replayed in one process)."""
    if len(signature) != 48 or len(public_key) != 96 or round_number < 0:
        return False
    from py_ecc.bls.g2_primitives import subgroup_check
    from py_ecc.bls.hash_to_curve import hash_to_G1
    from py_ecc.bls.point_compression import decompress_G1, decompress_G2
    from py_ecc.bls.typing import G1Compressed, G2Compressed
    from py_ecc.fields import optimized_bls12_381_FQ12 as FQ12
    from py_ecc.optimized_bls12_381.optimized_curve import G2, neg
    from py_ecc.optimized_bls12_381.optimized_pairing import final_exponentiate, miller_loop
    try:
        point = decompress_G1(G1Compressed(int.from_bytes(signature, "big")))
        key = decompress_G2(G2Compressed((int.from_bytes(public_key[:48], "big"),
                                          int.from_bytes(public_key[48:], "big"))))
    except (ValueError, AssertionError):
        return False
    if not subgroup_check(point) or not subgroup_check(key):
        return False
    hashed = hash_to_G1(round_message(round_number), DST, hashlib.sha256)  # type: ignore[arg-type]
    product = (miller_loop(G2, neg(point), final_exponentiate=False)
               * miller_loop(key, hashed, final_exponentiate=False))
    return bool(final_exponentiate(product) == FQ12.one())


@dataclass(frozen=True, slots=True)
class BeaconLine:
    """What a post with dice says of its beacon round, on one line of its own:

    ``beacon: drand chain=<hash> round=<n> randomness=<hex> signature=<hex>`` for a round the
    dice are bound to, or ``beacon: none round=<n>`` when the round could not be had in time and
    the dice come from commit-reveal alone (``signature`` empty)."""

    chain: str
    round: int
    signature: bytes = b""

    @property
    def bound(self) -> bool:
        return bool(self.signature)

    @property
    def value(self) -> Beacon | None:
        """The round as the seeds mix it (None when the dice are not bound to it)."""
        return Beacon(self.round, randomness_of(self.signature)) if self.signature else None

    def check(self, public_key: str) -> list[str]:
        """What is wrong with the round under the chain's public key (empty: it is the chain's
        signature of that round)."""
        if not self.signature:
            return []
        if not signature_valid(bytes.fromhex(public_key), self.round, self.signature):
            return [f"the signature of beacon round {self.round} is not the chain's "
                    f"(chain {self.chain[:12]}...)"]
        return []

    def __str__(self) -> str:
        if not self.signature:
            return f"beacon: none round={self.round}"
        return (f"beacon: drand chain={self.chain} round={self.round} "
                f"randomness={randomness_of(self.signature).hex()} "
                f"signature={self.signature.hex()}")

    @classmethod
    def parse(cls, text: str) -> BeaconLine:
        """Read the line :meth:`__str__` writes; ValueError saying what is wrong otherwise."""
        words = text.strip().strip("`").split()
        if words[:1] != ["beacon:"] or len(words) < 2:
            raise ValueError("a beacon line starts with 'beacon: drand' or 'beacon: none'")
        fields = dict(w.split("=", 1) for w in words[2:] if "=" in w)
        number = fields.get("round", "")
        if not number.isascii() or not number.isdigit() or len(number) > 15:
            raise ValueError("a beacon line names its round= with a whole number")
        if words[1] == "none":
            return cls("", int(number))
        if words[1] != "drand":
            raise ValueError(f"unknown beacon {words[1][:20]!r} (maester reads drand)")
        chain, signature = fields.get("chain", ""), fields.get("signature", "")
        randomness = fields.get("randomness", "")
        for name, value, size in (("chain", chain, 64), ("signature", signature, 96),
                                  ("randomness", randomness, 64)):
            if len(value) != size or not _HEX.fullmatch(value):
                raise ValueError(f"a beacon line's {name}= has {size} lower-case hex digits")
        line = cls(chain, int(number), bytes.fromhex(signature))
        if randomness_of(line.signature).hex() != randomness:
            raise ValueError(f"beacon round {number}: randomness= is not SHA-256 of its "
                             "signature")
        return line


def beacon_lines(text: str) -> dict[int, BeaconLine]:
    """Every well-formed beacon line in a post's text, by round."""
    found: dict[int, BeaconLine] = {}
    for raw in text.splitlines():
        if "beacon: " not in raw:
            continue
        try:
            line = BeaconLine.parse(raw[raw.index("beacon: "):].split("`")[0])
        except ValueError:
            continue
        found[line.round] = line
    return found
