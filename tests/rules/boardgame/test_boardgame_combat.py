"""The combat rules of the board game's rulebook, sentence by sentence.

Each test is named after the step or rule it checks; its docstring paraphrases the sentence.
"""

from __future__ import annotations

import pytest

from rules.boardgame.combat import (
    Decision,
    MarchOrderFate,
    Outcome,
    RetreatStatus,
    determine_victor,
    legal_retreats,
    resolve_combat,
)
from rules.boardgame.model import (
    AreaKind,
    House,
    Order,
    OrderKind,
    RetreatArea,
    Role,
    Structure,
    Support,
    SupportTo,
    Units,
)
from rules.errors import InvalidInput
from tests.rules.boardgame.helpers import (
    ATTACKER,
    BARATHEON,
    DEFENDER,
    GREYJOY,
    LANNISTER,
    MARTELL,
    NOBODY,
    STARK,
    TYRELL,
    defense,
    fight,
    march,
    setup,
    side,
    support,
    u,
)

# --------------------------------------------------------------------------- overview


def test_combat_ensues_only_against_units_of_another_house() -> None:
    """Combat happens when units march into an area holding another House's units."""
    with pytest.raises(InvalidInput, match="fight itself"):
        fight(side(STARK, u(1)), side(STARK, u(1)))
    with pytest.raises(InvalidInput, match="enemy units"):
        fight(side(STARK, u(1)), side(LANNISTER, u()))
    with pytest.raises(InvalidInput, match="at least one unit"):
        fight(side(STARK, u()), side(LANNISTER, u(1)))


def test_victor_gathers_the_highest_combat_strength() -> None:
    """Combat compares total Combat Strength; the highest total wins."""
    result = fight(side(STARK, u(2)), side(LANNISTER, u(1)))
    assert (result.attacker.final, result.defender.final) == (2, 1)
    assert result.outcome is Outcome.ATTACKER_WINS and result.decided_by is Decision.STRENGTH
    result = fight(side(STARK, u(1)), side(LANNISTER, u(0, 1)))
    assert result.outcome is Outcome.DEFENDER_WINS


def test_defense_order_counts_for_the_defender_only() -> None:
    """A Defense order adds to the defender; the attacker resolves a March order instead."""
    result = fight(side(STARK, u(1)), side(LANNISTER, u(1), order=defense(2)))
    assert result.defender.strength.order == 2
    with pytest.raises(InvalidInput, match="March order"):
        fight(side(STARK, u(1), order=defense(1)), side(LANNISTER, u(1)))


def test_march_order_bonus_or_penalty_counts_for_the_attacker_only() -> None:
    """The March order's +1 or -1 changes the attacker's strength; a defender's own unresolved
    March order in the area adds nothing."""
    plus = fight(side(STARK, u(2), order=march(1)), side(LANNISTER, u(1), order=march(1)))
    assert plus.attacker.strength.order == 1 and plus.defender.strength.order == 0
    minus = fight(side(STARK, u(2), order=march(-1)), side(LANNISTER, u(1)),
                  fiefdoms=(LANNISTER, STARK))
    assert minus.attacker.strength.initial == 1


def test_garrison_counts_for_the_defender_only() -> None:
    """A Garrison token adds its value to the defender's strength."""
    result = fight(side(STARK, u(3)), side(LANNISTER, u(1)), garrison=2,
                   fiefdoms=(STARK, LANNISTER))
    assert result.defender.strength.garrison == 2 and result.attacker.strength.garrison == 0
    assert result.defender.final == 3
    with pytest.raises(InvalidInput, match="garrison"):
        fight(side(GREYJOY, u(ships=1)), side(STARK, u(ships=1)), area=AreaKind.SEA, garrison=1)


def test_attacker_is_the_player_resolving_the_march_order() -> None:
    """The marching player attacks; his order must be the March order (any other is refused)."""
    with pytest.raises(InvalidInput, match="March order"):
        fight(side(STARK, u(1), order=Order(OrderKind.RAID)), side(LANNISTER, u(1)))
    result = fight(side(STARK, u(1), order=march(0)), side(LANNISTER, u(1)),
                   fiefdoms=(STARK, LANNISTER))
    assert result.attacker.house is STARK and result.attacker.role is Role.ATTACKER


def test_supporting_units_are_neither_attacking_nor_defending() -> None:
    """Units giving support only support: they take no casualties and do not retreat, and
    Mace Tyrell's ability cannot reach them."""
    result = fight(
        side(TYRELL, u(0, 2), (1, 3, 0)), side(STARK, u(1), "Eddard Stark"),
        supports=(support(STARK, u(2), DEFENDER, label="Riverrun"),),
    )
    assert result.outcome is Outcome.DEFENDER_WINS
    mace = fight(
        side(TYRELL, u(0, 1), "Mace Tyrell"), side(STARK, u(0, 1)),
        supports=(support(STARK, u(3), DEFENDER),),
    )
    assert mace.defender.destroyed_by_card.total == 0
    assert mace.supports[0].strength == 3
    lost = fight(side(TYRELL, u(1), (4, 2, 0)), side(STARK, u(1)),
                 supports=(support(STARK, u(2), DEFENDER),))
    assert lost.outcome is Outcome.ATTACKER_WINS
    assert lost.defender.casualties == u(1) and lost.retreat.units.total == 0


