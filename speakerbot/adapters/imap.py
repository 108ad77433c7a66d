r"""IMAP inbound: fetch raw messages from a mailbox and move them away once they are taken in.

This adapter knows nothing of Nomic. :class:`ImapMailbox` is one connection:
it fetches the messages still in the watched folder in batches of at most
``FETCH_BATCH`` (``BODY.PEEK[]``, so ``\Seen`` is never set and never relied
on) and moves the ones it is told to into a "processed" or a "rejected" folder.
A message larger than ``max_size`` is never fetched whole: only its header
block is, and it is marked ``oversized``. :class:`ImapWatcher` runs the inbound
loop on its own thread: for each batch, hand it to a ``deliver`` callback and
move what ``deliver`` says is safely committed; then wait for new mail (IDLE, or
polling when IDLE is disabled or unsupported), and start again; after any
failure it reconnects with exponential backoff and searches the whole folder
again.

A message stays in the folder until ``deliver`` has returned its UID, so a crash
at any point loses nothing: the message is offered again after the restart, and
``deliver`` is expected to recognise a duplicate.

Plain-text IMAP (``security = "none"``) is refused to any host but loopback
unless ``allow_plaintext`` is set: the password would cross the network in clear.
"""

from __future__ import annotations

import contextlib
import imaplib
import ipaddress
import logging
import random
import select
import ssl
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, cast

from imapclient import IMAPClient  # type: ignore[import-untyped,unused-ignore]
from imapclient.exceptions import CapabilityError, LoginError  # type: ignore[import-untyped,unused-ignore]

__all__ = [
    "FetchedMessage",
    "ImapConnectionLost",
    "ImapError",
    "ImapLoginFailed",
    "ImapMailbox",
    "ImapSettings",
    "ImapWatcher",
]

log = logging.getLogger("speakerbot.imap")

SECURITY_MODES = ("ssl", "starttls", "none")

# Messages fetched per FETCH command: bounds the size of one response.
FETCH_BATCH = 25
# UIDs per MOVE/COPY command: bounds the length of one command line.
MOVE_BATCH = 500
# Longest time between two looks at the stop event while waiting for mail.
_STOP_CHECK = 0.2
# RFC 2177: clients should re-issue IDLE at least every 29 minutes; many servers
# and NAT boxes drop silent connections much sooner, hence the 5-minute bound.
_IDLE_RENEW_LIMIT = 300.0

_DELETED = b"\\Deleted"


class ImapError(Exception):
    """An IMAP operation failed (base class of this module's errors)."""


class ImapConnectionLost(ImapError):
    """The connection failed or was dropped (BYE, socket error, timeout); reconnecting may help."""


class ImapLoginFailed(ImapError):
    """The server refused the username or password."""


@dataclass(frozen=True)
class ImapSettings:
    """Where the mailbox is and how to talk to it. Times are in seconds."""

    host: str
    port: int
    security: str  # "ssl" | "starttls" | "none"
    username: str
    password: str = field(repr=False)
    folder: str = "INBOX"
    processed_folder: str = "speakerbot/processed"
    idle: bool = True
    poll_interval: float = 60.0
    timeout: float = 30.0
    idle_renew: float = 290.0
    # Larger messages (RFC822.SIZE, bytes) are fetched headers only; None: no limit.
    max_size: int | None = None
    rejected_folder: str = "speakerbot/rejected"
    # Allow security = "none" to a host that is not loopback.
    allow_plaintext: bool = False

    def __post_init__(self) -> None:
        if self.security not in SECURITY_MODES:
            raise ValueError(
                f"IMAP security must be one of {', '.join(SECURITY_MODES)}, not {self.security!r}"
            )
        if not 0 < self.port < 65536:
            raise ValueError(f"IMAP port {self.port} is out of range")
        for name in ("poll_interval", "timeout", "idle_renew"):
            if not getattr(self, name) > 0:
                raise ValueError(f"IMAP {name} must be positive")
        if self.idle_renew >= _IDLE_RENEW_LIMIT:
            raise ValueError(f"IMAP idle_renew must be under {_IDLE_RENEW_LIMIT:g} seconds")
        if self.max_size is not None and not self.max_size > 0:
            raise ValueError("IMAP max_size must be positive (or None for no limit)")
        if self.folder == self.processed_folder:
            raise ValueError("the IMAP folder and processed_folder must differ")
        if self.folder == self.rejected_folder:
            raise ValueError("the IMAP folder and rejected_folder must differ")

    @property
    def where(self) -> str:
        """``user@host:port``, for messages and logs (never the password)."""
        return f"{self.username}@{self.host}:{self.port}"


