"""The game clock: ``catch_up(now)`` applies every due tick, in order, each exactly once.

Each tick runs in its own transaction that first locks the campaign row (``SELECT ... FOR
UPDATE`` on PostgreSQL; SQLite's ``BEGIN IMMEDIATE`` already serialises writers), re-reads the
last applied tick, and records the tick under a unique key: two processes, a crash mid-tick or
a repeated call can never apply a tick twice, and a rolled-back tick leaves nothing behind.
Monthly jobs (upkeep, scatter, regeneration, siege progress) run at every in-game month
boundary the tick passes, keyed by month. Arrivals and battles are rows with a due tick.

Within a tick: monthly jobs, then muster completions, then movement (with detection rolls and
encounters), then battles whose reaction window has closed. Dice are derived from the campaign
secret and the event, so a replay gives the same rolls.

The reporters (:data:`REPORTERS`) render the events into the journal's sink
(:class:`bot.services.journal.Sink`), which the tick writes; :func:`preview_tick` runs the
same tick in memory into a sink that only collects (``maester tick --preview``, the
moderators' room: :mod:`bot.services.preview`).
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from sqlalchemy import Engine, Table, insert
from sqlmodel import Session

from bot.db.engine import transaction
from bot.db.models import Campaign, MonthlyRun, TickRun
from bot.render import notes, posts
from bot.render.common import (
    force,
    income_sources,
    labels_for,
    money,
    place_label,
    side_name,
    troops_text,
)
from bot.render.notes import (
    detection_roll_text,
    encounter_note,
    holder_note,
    muster_note,
    sighting_note,
    upkeep_note,
)
from bot.render.posts import (
    arrival_post,
    battle_post,
    besiegers_gone,
    capacity_change_text,
    capacity_note,
    capacity_summary,
    fall_post,
    fate_summary,
    improvement_done_summary,
    improvement_note,
    scatter_post,
    secret_strength_note,
    siege_month_post,
)
from bot.services import absence, beacon, fairplay, forewarn, journal, pause, sidebar, snapshots
from bot.services.catalogue import catalogue_of, fate_settings
from bot.services.realm import Previewed, map_posts
from bot.services.sieges import end_siege
from bot.services.world import (
    CampaignContext,
    current,
)
from bot.storage.army_rows import TickArmies, load_armies
from bot.storage.battle_rows import insert_battles, load_battles, next_battle_id, save_battles
from bot.storage.world_rows import (
    load_characters,
    load_claims,
    load_holders,
    load_relations,
    load_sieges,
    next_siege_ids,
    save_world,
)
from rules.campaign import calendar, detection
from rules.campaign.battle import Winner
from rules.campaign.catalogue import Section
from rules.campaign.tick import (
    Arrival,
    BattleFought,
    BattleVoid,
    CapacityChanged,
    Detection,
    Encounter,
    HolderChanged,
    HoldfastFalls,
    ImprovementDone,
    MonthBegins,
    MonthEnds,
    MusterDone,
    OpponentDecides,
    Regenerated,
    Retreated,
    RetreatFailed,
    RetreatReferred,
    Scattered,
    SiegeEnded,
    SiegeMonth,
    Stopped,
    Tick,
    TickEvent,
    UpkeepPaid,
    advance,
)
from rules.campaign.upkeep import (
    Troops,
)
from rules.campaign.world import (
    ACTIVE_STATES,
    FREE_CHARACTERS,
    ArmyState,
    BattleStatus,
    ClaimState,
    EventDice,
    SiegeStatus,
    World,
    changed_claims,
)

TICK_RUNS: Table = TickRun.__table__  # type: ignore[attr-defined]
_TICK_RUN = insert(TICK_RUNS)
"""A tick's unique key (built once)."""


@dataclass(slots=True)
class TickReport:
    """What one applied tick did (for the CLI's progress and the demo)."""

    tick: int
    at: datetime
    months: list[int] = field(default_factory=list)
    events: list[str] = field(default_factory=list)


def catch_up(engine: Engine, ctx: CampaignContext, now: datetime, *,
             on_tick: Callable[[TickReport], None] | None = None,
             limit: int | None = None) -> list[TickReport]:
    """Apply every tick due at ``now`` after the last applied one; return what was applied.

    Idempotent: called again, or with an earlier ``now``, it does nothing. ``limit`` caps the
    number of ticks in this call (the rest are applied by the next call). While the campaign
    is paused nothing applies (:mod:`bot.services.pause`); each tick first keeps a snapshot
    of the world in its own transaction (:mod:`bot.services.snapshots`, for ``maester undo``);
    a long catch-up keeps its first and its newest ones (:func:`snapshots.before_tick`).
    """
    reports: list[TickReport] = []
    first_snapshot: int | None = None  # the catch-up's first: kept whatever follows
    fetcher = beacon.Fetcher(ctx.settings.dice) if beacon.enabled(ctx) else None
    while limit is None or len(reports) < limit:
        if fetcher is not None:  # the tick's beacon round, stored before the tick uses it
            beacon.prepare(engine, ctx, fetcher, now)
        with collector_paused(), transaction(engine) as session:
            ctx, campaign = current(session, ctx, lock=True)  # the clock as stored
            if pause.holds(campaign):  # paused: nothing applies
                break
            index = campaign.last_tick + 1
            if index > ctx.tick_of(now):
                break
            snapshot = snapshots.before_tick(session, ctx, index, now,
                                             catch_up_from=first_snapshot)
            try:
                report = apply_tick(session, ctx, campaign, index)
            except BaseException:
                snapshot.drop()
                raise
            stored = snapshot.store(session)
            first_snapshot = first_snapshot if first_snapshot is not None else stored.id
        reports.append(report)
        if on_tick is not None:
            on_tick(report)
        if index >= ctx.tick_of(now):
            break  # the last due tick: no need to lock the campaign again to find none due
    return reports


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector during one tick: a tick allocates thousands of
    short-lived values that hold no cycles, and the collector's full passes over them cost
    more than the tick's rules (memory is freed by reference counting as usual).

    What the tick leaves alive (the armies' values and rows kept for the next tick, see
    :class:`bot.storage.army_rows.TickArmies`) lives long: when the tick ends, every object
    the collector tracks is moved to its oldest generation at once (``gc.freeze`` then
    ``gc.unfreeze``), where the young collections do not look, instead of the first young
    collection after the tick going over them all (a few milliseconds at 5,000 armies). Cycles
    among them are still collected, by the next full collection."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.freeze()
            gc.unfreeze()
            gc.enable()


