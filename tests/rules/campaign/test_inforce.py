"""Which modifiers are in force where (rules.campaign.inforce): for an army, a claim, a
holdfast's defenders and an observer, over the rules' values alone: no database."""

from __future__ import annotations

from typing import Any

from rules.campaign.catalogue import Catalogue, parse_catalogue
from rules.campaign.config import RulesConfig
from rules.campaign.inforce import ModifiersInForce
from rules.campaign.world import (
    Army,
    ArmyState,
    CharacterState,
    CharacterStatus,
    ClaimState,
    HolderState,
)
from tests.rules.campaign import builders
from tests.rules.campaign.builders import T, army

RULES = RulesConfig()
# One row of ten field tiles, holdfasts at both ends, 0500 a gold mine, 0300 a resource tile
# whose benefit the catalogue does not know.
MAP = builders.row_map({5: "gold_mine", 3: "unknown"})

CATALOGUE = parse_catalogue({
    "skills": {
        "Blackfish": {"effects": [{"kind": "strength", "amount": "1.2"}]},
        "Scout": {"effects": [{"kind": "detection", "amount": 2}]},
        "Steward": {"effects": [{"kind": "gold_income", "amount": 25}]},
    },
    "improvements": {
        "Watchtowers": {"cost": 120, "months": 1,
                        "effects": [{"kind": "detection", "amount": 2}]},
    },
    "equipment": {
        "Trebuchets": {"cost": 150,
                       "effects": [{"kind": "siege_months", "amount": -1, "role": "attack"}]},
    },
    "resources": {
        "gold_mine": {"label": "gold mine", "effects": [{"kind": "gold_income", "amount": 50}]},
    },
})

WATCHTOWERS = {"name": "Watchtowers", "holdfast": T[0], "cost": "120", "ordered_tick": 1,
               "ready_month": 1, "done": True}
STARK = ClaimState(1, "House Stark", T[0], improvements=(WATCHTOWERS,))
LANNISTER = ClaimState(2, "House Lannister", T[9])


def character(id: int, claim: int, skills: tuple[str, ...], army_id: int | None = None,
              status: CharacterStatus = CharacterStatus.ALIVE) -> CharacterState:
    return CharacterState(id, claim, f"Character {id}", skills, army_id, status)


def book(*armies: Army, characters: tuple[CharacterState, ...] = (),
         holders: tuple[HolderState, ...] = (), wars: frozenset[tuple[int, int]] = frozenset(),
         catalogue: Catalogue = CATALOGUE) -> ModifiersInForce:
    return ModifiersInForce(catalogue, MAP, RULES, armies=armies,
                            claims={1: STARK, 2: LANNISTER},
                            characters={c.id: c for c in characters},
                            holders={h.tile: h for h in holders}, wars=wars)


def names(modifiers: tuple[Any, ...]) -> list[str]:
    return [m.name for m in modifiers]


def test_an_army_has_the_skills_of_the_free_characters_with_it() -> None:
    """An army's modifiers are the skills of the characters with it; a captive or dead
    character lends none, nor one with another army or at home."""
    a = army(1, 1, T[2])
    b = book(a, army(2, 1, T[2]), characters=(
        character(1, 1, ("Blackfish",), army_id=1),
        character(2, 1, ("Scout",), army_id=1, status=CharacterStatus.WOUNDED),
        character(3, 1, ("Steward",), army_id=1, status=CharacterStatus.CAPTURED),
        character(4, 1, ("Steward",), army_id=1, status=CharacterStatus.DEAD),
        character(5, 1, ("Steward",), army_id=2),
        character(6, 1, ("Steward",))))
    assert names(b.army(a)) == ["Blackfish", "Scout"]
    assert names(b.skills_with(a)) == ["Blackfish", "Scout"]
    # the characters the caller says are with it now count instead
    assert names(b.army(a, characters=(character(7, 1, ("Steward",), army_id=1),))) \
        == ["Steward"]


def test_siege_equipment_counts_only_when_asked_for() -> None:
    """Siege equipment counts in assaults and sieges only (after the skills)."""
    a = army(1, 1, T[2], equipment=("Trebuchets", "Battering ram"))
    b = book(a, characters=(character(1, 1, ("Blackfish",), army_id=1),))
    assert names(b.army(a)) == ["Blackfish"]
    assert names(b.army(a, equipment=True)) == ["Blackfish", "Trebuchets"]


def test_a_resource_benefit_counts_only_for_the_holders_standing_army() -> None:
    """A resource tile's benefit counts for a standing army on it whose claim holds the
    benefit; not for a marching army there, nor for another claim's army."""
    mine = army(1, 1, T[5])
    marching = army(2, 1, T[5], ArmyState.MARCHING)
    theirs = army(3, 2, T[5], infantry=50)
    b = book(mine, marching, theirs, holders=(HolderState(T[5], 1),))
    assert b.resource_holder(T[5]) == 1
    assert names(b.army(mine)) == ["gold_mine"]
    assert names(b.army(marching)) == []
    assert names(b.army(theirs)) == []
    assert b.held_resource_tiles(1) == (T[5],) and b.held_resource_tiles(2) == ()


