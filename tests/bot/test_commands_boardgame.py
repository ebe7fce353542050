"""``!combat``, ``!housecard`` and ``maester rules boardgame-combat``: replies, errors, docs."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from bot.commands.boardgame import (
    EXAMPLE,
    combat_command,
    housecard_command,
    render_result,
)
from bot.commands.dispatch import lookup
from bot.commands.registry import CommandContext, CommandError
from bot.jsonapi.boardgame import boardgame_combat, read_setup
from bot.jsonapi.engines import ENGINES
from rules.boardgame.combat import resolve_combat
from rules.boardgame.notation import parse_setup
from rules.dice import ScriptedDice
from rules.errors import InvalidInput
from tests.engine_contract import call, run

DOC = Path(__file__).resolve().parents[2] / "docs" / "engines" / "boardgame.md"
CTX = CommandContext("tester", ScriptedDice([]), datetime(2026, 1, 1, tzinfo=UTC))


def reply(text: str) -> str:
    return combat_command(CTX, text)


def failure(text: str) -> CommandError:
    with pytest.raises(CommandError) as caught:
        reply(text)
    assert caught.value.example == EXAMPLE
    assert caught.value.expected and caught.value.problem
    return caught.value


def doc_block(label: str) -> str:
    match = re.search(rf"<!-- example: {re.escape(label)} -->\n```[a-z]*\n(.*?)\n```",
                      DOC.read_text(), re.S)
    assert match is not None, label
    return match.group(1)


# --- registry ---------------------------------------------------------------------------------


def test_combat_is_registered_with_guessable_aliases() -> None:
    """`!combat`, `!agot` and `!battle-bg` reach the command, with help and an example."""
    command = lookup("!combat")
    assert command is not None and command.handler is combat_command
    for alias in ("agot", "battle-bg", "bgcombat", "AGOT"):
        assert lookup(alias) is command
    assert "Board Game" in command.summary and command.example == EXAMPLE
    assert "Example:" in command.help
    assert lookup("housecard") is not None and lookup("hcard") is lookup("housecard")


# --- replies ----------------------------------------------------------------------------------


def test_the_example_works_and_shows_every_number() -> None:
    """The help example resolves: every strength source, the totals and the victor appear."""
    text = reply(EXAMPLE.removeprefix("!combat "))
    assert "**Combat: Lannister attacks Stark**" in text
    for row in ("| Units | 1 footman, 2 knights = 5 | 2 footmen = 2 |", "| Support | 0 | 0 |",
                "| Order | March +1 | Defense +1, doubled: +2 |", "| Garrison | – | 0 |",
                "| **Initial strength** | 6 | 4 (announced 3) |",
                "| House card | Tywin Lannister: 4 | Catelyn Stark: 0 |",
                "| Valyrian Steel Blade | +0 | +0 |", "| **Final strength** | **10** | **4** |",
                "| Swords / fortifications | 0 / 0 | 0 / 0 |"):
        assert row in text
    assert "**Lannister wins**, 10 to 4." in text
    assert "Tywin Lannister: Lannister gains two Power tokens." in text


def test_reply_shows_casualties_retreat_and_cleanup() -> None:
    """Casualties, the retreat area and clean-up are spelled out."""
    text = reply("Lannister 2 knights Gregor vs Stark 3 footmen 1 knight Rodrik; "
                 "area Winterfell; area Moat Cailin enemy")
    assert "Lannister's 3 sword(s) − Stark's 2 fortification(s) = 1" in text
    assert "Stark destroys 1 footman" in text
    assert "retreat to Winterfell, routed (legal: Winterfell)" in text
    assert "the March order is removed" in text and "Lannister takes the area" in text


def test_retreat_lines_agree_with_one_unit_or_several() -> None:
    """One unit "goes back" / "is routed" / "retreats"; several "go back" / "are routed" /
    "retreat" (the reply said "1 knight go back to the area they marched from")."""
    assert "Baratheon's 1 knight goes back to the area it marched from, routed." in reply(
        "Baratheon 1 knight Patchface vs Stark 1 footman Robb")
    assert "Stark's 2 footmen go back to the area they marched from, routed." in reply(
        "Stark 2 footmen 0 vs Lannister 1 footman Tywin")
    assert "Stark's 1 footman must retreat to one legal adjacent area (not where the " \
        "attackers came from) and is routed;" in reply("Lannister 2 knights Tywin vs Stark "
                                                        "1 footman Eddard")
    assert "and are routed;" in reply("Lannister 3 knights Tywin vs Stark 2 footmen Eddard")
    assert "Stark's 1 footman retreats to Seagard, routed" in reply(
        "Lannister 2 knights Tywin vs Stark 1 footman Eddard; area Seagard")


def test_reply_for_a_tie_names_the_fiefdoms_track() -> None:
    """A tie broken on the Fiefdoms track says so."""
    text = reply("Stark 1 footman card 1 vs Lannister 1 footman card 1; fiefdoms Lannister Stark")
    assert "**Lannister wins** the tie at 2: higher on the Fiefdoms track." in text


def test_reply_lists_supports_and_refusals() -> None:
    """Each support shows its house, units, side and strength, refusals included."""
    text = reply("Greyjoy 2 ships 1 vs Stark 1 ship 1; in sea; support Greyjoy 1 ship +1 for "
                 "attacker from Ironman's Bay; support Stark 1 knight for defender from Winterfell"
                 "; support Tyrell 1 ship refused")
    assert "- Ironman's Bay: Greyjoy, 1 ship, Support +1, for the attacker: 2" in text
    assert ("Winterfell: Stark, 1 knight, for the defender: 0 (footmen, knights and siege "
            "engines never support at sea)") in text
    assert "support 3: Tyrell, 1 ship, refused: 0" in text


def test_reply_shows_a_floor_at_zero_and_routed_units() -> None:
    """A negative total is shown floored; routed units show as worth 0."""
    text = reply("Tyrell 1 siege march -1 card 0 vs Martell 1 routed footman card 0; "
                 "fiefdoms Tyrell Martell")
    assert "**0** (total -1, never below 0)" in text
    assert "routed 1 footman = 0" in text


@pytest.mark.parametrize(("shared", "in_sides"), [
    ("Baratheon 1 knight Patchface vs Stark 1 footman Robb; discards Eddard",
     "Baratheon 1 knight Patchface discards Eddard vs Stark 1 footman Robb"),
    ("Greyjoy 2 ships Euron vs Lannister 1 ship Tyrion; in sea; Tyrion cancel; instead Balon",
     "Greyjoy 2 ships Euron instead Balon vs Lannister 1 ship Tyrion cancel; in sea"),
    ("Lannister 2 knights Tywin vs Greyjoy 1 footman Aeron; power 2; instead Euron",
     "Lannister 2 knights Tywin vs Greyjoy 1 footman Aeron power 2 instead Euron"),
    ("Martell 2 knights Doran vs Tyrell 2 footmen Mace; track throne",
     "Martell 2 knights Doran track throne vs Tyrell 2 footmen Mace"),
    ("Tyrell 3 knights Queen of Thorns vs Stark 1 footman Robb; remove Riverrun",
     "Tyrell 3 knights Queen of Thorns remove Riverrun vs Stark 1 footman Robb"),
    ("Baratheon 1 footman Renly vs Stark 1 footman Greatjon; upgrade none",
     "Baratheon 1 footman Renly upgrade none vs Stark 1 footman Greatjon"),
])
def test_a_card_choice_after_a_semicolon_is_made_by_the_cards_side(shared: str,
                                                                   in_sides: str) -> None:
    """The page says anything about the whole combat may follow after `;`, and shows a choice
    as `Tyrion cancel`: written there, a card's choice is the side's that plays the card, not
    the side written last (`...Patchface vs Stark ... Robb; discards Eddard` was refused as
    "Eddard Stark is a Stark card, not Baratheon"), and reads as it does inside that side."""
    assert parse_setup(shared) == parse_setup(in_sides)
    assert reply(shared).split("\n\nRead as:")[0] == reply(in_sides).split("\n\nRead as:")[0]


def test_reply_awaiting_a_retreat_choice_lists_options() -> None:
    """With several legal areas, the reply lists them and who chooses."""
    text = reply("Stark 3 knights Robb vs Lannister 1 footman 0; area Lannisport; "
                 "area Stoney Sept friendly 2 max 4")
    assert "Stark (Robb Stark) chooses among Lannisport, Stoney Sept" in text
    plain = reply("Stark 3 knights 0 vs Lannister 1 footman 0; area Lannisport; "
                  "area Stoney Sept")
    assert "Lannister chooses among Lannisport, Stoney Sept" in plain


def test_reply_escapes_player_text() -> None:
    """Area names from players cannot ping users or break markdown."""
    text = reply("Stark 3 knights 0 vs Lannister 1 footman 0; area u/spammer [x](y)")
    assert "u/spammer" not in text
    assert "[x](y)" not in text


# --- errors -----------------------------------------------------------------------------------


def test_bad_input_says_what_was_wrong_and_gives_an_example() -> None:
    """Unreadable text: the problem names the part, with what was expected."""
    err = failure("Stark 2 dragons vs Lannister 1 footman")
    assert "attacker.units" in err.problem and "dragons" in err.problem
    assert "footmen" in err.expected


def test_rule_violations_are_command_errors() -> None:
    """Breaking a rule (supporting against oneself) is a CommandError too."""
    err = failure("Stark 1 footman 0 vs Lannister 1 footman 0 support Stark 1 knight")
    assert "own attacking units" in err.problem


def test_missing_tie_breaker_asks_for_the_fiefdoms_track() -> None:
    """A tie with no Fiefdoms track asks for it, with an example."""
    err = failure("Stark 1 footman card 1 vs Lannister 1 footman card 1")
    assert "fiefdoms" in err.problem and "fiefdoms Lannister Stark" in err.expected


def test_empty_command_is_an_error() -> None:
    """Nothing to resolve."""
    assert "nothing" in failure("   ").problem


def test_housecard_command() -> None:
    """`!housecard` shows one card or a house's seven."""
    one = housecard_command(CTX, "tywin")
    assert one.startswith("**Tywin Lannister** (Lannister): strength 4, 0 swords")
    house = housecard_command(CTX, "Greyjoy")
    assert house.count("\n| ") == 8 and "Dagmar Cleftjaw | 1 | 1 | 1" in house
    with pytest.raises(CommandError):
        housecard_command(CTX, "Jon Snow")
    with pytest.raises(CommandError):
        housecard_command(CTX, " ")


