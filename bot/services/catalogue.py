"""The catalogue in play: which modifiers are in force for an army, a claim and a holdfast.

The catalogue in force is the one stored in the campaign (``Campaign.catalogue_json``, written
by ``maester catalogue load``) when there is one, else the config file's ``[catalogue]`` table:
either the sections themselves or ``file = "demo"`` / ``file = "path/to/catalogue.toml"``.

Who gets which modifiers (``docs/modifiers.md``, "Where effects count") is decided by
:class:`rules.campaign.inforce.ModifiersInForce`; :class:`ModifierBook` loads what it reads
(the catalogue, the armies, the claims, the free characters, the resource tile holders) from
the rows once.

Storage: ``Claim.improvements_json`` is a list of ``{"name", "holdfast", "cost",
"ordered_tick", "ready_month", "done"}`` entries plus one bookkeeping entry
``{"capacity": {"infantry": N, "cavalry": N}}`` recording the troops that capacity effects have
added so far; ``Army.equipment_json`` is a list of ``{"name", "cost", "bought_tick"}`` entries.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Iterable, Mapping, Sequence
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
from bot.services import journal, snapshots
from bot.services.world import CampaignContext, NotFound, Parses, find_character
from bot.storage.world_rows import claim_state, load_characters, load_holders
from rules.campaign.catalogue import (
    Catalogue,
    Entry,
    Section,
    format_catalogue,
    parse_catalogue,
)
from rules.campaign.characters import FateSettings, read_fate_settings
from rules.campaign.inforce import ModifiersInForce, Placed
from rules.campaign.modifiers import Modifier
from rules.campaign.world import FREE_CHARACTERS, ClaimState
from rules.errors import InvalidInput

DEMO_CATALOGUE = "demo_catalogue.toml"
"""File name of the demo catalogue inside the ``bot.data`` package."""


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


def parse_or_raise(data: Mapping[str, Any] | None, parses: Parses | None = None
                   ) -> Catalogue:
    """:func:`rules.campaign.catalogue.parse_catalogue`, with errors as CatalogueError;
    parsed once per text in ``parses`` when given (the context's, :class:`Parses`: the tick
    and every order ask for the catalogue)."""
    # keys keep their order (the catalogue lists entries as the file gives them)
    text = json.dumps(data or {}, default=str)
    try:
        return _parse_text(text) if parses is None else \
            parses.keep("catalogue", text, _parse_text)
    except InvalidInput as exc:
        raise CatalogueError(str(exc)) from None


def _parse_text(text: str) -> Catalogue:
    return parse_catalogue(json.loads(text))


def catalogue_from_settings(settings: Settings, parses: Parses | None = None) -> Catalogue:
    """The catalogue of the config file, validated. Raises CatalogueError naming the key."""
    return parse_or_raise(settings_catalogue_data(settings), parses)


def catalogue_of(session: Session, ctx: CampaignContext) -> Catalogue:
    """The catalogue in force: the campaign's stored one if any, else the config file's
    (parsed once per text, in the context's :class:`Parses`).

    Raises CatalogueError naming the key when it is unusable.
    """
    campaign = session.get(Campaign, ctx.campaign_id)
    stored = campaign.catalogue_json if campaign is not None else {}
    if stored:
        return parse_or_raise(stored, ctx.parses)
    return catalogue_from_settings(ctx.settings, ctx.parses)


# --- character fate settings ----------------------------------------------------------------

def fate_settings(settings: Settings, parses: Parses | None = None) -> FateSettings:
    """Read ``[characters]`` (:func:`rules.campaign.characters.read_fate_settings`: the keys,
    their defaults and their checks). Raises CatalogueError naming the key. The config file's
    loader refuses a malformed table up front (:func:`bot.config.load_settings`); with
    ``parses`` (the context's, :class:`Parses`) each table is read once, not on every tick."""

    def read(_key: str) -> FateSettings:
        try:
            return read_fate_settings(settings.characters)
        except InvalidInput as exc:
            raise CatalogueError(str(exc)) from None

    if parses is None:
        return read("")
    return parses.keep("fates", json.dumps(settings.characters, sort_keys=True, default=repr),
                       read)


# --- who is where, and the modifiers in force ----------------------------------------------

def living_characters(session: Session, ctx: CampaignContext, claim_id: int
                      ) -> Sequence[Character]:
    """The claim's free characters (alive or wounded, not captives), by id."""
    return session.exec(select(Character).where(
        Character.campaign_id == ctx.campaign_id, Character.claim_id == claim_id,
        col(Character.status).in_(sorted(FREE_CHARACTERS))).order_by(col(Character.id))).all()


def claim_value(claim: Claim | ClaimState) -> ClaimState:
    """A claim as the rules' value (a row is converted, a value kept)."""
    return claim if isinstance(claim, ClaimState) else claim_state(claim)


class ModifierBook(ModifiersInForce):
    """The modifiers in force (:class:`rules.campaign.inforce.ModifiersInForce`, which decides
    them), over the campaign's rows loaded once (:meth:`load`)."""

    @classmethod
    def load(cls, session: Session, ctx: CampaignContext, *,
             armies: Iterable[Placed] | None = None,
             claims: Iterable[Claim | ClaimState] | None = None) -> ModifierBook:
        """A book over the given armies and claims (default: every raised army and every claim
        of the campaign), with the free characters and the resource tile holders, one query
        each; with an empty catalogue nothing is loaded but the holders (the tick records
        them), and nothing at all when no armies are given.

        The armies are kept as given (the tick's live view of its armies, as they move);
        the characters are read as the rules' values (a tick replaces them as its phases
        change them)."""
        catalogue = catalogue_of(session, ctx)
        if not catalogue.entries:
            if armies is None:
                return cls(catalogue, ctx.world, ctx.rules)
            return cls(catalogue, ctx.world, ctx.rules, armies=armies,
                       claims=_claims_by_id(claims or ()),
                       holders=load_holders(session, ctx.campaign_id))
        if armies is None:
            armies = session.exec(select(Army).where(
                Army.campaign_id == ctx.campaign_id,
                Army.state != ArmyState.GONE)).all()
        if claims is None:
            claims = session.exec(select(Claim).where(Claim.campaign_id == ctx.campaign_id)
                                  ).all()
        if session.autoflush:  # (as an ORM query would: characters changed by the ORM count)
            session.flush()
        return cls(catalogue, ctx.world, ctx.rules, armies=armies,
                   claims=_claims_by_id(claims),
                   characters=load_characters(session, ctx.campaign_id, FREE_CHARACTERS),
                   holders=load_holders(session, ctx.campaign_id))


def _claims_by_id(claims: Iterable[Claim | ClaimState]) -> dict[int, ClaimState]:
    values = (claim_value(c) for c in claims)
    return {c.id: c for c in values}


# --- orders: marches, sieges, odds ----------------------------------------------------------

def march_modifiers(session: Session, ctx: CampaignContext, army: Placed
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
    snapshots.take(session, ctx, kind="command", label=f"skills grant {character} {skill}",
                   now=now, actor=by)
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
    snapshots.take(session, ctx, kind="command", label=f"skills remove {character} {skill}",
                   now=now, actor=by)
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
    snapshots.take(session, ctx, kind="command", label=f"catalogue load {source}", now=now,
                   actor=by, heavy=True)
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
