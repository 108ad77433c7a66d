"""The proof of a draw, and the seeds' events: a seed committed, a seed revealed.

A game's draws are computed from a secret seed (``luck.py``). The public record holds each
seed's commitment before any draw with it (in ``GameStarted``, a ``SeedCommitted`` or the
``SeedRevealed`` of the seed before), then the seed itself once it is revealed. Each event
a draw decided (a die thrown, a Judge assigned, a new Speaker among winners) carries the
draw's :class:`Draw`: with the revealed seed and the record, anyone can compute it again.

They are listed with every other kind of event in :data:`speakerbot.engine.events.EVENT_TYPES`.
"""

from __future__ import annotations

from dataclasses import dataclass

from speakerbot.engine.base_event import Event


@dataclass(frozen=True)
class Draw:
    """How a draw was made: enough for anyone to make it again once its seed is revealed.

    ``label`` names the draw (``die:302``, ``judge:cfj-4``); ``candidates`` are what it drew
    among, in order, and ``outcome`` the one drawn; ``after`` is the number of the public
    record's line whose hash it was computed from; ``commitment`` is its seed's.
    """

    label: str
    candidates: tuple[str, ...]
    outcome: str
    after: int
    commitment: str


@dataclass(frozen=True)
class SeedCommitted(Event):
    """A seed was drawn for a game recorded before seeds (or whose seed was lost).

    ``replaces``: the commitment whose seed the game no longer holds, if any.
    """

    commitment: str
    replaces: str = ""


@dataclass(frozen=True)
class SeedRevealed(Event):
    """A seed was published (every draw made with it can be checked), and the next committed.

    ``next_commitment`` is empty when the game is over. ``reason``: why now (a voting period
    closed, the game ended, the host asked).
    """

    commitment: str
    seed: str
    next_commitment: str
    reason: str
