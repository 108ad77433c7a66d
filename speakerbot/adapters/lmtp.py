"""LMTP inbound: receive mail from the local MTA and hand each message to a store callback.

LMTP (RFC 2033) differs from SMTP in that the answer to the end of DATA is one
reply line per accepted recipient, in RCPT order. aiosmtpd's ``LMTP`` class only
swaps HELO/EHLO for LHLO and sends a single reply after DATA, so the protocol
class here repeats the final answer once per accepted recipient. A message is
stored once, for all its recipients, so the answers are all alike: 250 when the
store returned, 451 when it raised.

A ``Return-Path: <envelope sender>`` header is prepended to the message (as a
delivering MTA does, and Dovecot's LMTP does) unless the message already begins
with one; the null sender gives ``Return-Path: <>``, which is what bounce
detection looks for. Then a ``Delivered-To: <recipient>`` header per accepted
recipient, as Dovecot's LMTP writes it: where the message was delivered, which
its To and Cc (the sender's words) do not say. Apart from those headers the
bytes are those received.

The DATA phase is read here rather than by aiosmtpd: aiosmtpd (1.4) stops
keeping the lines of a message once it is over the size limit, but still
gathers a line without a line break whole, however long, before it refuses it.
Here nothing more is kept once the message is over ``max_size`` or a line is
over the line length limit: the rest is read and thrown away up to the final
dot, and then refused (552 or 500) once per recipient.
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
import socket
import threading
from collections.abc import Callable
from datetime import UTC, datetime
from typing import AnyStr

from aiosmtpd.lmtp import LMTP
from aiosmtpd.smtp import SMTP, Envelope, Session, syntax

__all__ = ["CannotListen", "LmtpServer", "Store"]

log = logging.getLogger(__name__)

Store = Callable[[bytes, datetime, str, list[str]], bool]
"""Stores one message delivered (raw bytes, when, the envelope's sender and recipients);
returns False when it was a copy of one stored already, which it drops (True: stored)."""
"""``store(raw, received_at, mail_from, recipients)``: keep the message durably, or raise."""

STORED = "250 2.0.0 Message stored"
TEMPORARY_FAILURE = "451 4.3.0 Temporary local failure, try again later"
UNKNOWN_RECIPIENT = "550 5.1.1 No such game here"
TOO_BIG = "552 5.3.4 Message too big"
LINE_TOO_LONG = "500 5.5.2 Line too long"

# How long stop() lets a DATA transaction in progress run to its answer before
# cutting the connection; a cut one is retried by the MTA.
_STOP_GRACE_SECONDS = 10.0

_RETURN_PATH = re.compile(rb"return-path[ \t]*:", re.IGNORECASE)


def with_return_path(raw: bytes, mail_from: str) -> bytes:
    """Return ``raw`` with ``Return-Path: <mail_from>`` prepended, unless it starts with one."""
    if _RETURN_PATH.match(raw):
        return raw
    sender = mail_from.encode("utf-8", "surrogateescape")
    return b"Return-Path: <" + sender + b">\r\n" + raw


def with_envelope(raw: bytes, mail_from: str, recipients: list[str]) -> bytes:
    """Return ``raw`` with its envelope written in: a Return-Path, a Delivered-To per recipient.

    The Return-Path is kept first (:func:`with_return_path`); the Delivered-To lines follow
    it, in the order the recipients were accepted.
    """
    stamped = with_return_path(raw, mail_from)
    end = stamped.find(b"\n") + 1
    delivered = b"".join(b"Delivered-To: " + recipient.encode("utf-8", "surrogateescape")
                         + b"\r\n" for recipient in recipients)
    return stamped[:end] + delivered + stamped[end:]


class CannotListen(RuntimeError):
    """The listener could not take its address (the port is another program's, or not ours)."""


class LmtpServer:
    """Receives mail from a local MTA by LMTP.

    A message is answered 250 only after ``store`` has returned (it has been
    stored durably); 451 on any error of ours (never 5xx for our own fault); one
    answer per recipient, as LMTP requires. A message larger than ``max_size``
    bytes (None: no limit) is refused with 552: at MAIL FROM if the client
    declares its SIZE (advertised in the LHLO answer), otherwise after DATA,
    without keeping more than ``max_size`` bytes of it in memory.

    ``store(raw, received_at, mail_from, recipients)`` gets the message bytes
    (with a Return-Path header, see the module docstring), the time the message
    was delivered (tz-aware UTC), the envelope sender ("" for the null sender)
    and the accepted recipients. It runs in a worker thread, so it may block
    (a database) without stopping the server from answering other connections;
    several calls can run at once.

    The server runs its own event loop in a background thread between
    ``start()`` and ``stop()``. Port 0 picks a free port, readable from ``port``
    once started (with a host that resolves to a single address).

    ``accepts(address)``, if given, says whether a recipient is one of ours: any other is
    refused at RCPT with 550 5.1.1, before the message is sent (None: every recipient).

    ``shared``: the port may be shared with other listeners of the same user on this
    machine (``SO_REUSEPORT``: the kernel spreads the connections among them, and the
    survivors take them all when one dies), as the workers of one config do. A port that
    cannot be had raises ``CannotListen`` from ``start()``.
    """

    def __init__(
        self,
        host: str,
        port: int,
        store: Store,
        *,
        max_size: int | None = None,
        accepts: Callable[[str], bool] | None = None,
        shared: bool = False,
    ) -> None:
        self.host = host
        self.port = port
        self.shared = shared
        self._store = store
        self._accepts = accepts
        self._max_size = max_size
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._server: asyncio.AbstractServer | None = None
        self._activity: _Activity | None = None

    def start(self) -> None:
        """Start listening; when this returns, connections are accepted."""
        if self._thread is not None:
            return
        loop = asyncio.new_event_loop()
        ready = threading.Event()
        failure: list[BaseException] = []
        thread = threading.Thread(
            target=self._run,
            args=(loop, ready, failure),
            name=f"lmtp-{self.host}:{self.port}",
            daemon=True,
        )
        thread.start()
        ready.wait()
        if failure:
            thread.join()
            error = failure[0]
            if isinstance(error, OSError):
                # asyncio words the bind's error its own way; the errno says it plainly.
                said = os.strerror(error.errno) if error.errno else str(error)
                raise CannotListen(f"cannot listen for LMTP on {self.host}:{self.port}: "
                                   f"{said}") from error
            raise error
        self._loop, self._thread = loop, thread
        log.info("LMTP server listening on %s:%d", self.host, self.port)

    def stop(self) -> None:
        """Stop listening, let a message being received finish, and release the port.

        Returns once every ``store`` call already started has returned.
        """
        loop, thread = self._loop, self._thread
        if loop is None or thread is None:
            return
        asyncio.run_coroutine_threadsafe(self._shutdown(), loop).result()
        loop.call_soon_threadsafe(loop.stop)
        thread.join()
        self._loop = self._thread = self._server = self._activity = None
        log.info("LMTP server on %s:%d stopped", self.host, self.port)

    # -- on the server's thread ------------------------------------------------

    def _run(
        self,
        loop: asyncio.AbstractEventLoop,
        ready: threading.Event,
        failure: list[BaseException],
    ) -> None:
        asyncio.set_event_loop(loop)
        try:
            try:
                self._server = loop.run_until_complete(self._listen(loop))
            except BaseException as exc:
                failure.append(exc)
                return
            finally:
                ready.set()
            loop.run_forever()
        finally:
            # Waits for store calls still running in worker threads.
            loop.run_until_complete(loop.shutdown_default_executor())
            loop.close()

    async def _listen(self, loop: asyncio.AbstractEventLoop) -> asyncio.AbstractServer:
        handler = _Handler(self._store, self._accepts)
        # A fixed hostname: aiosmtpd's default, socket.getfqdn(), can hang without DNS.
        hostname = socket.gethostname()
        # Created here so that its asyncio.Event belongs to this loop.
        activity = self._activity = _Activity()

        def protocol() -> _LmtpProtocol:
            return _LmtpProtocol(
                handler,
                activity,
                loop=loop,
                hostname=hostname,
                data_size_limit=self._max_size,
            )

        server = await loop.create_server(protocol, self.host, self.port,
                                          reuse_port=self.shared or None)
        self.port = server.sockets[0].getsockname()[1]
        return server

    async def _shutdown(self) -> None:
        server, activity = self._server, self._activity
        assert server is not None and activity is not None
        server.close()
        try:
            await asyncio.wait_for(activity.idle(), _STOP_GRACE_SECONDS)
        except TimeoutError:
            log.warning("stopping LMTP while a message is being received; the MTA will retry")
        current = asyncio.current_task()
        tasks = [task for task in asyncio.all_tasks() if task is not current]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await server.wait_closed()


class _Activity:
    """Counts DATA transactions in progress, so that stopping can wait for them."""

    def __init__(self) -> None:
        self._count = 0
        self._idle = asyncio.Event()
        self._idle.set()

    def enter(self) -> None:
        self._count += 1
        self._idle.clear()

    def leave(self) -> None:
        self._count -= 1
        if self._count == 0:
            self._idle.set()

    async def idle(self) -> None:
        await self._idle.wait()


class _Handler:
    """aiosmtpd handler hooks: store the message, answer for it."""

    def __init__(self, store: Store, accepts: Callable[[str], bool] | None = None) -> None:
        self._store = store
        self._accepts = accepts

    async def handle_RCPT(self, server: SMTP, session: Session, envelope: Envelope,
                          address: str, rcpt_options: list[str]) -> str:
        """Accept a recipient that is one of ours; refuse any other before DATA (550 5.1.1)."""
        if self._accepts is not None and not self._accepts(address):
            log.info("refused the recipient <%s>: no game has that address", address)
            return UNKNOWN_RECIPIENT
        envelope.rcpt_tos.append(address)
        envelope.rcpt_options.extend(rcpt_options)
        return "250 OK"

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        received_at = datetime.now(UTC)
        mail_from = envelope.mail_from or ""
        # aiosmtpd keeps the null reverse-path as the literal "<>".
        if mail_from == "<>":
            mail_from = ""
        original = envelope.original_content or b""
        recipients = list(envelope.rcpt_tos)
        raw = with_envelope(original, mail_from, recipients)
        try:
            stored = await asyncio.to_thread(self._store, raw, received_at, mail_from,
                                             recipients)
        except Exception:
            log.exception(
                "storing a message from <%s> to %s failed; answered 451", mail_from, recipients
            )
            return TEMPORARY_FAILURE
        if stored:
            log.info("stored a message from <%s> to %s (%d bytes)", mail_from, recipients,
                     len(raw))
        else:  # the server delivered it again: it is answered as stored, and stored once
            log.info("a message from <%s> to %s was stored already; not stored again",
                     mail_from, recipients)
        return STORED

    async def handle_exception(self, error: Exception) -> str:
        # aiosmtpd would answer 500 for an exception of ours; the message is not at fault.
        log.error("LMTP session error", exc_info=error)
        return TEMPORARY_FAILURE


class _LmtpProtocol(LMTP):
    """aiosmtpd's LMTP, answering the end of DATA once per accepted recipient.

    DATA is read by :meth:`_receive` instead of aiosmtpd, to bound the memory an
    oversized message takes (see the module docstring).
    """

    # RFC 5321's 1000 octets is a limit the MTA in front of us did not enforce;
    # refusing a longer line (500) would bounce mail it accepted.
    line_length_limit = 1 << 20

    def __init__(
        self,
        handler: _Handler,
        activity: _Activity,
        *,
        loop: asyncio.AbstractEventLoop,
        hostname: str,
        data_size_limit: int | None,
    ) -> None:
        super().__init__(
            handler,
            loop=loop,
            hostname=hostname,
            ident="speakerbot LMTP",
            data_size_limit=data_size_limit,
            enable_SMTPUTF8=True,
        )
        self._handler = handler
        self._activity = activity
        # Recipients accepted when DATA came in, who will need an answer each once
        # 354 is sent.
        self._recipients_at_data = 0
        # Copies of the next reply to send: the reply that ends the DATA transaction.
        self._final_reply_copies = 0

    @syntax("DATA")
    async def smtp_DATA(self, arg: str) -> None:
        envelope = self.envelope
        self._recipients_at_data = len(envelope.rcpt_tos) if envelope is not None else 0
        self._activity.enter()
        try:
            await self._data(arg)
        except ConnectionError:
            raise
        except Exception:
            log.exception("error while receiving DATA; answered 451")
            await self.push(TEMPORARY_FAILURE)
        finally:
            self._recipients_at_data = 0
            self._final_reply_copies = 0
            self._activity.leave()

    async def _data(self, arg: str) -> None:
        """Handle DATA as aiosmtpd does, but read the message with :meth:`_receive`."""
        if await self.check_helo_needed() or await self.check_auth_needed("DATA"):
            return
        envelope = self.envelope
        assert envelope is not None and self.session is not None
        if not envelope.rcpt_tos:
            await self.push("503 Error: need RCPT command")
            return
        if arg:
            await self.push("501 Syntax: DATA")
            return
        await self.push("354 End data with <CR><LF>.<CR><LF>")
        content = await self._receive()
        if isinstance(content, str):
            log.info("refused a message from <%s>: %s", envelope.mail_from, content)
            self._set_post_data_state()  # type: ignore[no-untyped-call]
            await self.push(content)
            return
        envelope.content = envelope.original_content = content
        status = await self._handler.handle_DATA(self, self.session, envelope)
        self._set_post_data_state()  # type: ignore[no-untyped-call]
        await self.push(status)

    async def _receive(self) -> bytes | str:
        """Read the message up to the line with a single dot: its bytes, or the refusal.

        The lines are dot-unstuffed (RFC 5321 4.5.2). Once the message is over
        ``data_size_limit`` or a line over ``line_length_limit``, nothing more
        is kept: the rest is read and dropped, and the refusal returned.
        """
        limit = self.data_size_limit or None
        lines: list[bytes] = []  # complete lines, unstuffed
        pieces: list[bytes] = []  # the line being read, when it comes in pieces
        size = 0  # bytes read so far, as sent
        line_length = 0  # bytes of the line being read so far
        refusal: str | None = None
        while True:
            try:
                chunk = await self._reader.readuntil(b"\r\n")
            except asyncio.LimitOverrunError as exc:
                # No line break within the reader's limit: take the piece there is.
                chunk = await self._reader.read(exc.consumed)
            except asyncio.IncompleteReadError as exc:
                raise ConnectionResetError("connection closed during DATA") from exc
            except asyncio.CancelledError:
                # The connection was lost (aiosmtpd cancels the session's task).
                self._writer.close()
                raise
            if line_length == 0 and chunk == b".\r\n":
                break
            size += len(chunk)
            line_length += len(chunk)
            if refusal is None:
                if limit is not None and size > limit:
                    refusal = TOO_BIG
                elif line_length > self.line_length_limit:
                    refusal = LINE_TOO_LONG
                if refusal is not None:
                    lines.clear()
                    pieces.clear()
            ended = chunk.endswith(b"\r\n")
            if refusal is None:
                pieces.append(chunk)
                if ended:
                    line = b"".join(pieces)
                    lines.append(line[1:] if line.startswith(b".") else line)
                    pieces.clear()
            if ended:
                line_length = 0
        return refusal if refusal is not None else b"".join(lines)

    async def push(self, status: AnyStr) -> None:
        if self._final_reply_copies:
            # Every reply after 354 ends the transaction (250, 451, 552 too big,
            # 500 line too long): LMTP wants it once per recipient.
            line = status.encode("utf-8") if isinstance(status, str) else status
            copies, self._final_reply_copies = self._final_reply_copies, 0
            await super().push(b"\r\n".join([line] * copies))
            return
        await super().push(status)
        is_354 = status.startswith("354") if isinstance(status, str) else status.startswith(b"354")
        if self._recipients_at_data and is_354:
            self._final_reply_copies = self._recipients_at_data
            self._recipients_at_data = 0
