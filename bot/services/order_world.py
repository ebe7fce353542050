"""The world an order needs, loaded as values, and the difference an order made, written back.

:func:`load_order_world` reads the campaign's claims, its raised armies, its pending battles,
its active sieges and its relations (one query each) into a
:class:`rules.campaign.apply.OrderWorld`; :func:`write_back` compares the world after
:func:`rules.campaign.apply.apply_order` with the one loaded and changes only the rows that
differ, adding what the order created. The caller's transaction (the order's savepoint) holds
it all.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, fields
from fractions import Fraction
from typing import Any

from sqlmodel import Session, col, select

from bot.db.models import Army, Campaign, Claim, PendingBattle, Relation, Siege
from bot.services.world import CampaignContext, set_relation
from rules.campaign import apply as rules
from rules.campaign import world as w
from rules.campaign.config import Season
from rules.campaign.world import ArmyState, BattleStatus, SiegeStatus


@dataclass(slots=True)
class Rows:
    """The rows behind a loaded world, by id (written back in place)."""

    armies: dict[int, Army]
    claims: dict[int, Claim]
    battles: dict[int, PendingBattle]
    sieges: dict[int, Siege]


def army_value(row: Army) -> w.Army:
    """An army row as the rules' value."""
    return w.Army(
        id=row.id or 0, claim_id=row.claim_id, kind=row.kind, state=row.state, tile=row.tile,
        infantry=row.infantry, cavalry=row.cavalry, ships=row.ships,
        stationary_since=row.stationary_since, arrival_tick=row.arrival_tick,
        retreat_penalty=row.retreat_penalty, accepted_at=row.accepted_at,
        ready_tick=row.ready_tick, depart_tick=row.depart_tick,
        path=tuple(str(t) for t in row.path_json),
        costs=tuple(int(c) for c in row.costs_json),
        travelled=tuple(str(t) for t in row.travelled_json), saved=Fraction(row.saved),
        commander_id=row.commander_id, meta=dict(row.meta_json))


def claim_value(row: Claim) -> rules.ClaimState:
    return rules.ClaimState(
        id=row.id or 0, name=row.name, holdfast=row.holdfast, gold=row.gold,
        infantry=row.infantry, cavalry=row.cavalry, ships=row.ships,
        scattered_until=row.scattered_until, scattered_infantry=row.scattered_infantry,
        scattered_cavalry=row.scattered_cavalry)


def battle_value(row: PendingBattle) -> rules.Battle:
    return rules.Battle(
        id=row.id or 0, tile=row.tile, kind=row.kind, attacker_army=row.attacker_army,
        defender_army=row.defender_army, attacker_claim=row.attacker_claim,
        defender_claim=row.defender_claim, created_tick=row.created_tick,
        resolve_tick=row.resolve_tick, reactor_claim=row.reactor_claim,
        reaction=row.reaction, holdfast=row.holdfast, status=row.status)


def siege_value(row: Siege) -> rules.SiegeState:
    return rules.SiegeState(
        id=row.id or 0, army_id=row.army_id, besieger_claim=row.besieger_claim,
        defender_claim=row.defender_claim, holdfast=row.holdfast,
        started_tick=row.started_tick, months_elapsed=row.months_elapsed,
        months_required=row.months_required, paused=row.paused, status=row.status)


def load_order_world(session: Session, ctx: CampaignContext) -> tuple[rules.OrderWorld, Rows]:
    """The campaign as an order sees it, and the rows behind it."""
    cid = ctx.campaign_id
    campaign = session.exec(select(Campaign).where(Campaign.id == cid)).one()
    claims = {c.id or 0: c for c in session.exec(select(Claim).where(Claim.campaign_id == cid))}
    armies = {a.id or 0: a for a in session.exec(
        select(Army).where(Army.campaign_id == cid, Army.state != ArmyState.GONE))}
    battles = {b.id or 0: b for b in session.exec(
        select(PendingBattle).where(PendingBattle.campaign_id == cid,
                                    PendingBattle.status == BattleStatus.PENDING))}
    sieges = {s.id or 0: s for s in session.exec(
        select(Siege).where(Siege.campaign_id == cid, Siege.status == SiegeStatus.ACTIVE))}
    relations = {(r.claim_a, r.claim_b): r.status for r in session.exec(
        select(Relation).where(Relation.campaign_id == cid).order_by(col(Relation.id)))}
    world = rules.OrderWorld(
        rules=ctx.rules, map=ctx.world, season=Season(campaign.season),
        armies={i: army_value(a) for i, a in armies.items()},
        claims={i: claim_value(c) for i, c in claims.items()},
        battles={i: battle_value(b) for i, b in battles.items()},
        sieges={i: siege_value(s) for i, s in sieges.items()},
        relations=relations)
    return world, Rows(armies, claims, battles, sieges)


