"""The database schema: the tables and the UTC datetime column type."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    CheckConstraint,
    DateTime,
    Dialect,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Text,
    TypeDecorator,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column

MIGRATIONS_DIR = Path(__file__).resolve().parent.parent / "migrations"

PENDING_INBOUND = ("new", "retry")
"""The statuses of an inbound message still to be handled."""

FINAL_INBOUND = ("processed", "skipped", "unconfirmed")
"""The statuses an inbound message may be marked with once it is handled."""

GATHERED = "gathered"
"""The status of a message kept to be gathered with others into one; never sent itself."""
MERGED = "merged"
"""The status of a gathered message once its gathering is queued."""
FOR_DIGEST = "for-digest"
"""The status of a public message every addressee of which reads digests: never sent itself,
kept for its copies (``digest_copies``)."""


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
    # Times its processing began and did not finish (the process died in it): counted in a
    # transaction of its own before each start, cleared when a start ends either way.
    started: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    # Why a message was held, set aside or not acted on: a short code (``note`` says it in
    # a sentence); None when it was simply done.
    reason: Mapped[str | None] = mapped_column(String(32))
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
    # What intake read of the message, encoded by the mail reader (opaque here): kept so
    # that processing, a retry or a restart does not read the message again. NULL: read it.
    reading: Mapped[bytes | None] = mapped_column(LargeBinary)


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
    __table_args__ = (Index("ix_events_public_seq", "public_seq", unique=True),)

    seq: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    type: Mapped[str] = mapped_column(String(100), index=True)
    data: Mapped[dict[str, Any]] = mapped_column(JSON)
    inbound_id: Mapped[int | None] = mapped_column(ForeignKey("inbound.id"), index=True)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime())
    # The chains (speakerbot.engine.chain): the hash of this event's line in the full
    # record; its number and hash in the public record (None for a private event).
    hash: Mapped[str | None] = mapped_column(String(64))
    public_seq: Mapped[int | None] = mapped_column(Integer)
    public_hash: Mapped[str | None] = mapped_column(String(64))


class Snapshot(Base):
    """The game's state after event ``seq``, written out whole (engine/snapshot.py)."""

    __tablename__ = "snapshots"

    seq: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    # The fingerprint of the code that wrote it: a snapshot of another format is not read.
    format: Mapped[str] = mapped_column(String(64))
    # The chain hash of event ``seq``: the snapshot belongs to this record, not a reset one.
    hash: Mapped[str] = mapped_column(String(64))
    data: Mapped[bytes] = mapped_column(LargeBinary)


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
    # What a public message is about (results, distribution), for the status's backlog.
    topic: Mapped[str | None] = mapped_column(String(32))
    # The observers among the recipients of a public message: their copy carries
    # List-Unsubscribe, and one who stopped observing before it went is left out.
    observers: Mapped[list[str] | None] = mapped_column(JSON(none_as_null=True))


class Observer(Base):
    """An address that confirmed OBSERVE: it gets the game's public mail, nothing else."""

    __tablename__ = "observers"

    address: Mapped[str] = mapped_column(Text, primary_key=True)
    since: Mapped[datetime] = mapped_column(UtcDateTime())


class DigestReader(Base):
    """An address that chose DIGEST ON: its public mail comes once a day, in one digest."""

    __tablename__ = "digest_readers"

    address: Mapped[str] = mapped_column(Text, primary_key=True)
    since: Mapped[datetime] = mapped_column(UtcDateTime())


class DigestCopy(Base):
    """One digest reader's copy of a public message, kept for the reader's next digest.

    The message's bytes stay in the outbox (``message_id``); the copy is deleted in the
    transaction that queues the digest holding it, so that it is held once and sent once.
    """

    __tablename__ = "digest_copies"
    __table_args__ = (UniqueConstraint("message_id", "address"),
                      Index("ix_digest_copies_queued_at", "queued_at"))

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    message_id: Mapped[str] = mapped_column(Text)
    address: Mapped[str] = mapped_column(Text)
    # An observer's copy is left out of the digest once the address stops observing.
    observer: Mapped[bool] = mapped_column(Boolean)
    queued_at: Mapped[datetime] = mapped_column(UtcDateTime())


class BounceMark(Base):
    """A bounce matched by its VERP token to a recipient of one outgoing message.

    One per message and recipient: a hard and a soft report of the same message count once,
    as the worse.
    """

    __tablename__ = "bounces"
    __table_args__ = (UniqueConstraint("address", "message"),
                      Index("ix_bounces_address_at", "address", "at"))

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    address: Mapped[str] = mapped_column(Text)
    # The message's reference in its return path (speakerbot.mail.verp.message_ref).
    message: Mapped[str] = mapped_column(String(32))
    # Tenths of a point (a hard bounce 10, a soft one 5): whole numbers compare exactly.
    weight: Mapped[int] = mapped_column(Integer)
    detail: Mapped[str] = mapped_column(Text)
    at: Mapped[datetime] = mapped_column(UtcDateTime())


class Unreachable(Base):
    """A player whose mail bounced up to ``[limits] bounce_score``: the host has been told."""

    __tablename__ = "unreachable"

    address: Mapped[str] = mapped_column(Text, primary_key=True)
    since: Mapped[datetime] = mapped_column(UtcDateTime())


class Meta(Base):
    """One key of metadata; ``value`` holds ``{"value": <its JSON value>}``."""

    __tablename__ = "meta"

    key: Mapped[str] = mapped_column(String(200), primary_key=True)
    value: Mapped[dict[str, Any]] = mapped_column(JSON)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime())


HandledRow = TypeVar("HandledRow", Inbound, Outbox)


def row_in_status(session: Session, model: type[HandledRow], row_id: int, status: str,
                  what: str) -> HandledRow:
    """Return row ``row_id`` of ``model``, locked for update, if its status is ``status``.

    ``LookupError`` if there is none; ``NotPending`` (naming ``what`` it is) if its status
    is another.
    """
    row = session.get(model, row_id, with_for_update=True)
    if row is None:
        raise LookupError(f"no {what} {row_id}")
    if row.status != status:
        raise NotPending(f"{what} {row_id} is {row.status}, not {status.replace('_', ' ')}")
    return row
