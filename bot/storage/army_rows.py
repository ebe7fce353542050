"""The armies past the ORM: read with one Core query, written back with one or two.

Loading thousands of armies as ORM objects and flushing them costs far more than the rules
themselves. The tick reads its armies straight into the rules' values (:class:`TickArmies`:
one query of each row's key, two texts the database builds, decoding only the rows it did not
keep from the last tick; the JSON of standing armies' empty columns not even decoded) and
writes back the columns it owns for the armies that changed: one statement for the armies
that only took a march's step (its columns only), one for the others (every tick column),
however many armies moved.
:class:`ArmyRecord` is an army row as a plain mutable record (the same attribute names as
:class:`~bot.db.models.Army`): what the map view reads, and what a service that changes an
army in place during the tick is given.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from fractions import Fraction
from operator import attrgetter, itemgetter
from typing import Any, ClassVar

from sqlalchemy import Connection, Table
from sqlmodel import Session

from bot.db.models import Army
from bot.db.types import json_text as _json_text
from rules.campaign.world import (
    ACTIVE_STATES,
    NO_MARCH,
    ArmyKind,
    ArmyState,
    March,
    World,
    changed_armies,
)
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
    loaded: tuple[Any, ...] = ()  # the tick columns as stored, to find what changed

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


def _tiles_text(tiles: tuple[str, ...]) -> str:
    """The JSON text of a path or of the tiles travelled (``json.dumps`` of them as a list):
    tile ids of letters and digits, which need no escaping, quoted and joined, at half the
    cost of the encoder."""
    try:
        plain = "".join(tiles)
    except TypeError:  # not all text
        plain = ""
    if plain.isascii() and plain.isalnum():
        return '["' + '", "'.join(tiles) + '"]'
    return _json_text(list(tiles))


def _costs_text(text: str, old: tuple[int, ...], new: tuple[int, ...]) -> str:
    """The JSON text of the costs ``new`` of a path, those stored ``old`` being ``text``. A
    march that entered tiles keeps the costs of the rest of its path: when ``new`` is ``old``
    without its first costs, it is ``text`` without them (everything up to the comma after
    the last one dropped: elements read as whole numbers hold no comma), which costs a
    fraction of encoding them; any other costs are encoded."""
    dropped = len(old) - len(new)
    if dropped > 0 and new == old[dropped:]:
        parts = text.split(",", dropped)
        if len(parts) > dropped:
            return "[" + parts[dropped].lstrip()
    return _json_text(list(new))


# what json.loads runs, without its Python-level wrapper
_SCAN: Callable[[str, int], tuple[Any, int]] = \
    json.JSONDecoder().scan_once  # type: ignore[attr-defined]


Row = tuple[Any, ...]
_ID = itemgetter(0)  # a row's army id


def _decoded(raw: str | None) -> Any:
    """``json.loads(raw)`` (None for NULL): the same value, at a fraction of the cost for the
    short texts of the army columns."""
    # Most armies stand with empty lists: skip the JSON parser for those.
    if raw == "[]":
        return []
    if raw == "{}":
        return {}
    if raw is None:
        return None
    try:
        value, end = _SCAN(raw, 0)
    except StopIteration:  # leading white space, or not JSON: as json.loads has it
        return json.loads(raw)
    return value if end == len(raw) else json.loads(raw)


def _select(session: Session, campaign_id: int, states: Collection[ArmyState]
            ) -> list[Row]:
    """The rows of the campaign's armies in ``states`` (by id, the columns of ``_READ``), one
    query. The statement goes to the driver as it is (JSON columns as text, decoded by the
    caller; enums as their stored values) and the rows come back as the driver's tuples:
    thousands of rows skip per-value type processing. The rows are put in id order here, not
    by the database: the query reads them through the (campaign, state) index, and an ORDER
    BY would sort them all in a temporary b-tree, where Python's sort merges the index's
    already ordered runs (one per state)."""
    connection = session.connection()
    sqlite = connection.dialect.name == "sqlite"  # (whose JSON columns hold their text)
    columns = ", ".join(f"CAST({name} AS TEXT)" if name in _JSON and not sqlite else name
                        for name in _READ)
    return sorted(_fetch(connection, columns, campaign_id, states), key=_ID)


def _fetch(connection: Connection, columns: str, campaign_id: int,
           states: Collection[ArmyState]) -> list[Row]:
    """``columns`` (SQL) of the campaign's armies in ``states``, as the driver's tuples, in no
    particular order."""
    mark = "?" if connection.dialect.paramstyle == "qmark" else "%s"
    wanted = sorted(states)
    result = connection.exec_driver_sql(
        f"SELECT {columns} FROM {ARMY_TABLE.name} WHERE campaign_id = {mark} AND state IN "
        f"({', '.join(mark for _ in wanted)})",
        (campaign_id, *(str(s) for s in wanted)))
    try:
        return list(result.cursor.fetchall())  # the driver's plain tuples
    finally:
        result.close()


Key = tuple[str, str]
"""An army row as two texts the database builds (:func:`_row_keys`)."""
_STEP_COLUMNS = ("tile", "path_json", "costs_json", "travelled_json", "saved", "meta_json")
"""The columns a march's step changes (and a detection roll's bookkeeping)."""
_REST_COLUMNS = tuple(name for name in _READ if name not in _STEP_COLUMNS)
_REST_OF = itemgetter(*(_READ.index(name) for name in _REST_COLUMNS))
_STEP_OF = itemgetter(*(_READ.index(name) for name in _STEP_COLUMNS))
_MERGED = itemgetter(*((*_REST_COLUMNS, *_STEP_COLUMNS).index(name) for name in _READ))
_PENALTY = _REST_COLUMNS.index("retreat_penalty")


def _row_keys(connection: Connection, campaign_id: int, states: Collection[ArmyState]
              ) -> list[Row]:
    """Each army row of :func:`_select` as its key, two texts built by the database: the JSON
    array of its values outside :data:`_STEP_COLUMNS`, and that of its values in them (JSON
    columns as their text, a string). Telling a row the process kept from a changed one by
    its key costs half of reading the row's values (the driver makes two objects per row, not
    twenty); only the changed rows are then decoded (:func:`_key_row`). JSON is injective:
    one key, one row. A march's step leaves the first text as it was."""
    if connection.dialect.name == "sqlite":
        columns = ", ".join(f"json_array({', '.join(names)})"
                            for names in (_REST_COLUMNS, _STEP_COLUMNS))
    else:
        columns = ", ".join("CAST(json_build_array({}) AS TEXT)".format(", ".join(
            f"CAST({name} AS TEXT)" if name in _JSON else name for name in names))
            for names in (_REST_COLUMNS, _STEP_COLUMNS))
    return _fetch(connection, columns, campaign_id, states)