def test_housecard_unknown_name_answers_with_its_own_example() -> None:
    """A name that is neither card nor house is answered with `!housecard`'s example and the
    houses as well as the cards, not with the `!combat` syntax and example."""
    with pytest.raises(CommandError) as caught:
        housecard_command(CTX, "Targaryen")
    err = caught.value
    assert err.problem == "'Targaryen' is not a House card (nor a house)"
    assert err.example == "!housecard Tywin"
    assert err.expected.startswith("a house (Stark, Lannister, Baratheon, Greyjoy, Tyrell, "
                                   "Martell) or one of its cards: one of Eddard Stark")


# --- docs -------------------------------------------------------------------------------------


def test_documented_command_reply_is_real() -> None:
    """docs/engines/boardgame.md shows the reply the command really gives."""
    command = doc_block("command")
    assert command.startswith("!combat ")
    assert reply(command.removeprefix("!combat ")) == doc_block("reply")


def test_documented_json_example_is_real() -> None:
    """docs/engines/boardgame.md shows the output `maester rules` really gives."""
    code, output = run("boardgame-combat", doc_block("boardgame-combat input"))
    assert code == 0 and output == json.loads(doc_block("boardgame-combat output"))
    code, output = run("boardgame-combat", doc_block("boardgame-combat error input"))
    assert code == 2 and output == json.loads(doc_block("boardgame-combat error output"))


