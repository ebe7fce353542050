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
