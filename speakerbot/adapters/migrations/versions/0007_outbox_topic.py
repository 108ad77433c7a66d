"""Keep what a public message is about (results, distribution) with it in the outbox.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-26

``speakerbot status`` counts the mail waiting by kind, and the results and distributions
apart from other announcements. It told them apart by a pattern on each message's
Subject; the service now stores the topic as it queues the message. Mail already waiting
has none, and is counted with the announcements until it is sent.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Add outbox.topic, empty for every message already queued."""
    with op.batch_alter_table("outbox") as batch:
        batch.add_column(sa.Column("topic", sa.String(length=32), nullable=True))


def downgrade() -> None:
    """Drop outbox.topic."""
    with op.batch_alter_table("outbox") as batch:
        batch.drop_column("topic")
