"""The sandbox's HTTP face: Reddit's OAuth and API routes, faults, counting and control.

``RedditSandbox`` is a :class:`~bot.sandbox.world.SandboxWorld` that also serves HTTP on
127.0.0.1 from a background thread (``with RedditSandbox() as sandbox: ...``). Real PRAW
talks to it with ``oauth_url`` and ``reddit_url`` set to :attr:`RedditSandbox.url`.
"""

from __future__ import annotations

import base64
import binascii
import json
import logging
import re
import threading
import time
import traceback
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from bot.sandbox import media
from bot.sandbox.control import handle_control
from bot.sandbox.faults import TOKEN_PATH, Fault, FaultKind, FaultPlan, FaultRule
from bot.sandbox.views import RequestRecord
from bot.sandbox.world import ApiFailure, SandboxWorld

log = logging.getLogger(__name__)

DEFAULT_CLIENT_ID = "sandbox-client-id"
DEFAULT_CLIENT_SECRET = "sandbox-client-secret"
CONTROL_PREFIX = "/_sandbox/"
_INVALID_TOKEN_HEADER = 'Bearer realm="reddit", error="invalid_token"'
_INSUFFICIENT_SCOPE_HEADER = 'Bearer realm="reddit", error="insufficient_scope"'
#: The OAuth scope each route needs, as Reddit's API documentation lists it.
ROUTE_SCOPES = {
    "me": "identity",
    "modmail.create": "modmail",
    "modmail.get": "modmail",
    "modmail.list": "modmail",
    "modmail.read": "modmail",
    "modmail.reply": "modmail",
    "modmail.state": "modmail",
    "modmail.unread": "modmail",
    "modmail.unread_count": "modmail",
    "submit": "submit",
    "media.asset": "submit",  # the image upload lease belongs to posting
    "convert_rte": "submit",
    "comment": "submit",
    "del": "edit",
    "compose": "privatemessages",
    "inbox": "privatemessages",
    "read_message": "privatemessages",
    "info": "read",
    "comments": "read",
    "subreddit.about": "read",
    "subreddit.moderators": "read",
    "subreddit.new": "read",
    "user.about": "read",
    "user.comments": "history",
    "user.submitted": "history",
    "subreddit.link_flair": "flair",
    "widgets": "structuredstyles",
    "widget.create": "structuredstyles",
    "widget.modify": "structuredstyles",
}


@dataclass(slots=True)
class _Request:
    method: str
    path: str
    params: dict[str, str]
    form: dict[str, str]
    json_body: Any
    headers: Mapping[str, str]
    raw: bytes = b""


@dataclass(slots=True)
class _Response:
    status: int
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    held: bool = False  # held until release_held() (a STORED_THEN_HELD fault)


_Handler = Callable[["RedditSandbox", str, "re.Match[str]", _Request], _Response]


def _ok(body: Any, status: int = 200) -> _Response:
    return _Response(status, body)


def _no_content() -> _Response:
    return _Response(204)


_ROUTES: list[tuple[str, re.Pattern[str], str, _Handler]] = []


def _route(method: str, pattern: str, name: str) -> Callable[[_Handler], _Handler]:
    def register(handler: _Handler) -> _Handler:
        _ROUTES.append((method, re.compile(pattern + r"\Z"), name, handler))
        return handler

    return register


_CONVERSATION = r"/api/mod/conversations/(?P<id>[0-9a-z]+)"


@_route("GET", r"/api/v1/me", "me")
def _me(s: RedditSandbox, viewer: str, m: re.Match[str], r: _Request) -> _Response:
    return _ok(s.api_me(viewer))


@_route("GET", r"/api/mod/conversations/unread/count", "modmail.unread_count")
def _modmail_unread_count(
    s: RedditSandbox, viewer: str, m: re.Match[str], r: _Request
) -> _Response:
    return _ok(s.api_modmail_unread_count(viewer))


@_route("POST", r"/api/mod/conversations/read", "modmail.read")
def _modmail_read(s: RedditSandbox, viewer: str, m: re.Match[str], r: _Request) -> _Response:
    s.api_modmail_mark(viewer, r.form, read=True)
    return _ok({})


@_route("POST", r"/api/mod/conversations/unread", "modmail.unread")
def _modmail_unread(s: RedditSandbox, viewer: str, m: re.Match[str], r: _Request) -> _Response:
    s.api_modmail_mark(viewer, r.form, read=False)
    return _ok({})


