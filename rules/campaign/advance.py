"""What a tick decides, as pure functions over :class:`~rules.campaign.state.World` values.

``advance_*`` functions take the world before a phase and return the world after it with the
events of the phase, in the order they happened (plain values: the services journal them and
render posts and messages from them; nothing here is markdown). Dice come from
:class:`~rules.campaign.state.EventDice`, keyed per event exactly as the tick has always keyed
them, so a replay, the demo and a database tick roll the same dice.

The phases of a tick, in order (:func:`bot.services.tick.apply_tick` runs them):

1. the monthly jobs of every in-game month boundary the tick passes, claim by claim:
   :func:`advance_improvements` (improvements finished, troops at home in line with the
   capacity effects), then :func:`advance_upkeep` (pay the month's upkeep or scatter) and
   :func:`advance_regeneration` (the slain coming back);
2. :func:`advance_musters`: musters that are ready;
3. :func:`advance_movement`: marches and retreats step on; every tile entered is watched by the
   holdfasts and resource tiles near it (detection rolls) and an army entering a tile held by
   an enemy at war stops there (an encounter: a battle after the reaction window);
4. :func:`advance_battles`: the battles whose reaction window has closed: a retreat is
   rolled for (after a failed one the opponent decides), field battles, assaults on a
   holdfast's garrison (a won assault takes the holdfast) and sallies out of a besieged one
   (a won sally that drives the besiegers off the tile, or takes them, breaks the siege;
   beaten besiegers with no way back hold the tile and the siege goes on); losses, captures
   and the beaten sent back; the fate tables of the characters called to a death or an injury
   roll, when the campaign has the bot roll them (a character killed no longer fights, even
   in a later battle of the same tick);
5. :func:`advance_meetings`: hostile armies still sharing a tile meet in a battle;
6. :func:`advance_sieges`: sieges whose besiegers left end, each siege month completed counts
   (a holdfast starved out falls: :func:`holdfast_falls`, also what a won assault does), and
   armies behind walls no siege holds come out;
7. :func:`advance_holders`: who receives each occupied resource tile's benefit now.

:func:`advance_moves` runs 2 and 3 together (they share the observers of the tick);
:func:`advance` runs 2 to 7 in order (the monthly jobs run before it, claim by claim: a
claim's gold income and troop capacity come from modifiers the services look up between the
claims).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from decimal import Decimal
from fractions import Fraction
from typing import Any

from rules.campaign import calendar
from rules.campaign.battle import BattleResult, Side, SideResult, Winner, resolve_battle
from rules.campaign.catalogue import Catalogue, Entry, Section
from rules.campaign.characters import (
    NO_FATE_ROLLS,
    Fate,
    FateSettings,
    TableRoll,
    settle_fate,
)
from rules.campaign.config import RulesConfig
from rules.campaign.contingents import split_losses
from rules.campaign.detection import (
    DetectionResult,
    ObserverKind,
    Target,
    detection_target,
    roll_against,
)
from rules.campaign.holdfasts import change_hands
from rules.campaign.improvements import (
    capacity_granted,
    improvement_modifiers,
    improvement_records,
    stored_items,
)
from rules.campaign.meetings import Presence, Step, hostile_meetings, settle_steps
from rules.campaign.modifiers import (
    Applied,
    Effect,
    EffectKind,
    Modifier,
    Role,
    Source,
    collect,
    total,
)
from rules.campaign.movement import (
    budget_per_tick,
    enter_tiles,
    marches_on,
    ticks_to_cross,
)
from rules.campaign.paths import entry_cost
from rules.campaign.publication import PublicAssault, public_assault
from rules.campaign.resources import tile_holder
from rules.campaign.retreat import RetreatResult, roll_retreat
from rules.campaign.sides import GARRISON_STATES, fighting_sides, garrison_armies, join_wars
from rules.campaign.siege import SiegeState as SiegeCount
from rules.campaign.siege import advance_siege_month, month_checks
from rules.campaign.state import (
    NO_MODIFIERS,
    BattleState,
    CharacterState,
    ClaimState,
    EventDice,
    HolderState,
    Modifiers,
    SiegeState,
    World,
    fighting_side,
)
from rules.campaign.upkeep import (
    UpkeepResult,
    accrue_month,
    apply_upkeep,
    record_loss,
    troops_of,
)
from rules.campaign.world import (
    ACTIVE_STATES,
    FREE_CHARACTERS,
    Army,
    ArmyKind,
    ArmyState,
    BattleKind,
    BattleStatus,
    CharacterStatus,
    March,
    Reaction,
    SiegeStatus,
    battle_side,
    evolve,
    moved,
)
from rules.campaign.worldmap import WorldMap
from rules.dice import Roll
from rules.fairdice import claim_branch

__all__ = [
    "Arrival",
    "BattleFought",
    "BattleVoid",
    "CapacityChanged",
    "Detection",
    "Encounter",
    "FateRolled",
    "HolderChanged",
    "HoldfastFalls",
    "ImprovementDone",
    "MusterDone",
    "OpponentDecides",
    "Regenerated",
    "RetreatFailed",
    "RetreatReferred",
    "Retreated",
    "Scattered",
    "SiegeEnded",
    "SiegeMonth",
    "Tick",
    "TickEvent",
    "UpkeepPaid",
    "advance",
    "advance_battles",
    "advance_holders",
    "advance_improvements",
    "advance_meetings",
    "advance_movement",
    "advance_moves",
    "advance_musters",
    "advance_regeneration",
    "advance_sieges",
    "advance_upkeep",
    "gone",
    "holdfast_falls",
    "observers_of",
    "secret_defense",
]


@dataclass(frozen=True, slots=True)
class Tick:
    """The tick being applied: its index, the map and the rules numbers, and the modifiers in
    force (:data:`~rules.campaign.state.NO_MODIFIERS` without a catalogue)."""

    index: int
    map: WorldMap
    rules: RulesConfig
    modifiers: Modifiers = NO_MODIFIERS
    fates: FateSettings = NO_FATE_ROLLS
    """Whether the bot rolls the characters' fate tables after a battle, and the tables."""


# --- events ---------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class MusterDone:
    """A mustering army is ready (``army`` as it is now: standing, marching or in garrison)."""

    army: Army


@dataclass(frozen=True, slots=True)
class Detection:
    """Claim ``watcher`` rolled, from ``observer`` (a tile), to detect ``army`` (as it stood
    then, on the tile it had just entered). ``watching``: the watcher's own modifiers (to name
    its secret ones to it alone); ``guard``: a standing army of the watcher on the observer
    tile that may intercept the passing force (None: none may); ``dice_line``: the printed
    dice; ``rolls``: the dice rolled."""

    army: Army
    watcher: int
    observer: str
    result: DetectionResult
    watching: tuple[Modifier, ...]
    guard: int | None
    dice_line: str
    rolls: tuple[object, ...]


@dataclass(frozen=True, slots=True)
class Encounter:
    """``attacker`` met the enemy ``defender`` on its tile: ``battle`` is fought after the
    reaction window; ``battle.reactor_claim`` has the first reaction."""

    attacker: Army
    defender: Army
    battle: BattleState


@dataclass(frozen=True, slots=True)
class Arrival:
    """An army reached the end of its march (``returned``: the end of a retreat)."""

    army: Army
    returned: bool


@dataclass(frozen=True, slots=True)
class SiegeEnded:
    """``siege`` ended (its status says how: lifted, or broken by a sally) because its
    besiegers ``fate`` (completes "The besiegers of CLAIM ...")."""

    siege: SiegeState
    fate: str


@dataclass(frozen=True, slots=True)
class SiegeMonth:
    """Siege month ``month`` (1-based from the start) of ``siege`` completed; the siege as it
    is now (``paused``: the month did not count, the blockade is broken)."""

    siege: SiegeState
    month: int
    months_left: int


@dataclass(frozen=True, slots=True)
class HoldfastFalls:
    """The holdfast of ``siege`` fell: ``how`` (``taken by assault``, ``starved out after N
    months of siege``); the garrison captured (``infantry``, ``cavalry``); it is now the
    besieger's claim's. ``seat_lost``: it was the defender's seat (that claim has no seat until
    the moderators give one)."""

    siege: SiegeState
    how: str
    infantry: int
    cavalry: int
    seat_lost: bool = False


@dataclass(frozen=True, slots=True)
class HolderChanged:
    """The benefit of resource tile ``tile`` passed from claim ``before`` to ``holder`` (None:
    nobody)."""

    tile: str
    holder: int | None
    before: int | None


@dataclass(frozen=True, slots=True)
class UpkeepPaid:
    """``claim`` (as it is now) paid the upkeep of in-game month ``date`` for its raised
    ``infantry``, ``cavalry`` and ``ships`` (``result``: cost, income, gold left)."""

    claim: ClaimState
    date: calendar.GameDate
    result: UpkeepResult
    infantry: int
    cavalry: int
    ships: int


