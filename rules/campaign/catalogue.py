"""The campaign's catalogue: skills, improvements, siege equipment and resource benefits as data.

Each campaign sets its own catalogue (a TOML table, see ``docs/modifiers.md``); this module turns
the decoded mapping into frozen :class:`Entry` values and refuses anything it cannot use, with an
error naming the key (``catalogue.skills.Blackfish.effects[0].kind: unknown effect 'strenght'``).

Four sections, each a table of entries keyed by name:

``skills``
    held by characters; a commander's skills count for the army it commands, the skills of a
    claim's characters at home count for its holdfast, and every living character's gold and
    troop capacity effects count for the claim.
``improvements``
    built in a holdfast for ``cost`` gold, finished after ``months`` in-game month boundaries.
``equipment``
    siege equipment bought for ``cost`` gold and carried by an army; it counts in assaults and
    sieges only.
``resources``
    the benefit of resource tiles, keyed by the map's ``resource_benefit`` name.

Every entry has one or more effects from the closed list of
:class:`~rules.campaign.modifiers.EffectKind`, an optional ``label`` (what posts show; the name by
default), ``hidden`` (left out of every text another claim sees) and ``description``.
An entry becomes a :class:`~rules.campaign.modifiers.Modifier` named after its key, so the one
stacking rule of :func:`~rules.campaign.modifiers.collect` applies: two sources with the same
name (two timber tiles, two commanders with the same skill) count once.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from enum import StrEnum
from typing import Any

from rules.campaign.inputs import MAX_DEFINED_NAME_CHARS, name_problem
from rules.campaign.language import MAX_NAME_CHARS, is_valid_name
from rules.campaign.modifiers import MULTIPLIER_KINDS, Effect, EffectKind, Modifier, Role, Source
from rules.errors import InvalidInput
from rules.suggest import closest

ROOT = "catalogue"
"""Prefix of every field named in an error."""

MAX_COST = 1_000_000_000
"""The highest gold cost an entry may have."""

MAX_BUILD_MONTHS = 1200
"""The longest build time, in in-game months (a century of twelve-month years)."""

MAX_MULTIPLIER = Decimal(100)
"""The largest strength or speed multiplier an effect may carry."""

MAX_BONUS = Decimal(1_000_000)
"""The largest size of an additive effect (gold, troops, months, roll bonus)."""

MAX_ENTRIES = 1000
"""The most entries a catalogue may hold, all sections together."""

WHOLE_KINDS = frozenset({
    EffectKind.DETECTION, EffectKind.STEALTH, EffectKind.SIEGE_MONTHS,
    EffectKind.INFANTRY_CAPACITY, EffectKind.CAVALRY_CAPACITY,
})
"""Effect kinds whose amount must be a whole number (roll bonuses, months, troops)."""

ROLE_KINDS = frozenset({EffectKind.STRENGTH, EffectKind.SIEGE_MONTHS})
"""Effect kinds for which the role (attack, defense, both) means something."""


class Section(StrEnum):
    """The four parts of a catalogue."""

    SKILLS = "skills"
    IMPROVEMENTS = "improvements"
    EQUIPMENT = "equipment"
    RESOURCES = "resources"

    @property
    def source(self) -> Source:
        """The modifier source that fixes where this section's effects are listed."""
        return _SOURCES[self]

    @property
    def singular(self) -> str:
        """``skill``, ``improvement``, ``equipment``, ``resource benefit``."""
        return _SINGULAR[self]


_SOURCES = {
    Section.SKILLS: Source.SKILL,
    Section.IMPROVEMENTS: Source.IMPROVEMENT,
    Section.EQUIPMENT: Source.EQUIPMENT,
    Section.RESOURCES: Source.RESOURCE,
}
_SINGULAR = {
    Section.SKILLS: "skill",
    Section.IMPROVEMENTS: "improvement",
    Section.EQUIPMENT: "equipment",
    Section.RESOURCES: "resource benefit",
}
_COMMON_KEYS = ("effects", "label", "hidden", "description")
_SECTION_KEYS: dict[Section, tuple[str, ...]] = {
    Section.SKILLS: _COMMON_KEYS,
    Section.IMPROVEMENTS: (*_COMMON_KEYS, "cost", "months"),
    Section.EQUIPMENT: (*_COMMON_KEYS, "cost"),
    Section.RESOURCES: _COMMON_KEYS,
}
_EFFECT_KEYS = ("kind", "amount", "role")


