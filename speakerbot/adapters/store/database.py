"""The database connection: engines, transactions, migrations and the daemon lock.

One database may hold many games. Each game's tables live in a namespace of its own: the
game ``main`` (a config with one ``[game]``, and every database made before games had ids)
in the database's default place, every other game in a schema named after its id on
PostgreSQL (``game_<id>``, one engine and one pool shared by all the games of a process) and
in a file of its own beside the configured one on SQLite (``<name>.<id>.db``: SQLite has one
writer per file, and one game's mail must not wait on another's). A game's tables, its
migrations and its locks are its own; nothing in one namespace names another. A game made
before games had ids moves to the namespace of its id by ``namespaces.move_main_game``.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import secrets
import socket
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self

from sqlalchemy import Engine, create_engine, event, func, inspect, select, text
from sqlalchemy.engine import URL, Connection, make_url
from sqlalchemy.orm import Session, sessionmaker
from sqlalchemy.pool import ConnectionPoolEntry
from sqlalchemy.sql import Select

if TYPE_CHECKING:
    from alembic.config import Config

from speakerbot.adapters.store.pinging import ping_when_idle
from speakerbot.adapters.store.schema import MIGRATIONS_DIR, AlreadyRunning, Base

# How long a write transaction waits for another to finish before it fails.
_WRITE_WAIT_SECONDS = 30
# How long a new PostgreSQL connection may take before it fails (unless the URL says).
_CONNECT_WAIT_SECONDS = 10


def _lock_key(name: str) -> int:
    return int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "big", signed=True)


CHANGES_CHANNEL = "speakerbot_changes"
"""The PostgreSQL channel on which every write transaction says which game it wrote for."""

PROCESS_TOKEN = secrets.token_hex(8)
"""This process's mark in those notices, so that it can pass over its own."""

SHARED_POOL = 12
"""Connections the pool of a host's games keeps, and as many again at a busy moment."""

GAME_PASSES = 8
"""How many of a host's games may be at the database at once (``hosting.Host``): with two
connections each at most, two thirds of the shared pool at its fullest, leaving the rest to
the listener's stores, the leases and the notices. Without a bound, fifty games each holding
one connection while waiting for a second would wait for ever."""

MAIN_GAME = "main"
"""The id of the game of a config with one ``[game]``, kept in the default namespace."""


def game_schema(game: str) -> str | None:
    """Return the PostgreSQL schema of ``game``'s tables: None (the default) for ``main``.

    Game ids are ``[a-z0-9-]``, so turning ``-`` into ``_`` makes no two games meet.
    """
    return None if game == MAIN_GAME else "game_" + game.replace("-", "_")


def game_url(url: str | URL, game: str) -> URL:
    """Return the URL of ``game``'s own database: on SQLite, its file beside the configured one."""
    parsed = make_url(url)
    if game == MAIN_GAME or parsed.get_backend_name() != "sqlite" or not parsed.database:
        return parsed
    path = Path(parsed.database)
    return parsed.set(database=str(path.with_name(f"{path.stem}.{game}{path.suffix or '.db'}")))


def _lock_keys(game: str) -> tuple[int, int]:
    # PostgreSQL advisory lock keys, per game (the main game's are those of before ids).
    suffix = "" if game == MAIN_GAME else f" {game}"
    return _lock_key("speakerbot daemon" + suffix), _lock_key("speakerbot writes" + suffix)

# --- Engine ---------------------------------------------------------------------------------


def _create_private(path: Path) -> None:
    """Create a missing database file (0600) and folder (0700), whatever the umask.

    The game's mail, ballots and record are nobody else's business on the machine. SQLite
    gives its -wal and -shm files the database file's permissions.
    """
    if not path.parent.exists():
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        os.chmod(path.parent, 0o700)
    if not path.exists():
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            os.fchmod(fd, 0o600)
        finally:
            os.close(fd)


def sqlite_url(path: str | os.PathLike[str]) -> str:
    """Return the SQLAlchemy URL of the SQLite database file ``path``."""
    return f"sqlite:///{Path(path).resolve()}"


def _sqlite_on_connect(dbapi_connection: Any, _record: ConnectionPoolEntry) -> None:
    # The sqlite3 module's own implicit BEGIN is turned off; _sqlite_on_begin emits ours.
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=FULL")
        cursor.execute("PRAGMA foreign_keys=ON")
    finally:
        cursor.close()


def _sqlite_on_begin(conn: Connection) -> None:
    # A write transaction takes the write lock at BEGIN. Taken later, at the first write,
    # a transaction that has read a snapshot older than another's commit cannot upgrade
    # and fails at once with "database is locked" instead of waiting its turn.
    if conn.get_execution_options().get("speakerbot_read_only"):
        conn.exec_driver_sql("BEGIN")
    else:
        conn.exec_driver_sql("BEGIN IMMEDIATE")


