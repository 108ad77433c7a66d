"""The IMAP inbound adapter against a real Dovecot: fetching, moving, IDLE, polling, reconnects."""

from __future__ import annotations

import gc
import logging
import random
import socket
import sys
import threading
import time
import uuid
import weakref
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager, suppress
from datetime import UTC, datetime, timedelta, timezone
from typing import Any, ClassVar

import pytest

from speakerbot.adapters.imap import (
    FETCH_BATCH,
    FetchedMessage,
    ImapConnectionLost,
    ImapError,
    ImapLoginFailed,
    ImapMailbox,
    ImapSettings,
    ImapWatcher,
)
from speakerbot.adapters.imap import watcher as watcher_module
from speakerbot.adapters.imap.records import MOVE_BATCH
from tests.support.dovecot import DovecotServer
from tests.support.messages import plain_message
from tests.support.patience import patience
from tests.support.ports import LOOPBACK, free_port

pytestmark = pytest.mark.integration

PASSWORD = "s3cret-Pa55"
PROCESSED = "speakerbot/processed"
REJECTED = "speakerbot/rejected"


# -- helpers -------------------------------------------------------------------------


def _new_user(server: DovecotServer) -> str:
    user = f"imap-{uuid.uuid4().hex[:10]}"
    server.add_user(user, PASSWORD)
    return user


def _settings(
    server: DovecotServer, user: str, *, port: int | None = None, **overrides: Any
) -> ImapSettings:
    values: dict[str, Any] = {
        "host": server.host,
        "port": server.port if port is None else port,
        "security": "none",
        "username": user,
        "password": PASSWORD,
        "timeout": patience(5),
        "poll_interval": 60.0,
    }
    values.update(overrides)
    return ImapSettings(**values)


@pytest.fixture
def user(dovecot: DovecotServer) -> str:
    """A new IMAP user of the session's Dovecot, with an empty INBOX."""
    return _new_user(dovecot)


def _sixty(dovecot: DovecotServer) -> tuple[str, list[bytes], list[int]]:
    """A new user whose INBOX holds 60 messages (more than two fetch batches), and their UIDs."""
    user = _new_user(dovecot)
    raws = [_raw(f"Message {n}") for n in range(60)]
    return user, raws, dovecot.append_many(user, "INBOX", raws)


def _keep_and_done(dovecot: DovecotServer) -> tuple[str, bytes, bytes, int]:
    """A new user with two messages: one to keep, one processed (its UID is returned)."""
    user = _new_user(dovecot)
    keep, done = _raw("Keep"), _raw("Done")
    dovecot.append(user, "INBOX", keep)
    uid_done = dovecot.append(user, "INBOX", done)
    assert uid_done is not None
    return user, keep, done, uid_done


def _raw(subject: str) -> bytes:
    return plain_message(subject, f"{subject}: I propose that the Speaker be a robot.\n")


