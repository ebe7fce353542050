"""The world an order needs, loaded as values, and the difference an order made, written back.

:func:`load_order_world` reads the campaign's claims, its raised armies, its pending battles,
its active sieges, its relations and its resource tile holders (one query each) into a
:class:`rules.campaign.state.World`; :func:`write_back` compares the world after
:func:`rules.campaign.apply.apply_order` with the one loaded and changes only the rows that
differ, adding what the order created. The caller's transaction (the order's savepoint) holds
it all.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, fields
from typing import Any

from sqlmodel import Session, col, select

from bot.db.models import (
    Army,
    Campaign,
    Character,
    Claim,
    PendingBattle,
    Relation,
    ResourceHolder,
    Siege,
)
from bot.services.army_rows import army_value
from bot.services.battle_rows import battle_state
from bot.services.catalogue import set_improvement_records
from bot.services.row_values import claim_state, siege_state
from bot.services.world import CampaignContext, set_relation
from rules.campaign.apply import Part
from rules.campaign.config import Season
from rules.campaign.state import CharacterState, HolderState, World, war_key
from rules.campaign.world import ArmyState, BattleStatus, RelationStatus, SiegeStatus


@dataclass(slots=True)
class Rows:
    """The rows behind a loaded world, by id (written back in place)."""

    armies: dict[int, Army]
    claims: dict[int, Claim]
    battles: dict[int, PendingBattle]
    sieges: dict[int, Siege]
    holders: dict[str, ResourceHolder]
    characters: dict[int, Character]


def load_order_world(session: Session, ctx: CampaignContext,
                     parts: Collection[Part] = frozenset(Part)) -> tuple[World, Rows]:
    """The campaign as an order sees it: the claims and the ``parts`` it reads (raised armies,
    pending battles, active sieges, wars and alliances, resource tile holders, characters of
    every status), one query each, and the rows behind it."""
    cid = ctx.campaign_id
    campaign = session.get(Campaign, cid)
    season = Season(campaign.season) if campaign is not None else Season.SUMMER
    claims = {c.id or 0: c for c in session.exec(
        select(Claim).where(Claim.campaign_id == cid).order_by(col(Claim.id)))}
    armies = {a.id or 0: a for a in session.exec(
        select(Army).where(Army.campaign_id == cid, Army.state != ArmyState.GONE)
        .order_by(col(Army.id)))} if Part.ARMIES in parts else {}
    battles = {b.id or 0: b for b in session.exec(
        select(PendingBattle).where(PendingBattle.campaign_id == cid,
                                    PendingBattle.status == BattleStatus.PENDING)
        .order_by(col(PendingBattle.id)))} if Part.BATTLES in parts else {}
    sieges = {s.id or 0: s for s in session.exec(
        select(Siege).where(Siege.campaign_id == cid, Siege.status == SiegeStatus.ACTIVE)
        .order_by(col(Siege.id)))} if Part.SIEGES in parts else {}
    relations = session.exec(select(Relation).where(Relation.campaign_id == cid)).all() \
        if Part.RELATIONS in parts else []
    characters = {ch.id or 0: ch for ch in session.exec(
        select(Character).where(Character.campaign_id == cid).order_by(col(Character.id)))} \
        if Part.CHARACTERS in parts else {}
    holders = {h.tile: h for h in session.exec(
        select(ResourceHolder).where(ResourceHolder.campaign_id == cid))} \
        if Part.HOLDERS in parts else {}
    world = World(
        armies={i: army_value(a) for i, a in armies.items()},
        claims={i: claim_state(c) for i, c in claims.items()},
        battles=tuple(battle_state(b) for b in battles.values()),
        sieges=tuple(siege_state(s) for s in sieges.values()),
        wars=frozenset(war_key(r.claim_a, r.claim_b) for r in relations
                       if r.status is RelationStatus.WAR),
        allies=frozenset(war_key(r.claim_a, r.claim_b) for r in relations
                         if r.status is RelationStatus.ALLIED),
        holders={t: HolderState(t, h.claim_id, h.ceded_to) for t, h in holders.items()},
        characters={i: CharacterState(i, ch.claim_id, ch.name,
                                      tuple(str(k) for k in ch.skills_json), ch.army_id,
                                      ch.status) for i, ch in characters.items()},
        season=season)
    return world, Rows(armies, claims, battles, sieges, holders, characters)


# --- writing back -----------------------------------------------------------------------

_NOT_WRITTEN = frozenset({"id", "equipment", "slain", "improvements"})
"""Fields no order of the rules changes (and the loader does not fully read)."""


def _army_columns(name: str, value: Any) -> Iterable[tuple[str, Any]]:
    if name == "march":
        yield from (("path_json", list(value.path)), ("costs_json", list(value.costs)),
                    ("saved", str(value.saved)), ("depart_tick", value.depart_tick))
    elif name == "meta":
        yield "meta_json", dict(value)
    elif name == "travelled":
        yield "travelled_json", list(value)
    else:
        yield name, value


def _changed(before: Any, after: Any) -> Iterable[tuple[str, Any]]:
    for f in fields(after):
        new = getattr(after, f.name)
        if f.name not in _NOT_WRITTEN and (before is None or getattr(before, f.name) != new):
            yield f.name, new


@dataclass(slots=True)
class Stored:
    """What :func:`write_back` stored: the ids of the army, the battle and the siege the order
    created (None: it created none), the sieges it ended, the pairs it put at war."""

    army: int | None
    battle: int | None
    siege: int | None
    sieges_ended: list[Siege]
    wars: list[tuple[int, int]]


def write_back(session: Session, ctx: CampaignContext, rows: Rows, before: World,
               after: World) -> Stored:
    """Change the rows where ``after`` differs from ``before``; add the army and the battle it
    created. Sieges it ended are returned, not yet written (their end is journaled and
    posted by :func:`bot.services.sieges.end_siege`)."""
    stored = Stored(None, None, None, [], [])
    for claim_id, claim in after.claims.items():
        old_claim = before.claims.get(claim_id)
        improved = old_claim is not None and claim.improvements != old_claim.improvements
        if claim != old_claim or improved:
            row = rows.claims[claim_id]
            for name, value in _changed(old_claim, claim):
                setattr(row, name, value)
            if improved:
                set_improvement_records(row, [dict(item) for item in claim.improvements
                                              if isinstance(item, Mapping) and "name" in item])
            session.add(row)
    created: Army | None = None
    for army_id, value in after.armies.items():
        old = before.armies.get(army_id)
        if old is not None and value == old and value.meta == old.meta:
            continue
        army_row = rows.armies.get(army_id)
        if army_row is None:
            army_row = created = Army(campaign_id=ctx.campaign_id, claim_id=value.claim_id,
                                      tile=value.tile)
        for name, new in _changed(old, value):
            for column, stored_value in _army_columns(name, new):
                setattr(army_row, column, stored_value)
        if old is not None and value.meta != old.meta:
            army_row.meta_json = dict(value.meta)
        session.add(army_row)
    old_battles = {b.id: b for b in before.battles}
    new_battle: PendingBattle | None = None
    for battle in after.battles:
        old_battle = old_battles.get(battle.id)
        if battle == old_battle:
            continue
        if battle.id is None:
            battle_row = new_battle = PendingBattle(
                campaign_id=ctx.campaign_id, tile=battle.tile, attacker_army=0,
                defender_army=0, attacker_claim=0, defender_claim=0, created_tick=0,
                resolve_tick=0)
        else:
            battle_row = rows.battles[battle.id]
        for name, new in _changed(old_battle, battle):
            setattr(battle_row, name, new)
        session.add(battle_row)
    old_sieges = {s.id: s for s in before.sieges}
    new_siege: Siege | None = None
    for siege in after.sieges:
        old_siege = old_sieges.get(siege.id)
        if old_siege is None:
            new_siege = Siege(campaign_id=ctx.campaign_id, army_id=siege.army_id,
                              besieger_claim=siege.besieger_claim,
                              defender_claim=siege.defender_claim, holdfast=siege.holdfast,
                              started_tick=siege.started_tick,
                              months_elapsed=siege.months_elapsed,
                              months_required=siege.months_required, paused=siege.paused,
                              status=siege.status)
            session.add(new_siege)
            continue
        if old_siege is not None and siege.status is SiegeStatus.LIFTED \
                and old_siege.status is not SiegeStatus.LIFTED:
            stored.sieges_ended.append(rows.sieges[siege.id])
    for tile, record in after.holders.items():
        if record != before.holders.get(tile):
            holder_row = rows.holders.get(tile) or ResourceHolder(campaign_id=ctx.campaign_id,
                                                                  tile=tile)
            holder_row.claim_id, holder_row.ceded_to = record.claim_id, record.ceded_to
            session.add(holder_row)
    for char_id, character in after.characters.items():
        if character != before.characters.get(char_id):
            char_row = rows.characters[char_id]
            char_row.army_id = character.army_id
            session.add(char_row)
    for pair in sorted(after.wars - before.wars):
        stored.wars.append(pair)
        set_relation(session, ctx, pair[0], pair[1], RelationStatus.WAR)
    if created is not None or new_battle is not None or new_siege is not None:
        session.flush()
    if created is not None:
        stored.army = created.id
        rows.armies[created.id or 0] = created
    if new_siege is not None:
        stored.siege = new_siege.id
    if new_battle is not None:
        stored.battle = new_battle.id
        rows.battles[new_battle.id or 0] = new_battle
    return stored
