"""Alembic environment for speakerbot's database.

``Store.upgrade()`` runs it with its own connection (in ``config.attributes["connection"]``),
inside a transaction it commits; no ``alembic.ini`` is needed. Run by the ``alembic``
command instead (say, to autogenerate a revision), it connects to ``sqlalchemy.url``.
Either way a database made by an earlier shape of its recorded revision is first given what
that revision makes today (``earlier.py``), since alembic reads the revision's number alone.
"""

from __future__ import annotations

from alembic import context
from sqlalchemy import Connection

from speakerbot.adapters.migrations.earlier import bring_to_recorded_shape
from speakerbot.adapters.store import Base, make_engine

config = context.config
target_metadata = Base.metadata


def _configure(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        compare_type=True,
        # SQLite alters a table by copying it; autogenerate must write batch operations.
        render_as_batch=connection.dialect.name == "sqlite",
    )


def run_migrations_offline() -> None:
    """Write the migrations' SQL for ``sqlalchemy.url`` instead of running them."""
    context.configure(
        url=config.get_main_option("sqlalchemy.url"),
        target_metadata=target_metadata,
        literal_binds=True,
    )
    with context.begin_transaction():
        context.run_migrations()


def _migrate() -> None:
    with context.begin_transaction():
        bring_to_recorded_shape(context.get_context())
        context.run_migrations()


def run_migrations_online() -> None:
    """Run the migrations on the given connection, or on a new one to ``sqlalchemy.url``."""
    connection = config.attributes.get("connection")
    if connection is not None:
        _configure(connection)
        _migrate()
        return
    url = config.get_main_option("sqlalchemy.url")
    if not url:
        raise RuntimeError("no database: set sqlalchemy.url or pass a connection")
    engine = make_engine(url)
    try:
        with engine.connect() as own:
            _configure(own)
            _migrate()
    finally:
        engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
