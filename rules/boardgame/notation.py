"""A compact text form of a combat, for bot commands and the JSON interface.

One line describes a combat the way players talk about it::

    Lannister 2 knights 1 footman march +1 card Tywin vs Stark 2 footmen defense +1 card Catelyn

The attacker comes first, then ``vs`` (or ``defender``) and the defender; words like
``attacker``, ``card``, ``with`` and ``and`` are optional. Anything about the whole combat can
follow anywhere, separated by ``;`` when it helps reading: the area (``in sea``, ``in castle``),
``garrison 2``, supports, the tracks, the blade, retreat areas. :func:`format_setup` writes the
canonical form and :func:`parse_setup` reads it back to an equal setup. The grammar is in
docs/engines/boardgame.md.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass, field

from rules.boardgame.cards import find_card, parse_card_numbers
from rules.boardgame.model import (
    NO_UNITS,
    Ability,
    AreaKind,
    Combatant,
    CombatSetup,
    House,
    HouseCard,
    Order,
    OrderKind,
    RetreatArea,
    Role,
    Structure,
    Support,
    SupportTo,
    Track,
    Units,
    Upgrade,
    parse_house,
)
from rules.errors import InvalidInput

EXAMPLE = ("Lannister 2 knights 1 footman march +1 card Tywin Lannister vs Stark 2 footmen "
           "defense +1 card Catelyn Stark")

_NUMBER_WORDS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "zero": 0,
}
_KINDS = {
    "footman": "footmen", "footmen": "footmen", "foot": "footmen", "footsoldier": "footmen",
    "footsoldiers": "footmen", "infantry": "footmen", "soldier": "footmen",
    "soldiers": "footmen",
    "knight": "knights", "knights": "knights", "cavalry": "knights", "horse": "knights",
    "horses": "knights",
    "ship": "ships", "ships": "ships", "boat": "ships", "boats": "ships", "fleet": "ships",
    "siege": "siege_engines", "engine": "siege_engines", "engines": "siege_engines",
    "siege-engine": "siege_engines", "siege-engines": "siege_engines",
    "siege_engine": "siege_engines", "siege_engines": "siege_engines",
    "catapult": "siege_engines", "catapults": "siege_engines",
}
_FILLER = {"and", "with", "plus", "&", "the", "house", "has", "have", "of"}
_NOT_COUNTS = {"a", "an"}
_ATTACKER_WORDS = {"attacker", "attacking", "attacks", "attack"}
_DEFENDER_WORDS = {"defender", "defending", "defends"}
_VERSUS = {"vs", "vs.", "v", "versus", "against"}
_TRACKS = {
    "iron": Track.IRON_THRONE, "throne": Track.IRON_THRONE, "fiefdoms": Track.FIEFDOMS,
    "fiefdom": Track.FIEFDOMS, "blade": Track.FIEFDOMS, "kings": Track.KINGS_COURT,
    "king's": Track.KINGS_COURT, "court": Track.KINGS_COURT, "raven": Track.KINGS_COURT,
    "ravens": Track.KINGS_COURT,
}
_ORDER_KINDS = {
    "march": OrderKind.MARCH, "defense": OrderKind.DEFENSE, "defence": OrderKind.DEFENSE,
    "support": OrderKind.SUPPORT, "raid": OrderKind.RAID,
    "consolidate": OrderKind.CONSOLIDATE_POWER, "cp": OrderKind.CONSOLIDATE_POWER,
}
_TRACK_WORDS = {Track.IRON_THRONE: "throne", Track.FIEFDOMS: "fiefdoms",
                Track.KINGS_COURT: "court"}
_SIDE_KEYWORDS = {
    "march", "defense", "defence", "order", "card", "instead", "cancel", "cancels",
    "discard", "discarded", "discards", "remove", "removes", "track", "upgrade", "power",
    "routed", "blade", "token", "garrison",
}
_GLOBAL_KEYWORDS = {
    "in", "at", "sea", "land", "castle", "stronghold", "support", "supports", "supported",
    "fiefdoms", "fiefdom", "throne", "iron", "area", "areas", "retreat", "retreats",
    "casualties", "casualty",
}
_SUPPORT_WORDS = {"for", "to", "refused", "refuses", "declined"}
_STOP = _SIDE_KEYWORDS | _GLOBAL_KEYWORDS | _ATTACKER_WORDS | _DEFENDER_WORDS | _VERSUS
# Words that end a place name: everything that starts a clause, but not "sea", "castle",
# "land" or "in", which are common in names ("Sea of Dorne", "Castle Black").
_NAME_STOP = (_SIDE_KEYWORDS | _ATTACKER_WORDS | _DEFENDER_WORDS | _VERSUS | {
    "support", "supports", "supported", "fiefdoms", "fiefdom", "throne", "area", "areas",
    "retreat", "retreats", "casualties", "casualty"}) - {"power", "token", "order"}

_TOKEN = re.compile(r"[;,]|[^\s;,]+")
_CHOICE_CARDS = {
    "cancel": Ability.TYRION_LANNISTER, "cancels": Ability.TYRION_LANNISTER,
    "discards": Ability.PATCHFACE, "remove": Ability.QUEEN_OF_THORNS,
    "removes": Ability.QUEEN_OF_THORNS, "track": Ability.DORAN_MARTELL,
    "upgrade": Ability.RENLY_BARATHEON,
}
"""A card choice's word and the ability of the card whose owner makes the choice."""


