"""The order kinds of the language: one line parser per order kind, the one table of order kinds
(:data:`ORDER_LANGUAGE`: each kind's value, form and parser) and :func:`parse_order`, which
reads one line into an order value or raises :class:`OrderSyntaxError`."""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import date
from functools import lru_cache
from types import MappingProxyType

from rules.campaign.language.values import (
    EXCERPT_CHARS,
    MAX_LINE_CHARS,
    MAX_NAME_CHARS,
    MAX_NUMBER,
    MAX_REASON_CHARS,
    NAME_FORBIDDEN,
    QUOTED,
    Assault,
    Assign,
    Attack,
    Away,
    Blockade,
    Build,
    Buy,
    Cancel,
    Cede,
    Disband,
    Help,
    Intercept,
    Lift,
    Link,
    Move,
    Muster,
    Odds,
    Order,
    OrderForm,
    OrderSyntaxError,
    Problem,
    Retreat,
    Route,
    Sally,
    Siege,
    Spare,
    Stand,
    Status,
    Webhook,
    fold,
    number_problem,
)
from rules.errors import InvalidInput

# --------------------------------------------------------------------------------------------
# Regular expression pieces. Lines reach them with whitespace collapsed to single spaces.

_I = re.IGNORECASE
_NUM = r"(?:\d{1,3}(?:,\d{3})+(?!\d)|\d+)"
_ARMY_WORDS = r"(?:(?:my|the)\s)?(?:army|fleet|host)\s?(?:(?:no\.?|nr\.?|number)\s?)?#?\s?"
_NAME = r'(?:"[^"]*"|“[^”]*”|[^"“”]+?)'
_QUOTE_CHARS = '"“”'


def _army(group: str, *, bare: bool) -> str:
    """An army reference ("army 2", "fleet 2", "#2", "army #2"; a bare "2" when ``bare``)."""
    prefix = rf"(?:{_ARMY_WORDS}|#\s?)" + ("?" if bare else "")
    return rf"{prefix}(?P<{group}>{_NUM})(?!\w)"


FIRST_WORD = re.compile(r"[^\W\d_]+")
_LEAD_PUNCT = re.compile(r"\s?[:,.\-–—]?\s?")
_ANY_ARMY = re.compile(rf"{_army('n', bare=False)}", _I)


def cut_excerpt(text: str) -> str:
    text = text.strip()
    return text if len(text) <= EXCERPT_CHARS else text[: EXCERPT_CHARS - 1] + "…"


def syntax_error(
    code: Problem, problem: str, verb: str | None, excerpt: str, *, expected: str | None = None
) -> OrderSyntaxError:
    if verb is not None:
        form = ORDER_FORMS[verb]
        return OrderSyntaxError(
            code, problem, expected or form.pattern, form.example, cut_excerpt(excerpt), verb
        )
    return OrderSyntaxError(
        code,
        problem,
        expected or f"a line starting with an order word ({VERB_LIST})",
        SHORT_EXAMPLES,
        cut_excerpt(excerpt),
    )


def _number(text: str, verb: str, line: str, *, minimum: int, what: str) -> int:
    digits = text.replace(",", "").lstrip("0") or "0"
    if len(digits) > len(str(MAX_NUMBER)):
        raise syntax_error(Problem.BAD_NUMBER, f"the {what} is too large", verb, line)
    value = int(digits)
    if value < minimum or value > MAX_NUMBER:
        if what.endswith("army number"):
            problem = "army numbers start at 1"
        else:
            problem = f"the {what} must be at least {minimum}"
        raise syntax_error(Problem.BAD_NUMBER, problem, verb, line)
    return value


def _army_number(m: re.Match[str], groups: tuple[str, ...], verb: str, line: str) -> int:
    found = _group(m, *groups)
    if found is None:  # the patterns always set one of the groups; kept for safety
        raise syntax_error(Problem.MISSING_ARMY, "no army number was found", verb, line)
    return _number(found, verb, line, minimum=1, what="army number")


def _group(m: re.Match[str], *names: str) -> str | None:
    found = m.groupdict()
    for name in names:
        value = found.get(name)
        if value is not None:
            return value
    return None


# Connecting words that never make sense alone as a name: seen bare, the name was left out.
_NOT_A_NAME = frozenset(
    (
        *("with", "using", "by", "from", "at", "in", "on", "upon", "against", "for", "of"),
        *("to", "toward", "towards", "as", "army", "fleet", "host", "and", "vs", "versus"),
        *("forth", "out"),
    )
)


def _name(raw: str, what: str, verb: str, line: str, *, in_path: bool = False) -> str:
    text = raw.strip()
    if len(text) >= 2 and (
        (text[0] == '"' and text[-1] == '"') or (text[0] == "“" and text[-1] == "”")
    ):
        text = " ".join(text[1:-1].split())
    elif not in_path and fold(text) in _NOT_A_NAME:
        # A bare keyword where a name should be means the name was left out ("siege with
        # army 2"); a place really called "with" can still be written in quotes.
        raise syntax_error(Problem.BAD_NAME, f"the {what} is missing", verb, line)
    if not text:
        raise syntax_error(Problem.BAD_NAME, f"the {what} is empty", verb, line)
    if len(text) > MAX_NAME_CHARS:
        raise syntax_error(
            Problem.BAD_NAME,
            f"the {what} is too long (at most {MAX_NAME_CHARS} characters)",
            verb,
            line,
        )
    if any(ch in NAME_FORBIDDEN for ch in text):
        raise syntax_error(
            Problem.BAD_NAME,
            f"the {what} contains a quote mark or semicolon; put quotes only around a whole name",
            verb,
            line,
        )
    if any(unicodedata.category(ch)[0] == "C" for ch in text):
        raise syntax_error(
            Problem.BAD_NAME, f"the {what} contains invisible or control characters", verb, line
        )
    return text


