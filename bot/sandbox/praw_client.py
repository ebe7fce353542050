"""Building real PRAW clients that talk to the sandbox.

praw 8.0.3 ignores its ``timeout`` setting: prawcore passes its import-time default
(``PRAWCORE_TIMEOUT``, else 16 s) with every request. :class:`TimeoutRequestor` makes one
client honour its own timeout instead, so a test can shorten it without touching the
environment of the whole process.
"""

from __future__ import annotations

from typing import Any

import praw
from prawcore.requestor import Requestor
from requests import Response

from bot.sandbox.server import DEFAULT_CLIENT_ID, DEFAULT_CLIENT_SECRET

USER_AGENT = "python:maester-sandbox:v0.1 (tests)"


class TimeoutRequestor(Requestor):
    """A prawcore requestor that always uses its own ``timeout`` (seconds)."""

    def request(self, *args: Any, timeout: float | None = None, **kwargs: Any) -> Response:
        """Issue the request with this requestor's timeout, whatever prawcore passed."""
        return super().request(*args, timeout=self.timeout, **kwargs)


def make_reddit(
    url: str,
    *,
    username: str | None = None,
    password: str | None = None,
    refresh_token: str | None = None,
    client_id: str = DEFAULT_CLIENT_ID,
    client_secret: str = DEFAULT_CLIENT_SECRET,
    timeout: float | None = None,
    user_agent: str = USER_AGENT,
    **settings: Any,
) -> praw.Reddit:
    """A PRAW client for the sandbox at ``url`` (password or refresh-token login).

    ``timeout`` (seconds) applies per client through :class:`TimeoutRequestor`; without it
    prawcore's process-wide default applies. Extra ``settings`` go to ``praw.Reddit``.
    """
    credentials: dict[str, Any] = {}
    if refresh_token is not None:
        credentials["refresh_token"] = refresh_token
    else:
        credentials["username"] = username
        credentials["password"] = password
    extra: dict[str, Any] = {}
    if timeout is not None:
        extra["requestor_class"] = TimeoutRequestor
        extra["requestor_kwargs"] = {"timeout": timeout}
    return praw.Reddit(
        client_id=client_id,
        client_secret=client_secret,
        user_agent=user_agent,
        oauth_url=url,
        reddit_url=url,
        check_for_updates=False,
        **credentials,
        **extra,
        **settings,
    )
