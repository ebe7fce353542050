"""initial schema

Every table of bot/db/models.py as first released: the campaign, its claims, players,
armies, characters, relations, sieges, pending battles, resource holders, the event log, the
inbox and outbox, the leases and the tick/month run keys. Generated against an empty SQLite
database, then reviewed by hand (constraint names come from the models' naming convention).

Revision ID: 0001
Revises: None
Create Date: 2026-11-22 13:11:45.057270
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel.sql.sqltypes
from alembic import op

revision: str = "0001"
down_revision: str | Sequence[str] | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "campaign",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sqlmodel.sql.sqltypes.AutoString(length=120), nullable=False),
        sa.Column("subreddit", sqlmodel.sql.sqltypes.AutoString(length=80), nullable=False),
        sa.Column("secret", sqlmodel.sql.sqltypes.AutoString(length=128), nullable=False),
        sa.Column("season", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("last_tick", sa.Integer(), nullable=False),
        sa.Column("last_month", sa.Integer(), nullable=False),
        sa.Column("map_text", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("rules_json", sa.JSON(), nullable=False),
        sa.Column("catalogue_json", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.String(length=32), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_campaign")),
    )
    op.create_table(
        "lease",
        sa.Column("name", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("holder", sqlmodel.sql.sqltypes.AutoString(length=120), nullable=False),
        sa.Column("expires_at", sa.String(length=32), nullable=True),
        sa.PrimaryKeyConstraint("name", name=op.f("pk_lease")),
    )
    op.create_table(
        "claim",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("campaign_id", sa.Integer(), nullable=False),
        sa.Column("name", sqlmodel.sql.sqltypes.AutoString(length=80), nullable=False),
        sa.Column("holdfast", sqlmodel.sql.sqltypes.AutoString(length=8), nullable=False),
        sa.Column("gold", sa.String(length=40), nullable=False),
        sa.Column("infantry", sa.Integer(), nullable=False),
        sa.Column("cavalry", sa.Integer(), nullable=False),
        sa.Column("ships", sa.Integer(), nullable=False),
        sa.Column("scattered_until", sa.String(length=32), nullable=True),
        sa.Column("scattered_infantry", sa.Integer(), nullable=False),
        sa.Column("scattered_cavalry", sa.Integer(), nullable=False),
        sa.Column("slain_json", sa.JSON(), nullable=False),
        sa.Column("improvements_json", sa.JSON(), nullable=False),
        sa.Column("garrison_infantry", sa.Integer(), nullable=False),
        sa.Column("garrison_cavalry", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["campaign_id"], ["campaign.id"], name=op.f("fk_claim_campaign_id_campaign")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_claim")),
        sa.UniqueConstraint("campaign_id", "name", name=op.f("uq_claim_campaign_id_name")),
    )
    with op.batch_alter_table("claim", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_claim_campaign_id"), ["campaign_id"], unique=False)

    op.create_table(
        "conversationcursor",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("campaign_id", sa.Integer(), nullable=False),
        sa.Column("conversation_id", sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
        sa.Column("last_updated", sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
        sa.ForeignKeyConstraint(
            ["campaign_id"],
            ["campaign.id"],
            name=op.f("fk_conversationcursor_campaign_id_campaign"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_conversationcursor")),
        sa.UniqueConstraint(
            "campaign_id",
            "conversation_id",
            name=op.f("uq_conversationcursor_campaign_id_conversation_id"),
        ),
    )
    op.create_table(
        "event",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("campaign_id", sa.Integer(), nullable=False),
        sa.Column("tick", sa.Integer(), nullable=False),
        sa.Column("kind", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("claim_id", sa.Integer(), nullable=True),
        sa.Column("public", sa.Boolean(), nullable=False),
        sa.Column("actor", sqlmodel.sql.sqltypes.AutoString(length=60), nullable=False),
        sa.Column("summary", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("data_json", sa.JSON(), nullable=False),
        sa.Column("dice_json", sa.JSON(), nullable=False),
        sa.Column("at", sa.String(length=32), nullable=True),
        sa.ForeignKeyConstraint(
            ["campaign_id"], ["campaign.id"], name=op.f("fk_event_campaign_id_campaign")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_event")),
    )
    with op.batch_alter_table("event", schema=None) as batch_op:
        batch_op.create_index("ix_event_campaign_tick", ["campaign_id", "tick"], unique=False)
        batch_op.create_index(batch_op.f("ix_event_claim_id"), ["claim_id"], unique=False)

    op.create_table(
        "inboxmessage",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("campaign_id", sa.Integer(), nullable=False),
        sa.Column("message_id", sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
        sa.Column("conversation_id", sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
        sa.Column("author", sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
        sa.Column("outcome", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("processed_at", sa.String(length=32), nullable=True),
        sa.ForeignKeyConstraint(
            ["campaign_id"], ["campaign.id"], name=op.f("fk_inboxmessage_campaign_id_campaign")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_inboxmessage")),
        sa.UniqueConstraint(
            "campaign_id", "message_id", name=op.f("uq_inboxmessage_campaign_id_message_id")
        ),
    )
    op.create_table(
        "monthlyrun",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("campaign_id", sa.Integer(), nullable=False),
        sa.Column("month", sa.Integer(), nullable=False),
        sa.Column("tick", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["campaign_id"], ["campaign.id"], name=op.f("fk_monthlyrun_campaign_id_campaign")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_monthlyrun")),
        sa.UniqueConstraint("campaign_id", "month", name=op.f("uq_monthlyrun_campaign_id_month")),
    )
    op.create_table(
        "outbox",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("campaign_id", sa.Integer(), nullable=False),
        sa.Column("key", sqlmodel.sql.sqltypes.AutoString(length=120), nullable=False),
        sa.Column("kind", sqlmodel.sql.sqltypes.AutoString(length=12), nullable=False),
        sa.Column("public", sa.Boolean(), nullable=False),
        sa.Column("target", sqlmodel.sql.sqltypes.AutoString(length=80), nullable=False),
        sa.Column("claim_id", sa.Integer(), nullable=True),
        sa.Column("title", sqlmodel.sql.sqltypes.AutoString(length=300), nullable=False),
        sa.Column("body", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("flair", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("tick", sa.Integer(), nullable=False),
        sa.Column("status", sqlmodel.sql.sqltypes.AutoString(length=12), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("claimed_by", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=True),
        sa.Column("claimed_until", sa.String(length=32), nullable=True),
        sa.Column("not_before", sa.String(length=32), nullable=True),
        sa.Column("reddit_id", sqlmodel.sql.sqltypes.AutoString(length=40), nullable=True),
        sa.Column("last_error", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("created_at", sa.String(length=32), nullable=True),
        sa.Column("delivered_at", sa.String(length=32), nullable=True),
        sa.ForeignKeyConstraint(
            ["campaign_id"], ["campaign.id"], name=op.f("fk_outbox_campaign_id_campaign")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_outbox")),
        sa.UniqueConstraint("campaign_id", "key", name=op.f("uq_outbox_campaign_id_key")),
    )
    with op.batch_alter_table("outbox", schema=None) as batch_op:
        batch_op.create_index("ix_outbox_status", ["campaign_id", "status", "id"], unique=False)

    op.create_table(
        "pendingbattle",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("campaign_id", sa.Integer(), nullable=False),
        sa.Column("tile", sqlmodel.sql.sqltypes.AutoString(length=8), nullable=False),
        sa.Column("kind", sqlmodel.sql.sqltypes.AutoString(length=12), nullable=False),
        sa.Column("attacker_army", sa.Integer(), nullable=False),
        sa.Column("defender_army", sa.Integer(), nullable=False),
        sa.Column("defender_claim", sa.Integer(), nullable=False),
        sa.Column("attacker_claim", sa.Integer(), nullable=False),
        sa.Column("created_tick", sa.Integer(), nullable=False),
        sa.Column("resolve_tick", sa.Integer(), nullable=False),
        sa.Column("reactor_claim", sa.Integer(), nullable=True),
        sa.Column("reaction", sqlmodel.sql.sqltypes.AutoString(length=12), nullable=True),
        sa.Column("holdfast", sqlmodel.sql.sqltypes.AutoString(length=8), nullable=False),
        sa.Column("status", sqlmodel.sql.sqltypes.AutoString(length=12), nullable=False),
        sa.ForeignKeyConstraint(
            ["campaign_id"], ["campaign.id"], name=op.f("fk_pendingbattle_campaign_id_campaign")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_pendingbattle")),
    )
    with op.batch_alter_table("pendingbattle", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_pendingbattle_campaign_id"), ["campaign_id"], unique=False
        )

    op.create_table(
        "relation",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("campaign_id", sa.Integer(), nullable=False),
        sa.Column("claim_a", sa.Integer(), nullable=False),
        sa.Column("claim_b", sa.Integer(), nullable=False),
        sa.Column("status", sqlmodel.sql.sqltypes.AutoString(length=8), nullable=False),
        sa.ForeignKeyConstraint(
            ["campaign_id"], ["campaign.id"], name=op.f("fk_relation_campaign_id_campaign")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_relation")),
        sa.UniqueConstraint(
            "campaign_id",
            "claim_a",
            "claim_b",
            name=op.f("uq_relation_campaign_id_claim_a_claim_b"),
        ),
    )
    op.create_table(
        "resourceholder",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("campaign_id", sa.Integer(), nullable=False),
        sa.Column("tile", sqlmodel.sql.sqltypes.AutoString(length=8), nullable=False),
        sa.Column("claim_id", sa.Integer(), nullable=True),
        sa.Column("ceded_to", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(
            ["campaign_id"], ["campaign.id"], name=op.f("fk_resourceholder_campaign_id_campaign")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_resourceholder")),
        sa.UniqueConstraint("campaign_id", "tile", name=op.f("uq_resourceholder_campaign_id_tile")),
    )
    op.create_table(
        "tickrun",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("campaign_id", sa.Integer(), nullable=False),
        sa.Column("tick", sa.Integer(), nullable=False),
        sa.Column("statements", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["campaign_id"], ["campaign.id"], name=op.f("fk_tickrun_campaign_id_campaign")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tickrun")),
        sa.UniqueConstraint("campaign_id", "tick", name=op.f("uq_tickrun_campaign_id_tick")),
    )
    op.create_table(
        "army",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("campaign_id", sa.Integer(), nullable=False),
        sa.Column("claim_id", sa.Integer(), nullable=False),
        sa.Column("kind", sqlmodel.sql.sqltypes.AutoString(length=8), nullable=False),
        sa.Column("state", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("tile", sqlmodel.sql.sqltypes.AutoString(length=8), nullable=False),
        sa.Column("infantry", sa.Integer(), nullable=False),
        sa.Column("cavalry", sa.Integer(), nullable=False),
        sa.Column("ships", sa.Integer(), nullable=False),
        sa.Column("accepted_at", sa.String(length=32), nullable=True),
        sa.Column("ready_tick", sa.Integer(), nullable=True),
        sa.Column("depart_tick", sa.Integer(), nullable=True),
        sa.Column("path_json", sa.JSON(), nullable=False),
        sa.Column("costs_json", sa.JSON(), nullable=False),
        sa.Column("travelled_json", sa.JSON(), nullable=False),
        sa.Column("saved", sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
        sa.Column("arrival_tick", sa.Integer(), nullable=True),
        sa.Column("stationary_since", sa.Integer(), nullable=True),
        sa.Column("retreat_penalty", sa.Boolean(), nullable=False),
        sa.Column("commander_id", sa.Integer(), nullable=True),
        sa.Column("equipment_json", sa.JSON(), nullable=False),
        sa.Column("meta_json", sa.JSON(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["campaign_id"], ["campaign.id"], name=op.f("fk_army_campaign_id_campaign")
        ),
        sa.ForeignKeyConstraint(["claim_id"], ["claim.id"], name=op.f("fk_army_claim_id_claim")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_army")),
    )
    with op.batch_alter_table("army", schema=None) as batch_op:
        batch_op.create_index("ix_army_campaign_state", ["campaign_id", "state"], unique=False)
        batch_op.create_index(batch_op.f("ix_army_claim_id"), ["claim_id"], unique=False)

    op.create_table(
        "character",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("campaign_id", sa.Integer(), nullable=False),
        sa.Column("claim_id", sa.Integer(), nullable=False),
        sa.Column("name", sqlmodel.sql.sqltypes.AutoString(length=120), nullable=False),
        sa.Column("skills_json", sa.JSON(), nullable=False),
        sa.Column("army_id", sa.Integer(), nullable=True),
        sa.Column("status", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.ForeignKeyConstraint(
            ["campaign_id"], ["campaign.id"], name=op.f("fk_character_campaign_id_campaign")
        ),
        sa.ForeignKeyConstraint(
            ["claim_id"], ["claim.id"], name=op.f("fk_character_claim_id_claim")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_character")),
    )
    with op.batch_alter_table("character", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_character_campaign_id"), ["campaign_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_character_claim_id"), ["claim_id"], unique=False)

    op.create_table(
        "player",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("campaign_id", sa.Integer(), nullable=False),
        sa.Column("claim_id", sa.Integer(), nullable=False),
        sa.Column("reddit_name", sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
        sa.ForeignKeyConstraint(
            ["campaign_id"], ["campaign.id"], name=op.f("fk_player_campaign_id_campaign")
        ),
        sa.ForeignKeyConstraint(["claim_id"], ["claim.id"], name=op.f("fk_player_claim_id_claim")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_player")),
        sa.UniqueConstraint(
            "campaign_id", "reddit_name", name=op.f("uq_player_campaign_id_reddit_name")
        ),
    )
    with op.batch_alter_table("player", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_player_campaign_id"), ["campaign_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_player_claim_id"), ["claim_id"], unique=False)

    op.create_table(
        "siege",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("campaign_id", sa.Integer(), nullable=False),
        sa.Column("army_id", sa.Integer(), nullable=False),
        sa.Column("besieger_claim", sa.Integer(), nullable=False),
        sa.Column("defender_claim", sa.Integer(), nullable=False),
        sa.Column("holdfast", sqlmodel.sql.sqltypes.AutoString(length=8), nullable=False),
        sa.Column("started_tick", sa.Integer(), nullable=False),
        sa.Column("months_elapsed", sa.Integer(), nullable=False),
        sa.Column("months_required", sa.Integer(), nullable=False),
        sa.Column("paused", sa.Boolean(), nullable=False),
        sa.Column("status", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.ForeignKeyConstraint(["army_id"], ["army.id"], name=op.f("fk_siege_army_id_army")),
        sa.ForeignKeyConstraint(
            ["campaign_id"], ["campaign.id"], name=op.f("fk_siege_campaign_id_campaign")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_siege")),
    )
    with op.batch_alter_table("siege", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_siege_campaign_id"), ["campaign_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("siege", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_siege_campaign_id"))

    op.drop_table("siege")
    with op.batch_alter_table("player", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_player_claim_id"))
        batch_op.drop_index(batch_op.f("ix_player_campaign_id"))

    op.drop_table("player")
    with op.batch_alter_table("character", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_character_claim_id"))
        batch_op.drop_index(batch_op.f("ix_character_campaign_id"))

    op.drop_table("character")
    with op.batch_alter_table("army", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_army_claim_id"))
        batch_op.drop_index("ix_army_campaign_state")

    op.drop_table("army")
    op.drop_table("tickrun")
    op.drop_table("resourceholder")
    op.drop_table("relation")
    with op.batch_alter_table("pendingbattle", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_pendingbattle_campaign_id"))

    op.drop_table("pendingbattle")
    with op.batch_alter_table("outbox", schema=None) as batch_op:
        batch_op.drop_index("ix_outbox_status")

    op.drop_table("outbox")
    op.drop_table("monthlyrun")
    op.drop_table("inboxmessage")
    with op.batch_alter_table("event", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_event_claim_id"))
        batch_op.drop_index("ix_event_campaign_tick")

    op.drop_table("event")
    op.drop_table("conversationcursor")
    with op.batch_alter_table("claim", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_claim_campaign_id"))

    op.drop_table("claim")
    op.drop_table("lease")
    op.drop_table("campaign")
