"""The campaign as the services see it: settings, rules numbers, the map, and state queries.

A :class:`CampaignContext` is a frozen value, loaded by :func:`load_context` and passed to
every service call together with an open session; the campaign's changes (a holiday's clock
offset, a new map) come as a new context (:func:`refreshed`, :func:`current`).
"""

from __future__ import annotations

import dataclasses
import functools
import threading
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TypeVar, cast

from sqlalchemy import bindparam
from sqlalchemy.orm import QueryableAttribute, defer
from sqlmodel import Session, col, select
from sqlmodel.sql.expression import SelectOfScalar

from bot.config import Settings
from bot.db.models import (
    Army,
    ArmyState,
    Campaign,
    Character,
    Claim,
    Player,
    Relation,
    RelationStatus,
)
from rules.campaign import calendar
from rules.campaign.config import RulesConfig
from rules.campaign.world import ACTIVE_STATES
from rules.campaign.worldmap import WorldMap, parse_map
from rules.dice import SeededDice, derive_seed

T = TypeVar("T")


class Parses:
    """What the services make from the campaign's stored texts, kept by their text: the map's
    parse, the catalogue's, the ``[characters]`` table's fate settings, a heavy column's digest.

    Held where its lifetime is plain to see: on the :class:`CampaignContext` (each context
    made by :func:`load_context` gets its own unless handed one), and so by whoever keeps the
    context: the running bot (:class:`bot.runner.BotRunner`, for the process), the web site
    (:class:`bot.web.app.Site`, for the server), one CLI command. Each value is a pure function
    of its text, so a changed text is another key: a map update is never served a stale parse,
    and threads sharing it can only both make the same value. At most ``size`` texts of each
    kind are kept (all are dropped when one more comes)."""

    __slots__ = ("_kept", "_lock", "size")

    def __init__(self, size: int = 16) -> None:
        self.size = size
        self._kept: dict[str, dict[str, object]] = {}
        self._lock = threading.Lock()

    def keep(self, kind: str, text: str, make: Callable[[str], T]) -> T:
        """``make(text)``, made once per ``kind`` and ``text`` (the same object after)."""
        with self._lock:
            found = self._kept.get(kind, {}).get(text, _NOTHING)
        if found is not _NOTHING:
            return cast(T, found)
        made = make(text)
        with self._lock:
            kept = self._kept.setdefault(kind, {})
            found = kept.get(text, _NOTHING)
            if found is not _NOTHING:  # another thread made it meanwhile: one object for all
                return cast(T, found)
            if len(kept) >= self.size:
                kept.clear()
            kept[text] = made
        return made


_NOTHING = object()


@dataclass(frozen=True, slots=True)
class CampaignContext:
    """Everything a service needs to know about the campaign besides its rows: a frozen value.

    Nothing changes it: the campaign's clock offset after a holiday and a new map come as a
    new context (:meth:`following`, :func:`refreshed`), which the caller uses from then on
    (the running bot swaps its own in one place, :meth:`bot.runner.BotRunner.refresh`), so
    threads sharing a context never see it half changed."""

    campaign_id: int
    settings: Settings
    rules: RulesConfig
    world: WorldMap
    secret: str
    moderators: frozenset[str] = field(default_factory=frozenset)
    parses: Parses = field(default_factory=Parses, compare=False, repr=False)

    def shifted(self, offset: int) -> CampaignContext:
        """This context on the campaign's clock offset ``offset``, the ticks of its holidays
        (``maester pause`` then ``resume``): ``rules`` carries it, so the rules' ticks and
        in-game calendar and the services' are one clock (:mod:`rules.campaign.calendar`).
        Itself when the offset is already that."""
        if offset == self.rules.tick_offset:
            return self
        return dataclasses.replace(self, rules=dataclasses.replace(self.rules,
                                                                   tick_offset=offset))

    def following(self, campaign: Campaign) -> CampaignContext:
        """This context on the clock of the campaign row ``campaign`` as read (another process
        may have resumed the campaign after a holiday since this context was made): the ticks
        counted with it are the world's as stored."""
        return self.shifted(campaign.tick_offset or 0)

    def with_map(self, text: str) -> CampaignContext:
        """This context with the map of ``text`` (parsed once per text, :class:`Parses`);
        itself when that is its map already."""
        world = self.parses.keep("map", text, parse_map)
        return self if world is self.world else dataclasses.replace(self, world=world)

    def configured(self, **sections: Mapping[str, object]) -> CampaignContext:
        """This context with some of the bot's settings changed, by section
        (``ctx.configured(bot={"snapshots_kept": 3})``): new settings, this context's left as
        they are. Not for the rules' own numbers, which :attr:`rules` holds as loaded."""
        return dataclasses.replace(self, settings=self.settings.configured(**sections))

    def dice(self, *parts: int | str) -> SeededDice:
        """Dice for one event, derived from the campaign secret: replayable and auditable."""
        return SeededDice(derive_seed(self.secret, *parts))

    def is_moderator(self, name: str) -> bool:
        return name.lower() in self.moderators

    def tick_of(self, moment: datetime) -> int:
        """The world's tick at the real instant ``moment`` (:func:`calendar.tick_index`)."""
        return calendar.tick_index(moment, self.rules)

    def tick_at(self, index: int) -> datetime:
        """The real instant of the world's tick ``index`` (:func:`calendar.tick_time`)."""
        return calendar.tick_time(index, self.rules)

    def when(self, moment: datetime) -> str:
        """``2026-11-23 12:00 UTC (Month 5, 300 AC)`` for receipts and posts."""
        return calendar.moment_text(moment, self.rules)

    def when_logged(self, at: datetime, tick: int) -> str:
        """:meth:`when` for something logged at ``at`` in the world's tick ``tick`` (an event
        of the journal): its in-game date as it was then, before any later holiday."""
        return calendar.moment_text(at, calendar.rules_then(at, tick, self.rules))


