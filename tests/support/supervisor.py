"""Run a game's daemon as systemd's ``Restart=always`` would: started again on every exit."""

from __future__ import annotations

import resource
import subprocess
import sys
import threading
from typing import TYPE_CHECKING

from .patience import patience

if TYPE_CHECKING:
    from tests.integration.game_harness import RunningGame


class Supervisor:
    """Run the daemon and start it again whenever it exits, as systemd's Restart=always.

    ``address_space``: the daemon's RLIMIT_AS in bytes (as a MemoryMax would bound it).
    """

    def __init__(self, game: RunningGame, address_space: int | None = None,
                 **env: str) -> None:
        self.game = game
        self.address_space = address_space
        self.env = env
        self.exits: list[int] = []
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _limit(self) -> None:
        if self.address_space is not None:
            resource.setrlimit(resource.RLIMIT_AS, (self.address_space, self.address_space))

    def _run(self) -> None:
        game = self.game
        while not self._stopping.is_set():
            with game.log.open("ab") as log:
                game.process = subprocess.Popen(
                    [sys.executable, "-m", "speakerbot", "run", "--config", str(game.config)],
                    stdout=log, stderr=log, env={**game.env, **self.env}, cwd=game.tmp,
                    preexec_fn=self._limit)
            code = game.process.wait()
            if self._stopping.is_set():
                return
            self.exits.append(code)

    def __enter__(self) -> Supervisor:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stopping.set()
        if self.game.process is not None and self.game.process.poll() is None:
            self.game.stop()
        self._thread.join(patience(30))
