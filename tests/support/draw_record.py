"""Small public records with provable draws, written by hand for the check of draws.

A record is built line by line with ``chain.link``; each draw is computed as the service
computes it (``luck.derive_index``) from a known seed and the hash of a line before it,
so the tests know what a correct draw is without a game or a database. Each line is
recorded a minute after the last unless it says its own ``at``: a moment of its own, so
that the line before a draw's is the one the record anchors it to (``anchors.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

from speakerbot.engine import chain
from speakerbot.engine.luck import commitment_of, derive_index

AT = "2026-11-27T00:00:00+00:00"
"""When the record's first line is recorded; each line after it, a minute after the last."""
SEED_1 = bytes(range(32))
SEED_2 = bytes(range(100, 132))
COMMITMENT_1 = commitment_of(SEED_1)
COMMITMENT_2 = commitment_of(SEED_2)

ADDRESSES = ("host@camford.example", "alice@camford.example", "bob@camford.example",
             "carol@camford.example")
IDS = ("Host", "Alice", "Bob", "Carol")
FACES = [str(face) for face in range(1, 7)]

Shown = Callable[[Mapping[str, Any]], Mapping[str, Any]]


class RecordBuilder:
    """A public record being written: lines linked one after the other."""

    def __init__(self, shown: Shown = dict) -> None:
        """Start an empty record; ``shown`` writes each event as its line will show it."""
        self.lines: list[dict[str, Any]] = []
        self.shown = shown

    def add(self, data: Mapping[str, Any]) -> dict[str, Any]:
        """Link an event as the next line, at a moment of its own unless it says its ``at``."""
        prev = self.lines[-1]["hash"] if self.lines else chain.GENESIS
        at = (datetime.fromisoformat(AT) + timedelta(minutes=len(self.lines))).isoformat()
        line = chain.link(len(self.lines) + 1, self.shown({"at": at, **data}), prev)
        self.lines.append(line)
        return line

    def draw(self, label: str, candidates: Sequence[str], seed: bytes) -> dict[str, Any]:
        """Return a draw made with ``seed`` on a line of a moment of its own, to come next.

        The record anchors it to the last line so far.
        """
        return made(seed, self.lines[-1], label, candidates)

    def opening(self, names: Sequence[str] = ADDRESSES,
                commitment: str = COMMITMENT_1) -> None:
        """Lines 1-6: the game (committing ``commitment``), three players, proposal 301 closed.

        ``names`` are the host's and the players' as the lines show them.
        """
        self.add({"type": "GameStarted", "host": names[0], "host_name": "Host",
                  "named_judge": "", "named_judge_name": "", "record_version": 1,
                  "commitment": commitment})
        for name, address in zip(IDS[1:], names[1:], strict=True):
            self.add({"type": "PlayerJoined", "address": address, "name": name})
        self.add({"type": "ProposalSubmitted", "number": 301, "author": names[1]})
        self.add({"type": "VoteClosed", "proposal": 301})

    def die(self, draw: Mapping[str, Any], player: str = ADDRESSES[1]) -> None:
        """Add ``player``'s throw of a six-sided die, its face the one ``draw`` gives."""
        self.add({"type": "DieThrown", "player": player, "sides": 6,
                  "value": int(draw["outcome"]), "draw": draw})


def made(seed: bytes, anchor: Mapping[str, Any], label: str,
         candidates: Sequence[str]) -> dict[str, Any]:
    """Return a draw as the derivation makes it from ``seed``, anchored to the line ``anchor``."""
    index = derive_index(seed, anchor["hash"], label, len(candidates))
    return {"label": label, "candidates": list(candidates), "outcome": candidates[index],
            "after": anchor["seq"], "commitment": commitment_of(seed)}


def game(names: Sequence[str] = ADDRESSES, shown: Shown = dict) -> list[dict[str, Any]]:
    """Return a record with a die and a Judge drawn with seed 1, revealed, then a new Speaker.

    Lines: 1 GameStarted (committing seed 1), 2-4 PlayerJoined, 5 ProposalSubmitted,
    6 VoteClosed (proposal 301), 7 DieThrown (die:301), 8 JudgeAssigned (judge:cfj-1),
    9 SeedRevealed (seed 1, committing seed 2), 10 NewGameBegun (speaker:game-2, with seed
    2, awaiting its reveal). Each line is a moment of its own, so each draw is anchored
    to the line before its own.
    """
    record = RecordBuilder(shown)
    record.opening(names)
    record.die(record.draw("die:301", FACES, SEED_1), names[1])
    judge = record.draw("judge:cfj-1", list(names[2:]), SEED_1)
    record.add({"type": "JudgeAssigned", "cfj": 1, "judge": judge["outcome"],
                "how": "a random Voter", "deadline": None, "drawn_from": list(names[2:]),
                "draw": judge})
    record.add({"type": "SeedRevealed", "commitment": COMMITMENT_1, "seed": SEED_1.hex(),
                "next_commitment": COMMITMENT_2, "reason": "a voting period closed"})
    speaker = record.draw("speaker:game-2", list(names[1:]), SEED_2)
    record.add({"type": "NewGameBegun", "game_number": 2, "new_speaker": speaker["outcome"],
                "old_speaker": names[0], "drawn_from": list(names[1:]), "score_percent": 0,
                "draw": speaker})
    return record.lines


def line_of(lines: Sequence[Mapping[str, Any]], kind: str) -> int:
    """Return the index in ``lines`` of the first line of type ``kind``."""
    return next(index for index, line in enumerate(lines) if line["type"] == kind)
