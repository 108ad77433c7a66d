"""Requests for confirmation in the store: only the SHA-256 of each code."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from speakerbot.adapters.store.database import StoreBase
from speakerbot.adapters.store.rows import ConfirmationRow, aware, confirmation_row
from speakerbot.adapters.store.schema import Confirmation, Inbound


class ConfirmationStore(StoreBase):
    """Requests for confirmation: open, used or expired."""

    def add_confirmation(self, session: Session, *, address: str, token_sha256: str,
                         request_message_id: str, created_at: datetime,
                         expires_at: datetime) -> int:
        """Record a request for confirmation; return its id."""
        row = Confirmation(address=address, token_sha256=token_sha256,
                           request_message_id=request_message_id,
                           created_at=aware(created_at, "created_at"),
                           expires_at=aware(expires_at, "expires_at"), status="open",
                           closed_at=None)
        session.add(row)
        session.flush()
        return row.id

    def open_confirmation(self, session: Session, address: str,
                          now: datetime) -> ConfirmationRow | None:
        """Return the address's request still open and unexpired at ``now``, if any."""
        row = session.scalars(select(Confirmation).where(
            Confirmation.address == address, Confirmation.status == "open",
            Confirmation.expires_at > aware(now, "now")).order_by(Confirmation.id.desc())
        ).first()
        return None if row is None else confirmation_row(row)

    def find_confirmation(self, session: Session, token_sha256: str) -> ConfirmationRow | None:
        """Find a request by its code's hash."""
        row = session.scalars(select(Confirmation).where(
            Confirmation.token_sha256 == token_sha256)).first()
        return None if row is None else confirmation_row(row)

    def last_request_at(self, session: Session, address: str) -> datetime | None:
        """Return when the last request for confirmation went to ``address``, if one did."""
        return session.scalar(select(func.max(Confirmation.created_at)).where(
            Confirmation.address == address))

    def codes_in_request(self, session: Session, request_message_id: str) -> int:
        """Count the codes one request carried (one for each message it listed)."""
        return session.scalar(select(func.count()).select_from(Confirmation).where(
            Confirmation.request_message_id == request_message_id)) or 0

    def waiting_senders(self, session: Session | None = None) -> dict[str, datetime | None]:
        """Return each sender of mail held with no request yet, and its last request's time.

        What the daemon needs to wake when the next of those requests may go out.
        """
        with self._reading(session) as reading:
            senders = {sender for sender in reading.scalars(
                select(Inbound.sender).where(Inbound.status == "held",
                                             Inbound.confirmation_id.is_(None)).distinct())
                if sender is not None}
            if not senders:
                return {}
            last: dict[str, datetime] = {address: when for address, when in reading.execute(
                select(Confirmation.address, func.max(Confirmation.created_at))
                .where(Confirmation.address.in_(senders)).group_by(Confirmation.address))}
            return {sender: last.get(sender) for sender in senders}

    def close_confirmation(self, session: Session, confirmation_id: int, status: str,
                           now: datetime) -> None:
        """Mark a request 'used' or 'expired'."""
        session.execute(update(Confirmation).where(Confirmation.id == confirmation_id)
                        .values(status=status, closed_at=aware(now, "now"))
                        .execution_options(synchronize_session=False))

    def expire_confirmations(self, session: Session, now: datetime) -> list[int]:
        """Close every open request expired by ``now``; its held mail becomes 'unconfirmed'.

        Return the ids of the messages that were held.
        """
        aware(now, "now")
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
