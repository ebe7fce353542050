"""The month's improvements and troop capacity, a battle's aftermath (the fate tables, the
secret strengths), the dice periods' commitments and reveals and the warning after a month's
upkeep, as pure functions over values: no database."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from decimal import Decimal
from typing import Any

import pytest

from rules.campaign import calendar
from rules.campaign.battle import Winner
from rules.campaign.catalogue import Section, parse_catalogue
from rules.campaign.characters import (
    NO_FATE_ROLLS,
    Fate,
    FateSettings,
    FateTable,
    settle_fate,
)
from rules.campaign.config import Season
from rules.campaign.improvements import (
    capacity_granted,
    finished_improvements,
    improvement_modifiers,
    improvement_records,
)
from rules.campaign.modifiers import Effect, EffectKind, Modifier, Role, Source
from rules.campaign.tick import (
    BattleFought,
    CapacityChanged,
    FateRolled,
    ImprovementDone,
    Tick,
    advance_battles,
    advance_improvements,
)
from rules.campaign.upkeep import Troops, apply_upkeep, troops_of
from rules.campaign.warnings import forecast_upkeep, upkeep_ahead, upkeep_charged_at
from rules.campaign.world import (
    Army,
    ArmyState,
    CharacterState,
    CharacterStatus,
    ClaimState,
    EventDice,
    NoModifiers,
    World,
)
from rules.fairdice import (
    PUBLIC,
    DiceLine,
    EventKey,
    branch_secret,
    branches,
    commitment,
    dice_period,
    lines_by_branch,
    matches_commitment,
    period_turn,
)
from tests.rules.campaign import builders
from tests.rules.campaign.test_advance import (
    MAP,
    RULES,
    T,
    army,
    assault,
    field_battle,
    world,
)

CATALOGUE = parse_catalogue({"improvements": {
    "Barracks": {"cost": 250, "months": 2,
                 "effects": [{"kind": "infantry_capacity", "amount": 200}]},
    "Stables": {"cost": 100, "months": 1, "hidden": True,
                "effects": [{"kind": "cavalry_capacity", "amount": 50}]},
    "Watchtowers": {"cost": 120, "months": 1, "effects": [{"kind": "detection", "amount": 2}]},
    "Market": {"cost": 100, "months": 1, "effects": [{"kind": "gold_income", "amount": 40}]},
}})


def record(name: str, ready: int, *, done: bool = False) -> dict[str, Any]:
    return {"name": name, "holdfast": T[0], "cost": "100", "ordered_tick": 1,
            "ready_month": ready, "done": done}


def stark(*items: Any, infantry: int = 100, cavalry: int = 10, **kw: Any) -> World:
    claim = ClaimState(1, "House Stark", T[0], infantry=infantry, cavalry=cavalry,
                       improvements=tuple(items), **kw)
    return builders.world(claims=(claim,))


# --- improvements and capacity ---------------------------------------------------------------

def test_improvements_due_are_finished_and_their_capacity_counts_at_once() -> None:
    w = stark(record("Barracks", 5), record("Watchtowers", 6))
    after, events = advance_improvements(w, 1, 5, catalogue=CATALOGUE)
    claim = after.claims[1]
    assert [type(e) for e in events] == [ImprovementDone, CapacityChanged]
    done, changed = events
    assert isinstance(done, ImprovementDone) and isinstance(changed, CapacityChanged)
    assert (done.name, done.holdfast, done.month) == ("Barracks", T[0], 5)
    assert done.entry == CATALOGUE.find(Section.IMPROVEMENTS, "Barracks")
    assert finished_improvements(claim.improvements) == ("Barracks",)
    assert (changed.infantry, changed.cavalry, changed.capacity) == (200, 0, (200, 0))
    assert [a.modifier.name for a in changed.applied] == ["Barracks"]
    assert (claim.infantry, claim.cavalry) == (300, 10)
    assert capacity_granted(claim.improvements) == (200, 0)
    assert improvement_records(w.claims[1].improvements)[0]["done"] is False  # untouched


def test_nothing_due_and_capacity_in_line_changes_nothing() -> None:
    w = stark(record("Barracks", 3, done=True), record("Watchtowers", 9),
              {"capacity": {"infantry": 200, "cavalry": 0}})
    assert advance_improvements(w, 1, 5, catalogue=CATALOGUE) == (w, [])


def test_capacity_that_stops_takes_troops_away_as_far_as_they_are_at_home() -> None:
    """The benefit that granted 50 cavalry is no longer held: 50 cavalry go, but only 20 are
    at home (the scattered ones locked among them are capped too)."""
    stables = Modifier("Horse plains", Source.RESOURCE,
                       (Effect(EffectKind.CAVALRY_CAPACITY, Decimal(50), Role.BOTH),))
    w = stark({"capacity": {"infantry": 0, "cavalry": 50}}, cavalry=20, scattered_cavalry=15)
    held, events = advance_improvements(w, 1, 5, catalogue=CATALOGUE, modifiers=(stables,))
    assert (held, events) == (w, [])  # still held: in line
    after, events = advance_improvements(w, 1, 5, catalogue=CATALOGUE)
    [changed] = events
    assert isinstance(changed, CapacityChanged)
    assert (changed.infantry, changed.cavalry, changed.applied) == (0, -50, ())
    claim = after.claims[1]
    assert (claim.cavalry, claim.scattered_cavalry) == (0, 0)
    assert capacity_granted(claim.improvements) == (0, 0)
    assert claim.improvements == ()  # no bookkeeping entry once nothing is granted


def test_without_a_catalogue_improvements_finish_and_grant_nothing() -> None:
    w = stark(record("Barracks", 5))
    after, events = advance_improvements(w, 1, 5, catalogue=parse_catalogue({}))
    [done] = events
    assert isinstance(done, ImprovementDone) and done.entry is None
    assert after.claims[1].infantry == 100
    assert improvement_modifiers(parse_catalogue({}), after.claims[1].improvements) == ()


def test_a_hidden_improvements_capacity_is_named_among_the_claims_own_modifiers() -> None:
    w = stark(record("Stables", 4))
    after, events = advance_improvements(w, 1, 4, catalogue=CATALOGUE)
    changed = events[-1]
    assert isinstance(changed, CapacityChanged) and changed.cavalry == 50
    assert after.claims[1].cavalry == 60
    assert [m.name for m in changed.modifiers] == ["Stables"] and changed.modifiers[0].hidden


# --- a battle's aftermath --------------------------------------------------------------------

KILLING = FateSettings(True, FateTable.from_mapping("death", {"1-100": "dies"}),
                       FateTable.from_mapping("injury", {"1-100": "a scar"}), frozenset({"dies"}))


def two_battles(**kw: Any) -> World:
    """Tywin commands Lannister's army 2 on T[4]; Stark's armies 1 and 3 attack it there, in
    battles 3 and 5, both due at tick 10."""
    return world(army(1, 1, T[4], stationary_since=9, arrival_tick=9, travelled=(T[3],),
                      meta={"order": "o-1"}, infantry=kw.pop("first", 100)),
                 army(2, 2, T[4], stationary_since=2, infantry=kw.pop("defender", 300),
                      commander_id=7),
                 army(3, 1, T[4], stationary_since=9, arrival_tick=9, travelled=(T[3],),
                      meta={"order": "o-3"}, infantry=100),
                 characters=(CharacterState(7, 2, "Tywin", army_id=2),),
                 battles=(field_battle(), field_battle(id=5, attacker_army=3)), **kw)


def tywins_death(w: World, fates: FateSettings) -> tuple[World, list[Any], EventDice]:
    """The dice of the first secret under which Tywin is called to a death roll in battle 3
    and army 2 still stands for battle 5 (a search over fixed secrets: deterministic)."""
    for n in range(500):
        dice = EventDice(f"secret {n}", 3)
        after, events = advance_battles(w, Tick(10, MAP, RULES, fates=fates), dice)
        first = next(e for e in events if isinstance(e, BattleFought))
        called = [f for f in first.result.defender.fates if f.name == "Tywin"]
        if called and called[0].fate is Fate.DEATH_ROLL \
                and after.armies[2].state is not ArmyState.GONE:
            return after, events, dice
    raise AssertionError("no secret calls Tywin to a death roll")


def test_a_fate_roll_kills_at_once_and_the_dead_fight_no_second_battle_that_tick() -> None:
    w = two_battles()
    after, events, dice = tywins_death(w, KILLING)
    first, second = [e for e in events if isinstance(e, BattleFought)]
    assert first.fates is not None
    [rolled] = [f for f in first.fates if f.character == "Tywin"]
    # The roll keeps its dice key: fate:<battle>:<name>, the armies' last orders as entropy.
    fate_dice, event = dice.roll_for("fate:3:Tywin", first.attacker, first.defender)
    call = next(f for f in first.result.defender.fates if f.name == "Tywin")
    assert rolled.roll == settle_fate(call, dice=fate_dice, death_table=KILLING.death_table)
    assert rolled == FateRolled(Winner.DEFENDER, 2, "Tywin", rolled.roll, True,
                                dice.line(event, fate_dice), tuple(fate_dice.rolls))
    assert after.characters[7].status is CharacterStatus.DEAD
    assert after.characters[7].army_id is None and after.armies[2].commander_id is None
    assert first.defender is not None and first.defender.commander_id is None
    # The second battle of the tick: army 2 fights without him (no call, no commander).
    assert second.battle.id == 5 and second.defender is not None
    assert second.result.defender.fates == ()
    assert w.characters[7].status is CharacterStatus.ALIVE  # the world given is untouched


def test_without_roll_fates_nothing_is_rolled_and_the_called_live_on() -> None:
    """The battle post then lists who must roll: the calls are in the result, no table roll
    is made and nobody is marked dead."""
    w = two_battles()
    after, events, _ = tywins_death(w, NO_FATE_ROLLS)
    first, second = [e for e in events if isinstance(e, BattleFought)]
    assert first.fates is None and second.fates is None
    assert after.characters[7] == w.characters[7]
    assert any(f.name == "Tywin" for f in second.result.defender.fates)


def test_an_outcome_that_does_not_kill_leaves_the_character_alive() -> None:
    spared = replace(KILLING, death_outcomes=frozenset())
    after, events, _ = tywins_death(two_battles(), spared)
    first = next(e for e in events if isinstance(e, BattleFought))
    assert first.fates is not None
    assert [(f.character, f.dies) for f in first.fates if f.character == "Tywin"] == [
        ("Tywin", False)]
    assert after.characters[7].status is CharacterStatus.ALIVE


class SecretSkill(NoModifiers):
    """Army 1 fights with a hidden strength modifier."""

    def battle(self, army: Army, *, assault: bool,
               characters: Sequence[CharacterState] | None = None) -> tuple[Modifier, ...]:
        if army.id != 1:
            return ()
        return (Modifier("Ambush", Source.SKILL,
                         (Effect(EffectKind.STRENGTH, Decimal("1.2"), Role.BOTH),),
                         hidden=True),)


class Skills(NoModifiers):
    """Each character's skills are strength modifiers named after them (x1.1 each)."""

    def battle(self, army: Army, *, assault: bool,
               characters: Sequence[CharacterState] | None = None) -> tuple[Modifier, ...]:
        return tuple(Modifier(skill, Source.SKILL,
                              (Effect(EffectKind.STRENGTH, Decimal("1.1"), Role.BOTH),))
                     for c in characters or () for skill in c.skills)


