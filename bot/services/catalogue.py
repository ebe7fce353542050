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

import dataclasses
import functools
import json
import tomllib
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
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
    PendingBattle,
    ResourceHolder,
)
from bot.services import fairplay, journal
from bot.services.army_rows import ArmyRecord, army_value
from bot.services.render import force
from bot.services.world import CampaignContext
from rules.campaign import world
from rules.campaign.battle import BattleResult, Side, Winner
from rules.campaign.catalogue import (
    Catalogue,
    Entry,
    Section,
    format_catalogue,
    parse_catalogue,
)
from rules.campaign.characters import (
    DEFAULT_DEATH_TABLE,
    DEFAULT_INJURY_TABLE,
    Fate,
    FateTable,
    TableRoll,
    settle_fate,
)
from rules.campaign.config import Terrain
from rules.campaign.modifiers import Applied, EffectKind, Modifier, Role, collect, total
from rules.campaign.resources import tile_holder
from rules.campaign.siege import SiegeLength, siege_months
from rules.campaign.state import BattleState
from rules.campaign.world import FREE_CHARACTERS, CharacterStatus
from rules.errors import InvalidInput

DEMO_CATALOGUE = "demo_catalogue.toml"
"""File name of the demo catalogue inside the ``bot.data`` package."""

CAPACITY_KEY = "capacity"
"""Key of the bookkeeping entry in ``Claim.improvements_json``."""



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

_FATE_KEYS = ("roll_fates", "death_table", "injury_table", "death_outcomes")


@dataclass(frozen=True, slots=True)
class FateSettings:
    """The ``[characters]`` settings: whether the bot rolls the fate tables, and the tables.

    ``death_outcomes`` are the death-table outcomes that kill: a character rolled onto one of
    them is marked dead and no longer fights or lends its skills.
    """

    roll: bool = False
    death_table: FateTable = DEFAULT_DEATH_TABLE
    injury_table: FateTable = DEFAULT_INJURY_TABLE
    death_outcomes: frozenset[str] = frozenset({"dies"})


def fate_settings(settings: Settings) -> FateSettings:
    """Read ``[characters]``: ``roll_fates`` (false), ``death_table`` and ``injury_table``
    (``{"1-35" = "dies", ...}``; defaults from :mod:`rules.campaign.characters`) and
    ``death_outcomes`` (``["dies"]``). Raises CatalogueError naming the key.
    """
    data = settings.characters
    for key in data:
        if key not in _FATE_KEYS:
            raise CatalogueError(f"characters.{key}: unknown setting; known: "
                                 + ", ".join(_FATE_KEYS))
    roll = data.get("roll_fates", False)
    if not isinstance(roll, bool):
        raise CatalogueError(f"characters.roll_fates: must be true or false, not {roll!r}")
    tables: dict[str, FateTable] = {}
    for key, default in (("death_table", DEFAULT_DEATH_TABLE),
                         ("injury_table", DEFAULT_INJURY_TABLE)):
        raw = data.get(key)
        if raw is None:
            tables[key] = default
            continue
        if not isinstance(raw, Mapping) or not all(isinstance(v, str) for v in raw.values()):
            raise CatalogueError(f'characters.{key}: must be a table of die ranges and outcome '
                                 f'text, e.g. {{"1-35" = "dies", "36-100" = "survives"}}')
        try:
            table = FateTable.from_mapping(f"characters.{key}", raw)
            tables[key] = dataclasses.replace(table, name=default.name)
        except InvalidInput as exc:
            raise CatalogueError(str(exc)) from None
    death = tables["death_table"]
    outcomes = {row.outcome for row in death.rows}
    raw_deadly = data.get("death_outcomes")
    if raw_deadly is None:
        deadly = frozenset({"dies"} & outcomes)
    else:
        if not isinstance(raw_deadly, list) or not all(isinstance(v, str) for v in raw_deadly):
            raise CatalogueError("characters.death_outcomes: must be a list of outcome texts")
        unknown = [v for v in raw_deadly if v not in outcomes]
        if unknown:
            raise CatalogueError(f"characters.death_outcomes: {unknown[0]!r} is not an outcome "
                                 "of the death table")
        deadly = frozenset(raw_deadly)
    return FateSettings(roll, death, tables["injury_table"], deadly)


# --- stored lists ---------------------------------------------------------------------------

def improvement_records(claim: Claim) -> list[dict[str, Any]]:
    """The claim's built and in-progress improvements (the bookkeeping entry left out)."""
    return [dict(item) for item in claim.improvements_json
            if isinstance(item, Mapping) and "name" in item]


