"""Orders that use the campaign's catalogue, and the fleets' blockade.

``build IMPROVEMENT at HOLDFAST``, ``buy EQUIPMENT for army N``, ``assign COMMANDER to army N``
and ``blockade PORT with fleet N``. Listed in
:data:`bot.services.orders.HANDLERS` with every other order. Names the catalogue does not
know are refused with the list of valid ones.
"""

from __future__ import annotations

from bot.services.order_apply import decided
from bot.services.order_call import Call
from rules.campaign import orders as o

# --- build ------------------------------------------------------------------------------

def build(c: Call, order: o.Build) -> str:
    return decided(c, order)


# --- buy --------------------------------------------------------------------------------

def buy(c: Call, order: o.Buy) -> str:
    return decided(c, order)


# --- assign -----------------------------------------------------------------------------

def assign(c: Call, order: o.Assign) -> str:
    return decided(c, order)


# --- blockade ---------------------------------------------------------------------------

def blockade(c: Call, order: o.Blockade) -> str:
    return decided(c, order)