# --------------------------------------------------------------------------- I. support


def test_call_for_support_comes_from_adjacent_support_orders() -> None:
    """Support is pleaded from the areas next to the embattled area that hold a Support order;
    an area that is not adjacent (such as a far-off march origin) cannot support."""
    result = fight(side(STARK, u(1)), side(LANNISTER, u(1)),
                   supports=(support(STARK, u(0, 1), ATTACKER),))
    assert result.attacker.strength.support == 2
    far = Support(STARK, u(0, 1), ATTACKER, adjacent=False)
    with pytest.raises(InvalidInput, match="neighbours"):
        fight(side(STARK, u(1)), side(LANNISTER, u(1)), supports=(far,))


def test_support_may_be_granted_to_either_side_or_refused() -> None:
    """The player controlling the Support order grants it to the attacker or the defender, or
    refuses to grant it."""
    for to, att, dfn in ((ATTACKER, 2, 0), (DEFENDER, 0, 2), (NOBODY, 0, 0)):
        result = fight(side(STARK, u(1)), side(LANNISTER, u(2)),
                       supports=(support(TYRELL, u(0, 1), to),))
        assert (result.attacker.strength.support, result.defender.strength.support) == (
            att, dfn)


def test_supporting_strength_is_the_combined_strength_of_the_area() -> None:
    """Supporting strength is the combined strength of all units in the supporting area."""
    result = fight(side(STARK, u(1)), side(LANNISTER, u(1)), structure=Structure.CASTLE,
                   supports=(support(STARK, u(2, 1, siege=1), ATTACKER),))
    assert result.supports[0].strength == 2 + 2 + 4


def test_support_may_be_given_to_a_combat_between_two_other_players() -> None:
    """A third house may support either side, whether or not its own units fight."""
    for to in (ATTACKER, DEFENDER):
        result = fight(side(STARK, u(2)), side(LANNISTER, u(2)),
                       supports=(support(MARTELL, u(1), to),), fiefdoms=(STARK, LANNISTER))
        assert result.outcome.winner.value == to.value


def test_supports_are_declared_in_turn_order() -> None:
    """Several Support orders declare in turn order (the Iron Throne track)."""
    result = fight(
        side(STARK, u(1)), side(LANNISTER, u(1)),
        supports=(support(TYRELL, u(1), ATTACKER, label="Highgarden"),
                  support(MARTELL, u(1), DEFENDER, label="Sunspear"),
                  support(BARATHEON, u(1), NOBODY, label="Kingswood")),
        iron_throne=(MARTELL, BARATHEON, TYRELL, STARK, LANNISTER),
        fiefdoms=(STARK, LANNISTER),
    )
    assert [s.label for s in result.supports] == ["Sunspear", "Kingswood", "Highgarden"]


def test_attacker_or_defender_may_support_himself() -> None:
    """A side with its own Support order next to the fight may support itself."""
    result = fight(side(STARK, u(1)), side(LANNISTER, u(1)),
                   supports=(support(LANNISTER, u(0, 1), DEFENDER),))
    assert result.defender.strength.support == 2 and result.outcome is Outcome.DEFENDER_WINS


def test_granted_support_order_stays_after_the_combat() -> None:
    """A Support order that granted support is not removed after the combat."""
    result = fight(side(STARK, u(3)), side(LANNISTER, u(1)),
                   supports=(support(STARK, u(1), ATTACKER, label="Winterfell"),))
    assert result.cleanup.support_orders_kept == ("Winterfell",)


def test_one_support_order_supports_any_number_of_combats() -> None:
    """The same Support order may support every adjacent combat of the round."""
    backing = support(STARK, u(0, 1), ATTACKER, label="The Twins")
    first = fight(side(STARK, u(1)), side(LANNISTER, u(1)), supports=(backing,))
    second = fight(side(STARK, u(1)), side(GREYJOY, u(1)), supports=(backing,))
    assert first.attacker.strength.support == second.attacker.strength.support == 2


def test_support_order_gives_no_defense_to_its_own_area() -> None:
    """A Support order in the embattled area does not help defend that area; its units simply
    defend."""
    result = fight(side(STARK, u(2)), side(LANNISTER, u(2),
                                            order=Order(OrderKind.SUPPORT, 1)),
                   fiefdoms=(STARK, LANNISTER))
    assert result.defender.strength.order == 0
    assert result.defender.strength.initial == 2


def test_attacking_or_defending_player_may_refuse_support() -> None:
    """A refused support adds nothing (recorded as backing nobody)."""
    result = fight(side(STARK, u(1)), side(LANNISTER, u(2)),
                   supports=(support(TYRELL, u(0, 2), NOBODY),))
    assert result.supports[0].strength == 0 and result.supports[0].note == "refused"


def test_ships_may_support_land_or_sea_combat() -> None:
    """Ships may support a combat in an adjacent sea area or land area."""
    land = fight(side(STARK, u(1)), side(LANNISTER, u(1)),
                 supports=(support(STARK, u(ships=2), ATTACKER),))
    sea = fight(side(STARK, u(ships=1)), side(LANNISTER, u(ships=1)), area=AreaKind.SEA,
                supports=(support(STARK, u(ships=2), ATTACKER),))
    assert land.attacker.strength.support == sea.attacker.strength.support == 2


