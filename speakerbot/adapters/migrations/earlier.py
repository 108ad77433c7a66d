"""What a revision's number once meant: the earlier shapes some releases gave the database.

A few revisions were changed after a commit of the main line had run them: 0002 and 0005
gained columns (commits 3dc0562 and 49efc91 ran them without), the readings' 0006
(2fd87e1) gained ``outbox.topic``, which 671a20f had added as a 0007 of its own, the number
today's 0007 (the audience) took. A database such a commit made records the revision's
number without all that the revision makes today, and alembic, which reads the number
alone, would take the missing part as done (a game whose first queued mail, or first
bounce, then fails). Before the migrations run, ``bring_to_recorded_shape`` gives such a
database what its recorded revision makes today, so that every migration after it finds
what it expects; a database of today's shapes is left alone.

A later revision that drops or renames one of these columns must say so here.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import sqlalchemy as sa
from alembic.operations import Operations
from alembic.runtime.migration import MigrationContext


class LaterColumn(NamedTuple):
    """A nullable column that ``revision`` makes today and did not make when ``made_by`` ran it.

    Every database recorded at ``revision`` or after has it, unless an earlier shape of that
    revision made it: the migrations after it never add it again.
    """

    revision: str
    table: str
    column: str
    type: sa.types.TypeEngine[Any]
    made_by: str


LATER_COLUMNS = (
    LaterColumn("0002", "inbound", "size", sa.BigInteger(), "3dc0562"),
    LaterColumn("0002", "inbound", "authenticated", sa.Boolean(), "3dc0562"),
    LaterColumn("0005", "inbound", "reason", sa.String(length=32), "49efc91"),
    LaterColumn("0006", "outbox", "topic", sa.String(length=32), "2fd87e1"),
)
"""The columns added to a revision after a commit of the main line had run it."""


class Renumbered(NamedTuple):
    """A revision number ``made_by`` gave a change that today is part of ``now``.

    Told apart by ``table``, which the revision of that number makes today.
    """

    revision: str
    table: str
    now: str
    made_by: str


RENUMBERED = (
    # 671a20f's 0006 (inbound.reading) and 0007 (outbox.topic) are today's 0006 together.
    Renumbered("0007", "observers", "0006", "671a20f"),
)
"""The revision numbers that once named another change."""


def bring_to_recorded_shape(context: MigrationContext) -> None:
    """Give a database made by an earlier shape of its recorded revision what it lacks.

    Runs in the migrations' transaction, before them: on the game's own tables (the
    connection's default namespace, or the schema its translation map names).
    """
    recorded = context.get_current_revision()
    if recorded is None or context.connection is None:
        return
    inspector = sa.inspect(context.connection)
    recorded = _renumbered(context.connection, inspector, recorded)
    operations = Operations(context)
    for later in LATER_COLUMNS:
        if int(recorded) >= int(later.revision) and _lacks(inspector, later):
            operations.add_column(later.table, sa.Column(later.column, later.type, nullable=True))


def _renumbered(connection: sa.Connection, inspector: sa.Inspector, recorded: str) -> str:
    """Return the revision the database is at today, recorded anew if it was renumbered."""
    for renumbered in RENUMBERED:
        if recorded == renumbered.revision and not inspector.has_table(renumbered.table):
            # A Table rather than text, so that a game's schema translation names its own.
            version = sa.table("alembic_version", sa.column("version_num"))
            connection.execute(sa.update(version).values(version_num=renumbered.now))
            return renumbered.now
    return recorded


def _lacks(inspector: sa.Inspector, later: LaterColumn) -> bool:
    """Whether the database has the column's table without the column."""
    # Every shape listed had the table: a database without it is none of them, left as it is.
    if not inspector.has_table(later.table):
        return False
    return later.column not in {column["name"] for column in inspector.get_columns(later.table)}
