"""Gold, troop and name checks used at every entry point (roster, adjust, config, catalogue)."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.campaign.inputs import (
    MAX_GOLD,
    MAX_ROW_NUMBER,
    MAX_TROOPS,
    check_holdings,
    check_roster_entry,
    check_whole,
    name_problem,
    parse_gold,
    parse_row_number,
    parse_troops,
)
from rules.errors import InvalidInput

STARK = {"name": "House Stark", "holdfast": "Winterfell", "players": ["ned_stark"],
         "gold": "900", "infantry": 3000, "cavalry": 600, "characters": ["Eddard Stark"]}


@pytest.mark.parametrize("value", ["NaN", "nan", "sNaN", "Infinity", "-Infinity", "1e999999",
                                   float("nan"), float("inf"), "lots", "", True, None, [1],
                                   "0.0000001", str(MAX_GOLD + 1), "9" * 100])
def test_gold_that_is_not_a_sane_finite_amount_is_refused_naming_the_field(value: object) -> None:
    """NaN, infinities, huge numbers, too many decimals and non-numbers never become gold."""
    with pytest.raises(InvalidInput) as info:
        parse_gold(value, "roster[0].gold")
    assert info.value.field == "roster[0].gold"


@pytest.mark.parametrize(("value", "signed", "expected"), [
    ("900", False, Decimal(900)), (900, False, Decimal(900)), ("25.5", False, Decimal("25.5")),
    ("+100", True, Decimal(100)), ("-25.5", True, Decimal("-25.5")), ("1e3", False, Decimal(1000)),
])
def test_ordinary_gold_amounts_are_read(value: object, signed: bool, expected: Decimal) -> None:
    assert parse_gold(value, "gold", signed=signed) == expected
    assert "E" not in format(parse_gold(value, "gold", signed=signed))


@pytest.mark.parametrize("value", ["+1_000", "1_000", "١٠٠", "+١٠٠", "１００", "10​0", "٣.٥"])
def test_gold_and_troops_are_read_only_in_ascii_digits(value: str) -> None:
    """Issue 24: ``adjust --gold +1_000`` and Arabic-Indic digits were accepted (Decimal reads
    both); a moderator's amount is written with the digits 0-9 and nothing else."""
    with pytest.raises(InvalidInput) as info:
        parse_gold(value, "--gold", signed=True)
    assert info.value.field == "--gold"
    assert "0-9" in str(info.value)
    with pytest.raises(InvalidInput):
        parse_troops(value, "--infantry", signed=True)


def test_negative_gold_is_refused_unless_a_change() -> None:
    with pytest.raises(InvalidInput):
        parse_gold("-1", "gold")


@pytest.mark.parametrize("value", ["NaN", "1.5", 1.5, 3000.0, "3000.0", "1e3", -1,
                                   MAX_TROOPS + 1, "Infinity", True, "12 men"])
def test_troops_must_be_whole_and_in_range(value: object) -> None:
    with pytest.raises(InvalidInput) as info:
        parse_troops(value, "roster[0].infantry")
    assert info.value.field == "roster[0].infantry"


def test_troop_changes_may_be_negative() -> None:
    assert parse_troops("-50", "--infantry", signed=True) == -50
    assert parse_troops(3000, "infantry") == 3000


def test_holdings_beyond_the_limits_are_refused() -> None:
    with pytest.raises(InvalidInput, match="gold"):
        check_holdings(Decimal(-1), {"infantry": 0}, "House Stark")
    with pytest.raises(InvalidInput, match="infantry"):
        check_holdings(Decimal(0), {"infantry": MAX_TROOPS + 1}, "House Stark")


@given(st.one_of(st.text(max_size=50), st.integers(), st.floats(), st.decimals(),
                 st.booleans(), st.none()))
def test_gold_and_troops_never_raise_anything_but_invalid_input(value: object) -> None:
    """Whatever comes in, the answer is a value within bounds or InvalidInput."""
    for signed in (False, True):
        try:
            gold = parse_gold(value, "gold", signed=signed)
            assert gold.is_finite() and abs(gold) <= MAX_GOLD
        except InvalidInput:
            pass
        try:
            troops = parse_troops(value, "infantry", signed=signed)
            assert isinstance(troops, int) and abs(troops) <= MAX_TROOPS
        except InvalidInput:
            pass


