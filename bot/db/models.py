"""The campaign world as SQLModel tables.

Times that game logic reads are stored by the application (never database-side ``now()``):
ticks as integer indexes (see :mod:`rules.campaign.calendar`), instants as aware UTC text.
Money is exact (:class:`~bot.db.types.ExactDecimal`).
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from enum import StrEnum
from typing import Any

from sqlalchemy import JSON, BigInteger, Column, Index, LargeBinary, UniqueConstraint
from sqlmodel import Field, SQLModel

from bot.db.types import ExactDecimal, StoredEnum, UTCDateTime
from rules.campaign.config import Season
from rules.campaign.world import (
    ArmyKind,
    ArmyState,
    BattleKind,
    BattleStatus,
    CharacterStatus,
    Reaction,
    RelationStatus,
    SiegeStatus,
)

__all__ = ["ArmyKind", "ArmyState", "BattleKind", "BattleStatus", "CharacterStatus", "Reaction",
           "RelationStatus", "Season", "SiegeStatus"]

# Every constraint gets a predictable name on every backend (PostgreSQL would invent its own,
# SQLite keeps none), so a later migration can drop or alter it, in SQLite batch mode too.
# Must be set before the tables below are defined.
SQLModel.metadata.naming_convention = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
}


def _json(default: Any = None) -> Any:
    return Field(default_factory=lambda: default() if callable(default) else default,
                 sa_column=Column(JSON, nullable=False))


def _money(default: str = "0") -> Any:
    return Field(default=Decimal(default), sa_column=Column(ExactDecimal(), nullable=False))


def _when(nullable: bool = True) -> Any:
    return Field(default=None, sa_column=Column(UTCDateTime(), nullable=nullable))


def _enum(enum: type[StrEnum], default: StrEnum | None, length: int = 16) -> Any:
    """A lifecycle column: stores the enum's value, reads back the member (the default applies
    to Core inserts too)."""
    return Field(default=default, sa_column=Column(StoredEnum(enum, length),
                                                   nullable=default is None, default=default))


class Campaign(SQLModel, table=True):
    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(max_length=120)
    subreddit: str = Field(default="", max_length=80)
    secret: str = Field(max_length=128)
    season: Season = _enum(Season, Season.SUMMER)
    last_tick: int = Field(default=0)  # index of the last applied tick
    last_month: int = Field(default=0)  # index of the last applied in-game month
    map_text: str = Field(default="")
    catalogue_json: dict[str, Any] = _json(dict)
    created_at: datetime | None = _when()
    # The campaign clock's holidays (see bot.services.pause): while ``paused_at`` is set no
    # tick applies; ``tick_offset`` is how many ticks every holiday so far moved the world's
    # clock behind the wall clock (None: none).
    paused_at: datetime | None = _when()
    pause_note: str | None = Field(default=None, max_length=300)
    pause_until: datetime | None = _when()  # what the players are told; resuming is by hand
    tick_offset: int | None = None


class Claim(SQLModel, table=True):
    __table_args__ = (UniqueConstraint("campaign_id", "name"),)
    id: int | None = Field(default=None, primary_key=True)
    campaign_id: int = Field(foreign_key="campaign.id", index=True)
    name: str = Field(max_length=80)
    holdfast: str = Field(max_length=8)  # tile id
    gold: Decimal = _money()
    infantry: int = 0  # at home (scattered ones included)
    cavalry: int = 0
    ships: int = 0
    scattered_until: datetime | None = _when()  # scattered troops are locked until then
    scattered_infantry: int = 0  # of the troops at home, how many are locked
    scattered_cavalry: int = 0
    slain_json: list[Any] = _json(list)  # regeneration ledger
    improvements_json: list[Any] = _json(list)  # built and in-progress improvements
    # The claim's life over the campaign (bot.services.absence); all nullable, so snapshots
    # taken before these columns existed restore with None.
    active_at: datetime | None = _when()  # its players' last message (None: since creation)
    away_until: datetime | None = _when()  # on leave until then
    away_reason: str | None = Field(default=None, max_length=200)
    hold: str | None = Field(default=None, max_length=12)  # see rules.campaign.absence.Hold
    retired_at: datetime | None = _when()  # retired by the moderators (held forces stay)


class Player(SQLModel, table=True):
    # one row per claim a user plays; several claims only when [claims] players_may_play_several
    __table_args__ = (UniqueConstraint("campaign_id", "claim_id", "reddit_name"),)
    id: int | None = Field(default=None, primary_key=True)
    campaign_id: int = Field(foreign_key="campaign.id", index=True)
    claim_id: int = Field(foreign_key="claim.id", index=True)
    reddit_name: str = Field(max_length=40)  # stored lower-case


class Army(SQLModel, table=True):
    __table_args__ = (Index("ix_army_campaign_state", "campaign_id", "state"),)
    id: int | None = Field(default=None, primary_key=True)
    campaign_id: int = Field(foreign_key="campaign.id")
    claim_id: int = Field(foreign_key="claim.id", index=True)
    kind: ArmyKind = _enum(ArmyKind, ArmyKind.LAND, 8)
    state: ArmyState = _enum(ArmyState, ArmyState.MUSTERING)
    tile: str = Field(max_length=8)
    infantry: int = 0
    cavalry: int = 0
    ships: int = 0
    accepted_at: datetime | None = _when()
    ready_tick: int | None = None  # muster completes at this tick
    depart_tick: int | None = None  # march starts at this tick
    path_json: list[Any] = _json(list)  # tile ids still to enter
    costs_json: list[Any] = _json(list)  # their travel costs
    travelled_json: list[Any] = _json(list)  # tile ids left behind, for retreats
    saved: str = Field(default="0", max_length=40)  # unspent movement budget (a fraction)
    arrival_tick: int | None = None
    stationary_since: int | None = None  # tick it stopped moving (defender bonus)
    retreat_penalty: bool = False
    commander_id: int | None = None
    equipment_json: list[Any] = _json(list)
    meta_json: dict[str, Any] = _json(dict)  # detection bookkeeping of the current march


class Character(SQLModel, table=True):
    id: int | None = Field(default=None, primary_key=True)
    campaign_id: int = Field(foreign_key="campaign.id", index=True)
    claim_id: int = Field(foreign_key="claim.id", index=True)
    name: str = Field(max_length=120)
    skills_json: list[Any] = _json(list)
    army_id: int | None = None
    status: CharacterStatus = _enum(CharacterStatus, CharacterStatus.ALIVE)


class Relation(SQLModel, table=True):
    __table_args__ = (UniqueConstraint("campaign_id", "claim_a", "claim_b"),)
    id: int | None = Field(default=None, primary_key=True)
    campaign_id: int = Field(foreign_key="campaign.id")
    claim_a: int  # the lower claim id
    claim_b: int
    status: RelationStatus = _enum(RelationStatus, RelationStatus.NEUTRAL, 8)


class Siege(SQLModel, table=True):
    id: int | None = Field(default=None, primary_key=True)
    campaign_id: int = Field(foreign_key="campaign.id", index=True)
    army_id: int = Field(foreign_key="army.id")
    besieger_claim: int
    defender_claim: int
    holdfast: str = Field(max_length=8)
    started_tick: int
    months_elapsed: int = 0
    months_required: int = 12
    paused: bool = False
    status: SiegeStatus = _enum(SiegeStatus, SiegeStatus.ACTIVE)


class PendingBattle(SQLModel, table=True):
    id: int | None = Field(default=None, primary_key=True)
    campaign_id: int = Field(foreign_key="campaign.id", index=True)
    tile: str = Field(max_length=8)
    kind: BattleKind = _enum(BattleKind, BattleKind.FIELD, 12)
    attacker_army: int
    defender_army: int  # 0: the holdfast's garrison
    defender_claim: int
    attacker_claim: int
    created_tick: int
    resolve_tick: int  # the reaction window closes at this tick
    reactor_claim: int | None = None  # the side that detected first and may retreat
    reaction: Reaction | None = _enum(Reaction, None, 12)
    holdfast: str = Field(default="", max_length=8)  # for assaults and sallies
    status: BattleStatus = _enum(BattleStatus, BattleStatus.PENDING, 12)


class ResourceHolder(SQLModel, table=True):
    __table_args__ = (UniqueConstraint("campaign_id", "tile"),)
    id: int | None = Field(default=None, primary_key=True)
    campaign_id: int = Field(foreign_key="campaign.id")
    tile: str = Field(max_length=8)
    claim_id: int | None = None
    ceded_to: int | None = None


class Event(SQLModel, table=True):
    """Append-only log of every change, with the dice that caused it."""

    __table_args__ = (Index("ix_event_campaign_tick", "campaign_id", "tick"),
                      Index("ix_event_campaign_kind", "campaign_id", "kind"))
    id: int | None = Field(default=None, primary_key=True)
    campaign_id: int = Field(foreign_key="campaign.id")
    tick: int
    kind: str = Field(max_length=32)
    claim_id: int | None = Field(default=None, index=True)
    public: bool = False
    actor: str = Field(default="maester", max_length=60)
    summary: str = Field(default="")
    data_json: dict[str, Any] = _json(dict)
    dice_json: list[Any] = _json(list)
    at: datetime | None = _when()


class InboxMessage(SQLModel, table=True):
    """A modmail message (or comment) already processed: its id is the exactly-once key."""

    __table_args__ = (UniqueConstraint("campaign_id", "message_id"),)
    id: int | None = Field(default=None, primary_key=True)
    campaign_id: int = Field(foreign_key="campaign.id")
    message_id: str = Field(max_length=40)
    conversation_id: str = Field(default="", max_length=40)
    author: str = Field(default="", max_length=40)
    outcome: str = Field(default="", max_length=32)
    processed_at: datetime | None = _when()


class ConversationCursor(SQLModel, table=True):
    """The last ``lastUpdated`` seen for a modmail conversation (skips unchanged ones)."""

    __table_args__ = (UniqueConstraint("campaign_id", "conversation_id"),)
    id: int | None = Field(default=None, primary_key=True)
    campaign_id: int = Field(foreign_key="campaign.id")
    conversation_id: str = Field(max_length=40)
    last_updated: str = Field(default="", max_length=40)


class BotState(SQLModel, table=True):
    """The Reddit side's own small state, by name: the cached access token, a delivery
    halt, refused credentials, each claim's dispatch conversation (see
    :mod:`bot.reddit.state`). ``value`` is JSON text."""

    __table_args__ = (UniqueConstraint("campaign_id", "name"),)
    id: int | None = Field(default=None, primary_key=True)
    campaign_id: int = Field(foreign_key="campaign.id")
    name: str = Field(max_length=80)
    value: str = Field(default="")
    updated_at: datetime | None = _when()


class OutboxStatus(StrEnum):
    PENDING = "pending"
    DELIVERED = "delivered"
    DEAD = "dead"


class Outbox(SQLModel, table=True):
    """A post, reply or private message to deliver exactly once (``key`` is unique)."""

    __table_args__ = (
        UniqueConstraint("campaign_id", "key"),
        Index("ix_outbox_status", "campaign_id", "status", "id"),
    )
    id: int | None = Field(default=None, primary_key=True)
    campaign_id: int = Field(foreign_key="campaign.id")
    key: str = Field(max_length=120)
    kind: str = Field(max_length=12)  # post, reply, message
    public: bool = False
    target: str = Field(default="", max_length=80)  # conversation id, user name or subreddit
    claim_id: int | None = None
    title: str = Field(default="", max_length=300)
    body: str = Field(default="")
    flair: str = Field(default="", max_length=64)
    tick: int = 0  # the game tick the entry belongs to (late posts say so)
    status: OutboxStatus = _enum(OutboxStatus, OutboxStatus.PENDING, 12)
    attempts: int = 0
    claimed_by: str | None = Field(default=None, max_length=64)
    claimed_until: datetime | None = _when()
    not_before: datetime | None = _when()
    reddit_id: str | None = Field(default=None, max_length=40)
    last_error: str = Field(default="")
    created_at: datetime | None = _when()
    delivered_at: datetime | None = _when()


class PostImage(SQLModel, table=True):
    """A picture for the outbox entry with the same ``key`` (a map image), stored in the
    transaction that queued the entry so the post and its picture come together."""

    __table_args__ = (UniqueConstraint("campaign_id", "key"),)
    id: int | None = Field(default=None, primary_key=True)
    campaign_id: int = Field(foreign_key="campaign.id")
    key: str = Field(max_length=120)
    name: str = Field(default="map.png", max_length=80)
    caption: str = Field(default="", max_length=180)
    data: bytes = Field(default=b"", sa_column=Column(LargeBinary(), nullable=False))
    # what to draw (a public situation and drawing options) until ``data`` is rendered from
    # it, at delivery: a long catch-up queues cheap snapshots, not pictures
    scene_json: dict[str, Any] = _json(dict)
    created_at: datetime | None = _when()


class Lease(SQLModel, table=True):
    """Who is the active bot process for a campaign (SQLite: the row is the lock; PostgreSQL:
    an advisory lock decides, the row informs). ``generation`` grows by one at every
    acquisition: a holder's writes are fenced by the generation it took."""

    name: str = Field(primary_key=True, max_length=64)
    holder: str = Field(max_length=120)
    expires_at: datetime | None = _when()
    generation: int = Field(default=0, sa_column_kwargs={"server_default": "0"})


