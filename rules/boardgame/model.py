"""The pieces of a board game combat as frozen values.

A combat is described by one :class:`CombatSetup`: the two :class:`Combatant` sides (house,
units, order, house card and the choices their cards may need), the embattled area, the Support
orders around it, the tracks that break ties, and -- only when a defender may have to retreat --
the areas next to it. Every field but the two sides has a default, so a plain fight is short to
write. Values check themselves on construction and raise :class:`rules.errors.InvalidInput`
naming the field; rules that need both sides at once are checked by
:func:`rules.boardgame.combat.resolve_combat`.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from rules.errors import InvalidInput

MAX_UNITS_OF_A_KIND = 99


class House(StrEnum):
    """The six Great Houses of the base game."""

    STARK = "stark"
    LANNISTER = "lannister"
    BARATHEON = "baratheon"
    GREYJOY = "greyjoy"
    TYRELL = "tyrell"
    MARTELL = "martell"

    @property
    def display(self) -> str:
        """The house name as printed ("Stark")."""
        return self.value.capitalize()


HOUSE_NAMES = ", ".join(h.display for h in House)


def parse_house(text: str, path: str = "house") -> House:
    """The house named by ``text``: case-insensitive, "House " optional, a 3-letter prefix will do.

    Raises :class:`InvalidInput` naming ``path`` when no house (or more than one) matches.
    """
    folded = " ".join(str(text).lower().split())
    folded = folded.removeprefix("house ").strip()
    if not folded:
        raise InvalidInput(path, "is empty", f"one of {HOUSE_NAMES}")
    for house in House:
        if folded == house.value:
            return house
    matches = [h for h in House if len(folded) >= 3 and h.value.startswith(folded)]
    if len(matches) == 1:
        return matches[0]
    raise InvalidInput(path, f"{text!r} is not a house of the base game", f"one of {HOUSE_NAMES}")


class AreaKind(StrEnum):
    """What kind of area: combat happens on land or at sea; ports matter only for retreats."""

    LAND = "land"
    SEA = "sea"
    PORT = "port"


class Structure(StrEnum):
    """What the embattled land area holds; siege engines only count against a castle/stronghold."""

    NONE = "none"
    CASTLE = "castle"
    STRONGHOLD = "stronghold"


class OrderKind(StrEnum):
    """The five kinds of Order token."""

    MARCH = "march"
    DEFENSE = "defense"
    SUPPORT = "support"
    RAID = "raid"
    CONSOLIDATE_POWER = "consolidate"


# The printed values each kind of order can carry (the starred order is the larger one).
ORDER_BONUSES: dict[OrderKind, tuple[int, ...]] = {
    OrderKind.MARCH: (-1, 0, 1),
    OrderKind.DEFENSE: (1, 2),
    OrderKind.SUPPORT: (0, 1),
    OrderKind.RAID: (0,),
    OrderKind.CONSOLIDATE_POWER: (0,),
}


class SupportTo(StrEnum):
    """Whom a Support order backs in this combat: a side, or nobody (refused either way)."""

    ATTACKER = "attacker"
    DEFENDER = "defender"
    NOBODY = "nobody"


class Role(StrEnum):
    """The two sides of a combat."""

    ATTACKER = "attacker"
    DEFENDER = "defender"

    @property
    def other(self) -> Role:
        """The opposing role."""
        return Role.DEFENDER if self is Role.ATTACKER else Role.ATTACKER


class Track(StrEnum):
    """The three influence tracks (Doran Martell names one of them)."""

    IRON_THRONE = "iron_throne"
    FIEFDOMS = "fiefdoms"
    KINGS_COURT = "kings_court"


class Upgrade(StrEnum):
    """Renly Baratheon's optional upgrade after a win.

    ``AUTO`` upgrades a participating footman if there is one, else a supporting Baratheon
    footman; ``NONE`` declines; the other two insist on one source.
    """

    AUTO = "auto"
    PARTICIPATING = "participating"
    SUPPORTING = "supporting"
    NONE = "none"


class Ability(StrEnum):
    """The text abilities of the base game's House cards (one per card that has text)."""

    ROBB_STARK = "robb_stark"
    ROOSE_BOLTON = "roose_bolton"
    THE_BLACKFISH = "the_blackfish"
    CATELYN_STARK = "catelyn_stark"
    TYWIN_LANNISTER = "tywin_lannister"
    TYRION_LANNISTER = "tyrion_lannister"
    SER_KEVAN_LANNISTER = "ser_kevan_lannister"
    CERSEI_LANNISTER = "cersei_lannister"
    STANNIS_BARATHEON = "stannis_baratheon"
    RENLY_BARATHEON = "renly_baratheon"
    SER_DAVOS_SEAWORTH = "ser_davos_seaworth"
    SALLADHOR_SAAN = "salladhor_saan"
    PATCHFACE = "patchface"
    VICTARION_GREYJOY = "victarion_greyjoy"
    BALON_GREYJOY = "balon_greyjoy"
    THEON_GREYJOY = "theon_greyjoy"
    ASHA_GREYJOY = "asha_greyjoy"
    AERON_DAMPHAIR = "aeron_damphair"
    MACE_TYRELL = "mace_tyrell"
    SER_LORAS_TYRELL = "ser_loras_tyrell"
    QUEEN_OF_THORNS = "queen_of_thorns"
    NYMERIA_SAND = "nymeria_sand"
    ARIANNE_MARTELL = "arianne_martell"
    DORAN_MARTELL = "doran_martell"


