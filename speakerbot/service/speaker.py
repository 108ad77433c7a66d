"""The Speaker's own commands from the command line: start the game, the next game, overrides."""

from __future__ import annotations

import secrets
from datetime import datetime
from pathlib import Path

from speakerbot.config import Settings
from speakerbot.engine import apply
from speakerbot.engine import commands as c
from speakerbot.engine import events as e
from speakerbot.engine.publicity import RECORD_VERSION
from speakerbot.presets import load_ruleset
from speakerbot.presets.located import read_located_file
from speakerbot.presets.snapshot import Importer, Snapshot, read_snapshot
from speakerbot.service.additions import are_additions, keep_for_announcing
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
        game.speaker, load_ruleset(game.ruleset), game.speaker_name,
        game.judge or "", game.judge_name or "", dict(deps.settings.mechanics),
        game.open_registration, secrets.token_hex(8), record_version=RECORD_VERSION,
        commitment=uow.first_seed(),
    )
    new, events = apply(state, command, deps.clock(), uow.luck(),
                        max_rule_bytes=deps.settings.limits.max_rule_bytes)
    raise_rejection(events)
    uow.record(events, new, [])
    return events


def read_import(settings: Settings, path: Path, now: datetime) -> Snapshot:
    """Read and check a hand-run game's snapshot against the configured game.

    Raises PresetError with every fault; nothing is stored, so it may run before the
    game's database is opened at all.
    """
    game = settings.game
    importer = Importer(load_ruleset(game.ruleset), game.speaker, now, dict(settings.mechanics),
                        lambda address: not_a_player(address, game),
                        settings.limits.max_rule_bytes)
    return read_snapshot(read_located_file(path), str(path), importer)


def import_game(uow: UnitOfWork, deps: Deps, path: Path) -> list[e.Event]:
    """Start the configured game from a hand-run game's snapshot; announce it to its players.

    A faulty snapshot imports nothing (PresetError with every fault). The players are told
    in one message; each open proposal is distributed again, its ballots empty.
    """
    game = deps.settings.game
    state = uow.state()
    if state.started:
        raise ServiceError("a game already exists in this database; import starts a new one "
                           "(speakerbot init --force --yes deletes the one there first)")
    snapshot = read_import(deps.settings, path, deps.clock())
    start = c.StartGame(
        game.speaker, snapshot.ruleset, game.speaker_name, game.judge or "",
        game.judge_name or "", {}, game.open_registration, secrets.token_hex(8),
        record_version=RECORD_VERSION, commitment=uow.first_seed(),
    )
    command = c.ImportGame(game.speaker, start, snapshot.source, snapshot.title,
                           snapshot.next_proposal, snapshot.players, snapshot.mover,
                           snapshot.proposals)
    new, events = apply(state, command, deps.clock(), uow.luck(),
                        max_rule_bytes=deps.settings.limits.max_rule_bytes)
    raise_rejection(events)
    uow.record(events, new, uow.announce(events, new, state))
    return events


def new_game(uow: UnitOfWork, deps: Deps, ruleset: str | None = None) -> list[e.Event]:
    """Start the next game in this database, once the last is over; announce it.

    The record keeps every game before it. The next game is played under ``ruleset``
    (default: the configured one), with a new game id; the active players of the last
    game are in it from the start, with no score.
    """
    command = next_game(deps.settings, uow.state(), ruleset, uow.first_seed())
    if isinstance(command, str):
        raise ServiceError(command)
    return speaker_command(uow, deps, command)


def speaker_command(uow: UnitOfWork, deps: Deps, command: c.Command) -> list[e.Event]:
    """Apply an override from the command line as the Speaker; announce it.

    A player added (``speakerbot player add``) is announced at the next tick, with the
    other players added since (``additions``).
    """
    if isinstance(command, c.AddPlayer):
        refused = not_a_player(command.address, deps.settings.game)
        if refused is not None:
            raise ServiceError(refused)
    state = uow.state()
    new, events = apply(state, command, deps.clock(), uow.luck(),
                        max_rule_bytes=deps.settings.limits.max_rule_bytes)
    raise_rejection(events)
    if are_additions(events):
        # Announced with the host's other additions at the next tick (additions.py).
        uow.record(events, new, [])
        keep_for_announcing(uow, deps, len(events))
        return events
    uow.record(events, new, uow.announce(events, new, state))
    return events
