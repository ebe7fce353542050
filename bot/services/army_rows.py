"""The tick's armies as plain records: read with one Core query, written back with one.

Loading thousands of armies as ORM objects and flushing them costs far more than the rules
themselves; the tick reads the columns it needs into :class:`ArmyRecord` values (the same
attribute names as :class:`~bot.db.models.Army`) and :func:`save_changed` writes the columns the
tick owns for the records that changed, as one executemany, however many armies moved.
"""

from __future__ import annotations

import json
import json.encoder as json_encoder
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from fractions import Fraction
from typing import Any

from sqlalchemy import Table
from sqlmodel import Session

from bot.db.models import Army
from rules.campaign.world import ACTIVE_STATES, NO_MARCH, ArmyKind, ArmyState, March
from rules.campaign.world import Army as ArmyValue

ARMY_TABLE: Table = Army.__table__  # type: ignore[attr-defined]

TICK_COLUMNS = (
    "state", "tile", "infantry", "cavalry", "ships", "path_json", "costs_json",
    "travelled_json", "saved", "depart_tick", "arrival_tick", "stationary_since",
    "retreat_penalty", "meta_json", "commander_id",
)
"""The columns a tick changes (it writes them only for the armies it changed)."""


@dataclass(slots=True, eq=False)
class ArmyRecord:
    """One army row as the tick reads and changes it."""

    id: int
    claim_id: int
    kind: ArmyKind
    state: ArmyState
    tile: str
    infantry: int = 0
    cavalry: int = 0
    ships: int = 0
    ready_tick: int | None = None
    depart_tick: int | None = None
    path_json: list[Any] = field(default_factory=list)
    costs_json: list[Any] = field(default_factory=list)
    travelled_json: list[Any] = field(default_factory=list)
    saved: str = "0"
    arrival_tick: int | None = None
    stationary_since: int | None = None
    retreat_penalty: bool = False
    commander_id: int | None = None
    equipment_json: list[Any] = field(default_factory=list)
    meta_json: dict[str, Any] = field(default_factory=dict)
    loaded: tuple[Any, ...] = ()  # the tick columns as read, to find what changed

    def tick_values(self) -> tuple[Any, ...]:
        """The :data:`TICK_COLUMNS`, in that order."""
        return (self.state, self.tile, self.infantry, self.cavalry, self.ships, self.path_json,
                self.costs_json, self.travelled_json, self.saved, self.depart_tick,
                self.arrival_tick, self.stationary_since, self.retreat_penalty, self.meta_json,
                self.commander_id)

    def remember(self) -> None:
        """Take the current tick columns as the stored ones (lists and dicts copied, so a
        change made in place is noticed too)."""
        self.loaded = (self.state, self.tile, self.infantry, self.cavalry, self.ships,
                       self.path_json[:], self.costs_json[:], self.travelled_json[:], self.saved,
                       self.depart_tick, self.arrival_tick, self.stationary_since,
                       self.retreat_penalty, dict(self.meta_json), self.commander_id)


_READ = tuple(f.name for f in fields(ArmyRecord) if f.name != "loaded")
_JSON = frozenset({"path_json", "costs_json", "travelled_json", "equipment_json", "meta_json"})
_ENUMS: dict[str, dict[str, Any]] = {
    "kind": {k.value: k for k in ArmyKind}, "state": {s.value: s for s in ArmyState}}


def _json_text(value: Any) -> str:
    """``json.dumps(value)`` (the same text), through one encoder made once: ``dumps`` makes a
    new encoder for every value, which costs more than encoding a short list."""
    return "".join(_ENCODE(value, 0)) if _ENCODE is not None else json.dumps(value)


_MAKE_ENCODER: Callable[..., Any] | None = getattr(json_encoder, "c_make_encoder", None)
_ENCODE = None if _MAKE_ENCODER is None else _MAKE_ENCODER(
    None, json.JSONEncoder().default, json_encoder.encode_basestring_ascii, None, ": ", ", ",
    False, False, True)  # no circular-reference check (the values are fresh JSON data)