@dataclass(frozen=True, slots=True)
class Scattered:
    """``claim`` could not pay the upkeep of in-game month ``date``: its armies scattered,
    ``result.survivors`` went home (locked until ``claim.scattered_until``)."""

    claim: ClaimState
    date: calendar.GameDate
    result: UpkeepResult


@dataclass(frozen=True, slots=True)
class Regenerated:
    """``infantry`` and ``cavalry`` slain in earlier months came back to ``claim``."""

    claim: ClaimState
    infantry: int
    cavalry: int


@dataclass(frozen=True, slots=True)
class ImprovementDone:
    """``claim``'s improvement ``name`` at ``holdfast`` is finished at the start of in-game
    month ``month``; ``entry``: its catalogue entry (None: the catalogue no longer has it)."""

    claim: ClaimState
    name: str
    holdfast: str
    month: int
    entry: Entry | None


@dataclass(frozen=True, slots=True)
class CapacityChanged:
    """``claim``'s troops at home changed by ``infantry`` and ``cavalry`` at the start of
    in-game month ``month``, its capacity effects now granting ``capacity`` (infantry,
    cavalry). ``applied``: the capacity effects that count; ``modifiers``: all the claim's own
    modifiers (its secret ones it may read)."""

    claim: ClaimState
    month: int
    infantry: int
    cavalry: int
    capacity: tuple[int, int]
    applied: tuple[Applied, ...]
    modifiers: tuple[Modifier, ...]


@dataclass(frozen=True, slots=True)
class BattleVoid:
    """Field battle ``battle`` does not happen: the armies parted, or one is gone."""

    battle: BattleState


@dataclass(frozen=True, slots=True)
class RetreatReferred:
    """``runner`` chose to retreat from ``battle`` but has no way back: nothing is rolled, the
    moderators are told (the battle goes on as if it had not tried)."""

    battle: BattleState
    runner: Army


@dataclass(frozen=True, slots=True)
class RetreatFailed:
    """``runner`` rolled to retreat from ``battle`` and failed (it now carries the penalty)."""

    battle: BattleState
    runner: Army
    result: RetreatResult
    dice_line: str
    rolls: tuple[object, ...]


@dataclass(frozen=True, slots=True)
class Retreated:
    """``runner`` (as it is now: on its way back) escaped ``battle``; ``result`` says how
    many it lost."""

    battle: BattleState
    runner: Army
    result: RetreatResult
    dice_line: str
    rolls: tuple[object, ...]


@dataclass(frozen=True, slots=True)
class OpponentDecides:
    """After ``runner``'s failed retreat, ``opponent``'s claim chooses before
    ``battle.resolve_tick`` to fight or to spare it."""

    battle: BattleState
    runner: Army
    opponent: Army


@dataclass(frozen=True, slots=True)
class FateRolled:
    """After a battle the bot rolled ``character``'s fate table (``roll``) for the side
    ``side`` of claim ``claim_id``; ``dies``: the roll killed the character."""

    side: Winner
    claim_id: int
    character: str
    roll: TableRoll
    dies: bool
    dice_line: str
    rolls: tuple[Roll, ...]


@dataclass(frozen=True, slots=True)
class BattleFought:
    """``battle`` was fought: ``result``. ``attacker`` and ``defender``: the armies after their
    losses (None: the holdfast's garrison of claim ``garrison_claim`` fought on that side).
    ``hidden_defender``: an assault, whose defender strength (the secret defense bonus) is the
    claimant's alone; its ``dice_line`` then comes from the claimant's private branch, and
    ``public`` is what may be published of it. ``fates``: the fate-table rolls the bot made,
    attacker's side first (None: the campaign does not have the bot roll them; the post says
    who must roll)."""

    battle: BattleState
    result: BattleResult
    attacker: Army | None
    defender: Army | None
    hidden_defender: bool
    garrison_claim: int | None
    dice_line: str
    public: PublicAssault | None = None
    fates: tuple[FateRolled, ...] | None = None
    joined: tuple[Army, ...] = ()
    """The other armies that fought on either side (after their losses)."""

    def secret_strengths(self) -> tuple[tuple[Winner, Army], ...]:
        """The armies whose strength counted a hidden modifier: each is told privately its
        strength in full (the public post leaves the secret modifiers out)."""
        return tuple((which, a) for which, a in ((Winner.ATTACKER, self.attacker),
                                                 (Winner.DEFENDER, self.defender))
                     if a is not None and self.result.side(which).strength.has_hidden)


TickEvent = (MusterDone | Detection | Encounter | Arrival | SiegeEnded | SiegeMonth
             | HoldfastFalls | HolderChanged | ImprovementDone | CapacityChanged | UpkeepPaid
             | Scattered | Regenerated | BattleVoid | RetreatReferred | RetreatFailed
             | Retreated | OpponentDecides | BattleFought)
"""Everything the phases report."""


# --- monthly jobs ---------------------------------------------------------------------------

def advance_improvements(world: World, claim_id: int, month: int, *, catalogue: Catalogue,
                         modifiers: Sequence[Modifier] = ()) -> tuple[World, list[TickEvent]]:
    """In-game month ``month`` begins for claim ``claim_id``: its improvements due by then are
    finished, and its troops at home are brought in line with its capacity effects.

    ``modifiers``: the claim's own modifiers other than its improvements (the benefits of the
    resource tiles it holds, its living characters' skills); its finished improvements count
    from ``catalogue`` (one just finished counts at once, so its income counts this month).
    Capacity effects add troops at home when they start and take them away, as far as troops
    are at home, when they stop; what they have added is kept in the claim's improvement list.
    """
    claim = world.claims[claim_id]
    records = improvement_records(claim.improvements)
    granted = capacity_granted(claim.improvements)
    events: list[TickEvent] = []
    for record in records:
        if record.get("done") or int(record.get("ready_month", 0)) > month:
            continue
        record["done"] = True
        name = str(record["name"])
        events.append(ImprovementDone(claim, name, str(record.get("holdfast", claim.holdfast)),
                                      month, catalogue.find(Section.IMPROVEMENTS, name)))
    if events:
        claim = replace(claim, improvements=stored_items(records, granted))
    mods = (*improvement_modifiers(catalogue, claim.improvements), *modifiers) \
        if catalogue.entries else ()
    infantry = collect(mods, EffectKind.INFANTRY_CAPACITY, Role.BOTH)
    cavalry = collect(mods, EffectKind.CAVALRY_CAPACITY, Role.BOTH)
    wanted = (int(total(infantry)), int(total(cavalry)))
    if wanted != granted:
        add_inf, add_cav = wanted[0] - granted[0], wanted[1] - granted[1]
        left_inf = max(0, claim.infantry + add_inf)
        left_cav = max(0, claim.cavalry + add_cav)
        claim = replace(claim, infantry=left_inf, cavalry=left_cav,
                        scattered_infantry=min(claim.scattered_infantry, left_inf),
                        scattered_cavalry=min(claim.scattered_cavalry, left_cav),
                        improvements=stored_items(records, wanted))
        events.append(CapacityChanged(claim, month, add_inf, add_cav, wanted,
                                      (*infantry, *cavalry), mods))
    if claim is world.claims[claim_id]:
        return world, events
    return replace(world, claims={**world.claims, claim_id: claim}), events


def advance_upkeep(world: World, claim_id: int, date: calendar.GameDate, tick: Tick, *,
                   income: Sequence[Modifier] = ()) -> tuple[World, list[TickEvent]]:
    """Claim ``claim_id`` pays the upkeep of in-game month ``date`` for its raised armies out
    of its gold and the month's ``income`` (its gold income modifiers), in the world's season.
    When it cannot, every raised army scatters: the rules' survivors go home, locked until the
    end of the year, and the armies are gone."""
    claim = world.claims[claim_id]
    raised = [a for a in world.armies.values()
              if a.claim_id == claim_id and a.state in ACTIVE_STATES]
    troops = troops_of(raised)
    inf, cav, ships = troops.infantry, troops.cavalry, troops.ships
    result = apply_upkeep(claim.gold, inf, cav, world.season, tick.rules, ships,
                          income_modifiers=income)
    claim = replace(claim, gold=result.gold_after)
    if not result.scatter:
        world = replace(world, claims={**world.claims, claim_id: claim})
        return world, [UpkeepPaid(claim, date, result, inf, cav, ships)]
    home = result.survivors
    at = calendar.tick_time(tick.index, tick.rules)
    claim = replace(claim, infantry=claim.infantry + home.infantry,
                    cavalry=claim.cavalry + home.cavalry, ships=claim.ships + home.ships,
                    scattered_infantry=claim.scattered_infantry + home.infantry,
                    scattered_cavalry=claim.scattered_cavalry + home.cavalry,
                    scattered_until=calendar.scattered_until(at, tick.rules))
    armies = dict(world.armies)
    for a in raised:
        armies[a.id] = gone(a, "scattered, unpaid and unfed")
    world = replace(world, claims={**world.claims, claim_id: claim}, armies=armies)
    return world, [Scattered(claim, date, result)]


