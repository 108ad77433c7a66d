"""Which game a command acts on, and opening it: ``--game``, ``SPEAKERBOT_GAME``, the store.

Every per-game command goes through ``settings_from`` (the chosen game's settings, or the
list of ids when several games are configured and none is chosen) and ``open_game``.
"""

from __future__ import annotations

import argparse
import os
import random
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from speakerbot.adapters.store import MAIN_GAME, Store
from speakerbot.config import (
    GAME_ENV,
    Games,
    Settings,
    load_games,
    resolve_config_path,
)
from speakerbot.entrypoints.cli import CliError
from speakerbot.service import GameService
from speakerbot.service.crashpoints import CrashPoints

if TYPE_CHECKING:
    from sqlalchemy import Engine


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


@contextmanager
def started_game(args: argparse.Namespace) -> Iterator[tuple[Settings, GameService]]:
    """Open the configured game's store; refuse when no game has been started."""
    settings = settings_from(args)
    with open_game(settings) as service:
        if not service.has_game():
            raise CliError("no game has started: run speakerbot init first")
        yield settings, service


def unclaimed_game(games: Games) -> bool:
    """Whether the database holds a game made before games had ids that no configured id has.

    Such a game sits in the default namespace, which only the game ``main`` reads.
    """
    if MAIN_GAME in games.ids():
        return False
    with Store(games.shared.database.url) as store:
        return store.is_initialised()


def ids_text(games: Games) -> str:
    """Name the configured games' ids, for an error that asks for one of them."""
    return "the games: " + ", ".join(games.ids())
