"""Count the starts of a message's processing that never finished; keep why mail was not done.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-25

A message that kills the process processing it (out of memory, a crash) would otherwise be
read again after every restart, forever; counted before each start and cleared when a start
ends, the count lets the next process set it aside after three. ``reason``: why a message
was held, set aside or not acted on, as a short code beside the sentence in ``note``.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"


def upgrade() -> None:
    """Add inbound.started, zero for every message already stored, and inbound.reason."""
    with op.batch_alter_table("inbound") as batch:
        batch.add_column(sa.Column("started", sa.Integer(), nullable=False,
                                   server_default="0"))
        batch.add_column(sa.Column("reason", sa.String(length=32), nullable=True))


def downgrade() -> None:
    """Drop inbound.started and inbound.reason."""
    with op.batch_alter_table("inbound") as batch:
        batch.drop_column("reason")
        batch.drop_column("started")
