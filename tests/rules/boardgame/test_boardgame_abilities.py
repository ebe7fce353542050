"""House card abilities that change strength, icons, casualties, retreats or cards."""

from __future__ import annotations

import pytest

from rules.boardgame.combat import MarchOrderFate, Outcome, RetreatStatus
from rules.boardgame.model import (
    AreaKind,
    House,
    RetreatArea,
    Role,
    Structure,
    Track,
    Upgrade,
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
    side,
    support,
    u,
)

STARK_SIX = ("Eddard Stark", "Robb Stark", "Greatjon Umber", "Roose Bolton", "The Blackfish",
             "Ser Rodrik Cassel")

# --------------------------------------------------------------------------- Stark


def test_robb_stark_chooses_the_retreat_with_fewest_losses() -> None:
    """Robb Stark: the winner picks the loser's retreat area, among those costing fewest units."""
    areas = (RetreatArea("Lannisport", friendly_units=2, max_army=3),
             RetreatArea("Stoney Sept", friendly_units=3, max_army=3))
    result = fight(side(STARK, u(0, 3), "Robb Stark"), side(LANNISTER, u(2)),
                   retreat_areas=areas)
    assert result.retreat.chosen_by is Role.ATTACKER
    assert result.retreat.area == "Lannisport" and result.retreat.supply_losses == u(1)
    with pytest.raises(InvalidInput, match="Robb"):
        fight(side(STARK, u(0, 3), "Robb Stark"), side(LANNISTER, u(2)), retreat_areas=areas,
              retreat_to="Stoney Sept")
    free = (RetreatArea("Lannisport"), RetreatArea("Stoney Sept"))
    pending = fight(side(STARK, u(0, 3), "Robb Stark"), side(LANNISTER, u(2)),
                    retreat_areas=free)
    assert pending.retreat.status is RetreatStatus.AWAITING_CHOICE
    assert pending.retreat.chosen_by is Role.ATTACKER


def test_roose_bolton_returns_the_discard_pile_on_a_loss() -> None:
    """Roose Bolton: losing returns the whole discard pile, Roose included, to hand."""
    lost = fight(side(STARK, u(1), "Roose Bolton", discard=("Eddard Stark", "Robb Stark")),
                 side(LANNISTER, u(0, 3)))
    assert lost.attacker.piles is not None
    assert len(lost.attacker.piles.hand) == 7 and lost.attacker.piles.discard == ()
    won = fight(side(STARK, u(0, 3), "Roose Bolton", discard=("Eddard Stark",)),
                side(LANNISTER, u(1)))
    assert won.attacker.piles is not None
    assert won.attacker.piles.discard == ("Eddard Stark", "Roose Bolton")


def test_the_blackfish_prevents_casualties_from_icons_and_cards() -> None:
    """The Blackfish: Stark takes no casualties from sword icons or card abilities."""
    swords = fight(side(LANNISTER, u(0, 3), "Ser Gregor Clegane"),
                   side(STARK, u(2), "The Blackfish"),
                   retreat_areas=(RetreatArea("Winterfell"),))
    assert swords.casualties == 0 and swords.defender.casualties.total == 0
    assert swords.defender.survivors == u(2)
    mace = fight(side(TYRELL, u(0, 2), "Mace Tyrell"), side(STARK, u(2), "The Blackfish"))
    assert mace.defender.destroyed_by_card.total == 0
    assert mace.defender.strength.units == 2


def test_catelyn_stark_doubles_the_defense_order() -> None:
    """Catelyn Stark: a Defense order in the embattled area counts double."""
    for bonus in (1, 2):
        result = fight(side(LANNISTER, u(3)), side(STARK, u(1), "Catelyn Stark",
                                                   order=defense(bonus)),
                       fiefdoms=(STARK, LANNISTER))
        assert result.defender.strength.order == 2 * bonus
        assert result.defender.strength.announced == 1 + bonus
    attacking = fight(side(STARK, u(1), "Catelyn Stark"), side(LANNISTER, u(2)))
    assert attacking.attacker.strength.order == 0


