"""The one table of order kinds and :func:`apply_order`."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from enum import StrEnum
from types import MappingProxyType
from typing import Any

from rules.campaign import language as o
from rules.campaign.decide.battle import (
    decide_assault,
    decide_attack,
    decide_intercept,
    decide_retreat,
    decide_sally,
    decide_spare,
)
from rules.campaign.decide.characters import decide_assign
from rules.campaign.decide.common import (
    Receipt,
    Sender,
    refuse,
)
from rules.campaign.decide.economy import (
    decide_build,
    decide_buy,
    decide_cede,
    decide_disband,
    decide_muster,
    decide_status,
)
from rules.campaign.decide.movement import (
    decide_cancel,
    decide_move,
    decide_route,
    decide_stand,
)
from rules.campaign.decide.siege import (
    decide_blockade,
    decide_lift,
    decide_siege,
)
from rules.campaign.state import (
    World,
)
from rules.dice import Dice

# --- the table --------------------------------------------------------------------------

Decide = Callable[[World, Sender, Any, datetime], "tuple[World, Receipt]"]

PURE_ORDERS: Mapping[type, Decide] = MappingProxyType({
    o.Muster: decide_muster,
    o.Move: decide_move,
    o.Route: decide_route,
    o.Cancel: decide_cancel,
    o.Stand: decide_stand,
    o.Retreat: decide_retreat,
    o.Spare: decide_spare,
    o.Attack: decide_attack,
    o.Intercept: decide_intercept,
    o.Siege: decide_siege,
    o.Assault: decide_assault,
    o.Sally: decide_sally,
    o.Lift: decide_lift,
    o.Blockade: decide_blockade,
    o.Build: decide_build,
    o.Assign: decide_assign,
    o.Buy: decide_buy,
    o.Cede: decide_cede,
    o.Disband: decide_disband,
    o.Status: decide_status,
})
"""The orders decided here, each by its function."""


class Part(StrEnum):
    """A part of the world an order may read (the claims are always read)."""

    ARMIES = "armies"
    BATTLES = "battles"
    SIEGES = "sieges"
    RELATIONS = "relations"
    HOLDERS = "holders"
    CHARACTERS = "characters"  # every status (an order may name the dead or a captive)


_A, _B, _S, _R, _H = Part.ARMIES, Part.BATTLES, Part.SIEGES, Part.RELATIONS, Part.HOLDERS
_C = Part.CHARACTERS
READS: Mapping[type, frozenset[Part]] = MappingProxyType({
    o.Muster: frozenset(),
    o.Move: frozenset({_A, _B, _S, _R}),
    o.Route: frozenset({_A, _R}),
    o.Cancel: frozenset({_A, _B}),  # an assault may be called off
    o.Stand: frozenset({_A, _B}),
    o.Retreat: frozenset({_A, _B, _R}),
    o.Spare: frozenset({_A, _B}),
    o.Attack: frozenset({_A, _B, _R}),
    o.Intercept: frozenset({_A, _B, _R}),
    o.Siege: frozenset({_A, _S, _R}),
    o.Assault: frozenset({_A, _B, _R}),
    o.Sally: frozenset({_A, _S}),
    o.Lift: frozenset({_A, _B, _S}),
    o.Blockade: frozenset({_A, _S, _R}),
    o.Build: frozenset(),
    o.Assign: frozenset({_A, _C}),
    o.Buy: frozenset({_A}),
    o.Cede: frozenset({_A, _H, _R}),
    o.Disband: frozenset({_A}),
    o.Status: frozenset({_A}),
})
"""What each order of :data:`PURE_ORDERS` reads besides the claims: the services load only
that (a part not read is empty in the world the order sees, and the order changes nothing
there)."""


def apply_order(world: World, order: object, at: datetime, dice: Dice | None = None, *,
                sender: Sender) -> tuple[World, Receipt]:
    """Decide ``order`` sent by ``sender`` at ``at``: the world after it and the
    receipt, or :class:`OrderRefused` (or another :class:`RulesError`) with nothing changed.

    No order of this table rolls a die today; ``dice`` is taken so that one that does needs
    no other signature.
    """
    del dice
    decide = PURE_ORDERS.get(type(order))
    if decide is None:
        raise refuse(f"`{type(order).__name__.lower()}` orders are not decided by the rules "
                      "module yet", "an order of rules.campaign.decide.PURE_ORDERS", "status")
    return decide(world, sender, order, at)
