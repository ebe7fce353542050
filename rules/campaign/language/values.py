"""The order language's values: the limits, the syntax error, names, and one frozen value
per order kind (each with a canonical text form that parses back to an equal value)."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from datetime import date
from enum import StrEnum
from typing import ClassVar, TypeAlias

from rules.errors import InvalidInput, RulesError

MAX_MESSAGE_CHARS = 10_000
"""Only this many characters of a message (as received) are read."""

MAX_ORDER_LINES = 20
"""Only this many orders, commands and errors are read from one message."""

MAX_LINE_CHARS = 500
"""An order line longer than this is refused as a whole."""

MAX_NAME_CHARS = 100
"""The longest tile, holdfast, commander, improvement or equipment name accepted."""

MAX_NUMBER = 999_999_999
"""The largest number accepted anywhere in an order."""

EXCERPT_CHARS = 120
"""Excerpts of player text kept for replies are cut to this length (with an ellipsis)."""

MAX_SUGGESTIONS = 40  # did-you-mean look-ups per message: bounds the cost of a hostile message


# --------------------------------------------------------------------------------------------
# Errors


class Problem(StrEnum):
    """What kind of syntax error a line has; replies may choose wording by it."""

    LINE_TOO_LONG = "line_too_long"
    EMPTY = "empty"
    NO_ORDER_WORD = "no_order_word"
    UNKNOWN_ORDER = "unknown_order"
    BAD_NUMBER = "bad_number"
    MISSING_ARMY = "missing_army"
    BAD_PATH = "bad_path"
    BAD_COST = "bad_cost"
    BAD_TROOPS = "bad_troops"
    BAD_NAME = "bad_name"
    WRONG_FORM = "wrong_form"
    NO_ORDERS = "no_orders"


class OrderSyntaxError(RulesError):
    """A line could not be read as an order.

    ``problem``, ``expected`` and ``example`` are written by this module and never contain
    player text, so they can be shown as they are. ``excerpt`` is the player's own text (cut to
    :data:`EXCERPT_CHARS`) and must be escaped before it is shown. ``verb`` is the canonical
    order word when the order was recognised; ``suggestion`` is a did-you-mean verb for an
    unknown order word.
    """

    def __init__(
        self,
        code: Problem,
        problem: str,
        expected: str,
        example: str,
        excerpt: str = "",
        verb: str | None = None,
        suggestion: str | None = None,
    ) -> None:
        self.code = code
        self.problem = problem
        self.expected = expected
        self.example = example
        self.excerpt = excerpt
        self.verb = verb
        self.suggestion = suggestion
        super().__init__(f"{problem}. Expected: {expected}. Example: {example}")

    def _key(self) -> tuple[object, ...]:
        return (
            self.code,
            self.problem,
            self.expected,
            self.example,
            self.excerpt,
            self.verb,
            self.suggestion,
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, OrderSyntaxError):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __reduce__(self) -> tuple[type[OrderSyntaxError], tuple[object, ...]]:
        return (type(self), self._key())




# Case-insensitive patterns let dotted and dotless i stand for "i"; fold them the same way.
_FOLD_I = str.maketrans({"İ": "i", "ı": "i"})


def fold(text: str) -> str:
    """``text`` in the form used to look words up: single spaces, case folded."""
    return " ".join(text.split()).translate(_FOLD_I).casefold()



# A number written some other way than plain digits: a sign ("-100"), a decimal or exponent
# ("3.0", "1e3"), or a digit-like character that is not 0-9 ("1²", "½", "١٠٠").
_SIGNED = re.compile(r"(?<![\w.])[-−](?=\s?\d)")
_DECIMAL = re.compile(r"(?<![\w.])\d+(?:[.]\d|[eE][-+]?\d)")
_NUMERIC_TOKEN = re.compile(r"\w+")


def number_problem(text: str) -> str | None:
    """Why a number in ``text`` (quoted names aside) is not a plain whole number, or None."""
    bare = QUOTED.sub(" ", text)
    found = _SIGNED.search(bare)
    if found is not None:
        return "numbers cannot have a sign; write a whole number such as 100"
    found = _DECIMAL.search(bare)
    if found is not None:
        return "numbers must be whole numbers written with digits (3, not 3.0 or 3e0)"
    for token in _NUMERIC_TOKEN.finditer(bare):
        word = token.group(0)
        if word[0].isnumeric() and not (word.isascii() and word[0].isdigit()):
            return "write numbers with the digits 0 to 9 only"
        if word[0].isascii() and word[0].isdigit() and any(
            ch.isnumeric() and not ch.isascii() for ch in word
        ):
            return "write numbers with the digits 0 to 9 only"
    return None


QUOTED = re.compile(r'"([^"]*)"|“([^”]*)”')


# --------------------------------------------------------------------------------------------
# Names


NAME_FORBIDDEN = frozenset('"“”;')
# Words that order forms use around names: a name holding one is written in quotes.
_RESERVED = frozenset(
    (
        *("a", "an", "one", "x", "to", "then", "with", "using", "by", "from", "at", "in"),
        *("on", "upon", "against", "for", "of", "as", "out", "forth", "toward", "towards"),
        *("army", "fleet", "host", "cost", "costs", "tc", "total", "travel", "vs", "versus"),
        *("v", "and", "no", "nr", "number", "command", "lead", "commander"),
    )
)
_PLAIN_NAME = re.compile(r"[^\W\d_][\w'’.\-]*(?: [^\W_][\w'’.\-]*)*|\d+")


def is_valid_name(name: str) -> bool:
    """Whether ``name`` can be carried by an order: 1-100 characters, single spaces, no
    surrounding space, no quote marks, semicolons, control or invisible characters."""
    return (
        isinstance(name, str)
        and 0 < len(name) <= MAX_NAME_CHARS
        and name == " ".join(name.split())
        and not any(ch in NAME_FORBIDDEN or unicodedata.category(ch)[0] == "C" for ch in name)
    )


def format_name(name: str) -> str:
    """``name`` as it is written in a canonical order: bare when it reads back unchanged in
    every order, else in double quotes (a name with order words or punctuation in it)."""
    if (
        _PLAIN_NAME.fullmatch(name)
        and not any(fold(word) in _RESERVED for word in name.split())
        and number_problem(name) is None
    ):
        return name
    return f'"{name}"'


def format_path(path: tuple[str, ...]) -> str:
    """A path written the canonical way: tiles joined by `` > ``."""
    return " > ".join(format_name(tile) for tile in path)


# --------------------------------------------------------------------------------------------
# Order values


def _check_count(value: int, where: str, minimum: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not minimum <= value <= MAX_NUMBER:
        raise InvalidInput(where, f"{value!r} is out of range", f"{minimum} to {MAX_NUMBER}")


def _check_name(value: str, where: str) -> None:
    if not is_valid_name(value):
        raise InvalidInput(where, "not a usable name", "1-100 visible characters, no quotes")


@dataclass(frozen=True, slots=True)
class Muster:
    """Raise troops at the claim's holdfast, or ships at a port (``at``)."""

    verb: ClassVar[str] = "muster"
    infantry: int
    cavalry: int
    ships: int = 0
    at: str | None = None

    def __post_init__(self) -> None:
        _check_count(self.infantry, "muster.infantry", 0)
        _check_count(self.cavalry, "muster.cavalry", 0)
        _check_count(self.ships, "muster.ships", 0)
        if self.infantry + self.cavalry + self.ships == 0:
            raise InvalidInput("muster", "nothing to muster", "at least one soldier or ship")
        if self.at is not None:
            _check_name(self.at, "muster.at")

    def __str__(self) -> str:
        parts = []
        if self.infantry:
            parts.append(f"{self.infantry} infantry")
        if self.cavalry:
            parts.append(f"{self.cavalry} cavalry")
        if self.ships:
            parts.append(f"{self.ships} {'ship' if self.ships == 1 else 'ships'}")
        text = "muster " + " ".join(parts)
        if self.at is not None:
            text += f" at {format_name(self.at)}"
        return text


