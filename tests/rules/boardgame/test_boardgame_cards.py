"""The 42 House cards of the base game as data, and finding them by what players type."""

from __future__ import annotations

import pytest

from rules.boardgame.cards import (
    CARDS_BY_HOUSE,
    HOUSE_CARDS,
    card_names,
    find_card,
    normalize_name,
    parse_card_numbers,
)
from rules.boardgame.model import Ability, House, HouseCard, custom_card, parse_house
from rules.errors import InvalidInput

S, L, B, G, T, M = (House.STARK, House.LANNISTER, House.BARATHEON, House.GREYJOY,
                    House.TYRELL, House.MARTELL)

# (house, name, strength, swords, fortifications, has text)
GOLDEN = [
    (S, "Eddard Stark", 4, 2, 0, False),
    (S, "Robb Stark", 3, 0, 0, True),
    (S, "Greatjon Umber", 2, 1, 0, False),
    (S, "Roose Bolton", 2, 0, 0, True),
    (S, "The Blackfish", 1, 0, 0, True),
    (S, "Ser Rodrik Cassel", 1, 0, 2, False),
    (S, "Catelyn Stark", 0, 0, 0, True),
    (L, "Tywin Lannister", 4, 0, 0, True),
    (L, "Ser Gregor Clegane", 3, 3, 0, False),
    (L, "Ser Jaime Lannister", 2, 1, 0, False),
    (L, "The Hound", 2, 0, 2, False),
    (L, "Tyrion Lannister", 1, 0, 0, True),
    (L, "Ser Kevan Lannister", 1, 0, 0, True),
    (L, "Cersei Lannister", 0, 0, 0, True),
    (B, "Stannis Baratheon", 4, 0, 0, True),
    (B, "Renly Baratheon", 3, 0, 0, True),
    (B, "Brienne of Tarth", 2, 1, 1, False),
    (B, "Ser Davos Seaworth", 2, 0, 0, True),
    (B, "Melisandre", 1, 1, 0, False),
    (B, "Salladhor Saan", 1, 0, 0, True),
    (B, "Patchface", 0, 0, 0, True),
    (G, "Euron Crow's Eye", 4, 1, 0, False),
    (G, "Victarion Greyjoy", 3, 0, 0, True),
    (G, "Theon Greyjoy", 2, 0, 0, True),
    (G, "Balon Greyjoy", 2, 0, 0, True),
    (G, "Asha Greyjoy", 1, 0, 0, True),
    (G, "Dagmar Cleftjaw", 1, 1, 1, False),
    (G, "Aeron Damphair", 0, 0, 0, True),
    (T, "Mace Tyrell", 4, 0, 0, True),
    (T, "Ser Loras Tyrell", 3, 0, 0, True),
    (T, "Ser Garlan Tyrell", 2, 2, 0, False),
    (T, "Randyll Tarly", 2, 1, 0, False),
    (T, "Alester Florent", 1, 0, 1, False),
    (T, "Margaery Tyrell", 1, 0, 1, False),
    (T, "The Queen of Thorns", 0, 0, 0, True),
    (M, "The Red Viper", 4, 2, 1, False),
    (M, "Areo Hotah", 3, 0, 1, False),
    (M, "Obara Sand", 2, 1, 0, False),
    (M, "Darkstar", 2, 1, 0, False),
    (M, "Nymeria Sand", 1, 0, 0, True),
    (M, "Arianne Martell", 1, 0, 0, True),
    (M, "Doran Martell", 0, 0, 0, True),
]


@pytest.mark.parametrize(("house", "name", "strength", "swords", "forts", "text"), GOLDEN)
def test_house_card_golden_table(house: House, name: str, strength: int, swords: int,
                                 forts: int, text: bool) -> None:
    """Every base-game House card has its printed strength, swords and fortifications."""
    card = find_card(name, house)
    assert (card.house, card.name, card.strength, card.swords, card.fortifications) == (
        house, name, strength, swords, forts)
    assert (card.ability is not None) is text
    assert card.summary


def test_the_table_covers_all_42_cards() -> None:
    """Six houses, seven cards each, all different, strengths 4,3,2,2,1,1,0 per house."""
    assert len(HOUSE_CARDS) == 42 == len(GOLDEN)
    assert {c.name for c in HOUSE_CARDS} == {row[1] for row in GOLDEN}
    for cards in CARDS_BY_HOUSE.values():
        assert sorted(c.strength for c in cards) == [0, 1, 1, 2, 2, 3, 4]
    assert len({c.ability for c in HOUSE_CARDS if c.ability}) == len(Ability)


