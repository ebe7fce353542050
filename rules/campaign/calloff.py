"""Calling off a battle one has ordered, before it is fought.

An **assault** can be called off until its reaction window closes (``cancel army N``): the
besiegers simply stay outside the walls and the siege goes on. An **attack** (or an
**interception**) cannot: ordering it put the two claims at war, and hostile armies (or fleets)
that share a tile always meet in battle at the tick (:mod:`rules.campaign.meetings`), so calling
it off would change nothing; the attacked side may still retreat. A **sally** cannot either: the
garrison has already ridden out.
"""

from __future__ import annotations

from rules.campaign.world import BattleKind

_WHY_NOT = {
    BattleKind.FIELD: "an attack cannot be called off: ordering it put your claims at war, and "
                      "hostile forces that share a tile always fight at the tick",
    BattleKind.SALLY: "a sally cannot be called off: the garrison has already ridden out",
}


def call_off_refusal(kind: BattleKind, tick: int, resolve_tick: int) -> str | None:
    """Why the attacker may not call off a pending battle of ``kind`` at ``tick`` (fought at
    ``resolve_tick``), or None when it may."""
    if kind in _WHY_NOT:
        return _WHY_NOT[kind]
    if tick >= resolve_tick:
        return "the assault is already being fought"
    return None
