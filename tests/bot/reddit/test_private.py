"""Nothing private in public: every command through every channel (real PRAW, the sandbox).

A command whose answer shows private state (``!claim``) is answered by modmail only, whatever
channel it came in; a public comment reply only says so. Every other command's public answer
holds no claim's private state either.
"""

from __future__ import annotations

import re

import pytest

from bot.commands.dispatch import all_commands
from bot.render.receipts import PRIVATE_ELSEWHERE
from bot.sandbox import BOT_USERNAME, MODERATOR, SUBREDDIT
from tests.bot.reddit.conftest import Harness, public_texts

# What a claim's private state looks like in a reply (the status of a claim).
PRIVATE_STATE = re.compile(r"- Gold: \d|At home in |At home \(no seat\)|Upkeep of raised troops")


def _calls() -> list[str]:
    return [(c.example or f"!{c.name}").lstrip("!") for c in all_commands()]


def _send(bot: Harness, channel: str, who: str, line: str) -> None:
    if channel == "modmail":
        bot.send(who, f"!{line}")
    elif channel == "forward":
        bot.sandbox.seed_automod_forward(who, "[Orders] a command", f"!{line}",
                                         subreddit=SUBREDDIT, flair_text="Orders")
    else:
        bot.sandbox.seed_mention(who, BOT_USERNAME, f"u/{BOT_USERNAME} !{line}",
                                 subreddit=SUBREDDIT)


@pytest.mark.parametrize("channel", ["modmail", "forward", "comment"])
@pytest.mark.parametrize("who", [MODERATOR, "ned_stark"])
def test_private_answers_go_by_modmail_only_whatever_the_channel(bot: Harness, channel: str,
                                                                 who: str) -> None:
    """Every command, sent by a moderator and by a player, by modmail, forwarded from a post,
    and in a comment mentioning the bot: no public post or comment shows private state, and a
    moderator's `!claim` answer reaches the moderator by modmail."""
    calls = _calls()
    assert any(c.startswith("claim ") for c in calls)
    for line in calls:
        _send(bot, channel, who, line)
    bot.drain()
    public = public_texts(bot.sandbox)
    leaks = [(where, text) for where, text in public if PRIVATE_STATE.search(text)]
    assert not leaks, leaks
    private = [m.body for m in bot.sandbox.private_messages(who)]
    private += [body for c in bot.sandbox.conversations() for body in bot.bot_messages(c.id)]
    if who == MODERATOR:
        assert any(PRIVATE_STATE.search(b) for b in private), private
    if channel == "comment":
        answers = [c.body for c in bot.sandbox.comments(author=BOT_USERNAME)
                   if "!claim" in c.body]
        assert answers and all(PRIVATE_ELSEWHERE in t or "moderators only" in t
                               for t in answers)