@dataclass(frozen=True)
class FetchedMessage:
    """One message as it is in the folder: its UID, the server's INTERNALDATE (UTC) and bytes.

    ``oversized`` is None for a message fetched whole. For a message larger than
    the settings' ``max_size`` it is the message's size (RFC822.SIZE), and
    ``raw`` holds only its header block (at most ``max_size`` bytes of it).
    """

    uidvalidity: int
    uid: int
    internaldate: datetime
    raw: bytes = field(repr=False)
    oversized: int | None = None

    @property
    def size(self) -> int:
        """The size of the whole message in bytes (of ``raw`` unless it is oversized)."""
        return len(self.raw) if self.oversized is None else self.oversized


class ImapMailbox:
    """One IMAP connection with the watched folder selected read-write.

    Not thread-safe: use it from one thread. Every socket operation has
    ``settings.timeout``. Connection-level failures raise
    :class:`ImapConnectionLost` (after which only :meth:`close` and
    :meth:`connect` are useful); a command the server refuses raises
    :class:`ImapError`.
    """

    def __init__(self, settings: ImapSettings) -> None:
        self._settings = settings
        self._client: Any = None
        self._broken = False
        self._idling = False
        self._uidvalidity = 0
        self._processed = settings.processed_folder
        self._rejected = settings.rejected_folder
        # An untagged EXISTS came in some response since the last search.
        self._mail_pending = False
        self._use_move = False
        self._use_uidplus = False
        self._can_idle = False
        self._delimiter: str | None = None

    # -- connection --------------------------------------------------------------

    def connect(self) -> None:
        """Connect, log in, create the processed and rejected folders if missing, select the folder.

        Raises :class:`ImapError` before opening any socket when ``security`` is
        "none", the host is not loopback and ``allow_plaintext`` is not set.
        """
        self.close()
        s = self._settings
        if s.security == "none" and not _is_loopback(s.host):
            if not s.allow_plaintext:
                raise ImapError(
                    f"refusing plain-text IMAP to {s.host}:{s.port}, which is not loopback: "
                    'the password would cross the network in clear; use security = "ssl" '
                    'or "starttls", or set allow_plaintext = true in [imap]'
                )
            log.warning("IMAP to %s is not encrypted (security = none)", s.host)
        log.info("connecting to IMAP %s (security %s)", s.where, s.security)
        self._broken = False
        self._idling = False
        self._delimiter = None
        with self._guard("connect"):
            self._client = IMAPClient(s.host, s.port, ssl=s.security == "ssl", timeout=s.timeout)
        try:
            self._setup()
        except BaseException:
            self.close()
            raise

    def _setup(self) -> None:
        s = self._settings
        client = self._client
        with self._guard("connect"):
            if s.security == "starttls":
                try:
                    client.starttls()
                except CapabilityError:
                    raise ImapError(
                        f"IMAP server {s.host}:{s.port} does not offer STARTTLS"
                    ) from None
                client.socket().settimeout(s.timeout)
            try:
                client.login(s.username, s.password)
            except LoginError as exc:
                reason = str(exc).replace(s.password, "***") if s.password else str(exc)
                raise ImapLoginFailed(
                    f"IMAP login to {s.host}:{s.port} as {s.username!r} was refused: {reason}"
                ) from None
            # Timezone-aware INTERNALDATEs instead of naive local times.
            client.normalise_times = False
            self._processed = self._server_name(s.processed_folder)
            self._ensure_folder(self._processed)
            self._rejected = self._server_name(s.rejected_folder)
            self._ensure_folder(self._rejected)
            try:
                selected = client.select_folder(self._server_name(s.folder), readonly=False)
            except imaplib.IMAP4.abort:
                raise
            except imaplib.IMAP4.error as exc:
                raise ImapError(
                    f"cannot select IMAP folder {s.folder!r} of {s.where}: {exc}"
                ) from exc
            self._uidvalidity = int(selected[b"UIDVALIDITY"])
            # The first search covers whatever was announced so far.
            self._take_mail_pending()
            self._use_move = bool(client.has_capability("MOVE"))
            self._use_uidplus = bool(client.has_capability("UIDPLUS"))
            self._can_idle = s.idle and bool(client.has_capability("IDLE"))
        if s.idle and not self._can_idle:
            log.warning(
                "IMAP server %s:%s does not support IDLE; polling every %g s",
                s.host,
                s.port,
                s.poll_interval,
            )
        log.info(
            "connected to IMAP %s, folder %r (UIDVALIDITY %d, %s)",
            s.where,
            s.folder,
            self._uidvalidity,
            "IDLE" if self._can_idle else "polling",
        )

    def _server_name(self, name: str) -> str:
        """Spell a "/"-separated folder name with the server's hierarchy delimiter."""
        if "/" not in name:
            return name
        if self._delimiter is None:
            listed = self._client.list_folders("", "")
            delimiter = listed[0][1] if listed else None
            if isinstance(delimiter, bytes):
                delimiter = delimiter.decode("ascii", "replace")
            self._delimiter = delimiter if isinstance(delimiter, str) and delimiter else "/"
        return name.replace("/", self._delimiter)

    def _ensure_folder(self, name: str) -> None:
        client = self._client
        if client.folder_exists(name):
            return
        log.info("creating IMAP folder %r", name)
        try:
            client.create_folder(name)
        except imaplib.IMAP4.abort:
            raise
        except imaplib.IMAP4.error:
            # Another client may have created it meanwhile.
            if not client.folder_exists(name):
                raise
        try:
            client.subscribe_folder(name)
        except imaplib.IMAP4.abort:
            raise
        except imaplib.IMAP4.error as exc:
            log.warning("could not subscribe to IMAP folder %r: %s", name, exc)

    def close(self) -> None:
        """Log out and drop the connection; never raises."""
        client, self._client = self._client, None
        if client is None:
            return
        try:
            if self._broken or self._idling:
                client.shutdown()
            else:
                client.logout()
        except Exception as exc:
            log.debug("closing IMAP connection to %s: %s", self._settings.where, exc)
            with contextlib.suppress(Exception):
                client.shutdown()
        finally:
            self._idling = False

    @property
    def connected(self) -> bool:
        """Whether the connection is up as far as this object knows."""
        return self._client is not None and not self._broken

    @property
    def uidvalidity(self) -> int:
        """The folder's UIDVALIDITY, as reported when it was selected."""
        self._require()
        return self._uidvalidity

    @property
    def idle_supported(self) -> bool:
        """Whether :meth:`wait_for_mail` uses IDLE (enabled in the settings and offered)."""
        self._require()
        return self._can_idle

    def _require(self) -> Any:
        if self._client is None or self._broken:
            raise ImapConnectionLost(f"not connected to IMAP {self._settings.where}")
        return self._client

    @contextlib.contextmanager
    def _guard(self, action: str, *, refusal_is_loss: bool = False) -> Iterator[None]:
        """Turn imaplib, imapclient and socket errors into this module's errors.

        With ``refusal_is_loss`` a refused command also counts as a lost
        connection: after a failed IDLE or DONE the session's state is unknown.
        """
        try:
            yield
        except ImapConnectionLost:
            self._broken = True
            raise
        except ImapError:
            raise
        except (OSError, imaplib.IMAP4.abort) as exc:
            # OSError covers socket timeouts and TLS errors.
            self._broken = True
            detail = str(exc) or type(exc).__name__
            raise ImapConnectionLost(
                f"IMAP {action} with {self._settings.where} failed: {detail}"
            ) from exc
        except imaplib.IMAP4.error as exc:
            message = f"IMAP {action} with {self._settings.where} failed: {exc}"
            if refusal_is_loss:
                self._broken = True
                raise ImapConnectionLost(message) from exc
            raise ImapError(message) from exc

    def _untagged(self) -> dict[str, list[Any]]:
        # imaplib's store of untagged responses; imapclient offers no public view.
        return cast(dict[str, list[Any]], self._client._imap.untagged_responses)

    def _take_untagged(self) -> None:
        """Forget the untagged responses collected so far, noting whether one was EXISTS.

        A server reports mail that arrived during some other command (a FETCH
        or a MOVE of the round) as an untagged EXISTS in that command's
        response, and does not repeat it when IDLE begins; imaplib files it
        away, so it is looked for here and remembered until the next search.
        """
        untagged = self._untagged()
        if untagged.get("EXISTS"):
            self._mail_pending = True
        # Emptied, not just popped: imaplib never drops EXPUNGE, COPYUID and
        # the like, which would otherwise pile up on a long-lived connection.
        untagged.clear()

    def _take_mail_pending(self) -> bool:
        """Whether an EXISTS came in since the last call (or search); forgets it."""
        self._take_untagged()
        pending, self._mail_pending = self._mail_pending, False
        return pending

    # -- messages ----------------------------------------------------------------

    def fetch_batches(self) -> Iterator[list[FetchedMessage]]:
        r"""Yield the messages in the folder not flagged ``\Deleted``, in UID order, in batches.

        The folder is searched once, when iteration starts; each batch (a
        non-empty list of at most ``FETCH_BATCH`` messages) is fetched only when
        it is asked for, so the caller can deal with one batch (and move its
        messages away) before the next is read. Sizes, flags and INTERNALDATEs
        are fetched first; a message larger than ``max_size`` is then fetched
        headers only (``BODY.PEEK[HEADER]``, cut at ``max_size`` bytes) and
        marked ``oversized``, the others whole with ``BODY.PEEK[]``. No flag
        changes. A message expunged by someone else since the search is skipped.
        """
        client = self._require()
        with self._guard("fetch"):
            # A session's SEARCH sees only the messages the server has already
            # announced to it; NOOP makes it catch up with mail delivered since.
            client.noop()
            # The search below covers whatever was announced so far.
            self._take_mail_pending()
            uids = sorted(int(u) for u in client.search("UNDELETED"))
        log.debug("%d message(s) to fetch from %s", len(uids), self._settings.where)
        for batch in _chunks(uids, FETCH_BATCH):
            with self._guard("fetch"):
                messages = self._fetch(batch)
                self._take_untagged()
            if messages:
                yield messages

    def fetch_all(self) -> list[FetchedMessage]:
        """Return every message of :meth:`fetch_batches` in one list.

        Holds the whole folder in memory: prefer :meth:`fetch_batches`.
        """
        return [message for batch in self.fetch_batches() for message in batch]

    def _fetch(self, uids: list[int]) -> list[FetchedMessage]:
        client = self._client
        limit = self._settings.max_size
        meta = client.fetch(uids, [b"RFC822.SIZE", b"INTERNALDATE", b"FLAGS"])
        sizes: dict[int, int] = {}
        for uid in uids:
            data = meta.get(uid)
            if data is None:
                log.debug("IMAP UID %d vanished before it was fetched", uid)
            elif _DELETED in tuple(data.get(b"FLAGS", ())):
                continue
            elif not isinstance(size := data.get(b"RFC822.SIZE"), int):
                log.warning(
                    "IMAP UID %d in %s has no RFC822.SIZE; skipped", uid, self._settings.where
                )
            else:
                sizes[uid] = size
        # The size of each message too big to fetch whole; None for the others.
        too_big = {
            uid: size if limit is not None and size > limit else None
            for uid, size in sizes.items()
        }
        whole = [uid for uid, big in too_big.items() if big is None]
        headers_only = [uid for uid, big in too_big.items() if big is not None]
        bodies: dict[int, Any] = {}
        if whole:
            bodies.update(client.fetch(whole, [b"BODY.PEEK[]"]))
        if headers_only:
            # A partial fetch: the header block alone can be as large as an attacker likes.
            bodies.update(client.fetch(headers_only, [f"BODY.PEEK[HEADER]<0.{limit}>".encode()]))
        messages = []
        for uid, big in too_big.items():
            message = self._message(uid, meta[uid], bodies.get(uid), big)
            if message is not None:
                messages.append(message)
        return messages

    def _message(
        self,
        uid: int,
        meta: dict[bytes, Any],
        data: dict[bytes, Any] | None,
        oversized: int | None,
    ) -> FetchedMessage | None:
        if data is None:
            log.debug("IMAP UID %d vanished before it was fetched", uid)
            return None
        raw = data.get(b"BODY[]" if oversized is None else b"BODY[HEADER]<0>")
        if not isinstance(raw, bytes):
            log.warning("IMAP UID %d in %s came without a body; skipped", uid, self._settings.where)
            return None
        if oversized is not None:
            log.info(
                "IMAP UID %d in %s has %d bytes, over the limit of %s: fetched its header only",
                uid,
                self._settings.where,
                oversized,
                self._settings.max_size,
            )
        when = meta.get(b"INTERNALDATE")
        if not isinstance(when, datetime):
            log.warning("IMAP UID %d has no INTERNALDATE; using the current time", uid)
            when = datetime.now(UTC)
        elif when.tzinfo is None:
            when = when.replace(tzinfo=UTC)
        return FetchedMessage(self._uidvalidity, uid, when.astimezone(UTC), raw, oversized)

    def move_to_processed(self, uids: Sequence[int]) -> None:
        r"""Move the messages ``uids`` to the processed folder; absent UIDs are ignored.

        Uses MOVE when the server has it, otherwise COPY, ``\Deleted`` and UID
        EXPUNGE (or EXPUNGE without UIDPLUS). A crash between the COPY and the
        EXPUNGE leaves the message in both folders, and it is offered again.
        """
        self._move_to(self._processed, uids)

    def move_to_rejected(self, uids: Sequence[int]) -> None:
        """Move the messages ``uids`` to the rejected folder, as :meth:`move_to_processed` does."""
        self._move_to(self._rejected, uids)

    def _move_to(self, folder: str, uids: Sequence[int]) -> None:
        client = self._require()
        wanted = sorted({int(u) for u in uids})
        if not wanted:
            return
        with self._guard("move"):
            for batch in _chunks(wanted, MOVE_BATCH):
                try:
                    self._move(folder, batch)
                except imaplib.IMAP4.abort:
                    raise
                except imaplib.IMAP4.error:
                    # Some servers refuse a UID set that no longer matches anything.
                    present = sorted(int(u) for u in client.search(["UID", _uid_set(batch)]))
                    if present:
                        self._move(folder, present)
            self._take_untagged()
        log.info("moved UIDs %s to %r", _uid_set(wanted), folder)

    def _move(self, folder: str, uids: list[int]) -> None:
        client = self._client
        if self._use_move:
            client.move(uids, folder)
            return
        client.copy(uids, folder)
        client.add_flags(uids, [_DELETED], silent=True)
        if self._use_uidplus:
            client.uid_expunge(uids)
        else:
            client.expunge()

    # -- waiting -----------------------------------------------------------------

    def wait_for_mail(self, timeout: float, stop: threading.Event) -> bool:
        """Wait until new mail may have arrived, ``timeout`` passes or ``stop`` is set.

        With IDLE, returns True when the server announced new mail (EXISTS or
        RECENT) and False otherwise; IDLE is re-issued every ``idle_renew``
        seconds. Without IDLE, waits ``poll_interval`` (or ``timeout``, if
        shorter), interruptible by ``stop``, and returns True. Raises
        :class:`ImapConnectionLost` on BYE, a socket error or a timeout.
        """
        self._require()
        if self._take_mail_pending():
            return True
        if not self._can_idle:
            stop.wait(max(0.0, min(timeout, self._settings.poll_interval)))
            return True
        if stop.is_set():
            return False
        with self._guard("IDLE", refusal_is_loss=True):
            return self._idle(time.monotonic() + timeout, stop)

    def _idle(self, deadline: float, stop: threading.Event) -> bool:
        client = self._client
        while True:
            renew_at = min(deadline, time.monotonic() + self._settings.idle_renew)
            client.idle()
            self._idling = True
            # The server may have sent something right behind its "+ idling",
            # already sitting in imaplib's buffer where poll() cannot see it.
            mail = self._read_idle_lines(readable=False)
            poller = select.poll()
            poller.register(client.socket().fileno(), select.POLLIN)
            while not mail and not stop.is_set():
                remaining = renew_at - time.monotonic()
                if remaining <= 0:
                    break
                if poller.poll(min(remaining, _STOP_CHECK) * 1000):
                    mail = self._read_idle_lines(readable=True)
            _text, responses = client.idle_done()
            self._idling = False
            pending = self._take_mail_pending()
            mail = mail or pending or any(_announces_mail(r) for r in responses)
            if mail or stop.is_set() or time.monotonic() >= deadline:
                if mail:
                    log.debug("IMAP server announced new mail")
                return mail
            log.debug("renewing IDLE with %s", self._settings.where)

    def _read_idle_lines(self, *, readable: bool) -> bool:
        """Read the lines the server sent during IDLE without blocking; True if one was mail.

        imapclient's ``idle_check`` cannot tell a closed connection from a quiet
        one (it returns the server's BYE once, then [] forever), hence this.
        ``readable`` says poll() found the socket readable, so reading nothing
        at all means the server closed the connection.
        """
        imap = self._client._imap
        sock = self._client.socket()
        mail = False
        got_any = False
        sock.setblocking(False)
        try:
            while True:
                try:
                    line = imap.readline()
                except (BlockingIOError, ssl.SSLWantReadError):
                    # Nothing more to read (TLS: no whole record to decrypt yet).
                    break
                if not line:
                    if readable and not got_any:
                        raise ImapConnectionLost(
                            f"IMAP server {self._settings.where} closed the connection"
                        )
                    break
                got_any = True
                if not line.endswith(b"\r\n"):
                    # Half a line arrived; the rest follows at once.
                    sock.settimeout(self._settings.timeout)
                    line += imap.readline()
                    sock.setblocking(False)
                    if not line.endswith(b"\r\n"):
                        raise ImapConnectionLost(
                            f"IMAP server {self._settings.where} stopped mid-line: {line!r}"
                        )
                mail = self._idle_line(line) or mail
        finally:
            sock.settimeout(self._settings.timeout)
        return mail

    def _idle_line(self, line: bytes) -> bool:
        parts = line.rstrip(b"\r\n").split(b" ", 2)
        word = parts[1].upper() if len(parts) > 1 else b""
        if parts[0] != b"*":
            # Only a tagged response (IDLE ended by the server) or "+" can get here.
            raise ImapConnectionLost(
                f"IMAP server {self._settings.where} ended IDLE unexpectedly: {line!r}"
            )
        if word == b"BYE":
            raise ImapConnectionLost(f"IMAP server {self._settings.where} said {line!r}")
        if word.isdigit() and len(parts) > 2 and parts[2].upper() in (b"EXISTS", b"RECENT"):
            return True
        log.debug("IDLE: %r", line)
        return False


