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
from fractions import Fraction
from typing import Any

from sqlalchemy import Engine
from sqlmodel import Session, col, select

from bot.db.engine import transaction
from bot.db.models import (
    Campaign,
    Character,
    Claim,
    MonthlyRun,
    ResourceHolder,
    Siege,
    TickRun,
)
from bot.services import fairplay, forewarn, journal, pause, snapshots
from bot.services.army_rows import ArmyRecord, load_armies
from bot.services.battle_rows import insert_battles, load_battles, save_battles
from bot.services.catalogue import (  # the modifiers in force
    ModifierBook,
    after_battle,
    drop_tick_book,
    income_sources,
    labels_for,
    month_for_claim,
    tick_book,
)
from bot.services.realm import map_posts
from bot.services.render import (
    arrival_post,
    battle_post,
    besiegers_gone,
    detection_roll_text,
    encounter_note,
    fall_post,
    force,
    holder_note,
    money,
    muster_note,
    scatter_post,
    siege_month_post,
    sighting_note,
    troops_text,
    upkeep_note,
)
from bot.services.sieges import end_siege
from bot.services.world import (
    CampaignContext,
    all_claims,
    get_campaign,
    war_pairs,
)
from bot.text import name_md
from rules.campaign import calendar
from rules.campaign.advance import (
    Arrival,
    BattleFought,
    BattleVoid,
    Detection,
    Encounter,
    HolderChanged,
    HoldfastFalls,
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
    advance_regeneration,
    advance_upkeep,
    changed_claims,
)
from rules.campaign.battle import Winner
from rules.campaign.config import Season, Terrain
from rules.campaign.modifiers import Modifier
from rules.campaign.naming import host
from rules.campaign.state import (
    BattleState,
    CharacterState,
    ClaimState,
    EventDice,
    HolderState,
    World,
)
from rules.campaign.state import SiegeState as SiegeValue
from rules.campaign.upkeep import (
    SlainLedger,
    SlainLoss,
    Troops,
)
from rules.campaign.world import (
    FREE_CHARACTERS,
    Army,
    BattleStatus,
    SiegeStatus,
)


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
            if pause.holds(ctx, campaign):  # paused: nothing applies (ctx follows the clock)
                break
            index = campaign.last_tick + 1
            if index > ctx.tick_of(now):
                break
            snapshots.before_tick(session, ctx, index, now)
            report = apply_tick(session, ctx, campaign, index)
        reports.append(report)
        if on_tick is not None:
            on_tick(report)
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
    if pause.holds(ctx, campaign):
        return 0
    return max(0, ctx.tick_of(now) - campaign.last_tick)


def apply_tick(session: Session, ctx: CampaignContext, campaign: Campaign, index: int
               ) -> TickReport:
    """Apply tick ``index`` inside the caller's transaction (the campaign row is locked)."""
    session.add(TickRun(campaign_id=ctx.campaign_id, tick=index))
    session.flush()  # the unique key: a second application fails here and rolls back
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


# --- ledger (de)serialisation ------------------------------------------------------------

def ledger_from_json(data: Sequence[Any]) -> SlainLedger:
    losses = []
    last = None
    for item in data:
        if "last_accrued" in item:
            y, m = item["last_accrued"]
            last = calendar.GameDate(y, m)
            continue
        losses.append(SlainLoss(
            calendar.GameDate(*item["month"]), item["infantry"], item["cavalry"],
            item["returned_infantry"], item["returned_cavalry"],
            Fraction(item["carry_infantry"]), Fraction(item["carry_cavalry"])))
    return SlainLedger(tuple(losses), last)


