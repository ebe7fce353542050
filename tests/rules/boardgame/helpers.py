"""Short builders for board game combats in tests."""

from __future__ import annotations

from typing import Any

from rules.boardgame.cards import find_card
from rules.boardgame.combat import CombatResult, resolve_combat
from rules.boardgame.model import (
    Combatant,
    CombatSetup,
    House,
    HouseCard,
    Order,
    OrderKind,
    Support,
    SupportTo,
    Units,
    custom_card,
)

STARK, LANNISTER, BARATHEON = House.STARK, House.LANNISTER, House.BARATHEON
GREYJOY, TYRELL, MARTELL = House.GREYJOY, House.TYRELL, House.MARTELL
ATTACKER, DEFENDER, NOBODY = SupportTo.ATTACKER, SupportTo.DEFENDER, SupportTo.NOBODY


def u(footmen: int = 0, knights: int = 0, ships: int = 0, siege: int = 0) -> Units:
    """Units by kind."""
    return Units(footmen, knights, ships, siege)


def card(value: str | int | tuple[int, int, int]) -> HouseCard:
    """A named card, a bare strength, or (strength, swords, fortifications)."""
    if isinstance(value, str):
        return find_card(value)
    if isinstance(value, int):
        return custom_card(value)
    return custom_card(*value)


def side(house: House, units: Units, played: str | int | tuple[int, int, int] = 0,
         **kw: Any) -> Combatant:
    """A combatant; ``played`` is the House card (name or numbers)."""
    for key in ("replacement", "patchface_discard"):
        if isinstance(kw.get(key), str | int | tuple):
            kw[key] = card(kw[key])
    if "discard" in kw:
        kw["discard"] = tuple(card(c) for c in kw["discard"])
    return Combatant(house, units, card(played), **kw)


def march(bonus: int = 0) -> Order:
    return Order(OrderKind.MARCH, bonus)


def defense(bonus: int = 1) -> Order:
    return Order(OrderKind.DEFENSE, bonus)


def support(house: House, units: Units, to: SupportTo, bonus: int = 0, label: str = "",
            ) -> Support:
    return Support(house, units, to, bonus, label)


def setup(attacker: Combatant, defender: Combatant, **kw: Any) -> CombatSetup:
    return CombatSetup(attacker, defender, **kw)


def fight(attacker: Combatant, defender: Combatant, **kw: Any) -> CombatResult:
    """Resolve a combat between the two sides."""
    return resolve_combat(CombatSetup(attacker, defender, **kw))
