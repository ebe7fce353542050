"""Posts, comments, listings, /api/info and the mention inbox, through real PRAW."""

from __future__ import annotations

import praw
import praw.exceptions
import prawcore
import pytest
from praw.models import Comment, Message

from bot.sandbox import BOT_USERNAME, SUBREDDIT, RedditSandbox
from tests.fixtures.reddit import RedditFactory


def test_submit_and_read_back(praw_reddit: praw.Reddit, sandbox: RedditSandbox) -> None:
    """/api/submit stores a self post; PRAW and the read-back hook both see it."""
    flair = sandbox.add_link_flair(SUBREDDIT, "Battle", mod_only=True)
    post = praw_reddit.subreddit(SUBREDDIT).submit(
        "[Battle] The Trident",
        selftext="Robert 300 vs Rhaegar 250\n\n[](#maester:b1)",
        flair_id=flair,
    )
    assert post.title == "[Battle] The Trident"
    assert post.author.name == BOT_USERNAME
    assert post.link_flair_text == "Battle"
    assert post.selftext.endswith("[](#maester:b1)")
    [stored] = sandbox.posts(subreddit=SUBREDDIT)
    assert (stored.id, stored.author, stored.flair_text, stored.flair_id) == (
        post.id,
        BOT_USERNAME,
        "Battle",
        flair,
    )
    assert stored.body == "Robert 300 vs Rhaegar 250\n\n[](#maester:b1)"
    assert (
        stored.url == f"https://www.reddit.com/r/{SUBREDDIT}/comments/{post.id}/battle_the_trident/"
    )


def test_editable_flair_takes_the_given_text(
    praw_reddit: praw.Reddit, sandbox: RedditSandbox
) -> None:
    """flair_text replaces the template's text only when the template is editable."""
    editable = sandbox.add_link_flair(SUBREDDIT, "News", text_editable=True)
    fixed = sandbox.add_link_flair(SUBREDDIT, "Siege")
    subreddit = praw_reddit.subreddit(SUBREDDIT)
    subreddit.submit("a", selftext="x", flair_id=editable, flair_text="Late news")
    subreddit.submit("b", selftext="x", flair_id=fixed, flair_text="ignored")
    assert [p.flair_text for p in sandbox.posts()] == ["Late news", "Siege"]
    templates = list(subreddit.flair.link_templates)
    assert [(t["text"], t["text_editable"]) for t in templates] == [
        ("News", True),
        ("Siege", False),
    ]


@pytest.mark.parametrize(
    ("title", "text", "error"),
    [
        ("", "body", "NO_TEXT"),
        ("x" * 301, "body", "TOO_LONG"),
        ("fine", "y" * 40001, "TOO_LONG"),
    ],
)
def test_submit_validation_errors(
    praw_reddit: praw.Reddit, sandbox: RedditSandbox, title: str, text: str, error: str
) -> None:
    """Refused posts come back as 200 with json errors: RedditAPIException, nothing stored."""
    with pytest.raises(praw.exceptions.RedditAPIException) as caught:
        praw_reddit.subreddit(SUBREDDIT).submit(title, selftext=text)
    assert caught.value.items[0].error_type == error
    assert sandbox.posts() == []


def test_unknown_flair_template_is_a_bare_400(
    praw_reddit: praw.Reddit, sandbox: RedditSandbox
) -> None:
    """An unknown flair_id gets a 400 with no explanation (praw issue #1938)."""
    with pytest.raises(prawcore.BadRequest):
        praw_reddit.subreddit(SUBREDDIT).submit("t", selftext="x", flair_id="no-such-flair")
    assert sandbox.posts() == []


