"""The tick's economy: the monthly jobs of a claim (improvements finished and troop capacity,
upkeep or scatter, regeneration of the slain) and who receives each resource tile's benefit.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from rules.campaign import calendar
from rules.campaign.catalogue import Catalogue, Section
from rules.campaign.improvements import (
    capacity_granted,
    improvement_modifiers,
    improvement_records,
    stored_items,
)
from rules.campaign.inforce import in_force_for
from rules.campaign.modifiers import (
    EffectKind,
    Modifier,
    Role,
    collect,
    total,
)
from rules.campaign.resources import tile_holder
from rules.campaign.tick.events import (
    CapacityChanged,
    HolderChanged,
    ImprovementDone,
    MonthBegins,
    MonthEnds,
    Regenerated,
    Scattered,
    Tick,
    TickEvent,
    UpkeepPaid,
)
from rules.campaign.upkeep import (
    SCATTERED_FATE,
    accrue_month,
    apply_upkeep,
    troops_of,
)
from rules.campaign.world import (
    ACTIVE_STATES,
    Army,
    ArmyState,
    HolderState,
    World,
    gone,
    released,
)
from rules.campaign.worldmap import WorldMap

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
        return world, [UpkeepPaid(claim, date, result, inf, cav, ships, tuple(income))]
    home = result.survivors
    at = calendar.tick_time(tick.index, tick.rules)
    claim = replace(claim, infantry=claim.infantry + home.infantry,
                    cavalry=claim.cavalry + home.cavalry, ships=claim.ships + home.ships,
                    scattered_infantry=claim.scattered_infantry + home.infantry,
                    scattered_cavalry=claim.scattered_cavalry + home.cavalry,
                    scattered_until=calendar.scattered_until(at, tick.rules))
    armies = dict(world.armies)
    for a in raised:
        armies[a.id] = gone(a, SCATTERED_FATE)
    world = replace(world, claims={**world.claims, claim_id: claim}, armies=armies,
                    characters=released(world, [a.id for a in raised]))  # they go home too
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

def months_due(world: World, tick: Tick) -> list[tuple[int, calendar.GameDate]]:
    """The in-game months whose jobs tick ``tick`` runs: every month that began since the
    tick before it and after the world's last month, as (month number, its date), in order."""
    rules = tick.rules
    found: list[tuple[int, calendar.GameDate]] = []
    last = world.last_month
    for boundary in calendar.month_boundaries(calendar.tick_time(tick.index - 1, rules),
                                              calendar.tick_time(tick.index, rules), rules):
        month = calendar.month_number_of(boundary.date, rules)
        if month > last:
            found.append((month, boundary.date))
            last = month
    return found


def advance_month(world: World, tick: Tick, month: int, date: calendar.GameDate
                  ) -> tuple[World, list[TickEvent]]:
    """The jobs of in-game month ``month``, claim by claim in the order of their ids: its
    improvements finished and troop capacity (:func:`advance_improvements`), then its upkeep
    (:func:`advance_upkeep`, its gold income counting the improvements finished just now)
    and the regeneration of its slain (:func:`advance_regeneration`). Each claim's modifiers
    are those in force in the world as the claims before it left it. The events begin with
    :class:`MonthBegins` and end with :class:`MonthEnds`; the world's last month is ``month``
    after."""
    catalogue = tick.catalogue or Catalogue()
    events: list[TickEvent] = [MonthBegins(month, date)]
    for claim_id in list(world.claims):
        book = in_force_for(world, catalogue, tick.map, tick.rules)
        world, done = advance_improvements(
            world, claim_id, month, catalogue=catalogue,
            modifiers=book.claim_besides_improvements(world.claims[claim_id]))
        events.extend(done)
        income = in_force_for(world, catalogue, tick.map, tick.rules).claim(
            world.claims[claim_id])
        world, paid = advance_upkeep(world, claim_id, date, tick, income=income)
        world, back = advance_regeneration(world, claim_id, date, tick)
        events.extend((*paid, *back))
    events.append(MonthEnds(month))
    return replace(world, last_month=month), events


def resource_ids(world_map: WorldMap) -> frozenset[str]:
    """The ids of the map's resource tiles."""
    return frozenset(t.id for t in world_map.resource_tiles())


# --- resource tiles -------------------------------------------------------------------------

def advance_holders(world: World, tick: Tick) -> tuple[World, list[TickEvent]]:
    """Record who receives each occupied (or recorded) resource tile's benefit now
    (:func:`rules.campaign.resources.tile_holder`); a hostile newcomer takes nothing by
    arriving. A cession lapses when the claim it was made to loses the benefit."""
    on_tile: dict[str, list[Army]] = {}
    resource = resource_ids(tick.map)
    standing = ArmyState.STANDING  # (looked up once: a member looked up on its enum costs
    # several times what the test does)
    for a in world.armies.values() if resource else ():
        if a.state is standing and a.tile in resource:
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
