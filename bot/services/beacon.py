"""The public beacon a tick's dice are bound to (``[dice] beacon = "drand"``, docs/dice.md).

Before a tick is applied, :func:`prepare` works out its round (the first at or after the
tick's moment plus ``beacon_margin`` seconds: :func:`round_for`), fetches it from the beacon's
HTTP API (``GET <beacon_url>/<chain hash>/public/<round>``, after checking once that
``GET <beacon_url>/<chain hash>/info`` describes the pinned chain), checks its signature under
the pinned public key (:func:`rules.beacon.signature_valid`) and stores it
(:class:`~bot.db.models.BeaconRound`), in a transaction of its own, before the tick's. The
tick then reads the stored round (:func:`tick_beacon`): a tick applied again (a crash, an undo)
rolls the same dice, and the preview never fetches.

Waiting is bounded: one :class:`Fetcher` serves one catch-up and waits at most
``beacon_timeout`` seconds for a round (a round not published yet is asked again until then);
once it has waited that long in vain, it asks no more in that catch-up (an answer, good or
bad, gives the next round the whole wait again). A
round that cannot be had in time, from the wrong chain, with the wrong signature or for
another round than asked is stored as *unavailable* with the reason: the tick's dice come from
commit-reveal alone, and its posts say so.
"""

from __future__ import annotations

import json
import math
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import Engine
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from bot.config import DiceSettings
from bot.db.engine import transaction
from bot.db.models import BeaconRound
from bot.services.world import CampaignContext, current
from rules.beacon import BeaconLine, Chain, signature_valid
from rules.fairdice import Beacon

RETRY_SECONDS = 0.5
"""How long a fetch waits before asking again for a round not published yet."""


def enabled(ctx: CampaignContext) -> bool:
    return ctx.settings.dice.beacon == "drand"


def chain_of(settings: DiceSettings) -> Chain:
    """The pinned chain of ``[dice]``."""
    return Chain(settings.beacon_chain, settings.beacon_public_key, settings.beacon_genesis,
                 settings.beacon_period)


def round_for(ctx: CampaignContext, tick: int) -> int:
    """The round tick ``tick``'s dice are bound to: the first published at or after the tick's
    moment plus ``[dice] beacon_margin`` seconds."""
    moment = math.ceil(ctx.tick_at(tick).timestamp()) + ctx.settings.dice.beacon_margin
    return chain_of(ctx.settings.dice).round_at_or_after(moment)


def due_text(ctx: CampaignContext, tick: int) -> str:
    """The moment tick ``tick``'s round is bound to, as posts print it (UTC, to the second)."""
    moment = ctx.tick_at(tick) + timedelta(seconds=ctx.settings.dice.beacon_margin)
    return f"{moment.astimezone(UTC):%Y-%m-%d %H:%M:%S} UTC"


@dataclass(frozen=True, slots=True)
class TickBeacon:
    """What a tick's dice are bound to: ``line`` (its round, signed, or ``beacon: none``), or
    nothing (``line`` None) when the campaign has no beacon; ``pending``: the round is not
    stored yet (a preview), so the dice shown are drawn without it and will change."""

    line: BeaconLine | None = None
    pending: int | None = None
    due: str = ""  # the moment the round is bound to (:func:`due_text`)

    @property
    def value(self) -> Beacon | None:
        return self.line.value if self.line is not None else None


NO_BEACON = TickBeacon()


def tick_beacon(session: Session, ctx: CampaignContext, tick: int) -> TickBeacon:
    """The stored round of ``tick`` (never fetched here)."""
    if not enabled(ctx):
        return NO_BEACON
    row = stored(session, ctx, tick)
    if row is None:
        return TickBeacon(pending=round_for(ctx, tick), due=due_text(ctx, tick))
    return TickBeacon(line_of(row), due=due_text(ctx, tick))


def stored(session: Session, ctx: CampaignContext, tick: int) -> BeaconRound | None:
    return session.exec(select(BeaconRound).where(BeaconRound.campaign_id == ctx.campaign_id,
                                                  BeaconRound.tick == tick)).first()


def line_of(row: BeaconRound) -> BeaconLine:
    return BeaconLine(row.chain, row.round, bytes.fromhex(row.signature))


