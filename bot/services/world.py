"""The campaign as the services see it: settings, rules numbers, the map, and state queries.

A :class:`CampaignContext` is built once per process (the map is parsed once and cached by
its text) and passed to every service call together with an open session.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy.orm import QueryableAttribute, defer
from sqlmodel import Session, col, select

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


@functools.lru_cache(maxsize=8)
def parsed_map(text: str) -> WorldMap:
    """The map of ``text``, parsed once per process (the same object for the same text)."""
    return parse_map(text)


@dataclass(slots=True)
class CampaignContext:
    """Everything a service needs to know about the campaign besides its rows."""

    campaign_id: int
    settings: Settings
    rules: RulesConfig
    world: WorldMap
    secret: str
    moderators: frozenset[str] = field(default_factory=frozenset)

    def shift(self, offset: int) -> None:
        """Follow the campaign's stored clock offset, the ticks of its holidays (``maester
        pause`` then ``resume``): ``rules`` carries it, so the rules' ticks and in-game
        calendar and the services' are one clock (:mod:`rules.campaign.calendar`)."""
        if offset != self.rules.tick_offset:
            self.rules = dataclasses.replace(self.rules, tick_offset=offset)

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


def load_context(session: Session, settings: Settings, campaign_id: int | None = None
                 ) -> CampaignContext:
    """The context of the (only, or given) campaign in the database."""
    query = select(Campaign)
    if campaign_id is not None:
        query = query.where(Campaign.id == campaign_id)
    campaign = session.exec(query.order_by(col(Campaign.id))).first()
    if campaign is None or campaign.id is None:
        raise LookupError("no campaign in this database: run `maester init` first")
    ctx = CampaignContext(
        campaign_id=campaign.id,
        settings=settings,
        rules=settings.rules_config(),
        world=parsed_map(campaign.map_text),
        secret=campaign.secret,
        moderators=frozenset(settings.campaign.moderators),
    )
    ctx.shift(campaign.tick_offset or 0)
    return ctx


_MAP_TEXT: QueryableAttribute[str] = Campaign.map_text  # type: ignore[assignment]
"""The campaign's map text as a mapped attribute (to defer its loading)."""


def get_campaign(session: Session, ctx: CampaignContext, *, lock: bool = False) -> Campaign:
    """The campaign row; ``lock`` takes a row lock (PostgreSQL) for the tick transaction and
    leaves the map's text unread until something asks for it (the map is parsed once per
    process, :func:`parsed_map`; a tick never reads the text).

    ``ctx`` follows the row's clock offset (another process may have resumed the campaign
    after a holiday since ``ctx`` was loaded), so the ticks counted in this transaction are
    the world's as stored."""
    query = select(Campaign).where(Campaign.id == ctx.campaign_id)
    if lock:
        query = query.with_for_update().options(defer(_MAP_TEXT))
    campaign = session.exec(query).one()
    ctx.shift(campaign.tick_offset or 0)
    return campaign


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