@_route("GET", r"/api/mod/conversations", "modmail.list")
def _modmail_list(s: RedditSandbox, viewer: str, m: re.Match[str], r: _Request) -> _Response:
    return _ok(s.api_modmail_list(viewer, r.params))


@_route("POST", r"/api/mod/conversations", "modmail.create")
def _modmail_create(s: RedditSandbox, viewer: str, m: re.Match[str], r: _Request) -> _Response:
    return _ok(s.api_modmail_create(viewer, r.form), 201)


@_route("GET", _CONVERSATION, "modmail.get")
def _modmail_get(s: RedditSandbox, viewer: str, m: re.Match[str], r: _Request) -> _Response:
    return _ok(s.api_modmail_get(viewer, m["id"], r.params))


@_route("POST", _CONVERSATION, "modmail.reply")
def _modmail_reply(s: RedditSandbox, viewer: str, m: re.Match[str], r: _Request) -> _Response:
    return _ok(s.api_modmail_reply(viewer, m["id"], r.form), 201)


@_route("POST", _CONVERSATION + r"/(?P<action>archive|unarchive|highlight)", "modmail.state")
def _modmail_state(s: RedditSandbox, viewer: str, m: re.Match[str], r: _Request) -> _Response:
    s.api_modmail_state(viewer, m["id"], m["action"])
    return _no_content()


@_route("DELETE", _CONVERSATION + r"/highlight", "modmail.state")
def _modmail_unhighlight(s: RedditSandbox, viewer: str, m: re.Match[str], r: _Request) -> _Response:
    s.api_modmail_state(viewer, m["id"], "unhighlight")
    return _no_content()


@_route("POST", r"/api/submit", "submit")
def _submit(s: RedditSandbox, viewer: str, m: re.Match[str], r: _Request) -> _Response:
    try:
        form, used = media.submit_form(s, r.form)  # rich text with inline media
    except ValueError as exc:
        return _ok({"json": {"errors": [["INVALID_MEDIA", str(exc), "richtext_json"]]}})
    answer = s.api_submit(viewer, form)
    media.record_post_media(s, str(answer["json"]["data"]["id"]), used)
    return _ok(answer)


@_route("POST", r"/api/media/asset", "media.asset")
def _media_asset(s: RedditSandbox, viewer: str, m: re.Match[str], r: _Request) -> _Response:
    return _ok(media.lease(s, r.form))


@_route("POST", r"/api/convert_rte_body_format", "convert_rte")
def _convert_rte(s: RedditSandbox, viewer: str, m: re.Match[str], r: _Request) -> _Response:
    return _ok(media.to_richtext(s.without_empty_links(r.form.get("markdown_text", ""))))


@_route("POST", r"/api/comment", "comment")
def _comment(s: RedditSandbox, viewer: str, m: re.Match[str], r: _Request) -> _Response:
    return _ok(s.api_comment(viewer, r.form))


@_route("POST", r"/api/del", "del")
def _delete(s: RedditSandbox, viewer: str, m: re.Match[str], r: _Request) -> _Response:
    return _ok(s.api_delete(viewer, r.form))


@_route("POST", r"/api/compose", "compose")
def _compose(s: RedditSandbox, viewer: str, m: re.Match[str], r: _Request) -> _Response:
    return _ok(s.api_compose(viewer, r.form))


@_route("POST", r"/api/(?P<which>read|unread)_message", "read_message")
def _read_message(s: RedditSandbox, viewer: str, m: re.Match[str], r: _Request) -> _Response:
    return _ok(s.api_mark_read(viewer, r.form, read=m["which"] == "read"))


@_route("GET", r"/api/info", "info")
def _info(s: RedditSandbox, viewer: str, m: re.Match[str], r: _Request) -> _Response:
    return _ok(s.api_info(viewer, r.params))


@_route(
    "GET", r"(?:/r/[A-Za-z0-9_]+)?/comments/(?P<id>[0-9a-z]+)(?:/[^/]*)?(?:/[0-9a-z]+)?", "comments"
)
def _comments(s: RedditSandbox, viewer: str, m: re.Match[str], r: _Request) -> _Response:
    return _ok(s.api_post_with_comments(viewer, m["id"]))


@_route("GET", r"/user/(?P<name>[^/]+)/submitted", "user.submitted")
def _user_submitted(s: RedditSandbox, viewer: str, m: re.Match[str], r: _Request) -> _Response:
    return _ok(s.api_user_submitted(viewer, m["name"], r.params))


