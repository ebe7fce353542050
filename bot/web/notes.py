"""The bot's replies and private notes, written in Reddit's markdown, as HTML for the war room.

A war room shows a claim's receipts and news. Shown as they are stored they read as markup
(``**Army 2**``, ``move army 2: Winterfell \\> 0100``, backticks around every example), so the
page renders the few pieces of markdown the bot itself writes: paragraphs, ``---`` rules,
quoted lines (``> the order``), bullet lists, tables, bold, italics, code spans, ``^(small
print)`` and backslash escapes. Everything is HTML-escaped first, and no link is made (the
hidden markers ``[](#maester:...)`` are dropped, other links keep their text): whatever a
player wrote into an order, quoted back in its receipt, stays text.
"""

from __future__ import annotations

import re

from markupsafe import Markup, escape

__all__ = ["note_html"]

_MARKER = re.compile(r"\[\]\(#[^)\s]*\)")
_LINK = re.compile(r"\[([^\]]+)\]\([^)\s]+\)")
_CODE = re.compile(r"`([^`]+)`")
_ESCAPED = re.compile(r"\\(&gt;|&lt;|&amp;|&#39;|&#34;|[\\`*_{}\[\]()#+\-.!|~^])")
_BOLD = re.compile(r"\*\*(.+?)\*\*")
_ITALIC = re.compile(r"(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])")
_SMALL = re.compile(r"\^\(([^)]*)\)")
_BULLET = re.compile(r"^\s*[-*] ")
_RULE = re.compile(r"^\s*(---+|\*\*\*+)\s*$")
_TABLE_SEPARATOR = re.compile(r"^\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?$")


def _inline(text: str) -> str:
    """One line's inline markdown (``text`` already HTML-escaped) as HTML."""
    codes: list[str] = []

    def keep(match: re.Match[str]) -> str:  # code spans are shown as written
        codes.append(f"<code>{match.group(1)}</code>")
        return f"\x00{len(codes) - 1}\x00"

    text = _CODE.sub(keep, text)
    escapes: list[str] = []

    def literal(match: re.Match[str]) -> str:  # an escaped character is never markup
        escapes.append(match.group(1))
        return f"\x01{len(escapes) - 1}\x01"

    text = _ESCAPED.sub(literal, text)
    text = _LINK.sub(r"\1", text)
    text = _BOLD.sub(r"<strong>\1</strong>", text)
    text = _ITALIC.sub(r"<em>\1</em>", text)
    text = _SMALL.sub(r"<small>\1</small>", text)
    text = re.sub("\x01(\\d+)\x01", lambda m: escapes[int(m.group(1))], text)
    return re.sub("\x00(\\d+)\x00", lambda m: codes[int(m.group(1))], text)


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def _block(lines: list[str]) -> str:
    """One block of lines (no blank line inside) as HTML."""
    if all(_BULLET.match(line) for line in lines):
        items = "".join(f"<li>{_inline(_BULLET.sub('', line))}</li>" for line in lines)
        return f"<ul>{items}</ul>"
    if all(line.startswith("&gt;") for line in lines):
        inner = "<br>".join(_inline(line[4:].lstrip()) for line in lines)
        return f"<blockquote>{inner}</blockquote>"
    if len(lines) > 1 and all(line.lstrip().startswith("|") for line in lines) \
            and _TABLE_SEPARATOR.match(lines[1].strip()):
        head = "".join(f"<th>{_inline(c)}</th>" for c in _cells(lines[0]))
        rows = "".join("<tr>" + "".join(f"<td>{_inline(c)}</td>" for c in _cells(line))
                       + "</tr>" for line in lines[2:])
        return f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>"
    return "<p>" + "<br>".join(_inline(line) for line in lines) + "</p>"


def note_html(markdown: str) -> Markup:
    """A reply or note the bot wrote (Reddit markdown) as safe HTML for the war room."""
    text = str(escape(_MARKER.sub("", markdown)))
    out: list[str] = []
    block: list[str] = []
    for line in [*text.splitlines(), ""]:
        if _RULE.match(line):
            if block:
                out.append(_block(block))
                block = []
            out.append("<hr>")
        elif line.strip():
            block.append(line.rstrip())
        elif block:
            out.append(_block(block))
            block = []
    return Markup("".join(out))
