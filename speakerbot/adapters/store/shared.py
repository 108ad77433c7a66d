"""The tables every game of a host shares: the workers, and which of them holds each game.

They live in the schema ``public``, beside the games' own schemas, on a
``MetaData`` of their own rather than the games' ``Base.metadata``: the games' migrations
own that one, and these tables have no history to migrate. A worker's row and a game's
lease say only who serves a game now; a lost row costs one lease's wait, never a record.
So they are created when missing (``create_all(checkfirst=True)``) and never altered.
"""

from __future__ import annotations

from sqlalchemy import BigInteger, Column, Integer, MetaData, Table, Text

from speakerbot.adapters.store.schema import UtcDateTime

SHARED_SCHEMA = "public"
"""Named, not left to the default: a game's store translates the default schema to the
game's own in every statement, and the fence reads the lease inside the game's transaction."""

SHARED_METADATA = MetaData(schema=SHARED_SCHEMA)
"""The shared tables (``workers``, ``game_leases``), apart from the games' schema."""

workers = Table(
    "workers",
    SHARED_METADATA,
    # A random id per process: a pid alone repeats across machines and restarts.
    Column("worker", Text, primary_key=True),
    Column("host", Text, nullable=False),
    Column("pid", Integer, nullable=False),
    Column("started_at", UtcDateTime, nullable=False),
    Column("seen_at", UtcDateTime, nullable=False),
)
"""One row a running ``speakerbot run`` process, its ``seen_at`` renewed every round."""

game_leases = Table(
    "game_leases",
    SHARED_METADATA,
    Column("game", Text, primary_key=True),
    # NULL while no worker holds the game. No foreign key to ``workers``: a worker's row
    # is forgotten some time after it died, and its expired leases say who held them last.
    Column("worker", Text, nullable=True),
    # One more at every take: the fencing token that a write of the game checks.
    Column("epoch", BigInteger, nullable=False),
    Column("expires_at", UtcDateTime, nullable=True),
)
"""One row a game: which worker holds it, under which epoch, until when."""
