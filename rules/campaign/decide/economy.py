"""What the economy's orders decide: muster, disband, build, buy, cede a resource tile,
and the status report (treasury, troops, upkeep)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from decimal import Decimal
from typing import Any

from rules.campaign import calendar, improvements
from rules.campaign import language as o
from rules.campaign.calendar import tick_index
from rules.campaign.catalogue import Catalogue, Entry, Section, UnknownEntry
from rules.campaign.decide.common import (
    NEW_ARMY,
    C,
    Disbanded,
    Mustered,
    OrderRefused,
    Receipt,
    Said,
    Sender,
    brace,
    force,
    label,
    own_army,
    refuse,
    require_claim,
    route_example,
    tick_of,
    with_army,
    with_claim,
)
from rules.campaign.holdfasts import has_seat, holder_of
from rules.campaign.muster import check_muster, muster_ready_at, still_scattered
from rules.campaign.paths import first_step
from rules.campaign.resources import tile_holder
from rules.campaign.upkeep import monthly_upkeep
from rules.campaign.world import (
    Army,
    ArmyKind,
    ArmyState,
    ClaimState,
    HolderState,
    SiegeStatus,
    World,
    released,
)
from rules.text import name_md

# --- muster -----------------------------------------------------------------------------

def decide_muster(world: World, sender: Sender, order: o.Muster, at: datetime
            ) -> tuple[World, Receipt]:
    claim = require_claim(world, sender)
    home = sender.map.tile(claim.holdfast)
    if not has_seat(world, claim):
        raise refuse(f"{name_md(home.label)} has fallen and {name_md(claim.name)} has no seat to "
                     "muster in", "a seat: the moderators give one (until then nobody musters)",
                     "status")
    if order.at is not None and sender.map.tile(order.at).id != home.id:
        raise OrderRefused(f"troops muster at your holdfast, {brace(name_md(home.label))}, "
                           "not at {}",
                           Said(order.at), expected="no place, or your holdfast",
                           example=f"muster {order.infantry} infantry {order.cavalry} cavalry")
    if order.ships and (order.infantry or order.cavalry):
        raise refuse("ships and troops muster in separate orders", "one muster for troops "
                      "and another for ships", "muster 4 ships")
    request = check_muster(
        order.infantry, order.cavalry, claim.infantry, claim.cavalry, claim.scattered_until,
        at, order.ships, at_home_ships=claim.ships,
        scattered_infantry=claim.scattered_infantry, scattered_cavalry=claim.scattered_cavalry,
        scattered_ships=0, home_is_port=home.port,
    )
    ready = muster_ready_at(at, sender.rules)
    infantry = claim.infantry - request.infantry
    cavalry = claim.cavalry - request.cavalry
    claim = replace(claim, infantry=infantry, cavalry=cavalry,
                    ships=claim.ships - request.ships,
                    scattered_infantry=min(claim.scattered_infantry, infantry),
                    scattered_cavalry=min(claim.scattered_cavalry, cavalry))
    new = Army(id=NEW_ARMY, claim_id=claim.id,
               kind=ArmyKind.FLEET if request.ships else ArmyKind.LAND,
               state=ArmyState.MUSTERING, tile=home.id, infantry=request.infantry,
               cavalry=request.cavalry, ships=request.ships, accepted_at=at,
               ready_tick=tick_index(ready, sender.rules))
    cost = monthly_upkeep(request.infantry, request.cavalry, world.season, sender.rules,
                          ships=request.ships)
    receipt = Mustered(
        army=new.id, kind=new.kind, infantry=new.infantry, cavalry=new.cavalry,
        ships=new.ships, tile=home.id, ready=ready, ready_tick=new.ready_tick or 0,
        upkeep=cost, home_infantry=claim.infantry, home_cavalry=claim.cavalry,
        home_ships=claim.ships, show_ships=bool(claim.ships or request.ships),
        step=first_step(sender.map, sender.rules, new.kind, home.id), ordered=(new.id,))
    return with_army(with_claim(world, claim), new), receipt


def decide_disband(world: World, sender: Sender, order: o.Disband, at: datetime
             ) -> tuple[World, Receipt]:
    a = own_army(world, sender, order.army)
    claim = require_claim(world, sender)
    if a.tile != claim.holdfast or a.state not in (ArmyState.STANDING, ArmyState.GARRISON):
        home = label(sender, claim.holdfast)
        raise refuse(f"{force(a)} must stand at {name_md(home)} to disband",
                      "a standing army at your holdfast",
                      route_example(world, sender, a, (claim.holdfast,)))
    claim = replace(claim, infantry=claim.infantry + a.infantry,
                    cavalry=claim.cavalry + a.cavalry, ships=claim.ships + a.ships)
    world = replace(world, characters=released(world, [a.id]))  # its characters go home too
    return (with_army(with_claim(world, claim), replace(a, state=ArmyState.GONE)),
            Disbanded(a.id, a.infantry, a.cavalry, a.ships, kind=a.kind))


# --- resource tiles ---------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Ceded(Receipt):
    tile: str
    to_claim: int
    to_name: str


def claim_named(claims: Iterable[C], name: str) -> C | None:
    """A claim by its name, case-insensitively ("stark" finds "House Stark")."""
    wanted = " ".join(name.lower().split())
    found = list(claims)
    for claim in found:
        if claim.name.lower() == wanted:
            return claim
    for claim in found:
        if claim.name.lower().removeprefix("house ") == wanted.removeprefix("house "):
            return claim
    return None


def decide_cede(world: World, sender: Sender, order: o.Cede, at: datetime
          ) -> tuple[World, Receipt]:
    claim = require_claim(world, sender)
    tile = sender.map.tile(order.tile)
    if not tile.resource:
        raise refuse(f"{name_md(tile.label)} is not a resource tile", "a resource tile you hold",
                      "status")
    other = claim_named(world.claims.values(), order.claim)
    if other is None or other.id == claim.id:
        raise OrderRefused("there is no other claim called {}", Said(order.claim, 60),
                           expected="another claim's name", example="status")
    record = world.holders.get(tile.id)
    # As the tick counts it (rules.campaign.tick.advance_holders).
    holder = tile_holder((a for a in world.armies.values() if a.tile == tile.id), sender.rules,
                         recorded=record.claim_id if record is not None else None,
                         ceded_to=record.ceded_to if record is not None else None,
                         hostile=world.at_war)
    if holder != claim.id:
        raise refuse(f"you do not hold {name_md(tile.label)}'s benefit now",
                      "a resource tile where your standing army is the strongest", "status")
    if not any(a.claim_id == other.id and a.tile == tile.id and a.state is ArmyState.STANDING
               for a in world.armies.values()):
        raise refuse(f"{name_md(other.name)} has no standing army on {name_md(tile.label)}",
                      "a claim whose army stands on the tile with yours", "status")
    record = replace(record, ceded_to=other.id) if record is not None else \
        HolderState(tile.id, claim.id, other.id)
    return (replace(world, holders={**world.holders, tile.id: record}),
            Ceded(tile.id, other.id, other.name))


# --- the catalogue: build, buy; blockade ---------------------------------------------------

def lookup(catalogue: Catalogue, section: Section, name: str, example: str) -> Entry:
    """The catalogue's entry called ``name``, or a refusal listing the valid names (``example``
    has a ``{}`` for the name to suggest)."""
    try:
        return catalogue.lookup(section, name)
    except UnknownEntry as exc:
        hint = f" (did you mean {name_md(exc.suggestion)}?)" if exc.suggestion else ""
        valid = ", ".join(name_md(v) for v in exc.valid)
        raise OrderRefused(
            f"there is no {section.singular} called {{}}{brace(hint)}", Said(name, 100),
            expected=f"one of: {valid}" if valid else
            f"nothing: this campaign has no {section.value}",
            example=example.replace("{}", exc.suggestion or (exc.valid[0] if exc.valid
                                                             else name))) from None


def gold_text(value: Decimal) -> str:
    """Gold as players write it: ``2658``, ``12.5``."""
    if value == value.to_integral_value():
        return str(value.quantize(Decimal(1)))
    return format(value.normalize(), "f")


def cost_text(entry: Entry) -> str:
    """``150 gold`` (or ``free``)."""
    return "free" if entry.cost == 0 else f"{_plain(entry.cost)} gold"


def _plain(value: Decimal) -> str:
    return format(value.normalize(), "f") if value == value.to_integral_value() \
        else format(value, "f")


def improvement_records(claim: ClaimState) -> list[dict[str, Any]]:
    """The claim's built and in-progress improvements (bookkeeping entries left out)."""
    return improvements.improvement_records(claim.improvements)


