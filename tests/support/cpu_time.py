"""How long work takes in CPU time of this thread: the clock of the tests that bound it.

Wall time counts whatever else the machine runs: at a load of 7 on 2 cores, a parse that
takes 0.1 s alone took over a second, and two tests of the mail language's reader failed.
A thread's CPU time counts its own work, and the least of a few runs leaves out the
disturbances (a collection, a cache emptied by a neighbour) that still add to it.

A bound on seconds still says nothing of how time grows, so the tests that guard against a
quadratic reader also compare sizes: four times the input takes about four times as long
when reading is linear, and sixteen times when it is quadratic.
"""

from __future__ import annotations

import time
from collections.abc import Callable


def cpu_seconds(work: Callable[[], object], *, runs: int = 3, enough: float = 0.0) -> float:
    """Return the least CPU time of this thread that ``work`` took in up to ``runs`` runs.

    Runs stop early once one takes less than ``enough`` seconds: a test that bounds the
    time needs no more runs once one is under its bound.
    """
    best = float("inf")
    for _ in range(runs):
        started = time.thread_time()
        work()
        best = min(best, time.thread_time() - started)
        if best < enough:
            break
    return best


def growth(small: Callable[[], object], large: Callable[[], object], *, runs: int = 3,
           enough: float = 0.0) -> float:
    """Return how many times longer ``large`` takes than ``small``, each the least of its runs.

    Both are run in turn, up to ``runs`` times each, stopping once the ratio of the least
    times is under ``enough``.
    """
    least_small = least_large = float("inf")
    for _ in range(runs):
        least_small = min(least_small, cpu_seconds(small, runs=1))
        least_large = min(least_large, cpu_seconds(large, runs=1))
        if least_large < enough * least_small:
            break
    return least_large / max(least_small, 1e-6)