def test_land_units_never_support_a_sea_combat() -> None:
    """Footmen, knights and siege engines can never support a combat in a sea area."""
    result = fight(side(GREYJOY, u(ships=1)), side(STARK, u(ships=1)), area=AreaKind.SEA,
                   supports=(support(STARK, u(1, 2), DEFENDER, bonus=1),),
                   fiefdoms=(GREYJOY, STARK))
    assert result.defender.strength.support == 0
    assert "never support at sea" in result.supports[0].note
    assert result.outcome is Outcome.ATTACKER_WINS


@pytest.mark.parametrize(
    ("to", "structure", "expected"),
    [
        (ATTACKER, Structure.CASTLE, 4),
        (ATTACKER, Structure.STRONGHOLD, 4),
        (ATTACKER, Structure.NONE, 0),
        (DEFENDER, Structure.CASTLE, 0),
        (DEFENDER, Structure.STRONGHOLD, 0),
        (DEFENDER, Structure.NONE, 0),
    ],
)
def test_supporting_siege_engines_count_only_for_an_attack_on_a_castle_or_stronghold(
    to: SupportTo, structure: Structure, expected: int,
) -> None:
    """Supporting siege engines add strength only when supporting the attacker against an area
    with a castle or stronghold."""
    result = fight(side(TYRELL, u(1)), side(MARTELL, u(1)), structure=structure,
                   supports=(support(BARATHEON, u(siege=1), to),),
                   fiefdoms=(TYRELL, MARTELL))
    assert result.supports[0].strength == expected


def test_support_gives_the_full_strength_of_its_area_or_none() -> None:
    """A supporting area contributes all of its units' strength, or nothing at all."""
    granted = fight(side(STARK, u(1)), side(LANNISTER, u(1)),
                    supports=(support(TYRELL, u(2, 1), ATTACKER),))
    refused = fight(side(STARK, u(1)), side(LANNISTER, u(1)),
                    supports=(support(TYRELL, u(2, 1), NOBODY),), fiefdoms=(STARK,
                                                                            LANNISTER))
    assert granted.supports[0].strength == 4 and refused.supports[0].strength == 0


def test_never_support_an_opponent_against_ones_own_units() -> None:
    """A player may never support his opponent against his own units."""
    with pytest.raises(InvalidInput, match="own attacking units"):
        fight(side(STARK, u(1)), side(LANNISTER, u(1)), supports=(support(STARK, u(1),
                                                                          DEFENDER),))
    with pytest.raises(InvalidInput, match="own defending units"):
        fight(side(STARK, u(1)), side(LANNISTER, u(1)), supports=(support(LANNISTER, u(1),
                                                                          ATTACKER),))


@pytest.mark.parametrize(("bonus", "expected"), [(0, 1), (1, 2)])
def test_special_support_order_adds_its_bonus(bonus: int, expected: int) -> None:
    """A starred Support order adds +1 on top of its area's units."""
    result = fight(side(STARK, u(1)), side(LANNISTER, u(1)),
                   supports=(support(STARK, u(1), ATTACKER, bonus=bonus),),
                   fiefdoms=(LANNISTER, STARK))
    assert result.attacker.strength.support == expected


# --------------------------------------------------------------------------- II. initial


def test_initial_combat_strength_includes_every_source() -> None:
    """Initial strength: the units, the Defense or March bonus, supporting units with their
    special bonuses, and the garrison."""
    result = fight(
        side(STARK, u(1, 1), order=march(1)),
        side(LANNISTER, u(2), order=defense(2)),
        garrison=2,
        supports=(support(STARK, u(1), ATTACKER, bonus=1),
                  support(LANNISTER, u(0, 1), DEFENDER)),
    )
    a, d = result.attacker.strength, result.defender.strength
    assert (a.units, a.order, a.support, a.garrison, a.initial) == (3, 1, 2, 0, 6)
    assert (d.units, d.order, d.support, d.garrison, d.initial) == (2, 2, 2, 2, 8)
    assert a.announced == a.initial and d.announced == d.initial


@pytest.mark.parametrize(
    ("units", "role", "structure", "expected"),
    [
        (u(1), Role.ATTACKER, Structure.NONE, 1),
        (u(1), Role.DEFENDER, Structure.NONE, 1),
        (u(0, 1), Role.ATTACKER, Structure.NONE, 2),
        (u(0, 1), Role.DEFENDER, Structure.CASTLE, 2),
        (u(siege=1), Role.ATTACKER, Structure.CASTLE, 4),
        (u(siege=1), Role.ATTACKER, Structure.STRONGHOLD, 4),
        (u(siege=1), Role.ATTACKER, Structure.NONE, 0),
        (u(siege=1), Role.DEFENDER, Structure.STRONGHOLD, 0),
        (u(2, 1, siege=1), Role.ATTACKER, Structure.CASTLE, 8),
    ],
)
def test_unit_strengths(units: Units, role: Role, structure: Structure, expected: int) -> None:
    """Footman 1, knight 2, ship 1, siege engine 4 only when attacking an area with a castle or
    stronghold (else 0)."""
    other = u(1)
    att, dfn = (units, other) if role is Role.ATTACKER else (other, units)
    result = fight(side(TYRELL, att), side(MARTELL, dfn),
                   structure=structure, fiefdoms=(TYRELL, MARTELL))
    assert result.side(role).strength.units == expected