def _big(subject: str, body_size: int, marker: bytes = b"BODY-ONLY-MARKER") -> bytes:
    """A message with a body of about ``body_size`` bytes, ``marker`` on every line."""
    head = _raw(subject).split(b"\r\n\r\n", 1)[0] + b"\r\n\r\n"
    line = marker + b" " + b"z" * 60 + b"\r\n"
    return head + line * (body_size // len(line) + 1)


def _header_block(raw: bytes) -> bytes:
    return raw[: raw.index(b"\r\n\r\n") + 4]


def _count(server: DovecotServer, user: str, folder: str) -> int:
    with server.connect(user) as client:
        client.select_folder(folder, readonly=True)
        return len(client.search("ALL"))


@contextmanager
def _connected(settings: ImapSettings) -> Iterator[ImapMailbox]:
    mailbox = ImapMailbox(settings)
    mailbox.connect()
    try:
        yield mailbox
    finally:
        mailbox.close()


class Recorder:
    """A ``deliver`` callback: records every batch, returns the UIDs that ``accept`` allows."""

    def __init__(self, accept: Callable[[FetchedMessage], bool] = lambda _m: True) -> None:
        self.accept = accept
        self.batches: list[list[FetchedMessage]] = []
        self.cond = threading.Condition()

    def __call__(self, messages: list[FetchedMessage]) -> Iterable[int]:
        with self.cond:
            self.batches.append(messages)
            self.cond.notify_all()
        return [m.uid for m in messages if self.accept(m)]

    def raws(self) -> list[bytes]:
        with self.cond:
            return [m.raw for batch in self.batches for m in batch]

    def wait_for_raw(self, raw: bytes, timeout: float) -> bool:
        with self.cond:
            return self.cond.wait_for(
                lambda: any(m.raw == raw for b in self.batches for m in b), timeout
            )


class Errors:
    """An ``on_error`` callback that records what it is told."""

    def __init__(self) -> None:
        self.seen: list[Exception] = []
        self.cond = threading.Condition()

    def __call__(self, exc: Exception) -> None:
        with self.cond:
            self.seen.append(exc)
            self.cond.notify_all()

    def wait_for_count(self, count: int, timeout: float) -> bool:
        with self.cond:
            return self.cond.wait_for(lambda: len(self.seen) >= count, timeout)


def _watcher(
    settings: ImapSettings,
    deliver: Callable[[list[FetchedMessage]], Iterable[int]],
    *,
    on_error: Callable[[Exception], None] | None = None,
    backoff_base: float = 0.05,
    backoff_max: float = 0.4,
) -> ImapWatcher:
    # Short backoff, so that reconnects in these tests take fractions of a second.
    return ImapWatcher(
        settings, deliver, on_error=on_error, backoff_base=backoff_base, backoff_max=backoff_max
    )


@contextmanager
def _running(watcher: ImapWatcher) -> Iterator[ImapWatcher]:
    watcher.start()
    try:
        yield watcher
    finally:
        watcher.stop(timeout=patience(5))


class FaultyLink:
    """A TCP forwarder to Dovecot that can cut its connections or stop passing bytes.

    It stands for the network between the adapter and the server: ``cut()`` closes
    every connection without an IMAP BYE (as a NAT box or a dying server would),
    ``freeze()`` holds all traffic (a black hole) until ``thaw()``.
    """

    def __init__(self, target_port: int, port: int = 0) -> None:
        self.target_port = target_port
        self._listener = socket.create_server((LOOPBACK, port))
        self._listener.settimeout(0.1)
        self.port: int = self._listener.getsockname()[1]
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        self._flowing = threading.Event()
        self._flowing.set()
        self._closed = threading.Event()
        self._acceptor = threading.Thread(target=self._accept, daemon=True)
        self._acceptor.start()

    def _accept(self) -> None:
        while not self._closed.is_set():
            try:
                client, _addr = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            try:
                upstream = socket.create_connection((LOOPBACK, self.target_port),
                                                    timeout=patience(5))
            except OSError:
                client.close()
                continue
            upstream.settimeout(None)
            client.settimeout(None)
            with self._lock:
                self._sockets += [client, upstream]
            for src, dst in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(src, dst), daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket) -> None:
        try:
            while True:
                data = src.recv(65536)
                if not data:
                    break
                self._flowing.wait()
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for sock in (src, dst):
                with suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)

    def cut(self) -> None:
        with self._lock:
            sockets, self._sockets = self._sockets, []
        for sock in sockets:
            # shutdown() (unlike close()) wakes the pump thread blocked in recv().
            with suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()

    def freeze(self) -> None:
        self._flowing.clear()

    def thaw(self) -> None:
        self._flowing.set()

    def close(self) -> None:
        self._closed.set()
        self.thaw()
        self.cut()
        self._listener.close()
        self._acceptor.join(patience(2))


@pytest.fixture
def link(dovecot: DovecotServer) -> Iterator[FaultyLink]:
    proxy = FaultyLink(dovecot.port)
    try:
        yield proxy
    finally:
        proxy.close()


class SocketAudit:
    """Records, and forbids, the socket calls this thread makes while it is active.

    A ``sys`` audit hook (hooks cannot be removed, so one is installed for the
    process and consulted only while some thread is being watched) sees socket
    creation, name lookups and connects before they happen, and refuses each
    with PermissionError: nothing can reach the network while it is active.
    """

    EVENTS = frozenset(
        {"socket.__new__", "socket.connect", "socket.getaddrinfo", "socket.gethostbyname"}
    )
    _watched: ClassVar[dict[int, list[tuple[str, tuple[Any, ...]]]]] = {}
    _installed: ClassVar[bool] = False

    def __init__(self) -> None:
        self.events: list[tuple[str, tuple[Any, ...]]] = []

    @classmethod
    def _hook(cls, event: str, args: tuple[Any, ...]) -> None:
        if event not in cls.EVENTS:
            return
        events = cls._watched.get(threading.get_ident())
        if events is not None:
            events.append((event, args))
            raise PermissionError(f"{event} is forbidden in this test")

    def __enter__(self) -> SocketAudit:
        if not SocketAudit._installed:
            sys.addaudithook(SocketAudit._hook)
            SocketAudit._installed = True
        SocketAudit._watched[threading.get_ident()] = self.events
        return self

    def __exit__(self, *exc: object) -> None:
        del SocketAudit._watched[threading.get_ident()]


# -- ImapMailbox -----------------------------------------------------------------------


