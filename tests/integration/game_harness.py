"""Run a real game: the speakerbot CLI and daemon as subprocesses, against real servers.

Players' mail is appended to the game's mailbox on Dovecot (as an MTA would deliver it), the
daemon reads it by IMAP and sends by SMTP to the sink, and the database is SQLite or
PostgreSQL. Nothing is mocked.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from datetime import UTC, datetime
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid
from pathlib import Path

from speakerbot.adapters.store import Store
from speakerbot.engine import GameState, replay
from speakerbot.engine.codec import event_from_json
from tests.support.commands import speakerbot
from tests.support.dovecot import DovecotServer
from tests.support.mailgame import OTHER_BEHAVIOUR
from tests.support.patience import patience
from tests.support.smtp_sink import CapturedMessage, SmtpSink, one_per_message

GAME = "game@nomic.test"
SPEAKER = "chuck@nomic.test"
MX = "mx.nomic.test"
"""The authserv-id of the game mailbox's own receiving server, trusted by the test games."""
PASSWORD = "s3cret-admin"
_users = itertools.count(1)


def body_of(message: CapturedMessage) -> str:
    return message.plain_body


def subject_of(message: CapturedMessage) -> str:
    return message.subject


def admin_mail(line: str) -> str:
    """The body of the host's mail that runs ``line``, an ADMIN command, with the password."""
    return f"PASSWORD {PASSWORD}\n{line}\n"


