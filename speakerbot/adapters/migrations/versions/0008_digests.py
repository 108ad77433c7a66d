"""Digests by choice: who reads the game's public mail as one digest a day, and what waits.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-04

``digest_readers``: the addresses that sent DIGEST ON (or that the host put in digest
mode). ``digest_copies``: a reader's copy of a public message, kept (the message's bytes
stay in the outbox) until the day's digest is queued, in the same transaction that
deletes it.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"


def upgrade() -> None:
    """Create digest_readers and digest_copies."""
    op.create_table(
        "digest_readers",
        sa.Column("address", sa.Text(), nullable=False),
        sa.Column("since", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("address", name=op.f("pk_digest_readers")),
    )
    op.create_table(
        "digest_copies",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("message_id", sa.Text(), nullable=False),
        sa.Column("address", sa.Text(), nullable=False),
        sa.Column("observer", sa.Boolean(), nullable=False),
        sa.Column("queued_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_digest_copies")),
        sa.UniqueConstraint("message_id", "address",
                            name=op.f("uq_digest_copies_message_id_address")),
    )
    op.create_index("ix_digest_copies_queued_at", "digest_copies", ["queued_at"])


def downgrade() -> None:
    """Drop what upgrade made."""
    op.drop_index("ix_digest_copies_queued_at", table_name="digest_copies")
    for table in ("digest_copies", "digest_readers"):
        op.drop_table(table)
