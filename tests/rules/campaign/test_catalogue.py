"""The catalogue: parsing with errors that name the key, each effect kind through its engine,
the one stacking rule, the order effects apply in, and the odds property."""

from __future__ import annotations

import tomllib
from decimal import Decimal
from importlib import resources
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.campaign.battle import Side, strength
from rules.campaign.catalogue import (
    EMPTY_CATALOGUE,
    Catalogue,
    Section,
    UnknownEntry,
    describe_effect,
    format_catalogue,
    missing_resources,
    parse_catalogue,
)
from rules.campaign.config import DEFAULT_RULES, Season, Terrain
from rules.campaign.detection import ObserverKind, detection_target
from rules.campaign.modifiers import Effect, EffectKind, Modifier, Role, Source, collect, total
from rules.campaign.movement import speed_multiplier
from rules.campaign.odds import battle_odds
from rules.campaign.siege import siege_months
from rules.campaign.tick import advance_improvements
from rules.campaign.upkeep import apply_upkeep
from rules.campaign.world import ClaimState
from rules.errors import InvalidInput
from tests.rules.campaign import builders

D = Decimal


def demo() -> Catalogue:
    text = resources.files("bot.data").joinpath("demo_catalogue.toml").read_text("utf-8")
    return parse_catalogue(tomllib.loads(text))


def mod(section: Section, name: str) -> Modifier:
    return demo().lookup(section, name).modifier()


def one(section: str, name: str, **entry: Any) -> dict[str, Any]:
    return {section: {name: entry}}


STRENGTH = [{"kind": "strength", "amount": "1.2"}]


# --- parsing: errors name the key ---------------------------------------------------------

BAD: list[tuple[dict[str, Any], str, str]] = [
    (one("skills", "Brynden", effects=[{"kind": "strenght", "amount": 1}]),
     "catalogue.skills.Brynden.effects[0].kind", "unknown effect 'strenght'; valid: strength"),
    ({"skils": {}}, "catalogue.skils", "is not a catalogue section"),
    (one("skills", "Blackfish", effects=STRENGTH, colour="red"),
     "catalogue.skills.Blackfish.colour", "is not a known key"),
    (one("skills", "Blackfish"), "catalogue.skills.Blackfish.effects", "at least one effect"),
    (one("skills", "Blackfish", effects=[]), "catalogue.skills.Blackfish.effects",
     "at least one effect"),
    (one("skills", "Blackfish", effects=[{"kind": "strength"}]),
     "catalogue.skills.Blackfish.effects[0].amount", "is missing"),
    (one("skills", "Blackfish", effects=[{"kind": "strength", "amount": "lots"}]),
     "catalogue.skills.Blackfish.effects[0].amount", "must be a number"),
    (one("skills", "Blackfish", effects=[{"kind": "strength", "amount": True}]),
     "catalogue.skills.Blackfish.effects[0].amount", "must be a number"),
    (one("skills", "Blackfish", effects=[{"kind": "strength", "amount": 0}]),
     "catalogue.skills.Blackfish.effects[0].amount", "above 0"),
    (one("skills", "Blackfish", effects=[{"kind": "speed", "amount": 101}]),
     "catalogue.skills.Blackfish.effects[0].amount", "at most 100"),
    (one("skills", "Scout", effects=[{"kind": "detection", "amount": "1.5"}]),
     "catalogue.skills.Scout.effects[0].amount", "whole number"),
    (one("skills", "Scout", effects=[{"kind": "detection", "amount": 1, "role": "attack"}]),
     "catalogue.skills.Scout.effects[0].role", "has no role"),
    (one("skills", "Blackfish", effects=[{"kind": "strength", "amount": 1, "role": "up"}]),
     "catalogue.skills.Blackfish.effects[0].role", "unknown role 'up'"),
    (one("equipment", "Trebuchets", cost=1, effects=[{"kind": "siege_months", "amount": -1}]),
     "catalogue.equipment.Trebuchets.effects[0].role", "say whose siege effect"),
    (one("equipment", "Trebuchets", cost=1,
         effects=[{"kind": "siege_months", "amount": -1, "role": "both"}]),
     "catalogue.equipment.Trebuchets.effects[0].role", "belongs to one side"),
    (one("skills", "Blackfish", effects=[*STRENGTH, {"kind": "strength", "amount": 2,
                                                     "role": "attack"}]),
     "catalogue.skills.Blackfish.effects[1]", "repeats the strength effect"),
    (one("equipment", "Trebuchets", effects=STRENGTH),
     "catalogue.equipment.Trebuchets.cost", "is missing"),
    (one("equipment", "Trebuchets", cost=-5, effects=STRENGTH),
     "catalogue.equipment.Trebuchets.cost", "must be 0 to"),
    (one("improvements", "Walls", cost=5, effects=STRENGTH),
     "catalogue.improvements.Walls.months", "whole number of in-game months"),
    (one("improvements", "Walls", cost=5, months=0, effects=STRENGTH),
     "catalogue.improvements.Walls.months", "from 1 to"),
    (one("skills", "Blackfish", effects=STRENGTH, hidden="yes"),
     "catalogue.skills.Blackfish.hidden", "true or false"),
    (one("skills", 'Bad "name"', effects=STRENGTH), "catalogue.skills.'Bad \"name\"'",
     "not a usable name"),
    ({"skills": {"Blackfish": {"effects": STRENGTH}, "blackfish": {"effects": STRENGTH}}},
     "catalogue.skills.blackfish", "already used by 'Blackfish'"),
    ({"skills": {"Blackfish": {"effects": STRENGTH},
                 "Tully": {"label": "BLACKFISH", "effects": STRENGTH}}},
     "catalogue.skills.Tully", "already used by 'Blackfish'"),
    ({"skills": ["Blackfish"]}, "catalogue.skills", "must be a table of entries"),
]