# --------------------------------------------------------------------------- Lannister


def test_tywin_lannister_gains_two_power_on_a_win() -> None:
    """Tywin Lannister: winning gains two Power tokens."""
    result = fight(side(STARK, u(1)), side(LANNISTER, u(1), "Tywin Lannister"))
    assert result.outcome is Outcome.DEFENDER_WINS and result.defender.power_gained == 2


def test_tyrion_lannister_sends_the_opponents_card_back() -> None:
    """Tyrion Lannister: the opponent's card returns to hand and another is revealed."""
    result = fight(side(STARK, u(1), "Eddard Stark", replacement="Catelyn Stark"),
                   side(LANNISTER, u(1), "Tyrion Lannister", cancel_opponent_card=True))
    assert result.attacker.card is not None and result.attacker.card.name == "Catelyn Stark"
    assert [c.name for c in result.attacker.cards_revealed] == ["Eddard Stark", "Catelyn Stark"]
    assert result.attacker.piles is not None
    assert "Eddard Stark" in result.attacker.piles.hand
    assert result.attacker.piles.discard == ("Catelyn Stark",)
    assert result.outcome is Outcome.DEFENDER_WINS


def test_tyrion_lannister_leaves_no_card_when_the_hand_is_empty() -> None:
    """Tyrion Lannister: with no other card in hand, the opponent fights without one."""
    result = fight(side(STARK, u(2), "Catelyn Stark", discard=STARK_SIX),
                   side(LANNISTER, u(1), "Tyrion Lannister", cancel_opponent_card=True),
                   fiefdoms=(STARK, LANNISTER))
    assert result.attacker.card is None and result.attacker.strength.card == 0
    assert result.attacker.piles is not None
    assert result.attacker.piles.hand == ("Catelyn Stark",)


def test_tyrion_lannister_needs_the_replacement_card() -> None:
    """Tyrion Lannister: with other cards in hand, the opponent must name one."""
    with pytest.raises(InvalidInput, match="different card") as info:
        fight(side(STARK, u(1), "Eddard Stark"),
              side(LANNISTER, u(1), "Tyrion Lannister", cancel_opponent_card=True))
    assert info.value.field == "attacker.replacement"


def test_tyrion_lannister_may_let_the_card_stand() -> None:
    """Tyrion Lannister: the cancel is optional; only Tyrion can cancel."""
    result = fight(side(STARK, u(1), "Eddard Stark"), side(LANNISTER, u(1), "Tyrion Lannister"))
    assert result.attacker.card is not None and result.attacker.card.name == "Eddard Stark"
    with pytest.raises(InvalidInput, match="only Tyrion"):
        fight(side(STARK, u(1)), side(LANNISTER, u(1), cancel_opponent_card=True))
    with pytest.raises(InvalidInput, match="second card"):
        fight(side(STARK, u(1), "Eddard Stark", replacement="Robb Stark"),
              side(LANNISTER, u(1)))


def test_ser_kevan_lannister_doubles_attacking_lannister_footmen() -> None:
    """Ser Kevan Lannister: when attacking, Lannister footmen (supporting ones included) count 2;
    other houses' supporting footmen still count 1."""
    result = fight(side(LANNISTER, u(2, 1), "Ser Kevan Lannister"), side(STARK, u(0, 3), 0),
                   supports=(support(LANNISTER, u(2), ATTACKER),
                             support(TYRELL, u(1), ATTACKER)))
    assert result.attacker.strength.units == 2 * 2 + 2
    assert [s.strength for s in result.supports] == [4, 1]
    defending = fight(side(STARK, u(0, 3)), side(LANNISTER, u(2), "Ser Kevan Lannister"))
    assert defending.defender.strength.units == 2


