"""Battles: docs/rules.md "4. Strength and battle", one scenario per sentence, plus golden
tables."""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.campaign.battle import (
    Side,
    Troops,
    Winner,
    band_for,
    casualty_row,
    losses_for,
    resolve_battle,
    round_half_up,
    strength,
    strength_ratio,
)
from rules.campaign.characters import Fate
from rules.campaign.config import DEFAULT_RULES, BattleBand, RulesConfig, Terrain
from rules.campaign.modifiers import Effect, EffectKind, Modifier, Role, Source
from rules.dice import ScriptedDice, SeededDice
from rules.errors import BadDie, DiceExhausted, InvalidInput

D = Decimal


def skill(name: str, amount: str, role: Role = Role.BOTH, source: Source = Source.SKILL,
          label: str = "", hidden: bool = False) -> Modifier:
    return Modifier(name, source, (Effect(EffectKind.STRENGTH, D(amount), role),), label, hidden)


army = Side


# ---------------------------------------------------------------------------------------------
# Strength


def test_strength_is_infantry_once_plus_cavalry_twice() -> None:
    """Strength = infantry x 1 + cavalry x 2 before any multiplier."""
    power = strength(army(70, 15), Role.ATTACK)
    assert power.base == 100
    assert power.value == 100
    assert power.applied == ()


def test_strength_fleets_use_the_configured_ship_strength() -> None:
    """Ships fight with the same rules; each ship counts rules.ship_strength."""
    assert strength(Side(ships=4), Role.ATTACK).value == 4 * DEFAULT_RULES.ship_strength
    rules = RulesConfig(ship_strength=7, infantry_strength=3, cavalry_strength=5)
    assert strength(Side(2, 1, 1), Role.ATTACK, rules).value == 2 * 3 + 5 + 7


@pytest.mark.parametrize(("terrain", "bonus"), [
    (Terrain.FIELD, "1"), (Terrain.FOREST, "1.4"), (Terrain.HILL, "1.4"),
    (Terrain.SWAMP, "1.8"), (Terrain.SAND, "1.8"), (Terrain.MOUNTAIN, "2.2"),
])
def test_strength_times_terrain_defender_bonus_when_stationary(terrain: Terrain, bonus: str
                                                               ) -> None:
    """A stationary army's whole strength is multiplied by its tile's defender bonus."""
    power = strength(army(100, 50, terrain=terrain, stationary=True), Role.DEFENSE)
    assert power.value == 200 * D(bonus)


def test_defender_bonus_applies_only_to_a_stationary_army() -> None:
    """An army in transit never gets the terrain's defender bonus."""
    moving = strength(army(100, terrain=Terrain.MOUNTAIN, stationary=False), Role.DEFENSE)
    standing = strength(army(100, terrain=Terrain.MOUNTAIN, stationary=True), Role.DEFENSE)
    assert moving.value == 100
    assert standing.value == 220
    assert standing.public_labels() == ("x2.2 mountain (stationary)",)


def test_field_x0_means_no_bonus() -> None:
    """The chart's "Field x0" means x1.0: the army keeps its strength, and no entry is shown."""
    power = strength(army(100, terrain=Terrain.FIELD, stationary=True), Role.DEFENSE)
    assert power.value == 100
    assert power.applied == ()
    zero_field = RulesConfig(defender_bonus=((Terrain.FIELD, D(0)),))
    assert strength(army(100, stationary=True), Role.DEFENSE, zero_field).value == 100


def test_commander_bonus_multiplies_strength() -> None:
    """A commander's bonus multiplies the strength after the terrain bonus."""
    power = strength(army(100, terrain=Terrain.HILL, stationary=True,
                          commander_bonus=D("1.25")), Role.DEFENSE)
    assert power.value == D("175")
    assert power.public_labels() == ("x1.4 hill (stationary)", "x1.25 commander bonus")


def test_strength_modifiers_count_only_in_their_role() -> None:
    """Skills and equipment multiply strength when attacking, defending or both, as marked."""
    side = army(100, modifiers=(skill("Walls", "2", Role.DEFENSE),
                                skill("Charge", "1.5", Role.ATTACK)))
    assert strength(side, Role.ATTACK).value == 150
    assert strength(side, Role.DEFENSE).value == 200


