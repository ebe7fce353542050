"""The tabletop engines' ``!commands`` as a player sends them: by modmail through real PRAW
and the sandbox, answered in the conversation exactly as the engines' pages show."""

from __future__ import annotations

import re
from pathlib import Path

from tests.bot.reddit.conftest import Harness

ROOT = Path(__file__).resolve().parents[3]
DOCS = ROOT / "docs" / "engines"
GUIDES = (ROOT / "docs" / "orders.md", DOCS / "boardgame.md", DOCS / "miniatures.md",
          DOCS / "cardgame.md")
_INLINE = re.compile(r"`(![a-z][^`]*)`(?: answers \*([^*]+)\*)?")


def doc_block(page: str, label: str) -> str:
    """The fenced block marked ``<!-- example: LABEL -->`` on ``docs/engines/PAGE``."""
    match = re.search(rf"<!-- example: {re.escape(label)} -->\n```[a-z]*\n(.*?)\n```",
                      (DOCS / page).read_text(), re.S)
    assert match is not None, (page, label)
    return match.group(1)


def guide_examples() -> list[tuple[str, str | None]]:
    """Every whole `!command` the players' guide and the engines' pages show, with the answer
    the page promises for a bad one (`... answers *illegal challenge: ...*`), else None.

    Syntax lines (`!charge DISTANCE" speed S [reroll]`, `!combat ...`) and bare names are
    left out: they are not meant to be sent as written."""
    found: list[tuple[str, str | None]] = []
    for page in GUIDES:
        text = page.read_text()
        for match in _INLINE.finditer(text):
            example, promised = match.group(1), match.group(2)
            if " " not in example or "..." in example or "[" in example \
                    or re.search(r"\b[A-Z]{2,}\b", example):
                continue
            found.append((example, " ".join(promised.split()) if promised else None))
        found.extend((block, None) for block in re.findall(
            r"<!-- example: command -->\n```[a-z]*\n(.*?)\n```", text, re.S))
    return found


def test_every_command_the_guides_show_works_by_modmail(bot: Harness) -> None:
    """A player copying any command from docs/orders.md or the engines' pages into modmail
    gets the answer, not a refusal (and a bad example gets the refusal the page quotes)."""
    examples = guide_examples()
    assert len(examples) >= 12 and any(promised for _, promised in examples)
    sent = [(example, promised, bot.send("ned_stark", example)[0])
            for example, promised in examples]
    bot.drain()
    for example, promised, conversation in sent:
        (answer,) = bot.bot_messages(conversation)
        if promised is None:
            assert "**Not done:**" not in answer and "went wrong" not in answer, example
        else:
            assert f"**Not done:** {promised}" in answer, example


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


def test_a_misspelt_command_by_modmail_suggests_the_right_one(bot: Harness) -> None:
    """`!atack ...` is answered with `!attack` suggested and the commands a player may use,
    as `!help` lists them: no moderators' command (`!adjust`, `!approve`) is offered."""
    conversation, _ = bot.send("ned_stark", "!atack 8 dice 4+ vs 5+")
    bot.cycle()
    (answer,) = bot.bot_messages(conversation)
    assert "**Not done:** I do not know the command `!atack`; did you mean `!attack`?" in answer
    assert "**Example:** `!help attack`" in answer
    assert "`!combat`" in answer and "`!odds`" in answer
    assert "`!adjust`" not in answer and "`!approve`" not in answer
    conversation, _ = bot.send("ned_stark", "!help chalenge")
    bot.cycle()
    (answer,) = bot.bot_messages(conversation)
    assert "I do not know the command `!chalenge`; did you mean `!challenge`?" in answer
    assert "**Example:** `!help challenge`" in answer