def test_ship_strength_at_sea() -> None:
    """A ship is worth 1."""
    result = fight(side(GREYJOY, u(ships=3)), side(STARK, u(ships=1)), area=AreaKind.SEA)
    assert result.attacker.strength.units == 3


def test_routed_units_provide_no_strength() -> None:
    """Routed units give no combat strength."""
    result = fight(side(STARK, u(1)), side(LANNISTER, u(), routed=u(2, 1)))
    assert result.defender.strength.units == 0 and result.outcome is Outcome.ATTACKER_WINS


# --------------------------------------------------------------------------- III. cards


def test_playing_a_house_card_is_mandatory() -> None:
    """Attacker and defender must each play a House card."""
    from rules.boardgame.model import Combatant

    with pytest.raises(InvalidInput, match="mandatory"):
        fight(Combatant(STARK, u(1), None), side(LANNISTER, u(1)))
    with pytest.raises(InvalidInput, match="mandatory"):
        fight(side(STARK, u(1)), Combatant(LANNISTER, u(1), None))


def test_card_abilities_resolve_immediately_on_reveal() -> None:
    """Unless a card says otherwise, its text takes effect right after the reveal: Mace Tyrell's
    kill changes the opponent's strength before final strengths are compared."""
    result = fight(side(TYRELL, u(1), "Mace Tyrell"), side(STARK, u(2), 4),
                   fiefdoms=(STARK, TYRELL))
    assert result.defender.strength.announced == 2
    assert result.defender.strength.units == 1


def test_cancel_abilities_resolve_before_others() -> None:
    """'Cancel' texts resolve first: Tyrion sends Mace Tyrell back before Mace can kill."""
    result = fight(
        side(TYRELL, u(1), "Mace Tyrell", replacement="Margaery Tyrell"),
        side(LANNISTER, u(2), "Tyrion Lannister", cancel_opponent_card=True),
    )
    assert result.defender.destroyed_by_card.total == 0
    assert result.attacker.card is not None and result.attacker.card.name == "Margaery Tyrell"


def test_win_or_lose_abilities_resolve_after_the_outcome() -> None:
    """'If you win' texts apply once the victor is known: Tywin pays only on a win."""
    won = fight(side(LANNISTER, u(2), "Tywin Lannister"), side(STARK, u(1), 0))
    lost = fight(side(LANNISTER, u(1), "Tywin Lannister"), side(STARK, u(0, 3), 0))
    assert won.attacker.power_gained == 2 and lost.attacker.power_gained == 0


def test_each_house_begins_with_seven_unique_cards() -> None:
    """Every player starts with seven different House cards."""
    from rules.boardgame.cards import CARDS_BY_HOUSE

    for cards in CARDS_BY_HOUSE.values():
        assert len({c.name for c in cards}) == 7


def test_played_cards_go_to_the_discard_pile_and_cannot_be_played() -> None:
    """Both played cards are discarded after combat and stay unavailable while there."""
    result = fight(side(STARK, u(1), "Eddard Stark"), side(LANNISTER, u(1), "The Hound"))
    assert result.attacker.piles is not None and result.defender.piles is not None
    assert result.attacker.piles.discard == ("Eddard Stark",)
    assert "Eddard Stark" not in result.attacker.piles.hand
    assert result.defender.piles.discard == ("The Hound",)
    with pytest.raises(InvalidInput, match="discard pile"):
        fight(side(STARK, u(1), "Eddard Stark", discard=("Eddard Stark",)),
              side(LANNISTER, u(1)))


def test_seventh_card_returns_the_other_six_to_hand() -> None:
    """After playing his last (seventh) card, a player takes the six others back; the card just
    played stays in the discard pile."""
    six = ("Eddard Stark", "Robb Stark", "Greatjon Umber", "Roose Bolton", "The Blackfish",
           "Ser Rodrik Cassel")
    result = fight(side(STARK, u(2), "Catelyn Stark", discard=six), side(LANNISTER, u(1)))
    piles = result.attacker.piles
    assert piles is not None and piles.refreshed
    assert set(piles.hand) == set(six) and piles.discard == ("Catelyn Stark",)
    fewer = fight(side(STARK, u(2), "Catelyn Stark", discard=six[:5]), side(LANNISTER, u(1)))
    assert fewer.attacker.piles is not None and not fewer.attacker.piles.refreshed
    assert fewer.attacker.piles.hand == ("Ser Rodrik Cassel",)


def test_sword_icons_destroy_enemy_units() -> None:
    """The victor's swords each destroy one enemy unit in the embattled area."""
    result = fight(side(LANNISTER, u(2), "Ser Gregor Clegane"), side(STARK, u(2, 1), 0))
    assert result.casualties == 3 and result.defender.casualties.total == 3


def test_fortification_icons_ignore_victor_swords() -> None:
    """Each fortification on the defeated player's card cancels one of the victor's swords."""
    result = fight(side(LANNISTER, u(0, 2), "Ser Gregor Clegane"),
                   side(STARK, u(2, 1), "Ser Rodrik Cassel"))
    assert result.casualties == 1


# --------------------------------------------------------------------------- IV. blade


