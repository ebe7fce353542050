"""Which modifiers are in force where: for an army, a claim and a holdfast's defenders.

The catalogue (:mod:`rules.campaign.catalogue`) says what each skill, improvement, piece of
siege equipment and resource benefit does; this module says whose they are at a given moment:

* an **army**: the skills of the free characters with it (its commander), the benefit of the
  resource tile it stands on when it is standing and its claim holds that benefit, and, in
  assaults and sieges only, the siege equipment it carries;
* a **claim** (gold income and troop capacity): its finished improvements, the benefits of the
  resource tiles it holds and the skills of all its free characters;
* a **holdfast's defenders** (garrison strength, the holdfast's detection, a siege's length):
  the claim's finished improvements and the skills of its free characters at home (with no
  army);
* an **observer** (who rolls to detect from a tile for a claim): the holdfast's defenders on
  the claim's own holdfast, else the claim's standing armies on that tile.

A resource tile's benefit goes to one claim at a time
(:func:`rules.campaign.resources.tile_holder`).

:class:`ModifiersInForce` answers these questions over the rules' values: the map, the rules
config, the catalogue, the armies, the claims, the free characters, the resource tile holders
and the pairs of claims at war. It reads them as they are when asked; its owner may replace or
update them between questions (a tick keeps them current as its phases change the world).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Protocol

from rules.campaign.catalogue import Catalogue, Section
from rules.campaign.config import RulesConfig
from rules.campaign.improvements import improvement_modifiers
from rules.campaign.modifiers import Modifier
from rules.campaign.resources import Occupant, tile_holder
from rules.campaign.world import (
    FREE_CHARACTERS,
    Army,
    ArmyState,
    CharacterState,
    ClaimState,
    HolderState,
    World,
    war_key,
)
from rules.campaign.worldmap import WorldMap

__all__ = ["Equipped", "InForce", "ModifiersInForce", "Placed", "in_force_for"]


class Placed(Occupant, Protocol):
    """An army as :class:`ModifiersInForce` reads it among the others: who it belongs to, what
    it is doing, its troops and where it is (the rules' army value or a stored army)."""

    @property
    def id(self) -> int | None: ...
    @property
    def tile(self) -> str: ...


class Equipped(Placed, Protocol):
    """An army whose own modifiers are asked for: also the names of its siege equipment."""

    @property
    def equipment(self) -> tuple[str, ...]: ...


class ModifiersInForce:
    """The modifiers in force, worked out on each question from the values it holds.

    ``armies``: every raised army (a collection is read as it is at each question: the owner
    may hand over a live view); ``claims`` by id; ``characters``: the free characters by id
    (any others given are left out); ``holders``: who holds each resource tile's benefit, by
    tile; ``wars``: the pairs of claims at war (:func:`rules.campaign.world.war_key`), so that
    a hostile newcomer cannot take a resource tile's benefit by arriving. With an empty
    catalogue nothing modifies anything, and every question answers at once.
    """

    def __init__(self, catalogue: Catalogue, map: WorldMap, rules: RulesConfig, *,
                 armies: Iterable[Placed] = (), claims: Mapping[int, ClaimState] | None = None,
                 characters: Mapping[int, CharacterState] | None = None,
                 holders: Mapping[str, HolderState] | None = None,
                 wars: frozenset[tuple[int, int]] = frozenset()) -> None:
        self.catalogue = catalogue
        self.map = map
        self.rules = rules
        # a collection is kept as given: the owner's live view of its armies, as they move
        self.armies: Collection[Placed] = armies if isinstance(armies, Collection) \
            else list(armies)
        self.claims: Mapping[int, ClaimState] = claims if claims is not None else {}
        self.characters = characters if characters is not None else {}
        self.holders: dict[str, HolderState] = dict(holders or {})
        self.wars = wars

    @property
    def characters(self) -> Mapping[int, CharacterState]:
        """The characters given, by id (those not free count for nothing)."""
        return self._characters

    @characters.setter
    def characters(self, characters: Mapping[int, CharacterState]) -> None:
        self._characters = characters
        # the free ones indexed once (the tick asks about every army, every phase)
        with_army: dict[int, list[CharacterState]] = {}
        at_home: dict[int, list[CharacterState]] = {}
        of_claim: dict[int, list[CharacterState]] = {}
        for c in characters.values():
            if c.status not in FREE_CHARACTERS:
                continue
            of_claim.setdefault(c.claim_id, []).append(c)
            if c.army_id is None:
                at_home.setdefault(c.claim_id, []).append(c)
            else:
                with_army.setdefault(c.army_id, []).append(c)
        self._with_army = {k: tuple(v) for k, v in with_army.items()}
        self._at_home = {k: tuple(v) for k, v in at_home.items()}
        self._of_claim = {k: tuple(v) for k, v in of_claim.items()}

    # who is where
    def characters_with(self, army: Placed) -> tuple[CharacterState, ...]:
        """The free characters with an army (its commander), in the order given."""
        return () if army.id is None else self._with_army.get(army.id, ())

    def characters_at_home(self, claim_id: int) -> tuple[CharacterState, ...]:
        """A claim's free characters at home (with no army), in the order given."""
        return self._at_home.get(claim_id, ())

    def characters_of(self, claim_id: int) -> tuple[CharacterState, ...]:
        """A claim's free characters (with an army or at home), in the order given."""
        return self._of_claim.get(claim_id, ())

    def resource_holder(self, tile_id: str) -> int | None:
        """The claim that receives a resource tile's benefit now, or None.

        The claims with standing armies on the tile occupy it; the strongest (troops by the
        battle weights; on a tie the recorded holder, else the earliest arrival) receives the
        benefit, unless the recorded holder ceded it to another occupant; a claim at war with
        the holder cannot take it by arriving (:func:`rules.campaign.resources.tile_holder`).
        """
        held = self.holders.get(tile_id)
        wars = self.wars
        return tile_holder((a for a in self.armies if a.tile == tile_id), self.rules,
                           recorded=held.claim_id if held is not None else None,
                           ceded_to=held.ceded_to if held is not None else None,
                           hostile=lambda a, b: war_key(a, b) in wars)

    def held_resource_tiles(self, claim_id: int) -> tuple[str, ...]:
        """Ids of the resource tiles whose benefit the claim receives now, sorted."""
        tiles = {a.tile for a in self.armies
                 if a.claim_id == claim_id and a.state == ArmyState.STANDING}
        return tuple(sorted(t for t in tiles if t in self.map and self.map.tile(t).resource
                            and self.resource_holder(t) == claim_id))

    # catalogue entries as modifiers
    def _skills(self, characters: Iterable[CharacterState]) -> list[Modifier]:
        found: list[Modifier] = []
        find = self.catalogue.find
        for character in characters:
            for skill in character.skills:
                entry = find(Section.SKILLS, skill)
                if entry is not None:
                    found.append(entry.modifier())
        return found

    def _resource(self, tile_id: str) -> Modifier | None:
        if tile_id not in self.map:
            return None
        benefit = self.map.tile(tile_id).resource_benefit
        entry = self.catalogue.find(Section.RESOURCES, benefit) if benefit else None
        return entry.modifier() if entry is not None else None

    def _equipment(self, names: Iterable[str]) -> list[Modifier]:
        found: list[Modifier] = []
        for name in names:
            entry = self.catalogue.find(Section.EQUIPMENT, name)
            if entry is not None:
                found.append(entry.modifier())
        return found

    # the modifiers in force
    def skills_with(self, army: Placed) -> tuple[Modifier, ...]:
        """The skills of the free characters with an army (what counts on the march when the
        army's tile is not asked about)."""
        if not self.catalogue.entries:
            return ()
        return tuple(self._skills(self.characters_with(army)))

    def army(self, army: Equipped, *, equipment: bool = False,
             characters: Iterable[CharacterState] | None = None) -> tuple[Modifier, ...]:
        """An army's modifiers, in this order: its characters' skills (``characters``: those
        the caller says are with it now; None: the free characters held here), (``equipment``:
        in an assault or a siege) its siege equipment, and the benefit of the resource tile it
        stands on if it is standing and its claim holds the benefit."""
        if not self.catalogue.entries:
            return ()
        return self._army(army, army.equipment if equipment else (), characters)

    def _army(self, army: Placed, equipment: tuple[str, ...],
              characters: Iterable[CharacterState] | None) -> tuple[Modifier, ...]:
        found = self._skills(self.characters_with(army) if characters is None else characters)
        if equipment:
            found.extend(self._equipment(equipment))
        if army.state == ArmyState.STANDING:
            benefit = self._resource(army.tile)
            if benefit is not None and self.resource_holder(army.tile) == army.claim_id:
                found.append(benefit)
        return tuple(found)

    def claim(self, claim: ClaimState) -> tuple[Modifier, ...]:
        """A claim's own modifiers (its income and troop capacity come from these): finished
        improvements, the benefits of the resource tiles it holds, its free characters'
        skills. In that order."""
        if not self.catalogue.entries:
            return ()
        return (*improvement_modifiers(self.catalogue, claim.improvements),
                *self.claim_besides_improvements(claim))

    def claim_besides_improvements(self, claim: ClaimState) -> tuple[Modifier, ...]:
        """A claim's own modifiers but its improvements: the benefits of the resource tiles
        it holds and its free characters' skills (what the monthly rules add its improvements
        to, :func:`rules.campaign.tick.advance_improvements`)."""
        if not self.catalogue.entries:
            return ()
        found: list[Modifier] = []
        for tile_id in self.held_resource_tiles(claim.id):
            benefit = self._resource(tile_id)
            if benefit is not None:
                found.append(benefit)
        found.extend(self._skills(self.characters_of(claim.id)))
        return tuple(found)

    def holdfast(self, claim: ClaimState, *,
                 characters: Iterable[CharacterState] | None = None) -> tuple[Modifier, ...]:
        """The modifiers of a holdfast's defenders: the claim's finished improvements and the
        skills of its characters at home (``characters``: those the caller says are at home
        now; None: the free characters held here). (The secret defense bonus is added where
        assaults are fought.)"""
        if not self.catalogue.entries:
            return ()
        home = self.characters_at_home(claim.id) if characters is None else characters
        return (*improvement_modifiers(self.catalogue, claim.improvements), *self._skills(home))

    def observer(self, claim_id: int, tile_id: str) -> tuple[Modifier, ...]:
        """The modifiers of whoever watches from ``tile_id`` for ``claim_id``: the holdfast's
        defenders on the claim's holdfast, else the claim's standing armies there (each with
        its skills and its resource benefit, in the armies' order)."""
        if not self.catalogue.entries:
            return ()
        claim = self.claims.get(claim_id)
        if claim is not None and claim.holdfast == tile_id:
            return self.holdfast(claim)
        found: list[Modifier] = []
        for a in self.armies:
            if a.claim_id == claim_id and a.tile == tile_id \
                    and a.state == ArmyState.STANDING:
                found.extend(self._army(a, (), None))
        return tuple(found)


class InForce:
    """The modifiers in force as the rules ask for them (:class:`~rules.campaign.world.Modifiers`),
    answered by a :class:`ModifiersInForce` over the world as it is when made: a tick makes one
    per phase from the world the phase starts from (:func:`in_force_for`)."""

    def __init__(self, book: ModifiersInForce) -> None:
        self.book = book

    def march(self, army: Army) -> tuple[Modifier, ...]:
        return self.book.army(army)

    def observer(self, claim_id: int, tile: str) -> tuple[Modifier, ...]:
        return self.book.observer(claim_id, tile)

    def battle(self, army: Army, *, assault: bool,
               characters: Sequence[CharacterState] | None = None) -> tuple[Modifier, ...]:
        return self.book.army(army, equipment=assault, characters=characters)

    def holdfast(self, claim_id: int, *,
                 characters: Sequence[CharacterState] | None = None) -> tuple[Modifier, ...]:
        claim = self.book.claims.get(claim_id)
        return () if claim is None else self.book.holdfast(claim, characters=characters)


def in_force_for(world: World, catalogue: Catalogue, map: WorldMap, rules: RulesConfig
                 ) -> ModifiersInForce:
    """The modifiers in force in ``world``: its armies, claims, free characters, resource tile
    holders and wars, with ``catalogue`` saying what each skill, improvement, piece of
    equipment and resource benefit does."""
    return ModifiersInForce(catalogue, map, rules, armies=world.armies.values(),
                            claims=world.claims, characters=world.characters,
                            holders=world.holders, wars=world.wars)