def test_fetch_all_returns_bytes_and_internaldate_in_uid_order_without_seen(
    dovecot: DovecotServer, user: str
) -> None:
    first, second = _raw("First"), _raw("Second")
    when_first = datetime(2024, 3, 1, 12, 30, 5, tzinfo=UTC)
    when_second = datetime(2024, 2, 1, 8, 0, tzinfo=timezone(timedelta(hours=2)))
    uid_first = dovecot.append(user, "INBOX", first, internaldate=when_first)
    uid_second = dovecot.append(user, "INBOX", second, internaldate=when_second)
    dovecot.append(user, "INBOX", _raw("Deleted"), flags=("\\Deleted",))

    with _connected(_settings(dovecot, user)) as mailbox:
        messages = mailbox.fetch_all()
        uidvalidity = mailbox.uidvalidity

    assert [m.uid for m in messages] == [uid_first, uid_second]
    assert [m.raw for m in messages] == [first, second]
    assert messages[0].internaldate == when_first
    assert messages[1].internaldate == when_second
    assert all(m.internaldate.tzinfo == UTC for m in messages)
    assert all(m.uidvalidity == uidvalidity > 0 for m in messages)
    with dovecot.connect(user) as client:
        client.select_folder("INBOX", readonly=True)
        flags = client.get_flags([uid_first, uid_second])
    assert all(b"\\Seen" not in f for f in flags.values()), flags


def test_garbage_bytes_round_trip(dovecot: DovecotServer, user: str) -> None:
    garbage = b"\xff\xfe\x80 not a header \xe9\xe8\r\n\r\n\x81\x82\x83 8-bit \xc3(\r\n\x7f\x01end"
    dovecot.append(user, "INBOX", garbage)
    with _connected(_settings(dovecot, user)) as mailbox:
        messages = mailbox.fetch_all()
    assert [m.raw for m in messages] == [garbage]


def test_move_to_processed_creates_the_nested_folder_and_tolerates_repeats(
    dovecot: DovecotServer,
) -> None:
    user, keep, done, uid_done = _keep_and_done(dovecot)

    with _connected(_settings(dovecot, user)) as mailbox:
        assert dovecot.list_folder(user, PROCESSED) == []  # created by connect()
        mailbox.move_to_processed([uid_done])
        mailbox.move_to_processed([uid_done])  # already moved
        mailbox.move_to_processed([uid_done + 100])  # never existed
        mailbox.move_to_processed([])
        assert [m.raw for m in mailbox.fetch_all()] == [keep]

    assert dovecot.list_folder(user, PROCESSED) == [done]
    assert dovecot.list_folder(user) == [keep]
    with dovecot.connect(user) as client:
        assert PROCESSED in [name for _flags, _sep, name in client.list_sub_folders()]


def test_move_without_the_move_capability_copies_and_expunges(dovecot: DovecotServer) -> None:
    user, keep, done, uid_done = _keep_and_done(dovecot)

    with _connected(_settings(dovecot, user)) as mailbox:
        mailbox._use_move = False  # as on a server without RFC 6851
        mailbox.move_to_processed([uid_done])
        mailbox.move_to_processed([uid_done, uid_done + 100])
        assert [m.raw for m in mailbox.fetch_all()] == [keep]

    assert dovecot.list_folder(user, PROCESSED) == [done]
    assert dovecot.list_folder(user) == [keep]


def test_an_oversized_message_is_fetched_headers_only(dovecot: DovecotServer, user: str) -> None:
    limit = 4000
    small = _raw("Small")
    exact = _big("Exactly at the limit", limit)
    exact = exact[:limit - 2] + b"\r\n"
    big = _big("Too big", 5 * limit)
    # All header: fetching "just the header" must not fetch all of it either.
    fat_header = _raw("Fat header").replace(b"\r\n", b"\r\nX-Junk: " + b"h" * 9000 + b"\r\n", 1)
    uids = dovecot.append_many(user, "INBOX", [small, exact, big, fat_header])
    assert len(exact) == limit

    with _connected(_settings(dovecot, user, max_size=limit)) as mailbox:
        assert dovecot.list_folder(user, REJECTED) == []  # created by connect()
        batches = list(mailbox.fetch_batches())

    [messages] = batches
    assert [m.uid for m in messages] == uids
    by_uid = {m.uid: m for m in messages}
    for raw, uid in ((small, uids[0]), (exact, uids[1])):
        assert by_uid[uid].oversized is None
        assert by_uid[uid].raw == raw
        assert by_uid[uid].size == len(raw)
    oversized = by_uid[uids[2]]
    assert oversized.oversized == oversized.size == len(big)
    assert oversized.raw == _header_block(big)
    assert b"BODY-ONLY-MARKER" not in oversized.raw
    cut = by_uid[uids[3]]
    assert cut.oversized == len(fat_header)
    assert cut.raw == fat_header[:limit]
    assert all(m.internaldate.tzinfo == UTC for m in messages)
    with dovecot.connect(user) as client:
        client.select_folder("INBOX", readonly=True)
        flags = client.get_flags(uids)
    assert all(b"\\Seen" not in f for f in flags.values()), flags
    # Kept whole on the server.
    assert dovecot.list_folder(user) == [small, exact, big, fat_header]


