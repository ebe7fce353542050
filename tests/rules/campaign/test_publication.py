"""Assault posts never narrow a holdfast's secret defense bonus.

An observer who reads every public post of many assaults on one holdfast knows the attackers,
the garrisons, the terrain and the battle chart. For each bonus of the public range it can ask
whether some roll of the dice explains every post. These tests are that observer: with the
facts :func:`public_assault` allows, every bonus of the range stays possible; with the exact
casualty percentages the old posts published, the bonus is pinned down.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from decimal import Decimal
from itertools import product
from pathlib import Path

import pytest

from rules.campaign.battle import (
    BATTLE_DIE,
    EQUAL_DIE,
    EXTRA_DIE,
    BattleResult,
    Side,
    matchup,
    resolve_battle,
)
from rules.campaign.config import DEFAULT_RULES, Terrain
from rules.campaign.publication import (
    LOSS_BANDS,
    PublicAssault,
    loss_band,
    public_assault,
    with_bonus,
)
from rules.dice import ScriptedDice, SeededDice
from rules.errors import RulesError

RULES = DEFAULT_RULES
GRID = tuple(RULES.defense_bonus_min + (RULES.defense_bonus_max - RULES.defense_bonus_min)
             * i / 200 for i in range(201))


def _all_results(attacker: Side, defender: Side) -> list[BattleResult]:
    """Every result some dice give (brute force, no shortcut)."""
    out = []
    for values in [*product(range(1, EQUAL_DIE + 1), repeat=2),
                   *product(range(1, BATTLE_DIE + 1), range(1, EXTRA_DIE + 1))]:
        try:
            out.append(resolve_battle(attacker, defender, dice=ScriptedDice(values),
                                      rules=RULES))
        except RulesError:
            continue
    return out


Post = tuple[Side, Side, Callable[[BattleResult], bool]]


def consistent_bonuses(posts: Iterable[Post]) -> list[Decimal]:
    """The bonuses of the grid under which every post is explained by some roll."""
    posts = list(posts)
    cache: dict[tuple[object, ...], list[BattleResult]] = {}
    alive = []
    for bonus in GRID:
        ok = True
        for attacker, garrison, explains in posts:
            defender = with_bonus(garrison, bonus)
            m = matchup(attacker, defender, RULES)
            key = (id(attacker), id(garrison), m.band, m.stronger)
            if key not in cache:
                cache[key] = _all_results(attacker, defender)
            if not any(explains(r) for r in cache[key]):
                ok = False
                break
        if ok:
            alive.append(bonus)
    return alive


def _published(fact: PublicAssault) -> Callable[[BattleResult], bool]:
    def explains(r: BattleResult) -> bool:
        return ((fact.winner is None or r.winner is fact.winner)
                and (fact.attacker_losses is None
                     or loss_band(r.attacker.casualty_pct) == fact.attacker_losses)
                and (fact.defender_losses is None
                     or loss_band(r.defender.casualty_pct) == fact.defender_losses))
    return explains


def _exact(result: BattleResult) -> Callable[[BattleResult], bool]:
    def explains(r: BattleResult) -> bool:
        return (r.winner is result.winner
                and r.attacker.casualty_pct == result.attacker.casualty_pct
                and r.defender.casualty_pct == result.defender.casualty_pct)
    return explains


def _assaults(seed: int, count: int, bonus: Decimal) -> list[tuple[Side, Side, BattleResult]]:
    rng = random.Random(seed)
    out = []
    for i in range(count):
        attacker = Side(infantry=rng.randrange(100, 5000), cavalry=rng.randrange(0, 1500))
        garrison = Side(infantry=rng.randrange(50, 2000), cavalry=rng.randrange(0, 400),
                        terrain=rng.choice([Terrain.FIELD, Terrain.HILL, Terrain.MOUNTAIN]),
                        stationary=True)
        result = resolve_battle(attacker, with_bonus(garrison, bonus),
                                dice=SeededDice(f"{seed}:{i}"), rules=RULES)
        out.append((attacker, garrison, result))
    return out


@pytest.mark.parametrize(("seed", "bonus"), [(1, Decimal("2.2")), (2, Decimal("1.5")),
                                              (3, Decimal("3.0"))])
def test_every_post_of_many_assaults_leaves_the_whole_bonus_range_possible(
        seed: int, bonus: Decimal) -> None:
    """Given every public post of 15 assaults on one holdfast, every bonus of the configured
    range still explains all of them: no consistent interval is narrower than the range."""
    assaults = _assaults(seed, 15, bonus)
    posts = [(a, g, _published(public_assault(a, with_bonus(g, bonus), r, RULES)))
             for a, g, r in assaults]
    assert consistent_bonuses(posts) == list(GRID)


def test_exact_casualties_would_narrow_the_bonus() -> None:
    """The observer has teeth: the exact percentages (the old posts) exclude bonuses."""
    assaults = _assaults(1, 25, Decimal("2.2"))
    alive = consistent_bonuses((a, g, _exact(r)) for a, g, r in assaults)
    assert Decimal("2.2") in alive or any(abs(b - Decimal("2.2")) < Decimal("0.02")
                                          for b in alive)
    assert len(alive) < len(GRID)


def test_most_assaults_still_publish_the_outcome() -> None:
    """The rule withholds only what would narrow the bonus: most posts name the winner."""
    assaults = _assaults(5, 25, Decimal("2.2"))
    facts = [public_assault(a, with_bonus(g, Decimal("2.2")), r, RULES) for a, g, r in assaults]
    assert sum(f.winner is not None for f in facts) >= 15
    assert all(f.attacker_losses in (None, *LOSS_BANDS) for f in facts)


def _attacker_knows(fact: PublicAssault, result: BattleResult
                    ) -> Callable[[BattleResult], bool]:
    """What the attacking claim knows of its own assault: the public post, and its own exact
    losses (its army's troops before and after)."""
    published = _published(fact)

    def explains(r: BattleResult) -> bool:
        return published(r) and r.attacker.casualty_pct == result.attacker.casualty_pct
    return explains


def test_the_attacker_learns_a_bound_from_its_own_losses_as_docs_rules_says() -> None:
    """Issue 24 item 5, decided as documented behaviour (docs/rules.md, "What the attacker
    learns"): the attacker's exact losses come from the margin's casualty row, whose possible
    values depend on the strength band, so the attacker of a few assaults can bound the
    bonus (the issue's probe: [2.01, 2.50] around a true 2.2), while the public posts of the
    same assaults leave every bonus of the range possible."""
    bonus = Decimal("2.2")
    assaults = _assaults(1, 6, bonus)
    facts = [public_assault(a, with_bonus(g, bonus), r, RULES) for a, g, r in assaults]
    public = consistent_bonuses((a, g, _published(f))
                                for (a, g, _), f in zip(assaults, facts, strict=True))
    own = consistent_bonuses((a, g, _attacker_knows(f, r))
                             for (a, g, r), f in zip(assaults, facts, strict=True))
    assert public == list(GRID)
    assert len(own) < len(GRID)  # a bound: the attacker excludes part of the range...
    assert min(own) <= bonus <= max(own)  # ...and the true bonus is inside it
    text = (Path(__file__).resolve().parents[3] / "docs" / "rules.md").read_text()
    assert "What the attacker learns" in text
    assert "its own exact losses" in " ".join(text.split())
