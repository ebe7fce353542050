"""Resolving one combat of A Game of Thrones: The Board Game (second edition).

:func:`resolve_combat` walks the six steps of the combat text in order -- call for support,
initial strength, House cards, the Valyrian Steel Blade, final strength, resolution (victor,
casualties, retreat, clean-up) -- and returns a :class:`CombatResult` holding every number it
used, so a reply can show the whole sum.

House card abilities are applied in a fixed order that agrees with the text's timing rules for
the base game's cards: the "cancel" ability (Tyrion) first, then Aeron's swap, then the
"immediately" abilities (Queen of Thorns, Mace Tyrell, Doran Martell), then the abilities that
change strength or icons, which are checked against the state those left behind (so Asha and
Salladhor see a support the Queen of Thorns removed, and Stannis sees Doran's move), and last
the "win/lose this combat" abilities. Nothing here rolls dice: a combat is decided by its input.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import StrEnum

from rules.boardgame.cards import CARDS_BY_HOUSE, normalize_name
from rules.boardgame.model import (
    NO_UNITS,
    Ability,
    AreaKind,
    Combatant,
    CombatSetup,
    House,
    HouseCard,
    OrderKind,
    RetreatArea,
    Role,
    Structure,
    Support,
    SupportTo,
    Track,
    Units,
    Upgrade,
)
from rules.errors import InvalidInput

HAND_SIZE = 7


class Outcome(StrEnum):
    """Who won the combat."""

    ATTACKER_WINS = "attacker_wins"
    DEFENDER_WINS = "defender_wins"

    @property
    def winner(self) -> Role:
        """The winning role."""
        return Role.ATTACKER if self is Outcome.ATTACKER_WINS else Role.DEFENDER


class Decision(StrEnum):
    """How the victor was found: a higher final strength, or the Fiefdoms track on a tie."""

    STRENGTH = "strength"
    FIEFDOMS = "fiefdoms"


class RetreatStatus(StrEnum):
    """What became of the loser's surviving units."""

    TO_ORIGIN = "to_origin"  # a losing attacker goes back where it marched from
    TO_AREA = "to_area"  # a losing defender retreats to the chosen (or only) legal area
    AWAITING_CHOICE = "awaiting_choice"  # several legal areas; nobody has chosen yet
    NO_LEGAL_AREA = "no_legal_area"  # nowhere to go: every retreating unit is destroyed
    NOT_DESCRIBED = "not_described"  # the candidate areas were not given
    NOTHING_LEFT = "nothing_left"  # no unit survived to retreat


class MarchOrderFate(StrEnum):
    """Where the attacker's March order goes after the combat."""

    REMOVED = "removed"
    MOVED_INTO_AREA = "moved_into_area"  # Ser Loras Tyrell


@dataclass(frozen=True, slots=True)
class SupportResult:
    """What one Support order contributed: ``strength`` for ``counted_for``, and why."""

    support: Support
    label: str
    strength: int
    counted_for: SupportTo
    note: str = ""


@dataclass(frozen=True, slots=True)
class Strength:
    """One side's combat strength, source by source.

    ``units``, ``support``, ``order`` and ``garrison`` make the initial strength (recalculated
    after card abilities that change it); ``announced`` is the initial strength before any card
    was revealed. ``card`` is the card's printed strength as it counts (0 under Balon Greyjoy),
    ``card_bonus`` the strength its text adds, ``blade`` the Valyrian Steel Blade's +1.
    """

    units: int
    support: int
    order: int
    garrison: int
    announced: int
    card: int = 0
    card_bonus: int = 0
    blade: int = 0

    @property
    def initial(self) -> int:
        """Units, support, order bonus and garrison (after card recalculations)."""
        return self.units + self.support + self.order + self.garrison

    @property
    def total(self) -> int:
        """Initial strength plus card and blade, before the floor at 0."""
        return self.initial + self.card + self.card_bonus + self.blade

    @property
    def final(self) -> int:
        """The final combat strength: never below 0."""
        return max(0, self.total)


@dataclass(frozen=True, slots=True)
class CardPiles:
    """A house's cards after the combat: hand and discard pile (names), and whether it refreshed."""

    hand: tuple[str, ...]
    discard: tuple[str, ...]
    refreshed: bool = False


@dataclass(frozen=True, slots=True)
class SideResult:
    """How the combat went for one side."""

    role: Role
    house: House
    card: HouseCard | None  # the card that counted (``None``: fought without one)
    cards_revealed: tuple[HouseCard, ...]  # every card revealed, in order
    strength: Strength
    swords: int
    fortifications: int
    units: Units = NO_UNITS  # the units that fought (after card abilities destroyed any)
    destroyed_by_card: Units = NO_UNITS
    casualties: Units = NO_UNITS
    destroyed_retreating: Units = NO_UNITS  # siege engines, supply losses, no legal area
    routed_destroyed: Units = NO_UNITS
    survivors: Units = NO_UNITS  # units left after the combat (retreated ones are now routed)
    survivors_routed: bool = False
    upgrade: Upgrade = Upgrade.NONE  # Renly Baratheon: which footman became a knight, if any
    power_gained: int = 0
    power_spent: int = 0
    piles: CardPiles | None = None

    @property
    def final(self) -> int:
        """Final combat strength."""
        return self.strength.final


@dataclass(frozen=True, slots=True)
class RetreatOption:
    """A legal retreat area and how many retreating units the supply limit would cost there."""

    name: str
    losses: int


@dataclass(frozen=True, slots=True)
class Retreat:
    """The loser's retreat."""

    role: Role
    status: RetreatStatus
    units: Units  # the units that had to retreat (after casualties, before retreat losses)
    area: str | None = None
    options: tuple[RetreatOption, ...] = ()
    chosen_by: Role | None = None
    supply_losses: Units = NO_UNITS


@dataclass(frozen=True, slots=True)
class Cleanup:
    """Step 4 of the resolution: which tokens leave the board."""

    march_order: MarchOrderFate
    defender_order_removed: bool
    defender_power_token_removed: bool
    support_orders_kept: tuple[str, ...]
    attacker_moves_in: bool
    # The defender's garrison token: it stays when the defender wins (the text never removes
    # it) and is removed when the defender loses the combat it fought in.
    garrison_after: int = 0
    garrison_removed: bool = False