def test_fetch_batches_yields_at_most_a_batch_at_a_time_and_fetches_lazily(
    dovecot: DovecotServer,
) -> None:
    user, raws, uids = _sixty(dovecot)
    assert FETCH_BATCH == 25

    with _connected(_settings(dovecot, user)) as mailbox:
        batches = mailbox.fetch_batches()
        first = next(batches)
        assert [m.uid for m in first] == uids[:25]
        # Another client moves a message of the second batch away after the search:
        # the second batch is fetched only now, without it.
        with dovecot.connect(user) as other:
            other.select_folder("INBOX")
            other.move([uids[30]], PROCESSED)
        rest = list(batches)

    assert [len(b) for b in rest] == [24, 10]
    fetched = first + [m for b in rest for m in b]
    assert [m.uid for m in fetched] == uids[:30] + uids[31:]
    assert [m.raw for m in fetched] == raws[:30] + raws[31:]
    assert all(m.oversized is None for m in fetched)


def test_new_settings_are_checked_and_localhost_counts_as_loopback(
    dovecot: DovecotServer, user: str
) -> None:
    with pytest.raises(ValueError, match="max_size"):
        _settings(dovecot, user, max_size=0)
    with pytest.raises(ValueError, match="rejected_folder"):
        _settings(dovecot, user, rejected_folder="INBOX")
    # "localhost" is loopback: plain text allowed, and the server is really reached.
    with _connected(_settings(dovecot, user, host="localhost")) as mailbox:
        assert mailbox.fetch_all() == []


@pytest.mark.parametrize(
    "host",
    [
        "192.0.2.1",
        "2001:db8::25",
        "mail.example.test",
        "localhost.example.test",
        "127.0.0.1.nip.io",
    ],
)
def test_plaintext_to_a_host_that_is_not_loopback_is_refused_before_any_socket(
    dovecot: DovecotServer,
    user: str,
    host: str,
) -> None:
    mailbox = ImapMailbox(_settings(dovecot, user, host=host))
    with SocketAudit() as audit, pytest.raises(ImapError) as refused:
        mailbox.connect()
    assert audit.events == []  # no socket, no name lookup, no connect
    assert not isinstance(refused.value, ImapConnectionLost)
    message = str(refused.value)
    assert host in message
    assert 'security = "ssl"' in message and '"starttls"' in message
    assert "allow_plaintext = true" in message and "[imap]" in message
    assert not mailbox.connected


@pytest.mark.parametrize(
    ("host", "security", "allow_plaintext"),
    [
        ("127.5.6.7", "none", False),
        ("::1", "none", False),
        ("::ffff:127.0.0.1", "none", False),
        ("LocalHost", "none", False),
        ("192.0.2.1", "none", True),
        ("192.0.2.1", "ssl", False),
        ("192.0.2.1", "starttls", False),
    ],
)
def test_loopback_encryption_or_allow_plaintext_pass_the_check(
    dovecot: DovecotServer,
    user: str,
    host: str,
    security: str,
    allow_plaintext: bool,
) -> None:
    settings = _settings(
        dovecot, user, host=host, security=security, allow_plaintext=allow_plaintext
    )
    # The audit lets the connection get as far as its first socket call, and stops it there.
    with SocketAudit() as audit, pytest.raises(ImapConnectionLost, match="forbidden"):
        ImapMailbox(settings).connect()
    assert audit.events, "the connection was refused before it was attempted"
    event, args = audit.events[0]
    assert event == "socket.getaddrinfo" and args[0] == host


def test_wrong_password_names_host_and_user_but_not_the_password(
    dovecot: DovecotServer, user: str
) -> None:
    mailbox = ImapMailbox(_settings(dovecot, user, password="hunter2-wrong"))
    with pytest.raises(ImapLoginFailed) as refused:
        mailbox.connect()
    message = str(refused.value)
    assert user in message
    assert f"{dovecot.host}:{dovecot.port}" in message
    assert "hunter2" not in message
    assert "hunter2" not in repr(mailbox._settings)
    mailbox.close()


def test_connect_errors_are_clear(dovecot: DovecotServer, user: str) -> None:
    with pytest.raises(ImapConnectionLost, match=f"127.0.0.1:{(port := free_port())}"):
        ImapMailbox(_settings(dovecot, user, port=port)).connect()
    # Never falls back to plain text when STARTTLS was asked for.
    with pytest.raises(ImapError, match="STARTTLS"):
        ImapMailbox(_settings(dovecot, user, security="starttls")).connect()
    with pytest.raises(ImapConnectionLost):
        ImapMailbox(_settings(dovecot, user, security="ssl", timeout=2.0)).connect()
    with pytest.raises(ImapError, match="Nowhere"):
        ImapMailbox(_settings(dovecot, user, folder="Nowhere")).connect()
    with pytest.raises(ValueError, match="security"):
        _settings(dovecot, user, security="tls")
    with pytest.raises(ValueError, match="idle_renew"):
        _settings(dovecot, user, idle_renew=300)


