"""``!attack``, ``!charge``, ``!panic``, ``!morale`` and the ``miniatures-attack`` JSON engine."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.commands import miniatures as m
from bot.commands.dispatch import lookup
from bot.commands.registry import CommandContext, CommandError
from rules.dice import Dice, ScriptedDice, SeededDice
from rules.miniatures import notation as n
from rules.miniatures.attack import AttackSpec
from rules.miniatures.distribution import wound_distribution
from rules.miniatures.morale import PanicWounds
from rules.miniatures.rolls import PoolRerolls, Reroll, RerollFaces, Side
from tests.engine_contract import run

F = RerollFaces
A = Side.ATTACKER
D = Side.DEFENDER


def call(text: str, dice: Dice | None = None) -> str:
    name, _, args = text.partition(" ")
    cmd = lookup(name)
    assert cmd is not None, name
    ctx = CommandContext("tester", dice or SeededDice(7), datetime(2026, 1, 1, tzinfo=UTC))
    return cmd.handler(ctx, args)


def spec(text: str) -> AttackSpec:
    return n.parse_attack(text).spec


# --------------------------------------------------------------------------- !attack parsing

BASE = {"dice": 8, "to_hit": 4, "defense": 5}


@pytest.mark.parametrize(("text", "expected"), [
    ("8 dice 4+ vs 5+ morale 6", {**BASE, "morale": 6}),
    ("8d hit 4+ def 5+", BASE),
    ("8d6 4+ 5+ 6+", {**BASE, "morale": 6}),
    ("hit 4+ vs 5+ 8 dice", BASE),
    ("dice 8 to-hit 4 save 5", BASE),
    ("4+ to hit, 5+ save, 6+ morale, 8 dice", {**BASE, "morale": 6}),
    ("8 attack dice, hitting on 4+, against 5+", BASE),
    ("8 DICE 4+ VS 5+ MORALE 6+", {**BASE, "morale": 6}),
    ("8 dice 4+ vs 5+ hit +1", {**BASE, "hit_modifier": 1}),
    ("8 dice +1 hit 4+ vs 5+", {**BASE, "hit_modifier": 1}),
    ("8 dice 4+ vs 5+ +1 hit", {**BASE, "hit_modifier": 1}),
    ("8 dice 4+ vs 5+ +1", {**BASE, "defense_modifier": 1}),
    ("8 dice hit 4+ +1, -1 def, vs 5+", {**BASE, "hit_modifier": 1, "defense_modifier": -1}),
    ("8 dice hit 4+ +1 vs 5+", {**BASE, "hit_modifier": 1}),
    ("8 dice 4+ vs 5+ def -1", {**BASE, "defense_modifier": -1}),
    ("8 dice 4+ vs 5+ -1 defence", {**BASE, "defense_modifier": -1}),
    ("8 dice 4+ vs 5+ sundering", {**BASE, "defense_modifier": -1}),
    ("8 dice 4+ vs 5+ fortified", {**BASE, "defense_modifier": 1}),
    ("8 dice 4+ vs 5+ fortified sundering", {**BASE, "defense_modifier": 0}),
    ("8 dice 4+ vs 5+ sundering sundering def -1", {**BASE, "defense_modifier": -2}),
    ("8 dice 4+ vs 5+ morale 6 horrific inspiring", {**BASE, "morale": 6}),
    ("8 dice 4+ vs 5+ morale 6 -1", {**BASE, "morale": 6, "morale_modifier": -1}),
    ("8 dice 4+ vs 5+ morale 6 horrific", {**BASE, "morale": 6, "morale_modifier": -1}),
    ("8 dice 4+ vs 5+ morale 6 inspiring", {**BASE, "morale": 6, "morale_modifier": 1}),
    ("8 dice 4+ vs 5+ morale 6 panic 1+d3",
     {**BASE, "morale": 6, "panic_wounds": PanicWounds.ONE_PLUS_D3}),
    ("8 dice 4+ vs 5+ morale 6 1 + d3",
     {**BASE, "morale": 6, "panic_wounds": PanicWounds.ONE_PLUS_D3}),
    ("8 dice 4+ vs 5+ morale 6 updated",
     {**BASE, "morale": 6, "panic_wounds": PanicWounds.ONE_PLUS_D3}),
    ("8 dice 4+ vs 5+ 12 left", {**BASE, "target_wounds": 12}),
    ("8 dice 4+ vs 5+ target 3", {**BASE, "target_wounds": 3}),
    ("7/5/3 ranks 2 hit 4+ vs 5+", {**BASE, "dice": 5}),
    ("7/5/3 4+ vs 5+", {**BASE, "dice": 7}),
    ("4+ vs 5+ 7/5/3 1 rank", {**BASE, "dice": 3}),
    ("8 dice 4+ vs 5+ defender first", {**BASE, "active": D}),
])
def test_attack_syntax_players_will_guess(text: str, expected: dict[str, Any]) -> None:
    """Many spellings and orders of the same attack read the same way."""
    s = spec(text)
    for key, value in expected.items():
        assert getattr(s, key) == value, key
    assert s.morale == expected.get("morale")


@pytest.mark.parametrize(("text", "pool", "side", "reroll"), [
    ("reroll misses", "attack", A, Reroll(F.FAILURES)),
    ("re-roll failed hits", "attack", A, Reroll(F.FAILURES)),
    ("rr misses", "attack", A, Reroll(F.FAILURES)),
    ("re-roll all misses", "attack", A, Reroll(F.FAILURES)),
    ("reroll any", "attack", A, Reroll(F.FAILURES)),
    ("charge", "attack", A, Reroll(F.FAILURES)),
    ("charging", "attack", A, Reroll(F.FAILURES)),
    ("reroll 1s", "attack", A, Reroll(F.ONES)),
    ("re-roll 1's", "attack", A, Reroll(F.ONES)),
    ("reroll ones", "attack", A, Reroll(F.ONES)),
    ("reroll up to 2 misses", "attack", A, Reroll(F.FAILURES, 2)),
    ("reroll 2 misses", "attack", A, Reroll(F.FAILURES, 2)),
    ("reroll hits", "attack", D, Reroll(F.SUCCESSES)),
    ("reroll saves", "defense", D, Reroll(F.FAILURES)),
    ("reroll failed saves", "defense", D, Reroll(F.FAILURES)),
    ("reroll defence", "defense", D, Reroll(F.FAILURES)),
    ("reroll save 1s", "defense", D, Reroll(F.ONES)),
    ("reroll blocks", "defense", A, Reroll(F.SUCCESSES)),
    ("reroll successful saves", "defense", A, Reroll(F.SUCCESSES)),
    ("reroll up to 1 blocks", "defense", A, Reroll(F.SUCCESSES, 1)),
])
def test_attack_reroll_phrases(text: str, pool: str, side: Side, reroll: Reroll) -> None:
    """Re-roll phrases name the pool, the player and the dice; `charge` is the charge bonus
    (the attacker re-rolls any attack dice: every miss)."""
    s = spec(f"8 dice 4+ vs 5+ {text}")
    rerolls = s.attack_rerolls if pool == "attack" else s.defense_rerolls
    assert rerolls.of(side) == reroll
    other = s.defense_rerolls if pool == "attack" else s.attack_rerolls
    assert other == PoolRerolls()


def test_attack_disorderly_charge_has_no_bonus() -> None:
    """A disorderly charge gives no charge bonus."""
    assert spec("8 dice 4+ vs 5+ charge disorderly").attack_rerolls == PoolRerolls()


def test_attack_roll_word_rolls() -> None:
    """The word `roll` asks for real dice instead of the odds."""
    assert n.parse_attack("8 dice 4+ vs 5+ roll").roll
    assert not n.parse_attack("8 dice 4+ vs 5+").roll


@pytest.mark.parametrize(("text", "says"), [
    ("", "Tell me"),
    ("8 dice", "to hit"),
    ("8 dice 4+", "defense"),
    ("hit 4+ vs 5+", "How many"),
    ("8 dice 4+ vs 5+ reroll", "Re-roll what"),
    ("8 dice 4+ vs 5+ reroll sixes", "Re-roll what"),
    ("+1 8 dice 4+ vs 5+", "Which roll"),
    ("8 dice 9+ vs 5+", "to hit"),
    ("8 dice 4+ vs 1+", "defense"),
    ("8 dice 4+ vs 5+ 6+ 7+", "are all set"),
    ("50 dice 4+ vs 5+", "attack dice"),
    ("8 dice 4+ vs 5+ flurb", "flurb"),
    ("8 dice 4+ vs 5+ morale 6 no panic", "leave one out"),
    ("8 dice 4+ vs 5+ panic", "morale"),
    ("7/5/3 ranks 4 hit 4+ vs 5+", "ranks"),
    ("8 dice 7/5/3 4+ vs 5+", "not both"),
    ("8 dice ranks 2 4+ vs 5+", "profile"),
    ("8 dice 4+ vs 5+ reroll misses reroll ones", "only once"),
    ("8 dice 9 dice 4+ vs 5+", "two numbers of dice"),
    ("8 dice 4+ vs 5+ morale 6 morale 7", "two morale"),
    ("8 dice 4+ vs 5+ hit", "needs a value"),
    ("8 dice 4+ vs 5+ 0 left", "target"),
    ("8 dice 4+ vs 5+ no", "No what"),
    ("8 dice 4+ vs 5+ ~", "can't read"),
    # A value without its `+`: the reply says how to write it, not only that 4 is unknown.
    ("8 dice 4 vs 5+", "a to-hit, defense or morale value takes a `+` (4+) or its name"),
    ("8 dice 4+ 5+ 6", "(6+) or its name (`hit 6`, `def 6`, `morale 6`)"),
])
def test_attack_bad_input_says_what_was_wrong_with_an_example(text: str, says: str) -> None:
    """Bad input raises CommandError with the problem, what was expected and an example."""
    with pytest.raises(CommandError) as info:
        call(f"!attack {text}")
    err = info.value
    assert says.lower() in err.problem.lower()
    assert err.expected
    assert err.example.startswith("!")


def test_attack_error_escapes_player_text() -> None:
    """Echoed player text cannot ping users or subreddits or break the markdown."""
    with pytest.raises(CommandError) as info:
        call("!attack 8 dice 4+ vs 5+ u/spez")
    assert "u/spez" not in info.value.problem
    with pytest.raises(CommandError) as info:
        call("!attack 8 dice 4+ vs 5+ **bold**")
    assert "**" not in info.value.problem


reroll_choices = st.sampled_from([
    ("attack", A, F.FAILURES), ("attack", A, F.ONES), ("attack", D, F.SUCCESSES),
    ("defense", D, F.FAILURES), ("defense", D, F.ONES), ("defense", A, F.SUCCESSES),
])


@st.composite
def requests(draw: st.DrawFn) -> n.AttackRequest:
    chosen = draw(st.lists(reroll_choices, unique_by=lambda c: (c[0], c[1]), max_size=4))
    pools: dict[str, dict[str, Reroll]] = {"attack": {}, "defense": {}}
    for pool, side, faces in chosen:
        pools[pool][side.value] = Reroll(faces, draw(st.none() | st.integers(1, 5)))
    s = AttackSpec(
        dice=draw(st.integers(0, 40)), to_hit=draw(st.integers(2, 6)),
        defense=draw(st.integers(2, 6)), morale=draw(st.none() | st.integers(2, 12)),
        hit_modifier=draw(st.integers(-6, 6)), defense_modifier=draw(st.integers(-6, 6)),
        morale_modifier=draw(st.integers(-12, 12)),
        attack_rerolls=PoolRerolls(**pools["attack"]),
        defense_rerolls=PoolRerolls(**pools["defense"]),
        active=draw(st.sampled_from(list(Side))),
        panic_wounds=draw(st.sampled_from(list(PanicWounds))),
        target_wounds=draw(st.none() | st.integers(1, 400)),
    )
    return n.AttackRequest(s, draw(st.booleans()))


@settings(max_examples=200, deadline=None)
@given(requests())
def test_attack_text_round_trips(request: n.AttackRequest) -> None:
    """The canonical text of any request reads back as the same request."""
    assert n.parse_attack(n.format_attack(request)) == request


# --------------------------------------------------------------------------- !attack replies


def test_attack_odds_table_matches_the_exact_distribution() -> None:
    """`!attack 8 dice 4+ vs 5+` shows Binomial(8, 1/3) wounds: 0 wounds (2/3)^8 = 3.90%,
    at least 1 = 96.10%, expected 8/3 = 2.67."""
    reply = call("!attack 8 dice 4+ vs 5+")
    assert "| 0 | 3.90% | 100% |" in reply
    assert "| 1 | 15.61% | 96.10% |" in reply
    assert "Expected wounds: **2.67**" in reply
    assert "Add `roll`" in reply


def test_attack_odds_with_panic_lists_every_likely_row() -> None:
    """The issue's example: every row down to 0.01% is shown, each agreeing with the engine,
    and the panic chance is given."""
    reply = call("!attack 8 dice 4+ vs 5+ morale 6")
    dist = wound_distribution(AttackSpec(8, 4, 5, morale=6))
    for wounds, p in enumerate(dist.wounds):
        if dist.at_least(wounds) >= Fraction(1, 10000):
            assert f"| {wounds} | {m._percent(p)} | {m._percent(dist.at_least(wounds))} |" in (
                reply)
    assert "or more wounds" in reply
    assert f"Chance of a failed panic test: {m._percent(dist.panic_chance)}" in reply
    assert "morale **6+**" in reply


def test_attack_roll_shows_every_die() -> None:
    """With `roll` the reply shows every attack die (re-rolls too), every defense die, the
    panic test and the total. The panic test's d3 is rolled with its 2d6, even on a pass."""
    dice = ScriptedDice([6, 2, 4, 5, 1, 5, 2, 2, 3, 5, 3])
    reply = call("!attack 4 dice 4+ vs 5+ morale 6 reroll misses roll", dice)
    assert "Attack dice (4+): 6 ✓, 2→1 ✗, 4 ✓, 5 ✓ (the attacker re-rolled 1) → **3** hits" in (
        reply)
    assert "Defense dice (5+): 5 ✓, 2 ✗, 2 ✗ → **1** blocked" in reply
    assert "Wounds from the attack: **2**" in reply
    assert "Panic test (morale 6+): 3 + 5 = 8 → **passed**." in reply
    assert "**Total: 2 wounds**" in reply
    assert dice.remaining == 0


