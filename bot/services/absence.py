"""A claim's life over months, kept in its rows: activity, leave and hold
(:mod:`rules.campaign.absence` holds the rules; the hand-over, new and retired claims are in
:mod:`bot.services.tenure`).

- **Activity.** Every message a claim's player sends (orders, commands, even a bad order)
  notes the time in ``claim.active_at`` (:func:`note_activity`).
- **Each tick** (:func:`review`, called by :func:`bot.services.tick.apply_tick`) looks at each
  claim: a leave that ended is noted (the players and the moderators are told), the players of
  a claim about to go inactive are warned privately (``[claims] warn_days_ahead``), and a claim
  that went inactive (``[claims] inactive_after_days``) is held, with a referral to the
  moderators. The tick then stops the held claims' armies
  (:func:`rules.campaign.absence.stop_held`, ``[claims] hold = "stop"``).
- **Leave** (:func:`take_leave`): ``away until DATE [reason]`` by modmail, or ``maester claims
  away``; a message from the claim while on leave ends it early.
- **Hold by hand** (:func:`set_hold`): ``maester claims hold`` / ``lift``.

Every change is journaled; the moderators' changes keep a snapshot first (``maester undo``).
Nothing here is public: holds, leaves and warnings go to the claim's players and the
moderators only.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Protocol

from sqlalchemy import Table, bindparam
from sqlalchemy import select as core_select
from sqlmodel import Session, col, select

from bot.db.models import Campaign, Claim
from bot.services import journal, snapshots
from bot.services.world import CampaignContext, get_campaign
from bot.text import escape_md
from rules.campaign.absence import (
    Hold,
    Standing,
    inactive_from,
    is_held,
    leave_problem,
    standing,
    warn_from,
)


class LeaveRefused(ValueError):
    """A leave that cannot be taken: the message says why (nothing changed)."""


@dataclass(frozen=True, slots=True)
class Life:
    """How a claim stands at a moment, for ``maester claims`` and the tick."""

    last_seen: datetime
    standing: Standing
    held: bool


def _days(n: int) -> timedelta:
    return timedelta(days=n)


class _Seen(Protocol):
    """A claim's row or object: when its players last wrote."""

    @property
    def active_at(self) -> datetime | None: ...


def last_seen(claim: _Seen, created: datetime) -> datetime:
    """When the claim's players last wrote (or, before their first message, when the claim
    was added; ``created``: when the campaign was)."""
    return claim.active_at or created


def _created(session: Session, ctx: CampaignContext, now: datetime,
             campaign: Campaign | None = None) -> datetime:
    """When the campaign was created (``campaign``: its row, when the caller holds it)."""
    return (campaign if campaign is not None else get_campaign(session, ctx)).created_at or now


def life(ctx: CampaignContext, claim: Claim, created: datetime, now: datetime) -> Life:
    """The claim's standing at ``now`` (:func:`rules.campaign.absence.standing`)."""
    after = _days(ctx.settings.claims.inactive_after_days)
    seen = last_seen(claim, created)
    return Life(seen, standing(now, last_seen=seen, away_until=claim.away_until,
                               retired=claim.retired_at is not None, inactive_after=after),
                is_held(claim.hold, claim.retired_at is not None))


def note_activity(session: Session, ctx: CampaignContext, claim: Claim, *, author: str,
                  now: datetime) -> None:
    """A message from ``author``, a player of ``claim``, at ``now``: the claim is active. A
    leave it was on ends (noted), and a hold for inactivity (or one the moderators lifted) is
    over; a hold by the moderators' hand stays."""
    if claim.active_at is not None and claim.active_at >= now:
        return
    claim.active_at = now
    tick = ctx.tick_of(now)
    if claim.away_until is not None and now < claim.away_until:
        _log(session, ctx, claim, "claim_returned",
             f"{claim.name} is back from leave (u/{author} wrote before "
             f"{claim.away_until:%Y-%m-%d})", now,
             data={"until": claim.away_until.isoformat(), "early": True, "by": author})
        journal.notify_moderators(
            session, ctx.campaign_id, f"returned:{claim.id}:{now.isoformat()}"[:120],
            subject=f"{claim.name} is back from leave",
            body=f"u/{escape_md(author)} wrote for {escape_md(claim.name)} before the end of "
                 f"its leave ({claim.away_until:%Y-%m-%d}); the leave is over.",
            at=now, tick=tick)
        claim.away_until, claim.away_reason = None, None
    if claim.hold in (Hold.INACTIVE, Hold.LIFTED):
        was_held = claim.hold == Hold.INACTIVE
        claim.hold = None
        if was_held:
            _log(session, ctx, claim, "claim_unheld",
                 f"{claim.name} is active again (u/{author} wrote): no longer held", now,
                 data={"by": "activity", "player": author})
            journal.notify_moderators(
                session, ctx.campaign_id, f"unheld:{claim.id}:{now.isoformat()}"[:120],
                subject=f"{claim.name} is active again",
                body=f"u/{escape_md(author)} wrote for {escape_md(claim.name)}, which was "
                     "held as inactive; the hold is over.", at=now, tick=tick)
    session.add(claim)
    session.flush()  # written now: a refused order's savepoint expires the session's objects


