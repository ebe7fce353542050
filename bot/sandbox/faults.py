"""Faults the sandbox can inject into its answers, queued or at random.

A fault replaces (or delays) the answer to one request. Queued faults are matched by HTTP
method and a glob on the request path and apply to the next matching request(s); random
faults hit each eligible request with a fixed probability, driven by a seeded
``random.Random`` so a test run is reproducible.
"""

from __future__ import annotations

import fnmatch
import random
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

TOKEN_PATH = "/api/v1/access_token"

#: Faults that only make sense as the answer to a POST (an action Reddit refused).
POST_ONLY_KINDS = frozenset({"ratelimit", "api_error"})


class FaultKind(StrEnum):
    """What a fault does to the request it hits."""

    TOO_MANY_REQUESTS = "too_many_requests"
    """HTTP 429 with exhausted ``x-ratelimit-*`` headers; prawcore raises TooManyRequests."""
    SERVER_ERROR = "server_error"
    """HTTP 500/502/503/504 without doing anything; prawcore retries twice."""
    INVALID_TOKEN = "invalid_token"
    """HTTP 401 with ``www-authenticate: ... invalid_token``; the token is revoked."""
    RATELIMIT = "ratelimit"
    """HTTP 200 with a ``RATELIMIT`` API error ("you are doing that too much ...")."""
    FORBIDDEN = "forbidden"
    """HTTP 403 without ``www-authenticate``; prawcore raises Forbidden."""
    API_ERROR = "api_error"
    """HTTP 200 with any ``{"json": {"errors": [[code, message, field]]}}``."""
    STORED_THEN_SLOW = "stored_then_slow"
    """The action is performed, then the answer is held for ``delay`` seconds."""
    STORED_THEN_HELD = "stored_then_held"
    """The action is performed, then the answer is held until the test calls
    ``release_held()`` (or the sandbox stops): a Reddit as slow as a test needs, with no
    clock in it."""
    STORED_THEN_ERROR = "stored_then_error"
    """The action is performed, then the answer is a 5xx (default 504)."""
    LOST = "lost"
    """Nothing is performed; after ``delay`` seconds the answer is a 504."""


