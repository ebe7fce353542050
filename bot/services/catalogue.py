"""The catalogue in play: which modifiers are in force for an army, a claim and a holdfast.

The catalogue in force is the one stored in the campaign (``Campaign.catalogue_json``, written
by ``maester catalogue load``) when there is one, else the config file's ``[catalogue]`` table:
either the sections themselves or ``file = "demo"`` / ``file = "path/to/catalogue.toml"``.

Who gets which modifiers (``docs/modifiers.md``, "Where effects count"):

* an **army**: the skills of the characters with it (its commander), the resource benefit of the
  tile it stands on when its claim holds that benefit, and, in assaults and sieges only, the
  siege equipment it carries;
* a **claim** (gold income and troop capacity): its finished improvements, the benefits of the
  resource tiles it holds and the skills of all its living characters;
* a **holdfast's defenders** (garrison strength, the holdfast's detection, a siege's length):
  its finished improvements and the skills of the claim's characters at home (with no army).

Storage: ``Claim.improvements_json`` is a list of ``{"name", "holdfast", "cost",
"ordered_tick", "ready_month", "done"}`` entries plus one bookkeeping entry
``{"capacity": {"infantry": N, "cavalry": N}}`` recording the troops that capacity effects have
added so far; ``Army.equipment_json`` is a list of ``{"name", "cost", "bought_tick"}`` entries.
"""

from __future__ import annotations

import functools
import json
import tomllib
from collections.abc import Collection, Iterable, Mapping, Sequence
from datetime import datetime
from importlib import resources
from pathlib import Path
from typing import Any

from sqlmodel import Session, col, select

from bot.config import Settings
from bot.db.models import (
    Army,
    ArmyState,
    Campaign,
    Character,
    Claim,
)
from bot.render.notes import skill_note
from bot.services import journal
from bot.services.army_rows import ArmyRecord
from bot.services.world import CampaignContext, NotFound, find_character
from bot.services.world_rows import load_holders
from rules.campaign import improvements, world
from rules.campaign.catalogue import (
    Catalogue,
    Entry,
    Section,
    format_catalogue,
    parse_catalogue,
)
from rules.campaign.characters import FateSettings, read_fate_settings
from rules.campaign.modifiers import Modifier
from rules.campaign.resources import tile_holder
from rules.campaign.state import CharacterState, ClaimState, HolderState
from rules.campaign.world import FREE_CHARACTERS
from rules.errors import InvalidInput

DEMO_CATALOGUE = "demo_catalogue.toml"
"""File name of the demo catalogue inside the ``bot.data`` package."""

AnyArmy = Army | ArmyRecord
"""An army as a row object (orders) or as the tick's record."""

ModifiedArmy = AnyArmy | world.Army
"""An army whose modifiers are asked for: also the rules' value (the tick's phases)."""


class CatalogueError(RuntimeError):
    """The catalogue or the character settings in force are unusable; the message names the
    key. Not a RulesError: players get an apology, not the catalogue's insides."""


# --- loading --------------------------------------------------------------------------------

def demo_catalogue_text() -> str:
    """The TOML text of the shipped demo catalogue."""
    return resources.files("bot.data").joinpath(DEMO_CATALOGUE).read_text(encoding="utf-8")


def read_catalogue_file(path: str | Path) -> dict[str, Any]:
    """The decoded TOML of a catalogue file (``"demo"``: the shipped demo catalogue).

    Raises CatalogueError for a missing or malformed file.
    """
    try:
        text = demo_catalogue_text() if str(path) == "demo" else \
            Path(path).read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise CatalogueError(f"catalogue file {path}: cannot be read ({exc.strerror})") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise CatalogueError(f"catalogue file {path}: not valid TOML: {exc}") from None


def settings_catalogue_data(settings: Settings) -> dict[str, Any]:
    """The catalogue the config file sets: its ``[catalogue]`` sections, or the file it names.

    Raises CatalogueError when both a file and sections are given, or the file is unusable.
    """
    data = dict(settings.catalogue)
    if "file" not in data:
        return data
    source = data.pop("file")
    if data:
        raise CatalogueError("catalogue: give either file = ... or the sections, not both "
                             f"(found {', '.join(sorted(data))} next to file)")
    if not isinstance(source, str) or not source.strip():
        raise CatalogueError('catalogue.file: must be "demo" or the path of a TOML file')
    return read_catalogue_file(source.strip())


