"""One tick of the campaign, as pure functions over :class:`~rules.campaign.world.World` values.

``advance_*`` functions take the world before a phase and return the world after it with the
events of the phase, in the order they happened (plain values: the services journal them and
render posts and messages from them; nothing here is markdown). Dice come from
:class:`~rules.campaign.world.EventDice`, keyed per event (docs/dice.md "Event keys"; never by
an army's number: where the rules need an order among armies they take
:func:`~rules.campaign.world.army_order`), so a replay, the demo and a database tick roll the
same dice, and renumbering the armies changes nothing.

The phases of a tick, in order, one file per rule area: :mod:`.economy` (monthly jobs, resource
tile holders), :mod:`.movement` (musters, marches, detection, encounters), :mod:`.battle`
(battles and meetings), :mod:`.siege` (siege months, falls); the events are in :mod:`.events`:

1. the monthly jobs of every in-game month the tick begins (:func:`months_due`,
   :func:`advance_month`), claim by claim: :func:`advance_improvements` (improvements
   finished, troops at home in line with the capacity effects), then :func:`advance_upkeep`
   (pay the month's upkeep or scatter) and :func:`advance_regeneration` (the slain coming
   back);
2. :func:`rules.campaign.absence.stop_held`: the held claims' armies on the march stop
   where they stand (``Stopped``), then :func:`advance_musters`: musters that are ready;
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
:func:`advance_phases` runs 2 to 7 in order; :func:`advance` is the whole tick, 1 to 7, with no
callback: the modifiers in force come from the world and the tick's catalogue as each phase (or
each claim's month) begins (:func:`in_force`), the battles the tick begins are numbered from
the world's next free battle number, and the services write the difference and report the
events afterwards.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from rules.campaign.absence import Stopped, stop_held
from rules.campaign.inforce import InForce, in_force_for
from rules.campaign.tick.battle import (
    advance_battles,
    advance_meetings,
    secret_defense,
)
from rules.campaign.tick.economy import (
    advance_holders,
    advance_improvements,
    advance_month,
    advance_regeneration,
    advance_upkeep,
    months_due,
)
from rules.campaign.tick.events import (
    Arrival,
    BattleFought,
    BattleVoid,
    CapacityChanged,
    Detection,
    Encounter,
    FateRolled,
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
    Tick,
    TickEvent,
    UpkeepPaid,
)
from rules.campaign.tick.movement import (
    advance_movement,
    advance_moves,
    advance_musters,
    observers_of,
)
from rules.campaign.tick.siege import (
    advance_sieges,
    holdfast_falls,
)
from rules.campaign.world import EventDice, World

__all__ = [
    "PHASES",
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
    "MonthBegins",
    "MonthEnds",
    "MusterDone",
    "OpponentDecides",
    "Regenerated",
    "RetreatFailed",
    "RetreatReferred",
    "Retreated",
    "Scattered",
    "SiegeEnded",
    "SiegeMonth",
    "Stopped",
    "Tick",
    "TickEvent",
    "UpkeepPaid",
    "advance",
    "advance_battles",
    "advance_holders",
    "advance_holds",
    "advance_improvements",
    "advance_meetings",
    "advance_month",
    "advance_movement",
    "advance_moves",
    "advance_musters",
    "advance_phases",
    "advance_regeneration",
    "advance_sieges",
    "advance_upkeep",
    "holdfast_falls",
    "in_force",
    "months_due",
    "observers_of",
    "secret_defense",
]


# --- the whole tick -------------------------------------------------------------------------

Phase = Callable[[World, Tick, EventDice], tuple[World, list[TickEvent]]]
"""One phase after the monthly jobs: the world before it, the tick (with the modifiers in force
as the phase begins) and the dice; the world after it and its events."""

def advance_holds(world: World, tick: Tick) -> tuple[World, list[TickEvent]]:
    """The held claims' marches ended where their armies stand
    (:func:`rules.campaign.absence.stop_held`)."""
    after, stopped = stop_held(world, tick.held, tick.index)
    return after, list[TickEvent](stopped)


PHASES: tuple[Phase, ...] = (
    lambda w, tick, dice: advance_holds(w, tick),
    lambda w, tick, dice: advance_musters(w, tick),
    advance_movement,
    advance_battles,
    lambda w, tick, dice: advance_meetings(w, tick),
    lambda w, tick, dice: advance_sieges(w, tick),
    lambda w, tick, dice: advance_holders(w, tick),
)
"""The phases after the monthly jobs, in order: the held claims' marches ended, musters,
movement, battles, meetings, sieges, resource holders."""


def in_force(world: World, tick: Tick) -> Tick:
    """``tick`` with the modifiers in force in ``world`` (worked out from its catalogue; a tick
    without a catalogue keeps its own)."""
    if tick.catalogue is None:
        return tick
    return replace(tick, modifiers=InForce(in_force_for(world, tick.catalogue, tick.map,
                                                         tick.rules)))


def advance_phases(world: World, tick: Tick, dice: EventDice
                   ) -> tuple[World, list[TickEvent]]:
    """The tick after its monthly jobs: musters, movement, battles, meetings, sieges and
    resource holders, in that order (see the module's docstring), each with the modifiers in
    force as it begins. The world needs its active sieges, its pending and spared battles, its
    free characters and its resource holders."""
    events: list[TickEvent] = []
    for phase in PHASES:
        world, more = phase(world, in_force(world, tick), dice)
        events.extend(more)
    return world, events


def advance(world: World, tick: Tick, dice: EventDice) -> tuple[World, list[TickEvent]]:
    """The whole tick ``tick.index``: the jobs of every in-game month that began since the tick
    before it (:func:`months_due`, :func:`advance_month`), then :func:`advance_phases`. The
    world after it, with every change the tick made (the battles it began numbered from
    :attr:`World.next_battle_id`, the sieges it began with negative ids), and its events in
    the order they happened: storage writes the difference, the services report the events."""
    events: list[TickEvent] = []
    for month, date in months_due(world, tick):
        world, more = advance_month(world, tick, month, date)
        events.extend(more)
    world, more = advance_phases(world, tick, dice)
    return world, [*events, *more]
