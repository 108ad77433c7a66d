"""Inbound mail in the store: stored once, then pending, held, retried or done."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.engine import CursorResult
from sqlalchemy.orm import Session

from speakerbot.adapters.store import statements
from speakerbot.adapters.store.database import StoreBase
from speakerbot.adapters.store.rows import (
    InboundItem,
    InboundRow,
    Intake,
    StoredInbound,
    aware,
    inbound_row,
)
from speakerbot.adapters.store.schema import (
    FINAL_INBOUND,
    PENDING_INBOUND,
    Inbound,
    NotPending,
    row_in_status,
)
from speakerbot.rfc5322 import message_id_of

_ALL = 2**31 - 1
"""A limit that takes every row: SQLite takes no LIMIT NULL, PostgreSQL no LIMIT -1."""


class InboundStore(StoreBase):
    """Inbound mail: each message stored once, then handled exactly once."""

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

    def store_inbound_many(self, items: Sequence[InboundItem],
                           session: Session | None = None) -> list[StoredInbound]:
        """Store several received messages in one transaction (see ``store_inbound``).

        In ``session`` (the caller's transaction) if given, else in a transaction of their own.
        """
        if session is not None:
            return [self._store_one(session, item) for item in items]
        # Not fenced: every worker's listener stores mail for every game; its holder reads it.
        with self.transaction(fenced=False) as own:
            return [self._store_one(own, item) for item in items]

    def _store_one(self, session: Session, item: InboundItem) -> StoredInbound:
        aware(item.received_at, "received_at")
        uidvalidity, uid = item.uidvalidity, item.uid
        if (uidvalidity is None) != (uid is None):
            raise ValueError("give both uidvalidity and uid, or neither")
        raw = bytes(item.raw)
        intake = item.intake or Intake()
        digest = intake.received_sha256 or hashlib.sha256(raw).hexdigest()
        message_id = (intake.message_id or message_id_of(raw)
                      or f"<{digest}@speakerbot.invalid>")
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
            "started": 0,
            "reason": "unreadable" if item.set_aside is not None else None,
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
            "reading": item.reading,
        }
        # A forger's copy (not authenticated) never shadows the real message.
        by_copy = intake.sender is not None and intake.body_sha256 is not None
        find = statements.find_inbound(uidvalidity is not None, by_copy)
        keys = {"sha256": digest, "uidvalidity": uidvalidity, "uid": uid,
                "message_id": message_id, "sender": intake.sender,
                "body_sha256": intake.body_sha256, "authenticated": intake.authenticated}
        # Write transactions run one at a time, so nothing can slip in between the look-up
        # and the insert; ON CONFLICT DO NOTHING still guards the unique keys.
        found = session.connection().execute(find, keys).first()
        if found is not None:
            return StoredInbound(id=found[0], duplicate=True, status=found[1])
        insert = statements.insert_inbound(self._dialect)
        new_id = session.connection().execute(insert, values).scalar_one_or_none()
        if new_id is not None:
            return StoredInbound(id=new_id, duplicate=False, status=str(values["status"]))
        found = session.connection().execute(find, keys).first()
        if found is None:
            raise RuntimeError("inbound message neither stored nor found: unique key mismatch")
        return StoredInbound(id=found[0], duplicate=True, status=found[1])

    def inbound(self, inbound_id: int) -> InboundRow:
        """Return a stored message; ``LookupError`` if there is none with that id."""
        with self._reading() as session:
            row = session.get(Inbound, inbound_id)
            if row is None:
                raise LookupError(f"no inbound message {inbound_id}")
            return inbound_row(row)

    def pending_inbound(self, now: datetime | None = None,
                        session: Session | None = None,
                        limit: int | None = None) -> list[InboundRow]:
        """Return the messages still to handle, oldest first (the ``limit`` oldest).

        Those 'new', and those to 'retry' whose retry is due by ``now`` (all of them when
        ``now`` is None).
        """
        with self._reading(session) as reading:
            # Columns, not ORM objects: the mail path reads every message this way.
            if now is not None:  # the mail path's own statement, built once
                rows = reading.connection().execute(statements.due_inbound(), {
                    "now": aware(now, "now"), "limit": _ALL if limit is None else limit})
            else:
                rows = reading.connection().execute(
                    select(*Inbound.__table__.c).where(Inbound.status.in_(PENDING_INBOUND))
                    .order_by(Inbound.received_at, Inbound.id).limit(limit))
            return [inbound_row(row) for row in rows]

    def any_due_inbound(self, now: datetime) -> bool:
        """Tell whether a message is due to be handled (new, or its retry is due by ``now``)."""
        with self._reading() as reading:
            return reading.connection().scalar(
                statements.any_due(), {"now": aware(now, "now")}) is not None

    def retry_waiting(
        self, session: Session | None = None,
    ) -> list[tuple[int, str | None, datetime | None]]:
        """Return (id, sender, retry_at) of every authenticated message waiting for a retry.

        Only those hold their sender's later mail back: a forger's failing message must
        not delay the real owner's.
        """
        with self._reading(session) as reading:
            return [(i, sender, at) for i, sender, at
                    in reading.connection().execute(statements.retry_waiting())]

    def list_inbound(self, status: str | None = None, limit: int = 100) -> list[InboundRow]:
        """Return the newest stored messages (with ``status`` only, if given), newest first."""
        query = select(Inbound).order_by(Inbound.id.desc()).limit(limit)
        if status is not None:
            query = query.where(Inbound.status == status)
        with self._reading() as session:
            return [inbound_row(row) for row in session.scalars(query)]

    def requeue_inbound(self, inbound_id: int) -> InboundRow:
        """Put a set-aside message back to be processed afresh; ``LookupError`` if absent.

        Raises ``NotPending`` unless it is set aside (nothing else may be processed twice).
        """
        with self.transaction() as session:
            row = row_in_status(session, Inbound, inbound_id, "set_aside", "inbound message")
            row.status, row.attempts, row.retry_at, row.started = "new", 0, None, 0
            row.note = (row.note + " requeued by the operator").strip()
            return inbound_row(row)

    def set_aside_since(self, after_id: int) -> list[InboundRow]:
        """Return the set-aside messages with an id above ``after_id``, oldest first."""
        with self._reading() as session:
            rows = session.scalars(select(Inbound).where(
                Inbound.status == "set_aside", Inbound.id > after_id).order_by(Inbound.id))
            return [inbound_row(row) for row in rows]

    def earliest_pending(self, session: Session | None = None) -> datetime | None:
        """Return when the oldest message still to handle was received (None: none waits).

        A message waiting for a retry counts only if it is authenticated: unauthenticated
        mail that keeps failing must not hold the game's deadlines back.
        """
        with self._reading(session) as reading:
            earliest: datetime | None = reading.connection().scalar(
                statements.earliest_pending())
            return earliest

    def inbound_statuses(self, ids: Sequence[int],
                         session: Session | None = None) -> dict[int, str]:
        """Return the status of each stored message named (one query, no message bytes)."""
        if not ids:
            return {}
        with self._reading(session) as reading:
            return {i: status for i, status in reading.execute(
                select(Inbound.id, Inbound.status).where(Inbound.id.in_(list(ids))))}

    def find_inbound_by_uid(self, uidvalidity: int, uid: int) -> InboundRow | None:
        """Return the message stored from this IMAP UID, if any."""
        with self._reading() as session:
            row = session.scalars(
                select(Inbound).where(Inbound.uidvalidity == uidvalidity, Inbound.uid == uid)
            ).first()
            return None if row is None else inbound_row(row)

    def mark_inbound(
        self,
        session: Session,
        inbound_id: int,
        status: str,
        note: str = "",
        *,
        now: datetime | None = None,
        reason: str | None = None,
    ) -> None:
        """Mark a pending message 'processed' or 'skipped', inside the caller's transaction.

        ``reason``: why it was not acted on (a short code; ``note`` says it), if it was not.

        Raises ``NotPending`` if it was handled already (by a concurrent transaction, say):
        the caller's transaction must then roll back, so that nothing is done twice.
        """
        if status not in FINAL_INBOUND:
            raise ValueError(f"status must be one of {FINAL_INBOUND}, not {status!r}")
        result: CursorResult[Any] = session.connection().execute(
            statements.mark_inbound(),
            {"b_id": inbound_id, "b_status": status, "b_note": note, "b_reason": reason,
             "b_at": aware(now or datetime.now(UTC), "now")})
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
        aware(now, "now")
        with self.transaction() as session:
            row = session.get(Inbound, inbound_id, with_for_update=True)
            if row is None:
                raise LookupError(f"no inbound message {inbound_id}")
            if row.status in PENDING_INBOUND:
                row.started = 0  # this start ended, in a failure that was counted
                row.attempts += 1
                row.error = error
                if row.attempts > len(delays):
                    row.status, row.retry_at, row.reason = "set_aside", None, "failed"
                else:
                    row.status = "retry"
                    row.retry_at = now + timedelta(seconds=delays[row.attempts - 1])
            return inbound_row(row)

    # -- Starts that never finished (a poison message) -------------------------------------

    def start_due(self, now: datetime, limit: int) -> bool:
        """Count a start for the ``limit`` oldest messages due by ``now``.

        Committed before they are begun, so that a process that dies processing them
        (killed, out of memory) leaves a trace that the next one reads. Returns False,
        counting nothing, when a message due was started before and never finished (the
        caller then takes them one at a time), or when none is due.
        """
        with self.transaction() as session:
            # One statement: the messages chosen, each row saying whether any due was begun.
            rows = session.connection().execute(statements.due_to_start(), {
                "now": aware(now, "now"), "limit": limit}).all()
            if not rows or rows[0][1]:
                return False
            session.connection().execute(statements.count_starts(),
                                         {"ids": [row[0] for row in rows]})
            return True

    def start_one(self, inbound_id: int) -> int:
        """Count a start for one message, committed before it is begun; return the count."""
        with self.transaction() as session:
            row = session.get(Inbound, inbound_id, with_for_update=True)
            if row is None:
                raise LookupError(f"no inbound message {inbound_id}")
            row.started += 1
            return row.started

    def explain_held(self, session: Session, inbound_id: int, reason: str, why: str) -> None:
        """Keep why a message held was not acted on, after what it is held for."""
        session.execute(update(Inbound).where(Inbound.id == inbound_id)
                        .values(reason=reason, note=Inbound.note + "; " + why)
                        .execution_options(synchronize_session=False))

    def end_start(self, session: Session, inbound_id: int) -> None:
        """Clear a message's unfinished starts in the transaction that finishes one."""
        session.execute(update(Inbound).where(Inbound.id == inbound_id, Inbound.started > 0)
                        .values(started=0).execution_options(synchronize_session=False))

    def set_aside_unfinished(self, inbound_id: int, reason: str) -> None:
        """Set aside a pending message whose processing keeps dying, with the reason."""
        with self.transaction() as session:
            session.execute(update(Inbound).where(Inbound.id == inbound_id,
                                                  Inbound.status.in_(PENDING_INBOUND))
                            .values(status="set_aside", error=reason, retry_at=None,
                                    reason="unfinished")
                            .execution_options(synchronize_session=False))

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
            .values(status="held", confirmation_id=confirmation_id, note=note, started=0)
            .execution_options(synchronize_session=False)
        )
        if result.rowcount != 1:
            raise NotPending(f"inbound message {inbound_id} is not pending")

    def held(self, session: Session, confirmation_id: int) -> list[InboundRow]:
        """Return the messages held for a confirmation, in the order received."""
        rows = session.scalars(select(Inbound).where(
            Inbound.confirmation_id == confirmation_id, Inbound.status == "held")
            .order_by(Inbound.received_at, Inbound.id))
        return [inbound_row(row) for row in rows]

    def held_waiting(self, session: Session | None = None,
                     sender: str | None = None) -> list[InboundRow]:
        """Return the messages held with no request yet (it waited for the rate limit).

        ``sender``: only that address's, in the order received.
        """
        query = select(Inbound).where(Inbound.status == "held",
                                      Inbound.confirmation_id.is_(None))
        if sender is not None:
            query = query.where(Inbound.sender == sender)
        with self._reading(session) as reading:
            rows = reading.scalars(query.order_by(Inbound.received_at, Inbound.id))
            return [inbound_row(row) for row in rows]
