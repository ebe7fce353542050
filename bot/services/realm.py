"""Map pictures in public posts: the monthly ``[Realm]`` post and inset maps.

:func:`map_posts` is called once per tick, after the tick queued its posts:

- at a month boundary (``[posts] realm_post``, on by default) it queues the ``[Realm]`` post:
  the public map as an inline image and a short summary (holdfasts held, sieges in progress,
  last month's battles), keyed ``realm:<month>`` so it goes out once;
- with ``[posts] realm_film`` each tick's public situation is kept as a frame of its month
  (:func:`record_frame`, when it changed), and the month's ``[Realm]`` post carries the
  month as an animated picture (:func:`picture_for`) instead of the still map;
- with ``[posts] inset_maps`` it attaches a small public map around the tile to the tick's
  battle, siege and arrival posts.

Everything drawn or written here comes from the PUBLIC view
(:func:`rules.campaign.mapview.visible_to`), so no hidden army, detection or defense bonus can
reach these posts. What to draw (the public situation at that tick and the drawing options)
is stored in ``postimage`` next to the outbox entry, in the tick's transaction; the picture
is drawn from it when the post is delivered (:func:`picture_for`), so catching up a year of
ticks stores small snapshots, not pictures. A newer ``[Realm]`` post replaces an older one
that was never tried (a catch-up posts only the newest map, not one per month missed).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from sqlalchemy import delete, func
from sqlmodel import Session, col, or_, select

from bot.db.models import Army, Outbox, PendingBattle, PostImage, Siege
from bot.mapimage.draw import render_film
from bot.mapimage.scene import MIN_WIDTHS, Labels, SceneOptions, at_least, build_scene
from bot.render.posts import realm_post
from bot.services import journal
from bot.services.mapview import Picture, draw, load_situation
from bot.services.outbox import withdraw_pending
from bot.services.world import CampaignContext
from rules.campaign import calendar
from rules.campaign.mapview import (
    PUBLIC,
    Situation,
    situation_from_data,
    situation_to_data,
    visible_to,
)
from rules.campaign.world import BattleState, World

INSET_PREFIXES = ("battle:", "siege:", "arrival:")


def realm_key(month: int) -> str:
    return f"realm:{month}"


def queue_realm_post(session: Session, ctx: CampaignContext, *, month: int, tick: int,
                     at: datetime, preview: Previewed | None = None) -> None:
    """Queue the ``[Realm]`` post of in-game month ``month`` (once: keyed by the month)."""
    posts = ctx.settings.posts
    date = calendar.date_of_month_number(month, ctx.rules)
    # the map's battles are those of the month that just ended
    situation = visible_to(_situation(session, ctx, max(0, tick - 1), preview), PUBLIC)
    title = posts.realm_title.format(date=date)
    key = realm_key(month)
    frames = _take_film(session, ctx, month - 1) if posts.realm_film else []
    _supersede_realm_posts(session, ctx)
    journal.queue(session, ctx.campaign_id, key, "post", title=title,
                  body=realm_post(situation, ctx.world, str(date), len(ctx.world.holdfasts())),
                  flair=posts.realm_flair, public=True, at=at, tick=tick,
                  target=ctx.settings.campaign.subreddit)
    data = scene_data(situation, title=f"The realm, {date}")
    if frames:
        data["frames"] = frames
    journal.request_image(session, {
        "campaign_id": ctx.campaign_id, "key": key,
        "name": f"realm-{date.year}-{date.month:02d}{'.gif' if frames else '.png'}",
        "caption": f"The realm, {date}"[:180], "scene_json": data, "created_at": at})


@dataclass(frozen=True, slots=True)
class Previewed:
    """A tick previewed in memory (:func:`bot.services.tick.preview_tick`): the world after
    it and every battle it knows by number, which stand for the rows the real tick would
    have written (the map posts read them; the next previewed tick starts from them)."""

    world: World
    battles: Mapping[int, BattleState]


def _situation(session: Session, ctx: CampaignContext, tick: int, preview: Previewed | None
               ) -> Situation:
    """The map at ``tick`` (every army, unfiltered), as stored or as previewed."""
    if preview is None:
        return load_situation(session, ctx, tick=tick, sightings=False)
    return load_situation(session, ctx, tick=tick, sightings=False, world=preview.world,
                          battles=preview.battles)


FILM_PREFIX = "film:"
FILM_MAX_FRAMES = 40
"""At most this many frames per month: past it, every other frame is left out."""


def film_key(month: int) -> str:
    return f"{FILM_PREFIX}{month}"


def record_frame(session: Session, ctx: CampaignContext, *, tick: int, at: datetime,
                 preview: Previewed | None = None) -> bool:
    """Keep the PUBLIC situation after ``tick`` as a frame of its month's film (a
    ``postimage`` row keyed ``film:<month>`` that is never posted itself), when it differs
    from the month's last frame. Returns whether a frame was added. A preview keeps the
    film in its sink (:attr:`bot.services.journal.Sink.films`), the stored row untouched."""
    month = calendar.month_number(ctx.tick_at(tick), ctx.rules)
    key = film_key(month)
    public = visible_to(_situation(session, ctx, tick, preview), PUBLIC)
    shown = situation_to_data(replace(public, tick=None))
    row = session.exec(select(PostImage).where(PostImage.campaign_id == ctx.campaign_id,
                                               PostImage.key == key)).first()
    sink = journal.sink_of(session) if preview is not None else None
    kept = sink.films.get(key) if sink is not None else None
    stored = kept if kept is not None else (row.scene_json if row else {})
    frames: list[dict[str, Any]] = list(stored.get("frames", []))
    if frames and frames[-1].get("situation") == shown:
        return False
    frames.append({"tick": tick, "situation": shown})
    if len(frames) > FILM_MAX_FRAMES:
        frames = frames[-1::-2][::-1]  # every other frame, the newest kept
    if sink is not None:
        sink.films[key] = {"frames": frames}
        return True
    if row is None:
        row = PostImage(campaign_id=ctx.campaign_id, key=key, name=f"film-{month}.gif",
                        caption="", created_at=at)
    row.scene_json = {"frames": frames}  # a new dict: the JSON column sees the change
    session.add(row)
    return True


def _take_film(session: Session, ctx: CampaignContext, month: int) -> list[dict[str, Any]]:
    """The frames of ``month``'s film, with each frame's day of the month; the film rows of
    that month and any earlier one (a catch-up) are dropped (a preview drops its own films
    and leaves the stored rows alone)."""
    rows = session.exec(select(PostImage).where(
        PostImage.campaign_id == ctx.campaign_id,
        col(PostImage.key).startswith(FILM_PREFIX))).all()
    sink = journal.sink_of(session)
    films = {row.key: row.scene_json for row in rows}
    if sink is not None and not sink.writes:
        films.update(sink.films)
        for key in [k for k in sink.films if int(k.removeprefix(FILM_PREFIX)) <= month]:
            sink.films[key] = {}  # taken: as good as dropped
    frames: list[dict[str, Any]] = []
    start = calendar.month_start(calendar.date_of_month_number(month, ctx.rules), ctx.rules)
    for key, scene in films.items():
        if int(key.removeprefix(FILM_PREFIX)) == month:
            frames = [dict(f, day=(ctx.tick_at(int(f["tick"])) - start).days + 1)
                      for f in scene.get("frames", [])]
    for row in rows:
        if int(row.key.removeprefix(FILM_PREFIX)) <= month and journal.writes(session):
            session.delete(row)
    return frames


def _supersede_realm_posts(session: Session, ctx: CampaignContext) -> None:
    """Drop the older [Realm] posts nobody tried to deliver yet (a newer map replaces them).
    An entry that was ever claimed may be on Reddit already: it stays. (Candidates are the
    realm pictures not drawn yet: delivery draws a picture only after claiming its entry.)
    A preview drops those it collected itself and leaves the stored ones alone."""
    sink = journal.sink_of(session)
    if sink is not None and not sink.writes:
        sink.drop({r["key"] for r in sink.outbox if r["key"].startswith("realm:")})
        return
    candidates = list(session.exec(select(PostImage.key).where(
        col(PostImage.campaign_id) == ctx.campaign_id, col(PostImage.key).startswith("realm:"),
        func.length(col(PostImage.data)) == 0)).all())
    if not candidates:
        return
    keys = withdraw_pending(session, ctx.campaign_id, col(Outbox.key).in_(candidates))
    if keys:
        session.execute(delete(PostImage).where(col(PostImage.campaign_id) == ctx.campaign_id,
                                                col(PostImage.key).in_(keys))
                        .execution_options(synchronize_session=False))


def scene_data(situation: Situation, *, title: str = "", around: str | None = None,
               radius: int = 3) -> dict[str, Any]:
    """What :func:`picture_for` draws: a PUBLIC situation and the drawing options."""
    return {"situation": situation_to_data(situation), "title": title, "around": around,
            "radius": radius}


def picture_for(ctx: CampaignContext, data: dict[str, Any]) -> Picture:
    """The PNG of a stored :func:`scene_data` (the situation is public already), or the
    month's film (GIF) when it has frames and the film is under Reddit's upload limit.
    Tiles no longer on the map (after ``maester map update``) are left out."""
    if data.get("frames"):
        film = _film(ctx, data)
        if film is not None:
            return film
    situation = situation_from_data(data.get("situation", {}))
    around = data.get("around")
    inset = around in ctx.world
    options = SceneOptions(labels=Labels.BOTH, title=str(data.get("title", "")),
                           around=around if inset else None,
                           radius=max(1, int(data.get("radius", 3))), legend=not inset)
    options = at_least(ctx.world, options, MIN_WIDTHS["inset" if inset else "realm"])
    return draw(ctx, situation, PUBLIC, options)


REDDIT_IMAGE_LIMIT = 20_000_000
"""Reddit's size limit for an uploaded image, in bytes."""


