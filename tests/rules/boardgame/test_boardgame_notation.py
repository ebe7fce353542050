"""The compact combat text: what players type, what it means, and the canonical form."""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.boardgame.combat import resolve_combat
from rules.boardgame.model import (
    AreaKind,
    Order,
    OrderKind,
    RetreatArea,
    Structure,
    Support,
    SupportTo,
    Track,
    Upgrade,
    custom_card,
)
from rules.boardgame.notation import EXAMPLE, format_setup, format_units, parse_setup
from rules.errors import InvalidInput
from tests.rules.boardgame.helpers import (
    BARATHEON,
    GREYJOY,
    LANNISTER,
    MARTELL,
    STARK,
    TYRELL,
    card,
    u,
)


def test_the_issue_example_reads_as_written() -> None:
    """The example from the issue: houses, units, orders and named cards."""
    text = ("attacker Lannister 2 knights 1 footman march +1 card Tywin Lannister vs defender "
            "Stark 2 footmen defense +1 card Catelyn Stark")
    setup = parse_setup(text)
    assert setup.attacker.house is LANNISTER and setup.attacker.units == u(1, 2)
    assert setup.attacker.order == Order(OrderKind.MARCH, 1)
    assert setup.attacker.card == card("Tywin Lannister")
    assert setup.defender.house is STARK and setup.defender.units == u(2)
    assert setup.defender.order == Order(OrderKind.DEFENSE, 1)
    assert setup.defender.card == card("Catelyn Stark")
    assert parse_setup(EXAMPLE) == setup


def test_optional_words_may_be_left_out() -> None:
    """'attacker', 'defender' and 'card' are optional; 'with', 'and' are ignored; numbers may be
    words; 'march+1' is read as 'march +1'."""
    short = parse_setup("Lannister with two knights and a footman march+1 Tywin vs Stark "
                        "2 footmen defence+1 Catelyn")
    assert short == parse_setup(EXAMPLE)


def test_cards_as_numbers() -> None:
    """'card 3/1/0', 'card 3 2 swords 1 fort' and a bare '2/0/1' give cards without text."""
    setup = parse_setup("Stark 1 footman card 3/1/0 vs Lannister 1 footman 2/0/1")
    assert setup.attacker.card == custom_card(3, 1, 0)
    assert setup.defender.card == custom_card(2, 0, 1)
    spelled = parse_setup("Stark 1 footman card 3 2 swords 1 fort vs Lannister 1 footman 1")
    assert spelled.attacker.card == custom_card(3, 2, 1)
    assert spelled.defender.card == custom_card(1)


def test_area_garrison_and_tokens() -> None:
    """'in sea', 'in castle', 'stronghold', 'garrison N' and 'power token' describe the area."""
    sea = parse_setup("Greyjoy 2 ships vs Stark 1 ship; in sea")
    assert sea.area is AreaKind.SEA
    castle = parse_setup("Tyrell 1 siege engine vs Martell 1 footman; in castle; garrison 2; "
                         "power token")
    assert castle.structure is Structure.CASTLE and castle.garrison == 2
    assert castle.defender_power_token and castle.attacker.units == u(siege=1)
    assert parse_setup("Tyrell 1 footman vs Martell 1 knight stronghold").structure is (
        Structure.STRONGHOLD)


def test_supports() -> None:
    """A support in a side's part backs that side unless 'for'/'refused' says otherwise."""
    setup = parse_setup(
        "Stark 1 knight support Stark 2 footmen +1 from Moat Cailin vs Lannister 1 footman "
        "support Tyrell 1 knight; support Martell 2 ships for attacker from Sea of Dorne; "
        "support Greyjoy 1 ship refused"
    )
    assert setup.supports == (
        Support(STARK, u(2), SupportTo.ATTACKER, 1, "Moat Cailin"),
        Support(TYRELL, u(0, 1), SupportTo.DEFENDER),
        Support(MARTELL, u(ships=2), SupportTo.ATTACKER, 0, "Sea of Dorne"),
        Support(GREYJOY, u(ships=1), SupportTo.NOBODY),
    )


