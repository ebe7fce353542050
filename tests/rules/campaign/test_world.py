"""One way to count a side (rules.campaign.world): no database, random armies and modifiers."""

from __future__ import annotations

from dataclasses import FrozenInstanceError, fields, replace
from datetime import UTC, datetime
from decimal import Decimal
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.campaign.battle import Side, Winner, matchup, resolve_battle
from rules.campaign.config import LAND_TERRAINS, Terrain
from rules.campaign.modifiers import Effect, EffectKind, Modifier, Role, Source
from rules.campaign.odds import battle_odds
from rules.campaign.world import (
    Army,
    ArmyKind,
    ArmyState,
    March,
    _ArmyDraft,
    _check_draft,
    _MarchDraft,
    army_order,
    army_side,
    as_role,
    battle_side,
    evolve,
    in_army_order,
    is_stationary,
    moved,
    new_march,
)
from rules.dice import SeededDice
from tests.rules.campaign import builders

TICK = 100

states = st.sampled_from(list(ArmyState))
ticks = st.one_of(st.none(), st.integers(TICK - 3, TICK + 1))
# An army cannot have stood still since a tick after the battle's: that state never exists.
past_ticks = st.one_of(st.none(), st.integers(TICK - 3, TICK))
armies = st.builds(
    Army, id=st.integers(1, 50), claim_id=st.integers(1, 5), kind=st.just(ArmyKind.LAND),
    state=states, tile=st.just("0101"), infantry=st.integers(0, 800),
    cavalry=st.integers(0, 300), stationary_since=past_ticks, arrival_tick=ticks,
    retreat_penalty=st.booleans())
modifiers = st.lists(st.builds(
    lambda n, amount, role: Modifier(f"skill {n}", Source.SKILL,
                                     (Effect(EffectKind.STRENGTH, Decimal(amount) / 100, role),)),
    st.integers(0, 3), st.integers(50, 200), st.sampled_from(list(Role))), max_size=3)
terrains = st.sampled_from(sorted(LAND_TERRAINS))


@given(armies, terrains, modifiers)
def test_the_attacker_never_has_the_defender_bonus(army: Army, terrain: Terrain,
                                                  mods: list[Modifier]) -> None:
    """A standing, besieging or garrisoned attacker is counted as in transit: the battle's
    rule, which the odds order once missed (forest 420 shown, 300 fought)."""
    side = army_side(army, Winner.ATTACKER, tick=TICK, terrain=terrain, modifiers=mods)
    assert not side.stationary
    assert side.infantry == army.infantry and side.retreat_penalty == army.retreat_penalty


@given(armies, terrains)
def test_a_defender_is_stationary_when_it_held_the_tile(army: Army, terrain: Terrain) -> None:
    """Standing, besieging or inside the walls, and not arrived at the battle's own tick."""
    side = army_side(army, Winner.DEFENDER, tick=TICK, terrain=terrain)
    held = army.state in (ArmyState.STANDING, ArmyState.BESIEGING, ArmyState.GARRISON)
    arrived_now = army.stationary_since == TICK and army.arrival_tick == TICK
    assert side.stationary == (held and not arrived_now) == is_stationary(army, TICK)


@given(armies, armies, terrains, modifiers, modifiers, st.integers(0, 2**32))
def test_odds_show_the_strengths_the_battle_counts(attacker: Army, defender: Army,
                                                   terrain: Terrain, att_mods: list[Modifier],
                                                   dfd_mods: list[Modifier], seed: int) -> None:
    """The odds (matchup and exact chances) and the battle see the same two sides, so the
    strengths shown are the strengths fought with, and the chance is the battle's."""
    a = army_side(attacker, Winner.ATTACKER, tick=TICK, terrain=terrain, modifiers=att_mods)
    d = army_side(defender, Winner.DEFENDER, tick=TICK, terrain=terrain, modifiers=dfd_mods)
    shown = matchup(a, d)
    fought = resolve_battle(a, d, dice=SeededDice(seed))
    assert (shown.attacker, shown.defender) == (fought.attacker.strength,
                                                fought.defender.strength)
    assert battle_odds(a, d).band == fought.band


def test_the_forest_case_of_the_report() -> None:
    """300 infantry standing on forest attack: strength 300 (x1.4 only as defender)."""
    army = builders.army(1, 1, "0101", infantry=300, stationary_since=1, arrival_tick=1)
    attacking = army_side(army, Winner.ATTACKER, tick=TICK, terrain=Terrain.FOREST)
    defending = army_side(army, Winner.DEFENDER, tick=TICK, terrain=Terrain.FOREST)
    enemy = Side(100)
    assert matchup(attacking, enemy).attacker.value == 300
    assert matchup(enemy, defending).defender.value == 420


@given(st.booleans(), terrains)
def test_a_described_side_is_counted_as_its_role(stationary: bool, terrain: Terrain) -> None:
    """`!odds` and the JSON engines describe sides; as_role applies the same rule."""
    side = Side(100, terrain=terrain, stationary=stationary)
    assert not as_role(side, Winner.ATTACKER).stationary
    assert as_role(side, Winner.DEFENDER) == side
    assert battle_side(Winner.DEFENDER, infantry=100, terrain=terrain,
                       stationary=stationary) == side


@given(armies, st.integers(TICK - 3, TICK))
def test_a_defender_that_arrived_with_the_battle_has_no_bonus(army: Army, began: int) -> None:
    """The defender holds the position only if it stood there since a tick before the one
    the battle began on (two armies arriving together: neither has the bonus)."""
    side = army_side(army, Winner.DEFENDER, tick=TICK, began=began, terrain=Terrain.HILL)
    stood_before = army.stationary_since is not None and army.stationary_since < began
    assert side.stationary == (is_stationary(army, TICK) and stood_before)


