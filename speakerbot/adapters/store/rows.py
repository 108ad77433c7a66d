"""What the store hands out and takes in: plain rows, no session attached."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, fields
from datetime import datetime
from functools import cache
from typing import Any, TypeVar, cast

from speakerbot.adapters.arrival import Arrival
from speakerbot.adapters.store.schema import Confirmation

_Row = TypeVar("_Row")

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
    started: int = 0
    reason: str | None = None
    reading: bytes | None = None
    """What intake read of it, as the mail reader encoded it (None: it must be read)."""


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
    message_id: str | None = None
    """The Message-ID as intake read it (else the store reads it from the bytes)."""


@dataclass(frozen=True)
class InboundItem(Arrival):
    """One received message to store, with what intake read in it."""

    intake: Intake | None = None
    set_aside: str | None = None
    reading: bytes | None = None
    """What intake read of it, encoded by the mail reader: stored with it, never looked into."""


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
    """An event of the game record with its sequence number (and its links, if asked)."""

    seq: int
    data: dict[str, Any]
    links: EventLinks | None = None


@dataclass(frozen=True)
class StoredSnapshot:
    """The state after event ``seq``, written out whole, with that event's chain hash."""

    seq: int
    hash: str
    data: bytes


@dataclass(frozen=True)
class EventLinks:
    """An event's place in the record's hash chains, as stored (see the engine's chain).

    ``hash`` is None for an event not linked yet (recorded before the chains existed).
    """

    seq: int
    hash: str | None
    public_seq: int | None = None
    public_hash: str | None = None


@dataclass(frozen=True)
class OutboxMail:
    """What every message of the outbox is, put in or read back: who sends what to whom, when.

    ``inbound_id``: the stored message it answers, if any.
    """

    message_id: str
    mail_from: str
    recipients: tuple[str, ...]
    raw: bytes
    kind: str
    inbound_id: int | None
    created_at: datetime


@dataclass(frozen=True)
class OutgoingMail(OutboxMail):
    """A message to put in the outbox."""

    priority: int = 0
    """Lower goes first among mail due at once (the service puts the game's business first)."""
    gathered_until: datetime | None = None
    """Set: the message is not sent itself but kept (status ``gathered``) to be gathered with
    others into one message at this time (the service's hourly limit on public mail)."""
    topic: str | None = None
    """What a public message is about, when ``speakerbot status`` counts it apart:
    ``results`` or ``distribution`` (None: anything else)."""
    observers: tuple[str, ...] = ()
    """The observers among ``recipients`` (their copy carries List-Unsubscribe), and among
    ``digest``."""
    digest: tuple[str, ...] = ()
    """The digest readers of a public message: not sent to, but each kept a copy for its
    next digest (``recipients`` may then be empty)."""


@dataclass(frozen=True)
class OutboxRow(OutboxMail):
    """A message in the outbox with its delivery state."""

    id: int
    status: str
    attempts: int
    next_attempt_at: datetime
    last_error: str | None
    sent_at: datetime | None
    refused: dict[str, str]
    observers: tuple[str, ...] = ()


@dataclass(frozen=True)
class OutboxSummary:
    """The outbox at a glance, for ``speakerbot status``."""

    pending: int
    failed: int
    oldest_pending: datetime | None
    refused: list[tuple[str, str, str]]
    """(message_id, recipient, the server's answer) for every recipient refused for good."""
    waiting: list[tuple[str, datetime, str | None]] = field(default_factory=list)
    """(kind, queued at, topic) for every message waiting, oldest first."""
    gathered: int = 0
    """Public messages held to be gathered into one (``[limits] public_per_hour``)."""


@dataclass(frozen=True)
class WakeMarks:
    """What the daemon's loop reads after each pass, in one statement (``Store.wake_marks``)."""

    last_event_seq: int
    next_outbox: datetime | None
    """When the next pending outgoing message is due."""
    earliest_pending: datetime | None
    """When the oldest message still to handle was received (``earliest_pending``)."""
    next_retry: datetime | None
    """When the next message waiting for a retry is due."""
    held_unasked: bool
    """Whether a message is held whose sender has not been asked to confirm it yet."""
    next_gathering: datetime | None
    oldest_digest_copy: datetime | None
    additions_waiting: bool
    """Whether the host's additions wait to be announced (``service/additions.py``)."""
    last_set_aside: int | None
    """The id of the last message set aside (None: none ever was)."""
    aside_notified: int | None
    """The id of the last message set aside that the host was told of (None: none yet)."""
    aside_notice_at: str | None
    """When the host was last told of mail set aside, as stored (ISO 8601; None: never)."""
    next_expiry: datetime | None
    """When the next open request for confirmation expires (``next_confirmation_expiry``)."""
    handwork_reminded: str | None
    """When the host was last reminded of the open hand work, as stored (None: never)."""

    @property
    def change(self) -> tuple[int, datetime | None, datetime | None]:
        """What another process's write changes: the loop compares it while it sleeps."""
        return self.last_event_seq, self.next_outbox, self.earliest_pending


def aware(value: datetime, name: str) -> datetime:
    """Return ``value``, refused (``ValueError``) if it is naive: every stored time is UTC."""
    if value.tzinfo is None or value.utcoffset() is None:
        raise ValueError(f"{name} is a naive datetime ({value!r}): give a timezone-aware one")
    return value


def inbound_row(row: Any) -> InboundRow:
    """Copy a stored message (an ORM object or a row of its columns) out of the session."""
    reading = None if row.reading is None else bytes(row.reading)
    return _copied(InboundRow, row, raw=bytes(row.raw), reading=reading)


def confirmation_row(row: Confirmation) -> ConfirmationRow:
    """Copy a request's code out of the session."""
    return _copied(ConfirmationRow, row)


def outbox_row(row: Any) -> OutboxRow:
    """Copy an outbox message (an ORM object or a row of its columns) out of the session."""
    return _copied(OutboxRow, row, recipients=tuple(row.recipients), raw=bytes(row.raw),
                   refused=dict(row.refused or {}), observers=tuple(row.observers or ()))


def _copied(kind: Callable[..., _Row], row: Any, **converted: Any) -> _Row:
    """Return a ``kind`` of every column of ``row`` that it names, ``converted`` as given.

    The columns are read by the row's field names, so a column added to a row and to the
    table is copied without a word here; ``converted`` holds those that must not stay
    tied to the session (the database's buffers, lists and mappings).
    """
    return kind(**{name: getattr(row, name) for name in _names(kind) if name not in converted},
                **converted)


@cache
def _names(kind: Callable[..., Any]) -> tuple[str, ...]:
    """Return the field names of a row's dataclass, once per class."""
    return tuple(f.name for f in fields(cast(Any, kind)))
