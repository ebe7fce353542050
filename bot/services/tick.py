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
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from fractions import Fraction
from typing import Any

from sqlalchemy import Engine
from sqlalchemy.orm.attributes import flag_modified
from sqlmodel import Session, col, select

from bot.db.engine import transaction
from bot.db.models import (
    Army,
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
from bot.services import journal
from bot.services.catalogue import (  # issue 6: the modifiers in force
    ModifierBook,
    after_battle,
    income_sources,
    labels_for,
    month_for_claim,
    tick_book,
)
from bot.services.render import battle_post, money, troops_text
from bot.services.world import (
    ACTIVE_STATES,
    CampaignContext,
    all_claims,
    armies,
    get_campaign,
    war_pairs,
)
from rules.campaign import calendar
from rules.campaign.battle import BattleResult, Side, Winner, resolve_battle
from rules.campaign.config import Season, Terrain
from rules.campaign.detection import ObserverKind, roll_detection
from rules.campaign.modifiers import Effect, EffectKind, Modifier, Role, Source
from rules.campaign.movement import MarchProgress, budget_per_tick, step_march
from rules.campaign.paths import ArmyKind as PathKind
from rules.campaign.paths import entry_cost
from rules.campaign.publication import PublicAssault, public_assault
from rules.campaign.retreat import roll_retreat
from rules.campaign.siege import SiegeState, advance_siege_month
from rules.campaign.upkeep import (
    SlainLedger,
    SlainLoss,
    accrue_month,
    apply_upkeep,
    record_loss,
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
    state.update_resource_holders()
    journal.flush_buffer(session)
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


ARMY_TICK_COLUMNS = (
    "state", "tile", "infantry", "cavalry", "ships", "path_json", "costs_json",
    "travelled_json", "saved", "depart_tick", "arrival_tick", "stationary_since",
    "retreat_penalty", "meta_json",
)


def secret_defense(tile_bonus: Any) -> Modifier:
    """A holdfast's secret defense bonus as a hidden strength modifier for its defenders."""
    return Modifier("holdfast defenses", Source.HOLDFAST,
                    (Effect(EffectKind.STRENGTH, tile_bonus, Role.DEFENSE),),
                    label="holdfast defenses", hidden=True)


class _TickState:
    """One tick's work over the rows it loaded."""

    def __init__(self, session: Session, ctx: CampaignContext, campaign: Campaign, index: int,
                 at: datetime, report: TickReport) -> None:
        self.s = session
        self.ctx = ctx
        self.campaign = campaign
        self.t = index
        self.at = at
        self.report = report
        self.claims = {c.id: c for c in all_claims(session, ctx)}
        self.armies = list(armies(session, ctx))
        self.by_tile: dict[str, list[Army]] = defaultdict(list)
        for a in self.armies:
            self.by_tile[a.tile].append(a)
        self.wars = war_pairs(session, ctx)
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
        journal.log_event(self.s, self.ctx.campaign_id, self.t, kind, summary, at=self.at,
                          claim_id=claim_id, public=public, data=data, rolls=rolls)
        self.report.events.append(summary)

    def post(self, key: str, title: str, body: str, flair: str = "") -> None:
        journal.queue(self.s, self.ctx.campaign_id, key, "post", title=title, body=body,
                      flair=flair, public=True, at=self.at, tick=self.t,
                      target=self.ctx.settings.campaign.subreddit)

    def notify(self, claim_id: int, key: str, subject: str, body: str) -> None:
        journal.notify_claim(self.s, self.ctx.campaign_id, claim_id, key, subject=subject,
                             body=body, at=self.at, tick=self.t)

    def save(self, *rows: Any) -> None:
        for row in rows:
            if isinstance(row, Army):
                # Every saved army writes the same columns, so the flush sends all of them
                # in one executemany instead of one statement per distinct change.
                for name in ARMY_TICK_COLUMNS:
                    flag_modified(row, name)
            self.s.add(row)

    def book(self) -> ModifierBook:
        """The modifiers in force this tick (issue 6), loaded once per tick."""
        return tick_book(self.s, self.ctx, armies=self.armies, claims=self.claims.values(),
                         tick=self.t)

    # --- resource tiles -----------------------------------------------------------------
    def update_resource_holders(self) -> None:
        """Record who holds each occupied resource tile's benefit now; tell the new holder."""
        book = self.book()
        occupied = {a.tile for a in self.armies if a.state == ArmyState.STANDING.value
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
            self.s.add(row)
            tile = self.ctx.world.tile(tile_id)
            self.log("resource_holder", f"{tile.label}: benefit now with "
                     f"{self.claim_name(holder) if holder else 'nobody'}", claim_id=holder,
                     data={"tile": tile_id, "holder": holder, "before": before})
            if holder is not None:
                benefit = tile.resource_benefit or "its benefit"
                self.notify(holder, f"resource:{tile_id}:{self.t}",
                            f"You hold {tile.label}",
                            f"Your army holds {tile.label}: your claim receives "
                            f"{benefit} while a standing army of yours is the strongest there. "
                            "It also watches the land around it like a holdfast.")

    # --- monthly jobs -------------------------------------------------------------------
    def run_month(self, month: int, date: calendar.GameDate) -> None:
        self.s.add(MonthlyRun(campaign_id=self.ctx.campaign_id, month=month, tick=self.t))
        self.s.flush()
        season = Season(self.campaign.season)
        for claim in self.claims.values():
            self.report.events.extend(month_for_claim(  # issue 6: improvements, capacity
                self.s, self.ctx, self.book(), claim, month, tick=self.t, at=self.at))
            self._upkeep(claim, season, date)
            self._regenerate(claim, date)
        self._advance_sieges(date)
        self.campaign.last_month = month
        self.report.months.append(month)

    def _upkeep(self, claim: Claim, season: Season, date: calendar.GameDate) -> None:
        raised = [a for a in self.armies if a.claim_id == claim.id and a.state in ACTIVE_STATES]
        inf = sum(a.infantry for a in raised)
        cav = sum(a.cavalry for a in raised)
        ships = sum(a.ships for a in raised)
        income_mods = self.book().claim(claim)  # issue 6: gold income of the claim
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
            a.state = ArmyState.GONE.value
            a.path_json, a.costs_json = [], []
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

    def _advance_sieges(self, date: calendar.GameDate) -> None:
        sieges = self.s.exec(select(Siege).where(Siege.campaign_id == self.ctx.campaign_id,
                                                 Siege.status == "active")).all()
        for siege in sieges:
            besieger = next((a for a in self.armies if a.id == siege.army_id), None)
            on_tile = besieger is not None and besieger.tile == siege.holdfast \
                and besieger.state == ArmyState.BESIEGING.value
            tile = self.ctx.world.tile(siege.holdfast)
            blockade_ok = True
            if tile.port:
                water = set(self.ctx.world.water_adjacent(tile.id))
                blockade_ok = any(a.kind == ArmyKind.FLEET.value and a.tile in water
                                  and a.claim_id == siege.besieger_claim
                                  and a.state == ArmyState.STANDING.value for a in self.armies)
            state = SiegeState(siege.months_required, siege.months_elapsed, siege.paused)
            new, fell = advance_siege_month(state, on_tile, blockade_ok)
            siege.months_elapsed, siege.paused = new.months_elapsed, new.paused
            if new.ended and not fell:
                siege.status = "lifted"
                self.log("siege_lifted", f"the siege of {tile.label} is lifted",
                         claim_id=siege.besieger_claim, public=True, data={"siege": siege.id})
                self.post(f"siege:{siege.id}:lifted",
                          self.ctx.settings.posts.siege_title.format(event="Siege lifted",
                                                                     holdfast=tile.label),
                          f"The besiegers have left **{tile.label}**; the siege is over.",
                          self.ctx.settings.posts.siege_flair)
            elif fell:
                self._holdfast_falls(siege, tile.label, "starved out after "
                                     f"{siege.months_elapsed} months of siege")
            else:
                note = " (paused: the blockade is broken)" if new.paused else ""
                self.log("siege_month", f"siege of {tile.label}: month {new.months_elapsed}"
                         + note, claim_id=siege.besieger_claim, public=True,
                         data={"siege": siege.id, "months": new.months_elapsed})
                self.post(f"siege:{siege.id}:month:{date.year}:{date.month}",
                          self.ctx.settings.posts.siege_title.format(event="Siege goes on",
                                                                     holdfast=tile.label),
                          f"{date}: the siege of **{tile.label}** by "
                          f"{self.claim_name(siege.besieger_claim)} enters its month "
                          f"{new.months_elapsed}{note}.", self.ctx.settings.posts.siege_flair)
                self.notify(siege.besieger_claim, f"siege:{siege.id}:left:{date.month}:"
                            f"{date.year}", f"Siege of {tile.label}",
                            f"{new.months_left} in-game months until {tile.label} falls.")
            self.save(siege)

    def _holdfast_falls(self, siege: Siege, holdfast: str, how: str) -> None:
        defender = self.claims.get(siege.defender_claim)
        captured_inf = defender.infantry if defender else 0
        captured_cav = defender.cavalry if defender else 0
        if defender is not None:
            defender.infantry = defender.cavalry = 0
            defender.scattered_infantry = defender.scattered_cavalry = 0
            self.save(defender)
        for a in self.armies:
            if a.claim_id == siege.defender_claim and a.tile == siege.holdfast \
                    and a.state in (ArmyState.GARRISON.value, ArmyState.MUSTERING.value):
                a.state = ArmyState.GONE.value
                self.save(a)
        siege.status = "fallen"
        besieger = next((a for a in self.armies if a.id == siege.army_id), None)
        if besieger is not None and besieger.state == ArmyState.BESIEGING.value:
            besieger.state = ArmyState.STANDING.value
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
        besieged = set(self.s.exec(select(Siege.holdfast).where(
            Siege.campaign_id == self.ctx.campaign_id, Siege.status == "active")).all())
        for a in self.armies:
            if a.state != ArmyState.MUSTERING.value or a.ready_tick is None \
                    or a.ready_tick > self.t:
                continue
            if a.tile in besieged:
                a.state = ArmyState.GARRISON.value
            elif a.path_json:
                a.state = ArmyState.MARCHING.value
            else:
                a.state = ArmyState.STANDING.value
            a.stationary_since = self.t
            self.save(a)
            self.log("muster_done", f"army {a.id} is ready at {a.tile}", claim_id=a.claim_id,
                     data={"army": a.id})
            self.notify(a.claim_id, f"ready:{a.id}", f"Army {a.id} is ready",
                        f"Army {a.id} ({troops_text(a.infantry, a.cavalry, a.ships)}) has "
                        f"mustered at {self.label(a.tile)} and is {a.state}.")

    # --- movement -----------------------------------------------------------------------
    def move_armies(self) -> None:
        observers = self._observers()
        for a in self.armies:
            if a.state not in (ArmyState.MARCHING.value, ArmyState.RETREATING.value):
                continue
            if a.depart_tick is None or a.depart_tick > self.t or not a.path_json:
                continue
            is_fleet = a.kind == ArmyKind.FLEET.value
            budget = budget_per_tick(a.infantry, a.cavalry, self.ctx.rules, is_fleet=is_fleet,
                                     modifiers=self.book().army(a))  # issue 6
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

    def _observers(self) -> dict[str, tuple[int, ObserverKind]]:
        """Observer tiles and the claim that watches from each."""
        found: dict[str, tuple[int, ObserverKind]] = {}
        for claim in self.claims.values():
            found[claim.holdfast] = (claim.id or 0, ObserverKind.HOLDFAST)
        for a in self.armies:
            if a.state == ArmyState.STANDING.value and a.tile in self.ctx.world \
                    and self.ctx.world.tile(a.tile).resource and a.tile not in found:
                found[a.tile] = (a.claim_id, ObserverKind.RESOURCE_TILE)
        return found

    def _detect(self, a: Army, observers: dict[str, tuple[int, ObserverKind]]) -> None:
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
            dice = self.ctx.dice("detect", self.t, a.id or 0, tile_id)
            watching = self.book().observer(watcher[0], tile_id)  # issue 6
            result = roll_detection(size, watcher[1], dice=dice, rules=self.ctx.rules,
                                    observer_modifiers=watching,
                                    stealth_modifiers=self.book().army(a))
            changed_by = labels_for(result.applied, watching)
            self.log("detection", f"{self.label(tile_id)} rolls to detect army {a.id}: "
                     + ("detected" if result.detected else "not detected"),
                     claim_id=watcher[0],
                     data={"army": a.id, "observer": tile_id, "detected": result.detected,
                           "target": result.target, "roll": result.roll,
                           "bonus": result.bonus, "modifiers": list(changed_by)},
                     rolls=dice.rolls)
            if result.detected:
                detected_by = self._detected_by(a)
                detected_by.add(watcher[0])
                self._set_meta(a, detected_by=sorted(detected_by))
                roll = "automatic" if result.automatic else \
                    f"d20 {result.roll} + {result.bonus} = {result.total} vs {result.target}" \
                    + (f" ({', '.join(changed_by)})" if changed_by else "")
                self.notify(watcher[0], f"detect:{a.id}:{self.t}:{tile_id}",
                            f"A host is sighted near {self.label(tile_id)}",
                            f"Your watchers at {self.label(tile_id)} sight an army of "
                            f"{self.claim_name(a.claim_id)} at {self.label(a.tile)}, "
                            f"{self.ctx.when(self.at)}: "
                            f"{troops_text(a.infantry, a.cavalry, a.ships)}. "
                            f"Detection roll: {roll}.")
        self._set_meta(a, rolled=sorted(rolled))

    def _set_meta(self, a: Army, **values: Any) -> None:
        meta = dict(a.meta_json)
        meta.update(values)
        a.meta_json = meta

    def _detected_by(self, a: Army) -> set[int]:
        return set(a.meta_json.get("detected_by", []))

    def _encounter(self, a: Army) -> bool:
        """A marching army entering a tile held by an enemy at war stops there to fight."""
        if a.state == ArmyState.RETREATING.value:
            return False
        for other in self.by_tile.get(a.tile, ()):
            if other is a or other.kind != a.kind:
                continue
            if other.state not in (ArmyState.STANDING.value, ArmyState.BESIEGING.value):
                continue
            if not self.at_war(a.claim_id, other.claim_id):
                continue
            reactor = other.claim_id if other.claim_id in self._detected_by(a) else a.claim_id
            battle = PendingBattle(
                campaign_id=self.ctx.campaign_id, tile=a.tile, kind="field",
                attacker_army=a.id or 0, defender_army=other.id or 0,
                attacker_claim=a.claim_id, defender_claim=other.claim_id,
                created_tick=self.t, resolve_tick=self.t + self.ctx.rules.reaction_ticks,
                reactor_claim=reactor)
            self.s.add(battle)
            when = self.ctx.when(self.ctx.tick_at(battle.resolve_tick))
            self.log("encounter", f"army {a.id} meets enemy army {other.id} at {a.tile}",
                     claim_id=a.claim_id, data={"attacker": a.id, "defender": other.id,
                                                "reactor": reactor})
            for claim_id, own, enemy in ((a.claim_id, a, other), (other.claim_id, other, a)):
                choice = (f" You have the first reaction: reply `retreat army {own.id}` or "
                          f"`stand army {own.id}` before then.") if claim_id == reactor else ""
                self.notify(claim_id, f"encounter:{self.t}:{a.id}:{other.id}",
                            f"Battle looms at {self.label(a.tile)}",
                            f"Your army {own.id} faces army {enemy.id} of "
                            f"{self.claim_name(enemy.claim_id)} at {self.label(a.tile)}. The "
                            f"battle is fought at {when}.{choice}")
            return True
        return False

    def _arrive(self, a: Army, *, interrupted: bool) -> None:
        was_retreat = a.state == ArmyState.RETREATING.value
        a.state = ArmyState.STANDING.value
        a.stationary_since = self.t
        a.path_json, a.costs_json = [], []
        a.saved = "0"
        a.arrival_tick = self.t
        a.travelled_json = [] if was_retreat else a.travelled_json
        if interrupted:
            return
        what = "returns to" if was_retreat else "arrives at"
        self.log("arrival", f"army {a.id} of {self.claim_name(a.claim_id)} {what} {a.tile}",
                 claim_id=a.claim_id, public=True, data={"army": a.id, "tile": a.tile})
        self.post(f"arrival:{a.id}:{self.t}",
                  self.ctx.settings.posts.arrival_title.format(
                      claim=self.claim_name(a.claim_id), tile=self.label(a.tile)),
                  f"A host of **{self.claim_name(a.claim_id)}** {what} "
                  f"**{self.label(a.tile)}** ({self.ctx.when(self.at)}).",
                  self.ctx.settings.posts.arrival_flair)

    # --- battles ------------------------------------------------------------------------
    def resolve_battles(self) -> None:
        due = self.s.exec(select(PendingBattle).where(
            PendingBattle.campaign_id == self.ctx.campaign_id,
            PendingBattle.status == "pending", col(PendingBattle.resolve_tick) <= self.t,
        ).order_by(col(PendingBattle.id))).all()
        by_id = {a.id: a for a in self.armies}
        for battle in due:
            if battle.kind == "field":
                self._field_battle(battle, by_id)
            elif battle.kind == "assault":
                self._assault(battle, by_id)
            else:
                self._sally(battle, by_id)
            self.save(battle)

    def _characters(self, army_id: int) -> tuple[str, ...]:
        rows = self.s.exec(select(Character).where(Character.army_id == army_id,
                                                   Character.status == "alive")).all()
        return tuple(r.name for r in rows)

    def _side(self, a: Army, *, moving: bool = False, assault: bool = False) -> Side:
        terrain = self.ctx.world.tile(a.tile).terrain if a.tile in self.ctx.world \
            else Terrain.FIELD
        stationary = not moving and a.state in (
            ArmyState.STANDING.value, ArmyState.BESIEGING.value, ArmyState.GARRISON.value
        ) and (a.stationary_since is None or a.stationary_since < self.t or
               a.arrival_tick != self.t)
        return Side(infantry=a.infantry, cavalry=a.cavalry, ships=a.ships, terrain=terrain,
                    stationary=stationary, retreat_penalty=a.retreat_penalty,
                    characters=self._characters(a.id or 0),
                    modifiers=self.book().army(a, equipment=assault))  # issue 6

    def _field_battle(self, battle: PendingBattle, by_id: dict[int | None, Army]) -> None:
        att = by_id.get(battle.attacker_army)
        dfd = by_id.get(battle.defender_army)
        if att is None or dfd is None or att.tile != dfd.tile \
                or ArmyState.GONE.value in (att.state, dfd.state):
            battle.status = "void"
            self.log("battle_void", f"battle {battle.id} does not happen: the armies parted",
                     data={"battle": battle.id})
            return
        if battle.reaction == "retreat" and battle.reactor_claim is not None:
            runner = att if att.claim_id == battle.reactor_claim else dfd
            if self._try_retreat(battle, runner):
                battle.status = "avoided"
                return
        # The defender bonus is the defender's: the attacker either marched in (in transit)
        # or left its own position to attack, so it never has it.
        result = resolve_battle(self._side(att, moving=True),
                                self._side(dfd), dice=self.ctx.dice("battle", battle.id or 0),
                                rules=self.ctx.rules)
        battle.status = "resolved"
        self._apply_result(battle, result, att, dfd, hidden_defender=False)

    def _try_retreat(self, battle: PendingBattle, runner: Army) -> bool:
        dice = self.ctx.dice("retreat", battle.id or 0)
        result = roll_retreat(runner.infantry, runner.cavalry, runner.ships, dice=dice,
                              rules=self.ctx.rules)
        if not result.success:
            runner.retreat_penalty = True
            self.save(runner)
            self.log("retreat_failed", f"army {runner.id} fails to retreat (d20 {result.roll})",
                     claim_id=runner.claim_id, data={"battle": battle.id}, rolls=dice.rolls)
            return False
        lost = result.lost
        runner.infantry, runner.cavalry, runner.ships = (result.escaped.infantry,
                                                         result.escaped.cavalry,
                                                         result.escaped.ships)
        self.record_slain(runner.claim_id, lost.infantry, lost.cavalry)
        self._send_back(runner)
        self.log("retreat", f"army {runner.id} retreats from {self.label(battle.tile)} (d20 "
                 f"{result.roll}, keeps {result.fraction * 100:.0f}%)", claim_id=runner.claim_id,
                 public=True, data={"battle": battle.id, "lost": [lost.infantry, lost.cavalry]},
                 rolls=dice.rolls)
        self.post(f"battle:{battle.id}:retreat",
                  f"[Battle] {self.claim_name(runner.claim_id)} withdraws from "
                  f"{self.label(battle.tile)}",
                  f"Rather than give battle at **{self.label(battle.tile)}**, the host of "
                  f"{self.claim_name(runner.claim_id)} withdraws (retreat roll {result.roll}).",
                  self.ctx.settings.posts.battle_flair)
        return True

    def _send_back(self, a: Army) -> None:
        """Sends an army back the way it came (a retreat); with no way back it stays."""
        back = list(reversed(a.travelled_json))
        if not back:
            a.state = ArmyState.STANDING.value
            self.save(a)
            return
        kind = PathKind.FLEET if a.kind == ArmyKind.FLEET.value else PathKind.LAND
        costs = [entry_cost(self.ctx.world.tile(t), kind, self.ctx.rules) or 1 for t in back]
        a.state = ArmyState.RETREATING.value
        a.path_json, a.costs_json, a.saved = back, costs, "0"
        a.travelled_json = []
        a.depart_tick = self.t + 1
        self.save(a)

    def _apply_result(self, battle: PendingBattle, result: BattleResult, att: Army | None,
                      dfd: Army | None, *, hidden_defender: bool,
                      garrison_claim: Claim | None = None,
                      public: PublicAssault | None = None) -> None:
        for which, a in ((Winner.ATTACKER, att), (Winner.DEFENDER, dfd)):
            side = result.side(which)
            if a is not None:
                a.infantry -= side.losses.infantry
                a.cavalry -= side.losses.cavalry
                a.ships -= side.losses.ships
                a.retreat_penalty = False
                if side.captured or a.infantry + a.cavalry + a.ships == 0:
                    a.state = ArmyState.GONE.value
                self.save(a)
                if not side.captured:
                    self.record_slain(a.claim_id, side.losses.infantry, side.losses.cavalry)
            elif garrison_claim is not None:
                garrison_claim.infantry -= side.losses.infantry
                garrison_claim.cavalry -= side.losses.cavalry
                garrison_claim.scattered_infantry = min(garrison_claim.scattered_infantry,
                                                        garrison_claim.infantry)
                garrison_claim.scattered_cavalry = min(garrison_claim.scattered_cavalry,
                                                       garrison_claim.cavalry)
                self.save(garrison_claim)
                if not side.captured:
                    self.record_slain(garrison_claim.id or 0, side.losses.infantry,
                                      side.losses.cavalry)
        att_name = self.claim_name(battle.attacker_claim)
        dfd_name = self.claim_name(battle.defender_claim)
        winner_name = att_name if result.winner is Winner.ATTACKER else dfd_name
        self.log("battle", f"{att_name} vs {dfd_name} at {battle.tile}: {winner_name} wins",
                 claim_id=battle.attacker_claim, public=True,
                 data={"battle": battle.id, "kind": battle.kind, "winner": result.winner.value,
                       "band": result.band, "margin": result.margin},
                 rolls=result.rolls)
        title = self.ctx.settings.posts.battle_title.format(
            attacker=att_name, defender=dfd_name, tile=self.label(battle.tile))
        settled = after_battle(self.s, self.ctx, battle, result, att, dfd, tick=self.t,
                               at=self.at)  # issue 6: secrets to their owners, fate tables
        body = battle_post(result, attacker=att_name, defender=dfd_name,
                           place=self.label(battle.tile), when=self.ctx.when(self.at),
                           kind=battle.kind, hide_defender=hidden_defender, settled=settled,
                           public=public)
        self.post(f"battle:{battle.id}", title, body, self.ctx.settings.posts.battle_flair)
        if hidden_defender and garrison_claim is not None:
            self.notify(garrison_claim.id or 0, f"battle:{battle.id}:defenses",
                        f"The assault on {self.label(battle.tile)}",
                        "Your holdfast's defenses multiplied your garrison's strength: "
                        + ", ".join(result.defender.strength.all_labels())
                        + f"; strength {money(result.defender.strength.value)}.")
        loser = att if result.winner is Winner.DEFENDER else dfd
        if loser is not None and loser.state != ArmyState.GONE.value:
            self._send_back(loser)

    def _garrison_side(self, claim: Claim, tile_id: str) -> Side:
        tile = self.ctx.world.tile(tile_id)
        mods = (secret_defense(tile.defense_bonus),) if tile.defense_bonus != 1 else ()
        return Side(infantry=claim.infantry, cavalry=claim.cavalry, terrain=tile.terrain,
                    stationary=True, modifiers=(*mods, *self.book().holdfast(claim)),
                    characters=self.book().home_characters(claim.id or 0))  # issue 6

    def _assault(self, battle: PendingBattle, by_id: dict[int | None, Army]) -> None:
        att = by_id.get(battle.attacker_army)
        claim = self.claims.get(battle.defender_claim)
        if att is None or claim is None or att.tile != battle.holdfast \
                or att.state == ArmyState.GONE.value:
            battle.status = "void"
            return
        sides = (self._side(att, moving=True, assault=True),
                 self._garrison_side(claim, battle.holdfast))
        result = resolve_battle(*sides, dice=self.ctx.dice("battle", battle.id or 0),
                                rules=self.ctx.rules)
        battle.status = "resolved"
        won = result.winner is Winner.ATTACKER
        self._apply_result(battle, result, att, None, hidden_defender=True,
                           garrison_claim=claim,
                           public=public_assault(*sides, result, self.ctx.rules))
        if won:
            siege = self.s.exec(select(Siege).where(
                Siege.campaign_id == self.ctx.campaign_id, Siege.holdfast == battle.holdfast,
                Siege.status == "active")).first()
            if siege is None:
                siege = Siege(campaign_id=self.ctx.campaign_id, army_id=att.id or 0,
                              besieger_claim=att.claim_id, defender_claim=claim.id or 0,
                              holdfast=battle.holdfast, started_tick=self.t)
                self.s.add(siege)
                self.s.flush()
            if att.state != ArmyState.GONE.value:
                att.state = ArmyState.STANDING.value
                att.tile = battle.holdfast
                self.save(att)
            self._holdfast_falls(siege, self.label(battle.holdfast), "taken by assault")

    def _sally(self, battle: PendingBattle, by_id: dict[int | None, Army]) -> None:
        besieger = by_id.get(battle.defender_army)
        claim = self.claims.get(battle.attacker_claim)
        siege = self.s.exec(select(Siege).where(
            Siege.campaign_id == self.ctx.campaign_id, Siege.holdfast == battle.holdfast,
            Siege.status == "active")).first()
        if besieger is None or claim is None or siege is None \
                or besieger.state != ArmyState.BESIEGING.value:
            battle.status = "void"
            return
        sally_army = by_id.get(battle.attacker_army) if battle.attacker_army else None
        if sally_army is not None:
            sally_side = self._side(sally_army, moving=True)
        else:
            sally_side = Side(infantry=claim.infantry, cavalry=claim.cavalry,
                              terrain=self.ctx.world.tile(battle.holdfast).terrain,
                              modifiers=self.book().holdfast(claim),  # issue 6
                              characters=self.book().home_characters(claim.id or 0))
        result = resolve_battle(sally_side, self._side(besieger),
                                dice=self.ctx.dice("battle", battle.id or 0),
                                rules=self.ctx.rules)
        battle.status = "resolved"
        self._apply_result(battle, result, sally_army, besieger, hidden_defender=False,
                           garrison_claim=None if sally_army else claim)
        if result.winner is Winner.ATTACKER:
            siege.status = "broken"
            self.save(siege)
            self.log("siege_broken", f"the sally breaks the siege of {battle.holdfast}",
                     claim_id=claim.id, public=True, data={"siege": siege.id})
        elif sally_army is not None and sally_army.state != ArmyState.GONE.value:
            sally_army.state = ArmyState.GARRISON.value
            sally_army.tile = battle.holdfast
            sally_army.path_json, sally_army.costs_json = [], []
            self.save(sally_army)


def world_digest(session: Session, ctx: CampaignContext) -> dict[str, Any]:
    """A small per-claim summary (used by tests and the CLI)."""
    counts: dict[int, int] = defaultdict(int)
    for a in armies(session, ctx):
        counts[a.claim_id] += 1
    return {c.name: counts[c.id or 0] for c in all_claims(session, ctx)}