@pytest.mark.parametrize("name", [
    "House Bolton | evil |", "House [Stark](https://evil.example) u/ned_stark", "*bold*",
    "a\u200bb", "", " House", "House  Stark", "x" * 65, "1²", "> quote", "#heading",
    "`code`", "r/all", "<b>", "Stark; DROP", '"quoted"', "a\nb",
])
def test_unsafe_names_are_refused(name: str) -> None:
    assert name_problem(name) is not None


@pytest.mark.parametrize("name", ["House Stark", "Storm's End", "gold_mine", "Ser Brynden",
                                  "Harrenhal", "Dún Fort", "0412 Keep", "The Twins-North"])
def test_plain_names_are_accepted(name: str) -> None:
    assert name_problem(name) is None


@pytest.mark.parametrize(("change", "field"), [
    ({"gold": "NaN"}, "roster[0].gold"),
    ({"gold": "1e999999"}, "roster[0].gold"),
    ({"gold": "Infinity"}, "roster[0].gold"),
    ({"infantry": 10.5}, "roster[0].infantry"),
    ({"cavalry": "many"}, "roster[0].cavalry"),
    ({"players": "ned_stark"}, "roster[0].players"),
    ({"players": ["ned_stark", "Ned_Stark"]}, "roster[0].players[1]"),
    ({"players": ["ned stark!"]}, "roster[0].players[0]"),
    ({"characters": "Eddard Stark"}, "roster[0].characters"),
    ({"characters": ["[Robb](https://x.example)"]}, "roster[0].characters[0]"),
    ({"name": "House Bolton | evil |"}, "roster[0].name"),
    ({"gould": 5}, "roster[0].gould"),
])
def test_roster_entries_are_checked_naming_the_key(change: dict[str, object], field: str) -> None:
    """A string where a list belongs, a player twice, a bad amount or name: refused by key."""
    with pytest.raises(InvalidInput) as info:
        check_roster_entry({**STARK, **change}, "roster[0]")
    assert info.value.field == field


def test_a_good_roster_entry_is_read() -> None:
    entry = check_roster_entry({**STARK, "players": ["u/Ned_Stark"]}, "roster[0]")
    assert entry.players == ("ned_stark",)
    assert entry.gold == Decimal(900) and entry.infantry == 3000


@pytest.mark.parametrize("value", [0, -1, MAX_ROW_NUMBER + 1, 10**30, 10**2000])
def test_row_numbers_out_of_range_are_refused_naming_the_field(value: int) -> None:
    with pytest.raises(InvalidInput) as err:
        check_whole(value, "army number", low=1, high=MAX_ROW_NUMBER, example="3")
    assert err.value.field == "army number" and "out of range" in str(err.value)
    assert f"1 to {MAX_ROW_NUMBER}" in str(err.value) and len(str(err.value)) < 200


def test_a_row_number_in_range_is_kept() -> None:
    assert check_whole(MAX_ROW_NUMBER, "n", low=1, high=MAX_ROW_NUMBER, example="3") == \
        MAX_ROW_NUMBER
    with pytest.raises(InvalidInput):
        check_whole(True, "n", low=0, high=5, example="3")


@pytest.mark.parametrize(("text", "number"), [("12", 12), (" 7 ", 7), ("²", None),
                                              ("١٢", None), ("１", None), ("abc", None),
                                              ("", None), ("t3_abc", None)])
def test_row_numbers_in_text_are_digits_0_to_9_only(text: str, number: int | None) -> None:
    assert parse_row_number(text, "event number") == number


@pytest.mark.parametrize("text", ["0", "9" * 13, "9" * 5000, "2147483648"])
def test_row_numbers_in_text_out_of_range(text: str) -> None:
    with pytest.raises(InvalidInput) as err:
        parse_row_number(text, "event number")
    assert "out of range" in str(err.value) and len(str(err.value)) < 200
