"""The passing of time: deadlines, digests, and notices to the host."""


from __future__ import annotations

from datetime import datetime

from speakerbot.adapters.store import (
    InboundRow,
)
from speakerbot.engine import due_by, next_deadline, tick
from speakerbot.engine import events as e
from speakerbot.service.gathering import send_gathered
from speakerbot.service.intake import IntakeMixin
from speakerbot.service.policy import TICK_BUDGET


class TicksMixin(IntakeMixin):
    """The passing of time: deadlines, digests, and notices to the host."""

    def tick(self, now: datetime | None = None) -> list[e.Event]:
        """Settle everything due by ``now``: reminders, closes, judge deadlines. Idempotent.

        Never past a message received but not yet processed: a ballot that arrived before
        a deadline must be read before the vote closes.
        """
        events: list[e.Event] = []
        # Looked at first without the lock or a write transaction: the daemon ticks after
        # every batch of mail, and most ticks find nothing due even at ``now``.
        if self._due_by(now or self.clock()):
            more = True
            while more:  # in bounded transactions; mail waiting for the lock goes between
                with self.lock:
                    done, more = self._tick(now)
                events += done
                if more:
                    self._give_way()
        # A notice held back by the hourly limit goes out once the hour has passed; so does
        # the public mail kept beyond [limits] public_per_hour, gathered into one.
        self._tell_host_set_aside()
        self.send_gathered()
        self.ask_waiting()
        return events

    def _tick(self, now: datetime | None) -> tuple[list[e.Event], bool]:
        """Settle up to TICK_BUDGET things due in one transaction; and whether more are due."""
        # Under the lock: no message is stored and waiting to be processed but those the
        # store knows of (being retried, or come by LMTP), and time stops at the first.
        until = now or self.clock()
        waiting = self.store.earliest_pending()
        if waiting is not None:
            until = min(until, waiting)
        events: list[e.Event] = []
        if not self._due_by(until):
            return events, False
        with self._transaction() as session:
            state = self.state(session)
            new, events = tick(state, until, self.rng, budget=TICK_BUDGET,
                                 max_rule_bytes=self.settings.limits.max_rule_bytes)
            if events:
                self._commit(session, events, new,
                             self._announce(events, new, state, session))
            # A confirmation received in time but not yet read must still find its request.
            self.store.expire_confirmations(session, until)
        return events, bool(events) and due_by(new, until)

    def _due_by(self, until: datetime) -> bool:
        """Whether a deadline of the game, or a request's expiry, falls by ``until``."""
        due = [when for when in (next_deadline(self.state()),
                                 self.store.next_confirmation_expiry()) if when is not None]
        return any(when <= until for when in due)

    def next_deadline(self) -> datetime | None:
        """Return when the game next needs a tick."""
        return next_deadline(self.state())

    def send_digest(self, now: datetime | None = None) -> None:
        """Queue the digest: open business and what was decided since the last digest."""
        with self.lock, self._transaction() as session:
            state = self.state(session)
            if state.started:
                stamp = (now or self.clock()).strftime("%Y%m%d%H%M")
                self._queue_digest(session, state, f"digest:{stamp}")

    def requeue(self, inbound_id: int) -> InboundRow:
        """Put a set-aside message back to be processed (``speakerbot inbound retry``)."""
        with self.lock:
            return self.store.requeue_inbound(inbound_id)

    def send_gathered(self) -> int:
        """Queue the gathering of the public mail kept until now (``gathering.py``)."""
        return send_gathered(self)
