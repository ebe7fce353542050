"""The claims, sieges, characters, resource tile holders and relations as the rules' values:
read with one Core query per table, and the difference between two worlds written back with
bulk Core statements.

The tick (:mod:`bot.services.tick`) and the orders (:mod:`bot.services.order_world`) both load
these parts of a :class:`~rules.campaign.world.World` here and both save what the rules changed
with :func:`save_world`: for each table one ``UPDATE ... WHERE id = ?`` executemany per set of
changed columns (only the rows that changed, only the columns that changed in them) and one
``INSERT`` for the new rows. The number of statements does not grow with the number of rows.
(The armies and the battles have their own modules: :mod:`bot.storage.army_rows`,
:mod:`bot.storage.battle_rows`.)

Other service code may still hold ORM objects of the same rows in the same session (the
month's improvement job, a fate roll's death, a moderator's command). :func:`save_world`
therefore flushes the session before it writes (what the ORM changed goes first and is not
written again later) and, after writing, sets the written values as the committed state of
any ORM object of those rows the session holds (so an ORM read in the same transaction sees
them and a later flush does not write an older value back).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from decimal import Decimal
from fractions import Fraction
from types import SimpleNamespace
from typing import Any

from sqlalchemy import (
    JSON,
    Connection,
    Select,
    String,
    Table,
    Text,
    TypeDecorator,
    bindparam,
    cast,
    func,
    insert,
    inspect,
    select,
    text,
    type_coerce,
    update,
)
from sqlalchemy.engine import Dialect
from sqlalchemy.orm.attributes import set_committed_value
from sqlmodel import Session

from bot.db.models import Character, Claim, Relation, ResourceHolder, Siege
from bot.errors import DamagedValue
from rules.campaign import calendar
from rules.campaign.upkeep import SlainLedger, SlainLoss
from rules.campaign.world import (
    CharacterState,
    CharacterStatus,
    ClaimState,
    HolderState,
    RelationStatus,
    SiegeState,
    SiegeStatus,
    World,
    war_key,
)

CLAIM_TABLE: Table = Claim.__table__  # type: ignore[attr-defined]
SIEGE_TABLE: Table = Siege.__table__  # type: ignore[attr-defined]
CHARACTER_TABLE: Table = Character.__table__  # type: ignore[attr-defined]
HOLDER_TABLE: Table = ResourceHolder.__table__  # type: ignore[attr-defined]
RELATION_TABLE: Table = Relation.__table__  # type: ignore[attr-defined]


# --- the regeneration ledger as stored (Claim.slain_json) ----------------------------------

def ledger_from_json(data: Sequence[Any]) -> SlainLedger:
    """The stored regeneration ledger as the rules' value."""
    losses = []
    last = None
    for item in data:
        if "last_accrued" in item:
            y, m = item["last_accrued"]
            last = calendar.GameDate(y, m)
            continue
        losses.append(SlainLoss(
            calendar.GameDate(*item["month"]), item["infantry"], item["cavalry"],
            item["returned_infantry"], item["returned_cavalry"],
            Fraction(item["carry_infantry"]), Fraction(item["carry_cavalry"])))
    return SlainLedger(tuple(losses), last)


def ledger_to_json(ledger: SlainLedger) -> list[Any]:
    """The rules' regeneration ledger as it is stored."""
    out: list[Any] = [
        {"month": [loss.month.year, loss.month.month], "infantry": loss.infantry,
         "cavalry": loss.cavalry, "returned_infantry": loss.returned_infantry,
         "returned_cavalry": loss.returned_cavalry, "carry_infantry": str(loss.carry_infantry),
         "carry_cavalry": str(loss.carry_cavalry)}
        for loss in ledger.losses
    ]
    if ledger.last_accrued is not None:
        out.append({"last_accrued": [ledger.last_accrued.year, ledger.last_accrued.month]})
    return out


# --- one stored row as the rules' value ----------------------------------------------------
# Each takes an ORM object or a Core row (the same attribute names).

