"""Read-only views of one campaign: what ``maester status``, ``claims``, ``armies``, ``show
army``, ``relations list``, ``log``, ``outbox`` and ``export`` show, as plain values the CLI
formats and the tests read.

Every query reads only the rows of ``ctx``'s campaign and changes nothing. A claim named by the
caller that does not exist raises LookupError with a sentence for the moderator.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import func
from sqlmodel import Session, col, select

from bot.db.models import (
    Army,
    Campaign,
    Character,
    Claim,
    Event,
    Outbox,
    OutboxStatus,
    PendingBattle,
    Player,
    Relation,
    Siege,
)
from bot.render.receipts import pause_span
from bot.services import absence, proposals
from bot.services.world import CampaignContext, all_claims, armies, claim_by_name, current
from bot.storage.army_rows import equipment_names
from bot.storage.world_rows import load_holders, load_sieges
from rules.campaign import calendar
from rules.campaign.world import (
    ArmyKind,
    ArmyState,
    BattleStatus,
    HolderState,
    SiegeState,
    SiegeStatus,
)


@dataclass(frozen=True, slots=True)
class StatusReport:
    """The campaign's clock and backlog at ``now``."""

    name: str
    subreddit: str
    now: datetime
    last_tick_at: datetime
    next_tick_at: datetime
    ticks_due: int
    game_date: str
    season: str
    outbox_pending: int
    outbox_dead: int
    sieges_active: int
    #: The subreddit recorded when the campaign was created; the config's ``subreddit`` (the
    #: one the bot uses) differs from it when a moderator changed the config since.
    created_on: str = ""
    paused: str = ""  # since when, until when, why (empty: the campaign runs)
    holidays: int = 0  # ticks the world's clock stands behind the wall clock
    sieges: tuple[str, ...] = ()  # each running siege in a line (siege_line)
    proposals: int = 0  # moderators' actions waiting for a second moderator


@dataclass(frozen=True, slots=True)
class ClaimRow:
    name: str
    holdfast: str
    gold: Decimal
    infantry: int
    cavalry: int
    ships: int
    armies: int
    players: tuple[str, ...]
    # its life over the campaign (bot.services.absence), at the moment asked about
    last_seen: datetime | None = None
    standing: str = "active"
    held: bool = False
    away_until: datetime | None = None
    away_reason: str | None = None


@dataclass(frozen=True, slots=True)
class CharacterRow:
    name: str
    claim: str
    army: int | None
    skills: tuple[str, ...]
    state: str


@dataclass(frozen=True, slots=True)
class ArmyRow:
    id: int
    claim: str
    kind: str
    state: str
    tile: str
    infantry: int
    cavalry: int
    ships: int
    destination: str
    arrives: datetime | None
    equipment: tuple[str, ...] = ()
    siege: str = ""  # the siege it lays: months counted and left (siege_months_text)


@dataclass(frozen=True, slots=True)
class BattleRow:
    id: int
    kind: str
    tile: str
    resolve_at: datetime
    reaction: str | None


@dataclass(frozen=True, slots=True)
class ArmyDetail:
    """One army in full: troops, state, where it goes, its characters and pending battles."""

    id: int
    claim: str
    kind: ArmyKind
    state: ArmyState
    tile: str  # the tile's label
    tile_id: str
    infantry: int
    cavalry: int
    ships: int
    path: tuple[str, ...]  # labels of the tiles left to march
    arrives: datetime | None
    ready: datetime | None  # a mustering army's
    characters: tuple[str, ...]
    battles: tuple[BattleRow, ...]


@dataclass(frozen=True, slots=True)
class RelationRow:
    claim_a: str
    claim_b: str
    status: str


def _count(session: Session, *where: Any) -> int:
    return int(session.exec(select(func.count()).where(*where)).one())