def test_attack_roll_panic_failure_and_total() -> None:
    """The rulebook's panic example through the command: 2 wounds, 2 + 2 against 6+ fails,
    d3 = 1, total 3."""
    dice = ScriptedDice([4, 5, 2, 3, 2, 2, 1])
    reply = call("!attack 2 dice 4+ vs 5+ morale 6 roll", dice)
    assert "Wounds from the attack: **2**" in reply
    assert "2 + 2 = 4 → **failed**: d3 = 1, so **1** wound (no defense dice)." in reply
    assert "**Total: 3 wounds**" in reply


def test_attack_roll_modified_dice_show_the_result() -> None:
    """Modified dice show their face and the modified result."""
    reply = call("!attack 1 die 4+ vs 5+ hit -1 roll", ScriptedDice([5, 3]))
    assert "5 (-1 = 4) ✓" in reply


def test_attack_roll_automatic_panic_pass_is_explained() -> None:
    """No wounds: the panic test passes without rolling and still counts as taken."""
    reply = call("!attack 1 die 4+ vs 5+ morale 6 roll", ScriptedDice([2]))
    assert "passed without rolling" in reply and "counts as taken" in reply


# --------------------------------------------------------------------------- !charge


def test_charge_odds_reply() -> None:
    """`!charge 8\" speed 5` needs a 3+: 66.67% to charge, 33.33% to fail."""
    reply = call('!charge 8" speed 5')
    assert "needs **3+**" in reply
    assert "| Charge | 66.67% |" in reply
    assert "| Failed charge (panic test, activation ends) | 33.33% |" in reply


