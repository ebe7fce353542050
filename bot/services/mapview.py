"""The campaign map as a picture: the situation from the database, filtered, drawn.

:func:`load_situation` reads everything the map could show (holders, armies, sieges,
blockades, this month's battles); :func:`render_view` filters it for a viewer with
:func:`rules.campaign.mapview.visible_to` and draws it (:mod:`bot.mapimage`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlmodel import Session, col, select

from bot.db.models import ArmyKind, ArmyState, Event, PendingBattle, Siege, SiegeStatus
from bot.mapimage.draw import render_png, render_svg
from bot.mapimage.scene import DEFAULT_OPTIONS, Scene, SceneOptions, build_scene
from bot.render.common import side_name
from bot.services import journal
from bot.services.world import CampaignContext, all_claims, get_campaign
from bot.storage.army_rows import ArmyRecord, load_records
from bot.storage.world_rows import load_holders
from rules.campaign import calendar
from rules.campaign.mapview import (
    ArmyMark,
    BattleMark,
    BlockadeMark,
    SiegeMark,
    Situation,
    Viewer,
    visible_to,
)
from rules.campaign.world import Army as ArmyValue
from rules.campaign.world import BattleState, SiegeState, World

IN_MAP_STATES = (
    ArmyState.STANDING,
    ArmyState.MARCHING,
    ArmyState.BESIEGING,
    ArmyState.RETREATING,
    ArmyState.MUSTERING,
)


def _same_month(ctx: CampaignContext, a: int, b: int) -> bool:
    return calendar.month_number(ctx.tick_at(a), ctx.rules) == \
        calendar.month_number(ctx.tick_at(b), ctx.rules)


def load_situation(session: Session, ctx: CampaignContext, *, tick: int | None = None,
                   sightings: bool = True, world: World | None = None,
                   battles: Mapping[int, BattleState] | None = None) -> Situation:
    """Everything the campaign map could show at ``tick`` (default: the last applied tick),
    unfiltered: for moderators only until passed through ``visible_to``. ``sightings=False``
    leaves out who sighted which army (not needed for the public view).

    ``world`` (a tick previewed in memory, :mod:`bot.services.preview`): its armies, sieges
    and resource tile holders stand for the stored ones, and ``battles`` (by number) for the
    rows of battles the preview fought; the claims, and the journal with the preview's own
    events (:func:`bot.services.journal.pending_events`), are read as always."""
    now = get_campaign(session, ctx).last_tick if tick is None else tick
    claims = list(all_claims(session, ctx))
    names = {c.id: c.name for c in claims}
    holders = {c.holdfast: c.name for c in claims}
    if world is None:
        sieges: Sequence[Siege | SiegeState] = session.exec(
            select(Siege).where(Siege.campaign_id == ctx.campaign_id)
            .order_by(col(Siege.id))).all()
        holder_rows = load_holders(session, ctx.campaign_id)
    else:
        sieges, holder_rows = sorted(world.sieges, key=lambda s: s.id or 0), dict(world.holders)
    for tile, row in holder_rows.items():
        if tile in ctx.world and ctx.world.tile(tile).holdfast:  # fallen, or given: its holder
            if row.claim_id in names:
                holders[tile] = names[row.claim_id]
            else:
                holders.pop(tile, None)
    if world is None:
        session.flush()  # the armies are read as plain records, past the ORM (and its autoflush)
        rows = [a for a in load_records(session, ctx.campaign_id, IN_MAP_STATES)
                if a.tile in ctx.world]
    else:
        rows = [_record(a) for _, a in sorted(world.armies.items())
                if a.state in IN_MAP_STATES and a.tile in ctx.world]
    seen_by = _sightings(session, ctx, rows) if sightings else {}
    marks: list[ArmyMark] = []
    for a in rows:
        if a.claim_id not in names:
            continue
        path = tuple(str(t) for t in a.path_json if str(t) in ctx.world)
        announced = a.state is ArmyState.BESIEGING or (
            a.state is ArmyState.STANDING and a.arrival_tick is not None)
        sighted = {names[c]: at for c, at in seen_by.get(a.id or 0, {}).items() if c in names}
        seen = tuple(sorted((claim, tile) for claim, (tile, _) in sighted.items()))
        seen_at = tuple(sorted((claim, when) for claim, (_, when) in sighted.items()))
        marks.append(ArmyMark(
            id=a.id or 0, claim=names[a.claim_id], tile=a.tile,
            fleet=a.kind is ArmyKind.FLEET, infantry=a.infantry, cavalry=a.cavalry,
            ships=a.ships, path=path if a.state in (ArmyState.MARCHING,
                                                    ArmyState.RETREATING) else (),
            announced=announced, seen=seen, seen_at=seen_at))
    active = [s for s in sieges if s.status is SiegeStatus.ACTIVE and s.holdfast in ctx.world]
    blockades: list[BlockadeMark] = []
    for siege in active:
        port = ctx.world.tile(siege.holdfast)
        if not port.port:
            continue
        water = set(ctx.world.water_adjacent(port.id))
        for a in rows:
            if a.kind is ArmyKind.FLEET and a.claim_id == siege.besieger_claim \
                    and a.state is ArmyState.STANDING and a.tile in water:
                blockades.append(BlockadeMark(a.tile, port.id, names[a.claim_id]))
    fought = _battles_this_month(session, ctx, now, names, battles or {})
    return Situation(
        claims=tuple(c.name for c in claims),
        holders=tuple(sorted((t, n) for t, n in holders.items() if t in ctx.world)),
        armies=tuple(marks),
        sieges=tuple(SiegeMark(s.holdfast, names.get(s.besieger_claim, "?")) for s in active),
        blockades=tuple(blockades),
        battles=fought,
        tick=now,
    )


def _record(a: ArmyValue) -> ArmyRecord:
    """The map's view of an army value (as its row would read)."""
    return ArmyRecord(a.id, a.claim_id, a.kind, a.state, a.tile, a.infantry, a.cavalry,
                      a.ships, a.ready_tick, a.march.depart_tick, list(a.march.path),
                      arrival_tick=a.arrival_tick, meta_json=dict(a.meta))


