"""Charges: d6 + speed to reach, disorderly charges, failed charges and their panic test.

The charging unit rolls a d6 and adds its speed; it reaches its target when that total (less an
inch for each rough piece on the way) equals or exceeds the distance. A unit may not declare a
charge it could not complete even with a 6. A 1 on the die makes the charge disorderly: no
charge bonus for the attack and no tactics cards for the rest of the turn. A charge that does
not reach fails: the unit takes a panic test (always rolled; it suffered no attack) and its
activation ends. A successful, orderly charge through no hindering terrain gives the attack its
charge bonus (re-roll any attack dice); fortified terrain on the way gives the defender +1 to
defense rolls against that attack.

A charge re-roll effect lets the charging player re-roll the die once (a die is re-rolled at
most once per player); the re-roll replaces the first result entirely. Scripted dice order: the
charge d6, its re-roll, the d3 for dangerous terrain, the panic test's two d6 and its d3.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from decimal import ROUND_CEILING, Decimal
from enum import StrEnum
from fractions import Fraction

from rules.dice import Dice
from rules.errors import InvalidInput
from rules.miniatures.attack import AttackSpec
from rules.miniatures.errors import IllegalAction
from rules.miniatures.morale import (
    PanicResult,
    PanicWounds,
    check_morale,
    check_morale_modifier,
    morale_pass_chance,
    panic_test,
)
from rules.miniatures.rolls import check_whole
from rules.miniatures.terrain import (
    Keyword,
    Terrain,
    can_enter,
    charge_defense_bonus,
    dangerous_wounds,
    denies_charge_bonus,
    movement_penalty,
)

MAX_SPEED = 20


class ChargeReroll(StrEnum):
    """When the charging player uses a charge re-roll effect."""

    NONE = "none"
    IF_SHORT = "if_short"  # re-roll a die that would leave the charge short
    IF_SHORT_OR_ONE = "if_short_or_one"  # also re-roll a 1 that reaches, to avoid disorder


class ChargeOutcome(StrEnum):
    """How a charge went."""

    CHARGED = "charged"
    DISORDERLY = "disorderly"  # reached the target, but the die showed 1
    FAILED = "failed"


@dataclass(frozen=True, slots=True)
class ChargeSetup:
    """A declared charge: distance to the target in inches, the charger's speed, the terrain
    the move enters, crosses or ends on, and the charger's morale for a failed charge."""

    distance: Decimal
    speed: int
    terrain: tuple[Terrain, ...] = ()
    morale: int | None = None
    morale_modifier: int = 0
    reroll: ChargeReroll = ChargeReroll.NONE
    panic_wounds: PanicWounds = PanicWounds.D3

    def __post_init__(self) -> None:
        if not isinstance(self.distance, Decimal) or not self.distance.is_finite() or (
            self.distance <= 0
        ):
            raise InvalidInput("distance", f"must be a positive number of inches, not "
                               f"{self.distance}", "e.g. 7.5")
        check_whole("speed", self.speed, 1, MAX_SPEED, f"1 to {MAX_SPEED} inches")
        if self.morale is not None:
            check_morale("morale", self.morale)
        check_morale_modifier("morale_modifier", self.morale_modifier)
        blocked = [p for p in self.terrain if not can_enter(p)]
        if blocked:
            raise IllegalAction("charge", f"a unit can never move through {blocked[0]} "
                                "(impassable)")
        if self.distance > self.reach:
            raise IllegalAction("charge", f"the target is {self.distance}\" away but this unit "
                                f"can move at most {self.reach}\" (speed {self.speed} + 6"
                                + (f" - {self.rough}\" rough terrain" if self.rough else "")
                                + "); a charge that cannot be completed cannot be declared")

    @property
    def rough(self) -> int:
        """Inches lost to rough terrain."""
        return movement_penalty(self.terrain)

    @property
    def reach(self) -> int:
        """The furthest the charge can possibly go (a 6 on the die)."""
        return self.speed + 6 - self.rough

    @property
    def needed(self) -> int:
        """The lowest die that reaches the target (1 or less: any die reaches)."""
        short = self.distance - self.speed + self.rough
        whole = int(short.to_integral_value(rounding=ROUND_CEILING))
        return max(whole, 1)

    def reaches(self, roll: int) -> bool:
        """Whether a charge die showing ``roll`` reaches the target."""
        return roll + self.speed - self.rough >= self.distance

    def wants_reroll(self, roll: int) -> bool:
        """Whether the re-roll policy re-rolls a first die showing ``roll``."""
        if self.reroll is ChargeReroll.NONE:
            return False
        if not self.reaches(roll):
            return True
        return self.reroll is ChargeReroll.IF_SHORT_OR_ONE and roll == 1