def advance_regeneration(world: World, claim_id: int, date: calendar.GameDate, tick: Tick
                         ) -> tuple[World, list[TickEvent]]:
    """The slain of claim ``claim_id`` accrue in-game month ``date`` (once per month): whole
    soldiers come back home."""
    claim = world.claims[claim_id]
    if claim.slain.last_accrued is not None and date <= claim.slain.last_accrued:
        return world, []
    ledger, inf, cav = accrue_month(claim.slain, date, tick.rules)
    claim = replace(claim, slain=ledger, infantry=claim.infantry + inf,
                    cavalry=claim.cavalry + cav)
    world = replace(world, claims={**world.claims, claim_id: claim})
    return world, [Regenerated(claim, inf, cav)] if inf or cav else []


# --- musters --------------------------------------------------------------------------------

def advance_musters(world: World, tick: Tick) -> tuple[World, list[TickEvent]]:
    """Every mustering army whose ready tick has come is ready: inside its holdfast when it is
    besieged, on the march when it was given a path, else standing."""
    due = [a for a in world.armies.values() if a.state is ArmyState.MUSTERING
           and a.ready_tick is not None and a.ready_tick <= tick.index]
    if not due:  # (the usual tick: the scan above is all it costs)
        return world, []
    besieged = world.besieged()
    armies = dict(world.armies)
    events: list[TickEvent] = []
    for a in due:
        if a.tile in besieged:
            state = ArmyState.GARRISON
        elif a.march.path:
            state = ArmyState.MARCHING
        else:
            state = ArmyState.STANDING
        ready = replace(a, state=state, stationary_since=tick.index)
        armies[a.id] = ready
        events.append(MusterDone(ready))
    return replace(world, armies=armies), events


# --- movement -------------------------------------------------------------------------------

def resource_ids(world_map: WorldMap) -> frozenset[str]:
    """The ids of the map's resource tiles."""
    return frozenset(t.id for t in world_map.resource_tiles())


def observers_of(world: World, tick: Tick) -> dict[str, tuple[int, ObserverKind]]:
    """The tiles watched this tick and the claim watching from each: every claim's holdfast,
    and every resource tile a standing army holds (the first such army, by id)."""
    found: dict[str, tuple[int, ObserverKind]] = {}
    for claim in world.claims.values():
        found[claim.holdfast] = (claim.id, ObserverKind.HOLDFAST)
    for tile, row in world.holders.items():  # holdfasts that changed hands watch for the holder
        if tile in tick.map and tick.map.tile(tile).holdfast:
            if row.claim_id is None:
                found.pop(tile, None)
            else:
                found[tile] = (row.claim_id, ObserverKind.HOLDFAST)
    resource = resource_ids(tick.map)
    for a in world.armies.values() if resource else ():
        if a.state is ArmyState.STANDING and a.tile in resource and a.tile not in found:
            found[a.tile] = (a.claim_id, ObserverKind.RESOURCE_TILE)
    return found


def budget(a: Army, tick: Tick) -> Fraction:
    """The travel cost army ``a`` earns per tick now (its size, kind and modifiers)."""
    return budget_per_tick(a.infantry, a.cavalry, tick.rules,
                           is_fleet=a.kind is ArmyKind.FLEET,
                           modifiers=tick.modifiers.march(a))


_MOVING = (ArmyState.MARCHING, ArmyState.RETREATING)
"""The states of an army on the move."""

_HOLDING = (ArmyState.STANDING, ArmyState.BESIEGING)
"""The states of an army that stops an enemy entering its tile."""

_NO_WATCHERS: Sequence[tuple[str, tuple[int, ObserverKind]]] = ()


def _with_rolled(meta: Mapping[str, Any], rolled: set[str] | None = None
                 ) -> Mapping[str, Any]:
    """An army's bookkeeping once it has entered a tile: its ``rolled`` is the sorted list of
    ``rolled`` (default: of the keys it has), which detection writes on the first tile a
    march enters and whenever it changes; ``meta`` itself when it is that already."""
    if rolled is None:  # the usual cases first: no keys yet, or one or none
        if "rolled" not in meta:
            return {**meta, "rolled": []}
        stored = meta["rolled"]
        if type(stored) is list and len(stored) < 2:
            return meta  # sorted and without repeats already
    stored = meta.get("rolled")
    keys = sorted(set(meta.get("rolled", [])) if rolled is None else rolled)
    return meta if stored == keys else {**meta, "rolled": keys}


