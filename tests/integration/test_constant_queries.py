"""A message costs the same SQL statements whatever the size of the record and the outbox.

On SQLite and PostgreSQL, through ``GameService``: ballot messages with STATUS taken in one
by one, as the IMAP thread takes them. The statements the 400th runs are as many as the
5th's, though the record, the inbound table and the day's outbox have grown a hundredfold:
nothing on the mail path reads what is finished (sent mail, processed messages, the record's
past) more than through an index.

A tick with nothing to do reads one statement: the daemon ticks at every whole cycle of
every game it holds, and each of the tick's steps once looked for its own work in reads of
its own.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import contextmanager
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


class Game:
    """A game of ten voters on ``db_url``, and the clock it runs by (moved by the test)."""

    def __init__(self, service: GameService, clock: list[datetime]) -> None:
        self.service, self.clock = service, clock

    def take(self, raw: bytes) -> list[str]:
        """Take in one message received now, as the IMAP thread does."""
        return self.service.take_in([Received(raw, self.clock[0], "imap")])


@contextmanager
def _game(tmp_path: Path, db_url: str) -> Iterator[Game]:
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
        yield Game(service, clock)


@contextmanager
def _statements(service: GameService) -> Iterator[list[str]]:
    """Collect the statements ``service`` runs meanwhile (not SQLite's BEGIN and PRAGMAs)."""
    ran: list[str] = []

    def executed(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        if statement.split(None, 1)[0].upper() not in ("BEGIN", "PRAGMA"):
            ran.append(statement)

    event.listen(service.store.engine, "before_cursor_execute", executed)
    try:
        yield ran
    finally:
        event.remove(service.store.engine, "before_cursor_execute", executed)


def test_the_400th_message_runs_as_many_statements_as_the_5th(tmp_path: Path,
                                                               db_url: str) -> None:
    with _game(tmp_path, db_url) as game:
        service = game.service
        for n in range(3):
            service.speaker_command(c.Propose(VOTERS[n], f"Idea {n}", "Text."))
        counts: list[int] = []
        with _statements(service) as ran:
            for n in range(400):
                game.clock[0] += timedelta(seconds=30)
                before = len(ran)
                raw = _mail(VOTERS[n % 10], f"VOTE {301 + n % 3} FOR\nSTATUS\n", n)
                assert game.take(raw) == ["processed"]
                counts.append(len(ran) - before)
        assert service.store.last_event_seq() > 400
    assert counts[399] == counts[4] and set(counts[4:]) == {counts[4]}, sorted(set(counts))


def test_a_tick_with_nothing_to_do_runs_one_statement(tmp_path: Path, db_url: str) -> None:
    """An open vote, hand work to finish and a request for confirmation out: none due yet."""
    with _game(tmp_path, db_url) as game:
        service = game.service
        service.speaker_command(c.Propose(VOTERS[0], "Idea", "Text."))
        for n, voter in enumerate(VOTERS):
            assert game.take(_mail(voter, "VOTE 301 FOR\n", n)) == ["processed"]
        deadline = service.next_deadline()
        assert deadline is not None
        game.clock[0] = deadline  # closed: "Text." is adopted, and left to the host by hand
        service.tick()
        assert service.state().handwork
        service.speaker_command(c.Propose(VOTERS[1], "Another", "Text."))
        # A player's ballot that no receiving server vouches for: held, and a request out.
        unvouched = _mail(VOTERS[2], "VOTE 302 AGAINST\n", 99).split(b"\r\n", 1)[1]
        assert game.take(unvouched) == ["held"]
        service.tick()  # what the additions and the mail left to do is done
        assert service.store.next_confirmation_expiry() is not None
        game.clock[0] += timedelta(minutes=1)
        with _statements(service) as ran:
            assert service.tick() == []
        assert len(ran) == 1, ran