def test_wait_for_mail_sees_new_mail_and_renews_idle(
    dovecot: DovecotServer,
    user: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG, logger="speakerbot.imap")
    stop = threading.Event()
    with _connected(_settings(dovecot, user, idle_renew=0.3)) as mailbox:
        assert mailbox.idle_supported
        started = time.monotonic()
        assert mailbox.wait_for_mail(patience(0.8), stop) is False
        assert patience(0.7) < time.monotonic() - started < patience(2)
        assert caplog.text.count("renewing IDLE") >= 2

        # Mail arriving after a few renewals is still noticed.
        timer = threading.Timer(0.7, dovecot.append, args=(user, "INBOX", _raw("Late")))
        timer.start()
        try:
            started = time.monotonic()
            assert mailbox.wait_for_mail(patience(10), stop) is True
            assert time.monotonic() - started < patience(3)
        finally:
            timer.join()
        assert len(mailbox.fetch_all()) == 1


def test_wait_for_mail_raises_connection_lost_on_bye(dovecot: DovecotServer, user: str) -> None:
    stop = threading.Event()
    outcome: list[BaseException | bool] = []
    with _connected(_settings(dovecot, user)) as mailbox:

        def wait() -> None:
            try:
                outcome.append(mailbox.wait_for_mail(30, stop))
            except BaseException as exc:
                outcome.append(exc)

        waiter = threading.Thread(target=wait)
        waiter.start()
        try:
            dovecot.restart()
        finally:
            if not dovecot.running:
                dovecot.start()
            stop.set()
            waiter.join(patience(10))
        assert len(outcome) == 1 and isinstance(outcome[0], ImapConnectionLost), outcome
        assert not mailbox.connected
        mailbox.connect()
        assert mailbox.fetch_all() == []


def test_wait_for_mail_notices_a_connection_closed_without_bye(
    dovecot: DovecotServer,
    user: str,
    link: FaultyLink,
) -> None:
    stop = threading.Event()
    with _connected(_settings(dovecot, user, port=link.port)) as mailbox:
        timer = threading.Timer(0.3, link.cut)
        timer.start()
        started = time.monotonic()
        try:
            with pytest.raises(ImapConnectionLost):
                mailbox.wait_for_mail(30, stop)
        finally:
            timer.join()
        # Found by the EOF, not by the IDLE renewal (290 s) or the timeout (5 s, scaled).
        assert time.monotonic() - started < patience(2)


# -- ImapWatcher -----------------------------------------------------------------------


def test_watcher_moves_only_what_deliver_returns_and_offers_the_rest_again(
    dovecot: DovecotServer, user: str
) -> None:
    keep, done = _raw("Not yet"), _raw("Committed")
    dovecot.append(user, "INBOX", keep)
    dovecot.append(user, "INBOX", done)
    accept_all = threading.Event()
    recorder = Recorder(lambda m: accept_all.is_set() or m.raw == done)
    watcher = _watcher(_settings(dovecot, user), recorder)
    with _running(watcher):
        assert watcher.sync(patience(10))
        assert recorder.raws() == [keep, done]
        assert dovecot.list_folder(user, PROCESSED) == [done]
        assert dovecot.list_folder(user) == [keep]

        accept_all.set()
        watcher.poke()
        with recorder.cond:
            assert recorder.cond.wait_for(lambda: len(recorder.batches) >= 2,
                                          patience(10))
        assert watcher.sync(patience(10))
        assert [m.raw for m in recorder.batches[1]] == [keep]
        assert dovecot.list_folder(user) == []
        assert sorted(dovecot.list_folder(user, PROCESSED)) == sorted([done, keep])
        assert watcher.connected
        assert watcher.rounds >= 2


def _new_mail_delivered(
    dovecot: DovecotServer, subject: str, *, idle: bool, poll_interval: float, within: float
) -> tuple[str, bytes, float]:
    """Append a message to a watched new user's INBOX; it must be delivered ``within`` seconds.

    Returns the user, the message, and the seconds from its append to its delivery.
    """
    user = _new_user(dovecot)
    raw = _raw(subject)
    recorder = Recorder()
    watcher = _watcher(_settings(dovecot, user, idle=idle, poll_interval=poll_interval), recorder)
    with _running(watcher):
        assert watcher.sync(patience(10))
        appended_at = time.monotonic()
        dovecot.append(user, "INBOX", raw)
        assert recorder.wait_for_raw(raw, within)
        latency = time.monotonic() - appended_at
    return user, raw, latency


def test_watcher_idle_delivers_new_mail_within_two_seconds(dovecot: DovecotServer) -> None:
    # A 60 s poll interval: only IDLE can bring the message in time.
    _, _, latency = _new_mail_delivered(dovecot, "Pushed", idle=True, poll_interval=60,
                                        within=patience(2))
    assert latency < patience(2), f"IDLE delivery took {latency:.2f}s"


