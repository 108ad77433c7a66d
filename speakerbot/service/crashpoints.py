"""Crash points for the crash-safety tests: the daemon kills itself, hard, at a named step.

Set ``SPEAKERBOT_CRASHPOINT`` to one of ``CRASHPOINTS`` (and ``SPEAKERBOT_CRASHPOINT_MARKER``
to a file path, so that the crash happens once: the file is written just before dying and a
restarted daemon sees it and goes on). ``SPEAKERBOT_CRASHPOINT_MATCH``, for a point that
names what it is doing (the subject of the message being processed): die only when that
contains the text (a poison message, which kills every process that reads it). Without the
variable nothing happens.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path

CRASHPOINTS = ("after-fetch", "after-commit", "after-smtp", "processing")


def crashpoint(name: str, doing: str = "") -> None:
    """Die with SIGKILL here if a crash test asked for this point (and has not had it yet)."""
    point, match, marker = (os.environ.get(f"SPEAKERBOT_CRASHPOINT{suffix}")
                            for suffix in ("", "_MATCH", "_MARKER"))
    if point != name or (match and match not in doing):
        return
    if marker:
        if Path(marker).exists():
            return
        Path(marker).write_text(name)
    os.kill(os.getpid(), signal.SIGKILL)