def test_same_named_strength_modifiers_do_not_stack() -> None:
    """Two modifiers of one name count once (the stronger); different names multiply."""
    side = army(100, modifiers=(skill("Veteran", "1.1"), skill("veteran", "1.3"),
                                skill("Banners", "1.2")))
    assert strength(side, Role.ATTACK).value == D("156")


def test_strength_labels_name_each_multiplier_for_posts() -> None:
    """A post can say "x1.2 Ser Brynden's skill"; the secret holdfast bonus stays out of it."""
    side = army(100, terrain=Terrain.HILL, stationary=True, modifiers=(
        skill("holdfast", "3", source=Source.HOLDFAST, label="holdfast defenses", hidden=True),
        skill("brynden", "1.2", label="Ser Brynden's skill"),
    ))
    power = strength(side, Role.DEFENSE)
    assert power.value == 100 * D("1.4") * D("1.2") * 3
    assert power.has_hidden
    assert power.public_labels() == ("x1.4 hill (stationary)", "x1.2 Ser Brynden's skill")
    assert power.all_labels()[-1] == "x3 holdfast defenses (secret)"


def test_strength_is_exact() -> None:
    """No binary floating point: 3 x 1.1 x 1.1 is exactly 3.63."""
    side = army(3, modifiers=(skill("a", "1.1"), skill("b", "1.1")))
    assert strength(side, Role.ATTACK).value == D("3.63")


@pytest.mark.parametrize(("field", "side"), [
    ("infantry", Side(-1)),
    ("cavalry", Side(0, -2)),
    ("ships", Side(ships=-1)),
    ("commander_bonus", Side(10, commander_bonus=D(0))),
])
def test_strength_refuses_bad_sides_naming_the_field(field: str, side: Side) -> None:
    with pytest.raises(InvalidInput) as err:
        strength(side, Role.ATTACK)
    assert err.value.field == field
    with pytest.raises(InvalidInput) as err:
        resolve_battle(Side(10), side, dice=ScriptedDice([]))
    assert err.value.field == f"defender.{field}"


# ---------------------------------------------------------------------------------------------
# Ratio and bands


@pytest.mark.parametrize(("high", "low", "ratio"), [
    (100, 100, "1.00"),
    (251, 200, "1.26"),      # 1.255 exactly: the half goes up
    (1254, 1000, "1.25"),
    (12549, 10000, "1.25"),  # 1.2549 stays down
    (301, 200, "1.51"),      # 1.505
    (1504, 1000, "1.50"),
    (4005, 1000, "4.01"),
    (4004, 1000, "4.00"),
    (2, 3, "1.50"),          # higher / lower whatever the order
    (1, 3, "3.00"),
])
def test_ratio_is_higher_over_lower_rounded_half_up_to_two_decimals(high: int, low: int,
                                                                     ratio: str) -> None:
    """Ratio = higher strength / lower strength, rounded half-up to 2 decimals."""
    assert strength_ratio(D(high), D(low)) == D(ratio)


def test_ratio_of_an_empty_army_is_none() -> None:
    assert strength_ratio(D(5), D(0)) is None


BAND_BOUNDARIES = [
    ("1.00", "equal"), ("1.25", "equal"), ("1.26", "1.26-1.50"), ("1.50", "1.26-1.50"),
    ("1.51", "1.51-1.75"), ("1.75", "1.51-1.75"), ("1.76", "1.76-2.00"), ("2.00", "1.76-2.00"),
    ("2.01", "2.01-2.50"), ("2.50", "2.01-2.50"), ("2.51", "2.51-3.00"), ("3.00", "2.51-3.00"),
    ("3.01", "3.01-3.50"), ("3.50", "3.01-3.50"), ("3.51", "3.51-4.00"), ("4.00", "3.51-4.00"),
    ("4.01", "auto"), ("100.00", "auto"),
]


@pytest.mark.parametrize(("ratio", "band"), BAND_BOUNDARIES)
def test_every_band_boundary(ratio: str, band: str) -> None:
    """Each band covers its chart range inclusively; above 4.00 is an automatic win."""
    assert band_for(D(ratio)).name == band
    high = int(D(ratio) * 100)
    result = resolve_battle(army(high), army(100), dice=SeededDice(ratio))
    assert result.band == band
    assert result.ratio == D(ratio)