@pytest.mark.parametrize(("data", "field", "message"), BAD, ids=[b[1] + ":" + b[2][:20]
                                                                  for b in BAD])
def test_catalogue_errors_name_the_key(data: dict[str, Any], field: str, message: str) -> None:
    """A catalogue the bot cannot use is refused with the dotted key of the first problem."""
    with pytest.raises(InvalidInput) as caught:
        parse_catalogue(data)
    assert caught.value.field == field
    assert message in caught.value.message


def test_the_error_message_reads_as_the_issue_shows_it() -> None:
    """The error reads ``catalogue.skills.X.effects[0].kind: unknown effect '...'; valid: ...``
    and lists the whole closed list."""
    with pytest.raises(InvalidInput) as caught:
        parse_catalogue(one("skills", "Brynden", effects=[{"kind": "strenght", "amount": 1}]))
    text = str(caught.value)
    assert text.startswith("catalogue.skills.Brynden.effects[0].kind: unknown effect 'strenght'")
    assert all(kind.value in text for kind in EffectKind)


def test_an_empty_or_missing_catalogue_has_no_entries() -> None:
    """A campaign without a catalogue simply has no skills, improvements or equipment."""
    assert parse_catalogue(None) == EMPTY_CATALOGUE
    assert parse_catalogue({}) == EMPTY_CATALOGUE
    assert len(parse_catalogue({"skills": {}})) == 0


def test_the_demo_catalogue_holds_what_the_issue_asks() -> None:
    """The demo catalogue: Blackfish x1.2, hidden Stone Walls, Watchtowers +2 detection,
    Granaries +2 defender months, Trebuchets -1 besieger month, Siege Towers x1.2 attack, and
    the demo map's four resource benefits."""
    cat = demo()
    expect = {
        (Section.SKILLS, "Blackfish"): [Effect(EffectKind.STRENGTH, D("1.2"))],
        (Section.IMPROVEMENTS, "Watchtowers"): [Effect(EffectKind.DETECTION, D(2))],
        (Section.IMPROVEMENTS, "Granaries"): [Effect(EffectKind.SIEGE_MONTHS, D(2),
                                                     Role.DEFENSE)],
        (Section.EQUIPMENT, "Trebuchets"): [Effect(EffectKind.SIEGE_MONTHS, D(-1), Role.ATTACK)],
        (Section.EQUIPMENT, "Siege Towers"): [Effect(EffectKind.STRENGTH, D("1.2"),
                                                     Role.ATTACK)],
        (Section.RESOURCES, "gold_mine"): [Effect(EffectKind.GOLD_INCOME, D(50))],
        (Section.RESOURCES, "horse_breeding"): [Effect(EffectKind.CAVALRY_CAPACITY, D(100))],
        (Section.RESOURCES, "salt"): [Effect(EffectKind.GOLD_INCOME, D(20))],
    }
    for (section, name), effects in expect.items():
        assert list(cat.lookup(section, name).effects) == effects, name
    walls = cat.lookup(Section.IMPROVEMENTS, "Stone Walls")
    assert walls.hidden and walls.effects[0].role is Role.DEFENSE and walls.effects[0].amount > 1
    assert (walls.cost, walls.months) == (D(300), 3)
    assert missing_resources(cat, ["gold_mine", "timber", "horse_breeding", "salt"]) == ()