def test_cersei_lannister_may_remove_an_order_after_a_win() -> None:
    """Cersei Lannister: a win lets Lannister remove one of the loser's Order tokens."""
    won = fight(side(LANNISTER, u(2), "Cersei Lannister"), side(STARK, u(1), 0))
    assert any("Cersei" in e and "Stark" in e for e in won.effects)
    lost = fight(side(LANNISTER, u(1), "Cersei Lannister"), side(STARK, u(0, 1), 0))
    assert not any("Cersei" in e for e in lost.effects)


# --------------------------------------------------------------------------- Baratheon


@pytest.mark.parametrize(("throne", "bonus"), [
    ((LANNISTER, BARATHEON), 1), ((BARATHEON, LANNISTER), 0),
    ((STARK, LANNISTER, TYRELL, BARATHEON), 1),
])
def test_stannis_baratheon_gains_against_a_higher_throne_position(
    throne: tuple[House, ...], bonus: int,
) -> None:
    """Stannis Baratheon: +1 when the opponent sits higher on the Iron Throne track."""
    result = fight(side(BARATHEON, u(1), "Stannis Baratheon"), side(LANNISTER, u(1)),
                   iron_throne=throne)
    assert result.attacker.strength.card_bonus == bonus
    assert result.attacker.final == 1 + 4 + bonus


def test_stannis_baratheon_needs_the_iron_throne_track() -> None:
    """Stannis Baratheon: without the track the bonus cannot be decided."""
    with pytest.raises(InvalidInput, match="Iron Throne") as info:
        fight(side(BARATHEON, u(1), "Stannis Baratheon"), side(LANNISTER, u(1)))
    assert info.value.field == "iron_throne"


def test_renly_baratheon_upgrades_a_footman_after_a_win() -> None:
    """Renly Baratheon: a win may turn a participating footman into a knight."""
    result = fight(side(BARATHEON, u(2), "Renly Baratheon"), side(STARK, u(1), 0))
    assert result.attacker.upgrade is Upgrade.PARTICIPATING
    assert result.attacker.survivors == u(1, 1)
    declined = fight(side(BARATHEON, u(2), "Renly Baratheon", upgrade=Upgrade.NONE),
                     side(STARK, u(1), 0))
    assert declined.attacker.survivors == u(2)
    lost = fight(side(BARATHEON, u(1), "Renly Baratheon"), side(STARK, u(0, 3), 0))
    assert lost.attacker.upgrade is Upgrade.NONE


def test_renly_baratheon_may_upgrade_a_supporting_baratheon_footman() -> None:
    """Renly Baratheon: a supporting Baratheon footman may be upgraded instead."""
    result = fight(side(BARATHEON, u(0, 1), "Renly Baratheon"), side(STARK, u(1), 0),
                   supports=(support(BARATHEON, u(1), ATTACKER),))
    assert result.attacker.upgrade is Upgrade.SUPPORTING
    assert result.attacker.survivors == u(0, 1)
    with pytest.raises(InvalidInput, match="supporting Baratheon footman"):
        fight(side(BARATHEON, u(0, 1), "Renly Baratheon", upgrade=Upgrade.SUPPORTING),
              side(STARK, u(1), 0))


def test_ser_davos_seaworth_gains_when_stannis_is_discarded() -> None:
    """Ser Davos Seaworth: +1 and a sword while Stannis is in the discard pile."""
    with_stannis = fight(side(BARATHEON, u(1), "Davos", discard=("Stannis Baratheon",)),
                         side(STARK, u(2), 0))
    assert (with_stannis.attacker.strength.card_bonus, with_stannis.attacker.swords) == (1, 1)
    assert with_stannis.casualties == 1
    without = fight(side(BARATHEON, u(2), "Davos"), side(STARK, u(2), 0))
    assert (without.attacker.strength.card_bonus, without.attacker.swords) == (0, 0)


