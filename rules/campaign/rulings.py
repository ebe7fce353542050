"""What a moderator's ruling does to the world: a character's fate, an army or fleet removed.

Each function takes the world and what the moderators ruled, and returns the world after with
a value saying what changed (for the event the services log). Nothing here reads a row or a
clock; the services load the world, call these and write back the difference.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from rules.campaign.decide import with_army
from rules.campaign.world import (
    FREE_CHARACTERS,
    Army,
    CharacterState,
    CharacterStatus,
    SiegeState,
    SiegeStatus,
    World,
    gone,
)

REMOVED_FATE = "were removed by the moderators"
"""How an army or fleet the moderators removed is no more (its ``fate``)."""


@dataclass(frozen=True, slots=True)
class FateRuled:
    """Character ``character`` (as it is now) went from status ``before``; ``left``: the army
    or fleet it was with and no longer is (None: it stays where it was)."""

    character: CharacterState
    before: CharacterStatus
    left: int | None


@dataclass(frozen=True, slots=True)
class ArmyRemoved:
    """Army or fleet ``army`` (as it was: its troops are what is gone) was removed;
    ``sieges``: the sieges it held, ended with it."""

    army: Army
    sieges: tuple[SiegeState, ...]


def rule_fate(world: World, character_id: int, status: CharacterStatus
              ) -> tuple[World, FateRuled]:
    """Character ``character_id`` has ``status`` now. A dead or captured one leaves the army
    it was with (which has no commander any more if it commanded it); a wounded one keeps its
    command; a freed one stays where it is. Raises KeyError for a character not in the world
    (which needs the characters of every status and the raised armies)."""
    character = world.characters[character_id]
    left = character.army_id if status not in FREE_CHARACTERS else None
    if left is not None:
        commanded = world.armies.get(left)
        if commanded is not None and commanded.commander_id == character.id:
            world = with_army(world, replace(commanded, commander_id=None))
    after = replace(character, status=status,
                    army_id=None if status not in FREE_CHARACTERS else character.army_id)
    world = replace(world, characters={**world.characters, character.id: after})
    return world, FateRuled(after, character.status, left)


def remove_army(world: World, army_id: int) -> tuple[World, ArmyRemoved]:
    """Army or fleet ``army_id`` is removed: gone with its troops (not sent home), without a
    commander, every character with it standing free of it, and each active siege it held
    ended (lifted). A battle it awaited is voided by the next tick, as for any army gone.
    Raises KeyError for an army not in the world (which needs the raised armies, the active
    sieges and the characters)."""
    a = world.armies[army_id]
    world = with_army(world, replace(gone(a, REMOVED_FATE), commander_id=None))
    characters = {c.id: replace(c, army_id=None) for c in world.characters.values()
                  if c.army_id == a.id}
    if characters:
        world = replace(world, characters={**world.characters, **characters})
    ended = tuple(replace(s, status=SiegeStatus.LIFTED) for s in world.sieges
                  if s.army_id == a.id and s.status is SiegeStatus.ACTIVE)
    if ended:
        by_id = {s.id: s for s in ended}
        world = replace(world, sieges=tuple(by_id.get(s.id, s) for s in world.sieges))
    return world, ArmyRemoved(a, ended)
