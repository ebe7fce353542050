"""claim life

A claim's life over a long campaign (issue #28): when its players last wrote
(``active_at``), its announced leave (``away_until``, ``away_reason``), its hold
(``hold``: held as inactive or by the moderators, or a hold the moderators lifted) and its
retirement (``retired_at``). All nullable: SQLite adds them without rebuilding the table, old
rows and old snapshots read None.

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-27 19:45:00
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

import sqlalchemy as sa
import sqlmodel.sql.sqltypes
from alembic import op

revision: str = "0008"
down_revision: str | Sequence[str] | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("claim", sa.Column("active_at", sa.String(length=32), nullable=True))
    op.add_column("claim", sa.Column("away_until", sa.String(length=32), nullable=True))
    op.add_column("claim", sa.Column(
        "away_reason", sqlmodel.sql.sqltypes.AutoString(length=200), nullable=True))
    op.add_column("claim", sa.Column(
        "hold", sqlmodel.sql.sqltypes.AutoString(length=12), nullable=True))
    op.add_column("claim", sa.Column("retired_at", sa.String(length=32), nullable=True))
    # A running campaign's claims count as active from the upgrade (no claim is found inactive
    # the moment the feature arrives): the instant is written by the application, as UTC text.
    now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")  # as bot.db.types stores it
    op.execute(sa.text("UPDATE claim SET active_at = :now").bindparams(now=now))


def downgrade() -> None:
    with op.batch_alter_table("claim") as batch:
        batch.drop_column("retired_at")
        batch.drop_column("hold")
        batch.drop_column("away_reason")
        batch.drop_column("away_until")
        batch.drop_column("active_at")
