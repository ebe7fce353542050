"""What the battle orders decide: attack, intercept, assault, sally, the reactions (retreat,
stand, spare), calling off an assault, and the odds of a battle."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime
from fractions import Fraction

from rules.campaign import language as o
from rules.campaign.battle import Matchup, matchup
from rules.campaign.calendar import moment_text, tick_time
from rules.campaign.calloff import call_off_refusal
from rules.campaign.decide.common import (
    BattleOrder,
    BattleOrdered,
    CalledOff,
    Reacted,
    Receipt,
    RetreatReferred,
    Sender,
    Spared,
    active_siege,
    declare_war,
    force,
    harbours,
    holdfast_owner,
    label,
    own_army,
    path_refused,
    pending_battle_of,
    reaction_deadline,
    refuse,
    require_claim,
    route_example,
    shown,
    tick_of,
    with_army,
    with_battle,
)
from rules.campaign.detection import intercept_closes
from rules.campaign.naming import force_name, force_noun, state_word
from rules.campaign.odds import Odds, battle_odds
from rules.campaign.paths import (
    IllegalPath,
    cheapest_route,
    check_path,
)
from rules.campaign.sides import fighting_sides
from rules.campaign.world import (
    FIGHTING_STATES,
    Army,
    ArmyKind,
    ArmyState,
    BattleKind,
    BattleState,
    BattleStatus,
    Reaction,
    World,
)
from rules.text import name_md


def call_off(world: World, sender: Sender, a: Army, battle: BattleState, tick: int
              ) -> tuple[World, Receipt]:
    """`cancel army N` for the army that ordered a pending battle: an assault is called off
    before it is fought; an attack or a sally cannot be (:mod:`rules.campaign.calloff`)."""
    why = call_off_refusal(battle.kind, tick, battle.resolve_tick)
    if why is not None:
        enemy = force_name(a.kind, battle.defender_army)
        raise refuse(why, "an assault that has not been fought yet",
                      f"odds {force(a)} vs {enemy}" if battle.kind is BattleKind.FIELD
                      else "status")
    return (with_battle(world, replace(battle, status=BattleStatus.CALLED_OFF)),
            CalledOff(a.id, battle.id, battle.holdfast or battle.tile, battle.defender_claim,
                      a.state, kind=a.kind))


# --- reactions: retreat, stand, spare ---------------------------------------------------

def react(world: World, a: Army, battle: BattleState, reaction: Reaction,
           route: tuple[str, ...] = ()) -> tuple[World, Receipt]:
    if battle.reactor_claim != a.claim_id:
        raise refuse(f"{force(a)} did not get the first reaction in this battle, so it "
                      "cannot choose", "only the side that detected the other first may "
                      "retreat or stand", "status")
    return (with_battle(world, replace(battle, reaction=reaction)),
            Reacted(a.id, battle.id, reaction, battle.resolve_tick, route,
                    ordered=(a.id,) if route else (), kind=a.kind))


def retreat_route(world: World, sender: Sender, a: Army, order: o.Retreat) -> tuple[str, ...]:
    """The tiles a retreat would enter: the path given, the cheapest way to the tile given,
    or back along the path travelled (docs/rules.md "Retreat"); () when there is none."""
    if order.path:
        try:
            return check_path(sender.map, a.tile, order.path, a.kind, sender.rules,
                              harbours(world, sender, a)).ids
        except IllegalPath as exc:
            raise path_refused(exc, a, sender, f"retreat {force(a)}") from None
    if order.to is not None:
        goal = sender.map.tile(order.to)
        best = cheapest_route(sender.map, a.tile, goal.id, a.kind, sender.rules,
                              harbours(world, sender, a))
        if best is None or not best.tiles:
            raise refuse(f"{force(a)} cannot fall back to {name_md(goal.label)} from "
                          f"{shown(sender, a.tile)}", "another tile its kind can reach",
                          f"retreat {force(a)}")
        return tuple(t.id for t in best.tiles)
    return tuple(reversed(a.travelled))


def decide_retreat(world: World, sender: Sender, order: o.Retreat, at: datetime
             ) -> tuple[World, Receipt]:
    a = own_army(world, sender, order.army)
    battle = pending_battle_of(world, a.id)
    if battle is None:
        raise refuse(f"{force(a)} faces no battle to retreat from",
                      f"{force_noun(a.kind, article=True)} that has been attacked and got "
                      "the first reaction", "status")
    if battle.reactor_claim != a.claim_id:
        return react(world, a, battle, Reaction.RETREAT)  # refused there, with the reason
    route = retreat_route(world, sender, a, order)
    if not route:
        return world, RetreatReferred(a.id, battle.id, a.tile, a.infantry, a.cavalry, a.ships,
                                      kind=a.kind)
    world = with_army(world, a.with_meta(retreat_route=list(route)))
    return react(world, a, battle, Reaction.RETREAT, route)


def decide_spare(world: World, sender: Sender, order: o.Spare, at: datetime
           ) -> tuple[World, Receipt]:
    """After the enemy army's failed retreat, its opponent lets it stay: no battle."""
    claim = require_claim(world, sender)
    battle = pending_battle_of(world, order.army)
    if battle is None or battle.reaction not in (Reaction.FAILED, Reaction.STAND) \
            or battle.reactor_claim != claim.id or tick_of(at, sender) >= battle.resolve_tick \
            or claim.id not in (battle.attacker_claim, battle.defender_claim) \
            or (battle.attacker_army == order.army and battle.attacker_claim == claim.id) \
            or (battle.defender_army == order.army and battle.defender_claim == claim.id):
        raise refuse(f"number {order.army} is not an enemy army or fleet whose retreat "
                      "from yours failed", "the army or fleet named in a failed-retreat note, "
                      "before the battle", "status")
    other = battle.defender_claim if battle.attacker_claim == claim.id else \
        battle.attacker_claim
    runner = world.armies.get(order.army)
    return (with_battle(world, replace(battle, status=BattleStatus.SPARED)),
            Spared(order.army, battle.id, battle.tile, claim.id, other,
                   kind=runner.kind if runner is not None else None))