def _key_row(key: Row) -> Row:
    """The row of :func:`_select` whose key (:func:`_row_keys`) is ``key``: the same values,
    of the same types (the JSON of whole numbers, text, NULL and, on PostgreSQL, booleans
    decodes to the values the driver gives)."""
    row: Row = _MERGED(json.loads(key[0]) + json.loads(key[1]))
    return row


def _row_encoder(separator: str) -> Callable[[Row], str]:
    """A JSON encoder of rows without ``ensure_ascii`` (``separator`` between values): the C
    encoder itself where there is one (a third less per row than ``json.dumps``'s wrapper)."""
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:  # (a Python without the C accelerator)
        encode = json.JSONEncoder(ensure_ascii=False, separators=(separator, ":")).encode
        return lambda row: encode(list(row))
    encoder = make(None, None, json.encoder.encode_basestring, None, ":", separator, False,
                   False, True)
    return lambda row: "".join(encoder(row, 0))


_SEPARATORS = {"sqlite": ",", "postgresql": ", "}
"""What each backend puts between the values of a row's texts (:func:`_row_keys`)."""
_ROW_TEXT = {dialect: _row_encoder(separator) for dialect, separator in _SEPARATORS.items()}
"""How each backend writes a row's texts (:func:`_row_keys`): SQLite's ``json_array`` and
PostgreSQL's ``json_build_array`` escape text as Python's encoder does without
``ensure_ascii`` (quote, backslash, the control characters)."""
_QUOTED: Callable[[str], str] = json.encoder.encode_basestring
"""A text as a JSON string: what the encoder of :data:`_ROW_TEXT` makes of each text."""


