"""bot state

The Reddit side's small named state per campaign (``botstate``): the cached access token,
a delivery halt, refused credentials, each claim's dispatch conversation.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-23 09:09:42.506432
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel.sql.sqltypes
from alembic import op

revision: str = "0003"
down_revision: str | Sequence[str] | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "botstate",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("campaign_id", sa.Integer(), nullable=False),
        sa.Column("name", sqlmodel.sql.sqltypes.AutoString(length=80), nullable=False),
        sa.Column("value", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("updated_at", sa.String(length=32), nullable=True),
        sa.ForeignKeyConstraint(
            ["campaign_id"], ["campaign.id"], name=op.f("fk_botstate_campaign_id_campaign")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_botstate")),
        sa.UniqueConstraint("campaign_id", "name", name=op.f("uq_botstate_campaign_id_name")),
    )


def downgrade() -> None:
    op.drop_table("botstate")
