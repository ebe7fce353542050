"""The examples of ``help``, chosen for the player who asks, with no database: their own
forces and holdfast, a rival at war first, this map's names, a march with its true cost."""

from __future__ import annotations

from dataclasses import dataclass

from rules.campaign import language as o
from rules.campaign.catalogue import parse_catalogue
from rules.campaign.config import RulesConfig
from rules.campaign.examples import EXAMPLES, example_names
from rules.campaign.paths import ArmyKind, cheapest_route
from rules.campaign.world import ClaimState
from rules.campaign.worldmap import parse_map, tile_id
from tests.rules.campaign import builders

RULES = RulesConfig()
HEADER = builders.HEADER
# Row 0: Winterfell (a port) .. a mine .. Riverrun, Casterly Rock; row 1 under it: the sea.
NAMES = {0: "Winterfell", 3: "Gold Hill", 6: "Riverrun", 8: "Casterly Rock"}
FLAGS = {0: "holdfast;port", 3: "resource", 6: "holdfast", 8: "holdfast"}
MAP = parse_map(HEADER + "".join(
    f"{tile_id(c, 0)},{NAMES.get(c, '')},field,{FLAGS.get(c, '')},"
    f"{'Gold mine' if c == 3 else ''},,,\n" for c in range(9)) + "".join(
    f"{tile_id(c, 1)},,water,,,,,\n" for c in range(9)))
STARK = ClaimState(1, "House Stark", tile_id(0, 0))
TULLY = ClaimState(2, "House Tully", tile_id(6, 0))
LANNISTER = ClaimState(3, "House Lannister", tile_id(8, 0))
CLAIMS = (STARK, TULLY, LANNISTER)


@dataclass(frozen=True)
class Force:
    id: int
    kind: ArmyKind
    tile: str


def at_war_with_lannister(a: int, b: int) -> bool:
    return {a, b} == {1, 3}


def test_the_examples_name_the_askers_own_things_and_the_enemy() -> None:
    catalogue = parse_catalogue({
        "improvements": {"Granary": {"cost": 40, "months": 2,
                                     "effects": [{"kind": "siege_months", "amount": 1,
                                                  "role": "defense"}]}},
        "equipment": {"Trebuchet": {"cost": 30,
                                    "effects": [{"kind": "siege_months", "amount": -1,
                                                 "role": "attack"}]}}})
    names = example_names(MAP, RULES, own=STARK, claims=CLAIMS, at_war=at_war_with_lannister,
                          forces=(Force(4, ArmyKind.FLEET, tile_id(0, 1)),
                                  Force(7, ArmyKind.LAND, tile_id(1, 0))),
                          characters=("Robb Stark",), catalogue=catalogue)
    assert (names.army, names.fleet, names.home, names.character) == (
        7, 4, "Winterfell", "Robb Stark")
    assert (names.rival, names.rival_holdfast) == ("House Lannister", "Casterly Rock")
    assert (names.improvement, names.equipment, names.resource) == (
        "Granary", "Trebuchet", "Gold Hill")
    route = cheapest_route(MAP, tile_id(1, 0), tile_id(8, 0), ArmyKind.LAND, RULES)
    assert route is not None
    assert names.march == (f"move army 7: {' > '.join(t.label for t in route.tiles[:3])} "
                           f"(cost {sum(route.costs[:3])})")
    assert names.sail.startswith("move fleet 4: ") and o.parse_order(names.sail)


def test_a_stranger_sees_any_claims_names_and_placeholders() -> None:
    names = example_names(MAP, RULES, own=None, claims=CLAIMS, at_war=at_war_with_lannister,
                          forces=(Force(7, ArmyKind.LAND, tile_id(1, 0)),),
                          characters=("Robb Stark",))
    assert names.army == 1 and names.character == "CHARACTER" and names.sail == ""
    # the first claim's: its holdfast, and its enemy
    assert names.home == "Winterfell" and names.rival == "House Lannister"
    assert (names.improvement, names.equipment) == ("IMPROVEMENT", "EQUIPMENT")


def test_every_order_has_an_example_that_reads_as_that_order() -> None:
    names = example_names(MAP, RULES, own=STARK, claims=CLAIMS, at_war=at_war_with_lannister)
    assert tuple(EXAMPLES) == o.VERBS
    for verb, example in EXAMPLES.items():
        assert o.parse_order(example(names)).verb == verb, verb
