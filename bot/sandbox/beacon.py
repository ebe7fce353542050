"""A local stand-in for a drand beacon: real HTTP, rounds signed with a key of its own under
drand's ``bls-unchained-g1-rfc9380`` scheme (docs/dice.md), for the tests and the offline demo.

It answers ``GET /<chain hash>/info`` and ``GET /<chain hash>/public/<round>`` (and
``/public/latest``) as drand's HTTP API does. Rounds after :attr:`LocalBeacon.latest` are not
published yet (404). For the tests it can misbehave on purpose: :attr:`forge` signs with
another key (a wrong signature), :attr:`shift` answers another round than the one asked (a
round from the wrong time), :attr:`other_chain` describes another chain in ``/info``.

Like the rest of the sandbox it imports nothing of the bot: the scheme is written here again
from its description (SHA-256 of the round as 8 bytes big-endian, hashed to G1 with the RFC
9380 suite ``BLS_SIG_BLS12381G1_XMD:SHA-256_SSWU_RO_NUL_``, signed by the secret scalar; the
public key is the scalar times G2's generator; randomness is SHA-256 of the signature).
"""

from __future__ import annotations

import hashlib
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from py_ecc.bls.hash_to_curve import hash_to_G1
from py_ecc.bls.point_compression import compress_G1, compress_G2
from py_ecc.optimized_bls12_381.optimized_curve import G2, multiply

_DST = b"BLS_SIG_BLS12381G1_XMD:SHA-256_SSWU_RO_NUL_"
TEST_KEY = 0x2A_5EED_0F_D1CE
"""The local beacon's default secret scalar: a test key, public on purpose."""


def public_key_of(secret: int) -> bytes:
    """The 96-byte compressed G2 public key of a secret scalar."""
    high, low = compress_G2(multiply(G2, secret))
    return high.to_bytes(48, "big") + low.to_bytes(48, "big")


def sign_round(secret: int, number: int) -> bytes:
    """Round ``number``'s 48-byte signature under the secret scalar."""
    message = hashlib.sha256(number.to_bytes(8, "big")).digest()
    point = multiply(hash_to_G1(message, _DST, hashlib.sha256), secret)  # type: ignore[arg-type]
    return int(compress_G1(point)).to_bytes(48, "big")


class LocalBeacon:
    """A signing beacon on 127.0.0.1 (:meth:`start` gives its base URL)."""

    def __init__(self, *, genesis: int, period: int = 3, secret: int = TEST_KEY,
                 latest: int | None = None) -> None:
        self.genesis, self.period, self.secret = genesis, period, secret
        self.latest = latest  # None: every round is published
        self.forge = False
        self.shift = 0
        self.other_chain = False
        self.public_key = public_key_of(secret).hex()
        self.chain_hash = hashlib.sha256(
            f"{self.public_key}|{genesis}|{period}".encode()).hexdigest()
        self.asked: list[str] = []  # the paths asked, in order
        self._signed: dict[tuple[int, int], bytes] = {}
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    def info(self) -> dict[str, Any]:
        chain = "0" * 64 if self.other_chain else self.chain_hash
        return {"public_key": self.public_key, "period": self.period,
                "genesis_time": self.genesis, "hash": chain, "groupHash": "0" * 64,
                "schemeID": "bls-unchained-g1-rfc9380", "metadata": {"beaconID": "local"}}

    def signature(self, number: int, secret: int | None = None) -> bytes:
        key = self.secret if secret is None else secret
        with self._lock:
            found = self._signed.get((key, number))
        if found is None:
            found = sign_round(key, number)
            with self._lock:
                self._signed[(key, number)] = found
        return found

    def round(self, number: int) -> dict[str, Any]:
        """A round as the API answers it (with the misbehaviours switched on)."""
        served = number + self.shift
        signature = self.signature(served, self.secret + 1 if self.forge else None)
        return {"round": served, "randomness": hashlib.sha256(signature).hexdigest(),
                "signature": signature.hex()}

    def answer(self, path: str) -> tuple[int, dict[str, Any] | None]:
        self.asked.append(path)
        parts = [p for p in path.split("?")[0].split("/") if p]
        if len(parts) < 2 or parts[0] != self.chain_hash:
            return 404, None
        if parts[1:] == ["info"]:
            return 200, self.info()
        if len(parts) == 3 and parts[1] == "public":
            if parts[2] == "latest":
                if self.latest is None:
                    return 404, None
                return 200, self.round(self.latest)
            if not parts[2].isdigit():
                return 400, None
            number = int(parts[2])
            if number < 1 or (self.latest is not None and number > self.latest):
                return 404, None
            return 200, self.round(number)
        return 404, None

    def start(self) -> str:
        beacon = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                status, body = beacon.answer(self.path)
                data = json.dumps(body or {"error": "not found"}).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: Any) -> None:
                return

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True,
                                        name="local-beacon")
        self._thread.start()
        return self.url

    @property
    def url(self) -> str:
        assert self._server is not None, "the local beacon is not started"
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def settings(self, *, margin: int = 0, timeout: float = 15.0) -> dict[str, Any]:
        """The ``[dice]`` settings of a campaign bound to this beacon."""
        return {"beacon": "drand", "beacon_url": self.url, "beacon_chain": self.chain_hash,
                "beacon_public_key": self.public_key, "beacon_genesis": self.genesis,
                "beacon_period": self.period, "beacon_margin": margin,
                "beacon_timeout": timeout}
