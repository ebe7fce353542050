"""The tick's musters, movement and meetings as pure functions over World values: no database."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from decimal import Decimal
from fractions import Fraction

from rules.campaign import calendar
from rules.campaign.advance import (
    Arrival,
    Detection,
    Encounter,
    HolderChanged,
    HoldfastFalls,
    MusterDone,
    Regenerated,
    Scattered,
    SiegeEnded,
    SiegeMonth,
    Tick,
    UpkeepPaid,
    advance_holders,
    advance_meetings,
    advance_movement,
    advance_moves,
    advance_musters,
    advance_regeneration,
    advance_sieges,
    advance_upkeep,
    changed_armies,
    holdfast_falls,
)
from rules.campaign.config import RulesConfig, Season
from rules.campaign.state import (
    BattleState,
    CharacterState,
    ClaimState,
    EventDice,
    HolderState,
    SiegeState,
    World,
)
from rules.campaign.upkeep import SlainLedger, record_loss
from rules.campaign.world import (
    Army,
    ArmyKind,
    ArmyState,
    BattleKind,
    BattleStatus,
    CharacterStatus,
    March,
    SiegeStatus,
)
from rules.campaign.worldmap import parse_map, tile_id
from rules.fairdice import EventKey, claim_branch

RULES = RulesConfig()
# One row of ten field tiles, 0000 .. 0900 (a tile borders the next one), holdfasts at both ends.
HEADER = "id,name,terrain,flags,resource_benefit,defense_bonus,region,neighbours\n"
FLAGS = {0: "holdfast", 9: "holdfast", 5: "resource"}  # 0500: a resource tile (a mine)
MAP = parse_map(HEADER + "".join(
    f"{tile_id(c, 0)},{'Hold ' + str(c) if c in (0, 9) else ''},field,"
    f"{FLAGS.get(c, '')},{'Gold mine' if c == 5 else ''},,,\n" for c in range(10)))
T = [tile_id(c, 0) for c in range(10)]
DICE = EventDice("a campaign secret", 3)
STARK = ClaimState(1, "House Stark", T[0])
LANNISTER = ClaimState(2, "House Lannister", T[9])


def tick(index: int = 10) -> Tick:
    return Tick(index, MAP, RULES)


def army(id: int, claim: int, tile: str, state: ArmyState = ArmyState.STANDING, *,
         path: tuple[str, ...] = (), depart: int | None = None, infantry: int = 100,
         **kw: object) -> Army:
    march = March(path, tuple(1 for _ in path), Fraction(0), depart)
    return Army(id, claim, ArmyKind.LAND, state, tile, infantry=infantry, march=march,
                **kw)  # type: ignore[arg-type]


def world(*armies: Army, wars: bool = True, **kw: object) -> World:
    kw.setdefault("claims", (STARK, LANNISTER))
    return World.of(armies=armies, wars=[(1, 2)] if wars else (),
                    **kw)  # type: ignore[arg-type]


def test_musters_become_ready_standing_marching_or_inside_a_besieged_holdfast() -> None:
    w = world(army(1, 1, T[3], ArmyState.MUSTERING, ready_tick=10),
              army(2, 1, T[3], ArmyState.MUSTERING, ready_tick=10, path=(T[4],), depart=10),
              army(3, 2, T[9], ArmyState.MUSTERING, ready_tick=10),
              army(4, 1, T[3], ArmyState.MUSTERING, ready_tick=11),
              sieges=(SiegeState(1, 9, 1, 2, T[9], 0),))
    after, events = advance_musters(w, tick(10))
    assert [after.armies[i].state for i in (1, 2, 3, 4)] == [
        ArmyState.STANDING, ArmyState.MARCHING, ArmyState.GARRISON, ArmyState.MUSTERING]
    assert after.armies[1].stationary_since == 10
    assert [e.army.id for e in events if isinstance(e, MusterDone)] == [1, 2, 3]
    assert w.armies[1].state is ArmyState.MUSTERING  # the world given is untouched


def test_no_tile_is_entered_on_the_departure_tick() -> None:
    w = world(army(1, 1, T[3], ArmyState.MARCHING, path=(T[4],), depart=10))
    after, events = advance_movement(w, tick(10), DICE)
    assert after.armies[1] is w.armies[1] and events == []


def test_a_march_steps_on_and_arrives() -> None:
    # 1.5 travel cost a tick on cost-1 fields: one tile on the first tick, two on the second.
    w = world(army(1, 1, T[3], ArmyState.MARCHING, path=(T[4], T[5], T[6]), depart=9),
              wars=False)
    after, events = advance_movement(w, tick(10), DICE)
    a = after.armies[1]
    assert (a.tile, a.march.path, a.march.saved, a.travelled) == (
        T[4], (T[5], T[6]), Fraction(1, 2), (T[3],))
    assert not [e for e in events if isinstance(e, Arrival)]
    after, events = advance_movement(after, tick(11), DICE)
    a = after.armies[1]
    assert (a.state, a.tile, a.march.path, a.arrival_tick, a.stationary_since) == (
        ArmyState.STANDING, T[6], (), 11, 11)
    assert a.travelled == (T[3], T[4], T[5])
    assert [(e.army.id, e.returned) for e in events if isinstance(e, Arrival)] == [(1, False)]


def test_a_retreat_returns_and_forgets_its_way() -> None:
    w = world(army(1, 1, T[4], ArmyState.RETREATING, path=(T[3],), depart=9,
                   travelled=(T[2], T[3])), wars=False)
    after, events = advance_movement(w, tick(10), DICE)
    assert (after.armies[1].state, after.armies[1].tile, after.armies[1].travelled) == (
        ArmyState.STANDING, T[3], ())
    assert [(e.army.id, e.returned) for e in events if isinstance(e, Arrival)] == [(1, True)]


def test_entering_an_enemy_tile_stops_the_march_and_begins_a_battle() -> None:
    w = world(army(1, 1, T[3], ArmyState.MARCHING, path=(T[4], T[5]), depart=8),
              army(2, 2, T[4], stationary_since=1))
    after, events = advance_movement(w, tick(10), DICE)
    a = after.armies[1]
    assert (a.state, a.tile, a.march.path) == (ArmyState.STANDING, T[4], ())
    [encounter] = [e for e in events if isinstance(e, Encounter)]
    battle = encounter.battle
    assert battle in after.battles and battle.id is None
    assert (battle.kind, battle.attacker_army, battle.defender_army, battle.status) == (
        BattleKind.FIELD, 1, 2, BattleStatus.PENDING)
    assert battle.resolve_tick == 10 + RULES.reaction_ticks
    assert battle.reactor_claim == 1  # not detected by the defender: the attacker reacts first
    assert not [e for e in events if isinstance(e, Arrival)]  # stopped, not arrived


def test_the_defender_that_detected_the_attacker_reacts_first() -> None:
    w = world(army(1, 1, T[3], ArmyState.MARCHING, path=(T[4],), depart=8).with_meta(
        detected_by=[2]), army(2, 2, T[4], stationary_since=1))
    after, _ = advance_movement(w, tick(10), DICE)
    assert after.battles[-1].reactor_claim == 2


def test_armies_of_claims_at_peace_pass_each_other() -> None:
    w = world(army(1, 1, T[3], ArmyState.MARCHING, path=(T[4], T[5]), depart=9),
              army(2, 2, T[4], stationary_since=1), wars=False)
    after, events = advance_movement(w, tick(10), DICE)
    assert after.armies[1].tile == T[4] and after.armies[1].state is ArmyState.MARCHING
    assert not after.battles and not [e for e in events if isinstance(e, Encounter)]


def test_a_holdfast_rolls_once_per_march_with_the_watchers_private_dice() -> None:
    # T[8] is within one tile of Lannister's holdfast T[9].
    w = world(army(1, 1, T[7], ArmyState.MARCHING, path=(T[8], T[7]), depart=9,
                   infantry=5).with_meta(order="o-17"), wars=False)
    after, events = advance_movement(w, tick(10), DICE)
    [seen] = [e for e in events if isinstance(e, Detection)]
    assert (seen.watcher, seen.observer, seen.army.tile) == (2, T[9], T[8])
    event = EventKey(DICE.period, claim_branch(2), f"detect:10:1:{T[9]}", "o-17")
    assert not seen.result.automatic  # 5 men: a d20 decides
    assert seen.result.roll == event.dice(DICE.secret).roll(20)
    assert seen.result.detected and after.armies[1].detected_by == {2}
    assert seen.dice_line.startswith(f"dice: v1 period=3 branch={claim_branch(2)} ")
    assert f"{seen.army.march.depart_tick}:{T[9]}" in after.armies[1].meta["rolled"]
    again, more = advance_movement(replace(after, armies={
        1: replace(after.armies[1], tile=T[8], march=March((T[7],), (1,), Fraction(0), 9))}),
        tick(11), DICE)
    assert not [e for e in more if isinstance(e, Detection)]  # rolled already on this march
    assert again.armies[1].meta["rolled"] == after.armies[1].meta["rolled"]


def test_the_same_world_and_dice_decide_the_same_tick() -> None:
    w = world(army(1, 1, T[3], ArmyState.MUSTERING, ready_tick=10, path=(T[4], T[5]),
                   depart=9),
              army(2, 1, T[6], ArmyState.MARCHING, path=(T[7], T[8]), depart=8),
              army(3, 2, T[8], stationary_since=2))
    first = advance_moves(w, tick(10), DICE)
    second = advance_moves(w, tick(10), DICE)
    assert first[0].armies == second[0].armies and first[1] == second[1]
    assert [a.id for a in changed_armies(w, first[0])] == [1, 2]


def test_hostile_armies_sharing_a_tile_meet_unless_busy_or_spared() -> None:
    w = world(army(1, 1, T[4], stationary_since=3), army(2, 2, T[4], stationary_since=5),
              army(3, 1, T[6], stationary_since=3), army(4, 2, T[6], stationary_since=5),
              army(5, 1, T[8], ArmyState.MARCHING, path=(T[9],), depart=10),
              army(6, 2, T[8], stationary_since=1))
    spared = BattleState(7, T[6], BattleKind.FIELD, 4, 3, 2, 1, 5, 6,
                         status=BattleStatus.SPARED)
    after, events = advance_meetings(replace(w, battles=(spared,)), tick(10))
    met = [(e.attacker.id, e.defender.id) for e in events if isinstance(e, Encounter)]
    assert met == [(2, 1), (5, 6)]  # the later comer attacks; the spared pair stays in peace
    assert after.armies[5].state is ArmyState.STANDING  # on the move, it stops to fight
    pending = replace(after.battles[-1], id=8)
    _, more = advance_meetings(replace(after, battles=(spared, pending)), tick(10))
    assert [(e.attacker.id, e.defender.id) for e in more] == [(2, 1)]


def ticks_per_month() -> int:
    return int(RULES.month_length / timedelta(hours=RULES.tick_hours))


def besieged_world(months_elapsed: int = 0, **kw: object) -> tuple[World, SiegeState]:
    """Stark (army 1) besieges Lannister's holdfast T[9], where Lannister's army 2 is inside
    with its lord."""
    siege = SiegeState(5, army_id=1, besieger_claim=1, defender_claim=2, holdfast=T[9],
                       started_tick=0, months_elapsed=months_elapsed, months_required=3)
    w = world(army(1, 1, T[9], ArmyState.BESIEGING, stationary_since=0),
              army(2, 2, T[9], ArmyState.GARRISON, infantry=50, commander_id=7),
              claims=(STARK, replace(LANNISTER, infantry=300, cavalry=30)), sieges=(siege,),
              characters=(CharacterState(7, 2, "Tywin", army_id=2),), **kw)
    return w, siege


def test_a_siege_month_counts_when_one_completes() -> None:
    w, _ = besieged_world()
    month_end = ticks_per_month()
    _, quiet = advance_sieges(w, tick(month_end - 1))
    assert quiet == []  # no siege month completes on this tick
    after, events = advance_sieges(w, tick(month_end))
    assert events == [SiegeMonth(after.sieges[0], 1, 2)]
    assert after.sieges[0].months_elapsed == 1 and after.sieges[0].status is SiegeStatus.ACTIVE


def test_a_holdfast_starved_out_falls_with_its_garrison_and_lord() -> None:
    w, _ = besieged_world(months_elapsed=2)
    after, events = advance_sieges(w, tick(ticks_per_month() * 3))
    [fall] = events
    assert isinstance(fall, HoldfastFalls) and fall.how == "starved out after 3 months of siege"
    assert (fall.infantry, fall.cavalry) == (350, 30)  # at home and in the garrison army
    assert after.sieges[0].status is SiegeStatus.FALLEN
    assert after.claims[2].infantry == after.claims[2].cavalry == 0
    assert after.armies[2].state is ArmyState.GONE and after.armies[2].commander_id is None
    assert after.armies[2].meta["fate"] == "were captured when the holdfast fell"
    assert after.characters[7].status is CharacterStatus.CAPTURED
    assert after.armies[1].state is ArmyState.STANDING  # the besiegers hold the tile


def test_an_assault_won_takes_the_holdfast_at_once() -> None:
    w, siege = besieged_world()
    after, fall = holdfast_falls(w, siege, "taken by assault")
    assert fall.how == "taken by assault" and after.sieges[0].status is SiegeStatus.FALLEN
    assert w.sieges[0].status is SiegeStatus.ACTIVE  # the world given is untouched


def test_a_siege_ends_when_the_besiegers_leave_or_are_gone_and_the_garrison_comes_out() -> None:
    w, _ = besieged_world()
    left = replace(w, armies={**w.armies, 1: replace(w.armies[1], state=ArmyState.MARCHING,
                                                     tile=T[8])})
    after, events = advance_sieges(left, tick(3))
    assert events == [SiegeEnded(after.sieges[0], "have left the holdfast's tile")]
    assert after.sieges[0].status is SiegeStatus.LIFTED
    assert after.armies[2].state is ArmyState.STANDING  # nobody holds it in any more
    beaten = replace(w, armies={**w.armies, 1: replace(w.armies[1], state=ArmyState.GONE)
                                .with_meta(fate="fell in battle to the last man")})
    _, events = advance_sieges(beaten, tick(3))
    assert [e.fate for e in events if isinstance(e, SiegeEnded)] == [
        "fell in battle to the last man"]


def test_the_strongest_standing_occupier_holds_a_resource_tile() -> None:
    w = world(army(1, 1, T[5], stationary_since=2, infantry=100),
              army(2, 1, T[5], ArmyState.MARCHING, path=(T[6],), depart=9, infantry=900),
              wars=False)
    after, events = advance_holders(w, tick())
    assert events == [HolderChanged(T[5], 1, None)] and after.holders[T[5]].claim_id == 1
    again, none = advance_holders(after, tick(11))
    assert none == [] and again is after  # nothing changed, nothing to write


def test_a_hostile_newcomer_takes_nothing_by_arriving_but_a_friend_can() -> None:
    held = {T[5]: HolderState(T[5], 1)}
    enemy = world(army(1, 1, T[5], stationary_since=2, infantry=100),
                  army(2, 2, T[5], stationary_since=9, infantry=900), holders=held.values())
    assert advance_holders(enemy, tick())[1] == []
    friend = replace(enemy, wars=frozenset())
    assert advance_holders(friend, tick())[1] == [HolderChanged(T[5], 2, 1)]


def test_a_cession_holds_while_its_claim_keeps_the_benefit_and_lapses_when_it_loses_it() -> None:
    ceded = world(army(1, 1, T[5], stationary_since=2, infantry=900),
                  army(2, 2, T[5], stationary_since=9, infantry=100),
                  holders=[HolderState(T[5], 1, ceded_to=2)], wars=False)
    after, events = advance_holders(ceded, tick())
    assert events == [HolderChanged(T[5], 2, 1)] and after.holders[T[5]].ceded_to == 2
    left = replace(after, armies={1: after.armies[1]})  # army 2 leaves the tile
    back, events = advance_holders(left, tick(11))
    assert events == [HolderChanged(T[5], 1, 2)] and back.holders[T[5]].ceded_to is None
    nobody, events = advance_holders(replace(back, armies={}), tick(12))
    assert events == [HolderChanged(T[5], None, 1)] and nobody.holders[T[5]].claim_id is None


MONTH = calendar.GameDate(300, 5)


def test_upkeep_is_paid_from_gold_for_every_raised_army() -> None:
    rich = replace(STARK, gold=Decimal(100))
    w = world(army(1, 1, T[3], infantry=100, cavalry=10), army(2, 1, T[0], ArmyState.GARRISON,
              infantry=50), army(3, 2, T[9], infantry=500), claims=(rich, LANNISTER),
              season=Season.SUMMER)
    after, [paid] = advance_upkeep(w, 1, MONTH, tick())
    assert isinstance(paid, UpkeepPaid) and (paid.infantry, paid.cavalry) == (150, 10)
    cost = 150 * RULES.infantry_upkeep + 10 * RULES.cavalry_upkeep
    assert paid.result.cost == cost and after.claims[1].gold == 100 - cost
    assert after.armies is w.armies  # nobody scattered


def test_unpaid_armies_scatter_and_half_go_home_locked_for_the_year() -> None:
    poor = replace(STARK, gold=Decimal(0), infantry=7)
    w = world(army(1, 1, T[3], infantry=100, cavalry=10), army(2, 1, T[4], infantry=51),
              army(3, 2, T[9], infantry=500), claims=(poor, LANNISTER))
    after, [scattered] = advance_upkeep(w, 1, MONTH, tick())
    assert isinstance(scattered, Scattered) and scattered.result.scatter
    home = scattered.result.survivors
    assert (home.infantry, home.cavalry) == (75, 5)  # half of 151 and of 10, rounded down
    claim = after.claims[1]
    assert (claim.infantry, claim.cavalry, claim.scattered_infantry) == (82, 5, 75)
    assert claim.scattered_until == calendar.scattered_until(
        calendar.tick_time(10, RULES), RULES)
    assert [after.armies[i].state for i in (1, 2, 3)] == [
        ArmyState.GONE, ArmyState.GONE, ArmyState.STANDING]
    assert after.armies[1].meta["fate"] == "scattered, unpaid and unfed"


def test_the_slain_come_back_month_by_month_once_per_month() -> None:
    ledger = record_loss(SlainLedger(), calendar.GameDate(299, 1), 1000, 100)
    w = world(claims=(replace(STARK, slain=ledger), LANNISTER))
    after, events = advance_regeneration(w, 1, MONTH, tick())
    [back] = events
    assert isinstance(back, Regenerated) and back.infantry > 0
    assert after.claims[1].infantry == back.infantry
    assert after.claims[1].slain.last_accrued == MONTH
    again, none = advance_regeneration(after, 1, MONTH, tick())
    assert none == [] and again is after  # a month accrues once
