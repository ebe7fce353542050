"""Taking back outbox entries that are no longer true before anyone has started to send them.

A newer sidebar date replaces an older one, a newer ``[Realm]`` map an older one, and a
decided proposal's note to the moderators ("1 proposal waits") says what is no longer so. Such
an entry is withdrawn only while it is pending, was never tried (``attempts`` 0) and no
publisher holds it: an entry a delivery has started on may be on Reddit already (an answer
lost on the way back), so it stays and its retry finds it there.
"""

from __future__ import annotations

from sqlalchemy import ColumnElement, delete
from sqlmodel import Session, col

from bot.db.models import Outbox, OutboxStatus


def withdraw_pending(session: Session, campaign_id: int, *where: ColumnElement[bool]
                     ) -> list[str]:
    """Delete the campaign's outbox entries matching ``where`` that no delivery has started
    on (pending, never tried, claimed by no publisher); the keys of those deleted."""
    deleted = session.execute(
        delete(Outbox).where(col(Outbox.campaign_id) == campaign_id, *where,
                             col(Outbox.status) == OutboxStatus.PENDING,
                             col(Outbox.attempts) == 0, col(Outbox.claimed_by).is_(None))
        .returning(col(Outbox.key))
        # the rows need not be loaded in this session: nothing there to synchronise
        .execution_options(synchronize_session=False))
    return list(deleted.scalars())