def status(session: Session, ctx: CampaignContext, now: datetime) -> StatusReport:
    """Last and next tick, ticks due at ``now``, in-game date, season, outbox, sieges and
    the proposals waiting for a second moderator."""
    ctx, campaign = current(session, ctx)
    names = {c.id: c.name for c in all_claims(session, ctx)}
    return StatusReport(
        name=campaign.name, subreddit=ctx.settings.campaign.subreddit,
        created_on=campaign.subreddit, now=now,
        last_tick_at=ctx.tick_at(campaign.last_tick),
        next_tick_at=ctx.tick_at(campaign.last_tick + 1),
        ticks_due=max(0, ctx.tick_of(now) - campaign.last_tick),
        game_date=calendar.format_game_date(calendar.game_date(now, ctx.rules)),
        season=campaign.season,
        outbox_pending=_count(session, Outbox.campaign_id == ctx.campaign_id,
                              Outbox.status == OutboxStatus.PENDING),
        outbox_dead=_count(session, Outbox.campaign_id == ctx.campaign_id,
                           Outbox.status == OutboxStatus.DEAD),
        sieges_active=_count(session, Siege.campaign_id == ctx.campaign_id,
                             Siege.status == SiegeStatus.ACTIVE),
        sieges=tuple(siege_line(ctx, s, names) for s in load_sieges(session, ctx.campaign_id)),
        paused=pause_text(ctx, campaign),
        holidays=campaign.tick_offset or 0,
        proposals=proposals.waiting(session, ctx),
    )


def pause_text(ctx: CampaignContext, campaign: Campaign) -> str:
    """"since ..., until ... (note)" while the campaign is paused; "" when it runs."""
    if campaign.paused_at is None:
        return ""
    return (f"since {campaign.paused_at:%Y-%m-%d %H:%M} UTC, {pause_span(campaign.pause_until)}"
            + (f": {campaign.pause_note}" if campaign.pause_note else ""))


def _players(session: Session, ctx: CampaignContext) -> dict[int, list[str]]:
    players: dict[int, list[str]] = {}
    for p in session.exec(select(Player).where(Player.campaign_id == ctx.campaign_id)
                          .order_by(col(Player.id))):
        players.setdefault(p.claim_id, []).append(p.reddit_name)
    return players


def claims(session: Session, ctx: CampaignContext, now: datetime | None = None
           ) -> list[ClaimRow]:
    """Every claim: holdfast, treasury, troops at home, raised armies, players; and its
    players' last message, its standing and hold at ``now`` (default: the wall clock)."""
    players = _players(session, ctx)
    raised: dict[int, int] = {}
    for a in armies(session, ctx):
        raised[a.claim_id] = raised.get(a.claim_id, 0) + 1
    lives = {c.id: life for c, life in absence.listing(session, ctx, now or datetime.now(UTC))}
    holders = load_holders(session, ctx.campaign_id)
    return [ClaimRow(c.name, _holdings(ctx, c, holders), c.gold, c.infantry, c.cavalry,
                     c.ships, raised.get(c.id or 0, 0), tuple(players.get(c.id or 0, ())),
                     lives[c.id].last_seen, lives[c.id].standing.value, lives[c.id].held,
                     c.away_until, c.away_reason)
            for c in all_claims(session, ctx)]


def _holdings(ctx: CampaignContext, claim: Claim, holders: dict[str, HolderState]) -> str:
    """A claim's holdfasts for the moderators: its seat (``Casterly Rock (fallen: no seat)``
    when another claim holds it now, docs/rules.md "Holdfasts change hands"), then every other
    holdfast it holds (``+ Harrenhal``)."""
    seat = holders.get(claim.holdfast)
    text = ctx.world.tile(claim.holdfast).label if claim.holdfast in ctx.world \
        else claim.holdfast
    if seat is not None and seat.claim_id != claim.id:
        text += " (fallen: no seat)"
    more = sorted(ctx.world.tile(t).label for t, h in holders.items()
                  if h.claim_id == claim.id and t != claim.holdfast and t in ctx.world
                  and ctx.world.tile(t).holdfast)
    return " + ".join((text, *more))


def _claim_id(session: Session, ctx: CampaignContext, claim: str | None) -> int | None:
    if claim is None:
        return None
    found = claim_by_name(session, ctx, claim)
    if found is None:
        raise LookupError(f"no claim called {claim!r} (see `maester claims`)")
    return found.id


