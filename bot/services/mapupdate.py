"""Replacing a running campaign's map (``maester map update``).

The map is stored in the database (``campaign.map_text``) when the campaign is created; the
config's ``campaign.map`` is read only by ``maester init``. An update checks that every claim's
holdfast, army, march, siege, pending battle and held resource tile still stands on a tile
that can hold it, shows the difference, and stores the new text with an event in the log.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from sqlmodel import Session, col, select

from bot.db.models import ArmyKind, ArmyState, PendingBattle, ResourceHolder, Siege
from bot.services import journal, snapshots
from bot.services.world import (
    CampaignContext,
    all_claims,
    armies,
    get_campaign,
)
from rules.campaign.config import Terrain
from rules.campaign.mapcheck import MapDiff, bonuses_out_of_range, map_difference
from rules.campaign.world import ACTIVE_STATES, BattleStatus, SiegeStatus
from rules.campaign.worldmap import WorldMap, parse_map


@dataclass(slots=True)
class MapUpdatePlan:
    """A checked update: the new map, its difference from the old and what would break."""

    text: str
    world: WorldMap
    diff: MapDiff
    problems: list[str] = field(default_factory=list)
    same_text: bool = False

    @property
    def changed(self) -> bool:
        return not self.same_text

    def describe(self) -> list[str]:
        """The difference, one line per kind of change."""
        d = self.diff
        lines = [f"new map: {len(self.world)} tiles"]

        def listed(ids: tuple[str, ...]) -> str:
            return ", ".join(ids[:30]) + (f" and {len(ids) - 30} more" if len(ids) > 30 else "")

        if d.added:
            lines.append(f"added tiles ({len(d.added)}): {listed(d.added)}")
        if d.removed:
            lines.append(f"removed tiles ({len(d.removed)}): {listed(d.removed)}")
        for tid, old, new in d.renamed:
            lines.append(f"renamed {tid}: {old or '(no name)'} -> {new or '(no name)'}")
        for tid, what in d.changed:
            lines.append(f"changed {tid}: {what}")
        if d.joined:
            lines.append("now adjacent: " + ", ".join(f"{a}-{b}" for a, b in d.joined))
        if d.parted:
            lines.append("no longer adjacent: " + ", ".join(f"{a}-{b}" for a, b in d.parted))
        if d.empty and self.changed:
            lines.append("no tile changes (only comments or layout differ)")
        return lines


def plan_map_update(session: Session, ctx: CampaignContext, text: str) -> MapUpdatePlan:
    """Check ``text`` as the campaign's new map. Raises MapError when it does not load."""
    new = parse_map(text)
    campaign = get_campaign(session, ctx)
    plan = MapUpdatePlan(text, new, map_difference(ctx.world, new),
                         same_text=campaign.map_text == text)

    def where(tile: str) -> str:
        return f"{tile} ({ctx.world.tile(tile).label})" if tile in ctx.world else tile

    plan.problems += [str(e) for e in bonuses_out_of_range(new, ctx.rules)]

    for claim in all_claims(session, ctx):
        tile = new.tiles.get(claim.holdfast)
        if tile is None or not tile.holdfast:
            plan.problems.append(f"{claim.name}'s holdfast {where(claim.holdfast)} is "
                                 f"{'gone' if tile is None else 'no longer a holdfast'}")
    for a in armies(session, ctx, states=ACTIVE_STATES):
        fleet = a.kind is ArmyKind.FLEET
        what = f"{'fleet' if fleet else 'army'} {a.id}"
        tile = new.tiles.get(a.tile)
        if tile is None:
            plan.problems.append(f"{what} stands on {where(a.tile)}, which is gone")
        elif a.state not in (ArmyState.GARRISON, ArmyState.MUSTERING) and (
                (tile.terrain is Terrain.WATER) != fleet or tile.terrain is Terrain.IMPASSABLE):
            plan.problems.append(f"{what} stands on {where(a.tile)}, now {tile.terrain.value}")
        previous = a.tile
        for step in a.path_json:
            step = str(step)
            target = new.tiles.get(step)
            if target is None:
                plan.problems.append(f"{what} marches through {where(step)}, which is gone")
                break
            if (target.terrain is Terrain.WATER) != fleet or \
                    target.terrain is Terrain.IMPASSABLE:
                plan.problems.append(f"{what} marches through {step}, now "
                                     f"{target.terrain.value}")
                break
            if previous in new.tiles and step != previous and \
                    not new.are_adjacent(previous, step):
                plan.problems.append(f"{what} marches from {previous} to {step}, which are no "
                                     "longer adjacent")
                break
            previous = step
    sieges = session.exec(select(Siege).where(Siege.campaign_id == ctx.campaign_id,
                                              Siege.status == SiegeStatus.ACTIVE)).all()
    for siege in sieges:
        tile = new.tiles.get(siege.holdfast)
        if tile is None or not tile.holdfast:
            plan.problems.append(f"siege {siege.id} of {where(siege.holdfast)}: the holdfast "
                                 f"is {'gone' if tile is None else 'no longer a holdfast'}")
    battles = session.exec(select(PendingBattle).where(
        PendingBattle.campaign_id == ctx.campaign_id,
        PendingBattle.status == BattleStatus.PENDING)).all()
    for battle in battles:
        if battle.tile not in new.tiles:
            plan.problems.append(f"pending battle {battle.id} at {where(battle.tile)}: the "
                                 "tile is gone")
    holders = session.exec(select(ResourceHolder).where(
        ResourceHolder.campaign_id == ctx.campaign_id,
        col(ResourceHolder.claim_id).is_not(None))).all()
    for holder in holders:
        tile = new.tiles.get(holder.tile)
        if tile is None or not (tile.resource or tile.holdfast):  # (a holdfast that changed
            # hands is held too)
            plan.problems.append(f"resource tile {where(holder.tile)} is held but is "
                                 f"{'gone' if tile is None else 'no longer a resource tile'}")
    return plan


def apply_map_update(session: Session, ctx: CampaignContext, plan: MapUpdatePlan, *,
                     now: datetime, actor: str, source: str) -> CampaignContext:
    """Store the new map (from the file ``source``) and log it, a snapshot kept first; the
    context with the new map (``ctx`` itself stays as it was: a running bot takes the map up
    with :func:`bot.services.world.refreshed`). Raises ValueError for a plan with problems."""
    if plan.problems:
        raise ValueError("the new map does not fit the campaign: " + "; ".join(plan.problems))
    snapshots.take(session, ctx, kind="command", label=f"map update {source}", now=now,
                   actor=actor, heavy=True)
    campaign = get_campaign(session, ctx, lock=True)
    campaign.map_text = plan.text
    session.add(campaign)
    d = plan.diff
    journal.log_event(
        session, ctx.campaign_id, campaign.last_tick, "map_updated",
        f"map replaced by {actor}: {len(d.added)} added, {len(d.removed)} removed, "
        f"{len(d.renamed)} renamed, {len(d.changed)} changed tiles",
        at=now, actor=actor,
        data={"added": list(d.added), "removed": list(d.removed),
              "renamed": [list(r) for r in d.renamed], "changed": [list(c) for c in d.changed],
              "joined": [list(p) for p in d.joined], "parted": [list(p) for p in d.parted]})
    return ctx.with_map(plan.text)