@dataclass(frozen=True, slots=True)
class CombatResult:
    """The whole combat: outcome, both sides' breakdowns, casualties, retreat, clean-up."""

    outcome: Outcome
    decided_by: Decision
    attacker: SideResult
    defender: SideResult
    supports: tuple[SupportResult, ...]
    casualties: int  # required: victor's swords minus loser's fortifications (at least 0)
    casualties_taken: int  # those that could be taken (never routed units or siege engines)
    retreat: Retreat
    cleanup: Cleanup
    blade_used: bool
    effects: tuple[str, ...] = field(default=())

    @property
    def winner(self) -> SideResult:
        """The victor's side."""
        return self.side(self.outcome.winner)

    @property
    def loser(self) -> SideResult:
        """The defeated side."""
        return self.side(self.outcome.winner.other)

    def side(self, role: Role) -> SideResult:
        """The result for ``role``."""
        return self.attacker if role is Role.ATTACKER else self.defender


# --------------------------------------------------------------------------- validation


def _check_card_owner(path: str, card: HouseCard | None, house: House) -> None:
    if card is not None and card.house is not None and card.house is not house:
        raise InvalidInput(
            path,
            f"{card.name} is a {card.house.display} card; {house.display} cannot play it",
            "one of " + ", ".join(c.name for c in CARDS_BY_HOUSE[house]),
        )


def _validate_side(path: str, side: Combatant, role: Role, setup: CombatSetup) -> None:
    if side.card is None:
        raise InvalidInput(
            f"{path}.card",
            "playing a House card is mandatory for both attacker and defender",
            "a card name like 'Tywin Lannister' or numbers like 3/1/0",
        )
    if role is Role.ATTACKER:
        if side.order is not None and side.order.kind is not OrderKind.MARCH:
            raise InvalidInput(f"{path}.order", "the attacker is resolving a March order",
                               "march -1, march +0 or march +1")
        if side.routed.total:
            raise InvalidInput(f"{path}.routed", "routed units may not move, so never attack")
        if side.units.total == 0:
            raise InvalidInput(f"{path}.units", "the attacker needs at least one unit",
                               "e.g. 2 footmen")
    elif side.units.total + side.routed.total == 0:
        raise InvalidInput(f"{path}.units", "combat needs enemy units in the area",
                           "at least one defending unit")
    if side.routed.siege_engines:
        raise InvalidInput(f"{path}.routed", "siege engines are never routed (they cannot "
                           "retreat)")
    everyone = side.units + side.routed
    if setup.area is AreaKind.SEA and everyone.land:
        raise InvalidInput(f"{path}.units", "only ships fight in a sea area", "ships")
    if setup.area is AreaKind.LAND and everyone.ships:
        raise InvalidInput(f"{path}.units", "ships cannot fight in a land area",
                           "footmen, knights, siege engines")
    _check_card_owner(f"{path}.card", side.card, side.house)
    _check_card_owner(f"{path}.replacement", side.replacement, side.house)
    seen: set[str] = set()
    for card in side.discard:
        _check_card_owner(f"{path}.discard", card, side.house)
        if card.is_custom:
            raise InvalidInput(f"{path}.discard", "the discard pile lists named cards only")
        if card.name in seen:
            raise InvalidInput(f"{path}.discard", f"{card.name} is listed twice")
        seen.add(card.name)
    if len(side.discard) >= HAND_SIZE:
        raise InvalidInput(f"{path}.discard", "a house never has all seven cards discarded "
                           "(the hand refreshes after the seventh)", "at most 6 cards")
    for which, chosen in (("card", side.card), ("replacement", side.replacement)):
        if chosen is not None and chosen.name in seen:
            raise InvalidInput(f"{path}.{which}", f"{chosen.name} is in the discard pile",
                               "a card still in hand")
    if side.replacement is not None and side.card is not None and (
        side.replacement.name == side.card.name
    ):
        raise InvalidInput(f"{path}.replacement", "must be a different card")
    if side.cancel_opponent_card and side.card.ability is not Ability.TYRION_LANNISTER:
        raise InvalidInput(f"{path}.cancel", "only Tyrion Lannister sends the opponent's card "
                           "back")
    if side.power_tokens is not None and side.power_tokens < 0:
        raise InvalidInput(f"{path}.power_tokens", "cannot be negative")


def _validate(setup: CombatSetup) -> None:
    if setup.attacker.house is setup.defender.house:
        raise InvalidInput("defender.house", "a house cannot fight itself",
                           "two different houses")
    if setup.area is AreaKind.PORT:
        raise InvalidInput("area", "combat takes place in a land or sea area", "land or sea")
    if setup.area is AreaKind.SEA and setup.structure is not Structure.NONE:
        raise InvalidInput("structure", "a sea area has no castle or stronghold")
    if isinstance(setup.garrison, bool) or not 0 <= setup.garrison <= 10:
        raise InvalidInput("garrison", f"must be 0-10, not {setup.garrison!r}")
    if setup.garrison and setup.area is AreaKind.SEA:
        raise InvalidInput("garrison", "garrisons stand in land areas")
    _validate_side("attacker", setup.attacker, Role.ATTACKER, setup)
    _validate_side("defender", setup.defender, Role.DEFENDER, setup)
    labels: set[str] = set()
    for index, support in enumerate(setup.supports):
        path = f"supports[{index}]"
        if not support.adjacent:
            raise InvalidInput(path, "support reaches only the embattled area's neighbours "
                               "(not the area the March order came from, unless adjacent)")
        if support.to is SupportTo.DEFENDER and support.house is setup.attacker.house:
            raise InvalidInput(path, f"{support.house.display} may not support its opponent "
                               "against its own attacking units", "attacker or nobody")
        if support.to is SupportTo.ATTACKER and support.house is setup.defender.house:
            raise InvalidInput(path, f"{support.house.display} may not support its opponent "
                               "against its own defending units", "defender or nobody")
        if support.label:
            key = normalize_name(support.label)
            if key in labels:
                raise InvalidInput(path, f"two supports are labelled {support.label!r}")
            labels.add(key)
    for name, track in (("fiefdoms", setup.fiefdoms), ("iron_throne", setup.iron_throne)):
        if len(set(track)) != len(track):
            raise InvalidInput(name, "lists a house twice", "each house once, from position 1")
    if setup.retreat_areas is not None:
        names = [normalize_name(a.name) for a in setup.retreat_areas]
        if len(set(names)) != len(names):
            raise InvalidInput("retreat_areas", "two areas share a name")
        if setup.retreat_to is not None and normalize_name(setup.retreat_to) not in names:
            raise InvalidInput("retreat_to", f"{setup.retreat_to!r} is not one of the areas "
                               "described", "one of " + ", ".join(a.name for a in
                                                                  setup.retreat_areas))


