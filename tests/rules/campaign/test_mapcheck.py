"""Map warnings and the difference between two maps (rules.campaign.mapcheck)."""

from __future__ import annotations

from rules.campaign.mapcheck import map_difference, map_warnings
from rules.campaign.worldmap import parse_map

HEADER = "id,name,terrain,flags,defense_bonus,neighbours\n"


def test_a_holdfast_on_its_own_island_without_a_port_cannot_be_reached() -> None:
    text = HEADER + ("0000,Keep,field,holdfast,,\n0001,,water,,,\n0100,,water,,,\n"
                     "0200,Far,field,holdfast,,\n0201,Near,field,holdfast,,\n")
    warnings = [str(w) for w in map_warnings(text, parse_map(text))]
    assert warnings == ["map, tile 0000: holdfast Keep cannot be reached: no other holdfast "
                        "shares its land and it is no port"]


def test_an_island_port_reached_by_sea_is_fine_and_a_lonely_port_is_named() -> None:
    text = HEADER + ("0000,Isle,field,holdfast;port,,\n0001,,water,,,\n0100,,water,,,\n"
                     "0101,Harbour,field,holdfast;port,,\n0102,,field,holdfast,,\n")
    assert map_warnings(text, parse_map(text)) == []
    lonely = HEADER + "0000,Isle,field,holdfast;port,,\n0001,,water,,,\n0100,B,field,holdfast,,\n"
    found = [str(w) for w in map_warnings(lonely, parse_map(lonely))]
    assert any("port Isle: its water reaches no other port" in w for w in found)


def test_cuts_between_non_neighbours_and_links_between_neighbours_are_named_by_line() -> None:
    text = HEADER + ("0000,A,field,holdfast,,-0005\n0001,,field,,,0000\n0002,,field,,,\n"
                     "0003,,field,,,\n0004,,field,,,\n0005,B,field,holdfast,,\n")
    warnings = [str(w) for w in map_warnings(text, parse_map(text))]
    assert "line 2, tile 0000: cut to 0005, which is not a neighbour on the grid" in warnings[0]
    assert warnings[1].startswith("line 3, tile 0001: link to 0000, which already is a "
                                  "neighbour")


def test_the_difference_names_added_removed_renamed_and_changed_tiles() -> None:
    old = parse_map(HEADER + "0000,Keep,field,holdfast,2,\n0001,,field,,,\n0002,,field,,,\n")
    new = parse_map(HEADER + "0000,Castle,field,holdfast,3,\n0001,,hill,,,\n0003,,field,,,\n"
                    "0002,,field,,,-0001\n")
    diff = map_difference(old, new)
    assert diff.added == ("0003",) and diff.removed == ()
    assert diff.renamed == (("0000", "Keep", "Castle"),)
    assert diff.changed == (("0000", "defense bonus"), ("0001", "terrain field -> hill"))
    assert diff.parted == (("0001", "0002"),)
    assert not diff.empty and map_difference(old, old).empty