def test_the_skills_of_a_character_killed_in_a_battle_count_in_no_later_one() -> None:
    w = two_battles()
    lion = replace(w.characters[7], skills=("Lion",))
    w = replace(w, characters={7: lion})
    for n in range(500):
        dice = EventDice(f"secret {n}", 3)
        after, events = advance_battles(w, Tick(10, MAP, RULES, Skills(), KILLING), dice)
        first, second = [e for e in events if isinstance(e, BattleFought)]
        if any(f.character == "Tywin" and f.dies for f in first.fates or ()) \
                and second.defender is not None:
            break
    else:
        raise AssertionError("no secret kills Tywin in the first battle")
    assert [a.modifier.name for a in first.result.defender.strength.applied] == ["Lion"]
    assert second.result.defender.strength.applied == ()
    assert after.characters[7].status is CharacterStatus.DEAD


class HomeSkills(NoModifiers):
    """A holdfast's defenders count the skills of the claim's characters at home (x1.1 each):
    those the rules hand over, else those of ``records`` (as a modifier book holds them)."""

    def __init__(self, records: World) -> None:
        self.records = records

    def holdfast(self, claim_id: int, *,
                 characters: Sequence[CharacterState] | None = None) -> tuple[Modifier, ...]:
        home = [c for c in self.records.characters.values()
                if c.claim_id == claim_id and c.army_id is None] \
            if characters is None else characters
        return tuple(Modifier(skill, Source.SKILL,
                              (Effect(EffectKind.STRENGTH, Decimal("1.1"), Role.BOTH),))
                     for c in home for skill in c.skills)