@dataclass(frozen=True, slots=True)
class Move:
    """March army ``army`` along ``path`` (its own tile first); ``stated_cost`` as written."""

    verb: ClassVar[str] = "move"
    army: int
    path: tuple[str, ...]
    stated_cost: int | None = None

    def __post_init__(self) -> None:
        _check_count(self.army, "move.army", 1)
        object.__setattr__(self, "path", tuple(self.path))
        if not self.path:
            raise InvalidInput("move.path", "no tiles", "at least one tile")
        for index, tile in enumerate(self.path):
            _check_name(tile, f"move.path[{index}]")
        if self.stated_cost is not None:
            _check_count(self.stated_cost, "move.stated_cost", 0)

    def __str__(self) -> str:
        text = f"move army {self.army}: {format_path(self.path)}"
        if self.stated_cost is not None:
            text += f" (cost {self.stated_cost})"
        return text


@dataclass(frozen=True, slots=True)
class Attack:
    """Army ``army`` attacks enemy army ``target``."""

    verb: ClassVar[str] = "attack"
    target: int
    army: int

    def __post_init__(self) -> None:
        _check_count(self.target, "attack.target", 1)
        _check_count(self.army, "attack.army", 1)

    def __str__(self) -> str:
        return f"attack army {self.target} with army {self.army}"


