"""Pipeline benchmark: speakerbot's daemon against the bare pipeline, on the same servers.

Both take 1,000 waiting ballots (40 players, 10 open proposals, every fifth message with
STATUS) from a real Dovecot on loopback and answer each through a real aiosmtpd sink:

- the bare pipeline: IMAP fetch in batches of 25, the stdlib parser, one SQLite commit per
  message with ``synchronous=FULL``, one SMTP reply each over one connection, then MOVE;
- speakerbot: the daemon, as ``speakerbot run`` runs it (the same IMAP watcher, service,
  store and outbox), every message committed durably before its IMAP move and every reply
  durable in the outbox before it is sent.

Then the daemon again on a mix with public mail (every 20th message a proposal, which the
Speaker distributes to the 40 players and the host), two ways:

- **public, VERP**: as the Speaker sends, each recipient's copy in its own SMTP transaction
  from its own return path (pipelined where the relay offers it, as the sink does);
- **public, one each**: each public message in one transaction to all its recipients, as
  before VERP (the goal: the VERP copies within 5% of this).

Each is run ``--rounds`` times (3 by default), in turn, each on its own mailbox, database and
sink; prints every round, then the median rate of each and the ratios the goals speak of
(speakerbot at least 0.9 of the bare pipeline). A run ends when the sink has every answer
and every copy and the inbox is empty, looked at every 10 ms.

The relay is the tests' sink, in a thread of the bench's process (``--relay thread``, the
default, as measured since issue 29), or a counting relay in a process of its own
(``--relay process``, ``relay_process.py``), as a real relay runs beside the Speaker: then
the relay's own work per transaction (aiosmtpd's, in Python) is not charged to the Speaker's
process and its GIL.

Run: .venv/bin/python bench/pipeline.py [--messages N] [--rounds N] [--relay thread|process]
"""

from __future__ import annotations

import argparse
import contextlib
import email
import random
import smtplib
import sqlite3
import statistics
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import format_datetime
from pathlib import Path
from typing import Any, Protocol

from imapclient import IMAPClient  # type: ignore[import-untyped,unused-ignore]

from bench.relay_process import RelayProcess
from speakerbot.adapters.store import Store
from speakerbot.config import Settings, parse_settings
from speakerbot.engine import commands as c
from speakerbot.entrypoints.daemon import Daemon
from speakerbot.service import GameService
from speakerbot.service import game as game_module
from speakerbot.service.outbox import Outbox
from tests.support.dovecot import DovecotServer
from tests.support.smtp_sink import SmtpSink

GAME = "game@bench.test"
HOST = "host@bench.test"
MX = "mx.bench.test"
PLAYERS = [f"p{n}@bench.test" for n in range(40)]
PUBLIC_EVERY = 20
"""In the mix with public mail, every 20th message is a proposal, distributed to all."""
RECIPIENTS = len(PLAYERS) + 1
"""A public message's recipients: every player and the host."""


class Relay(Protocol):
    """Where the answers go: an SMTP relay on loopback that counts what it took."""

    host: str
    port: int

    def received(self) -> int:
        """How many messages the relay has taken."""

    def clear(self) -> None:
        """Count from nought again."""

    def cpu_seconds(self) -> float | None:
        """The CPU seconds of the relay's own process so far (None: it is in this one)."""


class ThreadRelay:
    """The tests' sink, in a thread of this process."""

    def __init__(self, sink: SmtpSink) -> None:
        self.sink = sink
        self.host, self.port = sink.host, sink.port

    def received(self) -> int:
        """How many messages the sink has taken."""
        return len(self.sink.messages)

    def clear(self) -> None:
        """Forget what the sink took."""
        self.sink.clear()

    def cpu_seconds(self) -> None:
        """None: the sink's CPU is this process's."""
        return None


@dataclass(frozen=True)
class Spent:
    """What one round cost, from the first message taken to the last answer in the relay."""

    seconds: float
    cpu: float
    """This process's CPU seconds: the pipeline's or the daemon's (with the sink's when the
    relay is a thread of it)."""
    relay_cpu: float | None
    """The relay process's CPU seconds (None: the relay is a thread of this process)."""


class Window:
    """The time and CPU from now until ``end``: one round's measure."""

    def __init__(self, relay: Relay) -> None:
        self.relay = relay
        self.relay_cpu = relay.cpu_seconds()
        self.cpu = time.process_time()
        self.began = time.perf_counter()

    def end(self) -> Spent:
        """Return what was spent since this window began."""
        seconds = time.perf_counter() - self.began
        cpu = time.process_time() - self.cpu
        relay_cpu = self.relay.cpu_seconds()
        return Spent(seconds, cpu, None if relay_cpu is None or self.relay_cpu is None
                     else relay_cpu - self.relay_cpu)


