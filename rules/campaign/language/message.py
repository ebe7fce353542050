"""The message parser: :func:`parse_message` reads a whole message body line by line into
orders, ``!commands`` and syntax errors, and never raises."""

from __future__ import annotations

import html
import re
import unicodedata
from dataclasses import dataclass, field
from enum import StrEnum

from rules.campaign.language.lines import (
    FIRST_WORD,
    SHORT_EXAMPLES,
    VERB_LIST,
    VERB_RE,
    cut_excerpt,
    parse_order,
    subject_first,
    suggest,
    syntax_error,
)
from rules.campaign.language.values import (
    MAX_LINE_CHARS,
    MAX_MESSAGE_CHARS,
    MAX_ORDER_LINES,
    MAX_SUGGESTIONS,
    Order,
    OrderSyntaxError,
    Problem,
)

_I = re.IGNORECASE

@dataclass(frozen=True, slots=True)
class CommandCall:
    """A ``!command`` line, passed on as written to the bot's command registry."""

    name: str
    args: str
    line_no: int


@dataclass(frozen=True, slots=True)
class ParsedLine:
    """One line (or ``;``-separated part of a line) that held an order attempt or a command.

    ``source`` is the player's text (cut to :data:`EXCERPT_CHARS`; escape before showing it).
    ``result`` is the order, the command, or the syntax error.
    """

    line_no: int
    source: str
    result: Order | CommandCall | OrderSyntaxError

    @property
    def order(self) -> Order | None:
        """The order, if the line held a well-formed one."""
        if isinstance(self.result, (CommandCall, OrderSyntaxError)):
            return None
        return self.result

    @property
    def command(self) -> CommandCall | None:
        """The command, if the line was a ``!command``."""
        return self.result if isinstance(self.result, CommandCall) else None

    @property
    def error(self) -> OrderSyntaxError | None:
        """The syntax error, if the line looked like an order but could not be read."""
        return self.result if isinstance(self.result, OrderSyntaxError) else None


@dataclass(frozen=True, slots=True)
class ParsedMessage:
    """What :func:`parse_message` read from a message.

    ``text_truncated``: the message was longer than :data:`MAX_MESSAGE_CHARS` and only its
    start was read. ``lines_truncated``: it held more than :data:`MAX_ORDER_LINES` orders and
    commands and the rest were not read. ``ignored_lines``: numbers of lines read as prose.
    ``no_orders``: set (with help) when the message held no order, command or order attempt.
    """

    items: tuple[ParsedLine, ...]
    text_truncated: bool = False
    lines_truncated: bool = False
    ignored_lines: tuple[int, ...] = field(default=())
    no_orders: OrderSyntaxError | None = None

    @property
    def truncated(self) -> bool:
        """Whether any part of the message went unread (the reply should say so)."""
        return self.text_truncated or self.lines_truncated

    @property
    def orders(self) -> tuple[Order, ...]:
        """The well-formed orders, in message order."""
        return tuple(item.order for item in self.items if item.order is not None)

    @property
    def commands(self) -> tuple[CommandCall, ...]:
        """The ``!commands``, in message order."""
        return tuple(item.command for item in self.items if item.command is not None)

    @property
    def errors(self) -> tuple[OrderSyntaxError, ...]:
        """The syntax errors, in message order."""
        return tuple(item.error for item in self.items if item.error is not None)