def finished_improvements(claim: Claim) -> tuple[str, ...]:
    """Names of the claim's finished improvements."""
    return tuple(str(r["name"]) for r in improvement_records(claim) if r.get("done"))


def capacity_granted(claim: Claim) -> tuple[int, int]:
    """(infantry, cavalry) that capacity effects have added to the claim's troops so far."""
    for item in claim.improvements_json:
        if isinstance(item, Mapping) and CAPACITY_KEY in item:
            granted = item[CAPACITY_KEY]
            return int(granted.get("infantry", 0)), int(granted.get("cavalry", 0))
    return 0, 0


def _store(claim: Claim, records: Sequence[Mapping[str, Any]], granted: tuple[int, int]) -> None:
    items: list[Any] = [dict(r) for r in records]
    if granted != (0, 0):
        items.append({CAPACITY_KEY: {"infantry": granted[0], "cavalry": granted[1]}})
    claim.improvements_json = items


def set_improvement_records(claim: Claim, records: Sequence[Mapping[str, Any]]) -> None:
    """Replace the claim's improvement list, keeping the capacity bookkeeping."""
    _store(claim, records, capacity_granted(claim))


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
                 armies: Iterable[ModifiedArmy], claims: Iterable[Claim],
                 characters: Iterable[Character], holders: Iterable[ResourceHolder]) -> None:
        self.ctx = ctx
        self.catalogue = catalogue
        # a collection is kept as given: the tick's live view of its armies, as they move
        self.armies: Collection[ModifiedArmy] = armies if isinstance(armies, Collection) \
            else list(armies)
        self.claims = {c.id: c for c in claims}
        self.characters = list(characters)
        self.holders = {h.tile: h for h in holders}
        # Pairs of claims at war (smaller id first); the tick sets them so that a hostile
        # newcomer cannot take a resource tile's benefit by arriving.
        self.wars: frozenset[tuple[int, int]] = frozenset()

    @classmethod
    def load(cls, session: Session, ctx: CampaignContext, *,
             armies: Iterable[ModifiedArmy] | None = None,
             claims: Iterable[Claim] | None = None) -> ModifierBook:
        """A book over the given rows (default: every army and claim of the campaign)."""
        catalogue = catalogue_of(session, ctx)
        if not catalogue.entries:
            # No modifiers to look up; the tick still records resource tile holders.
            if armies is None:
                return cls(ctx, catalogue, armies=(), claims=(), characters=(), holders=())
            holders = session.exec(select(ResourceHolder).where(
                ResourceHolder.campaign_id == ctx.campaign_id)).all()
            return cls(ctx, catalogue, armies=armies, claims=claims or (), characters=(),
                       holders=holders)
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
        holders = session.exec(select(ResourceHolder).where(
            ResourceHolder.campaign_id == ctx.campaign_id)).all()
        return cls(ctx, catalogue, armies=armies, claims=claims, characters=characters,
                   holders=holders)

    # who is where
    def _alive(self) -> list[Character]:
        return [c for c in self.characters if c.status in FREE_CHARACTERS]

    def characters_with(self, army: ModifiedArmy) -> list[Character]:
        """The living characters with an army (its commander)."""
        return [c for c in self._alive() if army.id is not None and c.army_id == army.id]

    def home_characters(self, claim_id: int) -> tuple[str, ...]:
        """Names of the claim's living characters with no army: they are in the holdfast."""
        return tuple(c.name for c in self._alive()
                     if c.claim_id == claim_id and c.army_id is None)

    def resource_holder(self, tile_id: str) -> int | None:
        """The claim that receives a resource tile's benefit now, or None.

        The claims with standing armies on the tile occupy it; the strongest (troops by the
        battle weights; on a tie the recorded holder, else the earliest arrival) receives the
        benefit, unless the :class:`~bot.db.models.ResourceHolder` row says it was ceded to
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
    def _skills(self, characters: Iterable[Character]) -> list[Modifier]:
        found: list[Modifier] = []
        for character in characters:
            for skill in character.skills_json:
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

    def _improvements(self, claim: Claim) -> list[Modifier]:
        found: list[Modifier] = []
        for name in finished_improvements(claim):
            entry = self.catalogue.find(Section.IMPROVEMENTS, name)
            if entry is not None:
                found.append(entry.modifier())
        return found

    # the modifiers in force
    def skills_with(self, army: AnyArmy) -> tuple[Modifier, ...]:
        """The skills of the characters with an army (what counts on the march)."""
        return tuple(self._skills(self.characters_with(army)))

    def army(self, army: ModifiedArmy, *, equipment: bool = False) -> tuple[Modifier, ...]:
        """An army's modifiers: its characters' skills, the benefit of the resource tile it
        stands on if its claim holds it, and (``equipment``: in an assault or a siege) its siege
        equipment."""
        if not self.catalogue.entries:
            return ()
        found = self._skills(self.characters_with(army))
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

    def claim(self, claim: Claim) -> tuple[Modifier, ...]:
        """A claim's own modifiers (its income and troop capacity come from these): finished
        improvements, the benefits of the resource tiles it holds, its characters' skills."""
        if not self.catalogue.entries:
            return ()
        found = self._improvements(claim)
        for tile_id in self.held_resource_tiles(claim.id or 0):
            benefit = self._resource(tile_id)
            if benefit is not None:
                found.append(benefit)
        found.extend(self._skills(c for c in self._alive() if c.claim_id == claim.id))
        return tuple(found)

    def holdfast(self, claim: Claim) -> tuple[Modifier, ...]:
        """The modifiers of a holdfast's defenders: finished improvements and the skills of the
        claim's characters at home. (The secret defense bonus is added where assaults are
        fought.)"""
        if not self.catalogue.entries:
            return ()
        home = [c for c in self._alive() if c.claim_id == claim.id and c.army_id is None]
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
              claims: Iterable[Claim], tick: int) -> ModifierBook:
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


