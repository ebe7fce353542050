"""Resolving an attack step by step (rulebook: resolve attack 1/8 to 8/8)."""

from __future__ import annotations

import pytest

from rules.dice import ScriptedDice
from rules.errors import DiceExhausted, InvalidInput
from rules.miniatures.attack import (
    AttackOutcome,
    AttackProfile,
    AttackSpec,
    resolve_attack,
)
from rules.miniatures.errors import IllegalAction
from rules.miniatures.morale import PanicOutcome, PanicWounds
from rules.miniatures.rolls import PoolRerolls, Reroll, RerollFaces, Side
from rules.miniatures.units import UnitKind, UnitState

F = RerollFaces
SWORDS = AttackProfile("Sword", 4, (7, 5, 3))


@pytest.mark.parametrize(("ranks", "dice"), [(3, 7), (2, 5), (1, 3)])
def test_determine_attack_dice_from_remaining_ranks(ranks: int, dice: int) -> None:
    """Each attack lists its dice by the unit's remaining ranks."""
    assert SWORDS.dice_for(ranks) == dice


def test_determine_attack_dice_follow_ranks_as_models_are_lost() -> None:
    """The dice follow the unit's ranks, so losing a rank's last model lowers them."""
    unit = UnitState(UnitKind.INFANTRY, 9)
    assert SWORDS.dice_for(unit.ranks) == 7
    assert SWORDS.dice_for(UnitState(UnitKind.INFANTRY, 8).ranks) == 5
    cavalry = AttackProfile("Lance", 3, (8, 5))
    assert cavalry.dice_for(UnitState(UnitKind.CAVALRY, 2).ranks) == 5


def test_highest_and_lowest_attack_die_value_lowest_wins() -> None:
    """Effects may make a unit roll its highest or lowest dice value; with both, the lowest."""
    assert SWORDS.dice_for(1, highest=True) == 7
    assert SWORDS.dice_for(3, lowest=True) == 3
    assert SWORDS.dice_for(2, highest=True, lowest=True) == 3


def test_determine_attack_dice_a_destroyed_unit_cannot_attack() -> None:
    """A unit with no ranks left has been destroyed and rolls nothing."""
    with pytest.raises(IllegalAction):
        SWORDS.dice_for(0)
    with pytest.raises(InvalidInput):
        SWORDS.dice_for(4)


def test_roll_attack_dice_hits_misses_and_natural_results() -> None:
    """Dice equal to or above the to-hit value hit, below miss; with -2 a 6 still hits and
    with +3 a 1 still misses."""
    spec = AttackSpec(4, 4, 6, hit_modifier=-2)
    result = resolve_attack(spec, dice=ScriptedDice([6, 5, 4, 1, 1]))
    assert [d.success for d in result.attack.dice] == [True, False, False, False]
    spec = AttackSpec(2, 4, 6, hit_modifier=3)
    result = resolve_attack(spec, dice=ScriptedDice([1, 2, 1]))
    assert [d.success for d in result.attack.dice] == [False, True]


def test_apply_rerolls_attack_dice_rerolls_come_before_defense() -> None:
    """Attack-dice re-rolls are applied before the defender rolls defense dice, one per final
    hit."""
    spec = AttackSpec(2, 4, 5, attack_rerolls=PoolRerolls(attacker=Reroll(F.FAILURES)))
    dice = ScriptedDice([3, 5, 4, 5, 2])
    result = resolve_attack(spec, dice=dice)
    assert result.hits == 2
    assert [r.purpose for r in dice.rolls] == [
        "attack die 1", "attack die 2", "attack die 1 re-roll (attacker)",
        "defense die 1", "defense die 2",
    ]
    assert result.blocked == 1


def test_defender_rolls_defense_dice_one_per_hit() -> None:
    """For each hit the defender rolls one die; each equal to or above the defense value
    blocks one hit."""
    spec = AttackSpec(5, 4, 4)
    result = resolve_attack(spec, dice=ScriptedDice([6, 5, 4, 2, 1, 4, 3, 6]))
    assert result.hits == 3
    assert len(result.defense.dice) == 3
    assert result.blocked == 2
    assert result.attack_wounds == 1


def test_defender_rolls_defense_dice_6_always_blocks_1_never_does() -> None:
    """A defense die of 6 blocks whatever the modifiers; a 1 always fails."""
    spec = AttackSpec(2, 4, 5, defense_modifier=-3)
    result = resolve_attack(spec, dice=ScriptedDice([5, 5, 6, 5]))
    assert [d.success for d in result.defense.dice] == [True, False]
    spec = AttackSpec(1, 4, 2, defense_modifier=4)
    assert resolve_attack(spec, dice=ScriptedDice([5, 1])).attack_wounds == 1


def test_apply_defense_rerolls_attacker_turn_forced_rerolls_first() -> None:
    """Defense re-rolls are applied after the defense roll; on the attacker's turn the
    attacker's forced re-roll of saves comes before the defender's own re-roll of failures."""
    spec = AttackSpec(1, 4, 4, defense_rerolls=PoolRerolls(attacker=Reroll(F.SUCCESSES),
                                                           defender=Reroll(F.FAILURES)))
    dice = ScriptedDice([5, 6, 2, 4])
    result = resolve_attack(spec, dice=dice)
    assert result.defense.dice[0].faces == (6, 2, 4)
    assert result.defense.dice[0].rerolled_by == (Side.ATTACKER, Side.DEFENDER)
    assert result.blocked == 1


def test_suffer_wounds_each_unblocked_hit_is_one_wound() -> None:
    """For each unblocked hit the defender suffers 1 wound, each removing one model."""
    target = UnitState.full(UnitKind.INFANTRY)
    result = resolve_attack(AttackSpec(3, 4, 5), dice=ScriptedDice([4, 4, 4, 1, 2, 6]),
                            target=target)
    assert result.attack_wounds == 2
    assert result.damage is not None
    assert result.damage.models_removed == 2
    assert result.outcome is AttackOutcome.WOUNDED


