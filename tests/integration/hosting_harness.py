"""Many games from one ``[[games]]`` config, run by real ``speakerbot run`` workers.

Players' mail goes in by LMTP (to any worker's listener, as a local MTA would hand it over),
the workers send by SMTP to the sink, and the games share one database: SQLite (one worker)
or PostgreSQL (as many workers as the test starts). Nothing is mocked.
"""

from __future__ import annotations

import os
import smtplib
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid
from pathlib import Path

from tests.integration.game_harness import body_of, stop_daemon, subject_of, wait_for_log
from tests.support.commands import speakerbot
from tests.support.mailgame import OTHER_BEHAVIOUR
from tests.support.patience import patience
from tests.support.ports import LOOPBACK, free_port
from tests.support.smtp_sink import CapturedMessage, SmtpSink, one_per_message

SPEAKER = "chuck@host.test"
PASSWORD = "s3cret-admin"
MX = "mx.host.test"


@dataclass(frozen=True)
class HostedGame:
    """One game of the config: its id, preset and address."""

    id: str
    ruleset: str
    mechanics: tuple[tuple[str, str], ...] = ()
    tables: str = ""  # more of the game's own tables, as TOML ([games.imap])

    @property
    def address(self) -> str:
        return f"{self.id}@host.test"

    @property
    def name(self) -> str:
        return f"Nomic {self.id.title()}"


def _game_table(game: HostedGame) -> str:
    mechanics = {**OTHER_BEHAVIOUR, **dict(game.mechanics)}
    lines = "\n".join(f'{key} = "{value}"' for key, value in mechanics.items())
    return f"""
[[games]]
id = "{game.id}"
name = "{game.name}"
ruleset = "{game.ruleset}"
address = "{game.address}"
speaker = "{SPEAKER}"
speaker_name = "Chuck"
admin_password = "{PASSWORD}"
open_registration = true

[games.mechanics]
{lines}
{game.tables}
"""


