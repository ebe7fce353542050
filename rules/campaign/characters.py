"""Player characters in battle: who must make a death or an injury roll, and the fate tables.

docs/rules.md "Characters in battle": every character present rolls a d100 against its side's
casualty %. A roll at or under the % calls for a death roll; otherwise a roll at or under
``rules.injury_factor`` (1.5) x the % calls for an injury roll; anything higher is safe.
Readings added here: a side whose casualty % is 0 (a winner by margin 22+) is safe without a
roll, since no d100 result could be at or under 0; a captured side's characters are captured
(decided by the battle, see :mod:`rules.campaign.battle`) and roll nothing.

What a death or an injury roll then means is moderator-configured: a
:class:`FateTable` maps ranges of one die (d100 by default) to outcome text. The defaults are
:data:`DEFAULT_DEATH_TABLE` and :data:`DEFAULT_INJURY_TABLE`; :func:`settle_fate` rolls the
right one when the campaign is set to roll them, otherwise the bot only reports who must roll.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from decimal import Decimal
from enum import StrEnum
from typing import Any

from rules.campaign.config import DEFAULT_RULES, RulesConfig
from rules.dice import Dice
from rules.errors import InvalidInput

FATE_DIE = 100


class Fate(StrEnum):
    """What a character faces after a battle."""

    DEATH_ROLL = "death_roll"
    INJURY_ROLL = "injury_roll"
    SAFE = "safe"
    CAPTURED = "captured"


@dataclass(frozen=True, slots=True)
class CharacterFate:
    """One character's call: ``roll`` is its d100 (None when no roll was needed)."""

    name: str
    fate: Fate
    roll: int | None
    casualty_pct: Decimal


def fate_for(roll: int, casualty_pct: Decimal, rules: RulesConfig = DEFAULT_RULES) -> Fate:
    """The call for one d100 ``roll`` against ``casualty_pct``."""
    if roll <= casualty_pct:
        return Fate.DEATH_ROLL
    if roll <= casualty_pct * rules.injury_factor:
        return Fate.INJURY_ROLL
    return Fate.SAFE


def character_fates(names: Iterable[str], casualty_pct: Decimal, *, dice: Dice,
                    rules: RulesConfig = DEFAULT_RULES) -> tuple[CharacterFate, ...]:
    """Roll a d100 for each named character and decide death roll, injury roll or safe.

    Characters roll in the order given. With a casualty % of 0 nobody rolls and all are safe.
    Raises InvalidInput for a negative casualty % or an empty name, and whatever ``dice`` raises.
    """
    if casualty_pct < 0:
        raise InvalidInput("casualty_pct", f"cannot be negative, not {casualty_pct}")
    fates: list[CharacterFate] = []
    for name in names:
        if not name.strip():
            raise InvalidInput("characters", "a character needs a name")
        if casualty_pct == 0:
            fates.append(CharacterFate(name, Fate.SAFE, None, casualty_pct))
            continue
        roll = dice.roll(FATE_DIE, f"{name} fate d100")
        fates.append(CharacterFate(name, fate_for(roll, casualty_pct, rules), roll, casualty_pct))
    return tuple(fates)


@dataclass(frozen=True, slots=True)
class FateRow:
    """Die results ``low``..``high`` (inclusive) mean ``outcome``."""

    low: int
    high: int
    outcome: str


@dataclass(frozen=True, slots=True)
class FateTable:
    """A moderator's table: rows covering every result of a ``sides``-sided die exactly once.

    Raises InvalidInput (field ``<name>.rows``) when rows overlap, leave gaps, fall outside the
    die or have no outcome text.
    """

    name: str
    rows: tuple[FateRow, ...]
    sides: int = FATE_DIE

    def __post_init__(self) -> None:
        field = f"{self.name}.rows"
        if self.sides < 1:
            raise InvalidInput(f"{self.name}.sides", f"must be at least 1, not {self.sides}")
        expected = 1
        for row in sorted(self.rows, key=lambda r: r.low):
            where = f"{row.low}-{row.high}"
            if row.low > row.high:
                raise InvalidInput(field, f"range {where} runs backwards")
            if not row.outcome.strip():
                raise InvalidInput(field, f"range {where} has no outcome text")
            if row.low < expected:
                raise InvalidInput(field, f"range {where} overlaps an earlier row")
            if row.low > expected:
                raise InvalidInput(field, f"nothing covers {expected}-{row.low - 1}")
            expected = row.high + 1
        if expected != self.sides + 1:
            raise InvalidInput(field, f"rows must cover 1-{self.sides} exactly, "
                                      f"they end at {expected - 1}")

    def outcome_of(self, roll: int) -> str:
        """The outcome text for a die result. Raises InvalidInput if the table lacks it."""
        for row in self.rows:
            if row.low <= roll <= row.high:
                return row.outcome
        raise InvalidInput(f"{self.name}.roll", f"{roll} is not on the table",
                           f"1-{self.sides}")

    @classmethod
    def from_mapping(cls, name: str, ranges: Mapping[str, str], sides: int = FATE_DIE
                     ) -> FateTable:
        """A table from config-style entries ``{"1-30": "dies", "31": "...", ...}``.

        Raises InvalidInput naming ``<name>.<key>`` for a key that is not ``N`` or ``N-M``.
        """
        rows: list[FateRow] = []
        for key, outcome in ranges.items():
            match = _RANGE.fullmatch(key.strip())
            if match is None:
                raise InvalidInput(f"{name}.{key}", "is not a die range", "e.g. 1-30 or 100")
            low = int(match.group(1))
            high = int(match.group(2) or low)
            rows.append(FateRow(low, high, outcome))
        return cls(name, tuple(sorted(rows, key=lambda r: r.low)), sides)