def row_key(row: Row, dialect: str) -> Key | None:
    """The key the database gives (:func:`_row_keys`) to the row ``row`` the tick wrote, or
    None when this backend has no known form. A key that came out different from the
    database's would only make the next tick decode that row."""
    encode = _ROW_TEXT.get(dialect)
    if encode is None:
        return None
    rest = _REST_OF(row)
    if dialect == "sqlite" and isinstance(rest[_PENALTY], bool):  # (stored as 0 or 1)
        rest = (*rest[:_PENALTY], int(rest[_PENALTY]), *rest[_PENALTY + 1:])
    return encode(rest), encode(_STEP_OF(row))


def step_key(key: Key, step: Row, dialect: str) -> Key | None:
    """:func:`row_key` of a row whose key was ``key`` once its :data:`_STEP_COLUMNS` are
    ``step`` (their stored values, in that order): the first text stays."""
    separator = _SEPARATORS.get(dialect)
    if separator is None:
        return None
    try:  # a step's values are texts: each quoted, without the encoder's walk
        return key[0], "[" + separator.join(map(_QUOTED, step)) + "]"
    except TypeError:  # (one is not: NULL)
        return key[0], _ROW_TEXT[dialect](step)


def load_records(session: Session, campaign_id: int,
                 states: Collection[ArmyState] = ACTIVE_STATES) -> list[ArmyRecord]:
    """The campaign's armies in ``states`` (by id), one query."""
    rows = _select(session, campaign_id, states)
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
        record.remember()
        append(record)
    return records


def save_changed(session: Session, records: Iterable[ArmyRecord]) -> int:
    """Write the tick columns of every record that changed since it was loaded or last
    written (one executemany, none when nothing changed); returns how many rows were written.
    The orders' write-back (the tick writes through :meth:`TickArmies.save`)."""
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


def _fraction(text: str) -> Fraction:
    """``Fraction(text)`` for a stored budget (``0``, ``3/2``...): the common forms skip the
    string parser, which costs more than the rest of an army's conversion."""
    if text == "0":
        return _ZERO
    num, slash, den = text.partition("/")
    if num.isdigit() and (not slash or den.isdigit()):
        return Fraction(int(num), int(den)) if slash else Fraction(int(num))
    return Fraction(text)


def _march(path: Sequence[Any], costs: Sequence[Any], saved: str, depart_tick: int | None
           ) -> March:
    """A stored march (its columns) as the rules' value: :data:`NO_MARCH` for an army that
    never set off."""
    if not path and depart_tick is None and saved == "0":
        return NO_MARCH
    return March(tuple(path), tuple(map(int, costs)), _fraction(saved), depart_tick)


def equipment_names(items: Sequence[Any]) -> tuple[str, ...]:
    """The names of an army's stored equipment (``equipment_json``: records or names)."""
    return tuple(str(item["name"]) if isinstance(item, Mapping) else str(item)
                 for item in items if isinstance(item, str)
                 or (isinstance(item, Mapping) and "name" in item))


def army_value(r: ArmyRecord | Army) -> ArmyValue:
    """A stored army as the rules' frozen :class:`~rules.campaign.world.Army` value: a record,
    or the row object an order or a battle side holds (the same column names)."""
    equipment = r.equipment_json
    return ArmyValue(
        id=r.id or 0, claim_id=r.claim_id, kind=r.kind, state=r.state, tile=r.tile,
        infantry=r.infantry, cavalry=r.cavalry, ships=r.ships,
        stationary_since=r.stationary_since, arrival_tick=r.arrival_tick,
        retreat_penalty=r.retreat_penalty, ready_tick=r.ready_tick,
        march=_march(r.path_json, r.costs_json, r.saved, r.depart_tick),
        travelled=tuple(r.travelled_json), commander_id=r.commander_id,
        equipment=equipment_names(equipment) if equipment else (), meta=r.meta_json,
        accepted_at=r.accepted_at if isinstance(r, Army) else None)


