"""What each ``speakerbot`` subcommand does (the parser and the dispatch are in ``cli``).

Kept apart from ``cli`` so that ``speakerbot --help`` and ``speakerbot parse`` start without
importing the database, the configuration schema and the rest of the daemon's stack.
"""

from __future__ import annotations

import argparse
import faulthandler
import json
import os
import random
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from typing import TYPE_CHECKING, Any

from sqlalchemy.exc import DBAPIError

from speakerbot.adapters.store import MAIN_GAME, Store, move_main_game, shared_engine
from speakerbot.config import (
    GAME_ENV,
    ConfigError,
    Games,
    Settings,
    load_games,
    resolve_config_path,
)
from speakerbot.engine import GameState
from speakerbot.engine import commands as c
from speakerbot.engine import events as e
from speakerbot.entrypoints.cli import CliError, NotFound
from speakerbot.entrypoints.views import inbound_view, player_view, status_view
from speakerbot.mail.outbound.compose import format_time, points
from speakerbot.presets import PresetError, load_preset, preset_names
from speakerbot.service import AlreadyRunning, GameService, NotPending, ServiceError
from speakerbot.service.crashpoints import CrashPoints
from speakerbot.service.outbox import BACKLOG_AGES, BACKLOG_KINDS, Backlog

if TYPE_CHECKING:
    from sqlalchemy import Engine

    from speakerbot.adapters.store import InboundRow, OutboxSummary


def rulesets(args: argparse.Namespace) -> int:
    """List the preset rulesets, or show one (``speakerbot rulesets [show NAME]``)."""
    if args.action is None:
        for name in preset_names():
            preset = load_preset(name)
            print(f"{name:<12} {preset.title:<44} {len(preset.rules):>3} rules")
        return 0
    if args.action != "show" or not args.name:
        raise CliError("usage: speakerbot rulesets [show NAME]")
    try:
        preset = load_preset(args.name)
    except PresetError as error:
        raise CliError(str(error)) from None
    for rule in preset.rules:
        print(f"{rule.number} ({'mutable' if rule.mutable else 'immutable'})")
        print(rule.text)
        print()
    return 0


def chosen_game(args: argparse.Namespace) -> str | None:
    """Return the game the command acts on: ``--game``, else $SPEAKERBOT_GAME (None: unsaid)."""
    return getattr(args, "game", None) or os.environ.get(GAME_ENV) or None


def games_from(args: argparse.Namespace) -> Games:
    """Load every game of the config file the arguments (or the environment) name."""
    return load_games(resolve_config_path(args.config, os.environ))


def settings_from(args: argparse.Namespace) -> Settings:
    """Load the settings of the game the arguments name (``GameNotChosen``: several, none named)."""
    return games_from(args).select(chosen_game(args))


def open_game(settings: Settings, *, upgrade: bool = False,
              engine: Engine | None = None) -> GameService:
    """Open the configured game's service (``SPEAKERBOT_SEED``, test only, seeds its draws)."""
    seed = os.environ.get("SPEAKERBOT_SEED")
    rng = random.Random(int(seed)) if seed else random.SystemRandom()
    # Test only: the crash tests make a daemon kill itself at a named step.
    return GameService.open(settings, rng=rng, upgrade=upgrade, engine=engine,
                            crashpoints=CrashPoints.from_variables(os.environ))


def init(args: argparse.Namespace) -> int:
    """Create the database and start the configured game, or every game not yet started.

    With one game (or ``--game``): over a game already there only with ``--force --yes``,
    and after a copy of its whole record is written beside the database; ``--force`` alone
    says what would be lost and exits 1. With several games and none named, each game not
    yet started is started and each started one left alone.
    """
    games = games_from(args)
    if _unclaimed_game(games):
        # Starting the configured games would leave that game's record behind, unread.
        raise CliError("this database holds a game made before games had ids: run speakerbot "
                       "db upgrade (with --game ID, the game it is) to keep it, then init")
    if chosen_game(args) is not None or len(games.games) == 1:
        return _init_one(args, games.select(chosen_game(args)))
    if args.force:
        raise CliError(f"init --force deletes one game: name it with --game ID ({_ids(games)})")
    for settings in games.games:
        with open_game(settings, upgrade=True) as service:
            if service.has_game():
                print(f"{settings.game_id}: already started, left alone")
                continue
            service.start_game()
            print(f"{settings.game_id}: {_started(settings, service.state())}")
    return 0


def _ids(games: Games) -> str:
    return "the games: " + ", ".join(games.ids())


def _started(settings: Settings, state: GameState) -> str:
    return (f"started {settings.game.name}: preset {state.preset}, {len(state.rules)} rules, "
            f"Speaker {state.name_of(state.speaker)} <{state.speaker}>")