@dataclass(frozen=True, slots=True)
class Building(Receipt):
    """An improvement begun at the claim's holdfast: finished when ``ready_month`` begins
    (``ready``)."""

    entry: Entry
    holdfast: str
    gold_left: Decimal
    ready_month: int
    ready: datetime


def decide_build(world: World, sender: Sender, order: o.Build, at: datetime
           ) -> tuple[World, Receipt]:
    claim = require_claim(world, sender)
    home = label(sender, claim.holdfast)
    entry = lookup(sender.catalogue, Section.IMPROVEMENTS, order.improvement,
                   "build {} at " + home)
    place = sender.map.tile(order.holdfast)
    if place.id != claim.holdfast:
        raise OrderRefused(f"you can only build in your own holdfast, {brace(name_md(home))}, "
                           "not {}",
                           Said(place.label, 100), expected="your holdfast",
                           example=f"build {entry.name} at {home}")
    records = improvement_records(claim)
    for record in records:
        if str(record.get("name", "")).casefold() == entry.name.casefold():
            if record.get("done"):
                raise refuse(f"{name_md(home)} already has {name_md(entry.name)}",
                              "an improvement not built yet", "status")
            ready = calendar.date_of_month_number(int(record["ready_month"]), sender.rules)
            raise refuse(f"{name_md(entry.name)} is already being built at {name_md(home)} "
                          "(finished at the "
                          f"start of {calendar.format_game_date(ready)})",
                          "an improvement not built yet", "status")
    if claim.gold < entry.cost:
        raise refuse(f"{name_md(entry.name)} costs {cost_text(entry)} and {name_md(claim.name)} "
                      "has "
                      f"{gold_text(claim.gold)}", "enough gold in the treasury", "status")
    ready_month = calendar.month_number(at, sender.rules) + entry.months
    record = {"name": entry.name, "holdfast": claim.holdfast, "cost": str(entry.cost),
              "ordered_tick": tick_of(at, sender), "ready_month": ready_month, "done": False}
    kept = tuple(item for item in claim.improvements
                 if not (isinstance(item, Mapping) and "name" in item))
    claim = replace(claim, gold=claim.gold - entry.cost,
                    improvements=(*(dict(r) for r in records), record, *kept))
    ready_at = calendar.month_start(calendar.date_of_month_number(ready_month, sender.rules),
                                    sender.rules)
    return with_claim(world, claim), Building(entry, claim.holdfast, claim.gold, ready_month,
                                              ready_at)