def parse_or_raise(data: Mapping[str, Any] | None) -> Catalogue:
    """:func:`rules.campaign.catalogue.parse_catalogue`, with errors as CatalogueError."""
    try:
        # keys keep their order (the catalogue lists entries as the file gives them)
        return _parse_cached(json.dumps(data or {}, default=str))
    except InvalidInput as exc:
        raise CatalogueError(str(exc)) from None


@functools.lru_cache(maxsize=16)
def _parse_cached(text: str) -> Catalogue:
    return parse_catalogue(json.loads(text))


def catalogue_from_settings(settings: Settings) -> Catalogue:
    """The catalogue of the config file, validated. Raises CatalogueError naming the key."""
    return parse_or_raise(settings_catalogue_data(settings))


def catalogue_of(session: Session, ctx: CampaignContext) -> Catalogue:
    """The catalogue in force: the campaign's stored one if any, else the config file's.

    Raises CatalogueError naming the key when it is unusable.
    """
    campaign = session.get(Campaign, ctx.campaign_id)
    stored = campaign.catalogue_json if campaign is not None else {}
    if stored:
        return parse_or_raise(stored)
    return catalogue_from_settings(ctx.settings)


# --- character fate settings ----------------------------------------------------------------

def fate_settings(settings: Settings) -> FateSettings:
    """Read ``[characters]`` (:func:`rules.campaign.characters.read_fate_settings`: the keys,
    their defaults and their checks). Raises CatalogueError naming the key. The config file's
    loader refuses a malformed table up front (:func:`bot.config.load_settings`); each table is
    read once, not on every tick."""
    key = json.dumps(settings.characters, sort_keys=True, default=repr)
    found = _FATES.get(key)
    if found is None:
        try:
            found = read_fate_settings(settings.characters)
        except InvalidInput as exc:
            raise CatalogueError(str(exc)) from None
        if len(_FATES) >= 16:
            _FATES.clear()
        _FATES[key] = found
    return found


_FATES: dict[str, FateSettings] = {}
"""The fate settings read so far, by their ``[characters]`` table as JSON text."""


# --- stored lists ---------------------------------------------------------------------------

def _stored(claim: Claim | ClaimState) -> Sequence[Any]:
    """The claim's stored improvements list, from a row or the rules' value."""
    return claim.improvements if isinstance(claim, ClaimState) else claim.improvements_json


def equipment_names(army: ModifiedArmy) -> tuple[str, ...]:
    """Names of the siege equipment an army carries."""
    if isinstance(army, world.Army):
        return army.equipment
    names: list[str] = []
    for item in army.equipment_json:
        if isinstance(item, Mapping) and "name" in item:
            names.append(str(item["name"]))
        elif isinstance(item, str):
            names.append(item)
    return tuple(names)


# --- who is where, and the modifiers in force ----------------------------------------------

def living_characters(session: Session, ctx: CampaignContext, claim_id: int
                      ) -> Sequence[Character]:
    """The claim's free characters (alive or wounded, not captives), by id."""
    return session.exec(select(Character).where(
        Character.campaign_id == ctx.campaign_id, Character.claim_id == claim_id,
        col(Character.status).in_(sorted(FREE_CHARACTERS))).order_by(col(Character.id))).all()


