"""The campaign's bot commands: `!odds` (public) and `!claim` (moderators)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from bot.commands.dispatch import run_command
from bot.commands.registry import CommandContext
from rules.dice import ScriptedDice


def _ctx(moderator: bool = False) -> CommandContext:
    return CommandContext(author="someone", dice=ScriptedDice([]),
                          now=datetime(2026, 11, 22, tzinfo=UTC), is_moderator=moderator)


def test_odds_gives_the_exact_chart_odds() -> None:
    """A 1.43 ratio (400 against 280 on a hill) is the 1.26-1.50 band: exactly 60%."""
    reply = run_command("odds", "300 infantry 50 cavalry vs 200 infantry on a hill", _ctx()).text
    assert "**60.0%** (exactly 3/5)" in reply and "hill (stationary)" in reply


@pytest.mark.parametrize("args", ["", "300 infantry", "lots vs none", "300 infantry vs dragons",
                                  "99999999999 infantry vs 1 infantry"])
def test_odds_bad_input_says_what_was_expected(args: str) -> None:
    reply = run_command("odds", args, _ctx()).text
    assert reply.startswith("**Not done:**") and "**Example:** `!odds" in reply


def test_claim_is_for_moderators_only() -> None:
    assert "for moderators only" in run_command("claim", "House Stark", _ctx()).text


def test_odds_takes_several_armies_per_side() -> None:
    """`+` joins armies into one side; the reply lists each army of each side."""
    reply = run_command("odds", "200 infantry + 200 infantry vs 400 infantry", _ctx()).text
    assert "200 infantry + 200 infantry vs **defender** 400 infantry" in reply
    assert "**50.0%** (exactly 1/2)" in reply