def make_engine(url: str | URL, **pool: int) -> Engine:
    """Create the SQLAlchemy engine of a store: SQLite (file only) or PostgreSQL (psycopg).

    SQLite connections get WAL, ``synchronous=FULL`` and ``foreign_keys=ON``, and write
    transactions begin with ``BEGIN IMMEDIATE``.
    """
    parsed = make_url(url)
    backend = parsed.get_backend_name()
    if backend == "sqlite":
        database = parsed.database or ""
        if database in ("", ":memory:") or database.startswith("file:"):
            raise ValueError(
                f"unsupported SQLite URL {parsed!s}: give a database file, sqlite:///path/to/game.db"
            )
        # Absolute, so that connections opened after a chdir find the same file.
        parsed = parsed.set(database=str(Path(database).resolve()))
        path = Path(str(parsed.database))
        # Parameters are never said in logs or errors: some are secrets (a game's seeds).
        engine = create_engine(parsed, connect_args={"timeout": _WRITE_WAIT_SECONDS},
                               hide_parameters=True)
        # Before the first connection creates the file with the umask's permissions.
        event.listen(engine, "do_connect", lambda *_: _create_private(path))
        event.listen(engine, "connect", _sqlite_on_connect)
        event.listen(engine, "begin", _sqlite_on_begin)
        return engine
    if backend == "postgresql":
        # Named so that whoever looks at the server's sessions (and ``speakerbot games``)
        # sees which process on which machine each one is.
        name = f"speakerbot {socket.gethostname()} pid {os.getpid()}"[:63]
        connect: dict[str, Any] = {"application_name": name}
        if "connect_timeout" not in parsed.query:
            # A server that does not answer fails the connection after a while (doctor and
            # status included) rather than leaving it to the system's TCP time-out.
            connect["connect_timeout"] = _CONNECT_WAIT_SECONDS
        # The pool hands out the connection returned last (LIFO), so the games' work falls on
        # as few connections as the load needs: psycopg prepares a statement on a connection
        # after its fifth run there, and each game's schema makes a statement text of its own,
        # so work spread over every pooled connection ran mostly unprepared (on the hosting
        # bench's burst over 50 games, the server's CPU fell 12% and its sessions' memory by
        # 180 MB). The connections left resting are tested on their way out (pinging).
        engine = create_engine(parsed, hide_parameters=True, connect_args=connect,
                               pool_use_lifo=True, **pool)
        ping_when_idle(engine)
        return engine
    raise ValueError(f"unsupported database {backend!r}: use sqlite:/// or postgresql+psycopg://")


def shared_engine(url: str) -> Engine | None:
    """Return an engine for the games of one process to share (PostgreSQL), or None (SQLite).

    On SQLite each game opens its own file; on PostgreSQL one pool serves every game.
    """
    parsed = make_url(url)
    if parsed.get_backend_name() != "postgresql":
        return None
    # Sized for the games' loops (a host lets GAME_PASSES of them at the database at once,
    # each with two connections at most), the listener's stores, the leases and the notices.
    return make_engine(parsed, pool_size=SHARED_POOL, max_overflow=SHARED_POOL)


# --- The store ------------------------------------------------------------------------------