def claim_state(claim: Any) -> ClaimState:
    """A claim row as the rules' value. Raises DamagedValue for a gold that is not a finite
    number (only a hand edit of the database stores one)."""
    if not isinstance(claim.gold, Decimal) or not claim.gold.is_finite():
        raise DamagedValue(
            f"claim {claim.id} ({claim.name}) has gold {str(claim.gold)!r} in the database, "
            f"which is not a number; nothing was applied. Set it with `maester adjust "
            f"\"{claim.name}\" --gold AMOUNT` (a gold that is not a number counts as 0 there)")
    return ClaimState(
        id=claim.id or 0, name=claim.name, holdfast=claim.holdfast, gold=claim.gold,
        infantry=claim.infantry, cavalry=claim.cavalry, ships=claim.ships,
        scattered_infantry=claim.scattered_infantry, scattered_cavalry=claim.scattered_cavalry,
        scattered_until=claim.scattered_until, slain=ledger_from_json(claim.slain_json),
        improvements=tuple(claim.improvements_json))


def siege_state(siege: Any) -> SiegeState:
    """A siege row as the rules' value."""
    return SiegeState(
        id=siege.id or 0, army_id=siege.army_id, besieger_claim=siege.besieger_claim,
        defender_claim=siege.defender_claim, holdfast=siege.holdfast,
        started_tick=siege.started_tick, months_elapsed=siege.months_elapsed,
        months_required=siege.months_required, paused=siege.paused, status=siege.status)


def character_state(character: Any) -> CharacterState:
    """A character row as the rules' value."""
    return CharacterState(character.id or 0, character.claim_id, character.name,
                          tuple(str(s) for s in character.skills_json), character.army_id,
                          character.status)


# --- the stored columns of a value (what save_world compares and writes) --------------------

def _claim_columns(c: ClaimState) -> dict[str, Any]:
    return {"name": c.name, "holdfast": c.holdfast, "gold": c.gold, "infantry": c.infantry,
            "cavalry": c.cavalry, "ships": c.ships, "scattered_infantry": c.scattered_infantry,
            "scattered_cavalry": c.scattered_cavalry, "scattered_until": c.scattered_until,
            "slain_json": c.slain, "improvements_json": c.improvements}


_CLAIM_STORED: Mapping[str, Callable[[Any], Any]] = {
    "slain_json": ledger_to_json, "improvements_json": lambda items: [dict(i) for i in items]}
"""Columns whose value is stored in another form than the rules hold it."""


def _siege_columns(s: SiegeState) -> dict[str, Any]:
    return {"army_id": s.army_id, "besieger_claim": s.besieger_claim,
            "defender_claim": s.defender_claim, "holdfast": s.holdfast,
            "started_tick": s.started_tick, "months_elapsed": s.months_elapsed,
            "months_required": s.months_required, "paused": s.paused, "status": s.status}


def _character_columns(c: CharacterState) -> dict[str, Any]:
    return {"claim_id": c.claim_id, "name": c.name, "skills_json": c.skills,
            "army_id": c.army_id, "status": c.status}


_CHARACTER_STORED: Mapping[str, Callable[[Any], Any]] = {"skills_json": list}


# --- loading ---------------------------------------------------------------------------------

_CLAIM_READ = ("id", "name", "holdfast", "gold", "infantry", "cavalry", "ships",
               "scattered_until", "scattered_infantry", "scattered_cavalry", "slain_json",
               "improvements_json")
"""The claim columns :func:`claim_state` reads."""


@functools.cache
def _claims_query() -> Select[Any]:
    """The campaign ``:cid``'s claims by id, each column as stored (JSON as its text, our
    types' text unconverted): rows that compare equal hold equal values."""
    t = CLAIM_TABLE
    columns = [cast(t.c[n], Text) if isinstance(t.c[n].type, JSON)
               else type_coerce(t.c[n], String()) if isinstance(t.c[n].type, TypeDecorator)
               else t.c[n] for n in _CLAIM_READ]
    return select(*columns).where(t.c.campaign_id == bindparam("cid")).order_by(t.c.id)


