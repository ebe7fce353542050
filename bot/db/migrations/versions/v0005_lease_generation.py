"""lease generation

``lease.generation``: a number that grows by one each time a process takes the lease. A holder
remembers the generation it took, and every commit it makes checks, in the same transaction,
that the row still carries it: a holder whose lease lapsed and was taken over cannot write.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-23 12:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | Sequence[str] | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("lease") as batch:
        batch.add_column(sa.Column("generation", sa.Integer(), nullable=False,
                                   server_default="0"))


def downgrade() -> None:
    with op.batch_alter_table("lease") as batch:
        batch.drop_column("generation")
