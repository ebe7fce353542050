"""The tick's phases (monthly jobs, musters, movement, battles, meetings, sieges, resource
holders) as pure functions over World values: no database."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from decimal import Decimal
from fractions import Fraction

from rules.campaign import calendar
from rules.campaign.battle import Side, Winner, resolve_battle
from rules.campaign.config import RetreatRow, RulesConfig, Season, Terrain
from rules.campaign.retreat import roll_retreat
from rules.campaign.tick import (
    Arrival,
    BattleFought,
    BattleVoid,
    Detection,
    Encounter,
    HolderChanged,
    HoldfastFalls,
    MusterDone,
    OpponentDecides,
    Regenerated,
    Retreated,
    RetreatFailed,
    RetreatReferred,
    Scattered,
    SiegeEnded,
    SiegeMonth,
    Tick,
    UpkeepPaid,
    advance,
    advance_battles,
    advance_holders,
    advance_meetings,
    advance_movement,
    advance_moves,
    advance_musters,
    advance_regeneration,
    advance_sieges,
    advance_upkeep,
    holdfast_falls,
    observers_of,
)
from rules.campaign.upkeep import SlainLedger, record_loss
from rules.campaign.world import (
    Army,
    ArmyState,
    BattleKind,
    BattleState,
    BattleStatus,
    CharacterState,
    CharacterStatus,
    ClaimState,
    EventDice,
    HolderState,
    March,
    Reaction,
    SiegeState,
    SiegeStatus,
    World,
    army_side,
    battle_side,
    changed_armies,
)
from rules.fairdice import EventKey, claim_branch, key_token
from tests.rules.campaign import builders
from tests.rules.campaign.builders import T, army

RULES = RulesConfig()
MAP = builders.row_map({5: "Gold mine"})  # 0500: a resource tile (a mine)
DICE = EventDice("a campaign secret", 3)
STARK = ClaimState(1, "House Stark", T[0])
LANNISTER = ClaimState(2, "House Lannister", T[9])


def tick(index: int = 10) -> Tick:
    return Tick(index, MAP, RULES)


def world(*armies: Army, wars: bool = True, **kw: object) -> World:
    kw.setdefault("claims", (STARK, LANNISTER))
    return builders.world(*armies, wars=wars, **kw)  # type: ignore[arg-type]


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
    assert battle in after.battles and battle.id == w.next_battle_id  # the rules number it
    assert (battle.kind, battle.attacker_army, battle.defender_army, battle.status) == (
        BattleKind.FIELD, 1, 2, BattleStatus.PENDING)
    assert battle.resolve_tick == 10 + RULES.reaction_ticks
    assert battle.reactor_claim == 2  # the marcher started it: the standing army reacts first
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
                   infantry=5).with_meta(order="o-12"), wars=False)
    after, events = advance_movement(w, tick(10), DICE)
    [seen] = [e for e in events if isinstance(e, Detection)]
    assert (seen.watcher, seen.observer, seen.army.tile) == (2, T[9], T[8])
    # keyed by the tick, the watching tile and the roll's rank there (not the army's number),
    # the rank printed only as a token of the campaign secret (no count of unseen armies)
    key = f"detect:10:{T[9]}:{key_token(DICE.secret, 'detect', 10, T[9], 1)}"
    event = EventKey(DICE.period, claim_branch(2), key, "o-12")
    assert not seen.result.automatic  # 5 men: a d20 decides
    assert seen.result.roll == event.dice(DICE.secret).roll(20)
    assert seen.result.detected and after.armies[1].detected_by == {2}
    assert seen.dice_line.startswith(f"dice: v1 period=3 branch={claim_branch(2)} "
                                     f"key={key} ")
    assert f"{seen.army.march.depart_tick}:{T[9]}" in after.armies[1].meta["rolled"]
    again, more = advance_movement(replace(after, armies={
        1: replace(after.armies[1], tile=T[8], march=March((T[7],), (1,), Fraction(0), 9))}),
        tick(11), DICE)
    assert not [e for e in more if isinstance(e, Detection)]  # rolled already on this march
    assert again.armies[1].meta["rolled"] == after.armies[1].meta["rolled"]


def test_a_detection_key_counts_nothing_a_watcher_could_read() -> None:
    """Two marches pass Lannister's holdfast in one tick: each roll's key ends in an opaque
    token of the campaign secret standing for its rank there, not in the rank itself, so the
    key of the one roll a watcher may be shown does not tell how many others were rolled."""
    w = world(army(1, 1, T[7], ArmyState.MARCHING, path=(T[8], T[7]), depart=9,
                   infantry=5).with_meta(order="o-1"),
              army(2, 1, T[7], ArmyState.MARCHING, path=(T[8], T[7]), depart=9,
                   infantry=6).with_meta(order="o-2"), wars=False)
    _, events = advance_movement(w, tick(10), DICE)
    keys = [e.dice_line.split(" key=")[1].split(" ")[0]
            for e in events if isinstance(e, Detection)]
    assert keys == [f"detect:10:{T[9]}:{key_token(DICE.secret, 'detect', 10, T[9], rank)}"
                    for rank in (1, 2)]
    tokens = [key.rsplit(":", 1)[1] for key in keys]
    assert all(len(t) == 10 and set(t) <= set("0123456789abcdef") for t in tokens)
    assert tokens[0] != tokens[1] and key_token("another secret", "detect", 10, T[9], 1) \
        != tokens[0]


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


def test_a_fallen_holdfast_takes_its_improvements_to_the_conqueror() -> None:
    """Issue 23: the improvements built (or being built) at the fallen holdfast move to the
    besieger's list; those elsewhere and the capacity bookkeeping stay."""
    w, siege = besieged_world()
    here = {"name": "Granaries", "holdfast": siege.holdfast, "done": True}
    elsewhere = {"name": "Barracks", "holdfast": "elsewhere", "done": False}
    granted = {"capacity": {"infantry": 50, "cavalry": 0}}
    defender = w.claims[siege.defender_claim]
    w = replace(w, claims={**w.claims, defender.id: replace(
        defender, improvements=(here, elsewhere, granted))})
    after, _ = holdfast_falls(w, siege, "taken by assault")
    assert after.claims[siege.defender_claim].improvements == (elsewhere, granted)
    assert after.claims[siege.besieger_claim].improvements == (here,)


