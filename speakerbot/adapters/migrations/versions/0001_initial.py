"""Initial schema: inbound mail, the game's events, the outbox, metadata.

Revision ID: 0001
Revises:
Create Date: 2024-11-22
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | None = None


def upgrade() -> None:
    """Create the four tables and their indexes."""
    op.create_table(
        "inbound",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("message_id", sa.Text(), nullable=False),
        sa.Column("sha256", sa.String(length=64), nullable=False),
        sa.Column("source", sa.String(length=32), nullable=False),
        sa.Column("uidvalidity", sa.BigInteger(), nullable=True),
        sa.Column("uid", sa.BigInteger(), nullable=True),
        sa.Column("received_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("raw", sa.LargeBinary(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("note", sa.Text(), nullable=False),
        sa.Column("processed_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_inbound")),
        sa.UniqueConstraint("uidvalidity", "uid", name=op.f("uq_inbound_uidvalidity_uid")),
        sa.CheckConstraint(
            "(uidvalidity IS NULL) = (uid IS NULL)", name=op.f("ck_inbound_uid_pair")
        ),
        sa.UniqueConstraint("message_id", name=op.f("uq_inbound_message_id")),
        sa.UniqueConstraint("sha256", name=op.f("uq_inbound_sha256")),
    )
    op.create_index("ix_inbound_pending", "inbound", ["status", "received_at", "id"])

    op.create_table(
        "events",
        sa.Column("seq", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("type", sa.String(length=100), nullable=False),
        sa.Column("data", sa.JSON(), nullable=False),
        sa.Column("inbound_id", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["inbound_id"], ["inbound.id"], name=op.f("fk_events_inbound_id_inbound")
        ),
        sa.PrimaryKeyConstraint("seq", name=op.f("pk_events")),
    )
    op.create_index(op.f("ix_events_inbound_id"), "events", ["inbound_id"])
    op.create_index(op.f("ix_events_type"), "events", ["type"])

    op.create_table(
        "outbox",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("message_id", sa.Text(), nullable=False),
        sa.Column("mail_from", sa.Text(), nullable=False),
        sa.Column("recipients", sa.JSON(), nullable=False),
        sa.Column("raw", sa.LargeBinary(), nullable=False),
        sa.Column("kind", sa.String(length=32), nullable=False),
        sa.Column("inbound_id", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("next_attempt_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.Column("sent_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("refused", sa.JSON(none_as_null=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["inbound_id"], ["inbound.id"], name=op.f("fk_outbox_inbound_id_inbound")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_outbox")),
        sa.UniqueConstraint("message_id", name=op.f("uq_outbox_message_id")),
    )
    op.create_index("ix_outbox_due", "outbox", ["status", "next_attempt_at"])
    op.create_index(op.f("ix_outbox_inbound_id"), "outbox", ["inbound_id"])
    op.create_index("ix_outbox_kind_created_at", "outbox", ["kind", "created_at"])

    op.create_table(
        "meta",
        sa.Column("key", sa.String(length=200), nullable=False),
        sa.Column("value", sa.JSON(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("key", name=op.f("pk_meta")),
    )


def downgrade() -> None:
    """Drop everything."""
    op.drop_table("meta")
    op.drop_index("ix_outbox_kind_created_at", table_name="outbox")
    op.drop_index(op.f("ix_outbox_inbound_id"), table_name="outbox")
    op.drop_index("ix_outbox_due", table_name="outbox")
    op.drop_table("outbox")
    op.drop_index(op.f("ix_events_type"), table_name="events")
    op.drop_index(op.f("ix_events_inbound_id"), table_name="events")
    op.drop_table("events")
    op.drop_index("ix_inbound_pending", table_name="inbound")
    op.drop_table("inbound")