@dataclass(frozen=True, slots=True)
class Entry:
    """One catalogue entry: a named bundle of effects, with its price and build time.

    ``cost`` is in gold (improvements and equipment; 0 otherwise); ``months`` is the build time of
    an improvement (0 otherwise).
    """

    section: Section
    name: str
    effects: tuple[Effect, ...]
    label: str = ""
    hidden: bool = False
    description: str = ""
    cost: Decimal = Decimal(0)
    months: int = 0

    @property
    def shown_as(self) -> str:
        """What posts call this entry: its label, or its name."""
        return self.label or self.name

    def modifier(self) -> Modifier:
        """The entry as a modifier, named after its key (the stacking rule compares names)."""
        return Modifier(self.name, self.section.source, self.effects, label=self.label,
                        hidden=self.hidden)

    def describe_effects(self) -> str:
        """The effects in words, e.g. ``x1.2 strength (attack); -1 siege month (besieger)``."""
        return "; ".join(describe_effect(e) for e in self.effects)


def describe_effect(effect: Effect) -> str:
    """One effect in words for the moderators and the players' own notes."""
    amount = effect.amount
    number = format(amount.normalize(), "f")
    if effect.kind in MULTIPLIER_KINDS:
        text = f"x{number} {effect.kind.value}"
    else:
        sign = "+" if amount >= 0 else "-"
        magnitude = format(abs(amount).normalize(), "f")
        what = {
            EffectKind.DETECTION: "to detection rolls",
            EffectKind.STEALTH: "to avoid detection",
            EffectKind.SIEGE_MONTHS: "siege month" if abs(amount) == 1 else "siege months",
            EffectKind.INFANTRY_CAPACITY: "infantry at home",
            EffectKind.CAVALRY_CAPACITY: "cavalry at home",
            EffectKind.GOLD_INCOME: "gold a month",
        }.get(effect.kind, effect.kind.value)
        text = f"{sign}{magnitude} {what}"
    if effect.kind is EffectKind.SIEGE_MONTHS:
        text += " (besieger)" if effect.role is Role.ATTACK else " (defender)"
    elif effect.kind in ROLE_KINDS and effect.role is not Role.BOTH:
        text += f" ({effect.role.value})"
    return text


class UnknownEntry(InvalidInput):
    """A name that is not in the catalogue; ``valid`` lists the names that are."""

    def __init__(self, section: Section, name: str, valid: tuple[str, ...]) -> None:
        self.section = section
        self.name = name
        self.valid = valid
        self.suggestion = _closest(name, valid)
        hint = f" (did you mean {self.suggestion}?)" if self.suggestion else ""
        listed = ", ".join(valid) if valid else f"this campaign has no {section.value}"
        super().__init__(section.value, f"there is no {section.singular} called {name!r}{hint}",
                         f"one of: {listed}")


def _closest(name: str, valid: Iterable[str]) -> str | None:
    found = closest(name, valid, key=_key)
    return found[0] if found else None


def _key(name: str) -> str:
    return " ".join(name.split()).casefold()


def _singular(key: str) -> str:
    """``key`` with its last word made singular, the way English plurals of equipment and
    buildings are made: ``trebuchets`` -> ``trebuchet``, ``stone walls`` -> ``stone wall``,
    ``batteries`` -> ``battery``, ``torches`` -> ``torch``; a word in ``ss`` stays."""
    head, _, last = key.rpartition(" ")
    if last.endswith("ies") and len(last) > 4:
        last = last[:-3] + "y"
    elif last.endswith(("ches", "shes", "sses", "xes")):
        last = last[:-2]
    elif last.endswith("s") and not last.endswith("ss") and len(last) > 3:
        last = last[:-1]
    return f"{head} {last}" if head else last