def _decoded(raw: str | None) -> Any:
    # Most armies stand with empty lists: skip the JSON parser for those.
    if raw == "[]":
        return []
    if raw == "{}":
        return {}
    return json.loads(raw) if raw is not None else None


def load_records(session: Session, campaign_id: int,
                 states: Collection[ArmyState] = ACTIVE_STATES) -> list[ArmyRecord]:
    """The campaign's armies in ``states`` (by id), one query."""
    # The statement goes to the driver as it is (JSON columns cast to text and decoded here,
    # enums mapped by a dict lookup): thousands of rows skip per-value type processing.
    connection = session.connection()
    mark = "?" if connection.dialect.paramstyle == "qmark" else "%s"
    columns = ", ".join(f"CAST({name} AS TEXT)" if name in _JSON else name for name in _READ)
    wanted = sorted(states)
    rows = connection.exec_driver_sql(
        f"SELECT {columns} FROM {ARMY_TABLE.name} WHERE campaign_id = {mark} AND state IN "
        f"({', '.join(mark for _ in wanted)}) ORDER BY id",
        (campaign_id, *(str(s) for s in wanted))).fetchall()
    kinds, states_of = _ENUMS["kind"], _ENUMS["state"]
    decoded = _decoded
    records: list[ArmyRecord] = []
    append = records.append
    for (army_id, claim_id, kind, state, tile, infantry, cavalry, ships, ready_tick, depart_tick,
         path, costs, travelled, saved, arrival_tick, stationary_since, retreat_penalty,
         commander_id, equipment, meta) in rows:  # the order of _READ
        path, costs, travelled, meta = decoded(path), decoded(costs), decoded(travelled), \
            decoded(meta)
        state = states_of[state]
        retreat_penalty = bool(retreat_penalty)  # SQLite stores 0 and 1
        record = ArmyRecord(army_id, claim_id, kinds[kind], state, tile, infantry, cavalry,
                            ships, ready_tick, depart_tick, path, costs, travelled, saved,
                            arrival_tick, stationary_since, retreat_penalty, commander_id,
                            decoded(equipment), meta)
        # what remember() takes, without a second pass over the record's attributes
        record.loaded = (state, tile, infantry, cavalry, ships, path[:], costs[:], travelled[:],
                         saved, depart_tick, arrival_tick, stationary_since, retreat_penalty,
                         dict(meta), commander_id)
        append(record)
    return records


def save_changed(session: Session, records: Iterable[ArmyRecord]) -> int:
    """Write the tick columns of every record that changed since it was loaded (one
    executemany, none when nothing changed); returns how many rows were written.

    The statement goes to the driver as it is (values already in their stored form: enum
    values, JSON text): per-row parameter processing would cost more than the tick's rules.
    """
    changed: Sequence[ArmyRecord] = [r for r in records if r.tick_values() != r.loaded]
    if not changed:
        return 0
    connection = session.connection()
    mark = "?" if connection.dialect.paramstyle == "qmark" else "%s"
    sql = (f"UPDATE {ARMY_TABLE.name} SET "
           + ", ".join(f"{name} = {mark}" for name in TICK_COLUMNS)
           + f" WHERE id = {mark}")
    dumps = _json_text
    connection.exec_driver_sql(sql, [
        (r.state.value, r.tile, r.infantry, r.cavalry, r.ships, dumps(r.path_json),
         dumps(r.costs_json), dumps(r.travelled_json), r.saved, r.depart_tick, r.arrival_tick,
         r.stationary_since, r.retreat_penalty, dumps(r.meta_json), r.commander_id, r.id)
        for r in changed])
    for r in changed:
        r.remember()
    return len(changed)


_ZERO = Fraction(0)