# --- writing back -----------------------------------------------------------------------

_ARMY_COLUMNS = {"path": "path_json", "costs": "costs_json", "travelled": "travelled_json",
                 "meta": "meta_json"}


def _army_column(name: str, value: Any) -> tuple[str, Any]:
    if name in _ARMY_COLUMNS:
        return _ARMY_COLUMNS[name], dict(value) if name == "meta" else list(value)
    if name == "saved":
        return "saved", str(value)
    return name, value


def _changed(before: Any, after: Any) -> Iterable[tuple[str, Any]]:
    for f in fields(after):
        new = getattr(after, f.name)
        if before is None or getattr(before, f.name) != new:
            yield f.name, new


@dataclass(slots=True)
class Stored:
    """Temporary ids (negative) of the things an order created, mapped to their rows' ids."""

    armies: dict[int, int]
    battles: dict[int, int]
    sieges_ended: list[Siege]
    wars: list[tuple[int, int]]

    def army(self, army_id: int) -> int:
        return self.armies.get(army_id, army_id)

    def battle(self, battle_id: int) -> int:
        return self.battles.get(battle_id, battle_id)


def write_back(session: Session, ctx: CampaignContext, rows: Rows, before: rules.OrderWorld,
               after: rules.OrderWorld) -> Stored:
    """Change the rows where ``after`` differs from ``before``; add the armies and battles it
    created. Sieges it ended are returned, not yet written (their end is journaled and
    posted by :func:`bot.services.sieges.end_siege`)."""
    stored = Stored({}, {}, [], [])
    for claim_id, claim in after.claims.items():
        if claim != before.claims.get(claim_id):
            row = rows.claims[claim_id]
            for name, value in _changed(before.claims.get(claim_id), claim):
                if name != "id":
                    setattr(row, name, value)
            session.add(row)
    created: list[tuple[int, Army]] = []
    for army_id, value in after.armies.items():
        old = before.armies.get(army_id)
        if value == old:
            continue
        army_row = rows.armies.get(army_id)
        if army_row is None:
            army_row = Army(campaign_id=ctx.campaign_id, claim_id=value.claim_id,
                            tile=value.tile)
            created.append((army_id, army_row))
        for name, new in _changed(old, value):
            if name != "id":
                column, stored_value = _army_column(name, new)
                setattr(army_row, column, stored_value)
        session.add(army_row)
    new_battles: list[tuple[int, PendingBattle]] = []
    for battle_id, battle in after.battles.items():
        old_battle = before.battles.get(battle_id)
        if battle == old_battle:
            continue
        battle_row = rows.battles.get(battle_id)
        if battle_row is None:
            battle_row = PendingBattle(campaign_id=ctx.campaign_id, tile=battle.tile,
                                       attacker_army=0, defender_army=0, attacker_claim=0,
                                       defender_claim=0, created_tick=0, resolve_tick=0)
            new_battles.append((battle_id, battle_row))
        for name, new in _changed(old_battle, battle):
            if name != "id":
                setattr(battle_row, name, new)
        session.add(battle_row)
    for siege_id, siege in after.sieges.items():
        old_siege = before.sieges.get(siege_id)
        if old_siege is not None and siege.status != old_siege.status \
                and siege.status is SiegeStatus.LIFTED:
            stored.sieges_ended.append(rows.sieges[siege_id])
    for pair, status in after.relations.items():
        if before.relations.get(pair) != status:
            stored.wars.append(pair)
            set_relation(session, ctx, pair[0], pair[1], status)
    if created or new_battles:
        session.flush()
        stored.armies = {temp: row.id or 0 for temp, row in created}
        stored.battles = {temp: row.id or 0 for temp, row in new_battles}
        rows.armies.update({row.id or 0: row for _, row in created})
        rows.battles.update({row.id or 0: row for _, row in new_battles})
    return stored