def _init_one(args: argparse.Namespace, settings: Settings) -> int:
    with open_game(settings, upgrade=True) as service:
        if service.has_game():
            if not args.force:
                raise CliError("a game already exists in this database; "
                               "speakerbot init --force --yes deletes it and starts over")
            if not _replaced(args, settings, service):
                return 1
        service.start_game()
        print(_started(settings, service.state()))
    return 0


def _replaced(args: argparse.Namespace, settings: Settings, service: GameService) -> bool:
    """Delete the game for ``init --force`` once a copy of its record is kept.

    Without ``--yes``: say what would be lost, delete nothing, and return False.
    """
    # Imported here: the record module builds on this one.
    from speakerbot.entrypoints.exports import keep_copy

    state, stored = service.state(), service.stored_record()
    games = f"{state.game_number} games" if state.game_number > 1 else "one game"
    lost = (f"{len(stored)} events ({games}; the last, {state.game_id}, under {state.preset} "
            f"with {_many(len(state.active_players()), 'player')} and "
            f"{_many(len(state.proposals), 'proposal')})")
    if not args.yes:
        print(f"speakerbot: this database holds a record of {lost}; init --force would delete "
              "it. Run speakerbot init --force --yes to delete it (a copy of the record is "
              "written beside the database first), or speakerbot record export FILE to keep "
              "a copy yourself.", file=sys.stderr)
        return False
    # PostgreSQL has no file to stand beside: the copy goes beside the config file, the
    # host's own folder (a service's working directory may be / or read-only).
    beside = settings.database.sqlite_path or settings.path
    folder = beside.resolve().parent
    copy = keep_copy(stored, folder, state.game_id)
    print(f"kept a copy of the record it replaces, {lost}: {copy}")
    service.delete_game()
    return True


def _many(count: int, thing: str) -> str:
    return f"{count} {thing}" if count == 1 else f"{count} {thing}s"


@contextmanager
def started_game(args: argparse.Namespace) -> Iterator[tuple[Settings, GameService]]:
    """Open the configured game's store; refuse when no game has been started."""
    settings = settings_from(args)
    with open_game(settings) as service:
        if not service.has_game():
            raise CliError("no game has started: run speakerbot init first")
        yield settings, service


def player_add(args: argparse.Namespace) -> int:
    """Register a player as the Speaker would (``speakerbot player add EMAIL NAME``)."""
    with started_game(args) as (_, service):
        state = service.state()
        events = service.speaker_command(c.AddPlayer(state.speaker, args.email, args.name))
        # The address as the game will compare it (speakerbot.addresses).
        added = next(event.address for event in events if isinstance(event, e.PlayerJoined))
        print(f"added {args.name} <{added}>")
    return 0


def player_list(args: argparse.Namespace) -> int:
    """List every player in joining (turn) order (``speakerbot player list [--json]``)."""
    with started_game(args) as (_, service):
        state = service.state()
        players = list(state.players.values())
        if args.json:
            print_json([player_view(state, player) for player in players])
            return 0
        for player in players:
            absence = state.absences.get(player.address)
            note = ("  left" if not player.active else
                    f"  away until {format_time(absence.until)}" if absence else "")
            print(f"{player.name:<24} {points(player.score):>8}  {player.address}"
                  f"  {player.role.value}{note}")
        if not players:
            print("no players yet: speakerbot player add EMAIL NAME registers one")
    return 0


def print_json(value: Any) -> None:
    """Print one JSON document (docs/cli.md gives the shapes), keys in a stable order."""
    print(json.dumps(value, indent=2, ensure_ascii=False))


def new_game(args: argparse.Namespace) -> int:
    """Start the next game in this database once the last is over (``speakerbot new-game``)."""
    with started_game(args) as (settings, service):
        if args.ruleset is not None:
            _known_ruleset(args.ruleset)
        service.new_game(args.ruleset)
        state = service.state()
        print(f"started the next game of {settings.game.name}: preset {state.preset}, "
              f"{len(state.rules)} rules, {len(state.active_players())} players; "
              "the games before it stay in the record")
    return 0


def _known_ruleset(name: str) -> None:
    try:
        load_preset(name)
    except PresetError as error:
        raise CliError(str(error)) from None