def test_format_and_parse_round_trip() -> None:
    """Writing a catalogue out and reading it back gives the same catalogue."""
    cat = demo()
    assert parse_catalogue(format_catalogue(cat)) == cat


def test_lookup_ignores_case_and_knows_labels_and_lists_valid_names() -> None:
    """Names are found in any case and spacing, or by label; an unknown name gets the list of
    valid ones and a did-you-mean."""
    cat = demo()
    assert cat.lookup(Section.IMPROVEMENTS, "stone   WALLS").name == "Stone Walls"
    assert cat.lookup(Section.RESOURCES, "Gold Mine").name == "gold_mine"
    with pytest.raises(UnknownEntry) as caught:
        cat.lookup(Section.EQUIPMENT, "Trebucet")
    assert caught.value.valid == ("Trebuchets", "Siege Towers")
    assert caught.value.suggestion == "Trebuchets"
    assert "Trebuchets, Siege Towers" in str(caught.value)


@pytest.mark.parametrize(("section", "written", "name"), [
    (Section.EQUIPMENT, "trebuchet", "Trebuchets"),
    (Section.EQUIPMENT, "Siege Tower", "Siege Towers"),
    (Section.IMPROVEMENTS, "stone wall", "Stone Walls"),
    (Section.RESOURCES, "gold mines", "gold_mine"),
])
def test_lookup_takes_one_or_many_alike(section: Section, written: str, name: str) -> None:
    """`buy trebuchet` finds "Trebuchets": the singular and the plural of a name (or of its
    label) are the same entry."""
    assert demo().lookup(section, written).name == name


@pytest.mark.parametrize(("effect", "text"), [
    (Effect(EffectKind.STRENGTH, D("1.2")), "x1.2 strength"),
    (Effect(EffectKind.STRENGTH, D("1.3"), Role.DEFENSE), "x1.3 strength (defense)"),
    (Effect(EffectKind.SIEGE_MONTHS, D(-1), Role.ATTACK), "-1 siege month (besieger)"),
    (Effect(EffectKind.SIEGE_MONTHS, D(2), Role.DEFENSE), "+2 siege months (defender)"),
    (Effect(EffectKind.DETECTION, D(2)), "+2 to detection rolls"),
    (Effect(EffectKind.STEALTH, D(2)), "+2 to avoid detection"),
    (Effect(EffectKind.INFANTRY_CAPACITY, D(200)), "+200 infantry at home"),
    (Effect(EffectKind.CAVALRY_CAPACITY, D(100)), "+100 cavalry at home"),
    (Effect(EffectKind.GOLD_INCOME, D(50)), "+50 gold a month"),
    (Effect(EffectKind.SPEED, D("1.25")), "x1.25 speed"),
])
def test_effects_in_words(effect: Effect, text: str) -> None:
    """Every kind of the closed list has a wording for receipts and the moderators."""
    assert describe_effect(effect) == text


# --- each effect kind through its engine -------------------------------------------------

def test_strength_effect_multiplies_a_sides_strength() -> None:
    """A strength effect (Blackfish x1.2) multiplies the side's strength and is named."""
    side = Side(infantry=100, modifiers=(mod(Section.SKILLS, "Blackfish"),))
    result = strength(side, Role.ATTACK)
    assert result.value == 120
    assert result.public_labels() == ("x1.2 Blackfish",)


def test_strength_effect_counts_only_in_its_role() -> None:
    """Siege Towers (attack) help an attacker and not a defender; Stone Walls the reverse."""
    towers = (mod(Section.EQUIPMENT, "Siege Towers"),)
    walls = (mod(Section.IMPROVEMENTS, "Stone Walls"),)
    assert strength(Side(infantry=100, modifiers=towers), Role.ATTACK).value == 120
    assert strength(Side(infantry=100, modifiers=towers), Role.DEFENSE).value == 100
    assert strength(Side(infantry=100, modifiers=walls), Role.DEFENSE).value == 130
    assert strength(Side(infantry=100, modifiers=walls), Role.ATTACK).value == 100


def test_detection_effect_adds_to_the_observers_roll() -> None:
    """Watchtowers (+2 detection) add to a holdfast's +5."""
    target = detection_target(10, ObserverKind.HOLDFAST, DEFAULT_RULES,
                              observer_modifiers=(mod(Section.IMPROVEMENTS, "Watchtowers"),))
    assert (target.target, target.bonus) == (15, 7)
    assert "+2 Watchtowers" in target.explanation


