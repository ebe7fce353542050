"""The 42 House cards of the base game (second edition), and finding one by a forgiving name.

Printed values (strength, sword icons, fortification icons) are facts of the game; the ability
summaries are written for this project. :func:`find_card` accepts what players type: any case,
with or without "Ser"/"The", a first or family name when that is unambiguous ("Tywin",
"Davos", "Hound", "Olenna"), and small typos ("Tywinn").
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable

from rules.boardgame.model import Ability, House, HouseCard, custom_card
from rules.errors import InvalidInput

_A = Ability


def _card(house: House, name: str, strength: int, swords: int = 0, forts: int = 0,
          ability: Ability | None = None, summary: str = "") -> HouseCard:
    return HouseCard(house, name, strength, swords, forts, ability,
                     summary or "No text: only its strength and icons.")


_S, _L, _B, _G, _T, _M = (House.STARK, House.LANNISTER, House.BARATHEON, House.GREYJOY,
                          House.TYRELL, House.MARTELL)

HOUSE_CARDS: tuple[HouseCard, ...] = (
    # Stark
    _card(_S, "Eddard Stark", 4, 2),
    _card(_S, "Robb Stark", 3, ability=_A.ROBB_STARK, summary=(
        "After a win, Stark picks the loser's retreat area, but only among the legal areas"
        " that cost the loser the fewest units.")),
    _card(_S, "Greatjon Umber", 2, 1),
    _card(_S, "Roose Bolton", 2, ability=_A.ROOSE_BOLTON, summary=(
        "After a loss, Stark takes the whole discard pile back into hand, this card too.")),
    _card(_S, "The Blackfish", 1, ability=_A.THE_BLACKFISH, summary=(
        "Stark loses no units in this combat to card text or to sword icons.")),
    _card(_S, "Ser Rodrik Cassel", 1, 0, 2),
    _card(_S, "Catelyn Stark", 0, ability=_A.CATELYN_STARK, summary=(
        "A Defense order of Stark's in the embattled area counts double.")),
    # Lannister
    _card(_L, "Tywin Lannister", 4, ability=_A.TYWIN_LANNISTER, summary=(
        "A win earns Lannister two Power tokens.")),
    _card(_L, "Ser Gregor Clegane", 3, 3),
    _card(_L, "Ser Jaime Lannister", 2, 1),
    _card(_L, "The Hound", 2, 0, 2),
    _card(_L, "Tyrion Lannister", 1, ability=_A.TYRION_LANNISTER, summary=(
        "Lannister may send the opponent's revealed card back to hand; the opponent reveals a"
        " different one, or fights without a card if the hand holds no other.")),
    _card(_L, "Ser Kevan Lannister", 1, ability=_A.SER_KEVAN_LANNISTER, summary=(
        "When attacking, each Lannister footman in the fight, supporting ones included, is"
        " worth 2 instead of 1.")),
    _card(_L, "Cersei Lannister", 0, ability=_A.CERSEI_LANNISTER, summary=(
        "After a win, Lannister may take one of the loser's Order tokens off the board,"
        " wherever it is.")),
    # Baratheon
    _card(_B, "Stannis Baratheon", 4, ability=_A.STANNIS_BARATHEON, summary=(
        "One more strength when the opponent sits higher on the Iron Throne track.")),
    _card(_B, "Renly Baratheon", 3, ability=_A.RENLY_BARATHEON, summary=(
        "After a win, Baratheon may turn one of its footmen in the fight (or one supporting"
        " Baratheon footman) into a knight.")),
    _card(_B, "Brienne of Tarth", 2, 1, 1),
    _card(_B, "Ser Davos Seaworth", 2, ability=_A.SER_DAVOS_SEAWORTH, summary=(
        "One more strength and one more sword while Stannis Baratheon is in the discard pile.")),
    _card(_B, "Melisandre", 1, 1),
    _card(_B, "Salladhor Saan", 1, ability=_A.SALLADHOR_SAAN, summary=(
        "If anyone supports Baratheon here, every ship that is not Baratheon's counts 0 in"
        " this combat, on either side.")),
    _card(_B, "Patchface", 0, ability=_A.PATCHFACE, summary=(
        "After the combat, Baratheon looks at the opponent's hand and discards one card of"
        " its choice from it.")),
    # Greyjoy
    _card(_G, "Euron Crow's Eye", 4, 1),
    _card(_G, "Victarion Greyjoy", 3, ability=_A.VICTARION_GREYJOY, summary=(
        "When attacking, each Greyjoy ship in the fight, supporting ones included, is worth 2"
        " instead of 1.")),
    _card(_G, "Theon Greyjoy", 2, ability=_A.THEON_GREYJOY, summary=(
        "When defending an area with a castle or stronghold: one more strength and a sword.")),
    _card(_G, "Balon Greyjoy", 2, ability=_A.BALON_GREYJOY, summary=(
        "The strength printed on the opponent's card counts as 0 (its other bonuses stay).")),
    _card(_G, "Asha Greyjoy", 1, ability=_A.ASHA_GREYJOY, summary=(
        "If nobody supports Greyjoy here, the card gains two swords and a fortification.")),
    _card(_G, "Dagmar Cleftjaw", 1, 1, 1),
    _card(_G, "Aeron Damphair", 0, ability=_A.AERON_DAMPHAIR, summary=(
        "Greyjoy may pay two Power tokens to discard this card and reveal another card from"
        " hand in its place.")),
    # Tyrell
    _card(_T, "Mace Tyrell", 4, ability=_A.MACE_TYRELL, summary=(
        "At once, one of the opponent's footmen in the embattled area is destroyed.")),
    _card(_T, "Ser Loras Tyrell", 3, ability=_A.SER_LORAS_TYRELL, summary=(
        "After winning an attack, the March order moves into the taken area instead of leaving"
        " the board, and may be resolved again this round.")),
    _card(_T, "Ser Garlan Tyrell", 2, 2),
    _card(_T, "Randyll Tarly", 2, 1),
    _card(_T, "Alester Florent", 1, 0, 1),
    _card(_T, "Margaery Tyrell", 1, 0, 1),
    _card(_T, "The Queen of Thorns", 0, ability=_A.QUEEN_OF_THORNS, summary=(
        "At once, Tyrell removes one of the opponent's Order tokens next to the embattled area"
        " (never the March order that started this combat).")),
    # Martell
    _card(_M, "The Red Viper", 4, 2, 1),
    _card(_M, "Areo Hotah", 3, 0, 1),
    _card(_M, "Obara Sand", 2, 1),
    _card(_M, "Darkstar", 2, 1),
    _card(_M, "Nymeria Sand", 1, ability=_A.NYMERIA_SAND, summary=(
        "Gains a fortification when defending and a sword when attacking.")),
    _card(_M, "Arianne Martell", 1, ability=_A.ARIANNE_MARTELL, summary=(
        "When defending and losing, the attackers may not enter the area and go back where"
        " they marched from; Martell's units still retreat.")),
    _card(_M, "Doran Martell", 0, ability=_A.DORAN_MARTELL, summary=(
        "At once, the opponent drops to the bottom of one influence track Martell picks.")),
)

CARDS_BY_HOUSE: dict[House, tuple[HouseCard, ...]] = {
    house: tuple(c for c in HOUSE_CARDS if c.house is house) for house in House
}

# Nicknames players use that are not part of the printed name.
_NICKNAMES: dict[str, str] = {
    "ned": "Eddard Stark",
    "brynden": "The Blackfish",
    "brynden tully": "The Blackfish",
    "rodrick": "Ser Rodrik Cassel",
    "rodrick cassel": "Ser Rodrik Cassel",
    "cat": "Catelyn Stark",
    "sandor": "The Hound",
    "sandor clegane": "The Hound",
    "mountain": "Ser Gregor Clegane",
    "the mountain": "Ser Gregor Clegane",
    "crows eye": "Euron Crow's Eye",
    "dagmer": "Dagmar Cleftjaw",
    "dagmer cleftjaw": "Dagmar Cleftjaw",
    "olenna": "The Queen of Thorns",
    "olenna tyrell": "The Queen of Thorns",
    "queen": "The Queen of Thorns",
    "thorns": "The Queen of Thorns",
    "oberyn": "The Red Viper",
    "oberyn martell": "The Red Viper",
    "viper": "The Red Viper",
    "arys oakheart": "Darkstar",
    "gerold dayne": "Darkstar",
}

_HONORIFICS = ("ser ", "the ", "lord ", "lady ", "king ", "prince ", "princess ")


def normalize_name(text: str) -> str:
    """Fold a typed card name: lower case, apostrophes and punctuation dropped, single spaces."""
    text = text.lower().replace("’", "'").replace("'", "")
    text = re.sub(r"[^a-z0-9]+", " ", text)
    return " ".join(text.split())


def _strip_honorifics(key: str) -> str:
    changed = True
    while changed:
        changed = False
        for word in _HONORIFICS:
            if key.startswith(word):
                key = key[len(word):]
                changed = True
    return key


def _keys_for(card: HouseCard) -> set[str]:
    full = normalize_name(card.name)
    bare = _strip_honorifics(full)
    keys = {full, bare}
    keys.update(bare.split())
    return keys


def _candidates(cards: Iterable[HouseCard]) -> dict[str, set[HouseCard]]:
    found: dict[str, set[HouseCard]] = {}
    for card in cards:
        for key in _keys_for(card):
            found.setdefault(key, set()).add(card)
    by_name = {c.name: c for c in cards}
    for nickname, name in _NICKNAMES.items():
        if name in by_name:
            found.setdefault(nickname, set()).add(by_name[name])
    return found


def _build_index(cards: Iterable[HouseCard]) -> dict[str, HouseCard]:
    """Every key that names exactly one of ``cards``; keys shared by several cards are dropped."""
    # Words that belong to many cards ("lannister", "sand") name none of them.
    return {key: next(iter(c)) for key, c in _candidates(cards).items() if len(c) == 1}


_SHARED_WORDS = {key: c for key, c in _candidates(HOUSE_CARDS).items() if len(c) > 1}
_INDEX_ALL = _build_index(HOUSE_CARDS)
_INDEX_BY_HOUSE = {house: _build_index(cards) for house, cards in CARDS_BY_HOUSE.items()}


def card_names(house: House | None = None) -> list[str]:
    """The printed names of the cards of ``house`` (all 42 when ``None``)."""
    cards = HOUSE_CARDS if house is None else CARDS_BY_HOUSE[house]
    return [c.name for c in cards]


def find_card(text: str, house: House | None = None, path: str = "card") -> HouseCard:
    """The House card ``text`` names, within ``house``'s seven cards when a house is given.

    Matching is forgiving (see the module docstring); a close misspelling is accepted when only
    one card is that close. Raises :class:`InvalidInput` naming ``path`` when nothing matches,
    when the name is ambiguous, or when the card belongs to another house than ``house``.
    """
    key = normalize_name(text)
    if not key:
        raise InvalidInput(path, "no card named", "a card name like 'Tywin Lannister'")
    index = _INDEX_ALL if house is None else _INDEX_BY_HOUSE[house]
    for candidate in (key, _strip_honorifics(key)):
        if candidate in index:
            return index[candidate]
    shared = [c for c in HOUSE_CARDS if c in _SHARED_WORDS.get(key, ())
              and (house is None or c.house is house)]
    if len(shared) > 1:
        raise InvalidInput(path, f"{text!r} could be several cards",
                           "one of " + ", ".join(c.name for c in shared))
    close = difflib.get_close_matches(key, list(index), n=6, cutoff=0.75)
    matched = {index[k].name: index[k] for k in close}
    if len(matched) == 1:
        return next(iter(matched.values()))
    if house is not None:
        elsewhere = _INDEX_ALL.get(key) or _INDEX_ALL.get(_strip_honorifics(key))
        if elsewhere is not None and elsewhere.house is not None:
            raise InvalidInput(
                path,
                f"{elsewhere.name} is a {elsewhere.house.display} card, not {house.display}",
                "one of " + ", ".join(card_names(house)),
            )
    pool = card_names(house)
    hint = sorted(matched) if matched else pool
    owner = f" of {house.display}" if house is not None else ""
    raise InvalidInput(
        path,
        f"{text!r} is not a House card{owner}" + (" (did you mean one of these?)" if matched
                                                   else ""),
        "one of " + ", ".join(hint),
    )


def parse_card_numbers(text: str, path: str = "card") -> HouseCard | None:
    """A card written as numbers, "3/1/0" (strength/swords/fortifications) or "3"; else ``None``.

    Raises :class:`InvalidInput` when the text looks numeric but is malformed ("3/x").
    """
    cleaned = text.strip()
    if not cleaned or not (cleaned[0].isdigit()):
        return None
    parts = cleaned.split("/")
    if len(parts) > 3 or not all(p.strip().isdigit() for p in parts):
        raise InvalidInput(path, f"{text!r} is not a card", "strength/swords/fortifications, "
                           "e.g. 3/1/0")
    numbers = [int(p) for p in parts] + [0] * (3 - len(parts))
    return custom_card(numbers[0], numbers[1], numbers[2])
