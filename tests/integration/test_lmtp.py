"""The LMTP server, spoken to by smtplib's LMTP client over loopback."""

from __future__ import annotations

import logging
import smtplib
import socket
import threading
import tracemalloc
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import pytest

from speakerbot.adapters.lmtp import CannotListen, LmtpServer
from tests.support.patience import patience
from tests.support.ports import LOOPBACK, free_port

pytestmark = pytest.mark.integration

MESSAGE = (
    b"From: alice@example.test\r\n"
    b"To: speaker@example.test\r\n"
    b"Subject: a proposal\r\n"
    b"Message-ID: <p1@example.test>\r\n"
    b"\r\n"
    b"I propose that the Speaker be a robot.\r\n"
    b".a line that starts with a dot\r\n"
    b"..and one with two\r\n"
)


@dataclass(frozen=True)
class Stored:
    raw: bytes
    received_at: datetime
    mail_from: str
    recipients: list[str]


class Recorder:
    """A store that keeps what it is given, after calling an optional hook."""

    def __init__(self, hook: Callable[[], None] | None = None) -> None:
        self.calls: list[Stored] = []
        self._hook = hook
        self._lock = threading.Lock()

    def __call__(
        self, raw: bytes, received_at: datetime, mail_from: str, recipients: list[str]
    ) -> bool:
        """Keep the message; say whether it is new (a copy of one kept is a duplicate)."""
        if self._hook is not None:
            self._hook()
        with self._lock:
            new = all(call.raw != raw for call in self.calls)
            self.calls.append(Stored(raw, received_at, mail_from, recipients))
            return new


@pytest.fixture
def start() -> Iterator[Callable[..., LmtpServer]]:
    """Start LMTP servers on free ports, and stop them after the test."""
    servers: list[LmtpServer] = []

    def _start(store: Recorder, *, max_size: int | None = None, port: int = 0) -> LmtpServer:
        server = LmtpServer(LOOPBACK, port or free_port(), store, max_size=max_size)
        server.start()
        servers.append(server)
        return server

    yield _start
    for server in servers:
        server.stop()


def _client(server: LmtpServer) -> smtplib.LMTP:
    client = smtplib.LMTP(server.host, server.port, timeout=patience(5))
    client.ehlo()
    return client


def _transaction(
    client: smtplib.LMTP, mail_from: str, recipients: list[str], raw: bytes
) -> list[tuple[int, bytes]]:
    """Send one message and read one answer per recipient."""
    assert client.mail(mail_from)[0] == 250
    for recipient in recipients:
        assert client.rcpt(recipient)[0] == 250
    answers = [client.data(raw)]
    answers += [client.getreply() for _ in recipients[1:]]
    return answers


def _stream_data(
    client: smtplib.LMTP, recipients: list[str], chunks: Iterable[bytes]
) -> list[tuple[int, bytes]]:
    """Send a message body chunk by chunk (already dot-stuffed), one answer per recipient.

    Unlike ``client.data()``, the whole body is never in the test's memory.
    """
    assert client.mail("alice@example.test")[0] == 250
    for recipient in recipients:
        assert client.rcpt(recipient)[0] == 250
    assert client.docmd("DATA")[0] == 354
    for chunk in chunks:
        client.send(chunk)
    client.send(b"\r\n.\r\n")
    return [client.getreply() for _ in recipients]


def _no_reply_left_over(client: smtplib.LMTP) -> None:
    # NOOP's own answer: a surplus reply to DATA would be read here instead.
    assert client.noop() == (250, b"OK")


def _deliver_in_background(
    server: LmtpServer,
) -> tuple[threading.Thread, list[list[tuple[int, bytes]]]]:
    """Start delivering MESSAGE on a thread; its answers land in the list once it is done."""
    answers: list[list[tuple[int, bytes]]] = []

    def deliver() -> None:
        with _client(server) as client:
            answers.append(
                _transaction(client, "alice@example.test", ["speaker@example.test"], MESSAGE)
            )

    sender = threading.Thread(target=deliver)
    sender.start()
    return sender, answers


