"""The game's state as of the record's end: cached, caught up, or rebuilt from a snapshot.

One ``States`` serves every unit of work of a game, with the lock their transactions hold
(and the turns that let mail in between a backlog's transactions).
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import NamedTuple

from sqlalchemy.orm import Session

from speakerbot.adapters.store import Store
from speakerbot.engine import GameState, evolve
from speakerbot.engine.codec import event_from_json
from speakerbot.engine.snapshot import SnapshotError, decode_state, encode_state
from speakerbot.service.policy import GIVE_WAY_SECONDS, log
from speakerbot.service.snapshots import snapshot_format


class StateAt(NamedTuple):
    """The state after event ``seq`` of the record, and that event's chain hash."""

    seq: int
    state: GameState
    hash: str | None


NOTHING_YET = StateAt(-1, GameState(), None)
"""What is known before the record is read."""


class States:
    """The state as of the record's end, cached between transactions, and their lock."""

    def __init__(self, store: Store, snapshot_every: int) -> None:
        self.store = store
        self.snapshot_every = snapshot_every
        self.known = NOTHING_YET
        self.lock = threading.RLock()
        # Mail waiting for the lock, so that a backlog of deadlines settled in several
        # transactions lets it in between them (the lock itself is not fair).
        self.turns = threading.Condition()
        self.waiting_for_lock = 0

    def state(self, session: Session | None = None, seq: int | None = None,
              committing: StateAt | None = None) -> GameState:
        """Return the state after event ``seq`` (default: the record's last, as stored).

        ``committing``: what the transaction in hand (``session``) has appended so far.
        """
        if seq is None:
            seq = self.store.last_event_seq(session)
        if committing is not None and committing.seq == seq:
            return committing.state
        known = self.known  # read once: another thread may replace it meanwhile
        if known.seq != seq:
            known = self._caught_up(known, session) or self._rebuilt(seq, session)
            self.known = known
        return known.state

    def forget(self) -> None:
        """Forget what is known (the record was deleted)."""
        self.known = NOTHING_YET

    @contextmanager
    def intake_lock(self) -> Iterator[None]:
        """Hold the lock for mail coming in: a backlog being settled gives way to it."""
        with self.turns:
            self.waiting_for_lock += 1
        try:
            self.lock.acquire()
        finally:
            with self.turns:
                self.waiting_for_lock -= 1
                self.turns.notify_all()
        try:
            yield
        finally:
            self.lock.release()

    def give_way(self) -> None:
        """Let mail waiting for the lock have it first (called without holding it)."""
        with self.turns:
            self.turns.wait_for(lambda: self.waiting_for_lock == 0, timeout=GIVE_WAY_SECONDS)

    def _caught_up(self, known: StateAt, session: Session | None) -> StateAt | None:
        """Move the state known on by the events since (another process wrote them).

        Only if the event it was known at is still the record's, with the same hash: the
        chain then vouches for everything before it. None otherwise (rebuild it instead).
        """
        if known.seq <= 0 or not known.hash:
            return None
        rows = self.store.load_events(session, after=known.seq - 1, links=True)
        if not rows or rows[0].seq != known.seq or rows[0].links is None \
                or rows[0].links.hash != known.hash:
            return None
        state = copy.deepcopy(known.state)
        for row in rows[1:]:
            evolve(state, event_from_json(row.data))
        last = rows[-1]
        return StateAt(last.seq, state, last.links.hash if last.links else None)

    def _rebuilt(self, seq: int, session: Session | None) -> StateAt:
        """Rebuild the state from the latest snapshot this code wrote and the tail after it.

        A snapshot of other code, of another record or that cannot be read is ignored: the
        state is then rebuilt from the whole record, and (outside a transaction) a new
        snapshot is kept for the next start.
        """
        state, after, hash_ = GameState(), 0, None
        found = self.store.latest_snapshot(snapshot_format(), seq, session)
        if found is not None:
            try:
                state, after, hash_ = decode_state(found.data), found.seq, found.hash
            except SnapshotError as error:
                log.warning("ignored the snapshot at event %d: %s", found.seq, error)
        rows = self.store.load_events(session, after=after, links=True)
        for row in rows:
            evolve(state, event_from_json(row.data))
        if rows:
            after, hash_ = rows[-1].seq, rows[-1].links.hash if rows[-1].links else None
        every = self.snapshot_every
        if session is None and every and hash_ and len(rows) >= every:
            self.keep_snapshot(after, hash_, state)
        return StateAt(after, state, hash_)

    def keep_snapshot(self, seq: int, hash_: str, state: GameState,
                      session: Session | None = None) -> None:
        """Write the state after event ``seq`` out whole (in its own transaction if none)."""
        # A shortcut for the next start: never worth failing the game's own transaction for.
        # In it, the snapshot is written in a savepoint, so a failure undoes only that.
        try:
            data = encode_state(state)
            if session is not None:
                with session.begin_nested():
                    self.store.save_snapshot(session, seq, snapshot_format(), hash_, data)
                return
            with self.store.transaction() as own:
                self.store.save_snapshot(own, seq, snapshot_format(), hash_, data)
        except Exception as error:
            log.warning("could not keep a snapshot of the state at event %d: %s", seq, error)
