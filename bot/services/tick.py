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

from collections import defaultdict
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
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
from bot.services import fairplay, journal
from bot.services.army_rows import ArmyRecord, load_records, save_changed
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
from bot.services.render import battle_post, force, money, troops_text
from bot.services.sieges import end_siege
from bot.services.world import (
    CampaignContext,
    all_claims,
    get_campaign,
    war_pairs,
)
from rules.campaign import calendar
from rules.campaign.battle import BattleResult, Side, Winner, resolve_battle
from rules.campaign.config import Season, Terrain
from rules.campaign.contingents import split_losses
from rules.campaign.detection import ObserverKind, roll_detection
from rules.campaign.meetings import Presence, hostile_meetings
from rules.campaign.modifiers import Effect, EffectKind, Modifier, Role, Source
from rules.campaign.movement import (
    MarchProgress,
    budget_per_tick,
    marches_on,
    step_march,
    ticks_to_cross,
)
from rules.campaign.naming import force_noun, host, state_word
from rules.campaign.paths import entry_cost
from rules.campaign.publication import PublicAssault, public_assault
from rules.campaign.retreat import roll_retreat
from rules.campaign.siege import SiegeState, advance_siege_month, month_checks
from rules.campaign.upkeep import (
    SlainLedger,
    SlainLoss,
    accrue_month,
    apply_upkeep,
    record_loss,
)
from rules.campaign.world import (
    ACTIVE_STATES,
    FREE_CHARACTERS,
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
    number of ticks in this call (the rest are applied by the next call).
    """
    reports: list[TickReport] = []
    target = ctx.tick_of(now)
    while limit is None or len(reports) < limit:
        with transaction(engine) as session:
            campaign = get_campaign(session, ctx, lock=True)
            index = campaign.last_tick + 1
            if index > target:
                break
            report = apply_tick(session, ctx, campaign, index)
        reports.append(report)
        if on_tick is not None:
            on_tick(report)
    return reports


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
    """How many ticks are due and not applied yet."""
    campaign = get_campaign(session, ctx)
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
        state.complete_musters()
        state.move_armies()
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
            if not isinstance(row, ArmyRecord):
                self.session.add(row)

    def book(self) -> ModifierBook:
        """The modifiers in force this tick, loaded once per tick."""
        book = tick_book(self.session, self.ctx, armies=self.armies, claims=self.claims.values(),
                         tick=self.tick)
        book.wars = self.frozen_wars  # a hostile newcomer takes no benefit
        return book

    # --- resource tiles -----------------------------------------------------------------
    def update_resource_holders(self) -> None:
        """Record who holds each occupied resource tile's benefit now; tell the new holder."""
        book = self.book()
        occupied = {a.tile for a in self.armies if a.state == ArmyState.STANDING
                    and a.tile in self.ctx.world and self.ctx.world.tile(a.tile).resource}
        for tile_id in sorted(occupied | set(book.holders)):
            holder = book.resource_holder(tile_id)
            row = book.holders.get(tile_id)
            before = row.claim_id if row is not None else None
            if holder == before:
                continue
            if row is None:
                row = ResourceHolder(campaign_id=self.ctx.campaign_id, tile=tile_id)
                book.holders[tile_id] = row
            row.claim_id = holder
            if holder is None or row.ceded_to == before:
                row.ceded_to = None
            self.session.add(row)
            tile = self.ctx.world.tile(tile_id)
            self.log("resource_holder", f"{tile.label}: benefit now with "
                     f"{self.claim_name(holder) if holder else 'nobody'}", claim_id=holder,
                     data={"tile": tile_id, "holder": holder, "before": before})
            if holder is not None:
                benefit = tile.resource_benefit or "its benefit"
                self.notify(holder, f"resource:{tile_id}:{self.tick}",
                            f"You hold {tile.label}",
                            f"Your army holds {tile.label}: your claim receives "
                            f"{benefit} while a standing army of yours is the strongest there. "
                            "It also watches the land around it like a holdfast.")

    # --- monthly jobs -------------------------------------------------------------------
    def run_month(self, month: int, date: calendar.GameDate) -> None:
        self.session.add(MonthlyRun(campaign_id=self.ctx.campaign_id, month=month, tick=self.tick))
        self.session.flush()
        season = Season(self.campaign.season)
        for claim in self.claims.values():
            self.report.events.extend(month_for_claim(  # improvements, capacity
                self.session, self.ctx, self.book(), claim, month, tick=self.tick, at=self.at))
            self._upkeep(claim, season, date)
            self._regenerate(claim, date)
        fairplay.month_begins(self.session, self.ctx, month=month, tick=self.tick, at=self.at,
                              claims={c.id or 0: c.name for c in self.claims.values()})
        self.campaign.last_month = month
        self.report.months.append(month)

    def _upkeep(self, claim: Claim, season: Season, date: calendar.GameDate) -> None:
        raised = [a for a in self.armies if a.claim_id == claim.id and a.state in ACTIVE_STATES]
        inf = sum(a.infantry for a in raised)
        cav = sum(a.cavalry for a in raised)
        ships = sum(a.ships for a in raised)
        income_mods = self.book().claim(claim)  # gold income of the claim
        result = apply_upkeep(claim.gold, inf, cav, season, self.ctx.rules, ships,
                              income_modifiers=income_mods)
        claim.gold = result.gold_after
        self.save(claim)
        if not result.scatter:
            if result.cost or result.income:
                income = f"Income: {result.income} gold ({income_sources(income_mods)}). " \
                    if result.income else ""
                self.notify(claim.id or 0, f"upkeep:{claim.id}:{date.year}:{date.month}",
                            f"Upkeep for {date}",
                            f"{income}Upkeep of {money(result.cost)} gold paid for "
                            f"{troops_text(inf, cav, ships)}. Gold left: {money(claim.gold)}.")
            return
        # Half of the claim's raised troops (rounded down per type) come home: the rules
        # engine's survivors, not army by army.
        home_inf, home_cav = result.survivors.infantry, result.survivors.cavalry
        claim.infantry += home_inf
        claim.cavalry += home_cav
        claim.ships += result.survivors.ships
        claim.scattered_infantry += home_inf
        claim.scattered_cavalry += home_cav
        for a in raised:
            self._gone(a, "scattered, unpaid and unfed")
            self.save(a)
        claim.scattered_until = calendar.scattered_until(self.at, self.ctx.rules)
        self.save(claim)
        summary = (f"{claim.name} cannot pay {money(result.cost)} gold of upkeep: its armies "
                   "scatter; "
                   f"{troops_text(home_inf, home_cav)} "
                   "return home")
        self.log("scatter", summary, claim_id=claim.id, public=True,
                 data={"cost": str(result.cost), "survivors": [result.survivors.infantry,
                                                              result.survivors.cavalry]})
        self.post(f"scatter:{claim.id}:{date.year}:{date.month}",
                  self.ctx.settings.posts.scatter_title.format(claim=claim.name),
                  f"Unpaid and unfed, the armies of **{claim.name}** scatter in {date}. Half of "
                  "them straggle home and will not answer a call to arms again this year.",
                  self.ctx.settings.posts.scatter_flair)

    def _regenerate(self, claim: Claim, date: calendar.GameDate) -> None:
        ledger = ledger_from_json(claim.slain_json)
        if ledger.last_accrued is not None and date <= ledger.last_accrued:
            return
        ledger, inf, cav = accrue_month(ledger, date, self.ctx.rules)
        claim.slain_json = ledger_to_json(ledger)
        if inf or cav:
            claim.infantry += inf
            claim.cavalry += cav
            self.log("regeneration", f"{claim.name} regains {troops_text(inf, cav)}",
                     claim_id=claim.id, data={"infantry": inf, "cavalry": cav})
        self.save(claim)

    def record_slain(self, claim_id: int, infantry: int, cavalry: int) -> None:
        claim = self.claims.get(claim_id)
        if claim is None or not (infantry or cavalry):
            return
        date = calendar.game_date(self.at, self.ctx.rules)
        claim.slain_json = ledger_to_json(
            record_loss(ledger_from_json(claim.slain_json), date, infantry, cavalry))
        self.save(claim)

    def progress_sieges(self) -> None:
        """End every siege whose besiegers left the tile or are no more (at once, saying
        which), then count each whole in-game month completed since its start."""
        sieges = self.session.exec(select(Siege).where(Siege.campaign_id == self.ctx.campaign_id,
                                                 Siege.status == SiegeStatus.ACTIVE)).all()
        previous = self.ctx.tick_at(self.tick - 1)
        for siege in sieges:
            besieger = next((a for a in self.armies if a.id == siege.army_id), None)
            if besieger is None or besieger.state == ArmyState.GONE:
                fate = (besieger.meta_json.get("fate") if besieger is not None else None) \
                    or "are no more"
                self._end_siege(siege, f"The besiegers of {self.claim_name(siege.besieger_claim)}"
                                f" {fate}.")
                continue
            if besieger.tile != siege.holdfast or besieger.state != ArmyState.BESIEGING:
                self._end_siege(siege, f"The besiegers of {self.claim_name(siege.besieger_claim)}"
                                " have left the holdfast's tile.")
                continue
            started = self.ctx.tick_at(siege.started_tick)
            for month in month_checks(started, previous, self.at, self.ctx.rules.month_length):
                if self._siege_month(siege, month):
                    break
            self.save(siege)
        self._release_garrisons({s.holdfast for s in sieges if s.status is SiegeStatus.ACTIVE})

    def _release_garrisons(self, besieged: set[str]) -> None:
        """Armies behind their walls come out (standing) once no siege holds the holdfast and
        no enemy army stands on its tile."""
        for a in self.armies:
            if a.state != ArmyState.GARRISON or a.tile in besieged:
                continue
            if any(o.claim_id != a.claim_id and self.at_war(a.claim_id, o.claim_id)
                   and o.state in (ArmyState.STANDING, ArmyState.BESIEGING)
                   for o in self.by_tile.get(a.tile, ())):
                continue
            a.state = ArmyState.STANDING
            self.save(a)

    def _end_siege(self, siege: Siege, reason: str, *,
                   status: SiegeStatus = SiegeStatus.LIFTED) -> None:
        self.report.events.append(end_siege(self.session, self.ctx, siege, reason, at=self.at,
                                            tick=self.tick, status=status))

    def _siege_month(self, siege: Siege, month: int) -> bool:
        """Count siege month ``month`` (1-based from the start); True when the holdfast fell."""
        tile = self.ctx.world.tile(siege.holdfast)
        blockade_ok = True
        if tile.port:
            water = set(self.ctx.world.water_adjacent(tile.id))
            blockade_ok = any(a.kind == ArmyKind.FLEET and a.tile in water
                              and a.claim_id == siege.besieger_claim
                              and a.state == ArmyState.STANDING for a in self.armies)
        state = SiegeState(siege.months_required, siege.months_elapsed, siege.paused)
        new, fell = advance_siege_month(state, True, blockade_ok)
        siege.months_elapsed, siege.paused = new.months_elapsed, new.paused
        if fell:
            self._holdfast_falls(siege, tile.label, "starved out after "
                                 f"{siege.months_elapsed} months of siege")
            return True
        date = calendar.game_date(self.at, self.ctx.rules)
        note = " (paused: the blockade is broken)" if new.paused else ""
        self.log("siege_month", f"siege of {tile.label}: month {new.months_elapsed}"
                 + note, claim_id=siege.besieger_claim, public=True,
                 data={"siege": siege.id, "months": new.months_elapsed})
        self.post(f"siege:{siege.id}:month:{month}",
                  self.ctx.settings.posts.siege_title.format(event="Siege goes on",
                                                             holdfast=tile.label),
                  f"{date}: the siege of **{tile.label}** by "
                  f"{self.claim_name(siege.besieger_claim)} enters its month "
                  f"{new.months_elapsed}{note}.", self.ctx.settings.posts.siege_flair)
        self.notify(siege.besieger_claim, f"siege:{siege.id}:left:{month}",
                    f"Siege of {tile.label}",
                    f"{new.months_left} in-game months until {tile.label} falls.")
        return False

    def _holdfast_falls(self, siege: Siege, holdfast: str, how: str) -> None:
        defender = self.claims.get(siege.defender_claim)
        captured_inf = defender.infantry if defender else 0
        captured_cav = defender.cavalry if defender else 0
        if defender is not None:
            defender.infantry = defender.cavalry = 0
            defender.scattered_infantry = defender.scattered_cavalry = 0
            self.save(defender)
        for a in self.armies:  # every troop of the claim on the tile shares the holdfast's fate
            if a.claim_id == siege.defender_claim and a.tile == siege.holdfast \
                    and a.kind == ArmyKind.LAND and a.state != ArmyState.GONE:
                captured_inf += a.infantry
                captured_cav += a.cavalry
                self._gone(a, "were captured when the holdfast fell")
                self._capture_characters(a)
                self.save(a)
        siege.status = SiegeStatus.FALLEN
        besieger = next((a for a in self.armies if a.id == siege.army_id), None)
        if besieger is not None and besieger.state == ArmyState.BESIEGING:
            besieger.state = ArmyState.STANDING
            self.save(besieger)
        self.save(siege)
        self.log("holdfast_falls", f"{holdfast} falls to {self.claim_name(siege.besieger_claim)}"
                 f" ({how})", claim_id=siege.besieger_claim, public=True,
                 data={"siege": siege.id, "captured": [captured_inf, captured_cav]})
        self.post(f"siege:{siege.id}:fallen",
                  self.ctx.settings.posts.siege_title.format(event="Holdfast falls",
                                                             holdfast=holdfast),
                  f"**{holdfast}** has fallen to {self.claim_name(siege.besieger_claim)}, "
                  f"{how}. Its garrison is captured; the gold and the people within are at "
                  "the mercy of the victors (the moderators will rule on them).",
                  self.ctx.settings.posts.siege_flair)

    # --- musters ------------------------------------------------------------------------
    def complete_musters(self) -> None:
        # One query for the tick, not one per army that finishes mustering.
        besieged = set(self.session.exec(select(Siege.holdfast).where(
            Siege.campaign_id == self.ctx.campaign_id, Siege.status == SiegeStatus.ACTIVE)).all())
        for a in self.armies:
            if a.state != ArmyState.MUSTERING or a.ready_tick is None \
                    or a.ready_tick > self.tick:
                continue
            if a.tile in besieged:
                a.state = ArmyState.GARRISON
            elif a.path_json:
                a.state = ArmyState.MARCHING
            else:
                a.state = ArmyState.STANDING
            a.stationary_since = self.tick
            self.save(a)
            self.log("muster_done", f"{force(a)} is ready at {a.tile}", claim_id=a.claim_id,
                     data={"army": a.id})
            self.notify(a.claim_id, f"ready:{a.id}", f"{force(a, capital=True)} is ready",
                        f"{force(a, capital=True)} "
                        f"({troops_text(a.infantry, a.cavalry, a.ships)}) has mustered at "
                        f"{self.label(a.tile)} and is {state_word(a.kind, a.state)}.")

    # --- movement -----------------------------------------------------------------------
    def move_armies(self) -> None:
        observers = self._observers()
        for a in self.armies:
            if a.state not in (ArmyState.MARCHING, ArmyState.RETREATING):
                continue
            if not marches_on(self.tick, a.depart_tick) or not a.path_json:
                continue  # no tile is entered on the departure tick itself
            budget = self._budget(a)
            progress = MarchProgress(tuple(int(c) for c in a.costs_json), 0, Fraction(a.saved))
            progress, entered = step_march(progress, budget)
            a.saved = str(progress.saved)
            stopped = False
            for _ in range(entered):
                a.travelled_json = [*a.travelled_json, a.tile]
                self.by_tile[a.tile].remove(a)
                a.tile = a.path_json[0]
                self.by_tile[a.tile].append(a)
                a.path_json = a.path_json[1:]
                a.costs_json = a.costs_json[1:]
                self._detect(a, observers)
                if self._encounter(a):
                    stopped = True
                    break
            if stopped or not a.path_json:
                self._arrive(a, interrupted=stopped)
            self.save(a)

    def _budget(self, a: ArmyRecord) -> Fraction:
        """The travel cost army ``a`` earns per tick now (its size, kind and modifiers)."""
        return budget_per_tick(a.infantry, a.cavalry, self.ctx.rules,
                               is_fleet=a.kind == ArmyKind.FLEET,
                               modifiers=self.book().army(a))
    def _observers(self) -> dict[str, tuple[int, ObserverKind]]:
        """Observer tiles and the claim that watches from each."""
        found: dict[str, tuple[int, ObserverKind]] = {}
        for claim in self.claims.values():
            found[claim.holdfast] = (claim.id or 0, ObserverKind.HOLDFAST)
        for a in self.armies:
            if a.state == ArmyState.STANDING and a.tile in self.ctx.world \
                    and self.ctx.world.tile(a.tile).resource and a.tile not in found:
                found[a.tile] = (a.claim_id, ObserverKind.RESOURCE_TILE)
        return found

    def _detect(self, a: ArmyRecord, observers: dict[str, tuple[int, ObserverKind]]) -> None:
        radius = self.ctx.rules.detection_radius
        near = self.ctx.world.tiles_within(a.tile, radius)
        rolled = set(a.meta_json.get("rolled", []))
        for tile_id in sorted(near):
            watcher = observers.get(tile_id)
            if watcher is None or watcher[0] == a.claim_id:
                continue
            key = f"{a.depart_tick}:{tile_id}"
            if key in rolled:
                continue
            rolled.add(key)
            size = a.infantry + a.cavalry + a.ships
            dice, event = fairplay.roll(self.ctx, self.tick,
                                        f"detect:{self.tick}:{a.id or 0}:{tile_id}",
                                        branch=claim_branch(watcher[0]), armies=(a,))
            watching = self.book().observer(watcher[0], tile_id)
            result = roll_detection(size, watcher[1], dice=dice, rules=self.ctx.rules,
                                    observer_modifiers=watching,
                                    stealth_modifiers=self.book().army(a))
            changed_by = labels_for(result.applied, watching)
            self.log("detection", f"{self.label(tile_id)} rolls to detect {force(a)}: "
                     + ("detected" if result.detected else "not detected"),
                     claim_id=watcher[0],
                     data={"army": a.id, "observer": tile_id, "detected": result.detected,
                           "at": a.tile,  # where it was seen (the claim's map view)
                           "target": result.target, "roll": result.roll,
                           "bonus": result.bonus, "modifiers": list(changed_by),
                           fairplay.DICE_KEY: fairplay.line_of(event, dice)},
                     rolls=dice.rolls)
            if result.detected:
                detected_by = self._detected_by(a)
                detected_by.add(watcher[0])
                sighted = dict(a.meta_json.get("sighted", {}))
                sighted[str(watcher[0])] = [tile_id, self.tick]  # the intercept window
                self._set_meta(a, detected_by=sorted(detected_by), sighted=sighted)
                roll = "automatic" if result.automatic else \
                    f"d20 {result.roll} + {result.bonus} = {result.total} vs {result.target}" \
                    + (f" ({', '.join(changed_by)})" if changed_by else "")
                self.notify(watcher[0], f"detect:{a.id}:{self.tick}:{tile_id}",
                            f"A {host(a.kind)} is sighted near {self.label(tile_id)}",
                            f"Your watchers at {self.label(tile_id)} sight "
                            f"{force_noun(a.kind, article=True)} of "
                            f"{self.claim_name(a.claim_id)} at {self.label(a.tile)}, "
                            f"{self.ctx.when(self.at)}: "
                            f"{troops_text(a.infantry, a.cavalry, a.ships)}. "
                            f"Detection roll: {roll}." + self._intercept_hint(a, watcher[0],
                                                                               tile_id))
        self._set_meta(a, rolled=sorted(rolled))

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

    def _detected_by(self, a: ArmyRecord) -> set[int]:
        return set(a.meta_json.get("detected_by", []))

    def _encounter(self, a: ArmyRecord) -> bool:
        """A marching (or retreating) army entering a tile held by an enemy at war stops there
        to fight (issue 9: a retreat passing through an enemy is stopped too)."""
        for other in self.by_tile.get(a.tile, ()):
            if other is a or other.kind != a.kind:
                continue
            if other.state not in (ArmyState.STANDING, ArmyState.BESIEGING):
                continue
            if not self.at_war(a.claim_id, other.claim_id):
                continue
            self._meet(a, other)
            return True
        return False

    def _meet(self, a: ArmyRecord, other: ArmyRecord) -> None:
        """Army ``a`` meets enemy ``other`` on its tile: a battle after the reaction window.
        The first reaction is the defender's if it detected ``a``, else ``a``'s."""
        reactor = other.claim_id if other.claim_id in self._detected_by(a) else a.claim_id
        battle = PendingBattle(
            campaign_id=self.ctx.campaign_id, tile=a.tile, kind=BattleKind.FIELD,
            attacker_army=a.id or 0, defender_army=other.id or 0,
            attacker_claim=a.claim_id, defender_claim=other.claim_id,
            created_tick=self.tick, resolve_tick=self.tick + self.ctx.rules.reaction_ticks,
            reactor_claim=reactor)
        self.session.add(battle)
        when = self.ctx.when(self.ctx.tick_at(battle.resolve_tick))
        self.log("encounter", f"{force(a)} meets enemy {force(other)} at {a.tile}",
                 claim_id=a.claim_id, data={"attacker": a.id, "defender": other.id,
                                            "reactor": reactor})
        for claim_id, own, enemy in ((a.claim_id, a, other), (other.claim_id, other, a)):
            if claim_id == reactor:
                choice = (f" You have the first reaction: reply `retreat {force(own)}` or "
                          f"`stand {force(own)}` before then.")
            else:
                choice = (f" {self.claim_name(enemy.claim_id)} saw you first: until then it "
                          "may still choose to retreat instead of fighting.")
            self.notify(claim_id, f"encounter:{self.tick}:{a.id}:{other.id}",
                        f"Battle looms at {self.label(a.tile)}",
                        f"Your {force(own)} faces {force(enemy)} of "
                        f"{self.claim_name(enemy.claim_id)} at {self.label(a.tile)}. The "
                        f"battle is fought at {when}.{choice}")

    def meet_hostiles(self) -> None:
        """Every pair of hostile armies left sharing a tile after this tick's moves and
        battles meets in a battle (issue 9; :mod:`rules.campaign.meetings`)."""
        busy: set[int] = set()
        spared: set[tuple[int, int, str]] = set()
        for att_id, dfd_id, status, tile in self.session.exec(
                select(PendingBattle.attacker_army, PendingBattle.defender_army,
                       PendingBattle.status, PendingBattle.tile).where(
                    PendingBattle.campaign_id == self.ctx.campaign_id,
                    col(PendingBattle.status).in_((BattleStatus.PENDING,
                                                   BattleStatus.SPARED)))).all():
            if status is BattleStatus.PENDING:
                busy.update((att_id, dfd_id))
            else:  # let stay after a failed retreat: they share that tile in peace
                spared.update(((att_id, dfd_id, tile), (dfd_id, att_id, tile)))
        by_id = {a.id: a for a in self.armies}
        presences = []
        for a in self.armies:
            if a.state not in (ArmyState.STANDING, ArmyState.BESIEGING,
                               ArmyState.MARCHING, ArmyState.RETREATING):
                continue
            if a.state == ArmyState.RETREATING \
                    and a.meta_json.get("retreat_from") == a.tile:
                continue  # it is leaving the battle it escaped; it meets nobody there
            moving = a.state in (ArmyState.MARCHING, ArmyState.RETREATING) \
                and marches_on(self.tick, a.depart_tick)
            presences.append(Presence(a.id or 0, a.claim_id, a.tile, a.kind,
                                      None if moving else a.stationary_since))
        for attacker, defender in hostile_meetings(presences, self.at_war, busy):
            if (attacker.army, defender.army, attacker.tile) in spared:
                continue
            att, dfd = by_id[attacker.army], by_id[defender.army]
            for stopping in (att, dfd):
                if stopping.state in (ArmyState.MARCHING, ArmyState.RETREATING):
                    self._arrive(stopping, interrupted=True)  # both stop to fight
                    self.save(stopping)
            self._meet(att, dfd)

    def _arrive(self, a: ArmyRecord, *, interrupted: bool) -> None:
        was_retreat = a.state == ArmyState.RETREATING
        a.state = ArmyState.STANDING
        a.stationary_since = self.tick
        a.path_json, a.costs_json = [], []
        a.saved = "0"
        a.arrival_tick = self.tick
        a.travelled_json = [] if was_retreat else a.travelled_json
        if interrupted:
            return
        what = "returns to" if was_retreat else "arrives at"
        self.log("arrival", f"{force(a)} of {self.claim_name(a.claim_id)} {what} {a.tile}",
                 claim_id=a.claim_id, public=True, data={"army": a.id, "tile": a.tile})
        self.post(f"arrival:{a.id}:{self.tick}",
                  self.ctx.settings.posts.arrival_title.format(
                      claim=self.claim_name(a.claim_id), tile=self.label(a.tile)),
                  f"A {host(a.kind)} of **{self.claim_name(a.claim_id)}** {what} "
                  f"**{self.label(a.tile)}** ({self.ctx.when(self.at)}).",
                  self.ctx.settings.posts.arrival_flair)

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
                    f"{force(runner, capital=True)} failed to retreat at {self.label(battle.tile)}",
                    f"{force(runner, capital=True)} of {self.claim_name(runner.claim_id)} tried "
                    f"to retreat from your {force(opponent)} at {self.label(battle.tile)} and "
                    "failed. "
                    f"You decide: reply `stand {force(opponent)}` to fight (they fight at -1) "
                    f"or `spare {force(runner)}` to let them stay, before {when}. Without an "
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
            self._holdfast_falls(siege, self.label(battle.holdfast), "taken by assault")

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


def _present(a: ArmyRecord) -> bool:
    return a.state is not ArmyState.GONE