@pytest.mark.parametrize(("high", "band"), [
    (1254, "equal"), (1255, "1.26-1.50"), (1504, "1.26-1.50"), (1505, "1.51-1.75"),
    (1754, "1.51-1.75"), (1755, "1.76-2.00"), (2004, "1.76-2.00"), (2005, "2.01-2.50"),
    (2504, "2.01-2.50"), (2505, "2.51-3.00"), (3004, "2.51-3.00"), (3005, "3.01-3.50"),
    (3504, "3.01-3.50"), (3505, "3.51-4.00"), (4004, "3.51-4.00"), (4005, "auto"),
])
def test_band_boundaries_round_half_up_at_the_third_decimal(high: int, band: str) -> None:
    """A ratio of x.xx5 rounds up into the next band; x.xx4 stays below it."""
    result = resolve_battle(army(high), army(1000), dice=SeededDice(high))
    assert result.band == band


@pytest.mark.parametrize(("band", "bonus", "d2"), [
    ("1.26-1.50", 1, False), ("1.51-1.75", 2, False), ("1.76-2.00", 3, False),
    ("2.01-2.50", 5, False), ("2.51-3.00", 7, False), ("3.01-3.50", 8, False),
    ("3.51-4.00", 7, True),
])
def test_each_band_rolls_its_chart_dice(band: str, bonus: int, d2: bool) -> None:
    """The bands are 1d20+1, +2, +3, +5, +7, +8 and 1d20+1d2+7, all from the config."""
    row = next(b for b in DEFAULT_RULES.bands if b.name == band)
    assert (row.bonus, row.d2) == (bonus, d2)


# ---------------------------------------------------------------------------------------------
# Rolling the battle

UNEQUAL = [  # (attacker infantry against 100, the band's bonus)
    (126, 1), (150, 1), (151, 2), (175, 2), (176, 3), (200, 3), (201, 5), (250, 5), (251, 7),
    (300, 7), (301, 8), (350, 8),
]


@pytest.mark.parametrize(("infantry", "bonus"), UNEQUAL)
def test_stronger_army_wins_when_total_at_least_the_flat_10(infantry: int, bonus: int) -> None:
    """In an unequal band the stronger army wins when d20 + bonus >= 10, loses below it."""
    threshold = 10 - bonus
    win = resolve_battle(army(infantry), army(100), dice=ScriptedDice([threshold]))
    assert win.winner is Winner.ATTACKER
    assert (win.attacker.roll, win.defender.roll, win.margin) == (10, 10, 0)
    lose = resolve_battle(army(infantry), army(100), dice=ScriptedDice([threshold - 1]))
    assert lose.winner is Winner.DEFENDER
    assert (lose.attacker.roll, lose.defender.roll, lose.margin) == (9, 10, 1)


def test_d2_is_rolled_after_the_d20_only_in_the_351_400_band() -> None:
    """Dice order: the stronger army's d20, then its d2 (only in the 3.51-4.00 band)."""
    dice = ScriptedDice([1, 2])
    result = resolve_battle(army(400), army(100), dice=dice)
    assert [(r.sides, r.value) for r in result.rolls] == [(20, 1), (2, 2)]
    assert (result.winner, result.attacker.roll, result.margin) == (Winner.ATTACKER, 10, 0)
    lost = resolve_battle(army(400), army(100), dice=ScriptedDice([1, 1]))
    assert (lost.winner, lost.attacker.roll, lost.margin) == (Winner.DEFENDER, 9, 1)
    no_d2 = ScriptedDice([5, 2])
    resolve_battle(army(350), army(100), dice=no_d2)
    assert no_d2.remaining == 1


def test_the_stronger_side_rolls_even_when_it_defends() -> None:
    """The dice belong to the stronger army, attacker or defender; the weaker has the flat 10."""
    result = resolve_battle(army(100), army(300), dice=ScriptedDice([3]))
    assert result.band == "2.51-3.00"
    assert result.winner is Winner.DEFENDER
    assert (result.defender.roll, result.attacker.roll, result.margin) == (10, 10, 0)
    assert result.rolls[0].purpose.startswith("defender d20")


def test_equal_band_both_roll_d10_the_higher_wins() -> None:
    """Equal armies: attacker d10 then defender d10; the higher wins."""
    result = resolve_battle(army(110), army(100), dice=ScriptedDice([3, 8]))
    assert result.band == "equal"
    assert result.winner is Winner.DEFENDER
    assert (result.attacker.roll, result.defender.roll, result.margin) == (3, 8, 5)
    assert [r.sides for r in result.rolls] == [10, 10]


