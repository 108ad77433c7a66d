"""Hearing, on PostgreSQL, which games other processes wrote for: one connection, no polling.

Every write transaction of a game notifies ``CHANGES_CHANNEL`` with the game's id and its
process's token (``database.StoreBase.transaction``); the notice is delivered when the
transaction commits, and not at all if it rolls back. A worker listens on one connection of
its own and wakes the loop of each game it holds when another process (the command line,
another worker's listener) wrote for it, instead of each loop asking the store every second.
LISTEN needs a session of its own: behind PgBouncer in transaction pooling it hears
nothing, and the loops fall back on their slow look at the store (``Daemon.watch_every``).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from sqlalchemy import Engine

from speakerbot.adapters.store.database import CHANGES_CHANNEL, PROCESS_TOKEN

log = logging.getLogger("speakerbot.adapters.store.changes")

RECONNECT_AFTER = 1.0  # seconds before listening again once the connection was lost


def watch_changes(engine: Engine, stop: threading.Event, on_change: Callable[[str], None],
                  on_lost: Callable[[], None]) -> None:
    """Call ``on_change(game)`` for each game another process wrote for, until ``stop``.

    ``on_lost()`` is called whenever listening (re)starts after the connection was lost:
    notices sent meanwhile are gone, so every game should look at its store once.
    """
    first = True
    while not stop.is_set():
        try:
            if not first:
                on_lost()
            first = False
            _listen(engine, stop, on_change)
        except Exception as error:  # the server away: listen again shortly
            log.warning("lost the database's notices of changes: %s", error)
            stop.wait(RECONNECT_AFTER)


def _listen(engine: Engine, stop: threading.Event, on_change: Callable[[str], None]) -> None:
    pooled = engine.raw_connection()
    try:
        connection = pooled.driver_connection
        assert connection is not None
        connection.autocommit = True
        connection.execute(f"LISTEN {CHANGES_CHANNEL}")
        while not stop.is_set():
            for notice in connection.notifies(timeout=1.0):
                game, _, token = notice.payload.partition(" ")
                if token != PROCESS_TOKEN:
                    on_change(game)
    finally:
        # Its session listens: it must not go back to the pool to serve a game's queries.
        pooled.invalidate()
