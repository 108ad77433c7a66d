"""Trust: the password's verdict, senders and body hashes, retries, confirmations, priorities.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-23
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"


def upgrade() -> None:
    """Add the columns and the confirmations table; Message-IDs stop being unique."""
    op.create_table(
        "confirmations",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("address", sa.Text(), nullable=False),
        sa.Column("token_sha256", sa.String(length=64), nullable=False),
        sa.Column("request_message_id", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("closed_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_confirmations")),
        sa.UniqueConstraint("token_sha256", name=op.f("uq_confirmations_token_sha256")),
    )
    op.create_index("ix_confirmations_address_created_at", "confirmations",
                    ["address", "created_at"])
    op.create_index(op.f("ix_confirmations_request_message_id"), "confirmations",
                    ["request_message_id"])
    with op.batch_alter_table("inbound") as batch:
        batch.drop_constraint("uq_inbound_message_id", type_="unique")
        batch.add_column(sa.Column("sender", sa.Text(), nullable=True))
        batch.add_column(sa.Column("body_sha256", sa.String(length=64), nullable=True))
        batch.add_column(sa.Column("password_verdict", sa.String(length=8), nullable=True))
        batch.add_column(sa.Column("retry_at", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("oversized", sa.BigInteger(), nullable=True))
        batch.add_column(sa.Column("size", sa.BigInteger(), nullable=True))
        batch.add_column(sa.Column("authenticated", sa.Boolean(), nullable=True))
        batch.add_column(sa.Column("confirmation_id", sa.Integer(), nullable=True))
        batch.create_foreign_key(op.f("fk_inbound_confirmation_id_confirmations"),
                                 "confirmations", ["confirmation_id"], ["id"])
        batch.create_index(op.f("ix_inbound_message_id"), ["message_id"])
        batch.create_index(op.f("ix_inbound_confirmation_id"), ["confirmation_id"])
    with op.batch_alter_table("outbox") as batch:
        batch.add_column(sa.Column("addressee", sa.Text(), nullable=True))
        batch.add_column(sa.Column("priority", sa.Integer(), nullable=False,
                                   server_default="1"))
        batch.create_index("ix_outbox_addressee_kind_created_at",
                           ["addressee", "kind", "created_at"])
        batch.create_index("ix_outbox_pending_priority", ["status", "priority", "id"])


def downgrade() -> None:
    """Drop what upgrade added (Message-IDs are unique again only if they still are)."""
    with op.batch_alter_table("outbox") as batch:
        batch.drop_index("ix_outbox_pending_priority")
        batch.drop_index("ix_outbox_addressee_kind_created_at")
        batch.drop_column("priority")
        batch.drop_column("addressee")
    with op.batch_alter_table("inbound") as batch:
        batch.drop_index(op.f("ix_inbound_confirmation_id"))
        batch.drop_index(op.f("ix_inbound_message_id"))
        batch.drop_constraint(op.f("fk_inbound_confirmation_id_confirmations"),
                              type_="foreignkey")
        for column in ("authenticated", "size", "confirmation_id", "oversized", "retry_at",
                       "password_verdict",
                       "body_sha256", "sender"):
            batch.drop_column(column)
        batch.create_unique_constraint("uq_inbound_message_id", ["message_id"])
    op.drop_table("confirmations")
