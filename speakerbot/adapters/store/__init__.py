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

from sqlalchemy.orm import Session

from speakerbot.adapters.store import statements
from speakerbot.adapters.store.audience import AudienceStore
from speakerbot.adapters.store.confirmations import ConfirmationStore
from speakerbot.adapters.store.database import (
    GAME_PASSES,
    MAIN_GAME,
    game_url,
    make_engine,
    shared_engine,
    sqlite_url,
)
from speakerbot.adapters.store.digests import HeldCopy
from speakerbot.adapters.store.gauges import Gauges, GaugeStore
from speakerbot.adapters.store.inbound import InboundStore
from speakerbot.adapters.store.namespaces import move_main_game
from speakerbot.adapters.store.outbox import OutboxStore
from speakerbot.adapters.store.pinging import connection_lost
from speakerbot.adapters.store.record import RecordStore
from speakerbot.adapters.store.rows import (
    ConfirmationRow,
    EventLinks,
    InboundItem,
    InboundRow,
    Intake,
    OutboxRow,
    OutboxSummary,
    OutgoingMail,
    StoredEvent,
    StoredInbound,
    StoredSnapshot,
    WakeMarks,
)
from speakerbot.adapters.store.schema import (
    PENDING_INBOUND,
    AlreadyRunning,
    Base,
    Confirmation,
    Event,
    Inbound,
    Meta,
    NotPending,
    Outbox,
    UtcDateTime,
)
from speakerbot.adapters.store.statements import (
    ASIDE_NOTICE_AT,
    ASIDE_NOTIFIED_ID,
    HANDWORK_REMINDED,
    HOST_ADDITIONS,
)
from speakerbot.rfc5322 import message_id_of

__all__ = [
    "ASIDE_NOTICE_AT",
    "ASIDE_NOTIFIED_ID",
    "GAME_PASSES",
    "HANDWORK_REMINDED",
    "HOST_ADDITIONS",
    "MAIN_GAME",
    "PENDING_INBOUND",
    "AlreadyRunning",
    "Base",
    "Confirmation",
    "ConfirmationRow",
    "Event",
    "EventLinks",
    "GaugeStore",
    "Gauges",
    "HeldCopy",
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
    "StoredSnapshot",
    "UtcDateTime",
    "WakeMarks",
    "connection_lost",
    "game_url",
    "make_engine",
    "message_id_of",
    "move_main_game",
    "shared_engine",
    "sqlite_url",
]


class Store(InboundStore, ConfirmationStore, OutboxStore, RecordStore, AudienceStore,
            GaugeStore):
    """The game's database: inbound mail, events, outbox, metadata and the audience."""

    def wake_marks(self, session: Session | None = None) -> WakeMarks:
        """Read what the daemon's loop looks at after each pass, in one round trip."""
        with self._reading(session) as reading:
            row = reading.connection().execute(statements.wake_marks()).one()
            return WakeMarks(row[0] or 0, row[1], row[2], row[3], bool(row[4]), row[5], row[6],
                             bool(row[7]), row[8], row[9], row[10], row[11], row[12])
