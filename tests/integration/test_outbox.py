"""The outbox delivering through a real SMTP server: one recipient deferred holds back no one."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest

from speakerbot.adapters.smtp import SmtpSender, SmtpSettings
from speakerbot.config import SmtpConfig
from speakerbot.entrypoints.daemon import Daemon
from tests.support.mailgame import ALICE, BOB, CAROL, MailGame
from tests.support.patience import patience
from tests.support.smtp_sink import SmtpSink


def test_a_recipient_refused_for_now_is_deferred_and_the_others_get_the_message(
        smtp_sink: SmtpSink) -> None:
    smtp_sink.refuse_recipient(BOB, 452, "4.2.2 Mailbox full")
    sender = SmtpSender(SmtpSettings(smtp_sink.host, smtp_sink.port, "none"))
    result = sender.send("game@x.test", [ALICE, BOB, CAROL], b"Subject: x\r\n\r\nHello\r\n")
    assert result.temporary_failure is None and result.accepted == (ALICE, CAROL)
    assert list(result.deferred) == [BOB] and "452" in result.deferred[BOB]
    assert smtp_sink.wait_for(timeout=patience(5)).rcpt_tos == (ALICE, CAROL)
    # A copy to Bob alone (VERP): his mailbox's answer, not the server's; the session goes on.
    alone = sender.send("game@x.test", [BOB], b"Subject: x\r\n\r\nHello\r\n")
    assert alone.temporary_failure is None and not alone.accepted
    assert list(alone.deferred) == [BOB]
    assert sender.send("game@x.test", [ALICE], b"Subject: y\r\n\r\nHello\r\n").accepted == (
        ALICE,)
    # Every recipient of several put off: the server is unhappy, the whole message waits.
    smtp_sink.refuse_recipient(CAROL, 452, "4.2.2 Mailbox full")
    everyone = sender.send("game@x.test", [BOB, CAROL], b"Subject: x\r\n\r\nHello\r\n")
    assert everyone.temporary_failure is not None and not everyone.accepted


@pytest.fixture
def game(tmp_path: Path, smtp_sink: SmtpSink) -> Iterator[tuple[MailGame, Daemon]]:
    mail = MailGame(tmp_path, "nomicam", [ALICE, BOB, CAROL])
    settings = dataclasses.replace(
        mail.settings, smtp=SmtpConfig(smtp_sink.host, smtp_sink.port, "none", "", None))
    daemon = Daemon(settings, mail.service, clock=lambda: mail.clock.now,
                    rng=random.Random(1))
    yield mail, daemon
    mail.close()


def test_the_outbox_sends_to_the_others_and_retries_only_the_deferred(
        game: tuple[MailGame, Daemon], smtp_sink: SmtpSink) -> None:
    mail, daemon = game
    daemon.send_outbox()  # the overrides that added the players
    smtp_sink.clear()
    smtp_sink.refuse_recipient(BOB, 452, "4.2.2 Mailbox full")
    mail.send(ALICE, "PROPOSE: Tea", "Tea at four.\n")
    daemon.send_outbox()
    announced = [m for m in smtp_sink.messages if b"Proposal 301: Tea" in m.data]
    reached = [address for m in announced for address in m.rcpt_tos]
    # Each copy alone, from its own return path: Bob's full mailbox held back no one after him.
    assert BOB not in reached and {ALICE, CAROL} <= set(reached)
    assert {len(m.rcpt_tos) for m in announced} == {1}
    waiting = mail.store.outbox_summary()
    assert waiting.pending == 1
    smtp_sink.accept_recipient(BOB)
    mail.clock.now += timedelta(hours=2)  # past any backoff
    daemon.send_outbox()
    again = [m for m in smtp_sink.messages if b"Proposal 301: Tea" in m.data]
    assert [m.rcpt_tos for m in again] == [*(m.rcpt_tos for m in announced), (BOB,)]
    assert len({m.parsed()["Message-ID"] for m in again}) == 1
    assert mail.store.outbox_summary().pending == 0


def test_a_recipient_deferred_for_too_long_is_given_up_and_shown(
        game: tuple[MailGame, Daemon], smtp_sink: SmtpSink) -> None:
    mail, daemon = game
    smtp_sink.refuse_recipient(CAROL, 452, "4.2.2 Mailbox full")
    give_up_after = timedelta(seconds=daemon.settings.require_outbound().give_up_after)
    assert give_up_after == timedelta(days=5)  # the documented default, as Postfix's queue
    start = mail.clock.now
    while mail.clock.now < start + give_up_after - timedelta(hours=2):
        daemon.send_outbox()
        mail.clock.now += timedelta(hours=2)
    # Two messages wait for Carol: the players' additions announced, and her welcome.
    assert mail.store.outbox_summary().pending == 2, "given up before give_up_after"
    while mail.clock.now < start + give_up_after + timedelta(hours=2):
        daemon.send_outbox()
        mail.clock.now += timedelta(hours=2)
    summary = mail.store.outbox_summary()
    assert summary.pending == 0
    assert any(rcpt == CAROL and "given up" in answer for _, rcpt, answer in summary.refused)