@pytest.mark.parametrize("text", ["8 speed 5", "8in speed 5", "8 inches spd 5",
                                  "distance 8 speed 5", "speed 5 8\"", "8\" 5 speed"])
def test_charge_syntax_players_will_guess(text: str) -> None:
    """Distance and speed can be written several ways."""
    request = n.parse_charge(text)
    assert (request.setup.distance, request.setup.speed) == (Decimal(8), 5)


def test_charge_roll_failed_with_panic() -> None:
    """A rolled failed charge shows the die, how short it fell, and the panic test."""
    reply = call("!charge 8 speed 5 morale 6 roll", ScriptedDice([2, 2, 2, 1]))
    assert "Charge die: 2; 2 + 5 = 7\"" in reply
    assert "**Failed charge**: 1\" short" in reply
    assert "2 + 2 = 4 → **failed**: d3 = 1" in reply


def test_charge_roll_with_reroll_and_terrain() -> None:
    """A charge re-roll shows both dice; hindering terrain takes the charge bonus."""
    reply = call("!charge 8 speed 5 reroll bog roll", ScriptedDice([2, 6]))
    assert "Charge die: 2 → 6; 6 + 5 − 1 = 10\"" in reply
    assert "hindering terrain takes the charge bonus" in reply


def test_charge_disorderly_roll() -> None:
    """A 1 that still reaches is a disorderly charge."""
    reply = call("!charge 4 speed 5 roll", ScriptedDice([1]))
    assert "**Disorderly charge**" in reply


