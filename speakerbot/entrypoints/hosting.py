"""A host of many games: one process, one LMTP listener, each game's loop on a thread of its own.

Each game is the value a ``GameService`` holds (its store in its own namespace, its state, its
lock) with the ``Daemon`` that runs its loop; nothing passes between games but the listener,
which stores a message once for each game it is addressed to and wakes that game. One game's
slow mail does not wait on another's: each loop has its own thread, its own transactions and,
on SQLite, its own database file.

On SQLite this process holds every game, each under its own daemon lock (a second ``run``
exits, as with one game). On PostgreSQL the games are shared by the workers through leases
(``workers.Workers``).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable, Sequence
from contextlib import ExitStack
from datetime import datetime

from speakerbot.adapters.lmtp import LmtpServer
from speakerbot.config import Settings
from speakerbot.entrypoints.daemon import Daemon, warn_about_trust
from speakerbot.service.policy import routes_to_game

log = logging.getLogger("speakerbot.entrypoints.hosting")


class Host:
    """Runs the games of one config in this process (``run`` with a stop event)."""

    def __init__(self, shared: Settings, daemons: Sequence[Daemon]) -> None:
        self.shared = shared
        self.daemons = {daemon.settings.game_id: daemon for daemon in daemons}
        self.lmtp: LmtpServer | None = None
        self.ready = threading.Event()  # set once every game takes mail in

    # --- routing ---

    def games_for(self, recipients: Iterable[str]) -> list[Daemon]:
        """Return the games ``recipients`` address, each once, in the order of the config.

        A recipient is a game's when it is the game's address or its list's, with or without
        a ``+tag``, ignoring case (``routes_to_game``).
        """
        wanted = list(recipients)
        return [daemon for daemon in self.daemons.values()
                if any(routes_to_game(address, daemon.settings.game) for address in wanted)]

    def accepts(self, recipient: str) -> bool:
        """Tell whether ``recipient`` is one of the games' (else LMTP refuses it at RCPT)."""
        return bool(self.games_for([recipient]))

    def _store_lmtp(self, raw: bytes, received_at: datetime, mail_from: str,
                    recipients: list[str]) -> None:
        # Stored once for each game it is addressed to: each game reads it as its own mail.
        for daemon in self.games_for(recipients):
            daemon.receive_lmtp(raw, received_at)

    # --- running ---

    def run(self, stop: threading.Event) -> None:
        """Run every game until ``stop`` is set; each game's lock is held throughout."""
        with ExitStack() as locks:
            for daemon in self.daemons.values():
                locks.enter_context(daemon.service.daemon_lock())
            warn_about_trust(self.shared)
            self._start_lmtp()
            threads = [self._start(daemon, stop) for daemon in self.daemons.values()]
            try:
                for daemon in self.daemons.values():
                    daemon.ready.wait()
                self.ready.set()
                log.info("speakerbot is running %d games: %s", len(self.daemons),
                         ", ".join(self.daemons))
                stop.wait()
            finally:
                for daemon in self.daemons.values():
                    daemon.wake.set()
                for thread in threads:
                    thread.join()
                if self.lmtp is not None:
                    self.lmtp.stop()

    def _start(self, daemon: Daemon, stop: threading.Event) -> threading.Thread:
        thread = threading.Thread(target=daemon.serve, args=(stop,),
                                  name=f"game-{daemon.settings.game_id}", daemon=True)
        thread.start()
        return thread

    def _start_lmtp(self) -> None:
        lmtp = self.shared.lmtp
        if lmtp is None:
            return
        self.lmtp = LmtpServer(lmtp.host, lmtp.port, self._store_lmtp,
                               max_size=self.shared.limits.max_message_size,
                               accepts=self.accepts)
        self.lmtp.start()
        log.info("LMTP listening on %s:%s for %d games", lmtp.host, self.lmtp.port,
                 len(self.daemons))

    def stop_event_wakes(self, stop: threading.Event) -> Callable[[], None]:
        """Return a function that stops every game's loop promptly (for signal handlers)."""
        def trigger() -> None:
            stop.set()
            for daemon in self.daemons.values():
                daemon.wake.set()
        return trigger
