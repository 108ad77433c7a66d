"""Keep what intake read of each message, so that it is read once.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-26

``reading``: the mail reader's own encoding of what it read (the mail, its commands, the
sender's verdict), written by intake and opaque to the store. Processing, a retry after a
failed transaction and the next process after a restart take it instead of reading the
message again. NULL for every message stored before, and for one whose reading was written
by other code: those are read again from their stored bytes, as before.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Add inbound.reading, NULL for every message already stored."""
    # A nullable column needs no copy of the table, even on SQLite.
    op.add_column("inbound", sa.Column("reading", sa.LargeBinary(), nullable=True))


def downgrade() -> None:
    """Drop inbound.reading."""
    with op.batch_alter_table("inbound") as batch:
        batch.drop_column("reading")
