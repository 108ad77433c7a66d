"""The record's hash chains: each event's hash, and its number and hash in the public record.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-24

The columns start empty for events recorded before; the store links them on its next
write (``speakerbot.engine.chain``), so an older record is chained exactly as a new one.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"


def upgrade() -> None:
    """Add the chain's columns to the events."""
    with op.batch_alter_table("events") as batch:
        batch.add_column(sa.Column("hash", sa.String(length=64), nullable=True))
        batch.add_column(sa.Column("public_seq", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("public_hash", sa.String(length=64), nullable=True))
        batch.create_index("ix_events_public_seq", ["public_seq"], unique=True)


def downgrade() -> None:
    """Drop them."""
    with op.batch_alter_table("events") as batch:
        batch.drop_index("ix_events_public_seq")
        batch.drop_column("public_hash")
        batch.drop_column("public_seq")
        batch.drop_column("hash")
