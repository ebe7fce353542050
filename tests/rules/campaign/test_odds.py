"""Exact battle odds: the chart's published odds, agreement with the dice, and properties."""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.campaign.battle import Side, Winner, matchup, resolve_battle
from rules.campaign.config import Terrain
from rules.campaign.modifiers import Effect, EffectKind, Modifier, Role, Source
from rules.campaign.odds import ExpectedLosses, battle_odds
from rules.dice import ScriptedDice

D = Decimal
F = Fraction

PUBLISHED = [  # attacker infantry against 100 defenders, band, the chart's odds for the stronger
    (100, "equal", F(1, 2)), (125, "equal", F(1, 2)),
    (126, "1.26-1.50", F(60, 100)), (150, "1.26-1.50", F(60, 100)),
    (151, "1.51-1.75", F(65, 100)), (175, "1.51-1.75", F(65, 100)),
    (176, "1.76-2.00", F(70, 100)), (200, "1.76-2.00", F(70, 100)),
    (201, "2.01-2.50", F(80, 100)), (250, "2.01-2.50", F(80, 100)),
    (251, "2.51-3.00", F(90, 100)), (300, "2.51-3.00", F(90, 100)),
    (301, "3.01-3.50", F(95, 100)), (350, "3.01-3.50", F(95, 100)),
    (351, "3.51-4.00", F(975, 1000)), (400, "3.51-4.00", F(975, 1000)),
    (401, "auto", F(1)),
]


@pytest.mark.parametrize(("infantry", "band", "chance"), PUBLISHED)
def test_the_charts_published_odds_come_out(infantry: int, band: str, chance: Fraction) -> None:
    """60% for 1.26-1.50, 65%, 70%, 80%, 90%, 95%, 97.5% for 3.51-4.00; equal is 50%."""
    odds = battle_odds(Side(infantry), Side(100))
    assert odds.band == band
    assert odds.attacker_win == chance
    assert odds.defender_win == 1 - chance


@pytest.mark.parametrize(("infantry", "band", "chance"), PUBLISHED)
def test_published_odds_belong_to_the_stronger_side_when_it_defends(
        infantry: int, band: str, chance: Fraction) -> None:
    odds = battle_odds(Side(100), Side(infantry))
    assert odds.band == band
    assert odds.defender_win == chance


@pytest.mark.parametrize(("attacker", "defender", "chance"), [
    # Equal band: a-1 beats d in 36 of the 91 untied pairs.
    (Side(100, retreat_penalty=True), Side(100), F(36, 91)),
    (Side(100), Side(100, retreat_penalty=True), F(55, 91)),
    (Side(100, retreat_penalty=True), Side(100, retreat_penalty=True), F(1, 2)),
    # 1.26-1.50 with the weaker side's flat 10 lowered to 9: d20 + 1 >= 9 on 13 of 20.
    (Side(150), Side(100, retreat_penalty=True), F(13, 20)),
    # The stronger side's own penalty: d20 + 1 - 1 >= 10 on 11 of 20.
    (Side(150, retreat_penalty=True), Side(100), F(11, 20)),
    # 3.51-4.00 with the stronger side's penalty: d20 + d2 + 6 >= 10 fails on 3 of 40.
    (Side(400, retreat_penalty=True), Side(100), F(37, 40)),
])
def test_retreat_penalty_in_the_odds(attacker: Side, defender: Side, chance: Fraction) -> None:
    """A failed retreat's -1 moves the odds exactly as the battle rolls do."""
    assert battle_odds(attacker, defender).attacker_win == chance


def test_automatic_win_odds_and_capture() -> None:
    """Above 4.00 the stronger wins for certain and captures the whole enemy army."""
    odds = battle_odds(Side(1000, 50), Side(10, 5))
    assert (odds.attacker_win, odds.defender_win) == (F(1), F(0))
    assert odds.defender_captured == 1 and odds.attacker_captured == 0
    assert odds.defender_losses == ExpectedLosses(F(10), F(5))
    assert odds.attacker_losses == ExpectedLosses()
    assert [(o.winner, o.margin, o.probability) for o in odds.outcomes] == [
        (Winner.ATTACKER, None, F(1))]


def test_both_empty_the_defender_holds_for_certain() -> None:
    odds = battle_odds(Side(), Side())
    assert (odds.attacker_win, odds.defender_win) == (F(0), F(1))
    assert odds.attacker_losses.total == 0 and odds.defender_losses.total == 0