class ImapWatcher:
    """Runs the inbound loop on its own thread.

    Connect, then in rounds: search the folder, and for each batch of at most
    ``FETCH_BATCH`` messages (see :meth:`ImapMailbox.fetch_batches`) hand it to
    ``deliver`` and move the ones ``deliver`` says are done before the next
    batch is fetched; then wait for mail, and start the next round. Reconnect
    with exponential backoff (``backoff_base`` doubling to ``backoff_max``, plus
    up to a quarter more of random jitter) after any failure, and search
    everything again after every (re)connect. Only one batch is in memory at a
    time.

    ``deliver(messages)`` is called from the watcher thread with a non-empty
    list (one batch, in UID order) and returns the UIDs that are safely
    committed (processed, set aside, or known duplicates): only those are moved,
    as soon as it returns: oversized ones (``FetchedMessage.oversized`` set) to
    the rejected folder, the others to the processed folder. Messages it does
    not return stay in the folder and are offered again in the next round. If
    it raises, that counts as a failure like a lost connection (the batches
    already moved stay moved). ``on_error`` is told of every failure. Even with
    IDLE the folder is searched again every ``poll_interval``, in case a
    notification was lost.

    ``sleep(seconds)`` waits out a backoff delay; the default one is cut short
    by :meth:`stop` and by :meth:`poke` (a caller about to rely on :meth:`sync`
    wants a reconnect now, not in a minute).
    """

    def __init__(
        self,
        settings: ImapSettings,
        deliver: Callable[[list[FetchedMessage]], Iterable[int]],
        *,
        on_error: Callable[[Exception], None] | None = None,
        rng: random.Random | None = None,
        sleep: Callable[[float], object] | None = None,
        backoff_base: float = 1.0,
        backoff_max: float = 60.0,
    ) -> None:
        if not 0 < backoff_base <= backoff_max:
            raise ValueError("need 0 < backoff_base <= backoff_max")
        self._settings = settings
        self._deliver = deliver
        self._on_error = on_error
        self._rng = rng or random.Random()
        self._stopping = threading.Event()
        self._sleep: Callable[[float], object] = sleep or self._wait_backoff
        self._backoff_base = backoff_base
        self._backoff_max = backoff_max
        # Set by poke() and stop(): ends the current wait for mail.
        self._wake = threading.Event()
        self._cond = threading.Condition()
        self._started = 0  # rounds begun
        self._completed = 0  # number of the last round completed
        self._rounds = 0
        self._failures = 0
        self._connected = False
        self._thread: threading.Thread | None = None

    @property
    def connected(self) -> bool:
        """Whether the watcher holds a working connection right now."""
        return self._connected

    @property
    def rounds(self) -> int:
        """How many rounds (one search, all its batches delivered) have completed."""
        return self._rounds

    def start(self) -> None:
        """Start the watcher thread."""
        if self._thread is not None:
            raise RuntimeError("an ImapWatcher can be started only once")
        self._thread = threading.Thread(target=self._run, name="speakerbot-imap", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 10) -> None:
        """Stop the thread: interrupts a wait for mail or a backoff, and joins it."""
        self._stopping.set()
        self._wake.set()
        with self._cond:
            self._cond.notify_all()
        thread = self._thread
        if thread is None:
            return
        thread.join(timeout)
        if thread.is_alive():
            log.warning("IMAP watcher did not stop within %g s", timeout)

    def poke(self) -> None:
        """Ask for a new fetch+deliver round as soon as possible."""
        self._wake.set()

    def sync(self, timeout: float) -> bool:
        """Block until a round that started after this call has completed; False on timeout.

        A round is one search of the folder and every batch it found. Every
        message in the folder before the call has then been offered to
        ``deliver``.
        """
        with self._cond:
            wanted = self._started + 1
        self.poke()
        with self._cond:
            self._cond.wait_for(lambda: self._completed >= wanted or not self._running(), timeout)
            return self._completed >= wanted

    def _running(self) -> bool:
        thread = self._thread
        return thread is not None and thread.is_alive() and not self._stopping.is_set()

    # -- the thread ----------------------------------------------------------------

    def _run(self) -> None:
        try:
            while not self._stopping.is_set():
                failed = False
                mailbox = ImapMailbox(self._settings)
                # Only a poke from now on may cut the backoff after this attempt
                # short; one left over would cut every backoff short.
                self._wake.clear()
                try:
                    mailbox.connect()
                    self._connected = True
                    self._serve(mailbox)
                except Exception as exc:
                    failed = True
                    self._failures += 1
                    self._report(exc)
                finally:
                    self._connected = False
                    mailbox.close()
                if failed and not self._stopping.is_set():
                    delay = self._backoff(self._failures)
                    log.info("reconnecting to IMAP %s in %.1f s", self._settings.where, delay)
                    self._sleep(delay)
        finally:
            with self._cond:
                self._cond.notify_all()
            log.info("IMAP watcher for %s stopped", self._settings.where)

    def _serve(self, mailbox: ImapMailbox) -> None:
        while not self._stopping.is_set():
            self._round(mailbox)
            self._failures = 0
            if self._stopping.is_set() or self._wake.is_set():
                continue
            mailbox.wait_for_mail(self._settings.poll_interval, self._wake)

    def _round(self, mailbox: ImapMailbox) -> None:
        with self._cond:
            # Cleared before the search, so a poke from now on gets another round.
            self._wake.clear()
            self._started += 1
            number = self._started
        offered = done = 0
        for messages in mailbox.fetch_batches():
            if self._stopping.is_set():
                return  # an unfinished round does not count as completed
            offered += len(messages)
            done += self._deliver_batch(mailbox, messages)
        if offered:
            log.debug("round %d: %d offered, %d done", number, offered, done)
        with self._cond:
            self._completed = number
            self._rounds += 1
            self._cond.notify_all()

    def _deliver_batch(self, mailbox: ImapMailbox, messages: list[FetchedMessage]) -> int:
        """Hand one batch to ``deliver`` and move what it returns; how many were moved."""
        offered = {m.uid: m for m in messages}
        done = {int(uid) for uid in self._deliver(messages)}
        unknown = done - offered.keys()
        if unknown:
            log.warning("deliver returned UIDs it was not offered: %s", sorted(unknown))
        moved = sorted(done & offered.keys())
        mailbox.move_to_rejected([uid for uid in moved if offered[uid].oversized is not None])
        mailbox.move_to_processed([uid for uid in moved if offered[uid].oversized is None])
        return len(moved)

    def _wait_backoff(self, delay: float) -> None:
        self._wake.wait(delay)

    def _backoff(self, failures: int) -> float:
        delay = min(self._backoff_max, self._backoff_base * 2.0 ** min(failures - 1, 30))
        return delay + self._rng.uniform(0, delay / 4)

    def _report(self, exc: Exception) -> None:
        if isinstance(exc, ImapLoginFailed):
            log.error("%s", exc)
        elif isinstance(exc, ImapError):
            log.warning("%s", exc)
        else:
            log.exception("IMAP watcher round failed")
        if self._on_error is not None:
            try:
                self._on_error(exc)
            except Exception:
                log.exception("on_error callback failed")


def _announces_mail(response: object) -> bool:
    """Whether a response parsed by imapclient is ``(n, b"EXISTS")`` or ``(n, b"RECENT")``."""
    return (
        isinstance(response, tuple)
        and len(response) >= 2
        and isinstance(response[0], int)
        and isinstance(response[1], bytes)
        and response[1].upper() in (b"EXISTS", b"RECENT")
    )


def _is_loopback(host: str) -> bool:
    """Whether ``host`` is "localhost" or a loopback address (127.0.0.0/8, ::1); no DNS."""
    name = host.strip().rstrip(".").lower()
    if name == "localhost":
        return True
    try:
        address = ipaddress.ip_address(name.removeprefix("[").removesuffix("]"))
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped.is_loopback
    return address.is_loopback


def _chunks(items: list[int], size: int) -> Iterator[list[int]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def _uid_set(uids: list[int]) -> str:
    return ",".join(str(u) for u in uids)