@dataclass(frozen=True, slots=True)
class Catalogue:
    """Every entry of a campaign's catalogue, in the order given, names unique per section."""

    entries: tuple[Entry, ...] = ()

    def section(self, section: Section) -> tuple[Entry, ...]:
        """The entries of one section, in the order the catalogue gives them."""
        return tuple(e for e in self.entries if e.section is section)

    def names(self, section: Section) -> tuple[str, ...]:
        """The names of one section's entries."""
        return tuple(e.name for e in self.section(section))

    def find(self, section: Section, name: str) -> Entry | None:
        """The entry called ``name`` (any case and spacing, or its label), or None."""
        wanted = _key(name)
        for entry in self.section(section):
            if _key(entry.name) == wanted:
                return entry
        for entry in self.section(section):
            if entry.label and _key(entry.label) == wanted:
                return entry
        # "trebuchet" for "Trebuchets", "siege towers" for "Siege Tower": one or many alike.
        one = _singular(wanted)
        for entry in self.section(section):
            if one in {_singular(_key(spelling)) for spelling in (entry.name, entry.label)
                       if spelling}:
                return entry
        return None

    def lookup(self, section: Section, name: str) -> Entry:
        """The entry called ``name``; raises :class:`UnknownEntry` listing the valid names."""
        entry = self.find(section, name)
        if entry is None:
            raise UnknownEntry(section, name, self.names(section))
        return entry

    def __len__(self) -> int:
        return len(self.entries)


EMPTY_CATALOGUE = Catalogue()
"""A campaign with no catalogue: no skills, improvements, equipment or resource benefits."""


# --- parsing --------------------------------------------------------------------------------


def _field(*parts: str) -> str:
    text = ROOT
    for part in parts:
        if part.startswith("["):
            text += part
        elif is_valid_name(part) and "." not in part:
            text += f".{part}"
        else:
            text += f".{part!r}"
    return text


def _refuse_unknown(data: Mapping[str, Any], allowed: tuple[str, ...], where: tuple[str, ...]
                    ) -> None:
    for key in data:
        if key not in allowed:
            raise InvalidInput(_field(*where, str(key)), "is not a known key",
                               "one of " + ", ".join(allowed))


def _decimal(value: Any, where: str) -> Decimal:
    if isinstance(value, bool) or not isinstance(value, int | float | str | Decimal):
        raise InvalidInput(where, f"must be a number, not {value!r}", 'e.g. 1.2 or "1.2"')
    try:
        number = Decimal(str(value).strip())
    except InvalidOperation:
        raise InvalidInput(where, f"must be a number, not {value!r}", 'e.g. 1.2 or "1.2"'
                           ) from None
    if not number.is_finite():
        raise InvalidInput(where, f"must be a finite number, not {value!r}")
    return number


def _text(value: Any, where: str, default: str = "") -> str:
    if value is None:
        return default
    if not isinstance(value, str):
        raise InvalidInput(where, f"must be text, not {value!r}")
    return value