def test_equal_band_ties_re_roll() -> None:
    """A tie is rolled again (attacker then defender) until one side is higher."""
    dice = ScriptedDice([4, 4, 9, 9, 7, 2])
    result = resolve_battle(army(100), army(100), dice=dice)
    assert result.winner is Winner.ATTACKER
    assert (result.attacker.roll, result.defender.roll, result.margin) == (7, 2, 5)
    assert [r.value for r in result.rolls] == [4, 4, 9, 9, 7, 2]
    assert [r.purpose for r in result.rolls[:2]] == ["attacker d10", "defender d10"]


def test_equal_band_ties_need_more_scripted_dice() -> None:
    with pytest.raises(DiceExhausted):
        resolve_battle(army(100), army(100), dice=ScriptedDice([5, 5]))


def test_scripted_die_must_fit_the_die_rolled() -> None:
    with pytest.raises(BadDie):
        resolve_battle(army(100), army(100), dice=ScriptedDice([11, 1]))


def test_auto_win_above_400() -> None:
    """Above 4.00 the stronger army wins without dice; counted as margin 22+."""
    result = resolve_battle(army(100), army(401, 20), dice=ScriptedDice([]))
    assert result.band == "auto"
    assert result.winner is Winner.DEFENDER
    assert result.margin is None and result.automatic
    assert result.attacker.roll is None and result.defender.roll is None
    assert result.rolls == ()
    assert result.attacker.captured and result.attacker.losses == Troops(100)
    assert result.attacker.survivors == Troops()
    assert result.defender.losses == Troops() and not result.defender.captured


def test_an_enemy_strength_of_zero_is_an_automatic_win() -> None:
    """An army facing no strength at all wins automatically."""
    result = resolve_battle(army(1), army(0), dice=ScriptedDice([]))
    assert (result.winner, result.band, result.ratio, result.margin) == (
        Winner.ATTACKER, "auto", None, None)
    assert result.defender.captured


def test_both_strengths_zero_the_defender_holds() -> None:
    """Reading: two empty armies cannot beat each other, so the defender holds; nothing rolls."""
    result = resolve_battle(army(0, characters=("Ser A",)), army(0), dice=ScriptedDice([]))
    assert result.winner is Winner.DEFENDER
    assert [(f.fate, f.roll) for f in result.attacker.fates] == [(Fate.SAFE, None)]
    assert (result.band, result.ratio, result.margin, result.rolls) == ("auto", None, None, ())
    assert not result.attacker.captured and not result.defender.captured


# ---------------------------------------------------------------------------------------------
# Retreat penalty


def test_failed_retreat_turns_the_weaker_sides_flat_10_into_9() -> None:
    """A failed retreat gives -1: the weaker side's flat 10 becomes 9."""
    result = resolve_battle(army(150), army(100, retreat_penalty=True), dice=ScriptedDice([8]))
    assert result.winner is Winner.ATTACKER
    assert (result.attacker.roll, result.defender.roll, result.margin) == (9, 9, 0)


def test_failed_retreat_takes_one_off_the_stronger_sides_total() -> None:
    """On the stronger side the -1 comes off its d20 total."""
    result = resolve_battle(army(150, retreat_penalty=True), army(100), dice=ScriptedDice([9]))
    assert result.winner is Winner.DEFENDER
    assert (result.attacker.roll, result.defender.roll, result.margin) == (9, 10, 1)


def test_failed_retreat_takes_one_off_the_d10_in_the_equal_band() -> None:
    """Reading: in the equal band the penalty comes off that side's d10; ties are on totals."""
    dice = ScriptedDice([6, 5, 7, 5])  # 6-1 = 5 ties 5: re-roll; 7-1 = 6 beats 5
    result = resolve_battle(army(100, retreat_penalty=True), army(100), dice=dice)
    assert result.winner is Winner.ATTACKER
    assert (result.attacker.roll, result.defender.roll, result.margin) == (6, 5, 1)
    assert len(result.rolls) == 4


