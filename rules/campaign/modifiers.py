"""Modifiers: skills, improvements, siege equipment, resource benefits as data.

A :class:`Modifier` is a named source ("Ser Brynden's skill", "Trebuchets") carrying one or more
:class:`Effect` values from a closed list of kinds. Engines ask :func:`collect` for the effects
of one kind that apply in a role (attacking or defending); :func:`collect` applies the one
stacking rule: effects from modifiers with the same name do not stack (the strongest counts),
effects from differently named modifiers do. Multipliers multiply, bonuses add, in the order
the modifiers were given (the caller passes them in the documented order: terrain, commander,
skills, improvements, equipment, resource tiles, holdfast defense).

Hidden modifiers (a holdfast's secret defense bonus, a claim's private improvements) are marked
``hidden``; renderers for public posts must use :func:`public_labels`, which leaves them out.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from enum import StrEnum

from rules.errors import InvalidInput


class EffectKind(StrEnum):
    """The closed list of things a modifier can change."""

    STRENGTH = "strength"  # multiplier on battle strength
    DETECTION = "detection"  # added to this side's detection rolls
    STEALTH = "stealth"  # subtracted from rolls made to detect this army
    SIEGE_MONTHS = "siege_months"  # months added to (negative: taken from) a siege's length
    INFANTRY_CAPACITY = "infantry_capacity"  # infantry added at home
    CAVALRY_CAPACITY = "cavalry_capacity"  # cavalry added at home
    GOLD_INCOME = "gold_income"  # gold added each in-game month
    SPEED = "speed"  # multiplier on movement speed


MULTIPLIER_KINDS = frozenset({EffectKind.STRENGTH, EffectKind.SPEED})


class Role(StrEnum):
    """When an effect applies: attacking (or besieging), defending, or both."""

    ATTACK = "attack"
    DEFENSE = "defense"
    BOTH = "both"


class Source(StrEnum):
    """Where a modifier comes from; fixes the order effects are listed in."""

    TERRAIN = "terrain"
    COMMANDER = "commander"
    SKILL = "skill"
    IMPROVEMENT = "improvement"
    EQUIPMENT = "equipment"
    RESOURCE = "resource"
    HOLDFAST = "holdfast"
    OTHER = "other"


SOURCE_ORDER: tuple[Source, ...] = tuple(Source)


@dataclass(frozen=True, slots=True)
class Effect:
    """One change: ``kind`` by ``amount`` (a multiplier for strength/speed, else a bonus)."""

    kind: EffectKind
    amount: Decimal
    role: Role = Role.BOTH

    def __post_init__(self) -> None:
        if self.kind in MULTIPLIER_KINDS and self.amount <= 0:
            raise InvalidInput(
                f"effect.{self.kind}", f"multiplier must be above 0, not {self.amount}"
            )

    def applies_to(self, role: Role) -> bool:
        """Whether this effect counts for a side in ``role``."""
        return self.role is Role.BOTH or role is Role.BOTH or self.role is role


@dataclass(frozen=True, slots=True)
class Modifier:
    """A named source of effects. ``label`` is what a post shows ("Ser Brynden's skill")."""

    name: str
    source: Source
    effects: tuple[Effect, ...]
    label: str = ""
    hidden: bool = False

    @property
    def shown_as(self) -> str:
        return self.label or self.name


@dataclass(frozen=True, slots=True)
class Applied:
    """An effect that counted, with the modifier it came from (for receipts and posts)."""

    modifier: Modifier
    effect: Effect

    @property
    def is_multiplier(self) -> bool:
        return self.effect.kind in MULTIPLIER_KINDS

    def describe(self) -> str:
        """``x1.2 Ser Brynden's skill`` or ``-1 month Trebuchets``."""
        amount = self.effect.amount
        if self.is_multiplier:
            return f"x{_plain(amount)} {self.modifier.shown_as}"
        unit = ""
        if self.effect.kind is EffectKind.SIEGE_MONTHS:
            unit = " month" if abs(amount) == 1 else " months"
        sign = "+" if amount >= 0 else "-"
        return f"{sign}{_plain(abs(amount))}{unit} {self.modifier.shown_as}"


def _plain(value: Decimal) -> str:
    text = format(value.normalize(), "f")
    return text


def _strength(applied: Applied) -> Decimal:
    amount = applied.effect.amount
    return abs(amount - 1) if applied.is_multiplier else abs(amount)


def collect(modifiers: Iterable[Modifier], kind: EffectKind, role: Role = Role.BOTH
            ) -> tuple[Applied, ...]:
    """The effects of ``kind`` that count for a side in ``role``, after the stacking rule.

    Same-named modifiers do not stack: of several with one name, only the effect furthest from
    neutral counts (the first given on a tie). Order follows :data:`SOURCE_ORDER`, then the order
    given.
    """
    best: dict[str, Applied] = {}
    order: list[str] = []
    for modifier in modifiers:
        for effect in modifier.effects:
            if effect.kind is not kind or not effect.applies_to(role):
                continue
            key = modifier.name.casefold()
            candidate = Applied(modifier, effect)
            if key not in best:
                best[key] = candidate
                order.append(key)
            elif _strength(candidate) > _strength(best[key]):
                best[key] = candidate
    chosen = [best[k] for k in order]
    chosen.sort(key=lambda a: SOURCE_ORDER.index(a.modifier.source))
    return tuple(chosen)


def product(applied: Iterable[Applied]) -> Decimal:
    """The combined multiplier of multiplier effects (1 when none)."""
    total = Decimal(1)
    for a in applied:
        total *= a.effect.amount
    return total


def total(applied: Iterable[Applied]) -> Decimal:
    """The summed bonus of additive effects (0 when none)."""
    return sum((a.effect.amount for a in applied), Decimal(0))


def public_labels(applied: Iterable[Applied]) -> tuple[str, ...]:
    """Descriptions safe for public posts: hidden modifiers are left out."""
    return tuple(a.describe() for a in applied if not a.modifier.hidden)


def all_labels(applied: Iterable[Applied]) -> tuple[str, ...]:
    """Descriptions for the claim concerned and moderators, hidden ones marked."""
    return tuple(a.describe() + (" (secret)" if a.modifier.hidden else "") for a in applied)