@dataclass(frozen=True, slots=True)
class Fault:
    """One injected failure; build it with the class methods, not the constructor."""

    kind: FaultKind
    status: int = 0
    delay: float = 0.0
    amount: int = 0
    unit: str = "minutes"
    code: str = ""
    message: str = ""
    field: str | None = None
    reset_seconds: int = 1

    @classmethod
    def too_many_requests(cls, *, reset_seconds: int = 1) -> Fault:
        """A 429. prawcore sleeps ``max(1, reset_seconds)`` before its next request."""
        return cls(FaultKind.TOO_MANY_REQUESTS, status=429, reset_seconds=reset_seconds)

    @classmethod
    def server_error(cls, status: int = 500) -> Fault:
        """A 5xx answer (500, 502, 503, 504, 520 or 522) that changes nothing."""
        if status not in (500, 502, 503, 504, 520, 522):
            raise ValueError(f"not a server error status Reddit sends: {status}")
        return cls(FaultKind.SERVER_ERROR, status=status)

    @classmethod
    def invalid_token(cls) -> Fault:
        """A 401 that revokes the access token the request carried."""
        return cls(FaultKind.INVALID_TOKEN, status=401)

    @classmethod
    def ratelimit(cls, amount: int = 9, unit: str = "minutes") -> Fault:
        """A ``RATELIMIT`` API error asking to wait ``amount`` ``unit`` (minutes/seconds)."""
        if unit not in ("minutes", "minute", "seconds", "second", "milliseconds"):
            raise ValueError(f"unit must be minutes, seconds or milliseconds, not {unit!r}")
        return cls(FaultKind.RATELIMIT, status=200, amount=amount, unit=unit)

    @classmethod
    def forbidden(cls) -> Fault:
        """A plain 403 (the bot lost its permissions, the subreddit went private...)."""
        return cls(FaultKind.FORBIDDEN, status=403)

    @classmethod
    def api_error(
        cls,
        code: str = "SUBREDDIT_NOTALLOWED",
        message: str = "you aren't allowed to post there.",
        field: str | None = "sr",
    ) -> Fault:
        """A 200 carrying one Reddit API error triple."""
        return cls(FaultKind.API_ERROR, status=200, code=code, message=message, field=field)

    @classmethod
    def stored_then_slow(cls, delay: float = 2.0) -> Fault:
        """Perform the action, then answer only after ``delay`` seconds (client times out)."""
        return cls(FaultKind.STORED_THEN_SLOW, delay=delay)

    @classmethod
    def stored_then_held(cls) -> Fault:
        """Perform the action, then hold the answer until ``release_held()``."""
        return cls(FaultKind.STORED_THEN_HELD)

    @classmethod
    def stored_then_error(cls, status: int = 504) -> Fault:
        """Perform the action, then answer with a 5xx (prawcore retries: a duplicate)."""
        return cls(FaultKind.STORED_THEN_ERROR, status=status)

    @classmethod
    def lost(cls, delay: float = 2.0) -> Fault:
        """Do nothing, wait ``delay`` seconds, then answer 504 if anyone still listens."""
        return cls(FaultKind.LOST, status=504, delay=delay)

    @property
    def ratelimit_text(self) -> str:
        """The message Reddit sends with a ``RATELIMIT`` error."""
        return f"you are doing that too much. try again in {self.amount} {self.unit}."

    def to_json(self) -> dict[str, Any]:
        """This fault as a JSON object (for the control endpoint)."""
        return {
            "kind": self.kind.value,
            "status": self.status,
            "delay": self.delay,
            "amount": self.amount,
            "unit": self.unit,
            "code": self.code,
            "message": self.message,
            "field": self.field,
            "reset_seconds": self.reset_seconds,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Fault:
        """Rebuild a fault from :meth:`to_json`; raises ValueError on an unknown kind."""
        known = {f for f in cls.__dataclass_fields__ if f != "kind"}
        extra = set(data) - known - {"kind"}
        if extra:
            raise ValueError(f"unknown fault fields: {sorted(extra)}")
        kwargs = {k: v for k, v in data.items() if k in known}
        return cls(FaultKind(data["kind"]), **kwargs)


@dataclass(slots=True)
class FaultRule:
    """A queued fault: applies to the next ``remaining`` matching requests (None: forever)."""

    fault: Fault
    method: str = "*"
    path: str = "*"
    remaining: int | None = 1

    def matches(self, method: str, path: str) -> bool:
        """Whether this rule applies to a request; the token path must be named explicitly."""
        if self.method != "*" and self.method.upper() != method.upper():
            return False
        if path == TOKEN_PATH and not self.path.startswith(TOKEN_PATH):
            return False
        return fnmatch.fnmatchcase(path, self.path)


@dataclass(slots=True)
class _RandomMode:
    probability: float
    faults: tuple[Fault, ...]
    rng: random.Random
    methods: frozenset[str]
    path: str
    hits: int = 0


@dataclass(slots=True)
class FaultPlan:
    """The queue of faults plus an optional random mode; thread-safe."""

    _rules: list[FaultRule] = field(default_factory=list)
    _random: _RandomMode | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def add(
        self, fault: Fault, *, method: str = "*", path: str = "*", times: int | None = 1
    ) -> None:
        """Queue ``fault`` for the next ``times`` requests matching method and path glob.

        ``times=None`` keeps the fault until :meth:`clear`. Paths are compared without the
        query string and without a trailing slash, e.g. ``/api/submit`` or
        ``/api/mod/conversations/*``. Raises ValueError for ``times < 1``.
        """
        if times is not None and times < 1:
            raise ValueError("times must be at least 1 (or None for a lasting fault)")
        with self._lock:
            self._rules.append(FaultRule(fault, method, path.rstrip("/") or "/", times))

    def set_random(
        self,
        probability: float,
        faults: Sequence[Fault],
        *,
        seed: int,
        methods: Iterable[str] = ("GET", "POST"),
        path: str = "*",
    ) -> None:
        """Make each eligible request fail with ``probability``, picking one of ``faults``.

        The token endpoint is never hit by random faults. RATELIMIT and API errors are only
        chosen for POSTs. ``probability=0`` switches the random mode off. Raises ValueError
        for a probability outside [0, 1] or an empty fault list.
        """
        if not 0.0 <= probability <= 1.0:
            raise ValueError("probability must be between 0 and 1")
        with self._lock:
            if probability == 0.0:
                self._random = None
                return
            if not faults:
                raise ValueError("give at least one fault for the random mode")
            self._random = _RandomMode(
                probability,
                tuple(faults),
                random.Random(seed),
                frozenset(m.upper() for m in methods),
                path,
            )

    def clear(self) -> None:
        """Forget every queued fault and switch the random mode off."""
        with self._lock:
            self._rules.clear()
            self._random = None

    def pending(self) -> list[FaultRule]:
        """Copies of the queued rules that have not been used up."""
        with self._lock:
            return [FaultRule(r.fault, r.method, r.path, r.remaining) for r in self._rules]

    @property
    def random_hits(self) -> int:
        """How many requests the random mode has failed so far."""
        with self._lock:
            return 0 if self._random is None else self._random.hits

    def take(self, method: str, path: str) -> Fault | None:
        """The fault for this request, if any, consuming one use of a queued rule."""
        with self._lock:
            for rule in self._rules:
                if rule.matches(method, path):
                    if rule.remaining is not None:
                        rule.remaining -= 1
                        if rule.remaining == 0:
                            self._rules.remove(rule)
                    return rule.fault
            mode = self._random
            if mode is None or path == TOKEN_PATH or method.upper() not in mode.methods:
                return None
            if not fnmatch.fnmatchcase(path, mode.path):
                return None
            # Draw even when nothing is eligible so the sequence does not depend on the mix.
            roll = mode.rng.random()
            choices = [
                f
                for f in mode.faults
                if method.upper() == "POST" or f.kind.value not in POST_ONLY_KINDS
            ]
            if roll >= mode.probability or not choices:
                return None
            mode.hits += 1
            return mode.rng.choice(choices)
