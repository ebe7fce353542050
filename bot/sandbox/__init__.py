"""A local Reddit-compatible HTTP server that real PRAW talks to, for tests and the demo.

Start one with ``with RedditSandbox() as sandbox: ...`` (in-process, background thread) or
``python -m bot.sandbox --port N`` (separate process, seeded through :class:`RemoteSandbox`).
See ``docs/sandbox.md``.
"""

from bot.sandbox.control import RemoteSandbox
from bot.sandbox.defaults import (
    BOT_PASSWORD,
    BOT_USERNAME,
    MODERATOR,
    PLAYERS,
    SUBREDDIT,
    DefaultWorld,
    password_for,
    populate_default_world,
)
from bot.sandbox.faults import Fault, FaultKind
from bot.sandbox.server import DEFAULT_CLIENT_ID, DEFAULT_CLIENT_SECRET, RedditSandbox
from bot.sandbox.views import (
    Activity,
    CommentView,
    ConversationView,
    ForwardSeed,
    ModmailMessageView,
    PostView,
    PrivateMessageView,
    RequestRecord,
)
from bot.sandbox.world import (
    AUTOMOD_SUBJECT,
    AUTOMODERATOR,
    DEFAULT_FORWARD_TEMPLATE,
    SandboxError,
    render_forward,
)

__all__ = [
    "AUTOMODERATOR",
    "AUTOMOD_SUBJECT",
    "BOT_PASSWORD",
    "BOT_USERNAME",
    "DEFAULT_CLIENT_ID",
    "DEFAULT_CLIENT_SECRET",
    "DEFAULT_FORWARD_TEMPLATE",
    "MODERATOR",
    "PLAYERS",
    "SUBREDDIT",
    "Activity",
    "CommentView",
    "ConversationView",
    "DefaultWorld",
    "Fault",
    "FaultKind",
    "ForwardSeed",
    "ModmailMessageView",
    "PostView",
    "PrivateMessageView",
    "RedditSandbox",
    "RemoteSandbox",
    "RequestRecord",
    "SandboxError",
    "password_for",
    "populate_default_world",
    "render_forward",
]
