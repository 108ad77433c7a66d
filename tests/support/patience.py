"""How long the tests wait: one scale, ``SLOWDOWN``, for every wait, period and clock bound.

A test's figures (a reply within 30 s, a voting period of 4 s, a takeover within 20 s) are
written for a quiet machine; ``patience(seconds)`` is what a test waits or allows on this
one. ``SLOWDOWN`` is read once, when this module is first imported, from
``SPEAKERBOT_TEST_SLOWDOWN`` (a number, at least 1: ``1`` keeps the figures as written);
without it, it is measured: one plus the load average per CPU, and never under
``FLOOR`` (3), so that a 30 s wait becomes 90 s. A wait returns as soon as its event comes,
so a long ceiling costs nothing when the tests pass; only the periods a test waits out (a
voting period, a lease) take longer. The value measured is put in the environment, so that
pytest's workers and the processes the tests start use the one scale of the run.
"""

from __future__ import annotations

import math
import os
from collections.abc import MutableMapping

ENV = "SPEAKERBOT_TEST_SLOWDOWN"
FLOOR = 3.0
"""The measured scale's least value: CI runners share their CPUs with other jobs."""


def measured(load: float, cpus: int) -> float:
    """The scale for a machine with ``load`` (one-minute load average) over ``cpus`` CPUs."""
    return max(FLOOR, 1.0 + load / max(cpus, 1))


def parsed(text: str) -> float:
    """Read ``SPEAKERBOT_TEST_SLOWDOWN``; raise ``ValueError`` unless a finite number ≥ 1."""
    value = float(text)
    if not (math.isfinite(value) and value >= 1.0):
        raise ValueError(f"{ENV} must be a number of at least 1, not {text!r}")
    return value


def read_slowdown(environ: MutableMapping[str, str]) -> float:
    """Return the scale ``environ`` names, else measure it here and name it in ``environ``."""
    text = environ.get(ENV, "").strip()
    if text:
        return parsed(text)
    value = round(measured(os.getloadavg()[0], os.cpu_count() or 1), 2)
    environ[ENV] = f"{value:g}"
    return value


SLOWDOWN = read_slowdown(os.environ)
"""How much longer than on a quiet machine this run's tests wait and allow (at least 1)."""


def patience(seconds: float) -> float:
    """Return ``seconds``, a wait or bound written for a quiet machine, for this run."""
    return seconds * SLOWDOWN


def period(seconds: float) -> str:
    """Return a game period of ``seconds`` on a quiet machine, for this run, as config text.

    For the periods a test races (its steps must come before the period ends) and then
    waits out: a voting period, a turn, a reminder's lead. Whole seconds, rounded up.
    """
    return f"{math.ceil(patience(seconds))}s"