# --- battles ----------------------------------------------------------------------------

def _open_battle(world: World, sender: Sender, how: BattleOrder, mine: Army, target: Army,
                 at: datetime,
                 ordered: tuple[int, ...] = ()) -> tuple[World, Receipt]:
    """A battle ordered by ``mine`` against ``target`` on their (shared) tile, fought at the end
    of the reaction window; the defender gets the first reaction (starting a battle is always
    detected by the defender). The two claims are at war."""
    world, before = declare_war(world, mine.claim_id, target.claim_id)
    battle = BattleState(id=None, tile=target.tile, kind=BattleKind.FIELD,
                    attacker_army=mine.id, defender_army=target.id,
                    attacker_claim=mine.claim_id, defender_claim=target.claim_id,
                    created_tick=tick_of(at, sender),
                    resolve_tick=reaction_deadline(at, sender.rules),
                    reactor_claim=target.claim_id)
    wars = () if before is None else ((mine.claim_id, target.claim_id, before),)
    return with_battle(world, battle), BattleOrdered(
        how, battle.id, mine.id, target.id, target.tile, battle.resolve_tick, mine.claim_id,
        target.claim_id, mine.infantry, mine.cavalry, mine.ships,
        ordered=(*ordered, mine.id), wars=wars, kind=mine.kind)


def _not_in_battle(world: World, *armies: Army) -> None:
    for a in armies:
        if pending_battle_of(world, a.id) is not None:
            raise refuse(f"{force(a)} is already in a battle", "a battle to be fought first",
                          "status")


def decide_attack(world: World, sender: Sender, order: o.Attack, at: datetime
            ) -> tuple[World, Receipt]:
    mine = own_army(world, sender, order.army)
    target = world.armies.get(order.target)
    if target is None or target.state not in FIGHTING_STATES or target.tile != mine.tile:
        raise refuse(f"there is no enemy {force_name(mine.kind, order.target)} on "
                      f"{shown(sender, mine.tile)} where your {force_noun(mine.kind)} stands",
                      f"an enemy {force_noun(mine.kind)} on the same tile as yours "
                      "(send `status` to see where yours stand)", "status")
    if target.claim_id == mine.claim_id:
        raise refuse(f"{force(target)} is your own", f"an enemy {force_noun(target.kind)}",
                      "status")
    if mine.state not in (ArmyState.STANDING, ArmyState.BESIEGING):
        raise refuse(f"{force(mine)} is {state_word(mine.kind, mine.state)}",
                      f"a standing {force_noun(mine.kind)}", "status")
    if mine.kind != target.kind:
        raise refuse("fleets fight fleets and armies fight armies",
                      "an enemy of the same kind", "status")
    _not_in_battle(world, mine, target)
    return _open_battle(world, sender, BattleOrder.ATTACK, mine, target, at)


