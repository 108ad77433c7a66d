"""The outbox's policy: what is sent when, retried how often, and given up after how long.

The SMTP adapter only sends what it is handed and says how the server answered; the store
only keeps the queue. Deciding what an answer means (sent, retry with backoff, give up)
is the Speaker's business, and lives here.

Public mail to a big game goes out in chunks of at most ``max_recipients`` envelope
recipients, one SMTP transaction each. Once a chunk is taken, and more remain, the
message's recipients in the store are narrowed to those still to be sent, in a transaction
of its own: a chunk that fails later, or a crash, never sends an earlier chunk again. A
relay that answers "too many recipients" part way through a chunk took the message for
those before; the chunk shrinks to that many and the rest go at once, without backoff.

With VERP (``identity`` given, as the service always does), each recipient's copy goes in
a transaction of its own, from a return path that names the message and the recipient, so
that a bounce says whose mailbox failed; a chunk is then the recipients sent between two
narrowings. An observer's copy carries ``List-Unsubscribe`` (``unsubscribe``), and an
observer who stopped observing after the message was queued is left out.

A worker that shares games by lease sends only while it holds the game: ``may_send`` is
asked before every SMTP transaction, and before each copy's content is handed over (each
recipient's copy, with VERP), not once a batch.
A worker that stood still (SIGSTOP, a frozen VM) past its lease, and came back to find
another worker sending the game's mail, sends nothing more: what it had sent is recorded if
the store still lets it write, and the pass ends. The one duplicate left is the copy whose
SMTP transaction it was inside when it stopped: at most one copy to one recipient.
"""

from __future__ import annotations

import functools
import logging
import random
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Protocol

from speakerbot.adapters.backoff import backoff
from speakerbot.adapters.smtp import DeliveryResult, Transaction
from speakerbot.adapters.store import OutboxRow, OutboxSummary, Store
from speakerbot.mail.outbound.compose import ANSWERING_KINDS, GameIdentity, unsubscribe_line
from speakerbot.mail.verp import bounce_address, message_ref
from speakerbot.service.crashpoints import NO_CRASHES, CrashPoints

log = logging.getLogger("speakerbot.service.outbox")

BATCH = 50
"""Messages taken from the outbox at a time (the loop comes back for more)."""


def _always() -> bool:
    return True


class Sender(Protocol):
    """What the outbox needs of an SMTP adapter."""

    def send(self, mail_from: str, recipients: Sequence[str], raw: bytes) -> DeliveryResult:
        """Send one message; say how the server answered."""

    def send_each(self, transactions: Iterable[Transaction], *,
                  may_send: Callable[[], bool] | None = None) -> list[DeliveryResult]:
        """Send each in turn until one fails for now; say how the server answered each tried.

        A transaction is taken from ``transactions`` only as it is about to be sent, and
        sent only while ``may_send`` says yes, asked before each.
        """

    def batch(self) -> AbstractContextManager[None]:
        """Keep one connection for the messages sent in the block."""


@dataclass
class OutboxPolicy:
    """How the outbox retries: backoff from ``retry_base`` seconds, giving up after a while."""

    give_up_after: float
    retry_base: float = 30.0
    rng: random.Random | None = None
    max_recipients: int = 50
    """The most envelope recipients in one SMTP transaction ([smtp] max_recipients)."""

    def retry_delay(self, attempts: int) -> timedelta:
        """Return how long to wait before the next try of a message tried ``attempts`` times."""
        return timedelta(seconds=backoff(attempts + 1, base=self.retry_base,
                                         rng=self.rng or random.Random()))

    def given_up(self, created_at: datetime, now: datetime) -> bool:
        """Whether a message queued at ``created_at`` has been retried long enough."""
        return now - created_at >= timedelta(seconds=self.give_up_after)


Done = list[tuple[int, Mapping[str, str] | None]]