def _diagnose(verb: str, rest: str, line: str, *, needs_army: bool = True) -> OrderSyntaxError:
    """The most helpful error for an order whose arguments match none of its forms."""
    if rest.count('"') % 2 or rest.count("“") != rest.count("”"):
        return syntax_error(
            Problem.BAD_NAME, "quote marks must come in pairs around a name", verb, line
        )
    if needs_army and _ANY_ARMY.search(rest) is None:
        return syntax_error(
            Problem.MISSING_ARMY, "no army was named (write army N, fleet N or #N)", verb, line
        )
    return syntax_error(Problem.WRONG_FORM, f"this {verb} order could not be read", verb, line)


# --------------------------------------------------------------------------------------------
# One parser per order. Each gets ``rest`` (the text after the order word) and ``line`` (the
# whole line, for the excerpt) and returns an order or raises OrderSyntaxError.

_UNITS: dict[str, str] = {}
for _unit, _words in (
    ("infantry", "infantry|inf|foot|footmen|foot soldiers|footsoldiers|spearmen|pikemen|levies"),
    ("cavalry", "cavalry|cav|horse|horses|horsemen|knights|riders|mounted"),
    ("ships", "ships|ship|galleys|galley|longships|longship|warships|warship|boats|boat|vessels"),
):
    for _word in _words.split("|"):
        _UNITS[_word] = _unit
_UNIT_ALT = "|".join(
    r"\s".join(re.escape(p) for p in w.split()) for w in sorted(_UNITS, key=len, reverse=True)
)
_MUSTER_FILLER = re.compile(
    r"(?:(?:an?|my|new|the)\s)?(?:army|host|fleet|force|levy)\s(?:of|with)\s?", _I
)
_MUSTER_PART = re.compile(
    rf"(?:(?P<n>{_NUM})\s?(?P<u>{_UNIT_ALT})|(?P<u2>{_UNIT_ALT})\s?:?\s?(?P<n2>{_NUM}))(?!\w)", _I
)
_MUSTER_JOIN = re.compile(r"\s?(?:(?:,|&|\+|and|plus)\s?)?", _I)
_MUSTER_AT = re.compile(r"\s?(?:at|in|from)\s(?P<at>.+)", _I)
_MUSTER_VAGUE = re.compile(rf"{_NUM}\s?(?:men|troops|soldiers|warriors|swords|spears)?(?!\w)", _I)


def _parse_muster(rest: str, line: str) -> Order:
    pos = 0
    filler = _MUSTER_FILLER.match(rest)
    if filler is not None:
        pos = filler.end()
    counts: dict[str, int] = {}
    while True:
        part = _MUSTER_PART.match(rest, pos)
        if part is None:
            break
        unit = _UNITS.get(fold(_group(part, "u", "u2") or ""))
        if unit is None:  # the pattern only matches known units; kept for safety
            raise syntax_error(Problem.BAD_TROOPS, "unknown kind of troops", "muster", line)
        if unit in counts:
            raise syntax_error(Problem.BAD_TROOPS, f"{unit} is given twice", "muster", line)
        counts[unit] = _number(
            _group(part, "n", "n2") or "0", "muster", line, minimum=0, what=f"number of {unit}"
        )
        pos = part.end()
        join = _MUSTER_JOIN.match(rest, pos)
        if join is None or _MUSTER_PART.match(rest, join.end()) is None:
            break
        pos = join.end()
    remainder = rest[pos:]
    at: str | None = None
    if remainder.strip():
        at_match = _MUSTER_AT.fullmatch(remainder)
        if at_match is None or not counts:
            if _MUSTER_VAGUE.match(remainder.strip()):
                raise syntax_error(
                    Problem.BAD_TROOPS,
                    "say which troops each number is: infantry, cavalry or ships",
                    "muster",
                    line,
                )
            if not counts:
                raise syntax_error(
                    Problem.BAD_TROOPS, "no numbers of troops were found", "muster", line
                )
            raise _diagnose("muster", remainder, line, needs_army=False)
        at = _name(at_match.group("at"), "place to muster at", "muster", line)
    if not counts:
        raise syntax_error(Problem.BAD_TROOPS, "no numbers of troops were found", "muster", line)
    if sum(counts.values()) == 0:
        raise syntax_error(Problem.BAD_TROOPS, "there is nothing to muster", "muster", line)
    return Muster(counts.get("infantry", 0), counts.get("cavalry", 0), counts.get("ships", 0), at)


# The army of a move: "army 2", "fleet 2", "#2"; or a bare number, followed by a colon
# ("move 2: ...") or by a tile that is not a separator ("move 2 Winterfell > ..."); a bare
# four-digit number with no colon is the first tile id of a path that forgot its army.
_MOVE_HEAD = re.compile(
    rf"(?:{_army('a', bare=False)}|(?P<b>{_NUM})(?=\s?:)|(?P<c>\d{{1,3}})\s"
    r"(?!(?:-->|->|=>|→|⟶|⇒|➔|➜|>|,|–|—|-\s|(?:to|then)(?!\w))))"
    r"\s?(?:[:,\-–—]\s?)?(?:from\s)?",
    _I,
)
_COST_WORDS = r"(?:(?:total|travel)\s)*(?:cost|costs|tc)\s?(?:(?:of|is)\s)?[:=]?\s?"
_COST_RE = re.compile(
    rf"[\(\[]\s?{_COST_WORDS}(?P<c1>{_NUM})\s?(?:tc\s?)?[\)\]]$"
    rf"|(?<![^\s>,→:])(?<!\w){_COST_WORDS}(?P<c2>{_NUM})(?:\s?tc)?$"
    rf"|\((?P<c3>{_NUM})\)$"
    rf"|[\(\[]\s?(?P<c4>{_NUM})\s?(?:(?:total\s|travel\s)?(?:cost|tc))[\)\]]$",
    _I,
)
_COST_LEFTOVER = re.compile(r"(?<!\w)(?:cost|costs|tc)(?!\w)", _I)
_PATH_SEP = re.compile(
    r"\s?(-->|->|=>|→|⟶|⇒|➔|➜|>|,|–|—|(?<=\s)-(?=\s)|(?<!\w)(?:to|then)(?!\w))\s?", _I
)


