"""What each web page shows, as JSON-ready values read from the campaign database.

Three views, each the one source of its page and of its ``/api/...`` JSON:

- :func:`realm`: the public view: the map filtered by
  :func:`rules.campaign.mapview.visible_to` for the subreddit, the claims and their holdfasts,
  public posts and events, and the dice (commitments, and the public secrets of the periods
  that ended). Nothing here reads a hidden fact: no undetected army, no secret defence bonus,
  no private detection or order. The tests compare worlds that differ only in hidden facts.
- :func:`war_room`: one claim's view: the public view plus its armies, its holdfast's secret
  bonus, what it sighted (each sighting kept, greyed, after the army moved on), battles it
  faces with their odds, warnings, receipts and private news, its own dice secrets.
- :func:`moderators`: everything, with the outbox and the log.

Times are ISO 8601 UTC strings; every text is data (escaped by the templates and by JSON).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import func
from sqlalchemy import select as sql_select
from sqlmodel import Session, col, or_, select

from bot.db.models import (
    Army,
    ArmyState,
    BattleStatus,
    Campaign,
    Claim,
    Event,
    InboxMessage,
    Outbox,
    OutboxStatus,
    PendingBattle,
    Siege,
    SiegeStatus,
    Snapshot,
)
from bot.mapimage.layout import Box, Placer, Spot
from bot.mapimage.scene import (
    FADED,
    MIN_WIDTHS,
    Circle,
    Labels,
    Line,
    Scene,
    SceneOptions,
    Text,
    age_text,
    at_least,
    build_scene,
    claim_colours,
    label_sizes,
)
from bot.render.common import money
from bot.render.notes import shortfall_text
from bot.services import beacon, forewarn, proposals
from bot.services.battle_odds import attacker_wins, battle_world, drawn_in
from bot.services.fairplay import DICE_KEY, first_tick_of, period_of, shown_to_claim
from bot.services.journal import players_of
from bot.services.mapview import IN_MAP_STATES, load_situation
from bot.services.preview import preview_session
from bot.services.world import CampaignContext, all_claims, current
from bot.storage.army_rows import load_records
from bot.storage.world_rows import next_siege_ids
from rules import fairdice
from rules.campaign import calendar
from rules.campaign.mapview import (
    MODERATOR,
    PUBLIC,
    Situation,
    Viewer,
    ViewKind,
    situation_to_data,
    visible_to,
)
from rules.campaign.muster import still_scattered

MAP_OPTIONS = SceneOptions(size=22.0, labels=Labels.BOTH, legend=False)
POSTS_SHOWN = 20
EVENTS_SHOWN = 60
PERIODS_SHOWN = 3
NEWS_SHOWN = 40


@dataclass(frozen=True, slots=True)
class View:
    """One page's content: the JSON-ready data and the map's scene."""

    data: dict[str, Any]
    scene: Scene


def iso(moment: datetime | None) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ") if moment is not None else ""


def _clock(session: Session, ctx: CampaignContext) -> dict[str, Any]:
    ctx, campaign = current(session, ctx)
    last = campaign.last_tick
    now = ctx.tick_at(last)
    return {
        "campaign": campaign.name,
        "subreddit": ctx.settings.campaign.subreddit,
        "tick": last,
        "as_of": iso(now),
        "date": str(calendar.game_date(now, ctx.rules)),
        "season": campaign.season.value,
        "next_tick": iso(ctx.tick_at(last + 1)),
        "paused": campaign.paused_at is not None,
    }


def _tiles(ctx: CampaignContext, scene: Scene, known: Situation) -> list[list[Any]]:
    """Per drawn tile: id, name, terrain, x, y, holdfast (0/1/2 special), port, resource,
    holder (claim name or ""), and where and how big the scene placed its id ([x, y, size];
    None where it found no room: the script leaves it out, as the pictures do). Everything
    here is public map knowledge."""
    holders = dict(known.holders)
    ids = {label.tile: (*label.box.centre, label.size) for label in scene.labels
           if label.kind == "id"}
    out: list[list[Any]] = []
    for tile_id, (x, y) in scene.centres.items():
        t = ctx.world.tiles[tile_id]
        at = ids.get(tile_id)
        out.append([t.id, t.name, t.terrain.value, round(x, 1), round(y, 1),
                    (2 if t.special else 1) if t.holdfast else 0, int(t.port),
                    t.resource or "", holders.get(t.id, ""),
                    [round(at[0], 1), round(at[1], 1), at[2]] if at is not None else None])
    return out


def _without_ids(scene: Scene) -> Scene:
    """The scene without the tiles' id labels: thousands of texts too small to read at first
    sight, which the page's script draws for the tiles in view once zoomed in (from the tile
    list). Ids are placed last, so taking them away moves no other label."""
    ids = {(label.text, label.box.centre) for label in scene.labels if label.kind == "id"}
    return dataclasses.replace(scene, shapes=tuple(
        s for s in scene.shapes if not (isinstance(s, Text) and (s.text, s.at) in ids)))


def _map(ctx: CampaignContext, known: Situation) -> tuple[Scene, dict[str, Any]]:
    # a small map's hexes grow to about the width the page shows the map at, so its labels
    # are laid out at the size they are seen (scaled up from hexes of 22 px, a twelve-tile
    # map's names ran across three hexes)
    scene = _without_ids(build_scene(ctx.world, known, at_least(ctx.world, MAP_OPTIONS,
                                                                 MIN_WIDTHS["page"])))
    return scene, {
        "width": scene.width, "height": scene.height, "hex": scene.hex_size,
        "base": scene.base_count,  # the SVG's first shapes after its background: the terrain
        "tiles": _tiles(ctx, scene, known),
        "colours": claim_colours(known),
        "situation": situation_to_data(known),
    }


def _claims(session: Session, ctx: CampaignContext, known: Situation) -> list[dict[str, Any]]:
    held: dict[str, list[str]] = {}
    for tile, name in known.holders:
        held.setdefault(name, []).append(tile)
    colours = claim_colours(known)
    return [{"name": c.name, "colour": colours.get(c.name, ""), "seat": c.holdfast,
             "seat_name": ctx.world.tiles[c.holdfast].name if c.holdfast in ctx.world else "",
             "holdfasts": [{"id": t, "name": ctx.world.tiles[t].name}
                           for t in sorted(held.get(c.name, ()))]}
            for c in all_claims(session, ctx)]


def reddit_link(ctx: CampaignContext, reddit_id: str | None) -> str:
    """The address of a delivered post on Reddit ("" when it has none)."""
    if not reddit_id:
        return ""
    base = ctx.settings.reddit.reddit_url.rstrip("/")
    return f"{base}/comments/{reddit_id.removeprefix('t3_')}"


def _posts(session: Session, ctx: CampaignContext) -> list[dict[str, Any]]:
    rows = session.exec(select(Outbox).where(
        Outbox.campaign_id == ctx.campaign_id, col(Outbox.public), Outbox.kind == "post",
        Outbox.status == OutboxStatus.DELIVERED).order_by(col(Outbox.id).desc())
        .limit(POSTS_SHOWN)).all()
    return [{"title": r.title, "url": reddit_link(ctx, r.reddit_id), "tick": r.tick,
             "at": iso(ctx.tick_at(r.tick))} for r in rows]


def _event(ctx: CampaignContext, e: Event) -> dict[str, Any]:
    return {"id": e.id, "kind": e.kind, "tick": e.tick, "at": iso(e.at),
            "summary": e.summary}


def _timeline(session: Session, ctx: CampaignContext, last: int) -> list[dict[str, Any]]:
    rows = session.exec(select(Event).where(
        Event.campaign_id == ctx.campaign_id, col(Event.public), col(Event.tick) <= last)
        .order_by(col(Event.id).desc()).limit(EVENTS_SHOWN)).all()
    return [_event(ctx, e) for e in rows]


def _dice_lines(session: Session, ctx: CampaignContext, period: int, *, branch: str,
                claim_id: int | None = None) -> list[dict[str, Any]]:
    """The printed dice lines of ``period`` on ``branch``: public events' for the public
    branch, the claim's own events' for its branch (not its detections that saw nothing:
    :func:`~bot.services.fairplay.shown_to_claim`)."""
    first, after = first_tick_of(ctx, period), first_tick_of(ctx, period + 1)
    query = select(Event).where(Event.campaign_id == ctx.campaign_id,
                                col(Event.tick) >= first, col(Event.tick) < after)
    query = query.where(col(Event.public)) if claim_id is None else \
        query.where(Event.claim_id == claim_id)
    out: list[dict[str, Any]] = []
    parsed_lines: list[tuple[Event, str, fairdice.DiceLine]] = []
    for e in session.exec(query.order_by(col(Event.id))).all():
        line = e.data_json.get(DICE_KEY) if isinstance(e.data_json, dict) else None
        if not line or not shown_to_claim(e):
            continue
        try:
            parsed = fairdice.DiceLine.parse(str(line))
        except ValueError:
            continue
        if parsed.event.branch == branch:
            parsed_lines.append((e, str(line), parsed))
    # The beacon rounds the lines are bound to: the browser derives each round's randomness
    # from its signature (SHA-256); it does not check the BLS signature itself.
    rounds = beacon.by_round(session, ctx, {p.beacon_round for _, _, p in parsed_lines
                                            if p.beacon_round is not None})
    for e, line, parsed in parsed_lines:
        bound = rounds.get(parsed.beacon_round) if parsed.beacon_round is not None else None
        # (no journal row number: hidden rows between two shown ones would move it)
        out.append({"summary": e.summary, "line": line,
                    "key": parsed.event.key, "orders": parsed.event.entropy,
                    "period": parsed.event.period,
                    "beacon": parsed.beacon_round,
                    "beacon_signature": bound.signature.hex() if bound else "",
                    "rolls": [[s, v] for s, v in parsed.rolls]})
    return out


def _dice(session: Session, ctx: CampaignContext, last: int, *, branch: str = fairdice.PUBLIC,
          claim_id: int | None = None) -> dict[str, Any]:
    """Commitments of the current and next period, and the reveals (secret, commitment,
    dice lines) of the last periods that ended, on ``branch``."""
    current = period_of(ctx, last)
    committed = [{"period": p, "commitment": fairdice.commitment(
        fairdice.branch_secret(ctx.secret, p, branch))} for p in (current, current + 1)]
    revealed = []
    for p in range(current - 1, max(-1, current - 1 - PERIODS_SHOWN), -1):
        secret = fairdice.branch_secret(ctx.secret, p, branch)
        revealed.append({"period": p, "secret": secret.hex(),
                         "commitment": fairdice.commitment(secret),
                         "lines": _dice_lines(session, ctx, p, branch=branch,
                                              claim_id=claim_id)})
    return {"branch": branch, "current_period": current, "committed": committed,
            "revealed": revealed}


def realm(session: Session, ctx: CampaignContext) -> View:
    """The public realm (see the module docstring)."""
    clock = _clock(session, ctx)
    known = visible_to(load_situation(session, ctx, sightings=False), PUBLIC)
    scene, drawn = _map(ctx, known)
    return View({
        "view": "realm", **clock, "map": drawn,
        "claims": _claims(session, ctx, known),
        "posts": _posts(session, ctx),
        "timeline": _timeline(session, ctx, clock["tick"]),
        "dice": _dice(session, ctx, clock["tick"]),
    }, scene)


# --------------------------------------------------------------------- a claim's war room


ON_THE_MOVE = frozenset({ArmyState.MARCHING, ArmyState.RETREATING})
"""The states of an army whose march is under way."""


def _march(ctx: CampaignContext, a: Any, last: int) -> dict[str, Any]:
    """An army's row in the war room and the moderators' room. ``arrives``: when its march
    ends, for an army on the move (or mustering with a march ordered); ``arrived``: when its
    last march ended, for one that stands (an army keeps the arrival tick of its last march:
    shown as "arrives", that past time read as if it were still coming). ``last``: the last
    applied tick."""
    tiles = [str(t) for t in a.path_json]
    moving = a.state in ON_THE_MOVE or (a.state is ArmyState.MUSTERING and bool(tiles))
    arrival = a.arrival_tick
    return {"id": a.id, "kind": a.kind.value, "state": a.state.value, "tile": a.tile,
            "tile_name": ctx.world.tiles[a.tile].name if a.tile in ctx.world else "",
            "infantry": a.infantry, "cavalry": a.cavalry, "ships": a.ships,
            "path": tiles,
            "departs": iso(ctx.tick_at(a.depart_tick)) if a.depart_tick is not None else "",
            "arrives": iso(ctx.tick_at(arrival)) if arrival is not None and moving else "",
            "arrived": iso(ctx.tick_at(arrival))
            if arrival is not None and not moving and arrival <= last else "",
            "ready": iso(ctx.tick_at(a.ready_tick)) if a.ready_tick is not None else ""}


def sightings(session: Session, ctx: CampaignContext, claim_id: int, last: int,
              names: dict[int, str]) -> list[dict[str, Any]]:
    """Every army ``claim_id``'s watchers sighted, newest sighting per army: where and when.
    ``current``: sighted at the last tick; older sightings are memories, kept on the map
    greyed with the time they were made. Only the claim's own detections are read (what
    its private notes told it), never where the army is now."""
    rows = session.exec(select(Event).where(
        Event.campaign_id == ctx.campaign_id, Event.kind == "detection",
        Event.claim_id == claim_id).order_by(col(Event.id))).all()
    latest: dict[int, Event] = {}
    for e in rows:
        data = e.data_json if isinstance(e.data_json, dict) else {}
        if data.get("detected") and isinstance(data.get("army"), int) \
                and data.get("at") in ctx.world:
            latest[int(data["army"])] = e
    if not latest:
        return []
    owners = dict(session.exec(select(Army.id, Army.claim_id).where(
        col(Army.id).in_(list(latest)))).all())
    out = []
    for army_id, e in sorted(latest.items(), key=lambda kv: (kv[1].tick, kv[0])):
        tile = str(e.data_json["at"])
        out.append({"tile": tile, "tile_name": ctx.world.tiles[tile].name,
                    "claim": names.get(owners.get(army_id, -1) or -1, "unknown"),
                    "seen_at": iso(e.at or ctx.tick_at(e.tick)), "tick": e.tick,
                    "current": e.tick >= last})
    return out


def _with_public(known: Situation, public: Situation) -> Situation:
    """The claim's map with what everyone knows added back: an announced army the claim's
    view shows only where its watchers once sighted it is also drawn where it was announced."""
    shown = {(a.claim, a.tile) for a in known.armies}
    armies = [*known.armies, *(a for a in public.armies if (a.claim, a.tile) not in shown)]
    armies.sort(key=lambda a: (a.tile, a.claim, not a.own, a.id, a.size))
    return dataclasses.replace(known, armies=tuple(armies))


def _gone_from_view(known: Situation, seen: Sequence[dict[str, Any]]
                    ) -> list[dict[str, Any]]:
    """The sightings the claim's map no longer draws (the army's march ended, so the rules'
    view forgot it): they are kept on the map as greyed memories."""
    drawn = {(a.claim, a.tile) for a in known.armies if not a.own and not a.announced}
    return [s for s in seen if (s["claim"], s["tile"]) not in drawn]


def _ghosts(scene: Scene, kept: Sequence[dict[str, Any]], now: int, tick_hours: int
            ) -> tuple[list[Circle | Line | Text], set[str]]:
    """Greyed markers of the sightings the map no longer draws, with how long ago they were
    made (as the scene labels its own sightings): sized to the scene's hexes, their text as
    its army labels (:func:`bot.mapimage.scene.label_sizes`), and the tiles whose id labels
    make room for them. They take part in the scene's label layout, after every marker and
    label it placed (the ids the page's script draws included), with its :class:`Placer`:
    each dot goes to the first of its spots around its tile where it covers nothing and its
    text fits beside it (at the army labels' size, or smaller), else to the first free spot
    with its text further away and a leader line. A text with no room even there is placed
    as the scene places army labels, before the ids: the ids it would cover are left out
    (on a crowded map, where every place is some label's); a dot too. So no dot or text covers a
    marker, an id, a name or an army label. A dot with no free spot even so is left out,
    and so is a text with no room at all (the war room's list of sightings still tells them)."""
    out: list[Circle | Line | Text] = []
    if not kept:  # the usual case: no layout to build
        return out, set()
    centres, size = scene.centres, scene.hex_size
    army_size = label_sizes(size)[2]
    area = Box(0, 0, scene.width, scene.height)
    placer, before_ids = Placer(area, size), Placer(area, size)
    for box in scene.markers:
        placer.take(box)
        before_ids.take(box)
    for label in scene.labels:
        placer.take(label.box)
        if label.kind != "id":
            before_ids.take(label.box)
    ids = [label for label in scene.labels if label.kind == "id"]
    displaced: set[str] = set()
    radius, gap = size * 0.22, size * 0.22 * 1.2 + 2
    near = (Spot(-gap, 0, -1), Spot(gap, 0, 1), Spot(0, gap, valign=1),
            Spot(0, -gap, valign=-1))
    far = (Spot(-size * 1.1, size * 0.7, -1, True), Spot(size * 1.1, size * 0.7, 1, True),
           Spot(0, size * 1.2, 0, True), Spot(0, -size * 1.2, 0, True))
    sizes = (army_size, max(7, round(army_size * 0.8)))
    dots = [(-0.52, 0.3), (-0.52, 0.5), (0.52, 0.3), (0.52, 0.5), (-0.52, -0.1),
            (0.52, -0.1), (0.0, 0.45), (0.0, -0.3)]
    for s in kept:
        if s["tile"] not in centres:
            continue
        x, y = centres[s["tile"]]
        spots = [Box.around((x + dx * size, y + dy * size), radius, radius)
                 for dx, dy in dots]
        free = [box for box in spots if placer.free(box)]
        if not free:  # the ids make room for the dot too
            free = [box for box in spots if before_ids.free(box)][:1]
            if not free:
                continue
            displaced.update(i.tile for i in ids if i.box.overlaps(free[0]))
        text = f"{s['claim']} seen {age_text(now - s['tick'], tick_hours)}"
        # the text beside its dot, at the first dot spot where it fits (the near spots
        # stand clear of the dot: a text placed there never covers it); else further away
        placed, dot = None, free[0]
        for box in free:
            placed = placer.place(text, box.centre, near, sizes)
            if placed is not None:
                dot = box
                break
        placer.take(dot)
        before_ids.take(dot)
        out.append(Circle(dot.centre, radius, FADED, "#ffffff"))
        if placed is None:
            placed = placer.place(text, dot.centre, far, sizes)
        if placed is None:  # before the ids, as an army label: the ids it covers make room
            placed = before_ids.place(text, dot.centre, (*near, *far), sizes)
            if placed is None:
                continue
            placer.take(placed.box)
            displaced.update(i.tile for i in ids if i.box.overlaps(placed.box))
        else:
            before_ids.take(placed.box)
        if placed.far:
            (cx, cy), end = dot.centre, placed.box.nearest_edge_point(dot.centre)
            share = radius / max(radius, math.hypot(end[0] - cx, end[1] - cy))
            start = (cx + (end[0] - cx) * share, cy + (end[1] - cy) * share)
            out.append(Line((start, end), "#555555", 1))  # from the dot's rim
        out.append(Text(placed.box.centre, text, "#555555", placed.size, halo=True))
    return out, displaced


def _battles(session: Session, ctx: CampaignContext, claim_id: int | None,
             names: dict[int, str], odds_at: datetime | None = None) -> list[dict[str, Any]]:
    """The pending battles (a claim's: those it fights, and those its armies would be drawn
    into beside an ally, :func:`bot.services.battle_odds.drawn_in`, with ``joins``);
    ``odds_at``: with each one's ``attacker_wins`` (percent, one decimal; empty for an
    assault on a garrison) as ``claim_id`` may know it at that moment (the other side's hidden
    modifiers left out). The world their sides are counted in is read once."""
    query = select(PendingBattle).where(PendingBattle.campaign_id == ctx.campaign_id,
                                        PendingBattle.status == BattleStatus.PENDING)
    found = list(session.exec(query.order_by(col(PendingBattle.id))).all())
    world = battle_world(session, ctx) if found and (claim_id is not None or odds_at) \
        else None
    joins: dict[int, tuple[str, tuple[int, ...]]] = {}
    if claim_id is not None and world is not None:
        others = [b for b in found if claim_id not in (b.attacker_claim, b.defender_claim)]
        joins = drawn_in(world, others, claim_id)
        found = [b for b in found if b not in others or b.id in joins]
    out = []
    for b in found:
        side, armies = joins.get(b.id or 0, ("", ()))
        row = {"id": b.id, "tile": b.tile, "kind": b.kind.value,
               "joins": side, "joining_armies": list(armies),
               "tile_name": ctx.world.tiles[b.tile].name if b.tile in ctx.world else "",
               "attacker": names.get(b.attacker_claim, "?"),
               "defender": names.get(b.defender_claim, "?"),
               "attacker_army": b.attacker_army, "defender_army": b.defender_army,
               "fought_at": iso(ctx.tick_at(b.resolve_tick))}
        if odds_at is not None and world is not None:
            win = attacker_wins(session, ctx, world, b, claim_id, odds_at)
            row["attacker_wins"] = "" if win is None else f"{float(win) * 100:.1f}"
        out.append(row)
    return out


def _sieges(session: Session, ctx: CampaignContext, claim_id: int | None,
            names: dict[int, str]) -> list[dict[str, Any]]:
    query = select(Siege).where(Siege.campaign_id == ctx.campaign_id,
                                Siege.status == SiegeStatus.ACTIVE)
    if claim_id is not None:
        query = query.where(or_(Siege.besieger_claim == claim_id,
                                Siege.defender_claim == claim_id))
    return [{"holdfast": s.holdfast,
             "name": ctx.world.tiles[s.holdfast].name if s.holdfast in ctx.world else "",
             "besieger": names.get(s.besieger_claim, "?"),
             "defender": names.get(s.defender_claim, "?"),
             "months": s.months_elapsed, "months_required": s.months_required,
             "paused": s.paused}
            for s in session.exec(query.order_by(col(Siege.id))).all()]


def _warnings(session: Session, ctx: CampaignContext, claim: Claim, at: datetime,
              sieges: Sequence[dict[str, Any]]) -> list[str]:
    out = []
    short = forewarn.shortfall(session, ctx, claim, at)
    if short is not None:
        out.append(shortfall_text(short, ctx.when(short.charged)).strip().replace("**", ""))
    if claim.scattered_until is not None and still_scattered(
            claim.scattered_until, claim.scattered_infantry, claim.scattered_cavalry, at):
        out.append(f"{claim.scattered_infantry} infantry and {claim.scattered_cavalry} cavalry "
                   f"are scattered until {ctx.when(claim.scattered_until)}.")
    for s in sieges:
        if s["defender"] == claim.name:
            out.append(f"{s['name'] or s['holdfast']} is besieged by {s['besieger']} "
                       f"({s['months']} of {s['months_required']} months).")
    return out


def _news(session: Session, ctx: CampaignContext, claim_id: int) -> list[dict[str, Any]]:
    rows = session.exec(select(Outbox).where(
        Outbox.campaign_id == ctx.campaign_id, Outbox.claim_id == claim_id,
        Outbox.kind == "message").order_by(col(Outbox.id).desc()).limit(NEWS_SHOWN * 4)).all()
    seen: set[tuple[str, str]] = set()
    out = []
    for r in rows:  # one copy per player: show each note once
        if (r.title, r.body) in seen:
            continue
        seen.add((r.title, r.body))
        out.append({"title": r.title, "body": r.body, "at": iso(r.created_at), "tick": r.tick})
    return out[:NEWS_SHOWN]


def _receipts(session: Session, ctx: CampaignContext, claim_id: int) -> list[dict[str, Any]]:
    """The replies to the claim's players' orders, newest first."""
    players = players_of(session, claim_id)
    if not players:
        return []
    conversations = set(session.exec(select(InboxMessage.conversation_id).where(
        InboxMessage.campaign_id == ctx.campaign_id,
        col(InboxMessage.author).in_(players))).all())
    conversations.discard("")
    if not conversations:
        return []
    rows = session.exec(select(Outbox).where(
        Outbox.campaign_id == ctx.campaign_id, Outbox.kind == "reply",
        col(Outbox.target).in_(sorted(conversations))).order_by(col(Outbox.id).desc())
        .limit(NEWS_SHOWN)).all()
    return [{"body": r.body, "at": iso(r.created_at), "tick": r.tick} for r in rows]


def war_room(session: Session, ctx: CampaignContext, claim_id: int) -> View:
    """One claim's war room (see the module docstring). Raises LookupError for an unknown
    claim."""
    claims = list(all_claims(session, ctx))
    names = {c.id or 0: c.name for c in claims}
    claim = next((c for c in claims if c.id == claim_id), None)
    if claim is None:
        raise LookupError(f"no claim {claim_id}")
    clock = _clock(session, ctx)
    at = ctx.tick_at(clock["tick"])
    seen = sightings(session, ctx, claim_id, clock["tick"], names)
    full = load_situation(session, ctx)
    mine = visible_to(full, Viewer(ViewKind.CLAIM, claim.name))
    kept = _gone_from_view(mine, seen)
    known = _with_public(mine, visible_to(full, PUBLIC))
    scene, drawn = _map(ctx, known)
    tick_hours = int(calendar.tick_length(ctx.rules).total_seconds() // 3600)
    ghosts, displaced = _ghosts(scene, kept, clock["tick"], tick_hours)
    scene = dataclasses.replace(scene, shapes=(*scene.shapes, *ghosts))
    if displaced:  # the ids the sightings' texts took the place of are not drawn
        scene = dataclasses.replace(scene, labels=tuple(
            label for label in scene.labels
            if not (label.kind == "id" and label.tile in displaced)))
        drawn["tiles"] = _tiles(ctx, scene, known)
    for s in seen:  # False: the rules' view forgot it, the war room keeps it (greyed)
        s["in_view"] = s not in kept
    armies = [_march(ctx, a, clock["tick"])
              for a in load_records(session, ctx.campaign_id, IN_MAP_STATES)
              if a.claim_id == claim_id]
    battles = _battles(session, ctx, claim_id, names, odds_at=at)
    sieges = _sieges(session, ctx, claim_id, names)
    seat = ctx.world.tiles[claim.holdfast] if claim.holdfast in ctx.world else None
    return View({
        "view": "claim", **clock, "map": drawn,
        "claim": {"name": claim.name, "gold": money(claim.gold), "infantry": claim.infantry,
                  "cavalry": claim.cavalry, "ships": claim.ships, "seat": claim.holdfast,
                  "seat_name": seat.name if seat else "",
                  "defense_bonus": str(seat.defense_bonus) if seat else ""},
        "armies": armies, "sightings": seen, "battles": battles, "sieges": sieges,
        "warnings": _warnings(session, ctx, claim, at, sieges),
        "receipts": _receipts(session, ctx, claim_id),
        "news": _news(session, ctx, claim_id),
        "dice": _dice(session, ctx, clock["tick"], branch=fairdice.claim_branch(claim_id),
                      claim_id=claim_id),
    }, scene)


# --------------------------------------------------------------------- the moderators' room


def moderators(session: Session, ctx: CampaignContext) -> View:
    """Everything: the moderators' map, every army, battles, sieges, the outbox, the log, the
    proposals waiting for a second moderator."""
    claims = list(all_claims(session, ctx))
    names = {c.id or 0: c.name for c in claims}
    clock = _clock(session, ctx)
    known = visible_to(load_situation(session, ctx), MODERATOR)
    scene, drawn = _map(ctx, known)
    armies = [{**_march(ctx, a, clock["tick"]), "claim": names.get(a.claim_id, "?")}
              for a in load_records(session, ctx.campaign_id, IN_MAP_STATES)]
    outbox = session.exec(select(Outbox).where(
        Outbox.campaign_id == ctx.campaign_id,
        col(Outbox.status).in_([OutboxStatus.PENDING, OutboxStatus.DEAD]))
        .order_by(col(Outbox.id))).all()
    log = session.exec(select(Event).where(Event.campaign_id == ctx.campaign_id)
                       .order_by(col(Event.id).desc()).limit(EVENTS_SHOWN * 2)).all()
    return View({
        "view": "moderators", **clock, "map": drawn,
        "claims": _claims(session, ctx, known),
        "armies": armies,
        "battles": _battles(session, ctx, None, names),
        "sieges": _sieges(session, ctx, None, names),
        "outbox": [{"id": r.id, "kind": r.kind, "status": r.status.value, "target": r.target,
                    "title": r.title, "attempts": r.attempts, "error": r.last_error,
                    "tick": r.tick} for r in outbox],
        "log": [{**_event(ctx, e), "public": e.public, "claim": names.get(e.claim_id or 0, "")}
                for e in log],
        "proposals": [{"id": p.id, "action": p.action, "summary": p.summary,
                       "proposer": p.proposer, "why": p.why,
                       "at": iso(p.created_at)}
                      for p in proposals.listing(session, ctx)],
    }, scene)


PREVIEW_KINDS = {"battle": "battles", "encounter": "battles", "battle_void": "battles",
                 "retreat": "battles", "retreat_failed": "battles", "arrival": "arrivals",
                 "muster_done": "musters"}
"""The journal kinds the moderators' preview lists apart (the rest under "everything")."""


def next_tick(session: Session, ctx: CampaignContext) -> dict[str, Any]:
    """The next tick as it would happen, for the moderators' room: the real preview
    (:func:`bot.services.preview.preview_session`: the world advanced in memory, the tick's
    own reporters, nothing written) of the one tick after the last applied. ``session`` must
    be a read session of its own, closed (never committed) afterwards. Hidden facts are all
    here (private notes, undetected armies, secret bonuses): moderators only."""
    ctx, campaign = current(session, ctx)  # the clock as stored
    index = campaign.last_tick + 1
    names = {c.id or 0: c.name for c in all_claims(session, ctx)}
    shown = preview_session(session, ctx, ctx.tick_at(index), limit=1)
    out: dict[str, Any] = {"tick": index, "at": iso(ctx.tick_at(index)),
                           "paused": campaign.paused_at is not None, "battles": [],
                           "arrivals": [], "musters": [], "everything": [], "posts": [],
                           "notes": [], "moderators": [], "months": []}
    for tick in shown:
        out["months"] = [str(calendar.date_of_month_number(m, ctx.rules)) for m in tick.months]
        for row in tick.journal:
            line = {"kind": row["kind"], "summary": row["summary"], "public": row["public"],
                    "claim": names.get(row["claim_id"] or 0, "")}
            out[PREVIEW_KINDS.get(row["kind"], "everything")].append(line)
        notes: dict[tuple[str, str, str], list[str]] = {}
        for q in tick.queued:
            if q.kind == "post":
                out["posts"].append({"title": q.title, "body": q.body})
            elif q.kind == "mod":
                out["moderators"].append({"title": q.title, "body": q.body})
            else:  # the same note to each player of a claim: shown once, with the players
                notes.setdefault((names.get(q.claim_id or 0, "?"), q.title, q.body),
                                 []).append(q.target)
        out["notes"] = [{"claim": claim, "players": players, "title": title, "body": body}
                        for (claim, title, body), players in notes.items()]
    return out


def next_tick_key(session: Session, ctx: CampaignContext) -> tuple[Any, ...]:
    """What :func:`next_tick` shows depends on besides the rows of the snapshot it reads:
    the next tick's index (from the campaign row, as of it) and the id a siege the tick
    begins would get (:func:`bot.storage.world_rows.next_siege_ids`: on PostgreSQL a
    sequence, which moves outside every transaction, even one rolled back). With the
    database's data version, the key a kept preview is served by (bot/web/app.Previews)."""
    campaign = session.get(Campaign, ctx.campaign_id)  # (read with the context: no query)
    return ((campaign.last_tick if campaign is not None else 0) + 1,
            *next_siege_ids(session, 1))


def realm_version(session: Session, ctx: CampaignContext) -> tuple[Any, ...]:
    """A cheap fingerprint of everything the realm shows: the campaign row's clock and
    season, the journal (every change to the world logs an event), the delivered public
    posts and the snapshots (an undo takes events back). Equal fingerprints, equal realm."""
    cid = ctx.campaign_id
    row = session.execute(sql_select(
        col(Campaign.last_tick), col(Campaign.season), col(Campaign.paused_at),
        col(Campaign.tick_offset),
        select(func.max(Event.id)).where(Event.campaign_id == cid).scalar_subquery(),
        select(func.count(col(Event.id))).where(Event.campaign_id == cid).scalar_subquery(),
        select(func.count(col(Outbox.id))).where(
            Outbox.campaign_id == cid, col(Outbox.public),
            Outbox.status == OutboxStatus.DELIVERED).scalar_subquery(),
        select(func.max(Snapshot.id)).where(Snapshot.campaign_id == cid).scalar_subquery(),
    ).where(col(Campaign.id) == cid)).one()
    return tuple(row)