def take_leave(session: Session, ctx: CampaignContext, claim: Claim, until: datetime,
               reason: str, *, actor: str, now: datetime, by_order: bool) -> str:
    """Put ``claim`` on leave until ``until`` (logged as an order ``by_order``, else as a
    moderator's command, its players told). Raises :class:`LeaveRefused` (nothing changed)
    for a date in the past or beyond ``[claims] leave_max_days``, or for a retired claim.
    Returns a one-line summary."""
    if claim.retired_at is not None:
        raise LeaveRefused(f"{claim.name} is retired")
    problem = leave_problem(until, now, _days(ctx.settings.claims.leave_max_days))
    if problem is not None:
        raise LeaveRefused(problem)
    if not by_order:  # a moderator's command: undone by `maester undo`
        snapshots.take(session, ctx, kind="command", label=f"claims away {claim.name}",
                       now=now, actor=actor)
    reason = " ".join(reason.split())[:200]
    claim.away_until, claim.away_reason = until, reason or None
    if claim.hold in (Hold.INACTIVE, Hold.LIFTED):
        claim.hold = None  # a leave announced is a word from the claim
    session.add(claim)
    summary = (f"{claim.name} is away until {until:%Y-%m-%d}"
               + (f" ({reason})" if reason else ""))
    _log(session, ctx, claim, "away" if by_order else "claim_away", summary, now, actor=actor,
         data={"until": until.isoformat(), "reason": reason})
    if not by_order:
        journal.notify_claim(session, ctx.campaign_id, claim.id or 0,
                             f"away:{claim.id}:{now.isoformat()}"[:100],
                             subject=f"{claim.name} is on leave",
                             body=f"The moderators noted your leave until {until:%Y-%m-%d}: "
                                  "the claim is not marked inactive meanwhile. Any message "
                                  "from you ends the leave early.",
                             at=now, tick=ctx.tick_of(now))
    return summary


def set_hold(session: Session, ctx: CampaignContext, claim: Claim, held: bool, *,
             actor: str, now: datetime) -> str:
    """Hold ``claim`` by hand, or lift its hold (logged; its players and the moderators told).
    Raises LookupError (nothing changed) when it already stands so. Returns a summary."""
    if claim.retired_at is not None:
        raise LookupError(f"{claim.name} is retired (its forces stay held)")
    if held == is_held(claim.hold, False):
        raise LookupError(f"{claim.name} is {'already' if held else 'not'} held")
    snapshots.take(session, ctx, kind="command", now=now, actor=actor,
                   label=f"claims {'hold' if held else 'lift'} {claim.name}")
    claim.hold = Hold.MODERATOR if held else Hold.LIFTED
    session.add(claim)
    summary = f"{claim.name} is {'held' if held else 'no longer held'} by the moderators"
    _log(session, ctx, claim, "claim_hold" if held else "claim_unheld", summary, now,
         actor=actor, data={"by": "moderator"})
    subject, body = ((f"{claim.name} is held", "The moderators have put your claim on hold: "
                      "at each tick your armies on the march stop where they stand (musters "
                      "complete, upkeep is paid). Write to the moderators to take it back.")
                     if held else
                     (f"{claim.name} is no longer held", "The moderators have lifted the hold "
                      "on your claim: your orders are carried out again."))
    journal.notify_claim(session, ctx.campaign_id, claim.id or 0,
                         f"hold:{claim.id}:{now.isoformat()}"[:100], subject=subject,
                         body=body, at=now, tick=ctx.tick_of(now))
    return summary


