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
from collections import defaultdict
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import datetime
from fractions import Fraction
from typing import Any

from sqlalchemy import Engine
from sqlmodel import Session, col, select

from bot.db.engine import transaction
from bot.db.models import (
    ArmyKind,
    ArmyState,
    Campaign,
    Character,
    Claim,
    MonthlyRun,
    PendingBattle,
    ResourceHolder,
    Siege,
    TickRun,
)
from bot.services import fairplay, journal, pause, snapshots
from bot.services.army_rows import (
    ArmyRecord,
    apply_change,
    army_value,
    load_records,
    save_changed,
)
from bot.services.catalogue import (  # the modifiers in force
    ModifierBook,
    after_battle,
    battle_side_of,
    income_sources,
    labels_for,
    month_for_claim,
    tick_book,
)
from bot.services.realm import map_posts
from bot.services.render import (
    arrival_post,
    battle_post,
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
from rules.campaign import calendar
from rules.campaign.advance import (
    Arrival,
    Detection,
    Encounter,
    HolderChanged,
    HoldfastFalls,
    MusterDone,
    Regenerated,
    Scattered,
    SiegeEnded,
    SiegeMonth,
    Tick,
    TickEvent,
    UpkeepPaid,
    advance_holders,
    advance_meetings,
    advance_movement,
    advance_musters,
    advance_regeneration,
    advance_sieges,
    advance_upkeep,
    budget,
    changed_armies,
    changed_claims,
    holdfast_falls,
)
from rules.campaign.battle import BattleResult, Side, Winner, resolve_battle
from rules.campaign.config import Season, Terrain
from rules.campaign.contingents import split_losses
from rules.campaign.modifiers import Effect, EffectKind, Modifier, Role, Source
from rules.campaign.movement import (
    ticks_to_cross,
)
from rules.campaign.naming import host
from rules.campaign.paths import entry_cost
from rules.campaign.publication import PublicAssault, public_assault
from rules.campaign.retreat import roll_retreat
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
    record_loss,
)
from rules.campaign.world import (
    FREE_CHARACTERS,
    Army,
    BattleKind,
    BattleStatus,
    CharacterStatus,
    Reaction,
    SiegeStatus,
    battle_side,
)
from rules.fairdice import claim_branch


@dataclass(frozen=True, slots=True)
class Contingent:
    """One body of a holdfast's garrison: ``army`` (None: the troops at home) and its troops
    when the battle began."""

    army: ArmyRecord | None
    infantry: int
    cavalry: int


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
        state.move()
    state.resolve_battles()
    state.meet_hostiles()
    state.progress_sieges()
    state.update_resource_holders()
    save_changed(session, state.armies)
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