def test_banned_user_and_removed_subreddit(
    reddit_for: RedditFactory, sandbox: RedditSandbox
) -> None:
    """A banned account gets SUBREDDIT_NOTALLOWED; a removed subreddit no longer exists."""
    sandbox.ban_user(SUBREDDIT, BOT_USERNAME)
    bot = reddit_for(BOT_USERNAME)
    with pytest.raises(praw.exceptions.RedditAPIException) as banned:
        bot.subreddit(SUBREDDIT).submit("t", selftext="x")
    assert banned.value.items[0].error_type == "SUBREDDIT_NOTALLOWED"
    sandbox.remove_subreddit(SUBREDDIT)
    player = reddit_for("ned_stark")
    with pytest.raises(praw.exceptions.RedditAPIException) as removed:
        player.subreddit(SUBREDDIT).submit("t", selftext="x")
    assert removed.value.items[0].error_type == "SUBREDDIT_NOEXIST"
    with pytest.raises(prawcore.NotFound):
        list(player.subreddit(SUBREDDIT).new())


def test_recent_posts_listings_page_newest_first(
    praw_reddit: praw.Reddit, sandbox: RedditSandbox
) -> None:
    """The bot finds its recent posts in /user/NAME/submitted and /r/SUB/new, paged."""
    subreddit = praw_reddit.subreddit(SUBREDDIT)
    made = [subreddit.submit(f"[Arrival] host {i}", selftext=f"k{i}").id for i in range(12)]
    sandbox.submit_post("ned_stark", "player post", "hello", subreddit=SUBREDDIT)
    sandbox.reset_requests()
    submitted = praw_reddit.redditor(BOT_USERNAME).submissions
    mine = [p.id for p in submitted.new(limit=None, request_limit=5)]
    assert mine == list(reversed(made))
    # Pages of 5, 5 and 2; the last page has no ``after`` so PRAW stops there.
    assert sandbox.request_count(route="user.submitted") == 3
    newest = [p.title for p in subreddit.new(limit=2)]
    assert newest == ["player post", "[Arrival] host 11"]


def test_comments_and_post_with_its_tree(
    praw_reddit: praw.Reddit, sandbox: RedditSandbox, reddit_for: RedditFactory
) -> None:
    """/api/comment replies to posts and comments; /comments/ID returns the nested tree."""
    post_id = sandbox.submit_post("ned_stark", "Roll thread", "roll here", subreddit=SUBREDDIT)
    top = reddit_for("daenerys_t").submission(post_id).reply(body="first")
    assert isinstance(top, Comment)
    nested = praw_reddit.comment(top.id).reply(body="answer [](#maester:c1)")
    assert isinstance(nested, Comment)
    post = praw_reddit.submission(post_id)
    assert post.num_comments == 2
    assert len(post.comments) == 1
    first = post.comments[0]
    assert isinstance(first, Comment)
    assert first.body == "first"
    assert len(first.replies) == 1
    answer = first.replies[0]
    assert isinstance(answer, Comment)
    assert (answer.id, answer.body) == (nested.id, "answer [](#maester:c1)")
    assert nested.parent_id == f"t1_{top.id}"
    stored = sandbox.comments(post_id=post_id)
    assert [(c.author, c.parent_id) for c in stored] == [
        ("daenerys_t", f"t3_{post_id}"),
        (BOT_USERNAME, f"t1_{top.id}"),
    ]
    mine = list(praw_reddit.redditor(BOT_USERNAME).comments.new())
    assert [c.id for c in mine] == [nested.id]


def test_info_returns_posts_and_comments_in_order(
    praw_reddit: praw.Reddit, sandbox: RedditSandbox
) -> None:
    """/api/info?id=t3_..,t1_.. returns the things that exist, in the order asked."""
    post_id = sandbox.submit_post("ned_stark", "Orders", "march north", subreddit=SUBREDDIT)
    comment_id = sandbox.add_comment("cersei_lannister", post_id, "no")
    things = list(praw_reddit.info(fullnames=[f"t1_{comment_id}", "t3_zzzzzz", f"t3_{post_id}"]))
    assert [t.fullname for t in things] == [f"t1_{comment_id}", f"t3_{post_id}"]
    assert things[1].author.name == "ned_stark"
    assert things[1].selftext == "march north"
    assert things[0].author.name == "cersei_lannister"


