"""An SMTP sink on loopback: a real aiosmtpd server that keeps what it accepts.

Tests send mail to it with any SMTP client and then wait, on a condition variable,
for the message they expect. The sink can be told to refuse mail for a while
(4xx), to refuse some recipients for good (5xx), to take at most so many recipients in
one transaction (452 after them, as hosted relays do), or to be slow: to take so many
seconds over each message before it answers DATA (a relay's checks, a remote server).
It offers PIPELINING, as real relays do, unless made with ``pipelining=False``.
"""

from __future__ import annotations

import asyncio
import email
import email.policy
import re
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from email.message import EmailMessage
from functools import cached_property
from typing import Literal

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, Envelope, Session

from .patience import patience
from .servers import LoopbackServer

Stage = Literal["mail", "rcpt", "data"]


@dataclass(frozen=True)
class CapturedMessage:
    """One message the sink accepted: its envelope and its bytes as received."""

    mail_from: str
    rcpt_tos: tuple[str, ...]
    data: bytes
    peer: object = None
    """The client's (host, port): messages sent over one connection share it."""

    def parsed(self) -> EmailMessage:
        """Return the message parsed with the standard library's modern email policy."""
        return email.message_from_bytes(self.data, policy=email.policy.default)

    @cached_property
    def subject(self) -> str:
        """The Subject as ``str(self.parsed()["Subject"])`` gives it, parsed once.

        Waits test every message captured so far each time one more comes in: without it,
        a game of many players' mail was parsed again and again (quadratic in the copies).
        """
        return str(self.parsed()["Subject"])

    @cached_property
    def plain_body(self) -> str:
        """The text of the plain-text body (empty without one), parsed once."""
        part = self.parsed().get_body(("plain",))
        return part.get_content() if part is not None else ""


_MESSAGE_ID = re.compile(rb"^Message-ID: *(\S+)", re.MULTILINE | re.IGNORECASE)


def one_per_message(copies: Iterable[CapturedMessage]) -> list[CapturedMessage]:
    """Return the first copy of each message (by Message-ID), in the order received.

    Public mail goes as a copy to each recipient, all with the message's one Message-ID.
    """
    found: dict[bytes, CapturedMessage] = {}
    for copy in copies:
        header = _MESSAGE_ID.search(copy.data)
        found.setdefault(header.group(1) if header else copy.data, copy)
    return list(found.values())


@dataclass(frozen=True)
class Refusal:
    """One SMTP command the sink refused: at which stage, for which address, with what code."""

    stage: Stage
    address: str
    code: int


@dataclass(frozen=True)
class _TemporaryRefusal:
    code: int
    message: str
    stage: Stage


