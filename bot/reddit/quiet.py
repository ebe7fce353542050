"""Quiet when idle: a round first asks Reddit how many modmail conversations are unread in
each folder (one request) and lists only the folders whose count changed since the last
complete round, so an idle round costs one request instead of one per folder.

The bot marks read every conversation it owns once it has handled it (the campaign's mail;
everyone else's stays unread for the moderators), so a new message in one of them shows as a
changed count. Counts cannot show everything (a new message in a conversation that is still
unread, or one that arrives between the listing and the marking), so a round lists every
folder anyway

- when no complete round has listed every folder for ``[bot] full_poll_minutes``,
- when a tick is due (an order sent before the tick is always read before it is applied),
- when Reddit gave no counts, or the last round did not complete.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import Engine

from bot.db.engine import transaction
from bot.reddit import state
from bot.reddit.gateway import RedditGateway
from bot.services import pause
from bot.services.world import CampaignContext, current

__all__ = ["COUNTS", "RoundPlan", "changed_folders", "plan_round", "round_done"]

COUNTS = "intake:counts"
#: The unread-count keys that stand for each listed folder (``all`` holds new and
#: in-progress conversations).
_COUNTED: dict[str, tuple[str, ...]] = {"all": ("new", "inprogress")}


@dataclass(frozen=True, slots=True)
class RoundPlan:
    """Which folders a round lists, and what it knew when it started."""

    folders: tuple[str, ...]
    full: bool
    counts: Mapping[str, int]
    started: datetime
    full_at: str  # when the newest complete round that listed every folder started


def changed_folders(folders: Sequence[str], before: Mapping[str, int],
                    now: Mapping[str, int]) -> tuple[str, ...]:
    """The folders whose unread counts differ between two answers."""
    return tuple(f for f in folders
                 if any(int(before.get(k, 0)) != int(now.get(k, 0))
                        for k in _COUNTED.get(f, (f,))))


def plan_round(engine: Engine, ctx: CampaignContext, gateway: RedditGateway, now: datetime,
               folders: Sequence[str]) -> RoundPlan:
    """Ask for the unread counts (one request) and choose the folders to list."""
    counts = gateway.unread_counts()
    known = state.load(engine, ctx.campaign_id, COUNTS)
    full_at = str(known.get("full_at", "")) if known else ""
    if not counts or known is None or _full_due(engine, ctx, now, full_at):
        return RoundPlan(tuple(folders), True, counts, now, full_at)
    before = known.get("counts")
    before = before if isinstance(before, Mapping) else {}
    return RoundPlan(changed_folders(folders, before, counts), False, counts, now, full_at)


def _full_due(engine: Engine, ctx: CampaignContext, now: datetime, full_at: str) -> bool:
    try:
        last_full = datetime.fromisoformat(full_at)
    except ValueError:
        return True
    if now - last_full >= timedelta(minutes=ctx.settings.bot.full_poll_minutes):
        return True
    with transaction(engine) as session:
        ctx, campaign = current(session, ctx)
        return not pause.holds(campaign) and ctx.tick_of(now) > campaign.last_tick


def round_done(engine: Engine, ctx: CampaignContext, gateway: RedditGateway, plan: RoundPlan,
               *, changed: bool, now: datetime) -> None:
    """After a complete round: remember the counts the next round compares with (asked
    again if the round marked conversations read; not trusted if anything became unread
    meanwhile, so the next round lists those folders)."""
    counts = gateway.unread_counts() if changed else plan.counts
    if any(int(counts.get(k, 0)) > int(plan.counts.get(k, 0)) for k in counts):
        counts = {}  # something arrived during the round: the next round looks
    full_at = plan.started.isoformat() if plan.full else plan.full_at
    state.store(engine, ctx.campaign_id, COUNTS, {"counts": dict(counts), "full_at": full_at},
                now)
