"""Mail is read once: by LMTP, after a failed transaction, on a retry and after a restart.

Every read of a message's bytes goes through ``mail/inbound/intake.read_inbound``; what it
read is kept with the stored message. The tests count its calls for each message.
"""

from __future__ import annotations

import dataclasses
import random
import smtplib
import threading
from collections import Counter
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text

from speakerbot.config import LmtpConfig, SmtpConfig
from speakerbot.entrypoints.daemon import Daemon
from speakerbot.mail.inbound import intake as reader
from speakerbot.rfc5322 import message_id_of
from speakerbot.service import GameService, processing
from speakerbot.service.policy import Processed, Received
from tests.support.mailgame import ALICE, BOB, CAROL, GAME, MailGame, raw_mail
from tests.support.patience import patience
from tests.support.ports import LOOPBACK, free_port
from tests.support.smtp_sink import SmtpSink

pytestmark = pytest.mark.integration


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """How many times each message (by Message-ID) was read."""
    counted: Counter[str] = Counter()
    read_inbound = reader.read_inbound

    def counting(raw: bytes, *args: Any, **kwargs: Any) -> reader.Reading:
        counted[message_id_of(raw) or ""] += 1
        return read_inbound(raw, *args, **kwargs)

    monkeypatch.setattr(reader, "read_inbound", counting)
    return counted


@pytest.fixture
def game(tmp_path: Path) -> Iterator[MailGame]:
    mail = MailGame(tmp_path, "nomicam", [ALICE, BOB, CAROL])
    yield mail
    mail.close()


def test_a_message_delivered_by_lmtp_is_read_once(
        game: MailGame, smtp_sink: SmtpSink, reads: Counter[str]) -> None:
    game.clock.now = datetime.now(UTC)
    settings = dataclasses.replace(
        game.settings, lmtp=LmtpConfig(LOOPBACK, free_port()),
        smtp=SmtpConfig(smtp_sink.host, smtp_sink.port, "none", "", None))
    daemon = Daemon(settings, game.service, clock=lambda: game.clock.now,
                    rng=random.Random(1))
    stop = threading.Event()
    running = threading.Thread(target=daemon.run, args=(stop,))
    running.start()
    try:
        assert daemon.ready.wait(patience(10))
        message_id = "<lmtp-once@example.org>"
        raw = raw_mail(ALICE, "PROPOSE: Tea", "Tea at four.\n", message_id=message_id,
                       date=game.clock.now)
        with smtplib.LMTP(LOOPBACK, settings.lmtp.port if settings.lmtp else 0) as client:
            client.sendmail(ALICE, [GAME], raw)
        smtp_sink.wait_for(lambda m: b"Proposal 301: Tea" in m.data, timeout=patience(20))
    finally:
        stop.set()
        daemon.wake.set()
        running.join(patience(20))
    [row] = [row for row in game.store.list_inbound() if row.message_id == message_id]
    assert (row.source, row.status) == ("lmtp", "processed")
    assert reads[message_id] == 1


def test_a_message_whose_transaction_failed_is_not_read_again(
        game: MailGame, reads: Counter[str], monkeypatch: pytest.MonkeyPatch) -> None:
    # Each pass's batch fails, then the message's own transaction, twice: it is retried,
    # then taken by a new service on the same database (a restart), and read only at intake.
    handle_message = processing.handle_message
    failures = iter(range(4))

    def failing(*args: Any, **kwargs: Any) -> Processed:
        if next(failures, None) is not None:
            raise RuntimeError("the database went away")
        return handle_message(*args, **kwargs)

    monkeypatch.setattr(processing, "handle_message", failing)
    game.service.retry_delays = (0.0,) * 5
    message_id = "<retried@example.org>"
    raw = raw_mail(BOB, "VOTE", "STATUS\n", message_id=message_id, date=game.clock.now)
    [status] = game.service.take_in([Received(raw, game.clock.now, "imap", 1, 7)])
    assert status == "retry"
    game.clock.now += timedelta(minutes=1)
    assert [p.status for p in game.service.process_pending()] == ["retry"]
    restarted = GameService(game.store, game.settings, rng=random.Random(2),
                            clock=game.clock)
    game.clock.now += timedelta(minutes=1)
    assert [p.status for p in restarted.process_pending()] == ["processed"]
    assert [m.header("In-Reply-To") for m in game.outbox()].count(message_id) == 1
    assert reads[message_id] == 1


def test_a_message_kept_without_a_usable_reading_is_read_again_once(
        game: MailGame, reads: Counter[str]) -> None:
    # Mail stored before readings were kept (or by other code) has none: it is read from
    # its stored bytes when processed, once.
    message_id = "<older@example.org>"
    raw = raw_mail(CAROL, "status", "STATUS\n", message_id=message_id, date=game.clock.now)
    stored = game.service.receive(raw, game.clock.now, source="test")
    with game.store.engine.begin() as connection:
        connection.execute(text("UPDATE inbound SET reading = NULL WHERE id = :id"),
                           {"id": stored.id})
    assert [p.status for p in game.service.process_pending()] == ["processed"]
    assert reads[message_id] == 2


def test_a_held_message_whose_reading_cannot_be_kept_is_read_once_while_held(
        game: MailGame, reads: Counter[str], monkeypatch: pytest.MonkeyPatch) -> None:
    # Nothing can be kept (as for a header msgpack cannot write): the message is read at
    # intake, and the request for confirmation that lists it reads nothing again.
    monkeypatch.setattr(reader, "encode_reading", lambda reading, policy: None)
    message_id = "<held@example.org>"
    raw = raw_mail(ALICE, "vote", "VOTE 301 FOR\n", message_id=message_id,
                   date=game.clock.now, authenticated=False)
    [status] = game.service.take_in([Received(raw, game.clock.now, "imap", 1, 8)])
    assert status == "held"
    [request] = [m for m in game.outbox() if m.recipients == (ALICE,)
                 and "Please confirm" in m.subject]
    assert "VOTE 301 FOR" in request.body
    assert reads[message_id] == 1