def test_the_skills_of_a_character_killed_at_home_count_in_no_later_assault() -> None:
    """Stark's armies 1 and 3 assault Lannister's holdfast in the same tick (battles 4 and
    6): Cersei, at home with her skill, dies in the first; the second is fought without it."""
    w, first_assault = assault(200)
    cersei = replace(w.characters[8], skills=("Lioness",))
    w = replace(w, characters={**w.characters, 8: cersei}, armies={
        **w.armies, 3: army(3, 1, T[9], stationary_since=9, arrival_tick=9, travelled=(T[8],),
                            infantry=200, meta={"order": "o-3"})},
                battles=(first_assault, replace(first_assault, id=6, attacker_army=3)))
    for n in range(500):
        dice = EventDice(f"secret {n}", 3)
        after, events = advance_battles(w, Tick(10, MAP, RULES, HomeSkills(w), KILLING), dice)
        fought = [e for e in events if isinstance(e, BattleFought)]
        if len(fought) == 2 and any(f.character == "Cersei" and f.dies
                                    for f in fought[0].fates or ()):
            break
    else:
        raise AssertionError("no secret kills Cersei in the first assault")
    first, second = fought
    assert (first.battle.id, second.battle.id) == (4, 6)
    assert [a.modifier.name for a in first.result.defender.strength.applied] == ["Lioness"]
    assert second.result.defender.strength.applied == ()
    assert after.characters[8].status is CharacterStatus.DEAD