# --------------------------------------------------------------------------- helpers


def _support_label(index: int, support: Support) -> str:
    return support.label or f"support {index + 1}"


def _is_higher(track: tuple[House, ...], bottom: House | None, a: House, b: House) -> bool | None:
    """Whether ``a`` sits above ``b`` on ``track``; ``bottom`` was just moved to the last place.

    ``None`` when the track given does not say.
    """
    if bottom is b:
        return True
    if bottom is a:
        return False
    if a in track and b in track:
        return track.index(a) < track.index(b)
    return None


def _with_bottom(track: tuple[House, ...], bottom: House | None) -> tuple[House, ...]:
    if bottom is None or bottom not in track:
        return track
    return (*(h for h in track if h is not bottom), bottom)


@dataclass(frozen=True, slots=True)
class _Boosts:
    """Card effects on unit strength that apply to the whole combat."""

    kevan: bool = False  # attacking Lannister footmen count 2
    victarion: bool = False  # attacking Greyjoy ships count 2
    salladhor: bool = False  # non-Baratheon ships count 0


def _units_strength(units: Units, house: House, for_attacker: bool, structure: Structure,
                    boosts: _Boosts) -> int:
    footman = 2 if boosts.kevan and for_attacker and house is House.LANNISTER else 1
    ship = 2 if boosts.victarion and for_attacker and house is House.GREYJOY else 1
    if boosts.salladhor and house is not House.BARATHEON:
        ship = 0
    # Siege engines batter walls: they count only for the attacking side, only at a castle or
    # stronghold; anywhere else, and for a defender, they add nothing.
    siege = 4 if for_attacker and structure is not Structure.NONE else 0
    return (units.footmen * footman + units.knights * 2 + units.ships * ship
            + units.siege_engines * siege)


def _take(pool: Units, count: int, order: tuple[str, ...]) -> Units:
    """``count`` units out of ``pool``, in the preference ``order`` of kinds."""
    taken = dict.fromkeys(("footmen", "knights", "ships", "siege_engines"), 0)
    left = count
    for kind in order:
        n = min(left, getattr(pool, kind))
        taken[kind] += n
        left -= n
    return Units(**taken)


_CASUALTY_ORDER = ("footmen", "ships", "knights")
_SUPPLY_LOSS_ORDER = ("footmen", "ships", "knights", "siege_engines")


def _hand_before(side: Combatant) -> tuple[str, ...] | None:
    cards = [side.card, side.replacement]
    if any(c is not None and c.is_custom for c in cards):
        return None
    gone = {c.name for c in side.discard}
    return tuple(c.name for c in CARDS_BY_HOUSE[side.house] if c.name not in gone)


# --------------------------------------------------------------------------- the combat


@dataclass(slots=True)
class _Side:
    """Working state of one side while the combat resolves (mutable, private)."""

    role: Role
    setup: Combatant
    units: Units
    routed: Units
    card: HouseCard | None
    revealed: list[HouseCard] = field(default_factory=list)
    discarded: list[HouseCard] = field(default_factory=list)  # cards that end in the discard
    destroyed_by_card: Units = NO_UNITS
    power_spent: int = 0


def _ability(side: _Side) -> Ability | None:
    return side.card.ability if side.card is not None else None


