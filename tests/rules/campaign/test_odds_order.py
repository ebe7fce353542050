"""The ``odds`` order and the battle agree by construction, with no database: over random
worlds (terrains, troops, how long each army has held its tile, modifiers open and hidden), the
matchup :func:`~rules.campaign.decide.odds_shown` answers is the one the tick then fights after
an ``attack`` order sent at the same moment."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import timedelta
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.campaign import language as o
from rules.campaign.battle import Winner
from rules.campaign.calendar import tick_time
from rules.campaign.config import RulesConfig, Terrain
from rules.campaign.decide import (
    BattleOrdered,
    NoOrderModifiers,
    OrderRefused,
    Sender,
    apply_order,
    odds_shown,
    pending_battle_of,
)
from rules.campaign.modifiers import Effect, EffectKind, Modifier, Role, Source
from rules.campaign.tick import BattleFought, Tick, advance_battles
from rules.campaign.world import (
    Army,
    CharacterState,
    ClaimState,
    EventDice,
    World,
    fighting_side,
)
from rules.campaign.worldmap import tile_id
from tests.rules.campaign import builders

RULES = RulesConfig()
TERRAINS = (Terrain.FIELD, Terrain.FOREST, Terrain.HILL, Terrain.MOUNTAIN, Terrain.SWAMP)
MAP = builders.row_map(terrains={c: TERRAINS[c % len(TERRAINS)].value for c in range(1, 9)})
TILES = [tile_id(c, 0) for c in range(1, 9)]
STARK = ClaimState(1, "House Stark", tile_id(0, 0), infantry=500)
LANNISTER = ClaimState(2, "House Lannister", tile_id(9, 0), infantry=500)
TICK = 100
DICE = EventDice("a campaign secret", 3)


class Book(NoOrderModifiers):
    """The modifiers in force: each army's own, as a catalogue would give them."""

    def __init__(self, by_army: dict[int, tuple[Modifier, ...]]) -> None:
        self.by_army = by_army

    def battle(self, army: Army, *, assault: bool,
               characters: Sequence[CharacterState] | None = None) -> tuple[Modifier, ...]:
        return self.by_army.get(army.id, ())


def _bonus(amount: str, role: Role, hidden: bool) -> Modifier:
    return Modifier(f"bonus {amount}", Source.SKILL,
                    (Effect(EffectKind.STRENGTH, Decimal(amount), role),), hidden=hidden)


modifiers = st.lists(st.builds(_bonus, st.sampled_from(["0.8", "1.1", "1.25", "1.5", "2"]),
                               st.sampled_from(list(Role)), st.booleans()), max_size=2)


def _world(tile: str, attacker: tuple[int, int], defender: tuple[int, int],
           held: tuple[int, int]) -> World:
    def army(id: int, claim: int, troops: tuple[int, int], held_for: int) -> Army:
        return builders.army(id, claim, tile, infantry=troops[0], cavalry=troops[1],
                             stationary_since=TICK - held_for, arrival_tick=TICK - held_for)

    return World.of(armies=(army(1, 1, attacker, held[0]), army(2, 2, defender, held[1])),
                    claims=(STARK, LANNISTER))


@settings(max_examples=150, deadline=None)
@given(tile=st.sampled_from(TILES),
       attacker=st.tuples(st.integers(1, 900), st.integers(0, 300)),
       defender=st.tuples(st.integers(1, 900), st.integers(0, 300)),
       held=st.tuples(st.integers(0, 3), st.integers(0, 3)),
       minutes=st.integers(0, 6 * 60 - 1),
       mods=st.tuples(modifiers, modifiers))
def test_the_odds_shown_are_the_odds_fought(
        tile: str, attacker: tuple[int, int], defender: tuple[int, int],
        held: tuple[int, int], minutes: int, mods: tuple[list[Modifier], list[Modifier]]
) -> None:
    world = _world(tile, attacker, defender, held)
    book = Book({1: tuple(mods[0]), 2: tuple(mods[1])})
    sender = Sender(1, RULES, MAP, book)
    at = tick_time(TICK, RULES) + timedelta(minutes=minutes)

    shown = odds_shown(world, sender, o.Odds(1, 2), at, moderator=True)
    after, receipt = apply_order(world, o.Attack(target=2, army=1), at, sender=sender)
    assert isinstance(receipt, BattleOrdered) and receipt.resolve_tick == shown.fought_tick
    battle = pending_battle_of(after, 2)
    assert battle is not None
    after = replace(after, battles=tuple(replace(b, id=7) if b is battle else b
                                         for b in after.battles))
    _, events = advance_battles(after, Tick(shown.fought_tick, MAP, RULES, book), DICE)
    [fought] = [e for e in events if isinstance(e, BattleFought)]
    assert fought.result.attacker.strength == shown.fight.attacker
    assert fought.result.defender.strength == shown.fight.defender
    assert fought.result.band == shown.fight.band.name and fought.result.ratio \
        == shown.fight.ratio


def test_a_player_asking_never_counts_the_enemys_hidden_modifiers_but_counts_their_own() -> None:
    world = _world(TILES[1], (300, 0), (300, 0), (2, 2))
    mine, theirs = _bonus("1.5", Role.BOTH, True), _bonus("2", Role.BOTH, True)
    sender = Sender(1, RULES, MAP, Book({1: (mine,), 2: (theirs,)}))
    at = tick_time(TICK, RULES) + timedelta(hours=1)
    asked = odds_shown(world, sender, o.Odds(1, 2), at)
    by_moderator = odds_shown(world, sender, o.Odds(1, 2), at, moderator=True)
    assert asked.fight.attacker == by_moderator.fight.attacker  # their own secret counts
    assert asked.fight.defender.value * 2 == by_moderator.fight.defender.value
    assert asked.fight.defender.value < by_moderator.fight.defender.value


def test_the_attacker_never_has_the_terrain_but_a_defender_holding_its_tile_does() -> None:
    forest = next(t for t in TILES if MAP.tile(t).terrain is Terrain.FOREST)
    world = _world(forest, (300, 0), (300, 0), (3, 3))
    sender = Sender(1, RULES, MAP)
    at = tick_time(TICK, RULES) + timedelta(hours=1)
    shown = odds_shown(world, sender, o.Odds(1, 2), at)
    fought = shown.fought_tick
    attacker = fighting_side(world, world.armies[1], Winner.ATTACKER, map=MAP, tick=fought,
                             modifiers=sender.modifiers)
    defender = fighting_side(world, world.armies[2], Winner.DEFENDER, map=MAP, tick=fought,
                             modifiers=sender.modifiers, began=TICK)
    assert not attacker.stationary and defender.stationary
    assert defender.terrain is Terrain.FOREST
    assert shown.fight.defender.value > shown.fight.attacker.value


def test_odds_about_an_army_elsewhere_are_refused_for_a_player() -> None:
    world = _world(TILES[1], (300, 0), (300, 0), (2, 2))
    moved = replace(world, armies={**world.armies, 2: replace(world.armies[2], tile=TILES[2])})
    at = tick_time(TICK, RULES) + timedelta(hours=1)
    with pytest.raises(OrderRefused):
        odds_shown(moved, Sender(1, RULES, MAP), o.Odds(1, 2), at)
    assert odds_shown(moved, Sender(1, RULES, MAP), o.Odds(1, 2), at, moderator=True)


def test_the_map_of_this_test_has_every_terrain() -> None:
    assert {MAP.tile(t).terrain for t in TILES} == set(TERRAINS)