def decide_intercept(world: World, sender: Sender, order: o.Intercept, at: datetime
               ) -> tuple[World, Receipt]:
    """Within the reaction window of a sighting, a standing army on the watching tile stops the
    passing force: it halts where it is, the interceptor joins it there, and the battle is
    fought at the end of the window (the intercepted side has the first reaction)."""
    mine = own_army(world, sender, order.army)
    claim = require_claim(world, sender)
    tick = tick_of(at, sender)
    target = world.armies.get(order.target)
    sightings = target.meta.get("sighted") if target is not None else None
    sighted = sightings.get(str(claim.id)) if isinstance(sightings, Mapping) else None
    if target is None or sighted is None or target.claim_id == claim.id \
            or target.state is not ArmyState.MARCHING:
        raise refuse(f"your watchers have not sighted a passing "
                      f"{force_name(mine.kind, order.target)}",
                      "an enemy army or fleet named in a sighting note, while it is still on "
                      "its way", "status")
    watch_tile, sighted_tick = str(sighted[0]), int(sighted[1])
    closes = intercept_closes(sighted_tick, sender.rules)
    if tick >= closes:
        raise refuse(f"the chance to intercept {force(target)} has passed (it closed at "
                      f"{moment_text(tick_time(closes, sender.rules), sender.rules)})",
                      "an intercept sent before the next tick after the sighting", "status")
    if mine.tile != watch_tile or mine.state is not ArmyState.STANDING \
            or mine.kind != target.kind:
        raise refuse(f"{force(mine)} is not standing at {shown(sender, watch_tile)}, where "
                      f"{force(target)} was sighted", f"your standing {force_noun(target.kind)} "
                      "on the watching tile", "status")
    if target.tile not in sender.map.tiles_within(watch_tile, sender.rules.detection_radius):
        raise refuse(f"{force(target)} is out of reach of {shown(sender, watch_tile)}",
                      "a force still within sight of the watching tile", "status")
    _not_in_battle(world, mine, target)
    target = replace(target, state=ArmyState.STANDING,
                     march=replace(target.march, path=(), costs=(), saved=Fraction(0)),
                     arrival_tick=tick, stationary_since=tick)  # stopped, off the march
    mine = replace(mine, travelled=(*mine.travelled, mine.tile), tile=target.tile,
                   stationary_since=tick)
    world = with_army(with_army(world, target), mine)
    return _open_battle(world, sender, BattleOrder.INTERCEPT, mine, target, at)


def decide_assault(world: World, sender: Sender, order: o.Assault, at: datetime
             ) -> tuple[World, Receipt]:
    a = own_army(world, sender, order.army)
    hold = sender.map.tile(order.holdfast)
    owner = holdfast_owner(world, hold.id)
    if owner is None or owner.id == a.claim_id:
        raise refuse(f"{name_md(hold.label)} is not an enemy holdfast",
                     "a holdfast of another claim (one nobody holds is taken by siege)",
                     f"siege {hold.label} with {force(a)}" if owner is None and hold.holdfast
                     else "status")
    if a.tile != hold.id or a.state not in (ArmyState.STANDING, ArmyState.BESIEGING):
        raise refuse(f"{force(a)} must stand on {name_md(hold.label)} to assault it",
                      "a standing or besieging army on the holdfast",
                      route_example(world, sender, a, (hold.id,)))
    defenders = [d for d in sorted(world.armies.values(), key=lambda d: d.id)
                 if d.state in FIGHTING_STATES and d.tile == hold.id
                 and d.claim_id != a.claim_id]
    if defenders:
        raise refuse(f"enemy {force(defenders[0])} holds the tile; defeat it first",
                      "no enemy army on the holdfast's tile", f"attack {force(defenders[0])} "
                      f"with {force(a)}")
    if pending_battle_of(world, a.id) is not None:
        raise refuse(f"{force(a)} is already in a battle", "one battle at a time", "status")
    world, before = declare_war(world, a.claim_id, owner.id)
    battle = BattleState(id=None, tile=hold.id, kind=BattleKind.ASSAULT,
                    attacker_army=a.id, defender_army=0, attacker_claim=a.claim_id,
                    defender_claim=owner.id, created_tick=tick_of(at, sender),
                    resolve_tick=reaction_deadline(at, sender.rules), reactor_claim=None,
                    holdfast=hold.id)
    wars = () if before is None else ((a.claim_id, owner.id, before),)
    return with_battle(world, battle), BattleOrdered(
        BattleOrder.ASSAULT, battle.id, a.id, 0, hold.id, battle.resolve_tick, a.claim_id, owner.id,
        a.infantry, a.cavalry, a.ships, ordered=(a.id,), wars=wars, kind=a.kind)


