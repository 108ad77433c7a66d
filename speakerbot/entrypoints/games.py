"""The commands of a host's games: ``speakerbot games`` and ``speakerbot db upgrade``."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from sqlalchemy.exc import DBAPIError

from speakerbot.adapters.store import move_main_game, shared_engine
from speakerbot.config import (
    Games,
    Settings,
)
from speakerbot.entrypoints.cli import CliError
from speakerbot.entrypoints.commands import USER_ERRORS as COMMAND_ERRORS
from speakerbot.entrypoints.commands import plural, print_json
from speakerbot.entrypoints.opening import (
    chosen_game,
    games_from,
    ids_text,
    open_game,
    unclaimed_game,
)
from speakerbot.service import ServiceError

if TYPE_CHECKING:
    from sqlalchemy import Engine


USER_ERRORS = COMMAND_ERRORS
"""Errors the user can fix (those of every command): printed without a traceback, exit 2."""


def db_upgrade(args: argparse.Namespace) -> int:
    """Bring the database's schema up to date: every game's, or the one ``--game`` names.

    A game the database held before games had ids (in the default namespace) becomes the
    configured game it is: the config's only game, or the one ``--game`` names, unless the
    config keeps a game ``main`` (which it already is). Its migrations run where it is, then
    it moves, so that a database of any earlier release moves as today's tables.
    """
    games = games_from(args)
    chosen = chosen_game(args)
    unclaimed = unclaimed_game(games)
    if unclaimed:
        owner = chosen or (games.ids()[0] if len(games.games) == 1 else None)
        if owner is None:
            raise CliError("this database holds a game made before games had ids; say which "
                           "configured game it is: speakerbot db upgrade --game ID "
                           f"({ids_text(games)})")
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
              f"{plural(row['players'], 'player'):>11} {row['open_proposals']:>4} open  "
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
