"""The outbox in the store: mail to send, with its delivery attempts."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import datetime
from typing import Any

from sqlalchemy import exists, func, or_, select, update
from sqlalchemy.orm import Session

from speakerbot.adapters.store import statements
from speakerbot.adapters.store.digests import DigestStore
from speakerbot.adapters.store.rows import OutboxRow, OutboxSummary, OutgoingMail, aware, outbox_row
from speakerbot.adapters.store.schema import FOR_DIGEST, GATHERED, MERGED, Outbox, row_in_status
from speakerbot.addresses import as_compared


class OutboxStore(DigestStore):
    """The outbox: queued mail, delivery attempts, retries and give-ups."""

    def enqueue(self, session: Session, mail: OutgoingMail) -> None:
        """Put a message in the outbox, in the caller's transaction; again is a no-op.

        It is due at once (at its ``created_at``).
        """
        self.enqueue_many(session, [mail])

    def enqueue_many(self, session: Session, mails: Sequence[OutgoingMail]) -> None:
        """Put messages in the outbox as ``enqueue`` does, with one statement."""
        if mails:
            session.connection().execute(
                statements.insert_ignoring_conflicts(self._dialect, Outbox, "message_id"),
                [self._outbox_values(mail) for mail in mails])
            self.keep_digest_copies(session, mails)

    @staticmethod
    def _outbox_values(mail: OutgoingMail) -> dict[str, Any]:
        aware(mail.created_at, "created_at")
        if not mail.recipients and not mail.digest:
            raise ValueError(f"outgoing message {mail.message_id} has no recipients")
        status = FOR_DIGEST if not mail.recipients else "pending" \
            if mail.gathered_until is None else GATHERED
        return {
            "message_id": mail.message_id,
            "mail_from": mail.mail_from,
            "recipients": list(mail.recipients),
            "raw": bytes(mail.raw),
            "kind": mail.kind,
            "topic": mail.topic,
            "observers": list(mail.observers) or None,
            "inbound_id": mail.inbound_id,
            "created_at": mail.created_at,
            "status": status,
            "attempts": 0,
            "next_attempt_at": mail.created_at if mail.gathered_until is None
            else mail.gathered_until,
            "last_error": None,
            "sent_at": None,
            "refused": None,
            "addressee": as_compared(mail.recipients[0]) if len(mail.recipients) == 1
            else None,
            "priority": mail.priority,
        }

    def due_outbox(self, now: datetime, limit: int = 50) -> list[OutboxRow]:
        """Return pending messages whose next attempt is due at ``now``, oldest first."""
        aware(now, "now")
        with self._reading() as session:
            rows = session.connection().execute(statements.due_outbox(),
                                                {"now": now, "limit": limit})
            return [outbox_row(row) for row in rows]

    @contextmanager
    def _pending_outbox(self, outbox_id: int) -> Iterator[Outbox]:
        with self.transaction() as session:
            yield row_in_status(session, Outbox, outbox_id, "pending", "outbox message")

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
        aware(now, "now")
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
        aware(now, "now")
        if not sent:
            return
        with self.transaction() as session:
            # Most were simply taken: one UPDATE for all of them.
            plain = [outbox_id for outbox_id, refused in sent if not refused]
            if plain:
                session.connection().execute(statements.mark_sent(),
                                             {"ids": plain, "now": now})
            ids = [outbox_id for outbox_id, refused in sent if refused]
            rows = {row.id: row for row in session.scalars(
                select(Outbox).where(Outbox.id.in_(ids)).with_for_update())} if ids else {}
            for outbox_id, refused in sent:
                if not refused:
                    continue
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
        aware(next_attempt_at, "next_attempt_at")
        with self._pending_outbox(outbox_id) as row:
            if only is not None:
                if not only:
                    raise ValueError("a retry needs at least one recipient")
                row.recipients = list(only)
            row.attempts += 1
            row.last_error = error
            row.next_attempt_at = next_attempt_at
            self._add_refused(row, refused)

    def mark_partly_sent(self, outbox_id: int, remaining: Sequence[str], *,
                         refused: Mapping[str, str] | None = None) -> None:
        """Record that a pending message reached some of its recipients, in one transaction.

        ``remaining``: the recipients it has still to reach; it stays pending and due, with
        no attempt counted (the relay took what it was given).
        """
        if not remaining:
            raise ValueError("a message partly sent has recipients left")
        with self._pending_outbox(outbox_id) as row:
            row.recipients = list(remaining)
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
            gathered = session.scalar(
                select(func.count()).select_from(Outbox).where(Outbox.status == GATHERED)) or 0
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
            waiting = [
                (kind, created_at, topic)
                for kind, created_at, topic in session.execute(
                    select(Outbox.kind, Outbox.created_at, Outbox.topic)
                    .where(Outbox.status == "pending")
                    .order_by(Outbox.id)
                )
            ]
        return OutboxSummary(
            pending=counts.get("pending", 0),
            failed=counts.get("failed", 0),
            oldest_pending=oldest,
            refused=refused,
            waiting=waiting,
            gathered=gathered,
        )

    # -- Gathered public mail (the service's hourly limit) ---------------------------------

    def public_since(self, since: datetime, kinds: Sequence[str],
                     session: Session | None = None, *,
                     uncounted: Sequence[str] = ()) -> tuple[int, bool]:
        """Count the mail of ``kinds`` queued since ``since`` to be sent by itself.

        Mail of the topics ``uncounted`` (the host's overrides) is not counted. Also say
        whether any message is waiting to be gathered.
        """
        aware(since, "since")
        with self._reading(session) as reading:
            connection = reading.connection()
            counted = [Outbox.kind.in_(tuple(kinds)), Outbox.created_at >= since,
                       Outbox.status.not_in((GATHERED, MERGED))]
            if uncounted:
                # Most public mail has no topic: NOT IN alone would leave it out (NULL).
                counted.append(or_(Outbox.topic.is_(None), Outbox.topic.not_in(uncounted)))
            # One round trip for both: every transaction that queues public mail asks.
            count, waiting = connection.execute(select(
                select(func.count()).select_from(statements.table(Outbox))
                .where(*counted).scalar_subquery(),
                exists().where(Outbox.status == GATHERED),
            )).one()
        return count or 0, bool(waiting)

    def gathered_due(self, now: datetime, session: Session) -> list[OutboxRow]:
        """Return the messages to be gathered by ``now``, in the order they were queued."""
        aware(now, "now")
        rows = session.connection().execute(
            select(*Outbox.__table__.c)
            .where(Outbox.status == GATHERED, Outbox.next_attempt_at <= now)
            .order_by(Outbox.id))
        return [outbox_row(row) for row in rows]

    def no_longer_observers(self, session: Session, addresses: Sequence[str]) -> None:
        """Make these addresses plain recipients of the public mail still waiting to go.

        For observers who joined: a player's copy of what they were sent as observers
        still goes (without List-Unsubscribe), and is not left out as theirs who stopped.
        """
        gone = set(addresses)
        self.digest_copies_not_observed(session, addresses)
        # Only the ids and the lists are read: a backlog's bodies stay where they are.
        rows = session.execute(select(Outbox.id, Outbox.observers).where(
            Outbox.status.in_(("pending", GATHERED)), Outbox.observers.is_not(None)))
        for outbox_id, observers in list(rows):
            if gone & set(observers or ()):
                kept = [address for address in observers or () if address not in gone]
                session.connection().execute(
                    update(statements.table(Outbox)).where(Outbox.id == outbox_id)
                    .values(observers=kept or None))

    def mark_merged(self, session: Session, ids: Sequence[int], into: str) -> None:
        """Record that gathered messages went into the message ``into``.

        In the caller's transaction, the one that queues ``into``: they are gathered once.
        """
        if ids:
            session.connection().execute(
                update(statements.table(Outbox))
                .where(Outbox.id.in_(list(ids)), Outbox.status == GATHERED)
                .values(status=MERGED, last_error=f"gathered into {into}"))

    def next_gathering(self, session: Session | None = None) -> datetime | None:
        """Return when the earliest message waiting to be gathered is due, or None."""
        with self._reading(session) as reading:
            return reading.scalar(
                select(func.min(Outbox.next_attempt_at)).where(Outbox.status == GATHERED))

    def replies_since_each(self, recipients: Sequence[str], since: datetime,
                           kinds: Sequence[str], session: Session | None = None,
                           ) -> dict[str, int]:
        """Count as ``replies_since`` does, for several addresses at once (canonical keys)."""
        aware(since, "since")
        wanted = sorted({as_compared(recipient) for recipient in recipients})
        counts = dict.fromkeys(wanted, 0)
        if not wanted:
            return counts
        with self._reading(session) as reading:
            for address, count in reading.connection().execute(
                    statements.replies_since_each(tuple(kinds)),
                    {"addressees": wanted, "since": since}):
                if address is not None:
                    counts[address] = count
        return counts

    def replies_since(self, recipient: str, since: datetime,
                      kinds: Sequence[str],
                      session: Session | None = None) -> int:
        """Count mail of ``kinds`` (replies and the limit notice) to ``recipient`` alone.

        Only mail to that one address counts (compared in its canonical form, so in any ASCII
        case: :mod:`speakerbot.addresses`), created at or after ``since``;
        the count comes from an index, whatever the size of the outbox.
        """
        aware(since, "since")
        with self._reading(session) as reading:
            return reading.connection().scalar(statements.replies_since(tuple(kinds)), {
                "addressee": as_compared(recipient), "since": since}) or 0

    # -- Metadata --------------------------------------------------------------------------