@dataclass(frozen=True, slots=True)
class Intercept:
    """Army ``army`` stops the passing enemy force ``target`` its claim's watchers sighted."""

    verb: ClassVar[str] = "intercept"
    target: int
    army: int

    def __post_init__(self) -> None:
        _check_count(self.target, "intercept.target", 1)
        _check_count(self.army, "intercept.army", 1)

    def __str__(self) -> str:
        return f"intercept army {self.target} with army {self.army}"


@dataclass(frozen=True, slots=True)
class Siege:
    """Army ``army`` lays siege to ``holdfast``."""

    verb: ClassVar[str] = "siege"
    holdfast: str
    army: int

    def __post_init__(self) -> None:
        _check_name(self.holdfast, "siege.holdfast")
        _check_count(self.army, "siege.army", 1)

    def __str__(self) -> str:
        return f"siege {format_name(self.holdfast)} with army {self.army}"


@dataclass(frozen=True, slots=True)
class Assault:
    """Army ``army`` storms ``holdfast``."""

    verb: ClassVar[str] = "assault"
    holdfast: str
    army: int

    def __post_init__(self) -> None:
        _check_name(self.holdfast, "assault.holdfast")
        _check_count(self.army, "assault.army", 1)

    def __str__(self) -> str:
        return f"assault {format_name(self.holdfast)} with army {self.army}"


@dataclass(frozen=True, slots=True)
class Sally:
    """The garrison army ``army`` (None: the whole ready garrison) rides out of besieged
    ``holdfast``."""

    verb: ClassVar[str] = "sally"
    holdfast: str
    army: int | None = None

    def __post_init__(self) -> None:
        _check_name(self.holdfast, "sally.holdfast")
        if self.army is not None:
            _check_count(self.army, "sally.army", 1)

    def __str__(self) -> str:
        if self.army is None:
            return f"sally from {format_name(self.holdfast)}"
        return f"sally from {format_name(self.holdfast)} with army {self.army}"


@dataclass(frozen=True, slots=True)
class Lift:
    """End the sender's siege of ``holdfast``."""

    verb: ClassVar[str] = "lift"
    holdfast: str

    def __post_init__(self) -> None:
        _check_name(self.holdfast, "lift.holdfast")

    def __str__(self) -> str:
        return f"lift siege of {format_name(self.holdfast)}"


