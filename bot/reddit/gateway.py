"""The bot's only door to Reddit: a :class:`RedditGateway` protocol and its PRAW implementation.

Everything PRAW-specific lives in this module. The rest of the bot sees plain frozen values
(:class:`Conversation`, :class:`Thing`, :class:`Mention`, :class:`Sent`) and four kinds of
failure, so the intake and the deliverer decide what to do without knowing prawcore:

* :class:`RateLimited`: Reddit (429, ``RATELIMIT``) or our own budget says wait; nothing
  was done.
* :class:`TransientError`: a 5xx, a timeout, a dropped connection. For an action it may or
  may not have been performed (``uncertain``), which is why every post carries a marker.
* :class:`PermanentError`: 403, 404, a banned subreddit, a refused post. Retrying is useless.
* :class:`AuthError`: Reddit refuses the bot's credentials; an operator must act.

Two PRAW behaviours are changed on purpose (see ``docs/setup.md``):
prawcore retries a POST after a timeout or a 5xx, which turns one stored-then-slow submit
into two posts, so :class:`BudgetedRequestor` turns those failures of a POST into one
uncertain failure instead; and praw 8.0.3 ignores its own ``timeout`` setting, so the
requestor applies ``[reddit] timeout_seconds`` itself.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import re
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Protocol, TypeVar
from urllib.parse import urlsplit

import praw
import prawcore
import requests
from praw.exceptions import ClientException, PRAWException, RedditAPIException
from praw.models import InlineGif, InlineImage, PostMedia
from prawcore.requestor import Requestor

from bot import __version__
from bot.config import Settings
from bot.reddit.ratelimit import BudgetExhausted, RequestBudget, parse_ratelimit_headers

log = logging.getLogger(__name__)

T = TypeVar("T")

TOKEN_PATH = "/api/v1/access_token"
#: HTTP statuses after which prawcore would repeat the request.
_RETRY_STATUSES = frozenset({408, 500, 502, 503, 504, 520, 522})
_RETRY_EXCEPTIONS = (
    requests.exceptions.ChunkedEncodingError,
    requests.exceptions.ConnectionError,
    requests.exceptions.ReadTimeout,
)
_RATELIMIT_WAIT = re.compile(r"(\d+)\s*(millisecond|second|minute|hour)", re.IGNORECASE)
#: Reddit's answers that mean "nothing sent to this subreddit will ever work" until an
#: operator acts (wrong or banned subreddit, the bot not a moderator or missing a permission),
#: as opposed to a refusal of one entry (a post too long, a user who no longer exists).
SYSTEMIC_CODES = frozenset({"SUBREDDIT_NOEXIST", "SUBREDDIT_NOTALLOWED", "BAD_SR_NAME",
                            "INVALID_MOD_PERMISSIONS", "SUBREDDIT_NO_ACCESS", "USER_REQUIRED",
                            "BANNED_FROM_SUBREDDIT", "SUBREDDIT_REQUIRED"})
#: The OAuth scopes the bot's calls use (a refresh token needs them, and must be
#: *permanent*), each with what needs it. Every gateway call is listed under its scope;
#: ``tests/bot/reddit/test_scopes.py`` runs each with a token lacking its scope.
SCOPE_USES = {
    "identity": "who the bot is (/api/v1/me)",
    "modmail": "reading, answering, archiving and starting modmail",
    "submit": "posts (with their pictures) and comment replies",
    "read": "reading forwarded posts and comments, the subreddit and its moderators",
    "history": "the bot's own recent posts and comments (to find one a lost answer made)",
    "privatemessages": "the inbox of mentions (only with [bot] comment_commands)",
    "flair": "the link flair list (only with [posts] *_flair)",
    "edit": "deleting the bot's own posts (maester undo --force --delete-posts)",
    "structuredstyles": "the sidebar widget (only with [posts] sidebar_widget)",
}
#: A new sidebar text area's colours: empty takes the subreddit's theme.
WIDGET_STYLES = {"backgroundColor": "", "headerColor": ""}
SCOPES = tuple(SCOPE_USES)
#: Reddit's user agent rule: ``<platform>:<app ID>:<version> (by /u/<username>)``.
USER_AGENT_FORMAT = re.compile(
    r"^[A-Za-z0-9_.-]+:[A-Za-z0-9_.-]+:v?[0-9][A-Za-z0-9_.-]* \(by /?u/[A-Za-z0-9_-]{3,20}\)")
#: Words of HTTP libraries' and PRAW's own agents, which Reddit throttles.
_GENERIC_AGENTS = re.compile(r"python-requests|curl/|praw|prawcore|urllib|example|your_?name"
                             r"|bot_?name|\bby /?u/(?:username|yourname|me)\b", re.IGNORECASE)


# --------------------------------------------------------------------------- values

@dataclass(frozen=True, slots=True)
class ModmailMessage:
    """One modmail message; ``body`` is the markdown source."""

    id: str
    author: str
    author_is_mod: bool
    body: str
    date: str
    is_internal: bool


@dataclass(frozen=True, slots=True)
class Conversation:
    """A modmail conversation. From a listing it may hold only its newest message."""

    id: str
    subject: str
    subreddit: str
    is_auto: bool
    is_internal: bool
    state: int
    num_messages: int
    last_updated: str
    participant: str | None
    messages: tuple[ModmailMessage, ...]

    @property
    def complete(self) -> bool:
        """Whether every message of the conversation is in :attr:`messages`."""
        return len(self.messages) >= self.num_messages


@dataclass(frozen=True, slots=True)
class Thing:
    """A post (``t3_``) or a comment (``t1_``) as the API reports it."""

    fullname: str
    author: str | None  # None: deleted
    subreddit: str
    title: str
    body: str
    flair: str | None
    permalink: str
    created: datetime | None = None  # when it was posted (None: Reddit did not say)

    @property
    def is_post(self) -> bool:
        return self.fullname.startswith("t3_")


@dataclass(frozen=True, slots=True)
class Mention:
    """A comment that mentions the bot, from its inbox."""

    fullname: str
    author: str | None
    subreddit: str
    body: str
    created: datetime | None = None  # when it was written (None: Reddit did not say)


@dataclass(frozen=True, slots=True)
class Sent:
    """What one successful action created: its Reddit id, and the conversation after it."""

    reddit_id: str
    conversation: Conversation | None = None


# --------------------------------------------------------------------------- failures

class GatewayError(Exception):
    """Reddit did not do what was asked."""


class RateLimited(GatewayError):
    """Reddit (or the bot's own budget) asks to wait ``wait_seconds``; nothing was done."""

    def __init__(self, message: str, wait_seconds: float) -> None:
        super().__init__(message)
        self.wait_seconds = wait_seconds


class TransientError(GatewayError):
    """A failure worth retrying later; ``uncertain``: an action may have been performed."""

    def __init__(self, message: str, *, uncertain: bool = False) -> None:
        super().__init__(message)
        self.uncertain = uncertain


class PermanentError(GatewayError):
    """Reddit refuses this for good (403, 404, banned subreddit, invalid post).

    ``systemic``: the refusal is about the bot, not this item (wrong or banned subreddit, a
    missing moderator permission: see :data:`SYSTEMIC_CODES`), so everything else sent the
    same way will be refused too.
    """

    def __init__(self, message: str, *, systemic: bool = False,
                 insufficient_scope: bool = False) -> None:
        super().__init__(message)
        self.systemic = systemic or insufficient_scope
        #: Reddit's 403 ``insufficient_scope``: the token lacks the scope this call needs.
        self.insufficient_scope = insufficient_scope


class AuthError(GatewayError):
    """Reddit refuses the bot's credentials or token; nothing works until an operator acts."""


class GatewayConfigError(ValueError):
    """The ``[reddit]`` settings cannot make a client; the message names the key."""


class TokenStore(Protocol):
    """Where an access token outlives the process (see :mod:`bot.reddit.state`)."""

    def load(self, fingerprint: str) -> tuple[str, datetime, frozenset[str]] | None:
        """The cached (token, expiry, scopes) for these credentials, if any."""
        ...

    def save(self, fingerprint: str, token: str, expires_at: datetime, now: datetime,
             scopes: frozenset[str]) -> None:
        """Remember a fresh token and the scopes Reddit granted it."""
        ...


class ImageUploadFailed(Exception):
    """An image for a post could not be uploaded; the post itself was not sent.

    ``transient``: the failure may pass (a storage 403 or 5xx, a timeout, a failed upload
    lease), so a later attempt may upload it; otherwise (a picture too large, a file type
    Reddit does not take) no attempt will."""

    def __init__(self, message: str, *, transient: bool = False) -> None:
        super().__init__(message)
        self.transient = transient


class UncertainOutcome(Exception):
    """A POST whose answer never came (or was a 5xx): it may have been performed."""


# --------------------------------------------------------------------------- the protocol

class RedditGateway(Protocol):
    """What the bot asks of Reddit. Every method raises only :class:`GatewayError`s."""

    @property
    def username(self) -> str:
        """The bot account's name."""
        ...

    def conversations(self, state: str) -> Iterator[Conversation]:
        """The subreddit's modmail in folder ``state``, most recently updated first, paging
        lazily (a page is fetched only when the previous one is used up)."""
        ...

    def conversation(self, conversation_id: str) -> Conversation:
        """One conversation with every message, oldest first."""
        ...

    def reply(self, conversation_id: str, body: str, *, internal: bool = False) -> Sent:
        """Reply in a modmail conversation as the subreddit (``internal``: a private
        moderator note); ``Sent.conversation`` is the whole conversation afterwards."""
        ...

    def start_conversation(self, recipient: str, subject: str, body: str) -> Sent:
        """Start a modmail conversation from the subreddit to a user (private news).
        An empty ``recipient`` (or a moderator) makes an internal moderator discussion."""
        ...

    def archive(self, conversation_id: str) -> None:
        """Archive a modmail conversation."""
        ...

    def submit(self, title: str, body: str, flair: str | None = None) -> Sent:
        """A self post in the subreddit, with the link flair whose text is ``flair``."""
        ...

    def submit_image(self, title: str, body: str, flair: str | None, *, image: bytes,
                     name: str, caption: str = "") -> Sent:
        """A self post with the picture ``image`` (file name ``name``) inline above the text.
        Raises :class:`ImageUploadFailed` when the upload failed and nothing was posted."""
        ...

    def recent_submissions(self, limit: int = 100) -> list[Thing]:
        """The bot's newest posts."""
        ...

    def recent_comments(self, limit: int = 100) -> list[Thing]:
        """The bot's newest comments."""
        ...

    def thing(self, fullname: str) -> Thing | None:
        """A post or comment by fullname; None if it does not exist."""
        ...

    def unread_mentions(self, limit: int = 100) -> list[Mention]:
        """Unread comments in the inbox that mention the bot, newest first."""
        ...

    def mark_read(self, fullnames: Sequence[str]) -> None:
        """Mark inbox items read."""
        ...

    def unread_counts(self) -> dict[str, int]:
        """How many unread modmail conversations each folder holds (one request)."""
        ...

    def mark_conversations_read(self, conversation_ids: Sequence[str]) -> None:
        """Mark modmail conversations read for the bot (one request for all of them)."""
        ...

    def reply_comment(self, fullname: str, body: str) -> Sent:
        """Reply to a comment; ``Sent.reddit_id`` is the new comment's fullname."""
        ...

    def delete(self, fullname: str) -> None:
        """Delete the bot's own post (``t3_``) or comment (``t1_``); deleting one that is
        already gone does nothing."""
        ...

    def put_text_widget(self, name: str, text: str) -> Sent:
        """Make the sidebar's text area widget called ``name`` show ``text``: the first one
        of that name is updated (never a second added), else one is added at the end;
        ``Sent.reddit_id`` is the widget's id."""
        ...


# --------------------------------------------------------------------------- requestor

class BudgetedRequestor(Requestor):
    """A prawcore requestor that spends the request budget, applies our timeout, and makes
    a failed POST fail once instead of letting prawcore repeat it."""

    def __init__(
        self,
        *args: Any,
        budget: RequestBudget | None = None,
        request_timeout: float | None = None,
        plain_http_hosts: frozenset[str] = frozenset(),
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.budget = budget
        self.request_timeout = request_timeout
        # PRAW always uploads media over https ("https:" + the lease's action); a local
        # Reddit-compatible server (the sandbox) named in a plain-http oauth_url gets http.
        self.plain_http_hosts = plain_http_hosts

    def request(self, *args: Any, timeout: float | None = None, **kwargs: Any) -> Any:
        """Issue one HTTP request (see the class docstring)."""
        method = str(args[0] if args else kwargs.get("method", "GET")).upper()
        url = str(args[1] if len(args) > 1 else kwargs.get("url", ""))
        guarded = method == "POST" and not url.split("?")[0].endswith(TOKEN_PATH)
        if url.startswith("https://") and len(args) > 1 and \
                url[len("https://"):].split("/")[0] in self.plain_http_hosts:
            args = (args[0], "http://" + url[len("https://"):], *args[2:])
        if self.budget is not None:
            self.budget.acquire()
        try:
            response = super().request(
                *args, timeout=self.request_timeout or timeout, **kwargs
            )
        except prawcore.RequestException as exc:
            if guarded and isinstance(exc.original_exception, _RETRY_EXCEPTIONS):
                raise prawcore.RequestException(
                    UncertainOutcome(f"{method} {url}: {exc.original_exception!r}"),
                    args, kwargs) from None
            raise
        if self.budget is not None:
            self.budget.observe(*parse_ratelimit_headers(response.headers))
        if guarded and response.status_code in _RETRY_STATUSES:
            raise prawcore.RequestException(
                UncertainOutcome(f"{method} {url}: HTTP {response.status_code}"), args, kwargs)
        return response


# --------------------------------------------------------------------------- translation

def ratelimit_seconds(message: str, default: float = 60.0) -> float:
    """The wait in Reddit's "try again in 9 minutes" text, in seconds (at least 1)."""
    found = _RATELIMIT_WAIT.search(message or "")
    if not found:
        return default
    amount = int(found.group(1))
    unit = found.group(2).lower()
    seconds = {"millisecond": amount / 1000, "second": amount, "minute": amount * 60,
               "hour": amount * 3600}[unit]
    return max(1.0, float(seconds))


def _header_wait(response: Any, default: float = 60.0) -> float:
    headers = getattr(response, "headers", None) or {}
    for name in ("retry-after", "x-ratelimit-reset"):
        value = headers.get(name)
        if value is not None:
            try:
                return max(1.0, float(value))
            except ValueError:
                continue
    return default


def translate(exc: BaseException) -> GatewayError:
    """The gateway failure for an exception raised by PRAW, prawcore or the budget."""
    if isinstance(exc, GatewayError):
        return exc
    if isinstance(exc, BudgetExhausted):
        return RateLimited(str(exc), exc.wait_seconds)
    if isinstance(exc, RedditAPIException):
        for item in exc.items:
            if item.error_type == "RATELIMIT":
                return RateLimited(f"RATELIMIT: {item.message}",
                                   ratelimit_seconds(item.message or ""))
        text = "; ".join(f"{i.error_type}: {i.message}" for i in exc.items)
        return PermanentError(text or str(exc),
                              systemic=any(i.error_type in SYSTEMIC_CODES for i in exc.items))
    if isinstance(exc, prawcore.TooManyRequests):
        return RateLimited("HTTP 429 Too Many Requests", _header_wait(exc.response))
    if isinstance(exc, prawcore.InvalidToken | prawcore.OAuthException):
        return AuthError(f"Reddit refused the bot's credentials: {exc}")
    if isinstance(exc, prawcore.ServerError):
        return TransientError(f"Reddit server error: {exc}")
    if isinstance(exc, prawcore.RequestException):
        original = exc.original_exception
        if isinstance(original, BudgetExhausted):
            return RateLimited(str(original), original.wait_seconds)
        return TransientError(f"no answer from Reddit: {_no_answer(original)}",
                              uncertain=isinstance(original, UncertainOutcome))
    if isinstance(exc, prawcore.Forbidden | prawcore.NotFound | prawcore.Redirect
                  | prawcore.UnavailableForLegalReasons | prawcore.TooLarge
                  | prawcore.URITooLong | prawcore.BadRequest | prawcore.InsufficientScope
                  | prawcore.Conflict):
        response = getattr(exc, "response", None)
        status = getattr(response, "status_code", "?")
        reason = _reason(response)
        if isinstance(exc, prawcore.InsufficientScope):
            return PermanentError(
                f"Reddit refused (HTTP {status}): the bot's login lacks the OAuth scope "
                "this needs (insufficient_scope)", insufficient_scope=True)
        systemic = isinstance(exc, prawcore.Forbidden) or reason in SYSTEMIC_CODES
        return PermanentError(
            f"Reddit refused (HTTP {status}): {type(exc).__name__}"
            + (f" {reason}" if reason else ""), systemic=systemic)
    if isinstance(exc, prawcore.ResponseException):
        status = getattr(exc.response, "status_code", "?")
        if status == 401:  # the token endpoint refuses the app's id or secret
            return AuthError("Reddit refused the bot's credentials (HTTP 401: check "
                             "[reddit] client_id and client_secret)")
        return TransientError(f"unexpected answer from Reddit (HTTP {status})")
    if isinstance(exc, PRAWException | prawcore.PrawcoreException):
        return TransientError(f"{type(exc).__name__}: {exc}")
    return TransientError(f"{type(exc).__name__}: {exc}")


def _no_answer(original: BaseException) -> str:
    """Why a request got no answer, in words (never a raw exception's repr)."""
    if isinstance(original, UncertainOutcome):
        return str(original)
    if isinstance(original, requests.exceptions.Timeout):
        return "it did not answer in time (a timeout)"
    if isinstance(original, requests.exceptions.SSLError):
        return "the secure connection failed (SSL)"
    if isinstance(original, requests.exceptions.ConnectionError):
        text = str(original).lower()
        if "name or service" in text or "nodename" in text or "resolve" in text:
            return "its address could not be looked up (DNS; is the machine online?)"
        if "refused" in text:
            return "the connection was refused (is [reddit] oauth_url right?)"
        return "the connection failed (is the machine online?)"
    return type(original).__name__


def _reason(response: Any) -> str:
    """The ``reason`` (or ``error``) code of a refusal's JSON body, if it has one."""
    try:
        body = response.json() if response is not None else None
    except ValueError:
        return ""
    if isinstance(body, Mapping):
        return str(body.get("reason") or body.get("error") or "")
    return ""


def _translated(call: Callable[[], T]) -> T:
    try:
        return call()
    except (PRAWException, prawcore.PrawcoreException, BudgetExhausted) as exc:
        raise translate(exc) from exc


# --------------------------------------------------------------------------- parsing

def _author_name(author: Any) -> str:
    if isinstance(author, Mapping):
        return str(author.get("name") or "")
    return str(getattr(author, "name", "") or "")


def parse_message(data: Mapping[str, Any]) -> ModmailMessage:
    """A modmail message from its JSON object."""
    author = data.get("author") or {}
    return ModmailMessage(
        id=str(data["id"]),
        author=_author_name(author),
        author_is_mod=bool(author.get("isMod")) if isinstance(author, Mapping) else False,
        body=str(data.get("bodyMarkdown") or ""),
        date=str(data.get("date") or ""),
        is_internal=bool(data.get("isInternal")),
    )


def parse_conversation(summary: Mapping[str, Any], messages: Mapping[str, Any]) -> Conversation:
    """A conversation from its JSON object and the ``messages`` map next to it."""
    found = []
    for ref in summary.get("objIds") or ():
        if ref.get("key") == "messages" and ref.get("id") in messages:
            found.append(parse_message(messages[ref["id"]]))
    owner = summary.get("owner") or {}
    participant = summary.get("participant") or {}
    return Conversation(
        id=str(summary["id"]),
        subject=str(summary.get("subject") or ""),
        subreddit=str(owner.get("displayName") or ""),
        is_auto=bool(summary.get("isAuto")),
        is_internal=bool(summary.get("isInternal")),
        state=int(summary.get("state") or 0),
        num_messages=int(summary.get("numMessages") or len(found)),
        last_updated=str(summary.get("lastUpdated") or ""),
        participant=_author_name(participant) or None,
        messages=tuple(found),
    )


def _api_errors(answer: Any) -> None:
    """Raise the API errors a 200 answer may carry (raw requests skip PRAW's check)."""
    if isinstance(answer, Mapping):
        inner = answer.get("json")
        errors = inner.get("errors") if isinstance(inner, Mapping) else None
        if errors:
            raise RedditAPIException([list(e) for e in errors])


def _thing_from(obj: Any) -> Thing:
    fullname = str(obj.fullname)
    is_post = fullname.startswith("t3_")
    author = getattr(obj, "author", None)
    subreddit = getattr(obj, "subreddit", None)
    return Thing(
        fullname=fullname,
        author=_author_name(author) or None,
        subreddit=str(getattr(subreddit, "display_name", subreddit) or ""),
        title=str(getattr(obj, "title", "") or getattr(obj, "link_title", "") or ""),
        body=str((getattr(obj, "selftext", "") if is_post else getattr(obj, "body", "")) or ""),
        flair=getattr(obj, "link_flair_text", None) if is_post else None,
        permalink=str(getattr(obj, "permalink", "") or ""),
        created=created_at(getattr(obj, "created_utc", None)),
    )


def created_at(value: Any) -> datetime | None:
    """A ``created_utc`` (seconds since 1970) as a UTC time; None if missing or not a number."""
    try:
        seconds = float(value)
    except (TypeError, ValueError):
        return None
    if seconds != seconds or seconds in (float("inf"), float("-inf")):
        return None
    try:
        return datetime.fromtimestamp(seconds, tz=UTC)
    except (OverflowError, OSError, ValueError):
        return None


# --------------------------------------------------------------------------- PRAW

class PrawGateway:
    """:class:`RedditGateway` over a ``praw.Reddit`` client for one subreddit.

    The client is not shared between threads by the bot (the runner serialises Reddit work),
    but a lock guards it anyway: PRAW itself is not thread-safe.
    """

    def __init__(self, reddit: praw.Reddit, subreddit: str, *, username: str = "",
                 budget: RequestBudget | None = None, token_store: TokenStore | None = None,
                 fingerprint: str = "") -> None:
        self.reddit = reddit
        self.subreddit = subreddit
        self.budget = budget
        self.token_store = token_store
        self.fingerprint = fingerprint
        self._username = username
        self._flairs: dict[str, str] | None = None
        self._lock = threading.RLock()
        self._token_loaded = False
        self._saved_token: str | None = None
        self.logins = 0  # access tokens fetched by this process (not reused ones)

    @property
    def username(self) -> str:
        """The bot's account name (asked once from ``/api/v1/me`` if not configured)."""
        if not self._username:
            with self._lock:
                me = _translated(lambda: self.reddit.request(method="GET", path="api/v1/me"))
            self._username = str(me.get("name") or "") if isinstance(me, Mapping) else ""
            if not self._username:
                raise AuthError("Reddit did not say who the bot is (/api/v1/me)")
        return self._username

    def _authorizer(self) -> Any:
        core = getattr(self.reddit, "_core", None)
        return getattr(core, "_authorizer", None)

    def _reuse_token(self) -> None:
        """Before the first request: take the token a previous process left, if still good."""
        self._token_loaded = True
        authorizer = self._authorizer()
        if self.token_store is None or authorizer is None:
            return
        try:
            cached = self.token_store.load(self.fingerprint)
        except Exception:
            log.exception("could not read the cached Reddit token; logging in")
            return
        if cached is None:
            return
        token, expires_at, scopes = cached
        left = (expires_at - datetime.now(UTC)).total_seconds() - 60
        if left <= 0 or not scopes:  # a token cached without its scopes: log in afresh
            return
        authorizer.access_token = token
        authorizer.scopes = set(scopes)
        authorizer._expiration_timestamp_ns = time.monotonic_ns() + int(left * 1e9)
        self._saved_token = token
        log.info("reusing the Reddit access token of an earlier process (%d s left)", left)

    def _keep_token(self) -> None:
        """After a request: if prawcore fetched a new token, count it and store it."""
        authorizer = self._authorizer()
        token = getattr(authorizer, "access_token", None)
        if not token or token == self._saved_token:
            return
        self._saved_token = token
        self.logins += 1
        if self.token_store is None:
            return
        left_ns = getattr(authorizer, "_expiration_timestamp_ns", 0) - time.monotonic_ns()
        now = datetime.now(UTC)
        try:
            self.token_store.save(self.fingerprint, token,
                                  now + timedelta(seconds=max(0, left_ns / 1e9)), now,
                                  frozenset(getattr(authorizer, "scopes", None) or ()))
        except Exception as exc:  # e.g. a lapsed lease refuses the write: one line is enough
            log.warning("could not cache the Reddit token (%s); the next process logs in", exc)

    def _call(self, fn: Callable[[], T]) -> T:
        with self._lock:
            if not self._token_loaded:
                self._reuse_token()
            try:
                return _translated(fn)
            finally:
                self._keep_token()

    def conversations(self, state: str) -> Iterator[Conversation]:
        """See :meth:`RedditGateway.conversations`."""
        after: str | None = None
        while True:
            params: dict[str, str | int] = {"entity": self.subreddit, "sort": "recent",
                                            "state": state, "limit": 100}
            if after:
                params["after"] = after
            page = self._call(functools.partial(
                self.reddit.request, method="GET", path="api/mod/conversations", params=params))
            ids = list(page.get("conversationIds") or ()) if isinstance(page, Mapping) else []
            if not ids:
                return
            summaries = page.get("conversations") or {}
            messages = page.get("messages") or {}
            for conversation_id in ids:
                yield parse_conversation(summaries[conversation_id], messages)
            if len(ids) < 100:
                return
            after = ids[-1]

    def conversation(self, conversation_id: str) -> Conversation:
        """See :meth:`RedditGateway.conversation`."""
        data = self._call(lambda: self.reddit.request(
            method="GET", path=f"api/mod/conversations/{conversation_id}"))
        return parse_conversation(data["conversation"], data.get("messages") or {})

    def reply(self, conversation_id: str, body: str, *, internal: bool = False) -> Sent:
        """See :meth:`RedditGateway.reply`."""
        form = {"body": body, "isAuthorHidden": False, "isInternal": internal}
        answer = self._call(lambda: self.reddit.request(
            method="POST", path=f"api/mod/conversations/{conversation_id}", data=form))
        self._call(lambda: _api_errors(answer))
        conversation = parse_conversation(answer["conversation"], answer.get("messages") or {})
        newest = answer["conversation"]["objIds"][-1]["id"]
        return Sent(str(newest), conversation)

    def start_conversation(self, recipient: str, subject: str, body: str) -> Sent:
        """See :meth:`RedditGateway.start_conversation`."""
        form = {"srName": self.subreddit, "subject": subject[:100], "body": body,
                "to": recipient, "isAuthorHidden": False}
        answer = self._call(lambda: self.reddit.request(
            method="POST", path="api/mod/conversations", data=form))
        self._call(lambda: _api_errors(answer))
        conversation = parse_conversation(answer["conversation"], answer.get("messages") or {})
        return Sent(conversation.id, conversation)

    # ------------------------------------------------------------ preflight (maester check)

    def me(self) -> str:
        """Log in and ask Reddit who the bot is (``/api/v1/me``)."""
        me = self._call(lambda: self.reddit.request(method="GET", path="api/v1/me"))
        name = str(me.get("name") or "") if isinstance(me, Mapping) else ""
        if not name:
            raise AuthError("Reddit did not say who the bot is (/api/v1/me)")
        self._username = self._username or name
        return name

    def scopes(self) -> set[str]:
        """The scopes of the current access token (``*``: a script app's password login)."""
        return set(getattr(self._authorizer(), "scopes", None) or ())

    def fresh_scopes(self) -> set[str]:
        """Log in afresh and return the scopes Reddit grants that login (never the
        scopes of a token cached by an earlier process)."""

        def login() -> set[str]:
            authorizer = self._authorizer()
            if authorizer is None:
                return set()
            authorizer.refresh()
            return set(getattr(authorizer, "scopes", None) or ())

        return self._call(login)

    def _scope_probes(self) -> dict[str, Callable[[], Any]]:
        """A harmless call (a GET that changes nothing) needing each scope that has one.
        ``submit`` and ``edit`` have none: only what Reddit granted can be read for them."""
        bot = self.username

        def get(path: str, **params: Any) -> Callable[[], Any]:
            return functools.partial(self.reddit.request, method="GET", path=path,
                                     params=params or None)

        return {"identity": get("api/v1/me"),
                "modmail": get("api/mod/conversations/unread/count"),
                "read": get(f"r/{self.subreddit}/about"),
                "history": get(f"user/{bot}/submitted", limit=1),
                "privatemessages": get("message/unread", limit=1),
                "flair": get(f"r/{self.subreddit}/api/link_flair_v2")}

    def check_scopes(self, wanted: Sequence[str]) -> dict[str, tuple[bool | None, str]]:
        """For each scope in ``wanted``: (True, how it was checked) when the token has it,
        (False, why not) when it lacks it, (None, why) when it could not be told. A scope
        with a harmless call is tried with it; the others are read from what Reddit grants
        a fresh login. Raises :class:`GatewayError` when the fresh login fails."""
        granted = self.fresh_scopes()
        out: dict[str, tuple[bool | None, str]] = {}
        probes = self._scope_probes()
        for scope in wanted:
            has = "*" in granted or scope in granted
            probe = probes.get(scope)
            if probe is None:
                out[scope] = (has, "granted to a fresh login" if has else
                              "not granted to a fresh login")
                continue
            try:
                self._call(probe)
            except PermanentError as exc:
                if exc.insufficient_scope:
                    out[scope] = (False, "a call that needs it was refused "
                                         "(insufficient_scope)")
                else:  # refused for another reason (a permission): the grant decides
                    out[scope] = (has, "granted to a fresh login" if has else
                                  "not granted to a fresh login")
                continue
            except (TransientError, RateLimited) as exc:
                out[scope] = (None, f"could not be tried: {exc}")
                continue
            out[scope] = (True, "a call that needs it worked")
        return out

    def subreddit_about(self) -> Mapping[str, Any]:
        """``/r/SUB/about``: whether it exists, the bot moderates it, is banned there."""
        about = self._call(lambda: self.reddit.request(
            method="GET", path=f"r/{self.subreddit}/about"))
        data = about.get("data") if isinstance(about, Mapping) else None
        return data if isinstance(data, Mapping) else {}

    def moderator_permissions(self, name: str) -> list[str] | None:
        """The moderator permissions of ``name`` on the subreddit (None: not a moderator)."""
        listing = self._call(lambda: self.reddit.request(
            method="GET", path=f"r/{self.subreddit}/about/moderators"))
        data = listing.get("data") if isinstance(listing, Mapping) else None
        for child in (data or {}).get("children") or ():
            if str(child.get("name", "")).lower() == name.lower():
                return [str(p) for p in child.get("mod_permissions") or ()]
        return None

    def link_flairs(self) -> list[Mapping[str, Any]]:
        """The subreddit's link flair templates."""
        templates = self._call(lambda: self.reddit.request(
            method="GET", path=f"r/{self.subreddit}/api/link_flair_v2"))
        return [t for t in templates or () if isinstance(t, Mapping)]

    def modmail_page(self) -> int:
        """How many conversations the first page of modmail holds (the listing works)."""
        page = self._call(lambda: self.reddit.request(
            method="GET", path="api/mod/conversations",
            params={"entity": self.subreddit, "state": "all", "limit": 10}))
        return len(page.get("conversationIds") or ()) if isinstance(page, Mapping) else 0

    def archive(self, conversation_id: str) -> None:
        """See :meth:`RedditGateway.archive`."""
        self._call(lambda: self.reddit.request(
            method="POST", path=f"api/mod/conversations/{conversation_id}/archive"))

    def _flair_id(self, text: str) -> str | None:
        if self._flairs is None:
            templates = self._call(lambda: self.reddit.request(
                method="GET", path=f"r/{self.subreddit}/api/link_flair_v2"))
            self._flairs = {str(t.get("text", "")).lower(): str(t["id"])
                            for t in templates or () if isinstance(t, Mapping) and "id" in t}
        return self._flairs.get(text.lower())

    def submit(self, title: str, body: str, flair: str | None = None) -> Sent:
        """See :meth:`RedditGateway.submit`. An unknown flair is left off (and logged)."""
        flair_id = None
        if flair:
            flair_id = self._flair_id(flair)
            if flair_id is None:
                log.warning("r/%s has no link flair %r: posting without it", self.subreddit,
                            flair)
        post = self._call(lambda: self.reddit.subreddit(self.subreddit).submit(
            title=title[:300], selftext=body, flair_id=flair_id, send_replies=False))
        return Sent(f"t3_{post.id}")

    def submit_image(self, title: str, body: str, flair: str | None, *, image: bytes,
                     name: str, caption: str = "") -> Sent:
        """See :meth:`RedditGateway.submit_image`: PRAW's inline media (a media asset lease,
        the upload to the URL it names, then the submission as rich text)."""
        flair_id = self._flair_id(flair) if flair else None
        kind = InlineGif if name.lower().endswith(".gif") else InlineImage
        inline = kind(media=PostMedia(image, name), caption=caption[:180] or None)
        # PRAW fills the placeholder with str.format: the text's own braces are doubled.
        text = "{map}\n\n" + body.replace("{", "{{").replace("}", "}}")
        try:
            post = self._call(lambda: self.reddit.subreddit(self.subreddit).submit(
                title=title[:300], selftext=text, inline_media={"map": inline},
                flair_id=flair_id, send_replies=False))
        except (RateLimited, AuthError):
            raise
        except PermanentError as exc:
            if exc.systemic or inline.media_id is not None:
                raise
            raise ImageUploadFailed(str(exc)) from exc
        except Exception as exc:
            if inline.media_id is None:  # PRAW sets it only once the upload succeeded
                raise ImageUploadFailed(
                    f"{type(exc).__name__}: {exc}",
                    transient=isinstance(exc, TransientError)
                    and not isinstance(exc.__cause__, ClientException)) from exc
            raise
        return Sent(f"t3_{post.id}")

    def recent_submissions(self, limit: int = 100) -> list[Thing]:
        """See :meth:`RedditGateway.recent_submissions`."""
        name = self.username
        return self._call(lambda: [_thing_from(p) for p in
                                   self.reddit.redditor(name).submissions.new(limit=limit)])

    def recent_comments(self, limit: int = 100) -> list[Thing]:
        """See :meth:`RedditGateway.recent_comments`."""
        name = self.username
        return self._call(lambda: [_thing_from(c) for c in
                                   self.reddit.redditor(name).comments.new(limit=limit)])

    def thing(self, fullname: str) -> Thing | None:
        """See :meth:`RedditGateway.thing`."""
        found = self._call(lambda: [_thing_from(t) for t in
                                    self.reddit.info(fullnames=[fullname])])
        return found[0] if found else None

    def unread_mentions(self, limit: int = 100) -> list[Mention]:
        """See :meth:`RedditGateway.unread_mentions`."""

        def read() -> list[Mention]:
            out = []
            for item in self.reddit.inbox.unread(limit=limit):
                kind = getattr(item, "type", "") or ""
                subject = str(getattr(item, "subject", "") or "")
                if kind != "username_mention" and subject != "username mention":
                    continue
                subreddit = getattr(item, "subreddit", None)
                out.append(Mention(
                    fullname=str(item.fullname),
                    author=_author_name(getattr(item, "author", None)) or None,
                    subreddit=str(getattr(subreddit, "display_name", subreddit) or ""),
                    body=str(getattr(item, "body", "") or ""),
                    created=created_at(getattr(item, "created_utc", None))))
            return out

        return self._call(read)

    def mark_read(self, fullnames: Sequence[str]) -> None:
        """See :meth:`RedditGateway.mark_read`."""
        if fullnames:
            form = {"id": ",".join(fullnames)}
            self._call(lambda: self.reddit.request(method="POST", path="api/read_message",
                                                   data=form))

    def unread_counts(self) -> dict[str, int]:
        """See :meth:`RedditGateway.unread_counts`."""
        counts = self._call(lambda: self.reddit.request(
            method="GET", path="api/mod/conversations/unread/count"))
        if not isinstance(counts, Mapping):
            return {}
        out: dict[str, int] = {}
        for folder, count in counts.items():
            try:
                out[str(folder)] = int(count)
            except (TypeError, ValueError):
                continue
        return out

    def mark_conversations_read(self, conversation_ids: Sequence[str]) -> None:
        """See :meth:`RedditGateway.mark_conversations_read`."""
        if conversation_ids:
            form = {"conversationIds": ",".join(conversation_ids)}
            self._call(lambda: self.reddit.request(
                method="POST", path="api/mod/conversations/read", data=form))

    def reply_comment(self, fullname: str, body: str) -> Sent:
        """See :meth:`RedditGateway.reply_comment`."""
        comment = self._call(lambda: self.reddit.comment(fullname.removeprefix("t1_"))
                             .reply(body=body))
        if comment is None:
            raise PermanentError(f"Reddit did not create the reply to {fullname}")
        return Sent(str(comment.fullname))

    def delete(self, fullname: str) -> None:
        """See :meth:`RedditGateway.delete` (PRAW's ``delete``: ``POST /api/del``)."""
        kind, _, thing_id = fullname.partition("_")
        if kind not in ("t3", "t1") or not thing_id:
            raise PermanentError(f"{fullname!r} is not a post or comment to delete")
        thing = self.reddit.submission(thing_id) if kind == "t3" else \
            self.reddit.comment(thing_id)
        self._call(thing.delete)

    def put_text_widget(self, name: str, text: str) -> Sent:
        """See :meth:`RedditGateway.put_text_widget` (PRAW's ``subreddit.widgets``: one read
        of the widgets, then ``widget.mod.update`` or ``widgets.mod.add_text_area``)."""

        def put() -> str:
            widgets = self.reddit.subreddit(self.subreddit).widgets
            for widget in widgets.sidebar:
                if getattr(widget, "kind", "") == "textarea" \
                        and str(getattr(widget, "shortName", "")) == name:
                    if getattr(widget, "text", None) != text:
                        widget.mod.update(text=text)
                    return str(widget.id)
            return str(widgets.mod.add_text_area(short_name=name[:30], text=text,
                                                 styles=dict(WIDGET_STYLES)).id)

        return Sent(self._call(put))


def user_agent_problem(agent: str) -> str | None:
    """Why Reddit would throttle this user agent (None: it is fine)."""
    if not USER_AGENT_FORMAT.match(agent):
        return ("must read <platform>:<app ID>:<version> (by /u/<username>), e.g. "
                "'python:maester-campaign.maester_bot:v0.1.0 (by /u/your_name)'")
    if _GENERIC_AGENTS.search(agent):
        return "is generic (a library's or a placeholder's name); Reddit throttles those"
    return None


def user_agent(settings: Settings) -> str:
    """The user agent: ``[reddit] user_agent`` if set (checked), else built from the config
    as ``python:maester-campaign.<bot>:v<version> (by /u/<operator>)``, the operator being
    ``[reddit] operator`` or the first of ``[campaign] moderators``.

    Raises :class:`GatewayConfigError` for a generic agent or when nobody can be named.
    """
    configured = settings.reddit.user_agent.strip()
    if configured:
        problem = user_agent_problem(configured)
        if problem:
            raise GatewayConfigError(f"reddit.user_agent: {configured!r} {problem}")
        return configured
    operator = settings.reddit.operator or next(iter(settings.campaign.moderators), "")
    operator = operator.strip().removeprefix("/").removeprefix("u/")
    if not operator:
        raise GatewayConfigError("reddit.operator: required to build the user agent (the "
                                 "moderator who runs the bot), or list [campaign] moderators")
    bot = settings.reddit.username or settings.campaign.subreddit
    agent = f"python:maester-campaign.{bot}:v{__version__} (by /u/{operator})"
    problem = user_agent_problem(agent)
    if problem:
        raise GatewayConfigError(f"reddit.operator: the user agent {agent!r} {problem}")
    return agent


def credentials_fingerprint(settings: Settings) -> str:
    """A hash naming the app and login (never stored in clear next to the token)."""
    r = settings.reddit
    text = json.dumps([r.client_id, r.username.lower(), r.refresh_token or r.password,
                       r.oauth_url, r.reddit_url])
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


def _plain_http_hosts(oauth_url: str) -> frozenset[str]:
    parts = urlsplit(oauth_url)
    return frozenset({parts.netloc}) if parts.scheme == "http" and parts.netloc else frozenset()


def praw_gateway(
    settings: Settings,
    *,
    budget: RequestBudget | None = None,
    timeout: float | None = None,
    token_store: TokenStore | None = None,
    **praw_settings: Any,
) -> PrawGateway:
    """A :class:`PrawGateway` made from ``[reddit]``, ``[bot]`` and ``[campaign]`` settings.

    Uses a refresh token when one is configured, else the username and password (a script
    app). ``budget`` defaults to ``[bot] requests_per_minute``; ``timeout`` (seconds) to
    ``[reddit] timeout_seconds``. ``token_store`` keeps the access token between
    processes (a cron round reuses it instead of logging in again). Nothing is sent to
    Reddit until the first call. Raises :class:`GatewayConfigError` naming the missing key
    (or a generic user agent).
    """
    reddit_settings = settings.reddit
    if not reddit_settings.client_id:
        raise GatewayConfigError("reddit.client_id: required (the script app's id; or set "
                                 "MAESTER_REDDIT_CLIENT_ID)")
    credentials: dict[str, str] = {}
    if reddit_settings.refresh_token:
        credentials["refresh_token"] = reddit_settings.refresh_token
    elif reddit_settings.username and reddit_settings.password:
        credentials["username"] = reddit_settings.username
        credentials["password"] = reddit_settings.password
    else:
        raise GatewayConfigError("reddit.password: required with reddit.username (or set "
                                 "reddit.refresh_token)")
    if budget is None:
        budget = RequestBudget(settings.bot.requests_per_minute)
    reddit = praw.Reddit(
        client_id=reddit_settings.client_id,
        client_secret=reddit_settings.client_secret or None,
        user_agent=user_agent(settings),
        oauth_url=reddit_settings.oauth_url.rstrip("/"),
        reddit_url=reddit_settings.reddit_url.rstrip("/"),
        check_for_updates=False,
        ratelimit_seconds=0,
        requestor_class=BudgetedRequestor,
        requestor_kwargs={"budget": budget,
                          "request_timeout": timeout or float(reddit_settings.timeout_seconds),
                          "plain_http_hosts": _plain_http_hosts(reddit_settings.oauth_url)},
        **credentials,
        **praw_settings,
    )
    return PrawGateway(reddit, settings.campaign.subreddit,
                       username=reddit_settings.username if "username" in credentials else "",
                       budget=budget, token_store=token_store,
                       fingerprint=credentials_fingerprint(settings))