def test_a_fallen_holdfast_watches_for_the_conqueror() -> None:
    """DECISIONS "A holdfast that falls changes hands": its detection goes with it. Before the
    fall the holdfast watches for its old holder; after it, for the conqueror, whose own
    marches it no longer rolls to detect, while the old holder's marches are now watched."""
    w, siege = besieged_world()
    assert observers_of(w, tick())[siege.holdfast][0] == siege.defender_claim
    after, _ = holdfast_falls(w, siege, "starved out")
    assert observers_of(after, tick())[siege.holdfast][0] == siege.besieger_claim
    for claim, watched in ((siege.besieger_claim, False), (siege.defender_claim, True)):
        marcher = army(50, claim, T[8], ArmyState.MARCHING, path=(siege.holdfast,), depart=9,
                       infantry=5)
        moved = replace(after, armies={**after.armies, 50: marcher})
        _, events = advance_movement(moved, tick(10), DICE)
        rolls = [e for e in events if isinstance(e, Detection) and e.army.id == 50
                 and e.observer == siege.holdfast]
        assert bool(rolls) is watched
        assert all(e.watcher == siege.besieger_claim for e in rolls)


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


def test_the_characters_of_scattered_armies_go_home() -> None:
    """Issue #23: a scattered army's commander kept its number as the character's army."""
    poor = replace(STARK, gold=Decimal(0))
    w = world(army(1, 1, T[3]), army(3, 2, T[9]), claims=(poor, LANNISTER),
              characters=(CharacterState(5, 1, "Robb", army_id=1),
                          CharacterState(6, 2, "Jaime", army_id=3)))
    after, _ = advance_upkeep(w, 1, MONTH, tick())
    assert (after.characters[5].army_id, after.characters[5].status) == (
        None, CharacterStatus.ALIVE)
    assert after.characters[6] is w.characters[6]


