"""Sieges: how long they take, when one may start and their monthly progress.

Length
    The siege chart gives the in-game months by garrison size (defaults: 100 or fewer 12,
    101-300 11, 301-500 10, 501-1000 8, 1001 or more 6). SIEGE_MONTHS effects then add months
    (negative amounts take months away): the besieger's effects that apply when attacking
    (role ATTACK or BOTH) and the defender's that apply when defending (role DEFENSE or BOTH),
    each side's after the stacking rule. A siege never takes fewer than :data:`MIN_SIEGE_MONTHS`
    (1): progress is counted at month boundaries, so no siege can end sooner.

Starting
    The besieger must stand on a holdfast tile with no enemy troops on it. A port holdfast must
    first be blockaded (friendly ships on an adjacent water tile). Special holdfasts do not
    follow the normal rule; such orders go to the moderators.

Progress
    Months are whole in-game months counted from the moment the siege began (the tick at or
    after the order): a siege begun at 18:00 counts its first month one in-game month later,
    at 18:00, not at the next calendar boundary (:func:`months_passed`). At each such moment a
    siege whose besiegers are still on the tile counts one month, unless a port's blockade is
    broken, which pauses it (the month does not count). The holdfast falls when the months
    counted reach the length. Leaving the tile, or losing the besieging army, ends the siege.

Sallies
    A sally is an ordinary battle, fought by the tick
    (:func:`rules.campaign.tick.advance_battles`): if the defenders win and the besiegers are
    taken or driven off the tile the siege is over and its count lost (besieging again needs a
    new order and the full length); if the defenders lose, the survivors go back inside; beaten
    besiegers with no way back hold the tile and the siege goes on.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from decimal import Decimal

from rules.campaign.config import RulesConfig
from rules.campaign.detection import size_chart_value
from rules.campaign.modifiers import Applied, EffectKind, Modifier, Role, collect, total
from rules.errors import InvalidInput, RulesError

MIN_SIEGE_MONTHS = 1
"""No modifier can shorten a siege below one in-game month."""


@dataclass(frozen=True, slots=True)
class SiegeLength:
    """The months a siege takes: ``base`` from the chart, ``months`` after ``applied`` effects.

    ``applied`` lists the besieger's effects first, then the defender's.
    """

    months: int
    base: int
    applied: tuple[Applied, ...] = ()

    @property
    def change(self) -> int:
        """Net months added (negative: removed) by modifiers, before the 1-month floor."""
        return int(total(self.applied))


def _whole(amount: Decimal, field: str) -> int:
    if amount != amount.to_integral_value():
        raise InvalidInput(field, f"must be a whole number of months, not {amount}")
    return int(amount)


def siege_months(
    garrison: int,
    rules: RulesConfig,
    *,
    besieger_modifiers: Iterable[Modifier] = (),
    defender_modifiers: Iterable[Modifier] = (),
) -> SiegeLength:
    """How many in-game months a siege of a holdfast garrisoned by ``garrison`` troops takes.

    Raises InvalidInput for a negative garrison or fractional month changes.
    """
    if isinstance(garrison, bool) or not isinstance(garrison, int) or garrison < 0:
        raise InvalidInput("garrison", f"must be a whole number of at least 0, not {garrison!r}")
    base = size_chart_value(garrison, rules.siege_months, "garrison")
    attack = collect(besieger_modifiers, EffectKind.SIEGE_MONTHS, Role.ATTACK)
    defense = collect(defender_modifiers, EffectKind.SIEGE_MONTHS, Role.DEFENSE)
    change = _whole(total(attack), "besieger_modifiers") + _whole(
        total(defense), "defender_modifiers"
    )
    return SiegeLength(max(MIN_SIEGE_MONTHS, base + change), base, attack + defense)


# --- starting a siege ---------------------------------------------------------------------


class SiegeError(RulesError):
    """A siege order that cannot be carried out."""


class NotAHoldfast(SiegeError):
    def __init__(self) -> None:
        super().__init__("only a holdfast can be besieged; this tile has none")


class EnemyTroopsPresent(SiegeError):
    def __init__(self) -> None:
        super().__init__(
            "hostile troops stand on the holdfast's tile; defeat them before starting a siege"
        )


class SpecialHoldfast(SiegeError):
    """The holdfast has special siege rules; the order is referred to the moderators."""

    referred_to_moderators = True

    def __init__(self) -> None:
        super().__init__(
            "this holdfast has its own siege rules; the order has been referred to the moderators"
        )


class NeedsBlockade(SiegeError):
    def __init__(self) -> None:
        super().__init__(
            "this holdfast has a port; blockade it first with ships on an adjacent water tile"
        )


def check_siege_start(
    *,
    holdfast: bool,
    port: bool,
    special: bool,
    hostile_troops_on_tile: bool,
    blockaded: bool,
) -> None:
    """Check that a siege may begin on a tile with these flags.

    Checks, in order: the tile has a holdfast (:class:`NotAHoldfast`); no hostile troops stand
    on it (:class:`EnemyTroopsPresent`); it is not special (:class:`SpecialHoldfast`, which the
    bot refers to the moderators); a port holdfast is blockaded (:class:`NeedsBlockade`).
    Returns None when the siege may start.
    """
    if not holdfast:
        raise NotAHoldfast()
    if hostile_troops_on_tile:
        raise EnemyTroopsPresent()
    if special:
        raise SpecialHoldfast()
    if port and not blockaded:
        raise NeedsBlockade()


# --- progress ------------------------------------------------------------------------------


class SiegeOver(SiegeError):
    """A siege that has ended or whose holdfast has fallen cannot advance."""

    def __init__(self) -> None:
        super().__init__("this siege is over")


@dataclass(frozen=True, slots=True)
class SiegeState:
    """A running siege: ``months_elapsed`` of the ``required`` months counted so far.

    ``paused``: the last month did not count because the blockade was broken. ``ended``: the
    besiegers left the tile (or were forced out). ``fallen``: the holdfast opened.
    """

    required: int
    months_elapsed: int = 0
    paused: bool = False
    ended: bool = False

    def __post_init__(self) -> None:
        if self.required < MIN_SIEGE_MONTHS:
            raise InvalidInput("required", f"must be at least {MIN_SIEGE_MONTHS}")
        if not 0 <= self.months_elapsed <= self.required:
            raise InvalidInput("months_elapsed", f"must be within 0..{self.required}")

    @property
    def fallen(self) -> bool:
        return self.months_elapsed >= self.required

    @property
    def months_left(self) -> int:
        return self.required - self.months_elapsed


def months_passed(started: datetime, moment: datetime, month_length: timedelta) -> int:
    """Whole in-game months of ``month_length`` from ``started`` to ``moment`` (0 before).

    Raises InvalidInput for a month length that is not positive.
    """
    if month_length <= timedelta(0):
        raise InvalidInput("month_length", f"must be positive, not {month_length}")
    if moment <= started:
        return 0
    return (moment - started) // month_length


def month_checks(started: datetime, previous: datetime, moment: datetime,
                 month_length: timedelta) -> range:
    """The siege months (1-based) that complete in ``(previous, moment]``: one call to
    :func:`advance_siege_month` is due for each, in order."""
    return range(months_passed(started, previous, month_length) + 1,
                 months_passed(started, moment, month_length) + 1)


def advance_siege_month(state: SiegeState, still_on_tile: bool, blockade_ok: bool = True
                        ) -> tuple[SiegeState, bool]:
    """One in-game month boundary of a siege; returns the new state and whether it fell now.

    Besiegers no longer on the tile end the siege. A broken blockade (``blockade_ok`` False;
    always True for holdfasts without a port) pauses it: the month does not count. Raises
    :class:`SiegeOver` for a siege that has ended or fallen.
    """
    if state.ended or state.fallen:
        raise SiegeOver()
    if not still_on_tile:
        return replace(state, ended=True, paused=False), False
    if not blockade_ok:
        return replace(state, paused=True), False
    advanced = replace(state, months_elapsed=state.months_elapsed + 1, paused=False)
    return advanced, advanced.fallen