@dataclass(frozen=True, slots=True)
class Bought(Receipt):
    """Siege equipment bought for an army (stored with its cost and the tick it was bought)."""

    army: int
    entry: Entry
    gold_left: Decimal
    tick: int


def decide_buy(world: World, sender: Sender, order: o.Buy, at: datetime
         ) -> tuple[World, Receipt]:
    a = own_army(world, sender, order.army)
    claim = require_claim(world, sender)
    if a.kind is ArmyKind.FLEET:
        raise refuse(f"fleet {a.id} carries no siege equipment", "a land army", "status")
    entry = lookup(sender.catalogue, Section.EQUIPMENT, order.equipment,
                   "buy {} for " + force(a))
    if order.quantity > 1:
        raise refuse(f"an army can use only one {name_md(entry.name)}: equipment of the same name "
                      "does not stack", "one of each kind of equipment",
                      f"buy {entry.name} for {force(a)}")
    if any(n.casefold() == entry.name.casefold() for n in a.equipment):
        raise refuse(f"{force(a)} already carries {name_md(entry.name)}",
                      "equipment the army does not carry yet", "status")
    if claim.gold < entry.cost:
        raise refuse(f"{name_md(entry.name)} costs {cost_text(entry)} and {name_md(claim.name)} "
                      "has "
                      f"{gold_text(claim.gold)}", "enough gold in the treasury", "status")
    claim = replace(claim, gold=claim.gold - entry.cost)
    a = replace(a, equipment=(*a.equipment, entry.name))
    return (with_army(with_claim(world, claim), a),
            Bought(a.id, entry, claim.gold, tick_of(at, sender)))


