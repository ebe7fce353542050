"""The order language, syntax stage: player text in, order values (or syntax errors) out.

Players send orders by modmail in a forgiving plain-text language (``docs/orders.md``). This
module only reads the text: :func:`parse_order` turns one line into an order value or raises
:class:`OrderSyntaxError`; :func:`parse_message` reads a whole message body, line by line, and
never raises. Whether an order makes sense in the world (the army exists and belongs to the
sender, the tiles exist and touch, the stated cost is right) is decided later, by validation
against the world state; here a tile is just a string.

Every order value has a canonical text form, ``str(order)``, that parses back to an equal value
(``parse_order(str(order)) == order``); names that would not survive being written bare are
written in double quotes.

The parser is built from anchored regular expressions over lines of at most
:data:`MAX_LINE_CHARS` characters, and a message is cut to :data:`MAX_MESSAGE_CHARS` characters
and :data:`MAX_ORDER_LINES` order lines before any of that runs, so hostile input costs little.
"""

from __future__ import annotations

import difflib
import html
import re
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from functools import lru_cache
from types import MappingProxyType
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

_MAX_SUGGESTIONS = 40  # did-you-mean look-ups per message: bounds the cost of a hostile message


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


# --------------------------------------------------------------------------------------------
# The catalogue of order forms


@dataclass(frozen=True, slots=True)
class OrderForm:
    """How one order is written: its word, accepted synonyms, shape, an example, a summary."""

    verb: str
    aliases: tuple[str, ...]
    pattern: str
    example: str
    summary: str


_FORMS: tuple[OrderForm, ...] = (
    OrderForm(
        "muster",
        ("raise", "levy", "recruit"),
        "muster N infantry N cavalry, or muster N ships at PORT",
        "muster 300 infantry 50 cavalry",
        "raise troops (or ships) at your holdfast",
    ),
    OrderForm(
        "move",
        ("march", "sail", "travel"),
        "move army N: TILE > TILE > TILE (cost N)",
        "move army 2: Winterfell > 0412 > 0413 > 0513 (cost 7)",
        "march an army (or sail a fleet) along a path, stating its total travel cost",
    ),
    OrderForm(
        "attack",
        ("engage",),
        "attack army N with army N",
        "attack army 5 with army 2",
        "attack an enemy army on your army's tile",
    ),
    OrderForm(
        "intercept",
        ("waylay",),
        "intercept army N with army N",
        "intercept army 5 with army 2",
        "stop an enemy force your watchers sighted, with your army standing there",
    ),
    OrderForm(
        "siege",
        ("besiege", "lay siege to"),
        "siege HOLDFAST with army N",
        "siege Riverrun with army 2",
        "begin a siege of the holdfast your army stands on",
    ),
    OrderForm(
        "assault",
        ("storm",),
        "assault HOLDFAST with army N",
        "assault Riverrun with army 2",
        "storm a holdfast instead of starving it out",
    ),
    OrderForm(
        "sally",
        ("sally forth", "sortie"),
        "sally from HOLDFAST [with army N]",
        "sally from Riverrun with army 4",
        "ride out of a besieged holdfast to fight the besiegers",
    ),
    OrderForm(
        "lift",
        ("end siege",),
        "lift siege of HOLDFAST",
        "lift siege of Riverrun",
        "end your siege of a holdfast (your army stays on the tile, standing)",
    ),
    OrderForm(
        "retreat",
        ("withdraw", "fall back"),
        "retreat army N [: PATH | to TILE]",
        "retreat army 2",
        "refuse battle and fall back along the path travelled (or a path you give)",
    ),
    OrderForm(
        "stand",
        ("stand firm",),
        "stand army N",
        "stand army 2",
        "accept battle instead of retreating",
    ),
    OrderForm(
        "spare",
        (),
        "spare army N",
        "spare army 5",
        "after an enemy's failed retreat, let it stay instead of fighting",
    ),
    OrderForm(
        "cancel",
        ("abort", "revoke", "call off"),
        "cancel army N",
        "cancel army 2",
        "call off a march, a muster or an assault before it happens",
    ),
    OrderForm(
        "route",
        ("path",),
        "route army N to TILE",
        "route army 2 to Riverrun",
        "ask for the cheapest path and its cost (changes nothing)",
    ),
    OrderForm(
        "status",
        (),
        "status",
        "status",
        "show your claim's gold, troops and armies (changes nothing)",
    ),
    OrderForm(
        "odds",
        ("chances", "compare"),
        "odds army N vs army N",
        "odds army 2 vs army 5",
        "show the battle odds between two armies (changes nothing)",
    ),
    OrderForm(
        "build",
        ("construct",),
        "build IMPROVEMENT at HOLDFAST",
        "build Stone Walls at Winterfell",
        "build an improvement in one of your holdfasts",
    ),
    OrderForm(
        "buy",
        ("purchase",),
        "buy [N] EQUIPMENT for army N",
        "buy trebuchets for army 2",
        "buy siege equipment for an army",
    ),
    OrderForm(
        "assign",
        ("appoint",),
        "assign COMMANDER to army N",
        "assign Ser Brynden Tully to army 2",
        "put one of your characters in command of an army",
    ),
    OrderForm(
        "blockade",
        (),
        "blockade PORT with fleet N",
        "blockade Pyke with fleet 3",
        "close a port holdfast with a fleet on an adjacent water tile",
    ),
    OrderForm(
        "cede",
        ("yield",),
        "cede RESOURCE TILE to CLAIM",
        "cede The Wolfswood to House Manderly",
        "let another claim standing on a resource tile take its benefit",
    ),
    OrderForm(
        "disband",
        ("dismiss",),
        "disband army N",
        "disband army 2",
        "send an army's troops home (the army must be at its holdfast)",
    ),
    OrderForm(
        "link",
        (),
        "link",
        "link",
        "get the private address of your claim's war room on the web (changes nothing)",
    ),
    OrderForm(
        "help",
        (),
        "help [ORDER]",
        "help move",
        "list the orders, or explain one",
    ),
)