class _Moves:
    """One movement phase over a working copy of the armies (the world stays untouched).

    Most tiles a march enters are neither watched by anyone who has not rolled for that march
    yet nor held by an enemy: nothing happens there but the move. So a march step builds the
    army as it stood on a tile (:meth:`entered`) only where something happens (a detection
    roll, an encounter) and once at the end of the step, looks for enemies only on the tiles
    where an army of a claim at war stands (:attr:`held`), and moves the army in the index of
    the tiles once per step (no other army's step runs meanwhile, and no army stops or is
    guarded by itself, so where it stands in between counts for nothing)."""

    def __init__(self, world: World, tick: Tick, dice: EventDice) -> None:
        self.world = world
        self.tick = tick
        self.dice = dice
        self.armies: dict[int, Army] = dict(world.armies)
        self.warring = frozenset(claim for pair in world.wars for claim in pair)
        """The claims at war with some claim: only their armies meet enemies."""
        # The armies on each tile, in the order they came (the order encounters look in).
        self.by_tile: dict[str, list[int]] = {}
        self.held: set[str] = set()
        """The tiles where an army of a claim at war stands or besieges as the phase begins
        (the only tiles where a march may meet an enemy standing)."""
        self.moving: list[Army] = []
        """The armies on the move, by id."""
        self.limits: dict[int, int] = {}
        """How many tiles each army on the move enters this tick (:meth:`settle`)."""
        by_tile, moving, held, warring = self.by_tile, self.moving, self.held, self.warring
        for a in world.armies.values():
            here = by_tile.get(a.tile)
            if here is None:
                by_tile[a.tile] = [a.id]
            else:
                here.append(a.id)
            if a.state in _MOVING:
                moving.append(a)
            elif a.state in _HOLDING and a.claim_id in warring:
                held.add(a.tile)
        self.battles: list[BattleState] = list(world.battles)
        self.events: list[TickEvent] = []
        self.budgets: dict[tuple[int, int, ArmyKind, tuple[Modifier, ...]], Fraction] = {}
        self.savings: dict[tuple[int, int], Fraction] = {}
        """What marches have saved in this phase (:func:`enter_tiles`)."""
        self.watched: dict[str, list[tuple[str, tuple[int, ObserverKind]]]] = {}
        self.targets: dict[tuple[int, ObserverKind, tuple[Modifier, ...],
                                 tuple[Modifier, ...]], Target] = {}

    def budget(self, a: Army) -> Fraction:
        """:func:`budget`, worked out once per size, kind and modifiers in this phase."""
        key = (a.infantry, a.cavalry, a.kind, self.tick.modifiers.march(a))
        found = self.budgets.get(key)
        if found is None:
            found = self.budgets[key] = budget_per_tick(
                a.infantry, a.cavalry, self.tick.rules, is_fleet=a.kind is ArmyKind.FLEET,
                modifiers=key[3])
        return found

    def on_tile(self, tile: str) -> list[Army]:
        return [self.armies[i] for i in self.by_tile.get(tile, ())]

    def move_all(self) -> None:
        self.watch(observers_of(self.world, self.tick))
        index = self.tick.index
        stepping = [a for a in self.moving  # (no tile is entered on the departure tick itself)
                    if a.march.path and marches_on(index, a.march.depart_tick)]
        self.limits = self.settle(stepping)
        for a in stepping:  # (a step changes no army but the one stepping)
            self.step(a)

    def settle(self, stepping: Sequence[Army]) -> dict[int, int]:
        """How many tiles each stepping army enters, all armies moving at once
        (:func:`rules.campaign.meetings.settle_steps`): the standing armies that stop an
        enemy are those holding their tile as the phase begins; the armies on the move that
        do not step this tick end their step where they are."""
        steps = {a.id: Step(a.id, a.claim_id, a.kind, a.tile, ()) for a in self.moving}
        for a in stepping:
            m = a.march
            n, _ = enter_tiles(m.costs, 0, m.saved, self.budget(a), self.savings)
            steps[a.id] = Step(a.id, a.claim_id, a.kind, a.tile, m.path[:n])
        standing: dict[str, list[tuple[int, str]]] = {}
        for a in self.world.armies.values():
            if a.state in _HOLDING and a.id not in steps:
                standing.setdefault(a.tile, []).append((a.claim_id, a.kind))
        return settle_steps(list(steps.values()), self.world.at_war, standing)

    def step(self, a: Army) -> None:
        """Army ``a`` marches on for one tick (:func:`~rules.campaign.movement.enter_tiles`):
        it enters every next tile its saving covers, is watched on each (:meth:`detect`), and
        stops at the first one an enemy at war holds (:meth:`encounter`) or at the end of its
        path (:meth:`arrive`)."""
        m = a.march
        entered, saved = enter_tiles(m.costs, 0, m.saved, self.budget(a), self.savings)
        met = self.limits.get(a.id, entered) < entered
        if met:  # it meets an enemy on its way: it stops there
            entered = self.limits[a.id]
        if not entered:
            self.armies[a.id] = evolve(a, march=March(m.path, m.costs, saved, m.depart_tick))
            return
        self.by_tile[a.tile].remove(a.id)
        meta = a.meta
        rolled: set[str] | None = None  # who has rolled for this march ("depart:tile"),
        # read when it first enters a watched tile (most tiles are watched by nobody)
        may_meet = a.claim_id in self.warring
        now, now_at = a, -1  # the army as it stood on tile ``now_at`` of its path
        stopped = False
        watched, held = self.watched, self.held
        for i in range(entered):
            tile = m.path[i]
            watchers = _NO_WATCHERS
            near = watched.get(tile)
            if near:
                if rolled is None:
                    rolled = set(meta.get("rolled", []))
                watchers = self.unrolled(near, a, rolled)
            if watchers and rolled is not None:
                now, now_at = self.entered(a, i, saved, meta), i
                meta = self.detect(now, watchers, rolled)
            elif i == 0:
                meta = _with_rolled(meta)
            if may_meet and i == entered - 1 and (tile in held or met):
                if now_at != i or now.meta is not meta:
                    now, now_at = self.entered(a, i, saved, meta), i
                # an enemy standing there since the phase began: a battle begins
                stopped = self.encounter(now) or met
        if now_at != i or now.meta is not meta:
            now = self.entered(a, i, saved, meta)
        here = self.by_tile.get(now.tile)
        if here is None:
            self.by_tile[now.tile] = [a.id]
        else:
            here.append(a.id)
        if stopped or not now.march.path:
            now = self.arrive(now, interrupted=stopped)
        self.armies[a.id] = now

    @staticmethod
    def entered(a: Army, i: int, saved: Fraction, meta: Mapping[str, Any]) -> Army:
        """Army ``a`` as it began its step, once it has entered tile ``i`` of its path (what
        ``i + 1`` moves of one tile each give): its saving ``saved`` (what is left after the
        whole step) and its bookkeeping ``meta``."""
        m = a.march
        return moved(a, m.path[i], (*a.travelled, a.tile, *m.path[:i]),
                     March(m.path[i + 1:], m.costs[i + 1:], saved, m.depart_tick), meta)

    def watch(self, observers: Mapping[str, tuple[int, ObserverKind]]) -> None:
        """Note, for every tile, the watched tiles within the detection radius of it and who
        watches from each, by tile id (the radius is symmetric: the tiles near each watched
        tile, once per phase, rather than the tiles near each tile entered)."""
        radius = self.tick.rules.detection_radius
        for tile_id in sorted(observers):
            if tile_id in self.tick.map.tiles:
                for near in self.tick.map.tiles_within(tile_id, radius):
                    self.watched.setdefault(near, []).append((tile_id, observers[tile_id]))

    @staticmethod
    def unrolled(near: Sequence[tuple[str, tuple[int, ObserverKind]]], a: Army,
                 rolled: set[str]) -> Sequence[tuple[str, tuple[int, ObserverKind]]]:
        """Those of the watched tiles ``near`` the tile army ``a`` has just entered
        (:meth:`watch`) that roll to detect it: those another claim watches from and that have
        not rolled for this march yet (``rolled``), by tile id."""
        depart = a.march.depart_tick
        return [(tile_id, watcher) for tile_id, watcher in near
                if watcher[0] != a.claim_id and f"{depart}:{tile_id}" not in rolled]

    def detect(self, a: Army, watchers: Sequence[tuple[str, tuple[int, ObserverKind]]],
               rolled: set[str]) -> Mapping[str, Any]:
        """Each of ``watchers`` (:meth:`unrolled`) rolls to detect ``a`` on the tile it has
        just entered; each is added to ``rolled``. Returns the army's bookkeeping afterwards:
        who detected it and where (``detected_by``, ``sighted``), and the sorted ``rolled``
        (written on the first tile a march enters, and whenever it changes). Each roll's event
        shows the army as it was then (the earlier rolls on the tile counted)."""
        meta = a.meta
        for tile_id, watcher in watchers:
            if a.meta is not meta:
                a = evolve(a, meta=meta)
            rolled.add(f"{a.march.depart_tick}:{tile_id}")
            dice, event = self.dice.roll_for(f"detect:{self.tick.index}:{a.id}:{tile_id}", a,
                                             branch=claim_branch(watcher[0]))
            watching = self.tick.modifiers.observer(watcher[0], tile_id)
            result = roll_against(self.target(a, watcher[1], watching), dice)
            guard = self.guard(a, watcher[0], tile_id)
            self.events.append(Detection(a, watcher[0], tile_id, result, watching, guard,
                                         self.dice.line(event, dice), tuple(dice.rolls)))
            if result.detected:
                detected_by = {*a.detected_by, watcher[0]}
                sighted = dict(meta.get("sighted", {}))
                sighted[str(watcher[0])] = [tile_id, self.tick.index]  # the intercept window
                meta = {**meta, "detected_by": sorted(detected_by), "sighted": sighted}
        return _with_rolled(meta, rolled)

    def target(self, a: Army, observer: ObserverKind, watching: tuple[Modifier, ...]
               ) -> Target:
        """What ``observer`` with modifiers ``watching`` needs to detect army ``a``
        (:func:`~rules.campaign.detection.detection_target`), worked out once per size,
        observer and modifiers in this phase."""
        stealth = self.tick.modifiers.march(a)
        key = (a.size, observer, watching, stealth)
        found = self.targets.get(key)
        if found is None:
            found = self.targets[key] = detection_target(
                a.size, observer, self.tick.rules, observer_modifiers=watching,
                stealth_modifiers=stealth)
        return found

    def guard(self, a: Army, claim_id: int, tile_id: str) -> int | None:
        """A standing army of the watching claim on the watching tile may intercept a marching
        force it sighted, until the next tick."""
        if a.state is not ArmyState.MARCHING:
            return None
        for g in self.on_tile(tile_id):
            if g.claim_id == claim_id and g.state is ArmyState.STANDING and g.kind is a.kind:
                return g.id
        return None

    def encounter(self, a: Army) -> bool:
        """A marching (or retreating) army that has stopped on a tile where an enemy at war
        stood as the phase began (and still stands) fights it (a retreat passing through an
        enemy is stopped too); one it met on the move meets it in :func:`advance_meetings`."""
        for other in sorted(self.on_tile(a.tile), key=lambda o: (o.stationary_since or 0,
                                                                 o.claim_id, o.id)):
            if other.id == a.id or other.kind is not a.kind or other.id in self.limits:
                continue
            if other.state not in _HOLDING:
                continue
            if not self.world.at_war(a.claim_id, other.claim_id):
                continue
            self.meet(a, other)
            return True
        return False

    def meet(self, a: Army, other: Army) -> None:
        """Army ``a`` marched onto the tile where enemy ``other`` stands: a battle after the
        reaction window, whose first reaction is ``other``'s claim's (:func:`meet`); none when
        their claims already have a battle pending there (``a`` joins its side)."""
        if any(b.status is BattleStatus.PENDING and b.tile == a.tile
               and {b.attacker_claim, b.defender_claim} == {a.claim_id, other.claim_id}
               for b in self.battles):
            return
        battle = meet(a, other, self.tick)
        self.battles.append(battle)
        self.events.append(Encounter(a, other, battle))

    def arrive(self, a: Army, *, interrupted: bool) -> Army:
        was_retreat = a.state is ArmyState.RETREATING
        a = arrived(a, self.tick.index)
        if not interrupted:
            self.events.append(Arrival(a, was_retreat))
        return a

    def result(self) -> World:
        return replace(self.world, armies=self.armies, battles=tuple(self.battles))


def meet(a: Army, other: Army, tick: Tick, *, both_marching: bool = False) -> BattleState:
    """The field battle that begins when army ``a`` meets the enemy ``other`` on its tile.
    ``a`` marched onto the tile where ``other`` stands: it started the battle, so ``other``'s
    claim has the first reaction (starting a battle is always detected by the defender). When
    both were marching (they met within the tick, ``both_marching``) neither has it: nobody
    may retreat, and the battle is fought at the next tick."""
    if both_marching:
        return BattleState(None, tile=a.tile, kind=BattleKind.FIELD, attacker_army=a.id,
                           defender_army=other.id, attacker_claim=a.claim_id,
                           defender_claim=other.claim_id, created_tick=tick.index,
                           resolve_tick=tick.index + 1, reactor_claim=None)
    return BattleState(None, tile=a.tile, kind=BattleKind.FIELD, attacker_army=a.id,
                       defender_army=other.id, attacker_claim=a.claim_id,
                       defender_claim=other.claim_id, created_tick=tick.index,
                       resolve_tick=tick.index + tick.rules.reaction_ticks,
                       reactor_claim=other.claim_id)


