"""The tabletop engines' ``!commands`` as a player sends them: by modmail through real PRAW
and the sandbox, answered in the conversation exactly as the engines' pages show."""

from __future__ import annotations

import re
from pathlib import Path

from tests.bot.reddit.conftest import Harness

DOCS = Path(__file__).resolve().parents[3] / "docs" / "engines"


def doc_block(page: str, label: str) -> str:
    """The fenced block marked ``<!-- example: LABEL -->`` on ``docs/engines/PAGE``."""
    match = re.search(rf"<!-- example: {re.escape(label)} -->\n```[a-z]*\n(.*?)\n```",
                      (DOCS / page).read_text(), re.S)
    assert match is not None, (page, label)
    return match.group(1)


def test_the_combat_example_by_modmail_gives_the_documented_reply(bot: Harness) -> None:
    """The board game page's `!combat` example holds `;` between its parts (supports,
    areas); sent by modmail it is one command, not cut at the first `;`, and the reply is the
    page's reply word for word."""
    conversation, _ = bot.send("ned_stark", doc_block("boardgame.md", "command"))
    bot.cycle()
    replies = bot.bot_messages(conversation)
    assert len(replies) == 1
    assert doc_block("boardgame.md", "reply") in replies[0]
    assert "support Tyrell" in replies[0] and "area Riverrun" in replies[0]


def test_odds_with_a_word_it_would_not_count_says_so_by_modmail(bot: Harness) -> None:
    """`!odds ... 200 infantry hill` (no `on`) used to answer field odds without a word about
    the hill; the player is now told which word was not read and how to write a terrain."""
    conversation, _ = bot.send("ned_stark",
                               "!odds 300 infantry 50 cavalry vs 200 infantry hill")
    bot.cycle()
    (answer,) = bot.bot_messages(conversation)
    assert "**Not done:** I did not understand `hill` in the defending side; a terrain is " \
        "written after `on`, as `on a hill`." in answer
    assert "**Example:** `!odds 300 infantry 50 cavalry vs 200 infantry on a hill`" in answer
    assert "attacker wins" not in answer
