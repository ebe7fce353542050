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