def test_salladhor_saan_zeroes_non_baratheon_ships_when_supported() -> None:
    """Salladhor Saan: if Baratheon is supported, every non-Baratheon ship counts 0."""
    result = fight(side(GREYJOY, u(ships=3)), side(BARATHEON, u(ships=1), "Salladhor Saan"),
                   area=AreaKind.SEA,
                   supports=(support(BARATHEON, u(ships=1), DEFENDER),
                             support(GREYJOY, u(ships=2), ATTACKER),
                             support(TYRELL, u(ships=1), DEFENDER)))
    assert result.attacker.strength.units == 0
    assert [s.strength for s in result.supports] == [1, 0, 0]
    assert result.defender.strength.units == 1
    unsupported = fight(side(GREYJOY, u(ships=3)),
                        side(BARATHEON, u(ships=1), "Salladhor Saan"), area=AreaKind.SEA)
    assert unsupported.attacker.strength.units == 3


def test_patchface_discards_a_card_from_the_opponents_hand() -> None:
    """Patchface: after combat Baratheon discards a card of its choice from the opponent's hand."""
    result = fight(side(BARATHEON, u(2), "Patchface", patchface_discard="Eddard Stark"),
                   side(STARK, u(1), "Robb Stark"))
    assert result.defender.piles is not None
    assert result.defender.piles.discard == ("Robb Stark", "Eddard Stark")
    with pytest.raises(InvalidInput, match="not in Stark's hand"):
        fight(side(BARATHEON, u(2), "Patchface", patchface_discard="Robb Stark"),
              side(STARK, u(1), "Robb Stark"))


def test_patchface_emptying_a_hand_refreshes_it() -> None:
    """Patchface: if the discard empties the hand, the others return (the discarded one stays
    out)."""
    result = fight(side(BARATHEON, u(2), "Patchface", patchface_discard="Ser Rodrik Cassel"),
                   side(STARK, u(1), "Catelyn Stark", discard=STARK_SIX[:5]))
    piles = result.defender.piles
    assert piles is not None and piles.refreshed
    assert piles.discard == ("Ser Rodrik Cassel",) and len(piles.hand) == 6


# --------------------------------------------------------------------------- Greyjoy


def test_victarion_greyjoy_doubles_attacking_greyjoy_ships() -> None:
    """Victarion Greyjoy: when attacking, Greyjoy ships (supporting ones too) count 2."""
    result = fight(side(GREYJOY, u(ships=2), "Victarion Greyjoy"),
                   side(STARK, u(ships=1), 0), area=AreaKind.SEA,
                   supports=(support(GREYJOY, u(ships=1), ATTACKER),
                             support(MARTELL, u(ships=1), ATTACKER)))
    assert result.attacker.strength.units == 4
    assert [s.strength for s in result.supports] == [2, 1]
    defending = fight(side(STARK, u(ships=3)), side(GREYJOY, u(ships=2), "Victarion Greyjoy"),
                      area=AreaKind.SEA)
    assert defending.defender.strength.units == 2


def test_balon_greyjoy_zeroes_the_printed_strength_of_the_opponents_card() -> None:
    """Balon Greyjoy: the opponent's printed card strength counts 0; text bonuses remain."""
    result = fight(side(STARK, u(1), "Eddard Stark"), side(GREYJOY, u(1), "Balon Greyjoy"))
    assert result.attacker.strength.card == 0 and result.defender.final == 3
    davos = fight(side(BARATHEON, u(1), "Davos", discard=("Stannis Baratheon",)),
                  side(GREYJOY, u(1), "Balon Greyjoy"))
    assert (davos.attacker.strength.card, davos.attacker.strength.card_bonus) == (0, 1)