def test_stealth_effect_comes_off_the_observers_roll() -> None:
    """A Scout with the passing army (+2 to avoid detection) takes 2 off the roll."""
    target = detection_target(10, ObserverKind.HOLDFAST, DEFAULT_RULES,
                              stealth_modifiers=(mod(Section.SKILLS, "Scout"),))
    assert target.bonus == 3


def test_siege_month_effects_belong_to_one_side() -> None:
    """Trebuchets take a month off for the besieger, Granaries add two for the defender; a
    besieger's Granaries would do nothing."""
    trebuchets = (mod(Section.EQUIPMENT, "Trebuchets"),)
    granaries = (mod(Section.IMPROVEMENTS, "Granaries"),)
    length = siege_months(2000, DEFAULT_RULES, besieger_modifiers=trebuchets,
                          defender_modifiers=granaries)
    assert (length.base, length.months) == (6, 7)
    assert [a.describe() for a in length.applied] == ["-1 month Trebuchets",
                                                      "+2 months Granaries"]
    wrong_side = siege_months(2000, DEFAULT_RULES, besieger_modifiers=granaries)
    assert wrong_side.months == 6


def test_capacity_effects_raise_troops_at_home() -> None:
    """Barracks (+200 infantry) and horse breeding (+100 cavalry) raise a claim's troops at
    home when the next in-game month begins (:func:`advance_improvements`)."""
    barracks = {"name": "Barracks", "holdfast": "0000", "cost": "250", "ordered_tick": 1,
                "ready_month": 1, "done": True}
    claim = ClaimState(1, "House Stark", "0000", infantry=1000, cavalry=300,
                       improvements=(barracks,))
    after, _ = advance_improvements(builders.world(claims=(claim,)), 1, 2, catalogue=demo(),
                                    modifiers=(mod(Section.RESOURCES, "horse_breeding"),))
    assert (after.claims[1].infantry, after.claims[1].cavalry) == (1200, 400)


def test_gold_income_effect_is_paid_each_month() -> None:
    """A gold mine (+50) and salt (+20) add 70 gold to a month's upkeep payment."""
    result = apply_upkeep(D(100), 100, 0, Season.SUMMER, DEFAULT_RULES,
                          income_modifiers=(mod(Section.RESOURCES, "gold_mine"),
                                            mod(Section.RESOURCES, "salt")))
    assert (result.income, result.cost, result.gold_after) == (D(70), D(10), D(160))
    assert result.income_labels == ("+50 gold mine", "+20 salt")


def test_speed_effect_multiplies_movement() -> None:
    """Forced March (x1.25) multiplies the speed after the size multipliers."""
    mult, reasons = speed_multiplier(2000, 0, DEFAULT_RULES,
                                     modifiers=(mod(Section.SKILLS, "Forced March"),))
    assert mult == D("0.625")
    assert reasons[-1] == "x1.25 Forced March"


# --- the one stacking rule ---------------------------------------------------------------

def test_same_named_effects_do_not_stack() -> None:
    """Two timber tiles (same name) give their income once; the gold mine (another name)
    stacks with it."""
    timber = mod(Section.RESOURCES, "timber")
    applied = collect([timber, timber, mod(Section.RESOURCES, "gold_mine")],
                      EffectKind.GOLD_INCOME)
    assert total(applied) == 65


def test_two_commanders_with_one_skill_count_once() -> None:
    """The same skill on two characters with one army counts once; a different skill stacks."""
    side = Side(infantry=100, modifiers=(mod(Section.SKILLS, "Blackfish"),
                                         mod(Section.SKILLS, "Blackfish"),
                                         mod(Section.SKILLS, "Shieldwall")))
    assert strength(side, Role.DEFENSE).value == 150
    assert strength(side, Role.ATTACK).value == 120


# --- the order of application --------------------------------------------------------------

