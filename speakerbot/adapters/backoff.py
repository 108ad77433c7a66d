"""The one retry backoff: exponential growth to a cap, with random jitter.

Retry number ``attempt`` (counting from 1) has the ceiling
``min(cap, base * 2**(attempt - 1))``. The delay is drawn uniformly from a band of
that ceiling, given as fractions of it: the outbox spreads its retries over the
whole range (``FULL_JITTER``, so that many messages held back by one outage do not
come back at once); the IMAP reconnect waits at least the ceiling and up to a
quarter more (``QUARTER_MORE``, so that its delays still grow visibly).
"""

from __future__ import annotations

import random

__all__ = ["FULL_JITTER", "QUARTER_MORE", "Jitter", "backoff", "ceiling"]

Jitter = tuple[float, float]
"""The band a delay is drawn from, as (low, high) fractions of the ceiling."""

FULL_JITTER: Jitter = (0.0, 1.0)
"""Anywhere from nothing to the ceiling."""

QUARTER_MORE: Jitter = (1.0, 1.25)
"""The ceiling, plus up to a quarter more."""

# Bounding the exponent keeps the float from overflowing for absurd attempt numbers.
_MAX_DOUBLINGS = 64


def ceiling(attempt: int, *, base: float, cap: float) -> float:
    """Return ``min(cap, base * 2**(attempt - 1))``; ``attempt`` counts from 1."""
    if attempt < 1:
        raise ValueError(f"attempt counts from 1, not {attempt}")
    return min(cap, base * 2.0 ** min(attempt - 1, _MAX_DOUBLINGS))


def backoff(
    attempt: int,
    *,
    base: float = 30.0,
    cap: float = 3600.0,
    rng: random.Random,
    jitter: Jitter = FULL_JITTER,
) -> float:
    """Seconds to wait before retry number ``attempt`` (1-based).

    Drawn uniformly between ``jitter[0]`` and ``jitter[1]`` times the ceiling
    (see :func:`ceiling`); by default between 0 and the ceiling (full jitter).
    """
    top = ceiling(attempt, base=base, cap=cap)
    low, high = jitter
    return rng.uniform(low * top, high * top)