def rows_by_round(session: Session, ctx: CampaignContext, rounds: set[int]
                  ) -> dict[int, BeaconRound]:
    """The stored rows of the rounds among ``rounds`` that were had (bound), by number."""
    if not rounds:
        return {}
    rows = session.exec(select(BeaconRound).where(BeaconRound.campaign_id == ctx.campaign_id,
                                                  BeaconRound.signature != "",
                                                  col(BeaconRound.round).in_(rounds))).all()
    return {r.round: r for r in rows}


def by_round(session: Session, ctx: CampaignContext, rounds: set[int]) -> dict[int, BeaconLine]:
    """The stored rounds among ``rounds`` (the bound ones), by number."""
    return {n: line_of(r) for n, r in rows_by_round(session, ctx, rounds).items()}


class Fetcher:
    """Fetches and checks rounds for one catch-up, waiting ``beacon_timeout`` seconds at most
    in all (``clock``/``sleep``: the monotonic clock and the pause, for tests)."""

    def __init__(self, settings: DiceSettings, *,
                 clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self.settings = settings
        self.chain = chain_of(settings)
        self._clock, self._sleep = clock, sleep
        self._deadline: float | None
        self._tries_left: int
        self._whole_wait()
        self._chain_checked: str | None = None  # "" when it is the pinned chain

    def _whole_wait(self) -> None:
        """Give the next round the whole wait: ``beacon_timeout`` seconds from its first ask
        (the clock starts then), asked again every :data:`RETRY_SECONDS` until then."""
        self._deadline = None
        self._tries_left = math.ceil(self.settings.beacon_timeout / RETRY_SECONDS) + 1

    def _remaining(self) -> float:
        if self._deadline is None:
            self._deadline = self._clock() + self.settings.beacon_timeout
        return max(0.0, self._deadline - self._clock())

    def get(self, path: str) -> tuple[int, Any]:
        """``GET <beacon_url>/<chain hash>/<path>``: (HTTP status, decoded JSON or None); status
        0 when the beacon could not be reached. It counts as one of the catch-up's tries and
        waits no longer than what is left of its wait."""
        url = f"{self.settings.beacon_url.rstrip('/')}/{self.chain.hash}/{path}"
        wait = max(0.05, min(self._remaining(), self.settings.beacon_timeout))
        self._tries_left -= 1
        try:
            with urllib.request.urlopen(url, timeout=wait) as answer:
                return answer.status, json.loads(answer.read(65536).decode())
        except urllib.error.HTTPError as error:
            return error.code, None
        except (OSError, ValueError):
            return 0, None

    def _chain_problem(self) -> str:
        """Why the beacon is not the pinned chain ("" when it is); asked once per catch-up."""
        if self._chain_checked is None:
            status, info = self.get("info")
            if status != 200 or not isinstance(info, dict):
                return f"its chain information could not be read (status {status or 'none'})"
            problems = self.chain.info_mismatches(info)
            self._chain_checked = ("wrong chain: " + "; ".join(problems)) if problems else ""
        return self._chain_checked

    def fetch(self, number: int) -> tuple[bytes, str]:
        """Round ``number``'s signature, checked (and "" as the reason), or b"" and the reason
        it could not be had."""
        reason = "the beacon could not be reached"
        while self._tries_left > 0 and self._remaining() > 0:
            problem = self._chain_problem()
            if problem.startswith("wrong chain"):
                return b"", problem
            if not problem:
                status, data = self.get(f"public/{number}")
                if status == 200:
                    # an answer (good or bad): the next round gets the whole wait again
                    self._whole_wait()
                    return self.checked(number, data)
                reason = (f"round {number} was not published in time" if status in (404, 425)
                          else f"the beacon answered status {status}" if status
                          else "the beacon could not be reached")
            else:
                reason = f"the beacon could not be reached: {problem}"
            pause = min(RETRY_SECONDS, self._remaining())
            if pause <= 0:
                break
            self._sleep(pause)
        return b"", f"{reason} within {self.settings.beacon_timeout:g} s"

    def checked(self, number: int, data: Any) -> tuple[bytes, str]:
        """The signature of round ``number`` in the beacon's answer ``data``, checked under the
        pinned public key (and "" as the reason), or b"" and what is wrong with it."""
        if not isinstance(data, dict):
            return b"", "the beacon's answer is not a round"
        if data.get("round") != number:
            return b"", f"asked for round {number}, the beacon gave round {data.get('round')!r}"
        text = data.get("signature")
        if not isinstance(text, str) or len(text) != 96:
            return b"", f"round {number} has no 48-byte signature"
        try:
            signature = bytes.fromhex(text)
        except ValueError:
            return b"", f"round {number}'s signature is not hexadecimal"
        if not signature_valid(bytes.fromhex(self.chain.public_key), number, signature):
            return b"", f"round {number}'s signature is not the chain's (wrong signature)"
        return signature, ""


@dataclass(frozen=True, slots=True)
class Probe:
    """What :func:`probe` found: ``problem`` is "" (the pinned chain answers), ``UNREACHABLE``
    (the network: nothing says the settings are wrong) or ``WRONG_CHAIN`` (the beacon answers,
    but not as the pinned chain); ``detail`` says it in a sentence."""

    problem: str
    detail: str


UNREACHABLE = "unreachable"
WRONG_CHAIN = "wrong chain"


def probe(settings: DiceSettings, *, timeout: float | None = None) -> Probe:
    """Ask the beacon of ``[dice]`` for the pinned chain's ``/info`` and its latest round
    (``maester check``), waiting ``timeout`` seconds at most in all (default
    ``beacon_timeout``). A failure of the network is told apart from a beacon that answers
    for another chain: no ``/info`` for the pinned hash, an ``/info`` that differs from the
    pin, or a latest round not signed by the pinned key."""
    if timeout is not None:
        settings = settings.model_copy(update={"beacon_timeout": timeout})
    fetcher = Fetcher(settings)
    chain, url = fetcher.chain, settings.beacon_url.rstrip("/")
    status, info = fetcher.get("info")
    if status == 0:
        return Probe(UNREACHABLE, f"{url} could not be reached within "
                     f"{settings.beacon_timeout:g} s (network, DNS, firewall or the beacon "
                     "is down); until it can, each tick's dice come from commit-reveal alone "
                     "and their posts say so")
    if status != 200 or not isinstance(info, dict):
        return Probe(WRONG_CHAIN, f"{url} answers, but not for the pinned chain "
                     f"{chain.hash[:16]}...: /info gave status {status} (does this beacon "
                     "serve that chain? check [dice] beacon_url and beacon_chain)")
    mismatches = chain.info_mismatches(info)
    if mismatches:
        return Probe(WRONG_CHAIN, f"{url} describes another chain than the pinned one: "
                     + "; ".join(mismatches))
    status, latest = fetcher.get("public/latest")
    if status == 0:
        return Probe(UNREACHABLE, f"{url} gave the chain's /info, then could not be reached "
                     "for its latest round")
    number = latest.get("round") if isinstance(latest, dict) else None
    if status != 200 or not isinstance(number, int):
        return Probe("", f"{url} serves the pinned chain {chain.hash[:16]}... (its latest "
                     f"round could not be read: status {status})")
    signature, reason = fetcher.checked(number, latest)
    if not signature:
        return Probe(WRONG_CHAIN, f"{url} describes the pinned chain, but {reason}")
    return Probe("", f"{url} serves the pinned chain {chain.hash[:16]}...; its latest round "
                 f"{number} is signed by the pinned key")


def prepare(engine: Engine, ctx: CampaignContext, fetcher: Fetcher, now: datetime) -> None:
    """Fetch, check and store the round of the next tick due at ``now`` when it is not stored
    yet (outside the tick's transaction: the network is never waited on with a lock held)."""
    with Session(engine) as session:
        ctx, campaign = current(session, ctx)  # the clock as stored
        index = campaign.last_tick + 1
        if index > ctx.tick_of(now) or stored(session, ctx, index) is not None:
            return
    number = round_for(ctx, index)
    signature, reason = fetcher.fetch(number)
    try:
        with transaction(engine) as session:
            session.add(BeaconRound(campaign_id=ctx.campaign_id, tick=index,
                                    chain=fetcher.chain.hash, round=number,
                                    signature=signature.hex(), reason=reason[:300],
                                    fetched_at=now))
    except IntegrityError:
        pass  # another process stored the tick's round first: that one counts
