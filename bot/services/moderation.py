"""A moderator's rulings by hand: a character's fate, an army removed, the season, how two
claims stand, a claim's gold and troops at home.

Each function changes the world inside the caller's transaction (the caller keeps the snapshot
``maester undo`` takes it back to), logs one event with the moderator's name, and raises
LookupError (a sentence for the moderator) when what it names does not exist, changing
nothing.
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import NamedTuple

from sqlmodel import Session

from bot.db.models import Character, Claim
from bot.services import forewarn, journal, snapshots
from bot.services.order_world import load_order_world, write_back
from bot.services.sieges import end_siege
from bot.services.world import CampaignContext, get_campaign, set_relation
from rules.campaign.config import Season
from rules.campaign.decide import Part
from rules.campaign.inputs import check_holdings
from rules.campaign.paths import ArmyKind
from rules.campaign.rulings import remove_army as rules_remove_army
from rules.campaign.rulings import rule_fate
from rules.campaign.world import CharacterStatus, RelationStatus

FATES: dict[str, CharacterStatus] = {
    "dead": CharacterStatus.DEAD,
    "wounded": CharacterStatus.WOUNDED,
    "captured": CharacterStatus.CAPTURED,
    "free": CharacterStatus.ALIVE,
}
"""The fates a moderator can record, by the word ``maester character set`` takes."""


def set_fate(session: Session, ctx: CampaignContext, character: Character, fate: str, *,
             note: str, actor: str, now: datetime) -> str:
    """Record the fate the moderators ruled (a key of :data:`FATES`,
    :func:`rules.campaign.rulings.rule_fate`); returns the summary."""
    status = FATES.get(fate.lower())
    if status is None:
        raise LookupError(f"{fate!r} is not a fate: one of {', '.join(FATES)}")
    snapshots.take(session, ctx, kind="command", now=now, actor=actor,
                   label=f"character set {character.name} {fate.lower()}")
    world, rows = load_order_world(session, ctx, (Part.ARMIES, Part.CHARACTERS))
    after, ruled = rule_fate(world, character.id or 0, status)
    write_back(session, ctx, rows, world, after)
    before, left = ruled.before, ruled.left
    summary = (f"{character.name}: {before.value} -> {status.value}"
               + (f", leaves army {left}" if left is not None else "")
               + (f" ({note})" if note else ""))
    journal.log_event(session, ctx.campaign_id, ctx.tick_of(now), "character", summary, at=now,
                      claim_id=character.claim_id, actor=actor,
                      data={"character": character.id, "before": before.value,
                            "after": status.value, "army": left, "note": note})
    return summary


def remove_army(session: Session, ctx: CampaignContext, army_id: int, *, reason: str,
                actor: str, now: datetime) -> str:
    """Remove a raised army or fleet (:func:`rules.campaign.rulings.remove_army`): its troops
    are gone (not sent home), its characters stand free of it, a siege it held ends, a battle
    it awaited does not happen (the tick voids battles of gone armies). Returns the event's
    summary."""
    snapshots.take(session, ctx, kind="command", label=f"army remove {army_id}", now=now,
                   actor=actor)
    world, rows = load_order_world(session, ctx, (Part.ARMIES, Part.SIEGES, Part.CHARACTERS))
    if army_id not in world.armies:
        raise LookupError(f"no raised army or fleet {army_id} (see `maester armies`)")
    after, removed = rules_remove_army(world, army_id)
    write_back(session, ctx, rows, world, after)
    tick = ctx.tick_of(now)
    for siege in removed.sieges:
        end_siege(session, ctx, siege, "The besiegers were removed by the moderators.",
                  at=now, tick=tick)
    found = removed.army
    what = "fleet" if found.kind == ArmyKind.FLEET else "army"
    summary = (f"{what} {found.id} of {world.claim_name(found.claim_id)} removed: "
               f"{found.infantry} infantry, {found.cavalry} cavalry, {found.ships} ships "
               f"are gone ({reason})")
    journal.log_event(session, ctx.campaign_id, tick, "army_removed", summary, at=now,
                      claim_id=found.claim_id, actor=actor,
                      data={"army": found.id, "infantry": found.infantry,
                            "cavalry": found.cavalry, "ships": found.ships, "reason": reason})
    return summary


def set_season(session: Session, ctx: CampaignContext, season: Season, *, actor: str,
               now: datetime) -> tuple[Season, int]:
    """Set the season (logged publicly); when winter begins, every claim with raised troops
    is warned privately that its upkeep doubles. Returns the season before and how many
    claims were warned."""
    snapshots.take(session, ctx, kind="command", label=f"season set {season.value}", now=now,
                   actor=actor)
    campaign = get_campaign(session, ctx)
    before = campaign.season
    campaign.season = season
    session.add(campaign)
    tick = ctx.tick_of(now)
    journal.log_event(session, ctx.campaign_id, tick, "season",
                      f"season set from {before.value} to {season.value}", at=now,
                      actor=actor, public=True,
                      data={"before": before.value, "after": season.value})
    return before, forewarn.winter_begins(session, ctx, before, season, at=now, tick=tick)


def set_relations(session: Session, ctx: CampaignContext, a: Claim, b: Claim,
                  status: RelationStatus, *, actor: str, now: datetime) -> RelationStatus:
    """Set how claims ``a`` and ``b`` stand (logged); a war they were not at is told to both
    privately. Returns how they stood before."""
    snapshots.take(session, ctx, kind="command", now=now, actor=actor,
                   label=f"relations set {a.name} {b.name} {status.value}")
    tick = ctx.tick_of(now)
    before = set_relation(session, ctx, a.id or 0, b.id or 0, status)
    journal.log_event(session, ctx.campaign_id, tick, "relation",
                      f"{a.name} and {b.name}: {before.value} -> {status.value}", at=now,
                      actor=actor, data={"claims": [a.id, b.id]})
    if status is RelationStatus.WAR and before is not RelationStatus.WAR:
        forewarn.war_declared(session, ctx, 0, [a.id or 0, b.id or 0], at=now, tick=tick,
                              how="by the moderators' ruling")
    return before


class Holdings(NamedTuple):
    """A claim's gold and troops at home."""

    gold: Decimal
    infantry: int
    cavalry: int
    ships: int