def arrived(a: Army, tick: int) -> Army:
    """Army ``a`` stops where it is (its march ended, or it was stopped to fight): it stands
    from this tick; a retreat's way back is forgotten."""
    return evolve(a, state=ArmyState.STANDING, stationary_since=tick, arrival_tick=tick,
                  march=March(depart_tick=a.march.depart_tick),
                  travelled=() if a.state is ArmyState.RETREATING else a.travelled)


def advance_movement(world: World, tick: Tick, dice: EventDice
                     ) -> tuple[World, list[TickEvent]]:
    """Every march and retreat steps on (see the module's docstring)."""
    moves = _Moves(world, tick, dice)
    moves.move_all()
    return moves.result(), moves.events


def advance_moves(world: World, tick: Tick, dice: EventDice) -> tuple[World, list[TickEvent]]:
    """Musters, then movement."""
    world, events = advance_musters(world, tick)
    world, more = advance_movement(world, tick, dice)
    return world, [*events, *more]


# --- battles --------------------------------------------------------------------------------

def secret_defense(bonus: Decimal) -> Modifier:
    """A holdfast's secret defense bonus as a hidden strength modifier for its defenders."""
    return Modifier("holdfast defenses", Source.HOLDFAST,
                    (Effect(EffectKind.STRENGTH, bonus, Role.DEFENSE),),
                    label="holdfast defenses", hidden=True)


@dataclass(frozen=True, slots=True)
class _Contingent:
    """One body of a holdfast's garrison: army ``army`` (None: the troops at home) with its
    troops when the battle began."""

    army: int | None
    infantry: int
    cavalry: int