def _tokenize(text: str) -> list[str]:
    text = text.replace("’", "'")
    # "march+1" and "defense+2" read as two words.
    text = re.sub(r"([A-Za-z])([+-]\d)", r"\1 \2", text)
    return _TOKEN.findall(text)


def _as_number(token: str) -> int | None:
    low = token.lower()
    if low in _NUMBER_WORDS:
        return _NUMBER_WORDS[low]
    if re.fullmatch(r"[+-]?\d+", token):
        return int(token)
    return None


@dataclass
class _SideDraft:
    house: House | None = None
    units: dict[str, int] = field(default_factory=dict)
    routed: dict[str, int] = field(default_factory=dict)
    order: Order | None = None
    card: HouseCard | None = None
    replacement: HouseCard | None = None
    discard: list[HouseCard] = field(default_factory=list)
    cancel: bool = False
    queen_removes: str | None = None
    doran_track: Track | None = None
    upgrade: Upgrade = Upgrade.AUTO
    patchface: str | None = None
    power_tokens: int | None = None
    use_blade: bool = True


@dataclass
class _Draft:
    area: AreaKind = AreaKind.LAND
    structure: Structure = Structure.NONE
    garrison: int = 0
    supports: list[Support] = field(default_factory=list)
    blade_holder: House | None = None
    blade_available: bool = True
    fiefdoms: tuple[House, ...] = ()
    iron_throne: tuple[House, ...] = ()
    token: bool = False
    areas: list[RetreatArea] | None = None
    retreat_to: str | None = None
    casualties: Units | None = None