class CatchUpTooLong(RuntimeError):
    """Catching up to ``now`` would apply more days of ticks than the configured bound."""

    def __init__(self, pending: int, days: float, bound: int) -> None:
        self.pending, self.days, self.bound = pending, days, bound
        super().__init__(f"{pending} tick(s) ({days:.1f} days) are due, more than the "
                         f"{bound}-day bound (bot.max_catch_up_days)")


def check_catch_up_bound(session: Session, ctx: CampaignContext, now: datetime) -> int:
    """How many ticks are due at ``now``; raises CatchUpTooLong beyond the configured bound
    (a host clock jump or a mistyped ``--until`` would otherwise commit years of ticks)."""
    pending = pending_ticks(session, ctx, now)
    days = pending * ctx.rules.tick_hours / 24
    bound = ctx.settings.bot.max_catch_up_days
    if days > bound:
        raise CatchUpTooLong(pending, days, bound)
    return pending


def pending_ticks(session: Session, ctx: CampaignContext, now: datetime) -> int:
    """How many ticks are due and not applied yet (none while the campaign is paused)."""
    ctx, campaign = current(session, ctx)
    if pause.holds(campaign):
        return 0
    return max(0, ctx.tick_of(now) - campaign.last_tick)


def apply_tick(session: Session, ctx: CampaignContext, campaign: Campaign, index: int
               ) -> TickReport:
    """Apply tick ``index`` inside the caller's transaction (the campaign row is locked): load
    the world, :func:`rules.campaign.tick.advance` it, write the difference, report the events
    (:data:`REPORTERS`) into the journal's sink, which is then written."""
    # the unique key: a second application fails here and rolls back
    session.execute(_TICK_RUN, {"campaign_id": ctx.campaign_id, "tick": index})
    journal.start_buffering(session)
    at = ctx.tick_at(index)
    state = _TickState(session, ctx, campaign, index, at, TickReport(index, at))
    state.review()
    # One flush at the end: row changes go out as a few batched statements, however many
    # armies moved (the number of statements per tick must not grow with the armies).
    with session.no_autoflush:
        before = state.load()
        after, events = advance(before, state.rules_tick(), state.dice)
        state.write(before, after)
        state.report_all(events)
    journal.flush_buffer(session)
    _after_events(session, ctx, index, at, state.report.months)
    campaign.last_tick = index
    session.add(campaign)
    return state.report


def preview_tick(session: Session, ctx: CampaignContext, campaign: Campaign, index: int,
                 previous: Previewed | None) -> tuple[TickReport, Previewed]:
    """Tick ``index`` as :func:`apply_tick` would apply it after ``previous`` (None: the
    stored world), in memory: the same review, :func:`advance`, the same reporters and map
    posts, into the session's collecting sink (:func:`journal.start_collecting`). Nothing is
    written, locked or numbered by a sequence: a siege the tick begins gets the id its row
    would get (:func:`next_siege_ids`), a battle the rules' number."""
    at = ctx.tick_at(index)
    state = _TickState(session, ctx, campaign, index, at, TickReport(index, at),
                       claims=dict(previous.world.claims) if previous else None)
    state.review()
    before = state.load() if previous is None else _as_loaded(previous)
    after, events = advance(before, state.rules_tick(), state.dice)
    after = state.number(before, after)
    state.report_all(events)
    known = dict(previous.battles) if previous else {}
    for battle in (*before.battles, *after.battles,
                   *(b for e in events if (b := getattr(e, "battle", None)) is not None)):
        if battle.id is not None:
            known[battle.id] = battle
    done = Previewed(after, known)
    _after_events(session, ctx, index, at, state.report.months, done)
    return state.report, done


def _after_events(session: Session, ctx: CampaignContext, index: int, at: datetime,
                     months: Sequence[int], preview: Previewed | None = None) -> None:
    """What a tick queues after its events: the map posts (:func:`map_posts`) and the
    sidebar widget's clock (:func:`sidebar.queue_clock`), as applied or as previewed."""
    map_posts(session, ctx, tick=index, at=at, months=months, preview=preview)
    sidebar.queue_clock(session, ctx, tick=index, at=at)  # the sidebar widget, if on