def test_watcher_polls_when_idle_is_disabled(dovecot: DovecotServer) -> None:
    user, raw, _ = _new_mail_delivered(dovecot, "Polled", idle=False, poll_interval=0.5,
                                       within=patience(5))
    assert dovecot.list_folder(user, PROCESSED) == [raw]


@pytest.mark.parametrize("idle", [True, False], ids=["idle", "poll"])
def test_stop_is_prompt_in_the_middle_of_a_wait(
    dovecot: DovecotServer,
    user: str,
    idle: bool,
) -> None:
    watcher = _watcher(_settings(dovecot, user, idle=idle, poll_interval=30), Recorder())
    watcher.start()
    try:
        assert watcher.sync(patience(10))
        # Not waiting for anything: just letting the watcher settle into its 30 s wait.
        time.sleep(0.5)
    finally:
        started = time.monotonic()
        watcher.stop(timeout=patience(5))
        took = time.monotonic() - started
    assert took < patience(2), f"stop() took {took:.2f}s"
    assert not watcher.connected
    assert watcher.sync(0.1) is False


def test_sync_waits_for_a_round_that_started_after_the_call(
    dovecot: DovecotServer, user: str
) -> None:
    raw = _raw("Before sync")
    dovecot.append(user, "INBOX", raw)
    in_first_round = threading.Event()
    release = threading.Event()
    calls: list[list[FetchedMessage]] = []

    def deliver(messages: list[FetchedMessage]) -> list[int]:
        calls.append(messages)
        if len(calls) == 1:
            in_first_round.set()
            assert release.wait(patience(10))
            return []  # not committed: offered again next round
        return [m.uid for m in messages]

    # Neither IDLE nor polling can start a round here: only sync()'s poke can.
    watcher = _watcher(_settings(dovecot, user, idle=False, poll_interval=60), deliver)
    with _running(watcher):
        assert in_first_round.wait(patience(10))
        result: list[bool] = []
        syncer = threading.Thread(target=lambda: result.append(watcher.sync(patience(10))))
        syncer.start()
        release.set()
        syncer.join(patience(15))
        assert result == [True]
        assert len(calls) >= 2, "sync() returned on a round that began before it was called"
        assert [m.raw for m in calls[-1]] == [raw]
        assert dovecot.list_folder(user, PROCESSED) == [raw]

        later = _raw("Appended before the second sync")
        dovecot.append(user, "INBOX", later)
        assert watcher.sync(patience(10))
        assert [m.raw for m in calls[-1]] == [later]

    never_started = _watcher(_settings(dovecot, user), deliver)
    assert never_started.sync(0.1) is False


def test_watcher_reconnects_after_a_restart_mid_idle(dovecot: DovecotServer, user: str) -> None:
    raw = _raw("After the restart")
    recorder, errors = Recorder(), Errors()
    watcher = _watcher(_settings(dovecot, user), recorder, on_error=errors)
    with _running(watcher):
        assert watcher.sync(patience(10))
        try:
            dovecot.restart()
        finally:
            if not dovecot.running:
                dovecot.start()
        dovecot.append(user, "INBOX", raw)
        assert recorder.wait_for_raw(raw, patience(15))
        assert any(isinstance(e, ImapConnectionLost) for e in errors.seen), errors.seen
        assert watcher.sync(patience(10))
        assert watcher.connected


def test_watcher_keeps_trying_while_the_server_is_down(dovecot: DovecotServer, user: str) -> None:
    raw = _raw("Sent while the server was down")
    recorder, errors = Recorder(), Errors()
    watcher = _watcher(
        _settings(dovecot, user, timeout=patience(2)),
        recorder,
        on_error=errors,
        backoff_base=0.1,
        backoff_max=0.8,
    )
    with _running(watcher):
        assert watcher.sync(patience(10))
        try:
            dovecot.stop()
            # The BYE, then refused connections with growing delays (~1.5 s in all).
            assert errors.wait_for_count(5, patience(15)), errors.seen
            assert not watcher.connected
        finally:
            dovecot.start()
        dovecot.append(user, "INBOX", raw)
        assert recorder.wait_for_raw(raw, patience(15))
        assert watcher.connected


def test_watcher_survives_a_network_black_hole(
    dovecot: DovecotServer,
    user: str,
    link: FaultyLink,
) -> None:
    raw = _raw("Sent during the outage")
    recorder, errors = Recorder(), Errors()
    # Everything silent is given up after 1 s (scaled): the IDLE renewal's DONE goes unanswered.
    settings = _settings(dovecot, user, port=link.port, timeout=patience(1),
                         idle_renew=patience(1))
    watcher = _watcher(settings, recorder, on_error=errors)
    with _running(watcher):
        assert watcher.sync(patience(10))
        link.freeze()
        try:
            assert errors.wait_for_count(2, patience(10)), errors.seen
            assert all(isinstance(e, ImapConnectionLost) for e in errors.seen), errors.seen
            dovecot.append(user, "INBOX", raw)
        finally:
            link.thaw()
        assert recorder.wait_for_raw(raw, patience(15))