class _Parser:
    def __init__(self, text: str) -> None:
        self.tokens = _tokenize(text)
        self.pos = 0
        self.sides = {Role.ATTACKER: _SideDraft(), Role.DEFENDER: _SideDraft()}
        self.draft = _Draft()
        self.role = Role.ATTACKER
        self.shared = False
        """In a part after ``;`` (about the whole combat) rather than in a side's part."""

    # -- token helpers
    def peek(self, offset: int = 0) -> str | None:
        i = self.pos + offset
        return self.tokens[i] if i < len(self.tokens) else None

    def low(self, offset: int = 0) -> str:
        tok = self.peek(offset)
        return tok.lower() if tok is not None else ""

    def take(self) -> str:
        tok = self.tokens[self.pos]
        self.pos += 1
        return tok

    def fail(self, field_: str, message: str, expected: str = "") -> InvalidInput:
        return InvalidInput(field_, message, expected or f"e.g. {EXAMPLE!r}")

    def phrase(self, stops: Collection[str] = ()) -> str:
        """Words up to a keyword, a number, ``;`` or ``,``."""
        words: list[str] = []
        while (tok := self.peek()) is not None:
            low = tok.lower()
            if tok in ";," or low in _STOP or low in stops or _as_number(tok) is not None:
                break
            if low in _FILLER and not words:
                self.pos += 1
                continue
            words.append(self.take())
        return " ".join(words)

    def name(self, stops: Collection[str] = ()) -> list[str]:
        """A place name: raw words up to ``;``, ``,`` or a word that starts a clause."""
        words: list[str] = []
        while (tok := self.peek()) is not None:
            low = tok.lower()
            if tok in ";," or low in _NAME_STOP or low in stops:
                break
            words.append(self.take())
        return words

    def try_house(self) -> House | None:
        low = self.low()
        if low == "house" and self.peek(1) is not None:
            try:
                house = parse_house(self.low(1))
            except InvalidInput:
                return None
            self.pos += 2
            return house
        if not low or _as_number(low) is not None or low in _STOP:
            return None
        try:
            house = parse_house(low)
        except InvalidInput:
            return None
        self.pos += 1
        return house

    @property
    def side(self) -> _SideDraft:
        return self.sides[self.role]

    # -- grammar
    def parse(self) -> CombatSetup:
        while self.peek() is not None:
            self.step()
        return self.build()

    def step(self) -> None:
        tok = self.peek()
        assert tok is not None
        low = tok.lower()
        if tok in ";,":
            self.shared = self.shared or tok == ";"
            self.pos += 1
        elif low in _ATTACKER_WORDS:
            self.pos += 1
            self.switch(Role.ATTACKER)
        elif low in _DEFENDER_WORDS or low in _VERSUS:
            self.pos += 1
            self.switch(Role.DEFENDER)
        elif low in _FILLER and low != "house":
            self.pos += 1
        elif self.side.house is None:
            house = self.try_house()
            if house is None and low not in _GLOBAL_KEYWORDS:
                raise self.fail(f"{self.role.value}.house",
                                f"expected the {self.role.value}'s house, not {tok!r}",
                                "a house (Stark, Lannister, Baratheon, Greyjoy, Tyrell, "
                                f"Martell) first, e.g. {EXAMPLE!r}")
            if house is not None:
                self.side.house = house
            else:
                self.global_clause()
        elif low in _GLOBAL_KEYWORDS:
            self.global_clause()
        elif low in _SIDE_KEYWORDS:
            if self.shared:
                self.choice_owner(low)
            self.side_clause()
        elif _as_number(tok) is not None:
            if self.side.card is None and self.bare_number():
                # A number with no unit after it: the card's strength.
                self.side.card = self.card_clause(f"{self.role.value}.card")
            elif tok.startswith(("+", "-")) or self.bare_number():
                raise self.fail(self.role.value, f"did not understand {tok!r} here",
                                "a bonus right after its order (march +1, defense +2), or a "
                                "number of units with their kind (2 footmen)")
            else:
                self.units_clause(self.side.units, self.side.routed, f"{self.role.value}.units")
        else:
            self.bare_words()

    def switch(self, role: Role) -> None:
        self.role = role
        self.shared = False
        if self.low() in _DEFENDER_WORDS and role is Role.DEFENDER:
            self.pos += 1
        if self.sides[role].house is None:
            house = self.try_house()
            if house is not None:
                self.sides[role].house = house

    def choice_owner(self, word: str) -> None:
        """In a part about the whole combat, a card's choice (`; discards Eddard`, `;
        cancel`) is made by the side whose card makes it, not by whichever side was written
        last: `instead` by the side playing Aeron Damphair or facing Tyrion Lannister. When no
        side, or both, play that card, the side written last keeps it."""
        def plays(role: Role, ability: Ability) -> bool:
            card = self.sides[role].card
            return card is not None and card.ability is ability

        if word == "instead":
            owners = [r for r in Role if plays(r, Ability.AERON_DAMPHAIR)
                      or plays(r.other, Ability.TYRION_LANNISTER)]
        elif word in _CHOICE_CARDS:
            owners = [r for r in Role if plays(r, _CHOICE_CARDS[word])]
        else:
            return
        if len(owners) == 1:
            self.role = owners[0]

    def played_card(self, name: str) -> Role | None:
        """In a part about the whole combat, the side whose card ``name`` names (`; Tyrion
        cancel`), so that the choice after it is that side's."""
        for role in Role:
            side = self.sides[role]
            if side.card is None or side.house is None:
                continue
            try:
                if find_card(name, side.house, role.value).name == side.card.name:
                    return role
            except InvalidInput:
                continue
        return None

    def bare_words(self) -> None:
        start = self.peek()
        name = self.phrase()
        if not name:
            raise self.fail(self.role.value, f"did not understand {start!r}")
        if self.shared and (role := self.played_card(name)) is not None:
            self.role = role
            return
        if self.side.card is None:
            self.side.card = self.card(name, f"{self.role.value}.card")
            return
        raise self.fail(self.role.value, f"did not understand {name!r} (the card is already "
                        f"{self.side.card.name})")

    def card(self, text: str, path: str, house: House | None = None) -> HouseCard:
        numbers = parse_card_numbers(text, path)
        if numbers is not None:
            return numbers
        return find_card(text, house or self.side.house, path)

    def card_clause(self, path: str) -> HouseCard:
        tok = self.peek()
        if tok is not None and re.fullmatch(r"\d+(/\d+){0,2}", tok):
            self.pos += 1
            values = [int(p) for p in tok.split("/")]
            while len(values) < 3:
                number = _as_number(self.peek() or "")
                word = self.low(1)
                if number is not None and word.startswith("sword") and len(values) == 1:
                    values.append(number)
                    self.pos += 2
                elif number is not None and word.startswith(("fort", "tower")):
                    values += [0] * (2 - len(values)) + [number]
                    self.pos += 2
                else:
                    break
            values += [0] * (3 - len(values))
            return self.card("/".join(str(v) for v in values), path)
        name = self.phrase()
        if not name:
            raise self.fail(path, "expected a card name or numbers",
                            "e.g. 'card Tywin Lannister' or 'card 3/1/0'")
        return self.card(name, path)

    def units_clause(self, units: dict[str, int], routed: dict[str, int], path: str) -> None:
        """One or more "<n> [routed] <kind>" groups."""
        while (number := _as_number(self.peek() or "")) is not None:
            if (self.peek() or "").startswith(("+", "-")) or self.bare_number():
                return  # a bonus such as "+1" or a card's strength, not a number of units
            tok = self.take()
            target = units
            if self.low() == "routed":
                self.pos += 1
                target = routed
            kind = _KINDS.get(self.low())
            if kind is None:
                raise self.fail(path, f"{self.peek() or 'nothing'!r} after {tok} is not a unit",
                                "footmen, knights, ships or siege engines, e.g. '2 knights'")
            self.pos += 1
            if kind == "siege_engines" and self.low() in ("engine", "engines"):
                self.pos += 1
            target[kind] = target.get(kind, 0) + number
            while self.low() in ("and", ",", "&", "plus"):
                if _as_number(self.peek(1) or "") is None:
                    break
                self.pos += 1

    def bare_number(self) -> bool:
        """Whether the next token is digits standing alone (nothing, or a keyword, after it)."""
        tok, follower = self.peek(), self.peek(1)
        if tok is None or not re.fullmatch(r"\d+(/\d+){0,2}", tok):
            return False
        if follower is None or follower in ";,":
            return True
        return follower.lower() in _STOP and follower.lower() != "routed"

    def bonus(self, path: str, default: int | None = None) -> int:
        tok = self.peek()
        number = _as_number(tok) if tok is not None and tok.lower() not in _NOT_COUNTS else None
        if number is None:
            if default is None:
                raise self.fail(path, "expected a bonus like +1", "+1, +0 or -1")
            return default
        self.pos += 1
        return number

    def side_clause(self) -> None:
        side, role = self.side, self.role.value
        word = self.take().lower()
        if word == "march":
            side.order = Order(OrderKind.MARCH, self.bonus(f"{role}.march", 0))
        elif word in ("defense", "defence"):
            side.order = Order(OrderKind.DEFENSE, self.bonus(f"{role}.defense", 1))
        elif word == "order":
            kind = _ORDER_KINDS.get(self.low())
            if kind is None:
                raise self.fail(f"{role}.order", f"{self.peek()!r} is not an order",
                                "march, defense, support, raid or consolidate")
            self.pos += 1
            if kind is OrderKind.CONSOLIDATE_POWER and self.low() == "power":
                self.pos += 1
            default = 1 if kind is OrderKind.DEFENSE else 0
            side.order = Order(kind, self.bonus(f"{role}.order", default))
        elif word == "card":
            side.card = self.card_clause(f"{role}.card")
        elif word == "instead":
            side.replacement = self.card_clause(f"{role}.replacement")
        elif word in ("cancel", "cancels"):
            side.cancel = True
        elif word in ("discard", "discarded"):
            while True:
                name = self.phrase()
                if not name:
                    break
                side.discard.append(self.card(name, f"{role}.discard"))
                if self.peek() != ",":
                    break
                self.pos += 1
            if not side.discard:
                raise self.fail(f"{role}.discard", "expected card names",
                                "e.g. 'discard Eddard Stark, Robb Stark'")
        elif word == "discards":
            name = self.phrase()
            if not name:
                raise self.fail(f"{role}.patchface", "expected the card Patchface discards")
            side.patchface = name
        elif word in ("remove", "removes"):
            name = " ".join(self.name())
            if not name:
                raise self.fail(f"{role}.queen_removes", "expected the area whose order the "
                                "Queen of Thorns removes", "e.g. 'remove Blackwater'")
            side.queen_removes = name
        elif word == "track":
            track = _TRACKS.get(self.low())
            if track is None:
                raise self.fail(f"{role}.track", f"{self.peek()!r} is not an influence track",
                                "throne, fiefdoms or court")
            self.pos += 1
            while self.low() in ("throne", "court"):
                self.pos += 1
            side.doran_track = track
        elif word == "upgrade":
            choices = {"participating": Upgrade.PARTICIPATING, "supporting": Upgrade.SUPPORTING,
                       "none": Upgrade.NONE, "no": Upgrade.NONE, "auto": Upgrade.AUTO}
            side.upgrade = choices.get(self.low(), Upgrade.AUTO)
            if self.low() in choices:
                self.pos += 1
        elif word == "power":
            if self.low() == "token":
                self.pos += 1
                self.draft.token = True
            else:
                side.power_tokens = self.bonus(f"{role}.power", None)
        elif word == "token":
            self.draft.token = True
        elif word == "garrison":
            self.draft.garrison = self.bonus("garrison", None)
        elif word == "blade":
            holder = self.try_house() or side.house
            self.draft.blade_holder = holder
            while self.low() in ("unused", "kept", "spent", "faded", "used"):
                if self.take().lower() in ("unused", "kept"):
                    side.use_blade = holder is not side.house
                else:
                    self.draft.blade_available = False
        elif word == "routed":
            raise self.fail(f"{role}.routed", "write routed units as '<n> routed <kind>'",
                            "e.g. '1 routed footman'")

    def global_clause(self) -> None:
        word = self.take().lower()
        draft = self.draft
        if word in ("in", "at"):
            if self.low() in ("a", "an", "the"):
                self.pos += 1
            if self.low() not in ("sea", "land", "castle", "stronghold", "port"):
                raise self.fail("area", f"{self.peek()!r} is not a kind of area",
                                "in land, in sea, in castle or in stronghold")
            word = self.take().lower()
        if word == "sea":
            draft.area = AreaKind.SEA
        elif word == "land":
            draft.area = AreaKind.LAND
        elif word == "port":
            draft.area = AreaKind.PORT
        elif word == "castle":
            draft.structure = Structure.CASTLE
        elif word == "stronghold":
            draft.structure = Structure.STRONGHOLD
        elif word in ("support", "supports", "supported"):
            if self.low() == "by":
                self.pos += 1
            draft.supports.append(self.support_clause(len(draft.supports)))
        elif word in ("fiefdoms", "fiefdom", "throne", "iron"):
            if word == "iron" and self.low() == "throne":
                self.pos += 1
            houses = self.house_list(word)
            if word in ("fiefdoms", "fiefdom"):
                draft.fiefdoms = houses
            else:
                draft.iron_throne = houses
        elif word in ("area", "areas"):
            self.area_clause()
        elif word in ("retreat", "retreats"):
            if self.low() in ("to", "into"):
                self.pos += 1
            name = " ".join(self.name())
            if not name:
                raise self.fail("retreat_to", "expected the retreat area's name",
                                "e.g. 'retreat Riverrun'")
            draft.retreat_to = name
        elif word in ("casualties", "casualty"):
            units: dict[str, int] = {}
            self.units_clause(units, {}, "casualties")
            draft.casualties = Units(**units)

    def house_list(self, track: str) -> tuple[House, ...]:
        houses: list[House] = []
        while True:
            if self.peek() == "," or self.low() in (">", "then"):
                self.pos += 1
                continue
            house = self.try_house()
            if house is None:
                break
            houses.append(house)
        if not houses:
            raise self.fail(track, "expected houses in track order, first place first",
                            f"e.g. '{track} Stark Lannister Baratheon'")
        return tuple(houses)

    def support_clause(self, index: int) -> Support:
        path = f"supports[{index}]"
        house = self.try_house()
        if house is None:
            raise self.fail(path, f"expected the supporting house, not {self.peek()!r}",
                            "e.g. 'support Baratheon 1 knight +1 for defender'")
        units: dict[str, int] = {}
        self.units_clause(units, {}, f"{path}.units")
        bonus = 0
        to: SupportTo | None = None
        label = ""
        while True:
            tok = self.peek()
            low = self.low()
            if tok is not None and re.fullmatch(r"\+\d+", tok):
                bonus = int(tok)
                self.pos += 1
            elif low in ("for", "to"):
                self.pos += 1
                target = self.low()
                if target in _ATTACKER_WORDS:
                    to = SupportTo.ATTACKER
                elif target in _DEFENDER_WORDS:
                    to = SupportTo.DEFENDER
                elif target in ("none", "nobody", "noone", "no-one"):
                    to = SupportTo.NOBODY
                else:
                    raise self.fail(f"{path}.to", f"{self.peek()!r} is not a side",
                                    "for attacker, for defender, or refused")
                self.pos += 1
            elif low in ("refused", "refuses", "declined", "none", "nobody"):
                to = SupportTo.NOBODY
                self.pos += 1
            elif low == "from":
                self.pos += 1
                label = " ".join(self.name(_SUPPORT_WORDS))
            else:
                break
        if to is None:
            to = SupportTo(self.role.value) if self.side.house is not None else SupportTo.NOBODY
        try:
            return Support(house, Units(**units), to, bonus, label)
        except InvalidInput as exc:
            raise InvalidInput(f"{path}.{exc.field.split('.')[-1]}", exc.message,
                               exc.expected) from None

    def area_clause(self) -> None:
        if self.low() in ("none", "nowhere"):
            self.pos += 1
            self.draft.areas = []
            return
        words = self.name()
        # Attributes trail the name: peel them off from the end ("Sea of Dorne sea max 3").
        # Each attribute is read once, and only in lower case, so "Sunset Sea land" keeps its
        # name and "Sea of Dorne sea" is a sea area.
        kind, enemy, friendly, max_army = AreaKind.LAND, False, 0, None
        origin = transport = False
        seen: set[str] = set()
        while len(words) > 1:
            last = words[-1]
            number = _as_number(last) if last.lower() not in _NOT_COUNTS else None
            before = words[-2].lower()
            if number is not None and before in ("friendly", "units") and "f" not in seen:
                friendly, seen = number, seen | {"f"}
                del words[-2:]
            elif number is not None and before in ("max", "supply") and "m" not in seen:
                max_army, seen = number, seen | {"m"}
                del words[-2:]
            elif last in ("land", "sea", "port") and "kind" not in seen:
                kind, seen = AreaKind(last), seen | {"kind"}
                words.pop()
            elif last in ("enemy", "origin", "transport") and last not in seen:
                enemy = enemy or last == "enemy"
                origin = origin or last == "origin"
                transport = transport or last == "transport"
                seen.add(last)
                words.pop()
            else:
                break
        if not words:
            raise self.fail("retreat_areas", "expected an area name",
                            "e.g. 'area Riverrun land friendly 2 max 3'")
        if self.draft.areas is None:
            self.draft.areas = []
        self.draft.areas.append(RetreatArea(" ".join(words), kind, enemy, friendly, max_army,
                                            origin, transport))

    def build(self) -> CombatSetup:
        combatants = {}
        for role, side in self.sides.items():
            if side.house is None:
                raise self.fail(f"{role.value}.house", f"no {role.value} given",
                                f"'<attacker> vs <defender>', e.g. {EXAMPLE!r}")
        for role, side in self.sides.items():
            opponent = self.sides[role.other].house
            patch = (find_card(side.patchface, opponent, f"{role.value}.patchface")
                     if side.patchface else None)
            assert side.house is not None
            combatants[role] = Combatant(
                house=side.house,
                units=Units(**side.units),
                card=side.card,
                routed=Units(**side.routed),
                order=side.order,
                replacement=side.replacement,
                discard=tuple(side.discard),
                cancel_opponent_card=side.cancel,
                queen_removes=side.queen_removes,
                doran_track=side.doran_track,
                upgrade=side.upgrade,
                patchface_discard=patch,
                power_tokens=side.power_tokens,
                use_blade=side.use_blade,
            )
        d = self.draft
        return CombatSetup(
            attacker=combatants[Role.ATTACKER],
            defender=combatants[Role.DEFENDER],
            area=d.area,
            structure=d.structure,
            garrison=d.garrison,
            supports=tuple(d.supports),
            blade_holder=d.blade_holder,
            blade_available=d.blade_available,
            fiefdoms=d.fiefdoms,
            iron_throne=d.iron_throne,
            defender_power_token=d.token,
            retreat_areas=tuple(d.areas) if d.areas is not None else None,
            retreat_to=d.retreat_to,
            casualties=d.casualties,
        )


