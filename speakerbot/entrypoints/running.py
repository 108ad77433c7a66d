"""``speakerbot run``: one game's daemon, or a host of every game of the config.

With one ``[game]`` (or ``--game``), one game's ``Daemon`` under its daemon lock, as always;
with the games named in the config (``[[games]]``), a ``hosting.Host`` of them all, behind one
LMTP listener, sharing them with every other ``run`` by lease on PostgreSQL.
"""

from __future__ import annotations

import argparse
import faulthandler
import os
import signal
import threading
from collections.abc import Callable
from contextlib import ExitStack

from speakerbot.adapters.store import shared_engine
from speakerbot.config import Games
from speakerbot.entrypoints.cli import CliError
from speakerbot.entrypoints.commands import USER_ERRORS as COMMAND_ERRORS
from speakerbot.entrypoints.opening import chosen_game, games_from, open_game, started_game

USER_ERRORS = COMMAND_ERRORS
"""Errors the user can fix (those of every command): printed without a traceback, exit 2."""


def _retry_base() -> float:
    # Test only: SPEAKERBOT_RETRY_BASE (seconds) replaces the 30 s base of the outbox's
    # retry backoff, so that the recovery tests need not wait up to 30 s for a retry.
    return float(os.environ.get("SPEAKERBOT_RETRY_BASE", "30"))


def run(args: argparse.Namespace) -> int:
    """Run the daemon in the foreground (``--once``: one pass, then exit).

    With the games named in the config (``[[games]]``) and none chosen, one process runs
    them all; on PostgreSQL, with every other ``run`` of them, through leases.
    """
    from speakerbot.entrypoints.daemon import Daemon

    games = games_from(args)
    if chosen_game(args) is None and (len(games.games) > 1 or games.named):
        return _run_host(args, games)
    with started_game(args) as (settings, service):
        settings.require_outbound()
        if not args.once:
            settings.require_inbound()
        daemon = Daemon(settings, service, retry_base=_retry_base())
        if args.once:
            daemon.once()
            return 0
        stop = threading.Event()
        _on_signals(daemon.stop_event_wakes(stop))
        daemon.run(stop)
    return 0


def _on_signals(trigger: Callable[[], None]) -> None:
    """Stop on SIGTERM and SIGINT (by ``trigger``); dump every thread's stack on SIGUSR1."""
    def on_signal(*_: object) -> None:
        # A signal handler runs in the main thread, which may be holding the very Event
        # lock that set() takes: setting it from here could deadlock. A thread can wait.
        threading.Thread(target=trigger, name="speakerbot-stop", daemon=True).start()

    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, on_signal)
    # SIGUSR1 dumps every thread's stack to standard error: for diagnosing a hang.
    faulthandler.register(signal.SIGUSR1, all_threads=True)


def _run_host(args: argparse.Namespace, games: Games) -> int:
    """Run every game of the config in this process (``hosting.Host``)."""
    from speakerbot.adapters.store.leases import Leases
    from speakerbot.entrypoints.daemon import Daemon
    from speakerbot.entrypoints.hosting import Host

    shared = games.shared
    shared.require_outbound()
    engine = shared_engine(shared.database.url)
    with ExitStack() as services:
        daemons = []
        for settings in games.games:
            if not args.once:
                settings.require_inbound()
            service = services.enter_context(open_game(settings, engine=engine))
            if not service.has_game():
                raise CliError(f"the game {settings.game_id} has not started: run "
                               "speakerbot init first")
            daemons.append(Daemon(settings, service, retry_base=_retry_base(), own_lmtp=False))
        if args.once:
            for daemon in daemons:
                daemon.once()
            return 0
        leases = (Leases(engine, lease=shared.workers.lease)
                  if engine is not None and not args.once else None)
        host = Host(shared, daemons, leases)
        stop = threading.Event()
        _on_signals(host.stop_event_wakes(stop))
        host.run(stop)
    return 0
