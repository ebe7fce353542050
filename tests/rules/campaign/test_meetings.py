"""Hostile armies sharing a tile always meet; arriving together, neither holds the position."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from rules.campaign.meetings import Presence, holds_position, hostile_meetings


def war(a: int, b: int) -> bool:
    return {a, b} == {1, 2}


def test_two_hostile_armies_on_a_tile_meet_the_later_attacks() -> None:
    standing = Presence(7, 1, "0412", "land", since=3)
    marching = Presence(9, 2, "0412", "land", since=None)
    assert hostile_meetings([marching, standing], war) == [(marching, standing)]


def test_allies_fleets_and_armies_already_in_battle_do_not_meet() -> None:
    a = Presence(1, 1, "0412", "land", since=3)
    ally = Presence(2, 3, "0412", "land", since=None)
    fleet = Presence(3, 2, "0412", "fleet", since=None)
    assert hostile_meetings([a, ally, fleet], war) == []
    enemy = Presence(4, 2, "0412", "land", since=5)
    assert hostile_meetings([a, enemy], war, busy={4}) == []


def test_each_army_meets_one_enemy_per_tick() -> None:
    a = Presence(1, 1, "t", "land", since=1)
    b = Presence(2, 2, "t", "land", since=2)
    c = Presence(3, 2, "t", "land", since=None)
    assert hostile_meetings([a, b, c], war) == [(b, a)]


def test_arriving_together_neither_holds_the_position() -> None:
    assert holds_position(4, 5)
    assert not holds_position(5, 5)  # reached the tile on the tick the battle began
    assert not holds_position(None, 5)  # in transit


presence = st.builds(Presence, st.integers(1, 12), st.integers(1, 3),
                     st.sampled_from(["a", "b"]), st.sampled_from(["land", "fleet"]),
                     st.one_of(st.none(), st.integers(0, 5)))


@given(st.lists(presence, max_size=10, unique_by=lambda p: p.army))
@settings(max_examples=300)
def test_meetings_pair_hostile_armies_once_whatever_the_order(armies: list[Presence]) -> None:
    found = hostile_meetings(armies, war)
    assert found == hostile_meetings(list(reversed(armies)), war)
    used = [p.army for pair in found for p in pair]
    assert len(used) == len(set(used))
    for attacker, defender in found:
        assert attacker.tile == defender.tile and attacker.kind == defender.kind
        assert war(attacker.claim, defender.claim)
    # no hostile pair is left unpaired on a tile, unless their claims already meet there (every
    # army of two claims on a tile fights in their one battle, on its claim's side)
    met = {(a.tile, a.kind, frozenset((a.claim, d.claim))) for a, d in found}
    assert len(met) == len(found)
    free = [p for p in armies if p.army not in used]
    for x in free:
        for y in free:
            assert not (x.tile == y.tile and x.kind == y.kind and war(x.claim, y.claim)) \
                or (x.tile, x.kind, frozenset((x.claim, y.claim))) in met