def decide_sally(world: World, sender: Sender, order: o.Sally, at: datetime
           ) -> tuple[World, Receipt]:
    claim = require_claim(world, sender)
    hold = sender.map.tile(order.holdfast)
    if hold.id != claim.holdfast:
        raise refuse(f"{name_md(hold.label)} is not your holdfast", "your own besieged holdfast",
                      f"sally from {label(sender, claim.holdfast)}"
                      if active_siege(world, claim.holdfast) else "status")
    siege = active_siege(world, hold.id)
    if siege is None:
        raise refuse(f"{name_md(hold.label)} is not under siege", "a besieged holdfast", "status")
    sally_army = 0
    ordered: tuple[int, ...] = ()
    tick = tick_of(at, sender)
    if order.army is not None:
        a = own_army(world, sender, order.army)
        if a.tile == hold.id and a.state is ArmyState.MUSTERING:
            ready = tick_time(a.ready_tick if a.ready_tick is not None else tick, sender.rules)
            raise refuse(f"{force(a)} is still mustering (ready "
                          f"{moment_text(ready, sender.rules)}): "
                          "only ready troops sally", "an army inside the walls that has "
                          "finished mustering, or no army (the whole ready garrison sallies)",
                          f"sally from {hold.label}")
        if a.tile != hold.id or a.state is not ArmyState.GARRISON:
            raise refuse(f"{force(a)} is not inside {name_md(hold.label)}",
                          "an army inside the walls, or no army (the whole garrison sallies)",
                          f"sally from {hold.label}")
        sally_army = a.id
        ordered = (a.id,)
    elif claim.infantry + claim.cavalry + sum(
            x.infantry + x.cavalry for x in world.armies.values()
            if x.claim_id == claim.id and x.state is ArmyState.GARRISON
            and x.tile == hold.id) == 0:
        raise refuse("your garrison has no ready troops to sally with",
                      "troops at home or a ready army inside the walls", "status")
    battle = BattleState(id=None, tile=hold.id, kind=BattleKind.SALLY,
                    attacker_army=sally_army, defender_army=siege.army_id,
                    attacker_claim=claim.id, defender_claim=siege.besieger_claim,
                    created_tick=tick, resolve_tick=reaction_deadline(at, sender.rules),
                    reactor_claim=None, holdfast=hold.id)
    return with_battle(world, battle), BattleOrdered(
        BattleOrder.SALLY, battle.id, sally_army, siege.army_id, hold.id, battle.resolve_tick,
        claim.id, siege.besieger_claim, ordered=ordered)


@dataclass(frozen=True, slots=True)
class OddsShown(Receipt):
    """What a battle of ``army`` attacking ``target`` would be if ordered now (fought at
    ``fought_tick``): both sides as the battle counts them, the band, the exact chances."""

    army: int
    target: int
    fought_tick: int
    fight: Matchup
    odds: Odds
    kind: ArmyKind = field(default=ArmyKind.LAND, kw_only=True)
    target_kind: ArmyKind = field(default=ArmyKind.LAND, kw_only=True)
    with_army: tuple[int, ...] = field(default=(), kw_only=True)
    """The other armies that would fight on the sender's side."""
    with_target: tuple[int, ...] = field(default=(), kw_only=True)
    """The other armies that would fight on the target's side."""
    pending: bool = field(default=False, kw_only=True)
    """The two armies are already in a battle: these are its odds (``army`` its attacker)."""
    asker_attacks: bool = field(default=True, kw_only=True)
    """Whether the asker's army is the attacker (in a pending battle it may be attacked)."""