def parse_setup(text: str) -> CombatSetup:
    """Read a combat written in the compact form (see the module docstring).

    Raises :class:`InvalidInput` naming the part that could not be read, with what was
    expected. The setup is not checked against the combat rules here: :func:`resolve_combat`
    does that.
    """
    if not text.strip():
        raise InvalidInput("combat", "nothing to resolve", f"e.g. {EXAMPLE!r}")
    return _Parser(text).parse()


# --------------------------------------------------------------------------- formatting


def format_units(units: Units, routed: Units = NO_UNITS) -> str:
    """"2 footmen 1 knight 1 routed footman" (the same words :func:`parse_setup` reads)."""
    parts = []
    for group, prefix in ((units, ""), (routed, "routed ")):
        for count, one, many in (
            (group.footmen, "footman", "footmen"), (group.knights, "knight", "knights"),
            (group.ships, "ship", "ships"), (group.siege_engines, "siege", "siege"),
        ):
            if count:
                parts.append(f"{count} {prefix}{one if count == 1 else many}")
    return " ".join(parts)


def format_card(card: HouseCard) -> str:
    """A card's name, or its numbers "3/1/0" when it was given as numbers."""
    if card.is_custom:
        return f"{card.strength}/{card.swords}/{card.fortifications}"
    return card.name


