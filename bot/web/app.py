"""The web server: Starlette routes over a read-only database connection.

- ``/`` the realm, ``/claim/<token>`` a war room, ``/mod/<token>`` the moderators' room;
  ``/api/realm``, ``/api/claim/<token>``, ``/api/mod/<token>`` the same as JSON;
  ``/map.svg`` the public map; ``/static/...`` the pages' script and style sheet.
- The realm is made once per state of the world (:class:`Site`), the moderators' room's
  preview of the next tick once per state of the database (:class:`Previews`).
- Only GET and HEAD: the pages never change the game (orders still go by modmail).
- A wrong token gets exactly the 404 of an unknown page. An address that presented more than
  ``[web] failed_per_minute`` wrong tokens in the last minute gets 429 on the token pages
  until the minute has passed.
- Every answer carries a strict Content-Security-Policy (scripts and styles from the site
  itself only, nothing inline), ``nosniff``, no framing, no referrer. An unexpected error is
  logged and answered with a plain 500 page: no traceback ever reaches a browser.
"""

from __future__ import annotations

import gzip
import logging
import threading
import time
from collections import deque
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Engine
from sqlmodel import Session
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.gzip import GZipMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from bot.config import Settings
from bot.db.engine import data_version
from bot.services import weblinks
from bot.services.world import CampaignContext, Parses, load_context
from bot.web import data, pages

log = logging.getLogger("maester.web")

CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
SECURITY_HEADERS = {
    "content-security-policy": CSP,
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "no-referrer",
    "cross-origin-opener-policy": "same-origin",
}
PRIVATE = {"cache-control": "no-store"}
WINDOW_SECONDS = 60.0
REALM_SECONDS = 30.0
WARM_SECONDS = 5.0
PREVIEW_SECONDS = 600.0