class _Battles:
    """One battle phase over working copies of the world's mappings."""

    def __init__(self, world: World, tick: Tick, dice: EventDice) -> None:
        self.world = world
        self.tick = tick
        self.dice = dice
        self.armies: dict[int, Army] = dict(world.armies)
        self.claims: dict[int, ClaimState] = dict(world.claims)
        self.events: list[TickEvent] = []
        self.date = calendar.game_date(calendar.tick_time(tick.index, tick.rules), tick.rules)
        self.new_sieges = 0

    # the world as it stands now
    def now(self) -> World:
        return replace(self.world, armies=self.armies, claims=self.claims)

    def take(self, world: World) -> None:
        self.world = world
        self.armies = dict(world.armies)
        self.claims = dict(world.claims)

    def set(self, a: Army) -> Army:
        self.armies[a.id] = a
        return a

    def set_battle(self, battle: BattleState) -> None:
        self.world = replace(self.world, battles=tuple(
            battle if b.id == battle.id else b for b in self.world.battles))

    def side(self, a: Army, role: Winner, *, assault: bool = False,
             began: int | None = None) -> Side:
        return fighting_side(self.world, a, role, map=self.tick.map, tick=self.tick.index,
                             modifiers=self.tick.modifiers, began=began, assault=assault)

    def record_slain(self, claim_id: int, infantry: int, cavalry: int) -> None:
        claim = self.claims.get(claim_id)
        if claim is None or not (infantry or cavalry):
            return
        self.claims[claim_id] = replace(
            claim, slain=record_loss(claim.slain, self.date, infantry, cavalry))

    def capture(self, a: Army) -> Army:
        """``a`` is captured: gone, its characters captives, no commander."""
        self.world = replace(self.world, characters=captured(self.world, [a.id]))
        return replace(gone(a, "were captured in battle"), commander_id=None)

    # the phase
    def fight_all(self) -> None:
        due = sorted((b for b in self.world.battles if b.id is not None
                      and b.status is BattleStatus.PENDING and b.resolve_tick <= self.tick.index),
                     key=lambda b: b.id or 0)
        for battle in due:
            if battle.kind is BattleKind.FIELD:
                self.field(battle)
            elif battle.kind is BattleKind.ASSAULT:
                self.assault(battle)
            else:
                self.sally(battle)

    def field(self, battle: BattleState) -> None:
        att = self.armies.get(battle.attacker_army)
        dfd = self.armies.get(battle.defender_army)
        if att is None or dfd is None or att.tile != dfd.tile \
                or ArmyState.GONE in (att.state, dfd.state):
            battle = replace(battle, status=BattleStatus.VOID)
            self.set_battle(battle)
            self.events.append(BattleVoid(battle))
            return
        if battle.reaction is Reaction.RETREAT and battle.reactor_claim is not None:
            runner = att if att.claim_id == battle.reactor_claim else dfd
            if self.try_retreat(battle, runner):
                self.set_battle(replace(battle, status=BattleStatus.AVOIDED))
                return
            runner = self.armies[runner.id]
            if runner.retreat_penalty:  # the retreat failed: the opponent decides
                opponent = self.armies[dfd.id if runner.id == att.id else att.id]
                battle = replace(battle, reaction=Reaction.FAILED,
                                 reactor_claim=opponent.claim_id,
                                 resolve_tick=self.tick.index
                                 + max(1, self.tick.rules.reaction_ticks))
                self.set_battle(battle)
                self.events.append(OpponentDecides(battle, runner, opponent))
                return
            att, dfd = self.armies[att.id], self.armies[dfd.id]
        # Fought between sides: every army on the tile that joins either claim
        # (rules.campaign.sides). The defender bonus is the defenders': the attackers either
        # marched in (in transit) or left their position to attack, so they never have it; a
        # defender has it only if it stood there before the battle began.
        attackers, defenders = fighting_sides(
            self.now(), att, dfd, map=self.tick.map, tick=self.tick.index,
            modifiers=self.tick.modifiers, began=battle.created_tick)
        dice, event = self.dice.roll_for(f"battle:{battle.id or 0}", att, dfd)
        result = resolve_battle([side for _, side in attackers], [side for _, side in defenders],
                                dice=dice, rules=self.tick.rules)
        battle = replace(battle, status=BattleStatus.RESOLVED)
        self.set_battle(battle)
        self.world = join_wars(self.world, (a.claim_id for a, _ in attackers),
                               (a.claim_id for a, _ in defenders))
        self.apply_result(battle, result, att, dfd, hidden_defender=False,
                          dice_line=self.dice.line(event, dice),
                          joined=(tuple(a for a, _ in attackers[1:]),
                                  tuple(a for a, _ in defenders[1:])))

    def try_retreat(self, battle: BattleState, runner: Army) -> bool:
        chosen = runner.meta.get("retreat_route")
        route = list(chosen) if chosen else list(reversed(runner.travelled))
        if not route:  # nowhere to go: the moderators decide; nothing is rolled or lost
            self.events.append(RetreatReferred(battle, runner))
            return False
        dice, event = self.dice.roll_for(f"retreat:{battle.id or 0}", runner)
        result = roll_retreat(runner.infantry, runner.cavalry, runner.ships, dice=dice,
                              rules=self.tick.rules)
        line = self.dice.line(event, dice)
        if not result.success:
            runner = self.set(replace(runner, retreat_penalty=True))
            self.events.append(RetreatFailed(battle, runner, result, line, tuple(dice.rolls)))
            return False
        lost = result.lost
        runner = replace(runner, infantry=result.escaped.infantry,
                         cavalry=result.escaped.cavalry, ships=result.escaped.ships)
        self.record_slain(runner.claim_id, lost.infantry, lost.cavalry)
        runner = self.send_back(runner, route)
        self.events.append(Retreated(battle, runner, result, line, tuple(dice.rolls)))
        return True

    def send_back(self, a: Army, route: Sequence[str] | None = None) -> Army:
        """Sends an army back along ``route`` (default: the way it came); with no way back it
        stays. It sets off at once: the first tile is entered on the next tick."""
        back = list(route) if route is not None else list(reversed(a.travelled))
        a = a.with_meta(retreat_route=[])
        if not back:
            return self.set(replace(a, state=ArmyState.STANDING))
        rules = self.tick.rules
        costs = [entry_cost(self.tick.map.tile(t), a.kind, rules) or 1 for t in back]
        a = replace(a, state=ArmyState.RETREATING, travelled=(),
                    march=March(tuple(back), tuple(costs), Fraction(0), self.tick.index))
        a = a.with_meta(retreat_from=a.tile)
        a = replace(a, arrival_tick=self.tick.index + ticks_to_cross(costs, budget(a, self.tick)))
        return self.set(a)

    def garrison(self, claim: ClaimState, tile: str, states: frozenset[ArmyState]
                 ) -> list[_Contingent]:
        """The claim's troops at home, then its land armies on ``tile`` in ``states``
        (:func:`rules.campaign.sides.garrison_armies` for the whole garrison)."""
        return [_Contingent(None, claim.infantry, claim.cavalry), *(
            _Contingent(a.id, a.infantry, a.cavalry)
            for a in garrison_armies(self.world, claim.id, tile, self.armies.values())
            if a.state in states)]

    def garrison_side(self, claim: ClaimState, tile_id: str, garrison: Sequence[_Contingent],
                      *, defending: bool) -> Side:
        """A holdfast's garrison as one side: defending (stationary, with the secret defense
        bonus) against an assault, or riding out in a sally."""
        tile = self.tick.map.tile(tile_id)
        mods = (secret_defense(tile.defense_bonus),) \
            if defending and tile.defense_bonus != 1 else ()
        home = tuple(c for c in self.world.characters.values()
                     if c.claim_id == claim.id and c.army_id is None
                     and c.status in FREE_CHARACTERS)
        characters = (*(c.name for c in home), *(name for c in garrison if c.army is not None
                                                 for name in self.world.characters_with(c.army)))
        return battle_side(Winner.DEFENDER if defending else Winner.ATTACKER,
                           infantry=sum(c.infantry for c in garrison),
                           cavalry=sum(c.cavalry for c in garrison), terrain=tile.terrain,
                           stationary=defending,
                           modifiers=(*mods, *self.tick.modifiers.holdfast(claim.id,
                                                                            characters=home)),
                           characters=characters)

    def garrison_losses(self, claim_id: int, garrison: Sequence[_Contingent], infantry: int,
                        cavalry: int, *, captured: bool) -> None:
        """Share a garrison's losses among its contingents."""
        inf = split_losses([c.infantry for c in garrison], infantry)
        cav = split_losses([c.cavalry for c in garrison], cavalry)
        for c, lost_inf, lost_cav in zip(garrison, inf, cav, strict=True):
            if c.army is None:
                claim = self.claims[claim_id]
                left_inf, left_cav = claim.infantry - lost_inf, claim.cavalry - lost_cav
                self.claims[claim_id] = replace(
                    claim, infantry=left_inf, cavalry=left_cav,
                    scattered_infantry=min(claim.scattered_infantry, left_inf),
                    scattered_cavalry=min(claim.scattered_cavalry, left_cav))
                continue
            a = self.armies[c.army]
            a = replace(a, infantry=a.infantry - lost_inf, cavalry=a.cavalry - lost_cav)
            if captured:
                a = self.capture(a)
            elif a.infantry + a.cavalry == 0:
                a = gone(a, "fell in battle to the last man")
            self.set(a)
        if not captured:
            self.record_slain(claim_id, infantry, cavalry)

    def apply_result(self, battle: BattleState, result: BattleResult, att: Army | None,
                     dfd: Army | None, *, hidden_defender: bool,
                     garrison_claim: ClaimState | None = None,
                     garrison: Sequence[_Contingent] = (), dice_line: str = "",
                     public: PublicAssault | None = None,
                     joined: tuple[Sequence[Army], Sequence[Army]] = ((), ())) -> None:
        """Apply a battle's losses; the side with no army is ``garrison_claim``'s
        ``garrison`` (its troops at home and its armies in the holdfast), whose losses are
        shared. ``joined``: the other armies of each side (after ``att`` and ``dfd``, in the
        side's order), each taking its own part of the losses. The beaten armies go back the
        way they came (or behind their own walls)."""
        after: list[Army | None] = []
        others: list[Army] = []
        for which, a, more in ((Winner.ATTACKER, att, joined[0]),
                               (Winner.DEFENDER, dfd, joined[1])):
            side = result.side(which)
            if a is not None:
                hit = [self.take_losses(army, part)
                       for army, part in zip((a, *more), side.armies(), strict=True)]
                a = hit[0]
                others.extend(hit[1:])
            elif garrison_claim is not None:
                self.garrison_losses(garrison_claim.id, garrison, side.losses.infantry,
                                     side.losses.cavalry, captured=side.captured)
            after.append(a)
        fates = self.settle_fates(battle, result, after[0], after[1], joined)
        after = [self.armies[a.id] if a is not None else None for a in after]
        self.events.append(BattleFought(
            battle, result, after[0], after[1], hidden_defender,
            garrison_claim.id if garrison_claim is not None else None, dice_line, public,
            fates, tuple(self.armies[a.id] for a in others)))
        beaten = joined[0] if result.winner is Winner.DEFENDER else joined[1]
        self.beaten(after[0] if result.winner is Winner.DEFENDER else after[1])
        for a in beaten:
            self.beaten(self.armies[a.id])

    def take_losses(self, a: Army, part: SideResult) -> Army:
        """Army ``a`` takes its ``part`` of a side's losses (captured, or gone to the last
        man); the slain are counted for regeneration."""
        a = replace(a, infantry=a.infantry - part.losses.infantry,
                    cavalry=a.cavalry - part.losses.cavalry,
                    ships=a.ships - part.losses.ships, retreat_penalty=False)
        if part.captured:
            a = self.capture(a)
        elif a.size == 0:
            a = gone(a, "fell in battle to the last man")
        self.set(a)
        if not part.captured:
            self.record_slain(a.claim_id, part.losses.infantry, part.losses.cavalry)
        return a

    def beaten(self, loser: Army | None) -> None:
        """A beaten army still standing goes back the way it came, or behind its own walls."""
        if loser is not None and loser.state is not ArmyState.GONE:
            home = self.claims.get(loser.claim_id)
            if not loser.travelled and home is not None and home.holdfast == loser.tile \
                    and loser.kind is ArmyKind.LAND:
                # No way back, but home: the beaten army withdraws behind its own walls,
                # where only an assault or a siege can reach it.
                self.set(replace(loser, state=ArmyState.GARRISON))
            else:  # with no way back it stays, and meets the winner again (meetings)
                self.send_back(loser)

    def settle_fates(self, battle: BattleState, result: BattleResult, att: Army | None,
                     dfd: Army | None, joined: tuple[Sequence[Army], Sequence[Army]] = ((), ())
                     ) -> tuple[FateRolled, ...] | None:
        """Roll the fate table of each character the battle called to a death or an injury
        roll (dice key ``fate:<battle id>:<name>``, the armies' last orders as entropy), when
        the campaign has the bot roll them (None when it does not). A character killed is dead
        at once: it fights in no later battle and its army loses it as commander."""
        settings = self.tick.fates
        if not settings.roll:
            return None
        claims = {Winner.ATTACKER: battle.attacker_claim, Winner.DEFENDER: battle.defender_claim}
        rolled: list[FateRolled] = []
        for which, more in ((Winner.ATTACKER, joined[0]), (Winner.DEFENDER, joined[1])):
            parts = result.side(which).armies()
            # each army of a side rolls for its own characters (its claim's)
            owners = (claims[which], *(a.claim_id for a in more))
            for owner, part in zip(owners, parts, strict=True):
                rolled.extend(self.settle_part(battle, which, owner, part, att, dfd))
        return tuple(rolled)

    def settle_part(self, battle: BattleState, which: Winner, claim_id: int, part: SideResult,
                    att: Army | None, dfd: Army | None) -> list[FateRolled]:
        """The fate-table rolls of one army's characters (claim ``claim_id``)."""
        settings = self.tick.fates
        rolled: list[FateRolled] = []
        for fate in part.fates:
            if fate.fate not in (Fate.DEATH_ROLL, Fate.INJURY_ROLL):
                continue
            dice, event = self.dice.roll_for(f"fate:{battle.id or 0}:{fate.name}", att, dfd)
            roll = settle_fate(fate, dice=dice, death_table=settings.death_table,
                               injury_table=settings.injury_table)
            if roll is None:
                continue
            dies = settings.kills(fate, roll)
            if dies:
                self.kill(claim_id, fate.name)
            rolled.append(FateRolled(which, claim_id, fate.name, roll, dies,
                                     self.dice.line(event, dice), tuple(dice.rolls)))
        return rolled

    def kill(self, claim_id: int, name: str) -> None:
        """Claim ``claim_id``'s free character ``name`` (the first by id) is dead; the army it
        commanded has no commander."""
        for c in self.world.characters.values():
            if c.claim_id != claim_id or c.name != name or c.status not in FREE_CHARACTERS:
                continue
            a = self.armies.get(c.army_id) if c.army_id is not None else None
            if a is not None and a.commander_id == c.id:
                self.set(replace(a, commander_id=None))
            self.world = replace(self.world, characters={
                **self.world.characters,
                c.id: replace(c, status=CharacterStatus.DEAD, army_id=None)})
            return

    def active_siege(self, holdfast: str) -> SiegeState | None:
        return next((s for s in self.world.sieges if s.holdfast == holdfast
                     and s.status is SiegeStatus.ACTIVE), None)

    def assault(self, battle: BattleState) -> None:
        att = self.armies.get(battle.attacker_army)
        claim = self.claims.get(battle.defender_claim)
        if att is None or claim is None or att.tile != battle.holdfast \
                or att.state is ArmyState.GONE:
            self.set_battle(replace(battle, status=BattleStatus.VOID))
            return
        # Every troop of the claim on the tile defends: at home, mustering, standing, or back
        # inside after a sally; they share the holdfast's fate.
        garrison = self.garrison(claim, battle.holdfast, _DEFENDING)
        # Assault dice would show the secret bonus: they come from the claimant's own branch.
        dice, event = self.dice.roll_for(f"battle:{battle.id or 0}", att,
                                         branch=claim_branch(claim.id))
        sides = (self.side(att, Winner.ATTACKER, assault=True),
                 self.garrison_side(claim, battle.holdfast, garrison, defending=True))
        result = resolve_battle(*sides, dice=dice, rules=self.tick.rules)
        battle = replace(battle, status=BattleStatus.RESOLVED)
        self.set_battle(battle)
        self.apply_result(battle, result, att, None, hidden_defender=True,
                          garrison_claim=claim, garrison=garrison,
                          dice_line=self.dice.line(event, dice),
                          public=public_assault(*sides, result, self.tick.rules))
        if result.winner is not Winner.ATTACKER:
            return
        siege = self.active_siege(battle.holdfast)
        if siege is None:  # not stored yet: a negative id until the services store it
            self.new_sieges += 1
            siege = SiegeState(-self.new_sieges, army_id=att.id, besieger_claim=att.claim_id,
                               defender_claim=claim.id, holdfast=battle.holdfast,
                               started_tick=self.tick.index)
            self.world = replace(self.world, sieges=(*self.world.sieges, siege))
        att = self.armies[att.id]
        if att.state is not ArmyState.GONE:  # the battle may have captured it
            self.set(replace(att, state=ArmyState.STANDING, tile=battle.holdfast))
        world, fall = holdfast_falls(self.now(), siege, "taken by assault")
        self.take(world)
        self.events.append(fall)

    def sally(self, battle: BattleState) -> None:
        besieger = self.armies.get(battle.defender_army)
        claim = self.claims.get(battle.attacker_claim)
        siege = self.active_siege(battle.holdfast)
        if besieger is None or claim is None or siege is None \
                or besieger.state is not ArmyState.BESIEGING:
            self.set_battle(replace(battle, status=BattleStatus.VOID))
            return
        sally_army = self.armies.get(battle.attacker_army) if battle.attacker_army else None
        garrison: list[_Contingent] = []
        if sally_army is not None:
            if sally_army.state is not ArmyState.GARRISON:
                # only ready troops inside the walls sally
                self.set_battle(replace(battle, status=BattleStatus.VOID))
                return
            sally_side = self.side(sally_army, Winner.ATTACKER)
        else:  # the whole ready garrison: the troops at home and the armies inside
            garrison = self.garrison(claim, battle.holdfast, frozenset({ArmyState.GARRISON}))
            sally_side = self.garrison_side(claim, battle.holdfast, garrison, defending=False)
        dice, event = self.dice.roll_for(f"battle:{battle.id or 0}", sally_army, besieger)
        result = resolve_battle(sally_side, self.side(besieger, Winner.DEFENDER),
                                dice=dice, rules=self.tick.rules)
        battle = replace(battle, status=BattleStatus.RESOLVED)
        self.set_battle(battle)
        self.apply_result(battle, result, sally_army, besieger, hidden_defender=False,
                          garrison_claim=None if sally_army else claim, garrison=garrison,
                          dice_line=self.dice.line(event, dice))
        besieger = self.armies[besieger.id]
        if result.winner is Winner.ATTACKER and besieger.state is ArmyState.STANDING:
            # beaten with no way back, the besiegers hold the tile: the siege goes on
            self.set(replace(besieger, state=ArmyState.BESIEGING))
        elif result.winner is Winner.ATTACKER:  # the sally breaks the siege: say how
            how = besieger.meta.get("fate") if besieger.state is ArmyState.GONE else None
            broken = replace(siege, status=SiegeStatus.BROKEN)
            self.world = replace(self.world, sieges=_with_siege(self.world.sieges, broken))
            self.events.append(SiegeEnded(broken, str(how or "were driven off by a sally")))
        elif sally_army is not None and self.armies[sally_army.id].state is not ArmyState.GONE:
            a = self.armies[sally_army.id]
            self.set(replace(a, state=ArmyState.GARRISON, tile=battle.holdfast,
                             march=replace(a.march, path=(), costs=())))


