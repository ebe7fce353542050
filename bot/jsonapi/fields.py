"""Typed readers for JSON payload fields; every failure names the field (dotted path).

Also the check of the field names (:func:`check_fields`): a payload may use only the fields its
engine's input schema declares. It reads the shipped JSON Schema (generated from the pydantic
models of :mod:`bot.jsonapi.models`), so running an engine never imports pydantic.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from decimal import Decimal, InvalidOperation
from typing import Any, TypeVar

from rules import suggest
from rules.campaign.inputs import GOLD_PLACES, MAX_GOLD
from rules.errors import InvalidInput

_MISSING: Any = object()
# A model's fields by JSON name: the field table an object value must follow, and the one each
# item of a list value must follow (None where the value is not a model).
FieldTable = dict[str, tuple["FieldTable | None", "FieldTable | None"]]


def closest(name: str, known: list[str]) -> str | None:
    """The valid name closest to a misspelt one, if any is close enough."""
    # An abbreviation or a longer spelling of a valid name ("str" for "strength") first.
    found = suggest.closest(name, known, key=str.lower, stems=True)
    return found[0] if found else None


def unknown_field(path: str, name: str, known: list[str]) -> InvalidInput:
    """The error for an unknown field ``name`` at ``path``, suggesting the closest name."""
    guess = closest(name, known)
    message = "is not a known field"
    if guess is not None:
        message += f"; did you mean {guess}?"
    return InvalidInput(path, message, "one of " + ", ".join(sorted(known)))


def field_table(schema: Mapping[str, Any]) -> FieldTable:
    """The field table of a JSON Schema document of a model (its ``$defs`` are the nested
    models)."""
    defs: Mapping[str, Any] = schema.get("$defs", {})
    tables: dict[str, FieldTable] = {}

    def model(node: Any) -> FieldTable | None:
        ref = node.get("$ref") if isinstance(node, Mapping) else None
        if not isinstance(ref, str) or not ref.startswith("#/$defs/"):
            return None
        name = ref.removeprefix("#/$defs/")
        if name not in tables:
            tables[name] = {}  # filled below; a model that contains itself finds it here
            tables[name].update(fields(defs[name]))
        return tables[name]

    def follows(node: Mapping[str, Any]) -> tuple[FieldTable | None, FieldTable | None]:
        obj = model(node)
        if obj is not None:
            return obj, None
        items = node.get("items", (node.get("prefixItems") or [None])[0])
        item = model(items)
        if item is not None:
            return None, item
        for branch in (*node.get("anyOf", ()), *node.get("allOf", ()), *node.get("oneOf", ())):
            sub_obj, sub_item = follows(branch)
            obj, item = obj or sub_obj, item or sub_item
        return obj, item

    def fields(node: Mapping[str, Any]) -> FieldTable:
        return {name: follows(sub) for name, sub in node.get("properties", {}).items()}

    return fields(schema)


def check_fields(table: FieldTable, data: Mapping[str, Any], prefix: str = "") -> None:
    """Refuse the first field of ``data`` (recursively) that ``table`` does not declare.

    Only names are checked here; the engine's readers check the values.
    """
    for key, value in data.items():
        path = f"{prefix}.{key}" if prefix else str(key)
        if key not in table:
            raise unknown_field(path, str(key), list(table))
        obj, item = table[key]
        if obj is not None and isinstance(value, Mapping):
            check_fields(obj, value, path)
        elif item is not None and isinstance(value, list):
            for index, element in enumerate(value):
                if isinstance(element, Mapping):
                    check_fields(item, element, f"{path}[{index}]")


T = TypeVar("T")
_TIME_EXAMPLE = "an ISO 8601 UTC time like 2026-11-22T07:30:00Z"


def _path(prefix: str, key: str) -> str:
    return f"{prefix}.{key}" if prefix else key


def get_obj(data: Mapping[str, Any], key: str, prefix: str = "", default: Any = _MISSING
            ) -> Mapping[str, Any]:
    """A nested JSON object."""
    path = _path(prefix, key)
    if key not in data:
        if default is _MISSING:
            raise InvalidInput(path, "is required", "a JSON object")
        return default  # type: ignore[no-any-return]
    value = data[key]
    if not isinstance(value, Mapping):
        raise InvalidInput(path, f"must be an object, not {type(value).__name__}", "{...}")
    return value


def get_int(data: Mapping[str, Any], key: str, prefix: str = "", default: Any = _MISSING,
            minimum: int | None = 0, maximum: int | None = None) -> int:
    """A whole number (JSON integers only; booleans are refused) within bounds."""
    path = _path(prefix, key)
    if key not in data or data[key] is None:
        if default is _MISSING:
            raise InvalidInput(path, "is required", "a whole number")
        return int(default)
    value = data[key]
    if isinstance(value, bool) or not isinstance(value, int):
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        else:
            raise InvalidInput(path, f"must be a whole number, not {value!r}", "e.g. 300")
    if minimum is not None and value < minimum:
        raise InvalidInput(path, f"must be at least {minimum}, not {value}")
    if maximum is not None and value > maximum:
        raise InvalidInput(path, f"must be at most {maximum}, not {value}")
    return int(value)


def get_decimal(data: Mapping[str, Any], key: str, prefix: str = "", default: Any = _MISSING,
                minimum: Decimal | None = None) -> Decimal:
    """An exact decimal; accepts JSON numbers or numeric strings ("1.4")."""
    path = _path(prefix, key)
    if key not in data or data[key] is None:
        if default is _MISSING:
            raise InvalidInput(path, "is required", "a number")
        return Decimal(str(default))
    value = data[key]
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise InvalidInput(path, f"must be a number, not {value!r}", "e.g. 1.4")
    try:
        result = Decimal(str(value))
    except InvalidOperation:
        raise InvalidInput(path, f"must be a number, not {value!r}", "e.g. 1.4") from None
    if not result.is_finite():
        raise InvalidInput(path, "must be a finite number", "e.g. 1.4")
    exponent = result.as_tuple().exponent
    if abs(result) > MAX_GOLD or (isinstance(exponent, int) and exponent < -GOLD_PLACES - 6):
        # 1e999999 would take minutes to turn into digits.
        raise InvalidInput(path, f"must be at most {MAX_GOLD} in size, with at most "
                                 f"{GOLD_PLACES + 6} decimals", "e.g. 1.4")
    if minimum is not None and result < minimum:
        raise InvalidInput(path, f"must be at least {minimum}, not {result}")
    return result


def get_bool(data: Mapping[str, Any], key: str, prefix: str = "", default: Any = _MISSING
             ) -> bool:
    """A JSON boolean."""
    path = _path(prefix, key)
    if key not in data or data[key] is None:
        if default is _MISSING:
            raise InvalidInput(path, "is required", "true or false")
        return bool(default)
    value = data[key]
    if not isinstance(value, bool):
        raise InvalidInput(path, f"must be true or false, not {value!r}", "true or false")
    return value


def get_str(data: Mapping[str, Any], key: str, prefix: str = "", default: Any = _MISSING,
            choices: Sequence[str] | None = None) -> str:
    """A string, optionally one of ``choices`` (compared case-insensitively)."""
    path = _path(prefix, key)
    if key not in data or data[key] is None:
        if default is _MISSING:
            raise InvalidInput(path, "is required", "a string")
        return str(default)
    value = data[key]
    if not isinstance(value, str):
        raise InvalidInput(path, f"must be a string, not {value!r}", "a string")
    if choices is not None:
        folded = value.strip().lower()
        if folded not in choices:
            raise InvalidInput(path, f"{value!r} is not allowed", "one of " + ", ".join(choices))
        return folded
    return value


def get_time(data: Mapping[str, Any], key: str, prefix: str = "", default: Any = _MISSING
             ) -> datetime:
    """An ISO 8601 UTC instant written with a ``Z`` (or an explicit offset)."""
    path = _path(prefix, key)
    if key not in data or data[key] is None:
        if default is _MISSING:
            raise InvalidInput(path, "is required", _TIME_EXAMPLE)
        return default  # type: ignore[no-any-return]
    value = data[key]
    example = _TIME_EXAMPLE
    if not isinstance(value, str):
        raise InvalidInput(path, f"must be a string, not {value!r}", example)
    try:
        parsed = datetime.fromisoformat(value.strip().replace("z", "Z"))
    except ValueError:
        raise InvalidInput(path, f"{value!r} is not a time", example) from None
    if parsed.tzinfo is None:
        raise InvalidInput(path, f"{value!r} has no time zone", example)
    return parsed.astimezone(UTC)


def format_time(moment: datetime) -> str:
    """An aware datetime as ISO 8601 UTC with a ``Z``."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def get_list(data: Mapping[str, Any], key: str, prefix: str = "", default: Any = _MISSING
             ) -> list[Any]:
    """A JSON array."""
    path = _path(prefix, key)
    if key not in data or data[key] is None:
        if default is _MISSING:
            raise InvalidInput(path, "is required", "a list")
        return list(default)
    value = data[key]
    if not isinstance(value, list):
        raise InvalidInput(path, f"must be a list, not {type(value).__name__}", "[...]")
    return value