def test_after_a_holiday_troops_scatter_until_the_worlds_year_ends() -> None:
    """After a holiday the tick's instant is the world tick's, later by the holiday, and the
    scatter lock ends with the world's in-game year, later by as much."""
    poor = replace(STARK, gold=Decimal(0), infantry=7)
    w = world(army(1, 1, T[3], infantry=100, cavalry=10), claims=(poor, LANNISTER))
    held = replace(RULES, tick_offset=5)
    plain, _ = advance_upkeep(w, 1, MONTH, tick())
    after, _ = advance_upkeep(w, 1, MONTH, Tick(10, MAP, held))
    until = plain.claims[1].scattered_until
    assert until is not None
    assert after.claims[1].scattered_until == until + 5 * timedelta(hours=RULES.tick_hours)


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


# --- battles --------------------------------------------------------------------------------

ALWAYS = RulesConfig(retreat=(RetreatRow(1, Decimal("0.5")),))  # every retreat keeps half
NEVER = RulesConfig(retreat=(RetreatRow(1, Decimal(0)),))  # every retreat fails


def field_battle(reaction: Reaction | None = None, **kw: object) -> BattleState:
    battle = BattleState(3, tile=T[4], kind=BattleKind.FIELD, attacker_army=1,
                         defender_army=2, attacker_claim=1, defender_claim=2, created_tick=9,
                         resolve_tick=10, reactor_claim=1 if reaction else None,
                         reaction=reaction)
    return replace(battle, **kw)  # type: ignore[arg-type]


def met(*, travelled: tuple[str, ...] = (T[3],), **kw: object) -> World:
    """Stark's army 1 marched into T[4] (from T[3]), where Lannister's army 2 stands."""
    return world(army(1, 1, T[4], stationary_since=9, arrival_tick=9, travelled=travelled,
                      meta={"order": "o-1"}),
                 army(2, 2, T[4], stationary_since=2, infantry=80), **kw)  # type: ignore[arg-type]


def test_a_field_battle_is_fought_with_the_sides_every_battle_is_counted_with() -> None:
    w = met(battles=(field_battle(),))
    after, events = advance_battles(w, tick(10), DICE)
    [fought] = [e for e in events if isinstance(e, BattleFought)]
    att, dfd = w.armies[1], w.armies[2]
    dice, _ = DICE.roll_for("battle:3", att, dfd)  # the attacker's order is the entropy
    expected = resolve_battle(army_side(att, Winner.ATTACKER, tick=10, terrain=Terrain.FIELD),
                              army_side(dfd, Winner.DEFENDER, tick=10, terrain=Terrain.FIELD,
                                        began=9), dice=dice, rules=RULES)
    assert fought.result == expected and not fought.hidden_defender
    assert after.battles[0].status is BattleStatus.RESOLVED
    loser_id = 2 if expected.winner is Winner.ATTACKER else 1
    losses = expected.side(expected.winner.other).losses
    assert after.armies[loser_id].infantry == w.armies[loser_id].infantry - losses.infantry
    assert after.claims[w.armies[loser_id].claim_id].slain.losses[0].infantry \
        == losses.infantry
    assert w.battles[0].status is BattleStatus.PENDING  # the world given is untouched


def test_a_battle_whose_armies_parted_does_not_happen() -> None:
    w = met(battles=(field_battle(),))
    w = replace(w, armies={**w.armies, 2: replace(w.armies[2], tile=T[5])})
    after, events = advance_battles(w, tick(10), DICE)
    assert events == [BattleVoid(after.battles[0])]
    assert after.battles[0].status is BattleStatus.VOID and after.armies == w.armies


def test_a_battle_waits_for_its_reaction_window() -> None:
    w = met(battles=(field_battle(resolve_tick=11),))
    assert advance_battles(w, tick(10), DICE) == (w, [])