def resolve_combat(setup: CombatSetup) -> CombatResult:
    """Resolve one combat from ``setup`` and return every step of it.

    Decides support, initial and final strengths, the victor (Fiefdoms track on a tie),
    casualties, the loser's retreat, clean-up and both hands afterwards, applying the House
    cards' abilities. Raises :class:`InvalidInput` (naming the field) when the setup breaks a
    rule -- a house supporting its opponent against itself, a card from another house or from
    the discard pile, a retreat area that is not legal -- or when a needed fact is missing: the
    Fiefdoms track on a tie, the Iron Throne track for Stannis Baratheon, a replacement card
    after Tyrion Lannister's cancel.
    """
    _validate(setup)
    effects: list[str] = []
    att = _Side(Role.ATTACKER, setup.attacker, setup.attacker.units, setup.attacker.routed,
                setup.attacker.card)
    dfn = _Side(Role.DEFENDER, setup.defender, setup.defender.units, setup.defender.routed,
                setup.defender.card)
    sides = {Role.ATTACKER: att, Role.DEFENDER: dfn}

    # I. Call for support: each Support order's contribution is decided now; card abilities
    # below may still remove one or change what its units are worth.
    removed: set[int] = set()  # supports taken away by The Queen of Thorns
    no_boosts = _Boosts()
    called = _support_results(setup, no_boosts, removed)

    # II. Initial strength as announced, before any card is revealed.
    announced = {
        role: _initial(setup, sides[role], no_boosts, called, catelyn=False) for role in Role
    }

    # III. House cards: reveal, then "cancel" (Tyrion) before anything else.
    for side in (att, dfn):
        if side.card is not None:
            side.revealed.append(side.card)
    for side, other in ((att, dfn), (dfn, att)):
        _tyrion(side, other, effects)
    for side in (att, dfn):
        _aeron(side, effects)
    for side in (att, dfn):
        if side.card is not None:
            side.discarded.append(side.card)

    # Immediate abilities.
    doran_bottom: dict[Track, House] = {}
    for side, other in ((att, dfn), (dfn, att)):
        ability = _ability(side)
        if ability is Ability.QUEEN_OF_THORNS:
            _queen_of_thorns(setup, side, other, removed, effects)
        elif ability is Ability.MACE_TYRELL:
            _mace_tyrell(side, other, effects)
        elif ability is Ability.DORAN_MARTELL:
            track = side.setup.doran_track
            if track is None:
                effects.append(f"Doran Martell: {side.setup.house.display} may move "
                               f"{other.setup.house.display} to the bottom of an influence "
                               "track (no track chosen).")
            else:
                doran_bottom[track] = other.setup.house
                effects.append(f"Doran Martell: {other.setup.house.display} drops to the "
                               f"bottom of the {_track_name(track)} track.")

    if removed:
        called = _support_results(setup, no_boosts, removed)
    boosts = _Boosts(
        kevan=_ability(att) is Ability.SER_KEVAN_LANNISTER,
        victarion=_ability(att) is Ability.VICTARION_GREYJOY,
        salladhor=any(
            _ability(s) is Ability.SALLADHOR_SAAN and _is_supported(called, s.role)
            for s in (att, dfn)
        ),
    )
    supports = called if boosts == no_boosts else _support_results(setup, boosts, removed)
    if boosts.kevan:
        effects.append("Ser Kevan Lannister: attacking Lannister footmen count 2 each.")
    if boosts.victarion:
        effects.append("Victarion Greyjoy: attacking Greyjoy ships count 2 each.")
    for s in (att, dfn):
        if _ability(s) is Ability.SALLADHOR_SAAN:
            effects.append(
                "Salladhor Saan: Baratheon is supported, so every non-Baratheon ship counts 0."
                if boosts.salladhor else
                "Salladhor Saan: Baratheon is not supported, so ships count as usual."
            )

    # IV-V. Card strength, icons, blade, final strength.
    strengths: dict[Role, Strength] = {}
    icons: dict[Role, tuple[int, int]] = {}
    for role in Role:
        side, other = sides[role], sides[role.other]
        base = _initial(setup, side, boosts, supports,
                        catelyn=_ability(side) is Ability.CATELYN_STARK)
        if _ability(side) is Ability.CATELYN_STARK:
            order = side.setup.order
            if role is Role.DEFENDER and order is not None and order.kind is OrderKind.DEFENSE:
                effects.append(f"Catelyn Stark: the Defense order counts {order.bonus * 2} "
                               f"instead of {order.bonus}.")
            else:
                effects.append("Catelyn Stark: no Defense order of Stark's in the area, so "
                               "nothing doubles.")
        card_strength, bonus, swords, forts = _card_values(
            setup, side, other, _is_supported(supports, role), doran_bottom, effects)
        strengths[role] = Strength(base.units, base.support, base.order, base.garrison,
                                   announced[role].initial, card_strength, bonus)
        icons[role] = (swords, forts)

    blade_used = False
    holder = setup.blade_holder
    if holder is not None and setup.blade_available:
        for role in Role:
            side = sides[role]
            if side.setup.house is holder and side.setup.use_blade:
                strengths[role] = replace(strengths[role], blade=1)
                blade_used = True
                effects.append(f"Valyrian Steel Blade: {holder.display} adds 1 and turns the "
                               "token to its faded side for the rest of the round.")

    # VI.1 Determine victor.
    outcome, decided_by = _victor(setup, strengths, doran_bottom)
    winner, loser = sides[outcome.winner], sides[outcome.winner.other]
    if decided_by is Decision.FIEFDOMS:
        effects.append(f"Tie at {strengths[Role.ATTACKER].final}: {winner.setup.house.display} "
                       "sits higher on the Fiefdoms track and wins.")

    # VI.2 Casualties.
    swords = icons[outcome.winner][0]
    forts = icons[outcome.winner.other][1]
    casualties = max(0, swords - forts)
    if _ability(loser) is Ability.THE_BLACKFISH and casualties:
        effects.append("The Blackfish: Stark takes no casualties from sword icons.")
        casualties = 0
    fought = {role: sides[role].units for role in Role}
    # Siege engines are never chosen as casualties (FFG's ruling, as the issue states): they
    # are lost on the retreat in addition to the casualties, so they cannot shield other units.
    pool = loser.units - Units(siege_engines=loser.units.siege_engines)
    taken = min(casualties, pool.total)
    chosen = _casualty_choice(setup, pool, taken)
    loser.units = loser.units - chosen

    # VI.3 Retreat.
    retreat, retreat_losses, routed_destroyed, survivors = _retreat(
        setup, winner, loser, effects)

    # Win/lose abilities, in the order the text gives them no preference for.
    arianne = loser.role is Role.DEFENDER and _ability(loser) is Ability.ARIANNE_MARTELL
    attacker_moves_in = outcome is Outcome.ATTACKER_WINS and not arianne
    if arianne:
        effects.append("Arianne Martell: the attackers may not enter; they go back to the area "
                       "they marched from. Martell still retreats.")
    power_gained = {Role.ATTACKER: 0, Role.DEFENDER: 0}
    if _ability(winner) is Ability.TYWIN_LANNISTER:
        power_gained[winner.role] = 2
        effects.append("Tywin Lannister: Lannister gains two Power tokens.")
    if _ability(winner) is Ability.CERSEI_LANNISTER:
        effects.append(f"Cersei Lannister: Lannister may remove one of "
                       f"{loser.setup.house.display}'s Order tokens anywhere on the board.")
    upgraded = _renly(setup, winner, effects)
    march_fate = MarchOrderFate.REMOVED
    if _ability(att) is Ability.SER_LORAS_TYRELL:
        if attacker_moves_in:
            march_fate = MarchOrderFate.MOVED_INTO_AREA
            effects.append("Ser Loras Tyrell: the March order moves into the conquered area and "
                           "may be resolved again this round.")
        else:
            effects.append("Ser Loras Tyrell: no conquest, so the March order is removed as "
                           "usual.")
    for side in (att, dfn):
        if _ability(side) is Ability.ROOSE_BOLTON and side is loser:
            effects.append("Roose Bolton: Stark takes its whole discard pile back into hand.")

    piles = _piles(att, dfn, loser, effects)

    cleanup = Cleanup(
        march_order=march_fate,
        defender_order_removed=(outcome is Outcome.ATTACKER_WINS
                                and setup.defender.order is not None),
        defender_power_token_removed=(outcome is Outcome.ATTACKER_WINS
                                      and setup.defender_power_token),
        support_orders_kept=tuple(_support_label(i, s) for i, s in enumerate(setup.supports)),
        attacker_moves_in=attacker_moves_in,
        garrison_after=0 if outcome is Outcome.ATTACKER_WINS else setup.garrison,
        garrison_removed=outcome is Outcome.ATTACKER_WINS and setup.garrison > 0,
    )

    results = {}
    for role in Role:
        side = sides[role]
        sw, fo = icons[role]
        is_loser = side is loser
        results[role] = SideResult(
            role=role,
            house=side.setup.house,
            card=side.card,
            cards_revealed=tuple(side.revealed),
            strength=strengths[role],
            swords=sw,
            fortifications=fo,
            units=fought[role],
            destroyed_by_card=side.destroyed_by_card,
            casualties=chosen if is_loser else NO_UNITS,
            destroyed_retreating=retreat_losses if is_loser else NO_UNITS,
            routed_destroyed=routed_destroyed if is_loser else NO_UNITS,
            survivors=survivors if is_loser else _upgrade(side.units, upgraded),
            survivors_routed=is_loser and survivors.total > 0,
            upgrade=upgraded if side is winner else Upgrade.NONE,
            power_gained=power_gained[role],
            power_spent=side.power_spent,
            piles=piles[role],
        )
    return CombatResult(
        outcome=outcome,
        decided_by=decided_by,
        attacker=results[Role.ATTACKER],
        defender=results[Role.DEFENDER],
        supports=_in_turn_order(setup, supports),
        casualties=casualties,
        casualties_taken=taken,
        retreat=retreat,
        cleanup=cleanup,
        blade_used=blade_used,
        effects=tuple(effects),
    )