def test_retreat_penalty_size_comes_from_the_config() -> None:
    rules = RulesConfig(retreat_penalty=3, flat_roll=12)
    result = resolve_battle(army(150), army(100, retreat_penalty=True), dice=ScriptedDice([8]),
                            rules=rules)
    assert result.defender.roll == 9 and result.winner is Winner.ATTACKER


# ---------------------------------------------------------------------------------------------
# Margin and casualties

CASUALTY_CHART = [  # margin, winner %, loser %
    (0, "40", "50"), (1, "40", "50"), (2, "37.5", "52.5"), (3, "35", "55"), (4, "32.5", "57.5"),
    (5, "30", "60"), (6, "25", "62.5"), (7, "25", "62.5"), (8, "20", "65"), (9, "20", "65"),
    (10, "15", "67.5"), (11, "15", "67.5"), (12, "10", "70"), (13, "10", "70"),
    (14, "5", "72.5"), (15, "5", "72.5"), (16, "4", "75"), (17, "4", "75"), (18, "3", "77.5"),
    (19, "3", "77.5"), (20, "2", "80"), (21, "2", "80"), (22, "0", "100"), (40, "0", "100"),
]


@pytest.mark.parametrize(("margin", "winner", "loser"), CASUALTY_CHART)
def test_every_casualty_row_and_boundary(margin: int, winner: str, loser: str) -> None:
    """The casualty chart by margin, every row and both ends of every two-margin row."""
    row = casualty_row(margin)
    assert (row.winner_pct, row.loser_pct) == (D(winner), D(loser))
    assert row.captured is (margin >= 22)


def test_an_automatic_win_counts_as_margin_22_plus() -> None:
    assert casualty_row(None) == casualty_row(22)
    with pytest.raises(InvalidInput):
        casualty_row(-1)


def test_margin_is_winner_roll_minus_loser_roll_flat_10_counting() -> None:
    """The flat 10 counts as the weaker side's roll: d20 18 + 3 = 21 beats 10 by 11."""
    result = resolve_battle(army(200, 10), army(110), dice=ScriptedDice([18]))
    assert result.band == "1.76-2.00"
    assert (result.attacker.roll, result.defender.roll, result.margin) == (21, 10, 11)
    assert (result.attacker.casualty_pct, result.defender.casualty_pct) == (D(15), D("67.5"))


def test_margin_when_the_weaker_side_wins_is_10_minus_the_total() -> None:
    result = resolve_battle(army(150), army(100), dice=ScriptedDice([1]))
    assert (result.winner, result.margin) == (Winner.DEFENDER, 8)
    assert (result.defender.casualty_pct, result.attacker.casualty_pct) == (D(20), D(65))


def test_casualty_pct_applies_to_each_troop_type_rounded_half_up() -> None:
    """Each troop type loses its own share, rounded half-up to whole units."""
    # Equal band, margin 1: winner 40%, loser 50%. 5 inf x 50% = 2.5 -> 3; 3 cav -> 1.5 -> 2.
    result = resolve_battle(army(5, 3), army(12, 0), dice=ScriptedDice([2, 3]))
    assert result.winner is Winner.DEFENDER and result.margin == 1
    assert result.attacker.losses == Troops(3, 2)
    assert result.attacker.survivors == Troops(2, 1)
    assert result.defender.losses == Troops(5, 0)  # 12 x 40% = 4.8 -> 5


@pytest.mark.parametrize(("count", "pct", "lost"), [
    (10, "25", 3), (10, "35", 4), (10, "15", 2), (7, "50", 4), (3, "37.5", 1), (4, "37.5", 2),
    (1, "50", 1), (1, "40", 0), (0, "80", 0), (1000, "62.5", 625), (999, "2", 20),
])
def test_losses_round_half_up_to_whole_units(count: int, pct: str, lost: int) -> None:
    assert losses_for(Troops(count, count, count), D(pct)) == Troops(lost, lost, lost)


