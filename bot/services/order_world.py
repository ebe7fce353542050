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

from bot.db.models import Army, Campaign
from bot.services.army_rows import army_value
from bot.services.battle_rows import insert_battles, load_battles, save_battles
from bot.services.world import CampaignContext
from bot.services.world_rows import (
    load_characters,
    load_claims,
    load_holders,
    load_relations,
    load_sieges,
    save_world,
)
from rules.campaign.apply import NEW_SIEGE, Part
from rules.campaign.config import Season
from rules.campaign.state import ClaimState, SiegeState, World
from rules.campaign.world import ArmyState, BattleStatus, SiegeStatus


@dataclass(slots=True)
class Rows:
    """The army rows behind a loaded world, by id (written back in place), and the claims as
    the order left them."""

    armies: dict[int, Army]
    claims: Mapping[int, ClaimState]


def load_order_world(session: Session, ctx: CampaignContext,
                     parts: Collection[Part] = frozenset(Part)) -> tuple[World, Rows]:
    """The campaign as an order sees it: the claims and the ``parts`` it reads (raised armies,
    pending battles, active sieges, wars and alliances, resource tile holders, characters of
    every status), one query each, and the army rows behind it."""
    cid = ctx.campaign_id
    campaign = session.get(Campaign, cid)
    season = Season(campaign.season) if campaign is not None else Season.SUMMER
    claims = load_claims(session, cid)
    armies = {a.id or 0: a for a in session.exec(
        select(Army).where(Army.campaign_id == cid, Army.state != ArmyState.GONE)
        .order_by(col(Army.id)))} if Part.ARMIES in parts else {}
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
    sieges_ended: list[SiegeState]
    wars: list[tuple[int, int]]


def write_back(session: Session, ctx: CampaignContext, rows: Rows, before: World,
               after: World) -> Stored:
    """Write back what ``after`` changed from ``before``: the claims, sieges, characters,
    holders and relations with :func:`bot.services.world_rows.save_world`, the battles with
    :mod:`bot.services.battle_rows` (the tick's own functions), the armies in their rows; add
    the army, the battle and the siege it created. The sieges it ended are returned (their
    end is journaled and posted by :func:`bot.services.sieges.end_siege`)."""
    stored = Stored(None, None, None, [], sorted(after.wars - before.wars))
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
    if created is not None:
        session.flush()  # the new army's id, before a siege or a battle names it
        stored.army = created.id
        rows.armies[created.id or 0] = created
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
