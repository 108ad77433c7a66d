"""Crash points, test only: the daemon kills itself, hard, at a named step.

The entry point reads them from the environment (``SPEAKERBOT_CRASHPOINT``,
``SPEAKERBOT_CRASHPOINT_MATCH``, ``SPEAKERBOT_CRASHPOINT_MARKER``; see docs/operations.md)
and hands them to the service: nothing here reads the environment. ``point`` is one of
``CRASHPOINTS``; ``marker``, a file path, makes the crash happen once (the file is written
just before dying, and a restarted daemon sees it and goes on); ``match``, for a point that
names what it is doing (the subject of the message being processed), dies only when that
contains the text (a poison message, which kills every process that reads it). With no
point, nothing happens.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

CRASHPOINTS = ("after-fetch", "after-commit", "after-store", "after-smtp", "processing")


@dataclass(frozen=True)
class CrashPoints:
    """Where a crash test asked the daemon to die (none by default)."""

    point: str | None = None
    match: str | None = None
    marker: str | None = None

    @classmethod
    def from_variables(cls, variables: Mapping[str, str]) -> CrashPoints:
        """Read the test-only ``SPEAKERBOT_CRASHPOINT*`` variables from ``variables``."""
        return cls(variables.get("SPEAKERBOT_CRASHPOINT"),
                   variables.get("SPEAKERBOT_CRASHPOINT_MATCH"),
                   variables.get("SPEAKERBOT_CRASHPOINT_MARKER"))

    def reach(self, name: str, doing: str = "") -> None:
        """Die with SIGKILL here if a crash test asked for this point (and has not had it yet)."""
        if self.point != name or (self.match and self.match not in doing):
            return
        if self.marker:
            if Path(self.marker).exists():
                return
            Path(self.marker).write_text(name)
        os.kill(os.getpid(), signal.SIGKILL)


NO_CRASHES = CrashPoints()
"""What every caller but a crash test runs with."""
