"""The world an order needs, loaded as values, and the difference an order made, written back.

:func:`load_order_world` reads the campaign's claims, its raised armies, its pending battles,
its active sieges, its relations and its resource tile holders (one query each) into a
:class:`rules.campaign.world.World`; :func:`write_back` compares the world after
:func:`rules.campaign.decide.apply_order` with the one loaded and changes only the rows that
differ, adding what the order created. The caller's transaction (the order's savepoint) holds
it all.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, replace
from typing import Any

from sqlalchemy import update
from sqlmodel import Session

from bot.db.models import Army, Campaign
from bot.services.fairplay import marked
from bot.services.world import CampaignContext
from bot.storage.army_rows import (
    ARMY_TABLE,
    TICK_COLUMNS,
    ArmyRecord,
    apply_change,
    army_value,
    insert_armies,
    load_records,
    save_changed,
)
from bot.storage.battle_rows import insert_battles, load_battles, save_battles
from bot.storage.world_rows import (
    load_characters,
    load_claims,
    load_holders,
    load_relations,
    load_sieges,
    save_world,
    sync_session,
)
from rules.campaign.config import Season
from rules.campaign.decide import NEW_SIEGE, Bought, Part
from rules.campaign.world import ArmyState, BattleStatus, ClaimState, SiegeState, SiegeStatus, World

RAISED = frozenset(ArmyState) - {ArmyState.GONE}
"""The armies an order sees: every state but gone."""


@dataclass(slots=True)
class Rows:
    """The records of the armies behind a loaded world, by id (the tick's
    :class:`~bot.storage.army_rows.ArmyRecord`: changed in place, written back by
    :func:`save_armies`), and the claims as the order left them."""

    armies: dict[int, ArmyRecord]
    claims: Mapping[int, ClaimState]


def load_order_world(session: Session, ctx: CampaignContext,
                     parts: Collection[Part] = frozenset(Part)) -> tuple[World, Rows]:
    """The campaign as an order sees it: the claims and the ``parts`` it reads (raised armies,
    pending battles, active sieges, wars and alliances, resource tile holders, characters of
    every status), one query each (the tick's loaders), and the army records behind it."""
    cid = ctx.campaign_id
    campaign = session.get(Campaign, cid)
    season = campaign.season if campaign is not None else Season.SUMMER
    claims = load_claims(session, cid)
    armies = {a.id: a for a in load_records(session, cid, RAISED)} \
        if Part.ARMIES in parts else {}
    wars, allies = load_relations(session, cid) if Part.RELATIONS in parts \
        else (frozenset(), frozenset())
    world = World(
        armies={i: army_value(a) for i, a in armies.items()},
        claims=claims,
        battles=tuple(load_battles(session, cid, (BattleStatus.PENDING,)))
        if Part.BATTLES in parts else (),
        sieges=load_sieges(session, cid) if Part.SIEGES in parts else (),
        wars=wars, allies=allies,
        holders=load_holders(session, cid) if Part.HOLDERS in parts else {},
        characters=load_characters(session, cid) if Part.CHARACTERS in parts else {},
        season=season)
    return world, Rows(armies, claims)


# --- writing back -----------------------------------------------------------------------

@dataclass(slots=True)
class Stored:
    """What :func:`write_back` stored: the ids of the army, the battle and the siege the order
    created (None: it created none), the sieges it ended, the pairs it put at war."""

    army: int | None
    battle: int | None
    siege: int | None
    sieges_ended: list[SiegeState]
    wars: list[tuple[int, int]]


def write_back(session: Session, ctx: CampaignContext, rows: Rows, before: World,
               after: World, *, ordered: Collection[int] = (), ref: str = "",
               bought: Bought | None = None) -> Stored:
    """Write back what ``after`` changed from ``before`` with the tick's own functions: the
    armies (:mod:`bot.storage.army_rows`; those in ``ordered`` marked as set going by order
    ``ref``; the army that ``bought`` equipment gets its stored record, with the cost and the
    tick, :func:`store_equipment`), the battles (:mod:`bot.storage.battle_rows`), the
    claims, sieges, characters, holders and relations
    (:func:`bot.storage.world_rows.save_world`); add the army, the battle and the siege it
    created. The sieges it ended are returned (their end is
    journaled and posted by :func:`bot.services.sieges.end_siege`)."""
    stored = Stored(None, None, None, [], sorted(after.wars - before.wars))
    if ordered:
        after = replace(after, armies={
            **after.armies, **{i: replace(after.armies[i], meta=marked(after.armies[i].meta, ref))
                               for i in ordered}})
    new_armies = []
    for army_id, value in after.armies.items():
        old = before.armies.get(army_id)
        if old is None:
            new_armies.append(value)
        elif value is not old:
            apply_change(rows.armies[army_id], old, value)
    for record in insert_armies(session, ctx.campaign_id, new_armies):
        rows.armies[record.id] = record
        stored.army = record.id
    save_armies(session, ctx, rows)
    if bought is not None:
        record = rows.armies[bought.army]
        store_equipment(session, ctx, record, [*record.equipment_json, {
            "name": bought.entry.name, "cost": str(bought.entry.cost),
            "bought_tick": bought.tick}])
    old_battles = {b.id: b for b in before.battles}
    save_battles(session, [b for b in after.battles
                           if b.id is not None and old_battles.get(b.id) not in (None, b)])
    new_battles = [b for b in after.battles if b.id is None]
    if new_battles:
        stored.battle = insert_battles(session, ctx.campaign_id, new_battles)[-1]
    old_sieges = {s.id: s for s in before.sieges}
    stored.sieges_ended = [
        s for s in after.sieges if s.status is SiegeStatus.LIFTED and s.id in old_sieges
        and old_sieges[s.id].status is not SiegeStatus.LIFTED]
    _, saved = save_world(session, ctx.campaign_id, before, after)
    stored.siege = saved.siege_ids.get(NEW_SIEGE)
    rows.claims = after.claims
    return stored


def save_armies(session: Session, ctx: CampaignContext, rows: Rows) -> None:
    """Write the army records that changed (one executemany,
    :func:`bot.storage.army_rows.save_changed`), after a flush of the session, and give the
    ORM army objects the session holds the written columns."""
    changed = [r for r in rows.armies.values() if r.tick_values() != r.loaded]
    if not changed:
        return
    session.flush()
    save_changed(session, changed)
    sync_session(session, ctx.campaign_id, {
        (Army, r.id): {name: getattr(r, name) for name in TICK_COLUMNS} for r in changed})


def store_equipment(session: Session, ctx: CampaignContext, record: ArmyRecord,
                    items: list[Any]) -> None:
    """Store an army's equipment list (a purchase adds an item with its cost and tick; no
    other order changes it)."""
    session.flush()
    session.connection().execute(update(ARMY_TABLE).where(ARMY_TABLE.c.id == record.id)
                                 .values(equipment_json=items))
    record.equipment_json = items
    sync_session(session, ctx.campaign_id, {(Army, record.id): {"equipment_json": items}})