# --- the monthly job ------------------------------------------------------------------------

def month_for_claim(session: Session, ctx: CampaignContext, book: ModifierBook, claim: Claim,
                    month: int, *, tick: int, at: datetime) -> list[str]:
    """Finish the improvements due by in-game month ``month`` and bring the claim's troops at
    home in line with its capacity effects; returns a summary line per change.

    Runs at every month boundary before upkeep (so a finished improvement's income counts that
    month). A finished improvement gets a private note to the claim. Capacity effects add troops
    at home when they start and take them away (as far as troops are at home) when they stop.
    """
    catalogue = book.catalogue
    records = improvement_records(claim)
    summaries: list[str] = []
    changed = False
    for record in records:
        if record.get("done") or int(record.get("ready_month", 0)) > month:
            continue
        record["done"] = True
        changed = True
        name = str(record["name"])
        entry = catalogue.find(Section.IMPROVEMENTS, name)
        what = entry.describe_effects() if entry is not None else "no effect in this catalogue"
        where = ctx.world.tile(str(record.get("holdfast", claim.holdfast))).label
        summary = f"{claim.name} finishes {name} at {where}"
        journal.log_event(session, ctx.campaign_id, tick, "improvement_done", summary, at=at,
                          claim_id=claim.id, data={"name": name, "month": month})
        journal.notify_claim(session, ctx.campaign_id, claim.id or 0,
                             f"improvement:{claim.id}:{name}:{month}",
                             subject=f"{name} is finished at {where}",
                             body=f"The {name} of {where} is finished: {what}.", at=at, tick=tick)
        summaries.append(summary)
    granted = capacity_granted(claim)
    if changed:
        _store(claim, records, granted)
    mods = book.claim(claim)
    infantry = collect(mods, EffectKind.INFANTRY_CAPACITY, Role.BOTH)
    cavalry = collect(mods, EffectKind.CAVALRY_CAPACITY, Role.BOTH)
    wanted = (int(total(infantry)), int(total(cavalry)))
    if wanted != granted:
        add_inf, add_cav = wanted[0] - granted[0], wanted[1] - granted[1]
        claim.infantry = max(0, claim.infantry + add_inf)
        claim.cavalry = max(0, claim.cavalry + add_cav)
        claim.scattered_infantry = min(claim.scattered_infantry, claim.infantry)
        claim.scattered_cavalry = min(claim.scattered_cavalry, claim.cavalry)
        _store(claim, records, wanted)
        reasons = ", ".join(labels_for((*infantry, *cavalry), mods)) or "no capacity effects"
        change = ", ".join(f"{n:+d} {kind}" for n, kind in ((add_inf, "infantry"),
                                                           (add_cav, "cavalry")) if n)
        summary = f"{claim.name} troops at home {change}"
        journal.log_event(session, ctx.campaign_id, tick, "capacity", summary, at=at,
                          claim_id=claim.id, data={"infantry": add_inf, "cavalry": add_cav,
                                                   "capacity": list(wanted)})
        journal.notify_claim(session, ctx.campaign_id, claim.id or 0,
                             f"capacity:{claim.id}:{month}", subject="Troops at home",
                             body=f"Your troops at home change by {change} ({reasons}). At home "
                                  f"now: {claim.infantry} infantry, {claim.cavalry} cavalry.",
                             at=at, tick=tick)
        summaries.append(summary)
    session.add(claim)
    return summaries


