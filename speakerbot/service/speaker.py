"""The Speaker's own commands from the command line: start the game, the next game, overrides."""

from __future__ import annotations

import secrets

from speakerbot.engine import apply
from speakerbot.engine import commands as c
from speakerbot.engine import events as e
from speakerbot.engine.publicity import RECORD_VERSION
from speakerbot.presets import load_preset
from speakerbot.service.applying import next_game
from speakerbot.service.deps import Deps
from speakerbot.service.policy import ServiceError, not_a_player, raise_rejection
from speakerbot.service.unit_of_work import UnitOfWork


def start_game(uow: UnitOfWork, deps: Deps) -> list[e.Event]:
    """Start the configured game (the store must be upgraded and empty)."""
    game = deps.settings.game
    state = uow.state()
    if state.started:
        raise ServiceError("a game already exists in this database; "
                           "use speakerbot init --force --yes to start over")
    command = c.StartGame(
        game.speaker, load_preset(game.ruleset), game.speaker_name,
        game.judge or "", game.judge_name or "", dict(deps.settings.mechanics),
        game.open_registration, secrets.token_hex(8), record_version=RECORD_VERSION,
    )
    new, events = apply(state, command, deps.clock(), deps.rng,
                        max_rule_bytes=deps.settings.limits.max_rule_bytes)
    raise_rejection(events)
    uow.record(events, new, [])
    return events


def new_game(uow: UnitOfWork, deps: Deps, ruleset: str | None = None) -> list[e.Event]:
    """Start the next game in this database, once the last is over; announce it.

    The record keeps every game before it. The next game is played under ``ruleset``
    (default: the configured one), with a new game id; the active players of the last
    game are in it from the start, with no score.
    """
    command = next_game(deps.settings, uow.state(), ruleset)
    if isinstance(command, str):
        raise ServiceError(command)
    return speaker_command(uow, deps, command)


def speaker_command(uow: UnitOfWork, deps: Deps, command: c.Command) -> list[e.Event]:
    """Apply an override from the command line as the Speaker; announce it."""
    if isinstance(command, c.AddPlayer):
        refused = not_a_player(command.address, deps.settings.game)
        if refused is not None:
            raise ServiceError(refused)
    state = uow.state()
    new, events = apply(state, command, deps.clock(), deps.rng,
                        max_rule_bytes=deps.settings.limits.max_rule_bytes)
    raise_rejection(events)
    uow.record(events, new, uow.announce(events, new, state))
    return events