# the positions in a row of _select
_PATH, _COSTS, _TRAVELLED, _SAVED, _META = (
    _READ.index(name) for name in ("path_json", "costs_json", "travelled_json", "saved",
                                   "meta_json"))


@dataclass(frozen=True)
class _Shape:
    """The columns one UPDATE statement of :meth:`TickArmies.save` writes, how to take them
    from a row of ``_select`` and put them into one, and the statement in its two forms."""

    columns: tuple[str, ...]
    stored: Callable[[Row], tuple[Any, ...]] = field(init=False)
    """These columns of a row, as a tuple."""
    written: Callable[[Row], Row] = field(init=False)
    """A row with these columns replaced: ``written(row + values)`` (``values`` in the order
    of :attr:`columns`)."""
    scalars: Callable[[tuple[Any, ...]], tuple[Any, ...]] = field(init=False)
    """The values of the columns that are not JSON, and the id, from a parameter set."""
    texts: Callable[[tuple[Any, ...]], tuple[str, ...]] = field(init=False)
    """The JSON texts of the JSON columns, from a parameter set."""

    def __post_init__(self) -> None:
        columns = self.columns
        plain = [at for at, name in enumerate(columns) if name not in _JSON]
        object.__setattr__(self, "stored", itemgetter(*(_READ.index(n) for n in columns)))
        object.__setattr__(self, "written", itemgetter(*(
            len(_READ) + columns.index(name) if name in columns else at
            for at, name in enumerate(_READ))))
        object.__setattr__(self, "scalars", itemgetter(*plain, len(columns)))
        object.__setattr__(self, "texts", itemgetter(*(
            at for at, name in enumerate(columns) if name in _JSON)))

    def update(self, mark: str) -> str:
        """The statement for an executemany (``mark``: the driver's parameter mark), a
        parameter set being a row's values of :attr:`columns` and its id."""
        return (f"UPDATE {ARMY_TABLE.name} SET "
                + ", ".join(f"{name} = {mark}" for name in self.columns)
                + f" WHERE id = {mark}")

    def update_from_json(self, connection: Connection) -> str:
        """The statement (PostgreSQL) that takes every row's values from one JSON document,
        its parameter (:meth:`document`): one statement however many rows, where an
        executemany costs the driver more than the rest of the write."""
        plain = [name for name in self.columns if name not in _JSON]
        json = [name for name in self.columns if name in _JSON]

        def scalar(name: str, at: int) -> str:
            kind = ARMY_TABLE.c[name].type.compile(dialect=connection.dialect)
            return f"CAST(e ->> {at} AS {kind})"

        sets = [f"{name} = {scalar(name, at)}" for at, name in enumerate(plain)] + [
            f"{name} = e -> {len(plain) + 1 + at}" for at, name in enumerate(json)]
        mark = "?" if connection.dialect.paramstyle == "qmark" else "%s"
        return (f"UPDATE {ARMY_TABLE.name} SET {', '.join(sets)} FROM "
                f"json_array_elements(CAST({mark} AS JSON)) AS e "
                f"WHERE {ARMY_TABLE.name}.id = {scalar('id', len(plain))}")

    def document(self, params: Sequence[tuple[Any, ...]]) -> str:
        """The parameter of :meth:`update_from_json`: a JSON array with an array per
        parameter set, the values that are not JSON (and the id) encoded, then the JSON
        texts as they are (they are JSON already: the database keeps them verbatim)."""
        scalars, texts = self.scalars, self.texts
        return "[" + ", ".join(
            f"[{_json_text(scalars(p))[1:-1]}, {', '.join(texts(p))}]" for p in params) + "]"


STEP = _Shape(_STEP_COLUMNS)
"""The columns a march's step changes (and a detection roll's bookkeeping): most changed
armies of a tick change no others, and are written with this shorter statement."""
FULL = _Shape(TICK_COLUMNS)
"""Every tick column: the armies that changed any other (arrived, fought, mustered...)."""

