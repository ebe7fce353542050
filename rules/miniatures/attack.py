"""Resolving an attack with dice: attack dice, re-rolls, defense dice, wounds, panic.

The steps follow the rulebook's order. The number of attack dice comes from the attacker's
remaining ranks; each die equal to or above the to-hit value hits (a natural 1 always misses, a
natural 6 always hits); re-rolls are applied; the defender rolls one defense die per hit, each
success blocking a hit (natural 6 always blocks, natural 1 never does); re-rolls again; every
unblocked hit is a wound; then the defender takes a panic test, passed without rolling if it
suffered no wounds.

Scripted dice order: the attack dice, the active player's attack re-rolls, the other player's,
the defense dice (one per hit), the active player's defense re-rolls, the other player's, then
the panic test's two d6 and its d3, rolled together (see :mod:`rules.miniatures.morale`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum

from rules.dice import Dice
from rules.errors import InvalidInput
from rules.miniatures.errors import IllegalAction
from rules.miniatures.morale import (
    PanicResult,
    PanicWounds,
    check_morale,
    check_morale_modifier,
    panic_test,
)
from rules.miniatures.rolls import (
    MAX_POOL,
    NO_REROLLS,
    PoolRerolls,
    PoolResult,
    Reroll,
    RerollFaces,
    Side,
    check_modifier,
    check_target,
    check_whole,
    roll_pool,
)
from rules.miniatures.units import UnitState, WoundReport, suffer_wounds

MAX_TARGET_WOUNDS = 400


@dataclass(frozen=True, slots=True)
class AttackProfile:
    """An attack as printed on a unit card: its to-hit value and its dice for each number of
    remaining ranks, listed from the most ranks to one rank (as the card reads left to right).
    """

    name: str
    to_hit: int
    dice: tuple[int, ...]

    def __post_init__(self) -> None:
        check_target("profile.to_hit", self.to_hit)
        if not self.dice:
            raise InvalidInput("profile.dice", "needs at least one number of dice",
                               "dice by ranks such as 7/5/3")
        for i, n in enumerate(self.dice):
            check_whole(f"profile.dice[{i}]", n, 0, MAX_POOL, f"0 to {MAX_POOL} dice")

    def dice_for(self, ranks: int, *, highest: bool = False, lowest: bool = False) -> int:
        """Attack dice for a unit with ``ranks`` remaining ranks.

        ``highest``/``lowest`` are effects that make the unit roll its highest or lowest dice
        value; when both apply, the lowest wins. Raises IllegalAction for a unit with no ranks
        left and InvalidInput for more ranks than the profile lists.
        """
        if lowest:
            return self.dice[-1]
        if highest:
            return self.dice[0]
        if ranks < 1:
            raise IllegalAction("attack", "a destroyed unit cannot attack")
        if ranks > len(self.dice):
            raise InvalidInput("ranks", f"the profile lists dice for at most {len(self.dice)} "
                               f"ranks, not {ranks}", f"1 to {len(self.dice)}")
        return self.dice[len(self.dice) - ranks]


@dataclass(frozen=True, slots=True)
class AttackSpec:
    """Everything that decides one attack's dice.

    ``morale`` is the defender's morale value; None means no panic test follows. Modifiers are
    added to each die result (to the total for the panic test). ``target_wounds`` is what the
    defender has left: wounds beyond it are lost and a destroyed unit takes no panic test;
    None means the defender cannot run out. ``active`` is the player whose turn it is, who
    uses re-rolls first.
    """

    dice: int
    to_hit: int
    defense: int
    morale: int | None = None
    hit_modifier: int = 0
    defense_modifier: int = 0
    morale_modifier: int = 0
    attack_rerolls: PoolRerolls = NO_REROLLS
    defense_rerolls: PoolRerolls = NO_REROLLS
    active: Side = Side.ATTACKER
    panic_wounds: PanicWounds = PanicWounds.D3
    target_wounds: int | None = None

    def __post_init__(self) -> None:
        check_whole("attack_dice", self.dice, 0, MAX_POOL, f"0 to {MAX_POOL} dice")
        check_target("to_hit", self.to_hit)
        check_target("defense", self.defense)
        if self.morale is not None:
            check_morale("morale", self.morale)
        check_modifier("hit_modifier", self.hit_modifier)
        check_modifier("defense_modifier", self.defense_modifier)
        check_morale_modifier("morale_modifier", self.morale_modifier)
        if self.target_wounds is not None:
            check_whole("target_wounds", self.target_wounds, 1, MAX_TARGET_WOUNDS,
                        f"1 to {MAX_TARGET_WOUNDS} wounds")
        if not isinstance(self.active, Side):
            raise InvalidInput("active", f"{self.active!r} is not a side", "attacker or defender")

    def with_attacker_reroll(self, reroll: Reroll) -> AttackSpec:
        """The same attack with the attacker's attack-dice re-roll replaced by ``reroll``."""
        return replace(self, attack_rerolls=replace(self.attack_rerolls, attacker=reroll))

    def with_charge_bonus(self) -> AttackSpec:
        """The same attack as a charge: the attacker may re-roll any attack dice, which it uses
        on every miss (a die is re-rolled once per player, so this replaces a lesser effect)."""
        return self.with_attacker_reroll(Reroll(RerollFaces.FAILURES))


