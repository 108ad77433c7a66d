r"""Where the game's draws come from, and how a provable draw is computed from its seed.

Every random choice the game makes (a die, a Judge, the new Speaker among winners) is drawn
through a :class:`RandomSource`. The one the service passes in, :class:`SeededDraws`, does
not sample: it computes each draw from a secret seed whose SHA-256 the public record holds
(its *commitment*) and from public facts fixed before the draw, so that once the seed is
revealed anyone can compute the draw again (``docs/verifying.md``):

- the seed is 32 bytes, written as 64 lowercase hex digits; its commitment is the SHA-256
  of those 32 bytes, in hex;
- the *anchor* is the ``hash`` of the line of the public record the record itself gives
  the draw: the last line recorded before the draw's moment (``anchors.py``; its number is
  the draw's ``after``), so that nothing decided at that moment changes a draw, and a
  transaction tried again after a crash draws exactly as the first attempt would have;
- for a draw among ``n`` candidates labelled ``label``, the HMAC-SHA256 keyed by the seed of
  ``f"{anchor}\n{label}\n{i}"`` (UTF-8) is read as a 256-bit big-endian number, for
  ``i = 0, 1, 2...`` until one falls below the largest multiple of ``n`` not above 2**256;
  that number modulo ``n`` is the index of the outcome among the candidates, in the order
  the draw lists them. The rejection makes every outcome exactly equally likely.

The engine finds the anchor (it folds the record into its state) and hands it to the
source with each draw. A source that cannot prove its draws (a scripted one in tests, or a
game recorded before draws were provable) says so with an ``after`` of 0; its draws carry
no proof.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from speakerbot.engine.draw_events import RecordLine

SEED_BYTES = 32
"""How long a seed is, in bytes."""

_SPACE = 1 << 256


class RandomSource(Protocol):
    """Where draws come from: an index among ``count`` candidates, and its proof if any."""

    @property
    def after(self) -> int:
        """The public record's last line when the transaction began (0: nothing provable)."""
        ...

    def holds(self, commitment: str) -> bool:
        """Tell whether this source holds the seed of ``commitment`` (can draw with it)."""
        ...

    def pick(self, label: str, count: int, commitment: str, anchor: RecordLine) -> int:
        """Return the index drawn among ``count`` candidates.

        With the seed of ``commitment`` if held, from the hash of ``anchor`` (the line the
        record anchors the draw to), else by chance (a draw that cannot be proved).
        """
        ...

    def reveal(self, commitment: str) -> str:
        """Return the seed of ``commitment``, in hex, to be published."""
        ...

    def commit(self, following: str) -> str:
        """Make the secret seed that follows ``following``; return its commitment.

        ``following``: the commitment of the seed it replaces, or the game's id for a
        game's first. The seed is kept, not published. The same ``following`` gives the
        same seed, so that a transaction tried again (after a crash) commits the same seed
        and draws the same outcomes: a draw cannot be had again by pulling the plug.
        """
        ...


class _NoRandomness:
    """The default source: a move that needs a draw without a source is a caller's bug."""

    after = 0

    def holds(self, commitment: str) -> bool:
        return False

    def pick(self, label: str, count: int, commitment: str, anchor: RecordLine) -> int:
        raise RuntimeError("this move needs randomness: pass a RandomSource to apply or tick")

    def reveal(self, commitment: str) -> str:
        raise RuntimeError("no seed to reveal without a RandomSource")

    def commit(self, following: str) -> str:
        raise RuntimeError("no seed to commit without a RandomSource")


NO_RANDOMNESS: RandomSource = _NoRandomness()


def commitment_of(seed: bytes) -> str:
    """Return a seed's commitment: the SHA-256 of its bytes, in hex."""
    return hashlib.sha256(seed).hexdigest()


def derive_index(seed: bytes, anchor: str, label: str, count: int) -> int:
    """Return the index a provable draw of ``label`` among ``count`` candidates gives.

    ``anchor``: the hash of the public record's line the draw comes after. Rejection
    sampling over 256-bit HMAC outputs: no candidate is favoured by a remainder.
    """
    if count < 1:
        raise ValueError("a draw needs at least one candidate")
    limit = _SPACE - _SPACE % count
    attempt = 0
    while True:
        message = f"{anchor}\n{label}\n{attempt}".encode()
        value = int.from_bytes(hmac.new(seed, message, hashlib.sha256).digest(), "big")
        if value < limit:
            return value % count
        attempt += 1


def _no_seed(following: str) -> bytes:
    raise RuntimeError("a source by chance commits no seed")


@dataclass
class SeededDraws:
    """The service's source: draws computed from the game's seeds, anchored to the record.

    ``after`` and ``anchor``: the number and hash of the public record's last line when the
    transaction began, as the store holds it (0: the record is empty, nothing is proved);
    a draw anchored to that line must name the same hash. ``seed_of`` finds a seed the
    game keeps by its commitment (None: lost or never kept); ``fresh`` makes the secret
    seed that follows its argument (see ``RandomSource.commit``); ``chance`` draws an index
    below its argument, for a draw no held seed can prove (a game recorded before seeds,
    until its first seed is committed). The seeds committed here are kept in ``made``
    until the caller stores them with the events that commit them.
    """

    after: int
    anchor: str
    seed_of: Callable[[str], bytes | None]
    fresh: Callable[[str], bytes]
    chance: Callable[[int], int]
    made: dict[str, bytes] = field(default_factory=dict, repr=False)  # secret until revealed

    @classmethod
    def by_chance(cls, chance: Callable[[int], int]) -> SeededDraws:
        """Return a source that proves nothing: every draw by ``chance`` (for simulations).

        A game played with it records no seed, like a game recorded before seeds.
        """
        return cls(0, "", lambda _: None, _no_seed, chance)

    def _seed(self, commitment: str) -> bytes | None:
        if not commitment:
            return None
        return self.made.get(commitment) or self.seed_of(commitment)

    def holds(self, commitment: str) -> bool:
        """Tell whether the seed of ``commitment`` is at hand."""
        return self.after > 0 and self._seed(commitment) is not None

    def pick(self, label: str, count: int, commitment: str, anchor: RecordLine) -> int:
        """Compute the draw from the seed of ``commitment`` and ``anchor``'s hash.

        By chance if no seed is held.
        """
        if count < 1:
            raise ValueError("a draw needs at least one candidate")
        seed = self._seed(commitment) if self.after > 0 else None
        if seed is None:
            return self.chance(count)
        if anchor.seq == self.after and anchor.hash != self.anchor:
            # The engine folds the record's hashes itself; a draw from hashes the store
            # does not hold would never verify, so stop rather than record it.
            raise RuntimeError(f"the engine's hash of public line {anchor.seq} is not the "
                               "store's: the state does not fold the record it was read from")
        return derive_index(seed, anchor.hash, label, count)

    def reveal(self, commitment: str) -> str:
        """Return the held seed of ``commitment`` in hex."""
        seed = self._seed(commitment)
        if seed is None:
            raise RuntimeError("no seed is held for this commitment")
        return seed.hex()

    def commit(self, following: str) -> str:
        """Make the seed following ``following``, keep it in ``made``; return its commitment."""
        seed = self.fresh(following)
        if len(seed) != SEED_BYTES:
            raise ValueError(f"a seed is {SEED_BYTES} bytes")
        commitment = commitment_of(seed)
        self.made[commitment] = seed
        return commitment
