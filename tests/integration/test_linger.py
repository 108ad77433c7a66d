"""A pass for mail lingers after the game's last pass, so that a burst is taken in few passes.

Each pass costs some twenty statements besides its messages' own; a game among fifty took a
burst in passes of five messages. ``Daemon.linger`` seconds after a pass ended, the next pass
for mail takes all that came meanwhile. The tests give the loop a long linger, so that what
they show holds on a busy machine: mail within it is taken together, and a stop is not held.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from speakerbot.entrypoints.daemon import LINGER, linger_left
from speakerbot.service import Processed
from tests.support.loops import WallClockLoop, wall_clock_loop
from tests.support.mailgame import ALICE, BOB, CAROL, raw_mail
from tests.support.patience import patience
from tests.support.smtp_sink import SmtpSink

pytestmark = pytest.mark.integration


@pytest.mark.parametrize(("passed", "now", "left"), [
    (10.0, 10.0, LINGER),  # a pass just ended: the whole linger
    (10.0, 10.0 + LINGER / 4, LINGER * 3 / 4),  # a part of it gone
    (10.0, 10.0 + LINGER, 0.0),  # all of it gone
    (10.0, 500.0, 0.0),  # after a quiet spell: at once
    (float("-inf"), 1.0, 0.0),  # no pass yet
])
def test_what_is_left_of_the_linger(passed: float, now: float, left: float) -> None:
    assert linger_left(passed, now, LINGER) == pytest.approx(left)


class Passes:
    """Each pass for mail of a loop: when it began and ended, and what it processed."""

    def __init__(self, loop: WallClockLoop) -> None:
        self.runs: list[tuple[float, float, list[Processed]]] = []
        self.ended = threading.Condition()
        self._process = loop.service.process_pending
        self._take_mail = loop.daemon.take_mail
        loop.daemon.take_mail = self._timed  # type: ignore[method-assign]
        loop.service.process_pending = self._processing  # type: ignore[method-assign]
        self._processed: list[Processed] = []

    def _processing(self) -> list[Processed]:
        done = self._process()
        self._processed += done
        return done

    def _timed(self) -> None:
        began, self._processed = time.monotonic(), []
        self._take_mail()
        with self.ended:
            self.runs.append((began, time.monotonic(), self._processed))
            self.ended.notify_all()

    def wait(self, count: int) -> None:
        with self.ended:
            assert self.ended.wait_for(lambda: len(self.runs) >= count, patience(20))


@pytest.fixture
def loop(tmp_path: Path, smtp_sink: SmtpSink) -> Iterator[WallClockLoop]:
    made = wall_clock_loop(tmp_path, smtp_sink)
    yield made
    made.game.close()


def _mail(loop: WallClockLoop, sender: str) -> None:
    loop.daemon.receive_lmtp(raw_mail(sender, "status", "STATUS\n"), datetime.now(UTC))


def test_mail_that_comes_in_while_a_pass_lingers_is_taken_in_that_one_pass(
        loop: WallClockLoop) -> None:
    daemon = loop.daemon
    daemon.linger = 2.0
    passes = Passes(loop)
    stop = threading.Event()
    daemon.ready.clear()
    thread = threading.Thread(target=daemon.serve, args=(stop,), daemon=True)
    thread.start()
    try:
        assert daemon.ready.wait(patience(10))
        _mail(loop, ALICE)
        passes.wait(1)
        first_ended = passes.runs[0][1]
        _mail(loop, BOB)
        _mail(loop, CAROL)
        passes.wait(2)
        began, _, processed = passes.runs[1]
        assert began - first_ended >= daemon.linger - 0.05
        assert len(processed) == 2, processed  # Bob's and Carol's, together
    finally:
        stop.set()
        daemon.wake.set()
        thread.join(patience(20))
    assert [len(run[2]) for run in passes.runs[2:]] == [0] * len(passes.runs[2:])


def test_a_stop_is_not_held_back_by_a_linger(loop: WallClockLoop) -> None:
    daemon = loop.daemon
    daemon.linger, daemon.watch_every = 0.0, 3600.0
    passes = Passes(loop)
    stop = threading.Event()
    thread = threading.Thread(target=daemon.serve, args=(stop,), daemon=True)
    thread.start()
    assert daemon.ready.wait(patience(10))
    _mail(loop, ALICE)
    passes.wait(1)
    daemon.linger = 3600.0
    mailed = time.monotonic()
    _mail(loop, BOB)
    # The loop went round for Bob's mail, and lingers an hour for more (it looks at the
    # store no more than hourly: its beat now is the round's).
    deadline = time.monotonic() + patience(20)
    while (daemon.last_beat or 0) < mailed:
        assert time.monotonic() < deadline, "the loop never woke for the mail"
        time.sleep(0.01)
    stop.set()
    daemon.wake.set()
    thread.join(patience(20))
    assert not thread.is_alive()
    assert len(passes.runs) == 1  # Bob's pass never began