@dataclass
class _Progress:
    """What became of one message's recipients so far, chunk by chunk."""

    pending: list[str]
    accepted: list[str]
    refused: dict[str, str]
    deferred: dict[str, str]

    def remaining(self) -> tuple[str, ...]:
        """Return the recipients the message has still to reach (pending, then deferred)."""
        return (*self.pending, *self.deferred)


class Outbox:
    """Delivers what is due, over one connection, by the policy."""

    def __init__(self, store: Store, policy: OutboxPolicy, clock: Callable[[], datetime],
                 crashpoints: CrashPoints = NO_CRASHES, *,
                 identity: GameIdentity | None = None,
                 may_send: Callable[[], bool] | None = None) -> None:
        self.store = store
        self.policy = policy
        self.clock = clock
        self.crashpoints = crashpoints
        # Asked before every SMTP transaction: False once this process may no longer hold
        # the game (see the module's docstring); the pass then ends.
        self.may_send = may_send or _always
        self.stopped = False
        # VERP: the envelope sender of a message's copy to a recipient, by the message's
        # reference (None: the row's own, for every recipient of a chunk at once).
        self.return_path: Callable[[str, str], str] | None = None
        self.unsubscribe = b""
        if identity is not None:
            self.return_path = functools.partial(bounce_address, identity.address,
                                                 identity.secret)
            self.unsubscribe = unsubscribe_line(identity)
        # The observers as this pass found them (read at the first message that has any).
        self.observing: set[str] | None = None
        # The chunk's size: the configured maximum, shrunk for good (in this pass) by a
        # relay that says it takes fewer.
        self.chunk = max(1, policy.max_recipients)

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
            progress = _Progress(self._still_wanted(row), [], {}, {})
            failure = self._send_chunks(sender, row, progress)
            if self.stopped:
                log.warning("stopped sending: this worker may no longer hold the game")
                return sent, True
            if failure is not None:
                self._deferred(row, failure, progress, tried, now)
                # The server is unhappy: end this pass; each message keeps its backoff.
                return sent, True
            result = DeliveryResult(accepted=tuple(progress.accepted), refused=progress.refused,
                                    temporary_failure=None, deferred=progress.deferred)
            self._delivered(row, result, tried, done, now)
            sent += 1
        return sent, False

    def _send_chunks(self, sender: Sender, row: OutboxRow, progress: _Progress) -> str | None:
        """Send ``row`` chunk by chunk until every recipient is tried; return any failure.

        After each chunk taken with more still to go, the store keeps who is left, so that
        nothing taken is sent again. A temporary failure stops at once (it is returned).
        """
        while progress.pending:
            chunk = progress.pending[:self.chunk]
            if not self.may_send():
                # What went before is kept already: the store narrows after every chunk.
                self.stopped = True
                return None
            if self.return_path is None:
                result = sender.send(row.mail_from, chunk, row.raw)
            else:
                result = self._send_each(sender, row, chunk)
            if result.temporary_failure is not None and not (
                    result.accepted or result.refused or result.deferred):
                return result.temporary_failure
            self.crashpoints.reach("after-smtp")
            progress.accepted += result.accepted
            progress.refused.update(result.refused)
            progress.deferred.update(result.deferred)
            progress.pending = [*result.over_limit, *progress.pending[len(chunk):]]
            if result.temporary_failure is not None:
                # Some copies were answered before the server failed: what was taken is
                # not sent again, a refusal is final, and a mailbox that put its copy off
                # is asked again with those not tried.
                self.store.mark_partly_sent(row.id, progress.remaining(),
                                            refused=progress.refused or None)
                return result.temporary_failure
            if result.over_limit and self.return_path is None:
                self.chunk = max(1, len(result.accepted))
                log.info("the relay takes %d recipients at a time: chunks shrink to that",
                         self.chunk)
            if progress.pending:
                self.store.mark_partly_sent(row.id, progress.remaining(),
                                            refused=progress.refused or None)
        return None

    def _send_each(self, sender: Sender, row: OutboxRow, chunk: Sequence[str]) -> DeliveryResult:
        """Send each recipient of ``chunk`` its own copy, from its VERP return path.

        Stops at a temporary failure: the result then holds the copies that went, the
        failure, and (as ``over_limit``) the recipients not tried.
        """
        return_path = self.return_path
        assert return_path is not None
        ref = message_ref(row.message_id)
        # Made once: the sender quotes each copy's bytes once, and every observer's are one.
        observed = self.unsubscribe + row.raw if row.observers else row.raw

        copies = (Transaction(return_path(ref, recipient), (recipient,),
                              observed if recipient in row.observers else row.raw)
                  for recipient in chunk)
        # Asked before each copy's content: those not tried wait for the next chunk's check.
        results = sender.send_each(copies, may_send=self.may_send)
        failure = results[-1].temporary_failure if results else None
        tried = results[:-1] if failure is not None else results
        return DeliveryResult(
            tuple(address for result in tried for address in result.accepted),
            {address: answer for result in tried for address, answer in result.refused.items()},
            failure,
            {address: answer for result in tried for address, answer in result.deferred.items()},
            over_limit=tuple(chunk[len(tried):]))

    def _still_wanted(self, row: OutboxRow) -> list[str]:
        """Return the row's recipients but the observers who stopped since it was queued."""
        if not row.observers:
            return list(row.recipients)
        if self.observing is None:
            self.observing = set(self.store.observers())
        observing = self.observing
        return [address for address in row.recipients
                if address not in row.observers or address in observing]

    def _deferred(self, row: OutboxRow, failure: str, progress: _Progress, tried: set[int],
                  now: datetime) -> None:
        """Retry later, or give up: the server put the message off for those still to go."""
        if self.policy.given_up(row.created_at, now):
            gave_up = {rcpt: f"given up: {failure}" for rcpt in progress.remaining()}
            self.store.mark_failed(row.id, failure, refused={**progress.refused, **gave_up})
        else:
            tried.add(row.id)
            self.store.mark_retry(row.id, failure, now + self.policy.retry_delay(row.attempts),
                                  refused=progress.refused or None, only=progress.remaining())
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