def army_rows(session: Session, ctx: CampaignContext, claim: str | None = None
              ) -> list[ArmyRow]:
    """Raised armies (of the claim named ``claim``, or all), oldest first."""
    names = {c.id: c.name for c in all_claims(session, ctx)}
    laid = {s.army_id: siege_months_text(s) for s in load_sieges(session, ctx.campaign_id)}
    rows = []
    for a in armies(session, ctx, claim_id=_claim_id(session, ctx, claim)):
        marching = bool(a.path_json)
        rows.append(ArmyRow(
            a.id or 0, names.get(a.claim_id, "?"), a.kind, a.state,
            ctx.world.tile(a.tile).label, a.infantry, a.cavalry, a.ships,
            ctx.world.tile(a.path_json[-1]).label if marching else "",
            ctx.tick_at(a.arrival_tick) if marching and a.arrival_tick else None,
            equipment_names(a.equipment_json), laid.get(a.id or 0, "")))
    return rows


def siege_months_text(siege: SiegeState) -> str:
    """``3 of 11 months, 8 left`` (``, paused`` when its last month did not count)."""
    return (f"{siege.months_elapsed} of {siege.months_required} months, {siege.months_left} "
            "left" + (", paused" if siege.paused else ""))


def siege_line(ctx: CampaignContext, siege: SiegeState, names: dict[int | None, str]) -> str:
    """A running siege for the moderators: ``Winterfell by House Lannister (army 3) against
    House Stark: 3 of 11 months, 8 left``."""
    return (f"{ctx.world.tile(siege.holdfast).label} by {names.get(siege.besieger_claim, '?')} "
            f"(army {siege.army_id}) against "
            f"{names.get(siege.defender_claim, 'nobody (neutral garrison)')}: "
            f"{siege_months_text(siege)}")


def army_detail(session: Session, ctx: CampaignContext, army_id: int) -> ArmyDetail:
    """Army ``army_id`` of this campaign in full; LookupError when there is none."""
    a = session.get(Army, army_id)
    if a is None or a.campaign_id != ctx.campaign_id:
        raise LookupError(f"no army {army_id} (see `maester armies`)")
    names = {c.id: c.name for c in all_claims(session, ctx)}
    battles = session.exec(select(PendingBattle).where(
        PendingBattle.campaign_id == ctx.campaign_id,
        PendingBattle.status == BattleStatus.PENDING,
        (col(PendingBattle.attacker_army) == a.id) | (col(PendingBattle.defender_army) == a.id))
        .order_by(col(PendingBattle.id))).all()
    chars = session.exec(select(Character).where(
        Character.campaign_id == ctx.campaign_id, Character.army_id == a.id)
        .order_by(col(Character.id))).all()
    return ArmyDetail(
        a.id or 0, names.get(a.claim_id, "?"), a.kind, a.state, ctx.world.tile(a.tile).label,
        a.tile, a.infantry, a.cavalry, a.ships,
        tuple(ctx.world.tile(str(t)).label for t in a.path_json),
        ctx.tick_at(a.arrival_tick) if a.path_json and a.arrival_tick else None,
        ctx.tick_at(a.ready_tick) if a.ready_tick and a.state is ArmyState.MUSTERING else None,
        tuple(ch.name for ch in chars),
        tuple(BattleRow(b.id or 0, b.kind, ctx.world.tile(b.tile).label,
                        ctx.tick_at(b.resolve_tick), b.reaction.value if b.reaction else None)
              for b in battles))


def relations(session: Session, ctx: CampaignContext) -> list[RelationRow]:
    """The recorded relations between claims (unlisted pairs are neutral)."""
    names = {c.id: c.name for c in all_claims(session, ctx)}
    return [RelationRow(names.get(r.claim_a, "?"), names.get(r.claim_b, "?"), r.status.value)
            for r in session.exec(select(Relation).where(
                Relation.campaign_id == ctx.campaign_id).order_by(col(Relation.id)))]


def characters(session: Session, ctx: CampaignContext, claim: str | None = None
               ) -> list[CharacterRow]:
    """Every character (of the claim named ``claim``, or all): army, skills and state."""
    names = {c.id: c.name for c in all_claims(session, ctx)}
    query = select(Character).where(Character.campaign_id == ctx.campaign_id)
    claim_id = _claim_id(session, ctx, claim)
    if claim_id is not None:
        query = query.where(Character.claim_id == claim_id)
    return [CharacterRow(ch.name, names.get(ch.claim_id, "?"), ch.army_id,
                         tuple(str(s) for s in ch.skills_json), ch.status.value)
            for ch in session.exec(query.order_by(col(Character.claim_id), col(Character.id)))]


