"""Dice pools: modified results, natural 1s and 6s, and re-rolls in turn order.

Attack dice and defense dice follow the same pattern: each die is compared with a target value
(the to-hit value or the defense value) after modifiers are added. A natural 1 always fails and a
natural 6 always succeeds, whatever the modifiers; a modified result is kept within 0..6.
Re-rolls come from either player. Each player may re-roll a given die at most once, the player
whose turn it is goes first, and a re-rolled die's old face is discarded.

Which dice a re-roll effect takes is fixed so that resolution with real dice and the exact
distributions agree: every matching die unless the effect has a limit; with a limit, natural 1s
are taken before other failures, and within each kind the lower-numbered dice first. Re-rolled
dice are rolled again in die order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from rules.dice import Dice
from rules.errors import InvalidInput

DIE_MIN_RESULT = 0
DIE_MAX_RESULT = 6
MIN_TARGET = 2
MAX_TARGET = 6
MAX_MODIFIER = 6
MAX_POOL = 40


class Side(StrEnum):
    """The two players of an attack."""

    ATTACKER = "attacker"
    DEFENDER = "defender"

    @property
    def other(self) -> Side:
        """The opposing side."""
        return Side.DEFENDER if self is Side.ATTACKER else Side.ATTACKER


class RerollFaces(StrEnum):
    """Which dice of a pool a re-roll effect takes."""

    NONE = "none"
    FAILURES = "failures"  # misses or failed saves: what a player does for their own dice
    ONES = "ones"  # natural 1s only
    SUCCESSES = "successes"  # hits or saves: what a player forces on the opponent's dice


@dataclass(frozen=True, slots=True)
class Reroll:
    """One player's re-roll effect on one pool; ``limit`` caps how many dice it may take."""

    faces: RerollFaces = RerollFaces.NONE
    limit: int | None = None

    def __post_init__(self) -> None:
        if self.limit is not None and (isinstance(self.limit, bool) or self.limit < 1):
            raise InvalidInput("reroll.limit", f"must be 1 or more, not {self.limit}",
                               "a whole number of dice, or no limit")

    @property
    def is_active(self) -> bool:
        """Whether this effect re-rolls anything at all."""
        return self.faces is not RerollFaces.NONE


NO_REROLL = Reroll()


@dataclass(frozen=True, slots=True)
class PoolRerolls:
    """The re-roll effects both players bring to one pool of dice."""

    attacker: Reroll = NO_REROLL
    defender: Reroll = NO_REROLL

    def of(self, side: Side) -> Reroll:
        """The effect ``side`` brings."""
        return self.attacker if side is Side.ATTACKER else self.defender

    def in_order(self, active: Side) -> tuple[tuple[Side, Reroll], ...]:
        """The effects in the order they are used: the active player's first."""
        return tuple(
            (side, self.of(side)) for side in (active, active.other) if self.of(side).is_active
        )


NO_REROLLS = PoolRerolls()


