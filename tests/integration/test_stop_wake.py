"""A stop that lands while the loop begins a pass stops it at once, not after its sleep.

``stop_event_wakes`` sets the stop and then the loop's wake. Should both land just after
the loop looked at the stop, and just before it cleared its wake for the pass, the pass
must not wipe that wake: the loop would then sleep until its next wake-up (the IMAP poll,
a deadline: here an hour) before it saw the stop.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from tests.support.loops import wall_clock_loop
from tests.support.patience import patience
from tests.support.smtp_sink import SmtpSink

pytestmark = pytest.mark.integration


class _StopAtFirstClear(threading.Event):
    """The loop's wake: the stop's signal arrives just as the loop first clears it."""

    def __init__(self) -> None:
        super().__init__()
        self.trigger: Any = None

    def clear(self) -> None:
        trigger, self.trigger = self.trigger, None
        if trigger is not None:
            trigger()  # stop set, then this wake set: as a SIGTERM's handler does
        super().clear()


def test_a_stop_as_the_pass_begins_is_not_slept_through(tmp_path: Path,
                                                        smtp_sink: SmtpSink) -> None:
    daemon = wall_clock_loop(tmp_path, smtp_sink).daemon
    stop = threading.Event()
    wake = _StopAtFirstClear()
    daemon.wake = wake
    wake.trigger = daemon.stop_event_wakes(stop)
    thread = threading.Thread(target=daemon.serve, args=(stop,), daemon=True)
    thread.start()
    thread.join(patience(10))
    assert not thread.is_alive(), "the loop slept through its stop"
    assert stop.is_set() and wake.trigger is None
