"""The game's audience in the store: observers, bounces matched to recipients, unreachable players.

The store keeps what the service decided and counts what it asks; it judges nothing (the
score that makes a player unreachable, the window it is counted in, are the service's).
Addresses are stored as the service hands them, in their canonical form.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import delete, func, literal, select, union_all
from sqlalchemy.orm import Session

from speakerbot.adapters.store import statements
from speakerbot.adapters.store.database import StoreBase
from speakerbot.adapters.store.rows import aware
from speakerbot.adapters.store.schema import BounceMark, DigestReader, Observer, Unreachable


class AudienceStore(StoreBase):
    """Observers, bounces and the unreachable mark."""

    def observers(self, session: Session | None = None) -> dict[str, datetime]:
        """Return every observer and since when, in the order they began."""
        with self._reading(session) as reading:
            return {address: since for address, since in reading.execute(
                select(Observer.address, Observer.since).order_by(Observer.since,
                                                                  Observer.address))}

    def public_audience(self, session: Session | None = None,
                        ) -> tuple[dict[str, datetime], dict[str, datetime]]:
        """Return the observers and the digest readers, each since when, in one statement.

        As ``observers`` and ``digest_readers`` each do, in the order they began: every
        public message queued reads both.
        """
        lists = union_all(
            select(literal(0).label("which"), Observer.address, Observer.since),
            select(literal(1).label("which"), DigestReader.address, DigestReader.since),
        ).subquery()
        observers: dict[str, datetime] = {}
        readers: dict[str, datetime] = {}
        with self._reading(session) as reading:
            for which, address, since in reading.execute(
                    select(lists).order_by(lists.c.which, lists.c.since, lists.c.address)):
                (readers if which else observers)[address] = since
        return observers, readers

    def add_observer(self, session: Session, address: str, since: datetime) -> bool:
        """Make ``address`` an observer; False when it was one already."""
        return _listed(session, Observer, address, since)

    def remove_observers(self, session: Session, addresses: Sequence[str]) -> list[str]:
        """Stop these addresses observing; return those that were observers."""
        if not addresses:
            return []
        gone = list(session.scalars(select(Observer.address)
                                    .where(Observer.address.in_(list(addresses)))))
        if gone:
            session.execute(delete(Observer).where(Observer.address.in_(gone)))
        return gone

    def add_bounce(self, session: Session, *, address: str, message: str, weight: int,
                   detail: str, at: datetime) -> None:
        """Count one bounce of one message to ``address``; the heavier of two for it stays."""
        old = session.scalars(select(BounceMark).where(
            BounceMark.address == address, BounceMark.message == message)).first()
        if old is None:
            session.add(BounceMark(address=address, message=message, weight=weight,
                                   detail=detail[:500], at=aware(at, "at")))
            session.flush()
        elif weight > old.weight:
            old.weight, old.detail, old.at = weight, detail[:500], at

    def bounce_weight(self, session: Session, address: str, since: datetime) -> int:
        """Return the weight of ``address``'s bounces counted since ``since`` (tenths)."""
        return session.scalar(select(func.coalesce(func.sum(BounceMark.weight), 0)).where(
            BounceMark.address == address, BounceMark.at >= aware(since, "since"))) or 0

    def clear_bounces(self, session: Session, address: str) -> None:
        """Forget ``address``'s bounces and its unreachable mark."""
        session.execute(delete(BounceMark).where(BounceMark.address == address))
        session.execute(delete(Unreachable).where(Unreachable.address == address))

    def bounced(self, session: Session | None = None) -> set[str]:
        """Return every address with a bounce counted against it, or marked unreachable."""
        with self._reading(session) as reading:
            return set(reading.scalars(select(BounceMark.address).union(
                select(Unreachable.address))))

    def mark_unreachable(self, session: Session, address: str, since: datetime) -> bool:
        """Mark a player unreachable; False when the mark was there already."""
        return _listed(session, Unreachable, address, since)

    def unreachable(self, session: Session | None = None) -> dict[str, datetime]:
        """Return every player marked unreachable, and since when."""
        with self._reading(session) as reading:
            return {address: since for address, since in reading.execute(
                statements.unreachable())}


def _listed(session: Session, table: type[Observer | Unreachable], address: str,
            since: datetime) -> bool:
    """Put ``address`` in a list of addresses since a time; False when it was there already.

    Observers and the unreachable mark are both such a list (one row an address), and an
    address listed twice keeps the time it was first listed.
    """
    if session.get(table, address) is not None:
        return False
    session.add(table(address=address, since=aware(since, "since")))
    session.flush()
    return True