def _equipment_names(items: Sequence[Any]) -> tuple[str, ...]:
    return tuple(str(item["name"]) if isinstance(item, Mapping) else str(item)
                 for item in items if isinstance(item, str)
                 or (isinstance(item, Mapping) and "name" in item))


def army_value(r: ArmyRecord | Army) -> ArmyValue:
    """A stored army as the rules' frozen :class:`~rules.campaign.world.Army` value: the tick's
    record, or the row object an order or a battle side holds (the same column names)."""
    saved, depart_tick = r.saved, r.depart_tick
    if r.path_json or depart_tick is not None or saved != "0":
        march = March(tuple(r.path_json), tuple(map(int, r.costs_json)),
                      _ZERO if saved == "0" else Fraction(saved), depart_tick)
    else:
        march = NO_MARCH
    equipment = r.equipment_json
    return ArmyValue(
        id=r.id or 0, claim_id=r.claim_id, kind=r.kind, state=r.state, tile=r.tile,
        infantry=r.infantry, cavalry=r.cavalry, ships=r.ships,
        stationary_since=r.stationary_since, arrival_tick=r.arrival_tick,
        retreat_penalty=r.retreat_penalty, ready_tick=r.ready_tick, march=march,
        travelled=tuple(r.travelled_json), commander_id=r.commander_id,
        equipment=_equipment_names(equipment) if equipment else (), meta=r.meta_json,
        accepted_at=r.accepted_at if isinstance(r, Army) else None)


def apply_change(r: ArmyRecord, old: ArmyValue, new: ArmyValue) -> None:
    """Take into the record the columns the rules changed from ``old`` to ``new`` (and only
    those: what the services changed in other columns meanwhile stays)."""
    if old.state is not new.state:
        r.state = new.state
    if old.tile != new.tile:
        r.tile = new.tile
    if (old.infantry, old.cavalry, old.ships) != (new.infantry, new.cavalry, new.ships):
        r.infantry, r.cavalry, r.ships = new.infantry, new.cavalry, new.ships
    if old.march is not new.march:
        m = new.march
        if m.path != old.march.path:
            r.path_json = list(m.path)
        if m.costs != old.march.costs:
            r.costs_json = list(m.costs)
        if m.saved != old.march.saved:
            r.saved = str(m.saved)
        r.depart_tick = m.depart_tick
    if old.travelled != new.travelled:
        r.travelled_json = list(new.travelled)
    if old.arrival_tick != new.arrival_tick:
        r.arrival_tick = new.arrival_tick
    if old.stationary_since != new.stationary_since:
        r.stationary_since = new.stationary_since
    if old.retreat_penalty != new.retreat_penalty:
        r.retreat_penalty = new.retreat_penalty
    if old.commander_id != new.commander_id:
        r.commander_id = new.commander_id
    if old.meta is not new.meta:
        r.meta_json = dict(new.meta)


def insert_armies(session: Session, campaign_id: int, new: Sequence[ArmyValue]
                  ) -> list[ArmyRecord]:
    """Store armies an order raised (one statement); their records, with the ids the database
    gave them, in the same order."""
    from bot.services.world_rows import insert_rows

    if not new:
        return []
    records = [ArmyRecord(
        0, a.claim_id, a.kind, a.state, a.tile, a.infantry, a.cavalry, a.ships, a.ready_tick,
        a.march.depart_tick, list(a.march.path), list(a.march.costs), list(a.travelled),
        str(a.march.saved), a.arrival_tick, a.stationary_since, a.retreat_penalty,
        a.commander_id, list(a.equipment), dict(a.meta)) for a in new]
    ids = insert_rows(session.connection(), ARMY_TABLE, [
        {"campaign_id": campaign_id, "accepted_at": a.accepted_at,
         **{name: getattr(r, name) for name in _READ if name != "id"}}
        for a, r in zip(new, records, strict=True)])
    for r, army_id in zip(records, ids, strict=True):
        r.id = army_id
        r.remember()
    return records