def _as_loaded(previous: Previewed) -> World:
    """The world the next tick would load from what the previewed tick would have written:
    the raised armies, active sieges, pending and spared battles, free characters (each by
    id), and the next free battle number past every battle stored or previewed."""
    w = previous.world
    return replace(
        w, armies={i: a for i, a in sorted(w.armies.items()) if a.state in ACTIVE_STATES},
        claims=dict(sorted(w.claims.items())),
        sieges=tuple(sorted((s for s in w.sieges if s.status is SiegeStatus.ACTIVE),
                            key=lambda s: s.id)),
        battles=tuple(sorted((b for b in w.battles if b.status in (BattleStatus.PENDING,
                                                                   BattleStatus.SPARED)),
                             key=lambda b: b.id or 0)),
        characters={i: c for i, c in sorted(w.characters.items())
                    if c.status in FREE_CHARACTERS},
        next_battle_id=max([w.next_battle_id, *(i + 1 for i in previous.battles)]))


class _TickState:
    """One tick: its world loaded from the rows, written back, and its events reported."""

    def __init__(self, session: Session, ctx: CampaignContext, campaign: Campaign, index: int,
                 at: datetime, report: TickReport,
                 claims: dict[int, ClaimState] | None = None) -> None:
        self.session = session
        self.ctx = ctx
        self.campaign = campaign
        self.tick = index
        self.at = at
        self.report = report
        self.claims = load_claims(session, ctx.campaign_id) if claims is None else claims
        self._armies: TickArmies | None = None
        self._siege_ids: dict[int, int] = {}  # a new siege's stored id, by its rules' id
        self._battle_ids: dict[int, int] = {}  # a new battle's stored id, where not the rules'
        self._when: dict[datetime, str] = {}
        self._labels: dict[str, str] = {}
        self._intercept_closes: str | None = None
        self.held: frozenset[int] = frozenset()  # claims held (bot.services.absence.review)
        self.beacon = beacon.tick_beacon(session, ctx, index)
        self.dice = EventDice(ctx.secret, fairplay.period_of(ctx, index), self.beacon.value)
        # Keys queued by a tick are unique by construction (they name the tick or the army
        # and the tick applies once), so the outbox need not look each one up.
        session.info["outbox_keys_unique"] = True

    # helpers
    def when(self, moment: datetime) -> str:
        """:meth:`CampaignContext.when`, worked out once per moment in a tick (its notes name
        the same few moments hundreds of times)."""
        text = self._when.get(moment)
        if text is None:
            text = self._when[moment] = self.ctx.when(moment)
        return text

    def label(self, tile_id: str) -> str:
        """A tile as the tick's texts name it (:func:`place_label`; its id when it is off the
        map), worked out once per tile in a tick (a detection names two or three)."""
        text = self._labels.get(tile_id)
        if text is None:
            world = self.ctx.world
            text = self._labels[tile_id] = place_label(world.tile(tile_id)) \
                if tile_id in world else tile_id
        return text

    def intercept_closes(self) -> str:
        """When the chance to intercept a force sighted in this tick closes
        (:func:`detection.intercept_closes`), as the notes say it: the same for every sighting
        of the tick, so worked out once."""
        if self._intercept_closes is None:
            self._intercept_closes = self.when(self.ctx.tick_at(
                detection.intercept_closes(self.tick, self.ctx.rules)))
        return self._intercept_closes

    def claim_name(self, claim_id: int | None) -> str:
        claim = self.claims.get(claim_id) if claim_id is not None else None
        return claim.name if claim else "an unknown claim"

    def log(self, kind: str, summary: str, *, claim_id: int | None = None,
            public: bool = False, data: dict[str, Any] | None = None,
            rolls: Sequence[Any] = ()) -> None:
        journal.log_event(self.session, self.ctx.campaign_id, self.tick, kind, summary, at=self.at,
                          claim_id=claim_id, public=public, data=data, rolls=rolls)
        self.report.events.append(summary)

    def post(self, key: str, title: str, body: str, flair: str = "") -> None:
        body, footer = self.with_beacon(body)
        journal.queue(self.session, self.ctx.campaign_id, key, "post", title=title, body=body,
                      flair=flair, public=True, at=self.at, tick=self.tick,
                      target=self.ctx.settings.campaign.subreddit, footer=footer)

    def notify(self, claim_id: int, key: str, subject: str, body: str) -> None:
        body, footer = self.with_beacon(body)
        journal.notify_claim(self.session, self.ctx.campaign_id, claim_id, key, subject=subject,
                             body=body + footer, at=self.at, tick=self.tick)

    def with_beacon(self, body: str) -> tuple[str, str]:
        """A post or note with dice gains the tick's beacon line and the verifiable mark with
        its link (:func:`fairplay.dice_footer`); others are left as they are."""
        if "dice: v1" not in body:
            return body, ""
        return fairplay.with_beacon(body, self.beacon), fairplay.dice_footer(self.ctx)

    @property
    def armies(self) -> TickArmies:
        """The armies as read for this tick (one query, when first asked for)."""
        if self._armies is None:
            self._armies = load_armies(self.session, self.ctx.campaign_id)
        return self._armies

    def review(self) -> None:
        """The claims' absences (:func:`absence.review`): leaves ended, warnings, claims
        held; the held claims' marches stop in the tick."""
        reviewed = absence.review(self.session, self.ctx, self.tick,
                                  self.ctx.tick_at(self.tick - 1), self.at, self.campaign)
        self.report.events.extend(reviewed.events)
        self.held = reviewed.held

    # --- load, advance, write -----------------------------------------------------------
    def load(self) -> World:
        """The tick's world as the rules' values: the armies and claims (read when the tick
        began), the active sieges, the pending and spared battles, the wars, the resource tile
        holders and (after a flush: what the ORM changed counts) the free characters, one query
        each; the next free battle number."""
        cid = self.ctx.campaign_id
        if journal.writes(self.session):
            self.session.flush()
        wars, allies = load_relations(self.session, cid)  # allies join sides in battle
        return World(armies=self.armies.current(), claims=dict(self.claims),
                     sieges=load_sieges(self.session, cid),
                     battles=tuple(load_battles(self.session, cid, (BattleStatus.PENDING,
                                                                    BattleStatus.SPARED))),
                     wars=wars, allies=allies,
                     holders=load_holders(self.session, cid),
                     characters=load_characters(self.session, cid, FREE_CHARACTERS),
                     season=self.campaign.season, last_month=self.campaign.last_month,
                     next_battle_id=next_battle_id(self.session))

    def rules_tick(self) -> Tick:
        return Tick(self.tick, self.ctx.world, self.ctx.rules,
                    fates=fate_settings(self.ctx.settings, self.ctx.parses),
                    catalogue=catalogue_of(self.session, self.ctx), held=self.held)

    def write(self, before: World, after: World) -> None:
        """Write back what the tick changed: the armies (one or two statements, at the end of
        the tick), the claims, sieges (the new ones get their ids), characters and holders
        (:func:`save_world`), the battles it settled and those it began (under the numbers the
        rules gave them, :func:`insert_battles`)."""
        self.armies.take(before, after)
        self.armies.save(self.session)  # one statement, the armies that changed
        for c in changed_claims(before, after):
            self.claims[c.id] = c
        _, saved = save_world(self.session, self.ctx.campaign_id, before, after)
        self._siege_ids = saved.siege_ids
        if after.battles is before.battles:
            return
        old = {b.id: b for b in before.battles}
        save_battles(self.session, [b for b in after.battles
                                    if b.id in old and old[b.id] is not b])
        new = [b for b in after.battles if b.id not in old]
        stored = insert_battles(self.session, self.ctx.campaign_id, new)
        # (another campaign's battles may have taken the numbers since the world was read)
        self._battle_ids = {b.id: i for b, i in zip(new, stored, strict=True)
                           if b.id is not None and b.id != i}

    def number(self, before: World, after: World) -> World:
        """The preview's :meth:`write`: ``after`` with the ids the written rows would get (the
        new sieges'), nothing written; the claims as the tick left them."""
        for c in changed_claims(before, after):
            self.claims[c.id] = c
        new = [s for s in after.sieges if s.id <= 0 and s.id not in {x.id for x in
                                                                     before.sieges}]
        if not new:
            return after
        ids = next_siege_ids(self.session, len(new))
        self._siege_ids = {s.id: i for s, i in zip(new, ids, strict=True)}
        return replace(after, sieges=tuple(replace(s, id=self._siege_ids[s.id])
                                           if s.id in self._siege_ids else s
                                           for s in after.sieges))

    def report_all(self, events: Sequence[TickEvent]) -> None:
        """Journal the tick's events in order; queue their posts and notes (:data:`REPORTERS`:
        one reporter per kind of event)."""
        for event in events:
            battle = getattr(event, "battle", None)
            if battle is not None and battle.id in self._battle_ids:
                event = replace(event, battle=replace(battle, id=self._battle_ids[battle.id]))
            REPORTERS[type(event)](self, event)

    # --- monthly jobs -------------------------------------------------------------------
    def report_month_begins(self, event: MonthBegins) -> None:
        """The month's unique key: its jobs run once (a preview keeps no key)."""
        if not journal.writes(self.session):
            return
        self.session.add(MonthlyRun(campaign_id=self.ctx.campaign_id, month=event.month,
                                    tick=self.tick))
        self.session.flush()

    def report_month_ends(self, event: MonthEnds) -> None:
        """The dice period turns (:func:`fairplay.month_begins`); the month is done."""
        fairplay.month_begins(self.session, self.ctx, month=event.month, tick=self.tick,
                              at=self.at,
                              claims={c.id or 0: c.name for c in self.claims.values()})
        if journal.writes(self.session):
            self.campaign.last_month = event.month
        self.report.months.append(event.month)

    def report_improvement(self, event: ImprovementDone) -> None:
        """Journal an improvement the month finished; tell the claim privately."""
        claim, name = event.claim, event.name
        where = self.ctx.world.tile(event.holdfast).label
        self.log("improvement_done", improvement_done_summary(claim.name, name, where),
                 claim_id=claim.id, data={"name": name, "month": event.month})
        subject, body = improvement_note(
            name, where, event.entry.describe_effects() if event.entry else None)
        self.notify(claim.id, f"improvement:{claim.id}:{name}:{event.month}", subject, body)

    def report_capacity(self, event: CapacityChanged) -> None:
        """Journal the troops at home capacity effects changed; tell the claim privately."""
        claim, change = event.claim, capacity_change_text(event.infantry, event.cavalry)
        self.log("capacity", capacity_summary(claim.name, change), claim_id=claim.id,
                 data={"infantry": event.infantry, "cavalry": event.cavalry,
                       "capacity": list(event.capacity)})
        subject, body = capacity_note(change, ", ".join(labels_for(event.applied,
                                                                  event.modifiers)),
                                      claim.infantry, claim.cavalry)
        self.notify(claim.id, f"capacity:{claim.id}:{event.month}", subject, body)

    def report_upkeep(self, event: UpkeepPaid) -> None:
        """Tell the claim what its upkeep cost; warn it privately
        (:mod:`bot.services.forewarn`) of next month's shortfall, same troops and income."""
        claim, result, date, income = event.claim, event.result, event.date, event.income
        if result.cost or result.income:
            self.notify(claim.id, f"upkeep:{claim.id}:{date.year}:{date.month}",
                        *upkeep_note(str(date), result.cost, result.income,
                                     income_sources(income),
                                     troops_text(event.infantry, event.cavalry, event.ships),
                                     claim.gold))
        forewarn.upkeep_ahead(
            self.session, self.ctx, claim.id, season=self.campaign.season, after_paying=result,
            raised=Troops(event.infantry, event.cavalry, event.ships), month=date,
            income=income, at=self.at, tick=self.tick)

    def report_scatter(self, event: Scattered) -> None:
        """Journal and post a scatter; tell the claim privately what came home, what was lost."""
        claim, result, date = event.claim, event.result, event.date
        if claim.scattered_until is not None:  # set by every scatter
            forewarn.scattered(self.session, self.ctx, claim.id, result, date,
                               claim.scattered_until, at=self.at, tick=self.tick)
        home = troops_text(result.survivors.infantry, result.survivors.cavalry)
        summary = (f"{claim.name} cannot pay {money(result.cost)} gold of upkeep: its "
                   f"armies scatter; {home} return home")
        self.log("scatter", summary, claim_id=claim.id, public=True,
                 data={"cost": str(result.cost),
                       "survivors": [result.survivors.infantry, result.survivors.cavalry]})
        self.post(f"scatter:{claim.id}:{date.year}:{date.month}",
                  self.ctx.settings.posts.scatter_title.format(claim=claim.name),
                  scatter_post(claim.name, str(date)), self.ctx.settings.posts.scatter_flair)

    def report_regeneration(self, event: Regenerated) -> None:
        claim = event.claim
        self.log("regeneration",
                 f"{claim.name} regains {troops_text(event.infantry, event.cavalry)}",
                 claim_id=claim.id, data={"infantry": event.infantry, "cavalry": event.cavalry})

    # --- the phases ---------------------------------------------------------------------
    def report_held(self, event: Stopped) -> None:
        """A held claim's march the tick ended (journaled privately)."""
        a = event.army
        what = "its queued march dropped" if event.queued else f"stops at {self.label(event.tile)}"
        self.log("army_held", f"{force(a)} of {self.claim_name(a.claim_id)} (held) {what}",
                 claim_id=a.claim_id, data={"army": a.id, "tile": event.tile,
                                            "queued": event.queued})

    def report_muster(self, event: MusterDone) -> None:
        a = event.army
        self.log("muster_done", f"{force(a)} is ready at {self.label(a.tile)}",
                 claim_id=a.claim_id, data={"army": a.id})
        subject, body = muster_note(a, troops_text(a.infantry, a.cavalry, a.ships),
                                    self.label(a.tile), a.state)
        self.notify(a.claim_id, f"ready:{a.id}", subject, body)

    def report_siege_ended(self, event: SiegeEnded) -> None:
        siege = event.siege
        self.report.events.append(end_siege(
            self.session, self.ctx, siege,
            besiegers_gone(self.claim_name(siege.besieger_claim), event.fate), at=self.at,
            tick=self.tick))

    def report_battle_void(self, event: BattleVoid) -> None:
        """Journal a battle that does not happen; both claims are told."""
        void = event.battle
        self.log("battle_void", f"battle {void.id} does not happen: the "
                 "armies parted", data={"battle": void.id})
        for claim_id in sorted({void.attacker_claim, void.defender_claim} & set(self.claims)):
            self.notify(claim_id, f"battle:{void.id}:void", *notes.battle_void_note(
                battle=void.id, place=self.label(void.tile), kind=str(void.kind)))

    def report_holder(self, event: HolderChanged) -> None:
        """Record who holds a resource tile's benefit now; tell the new holder."""
        tile_id, holder, before = event.tile, event.holder, event.before
        tile = self.ctx.world.tile(tile_id)
        self.log("resource_holder", f"{tile.label}: benefit now with "
                 f"{self.claim_name(holder) if holder else 'nobody'}", claim_id=holder,
                 data={"tile": tile_id, "holder": holder, "before": before})
        if holder is not None:
            entry = catalogue_of(self.session, self.ctx).find(Section.RESOURCES,
                                                              tile.resource_benefit) \
                if tile.resource_benefit else None  # the benefit as the catalogue shows it
            subject, body = holder_note(tile.label, entry.shown_as if entry is not None
                                        else tile.resource_benefit or "its benefit")
            self.notify(holder, f"resource:{tile_id}:{self.tick}", subject, body)

    def stored_fall(self, event: HoldfastFalls) -> HoldfastFalls:
        """The fall with its siege stored: a holdfast taken by assault with no siege before it
        has a new siege (a negative id in the rules' world), stored here as fallen."""
        siege = event.siege
        if siege.id > 0:
            return event
        return replace(event, siege=replace(siege, id=self._siege_ids[siege.id]))

    def report_fall_stored(self, event: HoldfastFalls) -> None:
        self.report_fall(self.stored_fall(event))

    def report_siege_month(self, event: SiegeMonth) -> None:
        siege, month = event.siege, event.month
        label = self.label(siege.holdfast)
        date = calendar.game_date(self.at, self.ctx.rules)
        self.log("siege_month", f"siege of {label}: month {siege.months_elapsed}"
                 + posts.siege_paused(siege.paused),
                 claim_id=siege.besieger_claim, public=True,
                 data={"siege": siege.id, "months": siege.months_elapsed})
        self.post(f"siege:{siege.id}:month:{month}",
                  self.ctx.settings.posts.siege_title.format(event="Siege goes on",
                                                             holdfast=label),
                  siege_month_post(date=str(date), holdfast=label,
                                   besieger=self.claim_name(siege.besieger_claim),
                                   months=siege.months_elapsed, paused=siege.paused),
                  self.ctx.settings.posts.siege_flair)
        self.notify(siege.besieger_claim, f"siege:{siege.id}:left:{month}",
                    *notes.siege_left_note(label, event.months_left))

    def report_fall(self, event: HoldfastFalls) -> None:
        siege, holdfast = event.siege, self.label(event.siege.holdfast)
        besieger = self.claim_name(siege.besieger_claim)
        self.log("holdfast_falls", f"{holdfast} falls to {besieger} ({event.how})",
                 claim_id=siege.besieger_claim, public=True,
                 data={"siege": siege.id, "captured": [event.infantry, event.cavalry]})
        self.post(f"siege:{siege.id}:fallen",
                  self.ctx.settings.posts.siege_title.format(event="Holdfast falls",
                                                             holdfast=holdfast),
                  fall_post(holdfast=holdfast, besieger=besieger, how=event.how,
                            held=siege.defender_claim in self.claims,
                            garrison=self.ctx.world.tile(siege.holdfast).garrison > 0),
                  self.ctx.settings.posts.siege_flair)
        self.report_change_of_hands(event, holdfast, besieger)

    def report_change_of_hands(self, event: HoldfastFalls, holdfast: str, besieger: str) -> None:
        """A fallen holdfast changes hands: the loser is told what was captured (and that it has
        no seat, with a referral to the moderators, when it was its seat); the conqueror is
        told it holds it, with its secret defences (now its own to see)."""
        siege = event.siege
        bonus = self.ctx.world.tile(siege.holdfast).defense_bonus
        self.notify(siege.besieger_claim, f"siege:{siege.id}:won", *notes.holdfast_won_note(
            holdfast=holdfast, bonus="" if bonus == 1 else str(bonus)))
        if siege.defender_claim not in self.claims:  # nobody held it
            return
        loser = self.claim_name(siege.defender_claim)
        self.notify(siege.defender_claim, f"siege:{siege.id}:lost", *notes.holdfast_lost_note(
            holdfast=holdfast, conqueror=besieger, infantry=event.infantry,
            cavalry=event.cavalry, seat=event.seat_lost))
        if event.seat_lost:
            self.log("referral", f"{loser} has no seat: {holdfast} fell to {besieger}",
                     claim_id=siege.defender_claim, data={"siege": siege.id})
            subject, body = notes.seat_lost_referral(claim=loser, holdfast=holdfast,
                                                     conqueror=besieger)
            journal.notify_moderators(self.session, self.ctx.campaign_id,
                                      f"referral:seat:{siege.id}", subject=subject, body=body,
                                      at=self.at, tick=self.tick)

    def report_detection(self, event: Detection) -> None:
        a, result, tile_id, watcher = event.army, event.result, event.observer, event.watcher
        changed_by = labels_for(result.applied, event.watching) if result.applied else ()
        watch_place = self.label(tile_id)
        self.log("detection", f"{watch_place} rolls to detect {force(a)}: "
                 + ("detected" if result.detected else "not detected"),
                 claim_id=watcher,
                 data={"army": a.id, "observer": tile_id, "detected": result.detected,
                       "at": a.tile,  # where it was seen (the claim's map view)
                       "target": result.target, "roll": result.roll,
                       "bonus": result.bonus, "modifiers": list(changed_by),
                       fairplay.DICE_KEY: event.dice_line},
                 rolls=event.rolls)
        if not result.detected:
            return
        roll = detection_roll_text(result.automatic, result.roll, result.bonus, result.total,
                                   result.target, changed_by)
        until = self.intercept_closes()
        subject, body = sighting_note(
            watch_place=watch_place, claim=self.claim_name(a.claim_id),
            place=self.label(a.tile), when=self.when(self.at),
            troops=troops_text(a.infantry, a.cavalry, a.ships), roll=roll, guard=event.guard,
            army_id=a.id, until=until, kind=a.kind)
        self.notify(watcher, f"detect:{a.id}:{self.tick}:{tile_id}", subject, body)

    def report_encounter(self, event: Encounter) -> None:
        a, other, b = event.attacker, event.defender, event.battle
        when = self.when(self.ctx.tick_at(b.resolve_tick))
        self.log("encounter", f"{force(a)} meets enemy {force(other)} at {self.label(a.tile)}",
                 claim_id=a.claim_id, data={"attacker": a.id, "defender": other.id,
                                            "reactor": b.reactor_claim})
        for claim_id, own, enemy in ((a.claim_id, a, other), (other.claim_id, other, a)):
            subject, body = encounter_note(
                own=own.id, enemy=enemy.id, enemy_claim=self.claim_name(enemy.claim_id),
                place=self.label(a.tile), when=when, first_reaction=claim_id == b.reactor_claim,
                kind=own.kind, nobody=b.reactor_claim is None)
            self.notify(claim_id, f"encounter:{self.tick}:{a.id}:{other.id}", subject, body)
        for lead, enemy, allies in ((a, other, event.allies[0]), (other, a, event.allies[1])):
            for ally in allies:  # an ally's army on the tile is drawn into the battle too
                subject, body = notes.ally_encounter_note(
                    own=ally.id, lead=lead.id, lead_claim=self.claim_name(lead.claim_id),
                    enemy=enemy.id, enemy_claim=self.claim_name(enemy.claim_id),
                    place=self.label(a.tile), when=when, kind=ally.kind)
                self.notify(ally.claim_id, f"encounter:{self.tick}:{a.id}:{other.id}:{ally.id}",
                            subject, body)

    def report_arrival(self, event: Arrival) -> None:
        a = event.army
        what = "returns to" if event.returned else "arrives at"
        self.log("arrival", f"{force(a)} of {self.claim_name(a.claim_id)} {what} "
                 f"{self.label(a.tile)}", claim_id=a.claim_id, public=True,
                 data={"army": a.id, "tile": a.tile})
        self.post(f"arrival:{a.id}:{self.tick}",
                  self.ctx.settings.posts.arrival_title.format(
                      claim=self.claim_name(a.claim_id), tile=self.label(a.tile)),
                  arrival_post(self.claim_name(a.claim_id), self.label(a.tile),
                               self.when(self.at), returned=event.returned, kind=a.kind),
                  self.ctx.settings.posts.arrival_flair)

    # --- battles ------------------------------------------------------------------------
    def report_retreat(self, event: RetreatReferred | RetreatFailed | Retreated) -> None:
        battle, runner = event.battle, event.runner
        place = self.label(battle.tile)
        if isinstance(event, RetreatReferred):
            self.log("referral", f"{force(runner)} has no way to retreat from "
                     f"{place}: referred to the moderators",
                     claim_id=runner.claim_id, data={"battle": battle.id, "army": runner.id})
            subject, body = notes.retreat_referred_in_battle(
                claim=self.claim_name(runner.claim_id), kind=runner.kind, army=runner.id,
                place=place)
            journal.notify_moderators(
                self.session, self.ctx.campaign_id, f"referral:retreat:{battle.id}",
                subject=subject, body=body, at=self.at, tick=self.tick)
            return
        result, line = event.result, event.dice_line
        if isinstance(event, RetreatFailed):
            self.log("retreat_failed", f"{force(runner)} fails to retreat (d20 {result.roll})",
                     claim_id=runner.claim_id, public=True,
                     data={"battle": battle.id, fairplay.DICE_KEY: line}, rolls=event.rolls)
            return
        lost = result.lost
        self.log("retreat", f"{force(runner)} retreats from {place} (d20 "
                 f"{result.roll}, keeps {result.fraction * 100:.0f}%)", claim_id=runner.claim_id,
                 public=True, data={"battle": battle.id, "lost": [lost.infantry, lost.cavalry],
                                    fairplay.DICE_KEY: line},
                 rolls=event.rolls)
        self.post(f"battle:{battle.id}:retreat",
                  *posts.retreat_post(claim=self.claim_name(runner.claim_id), place=place,
                                      kind=runner.kind, roll=result.roll, dice=line),
                  self.ctx.settings.posts.battle_flair)

    def report_opponent_decides(self, event: OpponentDecides) -> None:
        """After a failed retreat the runner's opponent chooses, within a new reaction window,
        to fight (the runner at -1) or to let it stay; without an answer the battle is fought."""
        battle, runner, opponent = event.battle, event.runner, event.opponent
        when = self.when(self.ctx.tick_at(battle.resolve_tick))
        place = self.label(battle.tile)
        self.notify(opponent.claim_id, f"battle:{battle.id}:failed-retreat",
                    *notes.opponent_decides_note(
                        runner=runner, runner_claim=self.claim_name(runner.claim_id),
                        own=opponent, place=place, until=when))
        self.notify(runner.claim_id, f"battle:{battle.id}:retreat-failed",
                    *notes.retreat_failed_note(
                        runner=runner, opponent_claim=self.claim_name(opponent.claim_id),
                        place=place, until=when))

    def report_battle(self, event: BattleFought) -> None:
        """Journal a fought battle and queue its post; an army whose strength counted a secret
        modifier is told it in full, the fate-table rolls the rules made are journaled and
        printed in the post (or the post says who must roll); an assault's defenses and dice go
        to the claimant alone."""
        battle, result, dice_line = event.battle, event.result, event.dice_line
        hidden_defender, garrison_claim = event.hidden_defender, event.garrison_claim
        # every claim of a side is named: an ally's army fought too (docs/rules.md, sides)
        sides = [[self.claim_name(c) for c in event.side_claims(which)]
                 for which in (Winner.ATTACKER, Winner.DEFENDER)]
        att_name, dfd_name = side_name(sides[0]), side_name(sides[1])
        won = sides[0] if result.winner is Winner.ATTACKER else sides[1]
        winner_name = f"{side_name(won)} {'wins' if len(won) == 1 else 'win'}"
        secret = hidden_defender or result.attacker.strength.has_hidden \
            or result.defender.strength.has_hidden
        # The strengths counted, for audits (never when they would reveal a secret bonus).
        strengths = {} if secret else {"strengths": [str(result.attacker.strength.value),
                                                     str(result.defender.strength.value)]}
        self.log("battle", f"{att_name} vs {dfd_name} at {self.label(battle.tile)}: "
                 f"{winner_name}",
                 claim_id=battle.attacker_claim, public=True,
                 data={"battle": battle.id, "kind": battle.kind, "winner": result.winner.value,
                       "band": result.band, "margin": result.margin,
                       # a side of several claims: the realm's map and post name them all
                       **({"sides": [list(event.side_claims(Winner.ATTACKER)),
                                     list(event.side_claims(Winner.DEFENDER))]}
                          if any(len(side) > 1 for side in sides) else {}),
                       **strengths, **({} if hidden_defender or not dice_line
                                       else {fairplay.DICE_KEY: dice_line})},
                 rolls=result.rolls)
        if hidden_defender and dice_line and garrison_claim is not None:
            self.log("assault_dice", f"the dice of the assault on {self.label(battle.tile)}",
                     claim_id=garrison_claim, data={"battle": battle.id,
                                                    fairplay.DICE_KEY: dice_line})
        title = self.ctx.settings.posts.battle_title.format(
            attacker=att_name, defender=dfd_name, tile=self.label(battle.tile))
        for which, army in event.secret_strengths():
            subject, note = secret_strength_note(battle.id, army,
                                                 result.side(which).strength)
            self.notify(army.claim_id, f"battle:{battle.id}:secret:{which}", subject, note)
        for fate in event.fates or ():  # journaled, not in the tick's report
            journal.log_event(self.session, self.ctx.campaign_id, self.tick, "character_fate",
                              fate_summary(fate.character, fate.roll), at=self.at,
                              claim_id=fate.claim_id, public=True,
                              data={"battle": battle.id, "character": fate.character,
                                    "table": fate.roll.table, "roll": fate.roll.roll,
                                    "outcome": fate.roll.outcome, "dies": fate.dies,
                                    fairplay.DICE_KEY: fate.dice_line},
                              rolls=fate.rolls)
        fate_lines = [fate.dice_line for fate in event.fates or ()]
        settled = None if event.fates is None else \
            {(fate.side.value, fate.character): fate.roll for fate in event.fates}
        body = battle_post(result, attacker=att_name, defender=dfd_name,
                           place=self.label(battle.tile), when=self.when(self.at),
                           kind=battle.kind, hide_defender=hidden_defender, settled=settled,
                           claims=(len(sides[0]), len(sides[1])),
                           public=event.public, dice=dice_line,
                           fate_dice=fate_lines)  # fate rolls are public
        self.post(f"battle:{battle.id}", title, body, self.ctx.settings.posts.battle_flair)
        if hidden_defender and garrison_claim is not None:
            self.notify(garrison_claim, f"battle:{battle.id}:defenses",
                        *notes.defenses_note(self.label(battle.tile), result.defender.strength,
                                             dice_line))
        if garrison_claim is not None and not (battle.kind == "assault"
                                               and result.winner is Winner.ATTACKER):
            # the garrison's troops at home fought too (a fallen holdfast has its own note)
            which = Winner.ATTACKER if event.attacker is None else Winner.DEFENDER
            side = result.side(which)
            self.notify(garrison_claim, f"battle:{battle.id}:garrison",
                        *notes.garrison_after_battle_note(
                            battle=battle.id, kind=battle.kind, place=self.label(battle.tile),
                            won=result.winner is which, captured=side.captured,
                            lost=troops_text(side.losses.infantry, side.losses.cavalry)))
        beaten_side = result.winner.other
        beaten = {a.id for a in (event.attacker if beaten_side is Winner.ATTACKER
                                 else event.defender,
                                 *event.joined_on(beaten_side)) if a is not None}
        for fought in (event.attacker, event.defender, *event.joined):  # each claim hears of
            if fought is None:  # its own armies (captured, gone, or what is left)
                continue
            back = fought.state is ArmyState.RETREATING and bool(fought.march.path)
            self.notify(fought.claim_id, f"battle:{battle.id}:army:{fought.id}",
                        *notes.army_after_battle_note(
                            battle=battle.id, kind=fought.kind, army=fought.id,
                            place=self.label(battle.tile), state=fought.state.value,
                            troops=troops_text(fought.infantry, fought.cavalry, fought.ships),
                            fate=str(fought.meta.get("fate") or ""),
                            back_to=self.label(fought.march.path[-1]) if back else "",
                            arriving=self.when(self.ctx.tick_at(fought.arrival_tick))
                            if back and fought.arrival_tick is not None else "",
                            beaten=fought.id in beaten))