@dataclass(frozen=True, slots=True)
class Retreat:
    """Army ``army`` refuses battle and falls back the way it came, or along ``path`` (its
    own tile excluded), or by the cheapest way to tile ``to``."""

    verb: ClassVar[str] = "retreat"
    army: int
    path: tuple[str, ...] = ()
    to: str | None = None

    def __post_init__(self) -> None:
        _check_count(self.army, "retreat.army", 1)
        object.__setattr__(self, "path", tuple(self.path))
        for index, tile in enumerate(self.path):
            _check_name(tile, f"retreat.path[{index}]")
        if self.to is not None:
            _check_name(self.to, "retreat.to")
        if self.path and self.to is not None:
            raise InvalidInput("retreat.to", "give a path or a destination, not both")

    def __str__(self) -> str:
        if self.path:
            return f"retreat army {self.army}: {format_path(self.path)}"
        if self.to is not None:
            return f"retreat army {self.army} to {format_name(self.to)}"
        return f"retreat army {self.army}"


@dataclass(frozen=True, slots=True)
class Stand:
    """Army ``army`` accepts battle."""

    verb: ClassVar[str] = "stand"
    army: int

    def __post_init__(self) -> None:
        _check_count(self.army, "stand.army", 1)

    def __str__(self) -> str:
        return f"stand army {self.army}"


@dataclass(frozen=True, slots=True)
class Cancel:
    """Withdraw army ``army``'s pending order (allowed until it departs)."""

    verb: ClassVar[str] = "cancel"
    army: int

    def __post_init__(self) -> None:
        _check_count(self.army, "cancel.army", 1)

    def __str__(self) -> str:
        return f"cancel army {self.army}"


@dataclass(frozen=True, slots=True)
class Route:
    """Ask for the cheapest path of army ``army`` to ``destination``."""

    verb: ClassVar[str] = "route"
    army: int
    destination: str

    def __post_init__(self) -> None:
        _check_count(self.army, "route.army", 1)
        _check_name(self.destination, "route.destination")

    def __str__(self) -> str:
        return f"route army {self.army} to {format_name(self.destination)}"


@dataclass(frozen=True, slots=True)
class Status:
    """Ask for the claim's status."""

    verb: ClassVar[str] = "status"

    def __str__(self) -> str:
        return "status"


@dataclass(frozen=True, slots=True)
class Odds:
    """Ask for the battle odds of army ``army_a`` against army ``army_b``."""

    verb: ClassVar[str] = "odds"
    army_a: int
    army_b: int

    def __post_init__(self) -> None:
        _check_count(self.army_a, "odds.army_a", 1)
        _check_count(self.army_b, "odds.army_b", 1)

    def __str__(self) -> str:
        return f"odds army {self.army_a} vs army {self.army_b}"


@dataclass(frozen=True, slots=True)
class Build:
    """Build ``improvement`` in ``holdfast``."""

    verb: ClassVar[str] = "build"
    improvement: str
    holdfast: str

    def __post_init__(self) -> None:
        _check_name(self.improvement, "build.improvement")
        _check_name(self.holdfast, "build.holdfast")

    def __str__(self) -> str:
        return f"build {format_name(self.improvement)} at {format_name(self.holdfast)}"


@dataclass(frozen=True, slots=True)
class Buy:
    """Buy ``quantity`` of siege ``equipment`` for army ``army``."""

    verb: ClassVar[str] = "buy"
    equipment: str
    army: int
    quantity: int = 1

    def __post_init__(self) -> None:
        _check_name(self.equipment, "buy.equipment")
        _check_count(self.army, "buy.army", 1)
        _check_count(self.quantity, "buy.quantity", 1)

    def __str__(self) -> str:
        amount = "" if self.quantity == 1 else f"{self.quantity} "
        return f"buy {amount}{format_name(self.equipment)} for army {self.army}"


@dataclass(frozen=True, slots=True)
class Assign:
    """Put character ``commander`` in command of army ``army``."""

    verb: ClassVar[str] = "assign"
    commander: str
    army: int

    def __post_init__(self) -> None:
        _check_name(self.commander, "assign.commander")
        _check_count(self.army, "assign.army", 1)

    def __str__(self) -> str:
        return f"assign {format_name(self.commander)} to army {self.army}"


