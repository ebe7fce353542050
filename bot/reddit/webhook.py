"""One HTTP call to a Discord-compatible webhook, and what its answer means.

``POST URL?wait=true`` with the JSON of :func:`bot.services.webhooks.payload`. With
``wait=true`` Discord answers 200 with the message it created (its ``id`` is recorded);
without it 204. A 429 carries ``retry_after`` (seconds, in the JSON body, and the
``Retry-After`` header): nothing was created, and the bot waits that long before sending to
that webhook again. Any other 4xx refuses the notice for good (a deleted webhook is 404, a
wrong token 401). A 5xx is Discord saying it failed: retried with the outbox's back-off.

What the answer cannot tell is whether a request whose answer never came was carried out
(a read timeout, or the process killed while waiting). Discord offers no idempotency key
and no way to list a webhook's messages, so such a notice is recorded as sent, unconfirmed,
and not repeated: **at most once** when the outcome is unknown, **exactly once** otherwise.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import requests

from bot import __version__

USER_AGENT = f"maester-campaign/{__version__}"


@dataclass(frozen=True, slots=True)
class HookAnswer:
    """A webhook's answer: ``sent`` with the message's id (may be empty), ``wait`` seconds
    (a 429), or ``refused``/``failed`` with the reason."""

    status: int
    message_id: str = ""
    wait: float = 0.0
    reason: str = ""

    @property
    def sent(self) -> bool:
        return 200 <= self.status < 300

    @property
    def rate_limited(self) -> bool:
        return self.status == 429

    @property
    def refused(self) -> bool:
        """A 4xx other than 429: sending it again would be refused again."""
        return 400 <= self.status < 500 and self.status != 429


class HookUnanswered(Exception):
    """The request may have reached the webhook but no answer came (a read timeout)."""


class HookUnreachable(Exception):
    """The request never left (no connection): nothing was sent."""


#: ``post(url, payload, timeout) -> HookAnswer``: how a notice is sent (tests may wrap it).
Poster = Callable[[str, Mapping[str, Any], float], HookAnswer]


def _wait_of(response: requests.Response) -> float:
    try:
        body = response.json()
    except ValueError:
        body = None
    if isinstance(body, Mapping) and isinstance(body.get("retry_after"), int | float):
        return max(0.0, float(body["retry_after"]))
    for header in ("retry-after", "x-ratelimit-reset-after"):
        value = response.headers.get(header)
        if value:
            try:
                return max(0.0, float(value))
            except ValueError:
                continue
    return 5.0


def post(url: str, payload: Mapping[str, Any], timeout: float) -> HookAnswer:
    """Send one notice (see the module's docstring). Raises :class:`HookUnreachable` when no
    connection was made and :class:`HookUnanswered` when the answer never came."""
    try:
        response = requests.post(url, params={"wait": "true"}, json=dict(payload),
                                 timeout=(min(timeout, 5.0), timeout),
                                 headers={"User-Agent": USER_AGENT}, allow_redirects=False)
    except requests.exceptions.ConnectTimeout as exc:
        raise HookUnreachable(f"no connection: {type(exc).__name__}") from exc
    except requests.exceptions.ConnectionError as exc:
        if isinstance(exc, requests.exceptions.ReadTimeout) or "Read timed out" in str(exc):
            raise HookUnanswered("no answer in time") from exc
        # A refused or reset connection before the request went out; a reset after it may
        # also land here, which makes this at-least-once for that rare case.
        raise HookUnreachable(f"no connection: {type(exc).__name__}") from exc
    except requests.exceptions.Timeout as exc:
        raise HookUnanswered("no answer in time") from exc
    status = response.status_code
    if status == 429:
        return HookAnswer(429, wait=_wait_of(response), reason="HTTP 429 Too Many Requests")
    if 200 <= status < 300:
        message_id = ""
        try:
            body = response.json() if response.content else None
        except ValueError:
            body = None
        if isinstance(body, Mapping):
            message_id = str(body.get("id") or "")
        return HookAnswer(status, message_id=message_id)
    reason = f"HTTP {status}"
    try:
        body = response.json()
    except ValueError:
        body = None
    if isinstance(body, Mapping) and body.get("message"):
        reason += f": {str(body['message'])[:200]}"
    return HookAnswer(status, reason=reason)