ORDER_FORMS: Mapping[str, OrderForm] = MappingProxyType({form.verb: form for form in _FORMS})
"""Every order form by canonical verb, in the order the players' guide lists them."""

VERBS: tuple[str, ...] = tuple(ORDER_FORMS)
"""The canonical order words."""

_ALIASES: dict[str, str] = {}
for _form in _FORMS:
    _ALIASES[_form.verb] = _form.verb
    for _alias in _form.aliases:
        _ALIASES[_alias] = _form.verb

# Single words only: did-you-mean compares the first word of a line with these.
_SINGLE_WORDS: tuple[str, ...] = tuple(a for a in _ALIASES if " " not in a)

_SHORT_LIST_VERBS = ("muster", "move", "attack", "siege", "status", "help")
_VERB_LIST = ", ".join(VERBS)
_SHORT_EXAMPLES = "\n".join(ORDER_FORMS[v].example for v in _SHORT_LIST_VERBS)


# Case-insensitive patterns let dotted and dotless i stand for "i"; fold them the same way.
_FOLD_I = str.maketrans({"İ": "i", "ı": "i"})


def _fold(text: str) -> str:
    """``text`` in the form used to look words up: single spaces, case folded."""
    return " ".join(text.split()).translate(_FOLD_I).casefold()


def canonical_verb(word: str) -> str | None:
    """The canonical order word for ``word`` (any case, synonyms allowed), or None.

    Used by help topics: ``canonical_verb("March") == "move"``.
    """
    return _ALIASES.get(_fold(word))


# --------------------------------------------------------------------------------------------
# Names


_NAME_FORBIDDEN = frozenset('"“”;')
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
        and not any(ch in _NAME_FORBIDDEN or unicodedata.category(ch)[0] == "C" for ch in name)
    )


def format_name(name: str) -> str:
    """``name`` as it is written in a canonical order: bare when it reads back unchanged in
    every order, else in double quotes (a name with order words or punctuation in it)."""
    if (
        _PLAIN_NAME.fullmatch(name)
        and not any(_fold(word) in _RESERVED for word in name.split())
        and _number_problem(name) is None
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
class Link:
    """Ask for the private address of the claim's war room (docs/web.md)."""

    verb: ClassVar[str] = "link"

    def __str__(self) -> str:
        return "link"


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
    | Link
    | Help
)

