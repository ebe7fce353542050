"""A local Discord-compatible webhook receiver, for the tests and the demo.

``POST /api/webhooks/ID/TOKEN[?wait=true]`` with a JSON body ``{"content", "embeds",
"allowed_mentions"}`` is checked as Discord checks it (content at most 2000 characters, at
most 10 embeds, an embed's title at most 256 and description at most 4096 characters, 6000
in all, something to show) and stored; with ``wait=true`` the answer is 200 with the message
(its ``id``), else 204. A refused body is 400 ``Invalid Form Body`` (code 50035), a deleted
webhook 404 ``Unknown Webhook`` (code 10015), a rate limit 429 with ``retry_after`` in the
body and the ``Retry-After`` header, as Discord answers.

Tests steer it: :meth:`WebhookReceiver.fail_next` (a 5xx, with or without storing the
message first), :meth:`limit_next` (a 429), :meth:`hold_next` (store the message, then
hold the answer until :meth:`release`: a request whose sender dies before the answer), and
:meth:`delete` (the webhook is gone). Every request is counted.
"""

from __future__ import annotations

import json
import threading
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

PATH_PREFIX = "/api/webhooks/"


@dataclass(frozen=True, slots=True)
class Received:
    """One message a webhook received."""

    id: str
    webhook: str
    content: str
    embeds: tuple[dict[str, Any], ...]
    payload: dict[str, Any]

    @property
    def text(self) -> str:
        """Everything the message shows: its content and each embed's title and text."""
        parts = [self.content]
        for embed in self.embeds:
            parts += [str(embed.get("title") or ""), str(embed.get("description") or "")]
        return "\n".join(p for p in parts if p)


@dataclass(slots=True)
class _Scripted:
    status: int
    stored: bool = False
    retry_after: float = 0.0
    hold: bool = False


@dataclass(slots=True)
class _State:
    messages: list[Received] = field(default_factory=list)
    script: deque[_Scripted] = field(default_factory=deque)
    deleted: set[str] = field(default_factory=set)
    requests: int = 0
    held: int = 0
    next_id: int = 1_100_000_000_000_000_000


def _problem(payload: Any) -> str | None:
    """Why Discord would refuse this body (None: it would not)."""
    if not isinstance(payload, dict):
        return "the body is not a JSON object"
    content = payload.get("content") or ""
    embeds = payload.get("embeds") or []
    if not isinstance(content, str) or len(content) > 2000:
        return "content: must be 2000 or fewer in length"
    if not isinstance(embeds, list) or len(embeds) > 10:
        return "embeds: at most 10"
    total = 0
    for embed in embeds:
        if not isinstance(embed, dict):
            return "embeds: each must be an object"
        title, description = str(embed.get("title") or ""), str(embed.get("description") or "")
        if len(title) > 256:
            return "embeds.title: must be 256 or fewer in length"
        if len(description) > 4096:
            return "embeds.description: must be 4096 or fewer in length"
        total += len(title) + len(description)
    if total > 6000:
        return "embeds: 6000 characters in all at most"
    if not content and not embeds:
        return "cannot send an empty message"
    return None