class Worker:
    """One ``speakerbot run`` process with its own config (its own LMTP port)."""

    def __init__(self, folder: Path, config: Path, env: dict[str, str], port: int,
                 name: str = "") -> None:
        self.folder, self.config, self.env, self.port = folder, config, env, port
        self.log = folder / f"worker-{port}{name}.log"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "speakerbot", "run", "--config", str(self.config)],
                stdout=log, stderr=log, env=self.env, cwd=self.folder)

    def log_text(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def wait_log(self, fragment: str, timeout: float = patience(30)) -> None:
        wait_for_log(self.process, self.log_text, fragment, timeout)

    def stop(self, timeout: float = patience(30)) -> int:
        return stop_daemon(self.process, self.log_text, timeout)

    def signal(self, signum: int) -> None:
        assert self.process is not None
        self.process.send_signal(signum)

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(patience(30))


class Hosting:
    """The config of several games, their database, and the workers that run them."""

    def __init__(self, folder: Path, sink: SmtpSink, db_url: str,
                 games: Sequence[HostedGame], *, workers_lease: str | None = None,
                 site: Path | None = None, more: str = "") -> None:
        self.folder, self.sink, self.db_url, self.games = folder, sink, db_url, list(games)
        self.workers_lease = workers_lease
        self.site = site
        self.more = more  # more shared tables, as TOML ([limits])
        self.env = {**os.environ, "SPEAKERBOT_SEED": "12345", "SPEAKERBOT_RETRY_BASE": "1"}
        self.env.pop("SPEAKERBOT_GAME", None)
        self.workers: list[Worker] = []
        self.last_sent = b""
        self.config = self._write_config(free_port())

    def _write_config(self, port: int) -> Path:
        config = self.folder / f"speakerbot-{port}.toml"
        workers = (f'\n[workers]\nlease = "{self.workers_lease}"\n'
                   if self.workers_lease else "")
        if self.site is not None:
            workers += f'\n[site]\ndir = "{self.site}"\n'
        workers += self.more
        config.write_text("".join(_game_table(game) for game in self.games) + f"""
[auth]
require = "dmarc"
authserv_id = ["{MX}"]

[database]
url = "{self.db_url}"

[lmtp]
host = "{LOOPBACK}"
port = {port}

[smtp]
host = "{LOOPBACK}"
port = {self.sink.port}
security = "none"
{workers}""")
        return config

    def cli(self, *args: str, game: str | None = None, check: bool = True,
            env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        chosen = ["--game", game] if game else []
        result = speakerbot(["-c", str(self.config), *chosen, *args],
                            env={**self.env, **(env or {})}, cwd=self.folder)
        if check:
            assert result.returncode == 0, f"speakerbot {args}: {result.stderr}"
        return result

    def worker(self, *, game: str | None = None, same_config: bool = False) -> Worker:
        """Start one more worker, on a listener of its own; wait until its games take mail.

        ``game``: the worker is started for that game alone (``SPEAKERBOT_GAME``).
        ``same_config``: with the first worker's config, and so its LMTP port.
        """
        port = (free_port() if self.workers and not same_config
                else int(self._port_of(self.config)))
        config = self.config if not self.workers or same_config else self._write_config(port)
        env = self.env if game is None else {**self.env, "SPEAKERBOT_GAME": game}
        worker = Worker(self.folder, config, env, port, name=f"-{len(self.workers)}")
        self.workers.append(worker)
        worker.start()
        worker.wait_log("LMTP listening")
        return worker

    @staticmethod
    def _port_of(config: Path) -> str:
        return config.stem.rpartition("-")[2]

    def stop(self) -> None:
        for worker in self.workers:
            if worker.process is not None and worker.process.poll() is None:
                worker.stop()

    # --- mail ---

    def message(self, sender: str, to: str, subject: str, body: str, *,
                authenticated: bool = True) -> bytes:
        message = EmailMessage()
        message["Date"] = format_datetime(datetime.now(UTC))
        if authenticated:
            message["Authentication-Results"] = (
                f"{MX}; dmarc=pass header.from={sender.rpartition('@')[2]}")
        message["From"] = sender
        message["To"] = to
        message["Subject"] = subject
        message["Message-ID"] = make_msgid(domain="players.test")
        message.set_content(body)
        return message.as_bytes()

    def send(self, sender: str, to: str | Sequence[str], subject: str, body: str, *,
             worker: Worker | None = None) -> dict[str, tuple[int, bytes]]:
        """Hand a message to a worker's LMTP listener; return its refused recipients."""
        recipients = [to] if isinstance(to, str) else list(to)
        raw = self.message(sender, recipients[0], subject, body)
        self.last_sent = raw
        port = (worker or self.workers[0]).port
        refused: dict[str, tuple[int, bytes]] = {}
        with smtplib.LMTP(LOOPBACK, port, timeout=patience(10)) as client:
            client.ehlo()
            client.mail(sender)
            accepted = []
            for recipient in recipients:
                code, answer = client.rcpt(recipient)
                if code == 250:
                    accepted.append(recipient)
                else:
                    refused[recipient] = (code, answer)
            if accepted:
                # LMTP answers the end of DATA once for each accepted recipient.
                answers = [client.data(raw)] + [client.getreply() for _ in accepted[1:]]
                assert all(code == 250 for code, _ in answers), answers
            else:
                client.rset()
        return refused

    def wait_for(self, predicate: Callable[[CapturedMessage], bool],
                 timeout: float = patience(30)) -> CapturedMessage:
        try:
            return self.sink.wait_for(predicate, timeout)
        except TimeoutError as error:
            logs = "\n".join(w.log_text()[-3000:] for w in self.workers)
            raise AssertionError(f"{error}\n--- worker logs ---\n{logs}") from None

    def wait_reply(self, subject: str, to: str, timeout: float = patience(30)) -> CapturedMessage:
        return self.wait_for(lambda m: f"Re: {subject}" in subject_of(m) and to in m.rcpt_tos,
                             timeout)

    def sent(self, fragment: str = "", to: str | None = None) -> list[CapturedMessage]:
        """Return the messages whose Subject holds ``fragment`` (to ``to``): one per Message-ID.

        Public mail goes as a copy to each recipient, all with the message's one Message-ID.
        """
        return one_per_message(m for m in self.sink.messages if fragment in subject_of(m)
                               and (to is None or to in m.rcpt_tos))


__all__ = ["MX", "PASSWORD", "SPEAKER", "HostedGame", "Hosting", "Worker", "body_of"]
