"""Pacing of sends (posts, messages, replies), per Reddit account.

Posts are spaced ``[bot] post_spacing_seconds`` apart, messages and replies
``message_spacing_seconds``, and at most ``sends_per_minute`` go out in any 60 s: a new bot
that sends in bursts is what Reddit's spam filters catch.

:class:`Pacer` keeps its count in memory (one process). :class:`SharedPacer`, the one the
bot uses, keeps it in a small JSON file named after the account, under an exclusive lock
(``fcntl.flock``), so every process of one account on the machine shares one budget: two
campaigns run by one bot account, or cron's ``publish --once`` rounds, which each start a
new process. A shared pacer takes a send's slot when it lets the send go (a send that then
fails still counts: never more than the budget). Processes on other machines do not share
it.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import re
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from bot.config import Settings

#: The longest a round sleeps for pacing before it ends and leaves the rest to the next one.
MAX_PACE_WAIT = 10.0
_UNSAFE = re.compile(r"[^a-z0-9_-]")


def lane(kind: str) -> str:
    """``post`` for posts, comments and the sidebar widget, ``webhook`` for webhooks (not
    Reddit: their own spacing, outside Reddit's sends a minute), ``message`` for every
    modmail kind."""
    if kind == "webhook":
        return "webhook"
    return "post" if kind in ("post", "comment", "widget") else "message"


def wait_for(kind: str, now: float, last: dict[str, float], sent: Iterable[float], *,
             post_spacing: float, message_spacing: float, per_minute: int,
             webhook_spacing: float = 1.0) -> float:
    """Seconds from ``now`` until a send of ``kind`` may go, given the last send of each
    lane and the times of the Reddit sends in the last minute."""
    which = lane(kind)
    spacing = {"post": post_spacing, "webhook": webhook_spacing}.get(which, message_spacing)
    wait = max(0.0, last.get(which, -1e18) + spacing - now)
    if which == "webhook":
        return wait
    recent = sorted(t for t in sent if t > now - 60.0)
    if per_minute and len(recent) >= per_minute:
        wait = max(wait, recent[-per_minute] + 60.0 - now)
    return wait


class Pacer:
    """Spaces sends out (see the module docstring), in one process, on monotonic time."""

    def __init__(self, post_spacing: float, message_spacing: float, per_minute: int, *,
                 webhook_spacing: float = 1.0,
                 monotonic: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self.post_spacing = post_spacing
        self.message_spacing = message_spacing
        self.webhook_spacing = webhook_spacing
        self.per_minute = per_minute
        self._monotonic = monotonic
        self._sleep = sleep
        self._last: dict[str, float] = {}
        self._sent: deque[float] = deque()
        self._lock = threading.Lock()

    @staticmethod
    def shared(settings: Settings) -> SharedPacer:
        """The pacer shared by every process of the bot's account on this machine."""
        bot = settings.bot
        return SharedPacer(pace_file(settings), bot.post_spacing_seconds,
                           bot.message_spacing_seconds, bot.sends_per_minute,
                           webhook_spacing=settings.webhooks.spacing_seconds)

    def _wait(self, kind: str, now: float) -> float:
        while self._sent and self._sent[0] <= now - 60.0:
            self._sent.popleft()
        return wait_for(kind, now, self._last, self._sent, post_spacing=self.post_spacing,
                        message_spacing=self.message_spacing, per_minute=self.per_minute,
                        webhook_spacing=self.webhook_spacing)

    def wait_needed(self, kind: str) -> float:
        """Seconds until a send of ``kind`` may go."""
        with self._lock:
            return self._wait(kind, self._monotonic())

    def sent(self, kind: str) -> None:
        """Record a send of ``kind`` now."""
        with self._lock:
            now = self._monotonic()
            self._last[lane(kind)] = now
            if lane(kind) != "webhook":
                self._sent.append(now)

    def pace(self, kind: str, max_wait: float = MAX_PACE_WAIT) -> float | None:
        """Sleep until a send of ``kind`` may go; None (no sleep) if that is beyond
        ``max_wait``. Returns the seconds slept."""
        wait = self.wait_needed(kind)
        if wait > max_wait:
            return None
        if wait > 0:
            self._sleep(wait)
        return wait


class SharedPacer(Pacer):
    """A :class:`Pacer` whose count lives in the file ``path`` (wall-clock seconds, since
    monotonic clocks differ between processes), shared by every process using that file."""

    def __init__(self, path: Path, post_spacing: float, message_spacing: float,
                 per_minute: int, *, webhook_spacing: float = 1.0,
                 wall: Callable[[], float] = time.time,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        super().__init__(post_spacing, message_spacing, per_minute,
                         webhook_spacing=webhook_spacing, monotonic=wall, sleep=sleep)
        self.path = path

    @contextmanager
    def _shared(self) -> Iterator[dict[str, Any]]:
        """The file's count, locked against every other process until the block ends
        (and written back)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path, "a+", encoding="utf-8") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                handle.seek(0)
                try:
                    data = json.loads(handle.read() or "{}")
                except ValueError:  # a damaged file: start counting afresh
                    data = {}
                data = data if isinstance(data, dict) else {}
                count: dict[str, Any] = {"last": {str(k): float(v) for k, v in
                                  dict(data.get("last") or {}).items()},
                                         "sent": [float(t) for t in
                                                  data.get("sent") or ()]}
                yield count
                now = self._monotonic()
                count["sent"] = [t for t in count["sent"] if t > now - 60.0]
                handle.seek(0)
                handle.truncate()
                handle.write(json.dumps(count))
                handle.flush()
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def _shared_wait(self, kind: str, count: dict[str, Any]) -> float:
        return wait_for(kind, self._monotonic(), count["last"], count["sent"],
                        post_spacing=self.post_spacing, message_spacing=self.message_spacing,
                        per_minute=self.per_minute, webhook_spacing=self.webhook_spacing)

    def wait_needed(self, kind: str) -> float:
        """Seconds until a send of ``kind`` may go, counting every process's sends."""
        with self._shared() as count:
            return self._shared_wait(kind, count)

    def sent(self, kind: str) -> None:
        """Nothing: :meth:`pace` took the send's slot when it let the send go."""

    def pace(self, kind: str, max_wait: float = MAX_PACE_WAIT) -> float | None:
        """Sleep until a send of ``kind`` may go and take its slot at once (another process
        cannot take the same one); None (without a slot) if that would be beyond
        ``max_wait``. Returns the seconds slept."""
        slept = 0.0
        while True:
            with self._shared() as count:
                wait = self._shared_wait(kind, count)
                if wait <= 0:
                    now = self._monotonic()
                    count["last"][lane(kind)] = now
                    if lane(kind) != "webhook":
                        count["sent"].append(now)
                    return slept
            if slept + wait > max_wait:
                return None
            self._sleep(wait)
            slept += wait


def pace_file(settings: Settings) -> Path:
    """``[bot] pace_file``, or ``~/.cache/maester/pace-<account>.json``: one file per
    Reddit account (its name; a hash of the refresh token when no name is configured)."""
    if settings.bot.pace_file:
        return Path(settings.bot.pace_file).expanduser()
    name = settings.reddit.username.lower()
    if not name:
        digest = hashlib.sha256(settings.reddit.refresh_token.encode("utf-8")).hexdigest()
        name = f"token-{digest[:16]}"
    return Path.home() / ".cache" / "maester" / f"pace-{_UNSAFE.sub('_', name)}.json"
