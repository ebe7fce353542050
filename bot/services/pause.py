"""Pausing the campaign (``maester pause``) and resuming it (``maester resume``).

While the campaign row's ``paused_at`` is set, :func:`bot.services.tick.catch_up` applies no
tick (``run``, ``poll`` and ``tick`` all go through it: see :func:`holds`), and each order that
would change the world is answered with :func:`bot.render.receipts.paused` and changes nothing;
questions — ``status``, ``route``, ``odds``, ``link``, ``help`` — and ``!commands`` are
answered as usual, also in a letter that holds such orders.

Resuming is a holiday by default: the ticks that fell due during the pause are never applied.
The world's clock is moved behind the wall clock by that many ticks (``Campaign.tick_offset``;
:meth:`~bot.services.world.CampaignContext.shift`): every due tick of an army (muster, arrival,
battle), the in-game calendar and the monthly jobs move with it, so the world stands exactly as
it stood when the pause began, and the next tick is the first wall tick after the resume.
Scatter locks (stored as instants) move by the same time. ``--catch-up`` instead leaves the
clock alone: the missed ticks are applied at once (the next ``catch_up``), in order, with their
monthly jobs.
"""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Session, col, select

from bot.db.models import Campaign, Claim, Event
from bot.render.receipts import pause_span, paused
from bot.services import journal, sidebar
from bot.services.world import CampaignContext, current, get_campaign
from rules.campaign import calendar
from rules.campaign import language as o


class PauseError(Exception):
    """Pausing a paused campaign, or resuming a running one."""


def holds(campaign: Campaign) -> bool:
    """Whether the campaign is paused (``campaign``: its row, read with
    :func:`~bot.services.world.get_campaign`)."""
    return campaign.paused_at is not None


QUESTIONS = (o.Status, o.Route, o.Odds, o.Link, o.Help)
"""Orders that only answer: they work while the campaign is paused."""


def refusal(session: Session, ctx: CampaignContext, text: str) -> str | None:
    """The paused reply when the campaign is paused and ``text`` holds an order that would
    change the world; None otherwise (the message is handled as usual)."""
    campaign = get_campaign(session, ctx)
    if not holds(campaign):
        return None
    parsed = o.parse_message(o.acting_for(text)[0])  # after a moderator's `as House X:`
    if all(isinstance(order, QUESTIONS) for order in parsed.orders):
        return None
    return paused(campaign.pause_until, campaign.pause_note)


def pause(session: Session, ctx: CampaignContext, *, note: str, until: datetime | None,
          actor: str, now: datetime) -> str:
    """Pause the campaign (logged, announced to nobody: the moderators post what they want)."""
    campaign = get_campaign(session, ctx, lock=True)
    if campaign.paused_at is not None:
        raise PauseError(f"the campaign is already paused (since "
                         f"{campaign.paused_at:%Y-%m-%d %H:%M} UTC); `maester resume` ends it")
    campaign.paused_at, campaign.pause_note, campaign.pause_until = now, note or None, until
    session.add(campaign)
    summary = f"campaign paused {pause_span(until)}" + (f" ({note})" if note else "")
    journal.log_event(session, ctx.campaign_id, campaign.last_tick, "pause", summary, at=now,
                      actor=actor, public=True, data={"note": note,
                                                      "until": until.isoformat() if until
                                                      else None})
    sidebar.queue_clock(session, ctx, tick=campaign.last_tick, at=now, paused=True,
                        key=f"widget:pause:{now.isoformat()}")
    return summary


def move_wall_instants(session: Session, ctx: CampaignContext, ticks: int) -> None:
    """Move the claims' instants that count on the world's clock but are stored on the wall
    clock on by ``ticks`` ticks: every scatter lock (it ends at the same tick of the world's
    clock once that clock stands ``ticks`` more ticks behind the wall clock) and each claim's
    last message (:mod:`bot.services.absence`: a holiday is no silence of its players)."""
    if not ticks:
        return
    moved = ticks * calendar.tick_length(ctx.rules)
    for claim in session.exec(select(Claim).where(
            Claim.campaign_id == ctx.campaign_id,
            col(Claim.scattered_until).is_not(None) | col(Claim.active_at).is_not(None))).all():
        if claim.scattered_until is not None:
            claim.scattered_until += moved
        if claim.active_at is not None:
            claim.active_at += moved
        session.add(claim)


