"""Echoed player text cannot ping, format or flood."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.text import clean, escape_md, inert_links, name_md
from rules.text import _PLAIN, _escaped


def test_pings_are_defused() -> None:
    out = escape_md("hello u/someone and r/westeros and /u/other")
    assert "u/someone" not in out and "r/westeros" not in out and "/u/other" not in out
    assert "someone" in out


def test_markdown_is_escaped() -> None:
    assert escape_md("**bold** [link](http://x)") == r"\*\*bold\*\* \[link\](http&#58;//x)"
    assert escape_md("- item") == r"\- item"


def test_control_and_zero_width_characters_are_removed() -> None:
    assert clean("a\u200bb\x00c\u202ed\ne") == "abcd\ne"


def test_long_text_is_cut() -> None:
    assert len(escape_md("x" * 10_000, limit=50)) == 51


def test_bare_urls_do_not_autolink() -> None:
    """Reddit links bare https:// and www. text; escaped text and public bodies defuse both."""
    for out in (escape_md("see https://evil.example and www.evil.example"),
                inert_links("see https://evil.example and www.evil.example")):
        assert "https://" not in out and "www." not in out and "evil.example" in out


def test_public_bodies_have_no_live_links_or_pings() -> None:
    body = "**House** [Stark](https://evil.example) u/ned_stark <http://x> | a |"
    out = inert_links(body)
    assert "](" not in out and "u/ned" not in out and "http:" not in out
    assert out.startswith("**House**") and out.endswith("| a |")


def test_names_cannot_break_a_table() -> None:
    assert "|" not in name_md("House Bolton | evil |").replace("\\|", "")


def test_the_escaping_is_one_function_shared_with_the_rules() -> None:
    """The rules' refusals and the bot's posts escape names with the same function."""
    import rules.text

    assert (name_md, escape_md, clean) == (rules.text.name_md, rules.text.escape_md,
                                           rules.text.clean)


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=st.sampled_from("Ab0 ',()-+./:wW_*|<>u\n\t\u200bé"), max_size=14),
       st.integers(min_value=0, max_value=16))
def test_plain_names_are_left_as_they_are(text: str, limit: int) -> None:
    """The shortcut of :func:`escape_md` for plain text (letters, digits, spaces, apostrophes,
    commas, brackets) gives what the whole escaping gives, for any text and limit."""
    assert escape_md(text, limit) == _escaped(text, limit)
    if _PLAIN.fullmatch(text) and len(text) <= limit:
        assert escape_md(text, limit) == text