@_route("GET", r"/user/(?P<name>[^/]+)/comments", "user.comments")
def _user_comments(s: RedditSandbox, viewer: str, m: re.Match[str], r: _Request) -> _Response:
    return _ok(s.api_user_comments(viewer, m["name"], r.params))


@_route("GET", r"/user/(?P<name>[^/]+)/about", "user.about")
def _user_about(s: RedditSandbox, viewer: str, m: re.Match[str], r: _Request) -> _Response:
    return _ok(s.api_user_about(viewer, m["name"]))


@_route("GET", r"/r/(?P<sub>[A-Za-z0-9_]+)/new", "subreddit.new")
def _subreddit_new(s: RedditSandbox, viewer: str, m: re.Match[str], r: _Request) -> _Response:
    return _ok(s.api_subreddit_new(viewer, m["sub"], r.params))


@_route("GET", r"/r/(?P<sub>[A-Za-z0-9_]+)/about", "subreddit.about")
def _subreddit_about(s: RedditSandbox, viewer: str, m: re.Match[str], r: _Request) -> _Response:
    return _ok(s.api_subreddit_about(viewer, m["sub"]))


@_route("GET", r"/r/(?P<sub>[A-Za-z0-9_]+)/about/moderators", "subreddit.moderators")
def _subreddit_mods(s: RedditSandbox, viewer: str, m: re.Match[str], r: _Request) -> _Response:
    return _ok(s.api_subreddit_moderators(viewer, m["sub"]))


@_route("GET", r"/r/(?P<sub>[A-Za-z0-9_]+)/api/link_flair_v2", "subreddit.link_flair")
def _link_flair(s: RedditSandbox, viewer: str, m: re.Match[str], r: _Request) -> _Response:
    return _ok(s.api_link_flair(viewer, m["sub"]))


_WIDGET = r"/r/(?P<sub>[A-Za-z0-9_]+)/api/widget/(?P<id>widget_[0-9a-z_-]+)"


@_route("GET", r"/r/(?P<sub>[A-Za-z0-9_]+)/api/widgets", "widgets")
def _widgets(s: RedditSandbox, viewer: str, m: re.Match[str], r: _Request) -> _Response:
    return _ok(s.api_widgets(viewer, m["sub"]))


@_route("POST", r"/r/(?P<sub>[A-Za-z0-9_]+)/api/widget", "widget.create")
def _widget_create(s: RedditSandbox, viewer: str, m: re.Match[str], r: _Request) -> _Response:
    return _ok(s.api_widget_create(viewer, m["sub"], r.form))


@_route("PUT", _WIDGET, "widget.modify")
def _widget_update(s: RedditSandbox, viewer: str, m: re.Match[str], r: _Request) -> _Response:
    return _ok(s.api_widget_update(viewer, m["sub"], m["id"], r.form))


@_route("DELETE", _WIDGET, "widget.modify")
def _widget_delete(s: RedditSandbox, viewer: str, m: re.Match[str], r: _Request) -> _Response:
    s.api_widget_delete(viewer, m["sub"], m["id"])
    return _no_content()


@_route("GET", r"/message/(?P<box>inbox|unread|mentions|messages|sent)", "inbox")
def _inbox(s: RedditSandbox, viewer: str, m: re.Match[str], r: _Request) -> _Response:
    return _ok(s.api_inbox(viewer, m["box"], r.params))


def normalize_path(raw_path: str) -> str:
    """The request path as routes and fault globs see it: no query, no ``.json``, no ``/``."""
    path = urlsplit(raw_path).path
    path = path.removesuffix("/").removesuffix(".json")
    return path or "/"


def _basic_auth(header: str | None) -> tuple[str | None, str | None]:
    if not header or not header.lower().startswith("basic "):
        return None, None
    try:
        decoded = base64.b64decode(header[6:].strip()).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return None, None
    user, _, password = decoded.partition(":")
    return user, password


def _bearer(header: str | None) -> str | None:
    if not header or not header.lower().startswith("bearer "):
        return None
    return header[7:].strip()


