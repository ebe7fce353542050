"""post images

The ``postimage`` table: a map picture stored with the outbox entry it belongs to (for
the monthly [Realm] post and inset maps).

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-23 09:20:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel.sql.sqltypes
from alembic import op

revision: str = "0004"
down_revision: str | Sequence[str] | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "postimage",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("campaign_id", sa.Integer(), nullable=False),
        sa.Column("key", sqlmodel.sql.sqltypes.AutoString(length=120), nullable=False),
        sa.Column("name", sqlmodel.sql.sqltypes.AutoString(length=80), nullable=False),
        sa.Column("caption", sqlmodel.sql.sqltypes.AutoString(length=180), nullable=False),
        sa.Column("data", sa.LargeBinary(), nullable=False),
        sa.Column("scene_json", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.String(length=32), nullable=True),
        sa.ForeignKeyConstraint(["campaign_id"], ["campaign.id"],
                                name=op.f("fk_postimage_campaign_id_campaign")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_postimage")),
        sa.UniqueConstraint("campaign_id", "key", name=op.f("uq_postimage_campaign_id_key")),
    )


def downgrade() -> None:
    op.drop_table("postimage")
