"""``!challenge`` and ``maester rules card-challenge``: parsing, replies, errors, doc examples."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.commands.cardgame import (
    EXAMPLE,
    ChallengeRequest,
    CharacterSpec,
    build_game,
    challenge_command,
    format_challenge,
    parse_challenge,
)
from bot.commands.dispatch import lookup
from bot.commands.registry import CommandContext, CommandError
from bot.jsonapi import ENGINES
from bot.jsonapi.cardgame import card_challenge
from bot.jsonapi.engines import run_engine
from rules.cardgame import ChallengeType, IllegalReason
from rules.dice import ScriptedDice
from rules.errors import DiceExhausted, InvalidInput

DOC = Path(__file__).resolve().parents[2] / "docs" / "engines" / "cardgame.md"
MIL, INT, POW = ChallengeType.MILITARY, ChallengeType.INTRIGUE, ChallengeType.POWER


def reply(text: str, dice: list[int] | None = None) -> str:
    ctx = CommandContext("tester", ScriptedDice(dice or []), datetime(2026, 1, 1, tzinfo=UTC))
    return challenge_command(ctx, text)


def failure(text: str) -> CommandError:
    with pytest.raises(CommandError) as caught:
        reply(text)
    assert caught.value.example == EXAMPLE
    assert caught.value.expected
    return caught.value


def doc_block(label: str) -> str:
    match = re.search(rf"<!-- example: {re.escape(label)} -->\n```[a-z]*\n(.*?)\n```",
                      DOC.read_text(), re.S)
    assert match is not None, label
    return match.group(1)


# --- registry ---------------------------------------------------------------------------------


def test_challenge_is_registered_with_guessable_aliases() -> None:
    """`!challenge`, `!chal` and `!chall` all reach the command, with help and an example."""
    command = lookup("!challenge")
    assert command is not None
    assert lookup("chal") is command and lookup("CHALL") is command
    assert command.example == EXAMPLE
    assert "tie" in command.help.lower()


def test_the_example_works() -> None:
    """The example shown in help and errors is itself a valid command."""
    text = reply(EXAMPLE.removeprefix("!challenge "))
    assert text.startswith("**Military challenge: the attacker wins**")
    assert "| Attacker | Jaime 4, Bronn 2 | **6** |" in text


# --- parsing ----------------------------------------------------------------------------------


def test_parse_the_full_syntax() -> None:
    """Every part of the syntax lands in the request."""
    request = parse_challenge(
        "Power attackers Tyrion 3 pow renown, Arya 2 int mil stealth on Syrio Forel and Bronn 2 "
        "vs defenders: Ned 4 mil pow claim 2 hand 3 power 5 kill Ned, Robb rivals"
    )
    assert request == ChallengeRequest(
        POW,
        (CharacterSpec("Tyrion", 3, frozenset({POW}), renown=True),
         CharacterSpec("Arya", 2, frozenset({INT, MIL}), stealth=True,
                       stealth_target="Syrio Forel"),
         CharacterSpec("Bronn", 2)),
        (CharacterSpec("Ned", 4, frozenset({MIL, POW})),),
        claim=2, hand=3, power=5, kills=("Ned", "Robb"), rivals=True,
    )


@pytest.mark.parametrize(
    ("text", "defenders"),
    [
        ("mil Jaime 4", ()),
        ("mil Jaime 4 vs no defenders", ()),
        ("mil Jaime 4 vs nobody claim 2", ()),
        ("mil Jaime 4 versus none", ()),
        ("mil Jaime 4 against Ned 3", (CharacterSpec("Ned", 3),)),
        ("m with Jaime str 4 vs def Ned 3str", (CharacterSpec("Ned", 3),)),
    ],
)
def test_parse_accepts_the_guessable_forms(text: str, defenders: tuple[CharacterSpec, ...]
                                           ) -> None:
    """Short type names, optional side words and the ways of saying 'no defenders' all parse."""
    request = parse_challenge(text)
    assert request.challenge_type is MIL
    assert request.attackers == (CharacterSpec("Jaime", 4),)
    assert request.defenders == defenders


NAMES = st.sampled_from(["Jaime", "Ser Barristan Selmy", "Bronn", "Ned", "Old Nan", "Hodor"])
SPECS = st.builds(
    CharacterSpec,
    name=NAMES,
    strength=st.integers(0, 20),
    icons=st.one_of(st.none(), st.frozensets(st.sampled_from(list(ChallengeType)), min_size=1)),
    stealth=st.booleans(),
    renown=st.booleans(),
    stealth_target=st.none(),
)


@st.composite
def requests(draw: st.DrawFn) -> ChallengeRequest:
    attackers = draw(st.lists(SPECS, min_size=1, max_size=3))
    # A stealth target is only written after `stealth`.
    attackers = [
        CharacterSpec(s.name, s.strength, s.icons, True, s.renown, draw(NAMES))
        if s.stealth and draw(st.booleans()) else s
        for s in attackers
    ]
    return ChallengeRequest(
        draw(st.sampled_from(list(ChallengeType))),
        tuple(attackers),
        tuple(draw(st.lists(SPECS.map(lambda s: CharacterSpec(s.name, s.strength, s.icons,
                                                              renown=s.renown)),
                            max_size=3))),
        claim=draw(st.integers(0, 9)),
        hand=draw(st.none() | st.integers(0, 9)),
        power=draw(st.none() | st.integers(0, 30)),
        kills=draw(st.none() | st.lists(NAMES, min_size=1, max_size=3).map(tuple)),
        rivals=draw(st.booleans()),
    )


@settings(max_examples=100, deadline=None)
@given(requests())
def test_format_and_parse_round_trip(request: ChallengeRequest) -> None:
    """The canonical text of a request parses back to the same request."""
    assert parse_challenge(format_challenge(request)) == request


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("", "which challenge"),
        ("diplomacy Jaime 4", "not a challenge type"),
        ("mil Jaime vs Ned 3", "has no STR"),
        ("mil 4 vs Ned 3", "has no name"),
        ("mil vs Ned 3", "no attackers"),
        ("mil Jaime 4 sword vs Ned 3", "not an icon or keyword"),
        ("mil Jaime 4 vs Ned 3 claim lots", "whole number"),
        ("mil Jaime 4 vs Ned 3 hand -2", "whole number"),
        ("mil Jaime 4 vs Ned 3 kill", "names nobody"),
        ("mil Jaime 4 vs Ned 3 rivals please", "takes nothing"),
        ("int Arya 2 stealth on vs Ned 3", "names no target"),
    ],
)
def test_bad_syntax_says_what_was_wrong(text: str, needle: str) -> None:
    """Malformed commands get a CommandError with the problem, the expected form and an example."""
    assert needle in failure(text).problem


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("int Arya 2 mil vs Ned 5", "Arya has no intrigue icon"),
        ("int Arya 2 stealth on Syrio vs Syrio 3", "Syrio was chosen as a stealth target"),
        ("int Arya 2 stealth on Jaqen vs Jaqen 3 stealth", "Jaqen has stealth itself"),
        ("mil Jaime 4, Jaime 4 vs Ned 3", "declared as an attacker twice"),
        ("mil Jaime 4 vs Ned 3, Ned 2", "declared as a defender twice"),
        ("mil Jaime 4 vs Ned 3 kill Ned, ned", "killed twice"),
    ],
)
def test_illegal_challenges_name_the_rule(text: str, needle: str) -> None:
    """A declaration the rules forbid is answered with the rule it breaks."""
    error = failure(text)
    assert error.problem.startswith("illegal challenge: ")
    assert needle in error.problem


def test_too_few_kills_named() -> None:
    """A military claim naming fewer victims than it takes (from more characters) is refused."""
    assert "needs 2 character(s) to kill" in failure("mil Jaime 4 vs Ned 3, Robb 1 claim 2 "
                                                     "kill Ned").problem


# --- replies --------------------------------------------------------------------------------


def test_reply_tie_goes_to_the_attacker() -> None:
    """A tie is reported as the attacker's win, with the reason."""
    text = reply("power Tyrion 3 vs Ned 3 power 4")
    assert "**Power challenge: the attacker wins**" in text
    assert "a tie goes to the attacker" in text
    assert "1 power moves from the defender's faction card to the attacker's" in text