class WebhookReceiver:
    """The receiver on 127.0.0.1, serving from a background thread (``with WebhookReceiver()
    as hooks: ...``)."""

    def __init__(self) -> None:
        self._state = _State()
        self._lock = threading.Lock()
        self._release = threading.Event()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # ------------------------------------------------------------------ life

    def start(self) -> WebhookReceiver:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                return

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                status, body, headers = receiver._answer(self.path, raw)
                data = json.dumps(body).encode("utf-8") if body is not None else b""
                try:
                    self.send_response(status)
                    for name, value in headers.items():
                        self.send_header(name, value)
                    if body is not None:
                        self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    return  # the sender is gone (killed while the answer was held)

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._release.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> WebhookReceiver:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def prefix(self) -> str:
        """``http://127.0.0.1:PORT/api/webhooks/``: for ``[webhooks] allowed_prefixes``."""
        assert self._httpd is not None, "the receiver is not running"
        return f"http://127.0.0.1:{self._httpd.server_address[1]}{PATH_PREFIX}"

    def url(self, webhook: str = "100000000000000001", token: str = "sandbox-token-abc") -> str:
        """A webhook's address on this receiver."""
        return f"{self.prefix}{webhook}/{token}"

    # ------------------------------------------------------------------ steering

    def fail_next(self, status: int = 503, *, times: int = 1, stored: bool = False) -> None:
        """The next ``times`` requests answer ``status`` (``stored``: after keeping the
        message, as a server that failed after its write)."""
        with self._lock:
            self._state.script.extend(_Scripted(status, stored) for _ in range(times))

    def limit_next(self, retry_after: float = 1.5, *, times: int = 1) -> None:
        """The next ``times`` requests answer 429 with ``retry_after`` seconds."""
        with self._lock:
            self._state.script.extend(_Scripted(429, retry_after=retry_after)
                                      for _ in range(times))

    def hold_next(self) -> None:
        """The next request is stored, then its answer is held until :meth:`release`."""
        with self._lock:
            self._release.clear()
            self._state.script.append(_Scripted(200, stored=True, hold=True))

    def release(self) -> None:
        """Let held answers go."""
        self._release.set()

    def delete(self, webhook: str) -> None:
        """The webhook is deleted: every request to it is 404 Unknown Webhook."""
        with self._lock:
            self._state.deleted.add(webhook)

    # ------------------------------------------------------------------ reading

    def messages(self, webhook: str | None = None) -> list[Received]:
        """The messages received, oldest first (of one webhook, or all)."""
        with self._lock:
            return [m for m in self._state.messages if webhook is None or m.webhook == webhook]

    @property
    def requests(self) -> int:
        with self._lock:
            return self._state.requests

    @property
    def held(self) -> int:
        """How many answers are being held now."""
        with self._lock:
            return self._state.held

    # ------------------------------------------------------------------ the answer

    def _store(self, webhook: str, payload: dict[str, Any]) -> Received:
        self._state.next_id += 1
        message = Received(str(self._state.next_id), webhook, str(payload.get("content") or ""),
                           tuple(e for e in payload.get("embeds") or () if isinstance(e, dict)),
                           payload)
        self._state.messages.append(message)
        return message

    def _answer(self, raw_path: str, raw: bytes
                ) -> tuple[int, dict[str, Any] | None, dict[str, str]]:
        split = urlsplit(raw_path)
        wait = parse_qs(split.query).get("wait", ["false"])[-1].lower() == "true"
        parts = split.path.removeprefix(PATH_PREFIX).split("/")
        if not split.path.startswith(PATH_PREFIX) or len(parts) != 2 or not parts[0].isdigit():
            return 404, {"message": "404: Not Found", "code": 0}, {}
        webhook = parts[0]
        try:
            payload = json.loads(raw.decode("utf-8"))
        except ValueError:
            payload = None
        with self._lock:
            self._state.requests += 1
            if webhook in self._state.deleted:
                return 404, {"message": "Unknown Webhook", "code": 10015}, {}
            scripted = self._state.script.popleft() if self._state.script else None
            if scripted is not None and scripted.status == 429:
                wait_s = scripted.retry_after
                return 429, {"message": "You are being rate limited.", "retry_after": wait_s,
                             "global": False}, {"Retry-After": f"{wait_s:g}",
                                                "X-RateLimit-Remaining": "0",
                                                "X-RateLimit-Reset-After": f"{wait_s:g}"}
            problem = _problem(payload)
            if problem is not None:
                return 400, {"message": "Invalid Form Body", "code": 50035,
                             "errors": problem}, {}
            assert isinstance(payload, dict)
            message = None
            if scripted is None or scripted.stored:
                message = self._store(webhook, payload)
            if scripted is not None and scripted.hold:
                self._state.held += 1
        if scripted is not None and scripted.hold:
            self._release.wait()
            with self._lock:
                self._state.held -= 1
        if scripted is not None and not scripted.hold:
            return scripted.status, {"message": f"HTTP {scripted.status}", "code": 0}, {}
        assert message is not None
        if not wait:
            return 204, None, {}
        return 200, {"id": message.id, "webhook_id": webhook, "content": message.content,
                     "embeds": list(message.embeds), "type": 0}, {}
