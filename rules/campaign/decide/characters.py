"""What the characters' orders decide: assign a commander to an army or a holdfast."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from datetime import datetime

from rules.campaign import language as o
from rules.campaign.catalogue import Entry, Section
from rules.campaign.decide.common import (
    OrderRefused,
    Receipt,
    Said,
    Sender,
    brace,
    force,
    own_army,
    refuse,
    require_claim,
    with_army,
)
from rules.campaign.world import (
    FREE_CHARACTERS,
    ArmyKind,
    CharacterState,
    CharacterStatus,
    World,
)
from rules.text import name_md

# --- assign ---------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Assigned(Receipt):
    """``name`` takes command of ``army``; ``left``: the army it left (now with no commander),
    ``relieved``: the commander it replaced; ``skills``: its skills in the catalogue."""

    army: int
    character: int
    name: str
    left: int | None
    relieved: str | None
    skills: tuple[Entry, ...]
    kind: ArmyKind = field(default=ArmyKind.LAND, kw_only=True)
    left_kind: ArmyKind = field(default=ArmyKind.LAND, kw_only=True)


def find_character(characters: Iterable[CharacterState], name: str) -> CharacterState | None:
    """The character called ``name`` (any case and spacing), or the only one whose name holds
    all its words."""
    wanted = " ".join(name.split()).casefold()
    found = list(characters)
    for ch in found:
        if ch.name.casefold() == wanted:
            return ch
    words = set(wanted.split())
    close = [ch for ch in found if words <= set(ch.name.casefold().split())]
    return close[0] if len(close) == 1 else None


def decide_assign(world: World, sender: Sender, order: o.Assign, at: datetime
            ) -> tuple[World, Receipt]:
    a = own_army(world, sender, order.army)
    claim = require_claim(world, sender)
    mine = [ch for ch in world.characters.values() if ch.claim_id == claim.id]
    free = [ch for ch in mine if ch.status in FREE_CHARACTERS]
    chosen = find_character(free, order.commander)
    unfree = find_character([ch for ch in mine if ch.status not in FREE_CHARACTERS],
                            order.commander) if chosen is None else None
    example = f"assign {free[0].name if free else 'NAME'} to {force(a)}"
    if unfree is not None:
        names = ", ".join(name_md(ch.name) for ch in free)
        why = ("is dead" if unfree.status is CharacterStatus.DEAD else
               "is a captive and cannot command until the moderators free them")
        raise refuse(f"{name_md(unfree.name)} {why}",
                      f"a free character of your claim ({names})" if names else
                      "a free character of your claim (you have none now; the moderators "
                      "add characters)", example)
    if chosen is None:
        names = ", ".join(name_md(ch.name) for ch in free)
        raise OrderRefused(f"{brace(name_md(claim.name))} has no living character called "
                           "{}",
                           Said(order.commander, 100),
                           expected=f"one of: {names}" if names else "a character (your claim "
                           "has none; the moderators add characters)", example=example)
    if chosen.army_id == a.id:
        raise refuse(f"{name_md(chosen.name)} already commands "
                      f"{force(a)}", "another army or fleet",
                      "status")
    left: int | None = None
    left_kind = ArmyKind.LAND
    relieved: str | None = None
    if chosen.army_id is not None:
        before = world.armies.get(chosen.army_id)
        if before is not None and before.commander_id == chosen.id:
            world = with_army(world, replace(before, commander_id=None))
            left, left_kind = before.id, before.kind
    characters = dict(world.characters)
    if a.commander_id is not None and a.commander_id != chosen.id:
        old = characters.get(a.commander_id)
        if old is not None and old.army_id == a.id:
            characters[old.id] = replace(old, army_id=None)
            relieved = old.name
    for other in list(characters.values()):
        if other.army_id == a.id and other.id != chosen.id:
            characters[other.id] = replace(other, army_id=None)
    characters[chosen.id] = replace(chosen, army_id=a.id)
    world = replace(with_army(world, replace(a, commander_id=chosen.id)),
                    characters=characters)
    skills = tuple(entry for entry in (sender.catalogue.find(Section.SKILLS, str(skill))
                                       for skill in chosen.skills) if entry is not None)
    return world, Assigned(a.id, chosen.id, chosen.name, left, relieved, skills, kind=a.kind,
                           left_kind=left_kind)