def test_margin_22_plus_the_loser_is_captured_and_the_winner_loses_none() -> None:
    """Margin 22+: the loser's whole army is captured; the winner loses none."""
    bands = (BattleBand("equal", D("1.25"), equal=True),
             BattleBand("big", D("4.00"), bonus=15), BattleBand("auto", None, auto=True))
    rules = RulesConfig(bands=bands)
    result = resolve_battle(army(40, 5), army(20, 3), dice=ScriptedDice([17]), rules=rules)
    assert (result.winner, result.margin) == (Winner.ATTACKER, 22)
    assert result.defender.captured and result.defender.losses == Troops(20, 3)
    assert result.attacker.losses == Troops() and not result.attacker.captured
    near = resolve_battle(army(40, 5), army(20, 3), dice=ScriptedDice([16]), rules=rules)
    assert near.margin == 21 and not near.defender.captured
    assert near.attacker.losses == Troops(1, 0)  # 2% of 40 = 0.8 -> 1; of 5 = 0.1 -> 0


# ---------------------------------------------------------------------------------------------
# Characters and the audit log


def test_characters_roll_d100_after_the_battle_dice() -> None:
    """Each character present rolls a d100 against its side's casualty %, attacker's first."""
    a = army(150, characters=("Ser Jaime", "Ser Addam"))
    d = army(100, characters=("Lord Tytos",))
    result = resolve_battle(a, d, dice=ScriptedDice([12, 35, 36, 83]))
    # d20 12 + 1 = 13 vs 10: margin 3, winner 35%, loser 55% (injury up to 82.5).
    assert [(f.name, f.fate, f.roll) for f in result.attacker.fates] == [
        ("Ser Jaime", Fate.DEATH_ROLL, 35), ("Ser Addam", Fate.INJURY_ROLL, 36)]
    assert [(f.fate, f.roll) for f in result.defender.fates] == [(Fate.SAFE, 83)]
    assert [r.sides for r in result.rolls] == [20, 100, 100, 100]


def test_characters_of_a_captured_army_are_captured_and_the_winners_safe() -> None:
    """Reading: margin 22+ captures the loser's characters; the winner's (0%) roll nothing."""
    result = resolve_battle(army(500, characters=("Ser Brynden",)),
                            army(100, characters=("Lord Walder",)), dice=ScriptedDice([]))
    assert [(f.fate, f.roll) for f in result.attacker.fates] == [(Fate.SAFE, None)]
    assert [(f.fate, f.roll) for f in result.defender.fates] == [(Fate.CAPTURED, None)]


def test_result_keeps_every_die_for_the_audit_log() -> None:
    dice = SeededDice("audit")
    result = resolve_battle(army(100), army(100), dice=dice)
    assert [r.value for r in result.rolls] == dice.values
    assert len(result.rolls) % 2 == 0


# ---------------------------------------------------------------------------------------------
# Properties

sides = st.builds(
    Side,
    infantry=st.integers(0, 3000), cavalry=st.integers(0, 1000), ships=st.integers(0, 30),
    terrain=st.sampled_from(list(Terrain)), stationary=st.booleans(),
    commander_bonus=st.sampled_from([D(1), D("1.1"), D("1.25"), D("1.5")]),
    retreat_penalty=st.booleans(),
)


@settings(max_examples=200, deadline=None)
@given(sides, sides, st.integers(0, 2**32))
def test_losses_never_exceed_troops(attacker: Side, defender: Side, seed: int) -> None:
    """Whatever happens, nobody loses more units of a type than it brought."""
    result = resolve_battle(attacker, defender, dice=SeededDice(seed))
    for side, res in ((attacker, result.attacker), (defender, result.defender)):
        for kind in ("infantry", "cavalry", "ships"):
            lost = getattr(res.losses, kind)
            assert 0 <= lost <= getattr(side, kind)
        assert res.survivors.total >= 0
        if res.captured:
            assert res.survivors == Troops()


@settings(max_examples=100, deadline=None)
@given(sides, sides, st.integers(0, 2**32))
def test_battles_replay_from_the_same_seed(attacker: Side, defender: Side, seed: int) -> None:
    first = resolve_battle(attacker, defender, dice=SeededDice(seed))
    again = resolve_battle(attacker, defender, dice=SeededDice(seed))
    assert first == again
    scripted = resolve_battle(attacker, defender,
                              dice=ScriptedDice([r.value for r in first.rolls]))
    assert scripted == first


def test_round_half_up() -> None:
    assert [round_half_up(Fraction(n, 2)) for n in range(6)] == [0, 1, 1, 2, 2, 3]


def test_sides_are_frozen_values() -> None:
    side = army(10)
    assert replace(side, cavalry=2).cavalry == 2
    with pytest.raises(AttributeError):
        side.infantry = 3  # type: ignore[misc]