def test_valyrian_steel_blade_adds_one_to_the_holder() -> None:
    """A combatant holding the Blade may use it for +1, after which it is spent for the round."""
    result = fight(side(STARK, u(1)), side(LANNISTER, u(1)), blade_holder=STARK)
    assert result.attacker.strength.blade == 1 and result.blade_used
    assert result.outcome is Outcome.ATTACKER_WINS


def test_valyrian_steel_blade_cannot_be_used_twice_in_a_round() -> None:
    """Once flipped to its faded side, the Blade gives nothing more this round."""
    result = fight(side(STARK, u(1)), side(LANNISTER, u(2)), blade_holder=LANNISTER,
                   blade_available=False)
    assert result.defender.strength.blade == 0 and not result.blade_used


def test_valyrian_steel_blade_use_is_optional() -> None:
    """The holder has the option, not the duty, to use the Blade."""
    result = fight(side(STARK, u(1), use_blade=False), side(LANNISTER, u(2)),
                   blade_holder=STARK)
    assert result.attacker.strength.blade == 0 and not result.blade_used


def test_valyrian_steel_blade_needs_a_combatant_holder() -> None:
    """Only the attacker or defender can use the Blade; a supporter holding it cannot."""
    result = fight(side(STARK, u(1)), side(LANNISTER, u(2)), blade_holder=TYRELL,
                   supports=(support(TYRELL, u(1), ATTACKER),), fiefdoms=(STARK, LANNISTER))
    assert result.attacker.strength.blade == 0 and not result.blade_used


# --------------------------------------------------------------------------- V. final


def test_final_strength_combines_initial_card_and_blade() -> None:
    """Final strength = initial strength + House card strength and text + the Blade."""
    result = fight(side(STARK, u(1, 1), "Eddard Stark", order=march(1)),
                   side(BARATHEON, u(1), "Ser Davos Seaworth", discard=("Stannis Baratheon",)),
                   blade_holder=STARK)
    a, d = result.attacker.strength, result.defender.strength
    assert (a.initial, a.card, a.card_bonus, a.blade, a.final) == (4, 4, 0, 1, 9)
    assert (d.initial, d.card, d.card_bonus, d.blade, d.final) == (1, 2, 1, 0, 4)


def test_final_strength_is_never_below_zero() -> None:
    """However large the penalty, final combat strength stops at 0."""
    result = fight(side(TYRELL, u(siege=1), 0, order=march(-1)), side(MARTELL, u(), 0,
                                                                      routed=u(1)),
                   fiefdoms=(TYRELL, MARTELL))
    assert result.attacker.strength.total == -1 and result.attacker.final == 0
    assert result.outcome is Outcome.ATTACKER_WINS and result.decided_by is Decision.FIEFDOMS


def test_card_text_can_recalculate_initial_strength() -> None:
    """A card that destroys an opposing footman lowers that side's initial strength by 1."""
    result = fight(side(TYRELL, u(1), "Mace Tyrell"), side(STARK, u(3, 1), 0))
    assert result.defender.strength.announced == 5 and result.defender.strength.initial == 4


# --------------------------------------------------------------------------- VI. resolution


@pytest.mark.parametrize(
    ("fiefdoms", "winner"),
    [((STARK, LANNISTER), Outcome.ATTACKER_WINS),
     ((LANNISTER, STARK), Outcome.DEFENDER_WINS),
     ((TYRELL, LANNISTER, MARTELL, STARK), Outcome.DEFENDER_WINS)],
)
def test_tie_goes_to_the_higher_house_on_the_fiefdoms_track(
    fiefdoms: tuple[House, ...], winner: Outcome,
) -> None:
    """On tied final strength the player closer to position 1 on the Fiefdoms track wins."""
    result = fight(side(STARK, u(1)), side(LANNISTER, u(1)),
                   fiefdoms=fiefdoms)
    assert result.outcome is winner and result.decided_by is Decision.FIEFDOMS


def test_tie_without_the_fiefdoms_track_asks_for_it() -> None:
    """A tie cannot be decided without knowing the Fiefdoms track."""
    with pytest.raises(InvalidInput, match="Fiefdoms") as info:
        fight(side(STARK, u(1)), side(LANNISTER, u(1)), fiefdoms=(STARK,))
    assert info.value.field == "fiefdoms"


@pytest.mark.parametrize(
    ("a", "d", "a_higher", "expected"),
    [(3, 2, False, Outcome.ATTACKER_WINS), (2, 3, True, Outcome.DEFENDER_WINS),
     (2, 2, True, Outcome.ATTACKER_WINS), (2, 2, False, Outcome.DEFENDER_WINS),
     (0, 0, True, Outcome.ATTACKER_WINS)],
)
def test_determine_victor(a: int, d: int, a_higher: bool, expected: Outcome) -> None:
    """Highest final strength wins; a tie goes to the side higher on the Fiefdoms track."""
    assert determine_victor(a, d, a_higher) is expected


def test_only_the_defeated_player_takes_casualties() -> None:
    """The victor never loses units to the loser's sword icons."""
    result = fight(side(LANNISTER, u(0, 3), 0), side(STARK, u(1), "Eddard Stark"))
    assert result.outcome is Outcome.ATTACKER_WINS
    assert result.attacker.casualties.total == 0 and result.casualties == 0