def events(session: Session, ctx: CampaignContext, *, claim: str | None = None,
           limit: int = 50) -> list[Event]:
    """The newest ``limit`` events (of one claim, or all), oldest first."""
    query = select(Event).where(Event.campaign_id == ctx.campaign_id)
    claim_id = _claim_id(session, ctx, claim)
    if claim_id is not None:
        query = query.where(Event.claim_id == claim_id)
    rows = session.exec(query.order_by(col(Event.id).desc()).limit(limit)).all()
    return list(reversed(rows))


def event(session: Session, ctx: CampaignContext, event_id: int) -> Event | None:
    """Event ``event_id`` of this campaign (``maester verify N``), if there is one."""
    return session.exec(select(Event).where(Event.campaign_id == ctx.campaign_id,
                                            Event.id == event_id)).first()


def outbox(session: Session, ctx: CampaignContext, *, everything: bool = False
           ) -> Sequence[Outbox]:
    """Entries waiting to be delivered (``everything``: delivered and dead too), in order."""
    query = select(Outbox).where(Outbox.campaign_id == ctx.campaign_id)
    if not everything:
        query = query.where(Outbox.status == OutboxStatus.PENDING)
    return session.exec(query.order_by(col(Outbox.id))).all()


def export_world(session: Session, ctx: CampaignContext) -> dict[str, Any]:
    """Claims, armies, sieges, battles, last tick and outbox, as plain JSON data."""
    campaign = session.get(Campaign, ctx.campaign_id)
    assert campaign is not None
    players = _players(session, ctx)
    return {
        "campaign": {"name": campaign.name, "subreddit": ctx.settings.campaign.subreddit,
                     "season": campaign.season, "last_tick": campaign.last_tick,
                     "last_tick_at": ctx.tick_at(campaign.last_tick).isoformat(),
                     "last_month": campaign.last_month},
        "claims": [
            {"id": c.id, "name": c.name, "holdfast": c.holdfast, "gold": str(c.gold),
             "infantry": c.infantry, "cavalry": c.cavalry, "ships": c.ships,
             "scattered_infantry": c.scattered_infantry,
             "scattered_cavalry": c.scattered_cavalry, "slain": c.slain_json,
             "players": sorted(players.get(c.id or 0, []))}
            for c in all_claims(session, ctx)],
        "armies": [
            {"id": a.id, "claim": a.claim_id, "kind": a.kind, "state": a.state, "tile": a.tile,
             "infantry": a.infantry, "cavalry": a.cavalry, "ships": a.ships,
             "path": a.path_json, "saved": a.saved, "depart_tick": a.depart_tick,
             "arrival_tick": a.arrival_tick, "retreat_penalty": a.retreat_penalty}
            for a in session.exec(select(Army).where(Army.campaign_id == ctx.campaign_id)
                                  .order_by(col(Army.id)))],
        "sieges": [
            {"id": s.id, "holdfast": s.holdfast, "army": s.army_id, "status": s.status,
             "months_elapsed": s.months_elapsed, "months_required": s.months_required,
             "paused": s.paused}
            for s in session.exec(select(Siege).where(Siege.campaign_id == ctx.campaign_id)
                                  .order_by(col(Siege.id)))],
        "battles": [
            {"id": b.id, "kind": b.kind, "tile": b.tile, "attacker": b.attacker_army,
             "defender": b.defender_army, "status": b.status, "resolve_tick": b.resolve_tick}
            for b in session.exec(select(PendingBattle).where(
                PendingBattle.campaign_id == ctx.campaign_id).order_by(col(PendingBattle.id)))],
        "characters": [
            {"name": ch.name, "claim": ch.claim, "army": ch.army, "skills": list(ch.skills),
             "state": ch.state}
            for ch in characters(session, ctx)],
        "outbox": [
            {"key": o.key, "kind": o.kind, "target": o.target, "title": o.title,
             "status": o.status, "public": o.public}
            for o in outbox(session, ctx, everything=True)],
    }
