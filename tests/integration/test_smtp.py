"""The SMTP sender against real servers on loopback (its retry backoff: unit/test_backoff.py)."""

from __future__ import annotations

import asyncio
import logging
import socket
import time
from collections.abc import Iterator
from email.message import EmailMessage
from email.policy import SMTP as SMTP_POLICY

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, AuthResult, Envelope, LoginPassword, Session

from speakerbot.adapters.smtp import DeliveryResult, SmtpSender, SmtpSettings, Transaction
from speakerbot.adapters.transport import Security
from tests.support.patience import patience
from tests.support.ports import LOOPBACK, free_port
from tests.support.smtp_sink import SmtpSink, Stage

pytestmark = pytest.mark.integration

SENDER = "speaker@nomic.test"


def _message(subject: str = "Proposal 301 passes", body: str = "It passed.\n") -> bytes:
    msg = EmailMessage()
    msg["From"] = SENDER
    msg["To"] = "players@nomic.test"
    msg["Subject"] = subject
    msg["Message-ID"] = "<p301.result@nomic.test>"
    msg.set_content(body)
    return msg.as_bytes(policy=SMTP_POLICY)


@pytest.fixture(params=["pipelined", "one command at a time"])
def smtp_sink(request: pytest.FixtureRequest) -> Iterator[SmtpSink]:
    """The sink, offering PIPELINING (as relays do) or not: each test runs against both."""
    sink = SmtpSink(pipelining=request.param == "pipelined")
    sink.start()
    try:
        yield sink
    finally:
        sink.close()


def _sender(
    sink: SmtpSink, *, security: Security = "none", username: str = "", password: str = ""
) -> SmtpSender:
    settings = SmtpSettings(
        host=sink.host,
        port=sink.port,
        security=security,
        username=username,
        password=password,
        timeout=patience(5),
    )
    return SmtpSender(settings)


def _nothing_sent(result: DeliveryResult) -> None:
    assert result.temporary_failure is not None
    assert result.accepted == ()
    assert result.refused == {}
    assert not result.sent


def test_delivers_the_exact_bytes(smtp_sink: SmtpSink) -> None:
    raw = _message()
    recipients = ["alice@nomic.test", "bob@nomic.test"]
    result = _sender(smtp_sink).send(SENDER, recipients, raw)
    assert result == DeliveryResult(accepted=tuple(recipients), refused={}, temporary_failure=None)
    assert result.sent
    captured = smtp_sink.wait_for()
    assert captured.data == raw
    assert captured.mail_from == SENDER
    assert captured.rcpt_tos == tuple(recipients)
    assert captured.parsed()["Message-ID"] == "<p301.result@nomic.test>"


def test_eight_bit_and_dotted_lines_arrive_unchanged(smtp_sink: SmtpSink) -> None:
    raw = (
        b"From: speaker@nomic.test\r\nSubject: =?utf-8?q?R=C3=A9sultat?=\r\n"
        b"Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n"
        b"Le r\xc3\xa9sultat.\r\n.\r\n..two dots\r\n\xff\xfe\r\n"
    )
    result = _sender(smtp_sink).send(SENDER, ["alice@nomic.test"], raw)
    assert result.accepted == ("alice@nomic.test",)
    assert smtp_sink.wait_for().data == raw


@pytest.mark.parametrize("stage", ["mail", "rcpt", "data"])
def test_a_temporary_refusal_means_retry_later(smtp_sink: SmtpSink, stage: Stage) -> None:
    smtp_sink.refuse_temporarily(451, "4.3.0 Try again later", at=stage)
    sender = _sender(smtp_sink)
    result = sender.send(SENDER, ["alice@nomic.test", "bob@nomic.test"], _message())
    _nothing_sent(result)
    assert "451" in (result.temporary_failure or "")
    assert smtp_sink.messages == []
    # Once the relay accepts again, the same message goes through.
    smtp_sink.accept()
    again = sender.send(SENDER, ["alice@nomic.test", "bob@nomic.test"], _message())
    assert again.accepted == ("alice@nomic.test", "bob@nomic.test")
    assert smtp_sink.wait_for().data == _message()


