"""Connections to the relay kept between batches and shared by the games of a process.

A real SMTP sink on loopback; each game's sender is a ``SmtpSender`` of its own, sharing
one ``RelayPool``, as the games of ``speakerbot run`` with ``[[games]]`` do.
"""

from __future__ import annotations

from email.message import EmailMessage

import pytest

from speakerbot.adapters.relay import RelayPool
from speakerbot.adapters.smtp import SmtpSender, SmtpSettings
from tests.support.patience import patience
from tests.support.smtp_sink import SmtpSink

pytestmark = pytest.mark.integration

SENDER = "game+bounce@nomic.test"


def _message(subject: str) -> bytes:
    message = EmailMessage()
    message["From"] = "game@nomic.test"
    message["To"] = "game@nomic.test"
    message["Subject"] = subject
    message.set_content("A reply.\n")
    return message.as_bytes()


def _sender(sink: SmtpSink, pool: RelayPool) -> SmtpSender:
    return SmtpSender(SmtpSettings(host=sink.host, port=sink.port, security="none",
                                   timeout=patience(5)), pool=pool)


def test_the_next_batch_of_another_game_goes_over_the_kept_connection(
        smtp_sink: SmtpSink) -> None:
    pool = RelayPool()
    alpha, beta = _sender(smtp_sink, pool), _sender(smtp_sink, pool)
    with alpha.batch():
        assert alpha.send(SENDER, ["a@nomic.test"], _message("alpha's reply")).sent
    with beta.batch():
        assert beta.send(SENDER, ["b@nomic.test"], _message("beta's reply")).sent
    assert beta.send(SENDER, ["c@nomic.test"], _message("one alone")).sent
    peers = [message.peer for message in smtp_sink.messages]
    assert len(peers) == 3 and len(set(peers)) == 1, peers
    assert pool.reused == 2
    pool.close()


def test_a_kept_connection_the_relay_dropped_costs_nothing(smtp_sink: SmtpSink) -> None:
    pool = RelayPool()
    sender = _sender(smtp_sink, pool)
    assert sender.send(SENDER, ["a@nomic.test"], _message("before")).sent
    # The relay goes away and comes back: the kept connection is dead.
    smtp_sink.stop()
    smtp_sink.start()
    assert sender.send(SENDER, ["b@nomic.test"], _message("after")).sent
    first, second = smtp_sink.messages
    assert first.peer != second.peer
    pool.close()


def test_a_connection_kept_too_long_is_closed_not_used(smtp_sink: SmtpSink) -> None:
    now = [100.0]
    pool = RelayPool(keep_idle=5.0, clock=lambda: now[0])
    sender = _sender(smtp_sink, pool)
    assert sender.send(SENDER, ["a@nomic.test"], _message("first")).sent
    now[0] += 6.0
    assert sender.send(SENDER, ["b@nomic.test"], _message("later")).sent
    first, second = smtp_sink.messages
    assert first.peer != second.peer and pool.reused == 0
    pool.close()


def test_a_connection_whose_transaction_stopped_short_is_not_kept(smtp_sink: SmtpSink) -> None:
    pool = RelayPool()
    sender = _sender(smtp_sink, pool)
    smtp_sink.refuse_temporarily(451, "4.3.0 try later", at="mail")
    assert sender.send(SENDER, ["a@nomic.test"], _message("refused")).temporary_failure
    smtp_sink.accept()
    assert pool.take() is None
    smtp_sink.refuse_recipient("gone@nomic.test")
    refused = sender.send(SENDER, ["gone@nomic.test"], _message("to nobody"))
    assert refused.refused and pool.take() is None  # ended before DATA: QUIT, not kept
    pool.close()


def test_the_pool_keeps_at_most_its_number(smtp_sink: SmtpSink) -> None:
    pool = RelayPool(most=2)
    senders = [_sender(smtp_sink, pool) for _ in range(3)]
    batches = [sender.batch() for sender in senders]
    for n, (sender, batch) in enumerate(zip(senders, batches, strict=True)):
        batch.__enter__()
        assert sender.send(SENDER, [f"p{n}@nomic.test"], _message(f"game {n}")).sent
    for batch in batches:
        batch.__exit__(None, None, None)
    kept = [pool.take(), pool.take(), pool.take()]
    assert kept[0] is not None and kept[1] is not None and kept[2] is None
    for client in kept[:2]:
        pool.give(client)  # type: ignore[arg-type]
    pool.close()