def _track_name(track: Track) -> str:
    return {Track.IRON_THRONE: "Iron Throne", Track.FIEFDOMS: "Fiefdoms",
            Track.KINGS_COURT: "King's Court"}[track]


def _upgrade(units: Units, upgraded: Upgrade) -> Units:
    if upgraded is not Upgrade.PARTICIPATING:
        return units
    return replace(units, footmen=units.footmen - 1, knights=units.knights + 1)


def _support_contribution(setup: CombatSetup, index: int, support: Support, boosts: _Boosts,
                          removed: set[int]) -> SupportResult:
    label = _support_label(index, support)
    if support.to is SupportTo.NOBODY:
        return SupportResult(support, label, 0, SupportTo.NOBODY, "refused")
    if index in removed:
        return SupportResult(support, label, 0, SupportTo.NOBODY,
                             "removed by The Queen of Thorns")
    if setup.area is AreaKind.SEA and support.units.land:
        return SupportResult(support, label, 0, SupportTo.NOBODY,
                             "footmen, knights and siege engines never support at sea")
    for_attacker = support.to is SupportTo.ATTACKER
    strength = _units_strength(support.units, support.house, for_attacker, setup.structure,
                               boosts) + support.bonus
    note = ""
    if support.units.siege_engines and not (for_attacker
                                            and setup.structure is not Structure.NONE):
        note = "siege engines add nothing unless supporting an attack on a castle or stronghold"
    return SupportResult(support, label, strength, support.to, note)


def _support_results(setup: CombatSetup, boosts: _Boosts,
                     removed: set[int]) -> tuple[SupportResult, ...]:
    return tuple(_support_contribution(setup, i, s, boosts, removed)
                 for i, s in enumerate(setup.supports))


def _in_turn_order(setup: CombatSetup,
                   results: tuple[SupportResult, ...]) -> tuple[SupportResult, ...]:
    if not setup.iron_throne:
        return results
    # Supports are declared in turn order: the Iron Throne track, first place first.
    track = setup.iron_throne
    return tuple(sorted(results, key=lambda r: track.index(r.support.house)
                        if r.support.house in track else len(track)))


_SUPPORT_FOR = {Role.ATTACKER: SupportTo.ATTACKER, Role.DEFENDER: SupportTo.DEFENDER}


def _is_supported(results: tuple[SupportResult, ...], role: Role) -> bool:
    wanted = _SUPPORT_FOR[role]
    return any(r.counted_for is wanted for r in results)


def _initial(setup: CombatSetup, side: _Side, boosts: _Boosts,
             supports: tuple[SupportResult, ...], *, catelyn: bool) -> Strength:
    role = side.role
    for_attacker = role is Role.ATTACKER
    units = _units_strength(side.units, side.setup.house, for_attacker, setup.structure, boosts)
    wanted = _SUPPORT_FOR[role]
    support = sum(r.strength for r in supports if r.counted_for is wanted)
    order = side.setup.order
    bonus = 0
    if order is not None:
        if role is Role.ATTACKER:
            bonus = order.bonus
        elif order.kind is OrderKind.DEFENSE:
            bonus = order.bonus * (2 if catelyn else 1)
        # A Support order in the embattled area gives its own area nothing; Raid, Consolidate
        # Power and an unresolved March add nothing either.
    garrison = setup.garrison if role is Role.DEFENDER else 0
    total = units + support + bonus + garrison
    return Strength(units, support, bonus, garrison, announced=total)