def secret_defense(tile_bonus: Any) -> Modifier:
    """A holdfast's secret defense bonus as a hidden strength modifier for its defenders."""
    return Modifier("holdfast defenses", Source.HOLDFAST,
                    (Effect(EffectKind.STRENGTH, tile_bonus, Role.DEFENSE),),
                    label="holdfast defenses", hidden=True)


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
        self.armies = load_records(session, ctx.campaign_id)
        self.by_tile: dict[str, list[ArmyRecord]] = defaultdict(list)
        for a in self.armies:
            self.by_tile[a.tile].append(a)
        self.wars = war_pairs(session, ctx)
        self.frozen_wars = frozenset(self.wars)
        self._by_id: dict[int, ArmyRecord] = {}
        self._values: dict[int, Army] | None = None  # the armies as the rules' values
        self._dirty: set[int] = set()  # armies the services changed since
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
        """Keep changed rows; the tick's armies are records, written back at the end of the
        tick by :func:`~bot.services.army_rows.save_changed` (one statement)."""
        for row in rows:
            if isinstance(row, ArmyRecord):
                self._dirty.add(row.id)
            else:
                self.session.add(row)

    def book(self) -> ModifierBook:
        """The modifiers in force this tick, loaded once per tick."""
        book = tick_book(self.session, self.ctx, armies=self.armies, claims=self.claims.values(),
                         tick=self.tick)
        book.wars = self.frozen_wars  # a hostile newcomer takes no benefit
        return book

    # --- resource tiles -----------------------------------------------------------------
    def update_resource_holders(self) -> None:
        """Record who holds each occupied resource tile's benefit now
        (:func:`rules.campaign.advance.advance_holders`); tell the new holder."""
        book = self.book()
        world = self.world(sieges=False, holders={
            tile: HolderState(tile, row.claim_id, row.ceded_to)
            for tile, row in book.holders.items()})
        after, events = advance_holders(world, self.rules_tick())
        for event in events:
            assert isinstance(event, HolderChanged)
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
            self.report_month(events + more, income)
        fairplay.month_begins(self.session, self.ctx, month=month, tick=self.tick, at=self.at,
                              claims={c.id or 0: c.name for c in self.claims.values()})
        self.campaign.last_month = month
        self.report.months.append(month)

    def report_month(self, events: Sequence[TickEvent], income: Sequence[Modifier]) -> None:
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
            elif isinstance(event, Scattered):
                claim, result, date = event.claim, event.result, event.date
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

    def record_slain(self, claim_id: int, infantry: int, cavalry: int) -> None:
        claim = self.claims.get(claim_id)
        if claim is None or not (infantry or cavalry):
            return
        date = calendar.game_date(self.at, self.ctx.rules)
        claim.slain_json = ledger_to_json(
            record_loss(ledger_from_json(claim.slain_json), date, infantry, cavalry))
        self.save(claim)

    def progress_sieges(self) -> None:
        """End every siege whose besiegers left the tile or are no more, count each siege
        month completed, let out the garrisons no siege holds
        (:func:`rules.campaign.advance.advance_sieges`)."""
        world = self.world(characters=True)
        after, events = advance_sieges(world, self.rules_tick())
        self.take(world, after)
        self.report_moves(events)

    def _end_siege(self, siege: Siege, reason: str, *,
                   status: SiegeStatus = SiegeStatus.LIFTED) -> None:
        self.report.events.append(end_siege(self.session, self.ctx, siege, reason, at=self.at,
                                            tick=self.tick, status=status))

    def _holdfast_falls(self, siege: Siege, how: str) -> None:
        """The holdfast of ``siege`` falls (:func:`rules.campaign.advance.holdfast_falls`)."""
        world = self.world(characters=True)
        value = next(s for s in world.sieges if s.id == siege.id)
        after, event = holdfast_falls(world, value, how)
        self.take(world, after)
        self.report_moves([event])

    # --- the phases rules.campaign.advance decides ---------------------------------------
    def world(self, battles: Sequence[BattleState] = (), *, characters: bool = False,
              sieges: bool = True, holders: Mapping[str, HolderState] | None = None
              ) -> World:
        """The tick's world as the rules' values, with what the phase needs: armies from the
        tick's records (converted once, then only those the services changed since), claims,
        (``sieges``: one query) the active sieges, ``battles``, (``characters``: one query)
        the free characters, ``holders``."""
        if self._values is None:
            self._values = {a.id: army_value(a) for a in self.armies}
        elif self._dirty:
            by_id = self.records_by_id()
            for army_id in self._dirty:
                self._values[army_id] = army_value(by_id[army_id])
        self._dirty.clear()
        return World(armies=dict(self._values),
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
        if after.armies is not before.armies and self._values is not None:
            by_id = self.records_by_id()
            for a in changed_armies(before, after):
                apply_change(by_id[a.id], before.armies[a.id], a)
                self._values[a.id] = a
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

    def records_by_id(self) -> dict[int, ArmyRecord]:
        if len(self._by_id) != len(self.armies):
            self._by_id = {a.id: a for a in self.armies}
        return self._by_id

    def move(self) -> None:
        """Musters that are ready, then every march and retreat (rules.campaign.advance)."""
        tick = self.rules_tick()
        world = self.world()
        after, events = advance_musters(world, tick)
        self.take(world, after)  # the modifiers in force see the armies that are ready
        world = after
        after, more = advance_movement(world, tick, self.dice)
        self.take(world, after)
        self.by_tile = defaultdict(list)
        for a in self.armies:
            self.by_tile[a.tile].append(a)
        self.report_moves([*events, *more])

    def meet_hostiles(self) -> None:
        """Every pair of hostile armies left sharing a tile after this tick's moves and
        battles meets in a battle (:func:`rules.campaign.advance.advance_meetings`)."""
        battles = [battle_state(b) for b in self.session.exec(select(PendingBattle).where(
            PendingBattle.campaign_id == self.ctx.campaign_id,
            col(PendingBattle.status).in_((BattleStatus.PENDING, BattleStatus.SPARED)))).all()]
        world = self.world(battles, sieges=False)
        after, events = advance_meetings(world, self.rules_tick())
        self.take(world, after)
        self.report_moves(events)

    def report_moves(self, events: Sequence[TickEvent]) -> None:
        """Journal the moves' events; queue their posts and notes."""
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
                                f"The besiegers of {self.claim_name(event.siege.besieger_claim)}"
                                f" {event.fate}.", status=event.siege.status)
            elif isinstance(event, SiegeMonth):
                self.report_siege_month(event)
            elif isinstance(event, HoldfastFalls):
                self.report_fall(event)
            else:
                raise TypeError(f"no report for {event!r}")  # holders report themselves

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
                    f"{event.months_left} in-game months until {label} falls.")

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
        self.session.add(PendingBattle(
            campaign_id=self.ctx.campaign_id, tile=b.tile, kind=b.kind,
            attacker_army=b.attacker_army, defender_army=b.defender_army,
            attacker_claim=b.attacker_claim, defender_claim=b.defender_claim,
            created_tick=b.created_tick, resolve_tick=b.resolve_tick,
            reactor_claim=b.reactor_claim))
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

    def _budget(self, a: ArmyRecord) -> Fraction:
        """The travel cost army ``a`` earns per tick now (its size, kind and modifiers)."""
        return budget(army_value(a), self.rules_tick())

    def _gone(self, a: ArmyRecord, fate: str) -> None:
        """Army ``a`` is no more; ``fate`` completes "The besiegers of CLAIM ..." in posts."""
        a.state = ArmyState.GONE
        a.path_json, a.costs_json = [], []
        self._set_meta(a, fate=fate)

    def _capture_characters(self, a: ArmyRecord) -> None:
        """The characters with a captured army are captives: no longer free to command; the
        moderators rule on their fate."""
        for character in self.session.exec(select(Character).where(
                Character.army_id == a.id,
                col(Character.status).in_(sorted(FREE_CHARACTERS)))).all():
            character.status = CharacterStatus.CAPTURED
            character.army_id = None
            self.session.add(character)
        a.commander_id = None

    def _intercept_hint(self, a: ArmyRecord, claim_id: int, tile_id: str) -> str:
        """The reaction a sighting offers: a standing army of the watching claim on the
        watching tile may intercept the passing force until the next tick."""
        guards = [g for g in self.by_tile.get(tile_id, ()) if g.claim_id == claim_id
                  and g.state == ArmyState.STANDING and g.kind == a.kind]
        if not guards or a.state != ArmyState.MARCHING:
            return ""
        until = self.ctx.when(self.ctx.tick_at(self.tick + self.ctx.rules.reaction_ticks))
        return (f" Your {force(guards[0])} stands at {self.label(tile_id)}: you may stop this "
                f"force with `intercept {force(a)} with {force(guards[0])}` before {until}.")

    def _set_meta(self, a: ArmyRecord, **values: Any) -> None:
        meta = dict(a.meta_json)
        meta.update(values)
        a.meta_json = meta

    # --- battles ------------------------------------------------------------------------
    def resolve_battles(self) -> None:
        due = self.session.exec(select(PendingBattle).where(
            PendingBattle.campaign_id == self.ctx.campaign_id,
            PendingBattle.status == BattleStatus.PENDING,
            col(PendingBattle.resolve_tick) <= self.tick,
        ).order_by(col(PendingBattle.id))).all()
        by_id = {a.id: a for a in self.armies}
        for battle in due:
            if battle.kind is BattleKind.FIELD:
                self._field_battle(battle, by_id)
            elif battle.kind is BattleKind.ASSAULT:
                self._assault(battle, by_id)
            else:
                self._sally(battle, by_id)
            self.save(battle)

    def _characters(self, army_id: int) -> tuple[str, ...]:
        rows = self.session.exec(select(Character).where(
            Character.army_id == army_id,
            col(Character.status).in_(sorted(FREE_CHARACTERS)))).all()
        return tuple(r.name for r in rows)

    def _side(self, a: ArmyRecord, role: Winner, *, assault: bool = False,
              began: int | None = None) -> Side:
        return battle_side_of(self.book(), a, role, tick=self.tick, assault=assault,
                              began=began, characters=self._characters(a.id or 0))

    def _field_battle(self, battle: PendingBattle, by_id: dict[int, ArmyRecord]) -> None:
        att = by_id.get(battle.attacker_army)
        dfd = by_id.get(battle.defender_army)
        if att is None or dfd is None or att.tile != dfd.tile \
                or ArmyState.GONE in (att.state, dfd.state):
            battle.status = BattleStatus.VOID
            self.log("battle_void", f"battle {battle.id} does not happen: the armies parted",
                     data={"battle": battle.id})
            return
        if battle.reaction is Reaction.RETREAT and battle.reactor_claim is not None:
            runner = att if att.claim_id == battle.reactor_claim else dfd
            if self._try_retreat(battle, runner):
                battle.status = BattleStatus.AVOIDED
                return
            if runner.retreat_penalty:  # the retreat failed: the opponent decides
                self._ask_opponent(battle, runner, att if runner is dfd else dfd)
                return
        # The defender bonus is the defender's: the attacker either marched in (in transit)
        # or left its own position to attack, so it never has it; the defender has it only if
        # it stood there before the battle began (arriving together, neither has it).
        dice, event = fairplay.roll(self.ctx, self.tick, f"battle:{battle.id or 0}",
                                    armies=(att, dfd))
        result = resolve_battle(self._side(att, Winner.ATTACKER),
                                self._side(dfd, Winner.DEFENDER, began=battle.created_tick),
                                dice=dice, rules=self.ctx.rules)
        battle.status = BattleStatus.RESOLVED
        self._apply_result(battle, result, att, dfd, hidden_defender=False,
                           dice_line=fairplay.line_of(event, dice))

    def _ask_opponent(self, battle: PendingBattle, runner: ArmyRecord,
                      opponent: ArmyRecord) -> None:
        """After a failed retreat the runner's opponent chooses, within a new reaction window,
        to fight (the runner at -1) or to let it stay; without an answer the battle is fought."""
        battle.reaction = Reaction.FAILED
        battle.reactor_claim = opponent.claim_id
        battle.resolve_tick = self.tick + max(1, self.ctx.rules.reaction_ticks)
        when = self.ctx.when(self.ctx.tick_at(battle.resolve_tick))
        self.notify(opponent.claim_id, f"battle:{battle.id}:failed-retreat",
                    f"{force(runner, capital=True)} failed to retreat at "
                    f"{self.label(battle.tile)}",
                    f"{force(runner, capital=True)} of {self.claim_name(runner.claim_id)} tried "
                    f"to retreat from your {force(opponent)} at {self.label(battle.tile)} and "
                    f"failed. You decide: reply `stand {force(opponent)}` to fight (they fight at "
                    f"-1) or `spare {force(runner)}` to let them stay, before {when}. Without an "
                    "answer the battle is fought then.")
        self.notify(runner.claim_id, f"battle:{battle.id}:retreat-failed",
                    f"{force(runner, capital=True)} failed to retreat",
                    f"{force(runner, capital=True)} could not get away from "
                    f"{self.label(battle.tile)}. "
                    f"{self.claim_name(opponent.claim_id)} decides before {when} whether to "
                    "fight (you would fight at -1) or to let you stay.")

    def _try_retreat(self, battle: PendingBattle, runner: ArmyRecord) -> bool:
        route = self._retreat_route(runner)
        if not route:  # nowhere to go: the moderators decide; nothing is rolled or lost
            self.log("referral", f"{force(runner)} has no way to retreat from "
                     f"{self.label(battle.tile)}: referred to the moderators",
                     claim_id=runner.claim_id, data={"battle": battle.id, "army": runner.id})
            journal.notify_moderators(
                self.session, self.ctx.campaign_id, f"referral:retreat:{battle.id}",
                subject=f"Retreat of {force(runner)} referred to you",
                body=(f"{force(runner, capital=True)} of {self.claim_name(runner.claim_id)} chose "
                      f"to retreat from {self.label(battle.tile)} but has no way back. Nothing "
                      "was rolled and the battle was fought; rule on it if needed."),
                at=self.at, tick=self.tick)
            return False
        dice, event = fairplay.roll(self.ctx, self.tick, f"retreat:{battle.id or 0}",
                                    armies=(runner,))
        result = roll_retreat(runner.infantry, runner.cavalry, runner.ships, dice=dice,
                              rules=self.ctx.rules)
        line = fairplay.line_of(event, dice)
        if not result.success:
            runner.retreat_penalty = True
            self.save(runner)
            self.log("retreat_failed", f"{force(runner)} fails to retreat (d20 {result.roll})",
                     claim_id=runner.claim_id, public=True,
                     data={"battle": battle.id, fairplay.DICE_KEY: line}, rolls=dice.rolls)
            return False
        lost = result.lost
        runner.infantry, runner.cavalry, runner.ships = (result.escaped.infantry,
                                                         result.escaped.cavalry,
                                                         result.escaped.ships)
        self.record_slain(runner.claim_id, lost.infantry, lost.cavalry)
        self._send_back(runner, route)
        self.log("retreat", f"{force(runner)} retreats from {self.label(battle.tile)} (d20 "
                 f"{result.roll}, keeps {result.fraction * 100:.0f}%)", claim_id=runner.claim_id,
                 public=True, data={"battle": battle.id, "lost": [lost.infantry, lost.cavalry],
                                    fairplay.DICE_KEY: line},
                 rolls=dice.rolls)
        self.post(f"battle:{battle.id}:retreat",
                  f"[Battle] {self.claim_name(runner.claim_id)} withdraws from "
                  f"{self.label(battle.tile)}",
                  f"Rather than give battle at **{self.label(battle.tile)}**, the "
                  f"{host(runner.kind)} of "
                  f"{self.claim_name(runner.claim_id)} withdraws (retreat roll {result.roll})."
                  f"\n\n{fairplay.markdown(line)}",
                  self.ctx.settings.posts.battle_flair)
        return True

    def _retreat_route(self, a: ArmyRecord) -> list[str]:
        """The route the army's `retreat` order chose, else back along the path travelled."""
        chosen = a.meta_json.get("retreat_route")
        return list(chosen) if chosen else list(reversed(a.travelled_json))

    def _send_back(self, a: ArmyRecord, route: Sequence[str] | None = None) -> None:
        """Sends an army back along ``route`` (default: the way it came); with no way back it
        stays."""
        back = list(route) if route is not None else list(reversed(a.travelled_json))
        self._set_meta(a, retreat_route=[])
        if not back:
            a.state = ArmyState.STANDING
            self.save(a)
            return
        costs = [entry_cost(self.ctx.world.tile(t), a.kind, self.ctx.rules) or 1 for t in back]
        a.state = ArmyState.RETREATING
        a.path_json, a.costs_json, a.saved = back, costs, "0"
        a.travelled_json = []
        self._set_meta(a, retreat_from=a.tile)
        # It sets off at once: the first tile is entered on the next tick, like any march.
        a.depart_tick = self.tick
        a.arrival_tick = self.tick + ticks_to_cross(costs, self._budget(a))
        self.save(a)

    def _apply_result(self, battle: PendingBattle, result: BattleResult, att: ArmyRecord | None,
                      dfd: ArmyRecord | None, *, hidden_defender: bool,
                      garrison_claim: Claim | None = None,
                      garrison: Sequence[Contingent] = (), dice_line: str = "",
                      public: PublicAssault | None = None) -> None:
        """Apply a battle's losses; the side with no army is ``garrison_claim``'s ``garrison``
        (its troops at home and its armies in the holdfast), whose losses are shared.
        ``dice_line`` goes in the public post, or only to the claimant when it is hidden."""
        for which, a in ((Winner.ATTACKER, att), (Winner.DEFENDER, dfd)):
            side = result.side(which)
            if a is not None:
                a.infantry -= side.losses.infantry
                a.cavalry -= side.losses.cavalry
                a.ships -= side.losses.ships
                a.retreat_penalty = False
                if side.captured:
                    self._gone(a, "were captured in battle")
                    self._capture_characters(a)
                elif a.infantry + a.cavalry + a.ships == 0:
                    self._gone(a, "fell in battle to the last man")
                self.save(a)
                if not side.captured:
                    self.record_slain(a.claim_id, side.losses.infantry, side.losses.cavalry)
            elif garrison_claim is not None:
                self._garrison_losses(garrison_claim, garrison, side.losses.infantry,
                                      side.losses.cavalry, captured=side.captured)
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
                     claim_id=garrison_claim.id, data={"battle": battle.id,
                                                       fairplay.DICE_KEY: dice_line})
        title = self.ctx.settings.posts.battle_title.format(
            attacker=att_name, defender=dfd_name, tile=self.label(battle.tile))
        fate_lines: list[str] = []
        settled = after_battle(self.session, self.ctx, battle, result, att, dfd, tick=self.tick,
                               at=self.at, dice_lines=fate_lines)  # secrets, fate tables
        body = battle_post(result, attacker=att_name, defender=dfd_name,
                           place=self.label(battle.tile), when=self.ctx.when(self.at),
                           kind=battle.kind, hide_defender=hidden_defender, settled=settled,
                           public=public)
        if dice_line and not hidden_defender:
            body += f"\n\n{fairplay.markdown(dice_line)}\n"
        body += "".join(f"\n{fairplay.markdown(line)}\n" for line in fate_lines)  # public
        self.post(f"battle:{battle.id}", title, body, self.ctx.settings.posts.battle_flair)
        if hidden_defender and garrison_claim is not None:
            self.notify(garrison_claim.id or 0, f"battle:{battle.id}:defenses",
                        f"The assault on {self.label(battle.tile)}",
                        "Your holdfast's defenses multiplied your garrison's strength: "
                        + ", ".join(result.defender.strength.all_labels())
                        + f"; strength {money(result.defender.strength.value)}."
                        + ("\n\nThe assault's dice (your private branch): "
                           f"{fairplay.markdown(dice_line)}"
                           if dice_line else ""))
        loser = att if result.winner is Winner.DEFENDER else dfd
        if loser is not None and loser.state != ArmyState.GONE:
            home = self.claims.get(loser.claim_id)
            if not loser.travelled_json and home is not None and home.holdfast == loser.tile \
                    and loser.kind == ArmyKind.LAND:
                # No way back, but home: the beaten army withdraws behind its own walls,
                # where only an assault or a siege can reach it.
                loser.state = ArmyState.GARRISON
                self.save(loser)
            else:  # with no way back it stays, and meets the winner again (meet_hostiles)
                self._send_back(loser)

    def _garrison(self, claim: Claim, tile_id: str, states: Collection[ArmyState]
                  ) -> list[Contingent]:
        """The claim's troops at home, then its land armies on ``tile_id`` in ``states``."""
        return [Contingent(None, claim.infantry, claim.cavalry), *(
            Contingent(a, a.infantry, a.cavalry) for a in self.armies
            if a.claim_id == claim.id and a.tile == tile_id and a.kind == ArmyKind.LAND
            and a.state in states)]

    def _garrison_side(self, claim: Claim, tile_id: str, garrison: Sequence[Contingent], *,
                       defending: bool) -> Side:
        """A holdfast's garrison as one side: defending (stationary, with the secret defense
        bonus) against an assault, or riding out in a sally."""
        tile = self.ctx.world.tile(tile_id)
        mods = (secret_defense(tile.defense_bonus),) \
            if defending and tile.defense_bonus != 1 else ()
        characters = (*self.book().home_characters(claim.id or 0), *(
            name for c in garrison if c.army is not None for name in self._characters(
                c.army.id or 0)))
        return battle_side(Winner.DEFENDER if defending else Winner.ATTACKER,
                           infantry=sum(c.infantry for c in garrison),
                           cavalry=sum(c.cavalry for c in garrison), terrain=tile.terrain,
                           stationary=defending, modifiers=(*mods, *self.book().holdfast(claim)),
                           characters=characters)

    def _garrison_losses(self, claim: Claim, garrison: Sequence[Contingent], infantry: int,
                         cavalry: int, *, captured: bool) -> None:
        """Share a garrison's losses among its contingents."""
        inf = split_losses([c.infantry for c in garrison], infantry)
        cav = split_losses([c.cavalry for c in garrison], cavalry)
        for c, lost_inf, lost_cav in zip(garrison, inf, cav, strict=True):
            if c.army is None:
                claim.infantry -= lost_inf
                claim.cavalry -= lost_cav
                claim.scattered_infantry = min(claim.scattered_infantry, claim.infantry)
                claim.scattered_cavalry = min(claim.scattered_cavalry, claim.cavalry)
                self.save(claim)
                continue
            c.army.infantry -= lost_inf
            c.army.cavalry -= lost_cav
            if captured:
                self._gone(c.army, "were captured in battle")
                self._capture_characters(c.army)
            elif c.army.infantry + c.army.cavalry == 0:
                self._gone(c.army, "fell in battle to the last man")
            self.save(c.army)
        if not captured:
            self.record_slain(claim.id or 0, infantry, cavalry)

    def _assault(self, battle: PendingBattle, by_id: dict[int, ArmyRecord]) -> None:
        att = by_id.get(battle.attacker_army)
        claim = self.claims.get(battle.defender_claim)
        if att is None or claim is None or att.tile != battle.holdfast \
                or att.state == ArmyState.GONE:
            battle.status = BattleStatus.VOID
            return
        # Every troop of the claim on the tile defends: at home, mustering, standing, or back
        # inside after a sally; they share the holdfast's fate.
        garrison = self._garrison(claim, battle.holdfast, (
            ArmyState.MUSTERING, ArmyState.GARRISON, ArmyState.STANDING))
        # Assault dice would show the secret bonus: they come from the claimant's own branch.
        dice, event = fairplay.roll(self.ctx, self.tick, f"battle:{battle.id or 0}",
                                    branch=claim_branch(claim.id or 0), armies=(att,))
        sides = (self._side(att, Winner.ATTACKER, assault=True),
                 self._garrison_side(claim, battle.holdfast, garrison, defending=True))
        result = resolve_battle(*sides, dice=dice, rules=self.ctx.rules)
        battle.status = BattleStatus.RESOLVED
        won = result.winner is Winner.ATTACKER
        self._apply_result(battle, result, att, None, hidden_defender=True,
                           garrison_claim=claim, garrison=garrison,
                           dice_line=fairplay.line_of(event, dice),
                           public=public_assault(*sides, result, self.ctx.rules))
        if won:
            siege = self.session.exec(select(Siege).where(
                Siege.campaign_id == self.ctx.campaign_id, Siege.holdfast == battle.holdfast,
                Siege.status == SiegeStatus.ACTIVE)).first()
            if siege is None:
                siege = Siege(campaign_id=self.ctx.campaign_id, army_id=att.id or 0,
                              besieger_claim=att.claim_id, defender_claim=claim.id or 0,
                              holdfast=battle.holdfast, started_tick=self.tick)
                self.session.add(siege)
                self.session.flush()
            if _present(att):  # the battle may have captured it
                att.state = ArmyState.STANDING
                att.tile = battle.holdfast
                self.save(att)
            self._holdfast_falls(siege, "taken by assault")

    def _sally(self, battle: PendingBattle, by_id: dict[int, ArmyRecord]) -> None:
        besieger = by_id.get(battle.defender_army)
        claim = self.claims.get(battle.attacker_claim)
        siege = self.session.exec(select(Siege).where(
            Siege.campaign_id == self.ctx.campaign_id, Siege.holdfast == battle.holdfast,
            Siege.status == SiegeStatus.ACTIVE)).first()
        if besieger is None or claim is None or siege is None \
                or besieger.state != ArmyState.BESIEGING:
            battle.status = BattleStatus.VOID
            return
        sally_army = by_id.get(battle.attacker_army) if battle.attacker_army else None
        garrison: list[Contingent] = []
        if sally_army is not None:
            if sally_army.state != ArmyState.GARRISON:
                battle.status = BattleStatus.VOID  # only ready troops inside the walls sally
                return
            sally_side = self._side(sally_army, Winner.ATTACKER)
        else:  # the whole ready garrison: the troops at home and the armies inside
            garrison = self._garrison(claim, battle.holdfast, (ArmyState.GARRISON,))
            sally_side = self._garrison_side(claim, battle.holdfast, garrison, defending=False)
        dice, event = fairplay.roll(self.ctx, self.tick, f"battle:{battle.id or 0}",
                                    armies=(sally_army, besieger))
        result = resolve_battle(sally_side, self._side(besieger, Winner.DEFENDER),
                                dice=dice, rules=self.ctx.rules)
        battle.status = BattleStatus.RESOLVED
        self._apply_result(battle, result, sally_army, besieger, hidden_defender=False,
                           garrison_claim=None if sally_army else claim, garrison=garrison,
                           dice_line=fairplay.line_of(event, dice))
        if result.winner is Winner.ATTACKER:  # the sally breaks the siege: say how
            how = None if _present(besieger) else besieger.meta_json.get("fate")
            self._end_siege(siege, f"The besiegers of {self.claim_name(siege.besieger_claim)} "
                            f"{how or 'were driven off by a sally'}.", status=SiegeStatus.BROKEN)
        elif sally_army is not None and sally_army.state != ArmyState.GONE:
            sally_army.state = ArmyState.GARRISON
            sally_army.tile = battle.holdfast
            sally_army.path_json, sally_army.costs_json = [], []
            self.save(sally_army)