def odds_pair(world: World, sender: Sender, order: o.Odds, *, moderator: bool = False
              ) -> tuple[Army, Army]:
    """The two armies an ``odds`` order asks about: the sender's own, and one on its tile (a
    moderator may ask about any two armies); odds never reveal an army the sender cannot
    see."""
    mine = own_army(world, sender, order.army_a)
    other = world.armies.get(order.army_b)
    if other is None or not (other.tile == mine.tile or moderator):
        raise refuse(f"{force_name(mine.kind, order.army_b)} is not on "
                      f"{shown(sender, mine.tile)} with your {force_noun(mine.kind)}",
                      f"an enemy {force_noun(mine.kind)} on the same tile as yours (odds never "
                      "reveal forces you cannot see)", "status")
    if other.claim_id == mine.claim_id and not moderator:
        raise refuse(f"{force(other)} is your own",
                      f"an enemy {force_noun(mine.kind)} on your tile", "status")
    return mine, other


def odds_shown(world: World, sender: Sender, order: o.Odds, at: datetime, *,
               moderator: bool = False) -> OddsShown:
    """The answer to an ``odds`` order sent at ``at``: the battle of the sender's army
    attacking the other (:func:`odds_pair`) if the attack were ordered now, as the tick would
    fight it; when the two are already in a pending battle (either side may ask), that battle
    as it will be fought. Otherwise begun now, fought when the reaction window closes (the tick
    and the deadline an ``attack`` order gives its battle). Both sides (every army on the tile
    that joins either claim) are built by :func:`rules.campaign.sides.fighting_sides` as the
    tick's battle builds them; the other claims' hidden modifiers are left out unless a
    moderator asks."""
    mine, other = odds_pair(world, sender, order, moderator=moderator)
    asker = None if moderator else mine.claim_id
    pending = next((b for b in world.battles if b.status is BattleStatus.PENDING
                    and b.kind is BattleKind.FIELD
                    and {b.attacker_army, b.defender_army} == {mine.id, other.id}), None)
    if pending is not None:  # the battle it is already in, as it will be fought (either side)
        first, second = (mine, other) if pending.attacker_army == mine.id else (other, mine)
        fought, began = pending.resolve_tick, pending.created_tick
    else:
        first, second = mine, other
        fought, began = reaction_deadline(at, sender.rules), tick_of(at, sender)
    chances = battle_chances(world, sender, first, second, fought=fought, began=began,
                             asker=asker)
    return OddsShown(first.id, second.id, fought, chances.fight, chances.odds, kind=first.kind,
                     target_kind=second.kind, with_army=chances.attackers[1:],
                     with_target=chances.defenders[1:], pending=pending is not None,
                     asker_attacks=first is mine)


@dataclass(frozen=True, slots=True)
class Chances:
    """A battle's matchup and exact chances, and the armies of each side (ids, the army that
    leads the side first)."""

    fight: Matchup
    odds: Odds
    attackers: tuple[int, ...]
    defenders: tuple[int, ...]


def battle_chances(world: World, sender: Sender, attacker: Army, defender: Army, *,
                   fought: int, began: int, asker: int | None) -> Chances:
    """The battle of ``attacker``'s side against ``defender``'s begun at tick ``began`` and
    fought at ``fought``, both sides built by :func:`rules.campaign.sides.fighting_sides` as
    the tick builds them (the ``odds`` order and the war room ask this one function). The
    hidden modifiers of any claim but ``asker`` are left out (None: a moderator's view,
    everything counts)."""
    attackers, defenders = fighting_sides(world, attacker, defender, map=sender.map,
                                          tick=fought, modifiers=sender.modifiers, began=began,
                                          secrets_of=asker)
    a, d = [side for _, side in attackers], [side for _, side in defenders]
    return Chances(matchup(a, d, sender.rules), battle_odds(a, d, sender.rules),
                   tuple(army.id for army, _ in attackers), tuple(army.id for army, _ in defenders))
