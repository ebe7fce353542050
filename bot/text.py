"""Safe rendering of text that came from players into markdown replies and posts (the pure
escaping lives in :mod:`rules.text`, re-exported here; whole public bodies: :func:`inert_links`)."""

from __future__ import annotations

import re

from rules.text import NAME_CHARS, clean, code_md, defuse_pings, escape_md, name_code, name_md

__all__ = ["NAME_CHARS", "clean", "code_md", "escape_md", "inert_links", "name_code", "name_md"]

_LINK_OPEN = re.compile(r"\]\s*\(")
_AUTOLINK = re.compile(r"<(?=[^>\s]*[:@])")


def inert_links(text: str) -> str:
    """A whole public body with every link made inert: no ``u/``/``r/`` pings, no bare URLs
    (Reddit links ``https://...`` and ``www.``), no ``[text](url)`` or ``<url>`` links.

    The bot's own public text never carries a link, so this is applied to every public post
    and comment reply as the last step; the text still reads the same.
    """
    text = defuse_pings(text)
    text = _LINK_OPEN.sub("]&#40;", text)
    return _AUTOLINK.sub("&lt;", text)