_NOT_STEP = attrgetter("state", "infantry", "cavalry", "ships", "arrival_tick",
                       "stationary_since", "retreat_penalty", "commander_id")
"""The tick columns of an army value outside :data:`STEP` (the march's departure aside)."""
_BESIDES = attrgetter("claim_id", "kind", "ready_tick", "equipment", "accepted_at")
"""The fields of an army value from columns the tick never writes."""


def _row_value(row: Row) -> ArmyValue:
    """An army row of ``_select`` as the rules' value (most armies stand: their empty
    columns are not decoded)."""
    (army_id, claim_id, kind, state, tile, infantry, cavalry, ships, ready_tick, depart_tick,
     path, costs, travelled, saved, arrival_tick, stationary_since, retreat_penalty,
     commander_id, equipment, meta) = row  # the order of _READ
    return ArmyValue(
        id=army_id, claim_id=claim_id, kind=_ENUMS["kind"][kind], state=_ENUMS["state"][state],
        tile=tile, infantry=infantry, cavalry=cavalry, ships=ships,
        stationary_since=stationary_since, arrival_tick=arrival_tick,
        retreat_penalty=bool(retreat_penalty),  # SQLite stores 0 and 1
        ready_tick=ready_tick,
        march=NO_MARCH if path == "[]" and depart_tick is None and saved == "0"
        else _march(_decoded(path), _decoded(costs), saved, depart_tick),
        travelled=() if travelled == "[]" else tuple(_decoded(travelled)),
        commander_id=commander_id,
        equipment=() if equipment == "[]" else equipment_names(_decoded(equipment)),
        meta={} if meta == "{}" else _decoded(meta))