def parse_path(text: str) -> tuple[str, ...]:
    """The tiles of a path written with ``>``, ``->``, ``→``, ``,``, ``to`` or ``then``
    between them (quoted names may contain any of those).

    Raises OrderSyntaxError (``BAD_PATH``/``BAD_NAME``) for an empty path, a missing tile
    between two separators, two tiles with no separator, or a bad name.
    """
    line = " ".join(text.split())
    # Tokens: a tile name (str) or a separator (None, with its text kept for trailing commas).
    tokens: list[tuple[str, str | None]] = []
    pos = 0
    chunks: list[tuple[bool, str]] = []
    for quoted in QUOTED.finditer(line):
        chunks.append((False, line[pos : quoted.start()]))
        chunks.append((True, quoted.group(0)))
        pos = quoted.end()
    chunks.append((False, line[pos:]))
    for is_quoted, chunk in chunks:
        if is_quoted:
            tokens.append(("name", _name(chunk, "tile name", "move", line, in_path=True)))
            continue
        if any(q in chunk for q in _QUOTE_CHARS):
            raise syntax_error(
                Problem.BAD_NAME, "quote marks must come in pairs around a name", "move", line
            )
        parts = _PATH_SEP.split(chunk)
        # re.split with one group alternates text, separator, text, ...
        for index, part in enumerate(parts):
            if index % 2:
                tokens.append(("sep", part))
            elif part.strip():
                tokens.append(("name", _name(part, "tile name", "move", line, in_path=True)))
    while tokens and tokens[0][0] == "sep":
        tokens.pop(0)
    if tokens and tokens[-1] == ("sep", ","):
        tokens.pop()
    if not tokens:
        raise syntax_error(Problem.BAD_PATH, "no tiles were given", "move", line)
    path: list[str] = []
    previous = "sep"
    for kind, value in tokens:
        if kind == previous == "name":
            raise syntax_error(
                Problem.BAD_PATH,
                "two tiles follow each other with no > between them",
                "move",
                line,
            )
        if kind == previous == "sep":
            raise syntax_error(
                Problem.BAD_PATH, "a tile is missing between two separators", "move", line
            )
        if kind == "name" and value is not None:
            path.append(value)
        previous = kind
    if previous == "sep":
        raise syntax_error(Problem.BAD_PATH, "the path ends without a tile", "move", line)
    return tuple(path)


def _parse_move(rest: str, line: str) -> Order:
    head = _MOVE_HEAD.match(rest)
    if head is None:
        if _ANY_ARMY.search(rest) is None:
            raise syntax_error(
                Problem.MISSING_ARMY,
                "say which army moves, right after the order word (move army N: ...)",
                "move",
                line,
            )
        raise syntax_error(Problem.WRONG_FORM, "put the army first, then its path", "move", line)
    army = _army_number(head, ("a", "b", "c"), "move", line)
    body = rest[head.end() :].strip()
    cost: int | None = None
    cost_match = _COST_RE.search(body)
    if cost_match is not None:
        cost = _number(
            _group(cost_match, "c1", "c2", "c3", "c4") or "0",
            "move",
            line,
            minimum=0,
            what="travel cost",
        )
        body = body[: cost_match.start()].strip()
    unquoted = QUOTED.sub("", body)
    if _COST_LEFTOVER.search(unquoted):
        raise syntax_error(
            Problem.BAD_COST,
            "the travel cost could not be read; write it at the end as (cost N)",
            "move",
            line,
        )
    return Move(army, parse_path(body), cost)


_ATTACK_FORMS = (
    re.compile(
        rf"(?:(?:on|against)\s)?{_army('t', bare=True)}\s(?:with|using|by|from)\s"
        rf"{_army('a', bare=True)}",
        _I,
    ),
    re.compile(
        rf"with\s{_army('a', bare=True)}\s(?:(?:on|against|at)\s)?{_army('t', bare=False)}", _I
    ),
)
_ATTACK_PLACE = re.compile(rf"{_NAME}\s(?:with|using|by)\s{_army('a', bare=True)}", _I)
_ATTACK_ALONE = re.compile(rf"(?:(?:on|against)\s)?{_army('t', bare=False)}", _I)


def _parse_attack(rest: str, line: str) -> Order:
    for form in _ATTACK_FORMS:
        m = form.fullmatch(rest)
        if m is not None:
            return Attack(
                _army_number(m, ("t",), "attack", line), _army_number(m, ("a",), "attack", line)
            )
    if _ATTACK_ALONE.fullmatch(rest):
        raise syntax_error(
            Problem.MISSING_ARMY,
            "say which of your armies attacks (attack army N with army N)",
            "attack",
            line,
        )
    if _ATTACK_PLACE.fullmatch(rest):
        raise syntax_error(
            Problem.WRONG_FORM,
            "attack is for enemy armies; to take a holdfast use siege or assault",
            "attack",
            line,
        )
    raise _diagnose("attack", rest, line)