def test_theon_greyjoy_gains_when_defending_a_castle_or_stronghold() -> None:
    """Theon Greyjoy: defending an area with a castle or stronghold gives +1 and a sword."""
    for structure in (Structure.CASTLE, Structure.STRONGHOLD):
        result = fight(side(STARK, u(1)), side(GREYJOY, u(1), "Theon Greyjoy"),
                       structure=structure)
        assert (result.defender.strength.card_bonus, result.defender.swords) == (1, 1)
    plain = fight(side(STARK, u(1)), side(GREYJOY, u(1), "Theon Greyjoy"))
    attacking = fight(side(GREYJOY, u(1), "Theon Greyjoy"), side(STARK, u(1)),
                      structure=Structure.CASTLE)
    assert plain.defender.strength.card_bonus == attacking.attacker.strength.card_bonus == 0


def test_asha_greyjoy_gains_icons_without_support() -> None:
    """Asha Greyjoy: with no support, two swords and a fortification."""
    alone = fight(side(GREYJOY, u(0, 2), "Asha Greyjoy"), side(STARK, u(2), 0))
    assert (alone.attacker.swords, alone.attacker.fortifications) == (2, 1)
    assert alone.casualties == 2
    refused = fight(side(GREYJOY, u(0, 2), "Asha Greyjoy"), side(STARK, u(2), 0),
                    supports=(support(GREYJOY, u(1), NOBODY),))
    assert refused.attacker.swords == 2
    backed = fight(side(GREYJOY, u(0, 2), "Asha Greyjoy"), side(STARK, u(2), 0),
                   supports=(support(GREYJOY, u(1), ATTACKER),))
    assert (backed.attacker.swords, backed.attacker.fortifications) == (0, 0)


def test_aeron_damphair_swaps_for_two_power_tokens() -> None:
    """Aeron Damphair: pay two Power tokens to discard Aeron and reveal another card."""
    result = fight(side(GREYJOY, u(1), "Aeron Damphair", replacement="Euron Crow's Eye",
                        power_tokens=3),
                   side(STARK, u(2), 0))
    assert result.attacker.card is not None and result.attacker.card.name == "Euron Crow's Eye"
    assert result.attacker.power_spent == 2 and result.attacker.final == 5
    assert result.attacker.piles is not None
    assert result.attacker.piles.discard == ("Aeron Damphair", "Euron Crow's Eye")
    with pytest.raises(InvalidInput, match="two Power tokens"):
        fight(side(GREYJOY, u(1), "Aeron Damphair", replacement="Euron Crow's Eye",
                   power_tokens=1), side(STARK, u(2), 0))
    kept = fight(side(GREYJOY, u(1), "Aeron Damphair"), side(STARK, u(2), 0))
    assert kept.attacker.power_spent == 0 and kept.attacker.strength.card == 0


# --------------------------------------------------------------------------- Tyrell


def test_mace_tyrell_destroys_an_opposing_footman() -> None:
    """Mace Tyrell: at once destroy one of the opponent's attacking or defending footmen."""
    result = fight(side(TYRELL, u(1), "Mace Tyrell"), side(STARK, u(2, 1), 0))
    assert result.defender.destroyed_by_card == u(1)
    assert result.defender.units == u(1, 1)
    no_footmen = fight(side(TYRELL, u(1), "Mace Tyrell"), side(STARK, u(0, 2), 0))
    assert no_footmen.defender.destroyed_by_card.total == 0
    routed = fight(side(TYRELL, u(1), "Mace Tyrell"), side(STARK, u(0, 1), 0, routed=u(1)))
    assert routed.defender.destroyed_by_card == u(1)
    assert routed.defender.routed_destroyed.total == 0


def test_ser_loras_tyrell_moves_the_march_order_after_winning_an_attack() -> None:
    """Ser Loras Tyrell: an attack won moves the March order into the conquered area."""
    won = fight(side(TYRELL, u(2), "Ser Loras Tyrell"), side(STARK, u(1), 0))
    assert won.cleanup.march_order is MarchOrderFate.MOVED_INTO_AREA
    lost = fight(side(TYRELL, u(1), "Ser Loras Tyrell"), side(STARK, u(0, 3), 0))
    assert lost.cleanup.march_order is MarchOrderFate.REMOVED