def test_charge_odds_with_terrain_notes() -> None:
    """Odds mention terrain effects: corpse pile (hindering), forest (fortified), stakes."""
    reply = call("!charge 7 speed 5 corpse pile forest stakes reroll ones morale 6")
    assert "no charge bonus" in reply
    assert "+1 to defense" in reply
    assert "d3 + 1 wounds" in reply
    assert "Failed charge and failed panic test" in reply


@pytest.mark.parametrize(("text", "says"), [
    ("", "Tell me"),
    ("speed 5", "How far"),
    ("8", "speed"),
    ("14 speed 5", "at most 11"),
    ("8 speed 5 palisade", "impassable"),
    ("8 speed 5 lava", "lava"),
    ("8 speed 5 speed 6", "two speeds"),
    ("8 speed 5 pile", "corpse pile"),
    ("8 speed 5 3 wounds", "wounds"),
])
def test_charge_bad_input(text: str, says: str) -> None:
    """Bad charges say what was wrong, with the syntax and an example."""
    with pytest.raises(CommandError) as info:
        call(f"!charge {text}")
    assert says.lower() in info.value.problem.lower()
    assert info.value.example.startswith("!charge")


# --------------------------------------------------------------------------- !panic / !morale


def test_panic_odds_reply() -> None:
    """Morale 6+ passes 26 of 36 rolls; the rest split evenly over 1, 2 and 3 wounds."""
    reply = call("!panic 6+")
    assert "| Pass | 72.22% |" in reply
    assert "| Fail, 3 wounds | 9.26% |" in reply
    assert "Expected wounds: **0.56**" in reply


