"""The storage adapter: the one place that talks to the database.

It knows nothing of Nomic. It keeps four things, with exactly-once guarantees:

- ``inbound``: every message received, raw, stored before anything else is done with it,
  once only (keyed by the SHA-256 of its bytes, its Message-ID and its IMAP UID);
- ``events``: the game record, JSON dicts in order (``seq``);
- ``outbox``: mail to send, with its delivery attempts;
- ``meta``: a little key/value metadata (JSON values).

Handling a message is one unit of work: inside ``Store.transaction()`` the caller appends
its events, enqueues its replies and marks the message processed, and all of it is committed
or none of it is. Marking a message that is no longer pending fails the transaction, and
write transactions run one at a time, so a message is never handled twice.

SQLite (the default; a file, in WAL mode) or PostgreSQL (``postgresql+psycopg://...``).
Every datetime goes in and comes out timezone-aware, in UTC.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from email.parser import BytesHeaderParser
from email.policy import compat32
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    CheckConstraint,
    DateTime,
    Dialect,
    Engine,
    ForeignKey,
    Index,
    Insert,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Text,
    TypeDecorator,
    UniqueConstraint,
    create_engine,
    event,
    func,
    inspect,
    or_,
    select,
    text,
    update,
)
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.engine import URL, Connection, CursorResult, make_url
from sqlalchemy.orm import (
    DeclarativeBase,
    InstrumentedAttribute,
    Mapped,
    Session,
    mapped_column,
    sessionmaker,
)
from sqlalchemy.pool import ConnectionPoolEntry

if TYPE_CHECKING:
    from alembic.config import Config

__all__ = [
    "PENDING_INBOUND",
    "REPLY_PRIORITY_KINDS",
    "AlreadyRunning",
    "Base",
    "Confirmation",
    "ConfirmationRow",
    "Event",
    "Inbound",
    "InboundItem",
    "InboundRow",
    "Intake",
    "Meta",
    "NotPending",
    "Outbox",
    "OutboxRow",
    "OutboxSummary",
    "OutgoingMail",
    "Store",
    "StoredEvent",
    "StoredInbound",
    "UtcDateTime",
    "make_engine",
    "message_id_of",
    "sqlite_url",
]

MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations"

PENDING_INBOUND = ("new", "retry")
"""The statuses of an inbound message still to be handled."""

_FINAL_INBOUND = ("processed", "skipped", "unconfirmed")
# What counts against a sender's daily replies: replies, and the one notice that the limit
# is reached. Notices the game sends the Speaker (action needed, set aside) do not.
_REPLY_KINDS = ("reply", "limit")
REPLY_PRIORITY_KINDS = frozenset({"reply", "limit", "notice", "stranger", "confirm"})
"""Outbox kinds sent after the game's public business (results, distributions, reminders)."""
# How long a write transaction waits for another to finish before it fails.
_WRITE_WAIT_SECONDS = 30
# Longer than any real Message-ID (RFC 5322 lines stop at 998); it also keeps the value
# well under PostgreSQL's limit on a btree index entry (about 2.7 kB).
_MAX_MESSAGE_ID_BYTES = 998


def _lock_key(name: str) -> int:
    return int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "big", signed=True)


# PostgreSQL advisory lock keys (per database, so per game).
_DAEMON_LOCK_KEY = _lock_key("speakerbot daemon")
_WRITE_LOCK_KEY = _lock_key("speakerbot writes")


class AlreadyRunning(RuntimeError):
    """Another speakerbot daemon holds the daemon lock of this database."""


class NotPending(RuntimeError):
    """A message was to change state but was no longer pending (handled, sent or given up)."""


# --- Types ----------------------------------------------------------------------------------


class UtcDateTime(TypeDecorator[datetime]):
    """A timezone-aware datetime, stored in UTC and returned in UTC.

    PostgreSQL keeps it as ``timestamp with time zone``; SQLite, which has no such type,
    as the naive UTC time (whose text sorts in time order). Naive datetimes are refused.
    """

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        """Convert to UTC (naive for SQLite); refuse a naive datetime."""
        if value is None:
            return None
        if value.tzinfo is None or value.utcoffset() is None:
            raise ValueError(f"naive datetime {value!r}: give a timezone-aware one")
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        """Return the stored time as an aware UTC datetime."""
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value.astimezone(UTC)


# --- Schema ---------------------------------------------------------------------------------


class Base(DeclarativeBase):
    """The declarative base of speakerbot's tables; ``Base.metadata`` is the schema."""

    metadata = MetaData(
        naming_convention={
            "ix": "ix_%(table_name)s_%(column_0_N_name)s",
            "uq": "uq_%(table_name)s_%(column_0_N_name)s",
            "ck": "ck_%(table_name)s_%(constraint_name)s",
            "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
            "pk": "pk_%(table_name)s",
        }
    )


