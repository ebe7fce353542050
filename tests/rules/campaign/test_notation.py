"""The ``!odds`` notation of the campaign: two forces read, each counted as the battle counts
it, and every misreading named."""

from __future__ import annotations

from fractions import Fraction

import pytest

from rules.campaign.battle import Side
from rules.campaign.config import Terrain
from rules.campaign.notation import ODDS_EXAMPLE, OddsQuestion, odds_answer, parse_odds
from rules.campaign.odds import battle_odds
from rules.errors import NotationError


def test_the_example_reads_as_two_sides_the_defender_on_its_hill() -> None:
    question = parse_odds(ODDS_EXAMPLE)
    assert question == OddsQuestion(Side(infantry=300, cavalry=50),
                                    Side(infantry=200, terrain=Terrain.HILL, stationary=True))
    answer = odds_answer(question)
    assert answer.odds.attacker_win == Fraction(3, 5)  # 400 against 280: the 1.26-1.50 band
    assert answer.odds == battle_odds(answer.attacker, answer.defender)
    assert answer.ignored_terrain is None


def test_words_and_numbers_are_read_loosely() -> None:
    question = parse_odds("1,200 foot and 30 horse, 2 ships versus 5 inf")
    assert (question.attacker.infantry, question.attacker.cavalry,
            question.attacker.ships) == (1200, 30, 2)
    assert question.defender == Side(infantry=5)


def test_the_attackers_terrain_is_read_then_set_aside() -> None:
    answer = odds_answer(parse_odds("300 infantry in the forest vs 300 infantry"))
    assert answer.ignored_terrain is Terrain.FOREST
    assert not answer.attacker.stationary and not answer.defender.stationary
    assert answer.odds.attacker_win == Fraction(1, 2)


@pytest.mark.parametrize(("text", "problem"), [
    ("", "two sides separated by `vs`"),
    ("300 infantry", "two sides separated by `vs`"),
    ("lots vs 5 infantry", "the attacking side has no troops"),
    ("300 infantry vs dragons", "the defending side has no troops"),
    ("99999999999 infantry vs 1 infantry", "the attacking side is too large"),
])
def test_a_misreading_says_what_is_wrong_and_gives_the_example(text: str, problem: str) -> None:
    with pytest.raises(NotationError) as caught:
        parse_odds(text)
    assert problem in caught.value.problem()
    assert caught.value.example == ODDS_EXAMPLE and caught.value.syntax


@pytest.mark.parametrize(("text", "problem"), [
    ("300 infantry 50 cavalry vs 200 infantry hill",
     "I did not understand `hill` in the defending side; a terrain is written after `on`, "
     "as `on a hill`"),
    ("300 infantry 20 footmen vs 200 infantry", "I did not understand `20 footmen` in the "
     "attacking side"),
    ("300 infantry vs 200 infantry banana", "I did not understand `banana`"),
    ("300 infantry vs 200 infantry + 40 archers 10 cavalry",
     "`40 archers` in the defending side's army 2"),
])
def test_a_word_the_odds_would_not_count_is_refused(text: str, problem: str) -> None:
    """A side's words are troops, a terrain after `on`/`in`, or `and`/`with`/articles: any
    other word is refused rather than ignored, since ignoring it answers other odds than the
    player asked (`200 infantry hill` counted no hill, without a word about it)."""
    with pytest.raises(NotationError) as caught:
        parse_odds(text)
    assert problem in caught.value.problem()
    assert caught.value.example == ODDS_EXAMPLE and "on a hill" in caught.value.syntax


def test_words_that_count_nothing_but_mislead_nobody_are_read() -> None:
    """`and`, `with`, articles and `stationary` (which a terrain implies) are not refused."""
    question = parse_odds("300 infantry and 50 cavalry with the 2 ships vs 200 infantry "
                          "stationary on a hill")
    assert question == parse_odds("300 infantry 50 cavalry 2 ships vs 200 infantry on a hill")


@pytest.mark.parametrize("text", [
    "300 infantry vs 200 infantry at Winterfell",
    "300 infantry vs 200 infantry at 0412",
    "300 infantry assaulting 200 infantry",
    "300 infantry vs 200 infantry in a holdfast",
    "300 infantry vs a garrison of 200 infantry",
    "300 infantry vs 200 infantry with a defence bonus of 2",
])
def test_a_holdfast_clause_is_refused_not_ignored(text: str) -> None:
    """Issue 24: ``!odds ... at HOLDFAST`` answered the odds of a field battle as if the
    holdfast were not there. The bonus is secret, so the clause is refused, and said why."""
    with pytest.raises(NotationError) as info:
        parse_odds(text)
    assert "cannot count a holdfast" in str(info.value)
    assert "secret" in str(info.value)


def test_a_holdfast_refusal_is_the_same_whatever_the_holdfasts_bonus() -> None:
    """The reply depends on the text alone (parse_odds reads no map): nothing of any real
    holdfast's bonus can reach it."""
    with pytest.raises(NotationError) as first:
        parse_odds("300 infantry vs 200 infantry at Winterfell")
    with pytest.raises(NotationError) as second:
        parse_odds("300 infantry vs 200 infantry at Casterly Rock")
    assert str(first.value).replace("Winterfell", "X") == str(second.value).replace(
        "Casterly Rock", "X")


def test_a_side_of_several_armies_sums_their_strengths() -> None:
    """`+` separates the armies of a side (issue 23), each with its own terrain; the odds are
    the battle's between sides (the same call the JSON engines make with a list per side)."""
    question = parse_odds("300 infantry + 100 infantry vs 200 infantry on a hill + 50 cavalry")
    assert question == OddsQuestion(
        (Side(infantry=300), Side(infantry=100)),
        (Side(infantry=200, terrain=Terrain.HILL, stationary=True), Side(cavalry=50)))
    answer = odds_answer(question)
    assert isinstance(answer.attacker, tuple) and isinstance(answer.defender, tuple)
    assert answer.odds == battle_odds(answer.attacker, answer.defender)
    # two armies of 200 against one of 400 on an open field: equal strength, even odds
    assert odds_answer(parse_odds("200 inf + 200 inf vs 400 inf")).odds.attacker_win == \
        Fraction(1, 2)


def test_an_empty_army_of_a_side_is_named() -> None:
    with pytest.raises(NotationError, match="the defending side's army 2 has no troops"):
        parse_odds("300 infantry vs 200 infantry + on a hill")
