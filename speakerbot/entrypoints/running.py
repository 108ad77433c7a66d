"""``speakerbot run``: one game's daemon, or a host of every game of the config.

With one ``[game]``, one game's ``Daemon`` under its daemon lock, as always; with the games
named in the config (``[[games]]``), a ``hosting.Host`` of them all, behind one LMTP listener,
sharing them with every other ``run`` by lease on PostgreSQL. There, a game is served only
under its lease, whatever the command line says: ``--game ID`` limits a worker to that game
(still by lease), and ``--once`` takes each game's lease for its one pass, leaving alone a
game another worker holds (exit 2, saying so). On SQLite, ``--game ID`` runs that game's
daemon alone, under its daemon lock, which the host of every game takes too.
"""

from __future__ import annotations

import argparse
import faulthandler
import logging
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from typing import TYPE_CHECKING

from sqlalchemy.orm import Session

from speakerbot.adapters.lmtp import CannotListen
from speakerbot.adapters.store import shared_engine
from speakerbot.adapters.store.leases import Holding, LeaseLost, Leases
from speakerbot.config import Games
from speakerbot.entrypoints.cli import CliError
from speakerbot.entrypoints.commands import USER_ERRORS as COMMAND_ERRORS
from speakerbot.entrypoints.metrics import serving_metrics
from speakerbot.entrypoints.opening import chosen_game, games_from, open_game, started_game

if TYPE_CHECKING:
    from speakerbot.adapters.relay import RelayPool
    from speakerbot.adapters.smtp import SmtpSettings
    from speakerbot.entrypoints.daemon import Daemon

log = logging.getLogger("speakerbot.entrypoints.running")

USER_ERRORS = COMMAND_ERRORS
"""Errors the user can fix (those of every command): printed without a traceback, exit 2."""

_PORT_ADVICE = ("set [lmtp] port to one no other program holds (the workers of one config on "
                "PostgreSQL share theirs; a single game's daemon or a host on SQLite does not)")


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
    chosen = chosen_game(args)
    if len(games.games) > 1 or games.named:
        if chosen is None:
            return _run_host(args, games)
        engine = shared_engine(games.select(chosen).database.url)
        if engine is not None:
            # Workers on PostgreSQL take no daemon lock: only a lease keeps a game served once.
            return _run_host(args, games, chosen)
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
        with _said_plainly(), serving_metrics(settings, [daemon]):
            daemon.run(stop)
    return 0


@contextmanager
def _said_plainly() -> Iterator[None]:
    """Turn a port that cannot be had into one line saying what to change (exit 2)."""
    try:
        yield
    except CannotListen as error:
        raise CliError(f"{error}: {_PORT_ADVICE}") from error


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


def _run_host(args: argparse.Namespace, games: Games, chosen: str | None = None) -> int:
    """Run the games of the config in this process (``hosting.Host``): ``chosen`` alone, if said.

    Every game is opened (a worker's listener stores mail for all of them); on PostgreSQL
    this worker takes leases on the chosen game only.
    """
    from speakerbot.adapters.relay import RelayPool
    from speakerbot.entrypoints.daemon import Daemon, smtp_settings
    from speakerbot.entrypoints.hosting import Host

    shared = games.shared
    shared.require_outbound()
    engine = shared_engine(shared.database.url)
    with ExitStack() as services:
        daemons = []
        # The games that send through one relay share the connections kept between batches.
        relays: dict[SmtpSettings, RelayPool] = {}
        services.callback(_close_relays, relays)
        for settings in games.games:
            if not args.once:
                settings.require_inbound()
            service = services.enter_context(open_game(settings, engine=engine))
            if not service.has_game():
                raise CliError(f"the game {settings.game_id} has not started: run "
                               "speakerbot init first")
            relay = relays.setdefault(smtp_settings(settings), RelayPool())
            daemons.append(Daemon(settings, service, retry_base=_retry_base(), own_lmtp=False,
                                  relay=relay))
        served = [d for d in daemons if chosen is None or d.settings.game_id == chosen]
        leases = Leases(engine, lease=shared.workers.lease) if engine is not None else None
        if args.once:
            if leases is None:
                for daemon in served:
                    daemon.once()  # under each game's daemon lock
                return 0
            return _once_by_lease(served, leases)
        host = Host(shared, daemons, leases, serves=[d.settings.game_id for d in served])
        stop = threading.Event()
        _on_signals(host.stop_event_wakes(stop))
        with _said_plainly(), serving_metrics(shared, daemons):
            host.run(stop)
    return 0


def _close_relays(relays: dict[SmtpSettings, RelayPool]) -> None:
    """Say goodbye on the connections the games kept to their relays."""
    for pool in relays.values():
        pool.close()


def _once_by_lease(daemons: Sequence[Daemon], leases: Leases) -> int:
    """``run --once`` beside workers: each game's one pass under its lease, then let go.

    A game another worker holds is left to it; once the rest are done, ``CliError`` names
    each one left (exit 2), so that a cron job beside running workers is seen to do nothing.
    """
    from speakerbot.entrypoints.hosting import SEND_WITHIN

    leases.ensure_tables()
    left: list[str] = []
    try:
        for daemon in daemons:
            game = daemon.settings.game_id
            asked = time.monotonic()
            holding = leases.balance([game]).get(game)
            if holding is None:
                left.append(game)
                continue
            daemon.service.store.fence = _fence(leases, holding)
            daemon.held_until = asked + leases.lease * SEND_WITHIN
            try:
                daemon.once()
            except LeaseLost:
                log.warning("the game %s: the lease ran out before its pass ended; the rest "
                            "is left to the next run", game)
            finally:
                leases.release(game)
    finally:
        leases.release_all()
    if left:
        holders = {holder.game: holder for holder in leases.holders()}
        said = "; ".join(f"{game} (held by the worker on {holders[game].host} pid "
                         f"{holders[game].pid})" if game in holders and holders[game].live
                         else game for game in left)
        raise CliError(f"a running worker serves {said}: run --once leaves such a game to "
                       "its worker")
    return 0


def _fence(leases: Leases, holding: Holding) -> Callable[[Session], None]:
    def fence(session: Session) -> None:
        leases.fence(session, holding)
    return fence