@pytest.mark.parametrize(
    ("swords", "forts", "expected"),
    [(0, 0, 0), (1, 0, 1), (2, 0, 2), (3, 0, 3), (2, 1, 1), (2, 2, 0), (1, 2, 0), (3, 1, 2),
     (0, 2, 0)],
)
def test_casualties_are_victor_swords_minus_loser_fortifications(
    swords: int, forts: int, expected: int,
) -> None:
    """The loser destroys one unit per victor's sword minus his own fortifications; nothing if
    that is zero or less."""
    result = fight(side(STARK, u(0, 3), (4, swords, 0)), side(LANNISTER, u(4), (0, 0, forts)))
    assert result.casualties == expected and result.defender.casualties.total == expected


def test_defeated_player_chooses_his_casualties() -> None:
    """The loser decides which of his units are removed."""
    chosen = fight(side(STARK, u(0, 3), (4, 1, 0)), side(LANNISTER, u(1, 1), 0),
                   casualties=u(0, 1))
    assert chosen.defender.casualties == u(0, 1)
    default = fight(side(STARK, u(0, 3), (4, 1, 0)), side(LANNISTER, u(1, 1), 0))
    assert default.defender.casualties == u(1)
    with pytest.raises(InvalidInput, match="exactly 1"):
        fight(side(STARK, u(0, 3), (4, 1, 0)), side(LANNISTER, u(1, 1), 0), casualties=u(1, 1))
    with pytest.raises(InvalidInput, match="not among"):
        fight(side(STARK, u(0, 3), (4, 1, 0)), side(LANNISTER, u(2), 0), casualties=u(0, 1))


def test_supporting_units_are_never_casualties() -> None:
    """Casualties come only from the embattled area, never from supporting units."""
    result = fight(side(STARK, u(0, 4), (4, 3, 0)), side(LANNISTER, u(1), 0),
                   supports=(support(LANNISTER, u(3), DEFENDER),))
    assert result.casualties == 3 and result.casualties_taken == 1
    assert result.defender.casualties == u(1)


def test_each_casualty_destroys_one_unit_whatever_its_strength() -> None:
    """Removing a knight as a casualty counts as one casualty, like a footman."""
    result = fight(side(STARK, u(0, 3), (4, 2, 0)), side(LANNISTER, u(1, 2), 0),
                   casualties=u(0, 2))
    assert result.defender.casualties == u(0, 2) and result.casualties_taken == 2


def test_losing_army_retreats_but_supporting_units_stay() -> None:
    """After casualties the loser's army leaves the area; supporting units do not retreat."""
    result = fight(side(STARK, u(0, 3)), side(LANNISTER, u(2)),
                   supports=(support(LANNISTER, u(1), DEFENDER),),
                   retreat_areas=(RetreatArea("Lannisport"),))
    assert result.retreat.units == u(2)
    assert result.retreat.area == "Lannisport"


def test_losing_attacker_retreats_to_the_area_it_marched_from() -> None:
    """A defeated attacker's survivors go back to their starting area."""
    result = fight(side(STARK, u(2, 1)), side(LANNISTER, u(0, 3), (0, 1, 0)),
                   retreat_areas=(RetreatArea("Lannisport"),))
    assert result.retreat.role is Role.ATTACKER
    assert result.retreat.status is RetreatStatus.TO_ORIGIN
    assert result.attacker.survivors == u(1, 1) and result.attacker.survivors_routed


def test_defender_retreats_to_an_empty_or_friendly_area() -> None:
    """A defeated defender retreats to an adjacent area free of enemy units and Power tokens,
    or to one with friendly units or tokens."""
    areas = (RetreatArea("Stoney Sept", enemy=True), RetreatArea("Riverrun",
                                                                  friendly_units=1),
             RetreatArea("Harrenhal"))
    result = fight(side(STARK, u(0, 3)), side(LANNISTER, u(2)), retreat_areas=areas)
    assert [o.name for o in result.retreat.options] == ["Riverrun", "Harrenhal"]
    assert result.retreat.status is RetreatStatus.AWAITING_CHOICE
    with pytest.raises(InvalidInput, match="enemy"):
        fight(side(STARK, u(0, 3)), side(LANNISTER, u(2)), retreat_areas=areas,
              retreat_to="Stoney Sept")


def test_retreating_units_all_go_to_the_same_area() -> None:
    """Every retreating unit moves to one and the same area."""
    result = fight(side(STARK, u(0, 3)), side(LANNISTER, u(1, 1)),
                   retreat_areas=(RetreatArea("Riverrun"), RetreatArea("Harrenhal")),
                   retreat_to="harrenhal")
    assert result.retreat.area == "Harrenhal" and result.defender.survivors == u(1, 1)


def test_never_retreat_to_the_area_the_attackers_came_from() -> None:
    """The defender may never retreat into the attackers' starting area, even if empty."""
    areas = (RetreatArea("The Twins", origin=True), RetreatArea("Seagard"))
    result = fight(side(STARK, u(0, 3)), side(LANNISTER, u(2)), retreat_areas=areas)
    assert result.retreat.area == "Seagard"
    only_origin = fight(side(STARK, u(0, 3)), side(LANNISTER, u(2)),
                        retreat_areas=areas[:1])
    assert only_origin.retreat.status is RetreatStatus.NO_LEGAL_AREA