def test_strength_multipliers_are_listed_in_the_documented_order() -> None:
    """Terrain, commander, skills, improvements, equipment, resources, holdfast defenses:
    whatever order the modifiers come in, that is the order they are applied and listed."""
    secret = Modifier("holdfast defenses", Source.HOLDFAST,
                      (Effect(EffectKind.STRENGTH, D("2"), Role.DEFENSE),), hidden=True)
    resource = Modifier("plunder", Source.RESOURCE, (Effect(EffectKind.STRENGTH, D("1.1")),))
    side = Side(infantry=100, terrain=Terrain.HILL, stationary=True,
                commander_bonus=D("1.05"),
                modifiers=(secret, resource, mod(Section.IMPROVEMENTS, "Stone Walls"),
                           mod(Section.SKILLS, "Shieldwall")))
    result = strength(side, Role.DEFENSE)
    assert [a.modifier.source for a in result.applied] == [
        Source.TERRAIN, Source.COMMANDER, Source.SKILL, Source.IMPROVEMENT, Source.RESOURCE,
        Source.HOLDFAST]
    assert result.value == D(100) * D("1.4") * D("1.05") * D("1.25") * D("1.3") * D("1.1") * 2
    assert result.public_labels() == ("x1.4 hill (stationary)", "x1.05 commander bonus",
                                      "x1.25 Shieldwall", "x1.1 plunder")


def test_siege_changes_add_up_before_the_one_month_floor() -> None:
    """Siege length: the chart first, then every change summed, then the floor of one month
    (so a +2 can make up for a -3 that alone would hit the floor)."""
    minus_three = Modifier("engines", Source.EQUIPMENT,
                           (Effect(EffectKind.SIEGE_MONTHS, D(-3), Role.ATTACK),))
    plus_two = mod(Section.IMPROVEMENTS, "Granaries")
    alone = siege_months(2000, DEFAULT_RULES, besieger_modifiers=(minus_three,),
                         defender_modifiers=())
    both = siege_months(2000, DEFAULT_RULES, besieger_modifiers=(minus_three,),
                        defender_modifiers=(plus_two,))
    floor = siege_months(2000, DEFAULT_RULES, besieger_modifiers=(minus_three, Modifier(
        "more", Source.SKILL, (Effect(EffectKind.SIEGE_MONTHS, D(-5), Role.ATTACK),))))
    assert (alone.months, both.months, floor.months) == (3, 5, 1)


def test_stealth_never_beats_an_automatic_detection() -> None:
    """Detection: the chart decides first; a force a holdfast sees automatically is seen
    whatever stealth it has."""
    target = detection_target(600, ObserverKind.HOLDFAST, DEFAULT_RULES,
                              stealth_modifiers=(mod(Section.SKILLS, "Scout"),))
    assert target.automatic


def test_income_is_added_before_upkeep_is_paid() -> None:
    """A month's income comes in before the upkeep goes out: a claim with no gold but a gold
    mine pays 40 gold of upkeep and does not scatter."""
    poor = apply_upkeep(D(0), 400, 0, Season.SUMMER, DEFAULT_RULES)
    mined = apply_upkeep(D(0), 400, 0, Season.SUMMER, DEFAULT_RULES,
                         income_modifiers=(mod(Section.RESOURCES, "gold_mine"),))
    assert poor.scatter and not mined.scatter
    assert mined.gold_after == 10


# --- the property -------------------------------------------------------------------------

bonus = st.builds(
    lambda name, amount, role: Modifier(name, Source.SKILL, (Effect(
        EffectKind.STRENGTH, D(amount).scaleb(-2), role),)),
    st.sampled_from(["Blackfish", "Shieldwall", "Tully", "Valour"]),
    st.integers(100, 300), st.sampled_from(list(Role)))


@settings(max_examples=60, deadline=None)
@given(mods=st.lists(bonus, min_size=1, max_size=4), data=st.data(),
       attacker=st.integers(1, 60), defender=st.integers(1, 60),
       attacking=st.booleans())
def test_removing_a_strength_bonus_never_raises_a_sides_odds(
        mods: list[Modifier], data: st.DataObject, attacker: int, defender: int,
        attacking: bool) -> None:
    """Take any one strength bonus (a multiplier of at least 1) away from a side, in either
    role, with the stacking rule in play: that side's chance to win never goes up."""
    index = data.draw(st.integers(0, len(mods) - 1))
    fewer = tuple(m for i, m in enumerate(mods) if i != index)
    if attacking:
        before = battle_odds(Side(infantry=attacker, modifiers=tuple(mods)),
                             Side(infantry=defender)).attacker_win
        after = battle_odds(Side(infantry=attacker, modifiers=fewer),
                            Side(infantry=defender)).attacker_win
    else:
        before = 1 - battle_odds(Side(infantry=attacker),
                                 Side(infantry=defender, modifiers=tuple(mods))).attacker_win
        after = 1 - battle_odds(Side(infantry=attacker),
                                Side(infantry=defender, modifiers=fewer)).attacker_win
    assert after <= before