# Message clean-up. Line breaks of every kind become "\n"; what is invisible goes.
_LINE_BREAKS = re.compile(r"\r\n|[\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")
_VARIATION_SELECTORS = re.compile(r"[\ufe00-\ufe0f\U000e0100-\U000e01ef]")
_SPOILER = re.compile(r">!(.*?)!<")
_STRIKE = re.compile(r"~~[^~\n]{0,500}~~")
_BACKSLASH = re.compile(r"\\([^\w\s])")
_LINK = re.compile(r"\[([^\[\]\n]{0,300})\]\([^()\s]{0,500}\)")
_LEADING_MD = re.compile(
    r"^(?:\s*(?:>|#{1,6}(?=\s)|[-*+•·‣◦▪●](?=\s)|\d{1,3}[.)](?=\s)|\[[ xX]?\](?=\s)))+\s*"
)
_INLINE_MD = str.maketrans("", "", "*`^")
_MD_INSIDE_NUMBER = re.compile(r"(?<=\d)(?:\\?[*`^~_])+(?=\d)")
"""Markdown between two digits (``10**30``, ``1`0`00``, ``10^30``): it splits the number in two
rather than vanishing and joining the digits into another number."""
_UNDERSCORES = re.compile(r"(?<![^\W_])_+|_+(?![^\W_])")
_POLITE_PREFIX = re.compile(
    r"""(?:
      (?:please|pls|plz|kindly|hereby|also|and|then|next|now|finally|lastly
         |first(?:ly)?|second(?:ly)?|third(?:ly)?|afterwards|meanwhile)(?![^\W_])[\s,:]*
    | (?:i|we)(?:\s(?:would|should)\slike\sto|['’]d\slike\sto
         |\s(?:want|wish|intend|mean|need|plan|would\slove)\sto
         |\s(?:will|shall|hereby|order|command|must)|['’]ll
         |\sam\sgoing\sto|\sare\sgoing\sto)(?![^\W_])[\s,:]*
    | (?:could|can|would|will)\syou(?:\splease)?(?![^\W_])[\s,:]*
    | (?:let['’]?s|let\sus)(?![^\W_])\s*
    | /?u/[\w-]{1,40}\s?[,:]?\s*
    | (?:my\s(?:lord|lady|liege|king|queen|prince|princess)|your\s(?:grace|highness|majesty)
         |dear\s(?:mods?|moderators?|maesters?)
         |(?:hello|hi|hey|greetings)(?:\s(?:mods?|moderators?|maesters?|all|there))?
         |mods?|moderators?|maesters?)\s?[,:!.\-]+\s*
    | orders?\s?(?:\#?\d{1,3})?\s?[:.\-)]\s*
    )""",
    _I | re.VERBOSE,
)
_PRONOUN = re.compile(r"(?:i|we)\s", _I)
_POLITE_SUFFIX = re.compile(
    r"[\s,.!]*(?<![^\W_])(?:please|pls|plz|thanks|thank\syou|thx|ty|if\spossible"
    r"|if\syou\splease|my\s(?:lord|lady|liege)|your\sgrace)[\s.!]*$",
    _I,
)
_EDGE_CATEGORIES = frozenset({"Po", "Pd", "Pi", "Pf", "So", "Sk", "Zs"})
_KEEP_LEADING = frozenset("!#\"“‘'")
_KEEP_TRAILING = frozenset("\"”’'#")
_COMMAND = re.compile(r"!(?P<name>[^\W_][\w\-]{0,31})(?![\w\-])\s?(?P<args>.*)")
_ORDERISH = re.compile(r"\d|(?<!\w)(?:army|fleet)(?!\w)", _I)


def _strip_edges(text: str) -> str:
    start, end = 0, len(text)
    while start < end and (
        unicodedata.category(text[start]) in _EDGE_CATEGORIES and text[start] not in _KEEP_LEADING
    ):
        start += 1
    while end > start and (
        unicodedata.category(text[end - 1]) in _EDGE_CATEGORIES
        and text[end - 1] not in _KEEP_TRAILING
    ):
        end -= 1
    return text[start:end].strip()


def _remove_invisible(text: str) -> str:
    """Drop control, format (zero-width, bidi), surrogate, private and unassigned characters,
    keeping newlines; tabs become spaces."""
    return "".join(
        " " if ch == "\t" else ch
        for ch in text
        if ch == "\n" or ch == "\t" or unicodedata.category(ch)[0] != "C"
    )


def _nfkc_keeping_numerals(text: str) -> str:
    """NFKC, except that numerals other than plain digits stay as written, so "1²" is refused
    as a number instead of being read as 12."""
    return "".join(
        ch if unicodedata.category(ch) == "No" else unicodedata.normalize("NFKC", ch)
        for ch in text
    ) if any(unicodedata.category(ch) == "No" for ch in text) else unicodedata.normalize(
        "NFKC", text
    )