_KEPT_CLAIMS: dict[tuple[Any, ...], ClaimState] = {}
"""The claims the last :func:`load_claims` read: each value by its row as stored."""


def _stored_claim(row: Sequence[Any], dialect: Dialect) -> ClaimState:
    """A claim row as stored (:func:`_claims_query`) as the rules' value: each column
    converted as its type converts it (JSON decoded from its text), then
    :func:`claim_state`."""
    values = {}
    for name, raw in zip(_CLAIM_READ, row, strict=True):
        kind = CLAIM_TABLE.c[name].type
        if isinstance(kind, JSON):
            values[name] = None if raw is None else json.loads(raw)
            continue
        convert = kind.result_processor(dialect, None)
        values[name] = raw if convert is None else convert(raw)
    return claim_state(SimpleNamespace(**values))


def load_claims(session: Session, campaign_id: int) -> dict[int, ClaimState]:
    """The campaign's claims by id, ascending (one query). A claim read exactly as the last
    call read it gets the value made then (a value is a pure function of its stored row and
    is immutable), so an unchanged claim costs a comparison, not a conversion."""
    global _KEPT_CLAIMS
    connection = session.connection()
    rows = connection.execute(_claims_query(), {"cid": campaign_id}).all()
    kept, now = _KEPT_CLAIMS, {}
    for row in rows:
        stored = tuple(row)
        value = kept.get(stored)
        now[stored] = value if value is not None else _stored_claim(stored, connection.dialect)
    _KEPT_CLAIMS = now
    return {value.id: value for value in now.values()}


def load_sieges(session: Session, campaign_id: int,
                statuses: Collection[SiegeStatus] = (SiegeStatus.ACTIVE,)
                ) -> tuple[SiegeState, ...]:
    """The campaign's sieges in ``statuses``, by id (one query)."""
    rows = session.connection().execute(_sieges_query(tuple(sorted(statuses))),
                                        {"cid": campaign_id}).all()
    return tuple(siege_state(row) for row in rows)


@functools.cache
def _sieges_query(statuses: tuple[SiegeStatus, ...]) -> Select[Any]:
    """The campaign ``:cid``'s sieges in ``statuses`` by id (each query is built once: a
    statement built again costs more than running it)."""
    t = SIEGE_TABLE
    return select(t).where(t.c.campaign_id == bindparam("cid"),
                           t.c.status.in_(statuses)).order_by(t.c.id)


def load_characters(session: Session, campaign_id: int,
                    statuses: Collection[CharacterStatus] | None = None
                    ) -> dict[int, CharacterState]:
    """The campaign's characters in ``statuses`` (None: of every status) by id (one query)."""
    query = _characters_query(None if statuses is None else tuple(sorted(statuses)))
    rows = session.connection().execute(query, {"cid": campaign_id}).all()
    return {row.id: character_state(row) for row in rows}


@functools.cache
def _characters_query(statuses: tuple[CharacterStatus, ...] | None) -> Select[Any]:
    """The campaign ``:cid``'s characters in ``statuses`` (None: all) by id."""
    t = CHARACTER_TABLE
    query = select(t).where(t.c.campaign_id == bindparam("cid"))
    if statuses is not None:
        query = query.where(t.c.status.in_(statuses))
    return query.order_by(t.c.id)


def load_holders(session: Session, campaign_id: int) -> dict[str, HolderState]:
    """Who holds each resource tile's benefit, by tile (one query)."""
    rows = session.connection().execute(_holders_query(), {"cid": campaign_id}).all()
    return {row.tile: HolderState(row.tile, row.claim_id, row.ceded_to) for row in rows}


@functools.cache
def _holders_query() -> Select[Any]:
    t = HOLDER_TABLE
    return select(t.c.tile, t.c.claim_id, t.c.ceded_to).where(
        t.c.campaign_id == bindparam("cid")).order_by(t.c.id)