def held_gold(claim: Claim) -> Decimal:
    """``claim``'s gold, a damaged one (not a finite number: a hand edit of the database, see
    :class:`bot.errors.DamagedValue`) counted as 0 so that ``adjust`` can set it right."""
    gold = claim.gold
    return gold if isinstance(gold, Decimal) and gold.is_finite() else Decimal(0)


def adjusted(claim: Claim, change: Holdings) -> Holdings:
    """``claim``'s holdings after ``change`` (each part added, signed). Raises InvalidInput
    (:func:`rules.campaign.inputs.check_holdings`) when any would fall below 0 or beyond the
    limits."""
    new = Holdings(held_gold(claim) + change.gold, claim.infantry + change.infantry,
                   claim.cavalry + change.cavalry, claim.ships + change.ships)
    check_holdings(new.gold, {"infantry": new.infantry, "cavalry": new.cavalry,
                              "ships": new.ships}, claim.name)
    return new


def adjust_claim(session: Session, ctx: CampaignContext, claim: Claim, change: Holdings, *,
                 reason: str, actor: str, now: datetime) -> Holdings:
    """Change ``claim``'s gold and troops at home by ``change`` (logged with ``reason``);
    returns the holdings after. Raises InvalidInput as :func:`adjusted`, changing nothing."""
    new = adjusted(claim, change)
    snapshots.take(session, ctx, kind="command", label=f"adjust {claim.name}", now=now,
                   actor=actor)
    claim.gold, claim.infantry, claim.cavalry, claim.ships = new
    session.add(claim)
    journal.log_event(session, ctx.campaign_id, ctx.tick_of(now), "adjust",
                      f"{claim.name}: gold {change.gold:+}, infantry {change.infantry:+}, "
                      f"cavalry {change.cavalry:+}, ships {change.ships:+}"
                      + (f" ({reason})" if reason else ""),
                      at=now, claim_id=claim.id, actor=actor,
                      data={"gold": str(change.gold), "infantry": change.infantry,
                            "cavalry": change.cavalry, "ships": change.ships,
                            "reason": reason})
    return new
