"""The movement phase against a plain reference (all armies moving at once, as docs/rules.md
says: the reference settles the meetings the obvious way, pair by pair): on many seeded
worlds (wars between claims, watched holdfasts and occupied resource tiles, retreats,
fleets, musters, modifiers of speed, stealth and detection)
:func:`rules.campaign.tick.advance_movement` gives exactly what the straightforward algorithm
below gives, tick after tick: the same armies (their march,
their bookkeeping with its keys in the same order), the same battles, the same events in the
same order with the same dice.

The reference works the rules out the obvious way (every army, every tile entered, every
watcher near it, a new army value at each change); the phase may be as clever as it likes
about doing less, but not about doing something else.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import replace
from decimal import Decimal
from fractions import Fraction

import pytest

from rules.campaign.config import RulesConfig
from rules.campaign.detection import roll_detection
from rules.campaign.modifiers import Effect, EffectKind, Modifier, Source
from rules.campaign.movement import budget_per_tick, marches_on
from rules.campaign.paths import entry_cost
from rules.campaign.tick import (
    Arrival,
    Detection,
    Encounter,
    Tick,
    TickEvent,
    advance,
    advance_movement,
    observers_of,
)
from rules.campaign.tick.movement import meet
from rules.campaign.world import (
    Army,
    ArmyKind,
    ArmyState,
    BattleKind,
    BattleState,
    BattleStatus,
    ClaimState,
    EventDice,
    March,
    NoModifiers,
    SiegeState,
    World,
    army_order,
)
from rules.campaign.worldmap import WorldMap, parse_map, tile_id
from rules.fairdice import claim_branch, key_token
from tests.rules.campaign import builders

RULES = RulesConfig()
DICE = EventDice("a campaign secret", 2)
HEADER = builders.HEADER
SIZES = ((10, 0), (0, 40), (150, 20), (180, 0), (400, 50), (700, 0), (1500, 300), (6000, 0))


def _modifier(name: str, kind: EffectKind, amount: str, hidden: bool = False) -> Modifier:
    return Modifier(name, Source.SKILL, (Effect(kind, Decimal(amount)),), name, hidden)


FAST = _modifier("forced march", EffectKind.SPEED, "1.5")
SNEAKY = _modifier("scouts", EffectKind.STEALTH, "3", hidden=True)
WATCHFUL = _modifier("watchtower", EffectKind.DETECTION, "4")


class SeededModifiers(NoModifiers):
    """Modifiers that depend on the army's id, state and tile and on the watcher: a phase that
    asked them about another army value than the rules mean would be caught (none in battle)."""

    def march(self, army: Army) -> tuple[Modifier, ...]:
        found = []
        if army.id % 5 == 0:
            found.append(SNEAKY)
        if army.id % 7 == 0 or (army.state is ArmyState.STANDING and army.tile.endswith("3")):
            found.append(FAST)
        return tuple(found)

    def observer(self, claim_id: int, tile: str) -> tuple[Modifier, ...]:
        return (WATCHFUL,) if claim_id % 3 == 0 else ()


def seeded_map(rng: random.Random, size: int = 14) -> WorldMap:
    """Water round the edge and in lakes, a holdfast every 4 tiles, a few resource tiles."""
    holds = {(c, r) for c in range(2, size - 1, 4) for r in range(2, size - 1, 4)}
    lines = [HEADER]
    for col in range(size):
        for row in range(size):
            edge = col in (0, size - 1) or row in (0, size - 1)
            terrain = "water" if edge else rng.choice(
                ["field", "field", "field", "forest", "hill", "water"])
            flags, name, benefit = "", "", ""
            if (col, row) in holds:
                terrain, flags, name = "field", "holdfast", f"Hold {col}x{row}"
            elif terrain != "water" and rng.random() < 0.06:
                flags, benefit = "resource", "Gold mine"
            lines.append(f"{tile_id(col, row)},{name},{terrain},{flags},{benefit},,,\n")
    return parse_map("".join(lines))


def _walk(world_map: WorldMap, start: str, kind: ArmyKind, length: int,
          rng: random.Random) -> list[str]:
    path, here = [], start
    for _ in range(length):
        options = [n for n in world_map.neighbours(here)
                   if entry_cost(world_map.tile(n), kind, RULES) is not None]
        if not options:
            break
        here = rng.choice(options)
        path.append(here)
    return path


def seeded_world(seed: int, tick: int, armies: int = 160) -> tuple[World, WorldMap]:
    """A world of 9 claims, some at war, with armies in every state near each other."""
    rng = random.Random(seed)
    world_map = seeded_map(rng)
    holds = [t.id for t in world_map.holdfasts()]
    claims = [ClaimState(i + 1, f"House {i}", h) for i, h in enumerate(holds)]
    ids = [c.id for c in claims]
    wars = [(a, b) for a in ids for b in ids if a < b and rng.random() < 0.45]
    land = [t.id for t in world_map if t.is_land]
    water = [t.id for t in world_map if not t.is_land]
    values: list[Army] = []
    sieges: list[SiegeState] = []
    for i in range(1, armies + 1):
        claim = rng.choice(claims)
        fleet = rng.random() < 0.1
        kind = ArmyKind.FLEET if fleet else ArmyKind.LAND
        state = rng.choice([ArmyState.STANDING] * 6 + [ArmyState.MARCHING] * 7
                           + [ArmyState.RETREATING] * 2 + [ArmyState.MUSTERING] * 2
                           + [ArmyState.GARRISON, ArmyState.BESIEGING, ArmyState.GONE])
        if fleet and state in (ArmyState.GARRISON, ArmyState.BESIEGING, ArmyState.MUSTERING):
            state = ArmyState.STANDING
        tile = rng.choice(water if fleet else (land + holds * 3))
        if state is ArmyState.GARRISON:
            tile = claim.holdfast
        infantry, cavalry = rng.choice(SIZES)
        ships = 0
        if fleet:
            infantry, cavalry, ships = 0, 0, rng.choice((3, 30, 600))
        path = _walk(world_map, tile, kind, rng.randint(1, 6), rng) \
            if state in (ArmyState.MARCHING, ArmyState.RETREATING, ArmyState.MUSTERING) \
            and rng.random() < 0.9 else []
        costs = [entry_cost(world_map.tile(t), kind, RULES) or 1 for t in path]
        depart = rng.choice((tick - 3, tick - 1, tick - 1, tick, None)) if path else \
            rng.choice((None, tick - 5))
        meta: dict[str, object] = {}
        if rng.random() < 0.5:
            meta["order"] = f"t3_{seed}x{i}"
        near = rng.sample(holds, 2)
        if rng.random() < 0.3:  # unsorted, sometimes with a key twice
            meta["rolled"] = [f"{depart}:{near[0]}", f"{tick - 9}:{near[1]}"] \
                + [f"{depart}:{near[0]}"] * rng.randint(0, 1)
        if rng.random() < 0.2:
            meta["detected_by"] = sorted(rng.sample(ids, 2))
            meta["sighted"] = {str(meta["detected_by"][0]): [near[0], tick - 1]}  # type: ignore[index]
        if state is ArmyState.RETREATING:
            meta["retreat_from"] = tile
        if rng.random() < 0.1:
            meta["retreat_route"] = []
        values.append(Army(
            i, claim.id, kind, state, tile, infantry=infantry, cavalry=cavalry, ships=ships,
            stationary_since=rng.choice((None, tick - 4)), arrival_tick=rng.choice((None, tick)),
            ready_tick=rng.choice((tick, tick + 1)) if state is ArmyState.MUSTERING else None,
            march=March(tuple(path), tuple(costs),
                        Fraction(rng.randrange(4), rng.choice((1, 2, 4))), depart),
            travelled=tuple(_walk(world_map, tile, kind, rng.randint(0, 3), rng)),
            meta=meta))
        if state is ArmyState.BESIEGING:
            target = rng.choice(claims)
            if target.id != claim.id:
                values[-1] = replace(values[-1], tile=target.holdfast)
                sieges.append(SiegeState(len(sieges) + 1, i, claim.id, target.id,
                                         target.holdfast, tick - 3))
    at_war = {tuple(sorted(p)) for p in wars}
    battles = []
    by_tile: dict[str, list[Army]] = {}
    for a in values:
        by_tile.setdefault(a.tile, []).append(a)
    for here in by_tile.values():  # a pending battle between two armies at war on a tile
        pair = [a for a in here if a.state is ArmyState.STANDING]
        if len(pair) >= 2 and tuple(sorted((pair[0].claim_id, pair[1].claim_id))) in at_war:
            battles.append(BattleState(len(battles) + 1, pair[0].tile, BattleKind.FIELD,
                                       pair[0].id, pair[1].id, pair[0].claim_id,
                                       pair[1].claim_id, tick - 1, tick + rng.randint(0, 1)))
    world = World.of(armies=values, claims=claims, wars=wars, sieges=sieges, battles=battles)
    return world, world_map


# --- the reference ----------------------------------------------------------------------------

def reference_movement(world: World, tick: Tick, dice: EventDice
                       ) -> tuple[World, list[TickEvent]]:
    """The movement phase, worked out the obvious way."""
    armies = dict(world.armies)
    battles = list(world.battles)
    events: list[TickEvent] = []
    observers = observers_of(world, tick)
    watched: dict[str, list[str]] = {}  # entered tile -> observer tiles near it, by tile id
    for obs in sorted(observers):
        if obs in tick.map.tiles:
            for near in tick.map.tiles_within(obs, tick.rules.detection_radius):
                watched.setdefault(near, []).append(obs)

    counted: dict[str, int] = {}  # the rolls each watching tile has made (their keys)

    def detect(a: Army) -> Army:
        rolled = set(a.meta.get("rolled", []))
        for obs in watched.get(a.tile, ()):
            watcher, kind = observers[obs]
            key = f"{a.march.depart_tick}:{obs}"
            if watcher == a.claim_id or key in rolled:
                continue
            rolled.add(key)
            counted[obs] = counted.get(obs, 0) + 1
            token = key_token(dice.secret, "detect", tick.index, obs, counted[obs])
            rolling, event = dice.roll_for(f"detect:{tick.index}:{obs}:{token}", a,
                                           branch=claim_branch(watcher))
            watching = tick.modifiers.observer(watcher, obs)
            result = roll_detection(a.size, kind, dice=rolling, rules=tick.rules,
                                    observer_modifiers=watching,
                                    stealth_modifiers=tick.modifiers.march(a))
            guard = None
            if a.state is ArmyState.MARCHING:  # one standing there as the phase began
                guard = next((g.id for g in sorted(standers, key=army_order)
                              if g.tile == obs and g.claim_id == watcher
                              and g.state is ArmyState.STANDING and g.kind is a.kind), None)
            events.append(Detection(a, watcher, obs, result, watching, guard,
                                    dice.line(event, rolling), tuple(rolling.rolls)))
            if result.detected:
                sighted = dict(a.meta.get("sighted", {}))
                sighted[str(watcher)] = [obs, tick.index]
                a = a.with_meta(detected_by=sorted({*a.detected_by, watcher}), sighted=sighted)
        if a.meta.get("rolled") != sorted(rolled):
            a = a.with_meta(rolled=sorted(rolled))
        return a

    def stop(a: Army) -> Army:
        return replace(a, state=ArmyState.STANDING, stationary_since=tick.index,
                       arrival_tick=tick.index, march=March(depart_tick=a.march.depart_tick),
                       travelled=() if a.state is ArmyState.RETREATING else a.travelled)

    # All armies move at once: each army's step (the tiles its saving covers), then where each
    # stops, settled for all of them together (docs/rules.md "All armies move at once").
    moving = {i: a for i, a in armies.items() if a.state in (ArmyState.MARCHING,
                                                             ArmyState.RETREATING)}
    steps: dict[int, tuple[str, ...]] = {}
    savings: dict[int, Fraction] = {}
    for army_id, a in moving.items():
        m = a.march
        if not m.path or not marches_on(tick.index, m.depart_tick):
            steps[army_id] = ()
            continue
        saved = m.saved + budget_per_tick(a.infantry, a.cavalry, tick.rules,
                                          is_fleet=a.kind is ArmyKind.FLEET,
                                          modifiers=tick.modifiers.march(a))
        entering = 0  # the tiles the saving covers; the march keeps what is left over
        while entering < len(m.costs) and saved >= m.costs[entering]:
            saved -= m.costs[entering]
            entering += 1
        steps[army_id], savings[army_id] = m.path[:entering], saved
    standers = [a for a in armies.values() if a.id not in moving
                and a.state in (ArmyState.STANDING, ArmyState.BESIEGING)]

    def hostile(a: Army, b: Army) -> bool:
        return a.id != b.id and a.kind is b.kind and world.at_war(a.claim_id, b.claim_id)

    def first_stop(army_id: int, taken: dict[int, int]) -> int:
        """The tiles army ``army_id`` enters: up to the first where a hostile army stood at
        the start, or one a hostile mover enters or ends its step on (``taken``: how many
        tiles each mover enters now)."""
        a = moving[army_id]
        for i, tile in enumerate(steps[army_id]):
            if any(s.tile == tile and hostile(a, s) for s in standers):
                return i + 1
            for other_id, other in moving.items():
                if not hostile(a, other):
                    continue
                entered = steps[other_id][:taken[other_id]]
                ends = entered[-1] if entered else other.tile
                if tile in entered or tile == ends:
                    return i + 1
        return len(steps[army_id])

    taken = {i: len(step) for i, step in steps.items()}
    for _ in range(len(moving) + 1):
        again = {i: first_stop(i, taken) for i in moving}
        if again == taken:
            break
        last, taken = taken, again
    else:
        taken = {i: min(n, last[i]) for i, n in taken.items()}

    # the armies step one by one in army_order (a step changes no other army)
    for army_id in sorted(savings, key=lambda i: army_order(armies[i])):
        a = armies[army_id]
        m = a.march
        entering = taken[army_id]
        met = entering < len(steps[army_id])  # it stops where it meets a hostile army
        a = replace(a, march=replace(m, saved=savings[army_id]))
        stopped = False
        for _ in range(entering):
            m = a.march
            a = replace(a, travelled=(*a.travelled, a.tile), tile=m.path[0],
                        march=March(m.path[1:], m.costs[1:], m.saved, m.depart_tick))
            armies[a.id] = a
            a = detect(a)
            armies[a.id] = a
            enemy = next((o for o in sorted(standers, key=lambda o: (
                o.stationary_since or 0, army_order(o))) if o.tile == a.tile
                and hostile(a, o)), None)
            if enemy is not None:
                if not any(b.status is BattleStatus.PENDING and b.tile == a.tile
                           and {b.attacker_claim, b.defender_claim}
                           == {a.claim_id, enemy.claim_id} for b in battles):
                    battle = meet(a, enemy, tick, world.new_battle_id(battles))
                    battles.append(battle)
                    events.append(Encounter(a, enemy, battle))
                stopped = True
                break
            if met and _ + 1 == entering:
                stopped = True
                break
        if stopped or not a.march.path:
            if not stopped:
                events.append(Arrival(stop(a), a.state is ArmyState.RETREATING))
            a = stop(a)
        armies[a.id] = a
    return replace(world, armies=armies, battles=tuple(battles)), events


def outcome(world: World, events: Sequence[TickEvent]) -> tuple[str, str]:
    """Everything a phase decided, as text: the armies with their bookkeeping (whose keys'
    order counts: it is stored as given) and the rest of the world, and the events."""
    return repr(world), repr(list(events))


@pytest.mark.parametrize("seed", range(12))
def test_movement_decides_what_the_reference_decides(seed: int) -> None:
    start = 40
    world, world_map = seeded_world(seed, start)
    ours, theirs = world, world
    for index in range(start, start + 4):
        tick = Tick(index, world_map, RULES, SeededModifiers())
        ours, events = advance_movement(ours, tick, DICE)
        theirs, expected = reference_movement(theirs, tick, DICE)
        assert outcome(ours, events) == outcome(theirs, expected)
        ours = theirs = _numbered(ours)


def _numbered(world: World) -> World:
    """The world with the battles a phase began given ids (what the services do)."""
    battles = tuple(b if b.id is not None else replace(b, id=1000 + i)
                    for i, b in enumerate(world.battles))
    return replace(world, battles=battles)


def test_the_seeded_worlds_exercise_every_case() -> None:
    """The worlds above detect and miss, meet enemies (also on a tile where a roll was made,
    and armies that stopped earlier in the phase), arrive, return from retreats, guard, move
    fleets, and roll several times on one tile (else the comparison would prove little)."""
    kinds: dict[str, int] = {}
    for seed in range(12):
        world, world_map = seeded_world(seed, 40)
        _, events = advance(world, Tick(40, world_map, RULES, SeededModifiers()), DICE)
        rolls = [(e.army.id, e.army.tile) for e in events if isinstance(e, Detection)]
        if len(set(rolls)) < len(rolls):
            kinds["several rolls on a tile"] = kinds.get("several rolls on a tile", 0) + 1
        for e in events:
            if isinstance(e, Encounter):
                if (e.attacker.id, e.attacker.tile) in rolls:
                    kinds["Encounter:watched"] = kinds.get("Encounter:watched", 0) + 1
                if e.defender.arrival_tick == 40 == e.defender.stationary_since:
                    kinds["Encounter:stopped"] = kinds.get("Encounter:stopped", 0) + 1
            name = type(e).__name__
            if isinstance(e, Detection):
                name += ":detected" if e.result.detected else ":missed"
                name += ":auto" if e.result.automatic else ""
                name += ":guarded" if e.guard is not None else ""
            if isinstance(e, Arrival):
                name += ":returned" if e.returned else ""
                name += ":fleet" if e.army.kind is ArmyKind.FLEET else ""
            kinds[name] = kinds.get(name, 0) + 1
    for wanted in ("Detection:detected", "Detection:missed", "Detection:detected:auto",
                   "Detection:detected:guarded", "Encounter", "Arrival", "Arrival:returned",
                   "Arrival:fleet", "MusterDone", "BattleFought", "Encounter:watched",
                   "Encounter:stopped", "several rolls on a tile"):
        assert kinds.get(wanted, 0) > 0, (wanted, kinds)
