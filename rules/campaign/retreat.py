"""Retreat rolls (docs/rules.md "Retreat").

The side that reacted first may retreat instead of fighting: one d20 on ``rules.retreat``.
By default 18-20 keeps all troops, 15-17 three quarters, 13-14 half, 12 or less fails and the
army stays, whole, with a -1 penalty in the coming battle. Escaping troops are counted per troop
type, rounded half-up; the others are lost in the retreat (slain, so they regenerate).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from rules.campaign.battle import Troops, share_of
from rules.campaign.config import DEFAULT_RULES, RetreatRow, RulesConfig
from rules.dice import Dice
from rules.errors import InvalidInput, RulesError

RETREAT_DIE = 20


@dataclass(frozen=True, slots=True)
class RetreatResult:
    """A retreat roll and what came of it.

    On success ``escaped`` get away and the rest are ``lost``. On failure nobody leaves and
    nobody is lost: the whole army ``stays`` in the tile and carries the ``penalty``.
    """

    roll: int
    fraction: Decimal
    troops: Troops
    escaped: Troops
    success: bool

    @property
    def lost(self) -> Troops:
        return self.troops - self.escaped if self.success else Troops()

    @property
    def stays(self) -> Troops:
        return Troops() if self.success else self.troops

    @property
    def penalty(self) -> bool:
        return not self.success


def retreat_row(roll: int, rules: RulesConfig = DEFAULT_RULES) -> RetreatRow:
    """The chart row for a d20 result: the highest ``min_roll`` the roll reaches.

    Raises RulesError when the configured chart has no row for it.
    """
    best: RetreatRow | None = None
    for row in rules.retreat:
        if row.min_roll <= roll and (best is None or row.min_roll > best.min_roll):
            best = row
    if best is None:
        raise RulesError(f"the retreat chart in the config has no row for a roll of {roll}")
    return best


def escaped_troops(troops: Troops, fraction: Decimal) -> Troops:
    """Units that get away when ``fraction`` of the army escapes, per type, rounded half-up."""
    return Troops(share_of(troops.infantry, fraction), share_of(troops.cavalry, fraction),
                  share_of(troops.ships, fraction))


def roll_retreat(infantry: int, cavalry: int, ships: int = 0, *, dice: Dice,
                 rules: RulesConfig = DEFAULT_RULES) -> RetreatResult:
    """Roll a d20 for a retreat and decide success, the share that escapes and the penalty.

    Raises InvalidInput for a negative troop count (naming ``infantry``, ``cavalry`` or
    ``ships``) and whatever ``dice`` raises.
    """
    for name, count in (("infantry", infantry), ("cavalry", cavalry), ("ships", ships)):
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise InvalidInput(name, f"must be a whole number >= 0, not {count!r}")
    roll = dice.roll(RETREAT_DIE, "retreat d20")
    row = retreat_row(roll, rules)
    troops = Troops(infantry, cavalry, ships)
    return RetreatResult(roll, row.fraction, troops, escaped_troops(troops, row.fraction),
                         row.fraction > 0)