def load_context(session: Session, settings: Settings, campaign_id: int | None = None, *,
                 parses: Parses | None = None) -> CampaignContext:
    """The context of the (only, or given) campaign in the database, keeping its parses in
    ``parses`` (a new :class:`Parses` when not given: the context's own)."""
    query = select(Campaign)
    if campaign_id is not None:
        query = query.where(Campaign.id == campaign_id)
    campaign = session.exec(query.order_by(col(Campaign.id))).first()
    if campaign is None or campaign.id is None:
        raise LookupError("no campaign in this database: run `maester init` first")
    parses = Parses() if parses is None else parses
    return CampaignContext(
        campaign_id=campaign.id,
        settings=settings,
        rules=settings.rules_config(),
        world=parses.keep("map", campaign.map_text, parse_map),
        secret=campaign.secret,
        moderators=frozenset(settings.campaign.moderators),
        parses=parses,
    ).following(campaign)


def refreshed(session: Session, ctx: CampaignContext) -> CampaignContext:
    """``ctx`` as the campaign stands now: on its stored clock offset (``maester resume``) and
    with its stored map (``maester map update``), both perhaps written by another process
    since ``ctx`` was made. ``ctx`` itself when neither changed."""
    campaign = get_campaign(session, ctx)
    return ctx.following(campaign).with_map(campaign.map_text)


_MAP_TEXT: QueryableAttribute[str] = Campaign.map_text  # type: ignore[assignment]
"""The campaign's map text as a mapped attribute (to defer its loading)."""


def get_campaign(session: Session, ctx: CampaignContext, *, lock: bool = False) -> Campaign:
    """The campaign row; ``lock`` takes a row lock (PostgreSQL) for the tick transaction and
    leaves the map's text unread until something asks for it (the map is parsed once per
    text, :class:`Parses`; a tick never reads the text).

    ``ctx`` stays as it is: a caller that counts ticks with what it read takes
    ``ctx.following(campaign)`` (:func:`current`), the clock as stored."""
    return session.exec(_campaign_query(lock), params={"cid": ctx.campaign_id}).one()


@functools.cache
def _campaign_query(lock: bool) -> SelectOfScalar[Campaign]:
    """:func:`get_campaign`'s query of the campaign ``:cid`` (built once for each ``lock``)."""
    query = select(Campaign).where(Campaign.id == bindparam("cid"))
    if lock:
        query = query.with_for_update().options(defer(_MAP_TEXT))
    return query


def current(session: Session, ctx: CampaignContext, *, lock: bool = False
            ) -> tuple[CampaignContext, Campaign]:
    """The campaign row (:func:`get_campaign`) and ``ctx`` on its clock
    (:meth:`CampaignContext.following`): the ticks counted in this transaction are the world's
    as stored."""
    campaign = get_campaign(session, ctx, lock=lock)
    return ctx.following(campaign), campaign


