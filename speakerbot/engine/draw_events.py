"""The proof of a draw, and the seeds' events: a seed committed, a seed revealed.

A game's draws are computed from a secret seed (``luck.py``). The public record holds each
seed's commitment before any draw with it (in ``GameStarted``, a ``SeedCommitted`` or the
``SeedRevealed`` of the seed before), then the seed itself once it is revealed. Each event
a draw decided (a die thrown, a Judge assigned, a new Speaker among winners) carries the
draw's :class:`Draw`: with the revealed seed and the record, anyone can compute it again.
Where a draw is anchored is the record's to say, not the draw's: the last line recorded
before the draw's moment (:class:`RecordSoFar`, which the state keeps as it folds events).

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
    record's line whose hash it was computed from (the record's anchor for it, said again
    so that a reader need not work it out); ``commitment`` is its seed's.
    """

    label: str
    candidates: tuple[str, ...]
    outcome: str
    after: int
    commitment: str


@dataclass(frozen=True)
class RecordLine:
    """A line of the public record: its number and hash (0 and 64 zeros: no line yet)."""

    seq: int = 0
    hash: str = "0" * 64  # chain.GENESIS, which this module cannot import


@dataclass(frozen=True)
class RecordSoFar:
    """The public record as the events folded so far make it: where draws are anchored.

    ``head`` is its last line and ``at`` the time that line was recorded at, as the record
    writes it (every line of one decision, or of one tick, bears the same time); ``anchor``
    is the last line recorded before that time (none, number 0, if the record began then).
    A draw is anchored to the last line before its own moment: ``anchor`` if it is
    recorded at ``at``, else ``head``.
    """

    head: RecordLine = RecordLine()
    at: str = ""
    anchor: RecordLine = RecordLine()

    def anchor_at(self, at: str) -> RecordLine:
        """Return the line a draw recorded at ``at`` (as the record writes times) follows."""
        return self.anchor if at == self.at else self.head

    def then(self, line: RecordLine, at: str) -> RecordSoFar:
        """Return the record once ``line``, recorded at ``at``, follows its head."""
        return RecordSoFar(line, at, self.anchor_at(at))


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
