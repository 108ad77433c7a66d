r"""One IMAP connection to the watched folder: connect, fetch in batches, move, wait for mail.

:class:`ImapMailbox` fetches with ``BODY.PEEK[]`` (so ``\Seen`` is never set and never
relied on), fetches a message over ``max_size`` headers only, moves messages with MOVE
(or COPY, ``\Deleted`` and EXPUNGE) and waits for new mail with IDLE or by polling.
Plain-text IMAP to a host that is not loopback is refused unless ``allow_plaintext``.
"""

from __future__ import annotations

import contextlib
import imaplib
import logging
import select
import ssl
import threading
import time
from collections.abc import Iterator, Sequence
from typing import Any, cast

from imapclient import IMAPClient  # type: ignore[import-untyped,unused-ignore]
from imapclient.exceptions import CapabilityError, LoginError  # type: ignore[import-untyped,unused-ignore]

from speakerbot.adapters.imap.records import (
    FETCH_BATCH,
    MOVE_BATCH,
    FetchedMessage,
    ImapConnectionLost,
    ImapError,
    ImapLoginFailed,
    ImapSettings,
)
from speakerbot.adapters.imap.responses import (
    DELETED,
    announces_mail,
    chunks,
    fetched_message,
    hierarchy_delimiter,
    idle_line_announces_mail,
    sizes_to_fetch,
    uid_set,
)
from speakerbot.adapters.transport import is_loopback

__all__ = ["ImapMailbox"]

log = logging.getLogger("speakerbot.imap")

# Longest time between two looks at the stop event while waiting for mail.
_STOP_CHECK = 0.2


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
        if s.security == "none" and not is_loopback(s.host):
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
            self._delimiter = hierarchy_delimiter(self._client.list_folders("", ""))
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
        for batch in chunks(uids, FETCH_BATCH):
            with self._guard("fetch"):
                messages = self._fetch(batch)
                self._take_untagged()
            if messages:
                yield messages
            del messages  # let the batch go before the next is fetched: one in memory

    def fetch_all(self) -> list[FetchedMessage]:
        """Return every message of :meth:`fetch_batches` in one list.

        Holds the whole folder in memory: prefer :meth:`fetch_batches`.
        """
        return [message for batch in self.fetch_batches() for message in batch]

    def _fetch(self, uids: list[int]) -> list[FetchedMessage]:
        client = self._client
        limit = self._settings.max_size
        meta = client.fetch(uids, [b"RFC822.SIZE", b"INTERNALDATE", b"FLAGS"])
        sizes = sizes_to_fetch(meta, uids, self._settings.where)
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
        message = fetched_message(
            self._uidvalidity, uid, meta, data, oversized, self._settings.where
        )
        if message is not None and oversized is not None:
            log.info(
                "IMAP UID %d in %s has %d bytes, over the limit of %s: fetched its header only",
                uid,
                self._settings.where,
                oversized,
                self._settings.max_size,
            )
        return message

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
            for batch in chunks(wanted, MOVE_BATCH):
                try:
                    self._move(folder, batch)
                except imaplib.IMAP4.abort:
                    raise
                except imaplib.IMAP4.error:
                    # Some servers refuse a UID set that no longer matches anything.
                    present = sorted(int(u) for u in client.search(["UID", uid_set(batch)]))
                    if present:
                        self._move(folder, present)
            self._take_untagged()
        log.info("moved UIDs %s to %r", uid_set(wanted), folder)

    def _move(self, folder: str, uids: list[int]) -> None:
        client = self._client
        if self._use_move:
            client.move(uids, folder)
            return
        client.copy(uids, folder)
        client.add_flags(uids, [DELETED], silent=True)
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
            mail = mail or pending or any(announces_mail(r) for r in responses)
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
                mail = idle_line_announces_mail(line, self._settings.where) or mail
        finally:
            sock.settimeout(self._settings.timeout)
        return mail