def test_reply_unopposed_with_rivals() -> None:
    """An unopposed melee win against a rival shows both bonuses."""
    text = reply("pow Tyrion 3 vs nobody power 0 rivals")
    assert "the attacker wins (unopposed)" in text
    assert "Unopposed bonus: +1 power" in text
    assert "Rivals bonus: +1 power to the attacker's" in text
    assert "0 power moves" in text


def test_reply_no_winner_explains_why() -> None:
    """When nobody wins the reply says which condition failed."""
    text = reply("mil Pod 0 vs Hodor 0")
    assert "nobody wins**" in text
    assert "total STR of 0, and needs 1 or more" in text
    assert "Claim" not in text


def test_reply_defender_wins_no_claim() -> None:
    """A defender's win brings no claim, and its renown characters gain power."""
    text = reply("mil Bronn 2 vs Ned 3 renown claim 2 kill Ned")
    assert "the defender wins" in text
    assert "Renown: Ned gains 1 power." in text
    assert "no claim" in text


def test_reply_military_claim_applied_and_owed() -> None:
    """Named victims are killed (matched case-insensitively); unnamed ones stay owed."""
    applied = reply("mil Jaime 4 renown, Bronn 2 vs Ned 3 claim 2 kill ned, Robb")
    assert "Claim (military 2): the defender kills Ned, Robb." in applied
    assert "Renown: Jaime gains 1 power." in applied
    owed = reply("mil Jaime 4 vs Ned 3")
    assert "must choose 1 character(s)" in owed and "`kill NAME`" in owed


