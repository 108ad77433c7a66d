"""A game's loop served again (a worker that lost the game and took it back) keeps its deadlines.

The loop remembers which wake-ups it handed its scheduler; a new ``serve`` has a new
scheduler, so it must hand them all again, or a vote closes only at the safety net's wake.
"""

from __future__ import annotations

import dataclasses
import random
import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from speakerbot.config import SmtpConfig
from speakerbot.entrypoints.daemon import Daemon
from speakerbot.service import GameService
from tests.support.mailgame import ALICE, BOB, CAROL, MailGame, raw_mail
from tests.support.patience import patience, period
from tests.support.smtp_sink import SmtpSink

pytestmark = pytest.mark.integration


def _now() -> datetime:
    return datetime.now(UTC)


@pytest.fixture
def game(tmp_path: Path) -> Iterator[MailGame]:
    mail = MailGame(tmp_path, "nomicam", [ALICE, BOB, CAROL],
                    mechanics={"voting_period": period(3), "reminder_before": "none"})
    yield mail
    mail.close()


def _serve(daemon: Daemon) -> tuple[threading.Thread, threading.Event]:
    stop = threading.Event()
    thread = threading.Thread(target=daemon.serve, args=(stop,))
    thread.start()
    assert daemon.ready.wait(patience(10))
    return thread, stop


def test_a_vote_closes_on_time_in_a_game_served_again(game: MailGame,
                                                     smtp_sink: SmtpSink) -> None:
    settings = dataclasses.replace(
        game.settings, smtp=SmtpConfig(smtp_sink.host, smtp_sink.port, "none", "", None))
    service = GameService(game.store, settings, rng=random.Random(1), clock=_now)
    daemon = Daemon(settings, service, clock=_now, rng=random.Random(1), own_lmtp=False)
    thread, stop = _serve(daemon)
    daemon.receive_lmtp(raw_mail(ALICE, "PROPOSE: Tea", "Tea at four.\n", date=_now()), _now())
    smtp_sink.wait_for(lambda m: b"Proposal 301: Tea" in m.data, timeout=patience(20))
    stop.set()
    daemon.wake.set()
    thread.join(patience(20))
    closes_at = service.state().proposals[301].closes_at
    assert closes_at is not None and closes_at > _now()

    daemon.ready.clear()
    thread, stop = _serve(daemon)
    try:
        results = smtp_sink.wait_for(lambda m: b"Proposal 301 REJECTED" in m.data,
                                     timeout=patience(20))
        assert b"quorum not reached" in results.data
        assert (_now() - closes_at).total_seconds() < patience(5)
    finally:
        stop.set()
        daemon.wake.set()
        thread.join(patience(20))
