"""Seeding and reading a sandbox that runs in another process, over ``/_sandbox/``.

The server side (:func:`handle_control`) calls a whitelisted hook of the
:class:`~bot.sandbox.server.RedditSandbox` with JSON keyword arguments. The client side,
:class:`RemoteSandbox`, offers the same hooks with the same signatures, so a test that runs
the bot (or the sandbox) as a separate process reads like an in-process one.

Wire format: ``POST /_sandbox/call/NAME`` with a JSON object of keyword arguments; the
answer is ``{"result": ...}`` (200) or ``{"error": "..."}`` (400). ``GET /_sandbox/health``
answers ``{"ok": true}``.
"""

from __future__ import annotations

import dataclasses
import json
import urllib.error
import urllib.request
from collections.abc import Iterable, Sequence
from typing import Any, Protocol

from bot.sandbox.faults import Fault
from bot.sandbox.views import (
    Activity,
    CommentView,
    ConversationView,
    ForwardSeed,
    ModmailMessageView,
    PostView,
    PrivateMessageView,
    RequestRecord,
    view_from_json,
)
from bot.sandbox.world import AUTOMOD_SUBJECT, DEFAULT_FORWARD_TEMPLATE, SandboxError


class Controlled(Protocol):
    """What :func:`handle_control` needs of the sandbox it serves (a
    :class:`~bot.sandbox.server.RedditSandbox`): its base address; the hooks of
    :data:`CONTROL_METHODS` are looked up by name."""

    @property
    def url(self) -> str: ...


#: Hooks callable through the control endpoint.
CONTROL_METHODS = frozenset(
    {
        "add_app",
        "add_user",
        "add_subreddit",
        "add_moderator",
        "set_harassment_filter",
        "set_drop_empty_links",
        "send_automod_message",
        "add_link_flair",
        "ban_user",
        "add_automod_forward_rule",
        "remove_subreddit",
        "issue_refresh_token",
        "revoke_refresh_token",
        "revoke_tokens",
        "submit_post",
        "add_comment",
        "seed_mention",
        "send_modmail",
        "reply_modmail",
        "archive_conversation",
        "automod_forward",
        "seed_automod_forward",
        "seed_fake_automod_forward",
        "posts",
        "post",
        "comments",
        "conversations",
        "conversation_messages",
        "private_messages",
        "activity",
        "add_fault",
        "set_random_faults",
        "clear_faults",
        "request_count",
        "request_counts",
        "requests",
        "reset_requests",
        "internal_errors",
        "set_rate_budget",
        "held_answers",
        "release_held",
    }
)


