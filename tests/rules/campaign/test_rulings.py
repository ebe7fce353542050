"""A moderator's rulings as the rules decide them: a character's fate, an army removed."""

from __future__ import annotations

import pytest

from rules.campaign.rulings import REMOVED_FATE, remove_army, rule_fate
from rules.campaign.world import (
    ArmyState,
    CharacterState,
    CharacterStatus,
    ClaimState,
    SiegeState,
    SiegeStatus,
    World,
)
from tests.rules.campaign import builders
from tests.rules.campaign.builders import army

ROBB, NED, JON = 1, 2, 3


def _world() -> World:
    """Stark's army 1 (commanded by Robb, with Ned riding along) besieges 0536 of Lannister;
    army 2 stands at home; Jon is at home."""
    return builders.world(
        army(1, 1, "0536", ArmyState.BESIEGING, path=("0537",), costs=(2,), infantry=300,
             commander_id=ROBB),
        army(2, 1, "1315", infantry=50),
        claims=[ClaimState(1, "Stark", "1315"), ClaimState(2, "Lannister", "0536")],
        characters=[CharacterState(ROBB, 1, "Robb", army_id=1),
                    CharacterState(NED, 1, "Ned", army_id=1),
                    CharacterState(JON, 1, "Jon")],
        sieges=[SiegeState(7, 1, 1, 2, "0536", started_tick=4, months_elapsed=3),
                SiegeState(8, 2, 1, 2, "0537", started_tick=4, status=SiegeStatus.LIFTED)])


@pytest.mark.parametrize("status", [CharacterStatus.DEAD, CharacterStatus.CAPTURED])
def test_a_dead_or_captured_commander_leaves_command(status: CharacterStatus) -> None:
    before = _world()
    after, ruled = rule_fate(before, ROBB, status)
    assert (ruled.before, ruled.left) == (CharacterStatus.ALIVE, 1)
    assert ruled.character == CharacterState(ROBB, 1, "Robb", army_id=None, status=status)
    assert after.characters[ROBB] == ruled.character
    assert after.armies[1].commander_id is None
    assert after.armies[2] is before.armies[2] and after.characters[NED] is before.characters[NED]
    assert before.armies[1].commander_id == ROBB  # the world before is untouched


def test_a_dead_rider_leaves_the_army_but_not_its_commander() -> None:
    after, ruled = rule_fate(_world(), NED, CharacterStatus.DEAD)
    assert ruled.left == 1 and after.characters[NED].army_id is None
    assert after.armies[1].commander_id == ROBB


@pytest.mark.parametrize("status", [CharacterStatus.WOUNDED, CharacterStatus.ALIVE])
def test_a_wounded_or_freed_character_stays_where_it_is(status: CharacterStatus) -> None:
    before = _world()
    after, ruled = rule_fate(before, ROBB, status)
    assert ruled.left is None
    assert (after.characters[ROBB].status, after.characters[ROBB].army_id) == (status, 1)
    assert after.armies is before.armies


def test_a_character_at_home_leaves_nothing() -> None:
    after, ruled = rule_fate(_world(), JON, CharacterStatus.DEAD)
    assert ruled.left is None and after.characters[JON].status is CharacterStatus.DEAD


def test_a_removed_besieger_is_gone_its_characters_free_and_its_siege_lifted() -> None:
    before = _world()
    after, removed = remove_army(before, 1)
    assert removed.army is before.armies[1]  # the troops that are gone
    gone = after.armies[1]
    assert (gone.state, gone.commander_id, gone.march.path, gone.march.costs) == (
        ArmyState.GONE, None, (), ())
    assert gone.infantry == 300 and gone.meta["fate"] == REMOVED_FATE
    assert after.claims is before.claims  # not sent home
    assert (after.characters[ROBB].army_id, after.characters[NED].army_id) == (None, None)
    assert after.characters[ROBB].status is CharacterStatus.ALIVE
    assert [(s.id, s.status) for s in removed.sieges] == [(7, SiegeStatus.LIFTED)]
    assert [(s.id, s.status, s.months_elapsed) for s in after.sieges] == [
        (7, SiegeStatus.LIFTED, 3), (8, SiegeStatus.LIFTED, 0)]


def test_removing_an_army_without_siege_or_characters_changes_only_it() -> None:
    before = _world()
    after, removed = remove_army(before, 2)
    assert removed.sieges == () and after.sieges is before.sieges
    assert after.characters is before.characters
    assert after.armies[2].state is ArmyState.GONE and after.armies[1] is before.armies[1]