def test_reply_intrigue_shows_every_die() -> None:
    """Each random discard shows its die size and roll."""
    text = reply("int Varys 1 vs nobody claim 2 hand 5", dice=[5, 1])
    assert "d5 → **5**" in text and "d4 → **1**" in text
    assert "discarded: card 5, card 1" in text
    unknown = reply("int Varys 1 claim 2")
    assert "Add `hand N`" in unknown


def test_reply_claim_zero() -> None:
    """A claim of 0 is reported as doing nothing."""
    assert "a claim of 0 does nothing" in reply("pow Tyrion 3 claim 0 power 5")


def test_reply_escapes_player_text() -> None:
    """Names typed by players cannot ping or format: they are escaped."""
    text = reply("mil u/spez 3 vs *Ned* 1 kill *Ned*")
    assert "u/spez" not in text and "u&#47;spez" in text
    assert "\\*Ned\\*" in text


def test_build_game_adds_mentioned_characters_to_the_defender() -> None:
    """Stealth targets and named victims join the defender's play area with STR 0."""
    state, declaration = build_game(parse_challenge("int Arya 2 stealth on Syrio vs Ned 1 "
                                                    "kill Robb"))
    defender = state.players[1]
    assert [c.name for c in defender.characters] == ["Ned", "Syrio", "Robb"]
    assert declaration.kills == ("Robb",)
    assert declaration.defenders == ("Ned",)


def test_documented_command_example_is_real() -> None:
    """docs/engines/cardgame.md shows the reply the command really gives."""
    command = doc_block("command")
    assert command.startswith("!challenge ")
    assert reply(command.removeprefix("!challenge "), dice=[2]) == doc_block("reply")


# --- JSON -------------------------------------------------------------------------------------


def test_json_engine_is_registered() -> None:
    """`card-challenge` is registered with the JSON interface."""
    assert ENGINES["card-challenge"].fn is card_challenge


def test_documented_json_example_is_real() -> None:
    """docs/engines/cardgame.md shows the output the engine really gives for its input."""
    payload = json.loads(doc_block("card-challenge input"))
    output = json.loads(doc_block("card-challenge output"))
    assert card_challenge(payload, ScriptedDice(payload["dice"])) == output