# --- information ------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class StatusReport(Receipt):
    """A claim's state at ``at``: its treasury and troops at home, its holdfast's defenses
    (its own secret), the troops still scattered, its raised armies and their upkeep."""

    claim: ClaimState
    at: datetime
    defense_bonus: Decimal
    scattered: bool
    armies: tuple[Army, ...]
    upkeep: Decimal
    seat: bool = True
    """Whether the claim still holds its seat (else it cannot muster)."""
    held: tuple[tuple[str, Decimal], ...] = ()
    """The other holdfasts it holds, each with its secret defence bonus (its own to see)."""
    sieges: tuple[SiegeProgress, ...] = ()
    """The running sieges it lays or suffers."""


@dataclass(frozen=True, slots=True)
class SiegeProgress:
    """A running siege as one of its two claims sees it: ``holdfast`` besieged by ``army``;
    ``besieging``: this claim lays it (else its holdfast is besieged); ``other``: the other
    claim's name ("" for a holdfast nobody holds); the months counted and the months left
    (both claims were told the length when it began); ``paused``: its last month did not
    count (a broken blockade)."""

    holdfast: str
    army: int
    besieging: bool
    other: str
    done: int
    left: int
    paused: bool


def siege_progress(world: World, claim_id: int) -> tuple[SiegeProgress, ...]:
    """The running sieges that claim ``claim_id`` lays or suffers, oldest first: no other
    claim's siege (nothing of it is this claim's to see)."""
    found = []
    for s in world.sieges:
        if s.status is not SiegeStatus.ACTIVE or claim_id not in (s.besieger_claim,
                                                                   s.defender_claim):
            continue
        besieging = s.besieger_claim == claim_id
        other = s.defender_claim if besieging else s.besieger_claim
        found.append(SiegeProgress(s.holdfast, s.army_id, besieging,
                                   world.claim_name(other) if other in world.claims else "",
                                   s.months_elapsed, s.months_left, s.paused))
    return tuple(found)


def decide_status(world: World, sender: Sender, order: o.Status, at: datetime
            ) -> tuple[World, Receipt]:
    claim = require_claim(world, sender)
    mine = tuple(a for a in world.armies.values()
                 if a.claim_id == claim.id and a.state is not ArmyState.GONE)
    upkeep = monthly_upkeep(sum(a.infantry for a in mine), sum(a.cavalry for a in mine),
                            world.season, sender.rules, ships=sum(a.ships for a in mine))
    scattered = still_scattered(claim.scattered_until, claim.scattered_infantry,
                                claim.scattered_cavalry, at)
    seat = has_seat(world, claim)
    # a holdfast's secret bonus is its holder's to see: the seat's only while it holds it
    held = tuple((t.id, t.defense_bonus) for t in sender.map.holdfasts()
                 if t.id != claim.holdfast and holder_of(world, t.id) == claim.id)
    return world, StatusReport(claim, at,
                               sender.map.tile(claim.holdfast).defense_bonus if seat
                               else Decimal(1), scattered, mine, upkeep, seat=seat, held=held,
                               sieges=siege_progress(world, claim.id))