@dataclass(frozen=True, slots=True)
class Review:
    """What a tick's review found: the claims whose armies it stops (none with ``[claims]
    hold = "none"``) and what it logged (the tick's report lists it)."""

    held: frozenset[int]
    events: tuple[str, ...]


def review(session: Session, ctx: CampaignContext, tick: int, previous: datetime,
           at: datetime, campaign: Campaign | None = None) -> Review:
    """Tick ``tick`` (at ``at``; the one before at ``previous``): note the leaves that ended,
    warn the claims about to go inactive, hold those that went inactive (referred to the
    moderators).

    The claims' columns that decide it are read in one query; only a claim with something
    due is loaded as an object (most ticks: none, where loading every claim object cost
    more than the rest of the review). ``campaign``: the campaign's row, when the caller
    holds it (the tick: read again otherwise)."""
    settings = ctx.settings.claims
    created = _created(session, ctx, at, campaign)
    after, ahead = _days(settings.inactive_after_days), _days(settings.warn_days_ahead)
    held: set[int] = set()
    events: list[str] = []
    rows = session.execute(_REVIEW_QUERY, {"cid": ctx.campaign_id}).all()
    for row in rows:
        cid, retired = row.id or 0, row.retired_at is not None
        hold = row.hold
        due = () if retired else _due(last_seen(row, created), row.away_until, hold,
                                      previous, at, after, ahead)
        if due:
            claim = session.get_one(Claim, cid)
            seen = last_seen(claim, created)
            for step in due:
                if step == "returned":
                    events.append(_returned(session, ctx, claim, tick, at))
                elif step == "warn":
                    events.append(_warn(session, ctx, claim,
                                        inactive_from(seen, claim.away_until, after), tick, at))
                else:
                    events.append(_hold_inactive(session, ctx, claim, seen, tick, at))
            hold = claim.hold
        if is_held(hold, retired):
            held.add(cid)
    if journal.writes(session):  # (a preview keeps its holds in the session, unwritten)
        session.flush()
    return Review(frozenset(held) if settings.hold == "stop" else frozenset(), tuple(events))


_CLAIMS: Table = Claim.__table__  # type: ignore[attr-defined]
_REVIEW_QUERY = core_select(_CLAIMS.c.id, _CLAIMS.c.retired_at, _CLAIMS.c.active_at,
                            _CLAIMS.c.away_until, _CLAIMS.c.hold) \
    .where(_CLAIMS.c.campaign_id == bindparam("cid")).order_by(_CLAIMS.c.id)
"""The columns of the campaign ``:cid``'s claims that decide a review (built once; a Core
query of the table: the rows need no ORM)."""


def _due(seen: datetime, until: datetime | None, hold: Hold | None, previous: datetime,
         at: datetime, after: timedelta, ahead: timedelta) -> tuple[str, ...]:
    """What a tick between ``previous`` and ``at`` does for a claim not retired, last heard
    from at ``seen``, away until ``until``, held as ``hold``, in order: ``returned`` (its
    leave ended), ``warn`` (it goes inactive soon), ``hold`` (it went inactive). Neither of
    the first two changes the hold."""
    due: list[str] = []
    if until is not None and previous < until <= at:
        due.append("returned")
    warn = warn_from(seen, until, after, ahead)
    if warn is not None and previous < warn <= at and hold is None:
        due.append("warn")
    if hold is None and at >= inactive_from(seen, until, after):
        due.append("hold")
    return tuple(due)