def test_moved_is_evolve_of_what_a_march_step_changes() -> None:
    """``moved`` writes the fields of an army out one by one: it keeps every field but the four
    a march step changes, exactly as ``evolve`` does (a field added to Army must be added to
    ``moved``, and to the sample here, which sets every field to a value of its own)."""
    sample: dict[str, Any] = {
        "id": 1, "claim_id": 2, "kind": ArmyKind.FLEET, "state": ArmyState.RETREATING,
        "tile": "0101", "infantry": 3, "cavalry": 4, "ships": 5, "stationary_since": 6,
        "arrival_tick": 7, "retreat_penalty": True, "ready_tick": 8,
        "march": March(("0102",), (2,), Fraction(1, 2), 9), "travelled": ("0100",),
        "commander_id": 10, "equipment": ("ram",), "meta": {"order": "t3_a"},
        "accepted_at": datetime(2026, 11, 22, tzinfo=UTC)}
    assert set(sample) == {f.name for f in fields(Army)}
    army = Army(**sample)
    march = March((), (), Fraction(1), 9)
    after = moved(army, "0102", ("0100", "0101"), march, {"rolled": []})
    expected = evolve(army, tile="0102", travelled=("0100", "0101"), march=march,
                      meta={"rolled": []})
    assert repr(after) == repr(expected)
    assert all(getattr(after, f.name) is getattr(army, f.name) for f in fields(Army)
               if f.name not in ("tile", "travelled", "march", "meta"))


def test_values_built_in_a_draft_are_frozen_values_of_their_class() -> None:
    """``moved`` and ``new_march`` build their values in a writable draft that then takes the
    value's class: what comes out is an Army (a March) like any other, equal and hashing as
    the one its constructor makes, and as frozen."""
    march = new_march(("0102", "0103"), (2, 3), Fraction(1, 3), 9)
    assert type(march) is March and march == March(("0102", "0103"), (2, 3), Fraction(1, 3), 9)
    assert hash(march) == hash(March(("0102", "0103"), (2, 3), Fraction(1, 3), 9))
    army = builders.army(4, 2, "0101", ArmyState.MARCHING, path=("0102",), depart=3)
    after = moved(army, "0102", ("0101",), march, {"rolled": []})
    built = replace(army, tile="0102", travelled=("0101",), march=march, meta={"rolled": []})
    assert type(after) is Army and after == built and hash(after) == hash(built)
    for value, name in ((after, "tile"), (march, "path")):
        with pytest.raises(FrozenInstanceError):
            setattr(value, name, "0104")


def test_a_draft_whose_layout_drifts_is_refused_at_import() -> None:
    """The check world.py runs on its drafts at import refuses a draft that lacks a slot of
    its class, or whose layout differs under the same slots (an extra base), and takes the
    real drafts."""
    class Fewer:
        __slots__ = March.__slots__[:-1]

    class Base:
        __slots__ = ("extra",)

    class Based(Base):
        __slots__ = March.__slots__

    for draft, problem in ((Fewer, "has slots"), (Based, "object layout differs")):
        with pytest.raises(TypeError, match=problem):
            _check_draft(draft, March)
    _check_draft(_ArmyDraft, Army)
    _check_draft(_MarchDraft, March)


def test_army_order_is_what_an_army_is_and_its_number_only_breaks_ties() -> None:
    """Issue 23: the order the rules take armies in where they need one is by what the armies
    are (claim, kind, tile, holding before moving, troops, then the rest down to their last
    order), never their numbers; only twins differing in nothing else go by number."""
    small = builders.army(9, 1, "0101", infantry=100)
    big = builders.army(2, 1, "0101", infantry=300)
    assert in_army_order([big, small]) == [small, big]
    setting_off = builders.army(1, 1, "0101", ArmyState.MARCHING, path=("0102",), depart=3)
    assert in_army_order([setting_off, big, small]) == [small, big, setting_off]
    first, second = small.with_meta(order="o-2"), replace(small, id=3).with_meta(order="o-1")
    assert in_army_order([first, second]) == [second, first]  # by the order, not the number
    twin = replace(small, id=4)
    assert in_army_order([small, twin]) == [twin, small]
    assert army_order(small) == army_order(small) and army_order(twin) < army_order(small)


alike = st.builds(  # armies alike in much: ties in all but their bookkeeping and number
    Army, id=st.integers(1, 10**6), claim_id=st.integers(1, 2), kind=st.just(ArmyKind.LAND),
    state=st.sampled_from([ArmyState.STANDING, ArmyState.MARCHING]),
    tile=st.sampled_from(["0101", "0102"]), infantry=st.sampled_from([100, 200]),
    march=st.sampled_from([March(), March(("0103",), (1,), Fraction(1, 2), 7)]),
    meta=st.sampled_from([{}, {"rolled": []}, {"order": "t3_a"}, {"rolled": ["7:0101"]}]))


@given(st.lists(alike, max_size=30, unique_by=lambda a: a.id))
def test_in_army_order_is_sorting_by_army_order(given_armies: list[Army]) -> None:
    """Sorting by the cheap head of the order and then only the armies alike in all of it
    gives exactly the order of :func:`army_order` itself, whatever the ties."""
    assert in_army_order(given_armies) == sorted(given_armies, key=army_order)
    assert [a.id for a in in_army_order(given_armies)] == [
        a.id for a in sorted(given_armies, key=army_order)]