def check_whole(field: str, value: object, low: int, high: int, expected: str) -> int:
    """``value`` as an int within ``low..high``; raises InvalidInput naming ``field``."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidInput(field, f"must be a whole number, not {value!r}", expected)
    if not low <= value <= high:
        raise InvalidInput(field, f"must be between {low} and {high}, not {value}", expected)
    return value


def check_target(field: str, value: object) -> int:
    """A to-hit or defense value, 2+ to 6+."""
    return check_whole(field, value, MIN_TARGET, MAX_TARGET, "a value from 2 to 6 (as in 4+)")


def check_modifier(field: str, value: object) -> int:
    """A die modifier, -6 to +6."""
    return check_whole(field, value, -MAX_MODIFIER, MAX_MODIFIER, "a modifier from -6 to +6")


def modified_result(face: int, modifier: int) -> int:
    """The die result after modifiers, never below 0 and never above 6."""
    return max(DIE_MIN_RESULT, min(DIE_MAX_RESULT, face + modifier))


def die_succeeds(face: int, target: int, modifier: int = 0) -> bool:
    """Whether a die showing ``face`` is a hit (or a save) against ``target``.

    A natural 1 always fails and a natural 6 always succeeds, whatever the modifiers; any
    other face succeeds when its modified result equals or exceeds the target.
    """
    if face == 1:
        return False
    if face == DIE_MAX_RESULT:
        return True
    return modified_result(face, modifier) >= target


@dataclass(frozen=True, slots=True)
class DieResult:
    """One die of a pool: every face it showed (the last one counts) and who re-rolled it."""

    faces: tuple[int, ...]
    rerolled_by: tuple[Side, ...]
    target: int
    modifier: int

    @property
    def face(self) -> int:
        """The face that counts: earlier faces were discarded by re-rolls."""
        return self.faces[-1]

    @property
    def modified(self) -> int:
        """The counting face after modifiers, within 0..6."""
        return modified_result(self.face, self.modifier)

    @property
    def success(self) -> bool:
        """A hit (attack dice) or a save (defense dice)."""
        return die_succeeds(self.face, self.target, self.modifier)


@dataclass(frozen=True, slots=True)
class PoolResult:
    """A pool of dice rolled against one target value, after every re-roll."""

    dice: tuple[DieResult, ...]
    target: int
    modifier: int

    @property
    def successes(self) -> int:
        """How many dice succeeded."""
        return sum(1 for d in self.dice if d.success)

    @property
    def failures(self) -> int:
        """How many dice failed."""
        return len(self.dice) - self.successes


def select_rerolls(
    faces: Sequence[int], target: int, modifier: int, reroll: Reroll
) -> tuple[int, ...]:
    """The indices of the dice ``reroll`` takes from a pool showing ``faces``, in die order.

    With a limit, natural 1s are taken before other failures (for a FAILURES effect) and lower
    indices before higher ones.
    """
    if reroll.faces is RerollFaces.NONE:
        return ()
    if reroll.faces is RerollFaces.ONES:
        chosen = [i for i, f in enumerate(faces) if f == 1]
    elif reroll.faces is RerollFaces.FAILURES:
        chosen = [i for i, f in enumerate(faces) if f == 1]
        chosen += [
            i for i, f in enumerate(faces) if f != 1 and not die_succeeds(f, target, modifier)
        ]
    else:
        chosen = [i for i, f in enumerate(faces) if die_succeeds(f, target, modifier)]
    if reroll.limit is not None:
        chosen = chosen[: reroll.limit]
    return tuple(sorted(chosen))


def roll_pool(
    count: int,
    target: int,
    modifier: int,
    rerolls: PoolRerolls,
    *,
    active: Side,
    dice: Dice,
    label: str,
) -> PoolResult:
    """Roll ``count`` dice against ``target`` and apply both players' re-rolls.

    Dice are drawn in this order: one die per pool member (die 1 first), then the active
    player's re-rolls in die order, then the other player's. Raises InvalidInput for a bad
    count, target or modifier, and whatever ``dice`` raises (DiceExhausted, BadDie).
    """
    check_whole(f"{label}.count", count, 0, MAX_POOL, f"0 to {MAX_POOL} dice")
    check_target(f"{label}.target", target)
    check_modifier(f"{label}.modifier", modifier)
    history: list[list[int]] = [[dice.roll(6, f"{label} die {i + 1}")] for i in range(count)]
    by: list[list[Side]] = [[] for _ in range(count)]
    for side, reroll in rerolls.in_order(active):
        current = [h[-1] for h in history]
        for i in select_rerolls(current, target, modifier, reroll):
            history[i].append(dice.roll(6, f"{label} die {i + 1} re-roll ({side})"))
            by[i].append(side)
    results = tuple(
        DieResult(tuple(h), tuple(b), target, modifier)
        for h, b in zip(history, by, strict=True)
    )
    return PoolResult(results, target, modifier)