def test_the_stronger_occupant_takes_the_benefit_unless_at_war_with_the_holder() -> None:
    """The strongest claim on a resource tile receives its benefit; a hostile newcomer does
    not take it from the holder by arriving."""
    mine, theirs = army(1, 1, T[5]), army(2, 2, T[5], infantry=500)
    at_peace = book(mine, theirs, holders=(HolderState(T[5], 1),))
    assert at_peace.resource_holder(T[5]) == 2
    assert names(at_peace.army(theirs)) == ["gold_mine"] and at_peace.army(mine) == ()
    at_war = book(mine, theirs, holders=(HolderState(T[5], 1),), wars=frozenset({(1, 2)}))
    assert at_war.resource_holder(T[5]) == 1
    assert names(at_war.army(mine)) == ["gold_mine"] and at_war.army(theirs) == ()


def test_a_benefit_the_catalogue_does_not_know_counts_for_nothing() -> None:
    a = army(1, 1, T[3])
    b = book(a)
    assert b.held_resource_tiles(1) == (T[3],)
    assert b.army(a) == () and b.claim(STARK) == (*b.holdfast(STARK),)


def test_a_claims_modifiers_are_improvements_held_benefits_and_all_its_skills() -> None:
    """A claim's modifiers: its finished improvements, the benefits of the resource tiles it
    holds, the skills of all its free characters (with an army or at home)."""
    b = book(army(1, 1, T[5]), characters=(
        character(1, 1, ("Steward",)), character(2, 1, ("Blackfish",), army_id=1),
        character(3, 2, ("Scout",)), character(4, 1, ("Scout",),
                                               status=CharacterStatus.CAPTURED)))
    assert names(b.claim(STARK)) == ["Watchtowers", "gold_mine", "Steward", "Blackfish"]
    assert names(b.claim_besides_improvements(STARK)) == ["gold_mine", "Steward", "Blackfish"]
    assert names(b.claim(LANNISTER)) == ["Scout"]


def test_a_holdfasts_defenders_have_its_improvements_and_the_skills_at_home() -> None:
    """A holdfast's defenders: the claim's finished improvements and the skills of its
    characters at home; a character with an army lends nothing to the walls."""
    b = book(army(1, 1, T[2]), characters=(
        character(1, 1, ("Scout",)), character(2, 1, ("Blackfish",), army_id=1)))
    assert names(b.holdfast(STARK)) == ["Watchtowers", "Scout"]
    assert names(b.holdfast(STARK, characters=())) == ["Watchtowers"]


def test_an_observer_on_its_holdfast_is_the_holdfasts_defenders() -> None:
    """Who watches from the claim's own holdfast: its defenders (an army standing there adds
    nothing)."""
    b = book(army(1, 1, T[0]), characters=(
        character(1, 1, ("Scout",)), character(2, 1, ("Blackfish",), army_id=1)))
    assert b.observer(1, T[0]) == b.holdfast(STARK)
    assert names(b.observer(1, T[0])) == ["Watchtowers", "Scout"]


def test_an_observer_elsewhere_is_the_claims_standing_armies_there() -> None:
    """Who watches from another tile: the claim's standing armies on it, each with its own
    modifiers; a marching army there and another claim's army do not watch."""
    b = book(army(1, 1, T[5]), army(2, 1, T[5], ArmyState.MARCHING), army(3, 2, T[5]),
             army(4, 1, T[5]), holders=(HolderState(T[5], 1),), characters=(
                 character(1, 1, ("Scout",), army_id=1),
                 character(2, 1, ("Blackfish",), army_id=2),
                 character(3, 2, ("Steward",), army_id=3),
                 character(4, 1, ("Blackfish",), army_id=4)))
    assert names(b.observer(1, T[5])) == ["Scout", "gold_mine", "Blackfish", "gold_mine"]
    assert b.observer(1, T[6]) == ()
    assert names(b.observer(2, T[5])) == ["Steward"]


def test_the_values_are_read_as_they_are_when_asked() -> None:
    """The owner may replace the characters and update the armies and holders between
    questions (a tick does as its phases change the world)."""
    armies = {1: army(1, 1, T[4])}
    b = ModifiersInForce(CATALOGUE, MAP, RULES, armies=armies.values(),
                         characters={1: character(1, 1, ("Scout",), army_id=1)})
    assert names(b.army(armies[1])) == ["Scout"]
    b.characters = {1: character(1, 1, ("Scout",), army_id=1, status=CharacterStatus.DEAD)}
    assert b.army(armies[1]) == ()
    armies[1] = army(1, 1, T[5])
    assert b.resource_holder(T[5]) == 1 and names(b.army(armies[1])) == ["gold_mine"]
    armies[2] = army(2, 2, T[5], infantry=500)
    b.holders[T[5]] = HolderState(T[5], 1, ceded_to=None)
    assert b.resource_holder(T[5]) == 2


def test_an_empty_catalogue_puts_nothing_in_force() -> None:
    a = army(1, 1, T[5], equipment=("Trebuchets",))
    b = book(a, characters=(character(1, 1, ("Scout",), army_id=1),
                            character(2, 1, ("Scout",))),
             holders=(HolderState(T[5], 1),), catalogue=Catalogue())
    assert b.army(a, equipment=True) == () and b.skills_with(a) == ()
    assert b.claim(STARK) == () and b.claim_besides_improvements(STARK) == ()
    assert b.holdfast(STARK) == () and b.observer(1, T[0]) == () and b.observer(1, T[5]) == ()
    assert b.resource_holder(T[5]) == 1  # who holds a tile is still known
