"""The card game's value objects check their own inputs, and rules/cardgame stays pure."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from rules.cardgame import ChallengeDeclaration, ChallengeType, Character, GameState, Player
from rules.errors import InvalidInput

PACKAGE = Path(__file__).resolve().parents[3] / "rules" / "cardgame"
ALLOWED_ROOTS = {"__future__", "collections", "dataclasses", "enum", "re", "typing", "rules"}


def test_rules_cardgame_imports_only_the_standard_library_and_rules() -> None:
    """The engine is pure: no bot, I/O, clock or global randomness imports."""
    files = sorted(PACKAGE.glob("*.py"))
    assert files
    for path in files:
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                roots = {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom):
                roots = {(node.module or "").split(".")[0]}
            else:
                continue
            assert roots <= ALLOWED_ROOTS, f"{path.name} imports {roots - ALLOWED_ROOTS}"


@pytest.mark.parametrize(
    ("make", "field"),
    [
        (lambda: Character("", 1), "character.name"),
        (lambda: Character("Ned", -1), "Ned.strength"),
        (lambda: Character("Ned", 1, power=-2), "Ned.power"),
        (lambda: Character("Ned", 1, frozenset({"courage"})), "Ned.icons"),  # type: ignore[arg-type]
        (lambda: Player("Stark", power=-1), "Stark.power"),
        (lambda: Player("Stark", characters=(Character("Ned", 1), Character("Ned", 2))),
         "Stark.characters"),
        (lambda: GameState((Player("Stark"),), "Stark"), "players"),
        (lambda: GameState((Player("Stark"), Player("Stark")), "Stark"), "players"),
        (lambda: GameState((Player("Stark"), Player("Bolton")), "Tully"), "active"),
        (lambda: GameState((Player("A"), Player("B"), Player("C")), "A"), "melee"),
        (lambda: ChallengeDeclaration(ChallengeType.POWER, ("Ned",), claim=-1), "claim"),
        (lambda: ChallengeDeclaration(ChallengeType.POWER, ("Ned",),
                                      attacker_modifier=1.5),  # type: ignore[arg-type]
         "attacker_modifier"),
    ],
)
def test_bad_values_name_their_field(make: object, field: str) -> None:
    """Malformed table values raise InvalidInput naming the offending field."""
    with pytest.raises(InvalidInput) as caught:
        make()  # type: ignore[operator]
    assert caught.value.field == field


def test_player_totals() -> None:
    """A player's total power is the faction card's plus the power on their characters."""
    player = Player("Stark", power=3, hand=("a", "b"),
                    characters=(Character("Ned", 3, power=2), Character("Robb", 2, power=1)))
    assert player.total_power == 6
    assert player.hand_size == 2
    assert player.character("Robb") == Character("Robb", 2, power=1)
    assert player.character("Jon") is None