def test_a_permanently_refused_recipient_does_not_stop_the_others(smtp_sink: SmtpSink) -> None:
    smtp_sink.refuse_recipient("ghost@nomic.test", 550, "5.1.1 No such user")
    recipients = ["alice@nomic.test", "ghost@nomic.test", "bob@nomic.test"]
    result = _sender(smtp_sink).send(SENDER, recipients, _message())
    assert result.temporary_failure is None
    assert result.accepted == ("alice@nomic.test", "bob@nomic.test")
    assert result.refused == {"ghost@nomic.test": "550 5.1.1 No such user"}
    assert smtp_sink.wait_for().rcpt_tos == ("alice@nomic.test", "bob@nomic.test")


def test_all_recipients_refused(smtp_sink: SmtpSink) -> None:
    smtp_sink.refuse_recipient("ghost@nomic.test")
    smtp_sink.refuse_recipient("phantom@nomic.test", 553, "5.1.3 Bad address")
    result = _sender(smtp_sink).send(SENDER, ["ghost@nomic.test", "phantom@nomic.test"], _message())
    assert result == DeliveryResult(
        accepted=(),
        refused={
            "ghost@nomic.test": "550 5.1.1 No such user",
            "phantom@nomic.test": "553 5.1.3 Bad address",
        },
        temporary_failure=None,
    )
    assert smtp_sink.messages == []


class _RefusingHandler:
    """Refuses for good at MAIL FROM or at the end of DATA."""

    def __init__(self, stage: str) -> None:
        self.stage = stage
        self.delivered = 0

    async def handle_MAIL(
        self, server: SMTP, session: Session, envelope: Envelope, address: str, options: list[str]
    ) -> str:
        if self.stage == "mail":
            return "550 5.7.1 Sender not allowed"
        envelope.mail_from = address
        return "250 OK"

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        if self.stage == "data":
            return "554 5.6.0 Content rejected"
        self.delivered += 1
        return "250 OK"


@pytest.fixture(params=["mail", "data"])
def refusing_relay(request: pytest.FixtureRequest) -> Iterator[tuple[Controller, str]]:
    stage: str = request.param
    controller = Controller(
        _RefusingHandler(stage), hostname=LOOPBACK, port=free_port(), server_hostname="relay.test"
    )
    controller.start()
    try:
        yield controller, stage
    finally:
        controller.stop()


def test_a_permanent_refusal_of_the_message_refuses_everyone(
    refusing_relay: tuple[Controller, str],
) -> None:
    controller, stage = refusing_relay
    settings = SmtpSettings(host=LOOPBACK, port=controller.port, security="none",
                            timeout=patience(5))
    result = SmtpSender(settings).send(SENDER, ["alice@nomic.test", "bob@nomic.test"], _message())
    answer = "550 5.7.1 Sender not allowed" if stage == "mail" else "554 5.6.0 Content rejected"
    assert result == DeliveryResult(
        accepted=(),
        refused={"alice@nomic.test": answer, "bob@nomic.test": answer},
        temporary_failure=None,
    )


def test_nothing_listening_is_temporary() -> None:
    settings = SmtpSettings(host=LOOPBACK, port=free_port(), security="none",
                            timeout=patience(5))
    result = SmtpSender(settings).send(SENDER, ["alice@nomic.test"], _message())
    _nothing_sent(result)
    assert "ConnectionRefusedError" in (result.temporary_failure or "")


def test_a_silent_server_is_temporary_within_the_timeout() -> None:
    # The kernel completes the connection from the listen backlog; nobody ever
    # accepts it, so no greeting comes.
    with socket.create_server((LOOPBACK, 0)) as silent:
        port = silent.getsockname()[1]
        settings = SmtpSettings(host=LOOPBACK, port=port, security="none", timeout=1.0)
        began = time.monotonic()
        result = SmtpSender(settings).send(SENDER, ["alice@nomic.test"], _message())
        elapsed = time.monotonic() - began
    _nothing_sent(result)
    assert elapsed < patience(4)


def test_starttls_not_offered_is_temporary(smtp_sink: SmtpSink) -> None:
    result = _sender(smtp_sink, security="starttls").send(SENDER, ["alice@nomic.test"], _message())
    _nothing_sent(result)
    assert "STARTTLS" in (result.temporary_failure or "")
    assert smtp_sink.messages == []


def test_tls_against_a_plain_server_is_temporary(smtp_sink: SmtpSink) -> None:
    result = _sender(smtp_sink, security="ssl").send(SENDER, ["alice@nomic.test"], _message())
    _nothing_sent(result)
    assert smtp_sink.messages == []


