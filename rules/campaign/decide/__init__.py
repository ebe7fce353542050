"""Players' orders decided as values: ``apply_order(world, order, at, dice) -> (world, receipt)``.

The order language (:mod:`rules.campaign.language`) reads the text; this package decides what an
order does to the world: it checks the order (ownership, troops, the army's state, the battle it
is in, the holdfast it names) and either raises :class:`OrderRefused` (nothing changes) or
returns the world after the order and a receipt value saying what was accepted (the new army,
the tick a battle is fought, the war it declared, the siege it lifted). The world is the
tick's :class:`rules.campaign.world.World`; the campaign's rules and map come with the
:class:`Sender`. Nothing here reads a clock, a database or a die that is not given; the
services load the world, call :func:`apply_order`, write the difference back, journal it, and
render the receipt (``bot.render.receipts``).

One file per rule area: ``movement`` (move, route, cancel, stand), ``battle`` (attack,
intercept, assault, sally, the reactions, odds), ``siege`` (siege, lift, blockade), ``economy``
(muster, disband, build, buy, cede, status) and ``characters`` (assign); ``common`` holds what
they share (the sender, the refusal, the receipts several areas give) and ``registry`` the
table of order kinds and :func:`apply_order`.
"""

from __future__ import annotations

from rules.campaign.decide.battle import (
    OddsShown,
    battle_chances,
    odds_pair,
    odds_shown,
)
from rules.campaign.decide.characters import (
    Assigned,
)
from rules.campaign.decide.common import (
    NEW_ARMY,
    NEW_SIEGE,
    BattleOrder,
    BattleOrdered,
    CalledOff,
    Cancelled,
    Disbanded,
    Halted,
    Mustered,
    NoOrderModifiers,
    OrderInForce,
    OrderModifiers,
    OrderRefused,
    Reacted,
    Receipt,
    RetreatReferred,
    Sender,
    SiegeLifted,
    Spared,
    pending_battle_of,
    reaction_deadline,
    relation,
    with_army,
)
from rules.campaign.decide.economy import (
    Bought,
    Building,
    Ceded,
    StatusReport,
    claim_named,
    cost_text,
    gold_text,
)
from rules.campaign.decide.movement import (
    Marched,
    RouteFound,
    replan,
)
from rules.campaign.decide.registry import (
    ORDER_KINDS,
    OrderKind,
    Part,
    apply_order,
)
from rules.campaign.decide.siege import (
    Blockading,
    SiegeBegun,
    SiegeReferred,
)

__all__ = [
    "NEW_ARMY",
    "NEW_SIEGE",
    "ORDER_KINDS",
    "Assigned",
    "BattleOrder",
    "BattleOrdered",
    "Blockading",
    "Bought",
    "Building",
    "CalledOff",
    "Cancelled",
    "Ceded",
    "Disbanded",
    "Halted",
    "Marched",
    "Mustered",
    "NoOrderModifiers",
    "OddsShown",
    "OrderInForce",
    "OrderKind",
    "OrderModifiers",
    "OrderRefused",
    "Part",
    "Reacted",
    "Receipt",
    "RetreatReferred",
    "RouteFound",
    "Sender",
    "SiegeBegun",
    "SiegeLifted",
    "SiegeReferred",
    "Spared",
    "StatusReport",
    "apply_order",
    "battle_chances",
    "claim_named",
    "cost_text",
    "gold_text",
    "odds_pair",
    "odds_shown",
    "pending_battle_of",
    "reaction_deadline",
    "relation",
    "replan",
    "with_army",
]
