"""The tick's pending battles as the rules' values: read with one Core query, the changed ones
written back with one executemany, the new ones stored with one under the next free numbers
(:func:`next_battle_id`, :func:`insert_battles`).

The tick never loads battle rows as ORM objects: :class:`~rules.campaign.world.BattleState`
values go to the rules and come back changed or new.
"""

from __future__ import annotations

import functools
from collections.abc import Collection, Sequence
from typing import Any

from sqlalchemy import Select, Table, bindparam, func, insert, select, update
from sqlmodel import Session

from bot.db.models import PendingBattle
from rules.campaign.world import BattleState, BattleStatus

BATTLE_TABLE: Table = PendingBattle.__table__  # type: ignore[attr-defined]

_VALUE_COLUMNS = ("tile", "kind", "attacker_army", "defender_army", "attacker_claim",
                  "defender_claim", "created_tick", "resolve_tick", "reactor_claim", "reaction",
                  "holdfast", "status")
_CHANGING = ("status", "reaction", "reactor_claim", "resolve_tick")
"""The columns a tick changes in a stored battle."""


def load_battles(session: Session, campaign_id: int, statuses: Collection[BattleStatus]
                 ) -> list[BattleState]:
    """The campaign's battles in ``statuses``, by id (one query)."""
    rows = session.connection().execute(_battles_query(tuple(sorted(statuses))),
                                        {"cid": campaign_id}).all()
    return [BattleState(row[0], **dict(zip(_VALUE_COLUMNS, row[1:], strict=True)))
            for row in rows]


@functools.cache
def _battles_query(statuses: tuple[BattleStatus, ...]) -> Select[Any]:
    """The campaign ``:cid``'s battles in ``statuses`` by id (built once: a statement built
    again costs more than running it)."""
    t = BATTLE_TABLE
    return (select(t.c.id, *(t.c[name] for name in _VALUE_COLUMNS))
            .where(t.c.campaign_id == bindparam("cid"), t.c.status.in_(statuses))
            .order_by(t.c.id))


def save_battles(session: Session, changed: Sequence[BattleState]) -> None:
    """Write the columns a tick changes of stored battles (one executemany; none when nothing
    changed)."""
    if not changed:
        return
    t = BATTLE_TABLE
    session.connection().execute(
        update(t).where(t.c.id == bindparam("battle_id"))
        .values({name: bindparam(f"new_{name}") for name in _CHANGING}),
        [{"battle_id": b.id, **{f"new_{name}": getattr(b, name) for name in _CHANGING}}
         for b in changed])


def next_battle_id(session: Session) -> int:
    """The next free battle number: one more than the largest stored (one query). The rules
    number the battles a tick begins from it (:attr:`rules.campaign.world.World.next_battle_id`),
    and :func:`insert_battles` stores battles under it: a battle's number (its dice key) is
    decided by the stored rows alone, so a tick rolled back and applied again, or previewed,
    numbers its battles the same on PostgreSQL as on SQLite (no sequence is consumed)."""
    found = session.connection().execute(_LARGEST_BATTLE).scalar()
    return int(found or 0) + 1


_LARGEST_BATTLE = select(func.max(BATTLE_TABLE.c.id))


_NUMBERING_LOCK = 0x6D61_6573_7462  # an arbitrary key of the PostgreSQL advisory lock below


def insert_battles(session: Session, campaign_id: int, new: Sequence[BattleState]
                   ) -> list[int]:
    """Store new battles under the next free numbers, in order (one statement); their ids.

    A battle that already has a number (the rules gave it one from :func:`next_battle_id`)
    keeps it when it is still free. On PostgreSQL, writers of different campaigns take the
    numbers one transaction at a time (a transaction-level advisory lock: the next free number
    of a transaction that has not committed is not visible to the others); SQLite has one
    writer."""
    if not new:
        return []
    connection = session.connection()
    if connection.dialect.name == "postgresql":
        connection.execute(select(func.pg_advisory_xact_lock(_NUMBERING_LOCK)))
    first = next_battle_id(session)
    wanted = [b.id for b in new if b.id is not None]
    ids = wanted if len(wanted) == len(new) and min(wanted) >= first \
        and len(set(wanted)) == len(wanted) else list(range(first, first + len(new)))
    connection.execute(insert(BATTLE_TABLE), [
        {"id": i, "campaign_id": campaign_id,
         **{name: getattr(b, name) for name in _VALUE_COLUMNS}}
        for i, b in zip(ids, new, strict=True)])
    return ids