def load_relations(session: Session, campaign_id: int
                   ) -> tuple[frozenset[tuple[int, int]], frozenset[tuple[int, int]]]:
    """The pairs of claims at war and the pairs allied (:func:`war_key`), one query."""
    rows = session.connection().execute(_relations_query(), {"cid": campaign_id}).all()
    wars = frozenset(war_key(a, b) for a, b, status in rows if status is RelationStatus.WAR)
    allies = frozenset(war_key(a, b) for a, b, status in rows
                       if status is RelationStatus.ALLIED)
    return wars, allies


@functools.cache
def _relations_query() -> Select[Any]:
    t = RELATION_TABLE
    return select(t.c.claim_a, t.c.claim_b, t.c.status).where(
        t.c.campaign_id == bindparam("cid"),
        t.c.status.in_((RelationStatus.WAR, RelationStatus.ALLIED)))


# --- saving ----------------------------------------------------------------------------------

@dataclass(slots=True)
class Saved:
    """What :func:`save_world` wrote: rows changed and added per table, the ids the new sieges
    got (by the id the rules gave them, 0 or below), and the statements it ran."""

    changed: dict[str, int] = field(default_factory=dict)
    added: dict[str, int] = field(default_factory=dict)
    siege_ids: dict[int, int] = field(default_factory=dict)
    statements: int = 0


def save_world(session: Session, campaign_id: int, before: World, after: World
               ) -> tuple[World, Saved]:
    """Write what differs from ``before`` in ``after``'s claims, sieges, characters, resource
    tile holders and wars and alliances; return ``after`` with the new sieges' stored ids, and
    what was written.

    Only the rows that changed, only their changed columns: one executemany per table and set
    of changed columns, one ``INSERT`` per table for new rows (a siege with an id of 0 or
    below, a holder of a tile ``before`` had none for, a pair of claims with no relation row).
    A part that is the same object in both worlds is not even compared. Nothing is run when
    nothing changed.
    """
    saved = Saved()
    claims = _diff(before.claims, after.claims, _claim_columns) \
        if after.claims is not before.claims else []
    sieges_before = {s.id: s for s in before.sieges}
    sieges = _diff(sieges_before, {s.id: s for s in after.sieges if s.id > 0}, _siege_columns) \
        if after.sieges is not before.sieges else []
    new_sieges = [s for s in after.sieges if s.id <= 0 and s.id not in sieges_before] \
        if after.sieges is not before.sieges else []
    characters = _diff(before.characters, after.characters, _character_columns) \
        if after.characters is not before.characters else []
    holders = [h for tile, h in after.holders.items() if before.holders.get(tile) != h] \
        if after.holders is not before.holders else []
    relations = _relation_changes(before, after)
    if not (claims or sieges or new_sieges or characters or holders or relations):
        return after, saved
    session.flush()  # what the ORM changed is written first, never after (and over) this
    connection = session.connection()

    def run(statement: Any, params: Sequence[Mapping[str, Any]] | None = None) -> Any:
        saved.statements += 1
        return connection.execute(statement, params) if params is not None \
            else connection.execute(statement)

    synced: dict[tuple[type, Any], dict[str, Any]] = {}
    for table, model, rows, stored in (
            (CLAIM_TABLE, Claim, claims, _CLAIM_STORED), (SIEGE_TABLE, Siege, sieges, {}),
            (CHARACTER_TABLE, Character, characters, _CHARACTER_STORED)):
        written = _update_by_id(run, table, rows, stored)
        for row_id, values in written.items():
            synced[(model, row_id)] = values
        if rows:
            saved.changed[table.name] = len(rows)
    if new_sieges:
        t = SIEGE_TABLE
        saved.statements += 1
        ids = insert_returning_ids(connection, t, [
            {"campaign_id": campaign_id, **_siege_columns(s)} for s in new_sieges])
        saved.siege_ids = {s.id: i for s, i in zip(new_sieges, ids, strict=True)}
        saved.added[t.name] = len(ids)
        after = replace(after, sieges=tuple(
            replace(s, id=saved.siege_ids[s.id]) if s.id in saved.siege_ids else s
            for s in after.sieges))
    if holders:
        _save_holders(run, campaign_id, before, holders, saved, synced)
    if relations:
        _save_relations(run, campaign_id, relations, saved, synced)
    sync_session(session, campaign_id, synced)
    return after, saved