def test_a_successful_retreat_escapes_with_its_share_along_the_way_it_came() -> None:
    w = met(battles=(field_battle(Reaction.RETREAT),))
    after, events = advance_battles(w, Tick(10, MAP, ALWAYS), DICE)
    [retreated] = events
    assert isinstance(retreated, Retreated) and retreated.result.success
    dice, event = DICE.roll_for("retreat:3", w.armies[1])
    assert retreated.result == roll_retreat(100, 0, 0, dice=dice, rules=ALWAYS)
    assert retreated.dice_line == DICE.line(event, dice)
    runner = after.armies[1]
    assert after.battles[0].status is BattleStatus.AVOIDED
    assert (runner.state, runner.infantry, runner.march.path) == (
        ArmyState.RETREATING, 50, (T[3],))
    assert runner.meta["retreat_from"] == T[4] and runner.travelled == ()
    assert after.claims[1].slain.losses[0].infantry == 50  # the half left behind
    assert after.armies[2] == w.armies[2]


def test_a_failed_retreat_leaves_the_choice_to_the_opponent() -> None:
    w = met(battles=(field_battle(Reaction.RETREAT),))
    after, events = advance_battles(w, Tick(10, MAP, NEVER), DICE)
    assert [type(e) for e in events] == [RetreatFailed, OpponentDecides]
    battle = after.battles[0]
    assert (battle.status, battle.reaction, battle.reactor_claim, battle.resolve_tick) == (
        BattleStatus.PENDING, Reaction.FAILED, 2, 10 + max(1, RULES.reaction_ticks))
    assert after.armies[1].retreat_penalty and after.armies[1].infantry == 100
    # When the window closes without an answer the battle is fought, the runner at -1.
    later, more = advance_battles(after, Tick(battle.resolve_tick, MAP, NEVER), DICE)
    [fought] = more
    dice, _ = DICE.roll_for("battle:3", after.armies[1], after.armies[2])
    runner = army_side(after.armies[1], Winner.ATTACKER, tick=battle.resolve_tick,
                       terrain=Terrain.FIELD)
    assert runner.retreat_penalty
    assert isinstance(fought, BattleFought) and fought.result == resolve_battle(
        runner, army_side(after.armies[2], Winner.DEFENDER, tick=battle.resolve_tick,
                          terrain=Terrain.FIELD, began=9), dice=dice, rules=NEVER)
    assert later.battles[0].status is BattleStatus.RESOLVED
    assert not later.armies[1].retreat_penalty  # the penalty is spent


def test_a_retreat_with_no_way_back_is_referred_and_the_battle_fought() -> None:
    w = met(battles=(field_battle(Reaction.RETREAT),), travelled=())
    after, events = advance_battles(w, Tick(10, MAP, ALWAYS), DICE)
    assert [type(e) for e in events[:2]] == [RetreatReferred, BattleFought]
    assert after.battles[0].status is BattleStatus.RESOLVED


def assault(attacker_infantry: int) -> tuple[World, BattleState]:
    """Stark's army 1 assaults Lannister's holdfast T[9]: 300 infantry and 30 cavalry at home
    and army 2 (50 infantry, with Tywin) inside; Cersei is at home."""
    battle = BattleState(4, tile=T[9], kind=BattleKind.ASSAULT, attacker_army=1,
                         defender_army=0, attacker_claim=1, defender_claim=2, created_tick=9,
                         resolve_tick=10, holdfast=T[9])
    w = world(army(1, 1, T[9], stationary_since=9, arrival_tick=9, travelled=(T[8],),
                   infantry=attacker_infantry, meta={"order": "o-1"}),
              army(2, 2, T[9], ArmyState.GARRISON, infantry=50, commander_id=7),
              claims=(STARK, replace(LANNISTER, infantry=300, cavalry=30)),
              characters=(CharacterState(7, 2, "Tywin", army_id=2),
                          CharacterState(8, 2, "Cersei")), battles=(battle,))
    return w, battle


def garrison_side() -> Side:
    return battle_side(Winner.DEFENDER, infantry=350, cavalry=30, terrain=Terrain.FIELD,
                       stationary=True, characters=("Cersei", "Tywin"))


