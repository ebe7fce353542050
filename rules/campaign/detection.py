"""Detection: whether an observer notices a force passing within its radius.

The observer rolls a d20 and needs the chart target for the passing force's size (defaults:
20 units or fewer 15, 21-200 12, 201-500 10, 501-1000 6, 1001 or more automatic). Holdfasts,
and standing armies on resource tiles (which detect exactly as holdfasts), add
``holdfast_detection_bonus`` (+5) **to the roll** -- the target stays the chart's number -- and
detect forces of ``holdfast_auto_detect_min`` (501) units or more automatically. DETECTION
effects of the observer's modifiers add to the roll; STEALTH effects of the passing force's
modifiers subtract from it. Modifiers never change an automatic detection, which needs no roll.
Detected when ``d20 + bonus >= target``.

Which observers get a roll for a path (the radius, occupied resource tiles) is decided with the
map; this module decides a single roll.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from enum import StrEnum

from rules.campaign.config import RulesConfig, SizeRow
from rules.campaign.modifiers import (
    Applied,
    EffectKind,
    Modifier,
    Role,
    collect,
    public_labels,
    total,
)
from rules.dice import Dice
from rules.errors import InvalidInput


class ObserverKind(StrEnum):
    """Who rolls: a holdfast, a standing army on a resource tile, or a plain observer."""

    HOLDFAST = "holdfast"
    RESOURCE_TILE = "resource_tile"
    NONE = "none"

    @property
    def detects_as_holdfast(self) -> bool:
        """Whether the holdfast bonus and automatic detection apply."""
        return self is not ObserverKind.NONE


@dataclass(frozen=True, slots=True)
class Target:
    """What a detection roll needs.

    ``automatic``: detected with no roll (``target`` is then None). Otherwise the d20 plus
    ``bonus`` must reach ``target``. ``explanation`` lists the public reasons;
    ``applied`` every modifier effect that counted (hidden ones included, for moderators).
    """

    automatic: bool
    target: int | None
    bonus: int
    explanation: tuple[str, ...]
    applied: tuple[Applied, ...] = ()


def size_chart_value(size: int, chart: tuple[SizeRow, ...], field: str) -> int:
    """The value of the first chart row whose ``max_size`` is at least ``size`` (None: any).

    Raises InvalidInput naming ``field`` when no row covers ``size``.
    """
    for row in chart:
        if row.max_size is None or size <= row.max_size:
            return row.value
    raise InvalidInput(field, f"the chart has no row for {size} units")


def _whole(amount: Decimal, field: str) -> int:
    if amount != amount.to_integral_value():
        raise InvalidInput(field, f"must be a whole number, not {amount}")
    return int(amount)


def detection_target(
    force_size: int,
    observer: ObserverKind,
    rules: RulesConfig,
    *,
    observer_modifiers: Iterable[Modifier] = (),
    stealth_modifiers: Iterable[Modifier] = (),
) -> Target:
    """The target and roll bonus for ``observer`` detecting a force of ``force_size`` units.

    A chart value of 0 means automatic. Holdfast and resource-tile observers add
    ``holdfast_detection_bonus`` to the roll and detect ``holdfast_auto_detect_min`` units or
    more automatically. DETECTION effects (observer, any role) add, STEALTH effects (passing
    force, any role) subtract. Raises InvalidInput for a force below 1 unit or fractional
    modifier amounts.
    """
    if isinstance(force_size, bool) or not isinstance(force_size, int) or force_size < 1:
        raise InvalidInput(
            "force_size", f"must be a whole number of at least 1, not {force_size!r}"
        )
    chart = size_chart_value(force_size, rules.detection, "force_size")
    reasons: list[str] = []
    if observer.detects_as_holdfast and force_size >= rules.holdfast_auto_detect_min:
        reasons.append(
            f"automatic: {observer.value.replace('_', ' ')} observers see every force of "
            f"{rules.holdfast_auto_detect_min} units or more"
        )
        return Target(True, None, 0, tuple(reasons))
    if chart == 0:
        reasons.append(f"automatic: a force of {force_size} units cannot pass unseen")
        return Target(True, None, 0, tuple(reasons))
    reasons.append(f"a force of {force_size} units needs {chart} on a d20")
    bonus = 0
    if observer.detects_as_holdfast:
        bonus += rules.holdfast_detection_bonus
        reasons.append(f"+{rules.holdfast_detection_bonus} {observer.value.replace('_', ' ')}")
    seen = collect(observer_modifiers, EffectKind.DETECTION, Role.BOTH)
    hiding = collect(stealth_modifiers, EffectKind.STEALTH, Role.BOTH)
    bonus += _whole(total(seen), "observer_modifiers")
    bonus -= _whole(total(hiding), "stealth_modifiers")
    reasons.extend(public_labels(seen))
    reasons.extend(
        f"-{format(a.effect.amount.normalize(), 'f')} {a.modifier.shown_as} (stealth)"
        for a in hiding
        if not a.modifier.hidden
    )
    return Target(False, chart, bonus, tuple(reasons), seen + hiding)


@dataclass(frozen=True, slots=True)
class DetectionResult:
    """The outcome of one detection roll.

    ``roll`` and ``total`` are None when the detection was automatic (no die is rolled).
    """

    automatic: bool
    detected: bool
    target: int | None
    roll: int | None
    total: int | None
    bonus: int
    explanation: tuple[str, ...]
    applied: tuple[Applied, ...] = ()


def roll_detection(
    force_size: int,
    observer: ObserverKind,
    *,
    dice: Dice,
    rules: RulesConfig,
    observer_modifiers: Iterable[Modifier] = (),
    stealth_modifiers: Iterable[Modifier] = (),
) -> DetectionResult:
    """Roll ``observer``'s detection of a force of ``force_size`` units.

    Rolls one d20 unless detection is automatic. Raises as :func:`detection_target` does, and
    whatever ``dice`` raises (e.g. DiceExhausted for scripted dice).
    """
    target = detection_target(
        force_size,
        observer,
        rules,
        observer_modifiers=observer_modifiers,
        stealth_modifiers=stealth_modifiers,
    )
    return roll_against(target, dice)


def roll_against(target: Target, dice: Dice) -> DetectionResult:
    """Roll a detection whose target is ``target`` (:func:`detection_target`): what
    :func:`roll_detection` does once it has the target. A tick rolls for many forces of the
    same size before the same kind of observer: it works each target out once.

    Rolls one d20 unless detection is automatic; raises whatever ``dice`` raises.
    """
    if target.automatic or target.target is None:
        return DetectionResult(
            True, True, None, None, None, 0, target.explanation, target.applied
        )
    roll = dice.roll(20, "detection")
    result_total = roll + target.bonus
    return DetectionResult(
        False,
        result_total >= target.target,
        target.target,
        roll,
        result_total,
        target.bonus,
        target.explanation,
        target.applied,
    )


def intercept_closes(sighted_tick: int, rules: RulesConfig) -> int:
    """The tick at which the chance to intercept a force sighted on tick ``sighted_tick``
    closes: an intercept must be sent before it (the reaction window after a sighting)."""
    return sighted_tick + rules.reaction_ticks
