"""The sandbox's in-memory Reddit: users, subreddits, posts, comments, inbox and modmail.

Everything here is independent of HTTP. ``SandboxWorld`` has two faces:

* test hooks (``add_user``, ``send_modmail``, ``seed_automod_forward``, ``posts`` ...) used
  in-process by tests and by ``maester demo``, and through the control endpoint;
* ``api_*`` methods that answer one Reddit API call for a logged-in user with the JSON
  shape PRAW 8.0.3 reads, or raise :class:`ApiFailure` carrying Reddit's error answer.

All state sits behind one re-entrant lock, so the threaded HTTP server may call in freely.
"""

from __future__ import annotations

import html
import json
import re
import secrets
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from bot.sandbox.views import (
    Activity,
    CommentView,
    ConversationView,
    ForwardSeed,
    ModmailMessageView,
    PostView,
    PrivateMessageView,
)

Json = dict[str, Any]

AUTOMODERATOR = "AutoModerator"
AUTOMOD_SUBJECT = "AutoModerator notification"
#: The body of an AutoModerator ``modmail:`` action as the sandbox renders it by default.
DEFAULT_FORWARD_TEMPLATE = "{{permalink}}\n\nAuthor: u/{{author}}\n\nTitle: {{title}}\n\n{{body}}"
ACCESS_TOKEN_SECONDS = 86400
#: Words the sandbox's modmail harassment filter catches (Reddit's list is not public; these
#: are the ones a war game's orders are full of).
DEFAULT_FILTER_WORDS = ("attack", "assault", "kill", "murder", "slaughter")
#: A moderator's permissions when none are given (Reddit's "Everything").
ALL_PERMISSIONS = ("all",)
_EMPTY_LINK = re.compile(r"\[\]\([^)\s]*\)")
_MENTION = re.compile(r"(?<![A-Za-z0-9_/])/?u/([A-Za-z0-9_-]{3,20})", re.IGNORECASE)


class SandboxError(ValueError):
    """A test hook was called with something the sandbox does not have (or cannot do)."""


DELETED = "[deleted]"
"""The author and text of a deleted post or comment."""
REMOVED = "[removed]"
"""The text of a post a moderator (or AutoModerator) removed, as others see it."""


class ApiFailure(Exception):
    """Reddit's answer to a request it refused: an HTTP status and a JSON (or empty) body."""

    def __init__(self, status: int, body: Any, headers: Mapping[str, str] | None = None) -> None:
        super().__init__(f"{status}: {body!r}")
        self.status = status
        self.body = body
        self.headers = dict(headers or {})


def api_errors(code: str, message: str, field_name: str | None) -> ApiFailure:
    """A 200 answer carrying one API error triple, as ``/api/submit`` sends them."""
    return ApiFailure(200, {"json": {"errors": [[code, message, field_name]]}})


def bad_request(reason: str, explanation: str | None, field_name: str | None) -> ApiFailure:
    """A 400 in the newer API's error format (modmail endpoints)."""
    body = {
        "fields": [field_name],
        "explanation": explanation,
        "message": "Bad Request",
        "reason": reason,
    }
    return ApiFailure(400, body)


def forbidden(reason: str | None = None) -> ApiFailure:
    """A 403 without ``www-authenticate`` (prawcore raises Forbidden)."""
    if reason is None:
        return ApiFailure(403, {"message": "Forbidden", "error": 403})
    body = {"fields": [None], "explanation": None, "message": "Forbidden", "reason": reason}
    return ApiFailure(403, body)


def not_found(reason: str | None = None, field_name: str | None = None) -> ApiFailure:
    """A 404 (prawcore raises NotFound)."""
    if reason is None:
        return ApiFailure(404, {"message": "Not Found", "error": 404})
    body = {
        "fields": [field_name],
        "explanation": "No conversation found.",
        "message": "Not Found",
        "reason": reason,
    }
    return ApiFailure(404, body)


def to_base36(number: int) -> str:
    """Reddit's base36 id for a non-negative integer."""
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    if number == 0:
        return "0"
    out = []
    while number:
        number, rest = divmod(number, 36)
        out.append(digits[rest])
    return "".join(reversed(out))


def iso(moment: datetime) -> str:
    """The ISO 8601 form modmail uses: microseconds and ``+00:00``."""
    return moment.astimezone(UTC).isoformat(timespec="microseconds")


def markdown_to_html(text: str) -> str:
    """A small stand-in for Reddit's markdown renderer: escaped paragraphs in a md div."""
    paragraphs = [p for p in re.split(r"\n\s*\n", text.strip()) if p.strip()]
    inner = "".join("<p>" + html.escape(p).replace("\n", "<br/>\n") + "</p>\n" for p in paragraphs)
    return f'<!-- SC_OFF --><div class="md">{inner}</div><!-- SC_ON -->'


def slugify(title: str) -> str:
    """The title part of a permalink (lowercase words joined by underscores)."""
    words = re.findall(r"[a-z0-9]+", title.lower())
    slug = "_".join(words)[:50].rstrip("_")
    return slug or "post"


def form_bool(value: str | None) -> bool:
    """A boolean sent in a form (requests sends Python's ``True``/``False``)."""
    return (value or "").strip().lower() in ("1", "true", "yes", "on")


def render_forward(template: str, *, permalink: str, author: str, title: str, body: str) -> str:
    """Fill an AutoModerator template the way AutoModerator does: pasted unescaped.

    Reddit (``automoderator.py`` ``build_message``) puts the permalink on a line of its own
    before the text only when the template has no ``{{permalink}}`` at all; a template that
    uses it anywhere is sent as written.
    """
    text = (
        template.replace("{{permalink}}", permalink)
        .replace("{{author}}", author)
        .replace("{{title}}", title)
        .replace("{{body}}", body)
    )
    if "{{permalink}}" not in template:
        text = f"{permalink}\n\n{text}"
    return text


@dataclass(slots=True)
class _User:
    name: str
    password: str | None
    number: int
    created: datetime

    @property
    def id36(self) -> str:
        return to_base36(self.number)

    @property
    def fullname(self) -> str:
        return f"t2_{self.id36}"


@dataclass(slots=True)
class _Flair:
    id: str
    text: str
    mod_only: bool
    text_editable: bool


@dataclass(frozen=True, slots=True)
class _ForwardRule:
    title_contains: str | None
    flair_text: str | None
    template: str
    subject: str
    remove: bool = False
    moderators_exempt: bool = True

    def matches(self, title: str, flair_text: str | None) -> bool:
        if self.title_contains is not None and self.title_contains.lower() not in title.lower():
            return False
        return self.flair_text is None or (flair_text or "").lower() == self.flair_text.lower()


@dataclass(slots=True)
class _Subreddit:
    name: str
    number: int
    title: str
    created: datetime
    moderators: list[str] = field(default_factory=list)
    banned: set[str] = field(default_factory=set)
    flairs: dict[str, _Flair] = field(default_factory=dict)
    removed: bool = False
    forward_rules: list[_ForwardRule] = field(default_factory=list)
    permissions: dict[str, tuple[str, ...]] = field(default_factory=dict)
    filter_words: tuple[str, ...] = DEFAULT_FILTER_WORDS
    # The redesign's widgets: id -> the widget's JSON, and the sidebar's order of ids.
    widgets: dict[str, Json] = field(default_factory=dict)
    sidebar: list[str] = field(default_factory=list)

    @property
    def fullname(self) -> str:
        return f"t5_{to_base36(self.number)}"


@dataclass(slots=True)
class _Post:
    id: str
    subreddit: str
    author: str
    title: str
    body: str
    kind: str
    url: str | None
    flair_id: str | None
    flair_text: str | None
    created: datetime
    send_replies: bool
    comment_ids: list[str] = field(default_factory=list)
    #: Removed by AutoModerator (``action: remove``): its text reads ``[removed]`` to all
    #: but its author and the moderators with the ``posts`` permission.
    removed: bool = False


@dataclass(slots=True)
class _Comment:
    id: str
    post_id: str
    parent_id: str
    author: str
    body: str
    created: datetime
    reply_ids: list[str] = field(default_factory=list)


@dataclass(slots=True)
class _InboxEntry:
    owner: str
    kind: str
    fullname: str
    new: bool = True


@dataclass(slots=True)
class _PrivateMessage:
    id: str
    author: str | None
    sender_subreddit: str | None
    dest: str
    subject: str
    body: str
    created: datetime
    first_id: str | None
    parent_id: str | None
    conversation_id: str | None


@dataclass(slots=True)
class _ModmailMessage:
    id: str
    conversation_id: str
    author: str
    body: str
    date: datetime
    is_internal: bool
    is_hidden: bool
    legacy_id: str | None = None


@dataclass(slots=True)
class _ModAction:
    id: str
    conversation_id: str
    action_type: int
    author: str
    date: datetime


@dataclass(slots=True)
class _Conversation:
    id: str
    subreddit: str
    subject: str
    participant: str | None
    originator: str
    is_auto: bool
    is_internal: bool
    state: int
    created: datetime
    last_updated: datetime
    last_user_update: datetime | None = None
    last_mod_update: datetime | None = None
    last_unread: datetime | None = None
    is_highlighted: bool = False
    legacy_first_id: str | None = None
    items: list[tuple[str, str]] = field(default_factory=list)
    filtered: bool = False
    #: "appeal" (a banned user's ban appeal) or "join" (a join request); "" otherwise.
    #: Reddit files both in their own folders and also lists them with the rest in ``all``.
    kind: str = ""
    #: Unread is per moderator, as on Reddit: each viewer's read mark is how many items the
    #: conversation held when they read it; a later message by someone else is unread.
    read_upto: dict[str, int] = field(default_factory=dict)
    marked_unread: set[str] = field(default_factory=set)
    #: Left out of listings for now (Reddit's listings lag behind its writes at times).
    unlisted: bool = False


@dataclass(slots=True)
class _Token:
    username: str
    client_id: str
    expires_at: float
    revoked: bool = False
    scopes: tuple[str, ...] = ("*",)