def test_stores_the_bytes_and_answers_250_for_each_recipient(
    start: Callable[..., LmtpServer],
) -> None:
    store = Recorder()
    server = start(store)
    recipients = ["speaker@example.test", "archive@example.test"]
    with _client(server) as client:
        before = datetime.now(UTC)
        answers = _transaction(client, "alice@example.test", recipients, MESSAGE)
        after = datetime.now(UTC)
        assert [code for code, _ in answers] == [250, 250]
        _no_reply_left_over(client)
    [stored] = store.calls
    assert stored.raw == (b"Return-Path: <alice@example.test>\r\n"
                          b"Delivered-To: speaker@example.test\r\n"
                          b"Delivered-To: archive@example.test\r\n" + MESSAGE)
    assert stored.mail_from == "alice@example.test"
    assert stored.recipients == recipients
    assert stored.received_at.utcoffset() == timedelta(0)
    assert before <= stored.received_at <= after


def test_eight_bit_garbage_passes_through_exactly(start: Callable[..., LmtpServer]) -> None:
    store = Recorder()
    server = start(store)
    garbage = bytes(b for b in range(256) if b not in b"\r\n")
    raw = b"Subject: \xff\xfe bytes\r\n\r\n" + garbage + b"\r\n\xc3\x28 not utf-8\r\n"
    with _client(server) as client:
        [(code, _)] = _transaction(client, "alice@example.test", ["speaker@example.test"], raw)
    assert code == 250
    assert store.calls[0].raw == (b"Return-Path: <alice@example.test>\r\n"
                                  b"Delivered-To: speaker@example.test\r\n" + raw)


def test_null_sender_gives_an_empty_return_path(start: Callable[..., LmtpServer]) -> None:
    store = Recorder()
    server = start(store)
    with _client(server) as client:
        [(code, _)] = _transaction(client, "", ["speaker@example.test"], MESSAGE)
    assert code == 250
    assert store.calls[0].mail_from == ""
    assert store.calls[0].raw == (b"Return-Path: <>\r\nDelivered-To: speaker@example.test\r\n"
                                  + MESSAGE)


def test_an_existing_return_path_is_kept(start: Callable[..., LmtpServer]) -> None:
    store = Recorder()
    server = start(store)
    raw = b"Return-Path: <>\r\n" + MESSAGE
    with _client(server) as client:
        _transaction(client, "mailer-daemon@example.test", ["speaker@example.test"], raw)
    assert store.calls[0].raw == (b"Return-Path: <>\r\nDelivered-To: speaker@example.test\r\n"
                                  + MESSAGE)


def test_lines_longer_than_rfc5321_allows_are_accepted(start: Callable[..., LmtpServer]) -> None:
    store = Recorder()
    server = start(store)
    raw = b"Subject: long\r\n\r\n" + b"x" * 5000 + b"\r\n"
    with _client(server) as client:
        [(code, _)] = _transaction(client, "alice@example.test", ["speaker@example.test"], raw)
    assert code == 250
    assert store.calls[0].raw.endswith(raw)


def test_a_failing_store_gives_451_for_each_recipient(start: Callable[..., LmtpServer]) -> None:
    def fail() -> None:
        raise RuntimeError("database is down")

    server = start(Recorder(fail))
    with _client(server) as client:
        answers = _transaction(
            client, "alice@example.test", ["speaker@example.test", "b@example.test"], MESSAGE
        )
        assert [code for code, _ in answers] == [451, 451]
        _no_reply_left_over(client)
        # The session goes on: the MTA can try the next message on the same connection.
        assert client.mail("alice@example.test")[0] == 250


def test_smtplib_sendmail_sees_a_temporary_error(start: Callable[..., LmtpServer]) -> None:
    def fail() -> None:
        raise OSError("disk full")

    server = start(Recorder(fail))
    with _client(server) as client, pytest.raises(smtplib.SMTPDataError) as caught:
        client.sendmail("alice@example.test", ["speaker@example.test"], MESSAGE)
    assert 400 <= caught.value.smtp_code < 500


def test_a_blocked_store_does_not_stop_other_connections(
    start: Callable[..., LmtpServer],
) -> None:
    entered = threading.Event()
    release = threading.Event()

    def block() -> None:
        entered.set()
        assert release.wait(patience(10)), "the test never released the store"

    server = start(Recorder(block))
    sender, answers = _deliver_in_background(server)
    try:
        assert entered.wait(patience(5)), "the store was never called"
        # While the first message is being stored, a second connection is greeted
        # and served.
        with smtplib.LMTP(server.host, server.port, timeout=patience(2)) as other:
            assert other.ehlo()[0] == 250
            assert other.noop() == (250, b"OK")
        assert not answers, "the first message was answered before its store returned"
    finally:
        release.set()
        sender.join(patience(10))
    assert [code for code, _ in answers[0]] == [250]


