"""The game a database held before games had ids, made the game of the id it is given.

Such a game sits in the database's default namespace (the default schema on PostgreSQL, the
configured file on SQLite), which only the game ``main`` reads. ``move_main_game`` brings it
up to date where it is, by its own migrations, then moves it whole, rows untouched, to the
namespace of its id: its record and its chain's head stay exactly as they were.
"""

from __future__ import annotations

import os
from pathlib import Path

from sqlalchemy import Connection, inspect, text

from speakerbot.adapters.store.database import StoreBase, game_schema, game_url
from speakerbot.adapters.store.schema import Base

VERSION_TABLE = "alembic_version"


def move_main_game(url: str, game: str) -> None:
    """Make the game kept in the default namespace (made before games had ids) ``game``'s.

    Its migrations run first, where it is: a database of any earlier release then holds
    today's tables, and those move whole, rows untouched, into the schema ``game_<id>`` on
    PostgreSQL (``ALTER TABLE ... SET SCHEMA``, which takes the table's indexes, constraints
    and sequences with it), or, on SQLite, the file is renamed to the game's own. Holds the
    main game's daemon lock throughout (``AlreadyRunning``: a daemon runs on it). Raises
    ``FileExistsError``, the game left as it was, when ``game`` already has a database of
    its own.
    """
    main = StoreBase(url)
    try:
        with main.daemon_lock():
            if main.engine.dialect.name == "sqlite":
                target = Path(str(game_url(url, game).database))
                _refuse_taken_file(target)
                main.upgrade()
                _move_sqlite_file(main, target)
            else:
                schema = str(game_schema(game))
                with main.engine.connect() as conn:
                    _refuse_taken_schema(conn, schema)
                main.upgrade()
                _move_to_schema(main, schema)
    finally:
        main.close()


def _refuse_taken_file(target: Path) -> None:
    if target.exists():
        raise FileExistsError(f"{target} exists: the game already has a database")


def _refuse_taken_schema(conn: Connection, schema: str) -> None:
    if inspect(conn).has_table(VERSION_TABLE, schema=schema):
        raise FileExistsError(f"the schema {schema} already holds a game")


def _move_sqlite_file(main: StoreBase, target: Path) -> None:
    _refuse_taken_file(target)
    # Everything into the main file, so that the file alone is the whole game; outside a
    # transaction (the engine's own would begin one), as a checkpoint must be.
    raw = main.engine.raw_connection()
    try:
        raw.cursor().execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        raw.close()
    main.engine.dispose()
    source = Path(str(main.engine.url.database))
    os.replace(source, target)
    for suffix in ("-wal", "-shm"):
        Path(str(source) + suffix).unlink(missing_ok=True)


def _move_to_schema(main: StoreBase, schema: str) -> None:
    with main.engine.begin() as conn:
        main.lock_writes(conn)
        # Again, under the lock: another upgrade may have moved a game there meanwhile.
        _refuse_taken_schema(conn, schema)
        tables = game_tables(conn)
        conn.execute(text(f'CREATE SCHEMA IF NOT EXISTS "{schema}"'))
        for name in tables:
            conn.execute(text(f'ALTER TABLE "{name}" SET SCHEMA "{schema}"'))


def game_tables(conn: Connection) -> list[str]:
    """Return the game's tables that the connection's default namespace holds.

    Those its migrations make (the workers' shared tables and whatever else the namespace
    may hold stay); once the migrations have run, every one of them.
    """
    held = set(inspect(conn).get_table_names())
    ours = [table.name for table in Base.metadata.sorted_tables] + [VERSION_TABLE]
    return [name for name in ours if name in held]
