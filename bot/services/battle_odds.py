"""The chances of a pending battle as one of its claims sees them (the war room's odds)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from fractions import Fraction

from sqlmodel import Session

from bot.db.models import PendingBattle
from bot.services.order_apply import sender_of
from bot.services.order_call import Call
from bot.services.order_world import load_order_world
from bot.services.world import CampaignContext
from rules.campaign import decide
from rules.campaign.language import values as o
from rules.campaign.sides import allies_drawn_in
from rules.campaign.world import World


def attacker_wins(session: Session, ctx: CampaignContext, world: World, battle: PendingBattle,
                  viewer: int | None, at: datetime) -> Fraction | None:
    """The attacker's exact chance to win ``battle`` in ``world`` (:func:`battle_world`) as
    the claim ``viewer`` may know it (the other side's hidden modifiers left out; None:
    everything, for moderators), when both sides are armies still raised; None otherwise (an
    assault on a garrison)."""
    attacker = world.armies.get(battle.attacker_army)
    defender = world.armies.get(battle.defender_army)
    if attacker is None or defender is None:
        return None
    call = Call(session, ctx, "", None, at, "web", viewer is None)
    sender = sender_of(call, viewer or 0)
    chances = decide.battle_chances(world, sender, attacker, defender,
                                    fought=battle.resolve_tick, began=battle.created_tick,
                                    asker=viewer)
    return chances.odds.attacker_win


def battle_world(session: Session, ctx: CampaignContext) -> World:
    """The world pending battles' sides are counted in (read once for all of them): what the
    ``odds`` order reads (the armies, the alliances that make sides, the characters, the
    modifiers)."""
    world, _ = load_order_world(session, ctx, decide.ORDER_KINDS[o.Odds].reads)
    return world


def drawn_in(world: World, battles: Sequence[PendingBattle], claim_id: int
             ) -> dict[int, tuple[str, tuple[int, ...]]]:
    """The pending ``battles`` (of other claims) that ``claim_id``'s armies would join if
    they are still on the tile when it is fought (:func:`rules.campaign.sides.allies_drawn_in`,
    the same sides the tick counts): each battle's id -> the side they join ("attacker" or
    "defender") and those armies' ids."""
    found: dict[int, tuple[str, tuple[int, ...]]] = {}
    for b in battles:
        attacker = world.armies.get(b.attacker_army or 0)
        defender = world.armies.get(b.defender_army or 0)
        if attacker is None or defender is None or b.id is None:
            continue
        for side, allies in zip(("attacker", "defender"),
                                allies_drawn_in(world, attacker, defender), strict=True):
            mine = tuple(a.id for a in allies if a.claim_id == claim_id)
            if mine:
                found[b.id] = (side, mine)
    return found