class ModifierBook:
    """The modifiers in force, worked out in memory from rows loaded once.

    Give it the armies and claims already loaded (the tick's own objects, its armies as a live
    view, so moves made during the tick count); it loads the living characters and the resource
    holder rows with one query each, and nothing at all when the catalogue is empty. Everything
    else is computed on each call from the objects' current state.
    """

    def __init__(self, ctx: CampaignContext, catalogue: Catalogue, *,
                 armies: Iterable[ModifiedArmy], claims: Iterable[Claim | ClaimState],
                 characters: Iterable[Character], holders: Mapping[str, HolderState]) -> None:
        self.ctx = ctx
        self.catalogue = catalogue
        # a collection is kept as given: the tick's live view of its armies, as they move
        self.armies: Collection[ModifiedArmy] = armies if isinstance(armies, Collection) \
            else list(armies)
        self.claims: Mapping[Any, Claim | ClaimState] = {c.id: c for c in claims}
        self.characters = list(characters)
        self.holders = dict(holders)  # by tile (the tick keeps them current)
        # Pairs of claims at war (smaller id first); the tick sets them so that a hostile
        # newcomer cannot take a resource tile's benefit by arriving.
        self.wars: frozenset[tuple[int, int]] = frozenset()

    @classmethod
    def load(cls, session: Session, ctx: CampaignContext, *,
             armies: Iterable[ModifiedArmy] | None = None,
             claims: Iterable[Claim | ClaimState] | None = None) -> ModifierBook:
        """A book over the given rows (default: every army and claim of the campaign)."""
        catalogue = catalogue_of(session, ctx)
        if not catalogue.entries:
            # No modifiers to look up; the tick still records resource tile holders.
            if armies is None:
                return cls(ctx, catalogue, armies=(), claims=(), characters=(), holders={})
            return cls(ctx, catalogue, armies=armies, claims=claims or (), characters=(),
                       holders=load_holders(session, ctx.campaign_id))
        if armies is None:
            armies = session.exec(select(Army).where(
                Army.campaign_id == ctx.campaign_id,
                Army.state != ArmyState.GONE)).all()
        if claims is None:
            claims = session.exec(select(Claim).where(Claim.campaign_id == ctx.campaign_id)
                                  ).all()
        characters = session.exec(select(Character).where(
            Character.campaign_id == ctx.campaign_id,
            col(Character.status).in_(sorted(FREE_CHARACTERS))).order_by(col(Character.id))).all()
        return cls(ctx, catalogue, armies=armies, claims=claims, characters=characters,
                   holders=load_holders(session, ctx.campaign_id))

    # who is where
    def _alive(self) -> list[Character]:
        return [c for c in self.characters if c.status in FREE_CHARACTERS]

    def characters_with(self, army: ModifiedArmy) -> list[Character]:
        """The living characters with an army (its commander)."""
        return [c for c in self._alive() if army.id is not None and c.army_id == army.id]

    def resource_holder(self, tile_id: str) -> int | None:
        """The claim that receives a resource tile's benefit now, or None.

        The claims with standing armies on the tile occupy it; the strongest (troops by the
        battle weights; on a tie the recorded holder, else the earliest arrival) receives the
        benefit, unless the stored holder (:class:`~bot.db.models.ResourceHolder`) says it was
        ceded to
        another occupant.
        """
        row = self.holders.get(tile_id)
        return tile_holder((a for a in self.armies if a.tile == tile_id), self.ctx.rules,
                           recorded=row.claim_id if row is not None else None,
                           ceded_to=row.ceded_to if row is not None else None,
                           hostile=lambda a, b: (min(a, b), max(a, b)) in self.wars)

    def held_resource_tiles(self, claim_id: int) -> tuple[str, ...]:
        """Ids of the resource tiles whose benefit the claim receives now, sorted."""
        tiles = {a.tile for a in self.armies
                 if a.claim_id == claim_id and a.state == ArmyState.STANDING}
        return tuple(sorted(t for t in tiles if t in self.ctx.world
                            and self.ctx.world.tile(t).resource
                            and self.resource_holder(t) == claim_id))

    # entries as modifiers
    def _skills(self, characters: Iterable[Character | CharacterState]) -> list[Modifier]:
        found: list[Modifier] = []
        for character in characters:
            skills = character.skills if isinstance(character, CharacterState) \
                else character.skills_json
            for skill in skills:
                entry = self.catalogue.find(Section.SKILLS, str(skill))
                if entry is not None:
                    found.append(entry.modifier())
        return found

    def _resource(self, tile_id: str) -> Modifier | None:
        if tile_id not in self.ctx.world:
            return None
        benefit = self.ctx.world.tile(tile_id).resource_benefit
        entry = self.catalogue.find(Section.RESOURCES, benefit) if benefit else None
        return entry.modifier() if entry is not None else None

    def _improvements(self, claim: Claim | ClaimState) -> list[Modifier]:
        return list(improvements.improvement_modifiers(self.catalogue, _stored(claim)))

    # the modifiers in force
    def skills_with(self, army: ModifiedArmy) -> tuple[Modifier, ...]:
        """The skills of the characters with an army (what counts on the march)."""
        return tuple(self._skills(self.characters_with(army)))

    def army(self, army: ModifiedArmy, *, equipment: bool = False,
             characters: Iterable[CharacterState] | None = None) -> tuple[Modifier, ...]:
        """An army's modifiers: its characters' skills (``characters``: those the rules say
        are with it now; None: the book's), the benefit of the resource tile it stands on if
        its claim holds it, and (``equipment``: in an assault or a siege) its siege
        equipment."""
        if not self.catalogue.entries:
            return ()
        found = self._skills(self.characters_with(army) if characters is None else characters)
        if equipment:
            for name in equipment_names(army):
                entry = self.catalogue.find(Section.EQUIPMENT, name)
                if entry is not None:
                    found.append(entry.modifier())
        if army.state == ArmyState.STANDING:
            benefit = self._resource(army.tile)
            if benefit is not None and self.resource_holder(army.tile) == army.claim_id:
                found.append(benefit)
        return tuple(found)

    def claim(self, claim: Claim | ClaimState) -> tuple[Modifier, ...]:
        """A claim's own modifiers (its income and troop capacity come from these): finished
        improvements, the benefits of the resource tiles it holds, its characters' skills."""
        if not self.catalogue.entries:
            return ()
        return (*self._improvements(claim), *self.claim_besides_improvements(claim))

    def claim_besides_improvements(self, claim: Claim | ClaimState) -> tuple[Modifier, ...]:
        """A claim's own modifiers but its improvements: the benefits of the resource tiles
        it holds and its living characters' skills (what the monthly rules add its
        improvements to, :func:`rules.campaign.advance.advance_improvements`)."""
        if not self.catalogue.entries:
            return ()
        found: list[Modifier] = []
        for tile_id in self.held_resource_tiles(claim.id or 0):
            benefit = self._resource(tile_id)
            if benefit is not None:
                found.append(benefit)
        found.extend(self._skills(c for c in self._alive() if c.claim_id == claim.id))
        return tuple(found)

    def holdfast(self, claim: Claim | ClaimState, *,
                 characters: Iterable[CharacterState] | None = None) -> tuple[Modifier, ...]:
        """The modifiers of a holdfast's defenders: finished improvements and the skills of the
        claim's characters at home (``characters``: those the rules say are at home now;
        None: the book's). (The secret defense bonus is added where assaults are fought.)"""
        if not self.catalogue.entries:
            return ()
        home: Iterable[Character | CharacterState] = characters if characters is not None \
            else [c for c in self._alive() if c.claim_id == claim.id and c.army_id is None]
        return (*self._improvements(claim), *self._skills(home))

    def observer(self, claim_id: int, tile_id: str) -> tuple[Modifier, ...]:
        """The modifiers of whoever watches from ``tile_id`` for ``claim_id``: the holdfast's
        defenders on the claim's holdfast, else the claim's standing armies there."""
        if not self.catalogue.entries:
            return ()
        claim = self.claims.get(claim_id)
        if claim is not None and claim.holdfast == tile_id:
            return self.holdfast(claim)
        found: list[Modifier] = []
        for a in self.armies:
            if a.claim_id == claim_id and a.tile == tile_id \
                    and a.state == ArmyState.STANDING:
                found.extend(self.army(a))
        return tuple(found)


