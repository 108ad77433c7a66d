"""What each ``speakerbot`` subcommand does (the parser and the dispatch are in ``cli``).

Kept apart from ``cli`` so that ``speakerbot --help`` and ``speakerbot parse`` start without
importing the database, the configuration schema and the rest of the daemon's stack.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Collection, Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any

from speakerbot.config import (
    ConfigError,
    Settings,
)
from speakerbot.engine import GameState
from speakerbot.engine import commands as c
from speakerbot.engine import events as e
from speakerbot.entrypoints.cli import CliError, NotFound
from speakerbot.entrypoints.opening import (
    chosen_game,
    games_from,
    ids_text,
    open_game,
    started_game,
    unclaimed_game,
)
from speakerbot.entrypoints.views import inbound_view, player_view, status_view
from speakerbot.mail.outbound.compose import format_time, points
from speakerbot.mail.outbound.handwork import status_lines
from speakerbot.presets import PresetError, load_preset
from speakerbot.service import AlreadyRunning, GameService, NotPending, ServiceError
from speakerbot.service.outbox import BACKLOG_AGES, BACKLOG_KINDS, Backlog

if TYPE_CHECKING:

    from speakerbot.adapters.store import InboundRow, OutboxSummary


def init(args: argparse.Namespace) -> int:
    """Create the database and start the configured game, or every game not yet started.

    With one game (or ``--game``): over a game already there only with ``--force --yes``,
    and after a copy of its whole record is written beside the database; ``--force`` alone
    says what would be lost and exits 1. With several games and none named, each game not
    yet started is started and each started one left alone.
    """
    games = games_from(args)
    if unclaimed_game(games):
        # Starting the configured games would leave that game's record behind, unread.
        raise CliError("this database holds a game made before games had ids: run speakerbot "
                       "db upgrade (with --game ID, the game it is) to keep it, then init")
    if chosen_game(args) is not None or len(games.games) == 1:
        return _init_one(args, games.select(chosen_game(args)))
    if args.force:
        raise CliError(f"init --force deletes one game: name it with --game ID ({ids_text(games)})")
    for settings in games.games:
        with open_game(settings, upgrade=True) as service:
            if service.has_game():
                print(f"{settings.game_id}: already started, left alone")
                continue
            service.start_game()
            print(f"{settings.game_id}: {_started(settings, service.state())}")
    return 0


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
            f"with {plural(len(state.active_players()), 'player')} and "
            f"{plural(len(state.proposals), 'proposal')})")
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


def plural(count: int, thing: str) -> str:
    """Return ``count`` with ``thing``, in the plural unless it is one."""
    return f"{count} {thing}" if count == 1 else f"{count} {thing}s"


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


def _print_players(state: GameState, observers: Mapping[str, datetime],
                   unreachable: Mapping[str, datetime], digests: Collection[str]) -> None:
    """Print the players, best first (who reads by digest, who bounces), and the observers."""
    print("\nPlayers:")
    players = state.scoreboard()
    for player in players:
        print(f"  {player.name:<24} {points(player.score):>8}  {player.address}"
              f"  {player.role.value}"
              + ("  digest" if player.address in digests else "")
              + ("  UNREACHABLE" if player.address in unreachable else ""))
    if not players:
        print("  none")
    for address, since in unreachable.items():
        print(f"  {state.name_of(address)} is unreachable: the mail sent them bounces "
              f"(since {format_time(since)})")
    reading = sum(address in digests for address in observers)
    print(f"Observers: {len(observers)}" + (f", {reading} of them by digest" if reading
                                             else "") + " (speakerbot observers list)")


def status(args: argparse.Namespace) -> int:
    """Print the players and scores, open proposals and CFJs, and the outbox."""
    with started_game(args) as (settings, service):
        state = service.state()
        observers, unreachable = audience = service.audience()
        if args.json:
            summary = service.outbox_summary()
            print_json(status_view(settings.game.name, state, _outbox_view(service, summary),
                                   audience))
            return 0
        print(f"{settings.game.name} ({state.preset}), game {state.game_number}"
              + (f", ENDED: {state.end_reason}" if state.ended else ""))
        print(f"Speaker: {state.name_of(state.speaker)} <{state.speaker}>")
        if state.turn is not None:
            print(f"Turn {state.turn.number}: {state.name_of(state.turn.mover)}")
        _print_players(state, observers, unreachable, service.deps.store.digest_readers())
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
        _print_handwork(state)
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


def _print_handwork(state: GameState) -> None:
    """Print what adopted proposals left to the Speaker's hand, if anything is open."""
    lines = status_lines(state)
    if lines:
        print("\nLeft to the Speaker (speakerbot handwork; admin DONE <item> <reason>):")
        for line in lines:
            print(f"  {line}")


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
