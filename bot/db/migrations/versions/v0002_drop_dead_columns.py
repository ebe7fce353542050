"""drop dead columns

Columns nothing reads: ``campaign.rules_json`` (the rules come from the config file),
``claim.garrison_infantry`` / ``garrison_cavalry`` (the troops at home are the garrison),
``tick_run.statements`` (never filled) and ``army.version`` (counted up, never compared).

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-23 09:30:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | Sequence[str] | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

DEAD: tuple[tuple[str, str], ...] = (
    ("campaign", "rules_json"),
    ("claim", "garrison_infantry"),
    ("claim", "garrison_cavalry"),
    ("tickrun", "statements"),
    ("army", "version"),
)


def upgrade() -> None:
    for table in dict.fromkeys(t for t, _ in DEAD):
        with op.batch_alter_table(table) as batch:
            for _, column in (d for d in DEAD if d[0] == table):
                batch.drop_column(column)


def downgrade() -> None:
    # Back as they were (NOT NULL); existing rows get the models' old defaults.
    with op.batch_alter_table("army") as batch:
        batch.add_column(sa.Column("version", sa.Integer(), nullable=False,
                                   server_default="0"))
    with op.batch_alter_table("tickrun") as batch:
        batch.add_column(sa.Column("statements", sa.Integer(), nullable=False,
                                   server_default="0"))
    with op.batch_alter_table("claim") as batch:
        batch.add_column(sa.Column("garrison_infantry", sa.Integer(), nullable=False,
                                   server_default="0"))
        batch.add_column(sa.Column("garrison_cavalry", sa.Integer(), nullable=False,
                                   server_default="0"))
    with op.batch_alter_table("campaign") as batch:
        batch.add_column(sa.Column("rules_json", sa.JSON(), nullable=False,
                                   server_default=sa.text("'{}'")))