_BOOK_KEY = "modifier_book"


def tick_book(session: Session, ctx: CampaignContext, *, armies: Iterable[ModifiedArmy],
              claims: Iterable[Claim | ClaimState], tick: int) -> ModifierBook:
    """The book of one tick, made once per tick and kept in the session (the tick's rows are
    the ones it reads, so moves made during the tick count)."""
    cached = session.info.get(_BOOK_KEY)
    if isinstance(cached, tuple) and cached[0] == (ctx.campaign_id, tick):
        book = cached[1]
        assert isinstance(book, ModifierBook)
        return book
    book = ModifierBook.load(session, ctx, armies=armies, claims=claims)
    session.info[_BOOK_KEY] = ((ctx.campaign_id, tick), book)
    return book


def drop_tick_book(session: Session) -> None:
    """Forget the book :func:`tick_book` keeps in the session (at the end of a tick: it holds
    every army the tick read, which would otherwise live as long as the session object)."""
    session.info.pop(_BOOK_KEY, None)


# --- orders: marches, sieges, odds ----------------------------------------------------------

def march_modifiers(session: Session, ctx: CampaignContext, army: ModifiedArmy
                    ) -> tuple[Modifier, ...]:
    """The modifiers that count for an army on the march: its characters' skills (a resource
    benefit stays on its tile; equipment counts only in sieges and assaults)."""
    book = ModifierBook.load(session, ctx, armies=(), claims=())
    if not book.catalogue.entries:
        return ()
    return book.skills_with(army)