def _tyrion(side: _Side, other: _Side, effects: list[str]) -> None:
    if _ability(side) is not Ability.TYRION_LANNISTER:
        return
    if not side.setup.cancel_opponent_card:
        effects.append("Tyrion Lannister: Lannister lets the opponent's card stand.")
        return
    cancelled = other.card
    assert cancelled is not None
    replacement = other.setup.replacement
    if replacement is None:
        hand = _hand_before(other.setup)
        if hand is None or len(hand) > 1:
            raise InvalidInput(
                f"{other.role.value}.replacement",
                f"Tyrion Lannister sent {cancelled.name} back to hand, so "
                f"{other.setup.house.display} must reveal a different card",
                "the card played instead (e.g. 'instead Eddard Stark')",
            )
        other.card = None
        effects.append(f"Tyrion Lannister: {cancelled.name} goes back to hand; "
                       f"{other.setup.house.display} has no other card and fights without one.")
        return
    other.card = replacement
    other.revealed.append(replacement)
    effects.append(f"Tyrion Lannister: {cancelled.name} goes back to hand; "
                   f"{other.setup.house.display} reveals {replacement.name} instead.")


def _aeron(side: _Side, effects: list[str]) -> None:
    if side.card is not side.setup.card:
        return  # Tyrion already replaced the card; the replacement is spent
    if _ability(side) is not Ability.AERON_DAMPHAIR:
        if side.setup.replacement is not None:
            raise InvalidInput(
                f"{side.role.value}.replacement",
                "a second card is only revealed after Tyrion Lannister's cancel or Aeron "
                "Damphair's swap",
            )
        return
    replacement = side.setup.replacement
    if replacement is None:
        effects.append("Aeron Damphair: Greyjoy keeps the card.")
        return
    tokens = side.setup.power_tokens
    if tokens is not None and tokens < 2:
        raise InvalidInput(f"{side.role.value}.power_tokens",
                           f"Aeron Damphair's swap costs two Power tokens; Greyjoy has {tokens}")
    if side.card is not None:
        side.discarded.append(side.card)
    side.card = replacement
    side.revealed.append(replacement)
    side.power_spent = 2
    effects.append(f"Aeron Damphair: Greyjoy pays two Power tokens, discards Aeron and reveals "
                   f"{replacement.name}.")


def _queen_of_thorns(setup: CombatSetup, side: _Side, other: _Side, removed: set[int],
                     effects: list[str]) -> None:
    target = side.setup.queen_removes
    if target is None:
        effects.append(f"The Queen of Thorns: Tyrell may remove one of "
                       f"{other.setup.house.display}'s Order tokens next to the embattled "
                       "area (none chosen).")
        return
    key = normalize_name(target)
    for index, support in enumerate(setup.supports):
        if normalize_name(_support_label(index, support)) == key:
            if support.house is not other.setup.house:
                raise InvalidInput(
                    f"{side.role.value}.queen_removes",
                    f"the Support order at {target!r} is {support.house.display}'s, not "
                    f"{other.setup.house.display}'s",
                    "an Order token of the opponent's",
                )
            removed.add(index)
            effects.append(f"The Queen of Thorns: {other.setup.house.display}'s Support order "
                           f"at {target} is removed, with its support.")
            return
    effects.append(f"The Queen of Thorns: {other.setup.house.display}'s order at {target} is "
                   "removed (it was not supporting this combat).")


def _mace_tyrell(side: _Side, other: _Side, effects: list[str]) -> None:
    if _ability(other) is Ability.THE_BLACKFISH:
        effects.append("Mace Tyrell: The Blackfish protects Stark; no footman dies.")
        return
    if other.units.footmen:
        other.units = replace(other.units, footmen=other.units.footmen - 1)
        other.destroyed_by_card = Units(footmen=1)
        effects.append(f"Mace Tyrell: one of {other.setup.house.display}'s footmen is "
                       "destroyed at once.")
    elif other.routed.footmen:
        other.routed = replace(other.routed, footmen=other.routed.footmen - 1)
        other.destroyed_by_card = Units(footmen=1)
        effects.append(f"Mace Tyrell: one of {other.setup.house.display}'s routed footmen is "
                       "destroyed at once.")
    else:
        effects.append(f"Mace Tyrell: {other.setup.house.display} has no footman in the area.")


def _card_values(setup: CombatSetup, side: _Side, other: _Side, supported: bool,
                 doran_bottom: dict[Track, House],
                 effects: list[str]) -> tuple[int, int, int, int]:
    """Printed strength as it counts, text bonus, swords and fortifications of ``side``'s card."""
    card = side.card
    if card is None:
        return 0, 0, 0, 0
    strength, bonus, swords, forts = card.strength, 0, card.swords, card.fortifications
    if _ability(other) is Ability.BALON_GREYJOY:
        if strength:
            effects.append(f"Balon Greyjoy: {card.name}'s printed {strength} counts 0.")
        strength = 0
    ability = card.ability
    if ability is Ability.STANNIS_BARATHEON:
        higher = _is_higher(_with_bottom(setup.iron_throne, doran_bottom.get(Track.IRON_THRONE)),
                            doran_bottom.get(Track.IRON_THRONE), other.setup.house,
                            side.setup.house)
        if higher is None:
            raise InvalidInput(
                "iron_throne",
                f"Stannis Baratheon's bonus depends on whether {other.setup.house.display} sits "
                "higher on the Iron Throne track",
                "the track from position 1, e.g. 'throne Lannister Baratheon Stark'",
            )
        if higher:
            bonus += 1
            effects.append(f"Stannis Baratheon: {other.setup.house.display} is higher on the "
                           "Iron Throne track, +1.")
        else:
            effects.append("Stannis Baratheon: the opponent is not higher on the Iron Throne "
                           "track, no bonus.")
    elif ability is Ability.SER_DAVOS_SEAWORTH:
        if any(c.ability is Ability.STANNIS_BARATHEON for c in side.setup.discard):
            bonus += 1
            swords += 1
            effects.append("Ser Davos Seaworth: Stannis is in the discard pile, +1 and a sword.")
        else:
            effects.append("Ser Davos Seaworth: Stannis is not in the discard pile, no bonus.")
    elif ability is Ability.THEON_GREYJOY:
        if side.role is Role.DEFENDER and setup.structure is not Structure.NONE:
            bonus += 1
            swords += 1
            effects.append(f"Theon Greyjoy: defending a {setup.structure.value}, +1 and a sword.")
        else:
            effects.append("Theon Greyjoy: not defending a castle or stronghold, no bonus.")
    elif ability is Ability.ASHA_GREYJOY:
        if supported:
            effects.append("Asha Greyjoy: Greyjoy is supported, no icons gained.")
        else:
            swords += 2
            forts += 1
            effects.append("Asha Greyjoy: Greyjoy has no support, two swords and a "
                           "fortification.")
    elif ability is Ability.NYMERIA_SAND:
        if side.role is Role.DEFENDER:
            forts += 1
            effects.append("Nymeria Sand: defending, gains a fortification.")
        else:
            swords += 1
            effects.append("Nymeria Sand: attacking, gains a sword.")
    return strength, bonus, swords, forts


