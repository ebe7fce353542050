"""Player and map text made safe for markdown: one pure place, used by the rules' refusal
texts and by the bot's posts and replies (:mod:`bot.text` re-exports it).

``name_md`` for a name in markdown text, ``name_code`` for a name inside a code span (an
example order), the plain name in logs and titles.
"""

from __future__ import annotations

import re
import unicodedata

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]#|>~^<])")
_LINE_START = re.compile(r"^(\s*)([-+]|\d+\.)")
_PING = re.compile(r"(?i)(?<!\w)(/?)([ur])/")
_SCHEME = re.compile(r"(?i)(https?|ftp|mailto)(:)")
_WWW = re.compile(r"(?i)(www)(\.)")


def clean(text: str) -> str:
    """Drop control and zero-width characters, keep newlines and tabs."""
    if text.isascii() and text.isprintable():
        return text  # (nearly every name: printable ASCII has no character to drop)
    out = []
    for ch in text:
        if ch in "\n\t":
            out.append(ch)
            continue
        cat = unicodedata.category(ch)
        if cat in ("Cc", "Cf", "Cs", "Co", "Cn"):
            continue
        out.append(ch)
    return "".join(out)


def escape_md(text: str, limit: int = 200) -> str:
    """Player text made inert for a markdown post: no formatting, no u/ or r/ pings.

    Long text is cut to ``limit`` characters with an ellipsis, so an echo can never flood a reply.
    """
    if len(text) <= limit and _PLAIN.fullmatch(text):
        return text  # (most names: nothing to drop, cut, escape or defuse)
    return _escaped(text, limit)


_PLAIN = re.compile(r"[A-Za-z0-9 ',()]*")
"""Text :func:`escape_md` leaves as it is: no character to drop, no markdown, no line start
that makes a list (``-``, ``+``, ``1.``), no ``/``, ``:`` or ``.`` for a ping or a link."""


def _escaped(text: str, limit: int) -> str:
    """:func:`escape_md` worked out step by step (what its shortcut for plain text gives too)."""
    text = clean(text).replace("\n", " ").replace("\t", " ")
    if len(text) > limit:
        text = text[:limit] + "…"
    text = _MD_SPECIAL.sub(r"\\\1", text)
    text = _LINE_START.sub(lambda m: m.group(1) + "\\" + m.group(2), text)
    # u/name and r/name become u&#47;name: still readable, no longer a ping or a link; a bare
    # URL loses its autolink the same way (https&#58;//, www&#46;).
    return defuse_pings(text)


def defuse_pings(text: str) -> str:
    """``u/name``, ``r/name`` and bare URLs made inert (``u&#47;name``, ``https&#58;//``,
    ``www&#46;``): they read the same but link and ping nobody."""
    text = _PING.sub(lambda m: f"{m.group(1)}{m.group(2)}&#47;", text)
    text = _SCHEME.sub(lambda m: f"{m.group(1)}&#58;", text)
    return _WWW.sub(lambda m: f"{m.group(1)}&#46;", text)


NAME_CHARS = 100
"""Names are cut to this length when rendered (valid names are shorter)."""


def name_md(name: str) -> str:
    """A claim, character, tile or catalogue name as it goes into a post or reply.

    Names are checked when they are defined (a safe character set), and escaped here again
    wherever they are rendered, so that a name can never break a table (``|``), become a link
    or a ping, or start a list, whatever a database holds.
    """
    return escape_md(name, NAME_CHARS)


def code_md(text: str, limit: int = 400) -> str:
    """Text for inside a one-line code span (an example): shown as written, except that a
    backtick, which would end the span, becomes an apostrophe and a line break a space."""
    text = clean(text).replace("`", "'").replace("\n", " ").replace("\t", " ")
    return text[:limit]


def name_code(name: str) -> str:
    """A name inside a code span (an example order); valid names have no backtick."""
    return code_md(name, NAME_CHARS)
