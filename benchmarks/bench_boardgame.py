"""Board game combats: resolving 100,000 varied combats, and reading 10,000 combat texts.

Usage: ``python -m benchmarks boardgame`` or ``python -m benchmarks.bench_boardgame``.
"""

from __future__ import annotations

import random
import time

from rules.boardgame.cards import CARDS_BY_HOUSE
from rules.boardgame.combat import resolve_combat
from rules.boardgame.model import (
    AreaKind,
    Combatant,
    CombatSetup,
    House,
    HouseCard,
    Order,
    OrderKind,
    RetreatArea,
    Structure,
    Support,
    SupportTo,
    Units,
    custom_card,
)
from rules.boardgame.notation import format_setup, parse_setup

COMBATS = 100_000
TEXTS = 10_000
DISTINCT = 2_000

_HOUSES = list(House)
_DEFENDER_ORDERS = (None, Order(OrderKind.DEFENSE, 1), Order(OrderKind.DEFENSE, 2),
                    Order(OrderKind.SUPPORT, 1), Order(OrderKind.RAID))


def _card(rng: random.Random, house: House) -> HouseCard:
    if rng.random() < 0.25:
        return custom_card(rng.randint(0, 4), rng.randint(0, 3), rng.randint(0, 2))
    return rng.choice(CARDS_BY_HOUSE[house])


def _army(rng: random.Random, sea: bool) -> Units:
    if sea:
        return Units(ships=rng.randint(1, 5))
    units = Units(rng.randint(0, 4), rng.randint(0, 3), 0, rng.randint(0, 2))
    return units if units.total else Units(footmen=1)


def _setup(rng: random.Random) -> CombatSetup:
    """One legal combat with every fact its cards or a tie could ask for."""
    a_house, d_house = rng.sample(_HOUSES, 2)
    sea = rng.random() < 0.3
    supports = []
    for index in range(rng.randint(0, 3)):
        house = rng.choice(_HOUSES)
        allowed = [SupportTo.NOBODY]
        if house is not d_house:
            allowed.append(SupportTo.ATTACKER)
        if house is not a_house:
            allowed.append(SupportTo.DEFENDER)
        supports.append(Support(house, _army(rng, rng.random() < 0.3), rng.choice(allowed),
                                rng.randint(0, 1), f"S{index}"))
    areas = []
    for i in range(rng.randint(0, 3)):
        enemy = rng.random() < 0.2
        areas.append(RetreatArea(f"A{i}", AreaKind.SEA if sea else AreaKind.LAND, enemy,
                                 0 if enemy else rng.randint(0, 2), rng.choice((None, 2, 3, 4)),
                                 rng.random() < 0.2))
    return CombatSetup(
        attacker=Combatant(a_house, _army(rng, sea), _card(rng, a_house),
                           order=Order(OrderKind.MARCH, rng.randint(-1, 1))),
        defender=Combatant(d_house, _army(rng, sea), _card(rng, d_house),
                           order=rng.choice(_DEFENDER_ORDERS)),
        area=AreaKind.SEA if sea else AreaKind.LAND,
        structure=Structure.NONE if sea else rng.choice(list(Structure)),
        garrison=0 if sea else rng.choice((0, 0, 2)),
        supports=tuple(supports),
        blade_holder=rng.choice((None, a_house, d_house)),
        fiefdoms=tuple(rng.sample(_HOUSES, 6)),
        iron_throne=tuple(rng.sample(_HOUSES, 6)),
        retreat_areas=tuple(areas) if areas else None,
    )


def run() -> list[tuple[str, int, float]]:
    """(operation, count, total seconds) for 100,000 combats and 10,000 parsed texts."""
    rng = random.Random(20_240_601)
    setups = [_setup(rng) for _ in range(DISTINCT)]
    texts = [format_setup(s) for s in setups]

    started = time.perf_counter()
    for i in range(COMBATS):
        resolve_combat(setups[i % DISTINCT])
    combats = time.perf_counter() - started

    started = time.perf_counter()
    for i in range(TEXTS):
        parse_setup(texts[i % DISTINCT])
    parsing = time.perf_counter() - started
    return [("resolve board game combat", COMBATS, combats),
            ("parse combat text", TEXTS, parsing)]


if __name__ == "__main__":
    for name, count, seconds in run():
        print(f"{name}: {count} ops, {seconds / count * 1e6:.1f} us/op")