def _film(ctx: CampaignContext, data: dict[str, Any]) -> Picture | None:
    """The film of the month's frames (public situations), ending on the month's map:
    None when it would pass Reddit's upload limit (the still map goes out instead)."""
    title = str(data.get("title", ""))
    frames = [(situation_from_data(f.get("situation", {})), int(f.get("day", 1)))
              for f in data.get("frames", [])]
    frames.append((situation_from_data(data.get("situation", {})), 0))
    options = at_least(ctx.world, SceneOptions(labels=Labels.BOTH), MIN_WIDTHS["realm"])
    scenes, flashes = [], []
    earlier: set[tuple[str, str, str]] = set()
    for situation, day in frames:
        shown = replace(options, title=f"{title}, day {day}" if day else title)
        battles = {(b.tile, b.attacker, b.defender) for b in situation.battles}
        new = tuple(sorted({tile for tile, _, _ in battles - earlier}))
        earlier |= battles
        scenes.append(build_scene(ctx.world, situation, shown))
        flashes.append(build_scene(ctx.world, situation, replace(shown, flash=new))
                       if new and day else None)
    film = render_film(scenes, flashes)
    if len(film) > REDDIT_IMAGE_LIMIT:
        return None
    return Picture(scenes[-1], film, "image/gif")


def _inset_tile(session: Session, key: str, preview: Previewed | None) -> str | None:
    parts = key.split(":")
    if len(parts) < 2 or not parts[1].isdigit():
        return None
    row_id = int(parts[1])
    if preview is not None:
        return _previewed_tile(preview, parts[0], row_id)
    if parts[0] == "battle":
        battle = session.get(PendingBattle, row_id)
        return battle.tile if battle else None
    if parts[0] == "siege":
        siege = session.get(Siege, row_id)
        return siege.holdfast if siege else None
    army = session.get(Army, row_id)
    return army.tile if army else None


