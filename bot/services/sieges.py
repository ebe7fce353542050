"""Ending a siege, from an order (`lift`, a `move` of the besiegers) or from the tick (the
besiegers left the tile or are no more), or from a moderator's removal of the besiegers: one
place for the event and the post."""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Session

from bot.render.posts import siege_over_post
from bot.services import journal
from bot.services.world import CampaignContext
from rules.campaign.world import SiegeState


def end_siege(session: Session, ctx: CampaignContext, siege: SiegeState, reason: str, *,
              at: datetime, tick: int) -> str:
    """Log that ``siege`` ended (lifted, or broken by a sally: the rules ended it in the world
    its caller writes back) and queue the public post saying ``reason`` (a sentence with its
    own full stop: what really happened). Returns the event's summary."""
    label = ctx.world.tile(siege.holdfast).label
    summary = f"the siege of {label} ends: {reason}"
    journal.log_event(session, ctx.campaign_id, tick, "siege_lifted", summary, at=at,
                      claim_id=siege.besieger_claim, public=True,
                      data={"siege": siege.id, "reason": reason})
    journal.queue(session, ctx.campaign_id, f"siege:{siege.id}:lifted", "post",
                  title=ctx.settings.posts.siege_title.format(event="Siege lifted",
                                                              holdfast=label),
                  body=siege_over_post(label, reason),
                  flair=ctx.settings.posts.siege_flair, public=True, at=at, tick=tick,
                  target=ctx.settings.campaign.subreddit)
    return summary