ORDER_TYPES: tuple[type[Order], ...] = (
    Muster,
    Move,
    Attack,
    Intercept,
    Siege,
    Assault,
    Sally,
    Lift,
    Retreat,
    Stand,
    Spare,
    Cancel,
    Route,
    Status,
    Odds,
    Build,
    Buy,
    Assign,
    Blockade,
    Cede,
    Disband,
    Link,
    Help,
)
"""Every order class, in the order of :data:`ORDER_FORMS`."""


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


def _verb_alternation() -> str:
    words = sorted(_ALIASES, key=len, reverse=True)
    return "|".join(r"\s".join(re.escape(part) for part in word.split()) for word in words)


_VERB_RE = re.compile(rf"(?P<verb>{_verb_alternation()})(?![^\W_])", _I)
_FIRST_WORD = re.compile(r"[^\W\d_]+")
_LEAD_PUNCT = re.compile(r"\s?[:,.\-–—]?\s?")
_ANY_ARMY = re.compile(rf"{_army('n', bare=False)}", _I)


def _excerpt(text: str) -> str:
    text = text.strip()
    return text if len(text) <= EXCERPT_CHARS else text[: EXCERPT_CHARS - 1] + "…"


def _error(
    code: Problem, problem: str, verb: str | None, excerpt: str, *, expected: str | None = None
) -> OrderSyntaxError:
    if verb is not None:
        form = ORDER_FORMS[verb]
        return OrderSyntaxError(
            code, problem, expected or form.pattern, form.example, _excerpt(excerpt), verb
        )
    return OrderSyntaxError(
        code,
        problem,
        expected or f"a line starting with an order word ({_VERB_LIST})",
        _SHORT_EXAMPLES,
        _excerpt(excerpt),
    )


def _number(text: str, verb: str, line: str, *, minimum: int, what: str) -> int:
    digits = text.replace(",", "").lstrip("0") or "0"
    if len(digits) > len(str(MAX_NUMBER)):
        raise _error(Problem.BAD_NUMBER, f"the {what} is too large", verb, line)
    value = int(digits)
    if value < minimum or value > MAX_NUMBER:
        if what.endswith("army number"):
            problem = "army numbers start at 1"
        else:
            problem = f"the {what} must be at least {minimum}"
        raise _error(Problem.BAD_NUMBER, problem, verb, line)
    return value


# A number written some other way than plain digits: a sign ("-100"), a decimal or exponent
# ("3.0", "1e3"), or a digit-like character that is not 0-9 ("1²", "½", "١٠٠").
_SIGNED = re.compile(r"(?<![\w.])[-−](?=\s?\d)")
_DECIMAL = re.compile(r"(?<![\w.])\d+(?:[.]\d|[eE][-+]?\d)")
_NUMERIC_TOKEN = re.compile(r"\w+")


def _number_problem(text: str) -> str | None:
    """Why a number in ``text`` (quoted names aside) is not a plain whole number, or None."""
    bare = _QUOTED.sub(" ", text)
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


def _army_number(m: re.Match[str], groups: tuple[str, ...], verb: str, line: str) -> int:
    found = _group(m, *groups)
    if found is None:  # the patterns always set one of the groups; kept for safety
        raise _error(Problem.MISSING_ARMY, "no army number was found", verb, line)
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
    elif not in_path and _fold(text) in _NOT_A_NAME:
        # A bare keyword where a name should be means the name was left out ("siege with
        # army 2"); a place really called "with" can still be written in quotes.
        raise _error(Problem.BAD_NAME, f"the {what} is missing", verb, line)
    if not text:
        raise _error(Problem.BAD_NAME, f"the {what} is empty", verb, line)
    if len(text) > MAX_NAME_CHARS:
        raise _error(
            Problem.BAD_NAME,
            f"the {what} is too long (at most {MAX_NAME_CHARS} characters)",
            verb,
            line,
        )
    if any(ch in _NAME_FORBIDDEN for ch in text):
        raise _error(
            Problem.BAD_NAME,
            f"the {what} contains a quote mark or semicolon; put quotes only around a whole name",
            verb,
            line,
        )
    if any(unicodedata.category(ch)[0] == "C" for ch in text):
        raise _error(
            Problem.BAD_NAME, f"the {what} contains invisible or control characters", verb, line
        )
    return text


