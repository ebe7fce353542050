"""The tick's movement: musters that are ready, marches and retreats stepping on tile by tile,
with the detection rolls of the holdfasts and resource tiles watching and the encounters with an
enemy at war that stop a march.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from fractions import Fraction
from typing import Any

from rules.campaign.detection import (
    ObserverKind,
    Target,
    detection_target,
    roll_against,
)
from rules.campaign.meetings import Step, settle_steps
from rules.campaign.modifiers import (
    Modifier,
)
from rules.campaign.movement import (
    budget_per_tick,
    enter_tiles,
    marches_on,
)
from rules.campaign.sides import allies_drawn_in
from rules.campaign.tick.economy import resource_ids
from rules.campaign.tick.events import (
    Arrival,
    Detection,
    Encounter,
    MusterDone,
    Tick,
    TickEvent,
)
from rules.campaign.world import (
    Army,
    ArmyKind,
    ArmyState,
    BattleKind,
    BattleState,
    BattleStatus,
    EventDice,
    March,
    World,
    army_order,
    evolve,
    in_army_order,
    moved,
    new_march,
)
from rules.fairdice import claim_branch

# --- musters --------------------------------------------------------------------------------

def advance_musters(world: World, tick: Tick) -> tuple[World, list[TickEvent]]:
    """Every mustering army whose ready tick has come is ready: inside its holdfast when it is
    besieged, on the march when it was given a path, else standing."""
    due = [a for a in world.armies.values() if a.state is _MUSTERING
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

def observers_of(world: World, tick: Tick) -> dict[str, tuple[int, ObserverKind]]:
    """The tiles watched this tick and the claim watching from each: every claim's holdfast,
    and every resource tile a standing army holds (the claim of the army standing there the
    longest; between armies that came on the same tick, the first by
    :func:`~rules.campaign.world.army_order`: never by the armies' numbers)."""
    found: dict[str, tuple[int, ObserverKind]] = {}
    holdfast = ObserverKind.HOLDFAST
    for claim in world.claims.values():
        found[claim.holdfast] = (claim.id, holdfast)
    for tile, row in world.holders.items():  # holdfasts that changed hands watch for the holder
        if tile in tick.map and tick.map.tile(tile).holdfast:
            if row.claim_id is None:
                found.pop(tile, None)
            else:
                found[tile] = (row.claim_id, ObserverKind.HOLDFAST)
    resource = resource_ids(tick.map)
    # (the first of each tile by :func:`army_order` is the first by its claim: its head,
    # claim, kind and tile, decides, and the rest of the order is not worked out)
    occupants = sorted((a for a in world.armies.values() if a.state is _STANDING
                        and a.tile in resource), key=lambda a: (a.stationary_since or 0,
                                                                a.claim_id, a.kind.value,
                                                                a.tile)) \
        if resource else ()
    for a in occupants:
        if a.tile not in found:
            found[a.tile] = (a.claim_id, ObserverKind.RESOURCE_TILE)
    return found


def budget(a: Army, tick: Tick) -> Fraction:
    """The travel cost army ``a`` earns per tick now (its size, kind and modifiers)."""
    return budget_per_tick(a.infantry, a.cavalry, tick.rules,
                           is_fleet=a.kind is ArmyKind.FLEET,
                           modifiers=tick.modifiers.march(a))


_MUSTERING, _STANDING, _MARCHING = ArmyState.MUSTERING, ArmyState.STANDING, ArmyState.MARCHING
_FLEET = ArmyKind.FLEET
"""The states (and kind) the phase tests its armies for, one by one (looked up once: a
member looked up on its enum costs several times what the test does)."""

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


def detection_key(dice: EventDice, tick: int, tile_id: str, rank: int) -> str:
    """The event key of the ``rank``-th detection roll from watching tile ``tile_id`` in tick
    ``tick``: ``detect:TICK:TILE:TOKEN``. The rank is counted in the order the armies step,
    never by their numbers, and printed only as an opaque token (:meth:`EventDice.token`),
    since the watcher reads the key of every roll it is shown: a count would tell it how many
    armies it failed to see there."""
    return f"detect:{tick}:{tile_id}:{dice.token('detect', tick, tile_id, rank)}"


class _Moves:
    """One movement phase over a working copy of the armies (the world stays untouched).

    Most tiles a march enters are neither watched by anyone who has not rolled for that march
    yet nor held by an enemy: nothing happens there but the move. So a march step builds the
    army as it stood on a tile (:meth:`entered`) only where something happens (a detection
    roll, an encounter) and once at the end of the step, and looks for enemies only on the
    tiles where an army of a claim at war stands or besieges as the phase begins
    (:attr:`holding`): an army on the move there is never the enemy a march stops at (those of
    claims at war are settled with the others, :meth:`settle`; those of claims at peace are
    nobody's enemy), and a step changes no army but the one stepping, so the armies holding
    a tile stay as the phase found them.

    The armies step in :func:`~rules.campaign.world.army_order`, never in the order of their
    numbers: the steps are settled for all armies at once (:meth:`settle`), so the order
    decides only the order of the events, which battle begun on the march gets which number,
    and the rank behind each detection roll's key (:func:`detection_key`: the Nth roll from
    watching tile TILE this tick)."""

    def __init__(self, world: World, tick: Tick, dice: EventDice) -> None:
        self.world = world
        self.tick = tick
        self.dice = dice
        self.armies: dict[int, Army] = dict(world.armies)
        self.warring = frozenset(claim for pair in world.wars for claim in pair)
        """The claims at war with some claim: only their armies meet enemies."""
        self.holding: dict[str, list[Army]] = {}
        """The armies of claims at war standing or besieging on each tile as the phase begins
        (the only armies a march may meet there: :meth:`encounter`)."""
        self.moving: list[Army] = []
        """The armies on the move, by id."""
        self.entering: dict[int, tuple[int, Fraction]] = {}
        """How many tiles of its path each stepping army's saving covers this tick, and what
        it saves (:func:`enter_tiles`), worked out once per army."""
        self.observers = observers_of(world, tick)
        """The tiles watched in this phase and who watches from each (:func:`observers_of`)."""
        self.standing: dict[str, list[Army]] = {}
        """The armies standing on each watching tile as the phase begins (its guards:
        :meth:`guard`)."""
        self.limits: dict[int, int] = {}
        """How many tiles each army on the move of a claim at war enters this tick
        (:meth:`settle`; an army of a claim at peace meets nobody)."""
        moving, standing, holding, warring = self.moving, self.standing, self.holding, \
            self.warring
        observers = self.observers
        for a in world.armies.values():
            state = a.state
            if state in _MOVING:
                moving.append(a)
                continue
            if state is _STANDING and a.tile in observers:
                standing.setdefault(a.tile, []).append(a)
            if state in _HOLDING and a.claim_id in warring:
                holding.setdefault(a.tile, []).append(a)
        self.battles: list[BattleState] = list(world.battles)
        self.events: list[TickEvent] = []
        self.budgets: dict[tuple[int, int, bool, tuple[Modifier, ...]], Fraction] = {}
        self.savings: dict[tuple[int, int], Fraction] = {}
        """What marches have saved in this phase (:func:`enter_tiles`)."""
        self.watched: dict[str, list[tuple[str, tuple[int, ObserverKind]]]] = {}
        self.targets: dict[tuple[int, ObserverKind, tuple[Modifier, ...],
                                 tuple[Modifier, ...]], Target] = {}
        self.rolls: dict[str, int] = {}
        """How many detection rolls each watching tile has made this phase."""

    def budget(self, a: Army) -> Fraction:
        """:func:`budget`, worked out once per size, kind and modifiers in this phase."""
        key = (a.infantry, a.cavalry, a.kind is _FLEET, self.tick.modifiers.march(a))
        found = self.budgets.get(key)
        if found is None:
            found = self.budgets[key] = budget_per_tick(
                a.infantry, a.cavalry, self.tick.rules, is_fleet=key[2], modifiers=key[3])
        return found

    def move_all(self) -> None:
        self.watch(self.observers)
        index = self.tick.index
        stepping = in_army_order(  # (no tile is entered on the departure tick itself)
            a for a in self.moving if a.march.path and marches_on(index, a.march.depart_tick))
        for a in stepping:
            m = a.march
            self.entering[a.id] = enter_tiles(m.costs, 0, m.saved, self.budget(a), self.savings)
        self.limits = self.settle(stepping)
        for a in stepping:  # (a step changes no army but the one stepping)
            self.step(a)

    def settle(self, stepping: Sequence[Army]) -> dict[int, int]:
        """How many tiles each stepping army enters, all armies moving at once
        (:func:`rules.campaign.meetings.settle_steps`): the standing armies that stop an
        enemy are those holding their tile as the phase begins; the armies on the move that
        do not step this tick end their step where they are. Only the armies of claims at war
        take part: an army of a claim at peace with all is never hostile, so it neither stops
        nor is stopped (it enters what its saving covers)."""
        warring = self.warring
        if not warring:
            return {}
        steps = {a.id: Step(a.id, a.claim_id, a.kind, a.tile, ()) for a in self.moving
                 if a.claim_id in warring}
        for a in stepping:
            if a.claim_id in warring:
                steps[a.id] = Step(a.id, a.claim_id, a.kind, a.tile,
                                   a.march.path[:self.entering[a.id][0]])
        standing: dict[str, list[tuple[int, str]]] = {}
        for a in self.world.armies.values():
            if a.state in _HOLDING and a.claim_id in warring and a.id not in steps:
                standing.setdefault(a.tile, []).append((a.claim_id, a.kind))
        return settle_steps(list(steps.values()), self.world.at_war, standing)

    def step(self, a: Army) -> None:
        """Army ``a`` marches on for one tick (:func:`~rules.campaign.movement.enter_tiles`):
        it enters every next tile its saving covers, is watched on each (:meth:`detect`), and
        stops at the first one an enemy at war holds (:meth:`encounter`) or at the end of its
        path (:meth:`arrive`)."""
        m = a.march
        entered, saved = self.entering[a.id]
        limit = self.limits.get(a.id, entered) if self.limits else entered
        met = limit < entered
        if met:  # it meets an enemy on its way: it stops there
            entered = limit
        if not entered:  # (it saves what it earned: the march as it was otherwise)
            self.armies[a.id] = moved(a, a.tile, a.travelled,
                                      new_march(m.path, m.costs, saved, m.depart_tick), a.meta)
            return
        meta = a.meta
        rolled: set[str] | None = None  # who has rolled for this march ("depart:tile"),
        # read when it first enters a watched tile (most tiles are watched by nobody)
        may_meet = a.claim_id in self.warring
        now, now_at = a, -1  # the army as it stood on tile ``now_at`` of its path
        stopped = False
        watched, holding = self.watched, self.holding
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
            if may_meet and i == entered - 1 and (tile in holding or met):
                if now_at != i or now.meta is not meta:
                    now, now_at = self.entered(a, i, saved, meta), i
                # an enemy standing there since the phase began: a battle begins
                stopped = self.encounter(now) or met
        if now_at != i or now.meta is not meta:
            now = self.entered(a, i, saved, meta)
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
                     new_march(m.path[i + 1:], m.costs[i + 1:], saved, m.depart_tick), meta)

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
            # keyed by the watching tile and the roll's rank there, never by the army's
            # number (nor its claim or place); the rank is printed only as an opaque token,
            # so a key the watcher reads does not tell how many others were rolled for there
            n = self.rolls[tile_id] = self.rolls.get(tile_id, 0) + 1
            dice, event = self.dice.roll_for(detection_key(self.dice, self.tick.index, tile_id, n),
                                             a, branch=claim_branch(watcher[0]))
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
        force it sighted, until the next tick: one that stood there as the phase began (the
        first by :func:`~rules.campaign.world.army_order`), so no army's step decides
        another's guard."""
        if a.state is not _MARCHING:
            return None
        guards = [g for g in self.standing.get(tile_id, ())
                  if g.claim_id == claim_id and g.kind is a.kind]
        if len(guards) < 2:  # (the usual case: no order to work out)
            return guards[0].id if guards else None
        return min(guards, key=army_order).id

    def encounter(self, a: Army) -> bool:
        """A marching (or retreating) army that has stopped on a tile where an enemy at war
        stood as the phase began (and still stands) fights it (a retreat passing through an
        enemy is stopped too); one it met on the move meets it in :func:`advance_meetings`.
        The enemy it fights: the one standing there longest, then by
        :func:`~rules.campaign.world.army_order`, among :attr:`holding`."""
        for other in sorted(self.holding.get(a.tile, ()),
                            key=lambda o: (o.stationary_since or 0, army_order(o))):
            if other.kind is not a.kind:
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
        battle = meet(a, other, self.tick, self.world.new_battle_id(self.battles))
        self.battles.append(battle)
        self.events.append(Encounter(a, other, battle, allies_drawn_in(
            replace(self.world, armies=self.armies), a, other)))

    def arrive(self, a: Army, *, interrupted: bool) -> Army:
        was_retreat = a.state is ArmyState.RETREATING
        a = arrived(a, self.tick.index)
        if not interrupted:
            self.events.append(Arrival(a, was_retreat))
        return a

    def result(self) -> World:
        return replace(self.world, armies=self.armies, battles=tuple(self.battles))


def meet(a: Army, other: Army, tick: Tick, battle_id: int | None = None, *,
         both_marching: bool = False) -> BattleState:
    """The field battle (numbered ``battle_id``: :meth:`World.new_battle_id`) that begins when
    army ``a`` meets the enemy ``other`` on its tile. ``a`` marched onto the tile where
    ``other`` stands: it started the battle, so ``other``'s claim has the first reaction
    (starting a battle is always detected by the defender). When both were marching (they met
    within the tick, ``both_marching``) neither has it: nobody may retreat, and the battle is
    fought at the next tick."""
    if both_marching:
        return BattleState(battle_id, tile=a.tile, kind=BattleKind.FIELD, attacker_army=a.id,
                           defender_army=other.id, attacker_claim=a.claim_id,
                           defender_claim=other.claim_id, created_tick=tick.index,
                           resolve_tick=tick.index + 1, reactor_claim=None)
    return BattleState(battle_id, tile=a.tile, kind=BattleKind.FIELD, attacker_army=a.id,
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