def test_retreat_may_not_exceed_the_supply_limit() -> None:
    """A defender may not retreat into friendly units if that breaks his supply limit."""
    areas = (RetreatArea("Riverrun", friendly_units=2, max_army=3), RetreatArea("Seagard"))
    result = fight(side(STARK, u(0, 3)), side(LANNISTER, u(2)), retreat_areas=areas)
    assert [o.name for o in result.retreat.options] == ["Seagard"]
    assert legal_retreats(areas, u(1)) == legal_retreats(areas, u(1))
    assert {o.name for o in legal_retreats(areas, u(1))} == {"Riverrun", "Seagard"}


def test_only_retreat_over_the_supply_limit_destroys_the_excess() -> None:
    """If the only option breaks the supply limit, he first destroys as many retreating units as
    needed, then retreats the rest."""
    areas = (RetreatArea("Riverrun", friendly_units=2, max_army=3), RetreatArea("Seagard",
                                                                              enemy=True))
    result = fight(side(STARK, u(0, 4)), side(LANNISTER, u(2, 1)), retreat_areas=areas)
    assert result.retreat.area == "Riverrun"
    assert result.retreat.supply_losses == u(2)
    assert result.defender.survivors == u(0, 1)


def test_no_legal_area_destroys_all_retreating_units() -> None:
    """With no legal area to retreat to, every retreating unit is destroyed."""
    result = fight(side(STARK, u(0, 3)), side(LANNISTER, u(2)),
                   retreat_areas=(RetreatArea("Seagard", enemy=True),))
    assert result.retreat.status is RetreatStatus.NO_LEGAL_AREA
    assert result.defender.destroyed_retreating == u(2)
    assert result.defender.survivors.total == 0
    nowhere = fight(side(STARK, u(0, 3)), side(LANNISTER, u(2)), retreat_areas=())
    assert nowhere.retreat.status is RetreatStatus.NO_LEGAL_AREA


def test_land_units_never_retreat_to_sea_or_port() -> None:
    """Footmen and knights may not retreat to a sea area or a port."""
    areas = (RetreatArea("Bay of Ice", AreaKind.SEA), RetreatArea("Port of White Harbor",
                                                                  AreaKind.PORT))
    result = fight(side(STARK, u(0, 3)), side(GREYJOY, u(1, 1)), retreat_areas=areas)
    assert result.retreat.status is RetreatStatus.NO_LEGAL_AREA


def test_ships_never_retreat_to_land() -> None:
    """Ships may never retreat to a land area (a sea area or port is fine)."""
    areas = (RetreatArea("Pyke", AreaKind.LAND), RetreatArea("Sunset Sea", AreaKind.SEA),
             RetreatArea("Port of Pyke", AreaKind.PORT))
    result = fight(side(STARK, u(ships=3)), side(GREYJOY, u(ships=1)), area=AreaKind.SEA,
                   retreat_areas=areas)
    assert [o.name for o in result.retreat.options] == ["Sunset Sea", "Port of Pyke"]


def test_retreated_units_are_routed_but_count_for_supply() -> None:
    """Retreated units are laid down as routed: no strength, but still counted for supply."""
    result = fight(side(STARK, u(0, 3)), side(LANNISTER, u(2)),
                   retreat_areas=(RetreatArea("Riverrun", friendly_units=1, max_army=3),))
    assert result.defender.survivors_routed and result.defender.survivors == u(2)
    again = fight(side(TYRELL, u(1)), side(LANNISTER, u(), routed=result.defender.survivors))
    assert again.defender.strength.units == 0


def test_routed_unit_forced_to_retreat_is_destroyed() -> None:
    """A routed unit that must retreat again is destroyed instead."""
    result = fight(side(STARK, u(0, 3)), side(LANNISTER, u(1), routed=u(1, 1)),
                   retreat_areas=(RetreatArea("Riverrun"),))
    assert result.defender.routed_destroyed == u(1, 1)
    assert result.defender.survivors == u(1)


def test_routed_units_are_never_casualties() -> None:
    """Routed units may never be chosen as casualties."""
    result = fight(side(STARK, u(0, 3), (4, 3, 0)), side(LANNISTER, u(1), routed=u(2)))
    assert result.casualties == 3 and result.casualties_taken == 1
    with pytest.raises(InvalidInput, match="not among"):
        fight(side(STARK, u(0, 3), (4, 1, 0)), side(LANNISTER, u(0, 1), routed=u(1)),
              casualties=u(1))


def test_siege_engines_are_never_casualties() -> None:
    """Siege engines cannot be chosen as casualties (the issue's list, FFG's ruling): the
    casualties come from the other units and the siege engines are lost on the retreat as well,
    so a siege engine cannot shield a footman."""
    result = fight(side(STARK, u(0, 3), (4, 1, 0)), side(LANNISTER, u(1, siege=1)),
                   retreat_areas=(RetreatArea("Lannisport"),))
    assert result.casualties == 1 and result.casualties_taken == 1
    assert result.defender.casualties == u(1)
    assert result.defender.destroyed_retreating == u(siege=1)
    assert result.defender.survivors == u()
    only_siege = fight(side(STARK, u(0, 3), (4, 2, 0)), side(LANNISTER, u(siege=2)),
                       retreat_areas=(RetreatArea("Lannisport"),))
    assert only_siege.casualties == 2 and only_siege.casualties_taken == 0
    assert only_siege.defender.destroyed_retreating == u(siege=2)
    with pytest.raises(InvalidInput, match="siege engines never count"):
        fight(side(STARK, u(0, 3), (4, 1, 0)), side(LANNISTER, u(1, siege=1)),
              casualties=u(siege=1))


