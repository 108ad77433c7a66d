"""Snapshots of the game's state, so that a start replays only the record's tail.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-24

Each row is the state after event ``seq`` (whose chain hash it keeps, to be sure it belongs
to this record), written by the code whose fingerprint is ``format``. Nothing reads a
snapshot of another format; the record stays the truth.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"


def upgrade() -> None:
    """Create the snapshots table."""
    op.create_table(
        "snapshots",
        sa.Column("seq", sa.Integer(), primary_key=True, autoincrement=False),
        sa.Column("format", sa.String(length=64), nullable=False),
        sa.Column("hash", sa.String(length=64), nullable=False),
        sa.Column("data", sa.LargeBinary(), nullable=False),
    )


def downgrade() -> None:
    """Drop it."""
    op.drop_table("snapshots")
