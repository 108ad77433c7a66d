"""Service benchmark: inbound messages per second through parse, apply, commit and outbox.

Each message is one transaction (SQLite, WAL, synchronous=FULL, as in production), so the
figure includes the fsyncs that make a message durable. Prints figures.

Run: .venv/bin/python bench/service.py [--voters N] [--messages N]
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from speakerbot.adapters.store import Store
from speakerbot.config import parse_settings
from speakerbot.engine import commands as c
from speakerbot.service import GameService


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--voters", type=int, default=30)
    parser.add_argument("--messages", type=int, default=300)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        settings = parse_settings({
            "game": {"name": "Bench", "ruleset": "nomicam", "address": "game@bench.test",
                     "speaker": "speaker@bench.test", "speaker_name": "Speaker",
                     "admin_password": "pw"},
            "limits": {"replies_per_day": 100000},
            "database": {"url": f"sqlite:///{folder / 'bench.db'}"},
            "smtp": {"host": "127.0.0.1", "port": 25, "security": "none"},
            # Authenticated as the game's receiving server vouches (see _mail).
            "auth": {"authserv_id": ["mx.bench.test"]},
        }, path=folder / "bench.toml", environ={})
        store = Store(settings.database.url)
        store.upgrade()
        now = datetime(2026, 1, 1, tzinfo=UTC)
        service = GameService(store, settings, rng=random.Random(1), clock=lambda: now)
        service.start_game()
        voters = [f"v{i}@bench.test" for i in range(args.voters)]
        for i, voter in enumerate(voters):
            service.speaker_command(c.AddPlayer("speaker@bench.test", voter, f"Voter {i}"))
        for n in range(10):
            service.receive(_mail(voters[n], f"PROPOSE: Idea {n}", "Text.\n", n), now,
                            source="bench")
        service.process_pending()
        stored = 0.0
        t0 = time.perf_counter()
        for n in range(args.messages):
            voter = voters[n % len(voters)]
            raw = _mail(voter, "vote", f"VOTE {301 + n % 10} FOR\nSTATUS\n", 1000 + n)
            s0 = time.perf_counter()
            service.receive(raw, now + timedelta(seconds=n), source="bench")
            stored += time.perf_counter() - s0
        received = time.perf_counter() - t0
        t0 = time.perf_counter()
        done = service.process_pending()
        processed = time.perf_counter() - t0
        assert all(item.status == "processed" for item in done)
        pending = store.outbox_summary().pending
        store.close()
    print(f"{args.messages} ballot messages (each with STATUS) from {args.voters} voters")
    print(f"store raw message: {1000 * stored / args.messages:.2f} ms each")
    print(f"process (parse, apply, reply, commit): {1000 * processed / args.messages:.2f} ms "
          f"each, {args.messages / processed:.0f} messages/s")
    print(f"total with intake: {args.messages / (received + processed):.0f} messages/s; "
          f"{pending} messages waiting in the outbox")


def _mail(sender: str, subject: str, body: str, n: int) -> bytes:
    return ("Authentication-Results: mx.bench.test; dmarc=pass header.from=bench.test\r\n"
            f"From: {sender}\r\nTo: game@bench.test\r\nSubject: {subject}\r\n"
            "Date: Thu, 01 Jan 2026 00:00:00 +0000\r\n"
            f"Message-ID: <bench-{n}@bench.test>\r\n\r\n{body}").encode()


if __name__ == "__main__":
    main()
