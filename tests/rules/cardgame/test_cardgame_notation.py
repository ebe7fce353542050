"""The card game's command notation lives in rules/: text in, request and game out, no bot."""

from __future__ import annotations

import pytest

from rules.cardgame import ChallengeType, resolve_challenge
from rules.cardgame.notation import EXAMPLE, build_game, format_challenge, parse_challenge
from rules.dice import ScriptedDice
from rules.errors import NotationError


def test_challenge_text_reads_into_a_game_that_resolves() -> None:
    request = parse_challenge("military attackers Jaime 4 mil, Bronn 2 mil vs defenders "
                              "Ned 3 mil claim 1 kill Ned")
    assert request.challenge_type is ChallengeType.MILITARY
    assert parse_challenge(format_challenge(request)) == request
    state, declaration = build_game(request)
    result = resolve_challenge(state, declaration, dice=ScriptedDice([]))
    assert result.winner == "Attacker" and result.claim is not None
    assert result.claim.killed == ("Ned",)


def test_unreadable_text_keeps_the_players_words_apart() -> None:
    with pytest.raises(NotationError) as info:
        parse_challenge("skirmish attackers Jaime 4")
    assert info.value.quoted == ("skirmish",)
    assert info.value.example == EXAMPLE
    assert "military, intrigue or power" in info.value.syntax
