"""beacon rounds

The public beacon round (drand) each tick's dice are bound to, stored before the tick uses it
so that a replayed tick rolls the same dice (issue #29, docs/dice.md): one row per (campaign,
tick), with the round's signature (its randomness is the signature's SHA-256) or, when the
round could not be had in time, the reason.

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-27 23:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel.sql.sqltypes
from alembic import op

revision: str = "0011"
down_revision: str | Sequence[str] | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "beaconround",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("campaign_id", sa.Integer(), nullable=False),
        sa.Column("tick", sa.Integer(), nullable=False),
        sa.Column("chain", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("round", sa.Integer(), nullable=False),
        sa.Column("signature", sqlmodel.sql.sqltypes.AutoString(length=96), nullable=False),
        sa.Column("reason", sqlmodel.sql.sqltypes.AutoString(length=300), nullable=False),
        sa.Column("fetched_at", sa.String(length=32), nullable=False),
        sa.ForeignKeyConstraint(["campaign_id"], ["campaign.id"],
                                name=op.f("fk_beaconround_campaign_id_campaign")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_beaconround")),
        sa.UniqueConstraint("campaign_id", "tick", name=op.f("uq_beaconround_campaign_id_tick")),
    )


def downgrade() -> None:
    op.drop_table("beaconround")
