"""The web pages' private links: one per claim (its war room) and one for the moderators.

A link is a capability: whoever holds it sees that claim's war room (or the moderators'
room). Its token is 43 characters of URL-safe base64 (256 bits): ``HMAC-SHA256`` of the
campaign secret over the scope and a random nonce. The database keeps only the nonce and the
token's SHA-256 (in :class:`~bot.db.models.BotState`, ``web:claim:<id>`` and ``web:mod``), so
a token can be shown again to the moderators (who hold the campaign secret anyway) and
checked without ever storing it; :func:`rotate` draws a new nonce, and the old token stops
matching at once. :func:`scope_of` compares hashes in constant time.

Links live outside the world's snapshots, so an ``undo`` or ``rollback`` never brings back a
replaced link.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
from dataclasses import dataclass
from datetime import datetime

from sqlmodel import Session, col, select

from bot.db.models import BotState
from bot.services import journal
from bot.services.world import CampaignContext, all_claims
from bot.text import escape_md

PREFIX = "web:"
MODERATORS = "mod"
TOKEN_CHARS = 43


def claim_scope(claim_id: int) -> str:
    return f"claim:{claim_id}"


@dataclass(frozen=True, slots=True)
class Link:
    """One private link: its scope (``claim:<id>`` or ``mod``), the claim's name (empty for
    the moderators) and the token."""

    scope: str
    name: str
    token: str

    @property
    def path(self) -> str:
        return f"/mod/{self.token}" if self.scope == MODERATORS else f"/claim/{self.token}"


def _token(ctx: CampaignContext, scope: str, nonce: str) -> str:
    mac = hmac.new(ctx.secret.encode(), f"maester-web/v1|{scope}|{nonce}".encode(),
                   hashlib.sha256).digest()
    return base64.urlsafe_b64encode(mac).decode().rstrip("=")


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogateescape")).hexdigest()


def _row(session: Session, ctx: CampaignContext, scope: str) -> BotState | None:
    return session.exec(select(BotState).where(BotState.campaign_id == ctx.campaign_id,
                                               BotState.name == PREFIX + scope)).first()


def _stored(row: BotState | None) -> dict[str, str]:
    if row is None or not row.value:
        return {}
    try:
        value = json.loads(row.value)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _issue(session: Session, ctx: CampaignContext, scope: str, now: datetime) -> str:
    nonce = secrets.token_hex(16)
    token = _token(ctx, scope, nonce)
    row = _row(session, ctx, scope) or BotState(campaign_id=ctx.campaign_id,
                                                name=PREFIX + scope)
    row.value = json.dumps({"nonce": nonce, "hash": token_hash(token)})
    row.updated_at = now
    session.add(row)
    session.flush()
    return token


def token_for(session: Session, ctx: CampaignContext, scope: str, now: datetime) -> str:
    """The scope's current token (a first one is issued when there is none)."""
    stored = _stored(_row(session, ctx, scope))
    nonce = stored.get("nonce")
    if isinstance(nonce, str) and nonce:
        return _token(ctx, scope, nonce)
    return _issue(session, ctx, scope, now)


def rotate(session: Session, ctx: CampaignContext, scope: str, now: datetime) -> str:
    """A new token for ``scope``; the old one stops working when this commits."""
    return _issue(session, ctx, scope, now)


def links(session: Session, ctx: CampaignContext, now: datetime, *, claim: str | None = None,
          renew: bool = False) -> list[Link]:
    """The moderators' link (unless ``claim`` names one claim) and each claim's link,
    issued when missing, replaced when ``renew``. Raises LookupError for an unknown claim."""
    claims = list(all_claims(session, ctx))
    if claim is not None:
        wanted = claim.strip().casefold()
        claims = [c for c in claims if c.name.casefold() == wanted]
        if not claims:
            raise LookupError(f"no claim is called {claim!r}")
    scopes = [] if claim is not None else [(MODERATORS, "")]
    scopes += [(claim_scope(c.id or 0), c.name) for c in claims]
    make = rotate if renew else token_for
    return [Link(scope, name, make(session, ctx, scope, now)) for scope, name in scopes]


def scope_of(session: Session, ctx: CampaignContext, token: str, *, moderators: bool) -> str | None:
    """The scope a presented ``token`` opens (``mod``, or ``claim:<id>`` when not
    ``moderators``), or None. Every stored hash is compared, in constant time each."""
    if len(token) != TOKEN_CHARS:
        return None
    presented = token_hash(token)
    rows = session.exec(select(BotState).where(BotState.campaign_id == ctx.campaign_id,
                                               col(BotState.name).startswith(PREFIX))).all()
    found: str | None = None
    for row in rows:
        scope = row.name.removeprefix(PREFIX)
        if (scope == MODERATORS) != moderators:
            continue
        stored = _stored(row).get("hash", "")
        if isinstance(stored, str) and hmac.compare_digest(stored, presented):
            found = scope
    return found


def address(ctx: CampaignContext, link: Link) -> str:
    """The link's full address, on ``[web] public_url`` (its path alone when unset)."""
    return ctx.settings.web.public_url.rstrip("/") + link.path


def link_reply(ctx: CampaignContext, link: Link) -> str:
    """The answer to the ``link`` order, and the note a new link is sent in."""
    return (f"The war room of {escape_md(link.name)}: {address(ctx, link)}\n\n"
            "It shows your armies and their marches, what your watchers sighted, the battles "
            "you face, your receipts and private news. Keep it private: anyone with the link "
            "sees it. Send `link` to have it again; if it leaks, the moderators replace it "
            "(the old one stops working at once)."
            + ("" if ctx.settings.web.public_url else
               "\n\n(The campaign's pages have no public address set yet: ask the "
               "moderators where they are served.)"))


def send_to_claim(session: Session, ctx: CampaignContext, claim_id: int, name: str, token: str,
                  *, now: datetime, tick: int) -> None:
    """Send a claim's war-room link privately to its players (in their dispatch)."""
    link = Link(claim_scope(claim_id), name, token)
    journal.notify_claim(
        session, ctx.campaign_id, claim_id, f"web:link:{claim_id}:{token_hash(token)[:16]}",
        subject="Your war room", body=link_reply(ctx, link), at=now, tick=tick)


def send_new_links(session: Session, ctx: CampaignContext, now: datetime, tick: int) -> int:
    """Make a war-room link for every claim that has none yet and send it to the claim's
    players in their dispatch (``maester run`` with the pages on, at start-up); returns how
    many were sent. Claims that have a link are left alone (``link`` asks for it again)."""
    sent = 0
    for claim in all_claims(session, ctx):
        scope = claim_scope(claim.id or 0)
        if _stored(_row(session, ctx, scope)).get("nonce"):
            continue
        send_to_claim(session, ctx, claim.id or 0, claim.name,
                      _issue(session, ctx, scope, now), now=now, tick=tick)
        sent += 1
    return sent


def replace_for_new_players(session: Session, ctx: CampaignContext, claim_id: int, name: str,
                            *, now: datetime, tick: int) -> bool:
    """A claim handed over (``maester claims transfer``): its war-room link, if one was issued,
    is replaced, so the removed players' copy stops working when this commits, and the new one
    goes to the claim's players of now. Returns whether a link was replaced."""
    scope = claim_scope(claim_id)
    if not _stored(_row(session, ctx, scope)).get("nonce"):
        return False  # never issued: the new players ask for it with `link`
    send_to_claim(session, ctx, claim_id, name, rotate(session, ctx, scope, now),
                  now=now, tick=tick)
    return True
