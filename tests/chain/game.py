"""speakerbot behind the chain: a real ``speakerbot run`` with its LMTP listener, on SQLite.

One game at ``game@game.test`` whose ``[auth]`` trusts the receiving server's authserv-id
alone. Its replies go to the SMTP sink. What it did with a message is read back from its
database: the inbound row (held or processed, authenticated or not) and the ballots.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from speakerbot.adapters.store import Store
from speakerbot.adapters.store.rows import InboundRow
from speakerbot.adapters.store.schema import PENDING_INBOUND
from speakerbot.engine import GameState, replay
from speakerbot.engine.codec import event_from_json
from tests.chain.zones import AUTHSERV_ID, GAME_DOMAIN
from tests.integration.game_harness import stop_daemon, wait_for_log
from tests.support.commands import speakerbot
from tests.support.mailgame import OTHER_BEHAVIOUR
from tests.support.patience import patience
from tests.support.ports import LOOPBACK

GAME = f"game@{GAME_DOMAIN}"
HOST = f"host@{GAME_DOMAIN}"
ALICE = "alice@players.test"
BOB = "bob@players.test"
NORA = "nora@nodmarc.test"
"""A player whose domain signs its mail but publishes no DMARC record."""
PLAYERS = {ALICE: "Alice", BOB: "Bob", NORA: "Nora"}


class ChainGame:
    """The game's config, database and daemon, in ``folder``."""

    def __init__(self, folder: Path, lmtp_port: int, sink_port: int) -> None:
        self.folder = folder
        self.lmtp_port = lmtp_port
        self.db_url = f"sqlite:///{folder / 'game.db'}"
        self.config = folder / "speakerbot.toml"
        self.log = folder / "daemon.log"
        self.process: subprocess.Popen[bytes] | None = None
        self.env = {**os.environ, "SPEAKERBOT_SEED": "12345"}
        self.env.pop("SPEAKERBOT_GAME", None)
        mechanics = "\n".join(f'{key} = "{value}"' for key, value in OTHER_BEHAVIOUR.items())
        self.config.write_text(f"""
[game]
name = "Chain Nomic"
ruleset = "nomicam"
address = "{GAME}"
speaker = "{HOST}"
speaker_name = "Hostess"
admin_password = "chain-admin-password"

[mechanics]
{mechanics}

[auth]
require = "dmarc"
authserv_id = ["{AUTHSERV_ID}"]

[database]
url = "{self.db_url}"

[lmtp]
host = "{LOOPBACK}"
port = {lmtp_port}

[smtp]
host = "{LOOPBACK}"
port = {sink_port}
security = "none"
""")

    def start(self) -> None:
        """``speakerbot init``, the players added, then the daemon; returns once it listens."""
        self._cli("init")
        for address, name in PLAYERS.items():
            self._cli("player", "add", address, name)
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "speakerbot", "run", "--config", str(self.config)],
                stdout=log, stderr=log, env=self.env, cwd=self.folder)
        wait_for_log(self.process, self.log_text, "LMTP listening", patience(30))

    def stop(self) -> None:
        """Stop the daemon (SIGTERM, a clean exit), if it was started."""
        if self.process is not None and self.process.poll() is None:
            stop_daemon(self.process, self.log_text)

    def log_text(self) -> str:
        """The daemon's log so far."""
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def _cli(self, *args: str) -> None:
        result = speakerbot(["-c", str(self.config), *args], env=self.env, cwd=self.folder)
        assert result.returncode == 0, f"speakerbot {args}: {result.stderr}"

    # --- what the game made of its mail ---

    def inbound(self, message_id: str) -> InboundRow | None:
        """The stored message with this Message-ID, or None if it has not arrived."""
        with Store(self.db_url) as store:
            rows = [row for row in store.list_inbound(limit=1000)
                    if row.message_id == message_id]
        return rows[0] if rows else None

    def wait_handled(self, message_id: str, timeout: float = patience(20)) -> InboundRow:
        """Wait until the message has arrived and been handled (processed, held...)."""
        deadline = time.monotonic() + timeout
        delay = 0.02
        while True:
            row = self.inbound(message_id)
            if row is not None and row.status not in PENDING_INBOUND:
                return row
            assert self.process is not None and self.process.poll() is None, self.log_text()
            if time.monotonic() > deadline:
                raise TimeoutError(f"{message_id} not handled within {timeout:g}s (stored: "
                                   f"{row is not None})")
            time.sleep(delay)  # a poll of the database: the daemon signals nothing else
            delay = min(delay * 2, 0.2)

    def state(self) -> GameState:
        """The game's state, replayed from its record."""
        with Store(self.db_url) as store:
            return replay([event_from_json(row.data) for row in store.load_events()])

    def ballot(self, proposal: int, voter: str) -> str | None:
        """The voter's ballot on the proposal: "FOR", "AGAINST", or None."""
        found = self.state().proposals[proposal].ballots.get(voter)
        return None if found is None else found.choice.value