BACKLOG_KINDS = ("results", "distributions", "announcements", "reminders", "replies")
"""How ``speakerbot status`` sorts the mail waiting, in this order."""
BACKLOG_AGES: tuple[tuple[str, timedelta | None], ...] = (
    ("under 1 min", timedelta(minutes=1)), ("under 1 h", timedelta(hours=1)),
    ("under 1 day", timedelta(days=1)), ("older", None))
"""The age columns of the backlog: waiting for less than each."""


@dataclass(frozen=True)
class Backlog:
    """The mail waiting, counted by kind (``BACKLOG_KINDS``) and age (``BACKLOG_AGES``)."""

    counts: dict[str, list[int]]

    def total(self, kind: str) -> int:
        """Return how many messages of ``kind`` are waiting."""
        return sum(self.counts[kind])


def backlog_kind(kind: str, topic: str | None) -> str:
    """Sort a waiting message among ``BACKLOG_KINDS`` by its stored kind and topic."""
    if kind in ANSWERING_KINDS:
        return "replies"
    if kind == "reminder":
        return "reminders"
    if topic == "results":
        return "results"
    if topic == "distribution":
        return "distributions"
    return "announcements"


def backlog(summary: OutboxSummary, now: datetime) -> Backlog:
    """Count the waiting mail of ``summary`` by kind and by how long it has waited."""
    counts = {kind: [0] * len(BACKLOG_AGES) for kind in BACKLOG_KINDS}
    for kind, created_at, topic in summary.waiting:
        age = now - created_at
        column = next(index for index, (_, limit) in enumerate(BACKLOG_AGES)
                      if limit is None or age < limit)
        counts[backlog_kind(kind, topic)][column] += 1
    return Backlog(counts)

