"""A host of many games: one process, one LMTP listener, each game's loop on a thread of its own.

Each game is the value a ``GameService`` holds (its store in its own namespace, its state, its
lock) with the ``Daemon`` that runs its loop; nothing passes between games but the listener,
which stores a message once for each game it is addressed to and wakes that game. One game's
slow mail does not wait on another's: each loop has its own thread, its own transactions and,
on SQLite, its own database file.

On SQLite this process holds every game, each under its own daemon lock (a second ``run``
exits, as with one game). On PostgreSQL, with the games named in the config, any number of
processes share them through leases (``adapters/store/leases.py``): every third of a lease
each worker renews what it holds and takes its fair share of what nobody holds; it runs the
loop of each game it holds, fences that game's every write with the lease, and stops the
loop the moment the lease is gone. Every worker's listener stores mail for every game; the
holder's loop sees it within a second (``Daemon._sleep`` watches the store). A worker started
for some games only (``run --game ID``) takes leases on those alone, and its listener still
stores mail for every game.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from contextlib import ExitStack
from datetime import datetime

from sqlalchemy.orm import Session

from speakerbot.adapters.lmtp import LmtpServer
from speakerbot.adapters.store import GAME_PASSES
from speakerbot.adapters.store.changes import watch_changes
from speakerbot.adapters.store.leases import Holding, LeaseLost, Leases
from speakerbot.config import Settings
from speakerbot.entrypoints.daemon import Daemon, warn_about_trust
from speakerbot.service.policy import GameRoutes

log = logging.getLogger("speakerbot.entrypoints.hosting")

SEND_WITHIN = 0.8
"""The part of a lease, from its last renewal, within which a worker still sends a game's
mail: the rest is a margin for the time a send takes."""

WATCH_SELDOM = 30.0
"""Seconds between a shared game's looks at its store when the worker hears of changes."""


