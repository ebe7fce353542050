"""What the siege orders decide: siege, lift, and blockade (a fleet closing a port)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime

from rules.campaign import language as o
from rules.campaign.calendar import next_tick_at_or_after, tick_index
from rules.campaign.decide.common import (
    NEW_SIEGE,
    Receipt,
    Sender,
    SiegeLifted,
    active_siege,
    caught,
    declare_war,
    force,
    holdfast_owner,
    leave_siege,
    own_army,
    pending_battle_of,
    refuse,
    require_claim,
    route_example,
    shown,
    tick_of,
    with_army,
)
from rules.campaign.holdfasts import NEUTRAL, holder_of
from rules.campaign.modifiers import Modifier
from rules.campaign.naming import state_word
from rules.campaign.sides import garrison_count
from rules.campaign.siege import (
    SiegeLength,
    SpecialHoldfast,
    check_siege_start,
    neutral_siege_length,
    siege_months,
)
from rules.campaign.world import (
    FIGHTING_STATES,
    Army,
    ArmyKind,
    ArmyState,
    RelationStatus,
    SiegeState,
    World,
)
from rules.campaign.worldmap import WorldMap
from rules.text import name_md

# --- sieges -----------------------------------------------------------------------------

def decide_lift(world: World, sender: Sender, order: o.Lift, at: datetime
          ) -> tuple[World, Receipt]:
    claim = require_claim(world, sender)
    hold = sender.map.tile(order.holdfast)
    siege = active_siege(world, hold.id)
    if siege is None or siege.besieger_claim != claim.id:
        raise refuse(f"you are not besieging "
                      f"{name_md(hold.label)}", "a holdfast your army besieges",
                      "status")
    a = own_army(world, sender, siege.army_id)
    if (battle := pending_battle_of(world, a.id)) is not None:
        raise caught(a, battle, sender.rules)
    world, a, lifted = leave_siege(world, a)
    return world, SiegeLifted(a.id, hold.id, lifted.id if lifted else None, claim.name,
                              kind=a.kind)


@dataclass(frozen=True, slots=True)
class SiegeBegun(Receipt):
    """A siege laid (``siege`` :data:`NEW_SIEGE` until stored): it lasts ``length`` months,
    with each side's modifiers (``besieger_mods``, ``defender_mods``) for the notes each side
    may read."""

    siege: int
    army: int
    holdfast: str
    besieger_claim: int
    defender_claim: int
    length: SiegeLength
    besieger_mods: tuple[Modifier, ...]
    defender_mods: tuple[Modifier, ...]
    infantry: int
    cavalry: int
    ships: int
    kind: ArmyKind = field(default=ArmyKind.LAND, kw_only=True)
    falls_tick: int | None = field(default=None, kw_only=True)
    """A holdfast nobody holds or garrisons: the tick it falls at (the first after the siege
    began), which the receipt states; None for a siege that counts months."""


@dataclass(frozen=True, slots=True)
class SiegeReferred(Receipt):
    """A siege of a holdfast with its own rules: referred to the moderators, nothing changed."""

    army: int
    holdfast: str
    defender_claim: int
    infantry: int
    cavalry: int
    ships: int
    kind: ArmyKind = field(default=ArmyKind.LAND, kw_only=True)


def blockaded(world: World, claim_id: int, tile: str, worldmap: WorldMap) -> bool:
    """Whether a standing fleet of ``claim_id`` lies on water next to ``tile``."""
    water = set(worldmap.water_adjacent(tile))
    return any(a.kind is ArmyKind.FLEET and a.tile in water and a.claim_id == claim_id
               and a.state is ArmyState.STANDING for a in world.armies.values())


def _may_besiege(a: Army) -> bool:
    """Whether army ``a`` is in the state a siege order takes (standing: not mustering,
    marching, retreating, inside its holdfast, besieging already, or gone)."""
    return a.state is ArmyState.STANDING


def decide_siege(world: World, sender: Sender, order: o.Siege, at: datetime
           ) -> tuple[World, Receipt]:
    a = own_army(world, sender, order.army)
    hold = sender.map.tile(order.holdfast)
    if a.tile != hold.id or not _may_besiege(a):
        raise refuse(f"{force(a)} must stand on {name_md(hold.label)} to besiege it (it is "
                      f"{state_word(a.kind, a.state)} at {shown(sender, a.tile)})",
                      "a standing army on the holdfast",
                      route_example(world, sender, a, (hold.id,)))
    owner = holdfast_owner(world, hold.id)
    if not hold.holdfast or (owner is not None and owner.id == a.claim_id):
        raise refuse(f"{name_md(hold.label)} is "
                     + ("your own holdfast" if hold.holdfast else "not a holdfast"),
                     "a holdfast of another claim, or one nobody holds", "status")
    if active_siege(world, hold.id) is not None:
        raise refuse(f"{name_md(hold.label)} is already under "
                      "siege", "a holdfast not yet besieged",
                      "status")
    defenders = [d for d in world.armies.values() if d.state in FIGHTING_STATES
                 and d.tile == hold.id and d.claim_id != a.claim_id]
    try:
        check_siege_start(holdfast=hold.holdfast, port=hold.port, special=hold.special,
                          hostile_troops_on_tile=bool(defenders),
                          blockaded=blockaded(world, a.claim_id, hold.id, sender.map))
    except SpecialHoldfast:
        return world, SiegeReferred(a.id, hold.id, owner.id if owner else NEUTRAL, a.infantry,
                                    a.cavalry, a.ships, kind=a.kind)
    attack = sender.modifiers.besieger(a)
    if owner is None:  # nobody holds it: no war, its neutral garrison from the map
        length = neutral_siege_length(hold.garrison, sender.rules, attack)
        before = None
    else:
        defense = sender.modifiers.holdfast(owner.id)
        # the garrison: every troop of the holder there (at home, mustering, standing)
        length = siege_months(sum(garrison_count(world, owner, hold.id)), sender.rules,
                              besieger_modifiers=attack, defender_modifiers=defense)
        world, before = declare_war(world, a.claim_id, owner.id)
    defender = owner.id if owner is not None else NEUTRAL
    siege = SiegeState(id=NEW_SIEGE, army_id=a.id, besieger_claim=a.claim_id,
                       defender_claim=defender, holdfast=hold.id,
                       # months count from the tick at or after the order
                       started_tick=tick_index(next_tick_at_or_after(at, sender.rules),
                                               sender.rules),
                       months_required=length.months)
    a = replace(a, state=ArmyState.BESIEGING)
    world = replace(with_army(world, a), sieges=(*world.sieges, siege))
    wars = () if before is None else ((a.claim_id, defender, before),)
    return world, SiegeBegun(NEW_SIEGE, a.id, hold.id, a.claim_id, defender, length, attack,
                             sender.modifiers.holdfast(owner.id) if owner else (), a.infantry,
                             a.cavalry, a.ships, wars=wars, kind=a.kind,
                             falls_tick=siege.started_tick + 1 if length.months == 0 else None)


@dataclass(frozen=True, slots=True)
class Blockading(Receipt):
    """A fleet closing a port: ``owner`` the claim holding it (None: nobody), ``siege`` the
    siege of the port at the moment (None: none)."""

    fleet: int
    ships: int
    port: str
    claim_id: int
    claim_name: str
    owner: int | None
    owner_name: str | None
    siege: SiegeState | None
    tick: int
    army: int | None = None
    """The army of the blockading claim its receipt names to besiege the port (a standing one,
    one on the port first); None: it has none standing."""


def decide_blockade(world: World, sender: Sender, order: o.Blockade, at: datetime
              ) -> tuple[World, Receipt]:
    fleet = own_army(world, sender, order.fleet, "fleet")
    claim = require_claim(world, sender)
    if fleet.kind is not ArmyKind.FLEET:
        can_raise = sender.map.tile(claim.holdfast).port and claim.ships > 0
        raise refuse(f"army {fleet.id} is not a fleet", "one of your fleets"
                      + (" (muster ships at your port first)" if can_raise else ""),
                      f"muster {min(4, claim.ships)} ships" if can_raise else "status")
    port = sender.map.tile(order.port)
    if not (port.holdfast and port.port):
        ports = ", ".join(name_md(t.label) for t in sender.map.ports() if t.holdfast)
        others = [t.label for t in sender.map.ports()
                  if t.holdfast and holder_of(world, t.id) != claim.id]
        raise refuse(f"{name_md(port.label)} is not a port holdfast", f"one of: {ports}",
                      f"blockade {others[0]} with fleet {fleet.id}" if others else "status")
    owner = holdfast_owner(world, port.id)
    if owner is not None and owner.id == claim.id:
        raise refuse(f"{name_md(port.label)} is your own "
                      "port", "the port holdfast of another claim",
                      "status")
    water = sender.map.water_adjacent(port.id)
    if fleet.tile not in water or fleet.state is not ArmyState.STANDING:
        raise refuse(f"fleet {fleet.id} must stand on a water tile next to {name_md(port.label)} "
                      f"({', '.join(water)}); it is {state_word(fleet.kind, fleet.state)} at "
                      f"{shown(sender, fleet.tile)}", "a standing fleet next to the port",
                      f"route {force(fleet)} to {water[0] if water else port.label}")
    wars: tuple[tuple[int, int, RelationStatus], ...] = ()
    if owner is not None:
        world, before = declare_war(world, claim.id, owner.id)
        wars = () if before is None else ((claim.id, owner.id, before),)
    return world, Blockading(fleet.id, fleet.ships, port.id, claim.id, claim.name,
                             owner.id if owner is not None else None,
                             owner.name if owner is not None else None,
                             active_siege(world, port.id), tick_of(at, sender),
                             _besieger(world, claim.id, port.id), wars=wars)


def _besieger(world: World, claim_id: int, port: str) -> int | None:
    """The land army of claim ``claim_id`` to name for a siege of ``port``, among those a
    siege order takes (:func:`_may_besiege`): the first on it, else the first; None when it
    has none."""
    land = sorted((a for a in world.armies.values()
                   if a.claim_id == claim_id and a.kind is ArmyKind.LAND and _may_besiege(a)),
                  key=lambda a: (a.tile != port, a.id))
    return land[0].id if land else None