def _parse_intercept(rest: str, line: str) -> Order:
    for form in _ATTACK_FORMS:
        m = form.fullmatch(rest)
        if m is not None:
            return Intercept(_army_number(m, ("t",), "intercept", line),
                             _army_number(m, ("a",), "intercept", line))
    if _ATTACK_ALONE.fullmatch(rest):
        raise syntax_error(Problem.MISSING_ARMY, "say which of your armies intercepts "
                     "(intercept army N with army N)", "intercept", line)
    raise _diagnose("intercept", rest, line)


def _place_forms(lead_a: str, lead_b: str, unit: str) -> tuple[re.Pattern[str], ...]:
    """The two shapes of "VERB PLACE with ARMY" and "VERB with ARMY at PLACE"."""
    del unit  # the army and fleet keywords are interchangeable; validation checks the kind
    form_a = (
        rf"(?:(?:{lead_a})\s)?(?P<name>{_NAME})\s"
        rf"(?:(?:with|using|by)\s{_army('a1', bare=True)}|{_army('a2', bare=False)})"
    )
    form_b = (
        rf"(?:(?:with|using|by)\s)?{_army('a3', bare=False)}\s(?:(?:{lead_b})\s)?"
        rf"(?P<name2>{_NAME})"
    )
    return (re.compile(form_a, _I), re.compile(form_b, _I))


_PLACE_FORMS: dict[str, tuple[re.Pattern[str], ...]] = {
    "siege": _place_forms("to|on|against|at|upon", "at|on|against|to|upon", "army"),
    "assault": _place_forms("on|against|at|upon", "at|on|against|upon", "army"),
    "sally": _place_forms(
        r"forth\sfrom|forth\sout\sof|from|out\sof|forth", r"from|out\sof|at", "army"
    ),
    "blockade": _place_forms("of|on|at", "at|of|on", "fleet"),
}
_PLACE_WHAT = {"siege": "holdfast", "assault": "holdfast", "sally": "holdfast", "blockade": "port"}


def _parse_place(verb: str, rest: str, line: str) -> tuple[str, int]:
    for form in _PLACE_FORMS[verb]:
        m = form.fullmatch(rest)
        if m is None:
            continue
        raw = _group(m, "name", "name2") or ""
        if _ANY_ARMY.fullmatch(raw.strip()):
            raise syntax_error(
                Problem.WRONG_FORM, f"name the {_PLACE_WHAT[verb]}, not an army", verb, line
            )
        return (
            _name(raw, f"{_PLACE_WHAT[verb]} name", verb, line),
            _army_number(m, ("a1", "a2", "a3"), verb, line),
        )
    army_only = _ANY_ARMY.fullmatch(rest.removeprefix("with ").removeprefix("using "))
    if army_only is not None:
        raise syntax_error(
            Problem.WRONG_FORM, f"say which {_PLACE_WHAT[verb]} (see the example)", verb, line
        )
    raise _diagnose(verb, rest, line)


def _parse_siege(rest: str, line: str) -> Order:
    return Siege(*_parse_place("siege", rest, line))


def _parse_assault(rest: str, line: str) -> Order:
    return Assault(*_parse_place("assault", rest, line))


_SALLY_ALONE = re.compile(
    rf"(?:forth\s)?(?:(?:from|out\sof)\s)?(?P<name>{_NAME})", _I
)


def _parse_sally(rest: str, line: str) -> Order:
    if not rest.strip():
        raise syntax_error(Problem.WRONG_FORM, "say which holdfast (sally from HOLDFAST)", "sally",
                     line)
    try:
        return Sally(*_parse_place("sally", rest, line))
    except OrderSyntaxError:
        alone = _SALLY_ALONE.fullmatch(rest)
        if alone is None or _ANY_ARMY.search(rest) is not None:
            raise
        # "sally from Riverrun": the whole ready garrison rides out
        return Sally(_name(alone.group("name"), "holdfast name", "sally", line))


_LIFT_FORM = re.compile(
    rf"(?:(?:the|my|our)\s)?(?:siege\s)?(?:(?:of|at|on)\s)?(?P<name>{_NAME})", _I
)


def _parse_lift(rest: str, line: str) -> Order:
    m = _LIFT_FORM.fullmatch(rest)
    if m is None or _ANY_ARMY.search(rest) is not None or not rest.strip():
        raise syntax_error(Problem.WRONG_FORM, "name the holdfast (lift siege of HOLDFAST)", "lift",
                     line)
    return Lift(_name(m.group("name"), "holdfast name", "lift", line))


def _parse_blockade(rest: str, line: str) -> Order:
    return Blockade(*_parse_place("blockade", rest, line))


# What a cancel may name: the army's pending order, whatever it is (the handler decides).
_CANCELLED = r"(?:move|march|movement|orders?|muster|attack|assault)"
_SINGLE_ARMY_FORMS: dict[str, re.Pattern[str]] = {
    "retreat": re.compile(
        rf"(?:with\s)?{_army('a', bare=True)}(?:\s(?:now|at\sonce|immediately))?", _I
    ),
    "stand": re.compile(
        rf"(?:with\s)?{_army('a', bare=True)}(?:\s(?:and\s)?(?:fight|give\sbattle|hold\sfast"
        rf"|hold|stand\sfirm|stand\sfast|its\sground|ground|firm|fast))?",
        _I,
    ),
    "cancel": re.compile(
        rf"(?:(?:the|my|its)\s)?(?:{_CANCELLED}\s)?(?:(?:of|for|by|with)\s)?"
        rf"{_army('a', bare=True)}(?:'s|’s)?(?:\s(?:(?:its|the)\s)?{_CANCELLED})?",
        _I,
    ),
    "disband": re.compile(
        rf"{_army('a', bare=True)}(?:\s(?:and\ssend\s(?:them|it)\shome|home))?", _I
    ),
    "spare": re.compile(rf"{_army('a', bare=True)}(?:\s(?:stay|go))?", _I),
}
_RETREAT_TO = re.compile(
    rf"{_army('a', bare=True)}\s(?:back\s)?(?:to|towards|toward|into)\s(?P<name>{_NAME})", _I
)
_RETREAT_PATH = re.compile(rf"{_army('a', bare=True)}\s?(?::|along|by|via)\s?(?P<path>.+)", _I)