def test_panic_updated_rule_odds() -> None:
    """With 1 + d3 the failures cost 2, 3 or 4 wounds."""
    reply = call("!panic 6+ 1+d3")
    assert "| Fail, 4 wounds |" in reply and "| Fail, 1 wound |" not in reply


def test_panic_no_wounds_is_automatic() -> None:
    """`0 wounds`: passed without rolling, still counts as taken."""
    dice = ScriptedDice([])
    reply = call("!panic 6+ 0 wounds roll", dice)
    assert "passed without rolling" in reply
    assert dice.rolls == []
    assert "counts as having taken" in call("!panic 6+ no wounds")


def test_panic_roll_shows_dice_and_clamps_at_zero() -> None:
    """The rulebook's modifier example: 1 and 2 with -4 is 0, a failure."""
    reply = call("!panic 6 -4 roll", ScriptedDice([1, 2, 3]))
    assert "1 + 2 - 4 = 0 → **failed**: d3 = 3, so **3** wounds (no defense dice)." in reply


def test_panic_roll_updated_rule() -> None:
    """With the updated rule a failed test costs 1 + d3."""
    reply = call("!panic 6+ 1+d3 roll", ScriptedDice([1, 1, 2]))
    assert "1 + d3 = 1 + 2, so **3** wounds" in reply


