"""Digests by choice in the store: who reads digests, and the copies kept for their next one.

The store keeps what the service decided: an address in digest mode, and each copy of a
public message kept for a reader instead of sent (the message's bytes stay in the outbox,
once). The copies of a digest are deleted in the transaction that queues the digest, so a
copy is held once and sent once, whatever crashes between.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import delete, func, select, update
from sqlalchemy.orm import Session

from speakerbot.adapters.store import statements
from speakerbot.adapters.store.database import StoreBase
from speakerbot.adapters.store.rows import OutgoingMail, aware
from speakerbot.adapters.store.schema import GATHERED, DigestCopy, DigestReader, Outbox


@dataclass(frozen=True)
class HeldCopy:
    """A copy kept for a reader's digest: the message as queued, and for whom."""

    id: int
    address: str
    observer: bool
    message_id: str
    raw: bytes
    queued_at: datetime


class DigestStore(StoreBase):
    """Digest readers and the copies of public mail kept for them."""

    def digest_readers(self, session: Session | None = None) -> dict[str, datetime]:
        """Return every address in digest mode, and since when."""
        with self._reading(session) as reading:
            return {address: since for address, since in reading.execute(
                select(DigestReader.address, DigestReader.since)
                .order_by(DigestReader.since, DigestReader.address))}

    def set_digest_reader(self, session: Session, address: str, on: bool,
                          since: datetime) -> bool:
        """Put ``address`` in digest mode (``on``) or take it out; False: nothing changed."""
        present = session.get(DigestReader, address) is not None
        if on and not present:
            session.add(DigestReader(address=address, since=aware(since, "since")))
            session.flush()
        elif not on and present:
            session.execute(delete(DigestReader).where(DigestReader.address == address))
        return on != present

    def keep_digest_copies(self, session: Session, mails: Sequence[OutgoingMail]) -> None:
        """Keep each digest reader's copy of these messages (a copy kept already stays)."""
        values = [{"message_id": mail.message_id, "address": address,
                   "observer": address in mail.observers,
                   "queued_at": aware(mail.created_at, "created_at")}
                  for mail in mails for address in mail.digest]
        if values:
            session.connection().execute(statements.insert_ignoring_conflicts(
                self._dialect, DigestCopy, "message_id", "address"), values)

    def next_digest_copy(self, session: Session | None = None) -> datetime | None:
        """Return when the oldest copy ready for a digest was queued, or None.

        A copy of a message still kept to be gathered waits until its gathering is queued:
        the gathering leaves out the readers who hold copies of its parts.
        """
        with self._reading(session) as reading:
            return reading.scalar(
                select(func.min(DigestCopy.queued_at))
                .join(Outbox, Outbox.message_id == DigestCopy.message_id)
                .where(Outbox.status != GATHERED))

    def digest_copies_before(self, session: Session, before: datetime) -> list[HeldCopy]:
        """Return the copies kept for digests queued before ``before``, in the order queued.

        The order is the outbox's: the order the messages were sent in.
        """
        rows = session.execute(
            select(DigestCopy.id, DigestCopy.address, DigestCopy.observer,
                   DigestCopy.message_id, DigestCopy.queued_at, Outbox.id)
            .join(Outbox, Outbox.message_id == DigestCopy.message_id)
            .where(DigestCopy.queued_at < aware(before, "before"), Outbox.status != GATHERED)
            .order_by(Outbox.id, DigestCopy.id)).all()
        wanted = sorted({row[3] for row in rows})
        raws = {message_id: bytes(raw) for message_id, raw in session.execute(
            select(Outbox.message_id, Outbox.raw).where(Outbox.message_id.in_(wanted)))
        } if wanted else {}
        return [HeldCopy(copy_id, address, observer, message_id, raws[message_id], queued)
                for copy_id, address, observer, message_id, queued, _ in rows]

    def drop_digest_copies(self, session: Session, ids: Sequence[int]) -> None:
        """Delete the copies a digest now holds (in the transaction that queues it)."""
        if ids:
            session.execute(delete(DigestCopy).where(DigestCopy.id.in_(list(ids))))

    def digest_copies_of(self, session: Session, message_ids: Sequence[str]) -> set[str]:
        """Return the addresses that hold a copy of any of these messages for a digest."""
        if not message_ids:
            return set()
        return set(session.scalars(select(DigestCopy.address).where(
            DigestCopy.message_id.in_(list(message_ids)))))

    def digest_copies_not_observed(self, session: Session, addresses: Sequence[str]) -> None:
        """Make these addresses' kept copies a player's: observers who joined the game."""
        if addresses:
            session.execute(update(DigestCopy).where(DigestCopy.address.in_(list(addresses)))
                            .values(observer=False))