def db_upgrade(args: argparse.Namespace) -> int:
    """Bring the database's schema up to date: every game's, or the one ``--game`` names.

    A game the database held before games had ids (in the default namespace) becomes the
    configured game it is: the config's only game, or the one ``--game`` names, unless the
    config keeps a game ``main`` (which it already is).
    """
    games = games_from(args)
    chosen = chosen_game(args)
    unclaimed = _unclaimed_game(games)
    if unclaimed:
        owner = chosen or (games.ids()[0] if len(games.games) == 1 else None)
        if owner is None:
            raise CliError("this database holds a game made before games had ids; say which "
                           "configured game it is: speakerbot db upgrade --game ID "
                           f"({_ids(games)})")
        try:
            move_main_game(games.shared.database.url, games.get(owner).game_id)
        except FileExistsError as error:
            raise CliError(f"the game {owner} already has a database of its own ({error}); "
                           "the game made before games had ids was left as it was") from None
        print(f"the game this database held is now the game {owner}, its record unchanged")
    for settings in [games.get(chosen)] if chosen is not None else games.games:
        open_game(settings, upgrade=True).close()
    print("database is up to date")
    return 0


def _unclaimed_game(games: Games) -> bool:
    """Whether the database holds a game made before games had ids that no configured id has.

    Such a game sits in the default namespace, which only the game ``main`` reads.
    """
    if MAIN_GAME in games.ids():
        return False
    with Store(games.shared.database.url) as store:
        return store.is_initialised()


def status(args: argparse.Namespace) -> int:
    """Print the players and scores, open proposals and CFJs, and the outbox."""
    with started_game(args) as (settings, service):
        state = service.state()
        if args.json:
            summary = service.outbox_summary()
            print_json(status_view(settings.game.name, state, _outbox_view(service, summary)))
            return 0
        print(f"{settings.game.name} ({state.preset}), game {state.game_number}"
              + (f", ENDED: {state.end_reason}" if state.ended else ""))
        print(f"Speaker: {state.name_of(state.speaker)} <{state.speaker}>")
        if state.turn is not None:
            print(f"Turn {state.turn.number}: {state.name_of(state.turn.mover)}")
        print("\nPlayers:")
        players = state.scoreboard()
        for player in players:
            print(f"  {player.name:<24} {points(player.score):>8}  {player.address}"
                  f"  {player.role.value}")
        if not players:
            print("  none")
        print("\nOpen proposals:")
        for proposal in state.open_proposals():
            print(f"  {proposal.number} {proposal.title} (by {state.name_of(proposal.proposer)})"
                  f", closes {format_time(proposal.closes_at)}")
        if not state.open_proposals():
            print("  none")
        print("\nOpen CFJs:")
        for cfj in state.open_cfjs():
            due = f", due {format_time(cfj.deadline)}" if cfj.deadline else ""
            print(f"  CFJ {cfj.number}: {cfj.statement} (Judge {state.name_of(cfj.judge or '')}"
                  f"{due})")
        if not state.open_cfjs():
            print("  none")
        summary = service.outbox_summary()
        oldest = (f", oldest from {format_time(summary.oldest_pending)}"
                  if summary.oldest_pending else "")
        print(f"\nOutbox: {summary.pending} waiting{oldest}, {summary.failed} given up")
        if summary.gathered:
            print(f"  {summary.gathered} public messages beyond [limits] public_per_hour, "
                  "to be gathered into one at the end of the hour")
        if summary.pending:
            _print_backlog(service.outbox_backlog(summary))
        for message_id, recipient, answer in summary.refused:
            print(f"  refused: {recipient} ({message_id}): {answer}")
    return 0


def _outbox_view(service: GameService, summary: OutboxSummary) -> dict[str, Any]:
    """Return the outbox as ``status --json`` gives it: counts, waiting mail by kind and age."""
    backlog = service.outbox_backlog(summary) if summary.pending else None
    return {"pending": summary.pending, "failed": summary.failed,
            "oldest_pending": (summary.oldest_pending.isoformat()
                               if summary.oldest_pending else None),
            "refused": [{"message_id": message_id, "recipient": recipient, "answer": answer}
                        for message_id, recipient, answer in summary.refused],
            "waiting": {kind: dict(zip((name for name, _ in BACKLOG_AGES),
                                       backlog.counts[kind], strict=True))
                        for kind in BACKLOG_KINDS} if backlog else {}}


def _print_backlog(backlog: Backlog) -> None:
    """Print the waiting mail as a table: a row per kind, a column per age."""
    ages = [name for name, _ in BACKLOG_AGES]
    print(f"  {'waiting':<14}{'total':>6}" + "".join(f"{age:>13}" for age in ages))
    for kind in BACKLOG_KINDS:
        counts = backlog.counts[kind]
        print(f"  {kind:<14}{backlog.total(kind):>6}" + "".join(f"{n:>13}" for n in counts))


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


