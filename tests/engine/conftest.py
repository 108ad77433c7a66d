"""Every game a test plays must replay exactly from its record (and through JSON)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.engine import harness


@pytest.fixture(autouse=True)
def replay_every_game() -> Iterator[None]:
    harness.ALL_GAMES.clear()
    yield
    for game in harness.ALL_GAMES:
        game.check_replay()
    harness.ALL_GAMES.clear()