@pytest.mark.parametrize("modifiers", [SecretSkill(), NoModifiers()])
def test_an_army_whose_strength_counted_a_secret_is_told_it_alone(
        modifiers: NoModifiers) -> None:
    w = world(army(1, 1, T[4], stationary_since=9, arrival_tick=9, travelled=(T[3],)),
              army(2, 2, T[4], stationary_since=2), battles=(field_battle(),))
    _, events = advance_battles(w, Tick(10, MAP, RULES, modifiers), EventDice("s", 3))
    [fought] = events
    assert isinstance(fought, BattleFought)
    secret = [(which, a.id) for which, a in fought.secret_strengths()]
    assert secret == ([(Winner.ATTACKER, 1)] if isinstance(modifiers, SecretSkill) else [])


# --- the dice periods' commitments and reveals -----------------------------------------------

def test_a_month_that_begins_no_period_commits_and_reveals_nothing() -> None:
    assert period_turn("fair", 7, 3, [1, 2]) is None


def test_the_first_period_commits_to_the_next_and_reveals_nothing() -> None:
    turn = period_turn("fair", 0, 1, [2, 1])
    assert turn is not None and (turn.period, turn.ended, turn.public, turn.claims) == (
        0, None, None, ())
    assert [b.name for b in turn.commit] == [PUBLIC, "claim:1", "claim:2"]
    assert [b.commitment for b in turn.commit] == [
        commitment(branch_secret("fair", 1, b.name)) for b in turn.commit]


def test_a_new_period_commits_to_the_next_and_reveals_every_branch_of_the_last() -> None:
    turn = period_turn("fair", 6, 3, [5, 1])  # month 6 begins period 2 of 3 months each
    assert turn is not None and (turn.period, turn.ended) == (2, 1)
    assert turn.commit == branches("fair", 3, [1, 5])
    assert turn.public is not None and turn.public.secret == branch_secret("fair", 1, PUBLIC)
    assert [(r.claim_id, r.branch) for r in turn.claims] == [(1, "claim:1"), (5, "claim:5")]
    assert all(r.secret == branch_secret("fair", 1, r.branch)
               and matches_commitment(r.secret, r.commitment) for r in turn.claims)
    assert dice_period(6, 3) == 2 and dice_period(5, 3) == 1


def test_printed_lines_are_grouped_by_their_branch_in_order() -> None:
    def line(branch: str, key: str) -> str:
        return str(DiceLine(EventKey(1, branch, key, ""), ((20, 3),)))

    lines = [line(PUBLIC, "battle:1"), line("claim:2", "detect:1"), line(PUBLIC, "battle:2")]
    assert lines_by_branch(lines) == {PUBLIC: [lines[0], lines[2]], "claim:2": [lines[1]]}


# --- the warning after a month's upkeep ------------------------------------------------------

def test_the_warning_after_upkeep_foresees_next_months_scatter() -> None:
    """7 infantry and 3 cavalry cost 1.9 a month: paid out of 3 gold, 1.1 is left, short of the
    next month's upkeep (charged when that month begins)."""
    raised = troops_of([army(1, 1, T[0], infantry=7, cavalry=3)])
    assert raised == Troops(7, 3)
    paid = calendar.GameDate(300, 4)
    result = apply_upkeep(Decimal(3), 7, 3, Season.SUMMER, RULES)
    ahead = upkeep_ahead(result, raised, Season.SUMMER, paid, RULES)
    assert ahead is not None and ahead.month == calendar.GameDate(300, 5)
    assert ahead.forecast == forecast_upkeep(Decimal("1.1"), raised, Season.SUMMER, RULES)
    assert ahead.charged == upkeep_charged_at(ahead.month, RULES)
    enough = apply_upkeep(Decimal(4), 7, 3, Season.SUMMER, RULES)
    assert upkeep_ahead(enough, raised, Season.SUMMER, paid, RULES) is None
    scattered = apply_upkeep(Decimal(1), 7, 3, Season.SUMMER, RULES)
    assert scattered.scatter and upkeep_ahead(scattered, raised, Season.SUMMER, paid,
                                              RULES) is None


def test_a_dice_period_begins_with_the_first_tick_of_its_first_month() -> None:
    for period, months in ((0, 1), (2, 3), (5, 2)):
        first = calendar.period_first_tick(period, months, RULES)
        assert calendar.is_tick(first, RULES)
        assert dice_period(calendar.month_number(first, RULES), months) == period
        before = first - calendar.tick_length(RULES)
        assert period == 0 or dice_period(calendar.month_number(before, RULES), months) \
            == period - 1