class AttackOutcome(StrEnum):
    """What an attack came to."""

    NO_HITS = "no_hits"
    ALL_BLOCKED = "all_blocked"
    WOUNDED = "wounded"
    DESTROYED = "destroyed"


@dataclass(frozen=True, slots=True)
class AttackResult:
    """A resolved attack with every die."""

    spec: AttackSpec
    outcome: AttackOutcome
    attack: PoolResult
    defense: PoolResult
    attack_wounds: int  # unblocked hits that took effect
    panic: PanicResult | None  # None: no test (no morale given, or the unit was destroyed)
    wounds: int  # everything the defender suffered, panic included
    damage: WoundReport | None = None  # only when a defending unit was given

    @property
    def hits(self) -> int:
        """Attack dice that hit after re-rolls."""
        return self.attack.successes

    @property
    def blocked(self) -> int:
        """Hits blocked by defense dice."""
        return self.defense.successes


def resolve_attack(spec: AttackSpec, *, dice: Dice, target: UnitState | None = None
                   ) -> AttackResult:
    """Resolve ``spec`` with ``dice`` against ``target`` (or an abstract target).

    With a ``target`` unit, its remaining wounds cap the damage (``spec.target_wounds`` must
    then be None or agree) and the result reports models and ranks removed. Raises
    IllegalAction when the target is already destroyed, InvalidInput for inconsistent input,
    and whatever ``dice`` raises (DiceExhausted, BadDie).
    """
    cap = spec.target_wounds
    if target is not None:
        if target.is_destroyed:
            raise IllegalAction("attack", "the target unit is already destroyed")
        if cap is not None and cap != target.remaining_wounds:
            raise InvalidInput("target_wounds", f"{cap} disagrees with the target unit's "
                               f"{target.remaining_wounds} remaining wounds")
        cap = target.remaining_wounds
    attack = roll_pool(spec.dice, spec.to_hit, spec.hit_modifier, spec.attack_rerolls,
                       active=spec.active, dice=dice, label="attack")
    defense = roll_pool(attack.successes, spec.defense, spec.defense_modifier,
                        spec.defense_rerolls, active=spec.active, dice=dice, label="defense")
    unblocked = defense.failures
    attack_wounds = unblocked if cap is None else min(unblocked, cap)
    destroyed = cap is not None and attack_wounds >= cap
    panic: PanicResult | None = None
    if spec.morale is not None and not destroyed:
        panic = panic_test(spec.morale, dice=dice, modifier=spec.morale_modifier,
                           rule=spec.panic_wounds, wounds_suffered=attack_wounds)
    total = attack_wounds + (panic.wounds if panic else 0)
    if cap is not None:
        total = min(total, cap)
        destroyed = total >= cap
    if destroyed:
        outcome = AttackOutcome.DESTROYED
    elif attack.successes == 0:
        outcome = AttackOutcome.NO_HITS
    elif attack_wounds == 0:
        outcome = AttackOutcome.ALL_BLOCKED
    else:
        outcome = AttackOutcome.WOUNDED
    report = suffer_wounds(target, total) if target is not None else None
    return AttackResult(spec, outcome, attack, defense, attack_wounds, panic, total, report)
