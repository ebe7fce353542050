"""Column types that keep values exact and times aware on SQLite and PostgreSQL alike."""

from __future__ import annotations

import json
import json.encoder as json_encoder
from collections.abc import Callable
from datetime import UTC, datetime
from decimal import Decimal
from enum import StrEnum
from typing import Any, TypeVar

from sqlalchemy import String, TypeDecorator
from sqlalchemy.engine import Dialect

_MAKE_ENCODER: Callable[..., Any] | None = getattr(json_encoder, "c_make_encoder", None)
_ENCODE = None if _MAKE_ENCODER is None else _MAKE_ENCODER(
    None, json.JSONEncoder().default, json_encoder.encode_basestring_ascii, None, ": ", ", ",
    False, False, True)  # no circular-reference check (nor its state kept between calls)


def json_text(value: Any) -> str:
    """``json.dumps(value)`` (the same text), through one encoder made once: ``dumps`` makes a
    new encoder for every value, which costs more than encoding a short list or a journal
    entry's data. The engines' JSON columns are written with it (:func:`bot.db.engine.
    make_engine`). Data that holds itself fails with RecursionError, not ValueError."""
    return "".join(_ENCODE(value, 0)) if _ENCODE is not None else json.dumps(value)


class ExactDecimal(TypeDecorator[Decimal]):
    """A Decimal stored as text: no binary floating point on any backend."""

    impl = String(40)
    cache_ok = True

    def process_bind_param(self, value: Decimal | None, dialect: Dialect) -> str | None:
        if value is None:
            return None
        return format(Decimal(value), "f")

    def process_result_value(self, value: Any, dialect: Dialect) -> Decimal | None:
        if value is None:
            return None
        number = Decimal(value)
        # a hand-written sNaN would raise at every comparison, even the ORM's own; read it
        # as the plain NaN the services refuse by name (bot.errors.DamagedValue)
        return Decimal("NaN") if number.is_snan() else number


class UTCDateTime(TypeDecorator[datetime]):
    """An aware UTC datetime stored as ISO text; naive datetimes are refused."""

    impl = String(32)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> str | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError(f"naive datetime {value!r} cannot be stored")
        return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")

    def process_result_value(self, value: Any, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        return datetime.strptime(value, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)


E = TypeVar("E", bound=StrEnum)


class StoredEnum(TypeDecorator[E]):
    """A :class:`~enum.StrEnum` of the rules stored as its value (plain text on every backend):
    rows read back hold the enum member, never a raw status string."""

    impl = String
    cache_ok = True

    def __init__(self, enum: type[E], length: int = 16) -> None:
        super().__init__(length)
        self.enum = enum

    def process_bind_param(self, value: E | str | None, dialect: Dialect) -> str | None:
        # A stored value must be a member: a typo fails here, not in a later comparison.
        return None if value is None else self.enum(value).value

    def process_result_value(self, value: Any, dialect: Dialect) -> E | None:
        return None if value is None else self.enum(value)