def _format_side(side: Combatant, role: Role, setup: CombatSetup) -> str:
    words = [role.value, side.house.display]
    units = format_units(side.units, side.routed)
    if units:
        words.append(units)
    if side.order is not None:
        o = side.order
        if o.kind is OrderKind.MARCH and role is Role.ATTACKER:
            words.append(f"march {o.bonus:+d}")
        else:
            words.append(f"order {o.kind.value} {o.bonus:+d}")
    if side.card is not None:
        words.append(f"card {format_card(side.card)}")
    if side.cancel_opponent_card:
        words.append("cancel")
    if side.replacement is not None:
        words.append(f"instead {format_card(side.replacement)}")
    if side.discard:
        words.append("discard " + ", ".join(c.name for c in side.discard))
    if side.queen_removes is not None:
        words.append(f"remove {side.queen_removes}")
    if side.doran_track is not None:
        words.append(f"track {_TRACK_WORDS[side.doran_track]}")
    if side.upgrade is not Upgrade.AUTO:
        words.append(f"upgrade {side.upgrade.value}")
    if side.patchface_discard is not None:
        words.append(f"discards {side.patchface_discard.name}")
    if side.power_tokens is not None:
        words.append(f"power {side.power_tokens}")
    if setup.blade_holder is side.house:
        words.append("blade" + ("" if side.use_blade else " unused")
                     + ("" if setup.blade_available else " spent"))
    return " ".join(words)