class TickArmies:
    """The armies of one tick, read with one query and written back with one statement per
    shape of change (:data:`STEP`, :data:`FULL`).

    ``now``: every army as the rules' value, as the tick has it now (the tick takes each
    phase's changes into it). The rows as read are kept: an army whose value is still the one
    read is not written back, and the JSON columns an army did not change are written back
    as the text read. Every change comes from the rules (:meth:`take`).

    Converting thousands of rows costs more than the rules' work on them, and from one tick
    to the next most rows stay as they were or as the tick wrote them. So the process keeps
    the last tick's rows and values (``_kept``, by army id: each row exactly as read or as the
    tick wrote it, and its value): a row read again exactly as kept gets the value kept (the
    very objects: the collector sees nothing new), any other row is converted. A value is a
    pure function of its row and values are immutable, so this gives the same values whoever
    wrote the rows since (another process, an undo, a rolled back tick: their rows differ and
    are converted). One tick's armies are kept, no more. The rows are read as their keys
    (:func:`load_armies`): a kept row is recognised without reading its twenty values.
    """

    _kept: ClassVar[tuple[dict[int, Row], dict[int, ArmyValue]]] = ({}, {})
    _seen: ClassVar[dict[Key, Row]] = {}
    """The key (:func:`_row_keys`) of each kept row, with that row. A row counts as read
    again unchanged when its key is here and ``_kept`` still holds that very row (the two are
    swapped one after the other: another thread may read in between, and a key always
    names the content of the row it gives)."""

    def __init__(self, rows: Sequence[Row], keys: Mapping[int, Key] | None = None) -> None:
        """``rows``: by id, each a row of ``_select`` (or one kept); ``keys``: their keys as
        read (:func:`_row_keys`), by army id, for the next tick to recognise them."""
        by_id: dict[int, Row] = {}
        read: dict[int, ArmyValue] = {}
        kept_rows, kept_values = TickArmies._kept
        for row in rows:
            army_id = row[0]
            known = kept_rows.get(army_id)
            if known is row or (known is not None and known == row):
                row, value = known, kept_values[army_id]
            else:
                value = _row_value(row)
            by_id[army_id] = row
            read[army_id] = value
        keys = dict(keys or {})
        self._start((by_id, read), {key: by_id[army_id] for army_id, key in keys.items()}, keys)

    @classmethod
    def as_kept(cls, kept: tuple[dict[int, Row], dict[int, ArmyValue]],
                seen: dict[Key, Row], keys: dict[int, Key]) -> TickArmies:
        """The armies when every row read is one kept (``kept``, as ``_kept`` was), each under
        its key in ``seen`` (as ``_seen`` was), and no other is: the kept mappings themselves
        (:meth:`save` never changes them, it makes new ones); ``keys``: each row's key by
        army id."""
        armies = cls.__new__(cls)
        armies._start(kept, seen, keys)
        return armies

    def _start(self, kept: tuple[dict[int, Row], dict[int, ArmyValue]],
               seen: dict[Key, Row], keys: dict[int, Key]) -> None:
        """Start the tick from ``kept`` (the rows by id and their values as read), ``seen``
        (each row under its key) and ``keys`` (each row's key by army id), and keep these
        for the next tick (then what :meth:`save` writes)."""
        self.rows, self.read = kept
        self.now: dict[int, ArmyValue] = dict(self.read)
        self._touched: set[int] = set()  # the armies the rules gave a new value
        self.keys, self.seen = keys, seen
        TickArmies._kept = kept
        TickArmies._seen = seen

    def values(self) -> Collection[ArmyValue]:
        """The armies now, as a live view (it follows the tick's changes)."""
        return self.now.values()

    def current(self) -> dict[int, ArmyValue]:
        """The armies now, as a new mapping for the rules."""
        return dict(self.now)

    def take(self, before: World, after: World) -> None:
        """Take the armies the rules changed from ``before`` to ``after``."""
        if after.armies is before.armies:
            return
        for a in changed_armies(before, after):
            self.now[a.id] = a
            self._touched.add(a.id)

    def save(self, session: Session) -> int:
        """Write the tick columns of every army that changed since it was read; returns how
        many rows were written. An army that changed only :data:`STEP`'s columns gets those
        written, any other gets every tick column (:data:`FULL`): one statement for each shape
        that has armies, none when nothing changed.

        The statements go to the driver as they are (values already in their stored form: enum
        values, JSON text): per-row parameter processing would cost more than the tick's
        rules. Run once, at the end of the tick.
        """
        read, rows = self.read, self.rows
        step_stored, step_written = STEP.stored, STEP.written
        steps: list[tuple[Any, ...]] = []  # the parameters of the STEP statement
        full: list[tuple[Any, ...]] = []  # and those of the FULL one
        written: dict[int, tuple[Row, ArmyValue, Row | None]] = {}  # for the next tick,
        # once written (with the step's values, for a march's step)
        saved_texts: dict[int, str] = {}  # the text of each saving, by the object's id (the
        # marches of a tick share a few savings: see rules.campaign.movement.enter_tiles)
        read_back = functools.cache(_decoded)  # each meta text written, decoded once (many
        # armies' bookkeeping reads alike)
        stepped: Row | None  # a march step's values (STEP's columns), or None
        for army_id in sorted(self._touched):  # the others are as read
            a = self.now[army_id]
            first = read[army_id]
            if a is first:
                continue
            row = rows[army_id]
            m, m0 = a.march, first.march
            meta = a.meta
            meta_text: str = row[_META] if meta is first.meta or meta == first.meta \
                else _json_text(dict(meta))
            step = (
                a.tile, row[_PATH] if m.path == m0.path else _tiles_text(m.path),
                row[_COSTS] if m.costs == m0.costs else _costs_text(row[_COSTS], m0.costs,
                                                                     m.costs),
                row[_TRAVELLED] if a.travelled == first.travelled
                else _tiles_text(a.travelled),
                row[_SAVED] if m.saved is m0.saved else saved_texts.get(id(m.saved))
                or saved_texts.setdefault(id(m.saved), str(m.saved)), meta_text)
            if m.depart_tick == m0.depart_tick and _NOT_STEP(a) == _NOT_STEP(first):
                # (the other tick columns convert to these fields, one to one)
                if step == step_stored(row):  # (the tile first)
                    continue
                steps.append((*step, army_id))
                new_row, stepped = step_written(row + step), step
            else:
                values = (a.state.value, a.tile, a.infantry, a.cavalry, a.ships, step[1],
                          step[2], step[3], step[4], m.depart_tick, a.arrival_tick,
                          a.stationary_since, a.retreat_penalty, meta_text, a.commander_id)
                if values == FULL.stored(row):  # (SQLite's 0 and 1 equal False and True)
                    continue
                full.append((*values, army_id))
                new_row, stepped = FULL.written(row + values), None
            if _BESIDES(a) == _BESIDES(first) and (meta_text is row[_META]
                                                   or read_back(meta_text) == meta):
                # the row as it will be read back converts to ``a`` (the other columns are
                # typed: tile ids, whole costs, a fraction): keep it for the next tick
                written[army_id] = (new_row, a, stepped)
        if not steps and not full:
            return 0
        connection = session.connection()
        mark = "?" if connection.dialect.paramstyle == "qmark" else "%s"
        for shape, params in ((STEP, steps), (FULL, full)):
            if not params:
                continue
            if connection.dialect.name == "postgresql":
                connection.exec_driver_sql(shape.update_from_json(connection),
                                           (shape.document(params),))
            else:  # (SQLite's executemany is one loop in C)
                connection.exec_driver_sql(shape.update(mark), params)
        if written:  # new mappings, swapped in at once (another thread may be reading)
            kept_rows, kept_values = dict(rows), dict(read)
            keys, seen = self.keys, dict(self.seen)
            for army_id in written:  # (their keys as read name the rows before the write)
                if army_id in keys:
                    del seen[keys[army_id]]
            dialect = connection.dialect.name
            for army_id, (row, a, moved) in written.items():
                kept_rows[army_id], kept_values[army_id] = row, a
                key = step_key(keys[army_id], moved, dialect) \
                    if moved is not None and army_id in keys else row_key(row, dialect)
                if key is not None:
                    seen[key] = row
            TickArmies._kept = (kept_rows, kept_values)
            TickArmies._seen = seen
        return len(steps) + len(full)


