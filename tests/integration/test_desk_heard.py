"""A player added from the desk is announced, however and whenever the loop hears of the write.

``speakerbot player add`` records the addition and leaves its announcement to the daemon's
next tick (``service/additions.py``). The loop hears of another process's writes by its
change mark, which it reads after each pass: a desk commit that lands before that read is
in the mark, so the mark never differs from it again. Before additions waiting were a
wake-up of their own, such a commit went unannounced (the daemon silent for its idle wait,
five minutes) when it landed between a whole cycle's tick and its look, or before a pass
made for mail alone (mail, or a worker's notice of the write, woke the loop), which does
not tick. A full run of the suite once saw the first: ``test_desk.py`` waited 90 s in vain.
Mail set aside by another worker's listener is the same kind of write: only a tick tells the
host of it, and the notice of it is a wake-up too.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from speakerbot.adapters.store import InboundItem, Intake, Store
from speakerbot.engine import commands as c
from speakerbot.service import GameService
from tests.integration.game_harness import body_of, subject_of
from tests.support.loops import WallClockLoop, wall_clock_loop
from tests.support.mailgame import ALICE, DAVE, SPEAKER, raw_mail
from tests.support.patience import patience
from tests.support.smtp_sink import SmtpSink

pytestmark = pytest.mark.integration

NEVER_POLLS = 3600.0
"""The loop's look at the store for other processes' writes, put out of the test's reach:
each test shows the write heard by a wake-up, not by the poll that follows a change."""


@pytest.fixture
def loop(tmp_path: Path, smtp_sink: SmtpSink) -> Iterator[WallClockLoop]:
    made = wall_clock_loop(tmp_path, smtp_sink)
    made.daemon.watch_every = NEVER_POLLS
    yield made
    made.game.close()


def _add_dave_from_the_desk(loop: WallClockLoop) -> None:
    """What ``speakerbot player add`` does: its own process, store and transaction."""
    settings = loop.game.settings
    desk = GameService(Store(settings.database.url), settings, rng=random.Random(2),
                       clock=lambda: datetime.now(UTC))
    try:
        desk.speaker_command(c.AddPlayer(SPEAKER, DAVE, "Dave"))
    finally:
        desk.close()


def _looks(loop: WallClockLoop, before: Callable[[int], None]) -> threading.Event:
    """Make ``before(n)`` run as the loop's n-th look begins; the event: the first ended."""
    look, count, looked = loop.service.look, iter(range(1, 1_000_000)), threading.Event()

    def looking():  # type: ignore[no-untyped-def]
        before(next(count))
        seen = look()
        looked.set()
        return seen

    loop.service.look = looking  # type: ignore[method-assign]
    return looked


def test_a_player_added_just_before_the_loop_looks_is_announced(
        loop: WallClockLoop, smtp_sink: SmtpSink) -> None:
    # The first look follows the first cycle, whose tick found no addition to announce.
    _looks(loop, lambda n: _add_dave_from_the_desk(loop) if n == 1 else None)
    stop = threading.Event()
    thread = loop.start(stop)
    try:
        welcome = smtp_sink.wait_for(lambda m: DAVE in m.rcpt_tos, timeout=patience(10))
        assert "Dave" in body_of(welcome)
    finally:
        loop.halt(stop, thread)


@pytest.mark.parametrize("woken_by", ["mail", "a notice"])
def test_a_player_added_while_the_loop_sleeps_is_announced_after_a_pass_for_mail(
        loop: WallClockLoop, smtp_sink: SmtpSink, woken_by: str) -> None:
    looked = _looks(loop, lambda n: None)
    stop = threading.Event()
    thread = loop.start(stop)
    try:
        assert looked.wait(patience(10)), "the loop never looked at the store"
        _add_dave_from_the_desk(loop)
        if woken_by == "mail":
            # Mail alone woke the loop: its pass takes mail in and sends, and does not tick.
            loop.daemon.receive_lmtp(raw_mail(ALICE, "status", "STATUS\n"), datetime.now(UTC))
        else:
            # What a worker's listener does when it hears of another process's write
            # (``hosting.Host._changed``): wake the loop, as mail does.
            loop.daemon.wake.set()
        welcome = smtp_sink.wait_for(lambda m: DAVE in m.rcpt_tos, timeout=patience(10))
        assert "Dave" in body_of(welcome)
    finally:
        loop.halt(stop, thread)


def test_mail_set_aside_by_another_process_is_told_to_the_host_after_a_pass_for_mail(
        loop: WallClockLoop, smtp_sink: SmtpSink) -> None:
    looked = _looks(loop, lambda n: None)
    stop = threading.Event()
    thread = loop.start(stop)
    try:
        assert looked.wait(patience(10)), "the loop never looked at the store"
        # Another worker's listener could not read a message, and stored it set aside.
        with Store(loop.game.settings.database.url) as other:
            other.store_inbound_many([InboundItem(
                b"Subject: garbled\r\n\r\n?\r\n", datetime.now(UTC), "lmtp", None, None,
                Intake(), set_aside="intake: unreadable")])
        loop.daemon.wake.set()  # its notice (``hosting.Host._changed``)
        notice = smtp_sink.wait_for(lambda m: "A message was set aside" in subject_of(m),
                                    timeout=patience(10))
        assert notice.rcpt_tos == (SPEAKER,)
    finally:
        loop.halt(stop, thread)