def test_an_assault_fights_the_whole_garrison_with_the_claimants_dice() -> None:
    w, _ = assault(200)
    after, events = advance_battles(w, tick(10), DICE)
    [fought] = events
    assert isinstance(fought, BattleFought) and fought.hidden_defender
    assert fought.garrison_claim == 2 and fought.public is not None
    dice, event = DICE.roll_for("battle:4", w.armies[1], branch=claim_branch(2))
    expected = resolve_battle(army_side(w.armies[1], Winner.ATTACKER, tick=10,
                                        terrain=Terrain.FIELD), garrison_side(),
                              dice=dice, rules=RULES)
    assert fought.result == expected and fought.dice_line == DICE.line(event, dice)
    assert expected.winner is Winner.DEFENDER and expected.defender.losses.infantry > 0
    lost = expected.defender.losses
    # The garrison's losses are shared by the troops at home and the army inside.
    assert (300 - after.claims[2].infantry) + (50 - after.armies[2].infantry) == lost.infantry
    assert after.claims[2].slain.losses[0].infantry == lost.infantry
    beaten = after.armies[1]  # the assault failed: back the way it came
    assert (beaten.state, beaten.march.path) == (ArmyState.RETREATING, (T[8],))
    assert beaten.infantry == 200 - expected.attacker.losses.infantry
    assert after.sieges == ()


def test_an_assault_won_takes_the_holdfast_and_captures_the_garrison() -> None:
    w, _ = assault(20000)
    after, events = advance_battles(w, tick(10), DICE)
    fought, fall = events
    assert isinstance(fought, BattleFought) and fought.result.winner is Winner.ATTACKER
    assert isinstance(fall, HoldfastFalls) and fall.how == "taken by assault"
    [siege] = after.sieges  # a siege begun and ended by the assault (stored by the services)
    assert siege.id < 0 and siege.status is SiegeStatus.FALLEN and siege.army_id == 1
    assert (siege.besieger_claim, siege.defender_claim, siege.started_tick) == (1, 2, 10)
    assert after.armies[1].state is ArmyState.STANDING and after.armies[1].tile == T[9]
    assert after.armies[2].state is ArmyState.GONE
    assert after.claims[2].infantry == after.claims[2].cavalry == 0
    assert after.characters[7].status is CharacterStatus.CAPTURED
    assert after.characters[8].status is CharacterStatus.ALIVE  # at home: not with an army


def sally(sally_infantry: int) -> World:
    w, _ = besieged_world()
    battle = BattleState(6, tile=T[9], kind=BattleKind.SALLY, attacker_army=2, defender_army=1,
                         attacker_claim=2, defender_claim=1, created_tick=9, resolve_tick=10,
                         holdfast=T[9])
    return replace(w, battles=(battle,), armies={
        **w.armies, 2: replace(w.armies[2], infantry=sally_infantry)})


def test_a_sally_won_breaks_the_siege() -> None:
    w = sally(20000)
    after, events = advance_battles(w, tick(10), DICE)
    fought, ended = events
    dice, _ = DICE.roll_for("battle:6", w.armies[2], w.armies[1])
    expected = resolve_battle(
        army_side(w.armies[2], Winner.ATTACKER, tick=10, terrain=Terrain.FIELD,
                  characters=("Tywin",)),
        army_side(w.armies[1], Winner.DEFENDER, tick=10, terrain=Terrain.FIELD),
        dice=dice, rules=RULES)
    assert isinstance(fought, BattleFought) and fought.result == expected
    assert expected.winner is Winner.ATTACKER
    assert isinstance(ended, SiegeEnded) and ended.siege.status is SiegeStatus.BROKEN
    assert after.sieges[0].status is SiegeStatus.BROKEN
    assert ended.fate == (after.armies[1].meta.get("fate") or "were driven off by a sally")