def _parse_single_army(verb: str, rest: str, line: str) -> int:
    m = _SINGLE_ARMY_FORMS[verb].fullmatch(rest)
    if m is not None:
        return _army_number(m, ("a",), verb, line)
    raise _diagnose(verb, rest, line)


def _parse_retreat(rest: str, line: str) -> Order:
    to = _RETREAT_TO.fullmatch(rest)
    if to is not None:
        return Retreat(_army_number(to, ("a",), "retreat", line),
                       to=_name(to.group("name"), "destination", "retreat", line))
    along = _RETREAT_PATH.fullmatch(rest)
    if along is not None:
        return Retreat(_army_number(along, ("a",), "retreat", line),
                       path=parse_path(along.group("path")))
    return Retreat(_parse_single_army("retreat", rest, line))


def _parse_stand(rest: str, line: str) -> Order:
    return Stand(_parse_single_army("stand", rest, line))


def _parse_cancel(rest: str, line: str) -> Order:
    return Cancel(_parse_single_army("cancel", rest, line))


def _parse_disband(rest: str, line: str) -> Order:
    return Disband(_parse_single_army("disband", rest, line))


def _parse_spare(rest: str, line: str) -> Order:
    return Spare(_parse_single_army("spare", rest, line))


_ROUTE_FORMS = (
    re.compile(
        rf"(?:(?:for|of)\s)?{_army('a', bare=True)}\s?(?:(?:to|towards|toward|->|>|→|:)\s?)?"
        rf"(?P<name>{_NAME})",
        _I,
    ),
    re.compile(rf"(?:to\s)?(?P<name>{_NAME})\s(?:for|with)\s{_army('a', bare=True)}", _I),
)


def _parse_route(rest: str, line: str) -> Order:
    for form in _ROUTE_FORMS:
        m = form.fullmatch(rest)
        if m is not None:
            return Route(
                _army_number(m, ("a",), "route", line),
                _name(m.group("name"), "destination", "route", line),
            )
    if _ANY_ARMY.fullmatch(rest):
        raise syntax_error(Problem.WRONG_FORM, "say where to (route army N to TILE)", "route", line)
    raise _diagnose("route", rest, line)


def _parse_link(rest: str, line: str) -> Order:
    del rest, line  # "link please", "link to the war room": link only reads
    return Link()


def _parse_status(rest: str, line: str) -> Order:
    del rest, line  # anything after "status" is harmless chatter: status only reads
    return Status()


_ODDS_FORM = re.compile(
    rf"(?:(?:of|for|between)\s)?{_army('a', bare=True)}\s?"
    r"(?:versus|vs\.?|v\.?|against|and|/|x|-|–|—)\s?"
    rf"{_army('b', bare=True)}",
    _I,
)


def _parse_odds(rest: str, line: str) -> Order:
    m = _ODDS_FORM.fullmatch(rest)
    if m is None:
        if len(_ANY_ARMY.findall(rest)) == 1:
            raise syntax_error(
                Problem.MISSING_ARMY,
                "name two armies (odds army N vs army N)",
                "odds",
                line,
            )
        raise _diagnose("odds", rest, line)
    return Odds(_army_number(m, ("a",), "odds", line), _army_number(m, ("b",), "odds", line))


_BUILD_FORM = re.compile(rf"(?P<imp>{_NAME})\s(?:at|in|on)\s(?P<hold>{_NAME})", _I)


def _parse_build(rest: str, line: str) -> Order:
    m = _BUILD_FORM.fullmatch(rest)
    if m is None:
        if not rest.strip():
            raise syntax_error(Problem.WRONG_FORM, "say what to build and where", "build", line)
        if rest.count('"') % 2 or rest.count("“") != rest.count("”"):
            raise _diagnose("build", rest, line, needs_army=False)
        raise syntax_error(
            Problem.WRONG_FORM,
            "say where to build it (build IMPROVEMENT at HOLDFAST)",
            "build",
            line,
        )
    return Build(
        _name(m.group("imp"), "improvement name", "build", line),
        _name(m.group("hold"), "holdfast name", "build", line),
    )


_CEDE_FORM = re.compile(rf"(?P<tile>{_NAME})\s(?:to)\s(?P<claim>{_NAME})", _I)


def _parse_cede(rest: str, line: str) -> Order:
    m = _CEDE_FORM.fullmatch(rest)
    if m is None:
        if rest.count('"') % 2 or rest.count("“") != rest.count("”"):
            raise _diagnose("cede", rest, line, needs_army=False)
        raise syntax_error(Problem.WRONG_FORM, "say which tile and to whom (cede TILE to CLAIM)",
                     "cede", line)
    return Cede(
        _name(m.group("tile"), "tile name", "cede", line),
        _name(m.group("claim"), "claim name", "cede", line),
    )


_BUY_FORM = re.compile(
    rf"(?:(?P<q>{_NUM}|an?|one)\s?x?\s)?(?P<eq>{_NAME})\s(?:for|to)\s{_army('a', bare=True)}", _I
)