# --- the moderators' tools ------------------------------------------------------------------

def _skill_entry(session: Session, ctx: CampaignContext, skill: str) -> Entry:
    catalogue = catalogue_of(session, ctx)
    entry = catalogue.find(Section.SKILLS, skill)
    if entry is None:
        names = ", ".join(catalogue.names(Section.SKILLS)) or "none (the catalogue has no skills)"
        raise NotFound(f"no skill called {skill!r}; skills: {names}")
    return entry


def grant_skill(session: Session, ctx: CampaignContext, character: str, skill: str, *,
                by: str, now: datetime) -> str:
    """Give a character a catalogue skill (logged with the moderator's name; the claim gets a
    private note). Raises NotFound for an unknown character or skill, ValueError when the
    character has it already."""
    row = find_character(session, ctx, character)
    entry = _skill_entry(session, ctx, skill)
    if any(str(s).casefold() == entry.name.casefold() for s in row.skills_json):
        raise ValueError(f"{row.name} already has {entry.name}")
    row.skills_json = [*row.skills_json, entry.name]
    session.add(row)
    return _record_skill(session, ctx, row, entry, by=by, now=now, granted=True)


def remove_skill(session: Session, ctx: CampaignContext, character: str, skill: str, *,
                 by: str, now: datetime) -> str:
    """Take a skill from a character (logged; the claim gets a private note). Raises NotFound
    for an unknown character or a skill the character does not have."""
    row = find_character(session, ctx, character)
    wanted = " ".join(skill.split()).casefold()
    kept = [s for s in row.skills_json if str(s).casefold() != wanted]
    if len(kept) == len(row.skills_json):
        held = ", ".join(str(s) for s in row.skills_json) or "none"
        raise NotFound(f"{row.name} has no skill called {skill!r}; skills held: {held}")
    removed = next(str(s) for s in row.skills_json if str(s).casefold() == wanted)
    row.skills_json = kept
    session.add(row)
    entry = catalogue_of(session, ctx).find(Section.SKILLS, removed) or \
        Entry(Section.SKILLS, removed, ())
    return _record_skill(session, ctx, row, entry, by=by, now=now, granted=False)


def _record_skill(session: Session, ctx: CampaignContext, row: Character, entry: Entry, *,
                  by: str, now: datetime, granted: bool) -> str:
    tick = ctx.tick_of(now)
    summary, subject, body = skill_note(row.name, entry, granted=granted)
    journal.log_event(session, ctx.campaign_id, tick, "skill_granted" if granted
                      else "skill_removed", summary, at=now, claim_id=row.claim_id, actor=by,
                      data={"character": row.id, "skill": entry.name})
    journal.notify_claim(session, ctx.campaign_id, row.claim_id,
                         f"skill:{row.id}:{entry.name}:{'+' if granted else '-'}:"
                         f"{now.isoformat()}",
                         subject=subject, body=body, at=now, tick=tick)
    return summary


def store_catalogue(session: Session, ctx: CampaignContext, data: Mapping[str, Any], *,
                    by: str, now: datetime, source: str) -> Catalogue:
    """Validate ``data`` and make it the campaign's catalogue (logged with the moderator's
    name). Raises CatalogueError naming the bad key; nothing is stored then."""
    catalogue = parse_or_raise(data)
    campaign = session.get(Campaign, ctx.campaign_id)
    if campaign is None:
        raise NotFound("no campaign in this database")
    campaign.catalogue_json = format_catalogue(catalogue)
    session.add(campaign)
    journal.log_event(session, ctx.campaign_id, ctx.tick_of(now), "catalogue_loaded",
                      f"catalogue loaded from {source}: {summary_of(catalogue)}", at=now,
                      actor=by, data={"source": source, "entries": len(catalogue)})
    return catalogue


def summary_of(catalogue: Catalogue) -> str:
    """``6 skills, 4 improvements, 2 equipment, 4 resource benefits``."""
    words = {Section.RESOURCES: "resource benefits"}
    return ", ".join(f"{len(catalogue.section(s))} {words.get(s, s.value)}" for s in Section)