_DEFENDING = GARRISON_STATES
"""The states of a claim's armies on its holdfast that defend it against an assault."""


def advance_battles(world: World, tick: Tick, dice: EventDice
                    ) -> tuple[World, list[TickEvent]]:
    """Every pending battle whose reaction window has closed (by id) is decided (see the
    module's docstring). A holdfast taken by assault with no siege before it gets a new
    :class:`~rules.campaign.state.SiegeState` with a negative id (the services store it).
    The world needs its free characters (they fight with their armies)."""
    phase = _Battles(world, tick, dice)
    phase.fight_all()
    return phase.now(), phase.events


# --- meetings -------------------------------------------------------------------------------

def advance_meetings(world: World, tick: Tick) -> tuple[World, list[TickEvent]]:
    """Every pair of hostile armies left sharing a tile after the tick's moves and battles
    meets in a battle (:mod:`rules.campaign.meetings`); armies on the move stop to fight.

    Armies already in a pending battle start no new one; two armies let stay after a failed
    retreat (a spared battle) share that tile in peace.
    """
    busy: set[int] = set()
    spared: set[tuple[int, int, str]] = set()
    for b in world.battles:
        if b.status is BattleStatus.PENDING:
            busy.update((b.attacker_army, b.defender_army))
        elif b.status is BattleStatus.SPARED:
            spared.update(((b.attacker_army, b.defender_army, b.tile),
                           (b.defender_army, b.attacker_army, b.tile)))
    warring = {claim for pair in world.wars for claim in pair}
    present = [a for a in world.armies.values()
               if a.claim_id in warring and a.state in (ArmyState.STANDING, ArmyState.BESIEGING,
                                                        ArmyState.MARCHING, ArmyState.RETREATING)
               and not (a.state is ArmyState.RETREATING and a.meta.get("retreat_from") == a.tile)]
    # (an army of a claim at war with nobody meets nobody; a retreating army leaving the battle
    # it escaped meets nobody there)
    # Only tiles where two claims' armies stand can hold a meeting.
    first_claim: dict[str, int] = {}
    shared: set[str] = set()
    for a in present:
        if first_claim.setdefault(a.tile, a.claim_id) != a.claim_id:
            shared.add(a.tile)
    presences = []
    for a in present:
        if a.tile not in shared:
            continue
        moving = a.state in (ArmyState.MARCHING, ArmyState.RETREATING) \
            and marches_on(tick.index, a.march.depart_tick)
        presences.append(Presence(a.id, a.claim_id, a.tile, a.kind,
                                  None if moving else a.stationary_since))
    armies = dict(world.armies)
    battles = list(world.battles)
    events: list[TickEvent] = []
    pending = {(b.tile, frozenset((b.attacker_claim, b.defender_claim))) for b in world.battles
               if b.status is BattleStatus.PENDING}
    for attacker, defender in hostile_meetings(presences, world.at_war, busy):
        if (attacker.army, defender.army, attacker.tile) in spared \
                or (attacker.tile, frozenset((attacker.claim, defender.claim))) in pending:
            continue  # (a battle of their claims is pending there: they fight in it)
        for stopping in (attacker.army, defender.army):
            if armies[stopping].state in (ArmyState.MARCHING, ArmyState.RETREATING):
                armies[stopping] = arrived(armies[stopping], tick.index)  # both stop to fight
        att, dfd = armies[attacker.army], armies[defender.army]
        # both came this tick (on the move, or stopped by the meeting): both were marching
        battle = meet(att, dfd, tick, both_marching=all(
            p.since is None or p.since == tick.index for p in (attacker, defender)))
        battles.append(battle)
        events.append(Encounter(att, dfd, battle))
    if not events:
        return world, events
    return replace(world, armies=armies, battles=tuple(battles)), events


# --- sieges ---------------------------------------------------------------------------------

def gone(a: Army, fate: str) -> Army:
    """Army ``a`` is no more; ``fate`` completes "The besiegers of CLAIM ..." in posts."""
    return replace(a, state=ArmyState.GONE,
                   march=replace(a.march, path=(), costs=())).with_meta(fate=fate)


def captured(world: World, army_ids: Sequence[int]) -> dict[int, CharacterState]:
    """The world's characters after those with the given armies were captured with them: no
    longer free to command (the moderators rule on their fate)."""
    characters = dict(world.characters)
    taken = set(army_ids)
    for c in world.characters.values():
        if c.army_id in taken and c.status in (CharacterStatus.ALIVE, CharacterStatus.WOUNDED):
            characters[c.id] = replace(c, status=CharacterStatus.CAPTURED, army_id=None)
    return characters


