"""data version

One row counting the transactions that wrote to the database (``dataversion``, issue #25's
preview cache, docs/web.md "Performance"): every writing transaction adds one as it commits,
so the web pages' moderators' room can tell that nothing changed since it made its preview.

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-28 01:30:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012"
down_revision: str | Sequence[str] | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    table = op.create_table(
        "dataversion",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("n", sa.BigInteger(), server_default="0", nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_dataversion")),
    )
    op.bulk_insert(table, [{"id": 1, "n": 0}])


def downgrade() -> None:
    op.drop_table("dataversion")