def ballot(n: int, when: datetime, public_every: int = 0) -> bytes:
    """One player's ballot as their provider delivers it to the game's mailbox.

    ``public_every``: every so many messages is a proposal instead, which the Speaker
    distributes to every player and the host (a public message to 41 recipients).
    """
    voter = PLAYERS[n % len(PLAYERS)]
    body = f"VOTE {301 + n % 10} {'FOR' if n % 3 else 'AGAINST'}\r\n"
    subject = f"my vote {n}"
    if public_every and n % public_every == public_every - 1:
        body, subject = f"Idea number {n}.\r\n", f"PROPOSE: Idea {n}"
    elif n % 5 == 0:
        body += "STATUS\r\n"
    return (f"Authentication-Results: {MX}; dmarc=pass header.from=bench.test\r\n"
            f"From: <{voter}>\r\nTo: {GAME}\r\nSubject: {subject}\r\n"
            f"Date: {format_datetime(when)}\r\nMessage-ID: <ballot-{n}@bench.test>\r\n"
            f"\r\n{body}").encode()


def bare(dovecot: DovecotServer, user: str, sink: Relay, folder: Path, count: int) -> Spent:
    """Take in, commit, answer and move every message as plainly as it can be done."""
    db = sqlite3.connect(folder / "bare.db", isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=FULL")
    db.execute("CREATE TABLE inbound (id INTEGER PRIMARY KEY, sender TEXT, raw BLOB)")
    window = Window(sink)
    imap = IMAPClient(dovecot.host, dovecot.port, ssl=False)
    imap.login(user, "pw")
    imap.select_folder("INBOX")
    if not imap.folder_exists("processed"):
        imap.create_folder("processed")
    smtp = smtplib.SMTP(sink.host, sink.port)
    uids = sorted(imap.search("ALL"))
    for first in range(0, len(uids), 25):
        batch = uids[first:first + 25]
        for _uid, data in sorted(imap.fetch(batch, [b"BODY.PEEK[]"]).items()):
            raw = data[b"BODY[]"]
            message = email.message_from_bytes(raw)
            sender = str(message["From"]).strip("<>")
            db.execute("BEGIN IMMEDIATE")
            db.execute("INSERT INTO inbound (sender, raw) VALUES (?, ?)", (sender, raw))
            db.execute("COMMIT")
            smtp.sendmail(GAME, [sender], f"Subject: Re: {message['Subject']}\r\n\r\nDone.\r\n")
        imap.move(batch, "processed")
    smtp.quit()
    imap.logout()
    spent = window.end()
    assert sink.received() >= count, sink.received()
    db.close()
    return spent


def settings_for(folder: Path, dovecot: DovecotServer, user: str, sink: Relay) -> Settings:
    return parse_settings({
        "game": {"name": "Bench", "ruleset": "nomicam", "address": GAME, "speaker": HOST,
                 "speaker_name": "Host", "admin_password": "pw-bench"},
        "mechanics": {"reminder_before": "none"},
        "limits": {"replies_per_day": 100_000, "proposals_per_day": 100_000,
                   "public_per_hour": 100_000},
        "auth": {"authserv_id": [MX]},
        "database": {"url": f"sqlite:///{folder / 'speakerbot.db'}"},
        "imap": {"host": dovecot.host, "port": dovecot.port, "security": "none",
                 "username": user, "password": "pw", "poll_interval": "60s"},
        "smtp": {"host": sink.host, "port": sink.port, "security": "none"},
    }, path=folder / "bench.toml", environ={})


def speakerbot(dovecot: DovecotServer, user: str, sink: Relay, folder: Path,
               count: int) -> Spent:
    """Run the daemon until every ballot is answered and moved; return what it spent."""
    return _daemon(dovecot, user, sink, folder, count)


def public_verp(dovecot: DovecotServer, user: str, sink: Relay, folder: Path,
                count: int) -> Spent:
    """The daemon on the mix with public mail, each public copy from its own return path."""
    return _daemon(dovecot, user, sink, folder, count + _copies(count, RECIPIENTS))


def public_one(dovecot: DovecotServer, user: str, sink: Relay, folder: Path,
               count: int) -> Spent:
    """The same, each public message in one transaction to all its recipients (no VERP)."""
    # The service builds its outbox by this name at each send: without the game's identity,
    # an outbox sends each message as before VERP, in chunks of envelope recipients.
    names = vars(game_module)
    real = names["Outbox"]

    def without_verp(*args: Any, **options: Any) -> Outbox:
        made: Outbox = real(*args, **{**options, "identity": None})
        return made

    names["Outbox"] = without_verp
    try:
        return _daemon(dovecot, user, sink, folder, count + _copies(count, 1))
    finally:
        names["Outbox"] = real


def _copies(count: int, each: int) -> int:
    """The public copies the sink receives besides the replies, ``each`` per proposal."""
    return count // PUBLIC_EVERY * each


def _daemon(dovecot: DovecotServer, user: str, sink: Relay, folder: Path,
            count: int) -> Spent:
    settings = settings_for(folder, dovecot, user, sink)
    store = Store(settings.database.url)
    store.upgrade()
    service = GameService(store, settings, rng=random.Random(1))
    service.start_game()
    for n, address in enumerate(PLAYERS):
        service.speaker_command(c.AddPlayer(HOST, address, f"Player {n}"))
    now = datetime.now(UTC)
    for n in range(10):
        raw = (f"Authentication-Results: {MX}; dmarc=pass header.from=bench.test\r\n"
               f"From: <{PLAYERS[n]}>\r\nTo: {GAME}\r\nSubject: PROPOSE: Idea {n}\r\n"
               f"Date: {format_datetime(now)}\r\nMessage-ID: <idea-{n}@bench.test>\r\n\r\n"
               "Text.\r\n").encode()
        service.receive(raw, now, source="bench")
    service.process_pending()
    daemon = Daemon(settings, service)
    daemon.send_outbox(everything=True)
    sink.clear()
    stop = threading.Event()
    window = Window(sink)
    # A daemon thread: should the bench fail, its process still ends.
    runner = threading.Thread(target=daemon.run, args=(stop,), daemon=True)
    runner.start()
    deadline = window.began + 600
    while sink.received() < count or dovecot.list_folder(user, "INBOX"):
        assert time.perf_counter() < deadline, f"{sink.received()} of {count} answered"
        time.sleep(0.01)
    spent = window.end()
    stop.set()
    daemon.wake.set()
    runner.join(60)
    store.close()
    return spent


@contextlib.contextmanager
def _relay(where: str) -> Iterator[Relay]:
    if where == "process":
        with RelayProcess() as relay:
            yield relay
    else:
        with SmtpSink() as sink:
            yield ThreadRelay(sink)


CONTENDERS = (("bare pipeline", bare, False), ("speakerbot", speakerbot, False),
              ("public, VERP", public_verp, True), ("public, one each", public_one, True))
"""Each contender's name, its run, and whether it takes the mix with public mail."""


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--messages", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--relay", choices=("thread", "process"), default="thread")
    args = parser.parse_args()
    now = datetime.now(UTC)
    mixes = {public: [ballot(n, now, PUBLIC_EVERY if public else 0)
                      for n in range(args.messages)] for public in (False, True)}
    spent: dict[str, list[Spent]] = {name: [] for name, _, _ in CONTENDERS}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        dovecot = DovecotServer()
        dovecot.start()
        try:
            for round_number in range(args.rounds):
                for name, run, public in CONTENDERS:
                    user = f"{name.replace(' ', '-').replace(',', '').lower()}-{round_number}"
                    dovecot.add_user(user, "pw")
                    dovecot.append_many(user, "INBOX", mixes[public])
                    with _relay(args.relay) as sink:
                        place = folder / user
                        place.mkdir()
                        spent[name].append(run(dovecot, user, sink, place, args.messages))
                    seconds = spent[name][-1].seconds
                    print(f"{name:>16}: {args.messages} messages in {seconds:.2f} s, "
                          f"{args.messages / seconds:.0f} messages/s; CPU a message "
                          f"{_cpu_text(spent[name][-1], args.messages)}", flush=True)
        finally:
            dovecot.close()
    median = {name: statistics.median(args.messages / one.seconds for one in found)
              for name, found in spent.items()}
    print(f"median of {args.rounds}: " + ", ".join(f"{name} {rate:.0f}/s"
                                                   for name, rate in median.items()))
    print(f"  speakerbot / bare pipeline: {median['speakerbot'] / median['bare pipeline']:.2f} "
          "(the goal: at least 0.9)")
    print(f"  with public mail, a copy per recipient (VERP) / one transaction a message: "
          f"{median['public, VERP'] / median['public, one each']:.2f} (the goal: at least 0.95)")
    print("  CPU a message, the median round's: " + ", ".join(
        f"{name} {_cpu_text(_median_round(found), args.messages)}"
        for name, found in spent.items()))


def _median_round(rounds: list[Spent]) -> Spent:
    """The round of the median time (the lower of the two middle ones)."""
    return sorted(rounds, key=lambda one: one.seconds)[(len(rounds) - 1) // 2]


def _cpu_text(spent: Spent, messages: int) -> str:
    """This process's CPU a message, and the relay process's when it has its own."""
    said = f"{spent.cpu * 1000 / messages:.2f} ms"
    if spent.relay_cpu is not None:
        said += f" (the relay's {spent.relay_cpu * 1000 / messages:.2f} ms)"
    return said


if __name__ == "__main__":
    main()