def parse_effect(data: Any, where: tuple[str, ...]) -> Effect:
    """One effect table ``{kind = "strength", amount = 1.2, role = "attack"}``.

    ``role`` defaults to both and is only accepted for strength and siege_months; siege_months
    needs it (attack: the besieger's effect, defense: the defender's). Multipliers (strength,
    speed) must be above 0 and at most :data:`MAX_MULTIPLIER`; roll bonuses, months and troops
    must be whole numbers. Raises InvalidInput naming the key.
    """
    if not isinstance(data, Mapping):
        raise InvalidInput(_field(*where), f"must be a table, not {data!r}",
                           '{kind = "strength", amount = 1.2}')
    _refuse_unknown(data, _EFFECT_KEYS, where)
    kinds = ", ".join(k.value for k in EffectKind)
    if "kind" not in data:
        raise InvalidInput(_field(*where, "kind"), "is missing", f"one of: {kinds}")
    raw_kind = data["kind"]
    try:
        kind = EffectKind(str(raw_kind).strip().lower())
    except ValueError:
        raise InvalidInput(_field(*where, "kind"), f"unknown effect {raw_kind!r}; valid: {kinds}"
                           ) from None
    if "amount" not in data:
        raise InvalidInput(_field(*where, "amount"), "is missing",
                           "a multiplier like 1.2 or a bonus like 2")
    amount = _decimal(data["amount"], _field(*where, "amount"))
    roles = ", ".join(r.value for r in Role)
    raw_role = data.get("role")
    if raw_role is None:
        if kind is EffectKind.SIEGE_MONTHS:
            raise InvalidInput(_field(*where, "role"), "is missing: say whose siege effect it is",
                               '"attack" (the besieger\'s) or "defense" (the defender\'s)')
        role = Role.BOTH
    else:
        try:
            role = Role(str(raw_role).strip().lower())
        except ValueError:
            raise InvalidInput(_field(*where, "role"), f"unknown role {raw_role!r}; valid: {roles}"
                               ) from None
    if role is not Role.BOTH and kind not in ROLE_KINDS:
        raise InvalidInput(_field(*where, "role"),
                           f"a {kind.value} effect has no role; only strength and siege_months do",
                           "no role")
    if kind is EffectKind.SIEGE_MONTHS and role is Role.BOTH:
        raise InvalidInput(_field(*where, "role"), "a siege_months effect belongs to one side",
                           '"attack" (the besieger\'s) or "defense" (the defender\'s)')
    where_amount = _field(*where, "amount")
    if kind in MULTIPLIER_KINDS:
        if not 0 < amount <= MAX_MULTIPLIER:
            raise InvalidInput(where_amount, f"a multiplier must be above 0 and at most "
                                             f"{MAX_MULTIPLIER}, not {amount}", "e.g. 1.2")
    else:
        if abs(amount) > MAX_BONUS:
            raise InvalidInput(where_amount, f"must be between -{MAX_BONUS} and {MAX_BONUS}")
        if kind in WHOLE_KINDS and amount != amount.to_integral_value():
            raise InvalidInput(where_amount, f"a {kind.value} effect must be a whole number, "
                                             f"not {amount}", "e.g. 2 or -1")
    return Effect(kind, amount, role)


def _overlaps(a: Effect, b: Effect) -> bool:
    return a.kind is b.kind and (a.role is b.role or Role.BOTH in (a.role, b.role))


def parse_entry(section: Section, name: str, data: Any) -> Entry:
    """One entry of ``section`` called ``name``. Raises InvalidInput naming the key."""
    where = (section.value, name)
    if not is_valid_name(name) or name_problem(name) is not None:
        raise InvalidInput(_field(*where), f"is not a usable name: {name_problem(name)}",
                           f"1-{MAX_DEFINED_NAME_CHARS} letters, digits, single spaces and "
                           "' . - _ (players type it in orders)")
    if not isinstance(data, Mapping):
        raise InvalidInput(_field(*where), f"must be a table, not {data!r}",
                           "a table with effects = [...]")
    _refuse_unknown(data, _SECTION_KEYS[section], where)
    raw_effects = data.get("effects")
    if not isinstance(raw_effects, list) or not raw_effects:
        raise InvalidInput(_field(*where, "effects"), "needs at least one effect",
                           'effects = [{kind = "strength", amount = 1.2}]')
    effects: list[Effect] = []
    for i, raw in enumerate(raw_effects):
        effect = parse_effect(raw, (*where, "effects", f"[{i}]"))
        for j, earlier in enumerate(effects):
            if _overlaps(earlier, effect):
                raise InvalidInput(_field(*where, "effects", f"[{i}]"),
                                   f"repeats the {effect.kind.value} effect of effects[{j}] "
                                   "for the same role; an entry gives each effect once")
        effects.append(effect)
    label = _text(data.get("label"), _field(*where, "label")).strip()
    if label and (not is_valid_name(label) or name_problem(label) is not None):
        raise InvalidInput(_field(*where, "label"), "is not a usable label",
                           f"1-{MAX_NAME_CHARS} visible characters, no quote marks")
    hidden = data.get("hidden", False)
    if not isinstance(hidden, bool):
        raise InvalidInput(_field(*where, "hidden"), f"must be true or false, not {hidden!r}")
    description = _text(data.get("description"), _field(*where, "description")).strip()
    cost = Decimal(0)
    months = 0
    if section in (Section.IMPROVEMENTS, Section.EQUIPMENT):
        if "cost" not in data:
            raise InvalidInput(_field(*where, "cost"), "is missing", "a gold cost, e.g. 200")
        cost = _decimal(data["cost"], _field(*where, "cost"))
        if not 0 <= cost <= MAX_COST:
            raise InvalidInput(_field(*where, "cost"), f"must be 0 to {MAX_COST} gold, not {cost}")
    if section is Section.IMPROVEMENTS:
        raw_months = data.get("months")
        if isinstance(raw_months, bool) or not isinstance(raw_months, int) \
                or not 1 <= raw_months <= MAX_BUILD_MONTHS:
            raise InvalidInput(_field(*where, "months"),
                               f"must be a whole number of in-game months from 1 to "
                               f"{MAX_BUILD_MONTHS}, not {raw_months!r}", "e.g. 3")
        months = raw_months
    return Entry(section, name, tuple(effects), label, hidden, description, cost, months)