def _victor(setup: CombatSetup, strengths: dict[Role, Strength],
            doran_bottom: dict[Track, House]) -> tuple[Outcome, Decision]:
    a, d = strengths[Role.ATTACKER].final, strengths[Role.DEFENDER].final
    if a != d:
        return (Outcome.ATTACKER_WINS if a > d else Outcome.DEFENDER_WINS), Decision.STRENGTH
    bottom = doran_bottom.get(Track.FIEFDOMS)
    higher = _is_higher(_with_bottom(setup.fiefdoms, bottom), bottom,
                        setup.attacker.house, setup.defender.house)
    if higher is None:
        raise InvalidInput(
            "fiefdoms",
            f"the final strengths are tied at {a}, so the Fiefdoms track decides and it was not "
            f"given for both {setup.attacker.house.display} and {setup.defender.house.display}",
            f"the track from position 1, e.g. 'fiefdoms {setup.defender.house.display} "
            f"{setup.attacker.house.display}'",
        )
    return (Outcome.ATTACKER_WINS if higher else Outcome.DEFENDER_WINS), Decision.FIEFDOMS


def determine_victor(attacker_final: int, defender_final: int, attacker_higher_on_fiefdoms: bool
                     ) -> Outcome:
    """The victor from two final strengths: the higher wins; a tie goes to the side higher on
    the Fiefdoms track. Raises nothing."""
    if attacker_final != defender_final:
        return Outcome.ATTACKER_WINS if attacker_final > defender_final else (
            Outcome.DEFENDER_WINS)
    return Outcome.ATTACKER_WINS if attacker_higher_on_fiefdoms else Outcome.DEFENDER_WINS


def _casualty_choice(setup: CombatSetup, pool: Units, taken: int) -> Units:
    choice = setup.casualties
    if choice is None:
        return _take(pool, taken, _CASUALTY_ORDER)
    if choice.total != taken:
        raise InvalidInput("casualties", f"the loser must remove exactly {taken} unit(s), not "
                           f"{choice.total}", f"{taken} of: {pool.describe()}")
    if not pool.covers(choice):
        raise InvalidInput("casualties", f"{choice.describe()} is not among the units that can "
                           f"be taken ({pool.describe()}; routed units and siege engines "
                           "never count)")
    return choice


def _retreat(setup: CombatSetup, winner: _Side, loser: _Side,
             effects: list[str]) -> tuple[Retreat, Units, Units, Units]:
    """The retreat, units lost retreating, routed units destroyed, units left (routed)."""
    survivors = loser.units
    # Siege engines cannot retreat, and a routed unit forced to retreat is destroyed instead.
    siege = Units(siege_engines=survivors.siege_engines)
    routed = loser.routed
    moving = survivors - siege
    if siege.total:
        effects.append(f"{siege.describe().capitalize()} cannot retreat and "
                       f"{'is' if siege.total == 1 else 'are'} destroyed.")
    if routed.total:
        effects.append(f"{routed.describe().capitalize()} already routed "
                       f"{'is' if routed.total == 1 else 'are'} destroyed instead of retreating.")
    if loser.role is Role.ATTACKER:
        status = RetreatStatus.TO_ORIGIN if moving.total else RetreatStatus.NOTHING_LEFT
        return (Retreat(Role.ATTACKER, status, moving, area="the area it marched from"
                        if moving.total else None),
                siege, routed, moving)
    if moving.total == 0:
        return Retreat(Role.DEFENDER, RetreatStatus.NOTHING_LEFT, moving), siege, routed, moving
    if setup.retreat_areas is None:
        return (Retreat(Role.DEFENDER, RetreatStatus.NOT_DESCRIBED, moving), siege, routed,
                moving)
    options = legal_retreats(setup.retreat_areas, moving)
    robb = _ability(winner) is Ability.ROBB_STARK
    chooser = winner.role if robb else Role.DEFENDER
    if not options:
        effects.append("No legal area to retreat to: every retreating unit is destroyed.")
        return (Retreat(Role.DEFENDER, RetreatStatus.NO_LEGAL_AREA, moving, chosen_by=chooser),
                siege + moving, routed, NO_UNITS)
    if robb:
        fewest = min(o.losses for o in options)
        options = tuple(o for o in options if o.losses == fewest)
        effects.append("Robb Stark: Stark chooses the retreat area among those costing the "
                       "fewest units.")
    pick: RetreatOption | None = None
    if setup.retreat_to is not None:
        key = normalize_name(setup.retreat_to)
        matches = [o for o in options if normalize_name(o.name) == key]
        if not matches:
            why = _why_illegal(setup.retreat_areas, key, moving)
            raise InvalidInput(
                "retreat_to",
                f"{setup.retreat_to} is not a legal retreat ({why})",
                "one of " + ", ".join(o.name for o in options),
            )
        pick = matches[0]
    elif len(options) == 1:
        pick = options[0]
    if pick is None:
        return (Retreat(Role.DEFENDER, RetreatStatus.AWAITING_CHOICE, moving, options=options,
                        chosen_by=chooser), siege, routed, moving)
    lost = _take(moving, pick.losses, _SUPPLY_LOSS_ORDER)
    if lost.total:
        effects.append(f"Supply: {lost.describe()} destroyed so the army at {pick.name} stays "
                       "within the supply limit.")
    return (Retreat(Role.DEFENDER, RetreatStatus.TO_AREA, moving, area=pick.name,
                    options=options, chosen_by=chooser, supply_losses=lost),
            siege + lost, routed, moving - lost)