class RedditSandbox(SandboxWorld):
    """A local Reddit for real PRAW: the world plus an HTTP server, faults and counters.

    Bind happens in :meth:`start` (port 0 picks a free port); use it as a context manager.
    """

    def __init__(
        self,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        clock: Callable[[], datetime] | None = None,
        public_url: str = "https://www.reddit.com",
        client_id: str = DEFAULT_CLIENT_ID,
        client_secret: str = DEFAULT_CLIENT_SECRET,
    ) -> None:
        super().__init__(clock=clock, public_url=public_url)
        self.add_app(client_id, client_secret)
        self.client_id = client_id
        self.client_secret = client_secret
        self.faults = FaultPlan()
        self._host = host
        self._wanted_port = port
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._stopping = threading.Event()
        self._hold = threading.Condition()
        self._holding = 0
        self._hold_round = 0
        self._log_lock = threading.Lock()
        self._requests: list[RequestRecord] = []
        self._errors: list[str] = []
        self._budget: tuple[int, float] | None = None
        self._windows: dict[str, tuple[float, int]] = {}

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> RedditSandbox:
        """Bind and serve from a daemon thread; returns self. Raises if already started."""
        if self._httpd is not None:
            raise RuntimeError("the sandbox is already running")
        handler = type("SandboxHandler", (_RequestHandler,), {"sandbox": self})
        httpd = ThreadingHTTPServer((self._host, self._wanted_port), handler)
        httpd.daemon_threads = True
        self._httpd = httpd
        self._stopping.clear()
        self._thread = threading.Thread(
            target=httpd.serve_forever,
            kwargs={"poll_interval": 0.01},
            name="reddit-sandbox",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving, wake answers held by slow faults, and close the socket."""
        httpd, self._httpd = self._httpd, None
        if httpd is None:
            return
        self._stopping.set()
        httpd.shutdown()
        httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def serve_until_stopped(self) -> None:
        """Block the calling thread until :meth:`stop` is called (for ``python -m``)."""
        while self._httpd is not None:
            time.sleep(0.2)

    def __enter__(self) -> RedditSandbox:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        """The bound port. Raises RuntimeError before :meth:`start`."""
        if self._httpd is None:
            raise RuntimeError("the sandbox is not running")
        return int(self._httpd.server_address[1])

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT``: pass it as both ``oauth_url`` and ``reddit_url``."""
        return f"http://{self._host}:{self.port}"

    # ------------------------------------------------------------------ faults and budget

    def add_fault(
        self, fault: Fault, *, method: str = "*", path: str = "*", times: int | None = 1
    ) -> None:
        """Queue a fault for the next matching request(s); see :meth:`FaultPlan.add`."""
        self.faults.add(fault, method=method, path=path, times=times)

    def set_random_faults(
        self,
        probability: float,
        faults: Sequence[Fault],
        *,
        seed: int,
        methods: Iterable[str] = ("GET", "POST"),
        path: str = "*",
    ) -> None:
        """Fail each eligible request with ``probability``; see :meth:`FaultPlan.set_random`."""
        self.faults.set_random(probability, faults, seed=seed, methods=methods, path=path)

    def clear_faults(self) -> None:
        """Drop queued faults and switch random faults off."""
        self.faults.clear()

    def pending_faults(self) -> list[FaultRule]:
        """The queued faults not used up yet."""
        return self.faults.pending()

    def set_rate_budget(self, budget: int | None, *, window_seconds: float = 600.0) -> None:
        """Enforce Reddit's budget: ``budget`` requests per user per fixed window, then 429.

        ``None`` (the default) reports ``used 0`` forever, so prawcore never throttles.
        """
        with self._log_lock:
            self._budget = None if budget is None else (budget, window_seconds)
            self._windows.clear()

    # ------------------------------------------------------------------ counting

    def requests(self) -> list[RequestRecord]:
        """Every API request answered so far (token requests included, control ones not)."""
        with self._log_lock:
            return list(self._requests)

    def request_count(
        self,
        *,
        route: str | None = None,
        path: str | None = None,
        method: str | None = None,
        include_token: bool = False,
    ) -> int:
        """How many requests matched a route name (e.g. ``modmail.list``), path and method.

        Token requests count only with ``include_token=True`` or ``route="token"``.
        """
        with self._log_lock:
            return sum(
                1
                for r in self._requests
                if (route is None or r.route == route)
                and (path is None or r.path == path.rstrip("/"))
                and (method is None or r.method == method.upper())
                and (include_token or route == "token" or r.route != "token")
            )

    def request_counts(self, *, include_token: bool = False) -> dict[str, int]:
        """Requests per route name, e.g. ``{"modmail.list": 4, "submit": 2}``."""
        with self._log_lock:
            counts: dict[str, int] = {}
            for r in self._requests:
                if include_token or r.route != "token":
                    counts[r.route] = counts.get(r.route, 0) + 1
            return counts

    def reset_requests(self) -> None:
        """Forget the request log (e.g. after seeding, before measuring)."""
        with self._log_lock:
            self._requests.clear()

    def internal_errors(self) -> list[str]:
        """Tracebacks of sandbox bugs (answered 500); tests should find this empty."""
        with self._log_lock:
            return list(self._errors)

    # ------------------------------------------------------------------ answering

    def _ratelimit_headers(self, viewer: str | None) -> tuple[dict[str, str], bool]:
        """Headers for this answer and whether the user's budget is blown."""
        now = time.time()
        with self._log_lock:
            if self._budget is None or viewer is None:
                reset = 600 - int(now) % 600
                return {
                    "x-ratelimit-remaining": "1000.0",
                    "x-ratelimit-used": "0",
                    "x-ratelimit-reset": str(reset),
                }, False
            budget, window = self._budget
            start = now - now % window
            seen_start, used = self._windows.get(viewer, (start, 0))
            if seen_start != start:
                used = 0
            used += 1
            self._windows[viewer] = (start, used)
            remaining = max(budget - used, 0)
            reset = max(int(start + window - now), 1)
            return {
                "x-ratelimit-remaining": f"{float(remaining)}",
                "x-ratelimit-used": str(used),
                "x-ratelimit-reset": str(reset),
            }, used > budget

    def _log(
        self, request: _Request, route: str, status: int, user: str | None, fault: Fault | None
    ) -> None:
        with self._log_lock:
            self._requests.append(
                RequestRecord(
                    len(self._requests) + 1,
                    request.method,
                    request.path,
                    route,
                    status,
                    user,
                    None if fault is None else fault.kind.value,
                    str(request.headers.get("user-agent") or ""),
                )
            )

    def answer(self, request: _Request) -> _Response:
        """The whole answer to one (non-control) request, faults and headers included."""
        if request.path in (TOKEN_PATH, "/api/v1/revoke_token"):
            return self._answer_token(request)
        if request.path.startswith(media.MEDIA_PREFIX):
            return self._answer_media(request)
        route_name = "unknown"
        found: tuple[re.Match[str], _Handler] | None = None
        for method, pattern, name, handler in _ROUTES:
            match = pattern.match(request.path)
            if match and method == request.method:
                route_name = name
                found = (match, handler)
                break
        token = _bearer(request.headers.get("authorization"))
        viewer = self.token_user(token)
        fault = self.faults.take(request.method, request.path)
        headers, over_budget = self._ratelimit_headers(viewer)
        if fault is None:
            response = self._perform(found, viewer, request, over_budget)
        elif fault.kind is FaultKind.STORED_THEN_SLOW:
            response = self._perform(found, viewer, request, over_budget)
            response.delay = fault.delay
        elif fault.kind is FaultKind.STORED_THEN_HELD:
            response = self._perform(found, viewer, request, over_budget)
            response.held = True
        elif fault.kind is FaultKind.STORED_THEN_ERROR:
            self._perform(found, viewer, request, over_budget)
            response = self._faulted(fault, token)
        else:
            response = self._faulted(fault, token)
        response.headers = {**headers, **response.headers}
        self._log(request, route_name, response.status, viewer, fault)
        return response

    def _perform(
        self,
        found: tuple[re.Match[str], _Handler] | None,
        viewer: str | None,
        request: _Request,
        over_budget: bool,
    ) -> _Response:
        if viewer is None:
            return _Response(
                401,
                {"message": "Unauthorized", "error": 401},
                {"www-authenticate": _INVALID_TOKEN_HEADER},
            )
        if over_budget:
            return _Response(429, {"message": "Too Many Requests", "error": 429})
        if found is None:
            return _Response(404, {"message": "Not Found", "error": 404})
        match, handler = found
        scopes = self.token_scopes(_bearer(request.headers.get("authorization")))
        needed = next((ROUTE_SCOPES[n] for m, p, n, h in _ROUTES if h is handler), None)
        if "*" not in scopes and needed is not None and needed not in scopes:
            return _Response(
                403,
                {"message": "Forbidden", "error": 403},
                {"www-authenticate": _INSUFFICIENT_SCOPE_HEADER},
            )
        try:
            return handler(self, viewer, match, request)
        except ApiFailure as failure:
            return _Response(failure.status, failure.body, failure.headers)

    def _faulted(self, fault: Fault, token: str | None) -> _Response:
        """The answer a fault gives instead of the real one."""
        kind = fault.kind
        if kind is FaultKind.TOO_MANY_REQUESTS:
            return _Response(
                429,
                {"message": "Too Many Requests", "error": 429},
                {
                    "x-ratelimit-remaining": "0.0",
                    "x-ratelimit-used": "1000",
                    "x-ratelimit-reset": str(fault.reset_seconds),
                },
            )
        if kind is FaultKind.SERVER_ERROR:
            return _Response(
                fault.status, {"message": "Internal Server Error", "error": fault.status}
            )
        if kind is FaultKind.INVALID_TOKEN:
            if token is not None:
                self.revoke_access_token(token)
            return _Response(
                401,
                {"message": "Unauthorized", "error": 401},
                {"www-authenticate": _INVALID_TOKEN_HEADER},
            )
        if kind is FaultKind.RATELIMIT:
            return _ok({"json": {"errors": [["RATELIMIT", fault.ratelimit_text, "ratelimit"]]}})
        if kind is FaultKind.FORBIDDEN:
            return _Response(403, {"message": "Forbidden", "error": 403})
        if kind is FaultKind.API_ERROR:
            return _ok({"json": {"errors": [[fault.code, fault.message, fault.field]]}})
        if kind is FaultKind.STORED_THEN_ERROR:
            return _Response(fault.status or 504, {"message": "Gateway Timeout", "error": 504})
        if kind is FaultKind.LOST:
            return _Response(504, {"message": "Gateway Timeout", "error": 504}, delay=fault.delay)
        raise AssertionError(f"{kind} is answered by performing the request")

    def _answer_media(self, request: _Request) -> _Response:
        """The storage bucket (uploads and downloads): no bearer token, faults apply."""
        fault = self.faults.take(request.method, request.path)
        if fault is not None:
            response = self._faulted(fault, None)
            if fault.kind in (FaultKind.FORBIDDEN, FaultKind.SERVER_ERROR):
                # The bucket answers in S3's words, not Reddit's JSON.
                code = {403: "AccessDenied", 503: "SlowDown"}.get(response.status,
                                                                  "InternalError")
                response = _Response(response.status, media.storage_error(code),
                                     {"Content-Type": "application/xml"})
        elif request.method == "POST" and request.path == media.UPLOAD_PATH:
            status, body = media.upload(self, request.raw,
                                        request.headers.get("content-type", ""))
            response = _Response(status, body, {"Content-Type": "application/xml"})
        elif request.method == "GET":
            found = media.asset(self, request.path[len(media.MEDIA_PREFIX):])
            if found is None or found.data is None:
                response = _Response(404, {"message": "Not Found", "error": 404})
            else:
                response = _Response(200, found.data, {"Content-Type": found.mimetype})
        else:
            response = _Response(405, {"message": "Method Not Allowed", "error": 405})
        self._log(request, "media.upload" if request.method == "POST" else "media.get",
                  response.status, None, fault)
        return response

    def _answer_token(self, request: _Request) -> _Response:
        client_id, secret = _basic_auth(request.headers.get("authorization"))
        fault = self.faults.take(request.method, request.path)
        headers, _ = self._ratelimit_headers(None)
        if fault is None or fault.kind in (FaultKind.STORED_THEN_SLOW, FaultKind.STORED_THEN_HELD,
                                           FaultKind.STORED_THEN_ERROR):
            try:
                if request.path == TOKEN_PATH:
                    body = self.api_access_token(client_id, secret, request.form)
                else:
                    body = self.api_revoke_token(client_id, secret, request.form)
                response = _ok(body)
            except ApiFailure as failure:
                response = _Response(failure.status, failure.body, failure.headers)
        if fault is not None:
            if fault.kind is FaultKind.STORED_THEN_SLOW:
                response.delay = fault.delay
            elif fault.kind is FaultKind.STORED_THEN_HELD:
                response.held = True
            else:
                response = self._faulted(fault, None)
        response.headers = {**headers, **response.headers}
        user = str(request.form.get("username")) if request.form.get("username") else None
        self._log(request, "token", response.status, user, fault)
        return response

    def hold_answer(self) -> bool:
        """Hold an answer until :meth:`release_held` (True: the sandbox stopped meanwhile)."""
        with self._hold:
            self._holding += 1
            round_ = self._hold_round
            try:
                while self._hold_round == round_ and not self._stopping.is_set():
                    self._hold.wait(0.1)
            finally:
                self._holding -= 1
                self._hold.notify_all()
        return self._stopping.is_set()

    def held_answers(self) -> int:
        """How many answers (of ``stored_then_held`` faults) are being held now."""
        with self._hold:
            return self._holding

    def release_held(self) -> int:
        """Send every held answer; returns how many were held."""
        with self._hold:
            released = self._holding
            self._hold_round += 1
            self._hold.notify_all()
        return released

    def wait_or_stop(self, seconds: float) -> bool:
        """Hold a slow answer; returns True if the sandbox is stopping meanwhile."""
        return self._stopping.wait(seconds)

    def record_internal_error(self, text: str) -> None:
        """Keep a sandbox bug's traceback for :meth:`internal_errors`."""
        with self._log_lock:
            self._errors.append(text)
        log.error("sandbox internal error:\n%s", text)


class _RequestHandler(BaseHTTPRequestHandler):
    sandbox: RedditSandbox
    # One request per connection: no keep-alive races that would make prawcore retry POSTs.
    protocol_version = "HTTP/1.0"
    server_version = "RedditSandbox/1.0"

    def log_message(self, format: str, *args: Any) -> None:
        log.debug("%s " + format, self.address_string(), *args)

    def do_GET(self) -> None:
        self._handle("GET")

    def do_POST(self) -> None:
        self._handle("POST")

    def do_DELETE(self) -> None:
        self._handle("DELETE")

    def do_PUT(self) -> None:
        self._handle("PUT")

    def do_PATCH(self) -> None:
        self._handle("PATCH")

    def _read_request(self, method: str) -> _Request:
        split = urlsplit(self.path)
        params = {k: v[-1] for k, v in parse_qs(split.query, keep_blank_values=True).items()}
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        content_type = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        form: dict[str, str] = {}
        json_body: Any = None
        if raw and content_type == "application/json":
            try:
                json_body = json.loads(raw.decode("utf-8"))
            except ValueError:
                json_body = None
            if isinstance(json_body, dict):
                form = {k: v if isinstance(v, str) else json.dumps(v) for k, v in json_body.items()}
        elif raw and content_type != "multipart/form-data":
            parsed = parse_qs(raw.decode("utf-8"), keep_blank_values=True)
            form = {k: v[-1] for k, v in parsed.items()}
        headers = {name.lower(): value for name, value in self.headers.items()}
        if content_type == "multipart/form-data":
            form = {}  # a media upload: the handler reads ``raw``
        return _Request(
            method, normalize_path(self.path), params, {**params, **form}, json_body, headers,
            raw,
        )

    def _handle(self, method: str) -> None:
        sandbox = self.sandbox
        try:
            request = self._read_request(method)
            if request.path.startswith(CONTROL_PREFIX.rstrip("/")):
                status, body = handle_control(sandbox, request.path, request.json_body)
                response = _Response(status, body)
            else:
                response = sandbox.answer(request)
        except Exception:
            sandbox.record_internal_error(traceback.format_exc())
            response = _Response(500, {"message": "Internal Server Error", "error": 500})
        if response.delay > 0 and sandbox.wait_or_stop(response.delay):
            return
        if response.held and sandbox.hold_answer():
            return
        self._send(response)

    def _send(self, response: _Response) -> None:
        if response.status == 204 or response.body is None:
            payload = b""
        elif isinstance(response.body, bytes):
            payload = response.body
        elif isinstance(response.body, str):
            payload = response.body.encode("utf-8")
        else:
            payload = json.dumps(response.body).encode("utf-8")
        try:
            self.send_response(response.status)
            for name, value in response.headers.items():
                self.send_header(name, value)
            if response.status != 204:
                if "Content-Type" not in response.headers:
                    self.send_header("Content-Type", "application/json; charset=UTF-8")
                self.send_header("Content-Length", str(len(payload)))
            self.send_header("Connection", "close")
            self.end_headers()
            if payload:
                self.wfile.write(payload)
        except (BrokenPipeError, ConnectionResetError, ConnectionAbortedError):
            # The client gave up (a timeout fault did its job); nothing left to tell it.
            pass