def parse_catalogue(data: Mapping[str, Any] | None) -> Catalogue:
    """A whole catalogue from its decoded TOML (``{"skills": {...}, "improvements": {...}}``).

    Every section is optional; None or an empty mapping is the empty catalogue. Names must be
    unique within a section (ignoring case and spacing), and so must labels. Raises InvalidInput
    naming the first bad key (``catalogue.skills.Blackfish.effects[0].kind: unknown effect
    'strenght'; valid: ...``).
    """
    if data is None:
        return EMPTY_CATALOGUE
    if not isinstance(data, Mapping):
        raise InvalidInput(ROOT, f"must be a table, not {data!r}")
    valid_sections = tuple(s.value for s in Section)
    entries: list[Entry] = []
    for section_name, section_data in data.items():
        try:
            section = Section(str(section_name))
        except ValueError:
            raise InvalidInput(_field(str(section_name)), "is not a catalogue section",
                               "one of " + ", ".join(valid_sections)) from None
        if not isinstance(section_data, Mapping):
            raise InvalidInput(_field(section.value), f"must be a table of entries, not "
                                                      f"{section_data!r}")
        seen: dict[str, str] = {}
        for name, entry_data in section_data.items():
            entry = parse_entry(section, str(name), entry_data)
            for spelling in {entry.name, entry.label} - {""}:
                key = _key(spelling)
                if key in seen:
                    raise InvalidInput(_field(section.value, entry.name),
                                       f"{spelling!r} is already used by {seen[key]!r} in this "
                                       "section", "names and labels unique within a section")
                seen[key] = entry.name
            entries.append(entry)
            if len(entries) > MAX_ENTRIES:
                raise InvalidInput(ROOT, f"holds more than {MAX_ENTRIES} entries")
    return Catalogue(tuple(entries))


def format_catalogue(catalogue: Catalogue) -> dict[str, Any]:
    """The catalogue as plain data that :func:`parse_catalogue` reads back to an equal value.

    Amounts and costs are written as strings so they stay exact in JSON and TOML.
    """
    out: dict[str, Any] = {}
    for entry in catalogue.entries:
        item: dict[str, Any] = {"effects": [
            {"kind": e.kind.value, "amount": format(e.amount, "f"),
             **({"role": e.role.value} if e.role is not Role.BOTH else {})}
            for e in entry.effects]}
        if entry.label:
            item["label"] = entry.label
        if entry.hidden:
            item["hidden"] = True
        if entry.description:
            item["description"] = entry.description
        if entry.section in (Section.IMPROVEMENTS, Section.EQUIPMENT):
            item["cost"] = format(entry.cost, "f")
        if entry.section is Section.IMPROVEMENTS:
            item["months"] = entry.months
        out.setdefault(entry.section.value, {})[entry.name] = item
    return out


def missing_resources(catalogue: Catalogue, benefits: Iterable[str]) -> tuple[str, ...]:
    """Resource benefit names used by a map that the catalogue does not define, sorted."""
    defined = {_key(n) for n in catalogue.names(Section.RESOURCES)}
    return tuple(sorted({b for b in benefits if b and _key(b) not in defined}))


__all__ = [
    "EMPTY_CATALOGUE",
    "MAX_BONUS",
    "MAX_BUILD_MONTHS",
    "MAX_COST",
    "MAX_ENTRIES",
    "MAX_MULTIPLIER",
    "ROLE_KINDS",
    "ROOT",
    "WHOLE_KINDS",
    "Catalogue",
    "Entry",
    "Section",
    "UnknownEntry",
    "describe_effect",
    "format_catalogue",
    "missing_resources",
    "parse_catalogue",
    "parse_effect",
    "parse_entry",
]