def _kind_allows(area: RetreatArea, units: Units) -> bool:
    if units.ships:
        # Ships never go ashore and never ride ship transport; a port is a harbour, not land.
        return area.kind in (AreaKind.SEA, AreaKind.PORT) and not area.by_transport
    return area.kind is AreaKind.LAND


def _why_illegal(areas: tuple[RetreatArea, ...], key: str, units: Units) -> str:
    area = next(a for a in areas if normalize_name(a.name) == key)
    if area.origin:
        return "the attackers marched from there"
    if area.enemy:
        return "it holds enemy units or an enemy Power token"
    if not _kind_allows(area, units):
        return ("ships cannot retreat onto land" if units.ships
                else "footmen and knights cannot retreat to a sea area or port")
    return "another area avoids losses to the supply limit, or Robb Stark's choice rules it out"


def legal_retreats(areas: tuple[RetreatArea, ...], units: Units) -> tuple[RetreatOption, ...]:
    """The areas ``units`` may retreat to, each with the units the supply limit would cost.

    An area is legal when it holds no enemy units or Power token, was not the attackers' starting
    area, and suits the units (land units to land, possibly by ship transport; ships to sea or a
    port). Areas where the army would break the supply limit are legal only when no other legal
    area is left, and then cost the units needed to fit. Raises nothing; an empty result means
    the retreating units are destroyed.
    """
    legal: list[RetreatOption] = []
    for area in areas:
        if area.enemy or area.origin or not _kind_allows(area, units):
            continue
        losses = 0
        if area.friendly_units and area.max_army is not None:
            losses = min(units.total, max(0, area.friendly_units + units.total - area.max_army))
        legal.append(RetreatOption(area.name, losses))
    within = tuple(o for o in legal if o.losses == 0)
    return within if within else tuple(legal)


def _renly(setup: CombatSetup, winner: _Side, effects: list[str]) -> Upgrade:
    if _ability(winner) is not Ability.RENLY_BARATHEON:
        return Upgrade.NONE
    choice = winner.setup.upgrade
    has_own = winner.units.footmen > 0
    has_support = any(
        s.house is House.BARATHEON and s.to.value == winner.role.value and s.units.footmen
        for s in setup.supports
    )
    if choice is Upgrade.NONE:
        effects.append("Renly Baratheon: Baratheon declines the upgrade.")
        return Upgrade.NONE
    if choice is Upgrade.PARTICIPATING or (choice is Upgrade.AUTO and has_own):
        if not has_own:
            raise InvalidInput(f"{winner.role.value}.upgrade", "no participating footman is "
                               "left to upgrade", "supporting or none")
        effects.append("Renly Baratheon: one participating Baratheon footman becomes a knight.")
        return Upgrade.PARTICIPATING
    if choice is Upgrade.SUPPORTING or (choice is Upgrade.AUTO and has_support):
        if not has_support:
            raise InvalidInput(f"{winner.role.value}.upgrade", "no supporting Baratheon footman "
                               "to upgrade", "participating or none")
        effects.append("Renly Baratheon: one supporting Baratheon footman becomes a knight.")
        return Upgrade.SUPPORTING
    effects.append("Renly Baratheon: no Baratheon footman to upgrade.")
    return Upgrade.NONE


def _piles(att: _Side, dfn: _Side, loser: _Side,
           effects: list[str]) -> dict[Role, CardPiles | None]:
    piles: dict[Role, CardPiles | None] = {}
    for side in (att, dfn):
        hand_before = _hand_before(side.setup)
        if hand_before is None:
            piles[side.role] = None
            continue
        discard = [c.name for c in side.setup.discard]
        played = [c.name for c in side.discarded]
        hand = [n for n in hand_before if n not in played]
        discard += played
        refreshed = False
        if side is loser and _ability(side) is Ability.ROOSE_BOLTON:
            hand, discard = [c.name for c in CARDS_BY_HOUSE[side.setup.house]], []
        elif not hand and side.card is not None:
            last = side.card.name
            hand = [n for n in discard if n != last]
            discard = [last]
            refreshed = True
            effects.append(f"{side.setup.house.display} played its last card: the other six "
                           f"return to hand, {last} stays in the discard pile.")
        piles[side.role] = CardPiles(_in_house_order(side.setup.house, hand),
                                     tuple(discard), refreshed)
    for side, other in ((att, dfn), (dfn, att)):
        if _ability(side) is not Ability.PATCHFACE:
            continue
        target = side.setup.patchface_discard
        other_piles = piles[other.role]
        if target is None:
            effects.append(f"Patchface: Baratheon may look at {other.setup.house.display}'s hand "
                           "and discard one card from it (none chosen).")
            continue
        if other_piles is None:
            effects.append(f"Patchface: Baratheon discards {target.name} from "
                           f"{other.setup.house.display}'s hand.")
            continue
        if target.name not in other_piles.hand:
            raise InvalidInput(f"{side.role.value}.patchface_discard",
                               f"{target.name} is not in {other.setup.house.display}'s hand "
                               "after the combat", "one of " + ", ".join(other_piles.hand))
        hand = [n for n in other_piles.hand if n != target.name]
        discard = [*other_piles.discard, target.name]
        refreshed = other_piles.refreshed
        effects.append(f"Patchface: Baratheon discards {target.name} from "
                       f"{other.setup.house.display}'s hand.")
        if not hand:
            # The hand is empty again: refresh it, keeping the card just discarded out.
            hand = [n for n in discard if n != target.name]
            discard = [target.name]
            refreshed = True
            effects.append(f"{other.setup.house.display}'s hand is empty: the other six cards "
                           "return to hand.")
        piles[other.role] = CardPiles(_in_house_order(other.setup.house, hand),
                                      tuple(discard), refreshed)
    return piles


def _in_house_order(house: House, names: list[str]) -> tuple[str, ...]:
    wanted = set(names)
    return tuple(c.name for c in CARDS_BY_HOUSE[house] if c.name in wanted)