def test_expected_losses_equal_armies_by_hand() -> None:
    """Two equal armies of 100: each side's expected loss is the same exact fraction.

    Of the 90 untied pairs, margin m occurs 2 x (10 - m) times; winner and loser % by margin.
    """
    odds = battle_odds(Side(100), Side(100))
    rates: dict[int, tuple[Fraction, Fraction]] = {
        m: (F(w), F(lo)) for m, (w, lo) in {
            1: ("40", "50"), 2: ("37.5", "52.5"), 3: ("35", "55"), 4: ("32.5", "57.5"),
            5: ("30", "60"), 6: ("25", "62.5"), 7: ("25", "62.5"), 8: ("20", "65"),
            9: ("20", "65")}.items()}
    expected = sum((F(2 * (10 - m), 90) * F(w + lo, 2) for m, (w, lo) in rates.items()), F(0))
    # Rates of 100 men are whole except the halves: 37.5 -> 38, 52.5 -> 53, 32.5 -> 33,
    # 57.5 -> 58, 62.5 -> 63.
    rounded = sum((F(2 * (10 - m), 90) * F(_half_up(w) + _half_up(lo), 2)
                   for m, (w, lo) in rates.items()), F(0))
    assert expected != rounded
    assert odds.attacker_losses.infantry == rounded == odds.defender_losses.infantry


def _half_up(value: Fraction) -> int:
    return int(value + F(1, 2))


def test_expected_losses_are_exact_fractions() -> None:
    odds = battle_odds(Side(150, 7), Side(100, 3, ships=2))
    for losses in (odds.attacker_losses, odds.defender_losses):
        assert all(isinstance(v, Fraction) for v in (losses.infantry, losses.cavalry,
                                                     losses.ships))
    assert isinstance(odds.attacker_win, Fraction)


def test_outcomes_sum_to_one_and_list_each_margin_once() -> None:
    odds = battle_odds(Side(400), Side(100))
    assert sum(o.probability for o in odds.outcomes) == 1
    keys = [(o.winner, o.margin) for o in odds.outcomes]
    assert len(keys) == len(set(keys))
    assert odds.outcomes[0].winner is Winner.ATTACKER


# ---------------------------------------------------------------------------------------------
# The odds agree with the battle itself, die by die


def _scripts(attacker: Side, defender: Side) -> list[tuple[list[int], Fraction]]:
    """Every way the dice can fall, with its chance (ties of the equal band conditioned away)."""
    m = matchup(attacker, defender)
    if m.automatic_winner is not None:
        return [([], F(1))]
    if m.band.equal:
        pen_a = 1 if attacker.retreat_penalty else 0
        pen_d = 1 if defender.retreat_penalty else 0
        pairs = [[a, d] for a in range(1, 11) for d in range(1, 11) if a - pen_a != d - pen_d]
        return [(p, F(1, len(pairs))) for p in pairs]
    if m.band.d2:
        return [([r, e], F(1, 40)) for r in range(1, 21) for e in (1, 2)]
    return [([r], F(1, 20)) for r in range(1, 21)]


small_sides = st.builds(
    Side, infantry=st.integers(0, 60), cavalry=st.integers(0, 20), ships=st.integers(0, 2),
    terrain=st.sampled_from([Terrain.FIELD, Terrain.HILL, Terrain.MOUNTAIN]),
    stationary=st.booleans(), retreat_penalty=st.booleans(),
    commander_bonus=st.sampled_from([D(1), D("1.2")]),
)


@settings(max_examples=80, deadline=None)
@given(small_sides, small_sides)
def test_odds_match_every_scripted_battle(attacker: Side, defender: Side) -> None:
    """Resolving every dice sequence and weighting it gives exactly the computed odds."""
    odds = battle_odds(attacker, defender)
    win = F(0)
    lost = {Winner.ATTACKER: ExpectedLosses(), Winner.DEFENDER: ExpectedLosses()}
    for script, p in _scripts(attacker, defender):
        result = resolve_battle(attacker, defender, dice=ScriptedDice(script))
        assert len(result.rolls) == len(script)
        if result.winner is Winner.ATTACKER:
            win += p
        for which in Winner:
            acc, got = lost[which], result.side(which).losses
            lost[which] = ExpectedLosses(acc.infantry + p * got.infantry,
                                         acc.cavalry + p * got.cavalry, acc.ships + p * got.ships)
    assert odds.attacker_win == win
    assert odds.attacker_losses == lost[Winner.ATTACKER]
    assert odds.defender_losses == lost[Winner.DEFENDER]


