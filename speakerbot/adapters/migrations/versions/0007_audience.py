"""The game's audience: observers, bounces matched to their recipients, unreachable players.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-27

``observers``: the addresses that confirmed OBSERVE. ``bounces``: one line per outgoing
message and recipient whose bounce came back (its weight in tenths of a point).
``unreachable``: the players whose bounces reached ``[limits] bounce_score``; the host was
told when the line was written. ``outbox.observers``: the observers among a public
message's recipients, NULL for every message stored before (they had none).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"


def upgrade() -> None:
    """Create observers, bounces and unreachable; add outbox.observers."""
    op.create_table(
        "observers",
        sa.Column("address", sa.Text(), nullable=False),
        sa.Column("since", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("address", name=op.f("pk_observers")),
    )
    op.create_table(
        "bounces",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("address", sa.Text(), nullable=False),
        sa.Column("message", sa.String(length=32), nullable=False),
        sa.Column("weight", sa.Integer(), nullable=False),
        sa.Column("detail", sa.Text(), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_bounces")),
        sa.UniqueConstraint("address", "message", name=op.f("uq_bounces_address_message")),
    )
    op.create_index("ix_bounces_address_at", "bounces", ["address", "at"])
    op.create_table(
        "unreachable",
        sa.Column("address", sa.Text(), nullable=False),
        sa.Column("since", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("address", name=op.f("pk_unreachable")),
    )
    op.add_column("outbox", sa.Column("observers", sa.JSON(), nullable=True))


def downgrade() -> None:
    """Drop what upgrade made."""
    with op.batch_alter_table("outbox") as batch:
        batch.drop_column("observers")
    op.drop_index("ix_bounces_address_at", table_name="bounces")
    for table in ("unreachable", "bounces", "observers"):
        op.drop_table(table)
