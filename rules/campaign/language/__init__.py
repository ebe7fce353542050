"""The order language, syntax stage: player text in, order values (or syntax errors) out.

Players send orders by modmail in a forgiving plain-text language (``docs/orders.md``). This
package only reads the text, in three files: ``values`` (the limits, the syntax error, names,
one frozen value per order kind and the shape of a form), ``lines`` (one parser per order kind,
the one table of order kinds, :data:`ORDER_LANGUAGE`, which gives each kind's value, form and
parser, and :func:`parse_order`) and ``message`` (:func:`parse_message`).
:func:`parse_order` turns one line into an order value or raises
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

from rules.campaign.language.lines import (
    ORDER_FORMS,
    ORDER_LANGUAGE,
    ORDER_TYPES,
    VERBS,
    OrderWords,
    canonical_verb,
    parse_order,
    parse_path,
)
from rules.campaign.language.message import (
    CommandCall,
    ParsedLine,
    ParsedMessage,
    acting_for,
    parse_message,
)
from rules.campaign.language.values import (
    EXCERPT_CHARS,
    MAX_LINE_CHARS,
    MAX_MESSAGE_CHARS,
    MAX_NAME_CHARS,
    MAX_NUMBER,
    MAX_ORDER_LINES,
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
    format_name,
    format_path,
    is_valid_name,
)

__all__ = [
    "EXCERPT_CHARS",
    "MAX_LINE_CHARS",
    "MAX_MESSAGE_CHARS",
    "MAX_NAME_CHARS",
    "MAX_NUMBER",
    "MAX_ORDER_LINES",
    "ORDER_FORMS",
    "ORDER_LANGUAGE",
    "ORDER_TYPES",
    "VERBS",
    "Assault",
    "Assign",
    "Attack",
    "Away",
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
    "Link",
    "Move",
    "Muster",
    "Odds",
    "Order",
    "OrderForm",
    "OrderSyntaxError",
    "OrderWords",
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
    "Webhook",
    "acting_for",
    "canonical_verb",
    "format_name",
    "format_path",
    "is_valid_name",
    "parse_message",
    "parse_order",
    "parse_path",
]