@pytest.mark.parametrize(
    ("typed", "name"),
    [("Tywin Lannister", "Tywin Lannister"), ("tywin", "Tywin Lannister"),
     ("TYWIN LANNISTER", "Tywin Lannister"), ("  tywin   lannister ", "Tywin Lannister"),
     ("Tywinn", "Tywin Lannister"), ("davos", "Ser Davos Seaworth"),
     ("Davos Seaworth", "Ser Davos Seaworth"), ("hound", "The Hound"),
     ("the hound", "The Hound"), ("queen of thorns", "The Queen of Thorns"),
     ("Olenna", "The Queen of Thorns"), ("crows eye", "Euron Crow's Eye"),
     ("Euron Crow’s Eye", "Euron Crow's Eye"), ("dagmer", "Dagmar Cleftjaw"),
     ("rodrick", "Ser Rodrik Cassel"), ("blackfish", "The Blackfish"),
     ("Red Viper", "The Red Viper"), ("oberyn", "The Red Viper"), ("Ned", "Eddard Stark"),
     ("kevan", "Ser Kevan Lannister"), ("salladhor", "Salladhor Saan"),
     ("catelyn", "Catelyn Stark"), ("areo", "Areo Hotah"), ("greatjon", "Greatjon Umber")],
)
def test_cards_are_found_by_forgiving_names(typed: str, name: str) -> None:
    """Names match in any case, with or without Ser/The, by a unique first or family name,
    by common nicknames, and through small typos."""
    assert find_card(typed).name == name


@pytest.mark.parametrize(("typed", "options"), [
    ("sand", {"Obara Sand", "Nymeria Sand"}),
    ("stark", {"Eddard Stark", "Robb Stark", "Catelyn Stark"}),
])
def test_ambiguous_names_list_the_candidates(typed: str, options: set[str]) -> None:
    """A word shared by several cards names none of them; the error lists the candidates."""
    with pytest.raises(InvalidInput, match="several") as info:
        find_card(typed)
    assert all(o in info.value.expected for o in options)


def test_card_of_another_house_is_refused_with_its_owner() -> None:
    """Naming another house's card says whose it is and lists the house's own."""
    with pytest.raises(InvalidInput, match="Lannister card, not Stark") as info:
        find_card("Tywin", House.STARK, "attacker.card")
    assert info.value.field == "attacker.card"
    assert "Eddard Stark" in info.value.expected


def test_unknown_card_is_refused() -> None:
    """A name matching nothing lists the cards that exist."""
    with pytest.raises(InvalidInput, match="not a House card"):
        find_card("Jon Snow")
    with pytest.raises(InvalidInput):
        find_card("  ")


def test_card_names_by_house() -> None:
    """Card names come in the house's order; all 42 without a house."""
    assert card_names(House.TYRELL)[0] == "Mace Tyrell"
    assert len(card_names()) == 42


@pytest.mark.parametrize(("text", "values"), [
    ("3/1/0", (3, 1, 0)), ("3", (3, 0, 0)), ("2/2", (2, 2, 0)), ("0/0/2", (0, 0, 2)),
])
def test_cards_given_as_numbers(text: str, values: tuple[int, int, int]) -> None:
    """A card may be written as strength/swords/fortifications; it has no text."""
    card = parse_card_numbers(text)
    assert card is not None and card.is_custom and card.ability is None
    assert (card.strength, card.swords, card.fortifications) == values
    assert card == custom_card(*values)


def test_card_numbers_must_be_well_formed() -> None:
    """Malformed numbers are refused; a name is not numbers."""
    assert parse_card_numbers("Tywin") is None
    with pytest.raises(InvalidInput):
        parse_card_numbers("3/x/1")
    with pytest.raises(InvalidInput):
        parse_card_numbers("1/1/1/1")
    with pytest.raises(InvalidInput, match="0-20"):
        HouseCard(None, "x", 21, 0, 0)


def test_normalize_name() -> None:
    """Folding drops case, apostrophes and punctuation."""
    assert normalize_name("Euron Crow’s-Eye!") == "euron crows eye"


@pytest.mark.parametrize(("typed", "house"), [
    ("Stark", House.STARK), ("house lannister", House.LANNISTER), ("bara", House.BARATHEON),
    ("GREYJOY", House.GREYJOY),
])
def test_houses_are_found_forgivingly(typed: str, house: House) -> None:
    """Houses match in any case, with "House", or by a three-letter prefix."""
    assert parse_house(typed) is house


def test_unknown_house_is_refused() -> None:
    """Houses outside the base game (or too short a prefix) are refused."""
    for typed in ("Arryn", "st", ""):
        with pytest.raises(InvalidInput):
            parse_house(typed)