class StoreBase:
    """The connection to the game's database, which each part of the store builds on."""

    def __init__(self, url: str, *, game: str = MAIN_GAME, engine: Engine | None = None) -> None:
        """Open ``game``'s store in the database at ``url``.

        ``engine``: an engine on ``url`` to share with the other games of this process
        (PostgreSQL; closing this store leaves it open). SQLite opens each game's own file.
        """
        self.url = url
        self.game = game
        parsed = game_url(url, game)
        if engine is not None and parsed.get_backend_name() == "postgresql":
            self._own_engine: Engine | None = None
            base = engine
        else:
            self._own_engine = base = make_engine(parsed)
        self._schema = game_schema(game) if base.dialect.name == "postgresql" else None
        self._engine = (
            base.execution_options(schema_translate_map={None: self._schema})
            if self._schema is not None
            else base
        )
        self._daemon_key, self._write_key = _lock_keys(game)
        self._dialect = self._engine.dialect.name
        # PostgreSQL reads go without BEGIN and COMMIT, two round trips fewer: under READ
        # COMMITTED (PostgreSQL's default, which speakerbot expects of its server) each
        # statement sees its own snapshot, in a transaction or out of one.
        self._read_engine = (
            self._engine.execution_options(speakerbot_read_only=True)
            if self._dialect == "sqlite"
            else self._engine.execution_options(isolation_level="AUTOCOMMIT")
        )
        self._sessions = sessionmaker(self._engine, expire_on_commit=False)
        self._read_sessions = sessionmaker(self._read_engine, expire_on_commit=False)
        database = self._engine.url.database or ""
        self._sqlite_path = database if self._dialect == "sqlite" else None
        where = (
            database
            if self._dialect == "sqlite"
            else self._engine.url.render_as_string(hide_password=True)
        )
        self._where = where if self._schema is None else f"{where} (game {game})"
        self.fence: Callable[[Session], None] | None = None
        self._notice = f"{game} {PROCESS_TOKEN}"
        self._serialising: dict[bool, Select[Any]] = {}

    @property
    def engine(self) -> Engine:
        """The SQLAlchemy engine (for diagnostics and tests)."""
        return self._engine

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """Close every pooled connection (of an engine this store opened itself)."""
        if self._own_engine is not None:
            self._own_engine.dispose()

    def _version_table(self) -> str:
        # Alembic's own table, in the game's schema: named in text, which no map translates.
        return "alembic_version" if self._schema is None else f'"{self._schema}".alembic_version'

    # -- Schema ----------------------------------------------------------------------------

    def _alembic_config(self) -> Config:
        # Imported here: only upgrade() needs alembic, and it takes a while to import.
        from alembic.config import Config

        config = Config()
        config.set_main_option("script_location", str(MIGRATIONS_DIR))
        # ConfigParser interpolation: a '%' in the URL (an escaped password) must be doubled.
        url = self._engine.url.render_as_string(hide_password=False)
        config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
        return config

    def upgrade(self) -> None:
        """Bring the schema up to date (``alembic upgrade head``); creates the tables."""
        from alembic import command

        config = self._alembic_config()
        with self._engine.connect() as conn:
            sqlite = self._dialect == "sqlite"
            if sqlite:
                # A migration that changes a table on SQLite rebuilds it, and dropping the
                # old one would delete (or, with foreign keys on, fail on) the rows referring
                # to it. So foreign keys are off for the migration, as SQLite advises, and
                # checked at its end; this connection then leaves the pool, keys still off.
                raw = conn.connection.dbapi_connection
                assert raw is not None
                cursor = raw.cursor()
                cursor.execute("PRAGMA foreign_keys=OFF")
                cursor.close()
            try:
                with conn.begin():
                    # Two processes upgrading at once: the second waits, then has nothing
                    # to do.
                    self._serialise(conn)
                    if self._schema is not None:
                        # The translation map names the schema in the migrations' statements;
                        # the search path makes alembic find its own table there.
                        conn.execute(text(f'CREATE SCHEMA IF NOT EXISTS "{self._schema}"'))
                        conn.execute(text(f'SET LOCAL search_path TO "{self._schema}"'))
                    config.attributes["connection"] = conn
                    command.upgrade(config, "head")
                    if sqlite and conn.exec_driver_sql("PRAGMA foreign_key_check").first():
                        raise RuntimeError("the migration broke foreign keys; rolled back")
            finally:
                if sqlite:
                    conn.invalidate()

    def reset(self) -> None:
        """Delete the whole game: drop every table, so that ``upgrade()`` starts afresh.

        Takes the daemon lock while it does: raises ``AlreadyRunning`` if a daemon runs
        (or if this process holds the lock itself).
        """
        with self.daemon_lock(), self._engine.begin() as conn:
            self._serialise(conn)
            Base.metadata.drop_all(conn)
            conn.execute(text(f"DROP TABLE IF EXISTS {self._version_table()}"))

    def is_initialised(self) -> bool:
        """Whether the schema has been created (an alembic version is recorded)."""
        if self._sqlite_path is not None and not os.path.exists(self._sqlite_path):
            return False  # and connecting would create an empty database file
        with self._read_engine.connect() as conn:
            if not inspect(conn).has_table("alembic_version", schema=self._schema):
                return False
            version = text(f"SELECT version_num FROM {self._version_table()}")
            return conn.execute(version).first() is not None

    # -- Transactions and the daemon lock --------------------------------------------------

    def lock_writes(self, conn: Connection) -> None:
        """Make ``conn``'s transaction wait for the game's writes, and keep them out to its end."""
        self._serialise(conn)

    def _serialise(self, conn: Connection | Session, *, notify: bool = False) -> None:
        # SQLite does it with BEGIN IMMEDIATE (see _sqlite_on_begin).
        if self._dialect == "postgresql":
            # Fail after a while rather than hang for ever, as SQLite's busy timeout does
            # (a transaction opened inside another in the same thread would wait on itself).
            # One statement, one round trip: its expressions are evaluated in order, the
            # time-out set (as SET LOCAL does) before the lock is waited for. ``notify``:
            # heard at commit by the workers of this database (changes.watch_changes), so
            # that the holder of the game wakes at once for another process's write.
            # Built once for each kind: every write transaction runs one.
            statement = self._serialising.get(notify)
            if statement is None:
                said = [func.pg_notify(CHANGES_CHANNEL, self._notice)] if notify else []
                statement = self._serialising[notify] = select(
                    func.set_config("lock_timeout", f"{_WRITE_WAIT_SECONDS}s", True),
                    func.pg_advisory_xact_lock(self._write_key), *said)
            conn.execute(statement)

    @contextmanager
    def transaction(self, *, fenced: bool = True) -> Iterator[Session]:
        """Run one unit of work: committed if the block succeeds, rolled back if it raises.

        Write transactions run one at a time, on both backends: the next one waits (up to
        30 s) for the one in progress to finish, so each sees all that came before it. Reads
        outside a transaction do not wait. When workers share the games, ``fence`` (set by
        the worker holding this game) begins each one, and raises if the game is no longer
        this worker's; ``fenced=False`` is for storing received mail, which any worker does.
        """
        with self._sessions() as session, session.begin():
            self._serialise(session, notify=True)
            if fenced and self.fence is not None:
                self.fence(session)
            yield session

    @contextmanager
    def reading(self) -> Iterator[Session]:
        """Read several things on one connection, as the store's reads do on their own.

        Each of the store's reads takes it as its ``session``; it is for reading only. On
        SQLite it is one read transaction; on PostgreSQL no transaction at all (each
        statement sees the database as it is then, as under READ COMMITTED anyway).
        """
        with self._reading() as session:
            yield session

    @contextmanager
    def _reading(self, session: Session | None = None) -> Iterator[Session]:
        if session is not None:
            yield session
            return
        with self._read_sessions() as own, own.begin():
            yield own

    @contextmanager
    def daemon_lock(self) -> Iterator[None]:
        """Hold the lock that lets one daemon only run against this database.

        Raises ``AlreadyRunning`` at once if another holder has it (even in this process).
        The lock goes with the block's end, and with the process if it dies.
        """
        if self._sqlite_path is not None:
            with self._flock(self._sqlite_path + ".lock"):
                yield
        else:
            with self._advisory_lock():
                yield

    def daemon_holder(self) -> str | None:
        """Say which process holds this game's daemon lock (``host pid N``), or None: none."""
        if self._sqlite_path is not None:
            path = self._sqlite_path + ".lock"
            if not os.path.exists(path):
                return None
            with open(path, encoding="utf-8") as holder:
                try:
                    fcntl.flock(holder.fileno(), fcntl.LOCK_SH | fcntl.LOCK_NB)
                except BlockingIOError:
                    pid = holder.read().strip()
                    return f"{socket.gethostname()} pid {pid}" if pid else "a process"
                fcntl.flock(holder.fileno(), fcntl.LOCK_UN)
                return None
        high, low = (self._daemon_key >> 32) & 0xFFFFFFFF, self._daemon_key & 0xFFFFFFFF
        query = text(
            "SELECT a.application_name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid"
            " WHERE l.locktype = 'advisory' AND l.granted AND l.classid = :high"
            " AND l.objid = :low AND l.objsubid = 1 AND l.database = ("
            "SELECT oid FROM pg_database WHERE datname = current_database())")
        with self._engine.connect() as conn:
            name = conn.execute(query, {"high": high, "low": low}).scalar()
        if name is None:
            return None
        return str(name).removeprefix("speakerbot ") or "a process"

    def _already_running(self) -> AlreadyRunning:
        return AlreadyRunning(f"another speakerbot daemon is running against {self._where}")

    @contextmanager
    def _flock(self, path: str) -> Iterator[None]:
        # The kernel drops a flock when the last descriptor of its open file goes, so also
        # when the process dies. O_CLOEXEC: programs the daemon runs must not inherit it.
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise self._already_running() from None
            try:
                # For whoever looks: which process holds it.
                os.ftruncate(fd, 0)
                os.write(fd, f"{os.getpid()}\n".encode())
                yield
            finally:
                # Explicitly, in case a forked child shares this open file.
                fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)

    @contextmanager
    def _advisory_lock(self) -> Iterator[None]:
        # A session-level advisory lock belongs to the connection that took it; that
        # connection stays checked out of the pool, idle outside any transaction, until the
        # end. If the process dies, the server ends its session and the lock with it.
        conn = self._engine.connect().execution_options(isolation_level="AUTOCOMMIT")
        try:
            got = conn.execute(select(func.pg_try_advisory_lock(self._daemon_key))).scalar_one()
            if not got:
                raise self._already_running()
            try:
                yield
            finally:
                try:
                    conn.execute(select(func.pg_advisory_unlock(self._daemon_key)))
                except Exception:
                    # Closing the session releases the lock just as well, if less promptly.
                    conn.invalidate()
                    raise
        finally:
            conn.close()
