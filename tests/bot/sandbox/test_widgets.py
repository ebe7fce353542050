"""The redesign's sidebar widgets, through real PRAW: ``subreddit.widgets``,
``widgets.mod.add_text_area``, ``widget.mod.update`` and ``widget.mod.delete``."""

from __future__ import annotations

import praw
import praw.exceptions
import prawcore
import pytest
from praw.models import TextArea

from bot.sandbox import BOT_USERNAME, DEFAULT_CLIENT_ID, SUBREDDIT, RedditSandbox
from bot.sandbox.praw_client import make_reddit

STYLES = {"backgroundColor": "", "headerColor": ""}


def test_add_read_update_delete_a_text_area(praw_reddit: praw.Reddit,
                                            sandbox: RedditSandbox) -> None:
    """A text area added by PRAW is in the sidebar, PRAW reads it back as a TextArea,
    ``mod.update`` changes its text in place and ``mod.delete`` removes it."""
    widgets = praw_reddit.subreddit(SUBREDDIT).widgets
    assert widgets.sidebar == []
    assert widgets.id_card.shortName == "Community Details"
    added = widgets.mod.add_text_area(short_name="Campaign clock", text="Month 1",
                                      styles=STYLES)
    assert isinstance(added, TextArea)
    widgets.refresh()
    [found] = widgets.sidebar
    assert isinstance(found, TextArea)
    assert (found.id, found.shortName, found.text) == (added.id, "Campaign clock", "Month 1")
    updated = found.mod.update(text="Month 2")
    assert updated.text == "Month 2"
    assert [(w["id"], w["text"]) for w in sandbox.sidebar_widgets(SUBREDDIT)] == [
        (added.id, "Month 2")]
    found.mod.delete()
    assert sandbox.sidebar_widgets(SUBREDDIT) == []


def test_widgets_need_the_structuredstyles_scope(sandbox: RedditSandbox) -> None:
    """A refresh token without ``structuredstyles`` is refused (403, insufficient scope)
    as Reddit's API documentation lists the widget endpoints."""
    token = sandbox.issue_refresh_token(BOT_USERNAME, DEFAULT_CLIENT_ID,
                                        scopes=("identity", "read", "submit"))
    reddit = make_reddit(sandbox.url, refresh_token=token)
    with pytest.raises(prawcore.InsufficientScope):
        reddit.subreddit(SUBREDDIT).widgets.mod.add_text_area(
            short_name="Campaign clock", text="x", styles=STYLES)
    token = sandbox.issue_refresh_token(BOT_USERNAME, DEFAULT_CLIENT_ID,
                                        scopes=("structuredstyles",))
    reddit = make_reddit(sandbox.url, refresh_token=token)
    reddit.subreddit(SUBREDDIT).widgets.mod.add_text_area(
        short_name="Campaign clock", text="x", styles=STYLES)
    assert len(sandbox.sidebar_widgets(SUBREDDIT)) == 1


def test_widgets_need_the_config_permission(praw_reddit: praw.Reddit,
                                            sandbox: RedditSandbox) -> None:
    """A moderator without "Manage Settings" (``config``) cannot add a widget."""
    sandbox.add_moderator(SUBREDDIT, BOT_USERNAME, permissions=("mail", "posts"))
    with pytest.raises(prawcore.Forbidden):
        praw_reddit.subreddit(SUBREDDIT).widgets.mod.add_text_area(
            short_name="Campaign clock", text="x", styles=STYLES)


def test_a_bad_widget_is_refused(praw_reddit: praw.Reddit) -> None:
    """A name longer than 30 characters is a 400 naming the field."""
    with pytest.raises(praw.exceptions.RedditAPIException, match="shortName"):
        praw_reddit.subreddit(SUBREDDIT).widgets.mod.add_text_area(
            short_name="x" * 31, text="x", styles=STYLES)
