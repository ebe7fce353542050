"""The Reddit side's small named state, kept in the database (:class:`~bot.db.models.BotState`)
so that every process of a campaign (``maester run``, or cron's ``poll --once`` and
``publish --once``) sees the same:

* ``token``: the access token of the last login and when it expires, so the next process
  reuses it instead of logging in again (see :class:`DatabaseTokenStore`);
* ``auth``: Reddit refused the credentials: since when, how often, the next try (back-off);
* ``halt``: delivery stopped on a refusal that would refuse everything sent the same way
  (wrong subreddit, a missing permission, a scope the token lacks), per lane, and why;
* ``mentions``: reading the inbox of mentions stopped (the token lacks its scope);
* ``dispatch:<claim id>``: the claim's dispatch conversation and the in-game month it serves.

Values are JSON objects; times are ISO 8601 UTC.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Engine
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from bot.db.engine import transaction
from bot.db.models import BotState
from bot.services import journal

log = logging.getLogger(__name__)

TOKEN = "token"
AUTH = "auth"
HALT = "halt"
MENTIONS = "mentions"
DISPATCH_PREFIX = "dispatch:"


def read(session: Session, campaign_id: int, name: str) -> dict[str, Any] | None:
    """The value stored under ``name``, or None (:func:`journal.read_state`)."""
    return journal.read_state(session, campaign_id, name)


def write(session: Session, campaign_id: int, name: str, value: dict[str, Any] | None,
          now: datetime) -> None:
    """Store ``value`` under ``name`` (None: forget it), in the caller's transaction
    (:func:`journal.write_state`)."""
    journal.write_state(session, campaign_id, name, value, now)


def load(engine: Engine, campaign_id: int, name: str) -> dict[str, Any] | None:
    """:func:`read` in a transaction of its own."""
    with transaction(engine) as session:
        return read(session, campaign_id, name)


def store(engine: Engine, campaign_id: int, name: str, value: dict[str, Any] | None,
          now: datetime) -> None:
    """:func:`write` in a transaction of its own (a concurrent first write wins)."""
    try:
        with transaction(engine) as session:
            write(session, campaign_id, name, value, now)
    except IntegrityError:
        log.debug("bot state %s written concurrently", name)


def names(session: Session, campaign_id: int, prefix: str) -> list[str]:
    """The stored names that start with ``prefix``."""
    return list(session.exec(select(col(BotState.name)).where(
        BotState.campaign_id == campaign_id, col(BotState.name).startswith(prefix))).all())


class DatabaseTokenStore:
    """Keeps the access token in the campaign's database between processes.

    ``fingerprint`` identifies the credentials (a hash of the app id and the login): a token
    cached for other credentials is never used. The token is as secret as the password;
    the database already holds the campaign's secrets.
    """

    def __init__(self, engine: Engine, campaign_id: int) -> None:
        self.engine = engine
        self.campaign_id = campaign_id

    def load(self, fingerprint: str) -> tuple[str, datetime, frozenset[str]] | None:
        """The cached (token, expiry, granted scopes) for these credentials, if any."""
        value = load(self.engine, self.campaign_id, TOKEN)
        if not value or value.get("fingerprint") != fingerprint:
            return None
        try:
            return (str(value["token"]), datetime.fromisoformat(str(value["expires_at"])),
                    frozenset(str(s) for s in value.get("scopes") or ()))
        except (KeyError, ValueError):
            return None

    def save(self, fingerprint: str, token: str, expires_at: datetime, now: datetime,
             scopes: frozenset[str] = frozenset()) -> None:
        """Remember a fresh token and the scopes Reddit granted it."""
        store(self.engine, self.campaign_id, TOKEN,
              {"fingerprint": fingerprint, "token": token,
               "expires_at": expires_at.isoformat(), "scopes": sorted(scopes)}, now)


# --------------------------------------------------------------------------- refused logins

#: Back-off after Reddit refused the credentials: 1 minute, doubling, at most 1 hour.
AUTH_BACKOFF_FIRST = timedelta(minutes=1)
AUTH_BACKOFF_CAP = timedelta(hours=1)


def auth_wait(engine: Engine, campaign_id: int, now: datetime) -> datetime | None:
    """Until when no Reddit request should be made (credentials refused), or None."""
    value = load(engine, campaign_id, AUTH)
    if not value:
        return None
    until = datetime.fromisoformat(str(value["next_try"]))
    return until if until > now else None


def auth_refused(engine: Engine, campaign_id: int, tick: int, now: datetime,
                 error: str) -> datetime:
    """Record refused credentials; the first time, log an event and queue a note to the
    moderators (it reaches them once the login works again). Returns the next try."""
    from bot.services import journal

    with transaction(engine) as session:
        value = read(session, campaign_id, AUTH) or {}
        failures = int(value.get("failures", 0)) + 1
        since = str(value.get("since") or now.isoformat())
        next_try: datetime = now + min(AUTH_BACKOFF_CAP,
                                       AUTH_BACKOFF_FIRST * 2 ** (failures - 1))
        write(session, campaign_id, AUTH, {"since": since, "failures": failures,
                                           "next_try": next_try.isoformat(),
                                           "error": error[:500]}, now)
        if failures == 1:
            log.error("Reddit refused the bot's credentials: %s (fix [reddit] in the config; "
                      "trying again with back-off, at most hourly)", error)
            journal.log_event(session, campaign_id, tick, "auth_refused",
                              f"Reddit refused the bot's credentials: {error}"[:500], at=now)
            journal.queue(
                session, campaign_id, f"auth:{since}"[:120], "mod",
                title="maester could not log in to Reddit",
                body=(f"Since {since[:16].replace('T', ' ')} UTC Reddit refused the bot's "
                      f"credentials ({error[:300]}). Until the login worked again nothing "
                      "was read or sent; nothing was lost: messages are read and posts sent "
                      "now. If this happens again, check the password or refresh token in "
                      "the config (`maester check`)."),
                at=now, tick=tick)
    return next_try


def auth_ok(engine: Engine, campaign_id: int, now: datetime) -> None:
    """The credentials work (again): forget the refusal."""
    if load(engine, campaign_id, AUTH) is not None:
        store(engine, campaign_id, AUTH, None, now)
        log.info("Reddit accepts the bot's credentials again")


# --------------------------------------------------------------------------- delivery halt

#: While halted, one entry of a blocked kind is tried this often (a fix on Reddit's side,
#: like restoring a permission, resumes delivery by itself).
HALT_PROBE = timedelta(minutes=30)
#: Outbox kinds by the way they reach Reddit: a refusal blocks the whole group (a lane).
POSTING = ("post", "comment")
MODMAIL = ("reply", "note", "message", "mod")
DELETING = ("delete",)
#: The sidebar widget has a scope and a moderator permission of its own ("Manage Settings").
WIDGETS = ("widget",)
LANES = {"posting": POSTING, "modmail": MODMAIL, "deleting": DELETING,
         "the sidebar widget": WIDGETS}
#: The OAuth scope each lane's calls need (see :data:`bot.reddit.gateway.SCOPE_USES`).
LANE_SCOPES = {"posting": "submit", "modmail": "modmail", "deleting": "edit",
               "the sidebar widget": "structuredstyles", "mentions": "privatemessages"}


def lane_of(kind: str) -> str:
    """The lane (``posting``, ``modmail``, ``deleting``, ``the sidebar widget``) an outbox kind
    is delivered by."""
    return next((lane for lane, kinds in LANES.items() if kind in kinds), "modmail")


def halt_of(engine: Engine, campaign_id: int) -> dict[str, Any] | None:
    """The delivery halt, if any: ``since``, ``reason``, ``key``, ``blocked`` (kinds),
    ``lanes`` (each halted lane's reason), ``next_probe``."""
    return load(engine, campaign_id, HALT)


def halted_lanes(halt: dict[str, Any] | None) -> dict[str, str]:
    """Each halted lane and why (a halt stored before lanes were named gives its kinds')."""
    if not halt:
        return {}
    lanes = halt.get("lanes")
    if isinstance(lanes, dict) and lanes:
        return {str(k): str(v) for k, v in lanes.items()}
    blocked = set(halt.get("blocked") or ())
    return {lane: str(halt.get("reason", "")) for lane, kinds in LANES.items()
            if blocked & set(kinds)}