def test_tracks_blade_and_discard() -> None:
    """Tracks list houses from first place; 'blade' sits in the holder's part; 'discard' lists
    the discard pile."""
    setup = parse_setup(
        "Baratheon 1 knight Davos discard Stannis, Renly blade vs Stark 1 footman 0; "
        "fiefdoms Stark Baratheon; throne Baratheon, Stark"
    )
    assert setup.fiefdoms == (STARK, BARATHEON) and setup.iron_throne == (BARATHEON, STARK)
    assert setup.blade_holder is BARATHEON and setup.blade_available
    assert [c.name for c in setup.attacker.discard] == ["Stannis Baratheon", "Renly Baratheon"]
    spent = parse_setup("Stark 1 footman vs Lannister 1 footman blade unused spent")
    assert spent.blade_holder is LANNISTER and not spent.defender.use_blade
    assert not spent.blade_available
    third = parse_setup("Stark 1 footman vs Lannister 1 footman; blade Tyrell")
    assert third.blade_holder is TYRELL


def test_card_choices() -> None:
    """Card choices: cancel/instead (Tyrion), remove (Queen), track (Doran), upgrade (Renly),
    discards (Patchface), power (Aeron)."""
    tyrion = parse_setup("Lannister 1 footman Tyrion cancel vs Stark 1 footman Eddard "
                         "instead Robb")
    assert tyrion.attacker.cancel_opponent_card
    assert tyrion.defender.replacement == card("Robb Stark")
    queen = parse_setup("Tyrell 1 footman Queen of Thorns remove Castle Black vs Stark 1 "
                        "footman")
    assert queen.attacker.queen_removes == "Castle Black"
    doran = parse_setup("Martell 1 footman Doran track fiefdoms vs Tyrell 1 footman")
    assert doran.attacker.doran_track is Track.FIEFDOMS
    renly = parse_setup("Baratheon 1 footman Renly upgrade none vs Stark 1 footman")
    assert renly.attacker.upgrade is Upgrade.NONE
    patch = parse_setup("Baratheon 1 footman Patchface discards Eddard vs Stark 1 footman")
    assert patch.attacker.patchface_discard == card("Eddard Stark")
    aeron = parse_setup("Greyjoy 1 footman Aeron instead Euron power 3 vs Stark 1 footman")
    assert aeron.attacker.power_tokens == 3 and aeron.attacker.replacement == card("Euron")


def test_routed_units_retreat_areas_and_casualties() -> None:
    """'1 routed footman', retreat areas with their attributes, the choice and casualties."""
    setup = parse_setup(
        "Stark 3 knights vs Lannister 1 footman 1 routed knight; area Sunset Sea land; "
        "area Sea of Dorne sea enemy; area Riverrun friendly 2 max 3; area Twins origin; "
        "area Dragonstone transport; retreat Riverrun; casualties 1 footman"
    )
    assert setup.defender.routed == u(0, 1)
    assert setup.retreat_areas == (
        RetreatArea("Sunset Sea"),
        RetreatArea("Sea of Dorne", AreaKind.SEA, enemy=True),
        RetreatArea("Riverrun", friendly_units=2, max_army=3),
        RetreatArea("Twins", origin=True),
        RetreatArea("Dragonstone", by_transport=True),
    )
    assert setup.retreat_to == "Riverrun" and setup.casualties == u(1)
    assert parse_setup("Stark 3 knights vs Lannister 1 footman; area none").retreat_areas == ()


def test_defender_orders() -> None:
    """The defender's order: 'defense +2', or 'order support|raid|consolidate|march'."""
    assert parse_setup("Stark 1 footman vs Lannister 1 footman defense +2").defender.order == (
        Order(OrderKind.DEFENSE, 2))
    assert parse_setup("Stark 1 footman vs Lannister 1 footman order support +1"
                       ).defender.order == Order(OrderKind.SUPPORT, 1)
    assert parse_setup("Stark 1 footman vs Lannister 1 footman order consolidate power"
                       ).defender.order == Order(OrderKind.CONSOLIDATE_POWER)