class Snapshot(SQLModel, table=True):
    """The campaign's world just before a tick or a moderator's command changed it (see
    :mod:`bot.services.snapshots`): the rows of every world table, as compressed JSON, and
    the last event, outbox entry and inbox message that existed then."""

    __table_args__ = (Index("ix_snapshot_campaign", "campaign_id", "id"),)
    id: int | None = Field(default=None, primary_key=True)
    campaign_id: int = Field(foreign_key="campaign.id")
    kind: str = Field(max_length=12)  # tick, command
    label: str = Field(default="", max_length=200)  # "tick 82345", "adjust House Stark"
    actor: str = Field(default="maester", max_length=60)
    tick: int  # the campaign's last applied tick when it was taken
    taken_at: datetime | None = _when()
    event_mark: int = 0  # the newest Event id then (every campaign's)
    outbox_mark: int = 0
    inbox_mark: int = 0
    data: bytes = Field(default=b"", sa_column=Column(LargeBinary(), nullable=False))


class MonthlyRun(SQLModel, table=True):
    """A monthly job applied once: keyed by (campaign, month index)."""

    __table_args__ = (UniqueConstraint("campaign_id", "month"),)
    id: int | None = Field(default=None, primary_key=True)
    campaign_id: int = Field(foreign_key="campaign.id")
    month: int
    tick: int


