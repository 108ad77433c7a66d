"""A pass that mail alone woke lingers first, so that a burst is taken in few passes.

Each pass costs some twenty statements besides its messages' own; a game among fifty took a
burst in passes of five messages. A pass for mail waits ``Daemon.linger`` seconds before it
begins, after a quiet spell as under a burst, and takes all that came meanwhile. The tests
give the loop a long linger, so that what they show holds on a busy machine: mail within it
is taken together, and neither a stop nor a whole cycle's wake-up is held back by it.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from speakerbot.config.records import LmtpConfig
from speakerbot.entrypoints.daemon import LINGER, Daemon
from speakerbot.service import Processed
from tests.support.loops import WallClockLoop, wall_clock_loop
from tests.support.mailgame import ALICE, BOB, CAROL, raw_mail
from tests.support.patience import patience
from tests.support.smtp_sink import SmtpSink

pytestmark = pytest.mark.integration


def test_only_a_game_that_takes_mail_by_lmtp_lingers(loop: WallClockLoop) -> None:
    """IMAP's batches are processed on the watcher's thread: the loop's pass only sends."""
    settings = loop.daemon.settings
    assert settings.lmtp is None and loop.daemon.linger == 0.0
    by_lmtp = dataclasses.replace(settings, lmtp=LmtpConfig("127.0.0.1", 0))
    assert Daemon(by_lmtp, loop.service, own_lmtp=False).linger == LINGER


class Passes:
    """A loop's passes for mail (when each began and ended, what it processed) and cycles."""

    def __init__(self, loop: WallClockLoop) -> None:
        self.runs: list[tuple[float, float, list[Processed]]] = []
        self.cycles = 0
        self.cycle_ended = 0.0  # when (monotonic) the last whole cycle ended
        self.ended = threading.Condition()
        self._process = loop.service.process_pending
        self._take_mail, self._cycle = loop.daemon.take_mail, loop.daemon.cycle
        loop.daemon.take_mail = self._timed  # type: ignore[method-assign]
        loop.daemon.cycle = self._whole  # type: ignore[method-assign]
        loop.service.process_pending = self._processing  # type: ignore[method-assign]
        self.processed: list[Processed] = []  # by the pass or cycle under way, or the last

    def _processing(self) -> list[Processed]:
        done = self._process()
        self.processed += done
        return done

    def _timed(self) -> None:
        began, self.processed = time.monotonic(), []
        self._take_mail()
        with self.ended:
            self.runs.append((began, time.monotonic(), self.processed))
            self.ended.notify_all()

    def _whole(self) -> None:
        self.processed = []
        self._cycle()
        with self.ended:
            self.cycles += 1
            self.cycle_ended = time.monotonic()
            self.ended.notify_all()

    def wait(self, count: int, *, cycles: int = 0) -> None:
        with self.ended:
            assert self.ended.wait_for(
                lambda: len(self.runs) >= count and self.cycles >= cycles, patience(20))


class Stop(threading.Event):
    """The loop's stop event, which says when the loop waits on it (only a linger does)."""

    def __init__(self) -> None:
        super().__init__()
        self.lingering = threading.Event()

    def wait(self, timeout: float | None = None) -> bool:
        self.lingering.set()
        return super().wait(timeout)


@pytest.fixture
def loop(tmp_path: Path, smtp_sink: SmtpSink) -> Iterator[WallClockLoop]:
    made = wall_clock_loop(tmp_path, smtp_sink)
    # The loop's look at the store for other processes' writes, out of the tests' way: it
    # would run a whole cycle for mail it sees stored before its wake-up is set.
    made.daemon.watch_every = 3600.0
    yield made
    made.game.close()


def _mail(loop: WallClockLoop, sender: str) -> None:
    loop.daemon.receive_lmtp(raw_mail(sender, "status", "STATUS\n"), datetime.now(UTC))


def test_mail_that_comes_in_while_a_pass_lingers_is_taken_in_that_one_pass(
        loop: WallClockLoop) -> None:
    daemon = loop.daemon
    daemon.linger = patience(1)
    passes = Passes(loop)
    stop = threading.Event()
    thread = loop.start(stop)
    try:
        passes.wait(0, cycles=1)  # the loop's first cycle
        # A quiet spell longer than the linger: time must pass here, nothing else shows it.
        while time.monotonic() - passes.cycle_ended <= daemon.linger:
            time.sleep(0.05)
        # After it, the pass Alice's mail wakes waits the linger too, and takes Bob's.
        heard = time.monotonic()
        _mail(loop, ALICE)
        _mail(loop, BOB)
        passes.wait(1)
        began, first_ended, processed = passes.runs[0]
        assert began - heard >= daemon.linger
        assert len(processed) == 2, processed  # Alice's and Bob's, together
        # Under a burst: mail that comes while a pass runs or just after is taken together.
        _mail(loop, CAROL)
        _mail(loop, ALICE)
        passes.wait(2)
        began, _, processed = passes.runs[1]
        assert began - first_ended >= daemon.linger
        assert len(processed) == 2, processed  # Carol's and Alice's second, together
    finally:
        loop.halt(stop, thread)
    assert all(not run[2] for run in passes.runs[2:])


def _lingering_for_bob(loop: WallClockLoop, passes: Passes, stop: Stop) -> None:
    """Alice's pass at once; then Bob's mail, for which the loop lingers an hour."""
    _mail(loop, ALICE)
    passes.wait(1)
    loop.daemon.linger = 3600.0
    stop.lingering.clear()
    _mail(loop, BOB)
    assert stop.lingering.wait(patience(20)), "the loop never lingered for Bob's mail"


def test_a_stop_is_not_held_back_by_a_linger(loop: WallClockLoop) -> None:
    loop.daemon.linger = 0.0
    passes, stop = Passes(loop), Stop()
    thread = loop.start(stop)
    _lingering_for_bob(loop, passes, stop)
    loop.halt(stop, thread)
    assert len(passes.runs) == 1  # Bob's pass never began


def test_a_whole_cycle_s_wake_up_is_not_held_back_by_a_linger(loop: WallClockLoop) -> None:
    loop.daemon.linger = 0.0
    passes, stop = Passes(loop), Stop()
    thread = loop.start(stop)
    try:
        passes.wait(0, cycles=1)  # the loop's first cycle
        _lingering_for_bob(loop, passes, stop)
        loop.daemon.timed_wake()  # as a deadline's scheduled wake-up does
        passes.wait(1, cycles=2)
        assert len(passes.runs) == 1  # the whole cycle took Bob's mail in
        assert [done.status for done in passes.processed] == ["processed"]
    finally:
        loop.halt(stop, thread)