def resumed_after(session: Session, ctx: CampaignContext, sent_at: datetime) -> datetime | None:
    """When the campaign resumed after a holiday, if it was paused at ``sent_at``; None if it
    was running then, is still paused, or resumed catching up (the missed ticks then apply in
    order, each before the orders sent after it, as if there had been no pause).

    A message sent during a holiday and read after it counts from the resume: the world's clock
    stood still meanwhile, so the resume is the world's moment the message was sent at.
    ``ctx`` is on the campaign's clock as stored (:func:`~bot.services.world.current`): without
    holidays the journal is not read (nothing to look for, and a message is read often)."""
    if not ctx.rules.tick_offset:
        return None
    began = session.exec(select(Event).where(
        Event.campaign_id == ctx.campaign_id, Event.kind == "pause",
        col(Event.at) <= sent_at).order_by(col(Event.id).desc())).first()
    if began is None:
        return None
    ended = session.exec(select(Event).where(
        Event.campaign_id == ctx.campaign_id, Event.kind == "resume",
        col(Event.id) > (began.id or 0)).order_by(col(Event.id))).first()
    if ended is None or ended.at is None or ended.at <= sent_at \
            or ended.data_json.get("catch_up"):
        return None
    return ended.at


def offset_then(session: Session, ctx: CampaignContext, event_mark: int) -> int:
    """The campaign's clock offset (its holidays, in ticks) when the journal's newest event
    was ``event_mark``: as the last ``resume`` or ``undo`` up to then recorded it (0 before
    any). A snapshot's world stands on the world's clock of that offset."""
    for data in session.exec(select(Event.data_json).where(
            Event.campaign_id == ctx.campaign_id, col(Event.id) <= event_mark,
            col(Event.kind).in_(("resume", "undo"))).order_by(col(Event.id).desc())):
        if isinstance(data, dict) and "offset" in data:
            return int(data["offset"])
    return 0


def resume(session: Session, ctx: CampaignContext, *, catch_up: bool, actor: str,
           now: datetime) -> str:
    """End the pause: a holiday (the missed ticks are skipped, the world's clock shifts), or
    with ``catch_up`` the missed ticks stay due. Returns the summary. ``ctx`` stays as it was
    (a frozen value): a caller counting ticks after a holiday takes the campaign's context
    anew (:func:`~bot.services.world.refreshed`)."""
    ctx, campaign = current(session, ctx, lock=True)
    if campaign.paused_at is None:
        raise PauseError("the campaign is not paused")
    began = campaign.paused_at
    # The ticks that fell due during the pause (not those already due when it began).
    missed = max(0, ctx.tick_of(now) - max(campaign.last_tick, ctx.tick_of(began)))
    campaign.paused_at, campaign.pause_note, campaign.pause_until = None, None, None
    if catch_up or missed == 0:
        summary = (f"campaign resumed; {missed} missed tick(s) will be applied now"
                   if missed else "campaign resumed")
    else:
        offset = (campaign.tick_offset or 0) + missed
        campaign.tick_offset = offset
        move_wall_instants(session, ctx, missed)
        ctx = ctx.shifted(offset)  # the summary's next tick on the world's new clock
        summary = (f"campaign resumed after a holiday of {missed} tick(s) "
                   f"({missed * ctx.rules.tick_hours} hours): the world's clock moved on by "
                   f"as much, nothing due during the pause is applied; next tick "
                   f"{ctx.when(ctx.tick_at(ctx.tick_of(now) + 1))}")
    session.add(campaign)
    journal.log_event(session, ctx.campaign_id, campaign.last_tick, "resume", summary, at=now,
                      actor=actor, public=True, data={"missed": missed, "catch_up": catch_up,
                                                      "offset": campaign.tick_offset or 0})
    sidebar.queue_clock(session, ctx, tick=ctx.tick_of(now), at=now,
                        key=f"widget:resume:{now.isoformat()}")
    return summary