@pytest.mark.parametrize(("text", "field", "words"), [
    ("", "combat", "nothing"),
    ("Stark 2 footmen", "defender.house", "no defender"),
    ("2 footmen vs Stark 1 footman", "attacker.house", "house"),
    ("Stark 2 dragons vs Lannister 1 footman", "attacker.units", "not a unit"),
    ("Stark 1 footman march +5 vs Lannister 1 footman", "order.march", "cannot carry"),
    ("Stark 1 footman card Tywin vs Lannister 1 footman", "attacker.card", "Lannister card"),
    ("Stark 1 footman Eddard Robb vs Lannister 1 footman", "attacker.card", "not a House card"),
    ("Stark 1 footman vs Lannister 1 footman order dance", "defender.order", "not an order"),
    ("Stark 1 footman vs Lannister 1 footman support Dragons 1 knight", "supports[0]",
     "supporting house"),
    ("Stark 1 footman vs Lannister 1 footman; fiefdoms", "fiefdoms", "houses"),
    ("Stark 1 footman vs Lannister 1 footman Tyrion track moon", "defender.track",
     "influence track"),
])
def test_unreadable_text_names_the_part(text: str, field: str, words: str) -> None:
    """Bad text raises InvalidInput naming the part and what was expected."""
    with pytest.raises(InvalidInput, match=words) as info:
        parse_setup(text)
    assert info.value.field == field
    assert info.value.expected


def test_canonical_form_reads_back_unchanged() -> None:
    """format_setup writes every field; parse_setup reads it back to an equal setup."""
    text = (
        "Baratheon 1 footman 1 knight march -1 Patchface discards Robb discard Stannis blade "
        "spent vs Stark 1 footman 1 routed knight order raid Eddard instead Catelyn power 2; "
        "in castle; garrison 2; power token; support Tyrell 1 ship +1 for defender from "
        "Blackwater Bay; fiefdoms Stark Baratheon; throne Baratheon Stark; area Riverrun "
        "friendly 1 max 2; area none; retreat Riverrun; casualties 1 footman"
    )
    setup = parse_setup(text)
    canonical = format_setup(setup)
    assert parse_setup(canonical) == setup
    assert format_setup(parse_setup(canonical)) == canonical


def test_format_units() -> None:
    """Units are written the way they are read."""
    assert format_units(u(2, 1, 0, 2), u(1)) == "2 footmen 1 knight 2 siege 1 routed footman"
    assert format_units(u()) == ""


_VOCABULARY = (
    "attacker defender vs Stark Lannister Tyrell Martell 1 2 0 +1 -1 two footmen knight ships "
    "siege engine routed march defense order support raid power token card Tywin Catelyn Mace "
    "Tyrion Aeron Queen of Thorns Doran Renly 3/1/0 instead cancel discard discards remove track "
    "fiefdoms throne upgrade none blade unused spent in sea castle garrison for refused from area "
    "retreat casualties enemy friendly max origin transport port ; , house with and"
)
_WORDS = tuple(_VOCABULARY.split())


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_WORDS), min_size=1, max_size=30))
def test_any_text_is_read_or_refused(words: list[str]) -> None:
    """Whatever players type, the parser either reads a setup or raises InvalidInput, and
    resolving what it read either works or raises InvalidInput (never another error, never a
    hang)."""
    with contextlib.suppress(InvalidInput):
        resolve_combat(parse_setup(" ".join(words)))


def test_stray_bonus_or_number_is_refused_not_looped_on() -> None:
    """A signed number or a lone number after the card is refused with the side named."""
    for text in ("Greyjoy token and -1 Lannister 1 footman 0",
                 "Stark 1 footman card 2 3 vs Lannister 1 footman 0"):
        with pytest.raises(InvalidInput, match="did not understand"):
            parse_setup(text)