class TickRun(SQLModel, table=True):
    """A tick applied once: keyed by (campaign, tick index)."""

    __table_args__ = (UniqueConstraint("campaign_id", "tick"),)
    id: int | None = Field(default=None, primary_key=True)
    campaign_id: int = Field(foreign_key="campaign.id")
    tick: int


class BeaconRound(SQLModel, table=True):
    """The public beacon round a tick's dice are bound to, fetched and checked before the tick
    (:mod:`bot.services.beacon`), kept so that a replayed tick rolls the same dice: keyed by
    (campaign, tick). ``signature`` empty: the round could not be had in time (``reason``
    says why) and the tick's dice come from commit-reveal alone."""

    __table_args__ = (UniqueConstraint("campaign_id", "tick"),)
    id: int | None = Field(default=None, primary_key=True)
    campaign_id: int = Field(foreign_key="campaign.id")
    tick: int
    chain: str = Field(max_length=64)
    round: int
    signature: str = Field(default="", max_length=96)  # hex; "" when unavailable
    reason: str = Field(default="", max_length=300)
    fetched_at: datetime = _when(nullable=False)


class ProposalStatus(StrEnum):
    PENDING = "pending"
    APPROVED = "approved"
    REFUSED = "refused"


class Proposal(SQLModel, table=True):
    """A moderator's action waiting for a second moderator (:mod:`bot.services.proposals`):
    what it would do, who proposed it and why it waits; it changes nothing until approved.
    Not part of the world (snapshots leave it alone): taking the world back keeps the record
    of what was proposed, approved and refused."""

    __table_args__ = (Index("ix_proposal_campaign_status", "campaign_id", "status", "id"),)
    id: int | None = Field(default=None, primary_key=True)
    campaign_id: int = Field(foreign_key="campaign.id")
    action: str = Field(max_length=32)  # one of bot.config.APPROVABLE
    args_json: dict[str, Any] = _json(dict)  # what the action needs to run
    summary: str = Field(default="", max_length=300)  # the action in words
    proposer: str = Field(max_length=60)
    why: str = Field(default="", max_length=300)  # why it waits: the config, or involvement
    involved: str = Field(default="", max_length=300)  # the proposer's involvement, if any
    tick: int  # the campaign's last applied tick when proposed
    fingerprint: str = Field(default="", max_length=64)  # its targets' state then
    status: ProposalStatus = _enum(ProposalStatus, ProposalStatus.PENDING, 12)
    decided_by: str = Field(default="", max_length=60)
    decision: str = Field(default="", max_length=300)  # the refusal's reason, or the outcome
    created_at: datetime | None = _when()
    decided_at: datetime | None = _when()


class DataVersion(SQLModel, table=True):
    """One row (``id`` 1): how many transactions have written to this database. Every writing
    transaction adds one as it commits (:func:`bot.db.engine.make_engine` counts them), in the
    same transaction as its writes, so a reader that sees the same number in its snapshot
    sees the same data: the moderators' room keeps its preview of the next tick while the
    number stays (bot/web/app.py). Not part of the world: snapshots leave it alone and an
    undo, being a write, moves it on."""

    id: int | None = Field(default=None, primary_key=True)
    n: int = Field(default=0, sa_column=Column(BigInteger(), nullable=False, server_default="0"))