def test_documented_card_table_matches_the_data() -> None:
    """Every card row in the docs carries the card's real values."""
    from rules.boardgame.cards import HOUSE_CARDS

    doc = DOC.read_text()
    for card in HOUSE_CARDS:
        assert card.house is not None
        row = (f"| {card.house.display} | {card.name} | {card.strength} | {card.swords} | "
               f"{card.fortifications} |")
        assert row in doc, row


# --- JSON -------------------------------------------------------------------------------------


def test_json_engine_is_registered() -> None:
    """`boardgame-combat` is registered with the JSON interface."""
    assert ENGINES["boardgame-combat"].fn is boardgame_combat


def payload(**overrides: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "attacker": {"house": "Lannister", "units": {"knights": 2}, "card": "Tywin"},
        "defender": {"house": "Stark", "units": {"footmen": 1}, "card": {"strength": 1}},
    }
    data.update(overrides)
    return data


def test_json_text_form_equals_structured_form() -> None:
    """`{"text": ...}` and the structured fields describe the same combat."""
    text = {"text": "Lannister 2 knights Tywin vs Stark 1 footman card 1/0/0", "seed": 5}
    assert read_setup(text) == read_setup(payload())
    assert call("boardgame-combat", text, ScriptedDice([])) == call("boardgame-combat", payload(),
                                                                        ScriptedDice([]))


