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
from bot.render.common import force, income_sources, labels_for, money, place_label, troops_text
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
from bot.services import fairplay, forewarn, journal, pause, snapshots
from bot.services.catalogue import (  # the modifiers in force
    ModifierBook,
    drop_tick_book,
    fate_settings,
    tick_book,
)
from bot.services.realm import map_posts
from bot.services.sieges import end_siege
from bot.services.world import (
    CampaignContext,
    get_campaign,
)
from bot.storage.army_rows import load_armies
from bot.storage.battle_rows import insert_battles, load_battles, save_battles
from bot.storage.world_rows import (
    holder_states,
    load_characters,
    load_claims,
    load_relations,
    load_sieges,
    save_world,
)
from rules.campaign import calendar, detection
from rules.campaign.battle import Winner
from rules.campaign.config import Season
from rules.campaign.modifiers import Modifier
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
    MusterDone,
    OpponentDecides,
    Regenerated,
    Retreated,
    RetreatFailed,
    RetreatReferred,
    Scattered,
    SiegeEnded,
    SiegeMonth,
    Tick,
    TickEvent,
    UpkeepPaid,
    advance,
    advance_improvements,
    advance_regeneration,
    advance_upkeep,
)
from rules.campaign.upkeep import (
    Troops,
)
from rules.campaign.world import (
    FREE_CHARACTERS,
    Army,
    BattleState,
    BattleStatus,
    CharacterState,
    EventDice,
    HolderState,
    World,
    changed_claims,
)
from rules.campaign.world import SiegeState as SiegeValue

TICK_RUNS: Table = TickRun.__table__  # type: ignore[attr-defined]


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
    of the world in its own transaction (:mod:`bot.services.snapshots`, for ``maester undo``).
    """
    reports: list[TickReport] = []
    while limit is None or len(reports) < limit:
        with _collector_paused(), transaction(engine) as session:
            campaign = get_campaign(session, ctx, lock=True)
            if pause.holds(campaign):  # paused: nothing applies
                break
            index = campaign.last_tick + 1
            if index > ctx.tick_of(now):
                break
            snapshot = snapshots.before_tick(session, ctx, index, now)
            try:
                report = apply_tick(session, ctx, campaign, index)
            except BaseException:
                if snapshot is not None:
                    snapshot.drop()
                raise
            if snapshot is not None:
                snapshot.store(session)
        reports.append(report)
        if on_tick is not None:
            on_tick(report)
        if index >= ctx.tick_of(now):
            break  # the last due tick: no need to lock the campaign again to find none due
    return reports


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector during one tick: a tick allocates thousands of
    short-lived values that hold no cycles, and the collector's full passes over them cost
    more than the tick's rules (memory is freed by reference counting as usual)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
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
    campaign = get_campaign(session, ctx)
    if pause.holds(campaign):
        return 0
    return max(0, ctx.tick_of(now) - campaign.last_tick)


def apply_tick(session: Session, ctx: CampaignContext, campaign: Campaign, index: int
               ) -> TickReport:
    """Apply tick ``index`` inside the caller's transaction (the campaign row is locked)."""
    # the unique key: a second application fails here and rolls back
    session.execute(insert(TICK_RUNS).values(campaign_id=ctx.campaign_id, tick=index))
    journal.start_buffering(session)
    at = ctx.tick_at(index)
    report = TickReport(index, at)
    state = _TickState(session, ctx, campaign, index, at, report)
    previous = ctx.tick_at(index - 1)
    for boundary in calendar.month_boundaries(previous, at, ctx.rules):
        month = calendar.month_number_of(boundary.date, ctx.rules)
        if month > campaign.last_month:
            state.run_month(month, boundary.date)
    # One flush at the end: row changes go out as a few batched statements, however many
    # armies moved (the number of statements per tick must not grow with the armies).
    with session.no_autoflush:
        state.advance()
    state.armies.save(session)  # one statement, the armies that changed
    drop_tick_book(session)  # the tick's armies are freed as the tick ends, not by the collector
    journal.flush_buffer(session)
    map_posts(session, ctx, tick=index, at=at, months=report.months)  # map posts
    campaign.last_tick = index
    session.add(campaign)
    return report


