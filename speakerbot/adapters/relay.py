"""Connections to the SMTP relay kept between batches, shared by the games of one process.

A host of many games sends each game's mail from that game's loop, one batch at a time; a
burst of ballots over fifty games is fifty batches of a reply or two, each of which opened
a connection (TCP, the greeting, EHLO, TLS, a login) and closed it again. Here a batch that
ended cleanly (its last transaction answered at the end of DATA) leaves its connection
in the pool, and the next batch of any game that sends through the same relay takes it. A
connection that waited longer than ``keep_idle`` is closed, not used: the relay may have
dropped it (a kept connection the relay closed meanwhile is found out before anything is
taken, and the message goes over a fresh one: ``SmtpSender``).
"""

from __future__ import annotations

import smtplib
import threading
import time
from collections.abc import Callable

KEEP_IDLE = 5.0
"""Seconds a connection waits in the pool before it is closed unused (Postfix's own
``smtp_connection_cache_time_limit`` is 2 s; relays drop idle sessions after 60 to 300)."""

MOST = 8
"""The most connections kept: as many as the games that send at once (``GAME_PASSES``)."""


class RelayPool:
    """Idle connections to one relay, newest on top; safe to share between threads."""

    def __init__(self, *, keep_idle: float = KEEP_IDLE, most: int = MOST,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.keep_idle, self.most, self.clock = keep_idle, most, clock
        self._lock = threading.Lock()
        self._idle: list[tuple[float, smtplib.SMTP]] = []
        self.reused = 0
        """How many batches took a kept connection (for the benches and tests)."""

    def take(self) -> smtplib.SMTP | None:
        """Return a kept connection, ready for a transaction, or None (open a new one)."""
        with self._lock:
            stale = self._prune()
            client = self._idle.pop()[1] if self._idle else None
            if client is not None:
                self.reused += 1
        _close(stale)
        return client

    def give(self, client: smtplib.SMTP) -> None:
        """Keep ``client``, whose last transaction ended cleanly, for the next batch."""
        with self._lock:
            self._idle.append((self.clock(), client))
            stale = self._prune()
            while len(self._idle) > self.most:
                stale.append(self._idle.pop(0)[1])
        _close(stale)

    def close(self) -> None:
        """Say goodbye on every kept connection (the process is stopping)."""
        with self._lock:
            idle, self._idle = self._idle, []
        for _, client in idle:
            try:
                client.quit()
            except (OSError, smtplib.SMTPException):
                client.close()

    def _prune(self) -> list[smtplib.SMTP]:
        """Take out the connections kept too long (the lock held); return them to close."""
        oldest = self.clock() - self.keep_idle
        stale = [client for since, client in self._idle if since < oldest]
        self._idle = [(since, client) for since, client in self._idle if since >= oldest]
        return stale


def _close(clients: list[smtplib.SMTP]) -> None:
    # Closed without QUIT: the relay may have dropped them already, and a QUIT would wait.
    for client in clients:
        client.close()