def insert_returning_ids(connection: Connection, table: Table,
                         rows: Sequence[Mapping[str, Any]]) -> list[int]:
    """Insert ``rows`` (one statement, however many) and return their ids in the same order.

    The ids are matched to the rows by the values returned with them, not by the order of the
    returned rows (which SQL does not promise; asking SQLAlchemy to sort them makes it insert
    row by row on SQLite). Rows with the same values are interchangeable, so any of their ids
    will do."""
    if not rows:
        return []
    names = list(rows[0])
    result = connection.execute(insert(table).returning(table.c.id, *(table.c[n] for n in names)),
                                list(rows))
    free: dict[tuple[Any, ...], list[int]] = {}
    for row in result:
        free.setdefault(_key(row[1:]), []).append(int(row[0]))
    return [free[_key([r[n] for n in names])].pop() for r in rows]


def _key(values: Iterable[Any]) -> tuple[Any, ...]:
    """Values to match an inserted row by (JSON lists and mappings as their text)."""
    return tuple(json.dumps(v, sort_keys=True) if isinstance(v, list | dict) else v
                 for v in values)


def _diff(before: Mapping[Any, Any], after: Mapping[Any, Any],
          columns: Callable[[Any], dict[str, Any]]) -> list[tuple[Any, dict[str, Any]]]:
    """(id, changed columns) of the values in both mappings that differ (by their stored
    columns, so fields a value leaves out of its equality are compared too)."""
    found: list[tuple[Any, dict[str, Any]]] = []
    for key, new in after.items():
        old = before.get(key)
        if old is None or old is new:
            continue
        was, now = columns(old), columns(new)
        changes = {name: value for name, value in now.items() if was[name] != value}
        if changes:
            found.append((key, changes))
    return found


def _update_by_id(run: Callable[..., Any], table: Table,
                  rows: Sequence[tuple[Any, dict[str, Any]]],
                  stored: Mapping[str, Callable[[Any], Any]]) -> dict[Any, dict[str, Any]]:
    """One executemany ``UPDATE table SET <columns> WHERE id = ?`` per set of changed columns;
    returns the stored values written, by id."""
    groups: dict[tuple[str, ...], list[dict[str, Any]]] = {}
    written: dict[Any, dict[str, Any]] = {}
    for row_id, changes in rows:
        values = {name: stored[name](value) if name in stored else value
                  for name, value in changes.items()}
        written[row_id] = values
        names = tuple(sorted(values))
        groups.setdefault(names, []).append(
            {"row_id": row_id, **{f"new_{name}": values[name] for name in names}})
    for names, params in groups.items():
        run(update(table).where(table.c.id == bindparam("row_id"))
            .values({name: bindparam(f"new_{name}") for name in names}), params)
    return written


def _save_holders(run: Callable[..., Any], campaign_id: int, before: World,
                  holders: Sequence[HolderState], saved: Saved,
                  synced: dict[tuple[type, Any], dict[str, Any]]) -> None:
    t = HOLDER_TABLE
    known = [h for h in holders if h.tile in before.holders]
    new = [h for h in holders if h.tile not in before.holders]
    if known:
        run(update(t).where(t.c.campaign_id == campaign_id, t.c.tile == bindparam("at_tile"))
            .values(claim_id=bindparam("new_claim"), ceded_to=bindparam("new_ceded")),
            [{"at_tile": h.tile, "new_claim": h.claim_id, "new_ceded": h.ceded_to}
             for h in known])
        saved.changed[t.name] = len(known)
    if new:
        run(insert(t), [{"campaign_id": campaign_id, "tile": h.tile, "claim_id": h.claim_id,
                         "ceded_to": h.ceded_to} for h in new])
        saved.added[t.name] = len(new)
    for h in holders:
        synced[(ResourceHolder, h.tile)] = {"claim_id": h.claim_id, "ceded_to": h.ceded_to}


