"""Charges (rulebook: charge 1/12 to 12/12, combat bonus of a charge, terrain during a charge)."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import pytest

from rules.dice import ScriptedDice
from rules.errors import InvalidInput
from rules.miniatures.attack import AttackSpec
from rules.miniatures.charge import (
    ChargeOutcome,
    ChargeReroll,
    ChargeSetup,
    charge_attack,
    charge_odds,
    resolve_charge,
)
from rules.miniatures.errors import IllegalAction
from rules.miniatures.morale import PanicOutcome, PanicWounds
from rules.miniatures.rolls import Reroll, RerollFaces
from rules.miniatures.terrain import Terrain
from tests.rules.miniatures.helpers import enumerate_outcomes


def setup(distance: str = "8", speed: int = 5, **kw: object) -> ChargeSetup:
    return ChargeSetup(Decimal(distance), speed, **kw)  # type: ignore[arg-type]


def test_roll_charge_d6_plus_speed_is_the_charge_distance() -> None:
    """The charger rolls a d6 and adds its speed; contact at that distance is a successful
    charge."""
    result = resolve_charge(setup(), dice=ScriptedDice([3]))
    assert result.total_distance == 8
    assert result.outcome is ChargeOutcome.CHARGED
    assert result.charge_bonus


def test_failed_charge_example_speed_5_at_8_inches_rolls_2() -> None:
    """Sworn swords 8" away with speed 5 need a 3+; rolling a 2 moves them 7", 1" short: a
    failed charge."""
    s = setup()
    assert s.needed == 3
    result = resolve_charge(s, dice=ScriptedDice([2]))
    assert result.total_distance == 7
    assert result.outcome is ChargeOutcome.FAILED


def test_failed_charge_unit_takes_a_panic_test_and_activation_ends() -> None:
    """After a failed charge the unit takes a panic test (rolled: it suffered no attack) and
    its activation ends."""
    result = resolve_charge(setup(morale=6), dice=ScriptedDice([2, 1, 2, 2]))
    assert result.activation_ends
    assert result.panic is not None
    assert result.panic.outcome is PanicOutcome.FAILED
    assert result.panic.wounds == 2


def test_failed_charge_without_morale_reports_the_test_due() -> None:
    """Without the unit's morale the engine cannot roll the test but says one is due."""
    result = resolve_charge(setup(), dice=ScriptedDice([1]))
    assert result.panic_due and result.panic is None


def test_disorderly_charge_on_a_1_no_charge_bonus_no_tactics_cards() -> None:
    """Rolling a 1 for charge distance makes the charge disorderly: no charge bonus for the
    attack, and no tactics cards for the rest of the turn."""
    result = resolve_charge(setup("5", 5), dice=ScriptedDice([1]))
    assert result.outcome is ChargeOutcome.DISORDERLY
    assert result.reached
    assert not result.charge_bonus
    assert not result.may_play_tactics_cards


def test_disorderly_charge_can_also_fail() -> None:
    """A 1 that falls short is a failed charge and still disorderly."""
    result = resolve_charge(setup(), dice=ScriptedDice([1]))
    assert result.outcome is ChargeOutcome.FAILED
    assert result.disorderly and not result.may_play_tactics_cards


def test_checking_range_a_charge_that_cannot_be_completed_cannot_be_declared() -> None:
    """The target must be within the furthest the unit could move, the die included."""
    assert setup("11", 5).reach == 11
    with pytest.raises(IllegalAction):
        setup("11.5", 5)


def test_charge_impassable_terrain_cannot_be_crossed() -> None:
    """Units never move into or through impassable terrain."""
    with pytest.raises(IllegalAction):
        setup(terrain=(Terrain.PALISADE,))


def test_perform_attack_charge_bonus_rerolls_any_attack_dice() -> None:
    """A successful charge's attack may re-roll any attack dice."""
    charge = resolve_charge(setup(), dice=ScriptedDice([4]))
    spec = charge_attack(AttackSpec(7, 4, 5), charge)
    assert spec.attack_rerolls.attacker == Reroll(RerollFaces.FAILURES)


def test_failed_charge_no_attack_follows() -> None:
    """A failed charge ends the activation: there is no attack to make."""
    charge = resolve_charge(setup(), dice=ScriptedDice([2]))
    with pytest.raises(IllegalAction):
        charge_attack(AttackSpec(7, 4, 5), charge)


def test_hindering_terrain_denies_the_charge_bonus() -> None:
    """A charge moving through or ending on hindering terrain gets no charge bonus."""
    charge = resolve_charge(setup(terrain=(Terrain.CORPSE_PILE,)), dice=ScriptedDice([5]))
    assert charge.outcome is ChargeOutcome.CHARGED
    assert not charge.charge_bonus
    assert charge_attack(AttackSpec(7, 4, 5), charge).attack_rerolls.attacker == Reroll()


