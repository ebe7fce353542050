"""Echoed player text cannot ping, format or flood."""

from __future__ import annotations

from bot.text import clean, escape_md


def test_pings_are_defused() -> None:
    out = escape_md("hello u/someone and r/westeros and /u/other")
    assert "u/someone" not in out and "r/westeros" not in out and "/u/other" not in out
    assert "someone" in out


def test_markdown_is_escaped() -> None:
    assert escape_md("**bold** [link](http://x)") == r"\*\*bold\*\* \[link\](http://x)"
    assert escape_md("- item") == r"\- item"


def test_control_and_zero_width_characters_are_removed() -> None:
    assert clean("a\u200bb\x00c\u202ed\ne") == "abcd\ne"


def test_long_text_is_cut() -> None:
    assert len(escape_md("x" * 10_000, limit=50)) == 51