def test_make_panic_test_after_wounds_are_dealt() -> None:
    """Once wounds are dealt the defender makes a panic test; the rulebook's example: 2 wounds,
    then 2 and 2 against 6+ fails and the d3 shows 1, so the unit lost 3 models in all."""
    target = UnitState.full(UnitKind.INFANTRY)
    spec = AttackSpec(2, 4, 5, morale=6)
    dice = ScriptedDice([4, 5, 2, 3, 2, 2, 1])
    result = resolve_attack(spec, dice=dice, target=target)
    assert result.attack_wounds == 2
    assert result.panic is not None and result.panic.outcome is PanicOutcome.FAILED
    assert result.wounds == 3
    assert result.damage is not None and result.damage.models_removed == 3
    assert [r.purpose for r in dice.rolls][-3:] == ["panic test die 1", "panic test die 2",
                                                     "panic test d3"]


def test_make_panic_test_automatic_pass_when_all_hits_blocked() -> None:
    """A defender who blocked every hit does not roll: it passes automatically, and still
    counts as having taken the test."""
    dice = ScriptedDice([5, 6])
    result = resolve_attack(AttackSpec(1, 4, 5, morale=6), dice=dice)
    assert result.outcome is AttackOutcome.ALL_BLOCKED
    assert result.panic is not None
    assert result.panic.outcome is PanicOutcome.AUTOMATIC_PASS
    assert result.panic.taken
    assert dice.remaining == 0


def test_make_panic_test_automatic_pass_when_every_die_missed() -> None:
    """An attacker that missed with every die also leaves the defender an automatic pass."""
    result = resolve_attack(AttackSpec(3, 4, 5, morale=9), dice=ScriptedDice([1, 2, 3]))
    assert result.outcome is AttackOutcome.NO_HITS
    assert result.panic is not None and result.panic.outcome is PanicOutcome.AUTOMATIC_PASS
    assert result.wounds == 0


def test_panic_wounds_need_no_defense_dice() -> None:
    """Panic wounds are suffered directly: no defense dice are rolled for them."""
    spec = AttackSpec(1, 4, 5, morale=12, panic_wounds=PanicWounds.ONE_PLUS_D3)
    dice = ScriptedDice([4, 2, 1, 1, 3])
    result = resolve_attack(spec, dice=dice)
    assert result.wounds == 1 + 4
    assert dice.remaining == 0


def test_a_destroyed_unit_takes_no_panic_test() -> None:
    """When the attack removes the unit's last wound there is nothing left to test."""
    dice = ScriptedDice([4, 4, 1, 1])
    result = resolve_attack(AttackSpec(2, 4, 5, morale=6), dice=dice,
                            target=UnitState(UnitKind.CAVALRY, 2))
    assert result.outcome is AttackOutcome.DESTROYED
    assert result.panic is None
    assert dice.remaining == 0


def test_panic_wounds_can_destroy_the_unit() -> None:
    """Panic wounds beyond the unit's last are lost; the unit is destroyed."""
    result = resolve_attack(AttackSpec(1, 4, 5, morale=6), dice=ScriptedDice([4, 1, 1, 1, 3]),
                            target=UnitState(UnitKind.CAVALRY, 2))
    assert result.wounds == 2
    assert result.outcome is AttackOutcome.DESTROYED
    assert result.damage is not None and result.damage.destroyed


def test_attack_on_a_destroyed_unit_is_refused() -> None:
    """A destroyed unit is off the table and cannot be attacked."""
    with pytest.raises(IllegalAction):
        resolve_attack(AttackSpec(1, 4, 5), dice=ScriptedDice([4]),
                       target=UnitState(UnitKind.INFANTRY, 0))


def test_target_wounds_must_agree_with_the_target() -> None:
    """An explicit remaining-wound count must match the unit given."""
    with pytest.raises(InvalidInput):
        resolve_attack(AttackSpec(1, 4, 5, target_wounds=3), dice=ScriptedDice([4]),
                       target=UnitState(UnitKind.INFANTRY, 12))


def test_scripted_dice_running_out_is_reported() -> None:
    """Too few scripted dice raise DiceExhausted naming the roll that was missing."""
    with pytest.raises(DiceExhausted, match="defense die 1"):
        resolve_attack(AttackSpec(1, 4, 5), dice=ScriptedDice([4]))


@pytest.mark.parametrize("kwargs", [
    {"dice": 41}, {"to_hit": 1}, {"defense": 7}, {"morale": 1}, {"hit_modifier": 7},
    {"morale_modifier": -13}, {"target_wounds": 0},
])
def test_attack_spec_rejects_out_of_range_values(kwargs: dict[str, int]) -> None:
    """Every number of an attack is checked and a bad one names its field."""
    args: dict[str, int] = {"dice": 8, "to_hit": 4, "defense": 5, **kwargs}
    with pytest.raises(InvalidInput):
        AttackSpec(**args)  # type: ignore[arg-type]


def test_charge_bonus_replaces_a_lesser_attacker_reroll() -> None:
    """The charge bonus re-rolls any attack dice; as a die is re-rolled once per player, it
    takes the place of a re-roll of 1s."""
    spec = AttackSpec(8, 4, 5, attack_rerolls=PoolRerolls(attacker=Reroll(F.ONES),
                                                          defender=Reroll(F.SUCCESSES)))
    charged = spec.with_charge_bonus()
    assert charged.attack_rerolls.attacker == Reroll(F.FAILURES)
    assert charged.attack_rerolls.defender == Reroll(F.SUCCESSES)