def test_watcher_with_a_wrong_password_retries_with_backoff(
    dovecot: DovecotServer, user: str
) -> None:
    errors = Errors()
    delays: list[float] = []
    pause = threading.Event()

    def sleep(seconds: float) -> None:
        delays.append(seconds)
        pause.wait(seconds)

    base, cap = 0.01, 0.08
    watcher = ImapWatcher(
        _settings(dovecot, user, password="hunter2-wrong"),
        Recorder(),
        on_error=errors,
        rng=random.Random(7),
        sleep=sleep,
        backoff_base=base,
        backoff_max=cap,
    )
    with _running(watcher):
        assert errors.wait_for_count(4, patience(10)), errors.seen
        assert not watcher.connected
        assert watcher.rounds == 0
    assert all(isinstance(e, ImapLoginFailed) for e in errors.seen)
    assert user in str(errors.seen[0]) and "hunter2" not in str(errors.seen[0])
    for attempt, delay in enumerate(delays[:4]):
        expected = min(cap, base * 2**attempt)
        assert expected <= delay <= expected * 1.25, (attempt, delays)


def test_poke_cuts_a_backoff_short(dovecot: DovecotServer, user: str) -> None:
    port = free_port()  # nothing listens there yet
    errors = Errors()
    settings = _settings(dovecot, user, port=port)
    watcher = _watcher(settings, Recorder(), on_error=errors, backoff_base=60, backoff_max=60)
    with _running(watcher):
        assert errors.wait_for_count(1, patience(10))
        link = FaultyLink(dovecot.port, port=port)
        try:
            started = time.monotonic()
            assert watcher.sync(patience(5))
            assert time.monotonic() - started < patience(2)
        finally:
            link.close()