def _check_count(path: str, value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidInput(path, f"must be a whole number, not {value!r}", "e.g. 2")
    if not 0 <= value <= MAX_UNITS_OF_A_KIND:
        raise InvalidInput(path, f"must be between 0 and {MAX_UNITS_OF_A_KIND}, not {value}")


@dataclass(frozen=True, slots=True)
class Units:
    """A group of units counted by kind."""

    footmen: int = 0
    knights: int = 0
    ships: int = 0
    siege_engines: int = 0

    def __post_init__(self) -> None:
        for name in ("footmen", "knights", "ships", "siege_engines"):
            value = getattr(self, name)
            if type(value) is not int or not 0 <= value <= MAX_UNITS_OF_A_KIND:
                _check_count(f"units.{name}", value)

    @property
    def total(self) -> int:
        """How many units, whatever their kind."""
        return self.footmen + self.knights + self.ships + self.siege_engines

    @property
    def land(self) -> int:
        """Footmen, knights and siege engines: the units that live on land."""
        return self.footmen + self.knights + self.siege_engines

    def __add__(self, other: Units) -> Units:
        return Units(
            self.footmen + other.footmen,
            self.knights + other.knights,
            self.ships + other.ships,
            self.siege_engines + other.siege_engines,
        )

    def __sub__(self, other: Units) -> Units:
        return Units(
            self.footmen - other.footmen,
            self.knights - other.knights,
            self.ships - other.ships,
            self.siege_engines - other.siege_engines,
        )

    def covers(self, other: Units) -> bool:
        """Whether every kind in ``other`` is present here at least as often."""
        return (
            self.footmen >= other.footmen
            and self.knights >= other.knights
            and self.ships >= other.ships
            and self.siege_engines >= other.siege_engines
        )

    def describe(self) -> str:
        """Plain English: "2 knights, 1 footman" ("no units" when empty)."""
        parts = []
        for count, one, many in (
            (self.footmen, "footman", "footmen"),
            (self.knights, "knight", "knights"),
            (self.ships, "ship", "ships"),
            (self.siege_engines, "siege engine", "siege engines"),
        ):
            if count:
                parts.append(f"{count} {one if count == 1 else many}")
        return ", ".join(parts) if parts else "no units"


NO_UNITS = Units()


@dataclass(frozen=True, slots=True)
class Order:
    """An Order token: its kind and printed bonus (March -1/0/+1, Defense +1/+2, Support 0/+1)."""

    kind: OrderKind
    bonus: int = 0

    def __post_init__(self) -> None:
        allowed = ORDER_BONUSES[self.kind]
        if isinstance(self.bonus, bool) or self.bonus not in allowed:
            shown = ", ".join(f"{b:+d}" for b in allowed)
            raise InvalidInput(
                f"order.{self.kind.value}",
                f"a {self.kind.value} order cannot carry {self.bonus!r}",
                f"one of {shown}",
            )

    def describe(self) -> str:
        """"March +1", "Defense +2", "Raid"."""
        name = "Consolidate Power" if self.kind is OrderKind.CONSOLIDATE_POWER else (
            self.kind.value.capitalize()
        )
        if self.kind in (OrderKind.RAID, OrderKind.CONSOLIDATE_POWER):
            return name
        return f"{name} {self.bonus:+d}"


MARCH = Order(OrderKind.MARCH, 0)


@dataclass(frozen=True, slots=True)
class Support:
    """One area with a Support order next to the embattled area.

    ``units`` are all the units in that area (an area holds ships or land units, never both);
    ``bonus`` is the order's printed +1 (starred Support) or 0; ``to`` is whom the support ends up
    backing, ``NOBODY`` when the supporter withheld it or the supported player refused it.
    ``label`` names the area (Queen of Thorns points at it). ``adjacent`` must be true: support
    only reaches the embattled area from next door.
    """

    house: House
    units: Units
    to: SupportTo
    bonus: int = 0
    label: str = ""
    adjacent: bool = True

    def __post_init__(self) -> None:
        if self.bonus not in ORDER_BONUSES[OrderKind.SUPPORT] or isinstance(self.bonus, bool):
            raise InvalidInput("support.bonus", f"cannot be {self.bonus!r}", "0 or +1")
        if self.units.ships and self.units.land:
            raise InvalidInput(
                "support.units",
                "an area holds either ships or land units, not both",
                "ships alone (sea area or port) or footmen/knights/siege engines alone",
            )
        if self.units.total == 0:
            raise InvalidInput("support.units", "a Support order needs units in its area")


@dataclass(frozen=True, slots=True)
class RetreatArea:
    """An area the losing defender might retreat to.

    ``enemy``: it holds enemy units or an enemy Power token. ``friendly_units``: how many of the
    retreating player's units are already there. ``max_army``: the largest army the player's
    supply allows in that area (``None``: not limited here). ``origin``: the attackers marched
    from it. ``by_transport``: reached through a chain of friendly ships rather than a border.
    """

    name: str
    kind: AreaKind = AreaKind.LAND
    enemy: bool = False
    friendly_units: int = 0
    max_army: int | None = None
    origin: bool = False
    by_transport: bool = False

    def __post_init__(self) -> None:
        if not self.name.strip():
            raise InvalidInput("retreat_areas.name", "must not be empty", "e.g. 'Riverrun'")
        _check_count("retreat_areas.friendly_units", self.friendly_units)
        if self.max_army is not None:
            _check_count("retreat_areas.max_army", self.max_army)
        if self.enemy and self.friendly_units:
            raise InvalidInput(
                "retreat_areas", f"{self.name} cannot hold both enemy and friendly units"
            )


@dataclass(frozen=True, slots=True)
class HouseCard:
    """A House card: printed values, the house it belongs to and its ability (if any).

    A card given as bare numbers (``house is None``) has no ability: see :func:`custom_card`.
    """

    house: House | None
    name: str
    strength: int
    swords: int
    fortifications: int
    ability: Ability | None = None
    summary: str = ""

    def __post_init__(self) -> None:
        for name in ("strength", "swords", "fortifications"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 20:
                raise InvalidInput(f"card.{name}", f"must be a whole number 0-20, not {value!r}")

    @property
    def is_custom(self) -> bool:
        """Whether the card was given as numbers rather than named."""
        return self.house is None

    def describe(self) -> str:
        """"Tywin Lannister (4, 0 swords, 0 fortifications)"."""
        return (
            f"{self.name} ({self.strength}, {self.swords} sword{'s' * (self.swords != 1)}, "
            f"{self.fortifications} fortification{'s' * (self.fortifications != 1)})"
        )


def custom_card(strength: int, swords: int = 0, fortifications: int = 0,
                name: str = "") -> HouseCard:
    """A card given by its numbers, with no text ability."""
    label = name or f"card {strength}/{swords}/{fortifications}"
    return HouseCard(None, label, strength, swords, fortifications)


@dataclass(frozen=True, slots=True)
class Combatant:
    """One side of the combat and the choices its player (and card) may need.

    ``units`` fight; ``routed`` units sit in the area but add nothing (defender only: routed
    units cannot march). ``order`` is the attacker's March order, or whatever Order the defender
    has in the embattled area. ``card`` is the House card chosen; ``replacement`` is the card
    revealed instead when Tyrion Lannister sends ``card`` back or Aeron Damphair is swapped out.
    ``discard`` is the discard pile before this combat (named cards; it decides Davos, Roose
    Bolton and the hand refresh).

    Card choices: ``cancel_opponent_card`` (Tyrion), ``queen_removes`` (Queen of Thorns: the label
    of an opponent's Support, or any other order), ``doran_track`` (Doran Martell), ``upgrade``
    (Renly), ``patchface_discard`` (Patchface), ``power_tokens`` (available tokens, checked for
    Aeron when given). ``use_blade``: use the Valyrian Steel Blade if this side holds it.
    """

    house: House
    units: Units
    card: HouseCard | None
    routed: Units = NO_UNITS
    order: Order | None = None
    replacement: HouseCard | None = None
    discard: tuple[HouseCard, ...] = ()
    cancel_opponent_card: bool = False
    queen_removes: str | None = None
    doran_track: Track | None = None
    upgrade: Upgrade = Upgrade.AUTO
    patchface_discard: HouseCard | None = None
    power_tokens: int | None = None
    use_blade: bool = True


@dataclass(frozen=True, slots=True)
class CombatSetup:
    """Everything one combat needs.

    ``area``/``structure``: the embattled area. ``garrison``: the defender's garrison token value
    there. ``blade_holder``/``blade_available``: who holds the Valyrian Steel Blade and whether it
    is still unused this round. ``fiefdoms``/``iron_throne``: track order from position 1 (only
    needed for a tie, Stannis, or Doran). ``defender_power_token``: the defender controls the
    area with a Power token. ``retreat_areas``: candidates for a losing defender (``None``: not
    described, the retreat is left to the players). ``retreat_to``: the area chosen (by the
    defender, or by Robb Stark's player). ``casualties``: which units the loser removes
    (``None``: siege engines first, then footmen, ships, knights).
    """

    attacker: Combatant
    defender: Combatant
    area: AreaKind = AreaKind.LAND
    structure: Structure = Structure.NONE
    garrison: int = 0
    supports: tuple[Support, ...] = ()
    blade_holder: House | None = None
    blade_available: bool = True
    fiefdoms: tuple[House, ...] = ()
    iron_throne: tuple[House, ...] = ()
    defender_power_token: bool = False
    retreat_areas: tuple[RetreatArea, ...] | None = None
    retreat_to: str | None = None
    casualties: Units | None = None

    def side(self, role: Role) -> Combatant:
        """The combatant playing ``role``."""
        return self.attacker if role is Role.ATTACKER else self.defender
