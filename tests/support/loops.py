"""A game's loop on the wall clock, for tests that watch the daemon wake and stop."""

from __future__ import annotations

import dataclasses
import random
import threading
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial
from pathlib import Path

from speakerbot.config import SmtpConfig
from speakerbot.entrypoints.daemon import Daemon
from speakerbot.service import GameService
from tests.support.mailgame import ALICE, BOB, CAROL, MailGame
from tests.support.patience import patience
from tests.support.smtp_sink import SmtpSink


@dataclass
class WallClockLoop:
    """A game of three (Nomic, a voting period of an hour), its service and its daemon."""

    game: MailGame
    service: GameService
    daemon: Daemon

    def start(self, stop: threading.Event) -> threading.Thread:
        """Serve the game's loop on a thread of its own until ``stop``; return once it runs."""
        thread = threading.Thread(target=self.daemon.serve, args=(stop,), daemon=True)
        thread.start()
        assert self.daemon.ready.wait(patience(10)), "the loop never started"
        return thread

    def halt(self, stop: threading.Event, thread: threading.Thread) -> None:
        """Stop the loop ``start`` began, as a signal does, and see it end."""
        stop.set()
        self.daemon.wake.set()
        thread.join(patience(20))
        assert not thread.is_alive(), "the loop did not stop"


def wall_clock_loop(folder: Path, sink: SmtpSink) -> WallClockLoop:
    """Return a game's daemon on the wall clock, sending to ``sink``, with no LMTP listener."""
    game = MailGame(folder, "nomicam", [ALICE, BOB, CAROL],
                    mechanics={"voting_period": "1h", "reminder_before": "none"})
    settings = dataclasses.replace(
        game.settings, smtp=SmtpConfig(sink.host, sink.port, "none", "", None))
    now = partial(datetime.now, UTC)
    service = GameService(game.store, settings, rng=random.Random(1), clock=now)
    daemon = Daemon(settings, service, clock=now, rng=random.Random(1), own_lmtp=False)
    return WallClockLoop(game, service, daemon)