def claims_of_user(session: Session, ctx: CampaignContext, reddit_name: str) -> list[Claim]:
    """The claims a Reddit user plays, by name (several only when ``[claims]
    players_may_play_several``)."""
    return list(session.exec(
        select(Claim)
        .join(Player, col(Player.claim_id) == col(Claim.id))
        .where(Player.campaign_id == ctx.campaign_id,
               Player.reddit_name == reddit_name.lower().removeprefix("u/"))
        .order_by(col(Claim.name))
    ).all())


def claim_of_user(session: Session, ctx: CampaignContext, reddit_name: str) -> Claim | None:
    """The claim a Reddit user plays, if any (the first by name when they play several)."""
    found = claims_of_user(session, ctx, reddit_name)
    return found[0] if found else None


def claim_by_name(session: Session, ctx: CampaignContext, name: str) -> Claim | None:
    """A claim by its name, case-insensitively ("stark" finds "House Stark")."""
    from rules.campaign.decide import claim_named

    return claim_named(session.exec(select(Claim).where(Claim.campaign_id == ctx.campaign_id)
                                    ).all(), name)


class NotFound(LookupError):
    """A moderator named something that does not exist; the message lists what does."""


def find_character(session: Session, ctx: CampaignContext, name: str,
                   claim: str | None = None) -> Character:
    """The one character of the campaign called ``name`` (of claim ``claim`` when given), in
    any case and spacing. Raises NotFound listing the characters there are, or naming the
    claims when more than one is called so."""
    query = select(Character).where(Character.campaign_id == ctx.campaign_id)
    if claim is not None:
        found = claim_by_name(session, ctx, claim)
        if found is None:
            raise NotFound(f"no claim called {claim!r} (see `maester claims`)")
        query = query.where(Character.claim_id == found.id)
    rows = session.exec(query.order_by(col(Character.id))).all()
    wanted = " ".join(name.split()).casefold()
    matches = [row for row in rows if row.name.casefold() == wanted]
    if len(matches) == 1:
        return matches[0]
    if matches:
        raise NotFound(f"{len(matches)} characters are called {name!r}; name the claim too "
                       "(--claim CLAIM)")
    names = ", ".join(row.name for row in rows) or "none"
    raise NotFound(f"no character called {name!r}" + (f" in {claim}" if claim else "")
                   + f"; characters: {names} (see `maester characters`)")


def all_claims(session: Session, ctx: CampaignContext) -> Sequence[Claim]:
    return session.exec(
        select(Claim).where(Claim.campaign_id == ctx.campaign_id).order_by(col(Claim.id))
    ).all()


def army(session: Session, ctx: CampaignContext, army_id: int) -> Army | None:
    found = session.get(Army, army_id)
    if found is None or found.campaign_id != ctx.campaign_id or found.state == ArmyState.GONE:
        return None
    return found


def armies(session: Session, ctx: CampaignContext, *, claim_id: int | None = None,
           states: Collection[ArmyState] = ACTIVE_STATES) -> Sequence[Army]:
    query = select(Army).where(Army.campaign_id == ctx.campaign_id,
                               col(Army.state).in_(sorted(states)))
    if claim_id is not None:
        query = query.where(Army.claim_id == claim_id)
    return session.exec(query.order_by(col(Army.id))).all()


def relation(session: Session, ctx: CampaignContext, a: int, b: int) -> RelationStatus:
    """How two claims stand; unrecorded pairs are neutral."""
    if a == b:
        return RelationStatus.ALLIED
    lo, hi = min(a, b), max(a, b)
    row = session.exec(
        select(Relation).where(Relation.campaign_id == ctx.campaign_id,
                               Relation.claim_a == lo, Relation.claim_b == hi)
    ).first()
    return RelationStatus(row.status) if row else RelationStatus.NEUTRAL


def set_relation(session: Session, ctx: CampaignContext, a: int, b: int,
                 status: RelationStatus) -> RelationStatus:
    """Record how two claims stand; returns the previous status."""
    lo, hi = min(a, b), max(a, b)
    row = session.exec(
        select(Relation).where(Relation.campaign_id == ctx.campaign_id,
                               Relation.claim_a == lo, Relation.claim_b == hi)
    ).first()
    before = row.status if row else RelationStatus.NEUTRAL
    if row is None:
        row = Relation(campaign_id=ctx.campaign_id, claim_a=lo, claim_b=hi)
    row.status = status
    session.add(row)
    return before
