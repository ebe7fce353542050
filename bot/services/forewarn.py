"""Warnings before losses, sent privately to a claim's players (never posted).

The numbers come from :mod:`rules.campaign.warnings`; :mod:`bot.render.notes` words them and
this module queues them as private messages (:func:`bot.services.journal.notify_claim`). The
callers each make one call here: the tick's monthly upkeep (from the values of the upkeep events of
:func:`rules.campaign.tick.advance_upkeep`), the season and relation commands, the wars an
order's receipt declares (:mod:`bot.services.order_apply`), and the receipts of muster, build,
buy and status (:func:`shortfall`, a value on the receipt rendered by
:mod:`bot.render.receipts`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from decimal import Decimal

from sqlmodel import Session

from bot.db.models import Claim
from bot.render import notes
from bot.services import journal
from bot.services.world import CampaignContext, all_claims, armies, get_campaign
from rules.campaign import calendar
from rules.campaign.config import Season
from rules.campaign.modifiers import Modifier
from rules.campaign.upkeep import Troops, UpkeepResult, troops_of
from rules.campaign.warnings import (
    Shortfall,
    next_upkeep_shortfall,
    winter_warning,
)
from rules.campaign.warnings import upkeep_ahead as rules_upkeep_ahead
from rules.campaign.world import ClaimState


def raised_troops(session: Session, ctx: CampaignContext, claim_id: int) -> Troops:
    """A claim's raised troops (mustering, standing, marching or besieging): the ones upkeep
    is paid for."""
    return troops_of(armies(session, ctx, claim_id=claim_id))


def income_modifiers(session: Session, ctx: CampaignContext, claim: Claim | ClaimState
                     ) -> tuple[Modifier, ...]:
    """The claim's modifiers in force now (its monthly gold income comes from these)."""
    from bot.services.catalogue import ModifierBook, claim_value

    return ModifierBook.load(session, ctx).claim(claim_value(claim))


def upkeep_ahead(session: Session, ctx: CampaignContext, claim_id: int, *, season: Season,
                 after_paying: UpkeepResult, raised: Troops, month: calendar.GameDate,
                 income: Iterable[Modifier], at: datetime, tick: int) -> None:
    """After month ``month``'s upkeep (``after_paying``, the tick's own result, of the
    ``raised`` troops): warn claim ``claim_id`` when next month's will exceed its gold."""
    ahead = rules_upkeep_ahead(after_paying, raised, season, month, ctx.rules,
                               income_modifiers=income)
    if ahead is None:
        return
    coming = ahead.month
    subject, body = notes.upkeep_warning_note(month=calendar.format_game_date(coming),
                                              charged=ctx.when(ahead.charged),
                                              forecast=ahead.forecast)
    journal.notify_claim(session, ctx.campaign_id, claim_id,
                         f"upkeep-warning:{claim_id}:{coming.year}:{coming.month}",
                         subject=subject, body=body, at=at, tick=tick)


def scattered(session: Session, ctx: CampaignContext, claim_id: int, result: UpkeepResult,
              month: calendar.GameDate, until: datetime, *, at: datetime, tick: int) -> None:
    """Tell claim ``claim_id``, whose armies just scattered, what came home, what was lost and
    until when the survivors cannot be raised (``result``: the tick's own upkeep result)."""
    subject, body = notes.scattered_note(month=calendar.format_game_date(month), result=result,
                                         until=ctx.when(until))
    journal.notify_claim(session, ctx.campaign_id, claim_id,
                         f"scatter-note:{claim_id}:{month.year}:{month.month}",
                         subject=subject, body=body, at=at, tick=tick)


def winter_begins(session: Session, ctx: CampaignContext, before: Season, after: Season, *,
                  at: datetime, tick: int) -> int:
    """Warn every claim with raised troops that winter doubles its upkeep; returns how many
    claims were told."""
    if after is not Season.WINTER or before is Season.WINTER:
        return 0
    told = 0
    for claim in all_claims(session, ctx):
        warning = winter_warning(before, after, claim.gold,
                                 raised_troops(session, ctx, claim.id or 0), ctx.rules,
                                 income_modifiers=income_modifiers(session, ctx, claim))
        if warning is None:
            continue
        subject, body = notes.winter_note(Decimal(ctx.rules.winter_upkeep_multiplier), warning)
        journal.notify_claim(session, ctx.campaign_id, claim.id or 0,
                             f"winter:{claim.id}:{at.isoformat()}",
                             subject=subject, body=body, at=at, tick=tick)
        told += 1
    return told


def war_declared(session: Session, ctx: CampaignContext, by: int, on: Sequence[int], *,
                 at: datetime, tick: int, how: str = "") -> None:
    """Tell the claims in ``on`` that claim ``by`` is now at war with them (``by`` is 0 when
    the moderators set the relation; each side is then told of the other)."""
    names = {c.id: c.name for c in all_claims(session, ctx)}
    for target in on:
        other = by or next((x for x in on if x != target), 0)
        subject, body = notes.war_note(names.get(other), how)
        journal.notify_claim(
            session, ctx.campaign_id, target, f"war:{other}:{target}:{at.isoformat()}",
            subject=subject, body=body, at=at, tick=tick)


def shortfall(session: Session, ctx: CampaignContext, claim: Claim | ClaimState,
              at: datetime, *, first: bool = False) -> Shortfall | None:
    """The warning a receipt carries when the claim's gold will not cover the next upkeep of
    all its raised troops as stored now (``first``: a muster's receipt, the new army counted);
    None when the gold will do. Rendered by :func:`bot.render.notes.shortfall_text`."""
    return next_upkeep_shortfall(claim.gold, raised_troops(session, ctx, claim.id or 0),
                                 get_campaign(session, ctx).season,
                                 ctx.rules, at, first=first,
                                 income_modifiers=income_modifiers(session, ctx, claim))
