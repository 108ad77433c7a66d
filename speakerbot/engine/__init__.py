"""The pure game engine: typed state, commands and events; no I/O of any kind.

``apply(state, command, now, rng)`` decides a command, ``tick(state, now, rng)`` lets time pass,
and ``replay(events)`` rebuilds a state from a game's record.
"""

from speakerbot.engine.events import Event
from speakerbot.engine.evolve import evolve, replay
from speakerbot.engine.game import (
    NO_RANDOMNESS,
    GameError,
    RandomSource,
    apply,
    due_by,
    next_deadline,
    tick,
)
from speakerbot.engine.model import GameState

__all__ = [
    "NO_RANDOMNESS",
    "Event",
    "GameError",
    "GameState",
    "RandomSource",
    "apply",
    "due_by",
    "evolve",
    "next_deadline",
    "replay",
    "tick",
]
