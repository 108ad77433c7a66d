"""RFC 2920 PIPELINING: a copy's MAIL FROM, RCPT TO and DATA go to the relay in one group.

The relay here is strict: it answers nothing of a transaction until it holds the whole
group, up to DATA. A client that waited for the answer to MAIL FROM would wait forever
(until its timeout), so every message taken proves the commands were pipelined. It
refuses ``gone@`` addresses, and opens DATA only for a transaction with a recipient. It
refuses a message to ``spam@`` for good at its end (554), and puts off one to ``busy@``
(451). Told to hold ``ahead`` answers, it answers a message's end only once the next
transaction's group has come: a client that waited for that answer before writing the
next group would wait forever too. Told to take ``per_connection`` messages on a connection,
it closes its side after the last one's answer, reading nothing more, as a relay that takes
so many messages a connection does; or, told ``says_421``, it first answers the next MAIL
FROM ``421``, as Exim does past ``smtp_accept_max_per_connection``.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import BinaryIO, TypeVar

import pytest

from speakerbot.adapters.smtp import SmtpSender, SmtpSettings, Transaction
from tests.support.patience import patience
from tests.support.ports import LOOPBACK

pytestmark = pytest.mark.integration

SENDER = "nomic+bounce-1@nomic.test"


@dataclass
class _Transaction:
    mail_from: str
    recipients: list[str]
    data: bytes = b""


@dataclass
class StrictRelay:
    """A one-connection-at-a-time SMTP relay that demands pipelined groups."""

    listener: socket.socket
    transactions: list[_Transaction] = field(default_factory=list)
    connections: int = 0
    ahead: int = 0
    per_connection: int = 0
    says_421: bool = False
    sessions_over: threading.Semaphore = field(default_factory=lambda: threading.Semaphore(0))

    @property
    def port(self) -> int:
        return int(self.listener.getsockname()[1])

    def serve(self) -> None:
        while True:
            try:
                connection, _ = self.listener.accept()
            except OSError:
                return  # closed: the test is over
            self.connections += 1
            with connection, contextlib.suppress(OSError):  # OSError: the client left
                self._session(connection)
            self.sessions_over.release()

    def _session(self, connection: socket.socket) -> None:
        reader = connection.makefile("rb")
        connection.sendall(b"220 strict.test ESMTP\r\n")
        while line := reader.readline():
            verb = line[:4].upper()
            if verb == b"EHLO":
                connection.sendall(b"250-strict.test\r\n250-PIPELINING\r\n250 8BITMIME\r\n")
            elif verb == b"MAIL":
                taken = len(self.transactions)
                self._transaction(connection, reader, line)
                if self.per_connection and len(self.transactions) - taken >= self.per_connection:
                    if self.says_421 and reader.readline().upper().startswith(b"MAIL"):
                        connection.sendall(b"421 4.7.0 too many messages, closing\r\n")
                    connection.shutdown(socket.SHUT_WR)  # no more here; what comes is dropped
                    while reader.readline():
                        pass
                    return
            elif verb == b"QUIT":
                connection.sendall(b"221 bye\r\n")
                return
            else:  # RSET, NOOP
                connection.sendall(b"250 OK\r\n")

    def _transaction(self, connection: socket.socket, reader: BinaryIO, mail: bytes) -> None:
        """Read the group up to DATA before answering any of it; then take the message."""
        transaction = _Transaction(mail.split(b":", 1)[1].split()[0].decode().strip("<>"), [])
        answers = [b"250 OK"]
        while (line := reader.readline()).upper().startswith(b"RCPT"):
            address = line.split(b":", 1)[1].strip().decode().strip("<>")
            if address.startswith("gone@"):
                answers.append(b"550 5.1.1 no such user")
            else:
                transaction.recipients.append(address)
                answers.append(b"250 OK")
        if not line.upper().startswith(b"DATA"):
            return  # the client gave up waiting for an answer, or spoke out of turn
        if not transaction.recipients:
            connection.sendall(b"\r\n".join([*answers, b"554 5.5.1 no valid recipients"])
                               + b"\r\n")
            return
        connection.sendall(b"\r\n".join([*answers, b"354 go on"]) + b"\r\n")
        data = b""
        while (line := reader.readline()) != b".\r\n":
            if not line:
                return  # the connection closed before the message's end: nothing taken
            data += line[1:] if line.startswith(b".") else line
        transaction.data = data
        answer = b"250 2.0.0 queued\r\n"
        if transaction.recipients[0].startswith("spam@"):
            answer = b"554 5.6.0 content rejected\r\n"
        elif transaction.recipients[0].startswith("busy@"):
            answer = b"451 4.3.0 try again later\r\n"
        else:
            self.transactions.append(transaction)
        if self.ahead:
            self.ahead -= 1
            following = reader.readline()  # the next group, which must not wait for this
            connection.sendall(answer)
            if following.upper().startswith(b"MAIL"):
                self._transaction(connection, reader, following)
            return
        connection.sendall(answer)


Served = TypeVar("Served", bound=StrictRelay)


@contextlib.contextmanager
def _serving(kind: type[Served]) -> Iterator[Served]:
    """Serve a relay of ``kind`` on a loopback port in a thread, for the block."""
    listener = socket.create_server((LOOPBACK, 0))
    served = kind(listener)
    thread = threading.Thread(target=served.serve, daemon=True)
    thread.start()
    try:
        yield served
    finally:
        listener.shutdown(socket.SHUT_RDWR)  # wakes the accept() the thread waits in
        listener.close()
        thread.join(patience(5))


@pytest.fixture
def relay() -> Iterator[StrictRelay]:
    with _serving(StrictRelay) as strict:
        yield strict


def _sender(relay: StrictRelay, *, pipelining: bool = True) -> SmtpSender:
    return SmtpSender(SmtpSettings(host=LOOPBACK, port=relay.port, security="none",
                                   timeout=patience(2)), pipelining=pipelining)


MESSAGE = (b"From: Nomic <nomic@nomic.test>\r\nSubject: Proposal 301\r\n"
           b"Message-ID: <p301@nomic.test>\r\n\r\nA body.\r\n.A line with a dot.\r\n")


def test_each_copy_goes_as_one_group_over_one_connection(relay: StrictRelay) -> None:
    sender = _sender(relay)
    with sender.batch():
        for recipient in ("a@nomic.test", "b@nomic.test", "c@nomic.test"):
            result = sender.send(SENDER, [recipient], MESSAGE)
            assert result.sent and result.accepted == (recipient,), result
    assert [t.recipients for t in relay.transactions] == [
        ["a@nomic.test"], ["b@nomic.test"], ["c@nomic.test"]]
    # The copies are the message's bytes: the transparency dot taken off again.
    assert {t.data for t in relay.transactions} == {MESSAGE}
    assert relay.connections == 1


def test_a_refused_recipient_in_the_group_leaves_the_others_and_the_session(
        relay: StrictRelay) -> None:
    sender = _sender(relay)
    with sender.batch():
        some = sender.send(SENDER, ["a@nomic.test", "gone@nomic.test", "b@nomic.test"],
                           MESSAGE)
        assert some.accepted == ("a@nomic.test", "b@nomic.test"), some
        assert some.refused == {"gone@nomic.test": "550 5.1.1 no such user"}
        # Every recipient refused: the relay refuses DATA, nothing is sent, and the
        # session stays in step for the next copy.
        none = sender.send(SENDER, ["gone@nomic.test"], MESSAGE)
        assert not none.sent and none.temporary_failure is None
        assert none.refused == {"gone@nomic.test": "550 5.1.1 no such user"}
        assert sender.send(SENDER, ["c@nomic.test"], MESSAGE).sent
    assert [t.recipients for t in relay.transactions] == [
        ["a@nomic.test", "b@nomic.test"], ["c@nomic.test"]]
    assert relay.connections == 1


def test_without_pipelining_the_strict_relay_is_never_answered(relay: StrictRelay) -> None:
    # The test's own check: a client that waits after MAIL FROM gets nothing from it.
    result = _sender(relay, pipelining=False).send(SENDER, ["a@nomic.test"], MESSAGE)
    assert result.temporary_failure is not None and not relay.transactions


def _copies(*recipients: str) -> list[Transaction]:
    return [Transaction(SENDER, (recipient,), MESSAGE) for recipient in recipients]


def test_each_copy_is_written_with_the_content_before_it(relay: StrictRelay) -> None:
    # The relay answers the first two messages' ends only after the next group: one wait
    # a copy, for its 354.
    relay.ahead = 2
    results = _sender(relay).send_each(_copies("a@nomic.test", "b@nomic.test", "c@nomic.test"))
    assert [result.accepted for result in results] == [
        ("a@nomic.test",), ("b@nomic.test",), ("c@nomic.test",)]
    assert [t.recipients for t in relay.transactions] == [
        ["a@nomic.test"], ["b@nomic.test"], ["c@nomic.test"]]
    assert {t.data for t in relay.transactions} == {MESSAGE}
    assert relay.connections == 1


def test_a_copy_refused_at_its_end_leaves_the_copies_after_it(relay: StrictRelay) -> None:
    relay.ahead = 2  # a's and spam's ends: gone's group gets no 354, so b's is written alone
    results = _sender(relay).send_each(_copies("a@nomic.test", "spam@nomic.test", "gone@nomic.test",
                                               "b@nomic.test"))
    assert [(r.accepted, r.refused, r.temporary_failure) for r in results] == [
        (("a@nomic.test",), {}, None),
        ((), {"spam@nomic.test": "554 5.6.0 content rejected"}, None),
        ((), {"gone@nomic.test": "550 5.1.1 no such user"}, None),
        (("b@nomic.test",), {}, None)]
    assert [t.recipients for t in relay.transactions] == [["a@nomic.test"], ["b@nomic.test"]]


def test_a_copy_put_off_at_its_end_stops_the_run_and_sends_nothing_after_it(
        relay: StrictRelay) -> None:
    relay.ahead = 2
    taken: list[str] = []

    def copies() -> Iterator[Transaction]:
        for copy in _copies("a@nomic.test", "busy@nomic.test", "b@nomic.test", "c@nomic.test"):
            taken.append(copy.recipients[0])
            yield copy

    results = _sender(relay).send_each(copies())
    assert [r.accepted for r in results] == [("a@nomic.test",), ()]
    assert "451 4.3.0 try again later" in (results[1].temporary_failure or "")
    # b's group went ahead with busy's content; the connection was dropped before b's own.
    assert taken == ["a@nomic.test", "busy@nomic.test", "b@nomic.test"]
    assert relay.sessions_over.acquire(timeout=patience(5))
    assert [t.recipients for t in relay.transactions] == [["a@nomic.test"]]


def test_copies_stop_where_their_iterator_ends(relay: StrictRelay) -> None:
    def copies() -> Iterator[Transaction]:
        yield from _copies("a@nomic.test")
        # e.g. the lease no longer held: the next copy is never asked for

    assert [r.accepted for r in _sender(relay).send_each(copies())] == [("a@nomic.test",)]
    assert [t.recipients for t in relay.transactions] == [["a@nomic.test"]]


def test_no_content_is_written_once_the_sender_may_no_longer_send(relay: StrictRelay) -> None:
    # b's group goes ahead with a's content; the lease is gone before b's own content.
    relay.ahead = 1
    answers = iter([True, False])
    results = _sender(relay).send_each(_copies("a@nomic.test", "b@nomic.test", "c@nomic.test"),
                                       may_send=lambda: next(answers))
    assert [r.accepted for r in results] == [("a@nomic.test",)]
    assert relay.sessions_over.acquire(timeout=patience(5))
    assert [t.recipients for t in relay.transactions] == [["a@nomic.test"]]


@pytest.mark.parametrize("says_421", [False, True])
def test_a_relay_that_closes_after_each_message_gets_each_copy_on_a_fresh_connection(
        relay: StrictRelay, says_421: bool) -> None:
    # b's group goes ahead with a's content into a connection the relay is closing, with
    # no answer or with 421 to its MAIL FROM: nothing of b was taken, so b goes again on a
    # fresh connection, and so does c.
    relay.per_connection, relay.says_421 = 1, says_421
    results = _sender(relay).send_each(_copies("a@nomic.test", "b@nomic.test", "c@nomic.test"))
    assert [r.accepted for r in results] == [
        ("a@nomic.test",), ("b@nomic.test",), ("c@nomic.test",)]
    assert [t.recipients for t in relay.transactions] == [
        ["a@nomic.test"], ["b@nomic.test"], ["c@nomic.test"]]
    assert relay.connections == 3


@dataclass
class PostfixLikeRelay(StrictRelay):
    """Answers each command as it reads it, as Postfix does, and keeps a transaction open
    after a DATA refused for want of recipients: a second MAIL FROM in it is refused
    (``503 nested MAIL``) until RSET, and its RCPT TO still count. ``nodata@`` gets DATA
    answered ``250`` with no 354, out of step. Offers no SMTPUTF8. Told ``per_connection``,
    it answers ``421`` to the MAIL FROM past so many, and closes: MAIL commands, refused
    transactions too, as Exim counts them (``smtp_accept_max_per_connection``).
    """

    def _session(self, connection: socket.socket) -> None:
        reader = connection.makefile("rb")
        connection.sendall(b"220 postfix.test ESMTP\r\n")
        open_: _Transaction | None = None
        mails = 0
        while line := reader.readline():
            verb, argument = line[:4].upper(), line.partition(b":")[2].strip().decode()
            answer = b"250 OK"
            if verb == b"EHLO":
                answer = b"250-postfix.test\r\n250-PIPELINING\r\n250 8BITMIME"
            elif verb == b"MAIL" and self.per_connection and mails >= self.per_connection:
                connection.sendall(b"421 4.7.0 too many messages, closing\r\n")
                return
            elif verb == b"MAIL" and open_ is not None:
                answer = b"503 5.5.1 Error: nested MAIL command"
            elif verb == b"MAIL":
                mails += 1
                open_ = _Transaction(argument.split()[0].strip("<>"), [])
            elif verb == b"RCPT" and argument.strip("<>").startswith("gone@"):
                answer = b"550 5.1.1 no such user"
            elif verb == b"RCPT" and open_ is not None:
                open_.recipients.append(argument.strip("<>"))
            elif verb == b"DATA":
                if open_ is None or not open_.recipients:
                    answer = b"554 5.5.1 Error: no valid recipients"
                elif open_.recipients[0].startswith("nodata@"):
                    open_ = None
                else:
                    connection.sendall(b"354 go on\r\n")
                    if not self._take(reader, open_):
                        return
                    open_ = None
            elif verb == b"RSET":
                open_ = None
            elif verb == b"QUIT":
                connection.sendall(b"221 bye\r\n")
                return
            connection.sendall(answer + b"\r\n")


    def _take(self, reader: BinaryIO, transaction: _Transaction) -> bool:
        """Read a message up to its end and keep it; False if the connection closed first."""
        while (line := reader.readline()) != b".\r\n":
            if not line:
                return False
            transaction.data += line[1:] if line.startswith(b".") else line
        self.transactions.append(transaction)
        return True


@pytest.fixture
def postfix() -> Iterator[PostfixLikeRelay]:
    with _serving(PostfixLikeRelay) as served:
        yield served


def test_a_copy_skipped_unsent_leaves_the_reset_for_the_next(postfix: PostfixLikeRelay) -> None:
    # gone@'s transaction stays open at the relay; jürgen@ needs SMTPUTF8, which this relay
    # lacks, so nothing of it is written; b@'s group must still begin with RSET.
    results = _sender(postfix).send_each(_copies("gone@nomic.test", "jürgen@nomic.test",
                                                 "b@nomic.test"))
    assert [(r.accepted, list(r.refused)) for r in results] == [
        ((), ["gone@nomic.test"]), ((), ["jürgen@nomic.test"]), (("b@nomic.test",), [])]
    assert [(t.mail_from, t.recipients, t.data) for t in postfix.transactions] == [
        (SENDER, ["b@nomic.test"], MESSAGE)]


@pytest.mark.parametrize("pipelining", [True, False])
def test_data_answered_out_of_step_takes_nothing(postfix: PostfixLikeRelay,
                                                 pipelining: bool) -> None:
    # A 250 to DATA, not 354: no content went, so the copy is not taken; it goes again.
    sender = SmtpSender(SmtpSettings(host=LOOPBACK, port=postfix.port, security="none",
                                     timeout=patience(2)), pipelining=pipelining)
    results = sender.send_each(_copies("nodata@nomic.test", "b@nomic.test"))
    assert len(results) == 1 and not results[0].accepted, results
    assert "DATA answered 250 OK, not 354" in (results[0].temporary_failure or "")
    assert postfix.transactions == []


@pytest.mark.parametrize("pipelining", [True, False])
def test_a_421_to_mail_from_sends_the_rest_on_a_fresh_connection(postfix: PostfixLikeRelay,
                                                                  pipelining: bool) -> None:
    # Two messages a connection, then 421 to the next MAIL FROM: nothing of c was taken,
    # so it goes on a fresh connection, and the run does not end for a backoff.
    postfix.per_connection = 2
    sender = SmtpSender(SmtpSettings(host=LOOPBACK, port=postfix.port, security="none",
                                     timeout=patience(2)), pipelining=pipelining)
    recipients = [f"{name}@nomic.test" for name in "abcde"]
    results = sender.send_each(_copies(*recipients))
    assert [r.accepted for r in results] == [(recipient,) for recipient in recipients]
    assert [t.recipients for t in postfix.transactions] == [[r] for r in recipients]
    assert postfix.connections == 3


@pytest.mark.parametrize("pipelining", [True, False])
def test_a_421_on_a_kept_connection_checked_by_rset_sends_on_a_fresh_one(
        postfix: PostfixLikeRelay, pipelining: bool) -> None:
    # The outbox's batch: a send_each a row on one kept connection. gone@'s refusal left its
    # transaction open, so the next send checks the connection with RSET; the relay, at its
    # two MAIL commands, answers c's 421. The connection took mail: c goes on a fresh one.
    postfix.per_connection = 2
    sender = SmtpSender(SmtpSettings(host=LOOPBACK, port=postfix.port, security="none",
                                     timeout=patience(2)), pipelining=pipelining)
    with sender.batch():
        [first] = sender.send_each(_copies("a@nomic.test"))
        [second] = sender.send_each(_copies("gone@nomic.test"))
        [third] = sender.send_each(_copies("c@nomic.test"))
    assert (first.accepted, list(second.refused)) == (("a@nomic.test",), ["gone@nomic.test"])
    assert third.accepted == ("c@nomic.test",), third
    assert [t.recipients for t in postfix.transactions] == [["a@nomic.test"], ["c@nomic.test"]]
    assert postfix.connections == 2