def _diagnose(verb: str, rest: str, line: str, *, needs_army: bool = True) -> OrderSyntaxError:
    """The most helpful error for an order whose arguments match none of its forms."""
    if rest.count('"') % 2 or rest.count("“") != rest.count("”"):
        return _error(Problem.BAD_NAME, "quote marks must come in pairs around a name", verb, line)
    if needs_army and _ANY_ARMY.search(rest) is None:
        return _error(
            Problem.MISSING_ARMY, "no army was named (write army N, fleet N or #N)", verb, line
        )
    return _error(Problem.WRONG_FORM, f"this {verb} order could not be read", verb, line)


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
        unit = _UNITS.get(_fold(_group(part, "u", "u2") or ""))
        if unit is None:  # the pattern only matches known units; kept for safety
            raise _error(Problem.BAD_TROOPS, "unknown kind of troops", "muster", line)
        if unit in counts:
            raise _error(Problem.BAD_TROOPS, f"{unit} is given twice", "muster", line)
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
                raise _error(
                    Problem.BAD_TROOPS,
                    "say which troops each number is: infantry, cavalry or ships",
                    "muster",
                    line,
                )
            if not counts:
                raise _error(Problem.BAD_TROOPS, "no numbers of troops were found", "muster", line)
            raise _diagnose("muster", remainder, line, needs_army=False)
        at = _name(at_match.group("at"), "place to muster at", "muster", line)
    if not counts:
        raise _error(Problem.BAD_TROOPS, "no numbers of troops were found", "muster", line)
    if sum(counts.values()) == 0:
        raise _error(Problem.BAD_TROOPS, "there is nothing to muster", "muster", line)
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
_QUOTED = re.compile(r'"([^"]*)"|“([^”]*)”')
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
    for quoted in _QUOTED.finditer(line):
        chunks.append((False, line[pos : quoted.start()]))
        chunks.append((True, quoted.group(0)))
        pos = quoted.end()
    chunks.append((False, line[pos:]))
    for is_quoted, chunk in chunks:
        if is_quoted:
            tokens.append(("name", _name(chunk, "tile name", "move", line, in_path=True)))
            continue
        if any(q in chunk for q in _QUOTE_CHARS):
            raise _error(
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
        raise _error(Problem.BAD_PATH, "no tiles were given", "move", line)
    path: list[str] = []
    previous = "sep"
    for kind, value in tokens:
        if kind == previous == "name":
            raise _error(
                Problem.BAD_PATH,
                "two tiles follow each other with no > between them",
                "move",
                line,
            )
        if kind == previous == "sep":
            raise _error(Problem.BAD_PATH, "a tile is missing between two separators", "move", line)
        if kind == "name" and value is not None:
            path.append(value)
        previous = kind
    if previous == "sep":
        raise _error(Problem.BAD_PATH, "the path ends without a tile", "move", line)
    return tuple(path)


def _parse_move(rest: str, line: str) -> Order:
    head = _MOVE_HEAD.match(rest)
    if head is None:
        if _ANY_ARMY.search(rest) is None:
            raise _error(
                Problem.MISSING_ARMY,
                "say which army moves, right after the order word (move army N: ...)",
                "move",
                line,
            )
        raise _error(Problem.WRONG_FORM, "put the army first, then its path", "move", line)
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
    unquoted = _QUOTED.sub("", body)
    if _COST_LEFTOVER.search(unquoted):
        raise _error(
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
        raise _error(
            Problem.MISSING_ARMY,
            "say which of your armies attacks (attack army N with army N)",
            "attack",
            line,
        )
    if _ATTACK_PLACE.fullmatch(rest):
        raise _error(
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
        raise _error(Problem.MISSING_ARMY, "say which of your armies intercepts "
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
            raise _error(
                Problem.WRONG_FORM, f"name the {_PLACE_WHAT[verb]}, not an army", verb, line
            )
        return (
            _name(raw, f"{_PLACE_WHAT[verb]} name", verb, line),
            _army_number(m, ("a1", "a2", "a3"), verb, line),
        )
    army_only = _ANY_ARMY.fullmatch(rest.removeprefix("with ").removeprefix("using "))
    if army_only is not None:
        raise _error(
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
        raise _error(Problem.WRONG_FORM, "say which holdfast (sally from HOLDFAST)", "sally",
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
        raise _error(Problem.WRONG_FORM, "name the holdfast (lift siege of HOLDFAST)", "lift",
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
        raise _error(Problem.WRONG_FORM, "say where to (route army N to TILE)", "route", line)
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
            raise _error(
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
            raise _error(Problem.WRONG_FORM, "say what to build and where", "build", line)
        if rest.count('"') % 2 or rest.count("“") != rest.count("”"):
            raise _diagnose("build", rest, line, needs_army=False)
        raise _error(
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
        raise _error(Problem.WRONG_FORM, "say which tile and to whom (cede TILE to CLAIM)",
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


def _parse_help(rest: str, line: str) -> Order:
    if not rest.strip():
        return Help(None)
    return Help(_name(rest, "help topic", "help", line))


_PARSERS: dict[str, Callable[[str, str], Order]] = {
    "muster": _parse_muster,
    "move": _parse_move,
    "attack": _parse_attack,
    "intercept": _parse_intercept,
    "siege": _parse_siege,
    "assault": _parse_assault,
    "sally": _parse_sally,
    "lift": _parse_lift,
    "retreat": _parse_retreat,
    "stand": _parse_stand,
    "cancel": _parse_cancel,
    "route": _parse_route,
    "status": _parse_status,
    "odds": _parse_odds,
    "build": _parse_build,
    "buy": _parse_buy,
    "assign": _parse_assign,
    "blockade": _parse_blockade,
    "cede": _parse_cede,
    "disband": _parse_disband,
    "spare": _parse_spare,
    "link": _parse_link,
    "help": _parse_help,
}


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
    folded = _fold(word)
    if folded in _ALIASES:
        return _ALIASES[folded]
    for suffix, replacement in (("s", ""), ("es", ""), ("ies", "y")):
        if folded.endswith(suffix):
            stem = folded[: -len(suffix)] + replacement
            if stem in _ALIASES and " " not in stem:
                return _ALIASES[stem]
    return None


def _subject_first(text: str) -> tuple[str, str | None] | None:
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
def _suggest(word: str) -> str | None:
    """The canonical verb closest to an unknown first word, if one is close enough."""
    folded = _fold(word)[:20]
    close = difflib.get_close_matches(folded, _SINGLE_WORDS, n=1, cutoff=0.75)
    return _ALIASES[close[0]] if close else None


def _unknown_verb(text: str) -> OrderSyntaxError:
    first = _FIRST_WORD.match(text)
    if first is None:
        return _error(Problem.NO_ORDER_WORD, "an order must start with an order word", None, text)
    suggestion = _suggest(first.group(0))
    if suggestion is None:
        return _error(Problem.UNKNOWN_ORDER, "this is not a known order word", None, text)
    form = ORDER_FORMS[suggestion]
    return OrderSyntaxError(
        Problem.UNKNOWN_ORDER,
        f"this is not a known order word; did you mean {suggestion}?",
        form.pattern,
        form.example,
        _excerpt(text),
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
        raise _error(
            Problem.LINE_TOO_LONG,
            f"the line is too long (at most {MAX_LINE_CHARS} characters)",
            None,
            line[:60],
            expected=f"one order per line, at most {MAX_LINE_CHARS} characters",
        )
    text = " ".join(line.split())
    if not text:
        raise _error(Problem.EMPTY, "the line is empty", None, "")
    words = text
    m = _VERB_RE.match(words)
    if m is None:
        army_first = _subject_first(words)
        if army_first is None:
            raise _unknown_verb(text)
        first_verb, rewritten = army_first
        if rewritten is None:
            raise _error(Problem.WRONG_FORM, "start the line with the order word", first_verb, text)
        words = rewritten
        m = _VERB_RE.match(words)
        if m is None:  # the rewrite always starts with the verb; kept for safety
            raise _unknown_verb(text)
    verb = _ALIASES.get(_fold(m.group("verb")))
    if verb is None:  # the pattern only matches aliases; kept for safety
        raise _unknown_verb(text)
    number_problem = _number_problem(words[m.end() :])
    if number_problem is not None:
        raise _error(Problem.BAD_NUMBER, number_problem, verb, text)
    lead = _LEAD_PUNCT.match(words, m.end())
    rest = words[lead.end() if lead else m.end() :].strip()
    try:
        return _PARSERS[verb](rest, text)
    except InvalidInput as exc:  # a value the patterns let through but an order refuses
        problem = f"this {verb} order could not be read"
        raise _error(Problem.WRONG_FORM, problem, verb, text) from exc


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
    text = _SPOILER.sub(r"\1", text.strip())
    text = _BACKSLASH.sub(r"\1", text)
    text = _LINK.sub(r"\1", text)
    text = _LEADING_MD.sub("", text, count=1)
    text = _STRIKE.sub("", text).translate(_INLINE_MD).replace("~~", "")
    text = _UNDERSCORES.sub("", text)
    text = _LEADING_MD.sub("", text, count=1)
    return " ".join(text.split())


def _first_word_is_verb(text: str) -> bool:
    return _VERB_RE.match(text) is not None


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
    if _VERB_RE.match(text) is not None:
        return _Kind.ORDER
    army_first = _subject_first(text)
    if army_first is not None:
        return _Kind.ORDER
    first = _FIRST_WORD.match(text)
    if (
        first is not None
        and 3 <= len(first.group(0)) <= 12
        and len(text.split()) <= 12
        and _ORDERISH.search(text)
        and suggestions_left[0] > 0
    ):
        suggestions_left[0] -= 1
        if _suggest(first.group(0)) is not None:
            return _Kind.ORDER
    return _Kind.PROSE


_WIDE_GAP = re.compile(r" {3,}")


def _segments(line: str) -> list[str]:
    """The parts of a line holding one order each: split at ";", and at a wide gap of spaces
    followed by an order word ("retreat army 2      stand army 3")."""
    pieces: list[str] = []
    for part in line.split(";"):
        start = 0
        for gap in _WIDE_GAP.finditer(part):
            if gap.start() > start and _VERB_RE.match(part, gap.end()):
                pieces.append(part[start : gap.start()])
                start = gap.end()
        pieces.append(part[start:])
    return pieces


def _no_orders(excerpt: str) -> OrderSyntaxError:
    return OrderSyntaxError(
        Problem.NO_ORDERS,
        "no orders were found in this message",
        f"one order per line, each starting with an order word ({_VERB_LIST})",
        _SHORT_EXAMPLES,
        _excerpt(excerpt),
    )


def acting_for(text: str) -> tuple[str, str | None]:
    """A moderator's ``as House Stark:`` first line: (the rest of the text, the claim's name),
    or (``text``, None) when the message has no such line."""
    first, _, rest = text.strip().partition("\n")
    head = first.strip()
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
    suggestions_left = [_MAX_SUGGESTIONS]
    first_text = ""
    for line_no, line in enumerate(body.split("\n"), start=1):
        if lines_truncated:
            break
        for segment in _segments(line):
            raw = " ".join(segment.split())
            if not raw:
                continue
            first_text = first_text or raw
            too_long = len(raw) > MAX_LINE_CHARS
            cleaned = _clean_line(raw[: MAX_LINE_CHARS // 2] if too_long else raw)
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
                result = _error(
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
            items.append(ParsedLine(line_no, _excerpt(raw), result))
    return ParsedMessage(
        items=tuple(items),
        text_truncated=len(text) > MAX_MESSAGE_CHARS,
        lines_truncated=lines_truncated,
        ignored_lines=tuple(ignored),
        no_orders=None if items else _no_orders(first_text),
    )


__all__ = [
    "EXCERPT_CHARS",
    "MAX_LINE_CHARS",
    "MAX_MESSAGE_CHARS",
    "MAX_NAME_CHARS",
    "MAX_NUMBER",
    "MAX_ORDER_LINES",
    "ORDER_FORMS",
    "ORDER_TYPES",
    "VERBS",
    "Assault",
    "Assign",
    "Attack",
    "Blockade",
    "Build",
    "Buy",
    "Cancel",
    "Cede",
    "CommandCall",
    "Disband",
    "Help",
    "Intercept",
    "Lift",
    "Move",
    "Muster",
    "Odds",
    "Order",
    "OrderForm",
    "OrderSyntaxError",
    "ParsedLine",
    "ParsedMessage",
    "Problem",
    "Retreat",
    "Route",
    "Sally",
    "Siege",
    "Spare",
    "Stand",
    "Status",
    "canonical_verb",
    "format_name",
    "format_path",
    "is_valid_name",
    "parse_message",
    "parse_order",
    "parse_path",
]