def test_routed_units_may_not_move() -> None:
    """Routed units cannot move, so they never attack."""
    with pytest.raises(InvalidInput, match="routed"):
        fight(side(STARK, u(1), routed=u(1)), side(LANNISTER, u(1)))


def test_retreat_may_use_ship_transport() -> None:
    """A retreat may use ship transport to reach a land area (for land units, not ships)."""
    areas = (RetreatArea("Dragonstone", by_transport=True),)
    result = fight(side(STARK, u(0, 3)), side(BARATHEON, u(1)), retreat_areas=areas)
    assert result.retreat.area == "Dragonstone"
    ships = fight(side(GREYJOY, u(ships=3)), side(BARATHEON, u(ships=1)), area=AreaKind.SEA,
                  retreat_areas=(RetreatArea("Far Sea", AreaKind.SEA, by_transport=True),))
    assert ships.retreat.status is RetreatStatus.NO_LEGAL_AREA


def test_siege_engines_cannot_retreat_and_are_destroyed() -> None:
    """A siege engine forced to retreat is destroyed instead, for either side."""
    defender = fight(side(STARK, u(0, 3)), side(LANNISTER, u(1, siege=1)),
                     retreat_areas=(RetreatArea("Lannisport"),))
    assert defender.defender.destroyed_retreating == u(siege=1)
    assert defender.defender.survivors == u(1)
    attacker = fight(side(TYRELL, u(1, siege=1)), side(MARTELL, u(0, 4)))
    assert attacker.attacker.destroyed_retreating == u(siege=1)
    assert attacker.attacker.survivors == u(1)


def test_cleanup_removes_the_attackers_march_order() -> None:
    """After combat the attacker's March order leaves the board, win or lose."""
    for attacker_units in (u(3), u(1)):
        result = fight(side(STARK, attacker_units), side(LANNISTER, u(0, 1)),
                       fiefdoms=(STARK, LANNISTER))
        assert result.cleanup.march_order is MarchOrderFate.REMOVED


def test_cleanup_after_an_attacker_win_removes_defender_order_and_power_token() -> None:
    """An attacker who wins removes the defender's Order and Power token from the area."""
    result = fight(side(STARK, u(3)), side(LANNISTER, u(1), order=defense(1)),
                   defender_power_token=True)
    assert result.cleanup.defender_order_removed
    assert result.cleanup.defender_power_token_removed
    assert result.cleanup.attacker_moves_in


def test_cleanup_after_a_defender_win_leaves_defender_tokens() -> None:
    """When the defender wins, his Power and Order tokens in the area stay."""
    result = fight(side(STARK, u(1)), side(LANNISTER, u(2), order=defense(1)),
                   defender_power_token=True)
    assert not result.cleanup.defender_order_removed
    assert not result.cleanup.defender_power_token_removed
    assert not result.cleanup.attacker_moves_in


def test_cleanup_discards_both_played_cards() -> None:
    """Both House cards go to their players' discard piles."""
    result = fight(side(GREYJOY, u(1), "Euron Crow's Eye"), side(MARTELL, u(1), "Darkstar"))
    assert result.attacker.piles is not None and result.defender.piles is not None
    assert result.attacker.piles.discard == ("Euron Crow's Eye",)
    assert result.defender.piles.discard == ("Darkstar",)


# --------------------------------------------------------------------------- validation


def test_sea_combat_is_fought_by_ships_only() -> None:
    """Only ships fight at sea; ships never fight on land; ports are not embattled."""
    with pytest.raises(InvalidInput, match="only ships"):
        fight(side(GREYJOY, u(1)), side(STARK, u(ships=1)), area=AreaKind.SEA)
    with pytest.raises(InvalidInput, match="ships cannot fight"):
        fight(side(GREYJOY, u(ships=1)), side(STARK, u(1)))
    with pytest.raises(InvalidInput, match="land or sea"):
        fight(side(GREYJOY, u(ships=1)), side(STARK, u(ships=1)), area=AreaKind.PORT)
    with pytest.raises(InvalidInput, match="castle"):
        fight(side(GREYJOY, u(ships=1)), side(STARK, u(ships=1)), area=AreaKind.SEA,
              structure=Structure.CASTLE)


def test_cards_must_belong_to_the_house() -> None:
    """A house plays only its own cards."""
    with pytest.raises(InvalidInput, match="Lannister card") as info:
        fight(side(STARK, u(1), "Tywin Lannister"), side(LANNISTER, u(1)))
    assert info.value.field == "attacker.card"


def test_setup_is_checked_before_resolving() -> None:
    """Malformed values are refused with the field named."""
    with pytest.raises(InvalidInput) as info:
        resolve_combat(setup(side(STARK, u(1), discard=("Robb Stark", "Robb Stark")),
                             side(LANNISTER, u(1))))
    assert info.value.field == "attacker.discard"
    with pytest.raises(InvalidInput, match="retreat"):
        fight(side(STARK, u(3)), side(LANNISTER, u(1)), retreat_areas=(RetreatArea("A"),),
              retreat_to="B")
