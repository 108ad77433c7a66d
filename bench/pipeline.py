"""Pipeline benchmark: speakerbot's daemon against the bare pipeline, on the same servers.

Both take 1,000 waiting ballots (40 players, 10 open proposals, every fifth message with
STATUS) from a real Dovecot on loopback and answer each through a real aiosmtpd sink:

- the bare pipeline: IMAP fetch in batches of 25, the stdlib parser, one SQLite commit per
  message with ``synchronous=FULL``, one SMTP reply each over one connection, then MOVE;
- speakerbot: the daemon, as ``speakerbot run`` runs it (the same IMAP watcher, service,
  store and outbox), every message committed durably before its IMAP move and every reply
  durable in the outbox before it is sent.

Each is run ``--rounds`` times (3 by default), in turn (bare, speakerbot, bare, ...), each on
its own mailbox, database and sink; prints every round, then the median rate of each and their
ratio (the goal is at least 0.5). A run ends when the sink has every answer and the inbox is
empty, looked at every 10 ms.

Run: .venv/bin/python bench/pipeline.py [--messages N] [--rounds N]
"""

from __future__ import annotations

import argparse
import email
import random
import smtplib
import sqlite3
import statistics
import tempfile
import threading
import time
from datetime import UTC, datetime
from email.utils import format_datetime
from pathlib import Path

from imapclient import IMAPClient  # type: ignore[import-untyped,unused-ignore]

from speakerbot.adapters.store import Store
from speakerbot.config import Settings, parse_settings
from speakerbot.engine import commands as c
from speakerbot.entrypoints.daemon import Daemon
from speakerbot.service import GameService
from tests.support.dovecot import DovecotServer
from tests.support.smtp_sink import SmtpSink

GAME = "game@bench.test"
HOST = "host@bench.test"
MX = "mx.bench.test"
PLAYERS = [f"p{n}@bench.test" for n in range(40)]


def ballot(n: int, when: datetime) -> bytes:
    """One player's ballot as their provider delivers it to the game's mailbox."""
    voter = PLAYERS[n % len(PLAYERS)]
    body = f"VOTE {301 + n % 10} {'FOR' if n % 3 else 'AGAINST'}\r\n"
    if n % 5 == 0:
        body += "STATUS\r\n"
    return (f"Authentication-Results: {MX}; dmarc=pass header.from=bench.test\r\n"
            f"From: <{voter}>\r\nTo: {GAME}\r\nSubject: my vote {n}\r\n"
            f"Date: {format_datetime(when)}\r\nMessage-ID: <ballot-{n}@bench.test>\r\n"
            f"\r\n{body}").encode()


def bare(dovecot: DovecotServer, user: str, sink: SmtpSink, folder: Path, count: int) -> float:
    """Take in, commit, answer and move every message as plainly as it can be done."""
    db = sqlite3.connect(folder / "bare.db", isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=FULL")
    db.execute("CREATE TABLE inbound (id INTEGER PRIMARY KEY, sender TEXT, raw BLOB)")
    start = time.perf_counter()
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
    took = time.perf_counter() - start
    assert len(sink.messages) >= count, len(sink.messages)
    db.close()
    return took


def settings_for(folder: Path, dovecot: DovecotServer, user: str, sink: SmtpSink) -> Settings:
    return parse_settings({
        "game": {"name": "Bench", "ruleset": "nomicam", "address": GAME, "speaker": HOST,
                 "speaker_name": "Host", "admin_password": "pw-bench"},
        "mechanics": {"reminder_before": "none"},
        "limits": {"replies_per_day": 100_000},
        "auth": {"authserv_id": [MX]},
        "database": {"url": f"sqlite:///{folder / 'speakerbot.db'}"},
        "imap": {"host": dovecot.host, "port": dovecot.port, "security": "none",
                 "username": user, "password": "pw", "poll_interval": "60s"},
        "smtp": {"host": sink.host, "port": sink.port, "security": "none"},
    }, path=folder / "bench.toml", environ={})


def speakerbot(dovecot: DovecotServer, user: str, sink: SmtpSink, folder: Path,
               count: int) -> float:
    """Run the daemon until every ballot is answered and moved; return the seconds."""
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
    start = time.perf_counter()
    runner = threading.Thread(target=daemon.run, args=(stop,))
    runner.start()
    deadline = start + 600
    while len(sink.messages) < count or dovecot.list_folder(user, "INBOX"):
        assert time.perf_counter() < deadline, f"{len(sink.messages)} of {count} answered"
        time.sleep(0.01)
    took = time.perf_counter() - start
    stop.set()
    daemon.wake.set()
    runner.join(60)
    store.close()
    return took


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--messages", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    now = datetime.now(UTC)
    raws = [ballot(n, now) for n in range(args.messages)]
    rates: dict[str, list[float]] = {"bare pipeline": [], "speakerbot": []}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        dovecot = DovecotServer()
        dovecot.start()
        try:
            for round_number in range(args.rounds):
                for name, run in (("bare pipeline", bare), ("speakerbot", speakerbot)):
                    user = f"{name.replace(' ', '-')}-{round_number}"
                    dovecot.add_user(user, "pw")
                    dovecot.append_many(user, "INBOX", raws)
                    with SmtpSink() as sink:
                        place = folder / user
                        place.mkdir()
                        seconds = run(dovecot, user, sink, place, args.messages)
                    rates[name].append(args.messages / seconds)
                    print(f"{name:>14}: {args.messages} ballots in {seconds:.2f} s, "
                          f"{rates[name][-1]:.0f} messages/s")
        finally:
            dovecot.close()
    bare_rate, speakerbot_rate = (statistics.median(rates[name]) for name in rates)
    print(f"median of {args.rounds}: bare pipeline {bare_rate:.0f}/s, "
          f"speakerbot {speakerbot_rate:.0f}/s")
    print(f"         ratio: {speakerbot_rate / bare_rate:.2f} "
          "(speakerbot / bare pipeline; the goal is at least 0.5)")


if __name__ == "__main__":
    main()
