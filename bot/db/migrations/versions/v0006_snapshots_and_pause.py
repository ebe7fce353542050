"""snapshots and pause

The ``snapshot`` table (the world before each tick and moderator command, for ``maester
undo`` and ``rollback``) and the campaign's pause columns (``maester pause`` / ``resume``).

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-23 12:10:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel.sql.sqltypes
from alembic import op

revision: str = "0006"
down_revision: str | Sequence[str] | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "snapshot",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("campaign_id", sa.Integer(), nullable=False),
        sa.Column("kind", sqlmodel.sql.sqltypes.AutoString(length=12), nullable=False),
        sa.Column("label", sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False),
        sa.Column("actor", sqlmodel.sql.sqltypes.AutoString(length=60), nullable=False),
        sa.Column("tick", sa.Integer(), nullable=False),
        sa.Column("taken_at", sa.String(length=32), nullable=True),
        sa.Column("event_mark", sa.Integer(), nullable=False),
        sa.Column("outbox_mark", sa.Integer(), nullable=False),
        sa.Column("inbox_mark", sa.Integer(), nullable=False),
        sa.Column("data", sa.LargeBinary(), nullable=False),
        sa.ForeignKeyConstraint(["campaign_id"], ["campaign.id"],
                                name=op.f("fk_snapshot_campaign_id_campaign")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_snapshot")),
    )
    op.create_index("ix_snapshot_campaign", "snapshot", ["campaign_id", "id"], unique=False)
    # Nullable columns: SQLite adds them without rebuilding the table, old rows read None.
    op.add_column("campaign", sa.Column("paused_at", sa.String(length=32), nullable=True))
    op.add_column("campaign", sa.Column(
        "pause_note", sqlmodel.sql.sqltypes.AutoString(length=300), nullable=True))
    op.add_column("campaign", sa.Column("pause_until", sa.String(length=32), nullable=True))
    op.add_column("campaign", sa.Column("tick_offset", sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("campaign") as batch:
        batch.drop_column("tick_offset")
        batch.drop_column("pause_until")
        batch.drop_column("pause_note")
        batch.drop_column("paused_at")
    op.drop_index("ix_snapshot_campaign", table_name="snapshot")
    op.drop_table("snapshot")
