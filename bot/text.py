"""Safe rendering of text that came from players into markdown replies and posts."""

from __future__ import annotations

import re
import unicodedata

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]#|>~^<])")
_LINE_START = re.compile(r"^(\s*)([-+]|\d+\.)")
_PING = re.compile(r"(?i)(?<![\w/])(/?)([ur])/")


def clean(text: str) -> str:
    """Drop control and zero-width characters, keep newlines and tabs."""
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
    text = clean(text).replace("\n", " ").replace("\t", " ")
    if len(text) > limit:
        text = text[:limit] + "…"
    text = _MD_SPECIAL.sub(r"\\\1", text)
    text = _LINE_START.sub(lambda m: m.group(1) + "\\" + m.group(2), text)
    # u/name and r/name become u&#47;name: still readable, no longer a ping or a link.
    return _PING.sub(lambda m: f"{m.group(1)}{m.group(2)}&#47;", text)
