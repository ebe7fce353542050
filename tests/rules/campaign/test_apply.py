"""Orders decided on World values: checks, changes and receipts with no database."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from decimal import Decimal
from fractions import Fraction

import pytest

from rules.campaign import language as o
from rules.campaign.calendar import tick_time
from rules.campaign.catalogue import parse_catalogue
from rules.campaign.config import RulesConfig
from rules.campaign.decide import (
    NEW_ARMY,
    NEW_SIEGE,
    ORDER_KINDS,
    Assigned,
    BattleOrder,
    BattleOrdered,
    Blockading,
    Bought,
    Building,
    CalledOff,
    Cancelled,
    Ceded,
    Disbanded,
    Halted,
    Marched,
    Mustered,
    OrderRefused,
    Reacted,
    RetreatReferred,
    RouteFound,
    Sender,
    SiegeBegun,
    SiegeLifted,
    Spared,
    StatusReport,
    apply_order,
    odds_pair,
    pending_battle_of,
    reaction_deadline,
    relation,
)
from rules.campaign.holdfasts import holder_of, release_holdfasts
from rules.campaign.muster import muster_ready_at
from rules.campaign.siege import siege_months
from rules.campaign.upkeep import monthly_upkeep
from rules.campaign.world import (
    Army,
    ArmyKind,
    ArmyState,
    BattleKind,
    BattleState,
    BattleStatus,
    CharacterState,
    CharacterStatus,
    ClaimState,
    HolderState,
    March,
    Reaction,
    RelationStatus,
    SiegeState,
    SiegeStatus,
    World,
)
from rules.campaign.worldmap import parse_map
from rules.errors import RulesError
from rules.text import name_md
from tests.rules.campaign import builders
from tests.rules.campaign.builders import HEADER, T, army

RULES = RulesConfig()
MAP = builders.row_map()
STARK = ClaimState(1, "House Stark", T[0], gold=Decimal(100), infantry=500, cavalry=50)
LANNISTER = ClaimState(2, "House Lannister", T[9], infantry=300)
TICK = 100
AT = tick_time(TICK, RULES) + timedelta(hours=1)  # between two ticks
STARK_SENDS = Sender(1, RULES, MAP)
LANNISTER_SENDS = Sender(2, RULES, MAP)


def world(*armies: Army, wars: bool = False, claims: tuple[ClaimState, ...] = (STARK, LANNISTER),
          **kw: object) -> World:
    return builders.world(*armies, claims=claims, wars=wars, **kw)


def battle(id: int, attacker: Army, defender: Army, **kw: object) -> BattleState:
    return builders.battle(id, attacker, defender, TICK - 1, TICK + 1, **kw)


def refusal(w: World, order: object, sender: Sender = STARK_SENDS) -> OrderRefused:
    with pytest.raises(OrderRefused) as caught:
        apply_order(w, order, AT, sender=sender)
    return caught.value


# --- muster -----------------------------------------------------------------------------

def test_a_muster_raises_an_army_at_home_and_leaves_the_world_given_untouched() -> None:
    w = world()
    after, receipt = apply_order(w, o.Muster(300, 20), AT, sender=STARK_SENDS)
    new = after.armies[NEW_ARMY]
    ready = muster_ready_at(AT, RULES)
    assert (new.state, new.tile, new.infantry, new.cavalry, new.claim_id) == (
        ArmyState.MUSTERING, T[0], 300, 20, 1)
    assert new.ready_tick == TICK + 1 + RULES.muster_hours // 6 and new.accepted_at == AT
    assert (after.claims[1].infantry, after.claims[1].cavalry) == (200, 30)
    assert isinstance(receipt, Mustered) and receipt.ready == ready
    assert (receipt.home_infantry, receipt.home_cavalry, receipt.ordered) == (200, 30,
                                                                               (NEW_ARMY,))
    assert receipt.upkeep > 0
    assert w.claims[1].infantry == 500 and NEW_ARMY not in w.armies


def test_a_muster_elsewhere_than_home_is_refused_quoting_the_place_inert() -> None:
    err = refusal(world(), o.Muster(10, 0, at=T[5]))
    assert err.problem() == "troops muster at your holdfast, Hold 0, not at " + T[5]
    assert err.problem(lambda text, limit: f"<{text}>").endswith(f"<{T[5]}>")
    assert err.example == "muster 10 infantry 0 cavalry"


def test_a_muster_of_more_troops_than_at_home_is_a_rules_error() -> None:
    with pytest.raises(RulesError):
        apply_order(world(), o.Muster(501, 0), AT, sender=STARK_SENDS)


def test_a_sender_without_a_claim_is_refused() -> None:
    with pytest.raises(OrderRefused):
        apply_order(world(), o.Muster(10, 0), AT, sender=Sender(None, RULES, MAP))


# --- cancel, stand, disband -------------------------------------------------------------

def test_cancel_drops_a_queued_march_first_then_the_muster() -> None:
    w = world(army(1, 1, T[0], ArmyState.MUSTERING, path=(T[1],), depart=TICK + 2,
                   infantry=40), claims=(replace(STARK, infantry=460), LANNISTER))
    once, first = apply_order(w, o.Cancel(1), AT, sender=STARK_SENDS)
    assert first == Cancelled("queued march", 1, T[0])
    assert once.armies[1].march.path == () and once.armies[1].state is ArmyState.MUSTERING
    twice, second = apply_order(once, o.Cancel(1), AT, sender=STARK_SENDS)
    assert second == Cancelled("muster", 1, T[0], 40, 0, 0)
    assert twice.armies[1].state is ArmyState.GONE and twice.claims[1].infantry == 500


def test_a_departed_march_cannot_be_cancelled_but_can_be_halted() -> None:
    w = world(army(1, 1, T[2], ArmyState.MARCHING, path=(T[3],), depart=TICK - 1))
    err = refusal(w, o.Cancel(1))
    assert "its march has departed" in err.problem()
    after, receipt = apply_order(w, o.Stand(1), AT, sender=STARK_SENDS)
    assert receipt == Halted(1, T[2])
    halted = after.armies[1]
    assert (halted.state, halted.march.path, halted.stationary_since) == (
        ArmyState.STANDING, (), TICK)


def test_a_march_not_yet_departed_is_cancelled_in_place() -> None:
    w = world(army(1, 1, T[2], ArmyState.MARCHING, path=(T[3],), depart=TICK + 1))
    after, receipt = apply_order(w, o.Cancel(1), AT, sender=STARK_SENDS)
    assert receipt == Cancelled("march", 1, T[2]) and after.armies[1].state is ArmyState.STANDING


def test_disband_only_at_home_and_the_troops_return() -> None:
    away = world(army(1, 1, T[3], infantry=70))
    assert refusal(away, o.Disband(1)).example == "route army 1 to Hold 0"
    home = world(army(1, 1, T[0], infantry=70))
    after, receipt = apply_order(home, o.Disband(1), AT, sender=STARK_SENDS)
    assert receipt == Disbanded(1, 70, 0, 0)
    assert after.armies[1].state is ArmyState.GONE and after.claims[1].infantry == 570


def test_another_claims_army_is_refused_and_named_for_the_log() -> None:
    err = refusal(world(army(5, 2, T[9])), o.Stand(5))
    assert err.problem() == "army 5 is not yours" and err.tried_army == (5, 2, 1)
    assert refusal(world(), o.Stand(5)).problem() == "there is no army or fleet 5"


# --- battles ----------------------------------------------------------------------------

def test_an_attack_opens_a_battle_fought_when_the_reaction_window_closes() -> None:
    w = world(army(1, 1, T[4]), army(2, 2, T[4]))
    after, receipt = apply_order(w, o.Attack(target=2, army=1), AT, sender=STARK_SENDS)
    assert isinstance(receipt, BattleOrdered)
    assert (receipt.how, receipt.battle, receipt.army, receipt.target) == ("attack", None, 1, 2)
    assert receipt.resolve_tick == reaction_deadline(AT, RULES) == TICK + 1
    assert receipt.wars == ((1, 2, RelationStatus.NEUTRAL),) and receipt.ordered == (1,)
    opened = pending_battle_of(after, 2)
    assert opened is not None and opened.reactor_claim == 2 and opened.attacker_army == 1
    assert relation(after, 1, 2) is RelationStatus.WAR and relation(w, 1, 2) is not \
        RelationStatus.WAR


def test_an_attack_between_claims_at_war_declares_nothing_new() -> None:
    w = world(army(1, 1, T[4]), army(2, 2, T[4]), wars=True)
    _, receipt = apply_order(w, o.Attack(target=2, army=1), AT, sender=STARK_SENDS)
    assert receipt.wars == ()


def test_an_attack_is_refused_off_the_tile_on_its_own_and_during_another_battle() -> None:
    assert "there is no enemy army 2" in refusal(
        world(army(1, 1, T[4]), army(2, 2, T[5])), o.Attack(target=2, army=1)).problem()
    assert refusal(world(army(1, 1, T[4]), army(2, 1, T[4])),
                   o.Attack(target=2, army=1)).problem() == "army 2 is your own"
    a, b = army(1, 1, T[4]), army(2, 2, T[4])
    busy = world(a, b, army(3, 2, T[4]), battles=(battle(7, army(3, 2, T[4]), b),))
    assert refusal(busy, o.Attack(target=2, army=1)).problem() == "army 2 is already in a battle"


def test_a_retreat_along_the_way_travelled_records_its_route() -> None:
    a, b = army(1, 1, T[4]), army(2, 2, T[4], travelled=(T[7], T[5]))
    w = world(a, b, battles=(battle(7, a, b, reactor_claim=2),), wars=True)
    after, receipt = apply_order(w, o.Retreat(2), AT, sender=LANNISTER_SENDS)
    assert receipt == Reacted(2, 7, Reaction.RETREAT, TICK + 1, (T[5], T[7]), ordered=(2,))
    assert after.armies[2].meta["retreat_route"] == [T[5], T[7]]
    assert after.battles[0].reaction is Reaction.RETREAT


def test_a_retreat_with_no_way_back_is_referred_and_changes_nothing() -> None:
    a, b = army(1, 1, T[4]), army(2, 2, T[4])
    w = world(a, b, battles=(battle(7, a, b, reactor_claim=2),), wars=True)
    after, receipt = apply_order(w, o.Retreat(2), AT, sender=LANNISTER_SENDS)
    assert receipt == RetreatReferred(2, 7, T[4], 100, 0, 0) and after == w


def test_only_the_side_with_the_first_reaction_chooses() -> None:
    a, b = army(1, 1, T[4]), army(2, 2, T[4])
    w = world(a, b, battles=(battle(7, a, b, reactor_claim=2),), wars=True)
    assert "did not get the first reaction" in refusal(w, o.Stand(1)).problem()
    after, receipt = apply_order(w, o.Stand(2), AT, sender=LANNISTER_SENDS)
    assert receipt == Reacted(2, 7, Reaction.STAND, TICK + 1)
    assert after.battles[0].reaction is Reaction.STAND


def test_a_failed_retreat_may_be_spared_by_the_other_side() -> None:
    a, b = army(1, 1, T[4]), army(2, 2, T[4])
    w = world(a, b, battles=(battle(7, a, b, reactor_claim=1, reaction=Reaction.FAILED),))
    after, receipt = apply_order(w, o.Spare(2), AT, sender=STARK_SENDS)
    assert receipt == Spared(2, 7, T[4], 1, 2)
    assert after.battles[0].status is BattleStatus.SPARED and pending_battle_of(after, 2) is None
    assert "is not an enemy" in refusal(w, o.Spare(1)).problem()


def test_an_intercept_stops_the_sighted_march_and_joins_it() -> None:
    passing = army(2, 2, T[5], ArmyState.MARCHING, path=(T[6],), depart=TICK - 1,
                   meta={"sighted": {"1": [T[4], TICK]}})
    w = world(army(1, 1, T[4]), passing)
    after, receipt = apply_order(w, o.Intercept(target=2, army=1), AT, sender=STARK_SENDS)
    assert isinstance(receipt, BattleOrdered) and receipt.how == "intercept"
    stopped, mine = after.armies[2], after.armies[1]
    assert (stopped.state, stopped.march.path, stopped.stationary_since) == (
        ArmyState.STANDING, (), TICK)
    assert (mine.tile, mine.travelled) == (T[5], (T[4],))
    late = tick_time(TICK + RULES.reaction_ticks, RULES)
    with pytest.raises(OrderRefused, match="has passed"):
        apply_order(w, o.Intercept(target=2, army=1), late, sender=STARK_SENDS)


def test_the_order_that_began_a_battle_is_a_member_of_battle_order() -> None:
    """Each battle receipt names its order as a :class:`BattleOrder` member (no raw string)."""
    passing = army(2, 2, T[5], ArmyState.MARCHING, path=(T[6],), depart=TICK - 1,
                   meta={"sighted": {"1": [T[4], TICK]}})
    siege = SiegeState(4, 1, 1, 2, T[9], TICK - 8)
    cases = [
        (world(army(1, 1, T[4]), army(2, 2, T[4])), o.Attack(target=2, army=1), STARK_SENDS,
         BattleOrder.ATTACK),
        (world(army(1, 1, T[4]), passing), o.Intercept(target=2, army=1), STARK_SENDS,
         BattleOrder.INTERCEPT),
        (world(army(1, 1, T[9])), o.Assault(holdfast=T[9], army=1), STARK_SENDS,
         BattleOrder.ASSAULT),
        (world(army(1, 1, T[9], ArmyState.BESIEGING), sieges=(siege,), wars=True),
         o.Sally(T[9]), LANNISTER_SENDS, BattleOrder.SALLY),
    ]
    for w, order, sender, how in cases:
        _, receipt = apply_order(w, order, AT, sender=sender)
        assert isinstance(receipt, BattleOrdered) and receipt.how is how


# --- sieges -----------------------------------------------------------------------------

def test_an_assault_needs_an_empty_enemy_holdfast_tile() -> None:
    mine = army(1, 1, T[9])
    after, receipt = apply_order(world(mine), o.Assault(holdfast=T[9], army=1), AT,
                                 sender=STARK_SENDS)
    assert isinstance(receipt, BattleOrdered) and receipt.how == "assault"
    assert after.battles[-1].kind is BattleKind.ASSAULT and after.battles[-1].defender_army == 0
    held = world(mine, army(2, 2, T[9]))
    assert refusal(held, o.Assault(holdfast=T[9], army=1)).problem() == \
        "enemy army 2 holds the tile; defeat it first"


def test_a_sally_from_a_besieged_holdfast_and_lifting_the_siege() -> None:
    besieger = army(1, 1, T[9], ArmyState.BESIEGING)
    siege = SiegeState(4, 1, 1, 2, T[9], TICK - 8)
    w = world(besieger, sieges=(siege,), wars=True)
    after, sally = apply_order(w, o.Sally(T[9]), AT, sender=LANNISTER_SENDS)
    assert isinstance(sally, BattleOrdered) and (sally.how, sally.army, sally.target) == (
        "sally", 0, 1)
    assert after.battles[-1].kind is BattleKind.SALLY
    lifted, receipt = apply_order(w, o.Lift(T[9]), AT, sender=STARK_SENDS)
    assert receipt == SiegeLifted(1, T[9], 4, "House Stark")
    assert lifted.sieges[0].status is SiegeStatus.LIFTED
    assert lifted.armies[1].state is ArmyState.STANDING
    assert refusal(w, o.Lift(T[9]), LANNISTER_SENDS).problem() == \
        "you are not besieging Hold 9"


def test_an_assault_is_called_off_before_it_is_fought_and_the_defender_is_named() -> None:
    mine = army(1, 1, T[9], ArmyState.BESIEGING)
    assault = BattleState(7, T[9], BattleKind.ASSAULT, 1, 0, 1, 2, TICK - 1, TICK + 1,
                          holdfast=T[9])
    w = world(mine, battles=(assault,), wars=True)
    after, receipt = apply_order(w, o.Cancel(1), AT, sender=STARK_SENDS)
    assert receipt == CalledOff(1, 7, T[9], 2, ArmyState.BESIEGING)
    assert after.battles[0].status is BattleStatus.CALLED_OFF and pending_battle_of(after, 1) \
        is None
    assert after.armies[1] == mine  # the besiegers stay outside the walls
    late = tick_time(TICK + 1, RULES)
    with pytest.raises(OrderRefused, match="already being fought"):
        apply_order(w, o.Cancel(1), late, sender=STARK_SENDS)


def test_an_attack_cannot_be_called_off_and_the_refusal_suggests_the_odds() -> None:
    a, b = army(1, 1, T[4]), army(2, 2, T[4])
    err = refusal(world(a, b, battles=(battle(7, a, b, reactor_claim=2),), wars=True),
                  o.Cancel(1))
    assert err.problem().startswith("an attack cannot be called off")
    assert err.example == "odds army 1 vs army 2"


def test_an_army_caught_in_a_battle_waits_for_it_and_may_retreat_while_it_may_choose() -> None:
    a, b = army(1, 1, T[4]), army(2, 2, T[4])
    w = world(a, b, battles=(battle(7, a, b, reactor_claim=2),), wars=True)
    err = refusal(w, o.Move(2, (T[5],), 1), LANNISTER_SENDS)
    assert err.problem().startswith("army 2 is caught in a battle, fought at ")
    assert err.example == "retreat army 2" and "`retreat`" in err.expected
    err = refusal(w, o.Move(1, (T[5],), 1))  # the attacker has no choice to make
    assert err.example == "status" and "`retreat`" not in err.expected


def test_a_fleet_is_named_a_fleet_in_refusals_and_receipts() -> None:
    fleet = replace(army(1, 1, T[4], infantry=0, ships=3), kind=ArmyKind.FLEET)
    w = world(fleet)
    assert refusal(w, o.Stand(1)).problem() == "fleet 1 is not sailing and not facing a battle"
    assert refusal(w, o.Cancel(1)).problem() == "fleet 1 has nothing to cancel (it is standing)"
    assert refusal(w, o.Stand(1), LANNISTER_SENDS).problem() == "fleet 1 is not yours"
    sailing = replace(fleet, state=ArmyState.MARCHING, march=March((T[5],), (1,), Fraction(0),
                                                                  TICK - 1))
    _, receipt = apply_order(world(sailing), o.Stand(1), AT, sender=STARK_SENDS)
    assert receipt == Halted(1, T[4], kind=ArmyKind.FLEET)


# --- movement ---------------------------------------------------------------------------

def test_a_move_sets_the_march_and_its_receipt_says_when_it_arrives() -> None:
    w = world(army(1, 1, T[2], meta={"detected_by": [2]}))
    after, receipt = apply_order(w, o.Move(1, (T[3], T[4]), 2), AT, sender=STARK_SENDS)
    assert isinstance(receipt, Marched) and receipt.check.ids == (T[3], T[4])
    moved = after.armies[1]
    assert moved.state is ArmyState.MARCHING and moved.march.path == (T[3], T[4])
    assert moved.march.depart_tick == TICK + 1 and moved.meta == {}
    assert moved.arrival_tick == receipt.plan.arrival_tick > TICK + 1
    assert receipt.cheaper is None and receipt.lifted is None and receipt.ordered == (1,)


def test_a_move_with_the_wrong_cost_is_refused_with_the_right_one() -> None:
    err = refusal(world(army(1, 1, T[2])), o.Move(1, (T[3], T[4]), 5))
    assert err.problem().startswith("you stated cost 5, but this path costs 2")
    assert err.example == f"move army 1: {T[3]} > {T[4]} (cost 2)"


def test_marching_away_lifts_the_siege_the_army_held() -> None:
    w = world(army(1, 1, T[9], ArmyState.BESIEGING), sieges=(SiegeState(4, 1, 1, 2, T[9], 90),),
              wars=True)
    after, receipt = apply_order(w, o.Move(1, (T[8],), 1), AT, sender=STARK_SENDS)
    assert isinstance(receipt, Marched) and receipt.lifted == T[9]
    assert after.sieges[0].status is SiegeStatus.LIFTED


def test_route_finds_the_cheapest_way_or_says_the_army_is_there() -> None:
    w = world(army(1, 1, T[2]))
    _, found = apply_order(w, o.Route(1, T[5]), AT, sender=STARK_SENDS)
    assert isinstance(found, RouteFound) and found.route.ids == (T[3], T[4], T[5])
    _, here = apply_order(w, o.Route(1, T[2]), AT, sender=STARK_SENDS)
    assert isinstance(here, RouteFound) and here.route.tiles == ()


def test_a_siege_is_laid_by_a_standing_army_on_an_enemy_holdfast() -> None:
    w = world(army(1, 1, T[9]))
    after, receipt = apply_order(w, o.Siege(holdfast=T[9], army=1), AT, sender=STARK_SENDS)
    assert isinstance(receipt, SiegeBegun) and receipt.siege == NEW_SIEGE
    assert receipt.length.months == siege_months(300, RULES).months
    assert receipt.wars == ((1, 2, RelationStatus.NEUTRAL),)
    laid = after.sieges[-1]
    assert (laid.army_id, laid.holdfast, laid.started_tick, laid.months_required) == (
        1, T[9], TICK + 1, receipt.length.months)
    assert after.armies[1].state is ArmyState.BESIEGING
    assert refusal(after, o.Siege(holdfast=T[9], army=1)).problem().startswith(
        "army 1 must stand on Hold 9")
    assert refusal(world(army(1, 1, T[0])), o.Siege(holdfast=T[0], army=1)).problem() == \
        "Hold 0 is your own holdfast"


def test_a_retired_claims_holdfast_is_held_by_nobody_and_besieged_without_a_war() -> None:
    """A retired claim's seat becomes unheld (issue #28 with the sides ruling): any claim may
    besiege it without a war, against its neutral garrison (0 on this map)."""
    w = world(army(1, 1, T[9]))
    released, tiles = release_holdfasts(w, 2, (t.id for t in MAP.holdfasts()))
    assert tiles == (T[9],) and holder_of(released, T[9]) is None
    assert holder_of(released, T[0]) == 1  # another claim's seat is untouched
    assert release_holdfasts(released, 2, (T[0], T[9]))[1] == ()  # nothing left to release
    after, receipt = apply_order(released, o.Siege(holdfast=T[9], army=1), AT,
                                 sender=STARK_SENDS)
    assert isinstance(receipt, SiegeBegun) and receipt.wars == ()
    assert not after.at_war(1, 2)


# --- information ------------------------------------------------------------------------

def test_status_lists_the_claims_own_armies_and_their_upkeep_and_changes_nothing() -> None:
    w = world(army(1, 1, T[3], infantry=70), army(2, 2, T[8]), army(3, 1, T[0], infantry=30))
    after, receipt = apply_order(w, o.Status(), AT, sender=STARK_SENDS)
    assert after is w and isinstance(receipt, StatusReport)
    assert [a.id for a in receipt.armies] == [1, 3] and receipt.claim == STARK
    assert receipt.upkeep == monthly_upkeep(100, 0, w.season, RULES)
    assert not receipt.scattered and receipt.defense_bonus == 1


# --- resource tiles ---------------------------------------------------------------------

def test_the_holder_of_a_resource_tile_cedes_its_benefit_to_an_occupant() -> None:
    wood = parse_map(HEADER + f"{T[0]},Hold 0,field,holdfast,,,,\n{T[1]},Wood,forest,resource,"
                     "timber,,,\n" + f"{T[9]},Hold 9,field,holdfast,,,,\n")
    sender = Sender(1, RULES, wood)
    w = world(army(1, 1, T[1], infantry=200, stationary_since=5),
              army(2, 2, T[1], infantry=50, stationary_since=6))
    after, receipt = apply_order(w, o.Cede(T[1], "lannister"), AT, sender=sender)
    assert receipt == Ceded(T[1], 2, "House Lannister")
    assert after.holders[T[1]] == HolderState(T[1], 1, 2)
    lannister = Sender(2, RULES, wood)
    assert refusal(w, o.Cede(T[1], "stark"), lannister).problem() == \
        "you do not hold Wood's benefit now"
    assert refusal(w, o.Cede(T[1], "Tully"), sender).problem() == \
        "there is no other claim called Tully"


def test_names_in_a_refusal_are_escaped_and_its_example_keeps_them_plain() -> None:
    """A name a database holds (a hand edit) can break no refusal: the problem shows it
    escaped (rules.text.name_md), the example keeps it as written for its code span."""
    hostile = "Hold [x](https://e.example) | u/ping"
    hold = parse_map(HEADER + f"{T[0]},Home,field,holdfast,,,,\n{T[1]},Field,field,,,,,\n"
                     f"{T[2]},Far,field,holdfast,,,,\n")
    tiles = dict(hold.tiles)
    object.__setattr__(tiles[T[2]], "name", hostile)  # the map parser refuses such a name
    w = world(army(1, 1, T[1]), claims=(STARK, replace(LANNISTER, holdfast=T[2])))
    err = refusal(w, o.Siege(T[2], 1), Sender(1, RULES, hold))
    assert err.problem() == f"army 1 must stand on {name_md(hostile)} to besiege it (it is " \
        f"standing at Field)"
    assert "[x](" not in err.problem() and "u/ping" not in err.problem()
    assert hostile in err.example and "\\" not in err.example  # as written, for a code span


# --- the catalogue: build, buy; blockade -------------------------------------------------

CATALOGUE = parse_catalogue({
    "improvements": {"Granary": {"cost": 40, "months": 2,
                                 "effects": [{"kind": "siege_months", "amount": 1,
                                              "role": "defense"}]}},
    "equipment": {"Trebuchet": {"cost": 30,
                                "effects": [{"kind": "siege_months", "amount": -1,
                                             "role": "attack"}]}},
})
SHOPPER = Sender(1, RULES, MAP, catalogue=CATALOGUE)


def test_building_takes_the_gold_and_records_the_improvement() -> None:
    after, receipt = apply_order(world(), o.Build("granary", T[0]), AT, sender=SHOPPER)
    assert isinstance(receipt, Building) and receipt.entry.name == "Granary"
    assert receipt.gold_left == after.claims[1].gold == Decimal(60)
    [record] = [r for r in after.claims[1].improvements if r.get("name") == "Granary"]
    assert record["done"] is False and record["ready_month"] == receipt.ready_month
    again = refusal(after, o.Build("Granary", T[0]), SHOPPER)
    assert again.problem().startswith("Granary is already being built at Hold 0")
    unknown = refusal(world(), o.Build("Granery", T[0]), SHOPPER)
    assert unknown.problem() == "there is no improvement called Granery (did you mean Granary?)"
    assert unknown.example == "build Granary at Hold 0"


def test_buying_equipment_arms_the_army_once() -> None:
    w = world(army(1, 1, T[3]))
    after, receipt = apply_order(w, o.Buy("Trebuchet", 1), AT, sender=SHOPPER)
    assert isinstance(receipt, Bought) and receipt.gold_left == Decimal(70)
    assert after.armies[1].equipment == ("Trebuchet",)
    assert refusal(after, o.Buy("Trebuchet", 1), SHOPPER).problem() == \
        "army 1 already carries Trebuchet"
    poor = world(army(1, 1, T[3]), claims=(replace(STARK, gold=Decimal(5)), LANNISTER))
    assert refusal(poor, o.Buy("Trebuchet", 1), SHOPPER).problem() == \
        "Trebuchet costs 30 gold and House Stark has 5"


def test_a_blockade_needs_a_standing_fleet_next_to_an_enemy_port() -> None:
    sea = parse_map(HEADER + f"{T[0]},Hold 0,field,holdfast,,,,\n{T[1]},,water,,,,,\n"
                    f"{T[2]},Port,field,holdfast port,,,,\n")
    sender = Sender(1, RULES, sea)
    fleet = Army(1, 1, ArmyKind.FLEET, ArmyState.STANDING, T[1], ships=4)
    w = world(fleet, claims=(STARK, replace(LANNISTER, holdfast=T[2])))
    after, receipt = apply_order(w, o.Blockade(T[2], 1), AT, sender=sender)
    assert isinstance(receipt, Blockading) and (receipt.owner, receipt.siege) == (2, None)
    assert receipt.wars == ((1, 2, RelationStatus.NEUTRAL),) and after.at_war(1, 2)
    assert refusal(w, o.Blockade(T[0], 1), sender).problem() == "Hold 0 is not a port holdfast"


SEAS = parse_map(HEADER + f"{T[0]},Hold 0,field,holdfast,,,,\n{T[1]},,water,,,,,\n"
                 f"{T[2]},Harbour,field,holdfast port,,,,\n{T[3]},,water,,,,,\n"
                 f"{T[4]},Port,field,holdfast port,,,,\n{T[5]},,field,,,,,\n")
"""Stark's seat (not a port), water, a port Stark holds, water, Lannister's port seat, a
field."""


def test_a_blockade_names_an_army_a_siege_order_would_take() -> None:
    """The receipt names a standing land army (one on the port first): not one gone, inside
    its holdfast, mustering, or marching through the port."""
    fleet = Army(1, 1, ArmyKind.FLEET, ArmyState.STANDING, T[3], ships=4)
    others = (army(2, 1, T[4], ArmyState.GONE), army(3, 1, T[0], ArmyState.GARRISON),
              army(4, 1, T[0], ArmyState.MUSTERING),
              army(5, 1, T[4], ArmyState.MARCHING, path=(T[5],), depart=TICK))
    claims = (STARK, replace(LANNISTER, holdfast=T[4]))
    sender = Sender(1, RULES, SEAS)
    for standing, named in (((army(6, 1, T[5]),), 6),
                            ((army(6, 1, T[5]), army(7, 1, T[4])), 7), ((), None)):
        w = world(fleet, *others, *standing, claims=claims)
        _, receipt = apply_order(w, o.Blockade(T[4], 1), AT, sender=sender)
        assert isinstance(receipt, Blockading) and receipt.army == named
        if named is not None:  # the order the receipt gives is taken once the army is there
            there = replace(w.armies[named], tile=T[4])
            _, begun = apply_order(world(fleet, *others, there, claims=claims),
                                   o.Siege(T[4], named), AT, sender=sender)
            assert isinstance(begun, SiegeBegun)


def test_a_blockade_of_no_port_gives_a_port_the_sender_does_not_hold() -> None:
    """Blockading a tile that is no port holdfast: the example is a port holdfast the
    sender's claim does not hold (not its seat, not one it took), so it is not refused again as
    its own."""
    fleet = Army(1, 1, ArmyKind.FLEET, ArmyState.STANDING, T[3], ships=4)
    w = world(fleet, claims=(STARK, replace(LANNISTER, holdfast=T[4])),
              holders=(HolderState(T[2], 1),))
    sender = Sender(1, RULES, SEAS)
    err = refusal(w, o.Blockade(T[0], 1), sender)
    assert err.example == "blockade Port with fleet 1"
    assert refusal(w, o.Blockade(T[2], 1), sender).problem() == "Harbour is your own port"


def test_assign_moves_a_commander_and_relieves_the_one_before() -> None:
    brynden = CharacterState(7, 1, "Brynden Tully", ("Blackfish",), army_id=2)
    robb = CharacterState(8, 1, "Robb Stark", (), army_id=1)
    ned = CharacterState(9, 1, "Eddard Stark", (), status=CharacterStatus.DEAD)
    w = world(army(1, 1, T[3], commander_id=8), army(2, 1, T[4], commander_id=7),
              characters=(brynden, robb, ned))
    catalogue = parse_catalogue({"skills": {"Blackfish": {
        "effects": [{"kind": "strength", "amount": "1.2"}]}}})
    sender = Sender(1, RULES, MAP, catalogue=catalogue)
    after, receipt = apply_order(w, o.Assign("brynden", 1), AT, sender=sender)
    assert isinstance(receipt, Assigned)
    assert (receipt.left, receipt.relieved, [e.name for e in receipt.skills]) == (
        2, "Robb Stark", ["Blackfish"])
    assert after.armies[1].commander_id == 7 and after.armies[2].commander_id is None
    assert (after.characters[7].army_id, after.characters[8].army_id) == (1, None)
    assert refusal(w, o.Assign("Eddard", 1), sender).problem() == "Eddard Stark is dead"


def test_odds_name_only_armies_the_sender_may_see() -> None:
    w = world(army(1, 1, T[3]), army(2, 2, T[3]), army(3, 2, T[5]), army(4, 1, T[3]))
    mine, other = odds_pair(w, STARK_SENDS, o.Odds(1, 2))
    assert (mine.id, other.id) == (1, 2)
    with pytest.raises(OrderRefused, match="army 3 is not on 0300 with your army"):
        odds_pair(w, STARK_SENDS, o.Odds(1, 3))
    assert odds_pair(w, STARK_SENDS, o.Odds(1, 3), moderator=True)[1].id == 3
    with pytest.raises(OrderRefused, match="army 4 is your own"):
        odds_pair(w, STARK_SENDS, o.Odds(1, 4))


def test_every_order_the_rules_decide_says_what_it_reads() -> None:
    assert all(isinstance(kind.reads, frozenset) for kind in ORDER_KINDS.values())
    assert {k for k, kind in ORDER_KINDS.items() if kind.decide is not None} == set(
        ORDER_KINDS) - {o.Odds, o.Away, o.Link, o.Webhook, o.Help}  # kept by the bot


# --- holidays -------------------------------------------------------------------------------

HOLIDAY = replace(RULES, tick_offset=3)  # the world's clock stands three ticks behind
LATER = 3 * timedelta(hours=RULES.tick_hours)


def _without_acceptance(w: World) -> dict[int, Army]:
    return {i: replace(a, accepted_at=None) for i, a in w.armies.items()}


@pytest.mark.parametrize("order", [o.Muster(300, 20), o.Attack(target=2, army=1),
                                   o.Move(1, (T[3], T[4]), 2)], ids=str)
def test_after_a_holiday_an_order_gets_the_world_ticks_it_would_have_got(order: object) -> None:
    """An order sent after a holiday, as late on the wall clock as the holiday lasted, gets
    the same world ticks (readiness, departure and arrival, the battle's tick and its reaction
    window) as the same order on a world's clock that never stopped; only the instants it
    names are later by the holiday."""
    w = world(army(1, 1, T[2]), army(2, 2, T[2]))
    plain, plain_receipt = apply_order(w, order, AT, sender=STARK_SENDS)
    held, held_receipt = apply_order(w, order, AT + LATER, sender=Sender(1, HOLIDAY, MAP))
    assert _without_acceptance(held) == _without_acceptance(plain)
    assert held.battles == plain.battles and held.claims == plain.claims
    if isinstance(plain_receipt, Mustered):
        assert isinstance(held_receipt, Mustered)
        assert held_receipt.ready == plain_receipt.ready + LATER
    if isinstance(plain_receipt, BattleOrdered):
        assert isinstance(held_receipt, BattleOrdered)
        assert held_receipt.resolve_tick == plain_receipt.resolve_tick == TICK + 1
        assert reaction_deadline(AT + LATER, HOLIDAY) == reaction_deadline(AT, RULES)
