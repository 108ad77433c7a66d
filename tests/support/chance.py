"""A random source that samples and proves nothing, for tests that drive the engine directly."""

from __future__ import annotations

import random


class ByChance(random.Random):
    """``random.Random`` as the engine's source: a game played with it records no seed.

    Its draws are as unverifiable as those of a game recorded before seeds; the tests that
    use it are about something other than the proof of a draw.
    """

    after = 0

    def holds(self, commitment: str) -> bool:
        """Hold no seed."""
        return False

    def pick(self, label: str, count: int, commitment: str) -> int:
        """Sample an index below ``count``."""
        return self.randrange(count)

    def reveal(self, commitment: str) -> str:
        """Hold no seed to reveal (never asked: a game played by chance commits none)."""
        raise RuntimeError("a source by chance holds no seed")

    def commit(self, following: str) -> str:
        """Commit no seed (never asked, as above)."""
        raise RuntimeError("a source by chance commits no seed")
