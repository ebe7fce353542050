"""The pieces every text of the campaign shares: gold, troops, forces, dice lines, the
modifiers one claim may read, and the campaign context a text needs for names and dates."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from decimal import Decimal
from typing import Protocol

from rules.campaign.config import Terrain
from rules.campaign.modifiers import Applied, EffectKind, Modifier, Role, collect
from rules.campaign.naming import force_name
from rules.campaign.paths import ArmyKind
from rules.campaign.siege import SiegeLength
from rules.campaign.upkeep import HasTroops
from rules.campaign.worldmap import Tile, WorldMap
from rules.fairdice import DiceLine

NOBODY = "nobody (its neutral garrison)"
"""Who holds a holdfast no claim holds, as posts and notes name it."""


class Context(Protocol):
    """What a text needs of the campaign: the map (tile names) and its clock (dates as players
    read them). :class:`bot.services.world.CampaignContext` is one."""

    @property
    def world(self) -> WorldMap: ...

    def when(self, moment: datetime) -> str: ...

    def tick_at(self, index: int) -> datetime: ...


def side_name(names: Sequence[str]) -> str:
    """The claims of one side of a battle as posts and pages name them (plain text, escaped
    where it is shown): ``House Stark``, ``House Stark and House Tully``, ``A, B and C``."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def money(value: Decimal) -> str:
    """Gold as players read it: ``750``, ``1.9``, ``12.25`` (exact, no trailing zeros)."""
    text = format(value, "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text or "0"


def number(value: Decimal) -> str:
    """A strength, a ratio or a percentage to two places at most: ``1.5``, ``33.33``."""
    text = f"{value.quantize(Decimal('0.01')):f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


class Force(Protocol):
    """An army or a fleet as stored (a database row or a tick's record)."""

    @property
    def id(self) -> int | None: ...

    @property
    def kind(self) -> ArmyKind: ...


def force(a: Force, *, capital: bool = False) -> str:
    """``army 3`` or ``fleet 3`` as players read it (``Army 3`` at the start of a sentence)."""
    return force_name(a.kind, a.id or 0, capital=capital)


def troops_text(infantry: int, cavalry: int, ships: int = 0) -> str:
    parts = []
    if infantry:
        parts.append(f"{infantry} infantry")
    if cavalry:
        parts.append(f"{cavalry} cavalry")
    if ships:
        parts.append(f"{ships} ships")
    return ", ".join(parts) or "no troops"


def troops_of(t: HasTroops) -> str:
    """:func:`troops_text` of a rules' troops value."""
    return troops_text(t.infantry, t.cavalry, t.ships)


def place_label(tile: Tile) -> str:
    """A tile as a text names it (plain): its name, or ``the sea at X`` for open water."""
    if not tile.name and tile.terrain is Terrain.WATER:
        return f"the sea at {tile.id}"
    return tile.label


def dice_md(line: DiceLine | str) -> str:
    """The dice line as it stands at the end of a post (inline code, so markdown leaves it)."""
    return f"`{line}`"


def _plain(value: Decimal) -> str:
    return format(value.normalize(), "f") if value == value.to_integral_value() \
        else format(value, "f")


def labels_for(applied: Iterable[Applied], own: Iterable[Modifier] = ()) -> tuple[str, ...]:
    """Descriptions for one claim's eyes: every public modifier, and hidden ones only when they
    are the claim's own (``own``), marked secret."""
    mine = set(own)
    out: list[str] = []
    for a in applied:
        text = a.describe()
        if a.effect.kind is EffectKind.STEALTH:
            # stealth is taken off the observer's roll: say so, in the roll's own sign
            text = f"-{_plain(a.effect.amount)} {a.modifier.shown_as} (stealth)"
        if not a.modifier.hidden:
            out.append(text)
        elif a.modifier in mine:
            out.append(text + " (secret)")
    return tuple(out)


def income_sources(mods: Iterable[Modifier]) -> str:
    """The claim's gold income effects in words for its own upkeep note (``+50 gold mine``)."""
    mods = tuple(mods)
    return ", ".join(labels_for(collect(mods, EffectKind.GOLD_INCOME, Role.BOTH), mods))


def siege_note(length: SiegeLength, own: Iterable[Modifier]) -> str:
    """A siege's chart and the modifiers one side may read: `` (chart 12 months; ...)``."""
    labels = labels_for(length.applied, own)
    if not labels:
        return ""
    return f" (chart {length.base} months; " + ", ".join(labels) + ")"