# ---------------------------------------------------------------------------------------------
# Properties

sides = st.builds(
    Side, infantry=st.integers(0, 5000), cavalry=st.integers(0, 2000), ships=st.integers(0, 20),
    terrain=st.sampled_from(list(Terrain)), stationary=st.booleans(),
    retreat_penalty=st.booleans(),
    commander_bonus=st.sampled_from([D(1), D("1.1"), D("1.3"), D("2")]),
)


@settings(max_examples=200, deadline=None)
@given(sides, sides)
def test_odds_sum_to_one_and_expected_losses_never_exceed_troops(attacker: Side,
                                                                 defender: Side) -> None:
    odds = battle_odds(attacker, defender)
    assert odds.attacker_win + odds.defender_win == 1
    assert 0 <= odds.attacker_win <= 1
    assert sum(o.probability for o in odds.outcomes) == 1
    for side, losses in ((attacker, odds.attacker_losses), (defender, odds.defender_losses)):
        assert 0 <= losses.infantry <= side.infantry
        assert 0 <= losses.cavalry <= side.cavalry
        assert 0 <= losses.ships <= side.ships


@settings(max_examples=200, deadline=None)
@given(sides, sides, st.integers(1, 3000), st.integers(0, 500))
def test_a_stronger_army_never_has_lower_odds(attacker: Side, defender: Side, more_inf: int,
                                             more_cav: int) -> None:
    """More attacker troops never lower P(attacker wins); more defenders never raise it."""
    base = battle_odds(attacker, defender).attacker_win
    bigger = replace(attacker, infantry=attacker.infantry + more_inf,
                     cavalry=attacker.cavalry + more_cav)
    assert battle_odds(bigger, defender).attacker_win >= base
    bigger_def = replace(defender, infantry=defender.infantry + more_inf,
                         cavalry=defender.cavalry + more_cav)
    assert battle_odds(attacker, bigger_def).attacker_win <= base


def _bonus(name: str, amount: Decimal, role: Role) -> Modifier:
    return Modifier(name, Source.SKILL, (Effect(EffectKind.STRENGTH, amount, role),))


bonuses = st.lists(
    st.builds(_bonus, st.sampled_from(["Brynden", "Veterans", "Trebuchets", "Walls"]),
              st.sampled_from([D("1.05"), D("1.2"), D("1.5"), D(2), D(3)]),
              st.sampled_from(list(Role))),
    min_size=1, max_size=4,
)


@settings(max_examples=200, deadline=None)
@given(sides, sides, bonuses, st.data(), st.booleans())
def test_removing_a_strength_bonus_never_raises_a_sides_odds(
        attacker: Side, defender: Side, mods: list[Modifier], data: st.DataObject,
        on_attacker: bool) -> None:
    """Take one strength bonus (>= x1) away from a side: that side's chance cannot go up."""
    drop = data.draw(st.integers(0, len(mods) - 1))
    fewer = tuple(m for i, m in enumerate(mods) if i != drop)
    if on_attacker:
        with_all = battle_odds(replace(attacker, modifiers=tuple(mods)), defender).attacker_win
        without = battle_odds(replace(attacker, modifiers=fewer), defender).attacker_win
    else:
        with_all = battle_odds(attacker, replace(defender, modifiers=tuple(mods))).defender_win
        without = battle_odds(attacker, replace(defender, modifiers=fewer)).defender_win
    assert without <= with_all


@settings(max_examples=100, deadline=None)
@given(sides, sides)
def test_losing_the_terrain_or_commander_bonus_never_raises_the_defenders_odds(
        attacker: Side, defender: Side) -> None:
    base = battle_odds(attacker, defender).defender_win
    moving = replace(defender, stationary=False)
    assert battle_odds(attacker, moving).defender_win <= base
    plain = replace(defender, commander_bonus=D(1))
    assert battle_odds(attacker, plain).defender_win <= base


def test_odds_depend_on_strength_not_on_troop_kind() -> None:
    """100 cavalry fight exactly like 200 infantry (strength 200 either way)."""
    by_cavalry = battle_odds(Side(0, 100), Side(120))
    by_infantry = battle_odds(Side(200), Side(120))
    assert by_cavalry.attacker_win == by_infantry.attacker_win
    assert by_cavalry.defender_losses == by_infantry.defender_losses