_Reporter = Callable[[_TickState, Any], None]

REPORTERS: Mapping[type, _Reporter] = {
    MonthBegins: _TickState.report_month_begins,
    ImprovementDone: _TickState.report_improvement,
    CapacityChanged: _TickState.report_capacity,
    UpkeepPaid: _TickState.report_upkeep,
    Scattered: _TickState.report_scatter,
    Regenerated: _TickState.report_regeneration,
    MonthEnds: _TickState.report_month_ends,
    Stopped: _TickState.report_held,
    MusterDone: _TickState.report_muster,
    Detection: _TickState.report_detection,
    Encounter: _TickState.report_encounter,
    Arrival: _TickState.report_arrival,
    SiegeEnded: _TickState.report_siege_ended,
    SiegeMonth: _TickState.report_siege_month,
    HoldfastFalls: _TickState.report_fall_stored,
    BattleVoid: _TickState.report_battle_void,
    RetreatReferred: _TickState.report_retreat,
    RetreatFailed: _TickState.report_retreat,
    Retreated: _TickState.report_retreat,
    OpponentDecides: _TickState.report_opponent_decides,
    BattleFought: _TickState.report_battle,
    HolderChanged: _TickState.report_holder,
}
"""The one table of the tick's reporters: each kind of event the rules report
(:data:`rules.campaign.tick.TickEvent`), and the method that journals it and queues its posts
and notes."""


def advancer(engine: Engine, ctx: CampaignContext) -> Callable[[datetime], int]:
    """The game clock as the intake takes it: ``advance_to(moment)`` applies every tick due
    at ``moment`` and returns how many it applied (:func:`catch_up`, no progress)."""

    def advance_to(moment: datetime) -> int:
        return len(catch_up(engine, ctx, moment))

    return advance_to