# --- after a battle -------------------------------------------------------------------------

FateKey = tuple[str, str]
"""(``"attacker"`` or ``"defender"``, character name)."""


def after_battle(session: Session, ctx: CampaignContext, battle: PendingBattle | BattleState,
                 result: BattleResult, attacker: AnyArmy | None, defender: AnyArmy | None, *,
                 tick: int, at: datetime, dice_lines: list[str] | None = None
                 ) -> dict[FateKey, TableRoll] | None:
    """What follows a battle for the characters and the secrets in it.

    The printed dice line of every fate-table roll is appended to ``dice_lines`` (for the post).

    Each army whose strength included a hidden modifier gets a private note listing every
    multiplier (the public post leaves them out). Characters called to a death or injury roll:
    with ``roll_fates`` set the bot rolls the table (dice key ``fate:<battle id>:<name>``),
    records the outcome, marks a character dead on a death outcome, and returns the rolls for
    the battle post; otherwise it returns None and the post lists who must roll.
    """
    for which, army in ((Winner.ATTACKER, attacker), (Winner.DEFENDER, defender)):
        side = result.side(which)
        if army is not None and side.strength.has_hidden:
            journal.notify_claim(
                session, ctx.campaign_id, army.claim_id, f"battle:{battle.id}:secret:{which}",
                subject=f"Battle {battle.id}: your strength in full",
                body=(f"{force(army, capital=True)} fought with strength "
                      f"{side.strength.value} (base {side.strength.base}: "
                      + ", ".join(side.strength.all_labels())
                      + "). The public post leaves your secret modifiers out."),
                at=at, tick=tick)
    settings = fate_settings(ctx.settings)
    if not settings.roll:
        return None
    settled: dict[FateKey, TableRoll] = {}
    claims = {Winner.ATTACKER: battle.attacker_claim, Winner.DEFENDER: battle.defender_claim}
    for which in (Winner.ATTACKER, Winner.DEFENDER):
        for fate in result.side(which).fates:
            if fate.fate not in (Fate.DEATH_ROLL, Fate.INJURY_ROLL):
                continue
            dice, event = fairplay.roll(ctx, tick, f"fate:{battle.id or 0}:{fate.name}",
                                        armies=(attacker, defender))
            rolled = settle_fate(fate, dice=dice, death_table=settings.death_table,
                                 injury_table=settings.injury_table)
            if rolled is None:
                continue
            settled[(which.value, fate.name)] = rolled
            dies = fate.fate is Fate.DEATH_ROLL and rolled.outcome in settings.death_outcomes
            if dies:
                _mark_dead(session, ctx, claims[which], fate.name,
                           (a for a in (attacker, defender) if a is not None))
            journal.log_event(session, ctx.campaign_id, tick, "character_fate",
                              f"{fate.name} rolls on the {rolled.table} table: {rolled.outcome}",
                              at=at, claim_id=claims[which], public=True,
                              data={"battle": battle.id, "character": fate.name,
                                    "table": rolled.table, "roll": rolled.roll,
                                    "outcome": rolled.outcome, "dies": dies,
                                    fairplay.DICE_KEY: fairplay.line_of(event, dice)},
                              rolls=dice.rolls)
            if dice_lines is not None:
                dice_lines.append(fairplay.line_of(event, dice))
    return settled


def _mark_dead(session: Session, ctx: CampaignContext, claim_id: int, name: str,
               fought: Iterable[AnyArmy] = ()) -> None:
    """Mark a character dead; the army it commanded loses its commander (the tick's own
    record of it when it is one of the armies that fought, so the tick writes it back)."""
    for character in living_characters(session, ctx, claim_id):
        if character.name != name:
            continue
        army: AnyArmy | None = next((a for a in fought if a.id == character.army_id), None)
        if army is None and character.army_id is not None:
            army = session.get(Army, character.army_id)
        if army is not None and army.commander_id == character.id:
            army.commander_id = None
            if isinstance(army, Army):
                session.add(army)
        character.status = CharacterStatus.DEAD
        character.army_id = None
        session.add(character)
        return


def entry_cost_text(entry: Entry) -> str:
    """``150 gold`` (or ``free``) for receipts."""
    return "free" if entry.cost == 0 else f"{_plain(entry.cost)} gold"