@dataclass(frozen=True, slots=True)
class Blockade:
    """Fleet ``fleet`` blockades the port holdfast ``port``."""

    verb: ClassVar[str] = "blockade"
    port: str
    fleet: int

    def __post_init__(self) -> None:
        _check_name(self.port, "blockade.port")
        _check_count(self.fleet, "blockade.fleet", 1)

    def __str__(self) -> str:
        return f"blockade {format_name(self.port)} with fleet {self.fleet}"


@dataclass(frozen=True, slots=True)
class Cede:
    """Let claim ``claim`` (also standing there) take the benefit of resource tile ``tile``."""

    verb: ClassVar[str] = "cede"
    tile: str
    claim: str

    def __post_init__(self) -> None:
        _check_name(self.tile, "cede.tile")
        _check_name(self.claim, "cede.claim")

    def __str__(self) -> str:
        return f"cede {format_name(self.tile)} to {format_name(self.claim)}"


@dataclass(frozen=True, slots=True)
class Disband:
    """Send army ``army``'s troops home (it must be at its holdfast)."""

    verb: ClassVar[str] = "disband"
    army: int

    def __post_init__(self) -> None:
        _check_count(self.army, "disband.army", 1)

    def __str__(self) -> str:
        return f"disband army {self.army}"


@dataclass(frozen=True, slots=True)
class Spare:
    """Let the enemy army ``army``, whose retreat failed, stay instead of fighting it."""

    verb: ClassVar[str] = "spare"
    army: int

    def __post_init__(self) -> None:
        _check_count(self.army, "spare.army", 1)

    def __str__(self) -> str:
        return f"spare army {self.army}"


MAX_REASON_CHARS = 200
"""The longest reason a leave may give."""


@dataclass(frozen=True, slots=True)
class Away:
    """Announce a leave until the start of ``until`` (UTC), with an optional ``reason``."""

    verb: ClassVar[str] = "away"
    until: date
    reason: str = ""

    def __post_init__(self) -> None:
        if len(self.reason) > MAX_REASON_CHARS:
            raise InvalidInput("away.reason", f"at most {MAX_REASON_CHARS} characters")

    def __str__(self) -> str:
        return f"away until {self.until.isoformat()}" + (f" {self.reason}" if self.reason
                                                          else "")


@dataclass(frozen=True, slots=True)
class Link:
    """Ask for the private address of the claim's war room (docs/web.md)."""

    verb: ClassVar[str] = "link"

    def __str__(self) -> str:
        return "link"


@dataclass(frozen=True, slots=True)
class Webhook:
    """Register ``url`` as the claim's private webhook (its private news goes there too), or
    with ``url`` None stop sending there. Which addresses are accepted is the bot's to check
    (its config); the language only reads one address without spaces."""

    verb: ClassVar[str] = "webhook"
    url: str | None = None

    def __post_init__(self) -> None:
        if self.url is not None and (not self.url or any(c.isspace() for c in self.url)
                                     or len(self.url) > MAX_LINE_CHARS):
            raise InvalidInput("webhook.url", "one address without spaces")

    def __str__(self) -> str:
        return f"webhook {self.url}" if self.url is not None else "webhook off"


@dataclass(frozen=True, slots=True)
class Help:
    """Ask for the list of orders, or for help on ``topic``."""

    verb: ClassVar[str] = "help"
    topic: str | None = None

    def __post_init__(self) -> None:
        if self.topic is not None:
            _check_name(self.topic, "help.topic")

    def __str__(self) -> str:
        return "help" if self.topic is None else f"help {format_name(self.topic)}"


Order: TypeAlias = (
    Muster
    | Move
    | Attack
    | Intercept
    | Siege
    | Assault
    | Sally
    | Lift
    | Retreat
    | Stand
    | Cancel
    | Route
    | Status
    | Odds
    | Build
    | Buy
    | Assign
    | Blockade
    | Cede
    | Disband
    | Spare
    | Away
    | Link
    | Webhook
    | Help
)


@dataclass(frozen=True, slots=True)
class OrderForm:
    """How one order is written: its word, accepted synonyms, shape, an example, a summary."""

    verb: str
    aliases: tuple[str, ...]
    pattern: str
    example: str
    summary: str