def _parse_buy(rest: str, line: str) -> Order:
    m = _BUY_FORM.fullmatch(rest)
    if m is None:
        raise _diagnose("buy", rest, line)
    quantity_text = m.group("q")
    quantity = 1
    if quantity_text is not None and quantity_text[0].isdigit():
        quantity = _number(quantity_text, "buy", line, minimum=1, what="quantity")
    return Buy(
        _name(m.group("eq"), "equipment name", "buy", line),
        _army_number(m, ("a",), "buy", line),
        quantity,
    )


_ASSIGN_FORM = re.compile(
    rf"(?P<cmd>{_NAME})\s(?:as\scommander\s(?:of|for|to)|to\scommand|to\slead|to)\s"
    rf"{_army('a', bare=True)}",
    _I,
)


def _parse_assign(rest: str, line: str) -> Order:
    m = _ASSIGN_FORM.fullmatch(rest)
    if m is None:
        raise _diagnose("assign", rest, line)
    return Assign(
        _name(m.group("cmd"), "commander's name", "assign", line),
        _army_number(m, ("a",), "assign", line),
    )


_AWAY_FORM = re.compile(
    r"(?:(?:until|till|til|to)\s)?(?P<date>\d{4}-\d{1,2}-\d{1,2})"
    r"(?:\s?[:,.\-–—;]?\s?(?P<reason>.*))?",
    _I | re.DOTALL,
)


def _parse_away(rest: str, line: str) -> Order:
    m = _AWAY_FORM.fullmatch(rest)
    if m is None:
        raise syntax_error(Problem.WRONG_FORM, "say until when, as a date YYYY-MM-DD", "away",
                           line)
    written = m.group("date")
    try:
        until = date.fromisoformat("-".join(f"{int(p):02d}" for p in written.split("-")))
    except ValueError:
        raise syntax_error(Problem.WRONG_FORM, f"{written} is not a date", "away",
                           line) from None
    reason = " ".join((m.group("reason") or "").split())
    if len(reason) > MAX_REASON_CHARS:
        raise syntax_error(Problem.WRONG_FORM, "the reason is too long (at most "
                           f"{MAX_REASON_CHARS} characters)", "away", line)
    return Away(until, reason)


_WEBHOOK_OFF = re.compile(r"(?:off|stop|none|remove|delete|no)\.?", _I)
_WEBHOOK_URL = re.compile(r"\[[^\]]*\]\((?P<linked>\S+?)\)|<?(?P<url>\S+?)>?")


def _parse_webhook(rest: str, line: str) -> Order:
    if _WEBHOOK_OFF.fullmatch(rest):
        return Webhook(None)
    m = _WEBHOOK_URL.fullmatch(rest)
    if m is None or not rest:
        raise syntax_error(Problem.WRONG_FORM, "give one webhook address (or `off`)",
                           "webhook", line)
    return Webhook(m.group("url") or m.group("linked"))


def _parse_help(rest: str, line: str) -> Order:
    if not rest.strip():
        return Help(None)
    return Help(_name(rest, "help topic", "help", line))


# --------------------------------------------------------------------------------------------
# The one table of order kinds


@dataclass(frozen=True, slots=True)
class OrderWords:
    """One kind of order in the language: its value (:attr:`order`), how it is written
    (:attr:`form`: its word, synonyms, shape, example and summary, as the players' guide and
    the replies show it) and how a line is read (:attr:`parse`: ``parse(rest, line)``, the
    text after the order word and the whole line, -> the order value, or
    :class:`OrderSyntaxError`)."""

    order: type[Order]
    form: OrderForm
    parse: Callable[[str, str], Order]


def _row(order: type[Order], aliases: tuple[str, ...], pattern: str, example: str, summary: str,
         parse: Callable[[str, str], Order]) -> OrderWords:
    """A row of :data:`ORDER_LANGUAGE`: its form's word is the order value's own ``verb``."""
    return OrderWords(order, OrderForm(order.verb, aliases, pattern, example, summary), parse)