def test_a_failed_login_is_temporary_and_the_password_is_never_shown(
    smtp_sink: SmtpSink, caplog: pytest.LogCaptureFixture
) -> None:
    password = "correct-horse-battery-staple"
    sender = _sender(smtp_sink, username="speaker", password=password)
    with caplog.at_level(logging.DEBUG):
        result = sender.send(SENDER, ["alice@nomic.test"], _message())
    _nothing_sent(result)
    assert password not in (result.temporary_failure or "")
    assert password not in caplog.text
    assert password not in repr(sender.settings)
    assert smtp_sink.messages == []


def test_no_recipients_sends_nothing(smtp_sink: SmtpSink) -> None:
    result = _sender(smtp_sink).send(SENDER, [], _message())
    assert result == DeliveryResult(accepted=(), refused={}, temporary_failure=None)
    assert smtp_sink.messages == []


def test_unknown_security_is_refused() -> None:
    with pytest.raises(ValueError, match="security"):
        SmtpSettings(host=LOOPBACK, port=25, security="tls")  # type: ignore[arg-type]


class _Accepting:
    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        return "250 OK"


def _check_login(
    server: SMTP, session: Session, envelope: Envelope, mechanism: str, auth_data: object
) -> AuthResult:
    ok = isinstance(auth_data, LoginPassword) and (auth_data.login, auth_data.password) == (
        b"speaker",
        b"correct-horse",
    )
    return AuthResult(success=ok, handled=False)


@pytest.fixture
def auth_relay() -> Iterator[Controller]:
    controller = Controller(
        _Accepting(),
        hostname=LOOPBACK,
        port=free_port(),
        server_hostname="relay.test",
        authenticator=_check_login,
        auth_required=True,
        # Loopback only: TLS would need a certificate.
        auth_require_tls=False,
    )
    controller.start()
    try:
        yield controller
    finally:
        controller.stop()


@pytest.mark.filterwarnings("ignore:Requiring AUTH while not requiring TLS")
@pytest.mark.parametrize(("password", "sent"), [("correct-horse", True), ("wrong-horse", False)])
def test_login(
    auth_relay: Controller, password: str, sent: bool, caplog: pytest.LogCaptureFixture
) -> None:
    settings = SmtpSettings(
        host=LOOPBACK,
        port=auth_relay.port,
        security="none",
        username="speaker",
        password=password,
        timeout=patience(5),
    )
    with caplog.at_level(logging.DEBUG):
        result = SmtpSender(settings).send(SENDER, ["alice@nomic.test"], _message())
    if sent:
        assert result.accepted == ("alice@nomic.test",)
    else:
        _nothing_sent(result)
        assert "535" in (result.temporary_failure or "")
    assert password not in caplog.text
    assert password not in (result.temporary_failure or "")


def test_a_batch_keeps_one_connection_and_drops_it_on_any_error(smtp_sink: SmtpSink) -> None:
    sender = _sender(smtp_sink)
    with sender.batch():
        for n in range(3):
            assert sender.send(SENDER, [f"p{n}@nomic.test"], _message(f"batch {n}")).sent
    peers = [message.peer for message in smtp_sink.messages]
    assert len(peers) == 3 and len(set(peers)) == 1, peers
    # Outside a batch, a connection per message.
    for n in range(2):
        assert sender.send(SENDER, [f"q{n}@nomic.test"], _message(f"single {n}")).sent
    assert len({message.peer for message in smtp_sink.messages[3:]} | set(peers)) == 3
    # An error inside a batch drops the connection; the next message opens another.
    smtp_sink.clear()
    with sender.batch():
        assert sender.send(SENDER, ["a@nomic.test"], _message("before")).sent
        smtp_sink.refuse_temporarily(451, "4.3.0 try later", at="data")
        assert sender.send(SENDER, ["b@nomic.test"], _message("refused")).temporary_failure
        smtp_sink.accept()
        assert sender.send(SENDER, ["c@nomic.test"], _message("after")).sent
    before, after = smtp_sink.messages
    assert before.peer != after.peer


def test_a_batch_of_many_messages_opens_one_connection(smtp_sink: SmtpSink) -> None:
    sender = _sender(smtp_sink)
    with sender.batch():
        for n in range(10):
            assert sender.send(SENDER, [f"p{n}@nomic.test"], _message(f"batch {n}")).sent
    assert len(smtp_sink.messages) == 10
    assert len({message.peer for message in smtp_sink.messages}) == 1


