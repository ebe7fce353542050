"""Properties over many generated combats: strength floors, monotonicity, consistent results,
and the text form round-tripping."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from rules.boardgame.cards import CARDS_BY_HOUSE
from rules.boardgame.combat import CombatResult, Outcome, determine_victor, resolve_combat
from rules.boardgame.model import (
    AreaKind,
    Combatant,
    CombatSetup,
    House,
    HouseCard,
    Order,
    OrderKind,
    RetreatArea,
    Structure,
    Support,
    SupportTo,
    Units,
    custom_card,
)
from rules.boardgame.notation import format_setup, parse_setup

SETTINGS = settings(max_examples=100, deadline=None)
NAMES = ("Riverrun", "Sea of Dorne", "Castle Black", "Blackwater Bay", "The Twins", "Pyke")


@st.composite
def custom_cards(draw: st.DrawFn) -> HouseCard:
    return custom_card(draw(st.integers(0, 4)), draw(st.integers(0, 3)),
                       draw(st.integers(0, 2)))


def cards_of(house: House) -> st.SearchStrategy[HouseCard]:
    return st.one_of(custom_cards(), st.sampled_from(CARDS_BY_HOUSE[house]))


@st.composite
def army(draw: st.DrawFn, sea: bool, minimum: int) -> Units:
    if sea:
        return Units(ships=draw(st.integers(minimum, 5)))
    units = Units(draw(st.integers(0, 4)), draw(st.integers(0, 3)), 0, draw(st.integers(0, 2)))
    return units if units.total >= minimum else Units(footmen=minimum)


@st.composite
def setups(draw: st.DrawFn, custom_only: bool = False) -> CombatSetup:
    """Valid combats: every fact a card or a tie might need is present."""
    a_house, d_house = draw(st.permutations(list(House)))[:2]
    sea = draw(st.booleans())
    area = AreaKind.SEA if sea else AreaKind.LAND
    structure = Structure.NONE if sea else draw(st.sampled_from(list(Structure)))
    routed = Units() if sea else Units(draw(st.integers(0, 2)), draw(st.integers(0, 1)))
    d_units = draw(army(sea, 0 if routed.total else 1))
    pick = custom_cards() if custom_only else None
    attacker = Combatant(
        a_house, draw(army(sea, 1)), draw(pick if pick is not None else cards_of(a_house)),
        order=draw(st.sampled_from([None, *(Order(OrderKind.MARCH, b) for b in (-1, 0, 1))])),
        use_blade=draw(st.booleans()),
    )
    defender = Combatant(
        d_house, d_units, draw(pick if pick is not None else cards_of(d_house)), routed=routed,
        order=draw(st.sampled_from([
            None, Order(OrderKind.DEFENSE, 1), Order(OrderKind.DEFENSE, 2),
            Order(OrderKind.SUPPORT, 1), Order(OrderKind.RAID)])),
    )
    supports = []
    for index in range(draw(st.integers(0, 3))):
        house = draw(st.sampled_from(list(House)))
        allowed = [SupportTo.NOBODY]
        if house is not d_house:
            allowed.append(SupportTo.ATTACKER)
        if house is not a_house:
            allowed.append(SupportTo.DEFENDER)
        units = draw(army(draw(st.booleans()), 1))
        supports.append(Support(house, units, draw(st.sampled_from(allowed)),
                                draw(st.integers(0, 1)), f"S{index}"))
    order = draw(st.permutations(list(House)))
    return CombatSetup(
        attacker, defender, area=area, structure=structure,
        garrison=0 if sea else draw(st.integers(0, 2)),
        supports=tuple(supports),
        blade_holder=draw(st.sampled_from([None, a_house, d_house])),
        fiefdoms=tuple(order), iron_throne=tuple(draw(st.permutations(list(House)))),
    )


@SETTINGS
@given(setups())
def test_final_strength_is_never_below_zero(setup: CombatSetup) -> None:
    """Whatever the penalties, both final strengths are at least 0, and the victor's final
    strength is at least the loser's."""
    result = resolve_combat(setup)
    assert result.attacker.final >= 0 and result.defender.final >= 0
    assert result.winner.final >= result.loser.final
    assert result.attacker.strength.final == max(0, result.attacker.strength.total)


@SETTINGS
@given(setups())
def test_casualties_never_exceed_what_the_loser_has(setup: CombatSetup) -> None:
    """Casualties taken never exceed those required nor the loser's fighting units; the winner
    takes none; nothing is destroyed twice."""
    result = resolve_combat(setup)
    loser = result.loser
    assert result.casualties_taken <= result.casualties
    assert loser.units.covers(loser.casualties)
    assert result.winner.casualties.total == 0
    start = setup.side(loser.role)
    lost = (loser.destroyed_by_card + loser.casualties + loser.destroyed_retreating
            + loser.routed_destroyed)
    assert lost.total + loser.survivors.total == start.units.total + start.routed.total


