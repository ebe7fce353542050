"""The tick's sieges: sieges whose besiegers left end, each completed siege month counts, a
holdfast starved out (or taken by assault) falls, and armies behind walls no siege holds come out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from rules.campaign import calendar
from rules.campaign.holdfasts import change_hands
from rules.campaign.sides import garrison_armies
from rules.campaign.siege import SiegeState as SiegeCount
from rules.campaign.siege import advance_siege_month, month_checks
from rules.campaign.tick.events import (
    HoldfastFalls,
    SiegeEnded,
    SiegeMonth,
    Tick,
    TickEvent,
)
from rules.campaign.world import (
    Army,
    ArmyKind,
    ArmyState,
    SiegeState,
    SiegeStatus,
    World,
    captured,
    gone,
)


# --- sieges ---------------------------------------------------------------------------------
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
                    sieges=with_siege(world.sieges, fallen))
    world = change_hands(world, siege.holdfast, siege.besieger_claim)
    return world, HoldfastFalls(fallen, how, infantry, cavalry, seat_lost=seat)


def with_siege(sieges: Sequence[SiegeState], siege: SiegeState) -> tuple[SiegeState, ...]:
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
            world = replace(world, sieges=with_siege(world.sieges, siege))
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
    return replace(world, sieges=with_siege(world.sieges, ended))


def release_garrisons(world: World) -> World:
    """Armies behind their walls come out (standing) once no siege holds the holdfast and no
    enemy army at war stands on its tile."""
    besieged = world.besieged()
    here: dict[str, list[Army]] | None = None
    armies: dict[int, Army] | None = None
    garrison = ArmyState.GARRISON  # (looked up once: a member looked up on its enum costs
    # several times what the test does)
    inside = [a for a in world.armies.values() if a.state is garrison and a.tile not in besieged]
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