def test_a_sally_won_drives_the_besiegers_back_the_way_they_came_and_ends_the_siege() -> None:
    """The defenders win and the beaten besiegers (not taken: they fought 100 against 100)
    turn back the way they came: forced off the tile, the siege is over and its count lost."""
    w = sally(100)
    w = replace(w, armies={**w.armies, 1: replace(w.armies[1], travelled=(T[8],))},
                sieges=(replace(w.sieges[0], months_elapsed=2),))
    after, events = advance_battles(w, tick(10), DICE)
    fought, ended = events
    assert isinstance(fought, BattleFought) and fought.result.winner is Winner.ATTACKER
    beaten = after.armies[1]
    assert (beaten.state, beaten.march.path, beaten.infantry) == (
        ArmyState.RETREATING, (T[8],), 100 - fought.result.defender.losses.infantry)
    assert isinstance(ended, SiegeEnded) and ended.fate == "were driven off by a sally"
    assert after.sieges[0].status is SiegeStatus.BROKEN
    assert after.armies[2].state is ArmyState.GARRISON  # the winners are back inside


def test_besiegers_beaten_by_a_sally_with_no_way_back_hold_the_tile_and_the_siege_goes_on(
) -> None:
    """An ordinary battle's loser with no way back stays where it is: the besiegers were not
    forced out, so they go on besieging and the siege keeps its count."""
    w = sally(100)
    w = replace(w, sieges=(replace(w.sieges[0], months_elapsed=2),))
    assert w.armies[1].travelled == ()
    after, events = advance_battles(w, tick(10), DICE)
    [fought] = events
    assert isinstance(fought, BattleFought) and fought.result.winner is Winner.ATTACKER
    held = after.armies[1]
    assert (held.state, held.tile) == (ArmyState.BESIEGING, T[9])
    assert held.infantry == 100 - fought.result.defender.losses.infantry
    assert after.sieges == w.sieges  # active, two months counted
    assert after.armies[2].state is ArmyState.GARRISON


def test_a_sally_lost_goes_back_behind_the_walls() -> None:
    w = sally(30)
    after, events = advance_battles(w, tick(10), DICE)
    [fought] = events
    assert isinstance(fought, BattleFought) and fought.result.winner is Winner.DEFENDER
    assert after.sieges[0].status is SiegeStatus.ACTIVE
    sallied = after.armies[2]
    assert (sallied.state, sallied.tile) == (ArmyState.GARRISON, T[9])
    assert sallied.infantry == 30 - fought.result.attacker.losses.infantry


def test_a_sally_by_an_army_not_inside_the_walls_is_void() -> None:
    w = sally(100)
    w = replace(w, armies={**w.armies, 2: replace(w.armies[2], state=ArmyState.STANDING)})
    after, events = advance_battles(w, tick(10), DICE)
    # reported, so that both claims are told (issue #23: a void sally told nobody)
    assert events == [BattleVoid(after.battles[0])]
    assert after.battles[0].status is BattleStatus.VOID


def test_advance_runs_the_phases_in_order_and_numbers_the_battles_it_begins() -> None:
    """The whole tick is one call (issue #25: nothing runs between the phases). With no
    reaction window a battle begun by a march is fought in the same tick, under the number the
    rules gave it: the world's next free battle number."""
    rules = RulesConfig(reaction_ticks=0)
    w = replace(world(army(1, 1, T[3], ArmyState.MARCHING, path=(T[4],), depart=5,
                           meta={"order": "o-1"}),
                      army(2, 2, T[4], stationary_since=2, infantry=80)), next_battle_id=100)
    after, events = advance(w, Tick(10, MAP, rules), DICE)
    kinds = [type(e) for e in events]
    assert Encounter in kinds and BattleFought in kinds
    assert kinds.index(Encounter) < kinds.index(BattleFought)  # movement, then battles
    [fought] = [e for e in events if isinstance(e, BattleFought)]
    assert fought.battle.id == 100 and after.battles[0].status is BattleStatus.RESOLVED
    assert after.battles[0].id == 100
    # The number is the world's: the same world gives the same number and the same dice.
    again, same = advance(w, Tick(10, MAP, rules), DICE)
    assert again == after and same == events