def load_armies(session: Session, campaign_id: int) -> TickArmies:
    """The campaign's raised armies (every state but gone) for one tick, one query: each
    row's key (:func:`_row_keys`); a key the process kept (the row as the last tick read or
    wrote it) gives the row kept, any other is decoded. When every row read is kept and none
    is missing, the tick starts from the kept mappings themselves (:meth:`TickArmies.as_kept`):
    nothing to sort, convert or compare."""
    seen, kept = TickArmies._seen, TickArmies._kept
    kept_rows = kept[0]
    rows: list[Row] = []
    keys: dict[int, Key] = {}
    decoded = 0
    for key in _row_keys(session.connection(), campaign_id, ACTIVE_STATES):
        row = seen.get(key)
        if row is None or kept_rows.get(row[0]) is not row:
            row = _key_row(key)
            decoded += 1
        rows.append(row)
        keys[row[0]] = key
    if not decoded and len(rows) == len(kept_rows) == len(seen):
        # every row read is a kept one under its key, and no other is kept: the very mappings
        # kept (in id order already)
        return TickArmies.as_kept(kept, seen, keys)
    rows.sort(key=_ID)
    return TickArmies(rows, keys)


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
    from bot.storage.world_rows import insert_returning_ids

    if not new:
        return []
    records = [ArmyRecord(
        0, a.claim_id, a.kind, a.state, a.tile, a.infantry, a.cavalry, a.ships, a.ready_tick,
        a.march.depart_tick, list(a.march.path), list(a.march.costs), list(a.travelled),
        str(a.march.saved), a.arrival_tick, a.stationary_since, a.retreat_penalty,
        a.commander_id, list(a.equipment), dict(a.meta)) for a in new]
    ids = insert_returning_ids(session.connection(), ARMY_TABLE, [
        {"campaign_id": campaign_id, "accepted_at": a.accepted_at,
         **{name: getattr(r, name) for name in _READ if name != "id"}}
        for a, r in zip(new, records, strict=True)])
    for r, army_id in zip(records, ids, strict=True):
        r.id = army_id
        r.remember()
    return records
