"""The IMAP inbound loop on its own thread: deliver each batch, move them, wait, reconnect.

See :class:`ImapWatcher`. A message stays in the folder until ``deliver`` has
returned its UID, so a crash at any point loses nothing: the message is offered
again after the restart, and ``deliver`` is expected to recognise a duplicate.
"""

from __future__ import annotations

import contextlib
import logging
import random
import threading
from collections.abc import Callable, Iterable

from speakerbot.adapters.backoff import QUARTER_MORE, backoff
from speakerbot.adapters.imap.mailbox import ImapMailbox
from speakerbot.adapters.imap.records import (
    MOVE_BATCH,
    FetchedMessage,
    ImapError,
    ImapLoginFailed,
    ImapSettings,
)

__all__ = ["ImapWatcher"]

log = logging.getLogger("speakerbot.imap")


class ImapWatcher:
    """Runs the inbound loop on its own thread.

    Connect, then in rounds: search the folder, and for each batch of at most
    ``FETCH_BATCH`` messages (see :meth:`ImapMailbox.fetch_batches`) hand it to
    ``deliver``, and move the ones ``deliver`` says are done together: at the
    round's end, or as soon as ``MOVE_BATCH`` are waiting (one MOVE where a batch
    each cost a round trip and the server's work, an eighth of a burst's time);
    then wait for mail, and start the next round. Reconnect
    with exponential backoff (``backoff_base`` doubling to ``backoff_max``, plus
    up to a quarter more of random jitter) after any failure, and search
    everything again after every (re)connect. Only one batch is in memory at a
    time.

    ``deliver(messages)`` is called from the watcher thread with a non-empty
    list (one batch, in UID order) and returns the UIDs that are safely
    committed (processed, set aside, or known duplicates): only those are moved,
    never before it returns: oversized ones (``FetchedMessage.oversized`` set) to
    the rejected folder, the others to the processed folder. Messages it does
    not return stay in the folder and are offered again in the next round. If
    it raises, that counts as a failure like a lost connection; the messages
    it returned before are moved first if the connection still serves, and
    otherwise offered again in the next round, where the store knows them as
    duplicates and ``deliver`` returns them at once. ``on_error`` is told of
    every failure. Even with IDLE the folder is searched again every
    ``poll_interval``, in case a notification was lost.

    ``sleep(seconds)`` waits out a backoff delay; the default one is cut short
    by :meth:`stop` and by :meth:`poke` (a caller about to rely on :meth:`sync`
    wants a reconnect now, not in a minute).
    """

    def __init__(
        self,
        settings: ImapSettings,
        deliver: Callable[[list[FetchedMessage]], Iterable[int]],
        *,
        on_error: Callable[[Exception], None] | None = None,
        rng: random.Random | None = None,
        sleep: Callable[[float], object] | None = None,
        backoff_base: float = 1.0,
        backoff_max: float = 60.0,
    ) -> None:
        if not 0 < backoff_base <= backoff_max:
            raise ValueError("need 0 < backoff_base <= backoff_max")
        self._settings = settings
        self._deliver = deliver
        self._on_error = on_error
        self._rng = rng or random.Random()
        self._stopping = threading.Event()
        self._sleep: Callable[[float], object] = sleep or self._wait_backoff
        self._backoff_base = backoff_base
        self._backoff_max = backoff_max
        # Set by poke() and stop(): ends the current wait for mail.
        self._wake = threading.Event()
        self._cond = threading.Condition()
        self._started = 0  # rounds begun
        self._completed = 0  # number of the last round completed
        self._rounds = 0
        self._failures = 0
        self._connected = False
        self._thread: threading.Thread | None = None

    @property
    def connected(self) -> bool:
        """Whether the watcher holds a working connection right now."""
        return self._connected

    @property
    def rounds(self) -> int:
        """How many rounds (one search, all its batches delivered) have completed."""
        return self._rounds

    def start(self) -> None:
        """Start the watcher thread."""
        if self._thread is not None:
            raise RuntimeError("an ImapWatcher can be started only once")
        self._thread = threading.Thread(target=self._run, name="speakerbot-imap", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 10) -> None:
        """Stop the thread: interrupts a wait for mail or a backoff, and joins it."""
        self._stopping.set()
        self._wake.set()
        with self._cond:
            self._cond.notify_all()
        thread = self._thread
        if thread is None:
            return
        thread.join(timeout)
        if thread.is_alive():
            log.warning("IMAP watcher did not stop within %g s", timeout)

    def poke(self) -> None:
        """Ask for a new fetch+deliver round as soon as possible."""
        self._wake.set()

    def sync(self, timeout: float) -> bool:
        """Block until a round that started after this call has completed; False on timeout.

        A round is one search of the folder and every batch it found. Every
        message in the folder before the call has then been offered to
        ``deliver``.
        """
        with self._cond:
            wanted = self._started + 1
        self.poke()
        with self._cond:
            self._cond.wait_for(lambda: self._completed >= wanted or not self._running(), timeout)
            return self._completed >= wanted

    def _running(self) -> bool:
        thread = self._thread
        return thread is not None and thread.is_alive() and not self._stopping.is_set()

    # -- the thread ----------------------------------------------------------------

    def _run(self) -> None:
        try:
            while not self._stopping.is_set():
                failed = False
                mailbox = ImapMailbox(self._settings)
                # Only a poke from now on may cut the backoff after this attempt
                # short; one left over would cut every backoff short.
                self._wake.clear()
                try:
                    mailbox.connect()
                    self._connected = True
                    self._serve(mailbox)
                except Exception as exc:
                    failed = True
                    self._failures += 1
                    self._report(exc)
                finally:
                    self._connected = False
                    mailbox.close()
                if failed and not self._stopping.is_set():
                    delay = self._backoff(self._failures)
                    log.info("reconnecting to IMAP %s in %.1f s", self._settings.where, delay)
                    self._sleep(delay)
        finally:
            with self._cond:
                self._cond.notify_all()
            log.info("IMAP watcher for %s stopped", self._settings.where)

    def _serve(self, mailbox: ImapMailbox) -> None:
        while not self._stopping.is_set():
            self._round(mailbox)
            self._failures = 0
            if self._stopping.is_set() or self._wake.is_set():
                continue
            mailbox.wait_for_mail(self._settings.poll_interval, self._wake)

    def _round(self, mailbox: ImapMailbox) -> None:
        with self._cond:
            # Cleared before the search, so a poke from now on gets another round.
            self._wake.clear()
            self._started += 1
            number = self._started
        offered = done = 0
        # Returned done by deliver, not yet moved: their UIDs and whether each was oversized
        # (never the messages, so that one batch at most is in memory).
        waiting: list[tuple[int, bool]] = []
        try:
            for messages in mailbox.fetch_batches():
                if self._stopping.is_set():
                    return  # an unfinished round does not count as completed
                offered += len(messages)
                waiting += self._delivered(messages)
                del messages  # let the batch go before the next is fetched: one in memory
                if len(waiting) >= MOVE_BATCH:
                    done += self._move(mailbox, waiting)
            done += self._move(mailbox, waiting)
        finally:
            if waiting:
                # A round cut short (a stop, a failure): what deliver committed is moved
                # if the connection still serves; if not, the next round offers it again.
                with contextlib.suppress(Exception):
                    self._move(mailbox, waiting)
        if offered:
            log.debug("round %d: %d offered, %d done", number, offered, done)
        with self._cond:
            self._completed = number
            self._rounds += 1
            self._cond.notify_all()

    def _delivered(self, messages: list[FetchedMessage]) -> list[tuple[int, bool]]:
        """Hand a batch to ``deliver``; return the UIDs it says are done, and which are big."""
        offered = {m.uid: m for m in messages}
        done = {int(uid) for uid in self._deliver(messages)}
        unknown = done - offered.keys()
        if unknown:
            log.warning("deliver returned UIDs it was not offered: %s", sorted(unknown))
        return [(uid, offered[uid].oversized is not None) for uid in sorted(done & offered.keys())]

    @staticmethod
    def _move(mailbox: ImapMailbox, waiting: list[tuple[int, bool]]) -> int:
        """Move the messages ``waiting`` to their folders and empty it; how many were moved."""
        taken = list(waiting)
        waiting.clear()
        mailbox.move_to_rejected([uid for uid, oversized in taken if oversized])
        mailbox.move_to_processed([uid for uid, oversized in taken if not oversized])
        return len(taken)

    def _wait_backoff(self, delay: float) -> None:
        self._wake.wait(delay)

    def _backoff(self, failures: int) -> float:
        return backoff(
            failures,
            base=self._backoff_base,
            cap=self._backoff_max,
            rng=self._rng,
            jitter=QUARTER_MORE,
        )

    def _report(self, exc: Exception) -> None:
        if isinstance(exc, ImapLoginFailed):
            log.error("%s", exc)
        elif isinstance(exc, ImapError):
            log.warning("%s", exc)
        else:
            log.exception("IMAP watcher round failed")
        if self._on_error is not None:
            try:
                self._on_error(exc)
            except Exception:
                log.exception("on_error callback failed")