ORDER_LANGUAGE: Mapping[type[Order], OrderWords] = MappingProxyType({w.order: w for w in (
    _row(
        Muster,
        ("raise", "levy", "recruit"),
        "muster N infantry N cavalry, or muster N ships at PORT",
        "muster 300 infantry 50 cavalry",
        "raise troops (or ships) at your holdfast",
        _parse_muster,
    ),
    _row(
        Move,
        ("march", "sail", "travel"),
        "move army N: TILE > TILE > TILE (cost N)",
        "move army 2: Winterfell > 0412 > 0413 > 0513 (cost 7)",
        "march an army (or sail a fleet) along a path, stating its total travel cost",
        _parse_move,
    ),
    _row(
        Attack,
        ("engage",),
        "attack army N with army N",
        "attack army 5 with army 2",
        "attack an enemy army on your army's tile",
        _parse_attack,
    ),
    _row(
        Intercept,
        ("waylay",),
        "intercept army N with army N",
        "intercept army 5 with army 2",
        "stop an enemy force your watchers sighted, with your army standing there",
        _parse_intercept,
    ),
    _row(
        Siege,
        ("besiege", "lay siege to"),
        "siege HOLDFAST with army N",
        "siege Riverrun with army 2",
        "begin a siege of the holdfast your army stands on",
        _parse_siege,
    ),
    _row(
        Assault,
        ("storm",),
        "assault HOLDFAST with army N",
        "assault Riverrun with army 2",
        "storm a holdfast instead of starving it out",
        _parse_assault,
    ),
    _row(
        Sally,
        ("sally forth", "sortie"),
        "sally from HOLDFAST [with army N]",
        "sally from Riverrun with army 4",
        "ride out of a besieged holdfast to fight the besiegers",
        _parse_sally,
    ),
    _row(
        Lift,
        ("end siege",),
        "lift siege of HOLDFAST",
        "lift siege of Riverrun",
        "end your siege of a holdfast (your army stays on the tile, standing)",
        _parse_lift,
    ),
    _row(
        Retreat,
        ("withdraw", "fall back"),
        "retreat army N [: PATH | to TILE]",
        "retreat army 2",
        "refuse battle and fall back along the path travelled (or a path you give)",
        _parse_retreat,
    ),
    _row(
        Stand,
        ("stand firm",),
        "stand army N",
        "stand army 2",
        "accept battle instead of retreating",
        _parse_stand,
    ),
    _row(
        Spare,
        (),
        "spare army N",
        "spare army 5",
        "after an enemy's failed retreat, let it stay instead of fighting",
        _parse_spare,
    ),
    _row(
        Cancel,
        ("abort", "revoke", "call off"),
        "cancel army N",
        "cancel army 2",
        "call off a march, a muster or an assault before it happens",
        _parse_cancel,
    ),
    _row(
        Route,
        ("path",),
        "route army N to TILE",
        "route army 2 to Riverrun",
        "ask for the cheapest path and its cost (changes nothing)",
        _parse_route,
    ),
    _row(
        Status,
        (),
        "status",
        "status",
        "show your claim's gold, troops and armies (changes nothing)",
        _parse_status,
    ),
    _row(
        Odds,
        ("chances", "compare"),
        "odds army N vs army N",
        "odds army 2 vs army 5",
        "show the battle odds between two armies (changes nothing)",
        _parse_odds,
    ),
    _row(
        Build,
        ("construct",),
        "build IMPROVEMENT at HOLDFAST",
        "build Stone Walls at Winterfell",
        "build an improvement in one of your holdfasts",
        _parse_build,
    ),
    _row(
        Buy,
        ("purchase",),
        "buy [N] EQUIPMENT for army N",
        "buy trebuchets for army 2",
        "buy siege equipment for an army",
        _parse_buy,
    ),
    _row(
        Assign,
        ("appoint",),
        "assign COMMANDER to army N",
        "assign Ser Brynden Tully to army 2",
        "put one of your characters in command of an army",
        _parse_assign,
    ),
    _row(
        Blockade,
        (),
        "blockade PORT with fleet N",
        "blockade Pyke with fleet 3",
        "close a port holdfast with a fleet on an adjacent water tile",
        _parse_blockade,
    ),
    _row(
        Cede,
        ("yield",),
        "cede RESOURCE TILE to CLAIM",
        "cede The Wolfswood to House Manderly",
        "let another claim standing on a resource tile take its benefit",
        _parse_cede,
    ),
    _row(
        Disband,
        ("dismiss",),
        "disband army N",
        "disband army 2",
        "send an army's troops home (the army must be at its holdfast)",
        _parse_disband,
    ),
    _row(
        Away,
        ("leave",),
        "away until YYYY-MM-DD [reason]",
        "away until 2027-01-10 travelling for work",
        "announce a leave: your claim is not marked inactive until then",
        _parse_away,
    ),
    _row(
        Link,
        (),
        "link",
        "link",
        "get the private address of your claim's war room on the web (changes nothing)",
        _parse_link,
    ),
    _row(
        Webhook,
        ("discord",),
        "webhook URL | webhook off",
        "webhook https://discord.com/api/webhooks/123456789012345678/AbCdEf-GhIjKl_MnOp",
        "send your claim's private news to a Discord channel's webhook as well (changes "
        "nothing in the game)",
        _parse_webhook,
    ),
    _row(
        Help,
        (),
        "help [ORDER]",
        "help move",
        "list the orders, or explain one",
        _parse_help,
    ),
)})
"""Every order kind of the language, once, in the order the players' guide lists them: to add
an order, write its value in :mod:`rules.campaign.language.values`, its parser above and its
row here (then its decision, ``rules.campaign.decide.ORDER_KINDS``, which builds on this
table, and its receipt, ``bot.services.order_apply.RECEIPTS``: docs/architecture.md)."""

ORDER_TYPES: tuple[type[Order], ...] = tuple(ORDER_LANGUAGE)
"""Every order class, in the order of :data:`ORDER_LANGUAGE`."""

ORDER_FORMS: Mapping[str, OrderForm] = MappingProxyType(
    {w.form.verb: w.form for w in ORDER_LANGUAGE.values()})
"""Every order form by canonical verb, in the order the players' guide lists them."""

_PARSERS: Mapping[str, Callable[[str, str], Order]] = MappingProxyType(
    {w.form.verb: w.parse for w in ORDER_LANGUAGE.values()})

VERBS: tuple[str, ...] = tuple(ORDER_FORMS)
"""The canonical order words."""

ALIASES: Mapping[str, str] = MappingProxyType({
    word: form.verb for form in ORDER_FORMS.values() for word in (form.verb, *form.aliases)})
"""Every order word and synonym, with its canonical order word."""

# Single words only: did-you-mean compares the first word of a line with these.
SINGLE_WORDS: tuple[str, ...] = tuple(a for a in ALIASES if " " not in a)

SHORT_LIST_VERBS = ("muster", "move", "attack", "siege", "status", "help")
"""The orders shown as examples under a line that names no order (one each)."""
VERB_LIST = ", ".join(VERBS)
SHORT_EXAMPLES = "\n".join(ORDER_FORMS[v].example for v in SHORT_LIST_VERBS)


def canonical_verb(word: str) -> str | None:
    """The canonical order word for ``word`` (any case, synonyms allowed), or None.

    Used by help topics: ``canonical_verb("March") == "move"``.
    """
    return ALIASES.get(fold(word))


