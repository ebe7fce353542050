"""#30: order posts that AutoModerator removes. A removed post reads ``[removed]`` to a
moderator without the ``posts`` permission, so the bot cannot read its orders: the
moderators are told why (the player is never told "I found no order"), and `maester check`
fails for that set-up. AutoModerator's moderator exemption is modelled too. Real PRAW (the
player submits through it), the sandbox's AutoModerator rule."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlmodel import select
from typer.testing import CliRunner

from bot.cli import app
from bot.db.engine import transaction
from bot.db.models import Army
from bot.sandbox import BOT_USERNAME, SUBREDDIT, password_for
from bot.sandbox.praw_client import make_reddit
from tests.bot.reddit.conftest import Harness
from tests.bot.reddit.test_runner import write_config

cli = CliRunner()
TEMPLATE = ("{{permalink}}\n\nOrders posted by u/{{author}}: {{title}}\n\n"
            "Forwarded to maester as orders.")


def _orders_rule(bot: Harness, *, remove: bool = True, moderators_exempt: bool = True) -> None:
    bot.sandbox.add_automod_forward_rule(SUBREDDIT, title_contains="[Orders]",
                                         template=TEMPLATE, subject="Orders from u/x",
                                         remove=remove, moderators_exempt=moderators_exempt)


def _post_orders(bot: Harness, player: str, text: str) -> str:
    reddit = make_reddit(bot.sandbox.url, username=player, password=password_for(player))
    return str(reddit.subreddit(SUBREDDIT).submit("[Orders] spring", selftext=text).id)


def _infantry(bot: Harness) -> list[int]:
    with transaction(bot.engine) as session:
        return [a.infantry for a in session.exec(select(Army)).all()]


def _notes(bot: Harness) -> list[str]:
    return [m.body for c in bot.sandbox.conversations()
            for m in bot.sandbox.conversation_messages(c.id) if m.author == BOT_USERNAME]


def test_a_removed_order_post_is_read_with_the_posts_permission(bot: Harness) -> None:
    bot.sandbox.add_moderator(SUBREDDIT, BOT_USERNAME, permissions=["mail", "posts"])
    _orders_rule(bot)
    post = _post_orders(bot, "ned_stark", "muster 80 infantry")
    assert bot.sandbox.post(post).body == "muster 80 infantry"
    assert bot.poll().forwards == 1
    assert _infantry(bot) == [80]


def test_without_the_posts_permission_the_moderators_are_told_not_the_player(
        bot: Harness) -> None:
    """The forwarded post reads ``[removed]`` to the bot: nothing runs, the moderators get
    an internal note naming the permission, and the player gets no "I found no order"."""
    bot.sandbox.add_moderator(SUBREDDIT, BOT_USERNAME, permissions=["mail"])
    _orders_rule(bot)
    _post_orders(bot, "ned_stark", "muster 80 infantry")
    assert bot.poll().forwards == 0
    bot.publish()
    assert _infantry(bot) == []
    notes = _notes(bot)
    assert len(notes) == 1 and "[removed]" in notes[0] and "Manage Posts" in notes[0]
    assert not any("found no order" in n for n in notes)
    assert [m.outcome for m in bot.inbox()] == ["bad_forward"]


@pytest.mark.parametrize(("permissions", "code"), [(["mail"], 1), (["mail", "posts"], 0)])
def test_check_fails_when_removed_order_posts_cannot_be_read(
        bot: Harness, tmp_path: Path, permissions: list[str], code: int) -> None:
    bot.sandbox.add_moderator(SUBREDDIT, BOT_USERNAME, permissions=permissions)
    config = write_config(bot, tmp_path / "config.toml")
    config.write_text(config.read_text().replace("[bot]\n", "[bot]\norders_posts_removed = "
                                                 "true\n"))
    result = cli.invoke(app, ["check", "--config", str(config)])
    assert result.exit_code == code, result.output
    if code:
        assert "[FAIL] removed order posts: AutoModerator removes order posts" in result.output
        assert "fix: give u/maester_bot 'Manage Posts and Comments'" in result.output
    else:
        assert "[ok  ] removed order posts:" in result.output


@pytest.mark.parametrize(("exempt", "forwarded"), [(True, 0), (False, 1)])
def test_automoderator_skips_moderators_unless_told_not_to(
        bot: Harness, exempt: bool, forwarded: int) -> None:
    """A player who moderates the subreddit: AutoModerator's rules leave their posts alone
    (no forward) unless the rule says ``moderators_exempt: false``."""
    bot.sandbox.add_moderator(SUBREDDIT, "ned_stark")
    _orders_rule(bot, remove=False, moderators_exempt=exempt)
    _post_orders(bot, "ned_stark", "muster 60 infantry")
    assert bot.poll().forwards == forwarded
    assert _infantry(bot) == ([60] if forwarded else [])
