"""Morale and panic tests.

A morale test rolls two dice; the unit passes when their total, after modifiers, equals or
exceeds its morale value (the total is never below 0; there is no automatic pass or failure on
these dice). A panic test is a morale test whose failure costs wounds, with no defense dice: the
rulebook text (v1.6) says d3 wounds, later rule updates say 1 + d3, so the amount is a rules
setting, :class:`PanicWounds`. A unit that suffered no wounds from the attack that called for
the panic test passes it without rolling, and still counts as having taken it.

Scripted dice order: the two d6 of the test, then, for a panic test, its d3. The rulebook
rolls the panic test's 2d6 and d3 together, so the d3 is rolled (and recorded) whether the test
passes or fails; only a failure turns it into wounds. An automatic pass rolls nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction

from rules.dice import Dice
from rules.errors import InvalidInput
from rules.miniatures.rolls import check_whole

MIN_MORALE = 2
MAX_MORALE = 12
MAX_MORALE_MODIFIER = 12


class PanicWounds(StrEnum):
    """How many wounds a failed panic test costs: the rules-version setting."""

    D3 = "d3"  # as the rulebook (v1.6) has it; the default
    ONE_PLUS_D3 = "1+d3"  # the later rule updates

    def wounds(self, d3: int) -> int:
        """Wounds for a d3 showing ``d3``."""
        return d3 + 1 if self is PanicWounds.ONE_PLUS_D3 else d3

    @property
    def possible(self) -> tuple[int, ...]:
        """The equally likely wound counts of a failed test."""
        return tuple(self.wounds(r) for r in (1, 2, 3))


def check_morale(field: str, value: object) -> int:
    """A morale value, 2+ to 12+."""
    return check_whole(field, value, MIN_MORALE, MAX_MORALE, "a value from 2 to 12 (as in 6+)")


def check_morale_modifier(field: str, value: object) -> int:
    """A modifier to morale test rolls, -12 to +12."""
    return check_whole(field, value, -MAX_MORALE_MODIFIER, MAX_MORALE_MODIFIER,
                       "a modifier from -12 to +12")


def morale_total(rolls: tuple[int, int], modifier: int) -> int:
    """The modified total of a morale test's two dice, never below 0."""
    return max(0, rolls[0] + rolls[1] + modifier)


@dataclass(frozen=True, slots=True)
class MoraleResult:
    """A rolled morale test."""

    rolls: tuple[int, int]
    modifier: int
    morale: int

    @property
    def total(self) -> int:
        """The modified total compared with the morale value."""
        return morale_total(self.rolls, self.modifier)

    @property
    def passed(self) -> bool:
        """Passed when the total equals or exceeds the morale value."""
        return self.total >= self.morale


def morale_test(morale: int, *, dice: Dice, modifier: int = 0,
                purpose: str = "morale test") -> MoraleResult:
    """Roll a morale test against ``morale`` with ``modifier`` added to the total.

    Raises InvalidInput for a morale value outside 2..12 or a modifier outside -12..12, and
    whatever ``dice`` raises.
    """
    check_morale("morale", morale)
    check_morale_modifier("morale_modifier", modifier)
    first = dice.roll(6, f"{purpose} die 1")
    second = dice.roll(6, f"{purpose} die 2")
    return MoraleResult((first, second), modifier, morale)


def morale_pass_chance(morale: int, modifier: int = 0) -> Fraction:
    """The exact chance of passing a morale test. Raises InvalidInput like morale_test."""
    check_morale("morale", morale)
    check_morale_modifier("morale_modifier", modifier)
    passes = sum(
        1 for a in range(1, 7) for b in range(1, 7) if morale_total((a, b), modifier) >= morale
    )
    return Fraction(passes, 36)


class PanicOutcome(StrEnum):
    """How a panic test went."""

    AUTOMATIC_PASS = "automatic_pass"  # no wounds were suffered: passed without rolling
    PASSED = "passed"
    FAILED = "failed"


@dataclass(frozen=True, slots=True)
class PanicResult:
    """A panic test: always counts as taken, even when passed without rolling."""

    outcome: PanicOutcome
    morale: int
    test: MoraleResult | None = None
    d3: int | None = None
    wounds: int = 0
    rule: PanicWounds = PanicWounds.D3

    @property
    def taken(self) -> bool:
        """Every panic test counts as taken, so effects that trigger on one still do."""
        return True

    @property
    def passed(self) -> bool:
        """Whether the unit passed (automatically or by rolling)."""
        return self.outcome is not PanicOutcome.FAILED


def panic_test(
    morale: int,
    *,
    dice: Dice,
    modifier: int = 0,
    rule: PanicWounds = PanicWounds.D3,
    wounds_suffered: int | None = None,
) -> PanicResult:
    """Make a panic test against ``morale``.

    ``wounds_suffered`` is the wounds of the attack that called for the test: 0 means an
    automatic pass with no dice rolled; None means the test did not follow an attack (a failed
    charge, for instance) and is always rolled. The 2d6 and the d3 are rolled together (d3
    last); on a failure the unit suffers ``rule.wounds(d3)`` wounds. Raises InvalidInput for bad
    values and whatever ``dice`` raises.
    """
    check_morale("morale", morale)
    check_morale_modifier("morale_modifier", modifier)
    if wounds_suffered is not None and (isinstance(wounds_suffered, bool) or wounds_suffered < 0):
        raise InvalidInput("wounds_suffered", f"must be 0 or more, not {wounds_suffered}")
    if wounds_suffered == 0:
        return PanicResult(PanicOutcome.AUTOMATIC_PASS, morale, rule=rule)
    test = morale_test(morale, dice=dice, modifier=modifier, purpose="panic test")
    d3 = dice.roll(3, "panic test d3")
    if test.passed:
        return PanicResult(PanicOutcome.PASSED, morale, test, d3, rule=rule)
    return PanicResult(PanicOutcome.FAILED, morale, test, d3, rule.wounds(d3), rule)


@dataclass(frozen=True, slots=True)
class PanicOdds:
    """The exact chances of a panic test: passing, and each number of wounds on a failure."""

    morale: int
    modifier: int
    rule: PanicWounds
    automatic: bool  # no wounds were suffered: passed without rolling
    passed: Fraction
    wounds: tuple[tuple[int, Fraction], ...]  # (wounds, chance) for each failed outcome

    @property
    def failed(self) -> Fraction:
        """The chance to fail the test."""
        return 1 - self.passed

    @property
    def expected_wounds(self) -> Fraction:
        """The expected wounds of the test."""
        return sum((w * p for w, p in self.wounds), Fraction(0))


def panic_odds(morale: int, *, modifier: int = 0, rule: PanicWounds = PanicWounds.D3,
               wounds_suffered: int | None = None) -> PanicOdds:
    """The exact chances of :func:`panic_test` with the same arguments."""
    check_morale("morale", morale)
    check_morale_modifier("morale_modifier", modifier)
    if wounds_suffered == 0:
        return PanicOdds(morale, modifier, rule, True, Fraction(1), ())
    passing = morale_pass_chance(morale, modifier)
    share = (1 - passing) / len(rule.possible)
    return PanicOdds(morale, modifier, rule, False, passing,
                     tuple((w, share) for w in rule.possible))
