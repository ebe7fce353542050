"""One "Did you mean ...?" for every kind of name (tiles, catalogue entries, JSON fields)."""

from __future__ import annotations

from rules.suggest import closest, did_you_mean


def test_closest_ignores_case_and_spacing_and_keeps_the_known_spelling() -> None:
    assert closest("winterfel", ["Riverrun", "Winterfell"]) == ("Winterfell",)
    assert closest("Stone  walls", ["Stone Walls", "Moat"]) == ("Stone Walls",)
    assert closest("zzz", ["Riverrun", "Winterfell"]) == ()
    assert closest("", ["Riverrun"]) == ()


def test_closest_gives_several_best_first_and_stems_when_asked() -> None:
    assert closest("0413", ["0412", "0413x", "9999"], n=2, key=str) == ("0413x", "0412")
    assert closest("str", ["strength", "cavalry"], stems=True) == ("strength",)


def test_did_you_mean_words_one_or_several_names() -> None:
    assert did_you_mean(()) == ""
    assert did_you_mean(["Crossroads"]) == "Did you mean Crossroads?"
    assert did_you_mean(["A", "B", "C", "A"]) == "Did you mean A, B or C?"