class SandboxWorld:
    """The sandbox's Reddit, in memory. See the module docstring."""

    def __init__(
        self,
        *,
        clock: Callable[[], datetime] | None = None,
        public_url: str = "https://www.reddit.com",
    ) -> None:
        self._lock = threading.RLock()
        self._clock = clock or (lambda: datetime.now(UTC))
        self._last_moment: datetime | None = None
        self.public_url = public_url.rstrip("/")
        self._users: dict[str, _User] = {}
        self._subreddits: dict[str, _Subreddit] = {}
        self._apps: dict[str, str] = {}
        self._tokens: dict[str, _Token] = {}
        self._refresh_tokens: dict[str, tuple[str, str, tuple[str, ...]]] = {}
        self._posts: dict[str, _Post] = {}
        self._comments: dict[str, _Comment] = {}
        self._inbox: list[_InboxEntry] = []
        self._private: dict[str, _PrivateMessage] = {}
        self._conversations: dict[str, _Conversation] = {}
        self._modmail_messages: dict[str, _ModmailMessage] = {}
        self._mod_actions: dict[str, _ModAction] = {}
        self._activity: list[Activity] = []
        #: Whether stored post bodies lose their links without text (see
        #: :meth:`set_drop_empty_links`).
        self.drop_empty_links = False
        # Distinct ranges per kind so ids look like Reddit's and never collide in one space.
        self._next = {
            "user": 36**5 * 5,
            "subreddit": 36**5 * 6,
            "post": 36**5,
            "comment": 36**6,
            "private": 36**5 * 2,
            "conversation": 36**4,
            "modmail_message": 36**5 * 3,
            "mod_action": 36**5 * 4,
            "flair": 1,
            "widget": 36**4 * 7,
        }
        self._add_user_locked(AUTOMODERATOR, None)

    # ------------------------------------------------------------------ helpers

    def _now(self) -> datetime:
        """The clock, nudged forward so two events never share a timestamp."""
        moment = self._clock()
        if moment.tzinfo is None:
            raise SandboxError("the sandbox clock must return timezone-aware datetimes")
        if self._last_moment is not None and moment <= self._last_moment:
            moment = self._last_moment + timedelta(microseconds=1)
        self._last_moment = moment
        return moment

    def _new_id(self, kind: str) -> str:
        number = self._next[kind]
        self._next[kind] = number + 1
        return to_base36(number)

    def _user(self, name: str) -> _User:
        user = self._users.get(name.lower())
        if user is None:
            raise SandboxError(f"no user {name!r} in the sandbox")
        return user

    def _subreddit(self, name: str) -> _Subreddit:
        sub = self._subreddits.get(name.lower().removeprefix("r/").removeprefix("/r/"))
        if sub is None:
            raise SandboxError(f"no subreddit {name!r} in the sandbox")
        return sub

    def _is_mod(self, sub: _Subreddit, name: str) -> bool:
        return name.lower() in (m.lower() for m in sub.moderators)

    def _has_permission(self, sub: _Subreddit, name: str, permission: str) -> bool:
        if not self._is_mod(sub, name):
            return False
        granted = sub.permissions.get(name.lower(), ALL_PERMISSIONS)
        return "all" in granted or permission in granted

    def _record(
        self,
        kind: str,
        thing_id: str,
        author: str,
        subreddit: str,
        title: str,
        body: str,
        parent: str | None,
        moment: datetime,
        *,
        is_internal: bool = False,
    ) -> None:
        seq = len(self._activity) + 1
        self._activity.append(
            Activity(
                seq,
                kind,
                thing_id,
                author,
                subreddit,
                title,
                body,
                parent,
                is_internal,
                iso(moment),
            )
        )

    def _post_permalink(self, post: _Post) -> str:
        return f"/r/{post.subreddit}/comments/{post.id}/{slugify(post.title)}/"

    def _comment_permalink(self, comment: _Comment) -> str:
        post = self._posts[comment.post_id]
        return f"{self._post_permalink(post)}{comment.id}/"

    # ------------------------------------------------------------------ world setup hooks

    def _add_user_locked(self, name: str, password: str | None) -> _User:
        if name.lower() in self._users:
            raise SandboxError(f"user {name!r} already exists")
        number = self._next["user"]
        self._next["user"] += 1
        user = _User(name, password, number, self._now())
        self._users[name.lower()] = user
        return user

    def add_app(self, client_id: str, client_secret: str) -> None:
        """Register a script app whose Basic credentials may ask for tokens."""
        with self._lock:
            self._apps[client_id] = client_secret

    def add_user(
        self, name: str, password: str | None = None, *, moderator_of: Iterable[str] = ()
    ) -> str:
        """Create an account (``password=None``: cannot log in) and return its ``t2_`` name.

        Raises SandboxError if the name is taken or a listed subreddit does not exist.
        """
        with self._lock:
            user = self._add_user_locked(name, password)
            for sub in moderator_of:
                self.add_moderator(sub, name)
            return user.fullname

    def add_subreddit(self, name: str, *, title: str = "") -> str:
        """Create a subreddit (AutoModerator moderates it) and return its ``t5_`` name."""
        with self._lock:
            if name.lower() in self._subreddits:
                raise SandboxError(f"subreddit {name!r} already exists")
            number = self._next["subreddit"]
            self._next["subreddit"] += 1
            sub = _Subreddit(name, number, title or name, self._now())
            sub.moderators.append(AUTOMODERATOR)
            self._subreddits[name.lower()] = sub
            return sub.fullname

    def add_moderator(
        self, subreddit: str, name: str, *, permissions: Iterable[str] | None = None
    ) -> None:
        """Make an existing user a moderator of a subreddit, with ``permissions`` (Reddit's
        names: ``mail``, ``posts``, ``flair``, ``access``, ``config``, ``wiki``, ``chat_config``,
        ``chat_operator``; default ``all``). A moderator without ``mail`` gets 403 from
        every modmail endpoint."""
        with self._lock:
            sub = self._subreddit(subreddit)
            user = self._user(name)
            if not self._is_mod(sub, user.name):
                sub.moderators.append(user.name)
            if permissions is not None:
                sub.permissions[user.name.lower()] = tuple(permissions)

    def set_harassment_filter(
        self, subreddit: str, *, enabled: bool = True, words: Iterable[str] | None = None
    ) -> None:
        """Turn the subreddit's modmail harassment filter on or off (on by default, with
        :data:`DEFAULT_FILTER_WORDS`). A user's new conversation whose text holds one of the
        words goes to the ``filtered`` folder only; moderators and AutoModerator are never
        filtered."""
        with self._lock:
            sub = self._subreddit(subreddit)
            sub.filter_words = (
                tuple(w.lower() for w in (words if words is not None else DEFAULT_FILTER_WORDS))
                if enabled
                else ()
            )

    def set_drop_empty_links(self, enabled: bool = True) -> None:
        """Make Reddit's handling of post bodies drop links without text (``[](#x)``), in
        the rich text conversion of posts with pictures and in stored text posts. Whether
        Reddit keeps such a link is recorded nowhere; a bot must not depend on it."""
        with self._lock:
            self.drop_empty_links = enabled

    def without_empty_links(self, text: str) -> str:
        """``text`` as stored under :meth:`set_drop_empty_links` (unchanged when off)."""
        return _EMPTY_LINK.sub("", text) if self.drop_empty_links else text

    def add_link_flair(
        self, subreddit: str, text: str, *, mod_only: bool = False, text_editable: bool = False
    ) -> str:
        """Add a link flair template and return its id (to pass as ``flair_id``)."""
        with self._lock:
            sub = self._subreddit(subreddit)
            number = self._next["flair"]
            self._next["flair"] += 1
            flair_id = f"{number:08x}-0000-4000-8000-{number:012x}"
            sub.flairs[flair_id] = _Flair(flair_id, text, mod_only, text_editable)
            return flair_id

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
        """Act like an AutoModerator ``modmail:`` rule for posts made through the API.

        A post submitted with ``/api/submit`` whose title contains ``title_contains`` and
        whose flair text is ``flair_text`` (each check only when given; case-insensitive)
        is forwarded to modmail as :meth:`automod_forward` does. The first matching rule
        wins (so one removal per post, as AutoModerator fires only one ``action: remove``).
        ``remove``: the rule also removes the post (``action: remove``).
        ``moderators_exempt``: as AutoModerator's default, the rule skips posts by the
        subreddit's moderators (``moderators_exempt: false`` makes it act on them too).
        Posts seeded with hooks are not forwarded by rules.
        """
        with self._lock:
            self._subreddit(subreddit).forward_rules.append(
                _ForwardRule(title_contains, flair_text, template, subject, remove,
                             moderators_exempt)
            )

    def ban_user(self, subreddit: str, name: str) -> None:
        """Ban a user: their posts, comments and messages to the subreddit are refused."""
        with self._lock:
            self._subreddit(subreddit).banned.add(self._user(name).name.lower())

    def remove_subreddit(self, subreddit: str) -> None:
        """Ban the whole subreddit, as Reddit's admins do: it answers 404 and takes no posts."""
        with self._lock:
            self._subreddit(subreddit).removed = True

    # ------------------------------------------------------------------ tokens

    def issue_refresh_token(
        self, username: str, client_id: str, *, scopes: Iterable[str] | None = None
    ) -> str:
        """A refresh token for ``username`` on app ``client_id`` (as the OAuth flow gives),
        limited to ``scopes`` (default: all, ``*``). A call outside them answers 403 with
        ``insufficient_scope`` (see :data:`ROUTE_SCOPES`)."""
        with self._lock:
            user = self._user(username)
            if client_id not in self._apps:
                raise SandboxError(f"no app {client_id!r} in the sandbox")
            token = "rt-" + secrets.token_urlsafe(18)
            self._refresh_tokens[token] = (
                user.name,
                client_id,
                tuple(scopes) if scopes is not None else ("*",),
            )
            return token

    def token_scopes(self, token: str | None) -> tuple[str, ...]:
        """The scopes of a live access token (empty for none)."""
        with self._lock:
            info = self._tokens.get(token or "")
            return () if info is None else info.scopes

    def revoke_refresh_token(self, token: str) -> None:
        """Make a refresh token worthless (its next use answers ``invalid_grant``)."""
        with self._lock:
            self._refresh_tokens.pop(token, None)

    def revoke_tokens(self, username: str | None = None) -> int:
        """Revoke every access token (of one user, or all); return how many were live."""
        with self._lock:
            count = 0
            for token in self._tokens.values():
                if token.revoked:
                    continue
                if username is None or token.username.lower() == username.lower():
                    token.revoked = True
                    count += 1
            return count

    def revoke_access_token(self, token: str) -> None:
        """Revoke one access token (used by the 401 fault)."""
        with self._lock:
            if token in self._tokens:
                self._tokens[token].revoked = True

    def token_user(self, token: str | None) -> str | None:
        """The user a live access token belongs to, or None."""
        if token is None:
            return None
        with self._lock:
            info = self._tokens.get(token)
            if info is None or info.revoked or info.expires_at <= time.monotonic():
                return None
            return info.username

    def api_access_token(self, client_id: str | None, secret: str | None, form: Json) -> Json:
        """Answer ``POST /api/v1/access_token`` for the password and refresh-token grants.

        Wrong app credentials answer 401; a wrong password or unknown refresh token answers
        200 with ``{"error": "invalid_grant"}`` as Reddit does.
        """
        with self._lock:
            if client_id is None or self._apps.get(client_id) != secret:
                raise ApiFailure(401, {"message": "Unauthorized", "error": 401})
            grant = form.get("grant_type")
            username: str
            extra: Json = {}
            scopes: tuple[str, ...] = ("*",)
            if grant == "password":
                user = self._users.get(str(form.get("username", "")).lower())
                if user is None or user.password is None or user.password != form.get("password"):
                    return {"error": "invalid_grant"}
                username = user.name
            elif grant == "refresh_token":
                refresh = str(form.get("refresh_token", ""))
                owner = self._refresh_tokens.get(refresh)
                if owner is None or owner[1] != client_id:
                    return {"error": "invalid_grant"}
                username, scopes = owner[0], owner[2]
                extra = {"refresh_token": refresh}
            else:
                return {"error": "unsupported_grant_type"}
            token = "at-" + secrets.token_urlsafe(18)
            self._tokens[token] = _Token(
                username, client_id, time.monotonic() + ACCESS_TOKEN_SECONDS, scopes=scopes
            )
            return {
                "access_token": token,
                "token_type": "bearer",
                "expires_in": ACCESS_TOKEN_SECONDS,
                "scope": " ".join(scopes),
                **extra,
            }

    def api_revoke_token(self, client_id: str | None, secret: str | None, form: Json) -> Json:
        """Answer ``POST /api/v1/revoke_token``."""
        with self._lock:
            if client_id is None or self._apps.get(client_id) != secret:
                raise ApiFailure(401, {"message": "Unauthorized", "error": 401})
            token = str(form.get("token", ""))
            if token in self._tokens:
                self._tokens[token].revoked = True
            self._refresh_tokens.pop(token, None)
            return {}

    # ------------------------------------------------------------------ posts and comments

    def _check_can_contribute(self, sub: _Subreddit, author: str) -> None:
        if author.lower() in sub.banned:
            raise api_errors("SUBREDDIT_NOTALLOWED", "you aren't allowed to post there.", "sr")

    def _create_post(
        self,
        author: str,
        subreddit: str,
        title: str,
        body: str,
        *,
        flair_id: str | None = None,
        flair_text: str | None = None,
        kind: str = "self",
        url: str | None = None,
        send_replies: bool = True,
    ) -> _Post:
        sub = self._subreddits.get(subreddit.lower())
        if sub is None or sub.removed:
            raise api_errors("SUBREDDIT_NOEXIST", "that subreddit doesn't exist", "sr")
        self._check_can_contribute(sub, author)
        if not title.strip():
            raise api_errors("NO_TEXT", "we need something here", "title")
        if len(title) > 300:
            raise api_errors("TOO_LONG", "this is too long (max: 300)", "title")
        if len(body) > 40000:
            raise api_errors("TOO_LONG", "this is too long (max: 40000)", "text")
        if kind == "link" and not url:
            raise api_errors("NO_URL", "a url is required", "url")
        text = None
        if flair_id is not None:
            flair = sub.flairs.get(flair_id)
            # Reddit answers a bare 400 for an unknown template (praw issue #1938).
            if flair is None or (
                flair.mod_only and not self._has_permission(sub, author, "flair")
            ):
                raise ApiFailure(400, "")
            text = flair_text if (flair.text_editable and flair_text) else flair.text
        elif flair_text is not None:
            raise ApiFailure(400, "")
        post = _Post(
            self._new_id("post"),
            sub.name,
            author,
            title,
            body,
            kind,
            url,
            flair_id,
            text,
            self._now(),
            send_replies,
        )
        self._posts[post.id] = post
        self._record("post", post.id, author, sub.name, title, body, None, post.created)
        return post

    def submit_post(
        self,
        author: str,
        title: str,
        body: str,
        *,
        subreddit: str,
        flair_text: str | None = None,
    ) -> str:
        """Seed a self post by ``author`` (no flair template needed) and return its id."""
        with self._lock:
            user = self._user(author)
            try:
                post = self._create_post(user.name, subreddit, title, body)
            except ApiFailure as failure:
                raise SandboxError(f"Reddit would refuse this post: {failure.body!r}") from None
            post.flair_text = flair_text
            return post.id

    def _notify(self, owner: str, kind: str, fullname: str) -> None:
        self._inbox.append(_InboxEntry(owner, kind, fullname))

    def _create_comment(self, author: str, parent_fullname: str, body: str) -> _Comment:
        prefix, _, parent_id = parent_fullname.partition("_")
        if prefix == "t3":
            post = self._posts.get(parent_id)
            if post is None:
                raise api_errors(
                    "DELETED_LINK", "the link you are commenting on has been deleted", "parent"
                )
            parent_author = post.author if post.send_replies else None
            reply_kind = "post_reply"
        elif prefix == "t1":
            parent = self._comments.get(parent_id)
            if parent is None:
                raise api_errors("DELETED_COMMENT", "that comment has been deleted", "parent")
            post = self._posts[parent.post_id]
            parent_author = parent.author
            reply_kind = "comment_reply"
        else:
            raise api_errors("INVALID_THING_ID", "that is not a valid thing id", "thing_id")
        sub = self._subreddits[post.subreddit.lower()]
        if sub.removed:
            raise api_errors("SUBREDDIT_NOEXIST", "that subreddit doesn't exist", "sr")
        self._check_can_contribute(sub, author)
        if not body.strip():
            raise api_errors("NO_TEXT", "we need something here", "text")
        if len(body) > 10000:
            raise api_errors("TOO_LONG", "this is too long (max: 10000)", "text")
        comment = _Comment(
            self._new_id("comment"), post.id, parent_fullname, author, body, self._now()
        )
        self._comments[comment.id] = comment
        if prefix == "t3":
            post.comment_ids.append(comment.id)
        else:
            self._comments[parent_id].reply_ids.append(comment.id)
        fullname = f"t1_{comment.id}"
        notified = {author.lower()}
        if parent_author is not None and parent_author.lower() not in notified:
            self._notify(parent_author, reply_kind, fullname)
            notified.add(parent_author.lower())
        for match in _MENTION.finditer(body):
            mentioned = self._users.get(match.group(1).lower())
            if mentioned is not None and mentioned.name.lower() not in notified:
                self._notify(mentioned.name, "username_mention", fullname)
                notified.add(mentioned.name.lower())
        self._record(
            "comment",
            comment.id,
            author,
            post.subreddit,
            post.title,
            body,
            parent_fullname,
            comment.created,
        )
        return comment

    def add_comment(self, author: str, parent: str, body: str) -> str:
        """Seed a comment on a post or comment (``t3_``/``t1_`` fullname, or a bare post id).

        Reply and ``u/name`` mention notifications reach the inboxes as Reddit's would.
        Returns the comment id; raises SandboxError if Reddit would refuse it.
        """
        with self._lock:
            user = self._user(author)
            fullname = parent if parent[:3] in ("t1_", "t3_") else f"t3_{parent}"
            try:
                return self._create_comment(user.name, fullname, body).id
            except ApiFailure as failure:
                raise SandboxError(f"Reddit would refuse this comment: {failure.body!r}") from None

    def seed_mention(
        self,
        author: str,
        mentioned: str,
        body: str | None = None,
        *,
        subreddit: str,
        post_id: str | None = None,
    ) -> str:
        """Seed a comment by ``author`` that mentions ``u/mentioned``; return the comment id.

        Without ``post_id`` a fresh post by ``author`` holds the comment.
        """
        with self._lock:
            text = body if body is not None else f"u/{mentioned} !odds 3 2"
            if f"u/{mentioned}".lower() not in text.lower():
                raise SandboxError(f"the body must mention u/{mentioned}")
            if post_id is None:
                post_id = self.submit_post(author, "Open roll", "Rolls below.", subreddit=subreddit)
            return self.add_comment(author, f"t3_{post_id}", text)

    # ------------------------------------------------------------------ modmail core

    def _start_conversation(
        self,
        sub: _Subreddit,
        *,
        author: str,
        subject: str,
        body: str,
        participant: str | None,
        is_auto: bool = False,
        is_internal: bool = False,
        hidden: bool = False,
    ) -> tuple[_Conversation, _ModmailMessage]:
        moment = self._now()
        author_is_mod = self._is_mod(sub, author)
        conversation = _Conversation(
            id=self._new_id("conversation"),
            subreddit=sub.name,
            subject=subject,
            participant=participant,
            originator=author,
            is_auto=is_auto,
            is_internal=is_internal,
            state=1 if (author_is_mod and not is_auto and not is_internal) else 0,
            created=moment,
            last_updated=moment,
            filtered=not author_is_mod and not is_auto and _caught(sub.filter_words, body),
        )
        self._conversations[conversation.id] = conversation
        message = self._add_modmail_message(
            conversation, author, body, internal=is_internal, hidden=hidden, moment=moment
        )
        return conversation, message

    def _add_modmail_message(
        self,
        conversation: _Conversation,
        author: str,
        body: str,
        *,
        internal: bool,
        hidden: bool,
        moment: datetime | None = None,
    ) -> _ModmailMessage:
        moment = moment or self._now()
        sub = self._subreddits[conversation.subreddit.lower()]
        message = _ModmailMessage(
            self._new_id("modmail_message"),
            conversation.id,
            author,
            body,
            moment,
            internal or conversation.is_internal,
            hidden,
        )
        self._modmail_messages[message.id] = message
        conversation.items.append(("messages", message.id))
        conversation.last_updated = moment
        from_participant = (
            conversation.participant is not None
            and author.lower() == conversation.participant.lower()
        )
        if from_participant:
            conversation.last_user_update = moment
            conversation.last_unread = moment
            if conversation.state == 2:
                conversation.state = 1
        else:
            conversation.last_mod_update = moment
            if conversation.is_auto:
                conversation.last_unread = moment
            elif conversation.state == 0 and not message.is_internal:
                conversation.state = 1
        # The player sees modmail as legacy private messages in their inbox (t4).
        if not message.is_internal and conversation.participant is not None:
            first = conversation.legacy_first_id
            private = _PrivateMessage(
                id=self._new_id("private"),
                author=None if hidden else author,
                sender_subreddit=None if from_participant else sub.name,
                dest=f"#{sub.name}" if from_participant else conversation.participant,
                subject=conversation.subject if first is None else f"re: {conversation.subject}",
                body=body,
                created=moment,
                first_id=first,
                parent_id=None if first is None else f"t4_{first}",
                conversation_id=conversation.id,
            )
            self._private[private.id] = private
            message.legacy_id = private.id
            if first is None:
                conversation.legacy_first_id = private.id
            if not from_participant:
                self._notify(conversation.participant, "message", f"t4_{private.id}")
        elif conversation.legacy_first_id is None:
            conversation.legacy_first_id = self._new_id("private")
        self._record(
            "modmail",
            message.id,
            author,
            sub.name,
            conversation.subject,
            body,
            conversation.id,
            moment,
            is_internal=message.is_internal,
        )
        return message

    def _mod_action(self, conversation: _Conversation, action_type: int, author: str) -> None:
        action = _ModAction(
            self._new_id("mod_action"), conversation.id, action_type, author, self._now()
        )
        self._mod_actions[action.id] = action
        conversation.items.append(("modActions", action.id))

    # ------------------------------------------------------------------ modmail hooks

    def send_modmail(
        self, player: str, subject: str, body: str, *, subreddit: str
    ) -> tuple[str, str]:
        """Seed a new modmail conversation from ``player`` to the subreddit's moderators.

        Returns (conversation id, message id). Raises SandboxError for an unknown user or
        subreddit, or a player banned there.
        """
        with self._lock:
            user = self._user(player)
            sub = self._subreddit(subreddit)
            if user.name.lower() in sub.banned:
                raise SandboxError(f"{player} is banned from r/{sub.name}")
            conversation, message = self._user_to_subreddit(sub, user.name, subject, body)
            return conversation.id, message.id

    def _user_to_subreddit(
        self, sub: _Subreddit, author: str, subject: str, body: str
    ) -> tuple[_Conversation, _ModmailMessage]:
        """A user writes to the subreddit's modmail. A moderator's message to their own
        subreddit is a Mod Discussion (internal, no participant), as on Reddit."""
        if self._is_mod(sub, author):
            return self._start_conversation(
                sub, author=author, subject=subject, body=body, participant=None,
                is_internal=True,
            )
        return self._start_conversation(
            sub, author=author, subject=subject, body=body, participant=author
        )

    def send_ban_appeal(self, user: str, body: str, *, subreddit: str) -> tuple[str, str]:
        """A banned user appeals their ban: a conversation in the ``appeals`` folder (listed
        in ``all`` too). Returns (conversation id, message id)."""
        return self._special_request(user, body, subreddit, "appeal", "Ban appeal")

    def send_join_request(self, user: str, body: str, *, subreddit: str) -> tuple[str, str]:
        """A user asks to join (a private subreddit): a conversation in ``join_requests``
        (listed in ``all`` too). Returns (conversation id, message id)."""
        return self._special_request(user, body, subreddit, "join", "Request to join")

    def _special_request(
        self, user: str, body: str, subreddit: str, kind: str, subject: str
    ) -> tuple[str, str]:
        with self._lock:
            name = self._user(user).name
            sub = self._subreddit(subreddit)
            if kind == "appeal" and name.lower() not in sub.banned:
                raise SandboxError(f"{user} is not banned from r/{sub.name}")
            conversation, message = self._start_conversation(
                sub, author=name, subject=subject, body=body, participant=name
            )
            conversation.kind = kind
            return conversation.id, message.id

    def delay_listing(self, conversation_id: str, *, delayed: bool = True) -> None:
        """Leave a conversation out of every modmail listing until ``delayed=False`` (it can
        still be fetched by id): a listing that shows a change late."""
        with self._lock:
            self._conversation(conversation_id).unlisted = delayed

    def moderator_writes(
        self, conversation_id: str, moderator: str, body: str, *, internal: bool = False
    ) -> str:
        """A moderator (human) writes in a conversation: a reply to its participant, an
        internal note, or a message in a Mod Discussion. Returns the message id."""
        with self._lock:
            conversation = self._conversation(conversation_id)
            user = self._user(moderator)
            if not self._is_mod(self._subreddits[conversation.subreddit.lower()], user.name):
                raise SandboxError(f"{moderator} is not a moderator of r/{conversation.subreddit}")
            message = self._add_modmail_message(
                conversation, user.name, body, internal=internal, hidden=False
            )
            return message.id

    def reply_modmail(self, conversation_id: str, player: str, body: str) -> str:
        """Seed the participant's reply in an existing conversation (archived ones reopen).

        Returns the message id. Raises SandboxError if ``player`` is not the participant.
        """
        with self._lock:
            conversation = self._conversation(conversation_id)
            user = self._user(player)
            if conversation.participant is None or (
                conversation.participant.lower() != user.name.lower()
            ):
                raise SandboxError(f"{player} is not the participant of {conversation_id}")
            message = self._add_modmail_message(
                conversation, user.name, body, internal=False, hidden=False
            )
            return message.id

    def archive_conversation(self, conversation_id: str, *, by: str) -> None:
        """Archive a conversation as moderator ``by`` would."""
        with self._lock:
            conversation = self._conversation(conversation_id)
            conversation.state = 2
            self._mod_action(conversation, 2, self._user(by).name)

    def _conversation(self, conversation_id: str) -> _Conversation:
        conversation = self._conversations.get(conversation_id)
        if conversation is None:
            raise SandboxError(f"no modmail conversation {conversation_id!r}")
        return conversation

    def _thing_for_forward(self, fullname: str) -> tuple[str, str, str, str, str]:
        """(permalink, author, title, body, post id) of a post or comment to forward."""
        if fullname.startswith("t1_"):
            comment = self._comments.get(fullname[3:])
            if comment is None:
                raise SandboxError(f"no comment {fullname}")
            parent_post = self._posts[comment.post_id]
            link = self.public_url + self._comment_permalink(comment)
            return link, comment.author, parent_post.title, comment.body, parent_post.id
        post = self._posts.get(fullname.removeprefix("t3_"))
        if post is None:
            raise SandboxError(f"no post {fullname}")
        link = self.public_url + self._post_permalink(post)
        return link, post.author, post.title, post.body, post.id

    def automod_forward(
        self,
        thing: str,
        *,
        template: str = DEFAULT_FORWARD_TEMPLATE,
        subject: str = AUTOMOD_SUBJECT,
    ) -> ForwardSeed:
        """Forward an existing post or comment to modmail as AutoModerator's rule would.

        ``thing`` is a ``t3_``/``t1_`` fullname (a bare id means a post). The conversation
        has ``isAuto`` true and one message by AutoModerator (a moderator) whose first line
        is the thing's permalink.
        """
        with self._lock:
            permalink, author, title, body, post_id = self._thing_for_forward(thing)
            sub = self._subreddits[self._posts[post_id].subreddit.lower()]
            text = render_forward(
                template, permalink=permalink, author=author, title=title, body=body
            )
            conversation, message = self._start_conversation(
                sub,
                author=AUTOMODERATOR,
                subject=subject,
                body=text,
                participant=None,
                is_auto=True,
            )
            return ForwardSeed(post_id, conversation.id, message.id, permalink)

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
        """Seed a genuine forward: ``author`` posts in the subreddit, AutoModerator forwards it."""
        with self._lock:
            post_id = self.submit_post(
                author, title, body, subreddit=subreddit, flair_text=flair_text
            )
            return self.automod_forward(f"t3_{post_id}", template=template, subject=subject)

    def send_automod_message(
        self, subreddit: str, body: str, *, subject: str = AUTOMOD_SUBJECT
    ) -> tuple[str, str]:
        """AutoModerator sends ``body`` as written (a ``modmail:`` rule whose text forwards
        nothing readable, e.g. a misconfigured template). Returns (conversation id, message
        id)."""
        with self._lock:
            sub = self._subreddit(subreddit)
            conversation, message = self._start_conversation(
                sub, author=AUTOMODERATOR, subject=subject, body=body, participant=None,
                is_auto=True,
            )
            return conversation.id, message.id

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
        """Seed a player's imitation of a forward: an ordinary modmail laid out the same way.

        A real post by ``post_author`` (default: the player) backs the permalink unless
        ``permalink`` is given (e.g. pointing into another subreddit); then ``post_id`` is
        empty. The message's author is the player, ``isAuto`` is false.
        """
        with self._lock:
            post_id = ""
            if permalink is None:
                post_id = self.submit_post(post_author or player, title, body, subreddit=subreddit)
                permalink = self.public_url + self._post_permalink(self._posts[post_id])
            text = render_forward(
                template,
                permalink=permalink,
                author=post_author or player,
                title=title,
                body=body,
            )
            conversation_id, message_id = self.send_modmail(
                player, subject, text, subreddit=subreddit
            )
            return ForwardSeed(post_id, conversation_id, message_id, permalink)

    # ------------------------------------------------------------------ read-back hooks

    def _post_view(self, post: _Post) -> PostView:
        permalink = self._post_permalink(post)
        return PostView(
            post.id,
            post.subreddit,
            post.author,
            post.title,
            post.body,
            post.flair_text,
            post.flair_id,
            post.created.timestamp(),
            permalink,
            self.public_url + permalink,
        )

    def posts(self, *, subreddit: str | None = None, author: str | None = None) -> list[PostView]:
        """Every post, oldest first, optionally of one subreddit and/or author."""
        with self._lock:
            return [
                self._post_view(p)
                for p in self._posts.values()
                if (subreddit is None or p.subreddit.lower() == subreddit.lower())
                and (author is None or p.author.lower() == author.lower())
            ]

    def post(self, post_id: str) -> PostView:
        """One post by id (with or without ``t3_``); raises SandboxError if unknown."""
        with self._lock:
            post = self._posts.get(post_id.removeprefix("t3_"))
            if post is None:
                raise SandboxError(f"no post {post_id!r}")
            return self._post_view(post)

    def comments(
        self, *, post_id: str | None = None, author: str | None = None
    ) -> list[CommentView]:
        """Every comment, oldest first, optionally under one post and/or by one author."""
        with self._lock:
            return [
                CommentView(
                    c.id,
                    c.post_id,
                    c.parent_id,
                    self._posts[c.post_id].subreddit,
                    c.author,
                    c.body,
                    c.created.timestamp(),
                    self._comment_permalink(c),
                )
                for c in self._comments.values()
                if (post_id is None or c.post_id == post_id.removeprefix("t3_"))
                and (author is None or c.author.lower() == author.lower())
            ]

    def conversations(self, *, subreddit: str | None = None) -> list[ConversationView]:
        """Every modmail conversation, oldest first."""
        with self._lock:
            return [
                ConversationView(
                    c.id,
                    c.subreddit,
                    c.subject,
                    c.participant,
                    c.is_auto,
                    c.is_internal,
                    c.state,
                    sum(1 for key, _ in c.items if key == "messages"),
                    iso(c.last_updated),
                    c.filtered,
                )
                for c in self._conversations.values()
                if subreddit is None or c.subreddit.lower() == subreddit.lower()
            ]

    def conversation_messages(self, conversation_id: str) -> list[ModmailMessageView]:
        """All messages of a conversation, oldest first (internal notes included)."""
        with self._lock:
            conversation = self._conversation(conversation_id)
            sub = self._subreddits[conversation.subreddit.lower()]
            out = []
            for key, item_id in conversation.items:
                if key != "messages":
                    continue
                m = self._modmail_messages[item_id]
                out.append(
                    ModmailMessageView(
                        m.id,
                        conversation.id,
                        m.author,
                        m.body,
                        iso(m.date),
                        m.is_internal,
                        m.is_hidden,
                        self._is_mod(sub, m.author),
                    )
                )
            return out

    def private_messages(self, user: str) -> list[PrivateMessageView]:
        """The legacy messages in ``user``'s inbox (what a player sees of modmail replies)."""
        with self._lock:
            owner = self._user(user).name.lower()
            out = []
            for entry in self._inbox:
                if entry.owner.lower() != owner or entry.kind != "message":
                    continue
                pm = self._private[entry.fullname[3:]]
                out.append(
                    PrivateMessageView(
                        pm.id,
                        pm.author,
                        pm.dest,
                        pm.subject,
                        pm.body,
                        pm.sender_subreddit,
                        pm.conversation_id,
                        entry.new,
                    )
                )
            return out

    def activity(self, *, after: int = 0) -> list[Activity]:
        """Posts, comments and modmail messages created after sequence number ``after``."""
        with self._lock:
            return list(self._activity[after:])

    # ------------------------------------------------------------------ JSON shapes

    def _listing(self, children: list[Json], after: str | None) -> Json:
        return {
            "kind": "Listing",
            "data": {
                "after": after,
                "before": None,
                "dist": len(children),
                "modhash": None,
                "geo_filter": "",
                "children": children,
            },
        }

    def _page(
        self, fullnames: list[str], params: Mapping[str, str]
    ) -> tuple[list[str], str | None]:
        """Cut one page out of an ordered list of fullnames with Reddit's after/limit."""
        limit = _limit(params.get("limit"), default=25)
        start = 0
        after = params.get("after")
        if after:
            try:
                start = fullnames.index(after) + 1
            except ValueError:
                return [], None
        page = fullnames[start : start + limit]
        more = start + limit < len(fullnames)
        return page, (page[-1] if page and more else None)

    def _shown_body(self, post: _Post, viewer: str | None) -> str:
        """A post's text as ``viewer`` reads it: ``[removed]`` for a removed post, except
        to its author and to moderators with the ``posts`` permission."""
        if not post.removed or (viewer and viewer.lower() == post.author.lower()):
            return post.body
        sub = self._subreddits.get(post.subreddit.lower())
        if viewer and sub is not None and self._has_permission(sub, viewer, "posts"):
            return post.body
        return REMOVED

    def _post_json(self, post: _Post, viewer: str | None) -> Json:
        sub = self._subreddits[post.subreddit.lower()]
        author = self._users[post.author.lower()]
        permalink = self._post_permalink(post)
        created = post.created.timestamp()
        shown = self._shown_body(post, viewer)
        return {
            "id": post.id,
            "name": f"t3_{post.id}",
            "title": post.title,
            "selftext": shown if post.kind == "self" else "",
            "selftext_html": markdown_to_html(shown) if post.body else None,
            "author": post.author,
            "author_fullname": author.fullname,
            "subreddit": sub.name,
            "subreddit_id": sub.fullname,
            "subreddit_name_prefixed": f"r/{sub.name}",
            "subreddit_type": "public",
            "permalink": permalink,
            "url": post.url or self.public_url + permalink,
            "domain": f"self.{sub.name}" if post.kind == "self" else "example.com",
            "is_self": post.kind == "self",
            "created": created,
            "created_utc": created,
            "link_flair_text": post.flair_text,
            "link_flair_template_id": post.flair_id,
            "link_flair_css_class": None,
            "link_flair_type": "text",
            "link_flair_richtext": [],
            "num_comments": sum(1 for c in self._comments.values() if c.post_id == post.id),
            "score": 1,
            "ups": 1,
            "downs": 0,
            "upvote_ratio": 1.0,
            "likes": True if viewer and viewer.lower() == post.author.lower() else None,
            "over_18": False,
            "spoiler": False,
            "locked": False,
            "stickied": False,
            "archived": False,
            "hidden": False,
            "saved": False,
            "edited": False,
            "distinguished": None,
            "removed_by_category": None,
            "banned_by": None,
            "approved_by": None,
            "send_replies": post.send_replies,
            "num_crossposts": 0,
            "is_video": False,
        }

    def _comment_json(self, comment: _Comment, viewer: str | None, *, nested: bool) -> Json:
        post = self._posts[comment.post_id]
        sub = self._subreddits[post.subreddit.lower()]
        created = comment.created.timestamp()
        replies: Any = ""
        if nested and comment.reply_ids:
            replies = self._listing(
                [
                    {
                        "kind": "t1",
                        "data": self._comment_json(self._comments[r], viewer, nested=True),
                    }
                    for r in comment.reply_ids
                ],
                None,
            )
        depth = 0
        parent = comment.parent_id
        while parent.startswith("t1_"):
            depth += 1
            parent = self._comments[parent[3:]].parent_id
        return {
            "id": comment.id,
            "name": f"t1_{comment.id}",
            "body": comment.body,
            "body_html": markdown_to_html(comment.body),
            "author": comment.author,
            "author_fullname": self._users[comment.author.lower()].fullname,
            "link_id": f"t3_{post.id}",
            "parent_id": comment.parent_id,
            "subreddit": sub.name,
            "subreddit_id": sub.fullname,
            "subreddit_name_prefixed": f"r/{sub.name}",
            "permalink": self._comment_permalink(comment),
            "link_title": post.title,
            "link_author": post.author,
            "link_permalink": self.public_url + self._post_permalink(post),
            "created": created,
            "created_utc": created,
            "score": 1,
            "ups": 1,
            "likes": None,
            "edited": False,
            "distinguished": None,
            "stickied": False,
            "is_submitter": comment.author.lower() == post.author.lower(),
            "depth": depth,
            "replies": replies,
        }

    def _inbox_comment_json(self, entry: _InboxEntry) -> Json:
        comment = self._comments[entry.fullname[3:]]
        post = self._posts[comment.post_id]
        data = self._comment_json(comment, entry.owner, nested=False)
        subject = {
            "username_mention": "username mention",
            "post_reply": "post reply",
            "comment_reply": "comment reply",
        }[entry.kind]
        data.update(
            {
                "context": f"{self._comment_permalink(comment)}?context=3",
                "subject": subject,
                "type": entry.kind,
                "new": entry.new,
                "was_comment": True,
                "dest": entry.owner,
                "num_comments": len(post.comment_ids),
                "first_message": None,
                "first_message_name": None,
            }
        )
        return data

    def _private_json(self, pm: _PrivateMessage, new: bool) -> Json:
        created = pm.created.timestamp()
        author = self._users.get(pm.author.lower()) if pm.author else None
        return {
            "id": pm.id,
            "name": f"t4_{pm.id}",
            "author": pm.author,
            "author_fullname": author.fullname if author else None,
            "dest": pm.dest,
            "subject": pm.subject,
            "body": pm.body,
            "body_html": markdown_to_html(pm.body),
            "subreddit": pm.sender_subreddit,
            "subreddit_name_prefixed": f"r/{pm.sender_subreddit}" if pm.sender_subreddit else None,
            "was_comment": False,
            "first_message": int(pm.first_id, 36) if pm.first_id else None,
            "first_message_name": f"t4_{pm.first_id}" if pm.first_id else None,
            "parent_id": pm.parent_id,
            "context": "",
            "created": created,
            "created_utc": created,
            "new": new,
            "replies": "",
            "distinguished": "moderator" if pm.sender_subreddit else None,
            "likes": None,
            "num_comments": None,
            "type": "unknown",
        }

    def _author_json(
        self, sub: _Subreddit, conversation: _Conversation, name: str, *, hidden: bool = False
    ) -> Json:
        user = self._users[name.lower()]
        participant = conversation.participant
        return {
            "isMod": self._is_mod(sub, name),
            "isAdmin": False,
            "name": user.name,
            "isOp": name.lower() == conversation.originator.lower(),
            "isParticipant": participant is not None and name.lower() == participant.lower(),
            "isApproved": False,
            "isHidden": hidden,
            "id": user.number,
            "isDeleted": False,
        }

    def _modmail_message_json(self, message: _ModmailMessage) -> Json:
        conversation = self._conversations[message.conversation_id]
        sub = self._subreddits[conversation.subreddit.lower()]
        if self._is_mod(sub, message.author):
            role = "moderator"
        elif (
            conversation.participant and message.author.lower() == conversation.participant.lower()
        ):
            role = "participant_user"
        else:
            role = "participant_subreddit"
        return {
            "body": markdown_to_html(message.body),
            "author": self._author_json(
                sub, conversation, message.author, hidden=message.is_hidden
            ),
            "isInternal": message.is_internal,
            "date": iso(message.date),
            "bodyMarkdown": message.body,
            "id": message.id,
            "participatingAs": role,
        }

    def _mod_action_json(self, action: _ModAction) -> Json:
        user = self._users[action.author.lower()]
        return {
            "date": iso(action.date),
            "actionTypeId": action.action_type,
            "id": action.id,
            "author": {
                "isMod": True,
                "isAdmin": False,
                "name": user.name,
                "isHidden": False,
                "id": user.number,
                "isDeleted": False,
            },
        }

    def _conversation_json(self, conversation: _Conversation, *, summary: bool) -> Json:
        sub = self._subreddits[conversation.subreddit.lower()]
        messages = [i for k, i in conversation.items if k == "messages"]
        authors = []
        for key, item_id in conversation.items:
            if key == "messages":
                m = self._modmail_messages[item_id]
                authors.append(self._author_json(sub, conversation, m.author, hidden=m.is_hidden))
            else:
                a = self._mod_actions[item_id]
                authors.append(self._author_json(sub, conversation, a.author))
        obj_ids = (
            [{"id": messages[-1], "key": "messages"}]
            if summary
            else [{"id": i, "key": k} for k, i in conversation.items]
        )
        participant: Json = (
            self._author_json(sub, conversation, conversation.participant)
            if conversation.participant
            else {}
        )
        if conversation.is_internal:
            kind = "internal"
        elif conversation.is_auto:
            kind = "sr_auto"
        else:
            kind = "sr_user"
        return {
            "isAuto": conversation.is_auto,
            "participant": participant,
            "objIds": obj_ids,
            "isRepliable": True,
            "lastUserUpdate": _iso_or_none(conversation.last_user_update),
            "isInternal": conversation.is_internal,
            "lastModUpdate": _iso_or_none(conversation.last_mod_update),
            "authors": authors,
            "lastUpdated": iso(conversation.last_updated),
            "participantSubreddit": {},
            "legacyFirstMessageId": conversation.legacy_first_id,
            "state": conversation.state,
            "conversationType": kind,
            "lastUnread": _iso_or_none(conversation.last_unread),
            "owner": {"displayName": sub.name, "type": "subreddit", "id": sub.fullname},
            "subject": conversation.subject,
            "id": conversation.id,
            "isHighlighted": conversation.is_highlighted,
            "numMessages": len(messages),
        }

    def _user_dossier(self, conversation: _Conversation) -> Json:
        if conversation.participant is None:
            return {}
        user = self._users[conversation.participant.lower()]
        sub = self._subreddits[conversation.subreddit.lower()]
        posts = [
            p
            for p in self._posts.values()
            if p.author.lower() == user.name.lower() and p.subreddit == sub.name
        ]
        comments = [
            c
            for c in self._comments.values()
            if c.author.lower() == user.name.lower()
            and self._posts[c.post_id].subreddit == sub.name
        ]
        convos = [
            c
            for c in self._conversations.values()
            if c.participant
            and c.participant.lower() == user.name.lower()
            and c.subreddit == sub.name
        ]
        return {
            "recentComments": {
                f"t1_{c.id}": {
                    "comment": c.body,
                    "date": iso(c.created),
                    "permalink": self.public_url + self._comment_permalink(c),
                    "title": self._posts[c.post_id].title,
                }
                for c in reversed(comments[-10:])
            },
            "muteStatus": {"muteCount": 0, "isMuted": False, "endDate": None, "reason": ""},
            "name": user.name,
            "created": iso(user.created),
            "banStatus": {
                "endDate": None,
                "reason": "",
                "isBanned": user.name.lower() in sub.banned,
                "isPermanent": user.name.lower() in sub.banned,
            },
            "isSuspended": False,
            "approveStatus": {"isApproved": False},
            "isShadowBanned": False,
            "recentPosts": {
                f"t3_{p.id}": {
                    "date": iso(p.created),
                    "permalink": self.public_url + self._post_permalink(p),
                    "title": p.title,
                }
                for p in reversed(posts[-10:])
            },
            "recentConvos": {
                c.id: {
                    "date": "0001-01-01T00:00:00+00:00",
                    "permalink": f"https://mod.reddit.com/mail/perma/{c.id}",
                    "id": c.id,
                    "subject": c.subject,
                }
                for c in reversed(convos[-10:])
            },
            "id": user.fullname,
        }

    def _conversation_full_json(self, conversation: _Conversation) -> Json:
        return {
            "conversation": self._conversation_json(conversation, summary=False),
            "messages": {
                i: self._modmail_message_json(self._modmail_messages[i])
                for k, i in conversation.items
                if k == "messages"
            },
            "modActions": {
                i: self._mod_action_json(self._mod_actions[i])
                for k, i in conversation.items
                if k == "modActions"
            },
            "user": self._user_dossier(conversation),
        }

    # ------------------------------------------------------------------ API: account, subs

    def api_me(self, viewer: str) -> Json:
        """``GET /api/v1/me``."""
        with self._lock:
            user = self._users[viewer.lower()]
            created = user.created.timestamp()
            unread = sum(1 for e in self._inbox if e.owner.lower() == viewer.lower() and e.new)
            moderates = any(self._is_mod(s, viewer) for s in self._subreddits.values())
            return {
                "name": user.name,
                "id": user.id36,
                "created": created,
                "created_utc": created,
                "link_karma": 1,
                "comment_karma": 1,
                "total_karma": 2,
                "is_mod": moderates,
                "is_gold": False,
                "is_employee": False,
                "is_suspended": False,
                "has_verified_email": True,
                "verified": True,
                "over_18": False,
                "icon_img": "",
                "inbox_count": unread,
                "has_mail": unread > 0,
                "has_mod_mail": False,
                "pref_show_snoovatar": False,
                "subreddit": None,
            }

    def _visible_subreddit(self, name: str) -> _Subreddit:
        sub = self._subreddits.get(name.lower())
        if sub is None:
            raise not_found()
        if sub.removed:
            raise ApiFailure(404, {"reason": "banned", "message": "Not Found", "error": 404})
        return sub

    def api_subreddit_about(self, viewer: str, name: str) -> Json:
        """``GET /r/SUB/about``."""
        with self._lock:
            sub = self._visible_subreddit(name)
            created = sub.created.timestamp()
            return {
                "kind": "t5",
                "data": {
                    "display_name": sub.name,
                    "display_name_prefixed": f"r/{sub.name}",
                    "name": sub.fullname,
                    "id": sub.fullname[3:],
                    "title": sub.title,
                    "public_description": "",
                    "description": "",
                    "subreddit_type": "public",
                    "submission_type": "any",
                    "subscribers": len(self._users),
                    "created": created,
                    "created_utc": created,
                    "over18": False,
                    "quarantine": False,
                    "lang": "en",
                    "url": f"/r/{sub.name}/",
                    "link_flair_enabled": True,
                    "user_is_moderator": self._is_mod(sub, viewer),
                    "user_is_banned": viewer.lower() in sub.banned,
                    "user_is_subscriber": True,
                },
            }

    def api_subreddit_moderators(self, viewer: str, name: str) -> Json:
        """``GET /r/SUB/about/moderators``."""
        with self._lock:
            sub = self._visible_subreddit(name)
            children = []
            for index, mod in enumerate(sub.moderators):
                user = self._users[mod.lower()]
                children.append(
                    {
                        "name": user.name,
                        "id": user.fullname,
                        "rel_id": f"rb_{to_base36(1000 + index)}",
                        "date": sub.created.timestamp(),
                        "mod_permissions": list(
                            sub.permissions.get(user.name.lower(), ALL_PERMISSIONS)
                        ),
                        "author_flair_text": None,
                        "author_flair_css_class": None,
                    }
                )
            return {"kind": "UserList", "data": {"children": children}}

    def api_link_flair(self, viewer: str, name: str) -> list[Json]:
        """``GET /r/SUB/api/link_flair_v2``."""
        with self._lock:
            sub = self._visible_subreddit(name)
            return [
                {
                    "id": f.id,
                    "text": f.text,
                    "text_editable": f.text_editable,
                    "mod_only": f.mod_only,
                    "type": "text",
                    "css_class": "",
                    "text_color": "dark",
                    "background_color": "",
                    "max_emojis": 10,
                    "allowable_content": "all",
                    "richtext": [],
                    "override_css": False,
                }
                for f in sub.flairs.values()
            ]

    # ------------------------------------------------------------------ API: widgets

    def _widget_sub(self, viewer: str, name: str) -> _Subreddit:
        """The subreddit whose widgets ``viewer`` manages (Reddit asks for the ``config``
        moderator permission, "Manage Settings")."""
        sub = self._visible_subreddit(name)
        if not self._has_permission(sub, viewer, "config"):
            raise forbidden()
        return sub

    def _id_card(self, sub: _Subreddit) -> tuple[str, Json]:
        return (f"widget_id-card-{sub.fullname[3:]}",
                {"kind": "id-card", "shortName": "Community Details",
                 "description": sub.title, "subscribersCount": len(self._users),
                 "currentlyViewingCount": 1, "subscribersText": "members",
                 "currentlyViewingText": "online", "styles": {}})

    def api_widgets(self, viewer: str, name: str) -> Json:
        """``GET /r/SUB/api/widgets``: every widget by id and the layout (the id card, the
        moderators widget, the sidebar's and the top bar's order)."""
        with self._lock:
            sub = self._visible_subreddit(name)
            card_id, card = self._id_card(sub)
            mods_id = f"widget_moderators-{sub.fullname[3:]}"
            items: Json = {card_id: {**card, "id": card_id},
                           mods_id: {"kind": "moderators", "id": mods_id,
                                     "mods": [{"name": m} for m in sub.moderators],
                                     "totalMods": len(sub.moderators), "styles": {}}}
            for widget_id in sub.sidebar:
                items[widget_id] = dict(sub.widgets[widget_id])
            return {"items": items,
                    "layout": {"idCardWidget": card_id, "moderatorWidget": mods_id,
                               "sidebar": {"order": list(sub.sidebar)},
                               "topbar": {"order": []}}}

    @staticmethod
    def _widget_payload(form: Mapping[str, str]) -> Json:
        try:
            payload = json.loads(form.get("json") or "")
        except ValueError:
            raise bad_request("JSON_PARSE_ERROR", "the json field is not JSON", "json") from None
        if not isinstance(payload, dict):
            raise bad_request("JSON_INVALID", "expected a JSON object", "json")
        return payload

    def _checked_text_area(self, payload: Json) -> Json:
        if payload.get("kind") != "textarea":
            raise bad_request("JSON_INVALID", "only text area widgets are modelled", "kind")
        short_name = payload.get("shortName")
        if not isinstance(short_name, str) or not short_name.strip() or len(short_name) > 30:
            raise bad_request("JSON_INVALID", "shortName: 1 to 30 characters", "shortName")
        text = payload.get("text")
        if not isinstance(text, str) or len(text) > 10_000:
            raise bad_request("JSON_INVALID", "text: a string of at most 10000 characters",
                              "text")
        styles = payload.get("styles")
        return {"kind": "textarea", "shortName": short_name, "text": text,
                "textHtml": f"<!-- SC_OFF --><div class=\"md\"><p>{html.escape(text)}</p>"
                            "</div><!-- SC_ON -->",
                "styles": styles if isinstance(styles, dict) else {}}

    def api_widget_create(self, viewer: str, name: str, form: Mapping[str, str]) -> Json:
        """``POST /r/SUB/api/widget`` (form field ``json``): a new widget, at the end of the
        sidebar. Reddit does not refuse a second widget with the same name."""
        with self._lock:
            sub = self._widget_sub(viewer, name)
            widget = self._checked_text_area(self._widget_payload(form))
            widget_id = f"widget_{self._new_id('widget')}"
            widget["id"] = widget_id
            sub.widgets[widget_id] = widget
            sub.sidebar.append(widget_id)
            return dict(widget)

    def api_widget_update(self, viewer: str, name: str, widget_id: str,
                          form: Mapping[str, str]) -> Json:
        """``PUT /r/SUB/api/widget/{id}`` (form field ``json``): the whole widget again."""
        with self._lock:
            sub = self._widget_sub(viewer, name)
            if widget_id not in sub.widgets:
                raise not_found()
            widget = self._checked_text_area(self._widget_payload(form))
            widget["id"] = widget_id
            sub.widgets[widget_id] = widget
            return dict(widget)

    def api_widget_delete(self, viewer: str, name: str, widget_id: str) -> None:
        """``DELETE /r/SUB/api/widget/{id}``."""
        with self._lock:
            sub = self._widget_sub(viewer, name)
            if widget_id not in sub.widgets:
                raise not_found()
            del sub.widgets[widget_id]
            sub.sidebar.remove(widget_id)

    def sidebar_widgets(self, subreddit: str) -> list[Json]:
        """The sidebar's widgets in order, as stored (for tests and the control API)."""
        with self._lock:
            sub = self._subreddit(subreddit)
            return [dict(sub.widgets[w]) for w in sub.sidebar]

    # ------------------------------------------------------------------ API: posts, comments

    def api_submit(self, viewer: str, form: Mapping[str, str]) -> Json:
        """``POST /api/submit`` (self and link posts)."""
        with self._lock:
            kind = form.get("kind", "self")
            if kind not in ("self", "link"):
                raise api_errors("INVALID_OPTION", "that option is not valid", "kind")
            post = self._create_post(
                viewer,
                form.get("sr", ""),
                form.get("title", ""),
                self.without_empty_links(form.get("text", "")),
                flair_id=form.get("flair_id") or None,
                flair_text=form.get("flair_text"),
                kind=kind,
                url=form.get("url"),
                send_replies=form_bool(form.get("sendreplies", "true")),
            )
            sub = self._subreddits[post.subreddit.lower()]
            for rule in sub.forward_rules:
                if rule.moderators_exempt and self._is_mod(sub, viewer):
                    continue
                if rule.matches(post.title, post.flair_text):
                    self.automod_forward(
                        f"t3_{post.id}", template=rule.template, subject=rule.subject
                    )
                    post.removed = rule.remove
                    break
            return {
                "json": {
                    "errors": [],
                    "data": {
                        "url": self.public_url + self._post_permalink(post),
                        "drafts_count": 0,
                        "id": post.id,
                        "name": f"t3_{post.id}",
                    },
                }
            }

    def api_comment(self, viewer: str, form: Mapping[str, str]) -> Json:
        """``POST /api/comment``: reply to a post, a comment or a private message."""
        with self._lock:
            thing_id = form.get("thing_id", "")
            text = form.get("text", "")
            if thing_id.startswith("t4_"):
                return self._reply_private(viewer, thing_id[3:], text)
            comment = self._create_comment(viewer, thing_id, text)
            thing = {"kind": "t1", "data": self._comment_json(comment, viewer, nested=False)}
            return {"json": {"errors": [], "data": {"things": [thing]}}}

    def _reply_private(self, viewer: str, pm_id: str, text: str) -> Json:
        pm = self._private.get(pm_id)
        if pm is None or viewer.lower() not in (
            (pm.author or "").lower(),
            pm.dest.lower(),
        ):
            raise api_errors("NO_THING_ID", "that message does not exist", "thing_id")
        if not text.strip():
            raise api_errors("NO_TEXT", "we need something here", "text")
        if pm.conversation_id is not None:
            conversation = self._conversations[pm.conversation_id]
            if conversation.participant is None or (
                conversation.participant.lower() != viewer.lower()
            ):
                raise api_errors("NO_THING_ID", "that message does not exist", "thing_id")
            sub = self._subreddits[conversation.subreddit.lower()]
            if viewer.lower() in sub.banned:
                raise api_errors("SUBREDDIT_NOTALLOWED", "you aren't allowed to post there.", "sr")
            message = self._add_modmail_message(
                conversation, viewer, text, internal=False, hidden=False
            )
            assert message.legacy_id is not None  # a participant's message is never internal
            reply = self._private[message.legacy_id]
        else:
            first = pm.first_id or pm.id
            other = pm.author if (pm.author or "").lower() != viewer.lower() else pm.dest
            if other is None:
                raise api_errors("NO_THING_ID", "that message does not exist", "thing_id")
            reply = _PrivateMessage(
                self._new_id("private"),
                viewer,
                None,
                other,
                f"re: {pm.subject}",
                text,
                self._now(),
                first,
                f"t4_{first}",
                None,
            )
            self._private[reply.id] = reply
            self._notify(other, "message", f"t4_{reply.id}")
        thing = {"kind": "t4", "data": self._private_json(reply, False)}
        return {"json": {"errors": [], "data": {"things": [thing]}}}

    def api_compose(self, viewer: str, form: Mapping[str, str]) -> Json:
        """``POST /api/compose``: a message to a user, or to a subreddit's modmail (``#sub``)."""
        with self._lock:
            to = form.get("to", "").strip()
            subject = form.get("subject", "")
            text = form.get("text", "")
            if not subject.strip():
                raise api_errors("NO_SUBJECT", "please enter a subject", "subject")
            if not text.strip():
                raise api_errors("NO_TEXT", "we need something here", "text")
            if len(subject) > 100:
                raise api_errors("TOO_LONG", "this is too long (max: 100)", "subject")
            if len(text) > 10000:
                raise api_errors("TOO_LONG", "this is too long (max: 10000)", "text")
            sub_name = None
            for prefix in ("#", "/r/", "r/"):
                if to.startswith(prefix):
                    sub_name = to[len(prefix) :]
            if sub_name is not None:
                sub = self._subreddits.get(sub_name.lower())
                if sub is None or sub.removed:
                    raise api_errors("SUBREDDIT_NOEXIST", "that subreddit doesn't exist", "to")
                if viewer.lower() in sub.banned:
                    raise api_errors(
                        "SUBREDDIT_NOTALLOWED", "you aren't allowed to post there.", "to"
                    )
                self._user_to_subreddit(sub, self._users[viewer.lower()].name, subject, text)
                return {"json": {"errors": []}}
            dest = self._users.get(to.removeprefix("/u/").removeprefix("u/").lower())
            if dest is None:
                raise api_errors("USER_DOESNT_EXIST", "that user doesn't exist", "to")
            pm = _PrivateMessage(
                self._new_id("private"),
                viewer,
                None,
                dest.name,
                subject,
                text,
                self._now(),
                None,
                None,
                None,
            )
            self._private[pm.id] = pm
            self._notify(dest.name, "message", f"t4_{pm.id}")
            return {"json": {"errors": []}}

    def api_delete(self, viewer: str, form: Mapping[str, str]) -> Json:
        """``POST /api/del``: the author deletes a post or comment. Like Reddit, the thing
        stays with author and text ``[deleted]`` (a post keeps its title); deleting it again,
        or something that does not exist, answers ``{}`` and changes nothing; someone else's
        answers 403."""
        with self._lock:
            fullname = form.get("id", "")
            thing: _Post | _Comment | None = (
                self._posts.get(fullname[3:]) if fullname.startswith("t3_")
                else self._comments.get(fullname[3:]) if fullname.startswith("t1_") else None)
            if thing is None or thing.author == DELETED:
                return {}
            if thing.author.lower() != viewer.lower():
                raise forbidden()
            subreddit = self._posts[thing.post_id].subreddit if isinstance(thing, _Comment) \
                else thing.subreddit
            title = thing.title if isinstance(thing, _Post) else ""
            self._record("deleted", thing.id, viewer, subreddit, title, "", fullname,
                         self._now())
            thing.author, thing.body = DELETED, DELETED
            return {}

    def api_info(self, viewer: str, params: Mapping[str, str]) -> Json:
        """``GET /api/info?id=t3_...,t1_...``: the things that exist, in the order asked."""
        with self._lock:
            children: list[Json] = []
            for fullname in params.get("id", "").split(","):
                fullname = fullname.strip()
                if fullname.startswith("t3_") and fullname[3:] in self._posts:
                    children.append(
                        {"kind": "t3", "data": self._post_json(self._posts[fullname[3:]], viewer)}
                    )
                elif fullname.startswith("t1_") and fullname[3:] in self._comments:
                    comment = self._comments[fullname[3:]]
                    children.append(
                        {"kind": "t1", "data": self._comment_json(comment, viewer, nested=False)}
                    )
            return self._listing(children, None)

    def api_post_with_comments(self, viewer: str, post_id: str) -> list[Json]:
        """``GET /comments/ID``: [a listing with the post, a listing with its comment tree]."""
        with self._lock:
            post = self._posts.get(post_id)
            if post is None or self._subreddits[post.subreddit.lower()].removed:
                raise not_found()
            top = [
                {"kind": "t1", "data": self._comment_json(self._comments[c], viewer, nested=True)}
                for c in post.comment_ids
            ]
            return [
                self._listing([{"kind": "t3", "data": self._post_json(post, viewer)}], None),
                self._listing(top, None),
            ]

    def api_user_submitted(self, viewer: str, name: str, params: Mapping[str, str]) -> Json:
        """``GET /user/NAME/submitted``: the user's posts, newest first."""
        with self._lock:
            user = self._users.get(name.lower())
            if user is None:
                raise not_found()
            posts = [p for p in self._posts.values() if p.author.lower() == user.name.lower()]
            return self._post_listing(posts, viewer, params)

    def api_user_comments(self, viewer: str, name: str, params: Mapping[str, str]) -> Json:
        """``GET /user/NAME/comments``: the user's comments, newest first."""
        with self._lock:
            user = self._users.get(name.lower())
            if user is None:
                raise not_found()
            comments = [c for c in self._comments.values() if c.author.lower() == user.name.lower()]
            comments.sort(key=lambda c: c.created, reverse=True)
            page, after = self._page([f"t1_{c.id}" for c in comments], params)
            children = [
                {
                    "kind": "t1",
                    "data": self._comment_json(self._comments[f[3:]], viewer, nested=False),
                }
                for f in page
            ]
            return self._listing(children, after)

    def api_user_about(self, viewer: str, name: str) -> Json:
        """``GET /user/NAME/about``."""
        with self._lock:
            user = self._users.get(name.lower())
            if user is None:
                raise not_found()
            created = user.created.timestamp()
            return {
                "kind": "t2",
                "data": {
                    "name": user.name,
                    "id": user.id36,
                    "created": created,
                    "created_utc": created,
                    "link_karma": 1,
                    "comment_karma": 1,
                    "is_mod": any(self._is_mod(s, user.name) for s in self._subreddits.values()),
                    "is_suspended": False,
                },
            }

    def api_subreddit_new(self, viewer: str, name: str, params: Mapping[str, str]) -> Json:
        """``GET /r/SUB/new``: the subreddit's posts, newest first."""
        with self._lock:
            sub = self._visible_subreddit(name)
            posts = [p for p in self._posts.values() if p.subreddit == sub.name]
            return self._post_listing(posts, viewer, params)

    def _post_listing(self, posts: list[_Post], viewer: str, params: Mapping[str, str]) -> Json:
        posts = sorted(posts, key=lambda p: p.created, reverse=True)
        page, after = self._page([f"t3_{p.id}" for p in posts], params)
        children = [
            {"kind": "t3", "data": self._post_json(self._posts[f[3:]], viewer)} for f in page
        ]
        return self._listing(children, after)

    # ------------------------------------------------------------------ API: inbox

    def api_inbox(self, viewer: str, box: str, params: Mapping[str, str]) -> Json:
        """``GET /message/{inbox,unread,mentions,messages}``, newest first."""
        with self._lock:
            entries = [e for e in self._inbox if e.owner.lower() == viewer.lower()]
            if box == "unread":
                entries = [e for e in entries if e.new]
            elif box == "mentions":
                entries = [e for e in entries if e.kind == "username_mention"]
            elif box == "messages":
                entries = [e for e in entries if e.kind == "message"]
            elif box == "sent":
                entries = []
            entries.reverse()
            by_name = {e.fullname: e for e in entries}
            page, after = self._page([e.fullname for e in entries], params)
            children = []
            for fullname in page:
                entry = by_name[fullname]
                if entry.kind == "message":
                    pm = self._private[fullname[3:]]
                    children.append({"kind": "t4", "data": self._private_json(pm, entry.new)})
                else:
                    children.append({"kind": "t1", "data": self._inbox_comment_json(entry)})
            if box == "unread" and form_bool(params.get("mark")):
                for fullname in page:
                    by_name[fullname].new = False
            return self._listing(children, after)

    def api_mark_read(self, viewer: str, form: Mapping[str, str], *, read: bool) -> Json:
        """``POST /api/read_message`` and ``/api/unread_message``."""
        with self._lock:
            wanted = {f.strip() for f in form.get("id", "").split(",") if f.strip()}
            for entry in self._inbox:
                if entry.owner.lower() == viewer.lower() and entry.fullname in wanted:
                    entry.new = not read
            return {}

    # ------------------------------------------------------------------ API: modmail

    def _moderated(self, viewer: str) -> list[_Subreddit]:
        return [s for s in self._subreddits.values() if self._is_mod(s, viewer)]

    def _mod_conversation(self, viewer: str, conversation_id: str) -> _Conversation:
        conversation = self._conversations.get(conversation_id)
        if conversation is None:
            raise not_found("CONVERSATION_NOT_FOUND", "conversation_id")
        sub = self._subreddits[conversation.subreddit.lower()]
        if not self._has_permission(sub, viewer, "mail") or sub.removed:
            raise forbidden("SUBREDDIT_NO_ACCESS")
        return conversation

    def api_modmail_list(self, viewer: str, params: Mapping[str, str]) -> Json:
        """``GET /api/mod/conversations``: one page of summaries (newest message only).

        Folders follow Reddit: ``all`` leaves out archived, internal and automatic
        (``isAuto``) conversations; AutoModerator's land in ``notifications``. ``after`` is a
        conversation id; a conversation that left the folder still marks its place.
        """
        with self._lock:
            if params.get("entity"):
                subs = []
                for name in params["entity"].split(","):
                    sub = self._subreddits.get(name.strip().lower())
                    if sub is None or sub.removed or not self._is_mod(sub, viewer):
                        raise bad_request("BAD_SR_NAME", None, "entity")
                    if not self._has_permission(sub, viewer, "mail"):
                        raise forbidden("INVALID_MOD_PERMISSIONS")
                    subs.append(sub)
            else:
                subs = [s for s in self._moderated(viewer) if not s.removed]
            names = {s.name for s in subs}
            state = params.get("state", "all")
            folder = _FOLDERS.get(state)
            if folder is None:
                raise bad_request("INVALID_OPTION", "that option is not valid", "state")
            sort = params.get("sort", "recent")
            key = _SORTS.get(sort)
            if key is None:
                raise bad_request("INVALID_OPTION", "that option is not valid", "sort")
            ordered = sorted(
                (c for c in self._conversations.values() if c.subreddit in names),
                key=lambda c: (key(c), c.id),
                reverse=True,
            )
            chosen = [c for c in ordered if folder(c) and not c.unlisted]
            after = params.get("after")
            if after:
                anchor = self._conversations.get(after)
                if anchor is None:
                    raise not_found("CONVERSATION_NOT_FOUND", "after")
                mark = (key(anchor), anchor.id)
                chosen = [c for c in chosen if (key(c), c.id) < mark]
            page = chosen[: _limit(params.get("limit"), default=25)]
            newest = {c.id: [i for k, i in c.items if k == "messages"][-1] for c in page}
            return {
                "conversations": {c.id: self._conversation_json(c, summary=True) for c in page},
                "messages": {
                    m: self._modmail_message_json(self._modmail_messages[m])
                    for m in newest.values()
                },
                "conversationIds": [c.id for c in page],
                "viewerId": self._users[viewer.lower()].fullname,
            }

    def api_modmail_get(self, viewer: str, conversation_id: str, params: Mapping[str, str]) -> Json:
        """``GET /api/mod/conversations/ID``: the whole conversation."""
        with self._lock:
            conversation = self._mod_conversation(viewer, conversation_id)
            if form_bool(params.get("markRead")):
                self._mark_read(conversation, viewer)
            return self._conversation_full_json(conversation)

    def api_modmail_reply(self, viewer: str, conversation_id: str, form: Mapping[str, str]) -> Json:
        """``POST /api/mod/conversations/ID``: a moderator's reply or internal note.

        Answers like Reddit does today: ``conversation`` (with ``modActions`` inside it)
        and ``messages``; the new message is the last ``objIds`` entry.
        """
        with self._lock:
            conversation = self._mod_conversation(viewer, conversation_id)
            body = form.get("body", "")
            if not body.strip():
                raise bad_request("NO_TEXT", "we need something here", "body")
            if len(body) > 10000:
                raise bad_request("TOO_LONG", "This field must be under 10000 characters", "body")
            self._add_modmail_message(
                conversation,
                self._users[viewer.lower()].name,
                body,
                internal=form_bool(form.get("isInternal")),
                hidden=form_bool(form.get("isAuthorHidden")),
            )
            full = self._conversation_full_json(conversation)
            summary = full["conversation"]
            summary["modActions"] = full["modActions"]
            return {"conversation": summary, "messages": full["messages"]}

    def api_modmail_create(self, viewer: str, form: Mapping[str, str]) -> Json:
        """``POST /api/mod/conversations``: a moderator starts a conversation with a user.

        No ``to`` (or a moderator as ``to``) makes an internal moderator discussion.
        """
        with self._lock:
            name = form.get("srName", "")
            if not name:
                raise bad_request(
                    "BAD_SR_NAME", "This community name isn't recognizable.", "srName"
                )
            sub = self._subreddits.get(name.lower())
            if sub is None or sub.removed:
                raise bad_request(
                    "SUBREDDIT_NOEXIST", "Hmm, that community doesn't exist.", "srName"
                )
            if not self._has_permission(sub, viewer, "mail"):
                raise forbidden("INVALID_MOD_PERMISSIONS")
            subject = form.get("subject", "")
            body = form.get("body", "")
            if not subject.strip():
                raise bad_request("NO_TEXT", "we need something here", "subject")
            if not body.strip():
                raise bad_request("NO_TEXT", "we need something here", "body")
            if len(subject) > 100:
                raise bad_request("TOO_LONG", "This field must be under 100 characters", "subject")
            if len(body) > 10000:
                raise bad_request("TOO_LONG", "This field must be under 10000 characters", "body")
            to = form.get("to", "").strip().removeprefix("u/").removeprefix("/u/")
            participant: str | None = None
            if to:
                user = self._users.get(to.lower())
                if user is None:
                    raise bad_request("USER_DOESNT_EXIST", "that user doesn't exist", "to")
                if not self._is_mod(sub, user.name):
                    participant = user.name
            conversation, _ = self._start_conversation(
                sub,
                author=self._users[viewer.lower()].name,
                subject=subject,
                body=body,
                participant=participant,
                is_internal=participant is None,
                hidden=form_bool(form.get("isAuthorHidden")),
            )
            full = self._conversation_full_json(conversation)
            return {
                "conversation": full["conversation"],
                "messages": full["messages"],
                "modActions": {},
            }

    def api_modmail_state(self, viewer: str, conversation_id: str, action: str) -> None:
        """``archive``, ``unarchive``, ``highlight`` and ``unhighlight`` (answered 204)."""
        with self._lock:
            conversation = self._mod_conversation(viewer, conversation_id)
            author = self._users[viewer.lower()].name
            if action == "archive":
                conversation.state = 2
                self._mod_action(conversation, 2, author)
            elif action == "unarchive":
                conversation.state = 1
                self._mod_action(conversation, 3, author)
            elif action == "highlight":
                conversation.is_highlighted = True
                self._mod_action(conversation, 0, author)
            elif action == "unhighlight":
                conversation.is_highlighted = False
                self._mod_action(conversation, 1, author)
            else:  # pragma: no cover - the router only sends the four above
                raise not_found()

    def api_modmail_mark(self, viewer: str, form: Mapping[str, str], *, read: bool) -> None:
        """``POST /api/mod/conversations/read`` and ``/unread``."""
        with self._lock:
            for conversation_id in form.get("conversationIds", "").split(","):
                conversation = self._conversations.get(conversation_id.strip())
                if conversation is None:
                    continue
                sub = self._subreddits[conversation.subreddit.lower()]
                if not self._is_mod(sub, viewer):
                    raise forbidden("INVALID_CONVERSATION_ID")
                if read:
                    self._mark_read(conversation, viewer)
                else:
                    conversation.marked_unread.add(viewer.lower())
                    conversation.last_unread = self._now()

    def _unread(self, conversation: _Conversation, viewer: str) -> bool:
        """Whether ``viewer`` has not read the conversation's newest message by someone else."""
        who = viewer.lower()
        if who in conversation.marked_unread:
            return True
        for key, item_id in conversation.items[conversation.read_upto.get(who, 0):]:
            if key == "messages" and self._modmail_messages[item_id].author.lower() != who:
                return True
        return False

    def _mark_read(self, conversation: _Conversation, viewer: str) -> None:
        conversation.read_upto[viewer.lower()] = len(conversation.items)
        conversation.marked_unread.discard(viewer.lower())
        conversation.last_unread = None

    def api_modmail_unread_count(self, viewer: str) -> Json:
        """``GET /api/mod/conversations/unread/count``: unread conversations per folder, for
        this viewer (their own messages never make a conversation unread for them)."""
        with self._lock:
            names = {s.name for s in self._moderated(viewer)}
            counts = {
                "archived": 0,
                "appeals": 0,
                "highlighted": 0,
                "notifications": 0,
                "join_requests": 0,
                "filtered": 0,
                "new": 0,
                "inprogress": 0,
                "mod": 0,
            }
            for c in self._conversations.values():
                if c.subreddit not in names or not self._unread(c, viewer):
                    continue
                for folder in (
                    "archived",
                    "appeals",
                    "highlighted",
                    "notifications",
                    "join_requests",
                    "new",
                    "inprogress",
                    "mod",
                    "filtered",
                ):
                    if _FOLDERS[folder](c):
                        counts[folder] += 1
            return counts