def _normalise_message(text: str) -> str:
    text = _LINE_BREAKS.sub("\n", text[:MAX_MESSAGE_CHARS])
    text = _remove_invisible(text)
    text = html.unescape(text)  # Reddit sometimes hands over &gt; &amp; &#x200B;
    text = _nfkc_keeping_numerals(text)[:MAX_MESSAGE_CHARS]
    text = _VARIATION_SELECTORS.sub("", _LINE_BREAKS.sub("\n", text))
    return _remove_invisible(text)


def _strip_markdown(text: str) -> str:
    text = _MD_INSIDE_NUMBER.sub(" ", text)
    text = _SPOILER.sub(r"\1", text.strip())
    text = _BACKSLASH.sub(r"\1", text)
    text = _LINK.sub(r"\1", text)
    text = _LEADING_MD.sub("", text, count=1)
    text = _STRIKE.sub("", text).translate(_INLINE_MD).replace("~~", "")
    text = _UNDERSCORES.sub("", text)
    text = _LEADING_MD.sub("", text, count=1)
    return " ".join(text.split())


def _first_word_is_verb(text: str) -> bool:
    return VERB_RE.match(text) is not None


def _clean_line(segment: str) -> str:
    """A line with markdown, greetings, polite words and edge punctuation taken off."""
    text = _strip_edges(_strip_markdown(segment))
    for _ in range(8):
        polite = _POLITE_PREFIX.match(text)
        if polite is not None and polite.end() > 0:
            text = _strip_edges(text[polite.end() :])
            continue
        pronoun = _PRONOUN.match(text)
        if pronoun is not None and _first_word_is_verb(text[pronoun.end() :]):
            text = text[pronoun.end() :]
            continue
        break
    for _ in range(3):
        shorter = _POLITE_SUFFIX.sub("", text)
        if shorter == text:
            break
        text = shorter
    return _strip_edges(text)


class _Kind(StrEnum):
    ORDER = "order"
    COMMAND = "command"
    PROSE = "prose"


def _classify(text: str, suggestions_left: list[int]) -> _Kind:
    """Whether a cleaned line is an order attempt, a command, or prose to ignore."""
    if _COMMAND.fullmatch(text):
        return _Kind.COMMAND
    if VERB_RE.match(text) is not None:
        return _Kind.ORDER
    army_first = subject_first(text)
    if army_first is not None:
        return _Kind.ORDER
    first = FIRST_WORD.match(text)
    if (
        first is not None
        and 3 <= len(first.group(0)) <= 12
        and len(text.split()) <= 12
        and _ORDERISH.search(text)
        and suggestions_left[0] > 0
    ):
        suggestions_left[0] -= 1
        if suggest(first.group(0)) is not None:
            return _Kind.ORDER
    return _Kind.PROSE


_WIDE_GAP = re.compile(r" {3,}")


@dataclass(frozen=True, slots=True)
class _Segment:
    """One part of a line as the parser reads it: ``raw`` with its runs of spaces made one,
    ``cleaned`` (:func:`_clean_line`, of its first half only when it is ``too_long``: the
    error needs no more than the order word)."""

    raw: str
    cleaned: str
    too_long: bool


