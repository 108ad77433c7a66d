"""The ``speakerbot`` command line.

``-c/--config PATH`` is accepted before or after the subcommand; without it the file is
``$SPEAKERBOT_CONFIG``, else ``config/speakerbot.toml``.
"""

from __future__ import annotations

import argparse
import faulthandler
import logging
import os
import random
import signal
import sys
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from speakerbot.config import ConfigError, Settings, load_settings, resolve_config_path
from speakerbot.engine import commands as c
from speakerbot.mail.outbound.compose import format_time, points
from speakerbot.presets import PresetError, load_preset, preset_names
from speakerbot.service import AlreadyRunning, GameService, NotPending, ServiceError


class CliError(Exception):
    """A problem the user can fix; printed without a traceback, exit status 2."""


def _rulesets(args: argparse.Namespace) -> int:
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


def _settings(args: argparse.Namespace) -> Settings:
    path = resolve_config_path(args.config, os.environ)
    return load_settings(path)


def _open(settings: Settings, *, upgrade: bool = False) -> GameService:
    seed = os.environ.get("SPEAKERBOT_SEED")
    rng = random.Random(int(seed)) if seed else random.SystemRandom()
    return GameService.open(settings, rng=rng, upgrade=upgrade)


def _init(args: argparse.Namespace) -> int:
    settings = _settings(args)
    with _open(settings, upgrade=True) as service:
        if service.has_game():
            if not args.force:
                raise CliError("a game already exists in this database; "
                               "speakerbot init --force deletes it and starts over")
            service.delete_game()
        service.start_game()
        state = service.state()
        print(f"started {settings.game.name}: preset {state.preset}, {len(state.rules)} rules, "
              f"Speaker {state.name_of(state.speaker)} <{state.speaker}>")
    return 0


@contextmanager
def _game(args: argparse.Namespace) -> Iterator[tuple[Settings, GameService]]:
    """Open the configured game's store; refuse when no game has been started."""
    settings = _settings(args)
    with _open(settings) as service:
        if not service.has_game():
            raise CliError("no game has started: run speakerbot init first")
        yield settings, service


def _player_add(args: argparse.Namespace) -> int:
    with _game(args) as (_, service):
        state = service.state()
        service.speaker_command(c.AddPlayer(state.speaker, args.email, args.name))
        print(f"added {args.name} <{args.email.lower()}>")
    return 0


def _db_upgrade(args: argparse.Namespace) -> int:
    settings = _settings(args)
    _open(settings, upgrade=True).close()
    print("database is up to date")
    return 0


def _status(args: argparse.Namespace) -> int:
    with _game(args) as (settings, service):
        state = service.state()
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
        for message_id, recipient, answer in summary.refused:
            print(f"  refused: {recipient} ({message_id}): {answer}")
    return 0


def _run(args: argparse.Namespace) -> int:
    from speakerbot.entrypoints.daemon import Daemon

    with _game(args) as (settings, service):
        settings.require_outbound()
        if not args.once:
            settings.require_inbound()
        logging.basicConfig(level=logging.INFO, stream=sys.stderr,
                            format="%(asctime)s %(levelname)s %(name)s: %(message)s")
        daemon = Daemon(settings, service)
        if args.once:
            daemon.once()
            return 0
        stop = threading.Event()
        trigger = daemon.stop_event_wakes(stop)

        def on_signal(*_: object) -> None:
            # A signal handler runs in the main thread, which may be holding the very Event
            # lock that set() takes: setting it from here could deadlock. A thread can wait.
            threading.Thread(target=trigger, name="speakerbot-stop", daemon=True).start()

        for signum in (signal.SIGTERM, signal.SIGINT):
            signal.signal(signum, on_signal)
        # SIGUSR1 dumps every thread's stack to standard error: for diagnosing a hang.
        faulthandler.register(signal.SIGUSR1, all_threads=True)
        daemon.run(stop)
    return 0


def _parse(args: argparse.Namespace) -> int:
    from speakerbot.entrypoints.parse import main as parse_main
    from speakerbot.mail.inbound.authentication import AuthPolicy

    if not args.config:
        return parse_main([args.file])
    # With a configuration, the sender is checked as the game would check it.
    settings = _settings(args)
    policy = AuthPolicy(settings.auth.require, settings.auth.authserv_id)
    return parse_main([args.file], auth=policy, max_bytes=settings.limits.max_message_size)


def _inbound_list(args: argparse.Namespace) -> int:
    with _game(args) as (_, service):
        rows = service.list_inbound(args.status, limit=args.limit)
        for row in rows:
            why = row.error or row.note or ""
            print(f"{row.id:>6}  {row.status:<11} {format_time(row.received_at)}  "
                  f"{row.sender or '?':<32.32} {row.message_id:.60}"
                  + (f"\n        {why:.200}" if why else ""))
        if not rows:
            print("no inbound mail" + (f" with status {args.status}" if args.status else ""))
    return 0