_RANGE = re.compile(r"(\d+)\s*(?:[-\u2013]\s*(\d+))?")


@dataclass(frozen=True, slots=True)
class TableRoll:
    """A roll made on a fate table, for the post and the audit log."""

    character: str
    table: str
    roll: int
    outcome: str


def roll_on_table(table: FateTable, dice: Dice, character: str = "") -> TableRoll:
    """Roll the table's die once and read the outcome. Raises whatever ``dice`` raises."""
    roll = dice.roll(table.sides, f"{character} {table.name}".strip())
    return TableRoll(character, table.name, roll, table.outcome_of(roll))


DEFAULT_DEATH_TABLE = FateTable("death", (
    FateRow(1, 35, "dies"),
    FateRow(36, 65, "survives gravely wounded; out of action for three in-game months"),
    FateRow(66, 100, "cheats death and walks away"),
))
"""Default death table: about a third of death rolls kill."""

DEFAULT_INJURY_TABLE = FateTable("injury", (
    FateRow(1, 10, "loses a hand"),
    FateRow(11, 20, "loses an eye"),
    FateRow(21, 40, "is left with a lasting limp"),
    FateRow(41, 70, "is wounded; out of action for one in-game month"),
    FateRow(71, 100, "a scar and nothing more"),
))
"""Default injury table: lasting harm on 1-40, a passing wound or a scar otherwise."""


def settle_fate(fate: CharacterFate, *, dice: Dice,
                death_table: FateTable = DEFAULT_DEATH_TABLE,
                injury_table: FateTable = DEFAULT_INJURY_TABLE) -> TableRoll | None:
    """Roll the death or injury table a character's call asks for; None when it asks for none."""
    if fate.fate is Fate.DEATH_ROLL:
        return roll_on_table(death_table, dice, fate.name)
    if fate.fate is Fate.INJURY_ROLL:
        return roll_on_table(injury_table, dice, fate.name)
    return None


@dataclass(frozen=True, slots=True)
class FateSettings:
    """The campaign's ``[characters]`` settings: whether the bot rolls the fate tables, and
    the tables.

    ``death_outcomes`` are the death-table outcomes that kill: a character rolled onto one of
    them is marked dead and no longer fights or lends its skills. Without ``roll`` the bot
    rolls nothing and the battle post lists who must roll.
    """

    roll: bool = False
    death_table: FateTable = DEFAULT_DEATH_TABLE
    injury_table: FateTable = DEFAULT_INJURY_TABLE
    death_outcomes: frozenset[str] = frozenset({"dies"})

    def kills(self, fate: CharacterFate, rolled: TableRoll) -> bool:
        """Whether a table roll made for ``fate`` kills the character."""
        return fate.fate is Fate.DEATH_ROLL and rolled.outcome in self.death_outcomes


NO_FATE_ROLLS = FateSettings()
"""The default: the bot rolls no fate table (the battle post lists who must roll)."""

FATE_KEYS = ("roll_fates", "death_table", "injury_table", "death_outcomes")
"""The keys of the config file's ``[characters]`` table."""


def read_fate_settings(data: Mapping[str, Any]) -> FateSettings:
    """The fate settings of a config file's ``[characters]`` table: ``roll_fates`` (false),
    ``death_table`` and ``injury_table`` (``{"1-35" = "dies", ...}``; by default
    :data:`DEFAULT_DEATH_TABLE` and :data:`DEFAULT_INJURY_TABLE`) and ``death_outcomes``
    (``["dies"]``). Raises InvalidInput naming the key (``characters.<key>``)."""
    for key in data:
        if key not in FATE_KEYS:
            raise InvalidInput(f"characters.{key}", "unknown setting; known: "
                               + ", ".join(FATE_KEYS))
    roll = data.get("roll_fates", False)
    if not isinstance(roll, bool):
        raise InvalidInput("characters.roll_fates", f"must be true or false, not {roll!r}")
    tables: dict[str, FateTable] = {}
    for key, default in (("death_table", DEFAULT_DEATH_TABLE),
                         ("injury_table", DEFAULT_INJURY_TABLE)):
        raw = data.get(key)
        if raw is None:
            tables[key] = default
            continue
        if not isinstance(raw, Mapping) or not all(isinstance(v, str) for v in raw.values()):
            raise InvalidInput(f"characters.{key}", "must be a table of die ranges and "
                               'outcome text, e.g. {"1-35" = "dies", "36-100" = "survives"}')
        table = FateTable.from_mapping(f"characters.{key}", raw)
        tables[key] = replace(table, name=default.name)
    death = tables["death_table"]
    outcomes = {row.outcome for row in death.rows}
    raw_deadly = data.get("death_outcomes")
    if raw_deadly is None:
        deadly = frozenset({"dies"} & outcomes)
    else:
        if not isinstance(raw_deadly, list) or not all(isinstance(v, str) for v in raw_deadly):
            raise InvalidInput("characters.death_outcomes", "must be a list of outcome texts")
        unknown = [v for v in raw_deadly if v not in outcomes]
        if unknown:
            raise InvalidInput("characters.death_outcomes",
                               f"{unknown[0]!r} is not an outcome of the death table")
        deadly = frozenset(raw_deadly)
    return FateSettings(roll, death, tables["injury_table"], deadly)
