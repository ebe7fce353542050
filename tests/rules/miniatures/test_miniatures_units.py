"""Units: trays, ranks, wounds on single- and multi-wound models, healing (rulebook: unit
types, ranks, individual models, wounds)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.errors import InvalidInput
from rules.miniatures.units import UnitKind, UnitState, heal, suffer_wounds

INF = UnitKind.INFANTRY
CAV = UnitKind.CAVALRY
SOLO = UnitKind.SOLO


@pytest.mark.parametrize(("kind", "models", "ranks"), [(INF, 12, 3), (CAV, 4, 2), (SOLO, 1, 1)])
def test_unit_types_trays_and_ranks(kind: UnitKind, models: int, ranks: int) -> None:
    """Infantry trays hold 12 models in 3 ranks, cavalry 4 models in 2 ranks, and a solo unit
    only ever has a single rank."""
    unit = UnitState.full(kind)
    assert (unit.models, unit.ranks) == (models, ranks)


@pytest.mark.parametrize(
    ("kind", "models", "ranks"),
    [(INF, 12, 3), (INF, 9, 3), (INF, 8, 2), (INF, 5, 2), (INF, 4, 1), (INF, 1, 1), (INF, 0, 0),
     (CAV, 4, 2), (CAV, 3, 2), (CAV, 2, 1), (CAV, 1, 1), (CAV, 0, 0), (SOLO, 1, 1)],
)
def test_ranks_a_rank_is_lost_only_with_its_last_model(kind: UnitKind, models: int,
                                                        ranks: int) -> None:
    """A rank counts while even one model is left in it; models come off the last rank."""
    assert UnitState(kind, models).ranks == ranks


def test_ranks_example_three_wounds_keep_three_ranks_the_fourth_loses_one() -> None:
    """Suffering 3 wounds leaves a full infantry unit with 3 ranks; once the last model of that
    rank goes, the unit has only 2 ranks."""
    first = suffer_wounds(UnitState.full(INF), 3)
    assert (first.after.models, first.after.ranks, first.ranks_lost) == (9, 3, 0)
    second = suffer_wounds(first.after, 1)
    assert (second.after.models, second.after.ranks, second.ranks_lost) == (8, 2, 1)


def test_suffer_wounds_each_wound_removes_one_model() -> None:
    """Unless the unit says otherwise, each wound removes one model."""
    report = suffer_wounds(UnitState.full(CAV), 3)
    assert report.models_removed == 3
    assert report.after.models == 1


def test_individual_models_unit_destroyed_when_last_wound_is_lost() -> None:
    """When a unit loses its last wound it is destroyed; wounds beyond that are excess."""
    report = suffer_wounds(UnitState(INF, 2), 5)
    assert report.destroyed
    assert report.after.is_destroyed
    assert (report.wounds, report.excess) == (2, 3)


def test_wounds_multi_wound_models_removed_only_after_their_wounds() -> None:
    """A model with several wounds is removed only when it has suffered all of them."""
    unit = UnitState.full(CAV, wounds_per_model=3)
    report = suffer_wounds(unit, 2)
    assert report.after.models == 4
    assert report.after.damage == 2
    report = suffer_wounds(report.after, 1)
    assert report.after.models == 3
    assert report.after.damage == 0


def test_wounds_cannot_be_spread_across_models() -> None:
    """Wounds go on one model until it is removed: 4 wounds on 3-wound models remove one model
    and leave one wound on the next, never 2 + 2."""
    report = suffer_wounds(UnitState.full(CAV, wounds_per_model=3), 4)
    assert (report.after.models, report.after.damage) == (3, 1)
    assert report.models_removed == 1


def test_wounds_healing_mends_the_wounded_model_first() -> None:
    """Healing removes wounds from an existing wounded model first."""
    unit = UnitState(CAV, 3, wounds_per_model=3, damage=2)
    assert heal(unit, 1) == UnitState(CAV, 3, 3, 1)
    assert heal(unit, 2) == UnitState(CAV, 3, 3, 0)


def test_wounds_healing_restores_a_model_with_the_wounds_healed() -> None:
    """With no wounded model and models lost, healing restores a model carrying only as many
    wounds as were healed."""
    unit = UnitState(CAV, 2, wounds_per_model=3)
    assert heal(unit, 1) == UnitState(CAV, 3, 3, 2)
    assert heal(unit, 4) == UnitState(CAV, 4, 3, 2)
    assert heal(unit, 99) == UnitState.full(CAV, 3)


def test_wounds_healing_a_destroyed_unit_is_refused() -> None:
    """A destroyed unit is removed from the battlefield and cannot be healed back."""
    with pytest.raises(InvalidInput):
        heal(UnitState(INF, 0), 1)


@pytest.mark.parametrize(
    "kwargs",
    [{"models": 13}, {"models": -1}, {"wounds_per_model": 0}, {"damage": 1},
     {"models": 0, "damage": 1, "wounds_per_model": 2}],
)
def test_unit_state_rejects_impossible_units(kwargs: dict[str, int]) -> None:
    """A unit cannot hold more models than its tray, or wounds its model cannot carry."""
    args = {"kind": INF, "models": 12, **kwargs}
    with pytest.raises(InvalidInput):
        UnitState(**args)  # type: ignore[arg-type]


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(list(UnitKind)), st.integers(1, 5), st.integers(0, 80),
       st.integers(0, 80))
def test_wounds_add_up_and_healing_undoes_them(kind: UnitKind, wpm: int, a: int, b: int) -> None:
    """Two batches of wounds remove what one combined batch would; healing what was taken
    brings a surviving unit back."""
    unit = UnitState.full(kind, wpm)
    first = suffer_wounds(unit, a)
    both = suffer_wounds(first.after, b)
    once = suffer_wounds(unit, a + b)
    assert both.after == once.after
    assert once.wounds + once.excess == a + b
    if not first.after.is_destroyed:
        assert heal(first.after, first.wounds) == unit
