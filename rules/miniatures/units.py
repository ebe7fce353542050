"""Units on the table: models, ranks, wounds and healing.

A tray holds its models in ranks: infantry 12 models in 3 ranks of 4, cavalry 4 models in 2 ranks
of 2, a solo unit 1 model in 1 rank. Models are removed from the last rank first, and a rank
only goes when its last model does, so the remaining ranks are the models left divided by the
rank size, rounded up. Usually one wound removes one model; a unit whose models have several
wounds puts every wound on one model until that model is removed (wounds never spread across
models), and healing first mends that wounded model before restoring removed ones.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from rules.errors import InvalidInput

MAX_WOUNDS_PER_MODEL = 30


class UnitKind(StrEnum):
    """The tray types of combat units."""

    INFANTRY = "infantry"
    CAVALRY = "cavalry"
    SOLO = "solo"

    @property
    def full_models(self) -> int:
        """Models on a full tray."""
        return _FULL_MODELS[self]

    @property
    def full_ranks(self) -> int:
        """Ranks on a full tray."""
        return _FULL_RANKS[self]

    @property
    def models_per_rank(self) -> int:
        """Models in each rank."""
        return _FULL_MODELS[self] // _FULL_RANKS[self]


_FULL_MODELS = {UnitKind.INFANTRY: 12, UnitKind.CAVALRY: 4, UnitKind.SOLO: 1}
_FULL_RANKS = {UnitKind.INFANTRY: 3, UnitKind.CAVALRY: 2, UnitKind.SOLO: 1}


@dataclass(frozen=True, slots=True)
class UnitState:
    """A combat unit's health: models on the tray and wounds on its one wounded model."""

    kind: UnitKind
    models: int
    wounds_per_model: int = 1
    damage: int = 0

    def __post_init__(self) -> None:
        if not isinstance(self.kind, UnitKind):
            raise InvalidInput("unit.kind", f"{self.kind!r} is not a unit type",
                               "infantry, cavalry or solo")
        full = self.kind.full_models
        if isinstance(self.models, bool) or not 0 <= self.models <= full:
            raise InvalidInput("unit.models", f"must be 0 to {full} for {self.kind}, "
                               f"not {self.models}")
        if not 1 <= self.wounds_per_model <= MAX_WOUNDS_PER_MODEL:
            raise InvalidInput("unit.wounds_per_model", f"must be 1 to {MAX_WOUNDS_PER_MODEL}, "
                               f"not {self.wounds_per_model}")
        if not 0 <= self.damage < self.wounds_per_model or (self.models == 0 and self.damage):
            raise InvalidInput("unit.damage", f"{self.damage} wounds cannot sit on one model "
                               f"of {self.wounds_per_model} wounds",
                               f"0 to {self.wounds_per_model - 1}")

    @classmethod
    def full(cls, kind: UnitKind, wounds_per_model: int = 1) -> UnitState:
        """A unit at full strength."""
        return cls(kind, kind.full_models, wounds_per_model)

    @property
    def ranks(self) -> int:
        """Remaining ranks: a rank counts while even one of its models is left."""
        per = self.kind.models_per_rank
        return -(-self.models // per)

    @property
    def remaining_wounds(self) -> int:
        """Wounds the unit can still suffer before it is destroyed."""
        return self.models * self.wounds_per_model - self.damage

    @property
    def is_destroyed(self) -> bool:
        """A unit is destroyed when its last wound is lost."""
        return self.models == 0


@dataclass(frozen=True, slots=True)
class WoundReport:
    """What suffering wounds did to a unit."""

    before: UnitState
    after: UnitState
    wounds: int  # wounds that took effect
    excess: int  # wounds beyond the last one, which have nothing left to remove

    @property
    def models_removed(self) -> int:
        """Models taken off the tray."""
        return self.before.models - self.after.models

    @property
    def ranks_lost(self) -> int:
        """Ranks emptied by this damage."""
        return self.before.ranks - self.after.ranks

    @property
    def destroyed(self) -> bool:
        """Whether this damage destroyed the unit."""
        return self.after.is_destroyed and not self.before.is_destroyed


def suffer_wounds(unit: UnitState, wounds: int) -> WoundReport:
    """Apply ``wounds`` to ``unit``: the wounded model first, then whole models from the last
    rank. Wounds beyond the unit's last are reported as excess. Raises InvalidInput for a
    negative number of wounds."""
    if isinstance(wounds, bool) or wounds < 0:
        raise InvalidInput("wounds", f"must be 0 or more, not {wounds}")
    taken = min(wounds, unit.remaining_wounds)
    left = unit.remaining_wounds - taken
    models = -(-left // unit.wounds_per_model)
    damage = models * unit.wounds_per_model - left
    after = UnitState(unit.kind, models, unit.wounds_per_model, damage)
    return WoundReport(unit, after, taken, wounds - taken)


def heal(unit: UnitState, amount: int) -> UnitState:
    """Heal ``amount`` wounds: first off the wounded model, then by restoring removed models
    (the last restored model keeps whatever was not healed). A unit never grows past a full
    tray, and a destroyed unit is gone for good. Raises InvalidInput for a negative amount or a
    destroyed unit."""
    if isinstance(amount, bool) or amount < 0:
        raise InvalidInput("heal", f"must be 0 or more, not {amount}")
    if unit.is_destroyed:
        raise InvalidInput("unit", "a destroyed unit cannot be healed")
    full = unit.kind.full_models * unit.wounds_per_model
    left = min(full, unit.remaining_wounds + amount)
    models = -(-left // unit.wounds_per_model)
    return UnitState(unit.kind, models, unit.wounds_per_model,
                     models * unit.wounds_per_model - left)