def _iso_or_none(moment: datetime | None) -> str | None:
    return None if moment is None else iso(moment)


def _limit(value: str | None, *, default: int) -> int:
    """Reddit's page size: the asked limit, at most 100."""
    try:
        asked = int(value) if value else default
    except ValueError:
        asked = default
    return max(1, min(asked, 100))


def _user_folder(c: _Conversation) -> bool:
    return not c.is_internal and not c.is_auto and not c.filtered


def _caught(words: tuple[str, ...], text: str) -> bool:
    """Whether the harassment filter catches ``text`` (a listed word, whole, any case)."""
    return any(re.search(rf"\b{re.escape(w)}\b", text, re.IGNORECASE) for w in words)


_FOLDERS: dict[str, Callable[[_Conversation], bool]] = {
    "all": lambda c: _user_folder(c) and c.state != 2,
    "inbox": lambda c: _user_folder(c) and c.state != 2,
    "default": lambda c: _user_folder(c) and c.state != 2,
    "new": lambda c: _user_folder(c) and c.state == 0 and not c.kind,
    "inprogress": lambda c: _user_folder(c) and c.state == 1 and not c.kind,
    "archived": lambda c: c.state == 2,
    "highlighted": lambda c: c.is_highlighted,
    "mod": lambda c: c.is_internal and c.state != 2,
    "notifications": lambda c: c.is_auto and c.state != 2,
    "appeals": lambda c: c.kind == "appeal" and c.state != 2,
    "join_requests": lambda c: c.kind == "join" and c.state != 2,
    "filtered": lambda c: c.filtered and c.state != 2,
}

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)

_SORTS: dict[str, Callable[[_Conversation], datetime]] = {
    "recent": lambda c: c.last_updated,
    "mod": lambda c: c.last_mod_update or _EPOCH,
    "user": lambda c: c.last_user_update or _EPOCH,
    "unread": lambda c: c.last_unread or _EPOCH,
}