def test_the_password_is_never_logged(
    dovecot: DovecotServer,
    user: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    dovecot.append(user, "INBOX", _raw("Logged"))
    with _connected(_settings(dovecot, user)) as mailbox:
        mailbox.move_to_processed([m.uid for m in mailbox.fetch_all()])
    errors = Errors()
    wrong = _settings(dovecot, user, password="hunter2-wrong")
    with _running(_watcher(wrong, Recorder(), on_error=errors)):
        assert errors.wait_for_count(1, patience(10))
    assert "LOGIN" in caplog.text  # imapclient's own debug log was captured
    assert PASSWORD not in caplog.text
    assert "hunter2" not in caplog.text


def _deliver_failing_at(
    dovecot: DovecotServer, user: str, failing_call: int
) -> tuple[Errors, list[list[FetchedMessage]]]:
    """Watch ``user``'s INBOX with a deliver that raises on its ``failing_call``-th call.

    Returns once the failure was reported and the watcher caught up: what it reported, and
    the batches deliver was offered, in order.
    """
    errors = Errors()
    calls: list[list[FetchedMessage]] = []

    def deliver(messages: list[FetchedMessage]) -> list[int]:
        calls.append(messages)
        if len(calls) == failing_call:
            raise RuntimeError("database is down")
        return [m.uid for m in messages]

    with _running(_watcher(_settings(dovecot, user), deliver, on_error=errors)) as watcher:
        assert errors.wait_for_count(1, patience(10))
        assert watcher.sync(patience(10))
    return errors, calls


def test_a_failing_deliver_is_reported_and_the_message_offered_again(
    dovecot: DovecotServer, user: str
) -> None:
    raw = _raw("Delivered on the second try")
    dovecot.append(user, "INBOX", raw)
    errors, calls = _deliver_failing_at(dovecot, user, 1)
    assert isinstance(errors.seen[0], RuntimeError)
    assert [m.raw for m in calls[-1]] == [raw]
    assert dovecot.list_folder(user, PROCESSED) == [raw]


def test_watcher_moves_an_oversized_message_to_the_rejected_folder_once_delivered(
    dovecot: DovecotServer, user: str
) -> None:
    limit = 2000
    small, big = _raw("Small"), _big("Too big", 10 * limit)
    dovecot.append(user, "INBOX", small)
    dovecot.append(user, "INBOX", big)
    accept_all = threading.Event()
    recorder = Recorder(lambda m: accept_all.is_set() or m.oversized is None)
    watcher = _watcher(_settings(dovecot, user, max_size=limit), recorder)
    with _running(watcher):
        assert watcher.sync(patience(10))
        # On a busy machine the watcher may have begun its next round already, which
        # offers the message not returned again, alone.
        first, *again = list(recorder.batches)
        assert [m.oversized for m in first] == [None, len(big)]
        assert [m.raw for m in first] == [small, _header_block(big)]
        assert all([m.raw for m in batch] == [_header_block(big)] for batch in again)
        # Not returned by deliver: left where it was.
        assert dovecot.list_folder(user) == [big]
        assert dovecot.list_folder(user, REJECTED) == []
        assert dovecot.list_folder(user, PROCESSED) == [small]

        accept_all.set()
        assert watcher.sync(patience(10))
        assert [m.raw for m in recorder.batches[-1]] == [_header_block(big)]
        assert dovecot.list_folder(user) == []
        assert dovecot.list_folder(user, REJECTED) == [big]
        assert dovecot.list_folder(user, PROCESSED) == [small]


@pytest.mark.parametrize(("move_batch", "seen_moved"), [
    (MOVE_BATCH, [0, 0, 0]),  # all moved together once the round's batches are done
    (30, [0, 0, 50]),  # moved as soon as MOVE_BATCH are waiting, the rest at the end
])
def test_watcher_delivers_a_big_folder_in_batches_and_moves_them_together(
    dovecot: DovecotServer, monkeypatch: pytest.MonkeyPatch, move_batch: int,
    seen_moved: list[int],
) -> None:
    monkeypatch.setattr(watcher_module, "MOVE_BATCH", move_batch)
    user, raws, uids = _sixty(dovecot)
    sizes: list[int] = []
    processed_before: list[int] = []
    offered: list[int] = []

    def deliver(messages: list[FetchedMessage]) -> list[int]:
        sizes.append(len(messages))
        processed_before.append(_count(dovecot, user, PROCESSED))
        offered.extend(m.uid for m in messages)
        return [m.uid for m in messages]

    watcher = _watcher(_settings(dovecot, user), deliver)
    with _running(watcher):
        assert watcher.sync(patience(10))
    assert sizes == [25, 25, 10]
    # Never moved before deliver returned them; moved in one MOVE where a batch each cost
    # a round trip, or as soon as MOVE_BATCH were waiting.
    assert processed_before == seen_moved
    assert offered == uids
    assert dovecot.list_folder(user) == []
    assert sorted(dovecot.list_folder(user, PROCESSED)) == sorted(raws)
    assert watcher.rounds >= 1


def test_a_batch_delivered_is_let_go_before_the_next_is_fetched(
        dovecot: DovecotServer, monkeypatch: pytest.MonkeyPatch) -> None:
    # Its moves wait for the round's end, but only its UIDs do: memory holds one batch at a
    # time, however large the folder, while the next is fetched too.
    user, _, _ = _sixty(dovecot)
    earlier: list[weakref.ref[FetchedMessage]] = []
    alive_at_last: list[int] = []
    alive_at_fetch: list[int] = []
    fetch = ImapMailbox._fetch

    def fetching(mailbox: ImapMailbox, uids: list[int]) -> list[FetchedMessage]:
        gc.collect()
        alive_at_fetch.append(sum(ref() is not None for ref in earlier))
        return fetch(mailbox, uids)

    monkeypatch.setattr(ImapMailbox, "_fetch", fetching)

    def deliver(messages: list[FetchedMessage]) -> list[int]:
        if len(messages) < FETCH_BATCH:  # the last batch: are the first two gone?
            gc.collect()
            alive_at_last.append(sum(ref() is not None for ref in earlier))
        earlier.extend(weakref.ref(m) for m in messages)
        return [m.uid for m in messages]

    watcher = _watcher(_settings(dovecot, user), deliver)
    with _running(watcher):
        assert watcher.sync(patience(10))
    assert alive_at_last == [0]
    assert alive_at_fetch == [0, 0, 0]
    assert dovecot.list_folder(user) == []


def test_a_deliver_failing_on_a_later_batch_keeps_the_earlier_batches_moved(
    dovecot: DovecotServer,
) -> None:
    user, raws, uids = _sixty(dovecot)
    _, batches = _deliver_failing_at(dovecot, user, 2)
    calls = [[m.uid for m in batch] for batch in batches]
    assert calls[:2] == [uids[:25], uids[25:50]]
    # After the reconnect the first batch, already moved, is not offered again.
    assert calls[2:4] == [uids[25:50], uids[50:]]
    assert dovecot.list_folder(user) == []
    assert sorted(dovecot.list_folder(user, PROCESSED)) == sorted(raws)


def test_mail_arriving_while_a_batch_is_delivered_is_not_left_for_the_poll(
    dovecot: DovecotServer, user: str
) -> None:
    first, second = _raw("Already there"), _raw("Arrived during deliver")
    dovecot.append(user, "INBOX", first)
    recorder = Recorder()
    arrived = threading.Event()

    def deliver(messages: list[FetchedMessage]) -> Iterable[int]:
        if not arrived.is_set():
            # The server tells the session of it in a response of the round (the MOVE's).
            dovecot.append(user, "INBOX", second)
            arrived.set()
        return recorder(messages)

    # A 60 s poll interval: the EXISTS seen during the round must start the next one.
    watcher = _watcher(_settings(dovecot, user, idle=True, poll_interval=60), deliver)
    with _running(watcher):
        assert arrived.wait(patience(10))
        assert recorder.wait_for_raw(second, patience(5))
    assert recorder.raws() == [first, second]
