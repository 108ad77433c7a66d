"""The game record and the metadata in the store."""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import delete, select, update
from sqlalchemy.orm import Session

from speakerbot.adapters.store import statements
from speakerbot.adapters.store.database import StoreBase
from speakerbot.adapters.store.rows import EventLinks, StoredEvent, StoredSnapshot, aware
from speakerbot.adapters.store.schema import Event, Meta, Snapshot

_MESSAGE_ID_SECRET = "message_id_secret"


class RecordStore(StoreBase):
    """The record (events, in order) and a little key/value metadata."""

    def load_events(self, session: Session | None = None, *, after: int = 0,
                    links: bool = False) -> list[StoredEvent]:
        """Return every event (after record number ``after``), in order; with their links."""
        with self._reading(session) as reading:
            if not links:
                rows = reading.execute(select(Event.seq, Event.data).where(Event.seq > after)
                                       .order_by(Event.seq))
                return [StoredEvent(seq=seq, data=data) for seq, data in rows]
            linked = reading.execute(
                select(Event.seq, Event.data, Event.hash, Event.public_seq, Event.public_hash)
                .where(Event.seq > after).order_by(Event.seq))
            return [StoredEvent(seq, data, EventLinks(seq, hash_, public_seq, public_hash))
                    for seq, data, hash_, public_seq, public_hash in linked]

    def chain_ends(self, session: Session) -> tuple[EventLinks | None, EventLinks | None]:
        """Return the links of the record's last event and of its last public event."""
        ends: dict[int, EventLinks] = {
            which: EventLinks(*links)
            for which, *links in session.connection().execute(statements.chain_ends())}
        return ends.get(0), ends.get(1)

    def set_links(self, session: Session, links: Sequence[EventLinks]) -> None:
        """Write the links of events already recorded (an older record being chained)."""
        for place in links:
            session.execute(update(Event).where(Event.seq == place.seq).values(
                hash=place.hash, public_seq=place.public_seq, public_hash=place.public_hash))

    def append_events(
        self,
        session: Session,
        events: Sequence[Mapping[str, Any]],
        *,
        inbound_id: int | None = None,
        now: datetime | None = None,
        links: Sequence[EventLinks] | None = None,
    ) -> int:
        """Append events (JSON dicts with a string 'type') and return the last seq.

        With ``links`` (one per event), each event takes the record number and hashes
        given, worked out by the caller, who holds the write lock. With no events, returns
        the current last seq.
        """
        for data in events:
            if not isinstance(data.get("type"), str):
                raise ValueError(f"an event needs a string 'type': {data!r}")
        if not events:
            return self.last_event_seq(session)
        created_at = aware(now or datetime.now(UTC), "now")
        append, connection = statements.append_event(), session.connection()
        if links is not None:
            if len(links) != len(events):
                raise ValueError("one link per event")
            rows = [{"seq": place.seq, "type": data["type"], "data": dict(data),
                     "inbound_id": inbound_id, "created_at": created_at, "hash": place.hash,
                     "public_seq": place.public_seq, "public_hash": place.public_hash}
                    for data, place in zip(events, links, strict=True)]
            connection.execute(statements.append_linked_events(), rows)
            return links[-1].seq
        seq = 0
        for data in events:
            row = {"type": data["type"], "data": dict(data), "inbound_id": inbound_id,
                   "created_at": created_at}
            seq = connection.execute(append, row).scalar_one()
        return seq

    def save_snapshot(self, session: Session, seq: int, format_: str, hash_: str,
                      data: bytes, *, keep: int = 2) -> None:
        """Keep the state after event ``seq``; only the last ``keep`` snapshots are kept."""
        session.execute(delete(Snapshot).where(Snapshot.seq >= seq))
        session.add(Snapshot(seq=seq, format=format_, hash=hash_, data=data))
        session.flush()
        older = session.scalars(select(Snapshot.seq).order_by(Snapshot.seq.desc())
                                .offset(keep)).all()
        if older:
            session.execute(delete(Snapshot).where(Snapshot.seq.in_(older)))

    def latest_snapshot(self, format_: str, upto: int,
                        session: Session | None = None) -> StoredSnapshot | None:
        """Return the latest snapshot of ``format_`` at or before event ``upto``, if any.

        Only one whose event's chain hash is the one kept with it: a snapshot of another
        record (the database was reset, or an event changed since) is not returned.
        """
        with self._reading(session) as reading:
            row = reading.execute(
                select(Snapshot.seq, Snapshot.hash, Snapshot.data)
                .join(Event, (Event.seq == Snapshot.seq) & (Event.hash == Snapshot.hash))
                .where(Snapshot.format == format_, Snapshot.seq <= upto)
                .order_by(Snapshot.seq.desc()).limit(1)).first()
            return None if row is None else StoredSnapshot(row.seq, row.hash, bytes(row.data))

    def last_event_seq(self, session: Session | None = None) -> int:
        """Return the seq of the last event, 0 if there is none."""
        with self._reading(session) as reading:
            seq: int = reading.connection().scalar(statements.last_event_seq()) or 0
            return seq

    # -- The outbox ------------------------------------------------------------------------

    def message_id_secret(self) -> str:
        """Return the game's secret for Message-IDs, drawn and kept on first use."""
        secret = self.get_meta(_MESSAGE_ID_SECRET)
        if not isinstance(secret, str) or not secret:
            with self.transaction() as session:
                secret = self.get_meta(_MESSAGE_ID_SECRET, session)
                if not isinstance(secret, str) or not secret:
                    secret = secrets.token_hex(32)
                    self.set_meta(session, _MESSAGE_ID_SECRET, secret)
        return secret

    def get_meta(self, key: str, session: Session | None = None) -> Any | None:
        """Return the JSON value of ``key``, or None if it is not set."""
        with self._reading(session) as reading:
            stored = reading.connection().scalar(statements.meta_value(), {"key": key})
        return None if stored is None else stored["value"]

    def set_meta(
        self, session: Session, key: str, value: Any, *, now: datetime | None = None
    ) -> None:
        """Set ``key`` to a JSON value, in the caller's transaction."""
        updated_at = aware(now or datetime.now(UTC), "now")
        # Wrapped: a bare JSON number in SQLite's JSON column (NUMERIC affinity) would be
        # stored as a number, and come back altered (1.0 as 1, 2**70 rounded).
        values = {"key": key, "value": {"value": value}, "updated_at": updated_at}
        # Each dialect imported when first used: a command on SQLite does not load PostgreSQL's.
        if self._dialect == "sqlite":
            from sqlalchemy.dialects.sqlite import insert as sqlite_insert

            sqlite_stmt = sqlite_insert(Meta).values(values)
            session.execute(
                sqlite_stmt.on_conflict_do_update(
                    index_elements=[Meta.key],
                    set_={"value": sqlite_stmt.excluded.value, "updated_at": updated_at},
                )
            )
        else:
            from sqlalchemy.dialects.postgresql import insert as pg_insert

            pg_stmt = pg_insert(Meta).values(values)
            session.execute(
                pg_stmt.on_conflict_do_update(
                    index_elements=[Meta.key],
                    set_={"value": pg_stmt.excluded.value, "updated_at": updated_at},
                )
            )
