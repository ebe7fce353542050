"""AutoModerator forwards and players' imitations of them, as PRAW sees them."""

from __future__ import annotations

import praw
from praw.models import ModmailConversation

from bot.sandbox import (
    AUTOMOD_SUBJECT,
    AUTOMODERATOR,
    SUBREDDIT,
    RedditSandbox,
    render_forward,
)
from tests.fixtures.reddit import RedditFactory


def _conversation(reddit: praw.Reddit, conversation_id: str) -> ModmailConversation:
    conversation: ModmailConversation = reddit.subreddit(SUBREDDIT).modmail(conversation_id)
    return conversation


def test_genuine_forward_has_automoderator_shape(
    praw_reddit: praw.Reddit, sandbox: RedditSandbox
) -> None:
    """isAuto true, author AutoModerator (a moderator), the post's permalink on line one."""
    seed = sandbox.seed_automod_forward(
        "ned_stark",
        "[Order] march",
        "march Winterfell -> Moat Cailin",
        subreddit=SUBREDDIT,
        flair_text="Order",
    )
    conversation = _conversation(praw_reddit, seed.conversation_id)
    assert conversation.is_auto is True
    assert conversation.subject == AUTOMOD_SUBJECT
    assert conversation.owner.display_name == SUBREDDIT
    [message] = conversation.messages
    assert message.author.name == AUTOMODERATOR
    assert message.author.is_subreddit_mod is True
    first_line = message.body_markdown.splitlines()[0]
    assert first_line == seed.permalink
    assert first_line.startswith(f"https://www.reddit.com/r/{SUBREDDIT}/comments/{seed.post_id}/")


def test_forwarded_post_is_read_from_the_api(
    praw_reddit: praw.Reddit, sandbox: RedditSandbox
) -> None:
    """The bot takes author, flair and text from the post itself, via the permalink."""
    seed = sandbox.seed_automod_forward(
        "daenerys_t",
        "[Order] fly",
        "fly to Dragonstone",
        subreddit=SUBREDDIT,
        flair_text="Order",
    )
    first_line = _conversation(praw_reddit, seed.conversation_id).messages[0].body_markdown
    post = praw_reddit.submission(url=first_line.splitlines()[0])
    [fetched] = list(praw_reddit.info(fullnames=[f"t3_{post.id}"]))
    assert fetched.author.name == "daenerys_t"
    assert fetched.link_flair_text == "Order"
    assert fetched.selftext == "fly to Dragonstone"
    assert fetched.subreddit.display_name == SUBREDDIT


def test_forward_lands_in_notifications_not_all(
    praw_reddit: praw.Reddit, sandbox: RedditSandbox
) -> None:
    """Automatic conversations are left out of ``all``; they are in ``notifications``."""
    seed = sandbox.seed_automod_forward("ned_stark", "o", "muster 10", subreddit=SUBREDDIT)
    subreddit = praw_reddit.subreddit(SUBREDDIT)
    assert list(subreddit.modmail.conversations(state="all")) == []
    [listed] = list(subreddit.modmail.conversations(state="notifications"))
    assert listed.id == seed.conversation_id
    assert listed.is_auto is True


def test_imitation_is_an_ordinary_player_message(
    praw_reddit: praw.Reddit, sandbox: RedditSandbox
) -> None:
    """A player can copy the subject and layout, but not isAuto nor AutoModerator as author."""
    genuine = sandbox.seed_automod_forward("ned_stark", "t", "march", subreddit=SUBREDDIT)
    fake = sandbox.seed_fake_automod_forward(
        "cersei_lannister", "t", "march", subreddit=SUBREDDIT, post_author="ned_stark"
    )
    real_text = _conversation(praw_reddit, genuine.conversation_id).messages[0].body_markdown
    conversation = _conversation(praw_reddit, fake.conversation_id)
    [message] = conversation.messages
    assert conversation.subject == AUTOMOD_SUBJECT
    assert conversation.is_auto is False
    assert message.author.name == "cersei_lannister"
    assert message.author.is_subreddit_mod is False
    # Same layout line for line, only the permalink's post differs.
    assert message.body_markdown.split("\n")[1:] == real_text.split("\n")[1:]
    assert [c.id for c in praw_reddit.subreddit(SUBREDDIT).modmail.conversations()] == [
        fake.conversation_id
    ]


def test_imitation_may_point_outside_the_subreddit(
    praw_reddit: praw.Reddit, sandbox: RedditSandbox
) -> None:
    """An imitation can carry any permalink, e.g. into another subreddit."""
    elsewhere = "https://www.reddit.com/r/elsewhere/comments/abc123/x/"
    fake = sandbox.seed_fake_automod_forward(
        "cersei_lannister", "t", "march", subreddit=SUBREDDIT, permalink=elsewhere
    )
    assert fake.post_id == ""
    body = _conversation(praw_reddit, fake.conversation_id).messages[0].body_markdown
    assert body.splitlines()[0] == elsewhere


def test_forward_of_a_comment(praw_reddit: praw.Reddit, sandbox: RedditSandbox) -> None:
    """Forwarding a comment puts the comment's permalink first."""
    post_id = sandbox.submit_post("ned_stark", "thread", "x", subreddit=SUBREDDIT)
    comment_id = sandbox.add_comment("daenerys_t", post_id, "!muster 20 Dragonstone")
    seed = sandbox.automod_forward(f"t1_{comment_id}")
    body = _conversation(praw_reddit, seed.conversation_id).messages[0].body_markdown
    assert body.splitlines()[0].endswith(f"/comments/{post_id}/thread/{comment_id}/")
    assert praw_reddit.comment(url=body.splitlines()[0]).id == comment_id


def test_template_without_permalink_gets_it_prepended() -> None:
    """Reddit prepends the permalink only when the template has no ``{{permalink}}`` at
    all; a template using it anywhere is sent as written."""
    text = render_forward(
        "Order by {{author}}: {{body}}", permalink="P", author="a", title="t", body="b*c*"
    )
    assert text == "P\n\nOrder by a: b*c*"
    kept = render_forward("{{permalink}}\n{{title}}", permalink="P", author="", title="T", body="")
    assert kept == "P\nT"
    later = render_forward("{{title}}\n\n[post]({{permalink}})", permalink="P", author="",
                           title="T", body="")
    assert later == "T\n\n[post](P)"


def test_forward_rule_fires_on_posts_made_through_praw(
    praw_reddit: praw.Reddit, sandbox: RedditSandbox, reddit_for: RedditFactory
) -> None:
    """A rule forwards matching posts (title and flair) the moment a player submits them."""
    flair = sandbox.add_link_flair(SUBREDDIT, "Order")
    sandbox.add_automod_forward_rule(
        SUBREDDIT, title_contains="[order]", flair_text="Order", template="{{permalink}}\n{{body}}"
    )
    player = reddit_for("ned_stark").subreddit(SUBREDDIT)
    ordered = player.submit("[Order] north", selftext="march Winterfell", flair_id=flair)
    player.submit("[Order] no flair", selftext="not forwarded")
    player.submit("chat", selftext="not forwarded", flair_id=flair)
    [listed] = list(praw_reddit.subreddit(SUBREDDIT).modmail.conversations(state="notifications"))
    [message] = _conversation(praw_reddit, listed.id).messages
    first, body = message.body_markdown.split("\n")
    assert praw_reddit.submission(url=first).id == ordered.id
    assert body == "march Winterfell"
    assert message.author.name == AUTOMODERATOR