def test_queen_of_thorns_removes_an_opponents_order_next_to_the_combat() -> None:
    """The Queen of Thorns: remove one of the opponent's adjacent Orders (a Support order's
    support goes with it)."""
    result = fight(side(TYRELL, u(2), "Queen of Thorns", queen_removes="Riverrun"),
                   side(STARK, u(1), 0),
                   supports=(support(STARK, u(0, 2), DEFENDER, label="Riverrun"),))
    assert result.defender.strength.support == 0
    assert result.defender.strength.announced == 5
    assert result.outcome is Outcome.ATTACKER_WINS
    elsewhere = fight(side(TYRELL, u(2), "Queen of Thorns", queen_removes="Moat Cailin"),
                      side(STARK, u(1), 0))
    assert any("Moat Cailin" in e for e in elsewhere.effects)
    with pytest.raises(InvalidInput, match="opponent"):
        fight(side(TYRELL, u(2), "Queen of Thorns", queen_removes="Riverrun"),
              side(STARK, u(1), 0),
              supports=(support(MARTELL, u(0, 2), DEFENDER, label="Riverrun"),))


def test_queen_of_thorns_can_leave_asha_unsupported() -> None:
    """Abilities are checked after the Queen acts: Asha sees her support gone."""
    result = fight(side(TYRELL, u(1), "Queen of Thorns", queen_removes="Pyke"),
                   side(GREYJOY, u(1), "Asha Greyjoy"),
                   supports=(support(GREYJOY, u(1), DEFENDER, label="Pyke"),))
    assert (result.defender.swords, result.defender.fortifications) == (2, 1)


# --------------------------------------------------------------------------- Martell


def test_nymeria_sand_gains_a_fortification_defending_and_a_sword_attacking() -> None:
    """Nymeria Sand: defending gains a fortification, attacking gains a sword."""
    defending = fight(side(STARK, u(1)), side(MARTELL, u(1), "Nymeria Sand"))
    attacking = fight(side(MARTELL, u(1), "Nymeria Sand"), side(STARK, u(1)))
    assert (defending.defender.swords, defending.defender.fortifications) == (0, 1)
    assert (attacking.attacker.swords, attacking.attacker.fortifications) == (1, 0)


def test_arianne_martell_keeps_the_attackers_out_after_a_defeat() -> None:
    """Arianne Martell: defending and losing, the attackers go back where they marched from;
    Martell still retreats."""
    result = fight(side(TYRELL, u(0, 3)), side(MARTELL, u(1), "Arianne Martell"),
                   retreat_areas=(RetreatArea("Sunspear"),))
    assert result.outcome is Outcome.ATTACKER_WINS
    assert not result.cleanup.attacker_moves_in
    assert result.retreat.area == "Sunspear"
    attacking = fight(side(MARTELL, u(0, 3), "Arianne Martell"), side(TYRELL, u(1)))
    assert attacking.cleanup.attacker_moves_in


def test_doran_martell_moves_the_opponent_to_the_bottom_of_a_track() -> None:
    """Doran Martell: the opponent drops to the bottom of a track; on the Fiefdoms track this
    decides a tie, on the Iron Throne it feeds Stannis."""
    tie = fight(side(MARTELL, u(4), "Doran Martell", doran_track=Track.FIEFDOMS),
                side(TYRELL, u(0, 2), 0), fiefdoms=(TYRELL, MARTELL))
    assert tie.outcome is Outcome.ATTACKER_WINS
    no_track = fight(side(MARTELL, u(4), "Doran Martell", doran_track=Track.FIEFDOMS),
                     side(TYRELL, u(0, 2), 0))
    assert no_track.outcome is Outcome.ATTACKER_WINS
    stannis = fight(side(MARTELL, u(1), "Doran Martell", doran_track=Track.IRON_THRONE),
                    side(BARATHEON, u(1), "Stannis Baratheon"),
                    iron_throne=(BARATHEON, MARTELL))
    assert stannis.defender.strength.card_bonus == 1