class RunningGame:
    """One game's config, database, mailbox and daemon process."""

    def __init__(self, tmp: Path, dovecot: DovecotServer, sink: SmtpSink, db_url: str,
                 ruleset: str, mechanics: dict[str, str] | None = None,
                 extra_env: dict[str, str] | None = None,
                 auth: dict[str, str] | None = None) -> None:
        self.tmp = tmp
        self.dovecot = dovecot
        self.sink = sink
        self.db_url = db_url
        self.user = f"game{next(_users)}-{os.getpid()}"
        dovecot.add_user(self.user, "imap-password")
        self.config = tmp / "speakerbot.toml"
        # Newer mechanics stay off unless the test names them (see OTHER_BEHAVIOUR).
        mechanics = {**OTHER_BEHAVIOUR, **(mechanics or {})}
        mechanics_lines = "\n".join(f'{k} = "{v}"' for k, v in mechanics.items())
        auth_lines = "\n".join(f'{k} = "{v}"' for k, v in (auth or {}).items())
        self.config.write_text(f"""
[game]
name = "Test Nomic"
ruleset = "{ruleset}"
address = "{GAME}"
speaker = "{SPEAKER}"
speaker_name = "Chuck"
admin_password = "{PASSWORD}"
open_registration = true

[mechanics]
{mechanics_lines}

[auth]
require = "dmarc"
authserv_id = ["{MX}"]
{auth_lines}

[database]
url = "{db_url}"

[imap]
host = "127.0.0.1"
port = {dovecot.port}
security = "none"
username = "{self.user}"
password = "imap-password"
idle = true
poll_interval = "2s"

[smtp]
host = "127.0.0.1"
port = {sink.port}
security = "none"
""")
        self.env = {**os.environ, "SPEAKERBOT_SEED": "12345", **(extra_env or {})}
        self.process: subprocess.Popen[bytes] | None = None
        self.log = tmp / "daemon.log"

    # --- the command line ---

    def cli(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        result = speakerbot(["-c", str(self.config), *args], env=self.env, cwd=self.tmp)
        if check:
            assert result.returncode == 0, f"speakerbot {args}: {result.stderr}"
        return result

    def verify_record(self) -> None:
        """``speakerbot record verify`` must not find the record's chain broken (exit 1).

        A database where no game was started (exit 2) has no record to check.
        """
        result = self.cli("record", "verify", check=False)
        assert result.returncode != 1, result.stdout
        assert result.returncode == 0 or "no game" in result.stderr, result.stderr

    def start(self, **env: str) -> None:
        assert self.process is None or self.process.poll() is not None
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "speakerbot", "run", "--config", str(self.config)],
                stdout=log, stderr=log, env={**self.env, **env}, cwd=self.tmp)

    def begin(self, *players: tuple[str, str]) -> None:
        """``speakerbot init``, each (address, name) added as a player, then the daemon.

        Returns once the daemon runs the game: a period a test then starts (a proposal's
        vote) is not spent on the daemon's start, however slow the machine.
        """
        self.cli("init")
        for address, name in players:
            self.cli("player", "add", address, name)
        self.start()
        self.wait_log("running the game")

    def stop(self, timeout: float = patience(30)) -> int:
        """SIGTERM, and wait for a clean exit (on a hang, dump the daemon's stacks first)."""
        return stop_daemon(self.process, self.log_text, timeout)

    def wait_exit(self, timeout: float = patience(60)) -> int:
        assert self.process is not None
        return self.process.wait(timeout)

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(patience(30))

    def wait_log(self, fragment: str, timeout: float = patience(30)) -> None:
        """Wait until the daemon's log shows ``fragment`` (it has no other readiness signal)."""
        wait_for_log(self.process, self.log_text, fragment, timeout)

    def log_text(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    # --- mail ---

    def message(self, sender: str, subject: str, body: str, *,
                message_id: str | None = None, authenticated: bool = True,
                date: datetime | None = None) -> bytes:
        """Build a player's message; ``authenticated``: as the game's MX vouches for it."""
        message = EmailMessage()
        message["Date"] = format_datetime(date or datetime.now(UTC))
        if authenticated:
            domain = sender.rpartition("@")[2]
            message["Authentication-Results"] = f"{MX}; dmarc=pass header.from={domain}"
        message["From"] = sender
        message["To"] = GAME
        message["Subject"] = subject
        message["Message-ID"] = message_id or make_msgid(domain="players.test")
        message.set_content(body)
        return message.as_bytes()

    def send(self, sender: str, subject: str, body: str, *, at: datetime | None = None,
             message_id: str | None = None, authenticated: bool = True) -> bytes:
        raw = self.message(sender, subject, body, message_id=message_id,
                           authenticated=authenticated, date=at)
        self.append(raw, at=at)
        return raw

    def append(self, raw: bytes, *, at: datetime | None = None) -> None:
        self.dovecot.append(self.user, "INBOX", raw, internaldate=at)

    def inbox(self) -> list[bytes]:
        return self.dovecot.list_folder(self.user, "INBOX")

    def processed(self) -> list[bytes]:
        return self.dovecot.list_folder(self.user, "speakerbot/processed")

    def wait_for(self, predicate: Callable[[CapturedMessage], bool],
                 timeout: float = patience(30)) -> CapturedMessage:
        try:
            return self.sink.wait_for(predicate, timeout)
        except TimeoutError as error:
            log = self._log_with_stacks()
            raise AssertionError(f"{error}\n--- daemon log ---\n{log}") from None

    def _log_with_stacks(self) -> str:
        """The daemon log's tail, with every thread's stack if the daemon still runs.

        A daemon that said nothing while a test waited is stuck or asleep: SIGUSR1 makes it
        write where each of its threads is (``running.py``), which says which.
        """
        before = len(self.log_text())
        if self.process is None or self.process.poll() is not None:
            return self.log_text()[-4000:]
        self.process.send_signal(signal.SIGUSR1)
        deadline = time.monotonic() + patience(5)
        while "most recent call first" not in self.log_text()[before:]:
            if time.monotonic() > deadline:
                break
            time.sleep(0.05)
        text = self.log_text()
        return text[max(0, before - 4000):before] + "\n--- its threads ---\n" + text[before:]

    def wait_subject(self, fragment: str, to: str | None = None,
                     timeout: float = patience(30)) -> CapturedMessage:
        return self.wait_for(lambda m: fragment in subject_of(m)
                             and (to is None or to in m.rcpt_tos), timeout)

    def admin(self, subject: str, line: str) -> str:
        """Send ``line`` as the host's admin mail; return the body of the reply to it."""
        self.send(SPEAKER, subject, admin_mail(line))
        return body_of(self.wait_subject(f"Re: {subject}", to=SPEAKER))

    def reached(self, fragment: str) -> set[str]:
        """Return everyone the mail whose Subject holds ``fragment`` went to.

        Each recipient gets a copy of their own (from their own return path).
        """
        return {address for message in self.copies(fragment) for address in message.rcpt_tos}

    def wait_reached(self, fragment: str, addresses: Iterable[str],
                     timeout: float = patience(30)) -> set[str]:
        """Wait until the mail whose Subject holds ``fragment`` reached ``addresses``."""
        wanted = set(addresses)
        self.wait_for(lambda _: self.reached(fragment) >= wanted, timeout)
        return self.reached(fragment)

    def copies(self, fragment: str = "", to: str | None = None) -> list[CapturedMessage]:
        """Return every copy the sink took whose Subject holds ``fragment`` (to ``to``)."""
        return [m for m in self.sink.messages if fragment in subject_of(m)
                and (to is None or to in m.rcpt_tos)]

    def sent(self, fragment: str = "", to: str | None = None) -> list[CapturedMessage]:
        """Return the messages whose Subject holds ``fragment`` (to ``to``): one per Message-ID.

        Public mail goes as a copy to each recipient, all with the message's one Message-ID.
        """
        return one_per_message(self.copies(fragment, to))

    # --- the record ---

    def state(self) -> GameState:
        with Store(self.db_url) as store:
            return replay([event_from_json(row.data) for row in store.load_events()])

    def events(self) -> Iterator[dict[str, object]]:
        with Store(self.db_url) as store:
            yield from (row.data for row in store.load_events())


def wait_for_log(process: subprocess.Popen[bytes] | None, log_text: Callable[[], str],
                 fragment: str, timeout: float = patience(30)) -> None:
    """Wait until a daemon's log shows ``fragment``; fail at once if the daemon exited."""
    deadline = time.monotonic() + timeout
    delay = 0.02
    while fragment not in log_text():
        assert process is not None and process.poll() is None, log_text()
        assert time.monotonic() < deadline, f"no {fragment!r} in the log:\n{log_text()}"
        time.sleep(delay)
        delay = min(delay * 2, 0.5)


def stop_daemon(process: subprocess.Popen[bytes] | None, log_text: Callable[[], str],
                timeout: float = patience(30)) -> int:
    """SIGTERM a daemon, and wait for a clean exit (on a hang, dump its stacks first)."""
    assert process is not None
    process.send_signal(signal.SIGTERM)
    try:
        return process.wait(timeout)
    except subprocess.TimeoutExpired:
        process.send_signal(signal.SIGUSR1)  # faulthandler: every thread's stack
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(patience(2))
        raise AssertionError(f"the daemon did not stop on SIGTERM:\n"
                             f"{log_text()[-6000:]}") from None


MakeGame = Callable[..., RunningGame]
"""The ``make_game`` fixture: ``make_game(ruleset, mechanics=None, extra_env=None,
auth=None)``; ``auth``: more keys of ``[auth]``."""
