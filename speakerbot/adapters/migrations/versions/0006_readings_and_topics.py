"""Keep what intake read of each message, and what each public message is about.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-26

``inbound.reading``: the mail reader's own encoding of what it read (the mail, its commands,
the sender's verdict), written by intake and opaque to the store. Processing, a retry after
a failed transaction and the next process after a restart take it instead of reading the
message again. NULL for every message stored before, and for one whose reading was written
by other code: those are read again from their stored bytes, as before.

``outbox.topic``: results or distribution, stored as the service queues a public message,
so that ``speakerbot status`` counts waiting mail by what it is (it read a pattern on each
message's Subject before). Mail already waiting has none, and is counted with the
announcements until it is sent.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"


def upgrade() -> None:
    """Add inbound.reading and outbox.topic, NULL for every row already stored."""
    # Nullable columns need no copy of the table, even on SQLite.
    op.add_column("inbound", sa.Column("reading", sa.LargeBinary(), nullable=True))
    op.add_column("outbox", sa.Column("topic", sa.String(length=32), nullable=True))


def downgrade() -> None:
    """Drop inbound.reading and outbox.topic."""
    for table, column in (("inbound", "reading"), ("outbox", "topic")):
        with op.batch_alter_table(table) as batch:
            batch.drop_column(column)
