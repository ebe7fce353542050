"""players of several claims

A Reddit user may play more than one claim of a campaign when ``[claims]
players_may_play_several`` allows it (issue #28): the player table's uniqueness moves from
(campaign, name) to (campaign, claim, name), so one user is still listed once per claim.

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-27 21:30:00
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0009"
down_revision: str | Sequence[str] | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("player") as batch:
        batch.drop_constraint("uq_player_campaign_id_reddit_name", type_="unique")
        batch.create_unique_constraint("uq_player_campaign_id_claim_id_reddit_name",
                                       ["campaign_id", "claim_id", "reddit_name"])


def downgrade() -> None:
    # Fails (nothing changed) while a user plays two claims: the moderators hand one over first.
    with op.batch_alter_table("player") as batch:
        batch.drop_constraint("uq_player_campaign_id_claim_id_reddit_name", type_="unique")
        batch.create_unique_constraint("uq_player_campaign_id_reddit_name",
                                       ["campaign_id", "reddit_name"])
