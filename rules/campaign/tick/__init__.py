"""One tick of the campaign, as pure functions over :class:`~rules.campaign.world.World` values.

``advance_*`` functions take the world before a phase and return the world after it with the
events of the phase, in the order they happened (plain values: the services journal them and
render posts and messages from them; nothing here is markdown). Dice come from
:class:`~rules.campaign.world.EventDice`, keyed per event exactly as the tick has always keyed
them, so a replay, the demo and a database tick roll the same dice.

The phases of a tick, in order, one file per rule area: :mod:`.economy` (monthly jobs, resource
tile holders), :mod:`.movement` (musters, marches, detection, encounters), :mod:`.battle`
(battles and meetings), :mod:`.siege` (siege months, falls); the events are in :mod:`.events`:

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

from collections.abc import Callable, Sequence

from rules.campaign.tick.battle import (
    advance_battles,
    advance_meetings,
    secret_defense,
)
from rules.campaign.tick.economy import (
    advance_holders,
    advance_improvements,
    advance_regeneration,
    advance_upkeep,
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
    "Arrival",
    "BattleFought",
    "BattleVoid",
    "Between",
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
    "holdfast_falls",
    "observers_of",
    "secret_defense",
]


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