def test_too_big_a_message_gets_552_for_each_recipient(start: Callable[..., LmtpServer]) -> None:
    store = Recorder()
    server = start(store, max_size=1000)
    big = b"Subject: big\r\n\r\n" + (b"y" * 70 + b"\r\n") * 20
    with _client(server) as client:
        answers = _transaction(
            client, "alice@example.test", ["a@example.test", "b@example.test"], big
        )
        assert [code for code, _ in answers] == [552, 552]
        _no_reply_left_over(client)
        # Declared with SIZE, the message is refused at MAIL FROM.
        assert client.mail("alice@example.test", [f"SIZE={len(big)}"])[0] == 552
    assert store.calls == []


def test_a_message_five_times_too_big_gets_552_for_each_recipient_and_the_next_one_250(
    start: Callable[..., LmtpServer],
) -> None:
    store = Recorder()
    limit = 10_000
    server = start(store, max_size=limit)
    big = b"Subject: big\r\n\r\n" + (b"y" * 98 + b"\r\n") * (5 * limit // 100)
    assert len(big) > 5 * limit
    recipients = ["a@example.test", "b@example.test", "c@example.test"]
    with _client(server) as client:
        answers = _transaction(client, "alice@example.test", recipients, big)
        assert [code for code, _ in answers] == [552, 552, 552]
        _no_reply_left_over(client)
        assert store.calls == []
        # The same session delivers the next message as usual.
        answers = _transaction(client, "alice@example.test", recipients[:2], MESSAGE)
        assert [code for code, _ in answers] == [250, 250]
        _no_reply_left_over(client)
    [stored] = store.calls
    assert stored.raw == (b"Return-Path: <alice@example.test>\r\nDelivered-To: a@example.test"
                          b"\r\nDelivered-To: b@example.test\r\n" + MESSAGE)
    assert stored.recipients == recipients[:2]


@pytest.mark.parametrize(
    ("max_size", "one_line", "code"),
    [(64 * 1024, False, 552), (64 * 1024, True, 552), (None, True, 500)],
    ids=["short-lines", "one-long-line", "one-long-line-without-max-size"],
)
def test_oversized_data_is_thrown_away_while_it_is_read(
    start: Callable[..., LmtpServer], max_size: int | None, one_line: bool, code: int
) -> None:
    store = Recorder()
    server = start(store, max_size=max_size)
    total = 48 * 1024 * 1024
    chunk = b"x" * 65536 if one_line else (b"x" * 1022 + b"\r\n") * 64
    recipients = ["a@example.test", "b@example.test"]
    with _client(server) as client:
        tracemalloc.start()
        try:
            answers = _stream_data(client, recipients, (chunk for _ in range(total // len(chunk))))
            _current, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        assert [answer for answer, _ in answers] == [code, code]
        # The server's buffers (about 5 MiB: 2 MiB read ahead and copies of it), not 48 MiB.
        assert peak < 12 * 1024 * 1024, f"{peak / 2**20:.1f} MiB held while reading DATA"
        _no_reply_left_over(client)
        answers = _transaction(client, "alice@example.test", recipients, MESSAGE)
        assert [code for code, _ in answers] == [250, 250]
    assert [c.raw for c in store.calls] == [
        b"Return-Path: <alice@example.test>\r\nDelivered-To: a@example.test\r\n"
        b"Delivered-To: b@example.test\r\n" + MESSAGE]


def test_lhlo_advertises_size_and_mail_from_refuses_a_bigger_declared_size(
    start: Callable[..., LmtpServer],
) -> None:
    store = Recorder()
    server = start(store, max_size=1000)
    with _client(server) as client:
        assert client.has_extn("size")
        assert client.esmtp_features["size"] == "1000"
        code, reply = client.mail("alice@example.test", ["SIZE=1001"])
        assert code == 552, reply
        assert client.mail("alice@example.test", ["SIZE=1000"])[0] == 250
        assert client.rcpt("speaker@example.test")[0] == 250
        assert client.data(MESSAGE)[0] == 250
    assert len(store.calls) == 1
    unlimited = start(store)
    with _client(unlimited) as client:
        assert not client.has_extn("size")
        assert client.mail("alice@example.test", [f"SIZE={10**12}"])[0] == 250


def test_port_zero_picks_a_port(start: Callable[..., LmtpServer]) -> None:
    store = Recorder()
    server = LmtpServer(LOOPBACK, 0, store)
    server.start()
    try:
        assert server.port != 0
        with _client(server) as client:
            _transaction(client, "alice@example.test", ["speaker@example.test"], MESSAGE)
    finally:
        server.stop()
    assert len(store.calls) == 1


def test_stop_releases_the_port(start: Callable[..., LmtpServer]) -> None:
    store = Recorder()
    port = free_port()
    server = LmtpServer(LOOPBACK, port, store)
    server.start()
    with _client(server) as client:
        _transaction(client, "alice@example.test", ["speaker@example.test"], MESSAGE)
    server.stop()
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection((LOOPBACK, port), timeout=5).close()
    # A new server can listen on the same port straight away.
    again = start(store, port=port)
    with _client(again) as client:
        _transaction(client, "alice@example.test", ["speaker@example.test"], MESSAGE)
    assert len(store.calls) == 2


def test_start_fails_when_the_port_is_taken() -> None:
    with socket.create_server((LOOPBACK, 0)) as taken:
        port = taken.getsockname()[1]
        for shared in (False, True):  # another program's port is not shared, whatever we ask
            server = LmtpServer(LOOPBACK, port, Recorder(), shared=shared)
            with pytest.raises(CannotListen, match=f"cannot listen for LMTP on {LOOPBACK}:"
                                                   f"{port}: Address already in use"):
                server.start()
            server.stop()


def test_shared_listeners_take_one_port_and_the_survivor_takes_every_message() -> None:
    first_store, second_store = Recorder(), Recorder()
    first = LmtpServer(LOOPBACK, 0, first_store, shared=True)
    first.start()
    second = LmtpServer(LOOPBACK, first.port, second_store, shared=True)
    try:
        second.start()
        assert second.port == first.port
        first.stop()
        for _ in range(5):
            with _client(second) as client:
                [(code, _)] = _transaction(client, "alice@example.test",
                                           ["speaker@example.test"], MESSAGE)
                assert code == 250
        assert len(second_store.calls) == 5
    finally:
        first.stop()
        second.stop()


def test_stop_lets_a_message_being_stored_be_answered() -> None:
    entered = threading.Event()
    release = threading.Event()
    stopping = threading.Event()

    def block() -> None:
        entered.set()
        assert release.wait(patience(10)), "the test never released the store"

    class Observed(LmtpServer):
        async def _shutdown(self) -> None:
            stopping.set()
            await super()._shutdown()

    store = Recorder(block)
    server = Observed(LOOPBACK, free_port(), store)
    server.start()
    sender, answers = _deliver_in_background(server)
    stopper = threading.Thread(target=server.stop)
    try:
        assert entered.wait(patience(5)), "the store was never called"
        stopper.start()
        assert stopping.wait(patience(5)), "stop() never began"
    finally:
        release.set()
        stopper.join(patience(10))
        sender.join(patience(10))
    assert not stopper.is_alive()
    assert [code for code, _ in answers[0]] == [250]
    assert len(store.calls) == 1


def test_a_message_delivered_again_is_logged_as_stored_already_not_as_stored(
        start: Callable[..., LmtpServer], caplog: pytest.LogCaptureFixture) -> None:
    # Issue 40: the listener said "stored a message" for a duplicate the store drops.
    server = start(Recorder())
    raw = b"From: alice@example.test\r\nSubject: vote\r\n\r\nVOTE 301 FOR\r\n"
    with caplog.at_level(logging.INFO, logger="speakerbot.adapters.lmtp"):
        for _ in range(2):
            client = _client(server)
            assert _transaction(client, "alice@example.test", ["game@example.test"],
                                raw)[0][0] == 250
            client.quit()
    said = [record.getMessage() for record in caplog.records]
    assert sum(line.startswith("stored a message from <alice@example.test>")
               for line in said) == 1
    assert sum("was stored already; not stored again" in line for line in said) == 1
