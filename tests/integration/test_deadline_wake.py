"""A deadline wakes the loop when it can be settled: with LMTP, once its grace is over.

The cycle settles only what fell due ``LMTP_GRACE`` ago (mail stamped before the close may
still be landing), so the scheduler's wake-up for a deadline is set that much after it: the
vote closes at the first wake, not after passes that find nothing to settle.
"""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path

import pytest

from speakerbot.entrypoints.daemon import LMTP_GRACE
from tests.support.loops import wall_clock_loop
from tests.support.mailgame import ALICE, raw_mail
from tests.support.patience import patience
from tests.support.smtp_sink import SmtpSink

pytestmark = pytest.mark.integration


@pytest.mark.parametrize("lmtp", [True, False])
def test_the_deadline_wakes_the_loop_after_the_lmtp_grace(tmp_path: Path, smtp_sink: SmtpSink,
                                                           lmtp: bool) -> None:
    loop = wall_clock_loop(tmp_path, smtp_sink)
    game, service, daemon = loop.game, loop.service, loop.daemon
    now = partial(datetime.now, UTC)
    daemon.lmtp_grace = lmtp
    stop = threading.Event()
    thread = threading.Thread(target=daemon.serve, args=(stop,))
    thread.start()
    try:
        assert daemon.ready.wait(patience(10))
        daemon.receive_lmtp(raw_mail(ALICE, "PROPOSE: Tea", "Tea at four.\n", date=now()),
                            now())
        smtp_sink.wait_for(lambda m: b"Proposal 301: Tea" in m.data, timeout=patience(20))
        closes_at = service.state().proposals[301].closes_at
        assert closes_at is not None
        wanted = closes_at + (LMTP_GRACE if lmtp else timedelta(0))
        deadline = time.monotonic() + patience(10)
        while True:  # the loop hands its wake-ups over right after the pass
            assert daemon.scheduler is not None
            job = daemon.scheduler.get_job("deadline")
            if job is not None and job.next_run_time == wanted:
                break
            assert time.monotonic() < deadline, job and job.next_run_time
            time.sleep(0.01)
    finally:
        stop.set()
        daemon.wake.set()
        thread.join(patience(20))
        game.close()