def format_setup(setup: CombatSetup) -> str:
    """The canonical compact form of ``setup``; :func:`parse_setup` reads it back unchanged."""
    parts = [_format_side(setup.attacker, Role.ATTACKER, setup) + " vs "
             + _format_side(setup.defender, Role.DEFENDER, setup)]
    where = []
    if setup.area is not AreaKind.LAND:
        where.append(setup.area.value)
    if setup.structure is not Structure.NONE:
        where.append(setup.structure.value)
    if where:
        parts.append("in " + " ".join(where))
    if setup.garrison:
        parts.append(f"garrison {setup.garrison}")
    if setup.defender_power_token:
        parts.append("power token")
    for s in setup.supports:
        text = f"support {s.house.display} {format_units(s.units)}"
        if s.bonus:
            text += f" +{s.bonus}"
        text += " refused" if s.to is SupportTo.NOBODY else f" for {s.to.value}"
        if s.label:
            text += f" from {s.label}"
        parts.append(text)
    holder = setup.blade_holder
    if holder is not None and holder not in (setup.attacker.house, setup.defender.house):
        parts.append(f"blade {holder.display}" + ("" if setup.blade_available else " spent"))
    if setup.fiefdoms:
        parts.append("fiefdoms " + " ".join(h.display for h in setup.fiefdoms))
    if setup.iron_throne:
        parts.append("throne " + " ".join(h.display for h in setup.iron_throne))
    if setup.retreat_areas is not None:
        if not setup.retreat_areas:
            parts.append("area none")
        for a in setup.retreat_areas:
            text = f"area {a.name} {a.kind.value}"
            if a.enemy:
                text += " enemy"
            if a.friendly_units:
                text += f" friendly {a.friendly_units}"
            if a.max_army is not None:
                text += f" max {a.max_army}"
            if a.origin:
                text += " origin"
            if a.by_transport:
                text += " transport"
            parts.append(text)
    if setup.retreat_to is not None:
        parts.append(f"retreat {setup.retreat_to}")
    if setup.casualties is not None:
        parts.append(f"casualties {format_units(setup.casualties) or '0 footmen'}")
    return "; ".join(parts)