class Inbound(Base):
    """A message received, raw, with what became of it."""

    __tablename__ = "inbound"
    __table_args__ = (
        UniqueConstraint("uidvalidity", "uid"),
        CheckConstraint("(uidvalidity IS NULL) = (uid IS NULL)", name="uid_pair"),
        Index("ix_inbound_pending", "status", "received_at", "id"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    # Not unique: anyone can copy a Message-ID (see store_inbound for what is a duplicate).
    message_id: Mapped[str] = mapped_column(Text, index=True)
    sha256: Mapped[str] = mapped_column(String(64), unique=True)
    source: Mapped[str] = mapped_column(String(32))
    uidvalidity: Mapped[int | None] = mapped_column(BigInteger)
    uid: Mapped[int | None] = mapped_column(BigInteger)
    received_at: Mapped[datetime] = mapped_column(UtcDateTime())
    raw: Mapped[bytes] = mapped_column(LargeBinary)
    status: Mapped[str] = mapped_column(String(16))
    attempts: Mapped[int] = mapped_column(Integer)
    error: Mapped[str | None] = mapped_column(Text)
    note: Mapped[str] = mapped_column(Text)
    processed_at: Mapped[datetime | None] = mapped_column(UtcDateTime())
    sender: Mapped[str | None] = mapped_column(Text)
    body_sha256: Mapped[str | None] = mapped_column(String(64))
    # Written by intake only, never taken from the message's text: "right", "wrong" or NULL.
    password_verdict: Mapped[str | None] = mapped_column(String(8))
    retry_at: Mapped[datetime | None] = mapped_column(UtcDateTime())
    oversized: Mapped[int | None] = mapped_column(BigInteger)
    # The size as received, and whether intake found it authenticated (None: unknown).
    size: Mapped[int | None] = mapped_column(BigInteger)
    authenticated: Mapped[bool | None] = mapped_column(Boolean)
    confirmation_id: Mapped[int | None] = mapped_column(ForeignKey("confirmations.id"),
                                                        index=True)


class Confirmation(Base):
    """A request to confirm unauthenticated mail, answered by the From address's owner."""

    __tablename__ = "confirmations"
    __table_args__ = (Index("ix_confirmations_address_created_at", "address", "created_at"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    address: Mapped[str] = mapped_column(Text)
    # Only the token's hash is kept: reading the database does not let anyone confirm.
    token_sha256: Mapped[str] = mapped_column(String(64), unique=True)
    request_message_id: Mapped[str] = mapped_column(Text, index=True)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime())
    expires_at: Mapped[datetime] = mapped_column(UtcDateTime())
    status: Mapped[str] = mapped_column(String(16))  # open | used | expired
    closed_at: Mapped[datetime | None] = mapped_column(UtcDateTime())


class Event(Base):
    """One event of the game record."""

    __tablename__ = "events"

    seq: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    type: Mapped[str] = mapped_column(String(100), index=True)
    data: Mapped[dict[str, Any]] = mapped_column(JSON)
    inbound_id: Mapped[int | None] = mapped_column(ForeignKey("inbound.id"), index=True)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime())


class Outbox(Base):
    """A message to send, with its delivery attempts."""

    __tablename__ = "outbox"
    __table_args__ = (
        Index("ix_outbox_due", "status", "next_attempt_at"),
        Index("ix_outbox_kind_created_at", "kind", "created_at"),
        Index("ix_outbox_addressee_kind_created_at", "addressee", "kind", "created_at"),
        Index("ix_outbox_pending_priority", "status", "priority", "id"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    message_id: Mapped[str] = mapped_column(Text, unique=True)
    mail_from: Mapped[str] = mapped_column(Text)
    recipients: Mapped[list[str]] = mapped_column(JSON)
    raw: Mapped[bytes] = mapped_column(LargeBinary)
    kind: Mapped[str] = mapped_column(String(32))
    inbound_id: Mapped[int | None] = mapped_column(ForeignKey("inbound.id"), index=True)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime())
    status: Mapped[str] = mapped_column(String(16))
    attempts: Mapped[int] = mapped_column(Integer)
    next_attempt_at: Mapped[datetime] = mapped_column(UtcDateTime())
    last_error: Mapped[str | None] = mapped_column(Text)
    sent_at: Mapped[datetime | None] = mapped_column(UtcDateTime())
    # SQL NULL when nobody was refused, so that the summary can find the others.
    refused: Mapped[dict[str, str] | None] = mapped_column(JSON(none_as_null=True))
    # The one recipient, lower case, of mail to one address: counted by an index.
    addressee: Mapped[str | None] = mapped_column(Text)
    # 0 goes first: the game's public business before replies and notices.
    priority: Mapped[int] = mapped_column(Integer, server_default="1")


class Meta(Base):
    """One key of metadata; ``value`` holds ``{"value": <its JSON value>}``."""

    __tablename__ = "meta"

    key: Mapped[str] = mapped_column(String(200), primary_key=True)
    value: Mapped[dict[str, Any]] = mapped_column(JSON)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime())


# --- What the store hands out ---------------------------------------------------------------


@dataclass(frozen=True)
class StoredInbound:
    """The answer to ``store_inbound``: the row, and whether it was already there."""

    id: int
    duplicate: bool
    status: str


@dataclass(frozen=True)
class InboundRow:
    """A stored inbound message."""

    id: int
    message_id: str
    sha256: str
    source: str
    uidvalidity: int | None
    uid: int | None
    received_at: datetime
    raw: bytes
    status: str
    attempts: int
    error: str | None
    processed_at: datetime | None
    note: str = ""
    sender: str | None = None
    password_verdict: str | None = None
    retry_at: datetime | None = None
    oversized: int | None = None
    confirmation_id: int | None = None
    size: int | None = None
    authenticated: bool | None = None


@dataclass(frozen=True)
class Intake:
    """What intake read in a message before storing it (all optional for the store)."""

    sender: str | None = None
    body_sha256: str | None = None
    password_verdict: str | None = None
    oversized: int | None = None
    received_sha256: str | None = None
    """The SHA-256 of the bytes as received, when the stored bytes differ (masked)."""
    size: int | None = None
    """The size of the message as received."""
    authenticated: bool | None = None
    """Whether the sender was authenticated; a copy is a duplicate only if this agrees."""


@dataclass(frozen=True)
class InboundItem:
    """One received message to store, with what intake read in it."""

    raw: bytes
    received_at: datetime
    source: str
    uidvalidity: int | None = None
    uid: int | None = None
    intake: Intake | None = None
    set_aside: str | None = None


@dataclass(frozen=True)
class ConfirmationRow:
    """A request for confirmation."""

    id: int
    address: str
    request_message_id: str
    created_at: datetime
    expires_at: datetime
    status: str


@dataclass(frozen=True)
class StoredEvent:
    """An event of the game record with its sequence number."""

    seq: int
    data: dict[str, Any]


@dataclass(frozen=True)
class OutgoingMail:
    """A message to put in the outbox."""

    message_id: str
    mail_from: str
    recipients: tuple[str, ...]
    raw: bytes
    kind: str
    inbound_id: int | None
    created_at: datetime


@dataclass(frozen=True)
class OutboxRow:
    """A message in the outbox with its delivery state."""

    id: int
    message_id: str
    mail_from: str
    recipients: tuple[str, ...]
    raw: bytes
    kind: str
    inbound_id: int | None
    created_at: datetime
    status: str
    attempts: int
    next_attempt_at: datetime
    last_error: str | None
    sent_at: datetime | None
    refused: dict[str, str]


@dataclass(frozen=True)
class OutboxSummary:
    """The outbox at a glance, for ``speakerbot status``."""

    pending: int
    failed: int
    oldest_pending: datetime | None
    refused: list[tuple[str, str, str]]
    """(message_id, recipient, the server's answer) for every recipient refused for good."""


def _aware(value: datetime, name: str) -> datetime:
    if value.tzinfo is None or value.utcoffset() is None:
        raise ValueError(f"{name} is a naive datetime ({value!r}): give a timezone-aware one")
    return value


def _inbound_row(row: Inbound) -> InboundRow:
    return InboundRow(
        id=row.id,
        message_id=row.message_id,
        sha256=row.sha256,
        source=row.source,
        uidvalidity=row.uidvalidity,
        uid=row.uid,
        received_at=row.received_at,
        raw=bytes(row.raw),
        status=row.status,
        attempts=row.attempts,
        error=row.error,
        processed_at=row.processed_at,
        note=row.note,
        sender=row.sender,
        password_verdict=row.password_verdict,
        retry_at=row.retry_at,
        oversized=row.oversized,
        confirmation_id=row.confirmation_id,
        size=row.size,
        authenticated=row.authenticated,
    )


def _confirmation_row(row: Confirmation) -> ConfirmationRow:
    return ConfirmationRow(row.id, row.address, row.request_message_id, row.created_at,
                           row.expires_at, row.status)


def _outbox_row(row: Outbox) -> OutboxRow:
    return OutboxRow(
        id=row.id,
        message_id=row.message_id,
        mail_from=row.mail_from,
        recipients=tuple(row.recipients),
        raw=bytes(row.raw),
        kind=row.kind,
        inbound_id=row.inbound_id,
        created_at=row.created_at,
        status=row.status,
        attempts=row.attempts,
        next_attempt_at=row.next_attempt_at,
        last_error=row.last_error,
        sent_at=row.sent_at,
        refused=dict(row.refused or {}),
    )


# --- Message-ID -----------------------------------------------------------------------------


def _header_block(raw: bytes) -> bytes:
    ends = [i for i in (raw.find(b"\r\n\r\n"), raw.find(b"\n\n")) if i >= 0]
    return raw[: min(ends) + 2] if ends else raw


def message_id_of(raw: bytes) -> str | None:
    """Return the Message-ID header value of a raw message, or None if it has none.

    Only the header block is parsed, leniently (any bytes at all are accepted): folding
    and runs of whitespace become one space, undecodable bytes U+FFFD, control characters
    are dropped. An empty value, ``<>``, or one too long to be real counts as none.
    """
    try:
        headers = BytesHeaderParser(policy=compat32).parsebytes(_header_block(raw))
        value = next(
            (v for name, v in headers.raw_items() if name.strip().lower() == "message-id"),
            None,
        )
        if not isinstance(value, str):
            return None
        # compat32 keeps undecodable bytes as surrogate escapes: turn them back into bytes.
        decoded = value.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
        cleaned = " ".join(
            "".join(ch for ch in word if ch.isprintable()) for word in decoded.split()
        ).strip()
    except Exception:
        # The email package is lenient, but whatever it trips on, the message must be kept.
        return None
    if cleaned in ("", "<>") or len(cleaned.encode()) > _MAX_MESSAGE_ID_BYTES:
        return None
    return cleaned


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


def make_engine(url: str | URL) -> Engine:
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
        engine = create_engine(parsed, connect_args={"timeout": _WRITE_WAIT_SECONDS})
        # Before the first connection creates the file with the umask's permissions.
        event.listen(engine, "do_connect", lambda *_: _create_private(path))
        event.listen(engine, "connect", _sqlite_on_connect)
        event.listen(engine, "begin", _sqlite_on_begin)
        return engine
    if backend == "postgresql":
        return create_engine(parsed, pool_pre_ping=True)
    raise ValueError(f"unsupported database {backend!r}: use sqlite:/// or postgresql+psycopg://")


# --- The store ------------------------------------------------------------------------------


class Store:
    """The game's database: inbound mail, events, outbox and metadata."""

    def __init__(self, url: str) -> None:
        self.url = url
        self._engine = make_engine(url)
        self._dialect = self._engine.dialect.name
        self._read_engine = (
            self._engine.execution_options(speakerbot_read_only=True)
            if self._dialect == "sqlite"
            else self._engine
        )
        self._sessions = sessionmaker(self._engine, expire_on_commit=False)
        self._read_sessions = sessionmaker(self._read_engine, expire_on_commit=False)
        database = self._engine.url.database or ""
        self._sqlite_path = database if self._dialect == "sqlite" else None
        self._where = (
            database
            if self._dialect == "sqlite"
            else self._engine.url.render_as_string(hide_password=True)
        )

    @property
    def engine(self) -> Engine:
        """The SQLAlchemy engine (for diagnostics and tests)."""
        return self._engine

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """Close every pooled connection."""
        self._engine.dispose()

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
            conn.execute(text("DROP TABLE IF EXISTS alembic_version"))

    def is_initialised(self) -> bool:
        """Whether the schema has been created (an alembic version is recorded)."""
        if self._sqlite_path is not None and not os.path.exists(self._sqlite_path):
            return False  # and connecting would create an empty database file
        with self._read_engine.connect() as conn:
            if not inspect(conn).has_table("alembic_version"):
                return False
            return conn.execute(text("SELECT version_num FROM alembic_version")).first() is not None

    # -- Transactions and the daemon lock --------------------------------------------------

    def _serialise(self, conn: Connection | Session) -> None:
        # SQLite does it with BEGIN IMMEDIATE (see _sqlite_on_begin).
        if self._dialect == "postgresql":
            # Fail after a while rather than hang for ever, as SQLite's busy timeout does
            # (a transaction opened inside another in the same thread would wait on itself).
            conn.execute(text(f"SET LOCAL lock_timeout = '{_WRITE_WAIT_SECONDS}s'"))
            conn.execute(select(func.pg_advisory_xact_lock(_WRITE_LOCK_KEY)))

    @contextmanager
    def transaction(self) -> Iterator[Session]:
        """Run one unit of work: committed if the block succeeds, rolled back if it raises.

        Write transactions run one at a time, on both backends: the next one waits (up to
        30 s) for the one in progress to finish, so each sees all that came before it. Reads
        outside a transaction do not wait.
        """
        with self._sessions() as session, session.begin():
            self._serialise(session)
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
            got = conn.execute(select(func.pg_try_advisory_lock(_DAEMON_LOCK_KEY))).scalar_one()
            if not got:
                raise self._already_running()
            try:
                yield
            finally:
                try:
                    conn.execute(select(func.pg_advisory_unlock(_DAEMON_LOCK_KEY)))
                except Exception:
                    # Closing the session releases the lock just as well, if less promptly.
                    conn.invalidate()
                    raise
        finally:
            conn.close()

    # -- Inbound mail ----------------------------------------------------------------------

    def _insert_ignoring_conflicts(
        self, model: type[Base], values: dict[str, Any], *conflict_on: InstrumentedAttribute[Any]
    ) -> Insert:
        """INSERT ... ON CONFLICT DO NOTHING: on ``conflict_on``'s key, or on any if none."""
        elements = list(conflict_on) or None
        if self._dialect == "sqlite":
            lite = sqlite_insert(model).values(values)
            return lite.on_conflict_do_nothing(index_elements=elements)
        return pg_insert(model).values(values).on_conflict_do_nothing(index_elements=elements)

    def store_inbound(
        self,
        raw: bytes,
        received_at: datetime,
        *,
        source: str,
        uidvalidity: int | None = None,
        uid: int | None = None,
        intake: Intake | None = None,
        set_aside: str | None = None,
    ) -> StoredInbound:
        """Store a received message once; a duplicate returns the row already stored.

        A message is a duplicate by content, never by a name anyone can copy: the same
        bytes as received, the same ``(uidvalidity, uid)``, or the same Message-ID with the
        same sender, the same body (``intake.body_sha256``) and the same authentication
        verdict. A Message-ID shared with a different sender or body is a new message.
        ``set_aside``: store it set aside with this error (intake could not read it). Safe
        against another process or thread storing the same message at the same time.
        """
        [stored] = self.store_inbound_many([InboundItem(raw, received_at, source, uidvalidity,
                                                        uid, intake, set_aside)])
        return stored

    def store_inbound_many(self, items: Sequence[InboundItem]) -> list[StoredInbound]:
        """Store several received messages in one transaction (see ``store_inbound``)."""
        with self.transaction() as session:
            return [self._store_one(session, item) for item in items]

    def _store_one(self, session: Session, item: InboundItem) -> StoredInbound:
        _aware(item.received_at, "received_at")
        uidvalidity, uid = item.uidvalidity, item.uid
        if (uidvalidity is None) != (uid is None):
            raise ValueError("give both uidvalidity and uid, or neither")
        raw = bytes(item.raw)
        intake = item.intake or Intake()
        digest = intake.received_sha256 or hashlib.sha256(raw).hexdigest()
        message_id = message_id_of(raw) or f"<{digest}@speakerbot.invalid>"
        values = {
            "message_id": message_id,
            "sha256": digest,
            "source": item.source,
            "uidvalidity": uidvalidity,
            "uid": uid,
            "received_at": item.received_at,
            "raw": raw,
            "status": "set_aside" if item.set_aside is not None else "new",
            "attempts": 0,
            "error": item.set_aside,
            "note": "",
            "processed_at": None,
            "sender": intake.sender,
            "body_sha256": intake.body_sha256,
            "password_verdict": intake.password_verdict,
            "retry_at": None,
            "oversized": intake.oversized,
            "confirmation_id": None,
            "size": intake.size if intake.size is not None else len(raw),
            "authenticated": intake.authenticated,
        }
        keys = [Inbound.sha256 == digest]
        if uidvalidity is not None:
            keys.append((Inbound.uidvalidity == uidvalidity) & (Inbound.uid == uid))
        if intake.sender is not None and intake.body_sha256 is not None:
            # A forger's copy (not authenticated) never shadows the real message.
            keys.append((Inbound.message_id == message_id) & (Inbound.sender == intake.sender)
                        & (Inbound.body_sha256 == intake.body_sha256)
                        & (Inbound.authenticated.is_(intake.authenticated)))
        # Write transactions run one at a time, so nothing can slip in between the look-up
        # and the insert; ON CONFLICT DO NOTHING still guards the unique keys.
        found = session.execute(
            select(Inbound.id, Inbound.status).where(or_(*keys)).order_by(Inbound.id).limit(1)
        ).first()
        if found is not None:
            return StoredInbound(id=found[0], duplicate=True, status=found[1])
        insert = self._insert_ignoring_conflicts(Inbound, values)
        new_id = session.execute(insert.returning(Inbound.id)).scalar_one_or_none()
        if new_id is not None:
            return StoredInbound(id=new_id, duplicate=False, status=str(values["status"]))
        found = session.execute(
            select(Inbound.id, Inbound.status).where(or_(*keys)).order_by(Inbound.id).limit(1)
        ).first()
        if found is None:
            raise RuntimeError("inbound message neither stored nor found: unique key mismatch")
        return StoredInbound(id=found[0], duplicate=True, status=found[1])

    def inbound(self, inbound_id: int) -> InboundRow:
        """Return a stored message; ``LookupError`` if there is none with that id."""
        with self._reading() as session:
            row = session.get(Inbound, inbound_id)
            if row is None:
                raise LookupError(f"no inbound message {inbound_id}")
            return _inbound_row(row)

    def pending_inbound(self, now: datetime | None = None) -> list[InboundRow]:
        """Return the messages still to handle, oldest first.

        Those 'new', and those to 'retry' whose retry is due by ``now`` (all of them when
        ``now`` is None).
        """
        due = Inbound.status == "new"
        if now is not None:
            due = or_(due, (Inbound.status == "retry") & (Inbound.retry_at <= _aware(now, "now")))
        else:
            due = Inbound.status.in_(PENDING_INBOUND)
        with self._reading() as session:
            rows = session.scalars(
                select(Inbound).where(due).order_by(Inbound.received_at, Inbound.id)
            )
            return [_inbound_row(row) for row in rows]

    def retry_waiting(self) -> list[tuple[int, str | None, datetime | None]]:
        """Return (id, sender, retry_at) of every authenticated message waiting for a retry.

        Only those hold their sender's later mail back: a forger's failing message must
        not delay the real owner's.
        """
        with self._reading() as session:
            return [(i, sender, at) for i, sender, at in session.execute(
                select(Inbound.id, Inbound.sender, Inbound.retry_at)
                .where(Inbound.status == "retry", Inbound.authenticated.is_(True))
                .order_by(Inbound.id))]

    def next_inbound_retry(self) -> datetime | None:
        """Return when the next message waiting for a retry is due, or None."""
        with self._reading() as session:
            return session.scalar(select(func.min(Inbound.retry_at))
                                  .where(Inbound.status == "retry"))

    def list_inbound(self, status: str | None = None, limit: int = 100) -> list[InboundRow]:
        """Return the newest stored messages (with ``status`` only, if given), newest first."""
        query = select(Inbound).order_by(Inbound.id.desc()).limit(limit)
        if status is not None:
            query = query.where(Inbound.status == status)
        with self._reading() as session:
            return [_inbound_row(row) for row in session.scalars(query)]

    def requeue_inbound(self, inbound_id: int) -> InboundRow:
        """Put a set-aside message back to be processed afresh; ``LookupError`` if absent.

        Raises ``NotPending`` unless it is set aside (nothing else may be processed twice).
        """
        with self.transaction() as session:
            row = session.get(Inbound, inbound_id, with_for_update=True)
            if row is None:
                raise LookupError(f"no inbound message {inbound_id}")
            if row.status != "set_aside":
                raise NotPending(f"inbound message {inbound_id} is {row.status}, not set aside")
            row.status, row.attempts, row.retry_at = "new", 0, None
            row.note = (row.note + " requeued by the operator").strip()
            return _inbound_row(row)

    def set_aside_since(self, after_id: int) -> list[InboundRow]:
        """Return the set-aside messages with an id above ``after_id``, oldest first."""
        with self._reading() as session:
            rows = session.scalars(select(Inbound).where(
                Inbound.status == "set_aside", Inbound.id > after_id).order_by(Inbound.id))
            return [_inbound_row(row) for row in rows]

    def earliest_pending(self, session: Session | None = None) -> datetime | None:
        """Return when the oldest message still to handle was received (None: none waits).

        A message waiting for a retry counts only if it is authenticated: unauthenticated
        mail that keeps failing must not hold the game's deadlines back.
        """
        with self._reading(session) as reading:
            return reading.scalar(
                select(func.min(Inbound.received_at)).where(or_(
                    Inbound.status == "new",
                    (Inbound.status == "retry") & Inbound.authenticated.is_(True)))
            )

    def inbound_statuses(self, ids: Sequence[int]) -> dict[int, str]:
        """Return the status of each stored message named (one query, no message bytes)."""
        if not ids:
            return {}
        with self._reading() as session:
            return {i: status for i, status in session.execute(
                select(Inbound.id, Inbound.status).where(Inbound.id.in_(list(ids))))}

    def find_inbound_by_uid(self, uidvalidity: int, uid: int) -> InboundRow | None:
        """Return the message stored from this IMAP UID, if any."""
        with self._reading() as session:
            row = session.scalars(
                select(Inbound).where(Inbound.uidvalidity == uidvalidity, Inbound.uid == uid)
            ).first()
            return None if row is None else _inbound_row(row)

    def mark_inbound(
        self,
        session: Session,
        inbound_id: int,
        status: str,
        note: str = "",
        *,
        now: datetime | None = None,
    ) -> None:
        """Mark a pending message 'processed' or 'skipped', inside the caller's transaction.

        Raises ``NotPending`` if it was handled already (by a concurrent transaction, say):
        the caller's transaction must then roll back, so that nothing is done twice.
        """
        if status not in _FINAL_INBOUND:
            raise ValueError(f"status must be one of {_FINAL_INBOUND}, not {status!r}")
        result: CursorResult[Any] = session.execute(  # type: ignore[assignment]
            update(Inbound)
            .where(Inbound.id == inbound_id, Inbound.status.in_((*PENDING_INBOUND, "held")))
            .values(status=status, note=note, processed_at=_aware(now or datetime.now(UTC), "now"))
            .execution_options(synchronize_session=False)
        )
        if result.rowcount == 1:
            return
        current = session.scalar(select(Inbound.status).where(Inbound.id == inbound_id))
        if current is None:
            raise LookupError(f"no inbound message {inbound_id}")
        raise NotPending(f"inbound message {inbound_id} is {current}, not pending")

    def record_inbound_failure(
        self, inbound_id: int, error: str, *, now: datetime, delays: Sequence[float]
    ) -> InboundRow:
        """Count a failed attempt at a message, in a transaction of its own.

        After failure n the message waits ``delays[n-1]`` seconds in 'retry'; once the
        delays are used up it is 'set_aside'. A message no longer pending is left as it is.
        """
        _aware(now, "now")
        with self.transaction() as session:
            row = session.get(Inbound, inbound_id, with_for_update=True)
            if row is None:
                raise LookupError(f"no inbound message {inbound_id}")
            if row.status in PENDING_INBOUND:
                row.attempts += 1
                row.error = error
                if row.attempts > len(delays):
                    row.status, row.retry_at = "set_aside", None
                else:
                    row.status = "retry"
                    row.retry_at = now + timedelta(seconds=delays[row.attempts - 1])
            return _inbound_row(row)

    # -- Held mail and confirmations -------------------------------------------------------

    def hold(self, session: Session, inbound_id: int, confirmation_id: int | None,
             note: str) -> None:
        """Hold a message until its sender confirms it (or the request expires).

        A pending message, or one already held (to move it to another request, or to none:
        waiting for a request to be sent).
        """
        result: CursorResult[Any] = session.execute(  # type: ignore[assignment]
            update(Inbound)
            .where(Inbound.id == inbound_id, Inbound.status.in_((*PENDING_INBOUND, "held")))
            .values(status="held", confirmation_id=confirmation_id, note=note)
            .execution_options(synchronize_session=False)
        )
        if result.rowcount != 1:
            raise NotPending(f"inbound message {inbound_id} is not pending")

    def held(self, session: Session, confirmation_id: int) -> list[InboundRow]:
        """Return the messages held for a confirmation, in the order received."""
        rows = session.scalars(select(Inbound).where(
            Inbound.confirmation_id == confirmation_id, Inbound.status == "held")
            .order_by(Inbound.received_at, Inbound.id))
        return [_inbound_row(row) for row in rows]

    def held_waiting(self, session: Session | None = None) -> list[InboundRow]:
        """Return the messages held with no request yet (it waited for the rate limit)."""
        with self._reading(session) as reading:
            rows = reading.scalars(select(Inbound).where(
                Inbound.status == "held", Inbound.confirmation_id.is_(None))
                .order_by(Inbound.received_at, Inbound.id))
            return [_inbound_row(row) for row in rows]

    def add_confirmation(self, session: Session, *, address: str, token_sha256: str,
                         request_message_id: str, created_at: datetime,
                         expires_at: datetime) -> int:
        """Record a request for confirmation; return its id."""
        row = Confirmation(address=address, token_sha256=token_sha256,
                           request_message_id=request_message_id,
                           created_at=_aware(created_at, "created_at"),
                           expires_at=_aware(expires_at, "expires_at"), status="open",
                           closed_at=None)
        session.add(row)
        session.flush()
        return row.id

    def open_confirmation(self, session: Session, address: str,
                          now: datetime) -> ConfirmationRow | None:
        """Return the address's request still open and unexpired at ``now``, if any."""
        row = session.scalars(select(Confirmation).where(
            Confirmation.address == address, Confirmation.status == "open",
            Confirmation.expires_at > _aware(now, "now")).order_by(Confirmation.id.desc())
        ).first()
        return None if row is None else _confirmation_row(row)

    def find_confirmation(self, session: Session, token_sha256: str) -> ConfirmationRow | None:
        """Find a request by its code's hash."""
        row = session.scalars(select(Confirmation).where(
            Confirmation.token_sha256 == token_sha256)).first()
        return None if row is None else _confirmation_row(row)

    def confirmations_since(self, session: Session, address: str, since: datetime) -> int:
        """Count the requests for confirmation sent to ``address`` at or after ``since``."""
        return session.scalar(select(func.count()).select_from(Confirmation).where(
            Confirmation.address == address,
            Confirmation.created_at >= _aware(since, "since"))) or 0

    def close_confirmation(self, session: Session, confirmation_id: int, status: str,
                           now: datetime) -> None:
        """Mark a request 'used' or 'expired'."""
        session.execute(update(Confirmation).where(Confirmation.id == confirmation_id)
                        .values(status=status, closed_at=_aware(now, "now"))
                        .execution_options(synchronize_session=False))

    def expire_confirmations(self, session: Session, now: datetime) -> list[int]:
        """Close every open request expired by ``now``; its held mail becomes 'unconfirmed'.

        Return the ids of the messages that were held.
        """
        _aware(now, "now")
        expired = list(session.scalars(select(Confirmation.id).where(
            Confirmation.status == "open", Confirmation.expires_at <= now)))
        if not expired:
            return []
        held = list(session.scalars(select(Inbound.id).where(
            Inbound.confirmation_id.in_(expired), Inbound.status == "held")))
        session.execute(update(Inbound).where(Inbound.id.in_(held)).values(
            status="unconfirmed", processed_at=now, note="not confirmed in time")
            .execution_options(synchronize_session=False))
        session.execute(update(Confirmation).where(Confirmation.id.in_(expired)).values(
            status="expired", closed_at=now).execution_options(synchronize_session=False))
        return held

    def next_confirmation_expiry(self) -> datetime | None:
        """Return when the next open request expires."""
        with self._reading() as session:
            return session.scalar(select(func.min(Confirmation.expires_at))
                                  .where(Confirmation.status == "open"))

    # -- The game record -------------------------------------------------------------------

    def load_events(self, session: Session | None = None) -> list[StoredEvent]:
        """Return every event, in order."""
        with self._reading(session) as reading:
            rows = reading.execute(select(Event.seq, Event.data).order_by(Event.seq))
            return [StoredEvent(seq=seq, data=data) for seq, data in rows]

    def append_events(
        self,
        session: Session,
        events: Sequence[Mapping[str, Any]],
        *,
        inbound_id: int | None = None,
        now: datetime | None = None,
    ) -> int:
        """Append events (JSON dicts with a string 'type') and return the last seq.

        With no events, returns the current last seq.
        """
        for data in events:
            if not isinstance(data.get("type"), str):
                raise ValueError(f"an event needs a string 'type': {data!r}")
        if not events:
            return self.last_event_seq(session)
        created_at = _aware(now or datetime.now(UTC), "now")
        rows = [
            Event(type=data["type"], data=dict(data), inbound_id=inbound_id, created_at=created_at)
            for data in events
        ]
        session.add_all(rows)
        session.flush()
        return max(row.seq for row in rows)

    def last_event_seq(self, session: Session | None = None) -> int:
        """Return the seq of the last event, 0 if there is none."""
        with self._reading(session) as reading:
            return reading.scalar(select(func.coalesce(func.max(Event.seq), 0))) or 0

    # -- The outbox ------------------------------------------------------------------------

    def enqueue(self, session: Session, mail: OutgoingMail) -> None:
        """Put a message in the outbox, in the caller's transaction; again is a no-op.

        It is due at once (at its ``created_at``).
        """
        _aware(mail.created_at, "created_at")
        if not mail.recipients:
            raise ValueError(f"outgoing message {mail.message_id} has no recipients")
        values = {
            "message_id": mail.message_id,
            "mail_from": mail.mail_from,
            "recipients": list(mail.recipients),
            "raw": bytes(mail.raw),
            "kind": mail.kind,
            "inbound_id": mail.inbound_id,
            "created_at": mail.created_at,
            "status": "pending",
            "attempts": 0,
            "next_attempt_at": mail.created_at,
            "last_error": None,
            "sent_at": None,
            "refused": None,
            "addressee": mail.recipients[0].strip().lower() if len(mail.recipients) == 1
            else None,
            "priority": 1 if mail.kind in REPLY_PRIORITY_KINDS else 0,
        }
        session.execute(self._insert_ignoring_conflicts(Outbox, values, Outbox.message_id))

    def due_outbox(self, now: datetime, limit: int = 50) -> list[OutboxRow]:
        """Return pending messages whose next attempt is due at ``now``, oldest first."""
        _aware(now, "now")
        with self._reading() as session:
            rows = session.scalars(
                select(Outbox)
                .where(Outbox.status == "pending", Outbox.next_attempt_at <= now)
                .order_by(Outbox.priority, Outbox.id)
                .limit(limit)
            )
            return [_outbox_row(row) for row in rows]

    @contextmanager
    def _pending_outbox(self, outbox_id: int) -> Iterator[Outbox]:
        with self.transaction() as session:
            row = session.get(Outbox, outbox_id, with_for_update=True)
            if row is None:
                raise LookupError(f"no outbox message {outbox_id}")
            if row.status != "pending":
                raise NotPending(f"outbox message {outbox_id} is {row.status}, not pending")
            yield row

    @staticmethod
    def _add_refused(row: Outbox, refused: Mapping[str, str] | None) -> None:
        if refused:
            row.refused = {**(row.refused or {}), **refused}

    def mark_sent(
        self, outbox_id: int, now: datetime, refused: Mapping[str, str] | None = None
    ) -> None:
        """Record a pending message as sent; ``refused``: recipients refused for good.

        The refused recipients (with the server's answer) are kept, with those of any
        earlier attempt.
        """
        _aware(now, "now")
        with self._pending_outbox(outbox_id) as row:
            row.status = "sent"
            row.sent_at = now
            self._add_refused(row, refused)

    def mark_sent_many(
        self, sent: Sequence[tuple[int, Mapping[str, str] | None]], now: datetime
    ) -> None:
        """Record several pending messages as sent, in one transaction (see ``mark_sent``).

        A message no longer pending is left as it is (another sender marked it).
        """
        _aware(now, "now")
        if not sent:
            return
        with self.transaction() as session:
            ids = [outbox_id for outbox_id, _ in sent]
            rows = {row.id: row for row in session.scalars(
                select(Outbox).where(Outbox.id.in_(ids)).with_for_update())}
            for outbox_id, refused in sent:
                row = rows.get(outbox_id)
                if row is None or row.status != "pending":
                    continue
                row.status = "sent"
                row.sent_at = now
                self._add_refused(row, refused)

    def mark_retry(
        self,
        outbox_id: int,
        error: str,
        next_attempt_at: datetime,
        *,
        refused: Mapping[str, str] | None = None,
        only: Sequence[str] | None = None,
    ) -> None:
        """Record a failed attempt at a pending message, to try again at ``next_attempt_at``.

        ``only``: the recipients still to be sent to (the others took the message).
        """
        _aware(next_attempt_at, "next_attempt_at")
        with self._pending_outbox(outbox_id) as row:
            if only is not None:
                if not only:
                    raise ValueError("a retry needs at least one recipient")
                row.recipients = list(only)
            row.attempts += 1
            row.last_error = error
            row.next_attempt_at = next_attempt_at
            self._add_refused(row, refused)

    def mark_failed(
        self, outbox_id: int, error: str, *, refused: Mapping[str, str] | None = None
    ) -> None:
        """Give up on a pending message."""
        with self._pending_outbox(outbox_id) as row:
            row.status = "failed"
            row.last_error = error
            self._add_refused(row, refused)

    def outbox_summary(self) -> OutboxSummary:
        """Summarise the outbox: pending and failed counts, oldest pending, refusals."""
        with self._reading() as session:
            counts: dict[str, int] = {
                status: count
                for status, count in session.execute(
                    select(Outbox.status, func.count())
                    .where(Outbox.status.in_(("pending", "failed")))
                    .group_by(Outbox.status)
                )
            }
            oldest = session.scalar(
                select(func.min(Outbox.created_at)).where(Outbox.status == "pending")
            )
            refusals = session.execute(
                select(Outbox.message_id, Outbox.refused)
                .where(Outbox.refused.is_not(None))
                .order_by(Outbox.id)
            )
            refused = [
                (message_id, recipient, answer)
                for message_id, by_recipient in refusals
                for recipient, answer in sorted((by_recipient or {}).items())
            ]
        return OutboxSummary(
            pending=counts.get("pending", 0),
            failed=counts.get("failed", 0),
            oldest_pending=oldest,
            refused=refused,
        )

    def next_outbox_attempt(self) -> datetime | None:
        """Return when the next pending message is due, or None if none is pending."""
        with self._reading() as session:
            return session.scalar(
                select(func.min(Outbox.next_attempt_at)).where(Outbox.status == "pending")
            )

    def replies_since(self, recipient: str, since: datetime,
                      kinds: Sequence[str] = _REPLY_KINDS,
                      session: Session | None = None) -> int:
        """Count mail of ``kinds`` (replies and the limit notice) to ``recipient`` alone.

        Only mail to that one address counts (any case), created at or after ``since``;
        the count comes from an index, whatever the size of the outbox.
        """
        _aware(since, "since")
        with self._reading(session) as reading:
            return reading.scalar(select(func.count()).select_from(Outbox).where(
                Outbox.addressee == recipient.strip().lower(), Outbox.kind.in_(kinds),
                Outbox.created_at >= since)) or 0

    # -- Metadata --------------------------------------------------------------------------

    def get_meta(self, key: str, session: Session | None = None) -> Any | None:
        """Return the JSON value of ``key``, or None if it is not set."""
        with self._reading(session) as reading:
            stored = reading.scalar(select(Meta.value).where(Meta.key == key))
        return None if stored is None else stored["value"]

    def set_meta(
        self, session: Session, key: str, value: Any, *, now: datetime | None = None
    ) -> None:
        """Set ``key`` to a JSON value, in the caller's transaction."""
        updated_at = _aware(now or datetime.now(UTC), "now")
        # Wrapped: a bare JSON number in SQLite's JSON column (NUMERIC affinity) would be
        # stored as a number, and come back altered (1.0 as 1, 2**70 rounded).
        values = {"key": key, "value": {"value": value}, "updated_at": updated_at}
        if self._dialect == "sqlite":
            sqlite_stmt = sqlite_insert(Meta).values(values)
            session.execute(
                sqlite_stmt.on_conflict_do_update(
                    index_elements=[Meta.key],
                    set_={"value": sqlite_stmt.excluded.value, "updated_at": updated_at},
                )
            )
        else:
            pg_stmt = pg_insert(Meta).values(values)
            session.execute(
                pg_stmt.on_conflict_do_update(
                    index_elements=[Meta.key],
                    set_={"value": pg_stmt.excluded.value, "updated_at": updated_at},
                )
            )