def table(**overrides: Any) -> dict[str, Any]:
    payload: dict[str, Any] = {
        "challenge": "military",
        "players": [
            {"name": "Lannister", "power": 2, "characters": [
                {"name": "Jaime", "str": 4, "icons": ["military", "power"], "renown": True},
                {"name": "Bronn", "str": 2, "icons": ["military"], "kneeling": True}]},
            {"name": "Stark", "power": 3, "hand": 2, "characters": [
                {"name": "Ned", "str": 3, "icons": ["military", "power"]},
                {"name": "Robb", "str": 2, "icons": ["military"]}]},
        ],
        "attackers": ["Jaime"],
        "defenders": ["Ned"],
    }
    payload.update(overrides)
    return payload


def test_json_military_claim_owed_then_applied() -> None:
    """Without `kills` the military claim is owed; with them the victims die."""
    owed = card_challenge(table(), ScriptedDice([]))
    assert owed["outcome"] == "attacker_wins"
    assert owed["claim"]["kills_owed"] == 1 and owed["claim"]["killed"] == []
    applied = card_challenge(table(kills=["Robb"]), ScriptedDice([]))
    assert applied["claim"]["killed"] == ["Robb"]
    assert applied["players"][1]["dead_pile"] == ["Robb"]
    assert applied["players"][0]["total_power"] == 3  # renown on Jaime


def test_json_power_claim_and_modifiers() -> None:
    """Modifiers change the totals; a power claim moves faction power."""
    result = card_challenge(table(challenge="power", claim=2,
                                  modifiers={"attacker": 1, "defender": -1}), ScriptedDice([]))
    assert result["strength"] == {"attacker": 5, "defender": 2}
    assert result["claim"]["power_moved"] == 2
    assert [p["power"] for p in result["players"]] == [4, 1]


@pytest.mark.parametrize(
    ("overrides", "field", "reason"),
    [
        ({"attackers": ["Bronn"]}, "attackers", IllegalReason.ATTACKER_KNEELING),
        ({"attackers": []}, "attackers", IllegalReason.NO_ATTACKERS),
        ({"defenders": ["Jaime"]}, "defenders", IllegalReason.UNKNOWN_DEFENDER),
        ({"stealth": [{"attacker": "Jaime", "target": "Ned"}]}, "stealth",
         IllegalReason.NO_STEALTH_KEYWORD),
        ({"opponent": "Tully"}, "opponent", IllegalReason.UNKNOWN_OPPONENT),
        ({"removed": ["Robb"]}, "removed", IllegalReason.REMOVED_NOT_PARTICIPATING),
        ({"kills": ["Jaime"]}, "kills", IllegalReason.UNKNOWN_KILL),
    ],
)
def test_json_illegal_declarations_name_the_field(
    overrides: dict[str, Any], field: str, reason: IllegalReason
) -> None:
    """An illegal declaration is an input error on the field concerned, with the reason code."""
    with pytest.raises(InvalidInput) as caught:
        card_challenge(table(**overrides), ScriptedDice([]))
    assert caught.value.field == field
    assert reason.value in caught.value.message


@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        ({"challenge": "diplomacy"}, "challenge"),
        ({"claim": -1}, "claim"),
        ({"players": []}, "players"),
        ({"players": [{"name": "Lannister"}]}, "players"),
        ({"players": [{"name": "A", "characters": [{"name": "X", "str": "big"}]},
                      {"name": "B"}]}, "players[0].characters[0].str"),
        ({"players": [{"name": "A", "characters": [{"name": "X", "str": 1, "icons": ["gold"]}]},
                      {"name": "B"}]}, "players[0].characters[0].icons[0]"),
        ({"players": [{"name": "A", "hand": [3]}, {"name": "B"}]}, "players[0].hand[0]"),
        ({"players": [{"name": "A", "characters": [{"name": "X", "str": 1},
                                                   {"name": "X", "str": 2}]},
                      {"name": "B"}]}, "players[0].characters[1].name"),
        ({"players": [{"name": "A"}, {"name": "A"}]}, "players"),
        ({"active": "Tully"}, "active"),
        ({"opponent": 7}, "opponent"),
        ({"modifiers": {"attacker": "lots"}}, "modifiers.attacker"),
        ({"stealth": ["Jaime"]}, "stealth[0]"),
    ],
)
def test_json_bad_input_names_the_field(overrides: dict[str, Any], field: str) -> None:
    """Malformed input raises InvalidInput naming the dotted field."""
    with pytest.raises(InvalidInput) as caught:
        card_challenge(table(**overrides), ScriptedDice([]))
    assert caught.value.field == field