class _BookModifiers:
    """The modifiers in force for the rules' moves: the tick's :class:`ModifierBook`, over the
    tick's records. The records take the rules' changes after each phase, so within the
    movement phase an observer's modifiers are those of the armies as the phase began (an army
    arriving on its claim's watched resource tile counts from the next tick)."""

    def __init__(self, state: _TickState) -> None:
        self.state = state

    def march(self, army: Army) -> tuple[Modifier, ...]:
        return self.state.book().army(self.state.records_by_id()[army.id])

    def observer(self, claim_id: int, tile: str) -> tuple[Modifier, ...]:
        return self.state.book().observer(claim_id, tile)


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


def battle_state(battle: PendingBattle) -> BattleState:
    """A pending battle row as the rules' value."""
    return BattleState(
        battle.id, tile=battle.tile, kind=battle.kind, attacker_army=battle.attacker_army,
        defender_army=battle.defender_army, attacker_claim=battle.attacker_claim,
        defender_claim=battle.defender_claim, created_tick=battle.created_tick,
        resolve_tick=battle.resolve_tick, reactor_claim=battle.reactor_claim,
        reaction=battle.reaction, holdfast=battle.holdfast, status=battle.status)


def _present(a: ArmyRecord) -> bool:
    return a.state is not ArmyState.GONE