def _encode(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    if isinstance(value, list | tuple):
        return [_encode(v) for v in value]
    return value


def handle_control(sandbox: Controlled, path: str, body: Any) -> tuple[int, Any]:
    """Answer one control request: (HTTP status, JSON body)."""
    if path == "/_sandbox/health":
        return 200, {"ok": True, "url": sandbox.url}
    prefix = "/_sandbox/call/"
    name = path[len(prefix) :] if path.startswith(prefix) else ""
    if name not in CONTROL_METHODS:
        return 404, {"error": f"no control method {name!r}"}
    if body is not None and not isinstance(body, dict):
        return 400, {"error": "send the keyword arguments as a JSON object"}
    kwargs = dict(body or {})
    try:
        if "fault" in kwargs:
            kwargs["fault"] = Fault.from_json(kwargs["fault"])
        if "faults" in kwargs:
            kwargs["faults"] = [Fault.from_json(f) for f in kwargs["faults"]]
        result = getattr(sandbox, name)(**kwargs)
    except (SandboxError, TypeError, ValueError, KeyError) as error:
        return 400, {"error": f"{type(error).__name__}: {error}"}
    return 200, {"result": _encode(result)}


class RemoteSandbox:
    """The sandbox hooks over HTTP, for a sandbox started with ``python -m bot.sandbox``.

    Every method raises :class:`SandboxError` when the sandbox refuses the call.
    """

    def __init__(self, url: str, *, timeout: float = 10.0) -> None:
        self.url = url.rstrip("/")
        self.timeout = timeout

    def _call(self, method: str, /, **kwargs: Any) -> Any:
        data = json.dumps(kwargs).encode("utf-8")
        request = urllib.request.Request(
            f"{self.url}/_sandbox/call/{method}",
            data=data,
            headers={"Content-Type": "application/json"},
            method="POST",
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as answer:
                return json.loads(answer.read())["result"]
        except urllib.error.HTTPError as error:
            try:
                message = json.loads(error.read())["error"]
            except (ValueError, KeyError):
                message = str(error)
            raise SandboxError(message) from None

    def health(self) -> bool:
        """Whether the sandbox answers its health check."""
        try:
            with urllib.request.urlopen(f"{self.url}/_sandbox/health", timeout=self.timeout) as a:
                return bool(json.loads(a.read()).get("ok"))
        except OSError:
            return False

    # -- world setup
    def add_app(self, client_id: str, client_secret: str) -> None:
        """See :meth:`SandboxWorld.add_app`."""
        self._call("add_app", client_id=client_id, client_secret=client_secret)

    def add_user(
        self, name: str, password: str | None = None, *, moderator_of: Iterable[str] = ()
    ) -> str:
        """See :meth:`SandboxWorld.add_user`."""
        return str(
            self._call("add_user", name=name, password=password, moderator_of=list(moderator_of))
        )

    def add_subreddit(self, name: str, *, title: str = "") -> str:
        """See :meth:`SandboxWorld.add_subreddit`."""
        return str(self._call("add_subreddit", name=name, title=title))

    def add_moderator(
        self, subreddit: str, name: str, *, permissions: Iterable[str] | None = None
    ) -> None:
        """See :meth:`SandboxWorld.add_moderator`."""
        self._call(
            "add_moderator",
            subreddit=subreddit,
            name=name,
            permissions=None if permissions is None else list(permissions),
        )

    def send_automod_message(
        self, subreddit: str, body: str, *, subject: str = AUTOMOD_SUBJECT
    ) -> tuple[str, str]:
        """See :meth:`SandboxWorld.send_automod_message`."""
        conversation_id, message_id = self._call(
            "send_automod_message", subreddit=subreddit, body=body, subject=subject
        )
        return str(conversation_id), str(message_id)

    def set_harassment_filter(
        self, subreddit: str, *, enabled: bool = True, words: Iterable[str] | None = None
    ) -> None:
        """See :meth:`SandboxWorld.set_harassment_filter`."""
        self._call(
            "set_harassment_filter",
            subreddit=subreddit,
            enabled=enabled,
            words=None if words is None else list(words),
        )

    def set_drop_empty_links(self, enabled: bool = True) -> None:
        """See :meth:`SandboxWorld.set_drop_empty_links`."""
        self._call("set_drop_empty_links", enabled=enabled)

    def add_link_flair(
        self, subreddit: str, text: str, *, mod_only: bool = False, text_editable: bool = False
    ) -> str:
        """See :meth:`SandboxWorld.add_link_flair`."""
        return str(
            self._call(
                "add_link_flair",
                subreddit=subreddit,
                text=text,
                mod_only=mod_only,
                text_editable=text_editable,
            )
        )

    def add_automod_forward_rule(
        self,
        subreddit: str,
        *,
        title_contains: str | None = None,
        flair_text: str | None = None,
        template: str = DEFAULT_FORWARD_TEMPLATE,
        subject: str = AUTOMOD_SUBJECT,
        remove: bool = False,
        moderators_exempt: bool = True,
    ) -> None:
        """See :meth:`SandboxWorld.add_automod_forward_rule`."""
        self._call(
            "add_automod_forward_rule",
            subreddit=subreddit,
            title_contains=title_contains,
            flair_text=flair_text,
            template=template,
            subject=subject,
            remove=remove,
            moderators_exempt=moderators_exempt,
        )

    def ban_user(self, subreddit: str, name: str) -> None:
        """See :meth:`SandboxWorld.ban_user`."""
        self._call("ban_user", subreddit=subreddit, name=name)

    def remove_subreddit(self, subreddit: str) -> None:
        """See :meth:`SandboxWorld.remove_subreddit`."""
        self._call("remove_subreddit", subreddit=subreddit)

    def issue_refresh_token(
        self, username: str, client_id: str, *, scopes: Iterable[str] | None = None
    ) -> str:
        """See :meth:`SandboxWorld.issue_refresh_token`."""
        return str(
            self._call(
                "issue_refresh_token",
                username=username,
                client_id=client_id,
                scopes=None if scopes is None else list(scopes),
            )
        )

    def revoke_refresh_token(self, token: str) -> None:
        """See :meth:`SandboxWorld.revoke_refresh_token`."""
        self._call("revoke_refresh_token", token=token)

    def revoke_tokens(self, username: str | None = None) -> int:
        """See :meth:`SandboxWorld.revoke_tokens`."""
        return int(self._call("revoke_tokens", username=username))

    # -- seeding content
    def submit_post(
        self,
        author: str,
        title: str,
        body: str,
        *,
        subreddit: str,
        flair_text: str | None = None,
    ) -> str:
        """See :meth:`SandboxWorld.submit_post`."""
        return str(
            self._call(
                "submit_post",
                author=author,
                title=title,
                body=body,
                subreddit=subreddit,
                flair_text=flair_text,
            )
        )

    def add_comment(self, author: str, parent: str, body: str) -> str:
        """See :meth:`SandboxWorld.add_comment`."""
        return str(self._call("add_comment", author=author, parent=parent, body=body))

    def seed_mention(
        self,
        author: str,
        mentioned: str,
        body: str | None = None,
        *,
        subreddit: str,
        post_id: str | None = None,
    ) -> str:
        """See :meth:`SandboxWorld.seed_mention`."""
        return str(
            self._call(
                "seed_mention",
                author=author,
                mentioned=mentioned,
                body=body,
                subreddit=subreddit,
                post_id=post_id,
            )
        )

    def send_modmail(
        self, player: str, subject: str, body: str, *, subreddit: str
    ) -> tuple[str, str]:
        """See :meth:`SandboxWorld.send_modmail`."""
        conversation_id, message_id = self._call(
            "send_modmail", player=player, subject=subject, body=body, subreddit=subreddit
        )
        return str(conversation_id), str(message_id)

    def reply_modmail(self, conversation_id: str, player: str, body: str) -> str:
        """See :meth:`SandboxWorld.reply_modmail`."""
        return str(
            self._call("reply_modmail", conversation_id=conversation_id, player=player, body=body)
        )

    def archive_conversation(self, conversation_id: str, *, by: str) -> None:
        """See :meth:`SandboxWorld.archive_conversation`."""
        self._call("archive_conversation", conversation_id=conversation_id, by=by)

    def automod_forward(
        self,
        thing: str,
        *,
        template: str = DEFAULT_FORWARD_TEMPLATE,
        subject: str = AUTOMOD_SUBJECT,
    ) -> ForwardSeed:
        """See :meth:`SandboxWorld.automod_forward`."""
        data = self._call("automod_forward", thing=thing, template=template, subject=subject)
        return view_from_json(ForwardSeed, data)

    def seed_automod_forward(
        self,
        author: str,
        title: str,
        body: str,
        *,
        subreddit: str,
        flair_text: str | None = None,
        template: str = DEFAULT_FORWARD_TEMPLATE,
        subject: str = AUTOMOD_SUBJECT,
    ) -> ForwardSeed:
        """See :meth:`SandboxWorld.seed_automod_forward`."""
        data = self._call(
            "seed_automod_forward",
            author=author,
            title=title,
            body=body,
            subreddit=subreddit,
            flair_text=flair_text,
            template=template,
            subject=subject,
        )
        return view_from_json(ForwardSeed, data)

    def seed_fake_automod_forward(
        self,
        player: str,
        title: str,
        body: str,
        *,
        subreddit: str,
        post_author: str | None = None,
        permalink: str | None = None,
        template: str = DEFAULT_FORWARD_TEMPLATE,
        subject: str = AUTOMOD_SUBJECT,
    ) -> ForwardSeed:
        """See :meth:`SandboxWorld.seed_fake_automod_forward`."""
        data = self._call(
            "seed_fake_automod_forward",
            player=player,
            title=title,
            body=body,
            subreddit=subreddit,
            post_author=post_author,
            permalink=permalink,
            template=template,
            subject=subject,
        )
        return view_from_json(ForwardSeed, data)

    # -- reading back
    def posts(self, *, subreddit: str | None = None, author: str | None = None) -> list[PostView]:
        """See :meth:`SandboxWorld.posts`."""
        return [
            view_from_json(PostView, d)
            for d in self._call("posts", subreddit=subreddit, author=author)
        ]

    def post(self, post_id: str) -> PostView:
        """See :meth:`SandboxWorld.post`."""
        return view_from_json(PostView, self._call("post", post_id=post_id))

    def comments(
        self, *, post_id: str | None = None, author: str | None = None
    ) -> list[CommentView]:
        """See :meth:`SandboxWorld.comments`."""
        return [
            view_from_json(CommentView, d)
            for d in self._call("comments", post_id=post_id, author=author)
        ]

    def conversations(self, *, subreddit: str | None = None) -> list[ConversationView]:
        """See :meth:`SandboxWorld.conversations`."""
        return [
            view_from_json(ConversationView, d)
            for d in self._call("conversations", subreddit=subreddit)
        ]

    def conversation_messages(self, conversation_id: str) -> list[ModmailMessageView]:
        """See :meth:`SandboxWorld.conversation_messages`."""
        return [
            view_from_json(ModmailMessageView, d)
            for d in self._call("conversation_messages", conversation_id=conversation_id)
        ]

    def private_messages(self, user: str) -> list[PrivateMessageView]:
        """See :meth:`SandboxWorld.private_messages`."""
        return [
            view_from_json(PrivateMessageView, d) for d in self._call("private_messages", user=user)
        ]

    def activity(self, *, after: int = 0) -> list[Activity]:
        """See :meth:`SandboxWorld.activity`."""
        return [view_from_json(Activity, d) for d in self._call("activity", after=after)]

    # -- faults and counting
    def add_fault(
        self, fault: Fault, *, method: str = "*", path: str = "*", times: int | None = 1
    ) -> None:
        """See :meth:`RedditSandbox.add_fault`."""
        self._call("add_fault", fault=fault.to_json(), method=method, path=path, times=times)

    def set_random_faults(
        self,
        probability: float,
        faults: Sequence[Fault],
        *,
        seed: int,
        methods: Iterable[str] = ("GET", "POST"),
        path: str = "*",
    ) -> None:
        """See :meth:`RedditSandbox.set_random_faults`."""
        self._call(
            "set_random_faults",
            probability=probability,
            faults=[f.to_json() for f in faults],
            seed=seed,
            methods=list(methods),
            path=path,
        )

    def clear_faults(self) -> None:
        """See :meth:`RedditSandbox.clear_faults`."""
        self._call("clear_faults")

    def request_count(
        self,
        *,
        route: str | None = None,
        path: str | None = None,
        method: str | None = None,
        include_token: bool = False,
    ) -> int:
        """See :meth:`RedditSandbox.request_count`."""
        return int(
            self._call(
                "request_count",
                route=route,
                path=path,
                method=method,
                include_token=include_token,
            )
        )

    def request_counts(self, *, include_token: bool = False) -> dict[str, int]:
        """See :meth:`RedditSandbox.request_counts`."""
        counts = self._call("request_counts", include_token=include_token)
        return {str(k): int(v) for k, v in counts.items()}

    def requests(self) -> list[RequestRecord]:
        """See :meth:`RedditSandbox.requests`."""
        return [view_from_json(RequestRecord, d) for d in self._call("requests")]

    def reset_requests(self) -> None:
        """See :meth:`RedditSandbox.reset_requests`."""
        self._call("reset_requests")

    def internal_errors(self) -> list[str]:
        """See :meth:`RedditSandbox.internal_errors`."""
        return [str(e) for e in self._call("internal_errors")]

    def set_rate_budget(self, budget: int | None, *, window_seconds: float = 600.0) -> None:
        """See :meth:`RedditSandbox.set_rate_budget`."""
        self._call("set_rate_budget", budget=budget, window_seconds=window_seconds)

    def held_answers(self) -> int:
        """See :meth:`RedditSandbox.held_answers`."""
        return int(self._call("held_answers"))

    def release_held(self) -> int:
        """See :meth:`RedditSandbox.release_held`."""
        return int(self._call("release_held"))
