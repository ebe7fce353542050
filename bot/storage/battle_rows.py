"""The tick's pending battles as the rules' values: read with one Core query, the changed ones
written back with one executemany, the new ones stored with one
(:func:`~bot.storage.world_rows.insert_rows`: their ids returned in order).

The tick never loads battle rows as ORM objects: :class:`~rules.campaign.world.BattleState`
values go to the rules and come back changed or new.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from sqlalchemy import Table, bindparam, select, update
from sqlmodel import Session

from bot.db.models import PendingBattle
from bot.storage.world_rows import insert_rows
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
    t = BATTLE_TABLE
    rows = session.connection().execute(
        select(t.c.id, *(t.c[name] for name in _VALUE_COLUMNS))
        .where(t.c.campaign_id == campaign_id, t.c.status.in_(sorted(statuses)))
        .order_by(t.c.id)).all()
    return [BattleState(row[0], **dict(zip(_VALUE_COLUMNS, row[1:], strict=True)))
            for row in rows]


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


def insert_battles(session: Session, campaign_id: int, new: Sequence[BattleState]
                   ) -> list[int]:
    """Store battles the tick began (one statement); their ids, in the same order."""
    if not new:
        return []
    return insert_rows(session.connection(), BATTLE_TABLE, [
        {"campaign_id": campaign_id, **{name: getattr(b, name) for name in _VALUE_COLUMNS}}
        for b in new])
