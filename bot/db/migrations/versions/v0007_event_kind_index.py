"""event kind index

An index on ``event (campaign_id, kind)``: the journal is read by kind where it is looked up
per message or per picture (the pause and resume around an order sent during a holiday, the
detections and battles a map shows), and it grows with every tick; without the index each of
those reads scans the campaign's whole journal.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-27 07:45:00
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0007"
down_revision: str | Sequence[str] | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index("ix_event_campaign_kind", "event", ["campaign_id", "kind"])


def downgrade() -> None:
    op.drop_index("ix_event_campaign_kind", table_name="event")
