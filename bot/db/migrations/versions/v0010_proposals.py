"""proposals

The ``proposal`` table (issue #29): a moderator's action that waits for a second moderator's
approval (``[moderators] approval``, or a moderator acting on a claim they play).

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-27 22:40:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel.sql.sqltypes
from alembic import op

revision: str = "0010"
down_revision: str | Sequence[str] | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    text = sqlmodel.sql.sqltypes.AutoString
    op.create_table(
        "proposal",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("campaign_id", sa.Integer(), nullable=False),
        sa.Column("action", text(length=32), nullable=False),
        sa.Column("args_json", sa.JSON(), nullable=False),
        sa.Column("summary", text(length=300), nullable=False),
        sa.Column("proposer", text(length=60), nullable=False),
        sa.Column("why", text(length=300), nullable=False),
        sa.Column("involved", text(length=300), nullable=False),
        sa.Column("tick", sa.Integer(), nullable=False),
        sa.Column("fingerprint", text(length=64), nullable=False),
        sa.Column("status", sa.String(length=12), nullable=False),
        sa.Column("decided_by", text(length=60), nullable=False),
        sa.Column("decision", text(length=300), nullable=False),
        sa.Column("created_at", sa.String(length=32), nullable=True),
        sa.Column("decided_at", sa.String(length=32), nullable=True),
        sa.ForeignKeyConstraint(["campaign_id"], ["campaign.id"],
                                name=op.f("fk_proposal_campaign_id_campaign")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_proposal")),
    )
    op.create_index("ix_proposal_campaign_status", "proposal", ["campaign_id", "status", "id"],
                    unique=False)


def downgrade() -> None:
    op.drop_index("ix_proposal_campaign_status", table_name="proposal")
    op.drop_table("proposal")