def _with_attacker_card(setup: CombatSetup, strength: int) -> CombatSetup:
    card = setup.attacker.card
    assert card is not None
    return replace(setup, attacker=replace(
        setup.attacker, card=custom_card(strength, card.swords, card.fortifications)))


def _with_defender_card(setup: CombatSetup, strength: int) -> CombatSetup:
    card = setup.defender.card
    assert card is not None
    return replace(setup, defender=replace(
        setup.defender, card=custom_card(strength, card.swords, card.fortifications)))


@SETTINGS
@given(setups(custom_only=True), st.integers(0, 4), st.integers(1, 6))
def test_higher_attacker_strength_never_loses_where_lower_wins(
    setup: CombatSetup, low: int, extra: int,
) -> None:
    """Raising the attacker's card strength never turns an attacker's win into a loss, and its
    final strength never drops."""
    weaker = resolve_combat(_with_attacker_card(setup, low))
    stronger = resolve_combat(_with_attacker_card(setup, low + extra))
    assert stronger.attacker.final >= weaker.attacker.final
    if weaker.outcome is Outcome.ATTACKER_WINS:
        assert stronger.outcome is Outcome.ATTACKER_WINS


@SETTINGS
@given(setups(custom_only=True), st.integers(0, 4), st.integers(1, 6))
def test_higher_defender_strength_never_loses_where_lower_wins(
    setup: CombatSetup, low: int, extra: int,
) -> None:
    """Raising the defender's card strength never turns a defender's win into a loss."""
    weaker = resolve_combat(_with_defender_card(setup, low))
    stronger = resolve_combat(_with_defender_card(setup, low + extra))
    if weaker.outcome is Outcome.DEFENDER_WINS:
        assert stronger.outcome is Outcome.DEFENDER_WINS


@SETTINGS
@given(setups(), st.integers(1, 3))
def test_more_attacking_units_never_lose_where_fewer_win(setup: CombatSetup, more: int) -> None:
    """Adding footmen (or ships at sea) to the attack never costs the attacker a won combat,
    whatever the cards."""
    sea = setup.area is AreaKind.SEA
    extra = Units(ships=more) if sea else Units(footmen=more)
    bigger = replace(setup, attacker=replace(setup.attacker,
                                             units=setup.attacker.units + extra))
    before, after = resolve_combat(setup), resolve_combat(bigger)
    assert after.attacker.final >= before.attacker.final
    if before.outcome is Outcome.ATTACKER_WINS:
        assert after.outcome is Outcome.ATTACKER_WINS


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 30), st.integers(0, 30), st.integers(0, 5), st.booleans())
def test_determine_victor_is_monotone(a: int, d: int, more: int, higher: bool) -> None:
    """A higher attacker total never loses where a lower one wins, and symmetrically."""
    if determine_victor(a, d, higher) is Outcome.ATTACKER_WINS:
        assert determine_victor(a + more, d, higher) is Outcome.ATTACKER_WINS
    else:
        assert determine_victor(a, d + more, higher) is Outcome.DEFENDER_WINS


@st.composite
def writable_setups(draw: st.DrawFn) -> CombatSetup:
    """Setups with every field the text form can carry, including retreat areas and choices."""
    setup = draw(setups())
    holder = setup.blade_holder
    areas = None
    if draw(st.booleans()):
        names = draw(st.lists(st.sampled_from(NAMES), unique=True, max_size=3))
        areas = tuple(
            RetreatArea(n, draw(st.sampled_from(list(AreaKind))), draw(st.booleans()),
                        0, draw(st.sampled_from([None, 2, 4])), draw(st.booleans()),
                        draw(st.booleans()))
            for n in names
        )
    defender = setup.defender
    if holder is defender.house:
        defender = replace(defender, use_blade=draw(st.booleans()))
    attacker = setup.attacker
    if holder is not attacker.house:
        attacker = replace(attacker, use_blade=True)
    return replace(
        setup, attacker=attacker, defender=defender, retreat_areas=areas,
        retreat_to=areas[0].name if areas else None,
        blade_available=holder is None or draw(st.booleans()),
        defender_power_token=draw(st.booleans()),
        casualties=draw(st.sampled_from([None, Units(1), Units(0, 1)])),
    )


@SETTINGS
@given(writable_setups())
def test_text_form_round_trips(setup: CombatSetup) -> None:
    """parse_setup(format_setup(setup)) == setup."""
    assert parse_setup(format_setup(setup)) == setup


def _summary(result: CombatResult) -> tuple[object, ...]:
    return (result.outcome, result.attacker.final, result.defender.final, result.casualties)


@SETTINGS
@given(setups())
def test_text_form_resolves_the_same_combat(setup: CombatSetup) -> None:
    """The same combat written as text and read back resolves identically."""
    assert _summary(resolve_combat(parse_setup(format_setup(setup)))) == _summary(
        resolve_combat(setup))