def test_a_batch_reconnects_after_the_server_dropped_its_connection(smtp_sink: SmtpSink) -> None:
    sender = _sender(smtp_sink)
    with sender.batch():
        assert sender.send(SENDER, ["a@nomic.test"], _message("before")).sent
        # The server goes away and comes back: the kept connection is dead.
        smtp_sink.stop()
        smtp_sink.start()
        assert sender.send(SENDER, ["b@nomic.test"], _message("after")).sent
        assert sender.send(SENDER, ["c@nomic.test"], _message("after, again")).sent
    first, second, third = smtp_sink.messages
    assert first.peer != second.peer
    assert second.peer == third.peer


class _SlowOnce:
    """Accepts every message, but sits on the first one marked slow past the client's timeout."""

    def __init__(self) -> None:
        self.peers: list[object] = []
        self.stalled = False

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        content = envelope.content if isinstance(envelope.content, bytes) else b""
        if b"Subject: slow" in content and not self.stalled:
            self.stalled = True
            await asyncio.sleep(patience(2))  # past the client's timeout, scaled alike
        self.peers.append(session.peer)
        return "250 OK"


def test_a_timeout_inside_a_batch_drops_the_connection() -> None:
    handler = _SlowOnce()
    controller = Controller(
        handler, hostname=LOOPBACK, port=free_port(), server_hostname="relay.test"
    )
    controller.start()
    try:
        settings = SmtpSettings(host=LOOPBACK, port=controller.port, security="none",
                                timeout=patience(0.5))
        sender = SmtpSender(settings)
        with sender.batch():
            assert sender.send(SENDER, ["a@nomic.test"], _message("fast")).sent
            _nothing_sent(sender.send(SENDER, ["b@nomic.test"], _message("slow")))
            assert sender.send(SENDER, ["c@nomic.test"], _message("fast again")).sent
    finally:
        controller.stop()
    # The stalled message may still be taken by the server once it wakes; what matters is
    # that the message after the timeout went over a new connection.
    assert handler.peers[0] != handler.peers[-1]


def test_a_transaction_stopped_short_is_reset_and_the_connection_kept(
        smtp_sink: SmtpSink) -> None:
    # Every recipient refused: the transaction ends before DATA, so the next one needs
    # RSET; a transaction that ended with DATA's answer needs none. One connection for all.
    sender = _sender(smtp_sink)
    smtp_sink.refuse_recipient("gone@nomic.test", 550, "5.1.1 no such user")
    with sender.batch():
        assert sender.send(SENDER, ["a@nomic.test"], _message("first")).sent
        refused = sender.send(SENDER, ["gone@nomic.test"], _message("to nobody"))
        assert not refused.sent and "gone@nomic.test" in refused.refused
        assert refused.temporary_failure is None
        assert sender.send(SENDER, ["b@nomic.test"], _message("after the refusal")).sent
        assert sender.send(SENDER, ["c@nomic.test"], _message("and after that")).sent
    assert [m.rcpt_tos for m in smtp_sink.messages] == [
        ("a@nomic.test",), ("b@nomic.test",), ("c@nomic.test",)]
    assert len({m.peer for m in smtp_sink.messages}) == 1


def test_copies_go_in_transactions_of_their_own_over_one_connection(
        smtp_sink: SmtpSink) -> None:
    smtp_sink.refuse_recipient("ghost@nomic.test", 550, "5.1.1 No such user")
    copies = [Transaction(f"nomic+bounce-{n}@nomic.test", (recipient,), _message())
              for n, recipient in enumerate(("alice@nomic.test", "ghost@nomic.test",
                                             "bob@nomic.test"))]
    results = _sender(smtp_sink).send_each(copies)
    assert [(r.accepted, r.refused) for r in results] == [
        (("alice@nomic.test",), {}), ((), {"ghost@nomic.test": "550 5.1.1 No such user"}),
        (("bob@nomic.test",), {})]
    smtp_sink.wait_for(lambda m: "bob@nomic.test" in m.rcpt_tos)
    assert [(m.mail_from, m.rcpt_tos, m.data) for m in smtp_sink.messages] == [
        ("nomic+bounce-0@nomic.test", ("alice@nomic.test",), _message()),
        ("nomic+bounce-2@nomic.test", ("bob@nomic.test",), _message())]
    assert len({m.peer for m in smtp_sink.messages}) == 1