def holdfast_falls(world: World, siege: SiegeState, how: str
                   ) -> tuple[World, HoldfastFalls]:
    """The holdfast of ``siege`` falls (``how``: taken by assault, starved out) and changes
    hands: its holder is now the besieger's claim (:func:`rules.campaign.holdfasts.
    change_hands`: its detection, its secret defence bonus and its improvements with it). The
    defender's garrison (:func:`rules.campaign.sides.garrison_armies`, and its troops at home
    when it was its seat) is captured (their characters too), the siege is over and the
    besiegers stand on the tile. A holdfast nobody held yields its neutral garrison, counted
    by the map, not here."""
    claims = dict(world.claims)
    armies = dict(world.armies)
    defender = world.claims.get(siege.defender_claim)
    seat = defender is not None and defender.holdfast == siege.holdfast
    infantry = defender.infantry if defender is not None and seat else 0
    cavalry = defender.cavalry if defender is not None and seat else 0
    if defender is not None and seat:
        claims[defender.id] = replace(defender, infantry=0, cavalry=0, scattered_infantry=0,
                                      scattered_cavalry=0)
    taken = []
    # the whole garrison shares the holdfast's fate (rules.campaign.sides.garrison_armies)
    for a in garrison_armies(world, siege.defender_claim, siege.holdfast):
        infantry += a.infantry
        cavalry += a.cavalry
        armies[a.id] = replace(gone(a, "were captured when the holdfast fell"),
                               commander_id=None)
        taken.append(a.id)
    fallen = replace(siege, status=SiegeStatus.FALLEN)
    besieger = armies.get(siege.army_id)
    if besieger is not None and besieger.state is ArmyState.BESIEGING:
        armies[besieger.id] = replace(besieger, state=ArmyState.STANDING)
    world = replace(world, claims=claims, armies=armies, characters=captured(world, taken),
                    sieges=_with_siege(world.sieges, fallen))
    world = change_hands(world, siege.holdfast, siege.besieger_claim)
    return world, HoldfastFalls(fallen, how, infantry, cavalry, seat_lost=seat)


def _with_siege(sieges: Sequence[SiegeState], siege: SiegeState) -> tuple[SiegeState, ...]:
    return tuple(siege if s.id == siege.id else s for s in sieges)


def _blockade_holds(world: World, siege: SiegeState, tick: Tick) -> bool:
    """A port holdfast is starved only while a standing fleet of the besiegers holds a water
    tile next to it; any other holdfast always."""
    tile = tick.map.tile(siege.holdfast)
    if not tile.port:
        return True
    water = set(tick.map.water_adjacent(tile.id))
    return any(a.kind is ArmyKind.FLEET and a.tile in water
               and a.claim_id == siege.besieger_claim and a.state is ArmyState.STANDING
               for a in world.armies.values())


def advance_sieges(world: World, tick: Tick) -> tuple[World, list[TickEvent]]:
    """End every siege whose besiegers left the tile or are no more, then count each whole
    in-game month completed since its start (a holdfast starved out falls); then the armies
    behind walls that no siege holds and no enemy stands before come out."""
    events: list[TickEvent] = []
    at = calendar.tick_time(tick.index, tick.rules)
    previous = calendar.tick_time(tick.index - 1, tick.rules)
    for siege in sorted(world.active_sieges(), key=lambda s: s.id):
        besieger = world.armies.get(siege.army_id)
        if besieger is None or besieger.state is ArmyState.GONE:
            fate = (besieger.meta.get("fate") if besieger is not None else None) \
                or "are no more"
            world = _end(world, siege, str(fate), events)
            continue
        if besieger.tile != siege.holdfast or besieger.state is not ArmyState.BESIEGING:
            world = _end(world, siege, "have left the holdfast's tile", events)
            continue
        if siege.months_required == 0 and tick.index > siege.started_tick:
            # nobody held it and nobody garrisons it: it falls at the first tick after
            world, fall = holdfast_falls(world, siege, "taken without a fight")
            events.append(fall)
            continue
        started = calendar.tick_time(siege.started_tick, tick.rules)
        for month in month_checks(started, previous, at, tick.rules.month_length):
            count = SiegeCount(siege.months_required, siege.months_elapsed, siege.paused)
            new, fell = advance_siege_month(count, True, _blockade_holds(world, siege, tick))
            siege = replace(siege, months_elapsed=new.months_elapsed, paused=new.paused)
            world = replace(world, sieges=_with_siege(world.sieges, siege))
            if fell:
                world, fall = holdfast_falls(world, siege, "starved out after "
                                             f"{siege.months_elapsed} months of siege")
                events.append(fall)
                break
            events.append(SiegeMonth(siege, month, new.months_left))
    return release_garrisons(world), events


def _end(world: World, siege: SiegeState, fate: str, events: list[TickEvent]) -> World:
    ended = replace(siege, status=SiegeStatus.LIFTED)
    events.append(SiegeEnded(ended, fate))
    return replace(world, sieges=_with_siege(world.sieges, ended))


def release_garrisons(world: World) -> World:
    """Armies behind their walls come out (standing) once no siege holds the holdfast and no
    enemy army at war stands on its tile."""
    besieged = world.besieged()
    here: dict[str, list[Army]] | None = None
    armies: dict[int, Army] | None = None
    inside = [a for a in world.armies.values()
              if a.state is ArmyState.GARRISON and a.tile not in besieged]
    for a in inside:
        if here is None:
            here = world.by_tile()
        now = armies if armies is not None else world.armies  # earlier releases count
        if any(o.claim_id != a.claim_id and world.at_war(a.claim_id, o.claim_id)
               and now[o.id].state in (ArmyState.STANDING, ArmyState.BESIEGING)
               for o in here.get(a.tile, ())):
            continue
        if armies is None:
            armies = dict(world.armies)
        armies[a.id] = replace(a, state=ArmyState.STANDING)
    return world if armies is None else replace(world, armies=armies)


# --- resource tiles -------------------------------------------------------------------------

def advance_holders(world: World, tick: Tick) -> tuple[World, list[TickEvent]]:
    """Record who receives each occupied (or recorded) resource tile's benefit now
    (:func:`rules.campaign.resources.tile_holder`); a hostile newcomer takes nothing by
    arriving. A cession lapses when the claim it was made to loses the benefit."""
    on_tile: dict[str, list[Army]] = {}
    resource = resource_ids(tick.map)
    for a in world.armies.values() if resource else ():
        if a.state is ArmyState.STANDING and a.tile in resource:
            on_tile.setdefault(a.tile, []).append(a)
    holders = dict(world.holders)
    events: list[TickEvent] = []
    for tile in sorted(set(on_tile) | (set(world.holders) & resource)):  # (holdfasts: not here)
        row = world.holders.get(tile)
        before = row.claim_id if row is not None else None
        holder = tile_holder(on_tile.get(tile, ()), tick.rules, recorded=before,
                             ceded_to=row.ceded_to if row is not None else None,
                             hostile=world.at_war)
        if holder == before:
            continue
        ceded = row.ceded_to if row is not None else None
        if holder is None or ceded == before:
            ceded = None
        holders[tile] = HolderState(tile, holder, ceded)
        events.append(HolderChanged(tile, holder, before))
    return (world if not events else replace(world, holders=holders)), events


def changed_claims(before: World, after: World) -> Sequence[ClaimState]:
    """The claims ``after`` changed (new values), by id."""
    return [c for i, c in after.claims.items() if before.claims.get(i) is not c]


def changed_armies(before: World, after: World) -> Sequence[Army]:
    """The armies ``after`` changed (new values), by id."""
    return [a for i, a in after.armies.items() if before.armies.get(i) is not a]


# --- the whole tick -------------------------------------------------------------------------

Between = Callable[[World, World, Sequence[TickEvent]], World]
"""What runs between two phases of :func:`advance`: given the world before and after a phase
and the phase's events, it returns the world the next phase starts from. The services take the
phase's changes into their rows here (so the modifiers in force see them), give the battles the
phase began their ids (nothing outside the rules changes the world between phases)."""


def _unchanged(before: World, after: World, events: Sequence[TickEvent]) -> World:
    return after


def advance(world: World, tick: Tick, dice: EventDice, *, between: Between = _unchanged
            ) -> tuple[World, list[TickEvent]]:
    """One tick after its monthly jobs: musters, movement, battles, meetings, sieges and
    resource holders, in that order (see the module's docstring), with ``between`` run after
    each phase. The world needs its active sieges, its pending and spared battles (with ids),
    its free characters and its resource holders."""
    phases: tuple[Callable[[World], tuple[World, list[TickEvent]]], ...] = (
        lambda w: advance_musters(w, tick),
        lambda w: advance_movement(w, tick, dice),
        lambda w: advance_battles(w, tick, dice),
        lambda w: advance_meetings(w, tick),
        lambda w: advance_sieges(w, tick),
        lambda w: advance_holders(w, tick),
    )
    events: list[TickEvent] = []
    for phase in phases:
        after, more = phase(world)
        world = between(world, after, more)
        events.extend(more)
    return world, events
