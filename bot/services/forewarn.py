"""Warnings before losses, sent privately to a claim's players (never posted).

The numbers come from :mod:`rules.campaign.warnings`; this module words them and queues them
as private messages (:func:`bot.services.journal.notify_claim`). The callers each make one
call here: the tick's monthly upkeep (from the values of the upkeep events of
:func:`rules.campaign.advance.advance_upkeep`), the season and relation commands, the wars an
order's receipt declares (:mod:`bot.services.order_apply`), and the receipts of muster, build,
buy and status (:func:`shortfall`, a value on the receipt rendered by
:mod:`bot.services.receipts`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from decimal import Decimal

from sqlmodel import Session

from bot.db.models import Claim
from bot.services import journal
from bot.services.render import money, scatter_forecast_text, troops_text
from bot.services.world import CampaignContext, all_claims, armies, get_campaign
from bot.text import name_md
from rules.campaign import calendar
from rules.campaign.config import Season
from rules.campaign.modifiers import Modifier
from rules.campaign.state import ClaimState
from rules.campaign.upkeep import Troops, UpkeepResult
from rules.campaign.warnings import (
    Shortfall,
    forecast_upkeep,
    next_upkeep_shortfall,
    upkeep_charged_at,
    winter_warning,
)

HOW_TO_AVOID = ("To avoid it, have more gold by then, or send troops home with "
                "`disband army N` (troops at home cost no upkeep) until the upkeep fits your "
                "gold.")


def _troops(t: Troops) -> str:
    return troops_text(t.infantry, t.cavalry, t.ships)


def raised_troops(session: Session, ctx: CampaignContext, claim_id: int) -> Troops:
    """A claim's raised troops (mustering, standing, marching or besieging): the ones upkeep
    is paid for."""
    mine = armies(session, ctx, claim_id=claim_id)
    return Troops(sum(a.infantry for a in mine), sum(a.cavalry for a in mine),
                  sum(a.ships for a in mine))


def income_modifiers(session: Session, ctx: CampaignContext, claim: Claim | ClaimState
                     ) -> tuple[Modifier, ...]:
    """The claim's modifiers in force now (its monthly gold income comes from these)."""
    from bot.services.catalogue import ModifierBook

    return ModifierBook.load(session, ctx).claim(claim)


def upkeep_ahead(session: Session, ctx: CampaignContext, claim_id: int, *, season: Season,
                 after_paying: UpkeepResult, raised: Troops, month: calendar.GameDate,
                 income: Iterable[Modifier], at: datetime, tick: int) -> None:
    """After month ``month``'s upkeep (``after_paying``, the tick's own result, of the
    ``raised`` troops): warn claim ``claim_id`` when next month's will exceed its gold."""
    if after_paying.scatter:
        return
    forecast = forecast_upkeep(after_paying.gold_after, raised, season, ctx.rules,
                               income_modifiers=income)
    if not forecast.scatter:
        return
    coming = calendar.next_month(month, ctx.rules)
    charged = upkeep_charged_at(coming, ctx.rules)
    journal.notify_claim(
        session, ctx.campaign_id, claim_id,
        f"upkeep-warning:{claim_id}:{coming.year}:{coming.month}",
        subject=f"Warning: your armies will scatter in {calendar.format_game_date(coming)}",
        body=(f"Next month's upkeep is charged {ctx.when(charged)}. "
              + scatter_forecast_text(forecast) + "\n\n" + HOW_TO_AVOID),
        at=at, tick=tick)


def scattered(session: Session, ctx: CampaignContext, claim_id: int, result: UpkeepResult,
              month: calendar.GameDate, until: datetime, *, at: datetime, tick: int) -> None:
    """Tell claim ``claim_id``, whose armies just scattered, what came home, what was lost and
    until when the survivors cannot be raised (``result``: the tick's own upkeep result)."""
    journal.notify_claim(
        session, ctx.campaign_id, claim_id,
        f"scatter-note:{claim_id}:{month.year}:{month.month}",
        subject=f"Your armies scattered in {calendar.format_game_date(month)}",
        body=("Your gold" + (f" and {money(result.income)} gold of income" if result.income
                             else "")
              + f" did not cover the upkeep of {money(result.cost)} gold, so your armies "
              f"scattered and your gold is now 0.\n\n"
              f"- Came home: {_troops(result.survivors)}\n"
              f"- Lost for good: {_troops(result.lost)}\n"
              f"- The survivors cannot be raised again until {ctx.when(until)}."),
        at=at, tick=tick)


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
        f = warning.forecast
        body = (f"Winter has begun: upkeep is multiplied by "
                f"{money(Decimal(ctx.rules.winter_upkeep_multiplier))} until the moderators "
                f"end it. Your raised troops ({_troops(f.raised)}) now cost {money(f.cost)} "
                f"gold a month instead of {money(warning.cost_before)}.")
        if f.scatter:
            body += "\n\n" + scatter_forecast_text(f) + "\n\n" + HOW_TO_AVOID
        journal.notify_claim(session, ctx.campaign_id, claim.id or 0,
                             f"winter:{claim.id}:{at.isoformat()}",
                             subject="Winter has begun: your upkeep doubles", body=body,
                             at=at, tick=tick)
        told += 1
    return told


def war_declared(session: Session, ctx: CampaignContext, by: int, on: Sequence[int], *,
                 at: datetime, tick: int, how: str = "") -> None:
    """Tell the claims in ``on`` that claim ``by`` is now at war with them (``by`` is 0 when
    the moderators set the relation; each side is then told of the other)."""
    names = {c.id: c.name for c in all_claims(session, ctx)}
    for target in on:
        other = by or next((x for x in on if x != target), 0)
        enemy = name_md(names.get(other, "another claim"))
        journal.notify_claim(
            session, ctx.campaign_id, target, f"war:{other}:{target}:{at.isoformat()}",
            subject=f"{names.get(other, 'Another claim')} is at war with you",
            body=(f"**{enemy}** is now at war with your claim"
                  + (f" ({how})" if how else "") + ". Its armies may attack, intercept or "
                  "besiege yours, and meeting them in the field means battle."),
            at=at, tick=tick)


def shortfall(session: Session, ctx: CampaignContext, claim: Claim | ClaimState,
              at: datetime, *, first: bool = False) -> Shortfall | None:
    """The warning a receipt carries when the claim's gold will not cover the next upkeep of
    all its raised troops as stored now (``first``: a muster's receipt, the new army counted);
    None when the gold will do. Rendered by :func:`bot.services.render.shortfall_text`."""
    season = Season(get_campaign(session, ctx).season)
    return next_upkeep_shortfall(claim.gold, raised_troops(session, ctx, claim.id or 0), season,
                                 ctx.rules, at, first=first,
                                 income_modifiers=income_modifiers(session, ctx, claim))