def _segment(text: str) -> _Segment:
    raw = " ".join(text.split())
    too_long = len(raw) > MAX_LINE_CHARS
    return _Segment(raw, _clean_line(raw[: MAX_LINE_CHARS // 2] if too_long else raw), too_long)


def _segments(line: str) -> list[_Segment]:
    """The parts of a line holding one order each: split at ";", and at a wide gap of spaces
    followed by an order word ("retreat army 2      stand army 3"). Each text is cleaned once:
    a line that is not split is its own one part.

    A line that is a ``!command`` is one part: the command reads its own arguments, and some
    separate their parts with ";" (``!combat ... vs ...; support ...; area ...``), which
    would otherwise be cut off and dropped as prose."""
    whole = _segment(line)
    if _COMMAND.fullmatch(whole.cleaned):
        return [whole]
    pieces: list[str] = []
    for part in line.split(";"):
        start = 0
        for gap in _WIDE_GAP.finditer(part):
            if gap.start() > start and VERB_RE.match(part, gap.end()):
                pieces.append(part[start : gap.start()])
                start = gap.end()
        pieces.append(part[start:])
    return [whole] if len(pieces) == 1 else [_segment(piece) for piece in pieces]


def _no_orders(excerpt: str) -> OrderSyntaxError:
    return OrderSyntaxError(
        Problem.NO_ORDERS,
        "no orders were found in this message",
        f"one order per line, each starting with an order word ({VERB_LIST})",
        SHORT_EXAMPLES,
        cut_excerpt(excerpt),
    )


def acting_for(text: str) -> tuple[str, str | None]:
    """A moderator's ``as House Stark:`` first line: (the rest of the text, the claim's name),
    or (``text``, None) when the message has no such line. The first line is read as orders
    are (invisible characters dropped, NFKC), so a zero-width space cannot hide it."""
    first, _, rest = text.strip().partition("\n")
    head = " ".join(_normalise_message(first).split())
    if head.lower().startswith("as ") and ":" in head:
        name, _, after = head[3:].partition(":")
        return (after + "\n" + rest).strip(), name.strip()
    return text, None


def parse_message(text: str) -> ParsedMessage:
    """Read every order and ``!command`` in a message body; never raises.

    The text is cut to its first :data:`MAX_MESSAGE_CHARS` characters, normalised (NFKC,
    invisible and control characters removed) and read line by line; ``;`` also separates
    orders. Markdown, greetings and polite words around an order are ignored. A line that does
    not begin with an order word (or an army followed by one, or a near miss of one) is prose
    and is skipped; if nothing at all is found, ``no_orders`` holds an error with help. At most
    :data:`MAX_ORDER_LINES` items are read. An order line over :data:`MAX_LINE_CHARS`
    characters is a ``LINE_TOO_LONG`` error.
    """
    body = _normalise_message(text)
    items: list[ParsedLine] = []
    ignored: list[int] = []
    lines_truncated = False
    suggestions_left = [MAX_SUGGESTIONS]
    first_text = ""
    for line_no, line in enumerate(body.split("\n"), start=1):
        if lines_truncated:
            break
        for segment in _segments(line):
            raw, cleaned, too_long = segment.raw, segment.cleaned, segment.too_long
            if not raw:
                continue
            first_text = first_text or raw
            kind = _classify(cleaned, suggestions_left) if cleaned else _Kind.PROSE
            if kind is _Kind.PROSE:
                if not ignored or ignored[-1] != line_no:
                    ignored.append(line_no)
                continue
            if len(items) >= MAX_ORDER_LINES:
                lines_truncated = True
                break
            result: Order | CommandCall | OrderSyntaxError
            if too_long:
                result = syntax_error(
                    Problem.LINE_TOO_LONG,
                    f"the line is too long (at most {MAX_LINE_CHARS} characters)",
                    None,
                    raw[:60],
                    expected=f"one order per line, at most {MAX_LINE_CHARS} characters",
                )
            elif kind is _Kind.COMMAND:
                command = _COMMAND.fullmatch(cleaned)
                name = command.group("name").casefold() if command else ""
                args = command.group("args").strip() if command else ""
                result = CommandCall(name, args, line_no)
            else:
                try:
                    result = parse_order(cleaned)
                except OrderSyntaxError as error:
                    result = error
            items.append(ParsedLine(line_no, cut_excerpt(raw), result))
    return ParsedMessage(
        items=tuple(items),
        text_truncated=len(text) > MAX_MESSAGE_CHARS,
        lines_truncated=lines_truncated,
        ignored_lines=tuple(ignored),
        no_orders=None if items else _no_orders(first_text),
    )


