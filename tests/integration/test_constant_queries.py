"""A message costs the same SQL statements whatever the size of the record and the outbox.

On SQLite and PostgreSQL, through ``GameService``: ballot messages with STATUS taken in one
by one, as the IMAP thread takes them. The statements the 400th runs are as many as the
5th's, though the record, the inbound table and the day's outbox have grown a hundredfold:
nothing on the mail path reads what is finished (sent mail, processed messages, the record's
past) more than through an index.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import event

from speakerbot.adapters.store import Store
from speakerbot.config import parse_settings
from speakerbot.engine import commands as c
from speakerbot.service import GameService
from speakerbot.service.policy import Received

SPEAKER = "chuck@example.org"
VOTERS = [f"v{n}@queries.test" for n in range(10)]
T0 = datetime(2026, 1, 5, 12, tzinfo=UTC)


def _mail(sender: str, body: str, n: int) -> bytes:
    return ("Authentication-Results: mx.queries.test; dmarc=pass header.from=queries.test\r\n"
            f"From: {sender}\r\nTo: game@queries.test\r\nSubject: votes\r\n"
            "Date: Mon, 05 Jan 2026 12:00:00 +0000\r\n"
            f"Message-ID: <queries-{n}@queries.test>\r\n\r\n{body}").encode()


def test_the_400th_message_runs_as_many_statements_as_the_5th(tmp_path: Path,
                                                               db_url: str) -> None:
    settings = parse_settings({
        "game": {"name": "Queries", "ruleset": "nomicam", "address": "game@queries.test",
                 "speaker": SPEAKER, "speaker_name": "Chuck", "admin_password": "pw"},
        "limits": {"replies_per_day": 100000},
        "database": {"url": db_url, "snapshot_every": 0},
        "smtp": {"host": "127.0.0.1", "port": 25, "security": "none"},
        "auth": {"authserv_id": ["mx.queries.test"]},
    }, path=tmp_path / "queries.toml", environ={})
    with Store(db_url) as store:
        store.upgrade()
    clock = [T0]
    with GameService.open(settings, rng=random.Random(1), clock=lambda: clock[0]) as service:
        service.start_game()
        for n, voter in enumerate(VOTERS):
            service.speaker_command(c.AddPlayer(SPEAKER, voter, f"Voter {n}"))
        for n in range(3):
            service.speaker_command(c.Propose(VOTERS[n], f"Idea {n}", "Text."))
        counts: list[int] = []

        def executed(*_: Any) -> None:
            counts[-1] += 1

        event.listen(service.store.engine, "before_cursor_execute", executed)
        try:
            for n in range(400):
                clock[0] += timedelta(seconds=30)
                counts.append(0)
                raw = _mail(VOTERS[n % 10], f"VOTE {301 + n % 3} FOR\nSTATUS\n", n)
                assert service.take_in([Received(raw, clock[0], "imap")]) == ["processed"]
        finally:
            event.remove(service.store.engine, "before_cursor_execute", executed)
        assert service.store.last_event_seq() > 400
    assert counts[399] == counts[4] and set(counts[4:]) == {counts[4]}, sorted(set(counts))