def _inbound_show(args: argparse.Namespace) -> int:
    with _game(args) as (_, service):
        try:
            row = service.inbound(args.id)
        except LookupError as error:
            raise CliError(str(error)) from None
        received = format_time(row.received_at)
        fields = [("id", row.id), ("status", row.status), ("received", received),
                  ("source", row.source), ("sender", row.sender or "?"),
                  ("message-id", row.message_id), ("attempts", row.attempts),
                  ("password line", row.password_verdict or "none"),
                  ("too large", f"{row.oversized} bytes" if row.oversized else "no"),
                  ("error", row.error or ""), ("note", row.note)]
        for name, value in fields:
            print(f"{name + ':':<15}{value}")
        # The stored bytes: the message as received, its password (if any) masked.
        print("\n" + row.raw.decode("utf-8", "replace"))
    return 0


def _inbound_retry(args: argparse.Namespace) -> int:
    with _game(args) as (_, service):
        try:
            row = service.requeue(args.id)
        except (LookupError, NotPending) as error:
            raise CliError(f"{error}; only a message set aside can be retried") from None
        print(f"inbound message {row.id} is queued again; the daemon processes it at its next "
              "cycle (or run speakerbot run --once)")
    return 0


def _demo(args: argparse.Namespace) -> int:
    from speakerbot.entrypoints.demo import run_demo

    return run_demo(voting_period=args.voting_period, quiet=args.quiet)


def build_parser() -> argparse.ArgumentParser:
    """Build the argument parser for every subcommand."""
    config = argparse.ArgumentParser(add_help=False)
    config.add_argument("-c", "--config", default=argparse.SUPPRESS,
                        help="the config file (default: $SPEAKERBOT_CONFIG, else "
                             "config/speakerbot.toml)")
    parser = argparse.ArgumentParser(prog="speakerbot", parents=[config],
                                     description="An automated Speaker for Nomic played by email.")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    def command(name: str, help_text: str) -> argparse.ArgumentParser:
        return commands.add_parser(name, help=help_text, parents=[config])

    rulesets = command("rulesets", "list the preset rulesets, or show one")
    rulesets.add_argument("action", nargs="?", choices=["show"], help="show a preset's rules")
    rulesets.add_argument("name", nargs="?", help="the preset to show")
    rulesets.set_defaults(handler=_rulesets)

    init = command("init", "create the database and start the configured game")
    init.add_argument("--force", action="store_true", help="delete an existing game first")
    init.set_defaults(handler=_init)

    player = command("player", "manage players")
    player_commands = player.add_subparsers(dest="player_command", metavar="ACTION")
    add = player_commands.add_parser("add", help="register a player", parents=[config])
    add.add_argument("email")
    add.add_argument("name")
    add.set_defaults(handler=_player_add)

    run = command("run", "run the daemon in the foreground")
    run.add_argument("--once", action="store_true",
                     help="process everything waiting and due, send the outbox, and exit")
    run.set_defaults(handler=_run)

    command("status", "show players, scores, open proposals and CFJs, the outbox").set_defaults(
        handler=_status)

    db = command("db", "database maintenance")
    db_commands = db.add_subparsers(dest="db_command", metavar="ACTION")
    db_commands.add_parser("upgrade", help="run migrations", parents=[config]).set_defaults(
        handler=_db_upgrade)

    _add_inbound(command("inbound", "see stored inbound mail and put set-aside mail back"),
                 config)

    parse = command("parse", "show how a message is understood, as JSON")
    parse.add_argument("file", help="the message file, or - for standard input")
    parse.set_defaults(handler=_parse)

    demo = command("demo", "play a short scripted game over real LMTP and SMTP on loopback")
    demo.add_argument("--voting-period", default="20s", help="the demo's voting period")
    demo.add_argument("--quiet", action="store_true", help="print only the summary")
    demo.set_defaults(handler=_demo)
    return parser


def _add_inbound(inbound: argparse.ArgumentParser, config: argparse.ArgumentParser) -> None:
    """Add ``inbound list | show ID | retry ID``."""
    inbound_commands = inbound.add_subparsers(dest="inbound_command", metavar="ACTION")
    listing = inbound_commands.add_parser("list", help="list stored mail, newest first",
                                          parents=[config])
    listing.add_argument("--status", choices=["new", "retry", "processed", "skipped",
                                              "held", "unconfirmed", "set_aside"],
                         help="only mail with this status")
    listing.add_argument("--limit", type=int, default=100, help="at most this many (100)")
    listing.set_defaults(handler=_inbound_list)
    show = inbound_commands.add_parser("show", help="show one message as stored",
                                       parents=[config])
    show.add_argument("id", type=int)
    show.set_defaults(handler=_inbound_show)
    retry = inbound_commands.add_parser("retry", help="process a set-aside message again",
                                        parents=[config])
    retry.add_argument("id", type=int)
    retry.set_defaults(handler=_inbound_retry)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not hasattr(args, "config"):
        args.config = None
    if getattr(args, "handler", None) is None:
        parser.print_help()
        return 2
    try:
        status: int = args.handler(args)
    except (CliError, ConfigError, ServiceError, AlreadyRunning) as error:
        print(f"speakerbot: {error}", file=sys.stderr)
        return 2
    return status