class _TickState:
    """One tick's work over the rows it loaded."""

    def __init__(self, session: Session, ctx: CampaignContext, campaign: Campaign, index: int,
                 at: datetime, report: TickReport) -> None:
        self.session = session
        self.ctx = ctx
        self.campaign = campaign
        self.tick = index
        self.at = at
        self.report = report
        self.claims = load_claims(session, ctx.campaign_id)
        self.armies = load_armies(session, ctx.campaign_id)  # as the rules' values
        self.wars = self.frozen_wars = load_relations(session, ctx.campaign_id)[0]
        self._book: ModifierBook | None = None
        self._siege_ids: dict[int, int] = {}  # a new siege's stored id, by its rules' id
        self._when: dict[datetime, str] = {}
        self.dice = EventDice(ctx.secret, fairplay.period_of(ctx, index))
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
        if tile_id not in self.ctx.world:
            return tile_id
        tile = self.ctx.world.tile(tile_id)
        return place_label(tile)

    def claim_name(self, claim_id: int | None) -> str:
        claim = self.claims.get(claim_id) if claim_id is not None else None
        return claim.name if claim else "an unknown claim"

    def at_war(self, a: int, b: int) -> bool:
        return (min(a, b), max(a, b)) in self.wars

    def log(self, kind: str, summary: str, *, claim_id: int | None = None,
            public: bool = False, data: dict[str, Any] | None = None,
            rolls: Sequence[Any] = ()) -> None:
        journal.log_event(self.session, self.ctx.campaign_id, self.tick, kind, summary, at=self.at,
                          claim_id=claim_id, public=public, data=data, rolls=rolls)
        self.report.events.append(summary)

    def post(self, key: str, title: str, body: str, flair: str = "") -> None:
        journal.queue(self.session, self.ctx.campaign_id, key, "post", title=title, body=body,
                      flair=flair, public=True, at=self.at, tick=self.tick,
                      target=self.ctx.settings.campaign.subreddit)

    def notify(self, claim_id: int, key: str, subject: str, body: str) -> None:
        journal.notify_claim(self.session, self.ctx.campaign_id, claim_id, key, subject=subject,
                             body=body, at=self.at, tick=self.tick)

    def book(self) -> ModifierBook:
        """The modifiers in force this tick, loaded once per tick (the rules ask for them
        thousands of times)."""
        if self._book is None:
            self._book = tick_book(self.session, self.ctx, armies=self.armies.values(),
                                   claims=self.claims.values(), tick=self.tick)
            self._book.wars = self.frozen_wars  # a hostile newcomer takes no benefit
            # the claims as the tick changes them (an improvement finished counts at once)
            self._book.claims = self.claims
        return self._book

    # --- resource tiles -----------------------------------------------------------------
    def report_holder(self, event: HolderChanged, after: World) -> None:
        """Record who holds a resource tile's benefit now; tell the new holder."""
        tile_id, holder, before = event.tile, event.holder, event.before
        self.book().holders[tile_id] = after.holders[tile_id]  # stored by between()
        tile = self.ctx.world.tile(tile_id)
        self.log("resource_holder", f"{tile.label}: benefit now with "
                 f"{self.claim_name(holder) if holder else 'nobody'}", claim_id=holder,
                 data={"tile": tile_id, "holder": holder, "before": before})
        if holder is not None:
            subject, body = holder_note(tile.label, tile.resource_benefit or "its benefit")
            self.notify(holder, f"resource:{tile_id}:{self.tick}", subject, body)

    # --- the phases after the monthly jobs ----------------------------------------------
    def advance(self) -> None:
        """Musters, movement, battles, meetings, sieges and resource holders: decided by
        :func:`rules.campaign.tick.advance`, the services taking each phase's changes into
        the rows and rendering its events in between (:meth:`between`)."""
        book = self.book()
        battles = load_battles(self.session, self.ctx.campaign_id,
                               (BattleStatus.PENDING, BattleStatus.SPARED))
        world = self.world(battles, characters=True, holders=holder_states(
            book.holders.values()))
        advance(world, self.rules_tick(), self.dice, between=self.between)

    def between(self, before: World, after: World, events: Sequence[TickEvent]) -> World:
        """After each phase: take its changes into the army records, write back what it
        changed in the claims, sieges, characters and holders (:func:`save_world`: the sieges
        it began get their ids), store the battles it began and write back those it settled,
        render its events."""
        self.take(before, after)
        after = self.save_world(before, after)
        after = self.store_battles(before, after)
        self.report_moves(events, after)
        return after

    def save_world(self, before: World, after: World) -> World:
        """Write back what the rules changed in the claims, sieges, characters and resource
        tile holders (bulk Core statements, :func:`bot.storage.world_rows.save_world`);
        ``after`` with the new sieges' stored ids."""
        after, saved = save_world(self.session, self.ctx.campaign_id, before, after)
        self._siege_ids.update(saved.siege_ids)
        if self._book is not None and after.characters is not before.characters:
            self._book.characters = after.characters  # the skills with each army from now on
        return after

    def store_battles(self, before: World, after: World) -> World:
        """Write back the battles a phase changed; store those it began (they get their ids):
        one Core statement each (:mod:`bot.storage.battle_rows`)."""
        if after.battles is before.battles:
            return after
        old = {b.id: b for b in before.battles if b.id is not None}
        save_battles(self.session, [b for b in after.battles
                                    if b.id is not None and old.get(b.id) is not b])
        new = [i for i, b in enumerate(after.battles) if b.id is None]
        if not new:
            return after
        ids = insert_battles(self.session, self.ctx.campaign_id,
                             [after.battles[i] for i in new])
        battles = list(after.battles)
        for i, battle_id in zip(new, ids, strict=True):
            battles[i] = replace(battles[i], id=battle_id)
        return replace(after, battles=tuple(battles))

    # --- monthly jobs -------------------------------------------------------------------
    def run_month(self, month: int, date: calendar.GameDate) -> None:
        """The jobs of in-game month ``month``, claim by claim (:mod:`rules.campaign.tick`):
        improvements and capacity, then upkeep and regeneration; what they changed in the
        claims written back once (:func:`bot.storage.world_rows.save_world`)."""
        self.session.add(MonthlyRun(campaign_id=self.ctx.campaign_id, month=month, tick=self.tick))
        self.session.flush()
        tick = self.rules_tick()
        world = start = self.world(sieges=False)
        for claim_id in list(self.claims):
            book = self.book()  # the claim's modifiers, with the armies as they are now
            before = world
            world, done = advance_improvements(
                world, claim_id, month, catalogue=book.catalogue,
                modifiers=book.claim_besides_improvements(self.claims[claim_id]))
            self.take(before, world)
            self.report_improvements(done)
            before = world
            # gold income, its improvements finished just now counted
            income = book.claim(self.claims[claim_id])
            world, events = advance_upkeep(world, claim_id, date, tick, income=income)
            world, more = advance_regeneration(world, claim_id, date, tick)
            self.take(before, world)
            self.report_month(events + more, income, world.season)
        save_world(self.session, self.ctx.campaign_id, start, world)
        fairplay.month_begins(self.session, self.ctx, month=month, tick=self.tick, at=self.at,
                              claims={c.id or 0: c.name for c in self.claims.values()})
        self.campaign.last_month = month
        self.report.months.append(month)

    def report_improvements(self, events: Sequence[TickEvent]) -> None:
        """Journal the improvements a month finished and the troops at home capacity effects
        changed; tell the claim privately."""
        for event in events:
            if isinstance(event, ImprovementDone):
                claim, name = event.claim, event.name
                where = self.ctx.world.tile(event.holdfast).label
                self.log("improvement_done", improvement_done_summary(claim.name, name, where),
                         claim_id=claim.id, data={"name": name, "month": event.month})
                subject, body = improvement_note(
                    name, where, event.entry.describe_effects() if event.entry else None)
                self.notify(claim.id, f"improvement:{claim.id}:{name}:{event.month}", subject,
                            body)
            elif isinstance(event, CapacityChanged):
                claim, change = event.claim, capacity_change_text(event.infantry, event.cavalry)
                self.log("capacity", capacity_summary(claim.name, change), claim_id=claim.id,
                         data={"infantry": event.infantry, "cavalry": event.cavalry,
                               "capacity": list(event.capacity)})
                subject, body = capacity_note(change, ", ".join(labels_for(event.applied,
                                                                          event.modifiers)),
                                              claim.infantry, claim.cavalry)
                self.notify(claim.id, f"capacity:{claim.id}:{event.month}", subject, body)

    def report_month(self, events: Sequence[TickEvent], income: Sequence[Modifier],
                     season: Season) -> None:
        """Journal the month's upkeep and regeneration events; warn privately
        (:mod:`bot.services.forewarn`) from the same event values: next month's shortfall after
        a paid upkeep, what came home and what was lost after a scatter."""
        for event in events:
            if isinstance(event, UpkeepPaid):
                claim = event.claim
                result, date = event.result, event.date
                if result.cost or result.income:
                    self.notify(claim.id, f"upkeep:{claim.id}:{date.year}:{date.month}",
                                *upkeep_note(
                                    str(date), result.cost, result.income,
                                    income_sources(income),
                                    troops_text(event.infantry, event.cavalry, event.ships),
                                    claim.gold))
                forewarn.upkeep_ahead(  # private: next month's upkeep, same troops and income
                    self.session, self.ctx, claim.id, season=season, after_paying=result,
                    raised=Troops(event.infantry, event.cavalry, event.ships), month=date,
                    income=income, at=self.at, tick=self.tick)
            elif isinstance(event, Scattered):
                claim, result, date = event.claim, event.result, event.date
                if claim.scattered_until is not None:  # set by every scatter
                    forewarn.scattered(self.session, self.ctx, claim.id, result, date,
                                       claim.scattered_until, at=self.at, tick=self.tick)
                home = troops_text(result.survivors.infantry, result.survivors.cavalry)
                summary = (f"{claim.name} cannot pay {money(result.cost)} gold of upkeep: its "
                           f"armies scatter; {home} return home")
                self.log("scatter", summary, claim_id=claim.id, public=True,
                         data={"cost": str(result.cost),
                               "survivors": [result.survivors.infantry,
                                             result.survivors.cavalry]})
                self.post(f"scatter:{claim.id}:{date.year}:{date.month}",
                          self.ctx.settings.posts.scatter_title.format(claim=claim.name),
                          scatter_post(claim.name, str(date)),
                          self.ctx.settings.posts.scatter_flair)
            elif isinstance(event, Regenerated):
                claim = event.claim
                self.log("regeneration",
                         f"{claim.name} regains {troops_text(event.infantry, event.cavalry)}",
                         claim_id=claim.id,
                         data={"infantry": event.infantry, "cavalry": event.cavalry})

    def _end_siege(self, siege: SiegeValue, reason: str) -> None:
        self.report.events.append(end_siege(self.session, self.ctx, siege, reason, at=self.at,
                                            tick=self.tick))

    # --- the phases rules.campaign.tick decides ---------------------------------------
    def world(self, battles: Sequence[BattleState] = (), *, characters: bool = False,
              sieges: bool = True, holders: Mapping[str, HolderState] | None = None
              ) -> World:
        """The tick's world as the rules' values, with what the phase needs: the tick's armies,
        claims, (``sieges``: one query) the active sieges, ``battles``, (``characters``: one
        query) the free characters, ``holders``."""
        return World(armies=self.armies.current(),
                     claims=dict(self.claims),
                     sieges=self.sieges() if sieges else (), battles=tuple(battles),
                     wars=self.frozen_wars, holders=holders or {},
                     characters=self.characters() if characters else {},
                     season=self.campaign.season, last_month=self.campaign.last_month)

    def sieges(self) -> tuple[SiegeValue, ...]:
        """The active sieges, one query."""
        return load_sieges(self.session, self.ctx.campaign_id)

    def characters(self) -> dict[int, CharacterState]:
        """The free characters, one query (after a flush: what the ORM changed counts)."""
        self.session.flush()
        return load_characters(self.session, self.ctx.campaign_id, FREE_CHARACTERS)

    def rules_tick(self) -> Tick:
        return Tick(self.tick, self.ctx.world, self.ctx.rules, _BookModifiers(self),
                    fate_settings(self.ctx.settings))

    def take(self, before: World, after: World) -> None:
        """Take what the rules changed into the tick's armies (written back at the end of the
        tick) and claims (written back by :meth:`save_world` and at the end of
        :meth:`run_month`)."""
        self.armies.take(before, after)
        if after.claims is not before.claims:
            for c in changed_claims(before, after):
                self.claims[c.id] = c

    def report_moves(self, events: Sequence[TickEvent], after: World) -> None:
        """Journal a phase's events; queue their posts and notes (``after``: the world after
        the phase)."""
        for event in events:
            if isinstance(event, MusterDone):
                a = event.army
                self.log("muster_done", f"{force(a)} is ready at {self.label(a.tile)}",
                         claim_id=a.claim_id, data={"army": a.id})
                subject, body = muster_note(a, troops_text(a.infantry, a.cavalry, a.ships),
                                            self.label(a.tile), a.state)
                self.notify(a.claim_id, f"ready:{a.id}", subject, body)
            elif isinstance(event, Detection):
                self.report_detection(event)
            elif isinstance(event, Encounter):
                self.report_encounter(event)
            elif isinstance(event, Arrival):
                self.report_arrival(event)
            elif isinstance(event, SiegeEnded):
                self._end_siege(event.siege,
                                besiegers_gone(self.claim_name(event.siege.besieger_claim),
                                               event.fate))
            elif isinstance(event, SiegeMonth):
                self.report_siege_month(event)
            elif isinstance(event, HoldfastFalls):
                self.report_fall(self.stored_fall(event))
            elif isinstance(event, BattleVoid):
                self.log("battle_void", f"battle {event.battle.id} does not happen: the "
                         "armies parted", data={"battle": event.battle.id})
            elif isinstance(event, RetreatReferred | RetreatFailed | Retreated):
                self.report_retreat(event)
            elif isinstance(event, OpponentDecides):
                self.report_opponent_decides(event)
            elif isinstance(event, BattleFought):
                self.report_battle(event)
            elif isinstance(event, HolderChanged):
                self.report_holder(event, after)
            else:
                raise TypeError(f"no report for {event!r}")

    def stored_fall(self, event: HoldfastFalls) -> HoldfastFalls:
        """The fall with its siege stored: a holdfast taken by assault with no siege before it
        has a new siege (a negative id in the rules' world), stored here as fallen."""
        siege = event.siege
        if siege.id > 0:
            return event
        return replace(event, siege=replace(siege, id=self._siege_ids[siege.id]))

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
                  fall_post(holdfast=holdfast, besieger=besieger, how=event.how),
                  self.ctx.settings.posts.siege_flair)

    def report_detection(self, event: Detection) -> None:
        a, result, tile_id, watcher = event.army, event.result, event.observer, event.watcher
        changed_by = labels_for(result.applied, event.watching)
        self.log("detection", f"{self.label(tile_id)} rolls to detect {force(a)}: "
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
        until = self.when(self.ctx.tick_at(detection.intercept_closes(self.tick, self.ctx.rules)))
        subject, body = sighting_note(
            watch_place=self.label(tile_id), claim=self.claim_name(a.claim_id),
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
                kind=own.kind)
            self.notify(claim_id, f"encounter:{self.tick}:{a.id}:{other.id}", subject, body)

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
        att_name = self.claim_name(battle.attacker_claim)
        dfd_name = self.claim_name(battle.defender_claim)
        winner_name = att_name if result.winner is Winner.ATTACKER else dfd_name
        secret = hidden_defender or result.attacker.strength.has_hidden \
            or result.defender.strength.has_hidden
        # The strengths counted, for audits (never when they would reveal a secret bonus).
        strengths = {} if secret else {"strengths": [str(result.attacker.strength.value),
                                                     str(result.defender.strength.value)]}
        self.log("battle", f"{att_name} vs {dfd_name} at {self.label(battle.tile)}: "
                 f"{winner_name} wins",
                 claim_id=battle.attacker_claim, public=True,
                 data={"battle": battle.id, "kind": battle.kind, "winner": result.winner.value,
                       "band": result.band, "margin": result.margin,
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
                           public=event.public, dice=dice_line,
                           fate_dice=fate_lines)  # fate rolls are public
        self.post(f"battle:{battle.id}", title, body, self.ctx.settings.posts.battle_flair)
        if hidden_defender and garrison_claim is not None:
            self.notify(garrison_claim, f"battle:{battle.id}:defenses",
                        *notes.defenses_note(self.label(battle.tile), result.defender.strength,
                                             dice_line))


class _BookModifiers:
    """The modifiers in force for the rules' moves: the tick's :class:`ModifierBook`. An army's
    own modifiers are read from the value the rules hand over (as it is at that moment); who
    holds a resource tile and who watches from a tile are read from the tick's records, which
    take the rules' changes after each phase: within the movement phase an observer's
    modifiers are those of the armies as the phase began (an army arriving on its claim's
    watched resource tile counts from the next tick)."""

    def __init__(self, state: _TickState) -> None:
        self.state = state

    def march(self, army: Army) -> tuple[Modifier, ...]:
        return self.state.book().army(army)

    def observer(self, claim_id: int, tile: str) -> tuple[Modifier, ...]:
        return self.state.book().observer(claim_id, tile)

    def battle(self, army: Army, *, assault: bool,
               characters: Sequence[CharacterState] | None = None) -> tuple[Modifier, ...]:
        return self.state.book().army(army, equipment=assault, characters=characters)

    def holdfast(self, claim_id: int, *,
                 characters: Sequence[CharacterState] | None = None) -> tuple[Modifier, ...]:
        claim = self.state.claims.get(claim_id)
        return () if claim is None else self.state.book().holdfast(claim,
                                                                   characters=characters)