@dataclass(frozen=True, slots=True)
class ChargeResult:
    """A rolled charge."""

    setup: ChargeSetup
    outcome: ChargeOutcome
    rolls: tuple[int, ...]  # the charge die, then its re-roll if one was used
    dangerous_wounds: int = 0
    panic: PanicResult | None = None  # rolled after a failed charge when morale was given

    @property
    def roll(self) -> int:
        """The die that counts (a re-roll replaces the first result)."""
        return self.rolls[-1]

    @property
    def total_distance(self) -> int:
        """Die + speed, less rough terrain."""
        return self.roll + self.setup.speed - self.setup.rough

    @property
    def disorderly(self) -> bool:
        """A 1 on the charge die makes the charge disorderly, reached or not."""
        return self.roll == 1

    @property
    def reached(self) -> bool:
        """Whether the charge contacted its target."""
        return self.outcome is not ChargeOutcome.FAILED

    @property
    def charge_bonus(self) -> bool:
        """The attack may re-roll any attack dice: an orderly charge with no hindering terrain."""
        return self.outcome is ChargeOutcome.CHARGED and not denies_charge_bonus(
            self.setup.terrain
        )

    @property
    def defense_bonus(self) -> int:
        """The defender's bonus to defense rolls against the charge's attack (fortified)."""
        return charge_defense_bonus(self.setup.terrain) if self.reached else 0

    @property
    def may_play_tactics_cards(self) -> bool:
        """A disorderly charge forbids tactics cards for the rest of the player's turn."""
        return not self.disorderly

    @property
    def activation_ends(self) -> bool:
        """A failed charge ends the unit's activation (no attack)."""
        return self.outcome is ChargeOutcome.FAILED

    @property
    def panic_due(self) -> bool:
        """A failed charge calls for a panic test."""
        return self.outcome is ChargeOutcome.FAILED


def resolve_charge(setup: ChargeSetup, *, dice: Dice) -> ChargeResult:
    """Roll the charge described by ``setup``.

    Raises whatever ``dice`` raises; the setup itself was checked when it was built.
    """
    rolls = [dice.roll(6, "charge die")]
    if setup.wants_reroll(rolls[0]):
        rolls.append(dice.roll(6, "charge die re-roll"))
    final = rolls[-1]
    if not setup.reaches(final):
        outcome = ChargeOutcome.FAILED
    elif final == 1:
        outcome = ChargeOutcome.DISORDERLY
    else:
        outcome = ChargeOutcome.CHARGED
    hurt = 0
    if any(p.has(Keyword.DANGEROUS) for p in setup.terrain):
        hurt = dangerous_wounds(dice=dice)  # once per charge, however many pieces
    panic = None
    if outcome is ChargeOutcome.FAILED and setup.morale is not None:
        panic = panic_test(setup.morale, dice=dice, modifier=setup.morale_modifier,
                           rule=setup.panic_wounds)
    return ChargeResult(setup, outcome, tuple(rolls), hurt, panic)


def charge_attack(spec: AttackSpec, charge: ChargeResult) -> AttackSpec:
    """The attack that follows ``charge``: with the charge bonus when it earned one and the
    fortified bonus for the defender. Raises IllegalAction after a failed charge."""
    if not charge.reached:
        raise IllegalAction("attack", "a failed charge ends the unit's activation")
    if charge.charge_bonus:
        spec = spec.with_charge_bonus()
    bonus = charge.defense_bonus
    if bonus:
        spec = replace(spec, defense_modifier=min(6, spec.defense_modifier + bonus))
    return spec


@dataclass(frozen=True, slots=True)
class ChargeOdds:
    """Exact chances of a charge's outcomes."""

    setup: ChargeSetup
    charged: Fraction
    disorderly: Fraction
    failed: Fraction
    panic_failure: Fraction  # chance of a failed charge followed by a failed panic test

    @property
    def reached(self) -> Fraction:
        """The chance to contact the target."""
        return self.charged + self.disorderly


def charge_odds(setup: ChargeSetup) -> ChargeOdds:
    """The exact chance of each charge outcome for ``setup``, re-roll policy included."""
    finals: list[tuple[int, Fraction]] = []
    for first in range(1, 7):
        if setup.wants_reroll(first):
            finals += [(second, Fraction(1, 36)) for second in range(1, 7)]
        else:
            finals.append((first, Fraction(1, 6)))
    charged = disorderly = failed = Fraction(0)
    for roll, p in finals:
        if not setup.reaches(roll):
            failed += p
        elif roll == 1:
            disorderly += p
        else:
            charged += p
    panic = Fraction(0)
    if setup.morale is not None:
        panic = failed * (1 - morale_pass_chance(setup.morale, setup.morale_modifier))
    return ChargeOdds(setup, charged, disorderly, failed, panic)