def test_missing_post_is_not_found(praw_reddit: praw.Reddit) -> None:
    """Fetching a post that does not exist is a 404."""
    with pytest.raises(prawcore.NotFound):
        praw_reddit.submission("zzzzzz").title  # noqa: B018 -- the fetch is the test


def test_mention_reaches_the_bots_inbox(praw_reddit: praw.Reddit, sandbox: RedditSandbox) -> None:
    """A comment naming u/maester_bot is a username mention in inbox.mentions and unread."""
    comment_id = sandbox.seed_mention(
        "ned_stark", BOT_USERNAME, f"u/{BOT_USERNAME} !odds 3 2", subreddit=SUBREDDIT
    )
    [mention] = list(praw_reddit.inbox.mentions())
    assert isinstance(mention, Comment)
    assert mention.id == comment_id
    assert mention.subject == "username mention"
    assert mention.body == f"u/{BOT_USERNAME} !odds 3 2"
    assert mention.author.name == "ned_stark"
    assert mention.new is True
    assert mention.submission.id == sandbox.comments()[0].post_id
    [unread] = list(praw_reddit.inbox.unread())
    assert unread.id == comment_id
    reply = mention.reply(body="odds: 64%")
    assert isinstance(reply, Comment)
    assert reply.parent_id == f"t1_{comment_id}"
    praw_reddit.inbox.mark_read([mention])
    assert list(praw_reddit.inbox.unread()) == []
    assert [m.new for m in praw_reddit.inbox.mentions()] == [False]


def test_replies_notify_parent_author_not_as_mention(
    praw_reddit: praw.Reddit, sandbox: RedditSandbox
) -> None:
    """A reply to the bot's post is a post reply; the bot is not also 'mentioned'."""
    post = praw_reddit.subreddit(SUBREDDIT).submit("[Siege] Storm's End", selftext="day 3")
    sandbox.add_comment("ned_stark", post.id, f"u/{BOT_USERNAME} how long?")
    [item] = list(praw_reddit.inbox.unread())
    assert item.subject == "post reply"
    assert list(praw_reddit.inbox.mentions()) == []


def test_unread_mark_param_marks_read(praw_reddit: praw.Reddit, sandbox: RedditSandbox) -> None:
    """inbox.unread(mark_read=True) marks what it returned as read."""
    sandbox.seed_mention("ned_stark", BOT_USERNAME, subreddit=SUBREDDIT)
    assert len(list(praw_reddit.inbox.unread(mark_read=True))) == 1
    assert list(praw_reddit.inbox.unread()) == []


def test_private_message_between_users(reddit_for: RedditFactory, sandbox: RedditSandbox) -> None:
    """A user-to-user message lands in the recipient's inbox as a t4 they can answer."""
    reddit_for("ned_stark").redditor("cersei_lannister").message(
        subject="Truce?", message="meet at the Kingsroad"
    )
    cersei = reddit_for("cersei_lannister")
    [message] = list(cersei.inbox.messages())
    assert isinstance(message, Message)
    assert (message.subject, message.body, message.author.name) == (
        "Truce?",
        "meet at the Kingsroad",
        "ned_stark",
    )
    message.reply(body="never")
    assert [m.body for m in sandbox.private_messages("ned_stark")] == ["never"]


def test_subreddit_about_and_moderators(praw_reddit: praw.Reddit) -> None:
    """/r/SUB/about and /about/moderators answer with what PRAW reads."""
    subreddit = praw_reddit.subreddit(SUBREDDIT)
    assert subreddit.user_is_moderator is True
    assert subreddit.display_name == SUBREDDIT
    assert [m.name for m in subreddit.moderator()] == [
        "AutoModerator",
        BOT_USERNAME,
        "grand_maester",
    ]
