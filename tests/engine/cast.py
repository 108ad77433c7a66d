"""The cast of the engine's scripted games: the Speaker, five players, the first moment, a day.

Kept apart from the harness (``tests.engine.harness``), which plays games with them, so that a
test names the people it plays with in one short import and the game's tools in another.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

T0 = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)
SPEAKER = "chuck@example.org"
ALICE, BOB, CAROL, DAVE, ERIN = (
    f"{n}@example.org" for n in ("alice", "bob", "carol", "dave", "erin")
)
NAMES = {ALICE: "Alice", BOB: "Bob", CAROL: "Carol", DAVE: "Dave", ERIN: "Erin"}
VOTERS = [ALICE, BOB, CAROL, DAVE, ERIN]  # the players of the nomicam games (nomicam())
DAY = timedelta(days=1)
