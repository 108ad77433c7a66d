"""Small public records with provable draws, written by hand for the check of draws.

A record is built line by line with ``chain.link``; each draw is computed as the service
computes it (``luck.derive_index``) from a known seed and the hash of a line before it,
so the tests know what a correct draw is without a game or a database.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from speakerbot.engine import chain
from speakerbot.engine.luck import commitment_of, derive_index

AT = "2026-11-27T00:00:00+00:00"
SEED_1 = bytes(range(32))
SEED_2 = bytes(range(100, 132))
COMMITMENT_1 = commitment_of(SEED_1)
COMMITMENT_2 = commitment_of(SEED_2)

ADDRESSES = ("host@camford.example", "alice@camford.example", "bob@camford.example",
             "carol@camford.example")
IDS = ("Host", "Alice", "Bob", "Carol")

Shown = Callable[[Mapping[str, Any]], Mapping[str, Any]]


class RecordBuilder:
    """A public record being written: lines linked one after the other."""

    def __init__(self, shown: Shown = dict) -> None:
        """Start an empty record; ``shown`` writes each event as its line will show it."""
        self.lines: list[dict[str, Any]] = []
        self.shown = shown

    def add(self, data: Mapping[str, Any]) -> dict[str, Any]:
        """Link an event (``at`` filled in) as the next line; return the line."""
        prev = self.lines[-1]["hash"] if self.lines else chain.GENESIS
        line = chain.link(len(self.lines) + 1, self.shown({"at": AT, **data}), prev)
        self.lines.append(line)
        return line

    def draw(self, label: str, candidates: Sequence[str], seed: bytes) -> dict[str, Any]:
        """Return a draw made now with ``seed``, anchored to the last line so far."""
        after = self.lines[-1]
        index = derive_index(seed, after["hash"], label, len(candidates))
        return {"label": label, "candidates": list(candidates), "outcome": candidates[index],
                "after": after["seq"], "commitment": commitment_of(seed)}


def game(names: Sequence[str] = ADDRESSES, shown: Shown = dict) -> list[dict[str, Any]]:
    """Return a record with a die and a Judge drawn with seed 1, revealed, then a new Speaker.

    Lines: 1 GameStarted (committing seed 1), 2-4 PlayerJoined, 5 ProposalSubmitted,
    6 VoteClosed (proposal 301), 7 DieThrown (die:301), 8 JudgeAssigned (judge:cfj-1),
    9 SeedRevealed (seed 1, committing seed 2), 10 NewGameBegun (speaker:game-2, with seed
    2, awaiting its reveal). Each draw is anchored to the line before its own.
    """
    record = RecordBuilder(shown)
    record.add({"type": "GameStarted", "host": names[0], "host_name": "Host",
                "named_judge": "", "named_judge_name": "", "record_version": 1,
                "commitment": COMMITMENT_1})
    for name, address in zip(IDS[1:], names[1:], strict=True):
        record.add({"type": "PlayerJoined", "address": address, "name": name})
    record.add({"type": "ProposalSubmitted", "number": 301, "author": names[1]})
    record.add({"type": "VoteClosed", "proposal": 301})
    die = record.draw("die:301", [str(face) for face in range(1, 7)], SEED_1)
    record.add({"type": "DieThrown", "player": names[1], "sides": 6,
                "value": int(die["outcome"]), "draw": die})
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
