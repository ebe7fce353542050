"""Modifiers as data: one stacking rule, one order, hidden ones kept out of public text."""

from __future__ import annotations

from decimal import Decimal

import pytest

from rules.campaign.modifiers import (
    Effect,
    EffectKind,
    Modifier,
    Role,
    Source,
    all_labels,
    collect,
    product,
    public_labels,
    total,
)
from rules.errors import InvalidInput

D = Decimal


def strength(name: str, amount: str, source: Source = Source.SKILL, role: Role = Role.BOTH,
             hidden: bool = False, label: str = "") -> Modifier:
    return Modifier(name, source, (Effect(EffectKind.STRENGTH, D(amount), role),), label, hidden)


def test_same_named_effects_do_not_stack_the_strongest_counts() -> None:
    """Two 'Trebuchets' modifiers count once; the one furthest from neutral wins."""
    applied = collect([strength("Veteran", "1.1"), strength("veteran", "1.3")],
                      EffectKind.STRENGTH)
    assert len(applied) == 1
    assert product(applied) == D("1.3")


def test_different_names_stack_multiplicatively() -> None:
    applied = collect([strength("Veteran", "1.1"), strength("Banners", "1.2")],
                      EffectKind.STRENGTH)
    assert product(applied) == D("1.32")


def test_effects_apply_only_in_their_role() -> None:
    mods = [strength("Walls", "2", role=Role.DEFENSE), strength("Charge", "1.5", role=Role.ATTACK)]
    assert product(collect(mods, EffectKind.STRENGTH, Role.ATTACK)) == D("1.5")
    assert product(collect(mods, EffectKind.STRENGTH, Role.DEFENSE)) == D("2")


def test_effects_are_listed_in_the_documented_source_order() -> None:
    mods = [strength("Fort", "1.2", Source.HOLDFAST), strength("Sword", "1.1", Source.EQUIPMENT),
            strength("Brynden", "1.3", Source.SKILL)]
    names = [a.modifier.name for a in collect(mods, EffectKind.STRENGTH)]
    assert names == ["Brynden", "Sword", "Fort"]


def test_hidden_modifiers_never_reach_public_labels() -> None:
    mods = [strength("Brynden", "1.2", label="Ser Brynden's skill"),
            strength("secret", "2.5", Source.HOLDFAST, hidden=True, label="holdfast defenses")]
    applied = collect(mods, EffectKind.STRENGTH)
    assert public_labels(applied) == ("x1.2 Ser Brynden's skill",)
    assert all_labels(applied)[1] == "x2.5 holdfast defenses (secret)"


def test_additive_effects_sum_and_describe_months() -> None:
    treb = Modifier("Trebuchets", Source.EQUIPMENT,
                    (Effect(EffectKind.SIEGE_MONTHS, D(-1), Role.ATTACK),))
    applied = collect([treb], EffectKind.SIEGE_MONTHS, Role.ATTACK)
    assert total(applied) == D(-1)
    assert applied[0].describe() == "-1 month Trebuchets"


def test_a_multiplier_must_be_positive() -> None:
    with pytest.raises(InvalidInput):
        Effect(EffectKind.STRENGTH, D(0))