def inbound_list(args: argparse.Namespace) -> int:
    """List stored inbound mail, newest first."""
    with started_game(args) as (_, service):
        rows = service.list_inbound(args.status, limit=args.limit)
        if args.json:
            print_json([inbound_view(row) for row in rows])
            return 0
        for row in rows:
            why = (f"[{row.reason}] " if row.reason else "") + (row.error or row.note or "")
            print(f"{row.id:>6}  {row.status:<11} {format_time(row.received_at)}  "
                  f"{row.sender or '?':<32.32} {row.message_id:.60}"
                  + (f"\n        {why:.200}" if why else ""))
        if not rows:
            print("no inbound mail" + (f" with status {args.status}" if args.status else ""))
    return 0


def _stored(fetch: Callable[[int], InboundRow], inbound_id: int) -> InboundRow:
    """Return what ``fetch`` makes of stored message ``inbound_id`` (``NotFound``: none)."""
    try:
        return fetch(inbound_id)
    except LookupError as error:
        raise NotFound(str(error)) from None


def inbound_show(args: argparse.Namespace) -> int:
    """Show one stored message, its password masked."""
    with started_game(args) as (_, service):
        row = _stored(service.inbound, args.id)
        received = format_time(row.received_at)
        fields = [("id", row.id), ("status", row.status), ("received", received),
                  ("source", row.source), ("sender", row.sender or "?"),
                  ("message-id", row.message_id), ("attempts", row.attempts),
                  ("password line", row.password_verdict or "none"),
                  ("too large", f"{row.oversized} bytes" if row.oversized else "no"),
                  ("reason", row.reason or ""), ("error", row.error or ""), ("note", row.note)]
        for name, value in fields:
            print(f"{name + ':':<15}{value}")
        # The stored bytes: the message as received, its password (if any) masked.
        print("\n" + row.raw.decode("utf-8", "replace"))
    return 0


def inbound_retry(args: argparse.Namespace) -> int:
    """Queue a set-aside message to be processed again."""
    with started_game(args) as (_, service):
        try:
            row = _stored(service.requeue, args.id)
        except NotPending as error:
            raise CliError(f"{error}; only a message set aside can be retried") from None
        print(f"inbound message {row.id} is queued again; a running daemon processes it "
              "within a second or two (else run speakerbot run --once)")
    return 0


def demo(args: argparse.Namespace) -> int:
    """Play the scripted demo game over real LMTP and SMTP on loopback."""
    from speakerbot.entrypoints.demo import run_demo

    return run_demo(voting_period=args.voting_period, quiet=args.quiet)




USER_ERRORS: tuple[type[Exception], ...] = (CliError, ConfigError, ServiceError, AlreadyRunning)
"""Errors the user can fix: printed without a traceback, exit status 2."""


def games(args: argparse.Namespace) -> int:
    """List the config's games, a line each (``speakerbot games [--json]``).

    Each line: id, name, ruleset, players, open proposals, running/paused/over (or not
    started), and the worker that holds the game (host and pid; "no worker" when none).
    """
    config = games_from(args)
    engine = shared_engine(config.shared.database.url)
    holders = _lease_holders(engine, config) if engine is not None and config.named else None
    rows = [_game_row(settings, engine, holders) for settings in config.games]
    if engine is not None:
        engine.dispose()
    if args.json:
        print_json(rows)
        return 0
    for row in rows:
        print(f"{row['id']:<12} {row['name']:<24.24} {row['ruleset']:<10} "
              f"{_many(row['players'], 'player'):>11} {row['open_proposals']:>4} open  "
              f"{row['state']:<11} {row['worker'] or 'no worker'}")
    return 0


def _lease_holders(engine: Engine, config: Games) -> dict[str, str]:
    """Return who holds each game by lease (``host pid N``), for the games a lease names."""
    from speakerbot.adapters.store.leases import Leases

    try:
        holders = Leases(engine, lease=config.shared.workers.lease).holders()
    except DBAPIError:  # no worker has run yet: no lease table
        return {}
    return {holder.game: f"{holder.host} pid {holder.pid}" for holder in holders
            if holder.live and holder.host is not None}


def _game_row(settings: Settings, engine: Engine | None,
              holders: dict[str, str] | None) -> dict[str, Any]:
    """Return one game's line of ``speakerbot games`` as a JSON object.

    ``holders``: the workers holding games by lease (None: the daemon lock says).
    """
    row: dict[str, Any] = {"id": settings.game_id, "name": settings.game.name,
                           "ruleset": settings.game.ruleset, "players": 0,
                           "open_proposals": 0, "state": "not started", "worker": None}
    try:
        service = open_game(settings, engine=engine)
    except ServiceError:
        return row
    with service:
        row["worker"] = (service.store.daemon_holder() if holders is None
                         else holders.get(settings.game_id))
        if not service.has_game():
            return row
        state = service.state()
        row.update(ruleset=state.preset, players=len(state.active_players()),
                   open_proposals=len(state.open_proposals()),
                   state="over" if state.ended else "paused" if state.paused_at else "running")
    return row