def ledger_to_json(ledger: SlainLedger) -> list[Any]:
    out: list[Any] = [
        {"month": [loss.month.year, loss.month.month], "infantry": loss.infantry,
         "cavalry": loss.cavalry, "returned_infantry": loss.returned_infantry,
         "returned_cavalry": loss.returned_cavalry, "carry_infantry": str(loss.carry_infantry),
         "carry_cavalry": str(loss.carry_cavalry)}
        for loss in ledger.losses
    ]
    if ledger.last_accrued is not None:
        out.append({"last_accrued": [ledger.last_accrued.year, ledger.last_accrued.month]})
    return out


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
        self.claims = {c.id: c for c in all_claims(session, ctx)}
        self.armies = load_armies(session, ctx.campaign_id)  # as the rules' values
        self.wars = war_pairs(session, ctx)
        self.frozen_wars = frozenset(self.wars)
        self._book: ModifierBook | None = None
        self._siege_rows: dict[int, Siege] = {}
        self._character_rows: dict[int, Character] = {}
        self.dice = EventDice(ctx.secret, fairplay.period_of(ctx, index))
        # Keys queued by a tick are unique by construction (they name the tick or the army
        # and the tick applies once), so the outbox need not look each one up.
        session.info["outbox_keys_unique"] = True

    # helpers
    def label(self, tile_id: str) -> str:
        if tile_id not in self.ctx.world:
            return tile_id
        tile = self.ctx.world.tile(tile_id)
        if not tile.name and tile.terrain is Terrain.WATER:
            return f"the sea at {tile.id}"
        return tile.label

    def claim_name(self, claim_id: int | None) -> str:
        claim = self.claims.get(claim_id)
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

    def save(self, *rows: Any) -> None:
        """Keep changed rows; an army's record goes back to the tick's armies, written back
        at the end of the tick (:meth:`~bot.services.army_rows.TickArmies.save`)."""
        for row in rows:
            if isinstance(row, ArmyRecord):
                self.armies.changed(row)
            else:
                self.session.add(row)

    def book(self) -> ModifierBook:
        """The modifiers in force this tick, loaded once per tick (the rules ask for them
        thousands of times)."""
        if self._book is None:
            self._book = tick_book(self.session, self.ctx, armies=self.armies.values(),
                                   claims=self.claims.values(), tick=self.tick)
            self._book.wars = self.frozen_wars  # a hostile newcomer takes no benefit
        return self._book

    # --- resource tiles -----------------------------------------------------------------
    def report_holder(self, event: HolderChanged, after: World) -> None:
        """Record who holds a resource tile's benefit now; tell the new holder."""
        book = self.book()
        tile_id, holder, before = event.tile, event.holder, event.before
        row = book.holders.get(tile_id)
        if row is None:
            row = ResourceHolder(campaign_id=self.ctx.campaign_id, tile=tile_id)
            book.holders[tile_id] = row
        row.claim_id, row.ceded_to = holder, after.holders[tile_id].ceded_to
        self.session.add(row)
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
        :func:`rules.campaign.advance.advance`, the services taking each phase's changes into
        the rows and rendering its events in between (:meth:`between`)."""
        book = self.book()
        battles = load_battles(self.session, self.ctx.campaign_id,
                               (BattleStatus.PENDING, BattleStatus.SPARED))
        world = self.world(battles, characters=True, holders={
            tile: HolderState(tile, row.claim_id, row.ceded_to)
            for tile, row in book.holders.items()})
        advance(world, self.rules_tick(), self.dice, between=self.between)

    def between(self, before: World, after: World, events: Sequence[TickEvent]) -> World:
        """After each phase: take its changes into the rows, store the battles it began (they
        get their ids) and write back those it settled, render its events; after battles,
        re-read the free characters (a fate roll may have killed one)."""
        self.take(before, after)
        after = self.store_battles(before, after)
        self.report_moves(events, after)
        if any(isinstance(e, BattleFought) for e in events):
            self.session.flush()  # the fates after_battle settled
            after = replace(after, characters=self.characters())
        return after

    def store_battles(self, before: World, after: World) -> World:
        """Write back the battles a phase changed; store those it began (they get their ids):
        one Core statement each (:mod:`bot.services.battle_rows`)."""
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
        """The jobs of in-game month ``month``, claim by claim: improvements and capacity
        (services), then upkeep and regeneration (:mod:`rules.campaign.advance`)."""
        self.session.add(MonthlyRun(campaign_id=self.ctx.campaign_id, month=month, tick=self.tick))
        self.session.flush()
        tick = self.rules_tick()
        world = self.world(sieges=False)
        for claim in self.claims.values():
            self.report.events.extend(month_for_claim(  # improvements, capacity
                self.session, self.ctx, self.book(), claim, month, tick=self.tick, at=self.at))
            claim_id = claim.id or 0
            world = before = replace(world, claims={**world.claims,
                                                    claim_id: claim_state(claim)})
            income = self.book().claim(claim)  # gold income, with the armies as they are now
            world, events = advance_upkeep(world, claim_id, date, tick, income=income)
            world, more = advance_regeneration(world, claim_id, date, tick)
            self.take(before, world)
            self.save(claim)
            self.report_month(events + more, income, world.season)
        fairplay.month_begins(self.session, self.ctx, month=month, tick=self.tick, at=self.at,
                              claims={c.id or 0: c.name for c in self.claims.values()})
        self.campaign.last_month = month
        self.report.months.append(month)

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
                                f"Upkeep for {date}", upkeep_note(
                                    result.cost, result.income, income_sources(income),
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

    def _end_siege(self, siege: Siege, reason: str, *,
                   status: SiegeStatus = SiegeStatus.LIFTED) -> None:
        self.report.events.append(end_siege(self.session, self.ctx, siege, reason, at=self.at,
                                            tick=self.tick, status=status))

    # --- the phases rules.campaign.advance decides ---------------------------------------
    def world(self, battles: Sequence[BattleState] = (), *, characters: bool = False,
              sieges: bool = True, holders: Mapping[str, HolderState] | None = None
              ) -> World:
        """The tick's world as the rules' values, with what the phase needs: the tick's armies,
        claims, (``sieges``: one query) the active sieges, ``battles``, (``characters``: one
        query) the free characters, ``holders``."""
        return World(armies=self.armies.current(),
                     claims={c.id or 0: claim_state(c) for c in self.claims.values()},
                     sieges=self.sieges() if sieges else (), battles=tuple(battles),
                     wars=self.frozen_wars, holders=holders or {},
                     characters=self.characters() if characters else {},
                     season=Season(self.campaign.season), last_month=self.campaign.last_month)

    def sieges(self) -> tuple[SiegeValue, ...]:
        """The active sieges, one query."""
        rows = self.session.exec(select(Siege).where(
            Siege.campaign_id == self.ctx.campaign_id,
            Siege.status == SiegeStatus.ACTIVE).order_by(col(Siege.id))).all()
        self._siege_rows = {s.id or 0: s for s in rows}
        return tuple(siege_state(s) for s in rows)

    def characters(self) -> dict[int, CharacterState]:
        """The free characters, one query."""
        rows = self.session.exec(select(Character).where(
            Character.campaign_id == self.ctx.campaign_id,
            col(Character.status).in_(sorted(FREE_CHARACTERS))).order_by(col(Character.id))
        ).all()
        self._character_rows = {c.id or 0: c for c in rows}
        return {c.id or 0: CharacterState(c.id or 0, c.claim_id, c.name,
                                          tuple(str(s) for s in c.skills_json), c.army_id,
                                          c.status) for c in rows}

    def rules_tick(self) -> Tick:
        return Tick(self.tick, self.ctx.world, self.ctx.rules, _BookModifiers(self))

    def take(self, before: World, after: World) -> None:
        """Take what the rules changed into the tick's records and rows: armies (only the
        columns that changed), claims, sieges and characters."""
        self.armies.take(before, after)
        for c in changed_claims(before, after) if after.claims is not before.claims else ():
            old, row = before.claims[c.id], self.claims[c.id]
            row.gold, row.infantry, row.cavalry, row.ships = c.gold, c.infantry, c.cavalry, \
                c.ships
            row.scattered_infantry, row.scattered_cavalry = c.scattered_infantry, \
                c.scattered_cavalry
            row.scattered_until = c.scattered_until
            if c.slain != old.slain:
                row.slain_json = ledger_to_json(c.slain)
            self.save(row)
        if after.sieges is not before.sieges:
            for s in after.sieges:
                siege = self._siege_rows.get(s.id)
                if siege is not None and (siege.status, siege.months_elapsed, siege.paused) \
                        != (s.status, s.months_elapsed, s.paused):
                    siege.status, siege.months_elapsed, siege.paused = \
                        s.status, s.months_elapsed, s.paused
                    self.save(siege)
        if after.characters is not before.characters:
            for character in after.characters.values():
                if before.characters.get(character.id) is character:
                    continue
                person = self._character_rows[character.id]
                person.status, person.army_id = character.status, character.army_id
                self.session.add(person)

    def report_moves(self, events: Sequence[TickEvent], after: World) -> None:
        """Journal a phase's events; queue their posts and notes (``after``: the world after
        the phase)."""
        for event in events:
            if isinstance(event, MusterDone):
                a = event.army
                self.log("muster_done", f"{force(a)} is ready at {a.tile}",
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
                self._end_siege(self._siege_rows[event.siege.id],
                                besiegers_gone(self.claim_name(event.siege.besieger_claim),
                                               event.fate), status=event.siege.status)
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
        row = Siege(campaign_id=self.ctx.campaign_id, army_id=siege.army_id,
                    besieger_claim=siege.besieger_claim, defender_claim=siege.defender_claim,
                    holdfast=siege.holdfast, started_tick=siege.started_tick,
                    status=siege.status)
        self.session.add(row)
        self.session.flush()
        return replace(event, siege=replace(siege, id=row.id or 0))

    def report_siege_month(self, event: SiegeMonth) -> None:
        siege, month = event.siege, event.month
        label = self.label(siege.holdfast)
        date = calendar.game_date(self.at, self.ctx.rules)
        note = " (paused: the blockade is broken)" if siege.paused else ""
        self.log("siege_month", f"siege of {label}: month {siege.months_elapsed}" + note,
                 claim_id=siege.besieger_claim, public=True,
                 data={"siege": siege.id, "months": siege.months_elapsed})
        self.post(f"siege:{siege.id}:month:{month}",
                  self.ctx.settings.posts.siege_title.format(event="Siege goes on",
                                                             holdfast=label),
                  siege_month_post(date=str(date), holdfast=label,
                                   besieger=self.claim_name(siege.besieger_claim),
                                   months=siege.months_elapsed, note=note),
                  self.ctx.settings.posts.siege_flair)
        self.notify(siege.besieger_claim, f"siege:{siege.id}:left:{month}",
                    f"Siege of {label}",
                    f"{event.months_left} in-game months until {name_md(label)} falls.")

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
        until = self.ctx.when(self.ctx.tick_at(self.tick + self.ctx.rules.reaction_ticks))
        subject, body = sighting_note(
            watch_place=self.label(tile_id), claim=self.claim_name(a.claim_id),
            place=self.label(a.tile), when=self.ctx.when(self.at),
            troops=troops_text(a.infantry, a.cavalry, a.ships), roll=roll, guard=event.guard,
            army_id=a.id, until=until, kind=a.kind)
        self.notify(watcher, f"detect:{a.id}:{self.tick}:{tile_id}", subject, body)

    def report_encounter(self, event: Encounter) -> None:
        a, other, b = event.attacker, event.defender, event.battle
        when = self.ctx.when(self.ctx.tick_at(b.resolve_tick))
        self.log("encounter", f"{force(a)} meets enemy {force(other)} at {a.tile}",
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
        self.log("arrival", f"{force(a)} of {self.claim_name(a.claim_id)} {what} {a.tile}",
                 claim_id=a.claim_id, public=True, data={"army": a.id, "tile": a.tile})
        self.post(f"arrival:{a.id}:{self.tick}",
                  self.ctx.settings.posts.arrival_title.format(
                      claim=self.claim_name(a.claim_id), tile=self.label(a.tile)),
                  arrival_post(self.claim_name(a.claim_id), self.label(a.tile),
                               self.ctx.when(self.at), returned=event.returned, kind=a.kind),
                  self.ctx.settings.posts.arrival_flair)

    # --- battles ------------------------------------------------------------------------
    def report_retreat(self, event: RetreatReferred | RetreatFailed | Retreated) -> None:
        battle, runner = event.battle, event.runner
        place = self.label(battle.tile)
        if isinstance(event, RetreatReferred):
            self.log("referral", f"{force(runner)} has no way to retreat from "
                     f"{place}: referred to the moderators",
                     claim_id=runner.claim_id, data={"battle": battle.id, "army": runner.id})
            journal.notify_moderators(
                self.session, self.ctx.campaign_id, f"referral:retreat:{battle.id}",
                subject=f"Retreat of {force(runner)} referred to you",
                body=(f"{force(runner, capital=True)} of "
                      f"{name_md(self.claim_name(runner.claim_id))} chose "
                      f"to retreat from {name_md(place)} but has no way back. Nothing was rolled "
                      "and the battle was fought; rule on it if needed."),
                at=self.at, tick=self.tick)
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
                  f"[Battle] {self.claim_name(runner.claim_id)} withdraws from {place}",
                  f"Rather than give battle at **{name_md(place)}**, the {host(runner.kind)} of "
                  f"{name_md(self.claim_name(runner.claim_id))} withdraws (retreat roll "
                  f"{result.roll})."
                  f"\n\n{fairplay.markdown(line)}",
                  self.ctx.settings.posts.battle_flair)

    def report_opponent_decides(self, event: OpponentDecides) -> None:
        """After a failed retreat the runner's opponent chooses, within a new reaction window,
        to fight (the runner at -1) or to let it stay; without an answer the battle is fought."""
        battle, runner, opponent = event.battle, event.runner, event.opponent
        when = self.ctx.when(self.ctx.tick_at(battle.resolve_tick))
        self.notify(opponent.claim_id, f"battle:{battle.id}:failed-retreat",
                    f"{force(runner, capital=True)} failed to retreat at "
                    f"{self.label(battle.tile)}",
                    f"{force(runner, capital=True)} of "
                    f"{name_md(self.claim_name(runner.claim_id))} tried to retreat from your "
                    f"{force(opponent)} at {name_md(self.label(battle.tile))} and "
                    f"failed. You decide: reply `stand {force(opponent)}` to fight (they fight at "
                    f"-1) or `spare {force(runner)}` to let them stay, before {when}. Without an "
                    "answer the battle is fought then.")
        self.notify(runner.claim_id, f"battle:{battle.id}:retreat-failed",
                    f"{force(runner, capital=True)} failed to retreat",
                    f"{force(runner, capital=True)} could not get away from "
                    f"{name_md(self.label(battle.tile))}. "
                    f"{name_md(self.claim_name(opponent.claim_id))} decides before {when} "
                    "whether to "
                    "fight (you would fight at -1) or to let you stay.")

    def report_battle(self, event: BattleFought) -> None:
        """Journal a fought battle, settle its characters' fates and secrets
        (:func:`~bot.services.catalogue.after_battle`) and queue its post; an assault's
        defenses and dice go to the claimant alone."""
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
        self.log("battle", f"{att_name} vs {dfd_name} at {battle.tile}: {winner_name} wins",
                 claim_id=battle.attacker_claim, public=True,
                 data={"battle": battle.id, "kind": battle.kind, "winner": result.winner.value,
                       "band": result.band, "margin": result.margin,
                       **strengths, **({} if hidden_defender or not dice_line
                                       else {fairplay.DICE_KEY: dice_line})},
                 rolls=result.rolls)
        if hidden_defender and dice_line and garrison_claim is not None:
            self.log("assault_dice", f"the dice of the assault on {battle.tile}",
                     claim_id=garrison_claim, data={"battle": battle.id,
                                                    fairplay.DICE_KEY: dice_line})
        title = self.ctx.settings.posts.battle_title.format(
            attacker=att_name, defender=dfd_name, tile=self.label(battle.tile))
        fate_lines: list[str] = []
        fought = [self.armies.record(a.id) if a is not None else None
                  for a in (event.attacker, event.defender)]
        settled = after_battle(self.session, self.ctx, battle,
                               result, fought[0], fought[1], tick=self.tick, at=self.at,
                               dice_lines=fate_lines)  # secrets, fate tables
        self.save(*(a for a in fought if a is not None))  # a commander may have died
        body = battle_post(result, attacker=att_name, defender=dfd_name,
                           place=self.label(battle.tile), when=self.ctx.when(self.at),
                           kind=battle.kind, hide_defender=hidden_defender, settled=settled,
                           public=event.public)
        if dice_line and not hidden_defender:
            body += f"\n\n{fairplay.markdown(dice_line)}\n"
        body += "".join(f"\n{fairplay.markdown(line)}\n" for line in fate_lines)  # public
        self.post(f"battle:{battle.id}", title, body, self.ctx.settings.posts.battle_flair)
        if hidden_defender and garrison_claim is not None:
            self.notify(garrison_claim, f"battle:{battle.id}:defenses",
                        f"The assault on {self.label(battle.tile)}",
                        "Your holdfast's defenses multiplied your garrison's strength: "
                        + ", ".join(result.defender.strength.all_labels())
                        + f"; strength {money(result.defender.strength.value)}."
                        + ("\n\nThe assault's dice (your private branch): "
                           f"{fairplay.markdown(dice_line)}"
                           if dice_line else ""))


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

    def battle(self, army: Army, *, assault: bool) -> tuple[Modifier, ...]:
        return self.state.book().army(army, equipment=assault)

    def holdfast(self, claim_id: int) -> tuple[Modifier, ...]:
        claim = self.state.claims.get(claim_id)
        return self.state.book().holdfast(claim) if claim is not None else ()


def claim_state(claim: Claim) -> ClaimState:
    """A claim row as the rules' value."""
    return ClaimState(
        id=claim.id or 0, name=claim.name, holdfast=claim.holdfast, gold=claim.gold,
        infantry=claim.infantry, cavalry=claim.cavalry, ships=claim.ships,
        scattered_infantry=claim.scattered_infantry, scattered_cavalry=claim.scattered_cavalry,
        scattered_until=claim.scattered_until, slain=ledger_from_json(claim.slain_json),
        improvements=tuple(claim.improvements_json))


def siege_state(siege: Siege) -> SiegeValue:
    """A siege row as the rules' value."""
    return SiegeValue(
        id=siege.id or 0, army_id=siege.army_id, besieger_claim=siege.besieger_claim,
        defender_claim=siege.defender_claim, holdfast=siege.holdfast,
        started_tick=siege.started_tick, months_elapsed=siege.months_elapsed,
        months_required=siege.months_required, paused=siege.paused, status=siege.status)