def test_json_reads_every_field() -> None:
    """Supports, tracks, blade, retreat areas and card choices are read from JSON."""
    data = payload(
        area="land", structure="stronghold", garrison=2, blade_holder="Stark",
        blade_available=True, fiefdoms=["Stark", "Lannister"], iron_throne=["Lannister"],
        defender_power_token=True, retreat_to="Winterfell", casualties={"knights": 1},
        supports=[{"house": "Tyrell", "units": {"knights": 1}, "to": "defender", "bonus": 1,
                   "label": "Highgarden"}],
        retreat_areas=[{"name": "Winterfell", "kind": "land", "friendly_units": 1,
                        "max_army": 3, "enemy": False, "origin": False, "by_transport": True}],
    )
    data["defender"] = {"house": "Stark", "units": {"footmen": 2}, "routed": {"knights": 1},
                        "order": {"kind": "defense", "bonus": 2}, "card": "Robb",
                        "discard": ["Eddard Stark"], "upgrade": "none", "use_blade": False}
    data["attacker"] = {"house": "Lannister", "units": {"knights": 2},
                        "order": {"kind": "march", "bonus": -1}, "card": "Tyrion",
                        "cancel_opponent_card": True, "power_tokens": 3}
    data["defender"]["replacement"] = "Catelyn"
    setup = read_setup(data)
    expected = parse_setup(
        "Lannister 2 knights march -1 Tyrion cancel power 3 vs Stark 2 footmen 1 routed knight "
        "defense +2 Robb instead Catelyn discard Eddard upgrade none blade unused; "
        "in stronghold; garrison 2; power token; support Tyrell 1 knight +1 for defender from "
        "Highgarden; fiefdoms Stark Lannister; throne Lannister; area Winterfell land friendly 1 "
        "max 3 transport; retreat Winterfell; casualties 1 knight")
    assert setup == expected
    data["casualties"] = None
    out = call("boardgame-combat", data, ScriptedDice([]))
    assert out["defender"]["card"]["name"] == "Catelyn Stark"
    assert out["defender"]["strength"]["order"] == 4 and out["setup"]


@pytest.mark.parametrize(("change", "field"), [
    ({"attacker": {"house": "Lannister", "units": {"knights": 2}}}, "attacker.card"),
    ({"attacker": {"house": "Arryn", "units": {"knights": 2}, "card": 1}}, "attacker.house"),
    ({"attacker": {"house": "Lannister", "units": {"knights": "2"}, "card": "Tywin"}},
     "attacker.units.knights"),
    ({"attacker": {"house": "Lannister", "units": {"knights": 2}, "card": "Eddard"}},
     "attacker.card"),
    ({"attacker": {"house": "Lannister", "units": {"knights": 2}, "card": [1]}},
     "attacker.card"),
    ({"supports": [{"house": "Tyrell", "units": {"knights": 1}, "to": "both"}]},
     "supports[0].to"),
    ({"supports": [{"house": "Tyrell", "units": {"knights": 1, "ships": 1},
                    "to": "attacker"}]}, "supports[0].units"),
    ({"supports": ["Tyrell"]}, "supports[0]"),
    ({"fiefdoms": ["Stark", 3]}, "fiefdoms[1]"),
    ({"retreat_areas": [{"kind": "land"}]}, "retreat_areas[0].name"),
    ({"area": "moon"}, "area"),
    ({"defender": {"house": "Stark", "units": {"footmen": 1}, "card": {"strength": 0},
                   "order": {"kind": "defense", "bonus": 0}}}, "defender.order.bonus"),
])
def test_json_errors_name_the_field(change: dict[str, Any], field: str) -> None:
    """Malformed JSON input raises InvalidInput naming the dotted field."""
    with pytest.raises(InvalidInput) as caught:
        call("boardgame-combat", payload(**change), ScriptedDice([]))
    assert caught.value.field == field


def test_render_result_is_the_command_reply() -> None:
    """The command is parse, resolve, render."""
    setup = parse_setup("Stark 3 knights 0 vs Lannister 1 footman 0")
    assert render_result(resolve_combat(setup), setup) == reply(
        "Stark 3 knights 0 vs Lannister 1 footman 0")
