"""Sane amounts of gold and troops, checked wherever a number enters the campaign.

A roster, a moderator's ``adjust``, the config and the catalogue all hand the campaign numbers
written by people. Each goes through :func:`parse_gold` or :func:`parse_troops` first, so that
no NaN, infinity, fraction of a soldier or thousand-digit number can reach the state, where it
would make a tick raise for ever or fill every message with digits.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from rules.errors import InvalidInput
from rules.suggest import closest

MAX_GOLD = Decimal(10) ** 12
"""The most gold a claim may hold, and the largest gold amount accepted anywhere."""

GOLD_PLACES = 6
"""Gold is kept to at most this many decimal places (upkeep is in tenths of a gold)."""

MAX_TROOPS = 999_999_999
"""The most units of one kind a claim or an army may hold (the order language's largest number)."""


_PLAIN_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
"""A number as people write one in ASCII: what :class:`~decimal.Decimal` also reads, but
without its underscores (``1_000``), other scripts' digits (Arabic-Indic ``١٠``) or words
(``NaN``, ``Infinity``)."""


def _decimal(value: Any, field: str, expected: str) -> Decimal:
    if isinstance(value, bool) or not isinstance(value, int | float | str | Decimal):
        raise InvalidInput(field, f"must be a number, not {type(value).__name__}", expected)
    text = str(value).strip()
    if len(text) > 40:
        raise InvalidInput(field, "is far too long to be a sane number", expected)
    if isinstance(value, str) and not _PLAIN_NUMBER.fullmatch(text):
        if text.lower().lstrip("+-") in ("nan", "snan", "inf", "infinity"):
            raise InvalidInput(field, "must be a finite number (not NaN or Infinity)", expected)
        raise InvalidInput(field, f"{text[:20]!r} is not a number written with the digits 0-9",
                           expected)
    try:
        number = Decimal(text)
    except InvalidOperation:
        raise InvalidInput(field, "is not a number", expected) from None
    if not number.is_finite():
        raise InvalidInput(field, "must be a finite number (not NaN or Infinity)", expected)
    return number


def parse_gold(value: Any, field: str, *, signed: bool = False) -> Decimal:
    """``value`` (an int, a decimal string like ``"25.5"`` or a Decimal) as an amount of gold.

    ``signed`` allows a negative amount (a change rather than a holding). Raises InvalidInput
    naming ``field`` for anything that is not a finite number of at most :data:`MAX_GOLD` in
    size with at most :data:`GOLD_PLACES` decimal places.
    """
    low = -MAX_GOLD if signed else Decimal(0)
    expected = f"a number from {low} to {MAX_GOLD}, e.g. 900 or \"25.5\""
    number = _decimal(value, field, expected)
    if not low <= number <= MAX_GOLD:
        raise InvalidInput(field, "is out of range", expected)
    exponent = number.as_tuple().exponent
    if isinstance(exponent, int) and exponent < -GOLD_PLACES:
        raise InvalidInput(field, f"has more than {GOLD_PLACES} decimal places", expected)
    return number.quantize(Decimal(1)) if isinstance(exponent, int) and exponent > 0 else number


def parse_troops(value: Any, field: str, *, signed: bool = False) -> int:
    """``value`` as a whole number of units (an int, or a string of digits).

    ``signed`` allows a negative number (a change). Raises InvalidInput naming ``field`` for a
    fraction, a non-number or a number larger than :data:`MAX_TROOPS`.
    """
    low = -MAX_TROOPS if signed else 0
    expected = f"a whole number from {low} to {MAX_TROOPS}, e.g. 300"
    if isinstance(value, float):
        raise InvalidInput(field, "must be a whole number, written without a decimal point",
                           expected)
    number = _decimal(value, field, expected)
    if number != number.to_integral_value() or "." in str(value) or "e" in str(value).lower():
        raise InvalidInput(field, "must be a whole number", expected)
    if not low <= number <= MAX_TROOPS:
        raise InvalidInput(field, "is out of range", expected)
    return int(number)


def check_holdings(gold: Decimal, counts: dict[str, int], field: str) -> None:
    """Refuse a claim's holdings after a change when any is negative or beyond the limits.

    Raises InvalidInput naming ``field`` and the amount.
    """
    if not 0 <= gold <= MAX_GOLD:
        raise InvalidInput(f"{field}.gold", f"would become {gold}",
                           f"a result from 0 to {MAX_GOLD}")
    for kind, count in counts.items():
        if not 0 <= count <= MAX_TROOPS:
            raise InvalidInput(f"{field}.{kind}", f"would become {count}",
                               f"a result from 0 to {MAX_TROOPS}")


MAX_ROW_NUMBER = 2_147_483_647
"""The largest army, fleet, event or outbox number (PostgreSQL's ``integer``)."""

MAX_LISTED_ROWS = 100_000
"""The most rows one listing (``maester log --limit``) may ask for."""


def _shown(text: str) -> str:
    return text if len(text) <= 24 else f"{text[:20]}… ({len(text)} digits)"


def check_whole(value: int, field: str, *, low: int, high: int, example: str) -> int:
    """``value`` if ``low <= value <= high``; else InvalidInput naming ``field`` and the range.

    The command line reads numbers (army numbers, ``--limit``) as Python ints of any size;
    this keeps a 30-digit number or a negative limit from reaching the database.
    """
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidInput(field, "must be a whole number", f"e.g. {example}")
    if not low <= value <= high:
        shown = _shown(str(value)) if value.bit_length() < 1000 else "a huge number"
        raise InvalidInput(field, f"{shown} is out of range",
                           f"a whole number from {low} to {high}, e.g. {example}")
    return value


def parse_row_number(text: str, field: str, example: str = "12") -> int | None:
    """``text`` as a row number when it is written in the digits 0-9, else None.

    Raises InvalidInput naming ``field`` for digits out of the range 1 to
    :data:`MAX_ROW_NUMBER` (``str.isdigit`` alone would also let ``²`` through).
    """
    text = text.strip()
    if not text or not text.isascii() or not text.isdigit():
        return None
    # at most 4300 digits convert; anything past 12 digits is out of range anyway
    value = int(text) if len(text) <= 12 else MAX_ROW_NUMBER + 1
    try:
        return check_whole(value, field, low=1, high=MAX_ROW_NUMBER, example=example)
    except InvalidInput as exc:
        raise InvalidInput(field, f"{_shown(text)} is out of range", exc.expected) from None


MAX_DEFINED_NAME_CHARS = 64
"""The longest name a moderator may give a claim, character, tile or catalogue entry."""

_NAME_PUNCTUATION = frozenset(" '’.-_")


def name_problem(name: Any) -> str | None:
    """Why ``name`` cannot name a claim, character, tile, holdfast or catalogue entry, or None.

    Such names appear in every public post, so they are held to a safe set: letters (any
    script), digits, single spaces and ``' ’ . - _``, starting with a letter or digit, at most
    :data:`MAX_DEFINED_NAME_CHARS` characters. Markdown, links, ``u/`` pings and table bars can
    then never come from a name (rendering escapes them as well).
    """
    if not isinstance(name, str):
        return f"must be text, not {type(name).__name__}"
    if not name:
        return "is empty"
    if len(name) > MAX_DEFINED_NAME_CHARS:
        return f"is longer than {MAX_DEFINED_NAME_CHARS} characters"
    if name != " ".join(name.split(" ")).strip() or "  " in name:
        return "has spaces at an end or two spaces in a row"
    if not name[0].isalnum():
        return "must start with a letter or a digit"
    for ch in name:
        if not (ch.isalnum() or ch in _NAME_PUNCTUATION):
            return f"contains {ch!r}; use letters, digits, spaces and ' . - _ only"
        if ch.isnumeric() and not ch.isalpha() and not ("0" <= ch <= "9"):
            return f"contains {ch!r}; write digits as 0-9"
    return None


def check_name(name: Any, field: str) -> str:
    """``name`` if :func:`name_problem` finds nothing wrong; else InvalidInput naming ``field``."""
    problem = name_problem(name)
    if problem is not None:
        raise InvalidInput(field, problem,
                           f"1-{MAX_DEFINED_NAME_CHARS} letters, digits, spaces and ' . - _")
    return str(name)


_ROSTER_KEYS = frozenset(
    {"name", "holdfast", "players", "gold", "infantry", "cavalry", "ships", "characters"}
)
_REDDIT_NAME = re.compile(r"[A-Za-z0-9_-]{3,20}")


@dataclass(frozen=True, slots=True)
class RosterEntry:
    """One claim of a roster, every value checked (players lower-cased, without ``u/``)."""

    name: str
    holdfast: str
    players: tuple[str, ...]
    gold: Decimal
    infantry: int
    cavalry: int
    ships: int
    characters: tuple[str, ...]


def _name_list(value: Any, field: str, what: str) -> tuple[Any, ...]:
    if not isinstance(value, list | tuple):
        raise InvalidInput(field, f"must be a list of {what}, not {type(value).__name__}",
                           f'a list such as ["{what[:-1]}"]')
    return tuple(value)


def check_roster_entry(entry: Any, field: str) -> RosterEntry:
    """A roster table checked: safe names, Reddit user names, sane gold and whole troops.

    Raises InvalidInput naming the key (``roster[3].gold``) for an unknown key, a missing
    name or holdfast, a string where a list belongs (``players = "ned_stark"``), a player
    named twice (case ignored), a non-finite or out-of-range amount, or a fraction of a unit.
    """
    if not isinstance(entry, Mapping):
        raise InvalidInput(field, f"must be a table, not {type(entry).__name__}",
                           'name = "House Stark", holdfast = "Winterfell", ...')
    for key in entry:
        if key not in _ROSTER_KEYS:
            guess = closest(str(key), sorted(_ROSTER_KEYS))
            hint = f"; did you mean {guess[0]!r}?" if guess else ""
            raise InvalidInput(f"{field}.{key}", f"is not a known key{hint}",
                               "one of " + ", ".join(sorted(_ROSTER_KEYS)))
    for key in ("name", "holdfast"):
        if key not in entry:
            raise InvalidInput(f"{field}.{key}", "is missing")
    name = check_name(entry["name"], f"{field}.name")
    holdfast = entry["holdfast"]
    if not isinstance(holdfast, str) or not holdfast.strip():
        raise InvalidInput(f"{field}.holdfast", "must be a tile name or id")
    players: list[str] = []
    for i, raw in enumerate(_name_list(entry.get("players", []), f"{field}.players",
                                       "user names")):
        where = f"{field}.players[{i}]"
        text = raw.strip() if isinstance(raw, str) else raw
        if isinstance(text, str) and text.lower().startswith(("u/", "/u/")):
            text = text.split("/", 2)[-1] if text.startswith("/") else text[2:]
        if not isinstance(text, str) or not _REDDIT_NAME.fullmatch(text):
            raise InvalidInput(where, "is not a Reddit user name",
                               "3-20 letters, digits, - or _, e.g. ned_stark")
        key = text.lower()
        if key in players:
            raise InvalidInput(where, f"u/{key} is listed twice (names ignore case)")
        players.append(key)
    characters: list[str] = []
    for i, raw in enumerate(_name_list(entry.get("characters", []), f"{field}.characters",
                                       "names")):
        characters.append(check_name(raw, f"{field}.characters[{i}]"))
    return RosterEntry(
        name=name,
        holdfast=holdfast.strip(),
        players=tuple(players),
        gold=parse_gold(entry.get("gold", 0), f"{field}.gold"),
        infantry=parse_troops(entry.get("infantry", 0), f"{field}.infantry"),
        cavalry=parse_troops(entry.get("cavalry", 0), f"{field}.cavalry"),
        ships=parse_troops(entry.get("ships", 0), f"{field}.ships"),
        characters=tuple(characters),
    )