class FailedAttempts:
    """Wrong tokens per client address in the last minute (in memory, per process)."""

    def __init__(self, limit: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.limit = limit
        self.clock = clock
        self._seen: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def _recent(self, address: str) -> deque[float]:
        now = self.clock()
        seen = self._seen.setdefault(address, deque())
        while seen and seen[0] <= now - WINDOW_SECONDS:
            seen.popleft()
        return seen

    def blocked(self, address: str) -> bool:
        with self._lock:
            return len(self._recent(address)) >= self.limit

    def record(self, address: str) -> None:
        with self._lock:
            self._recent(address).append(self.clock())
            if len(self._seen) > 10_000:  # forget the quiet addresses
                for key in [k for k, v in self._seen.items() if not v]:
                    del self._seen[key]


class SecurityHeaders:
    """Adds :data:`SECURITY_HEADERS` to every response."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                headers += [(k.encode(), v.encode()) for k, v in SECURITY_HEADERS.items()]
                message["headers"] = headers
            await send(message)

        await self.app(scope, receive, with_headers)


@dataclass(frozen=True, slots=True)
class Rendered:
    """The realm made once: each form's bytes, plain and gzip-compressed."""

    version: tuple[Any, ...]
    made: float
    forms: dict[str, tuple[bytes, bytes]]


def _forms(view: data.View) -> dict[str, tuple[bytes, bytes]]:
    texts = {"html": pages.html(view), "json": pages.json_text(view),
             "svg": pages.map_svg(view)}
    return {k: (t.encode(), gzip.compress(t.encode(), 6, mtime=0)) for k, t in texts.items()}


@dataclass(frozen=True, slots=True)
class _Preview:
    key: tuple[Any, ...]
    made: float
    preview: dict[str, Any]


class Previews:
    """The moderators' room's preview of the next tick (:func:`bot.web.data.next_tick`: about a
    tick's work on a large campaign), made once per state of the database and kept while
    nothing the preview depends on changed, for at most ``lifetime`` seconds.

    The key is read in the preview's own read transaction, before anything else: the
    database's data version (:func:`bot.db.engine.data_version`: every transaction that
    writes, an order, a moderator's command, an undo, a tick, a beacon round, adds one),
    then :func:`bot.web.data.next_tick_key` (the next tick's index, and what a preview reads
    outside the snapshot). Same key, same data, same preview. A database without a version
    keeps nothing. ``made`` counts the previews made (the tests read it)."""

    def __init__(self, engine: Engine, settings: Settings, parses: Parses,
                 lifetime: float = PREVIEW_SECONDS,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.engine = engine
        self.settings = settings
        self.parses = parses
        self.lifetime = lifetime
        self.clock = clock
        self.made = 0
        self._kept: _Preview | None = None
        self._lock = threading.Lock()

    def _fresh(self, key: tuple[Any, ...]) -> _Preview | None:
        kept = self._kept
        if kept is not None and kept.key == key and self.clock() - kept.made < self.lifetime:
            return kept
        return None

    def next_tick(self) -> dict[str, Any]:
        """The preview of the next tick as the database stands (never to be changed: the
        same object is served again)."""
        # A read session of its own, closed and never committed (the preview changes the
        # session's objects in memory; the connection cannot write).
        with Session(self.engine, autoflush=False) as session:
            version = data_version(session)  # first: the snapshot it names is the one read
            ctx = load_context(session, self.settings, parses=self.parses)
            key = (version, *data.next_tick_key(session, ctx))
            kept = self._fresh(key)
            if kept is not None:
                return kept.preview
            with self._lock:  # one request makes it; the others wait for it
                kept = self._fresh(key)
                if kept is None:
                    preview = data.next_tick(session, ctx)
                    self.made += 1
                    if version is None:
                        return preview
                    kept = _Preview(key, self.clock(), preview)
                    self._kept = kept
                return kept.preview


class Site:
    """The pages of one campaign database, read on ``engine`` (a reader engine:
    :func:`bot.db.engine.make_reader_engine`).

    The realm is the same for everyone: it is made once per state of the world (see
    :func:`bot.web.data.realm_version`) and at least every :data:`REALM_SECONDS`, and served
    from memory, compressed once; :meth:`keep_warm` (run beside the server) makes it again
    as soon as the world changed."""

    def __init__(self, engine: Engine, settings: Settings) -> None:
        self.engine = engine
        self.settings = settings
        self.failures = FailedAttempts(settings.web.failed_per_minute)
        self.parses = Parses()  # the site's: the map is parsed once per text, not per request
        self._realm: Rendered | None = None
        self._lock = threading.Lock()
        self.warm_every = WARM_SECONDS
        self.previews = Previews(engine, settings, self.parses)

    @contextmanager
    def reading(self) -> Iterator[tuple[Session, CampaignContext]]:
        """One read transaction (one snapshot) and the campaign's context as of it."""
        with Session(self.engine) as session, session.begin():
            yield session, load_context(session, self.settings, parses=self.parses)

    def realm(self) -> Rendered:
        """The realm as of now (from memory when the world has not changed)."""
        with self.reading() as (session, ctx):
            version = data.realm_version(session, ctx)
            cached = self._realm
            if cached is not None and cached.version == version \
                    and time.monotonic() - cached.made < REALM_SECONDS:
                return cached
            with self._lock:  # one request makes it; the others wait for it
                cached = self._realm
                if cached is None or cached.version != version \
                        or time.monotonic() - cached.made >= REALM_SECONDS:
                    cached = Rendered(version, time.monotonic(),
                                      _forms(data.realm(session, ctx)))
                    self._realm = cached
                return cached

    def keep_warm(self, stop: threading.Event) -> None:
        """Make the realm again as soon as the world changes (checked every
        :attr:`warm_every` seconds), so that no visitor waits for it after a tick; until
        ``stop`` is set."""
        while not stop.wait(self.warm_every):
            try:
                self.realm()
            except Exception:
                log.exception("could not make the realm in advance; visitors will")

    def _realm_answer(self, request: Request, form: str, media_type: str) -> Response:
        plain, packed = self.realm().forms[form]
        if "gzip" in request.headers.get("accept-encoding", ""):
            return Response(packed, media_type=media_type,
                            headers={"content-encoding": "gzip", "vary": "Accept-Encoding"})
        return Response(plain, media_type=media_type, headers={"vary": "Accept-Encoding"})

    def private(self, request: Request, moderators: bool) -> tuple[data.View, dict[str, Any]]:
        """The war room or moderators' room the request's token opens; 404 otherwise."""
        address = request.client.host if request.client else "?"
        if self.failures.blocked(address):
            raise HTTPException(429, "too many wrong links from this address; wait a minute")
        token = str(request.path_params.get("token", ""))
        with self.reading() as (session, ctx):
            scope = weblinks.scope_of(session, ctx, token, moderators=moderators)
            if scope is None:
                self.failures.record(address)
                raise HTTPException(404)
            if not moderators:
                return data.war_room(session, ctx, int(scope.split(":", 1)[1])), {}
            view = data.moderators(session, ctx)
        view.data["preview"] = self.previews.next_tick()
        return view, {}

    # ------------------------------------------------------------------ routes

    def page_realm(self, request: Request) -> Response:
        return self._realm_answer(request, "html", "text/html; charset=utf-8")

    def api_realm(self, request: Request) -> Response:
        return self._realm_answer(request, "json", "application/json")

    def map_svg(self, request: Request) -> Response:
        return self._realm_answer(request, "svg", "image/svg+xml")

    def page_claim(self, request: Request) -> Response:
        view, extra = self.private(request, moderators=False)
        return HTMLResponse(pages.html(view, extra=extra), headers=PRIVATE)

    def api_claim(self, request: Request) -> Response:
        view, _ = self.private(request, moderators=False)
        return Response(pages.json_text(view), media_type="application/json", headers=PRIVATE)

    def page_mod(self, request: Request) -> Response:
        view, extra = self.private(request, moderators=True)
        return HTMLResponse(pages.html(view, extra=extra), headers=PRIVATE)

    def api_mod(self, request: Request) -> Response:
        view, _ = self.private(request, moderators=True)
        return Response(pages.json_text(view), media_type="application/json", headers=PRIVATE)


async def _http_error(request: Request, exc: Exception) -> Response:
    code = exc.status_code if isinstance(exc, HTTPException) else 500
    if request.url.path.startswith("/api/"):
        message = {404: "not found", 429: "too many wrong links; wait a minute",
                   405: "only GET"}.get(code, "error")
        return JSONResponse({"error": message}, status_code=code)
    if code == 404:
        return HTMLResponse(pages.not_found_page(), status_code=404)
    text = {429: "Too many wrong links from your address: wait a minute.",
            405: "These pages only read: orders go by modmail."}.get(code, "Error.")
    return HTMLResponse(f"<!doctype html><title>{code}</title><p>{text}</p>", status_code=code)


async def _server_error(request: Request, exc: Exception) -> Response:
    log.error("error serving %s", request.url.path, exc_info=exc)
    if request.url.path.startswith("/api/"):
        return JSONResponse({"error": "the server could not answer; try again"},
                            status_code=500)
    return HTMLResponse("<!doctype html><title>Error</title><p>The page could not be made "
                        "just now; try again in a moment.</p>", status_code=500)


def create_app(engine: Engine, settings: Settings) -> Starlette:
    """The web application of the campaign database behind ``engine`` (a reader engine)."""
    site = Site(engine, settings)
    get = ["GET", "HEAD"]
    routes = [
        Route("/", site.page_realm, methods=get),
        Route("/map.svg", site.map_svg, methods=get),
        Route("/api/realm", site.api_realm, methods=get),
        Route("/claim/{token}", site.page_claim, methods=get),
        Route("/api/claim/{token}", site.api_claim, methods=get),
        Route("/mod/{token}", site.page_mod, methods=get),
        Route("/api/mod/{token}", site.api_mod, methods=get),
        Mount("/static", StaticFiles(directory=pages.STATIC_DIR), name="static"),
    ]
    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        stop = threading.Event()
        warm = threading.Thread(target=site.keep_warm, args=(stop,), name="maester-web-warm",
                                daemon=True)
        warm.start()
        try:
            yield
        finally:
            stop.set()

    app = Starlette(
        debug=False, routes=routes, lifespan=lifespan,
        middleware=[Middleware(SecurityHeaders), Middleware(GZipMiddleware, minimum_size=800)],
        exception_handlers={HTTPException: _http_error, Exception: _server_error})
    app.state.site = site
    return app
