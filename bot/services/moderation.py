"""A moderator's rulings by hand: a character's fate, an army removed, the season, how two
claims stand, a claim's gold and troops at home, a holdfast or a seat given to a claim.

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
from bot.render import notes
from bot.services import forewarn, journal, snapshots
from bot.services.order_world import load_order_world, write_back
from bot.services.sieges import end_siege
from bot.services.world import CampaignContext, current, set_relation
from rules.campaign.config import Season
from rules.campaign.decide import Part
from rules.campaign.holdfasts import give_holdfast as rules_give_holdfast
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
    return remove_army_kept(session, ctx, army_id, reason=reason, actor=actor, now=now)


def remove_army_kept(session: Session, ctx: CampaignContext, army_id: int, *, reason: str,
                     actor: str, now: datetime) -> str:
    """:func:`remove_army` within a change that keeps its own snapshot (``claims retire``)."""
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
    ctx, campaign = current(session, ctx)
    before = campaign.season
    campaign.season = season
    session.add(campaign)
    tick = ctx.tick_of(now)
    journal.log_event(session, ctx.campaign_id, tick, "season",
                      f"season set from {before.value} to {season.value}", at=now,
                      actor=actor, public=True,
                      data={"before": before.value, "after": season.value})
    return before, forewarn.season_changes(session, ctx, before, season, at=now, tick=tick)


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


def give_holdfast(session: Session, ctx: CampaignContext, claim: Claim, holdfast: str, *,
                  seat: bool, actor: str, now: datetime) -> str:
    """Give ``holdfast`` (a tile reference) to ``claim``, as its seat when ``seat``
    (:func:`rules.campaign.holdfasts.give_holdfast`): a snapshot first (``maester undo``),
    logged; the claim, the one that held it and one whose seat it was are told privately.
    Returns the event's summary. Raises LookupError for a tile that is no holdfast, changing
    nothing."""
    tile = ctx.world.tile(holdfast)
    if not tile.holdfast:
        raise LookupError(f"{tile.label} is not a holdfast")
    snapshots.take(session, ctx, kind="command", now=now, actor=actor,
                   label=f"holdfast give {tile.label} {claim.name}" + (" --seat" if seat else ""))
    world, rows = load_order_world(session, ctx, (Part.HOLDERS,))
    after, given = rules_give_holdfast(world, tile.id, claim.id or 0, seat=seat)
    write_back(session, ctx, rows, world, after)
    tick = ctx.tick_of(now)
    summary = (f"{tile.label} given to {claim.name}" + (" as its seat" if seat else "")
               + f" (held by {world.claim_name(given.before) if given.before else 'nobody'})")
    journal.log_event(session, ctx.campaign_id, tick, "holdfast_given", summary, at=now,
                      claim_id=claim.id, actor=actor,
                      data={"holdfast": tile.id, "seat": seat, "before": given.before,
                            "seat_lost": given.seat_lost})
    told = [(claim.id or 0, "given", notes.holdfast_given_note(holdfast=tile.label, seat=seat))]
    if given.before is not None and given.before != claim.id:
        told.append((given.before, "taken", notes.holdfast_taken_note(
            holdfast=tile.label, claim=claim.name, seat=given.seat_lost == given.before)))
    for claim_id, what, (subject, body) in told:
        journal.notify_claim(session, ctx.campaign_id, claim_id,
                             f"holdfast:{tile.id}:{what}:{tick}", subject=subject, body=body,
                             at=now, tick=tick)
    return summary


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