def _verb_alternation() -> str:
    words = sorted(ALIASES, key=len, reverse=True)
    return "|".join(r"\s".join(re.escape(part) for part in word.split()) for word in words)


VERB_RE = re.compile(rf"(?P<verb>{_verb_alternation()})(?![^\W_])", _I)


# --------------------------------------------------------------------------------------------
# Army first: "army 2 retreats", "army 2: move to Riverrun", "fleet 3 blockades Pyke".

_SUBJECT_FIRST = re.compile(
    # A signed or decimal number is taken too, so that the order gets a bad-number reply.
    rf"(?:{_ARMY_WORDS}|#\s?)(?P<n>[-−]?{_NUM}(?:\.\d+)?)(?!\w)\s?(?:[:,\-–—]\s?)?"
    r"(?:(?:will|shall|must|should|is\sto|to)\s)?(?P<word>[^\W\d_]+)(?![^\W_])(?P<rest>.*)",
    _I,
)


def _inflected_verb(word: str) -> str | None:
    """The canonical verb of a single word, allowing "retreats", "marches", "sallies"."""
    folded = fold(word)
    if folded in ALIASES:
        return ALIASES[folded]
    for suffix, replacement in (("s", ""), ("es", ""), ("ies", "y")):
        if folded.endswith(suffix):
            stem = folded[: -len(suffix)] + replacement
            if stem in ALIASES and " " not in stem:
                return ALIASES[stem]
    return None


def subject_first(text: str) -> tuple[str, str | None] | None:
    """For a line that names the army before the verb: (verb, the line rewritten verb first),
    with None instead of the rewrite for verbs that cannot be written that way; None when the
    line is not of that shape."""
    m = _SUBJECT_FIRST.fullmatch(text)
    if m is None:
        return None
    verb = _inflected_verb(m.group("word"))
    if verb is None:
        return None
    army = f"army {m.group('n')}"
    rest = m.group("rest").strip()
    if verb in ("move", "route"):
        return verb, f"{verb} {army} {rest}"
    if verb in ("retreat", "stand", "cancel", "disband"):
        return verb, f"{verb} {army} {rest}"
    if verb in ("siege", "assault", "sally", "blockade", "attack"):
        return verb, f"{verb} {rest} with {army}"
    if verb == "buy":
        return verb, f"buy {rest} for {army}"
    return verb, None


# --------------------------------------------------------------------------------------------
# Did you mean


@lru_cache(maxsize=1024)
def suggest(word: str) -> str | None:
    """The canonical verb closest to an unknown first word, if one is close enough."""
    folded = fold(word)[:20]
    close = difflib.get_close_matches(folded, SINGLE_WORDS, n=1, cutoff=0.75)
    return ALIASES[close[0]] if close else None


def _unknown_verb(text: str) -> OrderSyntaxError:
    first = FIRST_WORD.match(text)
    if first is None:
        return syntax_error(
            Problem.NO_ORDER_WORD, "an order must start with an order word", None, text
        )
    suggestion = suggest(first.group(0))
    if suggestion is None:
        return syntax_error(Problem.UNKNOWN_ORDER, "this is not a known order word", None, text)
    form = ORDER_FORMS[suggestion]
    return OrderSyntaxError(
        Problem.UNKNOWN_ORDER,
        f"this is not a known order word; did you mean {suggestion}?",
        form.pattern,
        form.example,
        cut_excerpt(text),
        None,
        suggestion,
    )


# --------------------------------------------------------------------------------------------
# Public entry points


def parse_order(line: str) -> Order:
    """Read one order line (the syntax stage only; tiles, armies and names are not checked
    against the world).

    The order word and keywords may be in any case; names keep the case they were written in.
    Raises :class:`OrderSyntaxError` for anything that is not one well-formed order, including
    a line over :data:`MAX_LINE_CHARS` characters; never raises anything else.
    """
    if len(line) > MAX_LINE_CHARS:
        raise syntax_error(
            Problem.LINE_TOO_LONG,
            f"the line is too long (at most {MAX_LINE_CHARS} characters)",
            None,
            line[:60],
            expected=f"one order per line, at most {MAX_LINE_CHARS} characters",
        )
    text = " ".join(line.split())
    if not text:
        raise syntax_error(Problem.EMPTY, "the line is empty", None, "")
    words = text
    m = VERB_RE.match(words)
    if m is None:
        army_first = subject_first(words)
        if army_first is None:
            raise _unknown_verb(text)
        first_verb, rewritten = army_first
        if rewritten is None:
            raise syntax_error(
                Problem.WRONG_FORM, "start the line with the order word", first_verb, text
            )
        words = rewritten
        m = VERB_RE.match(words)
        if m is None:  # the rewrite always starts with the verb; kept for safety
            raise _unknown_verb(text)
    verb = ALIASES.get(fold(m.group("verb")))
    if verb is None:  # the pattern only matches aliases; kept for safety
        raise _unknown_verb(text)
    # an address is not a number ("127.0.0.1" is no decimal): the webhook parser reads it
    wrong_number = None if verb == "webhook" else number_problem(words[m.end() :])
    if wrong_number is not None:
        raise syntax_error(Problem.BAD_NUMBER, wrong_number, verb, text)
    lead = _LEAD_PUNCT.match(words, m.end())
    rest = words[lead.end() if lead else m.end() :].strip()
    try:
        return _PARSERS[verb](rest, text)
    except InvalidInput as exc:  # a value the patterns let through but an order refuses
        problem = f"this {verb} order could not be read"
        raise syntax_error(Problem.WRONG_FORM, problem, verb, text) from exc