def _sightings(session: Session, ctx: CampaignContext, rows: Sequence[ArmyRecord]
               ) -> dict[int, dict[int, tuple[str, int]]]:
    """Per army, per claim that detected it in its current march: the tile where it was
    seen and the tick (from the detection events, newest last)."""
    watched = {a.id: set(a.meta_json.get("detected_by", [])) for a in rows
               if a.meta_json.get("detected_by")}
    if not watched:
        return {}
    since = min((a.depart_tick or 0) for a in rows if a.id in watched)
    events = session.exec(select(Event).where(
        Event.campaign_id == ctx.campaign_id, Event.kind == "detection",
        col(Event.tick) >= since).order_by(col(Event.id))).all()
    out: dict[int, dict[int, tuple[str, int]]] = {}
    for e in events:
        data: dict[str, Any] = e.data_json
        army_id = data.get("army")
        if not isinstance(army_id, int) or not data.get("detected") or army_id not in watched \
                or e.claim_id is None:
            continue
        if e.claim_id in watched[army_id] and data.get("at") in ctx.world:
            out.setdefault(army_id, {})[e.claim_id] = (str(data["at"]), e.tick)
    return out


def _battles_this_month(session: Session, ctx: CampaignContext, now: int,
                        names: dict[int | None, str], known: Mapping[int, BattleState]
                        ) -> tuple[BattleMark, ...]:
    stored_events = session.exec(select(Event).where(
        Event.campaign_id == ctx.campaign_id, Event.kind == "battle", col(Event.public),
        col(Event.tick) <= now).order_by(col(Event.id).desc()).limit(500)).all()
    previewed = [e for e in journal.pending_events(session, range(now + 1), "battle")
                 if e.public and e.campaign_id == ctx.campaign_id]  # (a preview's own)
    month = [e for e in (*previewed, *stored_events)
             if _same_month(ctx, e.tick, now) and e.data_json.get("battle")]
    ids = [int(e.data_json["battle"]) for e in month]
    if not ids:
        return ()
    # a side of several claims (an ally fought too): the event names them all
    sides = {int(e.data_json["battle"]): e.data_json["sides"] for e in month
             if e.data_json.get("sides")}
    stored: list[PendingBattle | BattleState] = list(session.exec(
        select(PendingBattle).where(col(PendingBattle.id).in_(ids))).all())
    found = {b.id for b in stored}
    stored += [known[i] for i in ids if i not in found and i in known]

    def named(battle: PendingBattle | BattleState, which: int, lead: int) -> str:
        claims = sides.get(battle.id or 0, [[lead], [lead]])[which]
        return side_name([names.get(int(c), "?") for c in claims])

    return tuple(BattleMark(b.tile, named(b, 0, b.attacker_claim),
                            named(b, 1, b.defender_claim))
                 for b in sorted(stored, key=lambda b: b.id or 0) if b.tile in ctx.world)


@dataclass(frozen=True, slots=True)
class Picture:
    """A rendered map: the bytes (PNG) or text (SVG) and the scene it was drawn from."""

    scene: Scene
    data: bytes
    media_type: str

    @property
    def suffix(self) -> str:
        return {"image/svg+xml": ".svg", "image/gif": ".gif"}.get(self.media_type, ".png")


def draw(ctx: CampaignContext, situation: Situation, viewer: Viewer,
         options: SceneOptions = DEFAULT_OPTIONS, *, svg: bool = False) -> Picture:
    """The picture of ``situation`` as ``viewer`` may see it (filters first, then draws)."""
    known = visible_to(situation, viewer)
    scene = build_scene(ctx.world, known, options)
    if svg:
        return Picture(scene, render_svg(scene).encode("utf-8"), "image/svg+xml")
    return Picture(scene, render_png(scene), "image/png")


def render_view(session: Session, ctx: CampaignContext, viewer: Viewer,
                options: SceneOptions = DEFAULT_OPTIONS, *, svg: bool = False) -> Picture:
    """The campaign map now, as ``viewer`` may see it. Raises InvalidInput for an unknown
    claim viewer and UnknownTile for an unknown ``options.around``."""
    return draw(ctx, load_situation(session, ctx), viewer, options, svg=svg)