def _relation_changes(before: World, after: World) -> dict[tuple[int, int], RelationStatus]:
    """The pairs whose relation differs, with their status now."""
    if after.wars is before.wars and after.allies is before.allies:
        return {}
    changed = (after.wars ^ before.wars) | (after.allies ^ before.allies)
    return {pair: RelationStatus.WAR if pair in after.wars
            else RelationStatus.ALLIED if pair in after.allies else RelationStatus.NEUTRAL
            for pair in sorted(changed)}


def _save_relations(run: Callable[..., Any], campaign_id: int,
                    relations: Mapping[tuple[int, int], RelationStatus], saved: Saved,
                    synced: dict[tuple[type, Any], dict[str, Any]]) -> None:
    """Set the status of the changed pairs: the stored rows updated, the missing ones added
    (one query finds which pairs have a row)."""
    t = RELATION_TABLE
    lows = sorted({a for a, _ in relations})
    stored = {(a, b) for a, b in run(select(t.c.claim_a, t.c.claim_b).where(
        t.c.campaign_id == campaign_id, t.c.claim_a.in_(lows)))}
    known = [(pair, status) for pair, status in relations.items() if pair in stored]
    new = [(pair, status) for pair, status in relations.items() if pair not in stored]
    if known:
        run(update(t).where(t.c.campaign_id == campaign_id, t.c.claim_a == bindparam("low"),
                            t.c.claim_b == bindparam("high"))
            .values(status=bindparam("new_status")),
            [{"low": a, "high": b, "new_status": status} for (a, b), status in known])
        saved.changed[t.name] = len(known)
    if new:
        run(insert(t), [{"campaign_id": campaign_id, "claim_a": a, "claim_b": b,
                         "status": status} for (a, b), status in new])
        saved.added[t.name] = len(new)
    for pair, status in relations.items():
        synced[(Relation, pair)] = {"status": status}


def _identity(obj: Any, loaded: Mapping[str, Any]) -> Any:
    """How :func:`save_world` names the row behind an ORM object, from its loaded attributes
    (holders by tile, relations by pair: the values carry no row id)."""
    if isinstance(obj, ResourceHolder):
        return loaded.get("tile")
    if isinstance(obj, Relation):
        return loaded.get("claim_a"), loaded.get("claim_b")
    return loaded.get("id")


def sync_session(session: Session, campaign_id: int,
                 synced: Mapping[tuple[type, Any], Mapping[str, Any]]) -> None:
    """Give the ORM objects the session holds for rows just written by Core (``synced``:
    the stored values written, by model and id; holders by tile, relations by pair) the
    written values as their committed state: no reload, nothing marked changed, so a read in
    the same transaction sees them and a later flush does not write an older value back.
    Only attributes already loaded are read here (an expired object reloads by itself)."""
    if not synced:
        return
    kinds = {kind for kind, _ in synced}
    for obj in list(session.identity_map.values()):
        if type(obj) not in kinds:
            continue
        loaded = inspect(obj).dict
        if loaded.get("campaign_id") != campaign_id:
            continue
        for name, value in synced.get((type(obj), _identity(obj, loaded)), {}).items():
            set_committed_value(obj, name, _copy(value))


def _copy(value: Any) -> Any:
    if isinstance(value, list):
        return [dict(v) if isinstance(v, dict) else v for v in value]
    return value


def next_siege_ids(session: Session, count: int) -> list[int]:
    """The ids the next ``count`` siege rows would get, read without taking them (a preview):
    on PostgreSQL the siege id sequence's next values, on SQLite one more than the largest
    stored id and on."""
    connection = session.connection()
    t = SIEGE_TABLE
    if connection.dialect.name == "postgresql":
        name = connection.execute(select(func.pg_get_serial_sequence(t.name, "id"))).scalar()
        if name:
            last, called = connection.execute(
                text(f"SELECT last_value, is_called FROM {name}")).one()
            first = int(last) + 1 if called else int(last)
            return list(range(first, first + count))
    first = int(connection.execute(select(func.max(t.c.id))).scalar() or 0) + 1
    return list(range(first, first + count))
