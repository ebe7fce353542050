"""Stored claim and siege rows as the rules' values (:class:`~rules.campaign.state.ClaimState`,
:class:`~rules.campaign.state.SiegeState`), and a claim's ledger of slain troops to and from its
JSON column: the conversions the tick (:mod:`bot.services.tick`) and the orders
(:mod:`bot.services.order_world`) share.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from bot.db.models import Claim, Siege
from rules.campaign import calendar
from rules.campaign.state import ClaimState, SiegeState
from rules.campaign.upkeep import SlainLedger, SlainLoss


def ledger_from_json(data: Sequence[Any]) -> SlainLedger:
    """A claim's stored ``slain_json`` as the rules' ledger of slain troops."""
    losses = []
    last = None
    for item in data:
        if "last_accrued" in item:
            y, m = item["last_accrued"]
            last = calendar.GameDate(y, m)
            continue
        losses.append(SlainLoss(
            calendar.GameDate(*item["month"]), item["infantry"], item["cavalry"],
            item["returned_infantry"], item["returned_cavalry"],
            Fraction(item["carry_infantry"]), Fraction(item["carry_cavalry"])))
    return SlainLedger(tuple(losses), last)


def ledger_to_json(ledger: SlainLedger) -> list[Any]:
    """The ledger of slain troops as stored in ``slain_json`` (:func:`ledger_from_json`)."""
    out: list[Any] = [
        {"month": [loss.month.year, loss.month.month], "infantry": loss.infantry,
         "cavalry": loss.cavalry, "returned_infantry": loss.returned_infantry,
         "returned_cavalry": loss.returned_cavalry, "carry_infantry": str(loss.carry_infantry),
         "carry_cavalry": str(loss.carry_cavalry)}
        for loss in ledger.losses
    ]
    if ledger.last_accrued is not None:
        out.append({"last_accrued": [ledger.last_accrued.year, ledger.last_accrued.month]})
    return out


def claim_state(claim: Claim) -> ClaimState:
    """A claim row as the rules' value."""
    return ClaimState(
        id=claim.id or 0, name=claim.name, holdfast=claim.holdfast, gold=claim.gold,
        infantry=claim.infantry, cavalry=claim.cavalry, ships=claim.ships,
        scattered_infantry=claim.scattered_infantry, scattered_cavalry=claim.scattered_cavalry,
        scattered_until=claim.scattered_until, slain=ledger_from_json(claim.slain_json),
        improvements=tuple(claim.improvements_json))


def siege_state(siege: Siege) -> SiegeState:
    """A siege row as the rules' value."""
    return SiegeState(
        id=siege.id or 0, army_id=siege.army_id, besieger_claim=siege.besieger_claim,
        defender_claim=siege.defender_claim, holdfast=siege.holdfast,
        started_tick=siege.started_tick, months_elapsed=siege.months_elapsed,
        months_required=siege.months_required, paused=siege.paused, status=siege.status)