def _previewed_tile(preview: Previewed, kind: str, row_id: int) -> str | None:
    """The tile of a previewed battle, siege or army (what :func:`_inset_tile` reads)."""
    if kind == "battle":
        battle = preview.battles.get(row_id)
        return battle.tile if battle else None
    if kind == "siege":
        return next((s.holdfast for s in preview.world.sieges if s.id == row_id), None)
    army = preview.world.armies.get(row_id)
    return army.tile if army else None


def attach_insets(session: Session, ctx: CampaignContext, *, tick: int, at: datetime,
                  preview: Previewed | None = None) -> int:
    """Store a small public map around the tile of each battle, siege and arrival post of
    ``tick``; returns how many."""
    sink = journal.sink_of(session)
    if preview is not None and sink is not None:
        keys = [r["key"] for r in sink.outbox if r["tick"] == tick and r["kind"] == "post"
                and r["key"].startswith(INSET_PREFIXES)]
    else:
        keys = list(session.exec(select(Outbox.key).where(
            Outbox.campaign_id == ctx.campaign_id, Outbox.tick == tick, Outbox.kind == "post",
            or_(*[col(Outbox.key).startswith(p) for p in INSET_PREFIXES]))
            .order_by(col(Outbox.id))).all())
    if not keys:
        return 0
    have = set(session.exec(select(PostImage.key).where(
        PostImage.campaign_id == ctx.campaign_id, col(PostImage.key).in_(keys))).all())
    situation: Situation | None = None
    made = 0
    for key in keys:
        tile = _inset_tile(session, key, preview)
        if key in have or tile is None or tile not in ctx.world:
            continue
        if situation is None:
            situation = visible_to(_situation(session, ctx, tick, preview), PUBLIC)
        journal.request_image(session, {
            "campaign_id": ctx.campaign_id, "key": key, "name": f"inset-{tile}.png",
            "caption": f"Around {ctx.world.tile(tile).label}"[:180],
            "scene_json": scene_data(situation, around=tile,
                                     radius=ctx.settings.posts.inset_radius),
            "created_at": at})
        made += 1
    return made


def map_posts(session: Session, ctx: CampaignContext, *, tick: int, at: datetime,
              months: Sequence[int], preview: Previewed | None = None) -> None:
    """The tick's map pictures: the ``[Realm]`` post for the newest month begun in this tick
    (if enabled) and inset maps (if enabled). Called once per tick, in its transaction, or
    with the world the tick left in memory (``preview``: nothing is written; the month's
    film's frames are kept in the preview's sink)."""
    posts = ctx.settings.posts
    if months and posts.realm_post:
        queue_realm_post(session, ctx, month=max(months), tick=tick, at=at, preview=preview)
    if posts.realm_film:
        record_frame(session, ctx, tick=tick, at=at, preview=preview)
    if posts.inset_maps:
        attach_insets(session, ctx, tick=tick, at=at, preview=preview)