def test_morale_odds_and_roll() -> None:
    """Morale 6+ with -1 passes 21 of 36 rolls; a roll shows both dice."""
    assert "**58.33%**" in call("!morale 6+ -1")
    assert "5 + 3 = 8 → **passed**" in call("!morale 6 roll", ScriptedDice([5, 3]))
    assert "**passed**" in call("!moral 6 inspiring roll", ScriptedDice([2, 3]))
    # Horrific twice is still -1: effects with the same name do not add up.
    assert "with -1 to the roll" in call("!morale 6 horrific horrific")


@pytest.mark.parametrize(("text", "says"), [
    ("!panic", "morale"),
    ("!panic 6+ 7+", "two morale"),
    ("!panic 13", "morale"),
    ("!panic 6+ flurb", "flurb"),
    ("!morale 6 3 wounds", "!panic"),
])
def test_panic_and_morale_bad_input(text: str, says: str) -> None:
    """Bad tests say what was wrong."""
    with pytest.raises(CommandError) as info:
        call(text)
    assert says.lower() in info.value.problem.lower()


# --------------------------------------------------------------------------- registry


@pytest.mark.parametrize("name", ["attack", "atk", "charge", "panic", "morale", "moral"])
def test_commands_are_registered_with_help_and_a_working_example(name: str) -> None:
    """Each command has help text and an example that runs."""
    cmd = lookup(name)
    assert cmd is not None
    assert cmd.summary and cmd.example
    assert call(cmd.example)


# --------------------------------------------------------------------------- JSON engine


