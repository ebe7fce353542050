"""Notices outside Reddit: Discord-compatible webhooks, delivered through the outbox.

Two kinds of webhook, both optional:

- **public** (``[webhooks] public``, set by the moderators): every public post, once it is on
  Reddit, is announced there with its title, its text and its link. Only what the post itself
  says goes out, so a webhook can never tell more than the subreddit does (hidden armies,
  detections and secret bonuses never reach a public post in the first place).
- **a claim's own** (the ``webhook URL`` order, by modmail): the claim's private news goes
  there as well as to its players' modmail. The address is a secret (anyone holding it can
  write to that channel): it is kept in ``BotState`` (``webhook:claim:<id>``), never in the
  outbox, a log line, a reply or a web page, and is looked up when a note is sent, so a note
  queued before the claim changed its webhook goes to the new one, and none goes anywhere
  once it is turned off. A claim handed over to a new player loses its webhook.

Each notice is one ``webhook`` outbox row, so it is paced and retried like any other entry;
how exactly-once is kept without an idempotency key on Discord's side is described in
:mod:`bot.reddit.deliver`.
"""

from __future__ import annotations

import hashlib
from datetime import datetime
from typing import Any

from sqlmodel import Session, select

from bot.config import webhook_url_problem
from bot.db.models import BotState, Claim
from bot.services import journal
from bot.services.world import CampaignContext

KIND = "webhook"
MAX_CONTENT = 2000  # Discord's limit on a message's content
MAX_DESCRIPTION = 4096  # and on an embed's description
MAX_TITLE = 256  # and on an embed's title
_CUT = "\n\n*(cut short: the rest is on Reddit or in modmail)*"


class WebhookRefused(ValueError):
    """The address cannot be a webhook (the message says why)."""


def _name(claim_id: int) -> str:
    return f"{journal.CLAIM_WEBHOOK_PREFIX}{claim_id}"


def fingerprint(url: str) -> str:
    """A short stable name for a webhook address (its SHA-256, 12 hex digits): what the
    outbox and the logs show instead of the address."""
    return hashlib.sha256(url.encode("utf-8")).hexdigest()[:12]


def masked(url: str) -> str:
    """The address with its token hidden (``https://discord.com/api/webhooks/123/…Op``)."""
    head, _, token = url.rpartition("/")
    return f"{head}/…{token[-2:]}" if token else head


def check_url(ctx: CampaignContext, url: str) -> None:
    """Raise :class:`WebhookRefused` unless ``url`` is a webhook address maester sends to."""
    problem = webhook_url_problem(url, ctx.settings.webhooks.allowed_prefixes)
    if problem is not None:
        raise WebhookRefused(problem)


def url_of(session: Session, ctx: CampaignContext, claim_id: int) -> str | None:
    """The claim's registered webhook, if any."""
    value = journal.read_state(session, ctx.campaign_id, _name(claim_id))
    url = value.get("url") if value else None
    return str(url) if url else None


def register(session: Session, ctx: CampaignContext, claim: Claim, url: str, *, actor: str,
             now: datetime) -> None:
    """Keep ``url`` as the claim's private webhook (checked first: :func:`check_url`)."""
    check_url(ctx, url)
    assert claim.id is not None
    journal.write_state(session, ctx.campaign_id, _name(claim.id), {"url": url, "by": actor},
                        now)
    journal.webhooks_changed(session)
    journal.log_event(session, ctx.campaign_id, ctx.tick_of(now), "webhook",
                      f"{claim.name} registered a private webhook ({fingerprint(url)})",
                      at=now, claim_id=claim.id, actor=actor)


def forget(session: Session, ctx: CampaignContext, claim: Claim, *, actor: str, now: datetime,
           why: str = "turned off") -> bool:
    """Stop sending the claim's news to its webhook; False if it had none."""
    assert claim.id is not None
    row = session.exec(select(BotState).where(BotState.campaign_id == ctx.campaign_id,
                                              BotState.name == _name(claim.id))).first()
    if row is None:
        return False
    session.delete(row)
    journal.webhooks_changed(session)
    journal.log_event(session, ctx.campaign_id, ctx.tick_of(now), "webhook",
                      f"{claim.name}'s private webhook {why}", at=now, claim_id=claim.id,
                      actor=actor)
    return True


# --------------------------------------------------------------------------- public posts

def public_target(url: str) -> str:
    """The outbox target naming a public webhook (its fingerprint, never the address)."""
    return f"public:{fingerprint(url)}"


GONE_PREFIX = "webhook:gone:"
"""``BotState`` name of a public webhook that answered it no longer exists (its fingerprint)."""


def mark_gone(session: Session, ctx: CampaignContext, target: str, reason: str,
              now: datetime) -> None:
    """A public webhook answered that it does not exist (404, 401): its later notices are
    dropped until the config names another address (a new webhook has a new fingerprint)."""
    kind, _, ref = target.partition(":")
    if kind != "public":
        return
    journal.write_state(session, ctx.campaign_id, GONE_PREFIX + ref,
                        {"reason": reason[:200], "since": now.isoformat()}, now)


def resolve(session: Session, ctx: CampaignContext, target: str) -> str | None:
    """The address an outbox ``webhook`` entry goes to now; None when that webhook is gone
    (removed from the config, answered that it no longer exists, or the claim turned it
    off): the entry is then dropped."""
    kind, _, ref = target.partition(":")
    if kind == "public":
        url = next((u for u in ctx.settings.webhooks.public if fingerprint(u) == ref), None)
        gone = session.exec(select(BotState.id).where(
            BotState.campaign_id == ctx.campaign_id, BotState.name == GONE_PREFIX + ref)).first()
        return None if gone is not None else url
    if kind == "claim" and ref.isdigit():
        return url_of(session, ctx, int(ref))
    return None


def queue_public(session: Session, ctx: CampaignContext, *, key: str, title: str, body: str,
                 link: str, at: datetime, tick: int) -> int:
    """Queue a public post's notice for every public webhook; how many were queued."""
    queued = 0
    for url in ctx.settings.webhooks.public:
        hook_key = f"hook:{fingerprint(url)}:{key}"
        if len(hook_key) > 120:
            hook_key = f"hook:{fingerprint(url)}:{fingerprint(key)}"
        text = f"{body}\n\n[Read it on Reddit]({link})" if link else body
        # the post's text was made inert when it was queued; the link line is ours
        journal.queue(session, ctx.campaign_id, hook_key, KIND, body=text, at=at, tick=tick,
                      target=public_target(url), title=title)
        queued += 1
    return queued


def payload(title: str, body: str) -> dict[str, Any]:
    """The Discord-compatible JSON of one notice: the title as the message's content, the
    text as an embed, and no pings (``allowed_mentions`` parses nothing, so an ``@everyone``
    in a player's text stays text)."""
    content = f"**{title.strip()}**" if title.strip() else "News from the maester"
    if len(content) > MAX_CONTENT:
        content = content[: MAX_CONTENT - 1] + "…"
    description = body.strip()
    if len(description) > MAX_DESCRIPTION:
        description = description[: MAX_DESCRIPTION - len(_CUT)] + _CUT
    embed: dict[str, Any] = {"description": description}
    if title.strip():
        embed["title"] = title.strip()[:MAX_TITLE]
    return {"content": content, "embeds": [embed] if description else [],
            "allowed_mentions": {"parse": []}}