def test_fortified_terrain_gives_the_defender_plus_1_defense() -> None:
    """A charge through or onto fortified terrain gives the defender +1 to defense rolls."""
    charge = resolve_charge(setup(terrain=(Terrain.FOREST, Terrain.WALL_RUIN)),
                            dice=ScriptedDice([5]))
    spec = charge_attack(AttackSpec(7, 4, 5), charge)
    assert spec.defense_modifier == 1
    assert spec.attack_rerolls.attacker == Reroll()  # the wall ruin is also hindering


def test_rough_terrain_costs_an_inch() -> None:
    """Moving into, out of or through rough terrain subtracts 1" from the distance moved."""
    s = setup(terrain=(Terrain.BOG,))
    assert s.needed == 4
    result = resolve_charge(s, dice=ScriptedDice([3]))
    assert result.total_distance == 7
    assert result.outcome is ChargeOutcome.FAILED


def test_dangerous_terrain_deals_d3_plus_1_once_per_charge() -> None:
    """Moving into dangerous terrain deals d3 + 1 wounds, only once during a charge."""
    result = resolve_charge(setup(terrain=(Terrain.STAKES, Terrain.STAKES)),
                            dice=ScriptedDice([4, 2]))
    assert result.dangerous_wounds == 3


def test_charge_reroll_replaces_a_short_die() -> None:
    """A charge re-roll discards the first die entirely; it is used only when the die falls
    short and, with IF_SHORT, never on a die that reaches."""
    s = setup(reroll=ChargeReroll.IF_SHORT)
    result = resolve_charge(s, dice=ScriptedDice([2, 1]))
    assert result.rolls == (2, 1)
    assert result.outcome is ChargeOutcome.FAILED
    dice = ScriptedDice([3])
    assert resolve_charge(s, dice=dice).rolls == (3,)


def test_charge_reroll_of_a_one_avoids_disorder_only_when_asked() -> None:
    """IF_SHORT_OR_ONE also re-rolls a 1 that would reach, to avoid a disorderly charge."""
    close = "4"
    plain = resolve_charge(setup(close, reroll=ChargeReroll.IF_SHORT), dice=ScriptedDice([1]))
    assert plain.outcome is ChargeOutcome.DISORDERLY
    careful = resolve_charge(setup(close, reroll=ChargeReroll.IF_SHORT_OR_ONE),
                             dice=ScriptedDice([1, 4]))
    assert careful.outcome is ChargeOutcome.CHARGED


@pytest.mark.parametrize(("distance", "speed", "reroll", "charged", "disorderly"), [
    ("8", 5, ChargeReroll.NONE, Fraction(4, 6), Fraction(0)),
    ("6", 5, ChargeReroll.NONE, Fraction(5, 6), Fraction(1, 6)),
    ("11", 5, ChargeReroll.NONE, Fraction(1, 6), Fraction(0)),
    ("7.5", 5, ChargeReroll.NONE, Fraction(4, 6), Fraction(0)),
    ("8", 5, ChargeReroll.IF_SHORT, Fraction(4, 6) + Fraction(2, 6) * Fraction(4, 6),
     Fraction(0)),
    ("3", 5, ChargeReroll.IF_SHORT, Fraction(5, 6), Fraction(1, 6)),
    ("3", 5, ChargeReroll.IF_SHORT_OR_ONE, Fraction(5, 6) + Fraction(1, 6) * Fraction(5, 6),
     Fraction(1, 36)),
])
def test_charge_odds_golden(distance: str, speed: int, reroll: ChargeReroll,
                            charged: Fraction, disorderly: Fraction) -> None:
    """Exact chances of an orderly charge, a disorderly one and a failure."""
    odds = charge_odds(setup(distance, speed, reroll=reroll))
    assert (odds.charged, odds.disorderly) == (charged, disorderly)
    assert odds.charged + odds.disorderly + odds.failed == 1


@pytest.mark.parametrize("reroll", list(ChargeReroll))
def test_charge_odds_match_every_way_the_dice_can_fall(reroll: ChargeReroll) -> None:
    """The odds equal an exhaustive walk of :func:`resolve_charge` over every die, the panic
    test of a failed charge included."""
    s = setup("9", 5, reroll=reroll, morale=7, panic_wounds=PanicWounds.ONE_PLUS_D3)

    def run(dice: ScriptedDice) -> tuple[ChargeOutcome, bool]:
        result = resolve_charge(s, dice=dice)
        panicked = result.panic is not None and result.panic.outcome is PanicOutcome.FAILED
        return result.outcome, panicked

    walked = enumerate_outcomes(run)
    odds = charge_odds(s)
    for outcome, chance in ((ChargeOutcome.CHARGED, odds.charged),
                            (ChargeOutcome.DISORDERLY, odds.disorderly)):
        assert sum(p for (o, _), p in walked.items() if o is outcome) == chance
    assert sum(p for (_, failed), p in walked.items() if failed) == odds.panic_failure


@pytest.mark.parametrize("distance", ["0", "-1", "NaN"])
def test_charge_distance_must_be_positive(distance: str) -> None:
    """A unit already in contact cannot charge: the distance must be above 0."""
    with pytest.raises(InvalidInput):
        setup(distance)
