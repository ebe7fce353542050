"""The default sandbox world shared by the test fixtures, ``maester demo`` and ``python -m``.

r/westeros, moderated by the bot ``maester_bot`` and a human moderator, with a few players.
Every password is a fixed test value; none of them is a secret.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

SUBREDDIT = "westeros"
BOT_USERNAME = "maester_bot"
BOT_PASSWORD = "maester-bot-password"
MODERATOR = "grand_maester"
PLAYERS = ("ned_stark", "cersei_lannister", "daenerys_t")


def password_for(name: str) -> str:
    """The sandbox password of a default account (the bot's is :data:`BOT_PASSWORD`)."""
    return BOT_PASSWORD if name == BOT_USERNAME else f"{name}-password"


class _Seedable(Protocol):
    def add_subreddit(self, name: str, *, title: str = "") -> str: ...

    def add_user(
        self, name: str, password: str | None = None, *, moderator_of: tuple[str, ...] = ()
    ) -> str: ...


@dataclass(frozen=True, slots=True)
class DefaultWorld:
    """Names in the default world."""

    subreddit: str = SUBREDDIT
    bot: str = BOT_USERNAME
    bot_password: str = BOT_PASSWORD
    moderator: str = MODERATOR
    players: tuple[str, ...] = PLAYERS


def populate_default_world(sandbox: _Seedable) -> DefaultWorld:
    """Create r/westeros, the bot and a human moderator (both moderators) and the players."""
    sandbox.add_subreddit(SUBREDDIT, title="The Seven Kingdoms")
    sandbox.add_user(BOT_USERNAME, BOT_PASSWORD, moderator_of=(SUBREDDIT,))
    sandbox.add_user(MODERATOR, password_for(MODERATOR), moderator_of=(SUBREDDIT,))
    for player in PLAYERS:
        sandbox.add_user(player, password_for(player))
    return DefaultWorld()