def _returned(session: Session, ctx: CampaignContext, claim: Claim, tick: int,
              at: datetime) -> str:
    until = claim.away_until
    assert until is not None
    summary = _log(session, ctx, claim, "claim_returned",
                   f"{claim.name}'s leave ended ({until:%Y-%m-%d})", at, tick=tick,
                   data={"until": until.isoformat(), "early": False})
    journal.notify_claim(session, ctx.campaign_id, claim.id or 0, f"back:{claim.id}:{tick}",
                         subject=f"Welcome back, {claim.name}",
                         body=f"Your leave ended on {until:%Y-%m-%d}. Your orders are awaited; "
                              f"without a word for {ctx.settings.claims.inactive_after_days} "
                              "days the claim goes inactive.", at=at, tick=tick)
    journal.notify_moderators(session, ctx.campaign_id, f"back:{claim.id}:{tick}",
                              subject=f"{claim.name}'s leave ended",
                              body=f"{escape_md(claim.name)}'s leave ended on "
                                   f"{until:%Y-%m-%d}.", at=at, tick=tick)
    return summary


def leave_example(ctx: CampaignContext, at: datetime) -> datetime:
    """A leave's end a reply may give as an example at ``at``: two weeks on, or the longest
    leave allowed if shorter (an ``away`` order that is accepted as written)."""
    return at + timedelta(days=min(14, ctx.settings.claims.leave_max_days))


def _warn(session: Session, ctx: CampaignContext, claim: Claim, inactive: datetime,
          tick: int, at: datetime) -> str:
    summary = _log(session, ctx, claim, "inactive_warning",
                   f"{claim.name} warned: inactive from {ctx.when(inactive)}", at, tick=tick,
                   data={"inactive_from": inactive.isoformat()})
    journal.notify_claim(
        session, ctx.campaign_id, claim.id or 0, f"inactive-warning:{claim.id}:{tick}",
        subject=f"{claim.name} will soon be marked inactive",
        body=f"Nothing has come from {escape_md(claim.name)} for a while. Unless you send an "
             f"order (or anything at all) before {ctx.when(inactive)}, the claim will be "
             "marked inactive and held: its armies stop where they stand. Going away? Send "
             f"`away until {leave_example(ctx, at):%Y-%m-%d}` (your date, with a reason if "
             "you like).", at=at, tick=tick)
    return summary


def _hold_inactive(session: Session, ctx: CampaignContext, claim: Claim, seen: datetime,
                   tick: int, at: datetime) -> str:
    claim.hold = Hold.INACTIVE
    session.add(claim)
    days = ctx.settings.claims.inactive_after_days
    summary = _log(session, ctx, claim, "claim_held",
                   f"{claim.name} is inactive (nothing for {days} days) and held", at,
                   tick=tick, data={"by": "inactivity", "last_seen": seen.isoformat()})
    journal.notify_claim(
        session, ctx.campaign_id, claim.id or 0, f"held:{claim.id}:{tick}",
        subject=f"{claim.name} is inactive and held",
        body=f"Nothing has come from {escape_md(claim.name)} for {days} days, so it is held: "
             "at each tick its armies on the march stop where they stand. Send any order to "
             "take it back.", at=at, tick=tick)
    journal.notify_moderators(
        session, ctx.campaign_id, f"held:{claim.id}:{tick}",
        subject=f"Referral: {claim.name} is inactive",
        body=f"{escape_md(claim.name)} (players: "
             f"{', '.join('u/' + p for p in journal.players_of(session, claim.id or 0))}) "
             f"has sent nothing since {ctx.when(seen)} and is now held. Decide what becomes of "
             "it: `maester claims lift`, `away`, `transfer` or `retire` (see "
             "docs/moderators.md).", at=at, tick=tick)
    return summary


def _log(session: Session, ctx: CampaignContext, claim: Claim, kind: str, summary: str,
         at: datetime, *, actor: str = "maester", tick: int | None = None,
         data: dict[str, object] | None = None) -> str:
    """Journal ``summary`` (private, about ``claim``); returns it."""
    journal.log_event(session, ctx.campaign_id, ctx.tick_of(at) if tick is None else tick,
                      kind, summary, at=at, claim_id=claim.id, actor=actor,
                      data=dict(data or {}))
    return summary


def listing(session: Session, ctx: CampaignContext, now: datetime
            ) -> Sequence[tuple[Claim, Life]]:
    """Every claim with its standing at ``now``, by name."""
    created = _created(session, ctx, now)
    claims = session.exec(select(Claim).where(Claim.campaign_id == ctx.campaign_id)
                          .order_by(col(Claim.name))).all()
    return [(c, life(ctx, c, created, now)) for c in claims]
