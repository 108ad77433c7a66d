"""A backlog of deadlines is settled in bounded transactions, and mail gets in between.

On SQLite and PostgreSQL, through ``GameService``: 45 votes fall due at once (as after an
outage). The tick commits them at most ``TICK_BUDGET`` at a time, the events exactly those
of one tick; a ballot that arrives behind the backlog waits, stored, until the deadlines
before it are settled, then is read (too late for the votes that closed before it); and a
message taken in while the backlog is being settled gets the lock between two of its
transactions rather than after all of them.
"""

from __future__ import annotations

import contextlib
import random
import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event

from speakerbot.adapters.store import Store
from speakerbot.config import Settings, parse_settings
from speakerbot.engine import commands as c
from speakerbot.engine import replay, tick
from speakerbot.engine.codec import event_from_json
from speakerbot.engine.luck import SeededDraws
from speakerbot.service import GameService
from speakerbot.service.policy import TICK_BUDGET, Received
from tests.support.patience import patience

SPEAKER = "chuck@example.org"
PLAYERS = [f"p{n}@backlog.test" for n in range(4)]
T0 = datetime(2026, 1, 5, 12, tzinfo=UTC)
VOTES = 45  # three transactions' worth


def _settings(tmp_path: Path, db_url: str) -> Settings:
    return parse_settings({
        "game": {"name": "Backlog", "ruleset": "nomicam", "address": "game@backlog.test",
                 "speaker": SPEAKER, "speaker_name": "Chuck", "admin_password": "pw"},
        "mechanics": {"win_points": "1000000", "reminder_before": "none"},
        "limits": {"proposals_per_day": 1000},
        "database": {"url": db_url},
        "smtp": {"host": "127.0.0.1", "port": 25, "security": "none"},
        "auth": {"authserv_id": ["mx.backlog.test"]},
    }, path=tmp_path / "backlog.toml", environ={})


def _mail(sender: str, body: str, n: int) -> bytes:
    return ("Authentication-Results: mx.backlog.test; dmarc=pass header.from=backlog.test\r\n"
            f"From: {sender}\r\nTo: game@backlog.test\r\nSubject: votes\r\n"
            "Date: Mon, 12 Jan 2026 12:00:00 +0000\r\n"
            f"Message-ID: <backlog-{n}@backlog.test>\r\n\r\n{body}").encode()


class Clock:
    """The service's clock, moved by the test."""

    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def game(tmp_path: Path, db_url: str) -> Iterator[tuple[GameService, Clock]]:
    clock = Clock()
    settings = _settings(tmp_path, db_url)
    with Store(db_url) as store:
        store.upgrade()
    with GameService.open(settings, rng=random.Random(7), clock=clock) as service:
        service.start_game()
        for n, player in enumerate(PLAYERS):
            service.speaker_command(c.AddPlayer(SPEAKER, player, f"Player {n}"))
        for n in range(VOTES):
            clock.now = T0 + timedelta(minutes=n)
            service.speaker_command(c.Propose(PLAYERS[n % 4], f"Idea {n}", "Text."))
        yield service, clock


class Commits:
    """The votes closed in each transaction the store commits (the store's own commits)."""

    def __init__(self, service: GameService) -> None:
        self.service = service
        self.closed: list[int] = []
        self.hooks: list[Any] = []
        self._appending = 0
        append = service.store.append_events

        def counted(session: Any, events: Any, **options: Any) -> int:
            self._appending += sum(data["type"] == "VoteClosed" for data in events)
            return append(session, events, **options)

        service.store.append_events = counted  # type: ignore[method-assign]
        event.listen(service.store.engine, "commit", self._committed)

    def _committed(self, _: Any) -> None:
        closed, self._appending = self._appending, 0
        self.closed.append(closed)
        if closed:  # a piece of the backlog, committed under the service's lock
            for hook in self.hooks:
                hook()

    def stop(self) -> None:
        event.remove(self.service.store.engine, "commit", self._committed)
        del self.service.store.append_events


def test_a_backlog_is_settled_in_bounded_transactions_and_a_ballot_behind_it_waits(
        game: tuple[GameService, Clock]) -> None:
    service, clock = game
    start = service.state()
    start_record = service.store.load_events()
    clock.now = T0 + timedelta(days=8)  # every vote closed a day ago
    draws = SeededDraws.by_chance(random.Random(7).randrange)
    expected = tick(start, clock.now - timedelta(minutes=1), draws)[1]
    # A ballot arrives behind the backlog: its processing settles one piece, then it waits.
    late = Received(_mail(PLAYERS[0], "VOTE 301 FOR\n", 1), clock.now - timedelta(minutes=1),
                    "imap")
    assert service.take_in([late]) == ["new"]
    commits = Commits(service)
    try:
        service.tick(clock.now)
    finally:
        commits.stop()
    closed = [n for n in commits.closed if n]
    assert sum(closed) == VOTES - TICK_BUDGET and max(closed) <= TICK_BUDGET
    assert len(closed) >= 2
    [done] = service.process_pending()
    assert done.status == "processed"
    record = [event_from_json(row.data) for row in service.store.load_events()]
    # The pieces are the one tick, and the late ballot was read after them: its vote had
    # closed, so it was refused.
    assert record[len(start_record):] == expected
    [reply] = [row for row in service.store.due_outbox(clock.now + timedelta(days=1), 10**6)
               if row.kind == "reply" and row.recipients == (PLAYERS[0],)]
    assert b"is over for it; it does not count" in reply.raw
    assert replay(record) == service.state()


def test_mail_taken_in_during_a_backlog_gets_in_between_two_of_its_transactions(
        game: tuple[GameService, Clock]) -> None:
    service, clock = game
    clock.now = T0 + timedelta(days=8)
    commits = Commits(service)
    taken: list[int] = []  # how many transactions the tick had committed when mail got in
    intake_lock = service.states.intake_lock

    @contextlib.contextmanager
    def counted_when_taken() -> Iterator[None]:
        # Counted as the mail gets the lock: after it lets go, a busy machine may run the
        # tick's next transactions before this thread runs again.
        with intake_lock():
            taken.append(sum(1 for n in commits.closed if n))
            yield

    service.states.intake_lock = counted_when_taken  # type: ignore[method-assign]

    def take_in() -> None:
        service.take_in([Received(_mail(PLAYERS[1], "STATUS\n", 2), clock.now, "imap")])

    intake = threading.Thread(target=take_in)

    def start_intake_once() -> None:
        if intake.ident is None:  # at the first transaction's commit, the lock still held
            intake.start()
            with service.states.turns:
                assert service.states.turns.wait_for(
                    lambda: service.states.waiting_for_lock == 1, patience(10))

    commits.hooks.append(start_intake_once)
    try:
        service.tick(clock.now)
    finally:
        commits.stop()
    intake.join(patience(10))
    assert not intake.is_alive()
    total = sum(1 for n in commits.closed if n)
    assert total >= 3 and taken and taken[0] < total