def engine(payload: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    return run("miniatures-attack", payload)


def test_json_resolves_with_scripted_dice_in_the_documented_order() -> None:
    """Dice: attack dice, attacker re-rolls, defense dice, defender re-rolls, panic 2d6, d3."""
    code, out = engine({
        "attack_dice": 3, "to_hit": 4, "defense": 5, "morale": 6,
        "attack_rerolls": {"attacker": "failures"},
        "defense_rerolls": {"defender": "failures"},
        "dice": [6, 2, 4, 5, 1, 3, 6, 4, 2, 2, 2, 2],
    })
    assert code == 0
    res = out["result"]
    assert [d["faces"] for d in res["attack"]["dice"]] == [[6], [2, 5], [4]]
    assert [d["faces"] for d in res["defense"]["dice"]] == [[1, 4], [3, 2], [6]]
    assert res["attack_wounds"] == 2
    assert res["panic"]["rolls"] == [2, 2]
    assert res["panic"]["d3"] == 2
    assert res["wounds"] == 4
    assert out["mode"] == "resolve"
    assert "dice_unused" not in out  # left-over dice are an error, so there is no count
    assert out["rolls"] == [6, 2, 4, 5, 1, 3, 6, 4, 2, 2, 2, 2]


def test_json_distribution_is_exact() -> None:
    """`distribution: true` without dice gives exact fractions summing to 1, with decimal
    strings and floats that agree."""
    code, out = engine({"attack_dice": 8, "to_hit": 4, "defense": 5, "morale": 6,
                        "distribution": True})
    assert code == 0
    assert out["mode"] == "distribution" and "result" not in out
    rows = out["distribution"]["wounds"]
    total = sum(Fraction(r["fraction"]) for r in rows)
    assert total == 1
    dist = wound_distribution(AttackSpec(8, 4, 5, morale=6))
    for row in rows:
        assert Fraction(row["fraction"]) == dist.wounds[row["wounds"]]
        assert abs(float(row["probability"]) - row["probability_float"]) < 1e-12
    assert Fraction(out["distribution"]["expected_wounds"]["fraction"]) == dist.expected


def test_json_dice_and_distribution_give_both() -> None:
    """With dice and distribution the reply has the resolved attack and the distribution."""
    code, out = engine({"attack_dice": 1, "to_hit": 4, "defense": 5, "distribution": True,
                        "dice": [3]})
    assert code == 0
    assert out["result"]["wounds"] == 0 and out["distribution"]["wounds"]


def test_json_profile_target_and_charge() -> None:
    """A dice profile with ranks, a target unit (models removed, ranks lost) and the charge
    bonus."""
    code, out = engine({
        "profile": {"dice": [7, 5, 3], "ranks": 1}, "to_hit": 4, "defense": 5, "charge": True,
        "target": {"kind": "cavalry", "models": 3},
        "dice": [1, 6, 6, 4, 2, 2, 2],
    })
    assert code == 0, out
    assert out["spec"]["attack_dice"] == 3
    assert out["spec"]["attack_rerolls"]["attacker"] == "failures"
    target = out["result"]["target"]
    assert target["models_removed"] == 3 and target["destroyed"]


@pytest.mark.parametrize(("payload", "field"), [
    ({"defense": 5, "attack_dice": 8}, "to_hit"),
    ({"to_hit": 4, "defense": 5}, "attack_dice"),
    ({"to_hit": 4, "defense": 5, "attack_dice": 8, "attack_rerolls": {"attacker": "sixes"}},
     "attack_rerolls.attacker"),
    ({"to_hit": 4, "defense": 5, "attack_dice": 8, "attack_rerolls": {"who": "x"}},
     "attack_rerolls.who"),
    ({"to_hit": 4, "defense": 5, "attack_dice": 2, "dice": [4]}, "dice"),
    ({"to_hit": 4, "defense": 5, "attack_dice": 2, "hit_modifier": 9}, "hit_modifier"),
    ({"to_hit": 4, "defense": 5, "attack_dice": 2, "panic_wounds": "2d3"}, "panic_wounds"),
    ({"to_hit": 4, "defense": 5, "attack_dice": 2, "target": {"models": 13}},
     "target.models"),
    ({"to_hit": 4, "defense": 5, "profile": {"dice": [7, "x", 3]}}, "profile.dice[1]"),
    ({"to_hit": 4, "defense": 5, "profile": {"dice": [7, 5, 3], "ranks": 4}}, "profile.ranks"),
    ({"to_hit": 4, "defense": 5, "profile": {"dice": [7]}, "attack_dice": 3}, "profile"),
    ({"to_hit": 4, "defense": 5, "attack_dice": 2, "target": {"models": 0}}, "target.models"),
    ({"to_hit": 4, "defense": 5, "attack_dice": 2, "target": {"damage": 1}}, "target.damage"),
    ({"to_hit": 4, "defense": 5, "attack_dice": 2,
      "target": {"wounds_per_model": 2, "damage": 5}}, "target.damage"),
    ({"to_hit": 4, "defense": 5, "attack_dice": 2, "dice": [3, 7]}, "dice[1]"),
])
def test_json_bad_input_names_the_field(payload: dict[str, Any], field: str) -> None:
    """Bad payloads exit with code 2 and name the offending field."""
    code, out = engine(payload)
    assert code == 2
    assert out["field"] == field


DOC = Path(__file__).resolve().parents[2] / "docs" / "engines" / "miniatures.md"


def _worked_examples() -> list[tuple[str, str]]:
    sections = DOC.read_text().split("### Worked example")[1:]
    pairs = []
    for section in sections:
        blocks = re.findall(r"```json\n(.*?)\n```", section, re.S)
        pairs.append((blocks[0], blocks[1]))
    return pairs


@pytest.mark.parametrize(("given", "shown"), _worked_examples(),
                         ids=["resolve", "distribution", "error"])
def test_documented_worked_examples_are_what_the_engine_gives(given: str, shown: str) -> None:
    """Every worked example in docs/engines/miniatures.md is the engine's real output."""
    code, out = run("miniatures-attack", given)
    assert out == json.loads(shown)
    assert code == (2 if "error" in out else 0)