def _plain(value: Decimal) -> str:
    return format(value.normalize(), "f") if value == value.to_integral_value() \
        else format(value, "f")


# --- orders: marches, sieges, odds ----------------------------------------------------------

def march_modifiers(session: Session, ctx: CampaignContext, army: AnyArmy) -> tuple[Modifier, ...]:
    """The modifiers that count for an army on the march: its characters' skills (a resource
    benefit stays on its tile; equipment counts only in sieges and assaults)."""
    book = ModifierBook.load(session, ctx, armies=(army,), claims=())
    if not book.catalogue.entries:
        return ()
    return book.skills_with(army)


@dataclass(frozen=True, slots=True)
class SiegeTerms:
    """A siege's length with the modifiers that changed it, as each side may read them."""

    length: SiegeLength
    besieger_note: str
    defender_note: str


def siege_note(length: SiegeLength, own: Iterable[Modifier]) -> str:
    """A siege's chart and the modifiers one side may read: `` (chart 12 months; ...)``."""
    labels = labels_for(length.applied, own)
    if not labels:
        return ""
    return f" (chart {length.base} months; " + ", ".join(labels) + ")"


def siege_terms(session: Session, ctx: CampaignContext, besieger: AnyArmy, defender: Claim,
                garrison: int) -> SiegeTerms:
    """How long a siege of ``defender``'s holdfast by ``besieger`` takes: the chart, then the
    besieger's effects (skills, equipment) and the defenders' (improvements, skills at home).

    Each side's note names the public modifiers and its own secret ones ("-1 month
    Trebuchets"); the other side's secret ones are never named.
    """
    book = ModifierBook.load(session, ctx)
    attack = book.army(besieger, equipment=True)
    defense = book.holdfast(defender)
    length = siege_months(garrison, ctx.rules, besieger_modifiers=attack,
                          defender_modifiers=defense)
    return SiegeTerms(length, siege_note(length, attack), siege_note(length, defense))


def battle_side_of(book: ModifierBook, army: AnyArmy, role: Winner, *, tick: int,
                   began: int | None = None, assault: bool = False,
                   characters: Sequence[str] = (),
                   secrets_of: int | None = None) -> Side:
    """A stored army as a battle at tick ``tick`` counts it in ``role``: the tick's battles and
    the ``odds`` order both come here, and :func:`rules.campaign.world.army_side` decides.

    ``began``: the tick the battle began (see :func:`rules.campaign.world.is_stationary`).
    ``assault``: its siege equipment counts. ``secrets_of``: the claim asking (odds); another
    claim's hidden modifiers are then left out, so odds never reveal them.
    """
    mods = book.army(army, equipment=assault)
    if secrets_of is not None and army.claim_id != secrets_of:
        mods = tuple(m for m in mods if not m.hidden)
    terrain = book.ctx.world.tile(army.tile).terrain if army.tile in book.ctx.world \
        else Terrain.FIELD
    return world.army_side(army_value(army), role, tick=tick, began=began, terrain=terrain,
                           modifiers=mods, characters=characters)


# --- the moderators' tools ------------------------------------------------------------------

class NotFound(LookupError):
    """A moderator named something that does not exist; the message lists what does."""


def find_character(session: Session, ctx: CampaignContext, name: str) -> Character:
    """A character of the campaign by name (any case). Raises NotFound listing them."""
    rows = session.exec(select(Character).where(Character.campaign_id == ctx.campaign_id)
                        .order_by(col(Character.id))).all()
    wanted = " ".join(name.split()).casefold()
    for row in rows:
        if row.name.casefold() == wanted:
            return row
    names = ", ".join(r.name for r in rows) or "none"
    raise NotFound(f"no character called {name!r}; characters: {names}")


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
    verb = "gains" if granted else "loses"
    summary = f"{row.name} {verb} the skill {entry.name}"
    journal.log_event(session, ctx.campaign_id, tick, "skill_granted" if granted
                      else "skill_removed", summary, at=now, claim_id=row.claim_id, actor=by,
                      data={"character": row.id, "skill": entry.name})
    effects = f": {entry.describe_effects()}" if entry.effects else ""
    journal.notify_claim(session, ctx.campaign_id, row.claim_id,
                         f"skill:{row.id}:{entry.name}:{'+' if granted else '-'}:"
                         f"{now.isoformat()}",
                         subject=f"{row.name} {verb} a skill", body=summary + effects + ".",
                         at=now, tick=tick)
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