class SmtpSink(LoopbackServer):
    """An aiosmtpd server on ``host:port`` that captures every message it accepts.

    ``messages`` is a snapshot of what was captured so far, ``wait_for()`` blocks
    until a message matching a predicate arrives. ``refuse_temporarily()`` makes
    every transaction fail with a 4xx code until ``accept()``; ``refuse_recipient()``
    refuses one address with a 5xx code until ``accept_recipient()``. Every refused
    command is recorded in ``refusals``.
    """

    def __init__(self, *, port: int | None = None, hostname: str = "smtp-sink.test",
                 pipelining: bool = True) -> None:
        super().__init__(port)
        # Offered in EHLO, as Postfix and the hosted relays do (RFC 2920).
        self.pipelining = pipelining
        self._server_hostname = hostname
        self._cond = threading.Condition()
        self._messages: list[CapturedMessage] = []
        self._refusals: list[Refusal] = []
        self._temporary: _TemporaryRefusal | None = None
        self._refused_recipients: dict[str, tuple[int, str]] = {}
        self._max_recipients: int | None = None
        self._delay = 0.0
        self._controller: Controller | None = None

    # -- lifecycle ---------------------------------------------------------------

    def start(self) -> None:
        """Start the server; returns once it answers on ``port``."""
        if self._controller is not None:
            return
        controller = Controller(
            _Handler(self),
            hostname=self.host,
            port=self.port,
            # Without a hostname aiosmtpd calls socket.getfqdn(), which can hang on
            # a machine without DNS.
            server_hostname=self._server_hostname,
            enable_SMTPUTF8=True,
        )
        try:
            controller.start()
        except BaseException:
            controller.stop(no_assert=True)
            raise
        self._controller = controller

    def stop(self) -> None:
        """Stop the server; what it captured stays readable."""
        controller, self._controller = self._controller, None
        if controller is not None:
            controller.stop()

    # -- what was received ---------------------------------------------------------

    @property
    def messages(self) -> list[CapturedMessage]:
        """The messages accepted so far, oldest first (a copy)."""
        with self._cond:
            return list(self._messages)

    @property
    def refusals(self) -> list[Refusal]:
        """The commands refused so far, oldest first (a copy)."""
        with self._cond:
            return list(self._refusals)

    def clear(self) -> None:
        """Forget the captured messages and recorded refusals."""
        with self._cond:
            self._messages.clear()
            self._refusals.clear()

    def wait_for(
        self,
        predicate: Callable[[CapturedMessage], bool] = lambda _: True,
        timeout: float = patience(5),
    ) -> CapturedMessage:
        """Return the first captured message satisfying ``predicate``, waiting up to ``timeout``.

        Raises ``TimeoutError`` listing what was captured when none arrives in time.
        """
        found: list[CapturedMessage] = []

        def match() -> bool:
            # The first match is the answer: the messages after it are not looked at.
            first = next((m for m in self._messages if predicate(m)), None)
            found[:] = [] if first is None else [first]
            return first is not None

        with self._cond:
            if self._cond.wait_for(match, timeout):
                return found[0]
            summary = [(m.mail_from, m.rcpt_tos, len(m.data)) for m in self._messages]
        raise TimeoutError(
            f"no matching message within {timeout:g}s; captured (from, to, size): {summary}"
        )

    # -- refusing ----------------------------------------------------------------

    def refuse_temporarily(
        self,
        code: int = 451,
        message: str = "4.3.0 Try again later",
        *,
        at: Stage = "rcpt",
    ) -> None:
        """Refuse every transaction with a 4xx ``code`` at stage ``at`` until ``accept()``.

        With smtplib, ``at="mail"`` raises ``SMTPSenderRefused``, ``"rcpt"``
        ``SMTPRecipientsRefused`` and ``"data"`` ``SMTPDataError``.
        """
        if not 400 <= code < 500:
            raise ValueError(f"a temporary refusal needs a 4xx code, not {code}")
        with self._cond:
            self._temporary = _TemporaryRefusal(code, message, at)

    def accept(self) -> None:
        """Stop the temporary refusal; recipients refused with ``refuse_recipient()`` stay so."""
        with self._cond:
            self._temporary = None

    def refuse_recipient(
        self, address: str, code: int = 550, message: str = "5.1.1 No such user"
    ) -> None:
        """Refuse ``address`` (case-insensitively) as a recipient: 5xx for good, 4xx for now."""
        if not 400 <= code < 600:
            raise ValueError(f"a recipient refusal needs a 4xx or 5xx code, not {code}")
        with self._cond:
            self._refused_recipients[address.lower()] = (code, message)

    def limit_recipients(self, limit: int | None) -> None:
        """Refuse every RCPT after the first ``limit`` of a transaction (None: no limit).

        The answer is ``452 4.5.3 Too many recipients``, as RFC 5321 4.5.3.1.10 has it.
        """
        with self._cond:
            self._max_recipients = limit

    def slow_down(self, seconds: float) -> None:
        """Take ``seconds`` over each message before answering its DATA (0: at once).

        The message is captured when the answer is given: a client that has not read it
        yet (a stopped process) has still had the message taken.
        """
        with self._cond:
            self._delay = seconds

    def accept_recipient(self, address: str) -> None:
        """Stop refusing ``address``."""
        with self._cond:
            self._refused_recipients.pop(address.lower(), None)

    # -- called by the handler, on the server's thread ---------------------------

    def _over_limit(self, address: str, taken: int) -> str | None:
        with self._cond:
            if self._max_recipients is None or taken < self._max_recipients:
                return None
            self._refusals.append(Refusal("rcpt", address, 452))
            return "452 4.5.3 Too many recipients"

    def _refusal(self, stage: Stage, address: str) -> str | None:
        with self._cond:
            code: int | None = None
            text = ""
            temporary = self._temporary
            if temporary is not None and temporary.stage == stage:
                code, text = temporary.code, temporary.message
            elif stage == "rcpt" and address.lower() in self._refused_recipients:
                code, text = self._refused_recipients[address.lower()]
            if code is None:
                return None
            self._refusals.append(Refusal(stage, address, code))
            return f"{code} {text}"

    def _capture(self, message: CapturedMessage) -> None:
        with self._cond:
            self._messages.append(message)
            self._cond.notify_all()


class _Handler:
    """aiosmtpd handler hooks, which consult and fill in their ``SmtpSink``."""

    def __init__(self, sink: SmtpSink) -> None:
        self._sink = sink

    async def handle_EHLO(self, server: SMTP, session: Session, envelope: Envelope,
                          hostname: str, responses: list[str]) -> list[str]:
        session.host_name = hostname
        if self._sink.pipelining:
            responses.insert(-1, "250-PIPELINING")
        return responses

    async def handle_MAIL(
        self,
        server: SMTP,
        session: Session,
        envelope: Envelope,
        address: str,
        mail_options: list[str],
    ) -> str:
        refusal = self._sink._refusal("mail", address)
        if refusal is not None:
            return refusal
        envelope.mail_from = address
        envelope.mail_options.extend(mail_options)
        return "250 OK"

    async def handle_RCPT(
        self,
        server: SMTP,
        session: Session,
        envelope: Envelope,
        address: str,
        rcpt_options: list[str],
    ) -> str:
        refusal = self._sink._refusal("rcpt", address)
        if refusal is None:
            refusal = self._sink._over_limit(address, len(envelope.rcpt_tos))
        if refusal is not None:
            return refusal
        envelope.rcpt_tos.append(address)
        envelope.rcpt_options.extend(rcpt_options)
        return "250 OK"

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        refusal = self._sink._refusal("data", envelope.mail_from or "")
        if refusal is not None:
            return refusal
        with self._sink._cond:
            delay = self._sink._delay
        if delay:
            await asyncio.sleep(delay)
        raw = envelope.original_content
        if raw is None:
            content = envelope.content
            raw = content.encode() if isinstance(content, str) else (content or b"")
        self._sink._capture(
            CapturedMessage(
                mail_from=envelope.mail_from or "",
                rcpt_tos=tuple(envelope.rcpt_tos),
                data=raw,
                peer=session.peer,
            )
        )
        return "250 2.0.0 Message accepted"