def test_json_kills_must_cover_the_claim() -> None:
    """Kills as many as the claim are enough, even with characters left; fewer are refused."""
    payload = table(claim=2, defenders=[], kills=["Ned", "Robb"])
    payload["players"][1]["characters"].append({"name": "Jon", "str": 1})
    result = card_challenge(payload, ScriptedDice([]))
    assert result["claim"]["killed"] == ["Ned", "Robb"]
    assert [c["name"] for c in result["players"][1]["characters"]] == ["Jon"]
    with pytest.raises(InvalidInput) as caught:
        card_challenge({**payload, "kills": ["Ned"]}, ScriptedDice([]))
    assert caught.value.field == "kills"


def test_json_scripted_dice_pick_the_discards() -> None:
    """`dice` decide which cards an intrigue claim discards; too few dice is an error."""
    payload = table(challenge="intrigue", claim=2, attackers=["Jaime"], defenders=[])
    payload["players"][0]["characters"][0]["icons"] = ["intrigue"]
    payload["players"][1]["hand"] = ["a", "b", "c"]
    result = card_challenge(payload, ScriptedDice([3, 1]))
    assert result["claim"]["discarded"] == ["c", "a"]
    assert result["rolls"] == [
        {"sides": 3, "value": 3, "purpose": "intrigue claim: random discard 1 of 2"},
        {"sides": 2, "value": 1, "purpose": "intrigue claim: random discard 2 of 2"},
    ]
    assert result["players"][1]["discard_pile"] == ["c", "a"]
    with pytest.raises(DiceExhausted):
        card_challenge(payload, ScriptedDice([3]))


def test_json_a_scripted_die_too_big_for_the_hand_names_the_die() -> None:
    """A scripted discard die larger than the hand is refused as bad input naming that die,
    so `maester rules card-challenge` exits 2 with both `error` and `field`."""
    payload = table(challenge="intrigue", claim=1, attackers=["Jaime"], defenders=[])
    payload["players"][0]["characters"][0]["icons"] = ["intrigue"]
    payload["players"][1]["hand"] = ["a", "b"]
    with pytest.raises(InvalidInput) as caught:
        card_challenge(payload, ScriptedDice([3]))
    assert caught.value.field == "dice[0]"
    code, out = run_engine("card-challenge", json.dumps({**payload, "dice": [3]}))
    assert code == 2 and out["field"] == "dice[0]" and "d2" in out["error"]


def test_json_melee_defaults_and_rivals() -> None:
    """Three players make a melee by default; the opponent must be named; rivals pay out."""
    payload = table(challenge="power", opponent="Stark")
    payload["players"][0].update(title="Hand of the King", rivals=["Master of Whispers"])
    payload["players"][1].update(title="Master of Whispers")
    payload["players"].append({"name": "Tyrell"})
    result = card_challenge(payload, ScriptedDice([]))
    assert result["bonuses"] == {"unopposed": 0, "rivals": 1,
                                 "rival_defeated": "Master of Whispers"}
    assert result["players"][0]["rivals_claimed"] == ["Master of Whispers"]
    del payload["opponent"]
    with pytest.raises(InvalidInput) as caught:
        card_challenge(payload, ScriptedDice([]))
    assert caught.value.field == "opponent"
