"""The outbox's policy: what is sent when, retried how often, and given up after how long.

The SMTP adapter only sends what it is handed and says how the server answered; the store
only keeps the queue. Deciding what an answer means (sent, retry with backoff, give up)
is the Speaker's business, and lives here.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Protocol

from speakerbot.adapters.backoff import backoff
from speakerbot.adapters.smtp import DeliveryResult
from speakerbot.adapters.store import OutboxRow, Store
from speakerbot.service.crashpoints import crashpoint

log = logging.getLogger("speakerbot.service.outbox")

BATCH = 50
"""Messages taken from the outbox at a time (the loop comes back for more)."""


class Sender(Protocol):
    """What the outbox needs of an SMTP adapter."""

    def send(self, mail_from: str, recipients: Sequence[str], raw: bytes) -> DeliveryResult:
        """Send one message; say how the server answered."""

    def batch(self) -> AbstractContextManager[None]:
        """Keep one connection for the messages sent in the block."""


@dataclass
class OutboxPolicy:
    """How the outbox retries: backoff from ``retry_base`` seconds, giving up after a while."""

    give_up_after: float
    retry_base: float = 30.0
    rng: random.Random | None = None

    def retry_delay(self, attempts: int) -> timedelta:
        """Return how long to wait before the next try of a message tried ``attempts`` times."""
        return timedelta(seconds=backoff(attempts + 1, base=self.retry_base,
                                         rng=self.rng or random.Random()))

    def given_up(self, created_at: datetime, now: datetime) -> bool:
        """Whether a message queued at ``created_at`` has been retried long enough."""
        return now - created_at >= timedelta(seconds=self.give_up_after)


Done = list[tuple[int, Mapping[str, str] | None]]


class Outbox:
    """Delivers what is due, over one connection, by the policy."""

    def __init__(self, store: Store, policy: OutboxPolicy,
                 clock: Callable[[], datetime]) -> None:
        self.store = store
        self.policy = policy
        self.clock = clock

    def send_due(self, sender: Sender, *, everything: bool = False) -> int:
        """Deliver the messages due now, over one connection; return how many went.

        One batch of at most 50, or with ``everything`` until none is due or the server
        defers one.
        """
        # Messages put back for a retry: once per call, however soon their retry falls.
        tried: set[int] = set()
        with sender.batch():
            sent, stopped = self._send_batch(sender, tried)
            while everything and not stopped and sent:
                more, stopped = self._send_batch(sender, tried)
                if not more:
                    break
                sent += more
        return sent

    def _send_batch(self, sender: Sender, tried: set[int]) -> tuple[int, bool]:
        """Send one batch; return how many went, and whether the server asked us to stop.

        Messages the server took are marked sent together, in one transaction, at the end
        of the batch (a crash before that resends them, with their Message-IDs, as a crash
        right after one message always could).
        """
        done: Done = []
        try:
            return self._send_rows(sender, tried, done)
        finally:
            self.store.mark_sent_many(done, self.clock())

    def _due(self, tried: set[int], now: datetime) -> Iterator[OutboxRow]:
        for row in self.store.due_outbox(now, limit=BATCH + len(tried)):
            if row.id not in tried:
                yield row

    def _send_rows(self, sender: Sender, tried: set[int], done: Done) -> tuple[int, bool]:
        sent = 0
        now = self.clock()
        for row in self._due(tried, now):
            result = sender.send(row.mail_from, row.recipients, row.raw)
            if result.temporary_failure is not None:
                self._deferred(row, result.temporary_failure, tried, now)
                # The server is unhappy: end this pass; each message keeps its backoff.
                return sent, True
            crashpoint("after-smtp")
            self._delivered(row, result, tried, done, now)
            sent += 1
        return sent, False

    def _deferred(self, row: OutboxRow, failure: str, tried: set[int], now: datetime) -> None:
        """Retry later, or give up: the server put the whole message off."""
        if self.policy.given_up(row.created_at, now):
            gave_up = {rcpt: f"given up: {failure}" for rcpt in row.recipients}
            self.store.mark_failed(row.id, failure, refused=gave_up)
        else:
            tried.add(row.id)
            self.store.mark_retry(row.id, failure, now + self.policy.retry_delay(row.attempts))
        log.warning("delivery of %s deferred: %s", row.message_id, failure)

    def _delivered(self, row: OutboxRow, result: DeliveryResult, tried: set[int], done: Done,
                   now: datetime) -> None:
        """Mark a message the server took, retrying any recipient it put off."""
        if result.deferred and self.policy.given_up(row.created_at, now):
            gave_up = {rcpt: f"given up: {answer}" for rcpt, answer in result.deferred.items()}
            done.append((row.id, {**result.refused, **gave_up}))
        elif result.deferred:
            # The others have it; only the deferred recipients are tried again.
            tried.add(row.id)
            self.store.mark_retry(row.id, "; ".join(result.deferred.values()),
                                  now + self.policy.retry_delay(row.attempts),
                                  refused=result.refused or None, only=tuple(result.deferred))
        else:
            done.append((row.id, result.refused or None))
