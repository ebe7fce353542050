"""The chances of a pending battle as one of its claims sees them (the war room's odds)."""

from __future__ import annotations

from datetime import datetime
from fractions import Fraction

from sqlmodel import Session

from bot.db.models import PendingBattle
from bot.services.order_apply import sender_of
from bot.services.order_call import Call
from bot.services.order_world import load_order_world
from bot.services.world import CampaignContext
from rules.campaign import decide


def attacker_wins(session: Session, ctx: CampaignContext, battle: PendingBattle,
                  viewer: int | None, at: datetime) -> Fraction | None:
    """The attacker's exact chance to win ``battle`` as the claim ``viewer`` may know it
    (the other side's hidden modifiers left out; None: everything, for moderators), when
    both sides are armies still raised; None otherwise (an assault on a garrison)."""
    world, _ = load_order_world(session, ctx, {decide.Part.ARMIES, decide.Part.CHARACTERS})
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
