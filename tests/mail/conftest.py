"""Shared set-up of the mail tests: the checkout on sys.path, and the parse-time report."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

PARSE_TIMES = pytest.StashKey[list[float]]()
LIMIT_SECONDS = 2.0  # per parse; the hostile inputs this guards against took 24 s before fixes


def cpu_seconds() -> float:
    """Return this process's CPU time, the clock of the parse-time bounds.

    What a parse costs is its own work, not how busy the machine is: the suite runs in
    several workers, beside daemons of its own.
    """
    return time.process_time()


PARSE_FIELDS = [
    "sender",
    "subject",
    "message_id",
    "skipped",
    "commands",
    "errors",
    "ignored",
    "authentication",
]
"""The fields of what ``speakerbot parse`` prints, in the order it prints them."""


@pytest.fixture(scope="session")
def parse_times(request: pytest.FixtureRequest) -> list[float]:
    """Seconds taken by each timed parse; reported at the end of the run."""
    return request.config.stash.setdefault(PARSE_TIMES, [])


def pytest_terminal_summary(
    terminalreporter: pytest.TerminalReporter, config: pytest.Config
) -> None:
    """Print how long the slowest parse of the property tests took."""
    times = config.stash.get(PARSE_TIMES, [])
    if times:
        terminalreporter.write_line(
            f"mail property tests: {len(times)} timed parses, slowest {max(times) * 1000:.1f} ms, "
            f"mean {sum(times) / len(times) * 1000:.2f} ms "
            f"(limit {LIMIT_SECONDS * 1000:.0f} ms each)"
        )