class Host:
    """Runs the games of one config in this process (``run`` with a stop event)."""

    def __init__(self, shared: Settings, daemons: Sequence[Daemon],
                 leases: Leases | None = None, serves: Iterable[str] | None = None) -> None:
        self.shared = shared
        self.daemons = {daemon.settings.game_id: daemon for daemon in daemons}
        self.leases = leases
        # The games this worker takes leases on (``run --game``); every game by default.
        self.serves = list(self.daemons) if serves is None else list(serves)
        self.lmtp: LmtpServer | None = None
        self.ready = threading.Event()  # set once every game takes mail in
        # The games this worker runs now (with leases): each loop's thread and stop event.
        self._running: dict[str, tuple[threading.Thread, threading.Event]] = {}
        gate = threading.BoundedSemaphore(GAME_PASSES)
        for daemon in daemons:
            daemon.gate = gate
        site = shared.site.dir
        if site is not None:
            # Each game's archive in a folder named after its id, the index of games beside.
            for daemon in daemons:
                daemon.keep_site(site / daemon.settings.game_id)
        self._holdings: dict[str, Holding] = {}
        self._routes = GameRoutes([(daemon.settings.game, daemon) for daemon in daemons])

    # --- routing ---

    def games_for(self, recipients: Iterable[str]) -> list[Daemon]:
        """Return the games ``recipients`` address, each once, in the order of the config.

        A recipient is a game's when it is the game's address or its list's, with or without
        a ``+tag``, ignoring case (``routes_to_game``).
        """
        return self._routes.games_for(recipients)

    def accepts(self, recipient: str) -> bool:
        """Tell whether ``recipient`` is one of the games' (else LMTP refuses it at RCPT)."""
        return bool(self.games_for([recipient]))

    def _store_lmtp(self, raw: bytes, received_at: datetime, mail_from: str,
                    recipients: list[str]) -> bool:
        # Stored once for each game it is addressed to: each game reads it as its own mail,
        # and may answer a stranger within its share of it only (``Received.shares``).
        games = self.games_for(recipients)
        stored = [daemon.receive_lmtp(raw, received_at, shares=len(games)) for daemon in games]
        return any(stored) or not stored

    # --- running ---

    def run(self, stop: threading.Event) -> None:
        """Run the games until ``stop`` is set: all of them, or (leases) this worker's share."""
        if self.leases is not None:
            self._share(stop, self.leases)
            return
        with ExitStack() as locks:
            for daemon in self.daemons.values():
                locks.enter_context(daemon.service.daemon_lock())
            warn_about_trust(self.shared)
            self._write_index()
            self._start_lmtp()
            threads = [self._start(daemon, stop) for daemon in self.daemons.values()]
            try:
                for daemon, thread in zip(self.daemons.values(), threads, strict=True):
                    # A loop that died starting (its mailbox refused) must not hang the rest.
                    while not daemon.ready.wait(0.5) and thread.is_alive():
                        pass
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

    def _share(self, stop: threading.Event, leases: Leases) -> None:
        """Run this worker's share of the games, by leases, until ``stop`` is set."""
        leases.ensure_tables()
        warn_about_trust(self.shared)
        self._write_index()
        self._start_lmtp()
        # Another process's writes are heard (changes.watch_changes): the loops need look at
        # their stores only as a safety net.
        heard = threading.Event()
        listener = threading.Thread(target=watch_changes, name="changes", daemon=True,
                                    args=(leases.engine, heard, self._changed, self._wake_all))
        listener.start()
        for daemon in self.daemons.values():
            daemon.watch_every = WATCH_SELDOM
        log.info("speakerbot worker %s shares %d games: %s", leases.worker, len(self.serves),
                 ", ".join(self.serves))
        renewed = time.monotonic()
        try:
            while not stop.is_set():
                try:
                    asked = time.monotonic()
                    held = leases.balance(self.serves)
                    renewed = asked
                    for game in held:
                        # Counted from before the round: the lease began no later.
                        self.daemons[game].held_until = asked + leases.lease * SEND_WITHIN
                except Exception as error:  # the database away: hold on while the lease runs
                    log.warning("could not renew the leases: %s", error)
                    held = ({} if time.monotonic() - renewed > leases.lease else
                            dict(self._holdings))
                self._follow(held, leases)
                self.ready.set()
                stop.wait(leases.lease / 3)
        finally:
            heard.set()
            for game in list(self._running):
                self._let_go(game)
            listener.join()
            try:
                leases.release_all()
            except Exception as error:
                log.warning("could not hand the games back (they go when the lease ends): %s",
                            error)
            if self.lmtp is not None:
                self.lmtp.stop()

    def _changed(self, game: str) -> None:
        """Wake the loop of ``game``, which another process wrote for, if it runs here."""
        daemon = self.daemons.get(game)
        if daemon is not None and game in self._running:
            daemon.wake.set()

    def _wake_all(self) -> None:
        # Notices may have been lost: each game looks at everything once.
        for daemon in self.daemons.values():
            daemon.timed_wake()

    def _follow(self, held: dict[str, Holding], leases: Leases) -> None:
        """Start the loop of each game newly held; stop each one lost, or whose loop ended."""
        for game in list(self._running):
            thread, _ = self._running[game]
            if game not in held or held[game] != self._holdings.get(game):
                self._let_go(game)
            elif not thread.is_alive():  # it met a lost lease: give the game back
                self._let_go(game)
                leases.release(game)
                held.pop(game)
        for game, holding in held.items():
            if game not in self._running:
                self._take(game, holding, leases)

    def _take(self, game: str, holding: Holding, leases: Leases) -> None:
        daemon = self.daemons[game]
        self._holdings[game] = holding

        def fence(session: Session) -> None:
            leases.fence(session, holding)

        daemon.service.store.fence = fence
        game_stop = threading.Event()
        self._running[game] = (self._start(daemon, game_stop), game_stop)
        log.info("took the game %s (epoch %d)", game, holding.epoch)

    def _let_go(self, game: str) -> None:
        thread, game_stop = self._running.pop(game)
        daemon = self.daemons[game]
        game_stop.set()
        daemon.wake.set()
        thread.join()
        daemon.service.store.fence = _lost
        self._holdings.pop(game, None)
        log.info("let the game %s go", game)

    def _write_index(self) -> None:
        """Write the index page of the games under ``[site] dir`` (every worker writes it)."""
        site = self.shared.site.dir
        if site is None:
            return
        from speakerbot.entrypoints.site import write_host_index  # only with a [site] dir

        try:
            write_host_index([daemon.settings for daemon in self.daemons.values()], site)
        except OSError as error:  # the archive must never stop the games
            log.warning("could not write the index of games in %s: %s", site, error)

    def _start(self, daemon: Daemon, stop: threading.Event) -> threading.Thread:
        thread = threading.Thread(target=daemon.serve, args=(stop,),
                                  name=f"game-{daemon.settings.game_id}", daemon=True)
        thread.start()
        return thread

    def _start_lmtp(self) -> None:
        lmtp = self.shared.lmtp
        if lmtp is None:
            return
        # Workers sharing games by lease share the port too: any of them stores any game's
        # mail, and when one dies the others' listeners take every connection.
        self.lmtp = LmtpServer(lmtp.host, lmtp.port, self._store_lmtp,
                               max_size=self.shared.limits.max_message_size,
                               accepts=self.accepts, shared=self.leases is not None)
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


def _lost(_session: Session) -> None:
    """Refuse every write of a game this worker let go, until it takes the game again."""
    raise LeaseLost("this worker no longer holds the game")
