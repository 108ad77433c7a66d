"""SMTP outbound: hand one message to a relay and say what became of each recipient.

``SmtpSender.send`` never raises for network or protocol trouble; it classifies it:

* accepted: the relay took the message for these recipients;
* refused: the relay refused these recipients for good (5xx), with its answer;
  a 5xx to MAIL FROM or to the end of DATA refuses every recipient;
* deferred: the relay refused these recipients for now (a 4xx to their RCPT) while
  taking the message for others, or the message's only recipient so: the caller sends it
  to them again later;
* temporary_failure: the whole message should be sent again later (a 4xx at any
  other stage, or for every recipient; connection refused or reset; timeout; TLS
  or login failure; a greeting other than 220). Then nothing counts as sent;
* over_limit: recipients not offered because the relay said the transaction had too many
  recipients (452, or the older 552, "too many recipients", RFC 5321 4.5.3.1.10) while
  taking the message for the ones before: the caller sends it to them at once, in a
  smaller transaction of their own.

Retrying when the connection broke after the message's final dot can deliver it twice;
a resend carries the same bytes, so the same Message-ID, and the duplicate is
recognisable.

``backoff`` (from ``speakerbot.adapters.backoff``, the one formula) is re-exported here
for the outbox, which spaces its retries with it.
"""

from __future__ import annotations

import contextlib
import logging
import re
import smtplib
import socket
import ssl
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from speakerbot.adapters.backoff import backoff
from speakerbot.adapters.relay import RelayPool
from speakerbot.adapters.smtp_answers import (
    NO_SMTPUTF8,
    DeliveryResult,
    Taken,
    Temporary,
    Transaction,
    all_refused,
    answer_text,
    check_reset,
    command_group,
    describe,
    mail_options,
    none_accepted,
    raise_unless_final,
    temporary,
    without_content,
)
from speakerbot.adapters.transport import SECURITY_MODES, Security

__all__ = ["DeliveryResult", "SmtpSender", "SmtpSettings", "Transaction", "backoff"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class SmtpSettings:
    """Where and how to connect to the outgoing relay: the [smtp] section, checked.

    ``security`` is "ssl" (TLS from the first byte, usually port 465),
    "starttls" (plain connection upgraded with STARTTLS, usually port 587; the
    relay must offer it) or "none". The relay's certificate is verified against
    the system's CAs. ``username`` empty means no login (the configuration then
    leaves ``password`` None). ``give_up_after`` is how long, in seconds, the
    outbox keeps retrying a message before it gives up; ``allow_plaintext``
    records that the configuration allowed a login in clear to another machine.
    ``timeout`` bounds each network operation, in seconds. ``max_recipients`` is the
    most envelope recipients the outbox puts in one transaction.
    """

    host: str
    port: int
    security: Security
    username: str = ""
    password: str | None = field(default=None, repr=False)
    give_up_after: float = 5 * 86400.0
    allow_plaintext: bool = False
    timeout: float = 30.0
    max_recipients: int = 50

    def __post_init__(self) -> None:
        if self.max_recipients < 1:
            raise ValueError(f"max_recipients must be at least 1, not {self.max_recipients}")
        if self.security not in SECURITY_MODES:
            raise ValueError(
                f"security must be one of {', '.join(SECURITY_MODES)}, not {self.security!r}"
            )


class _Stopped(Exception):
    """The caller may no longer send: the transaction under way must not be completed."""


def _always() -> bool:
    return True


class SmtpSender:
    """Sends messages through one SMTP relay.

    Outside :meth:`batch`, one connection per message. Inside it, one connection carries
    every message of the batch; any error drops it, and the next message opens a fresh one.
    With a ``pool``, a connection whose last transaction ended cleanly is left there at the
    end, and the next batch (of this game or another) starts on it (``adapters.relay``).
    A transaction that ended with the answer to DATA leaves the session ready for the next
    (RFC 5321 4.1.4), so RSET is sent only after one that stopped short; should the server
    have closed the connection meanwhile, the message goes over a fresh one at once.
    """

    def __init__(
        self, settings: SmtpSettings, *, tls_context: ssl.SSLContext | None = None,
        pipelining: bool = True, pool: RelayPool | None = None,
    ) -> None:
        self.settings = settings
        # Connections kept between batches, shared with the other games of the process.
        self._pool = pool
        # Whether to pipeline where the relay offers it (off: the benches' baseline).
        self.pipelining = pipelining
        self._quoted: dict[int, tuple[bytes, bytes]] = {}
        self._tls_context = tls_context
        self._batching = False
        self._client: smtplib.SMTP | None = None
        self._local_hostname: str | None = None
        # Whether the last transaction ended with the answer to DATA (None: it stopped
        # before MAIL FROM was answered).
        self._ended: bool | None = False
        # The transaction under way: sent again on a fresh connection, should the relay
        # close this one before answering its MAIL FROM; named in the log should it fail.
        self._current: Transaction | None = None
        # Asked before each message's content is written (``send_each``).
        self._may_send: Callable[[], bool] = _always

    @contextlib.contextmanager
    def batch(self) -> Iterator[None]:
        """Keep one connection open for the messages sent in the block; QUIT at its end."""
        self._batching = True
        try:
            yield
        finally:
            self._batching = False
            client, self._client = self._client, None
            if client is not None:
                self._let_go(client)

    def _let_go(self, client: smtplib.SMTP) -> None:
        """Leave a connection in the pool if its last transaction ended cleanly; else QUIT."""
        if self._pool is not None and self._ended:
            self._pool.give(client)
        else:
            _quit(client)

    def _session(self) -> tuple[smtplib.SMTP, bool]:
        """Return the batch's open connection, ready for a new transaction, or a new one.

        The flag tells whether it is a kept connection (checked by RSET or not): one that
        may have taken mail already, which the relay may close or answer 421 at the next
        MAIL FROM, so the transaction goes again on a fresh connection.
        """
        client, self._client = self._client, None
        if client is None and self._pool is not None:
            client = self._pool.take()
            if client is not None:
                self._ended = True  # given to the pool only after a transaction's end
        if client is not None and self._ended:
            return client, True
        if client is not None:
            try:
                code, _ = client.rset()
                if code == 250:
                    return client, True
            except (OSError, smtplib.SMTPException):
                pass  # the server dropped an idle connection: open another
            _abandon(client)
        return self._connect(), False

    def send(self, mail_from: str, recipients: Sequence[str], raw: bytes) -> DeliveryResult:
        """Send ``raw`` from ``mail_from`` ("" for the null sender) to ``recipients``.

        ``raw`` goes out as it is, apart from SMTP's transparency dots; its lines
        must end with CRLF, as the composer's wire form does.
        """
        if not recipients:
            return DeliveryResult(accepted=(), refused={}, temporary_failure=None)
        return self.send_each([Transaction(mail_from, tuple(recipients), raw)])[0]

    def send_each(self, transactions: Iterable[Transaction], *,
                  may_send: Callable[[], bool] | None = None) -> list[DeliveryResult]:
        """Send each transaction in turn over one session; return a result for each tried.

        A transaction is taken from ``transactions`` only when it is about to be written.
        ``may_send`` is asked before each message's content is handed over: once it says
        no, the connection is dropped with the transaction open (the relay discards it),
        and the run ends with the results before it. The run also stops at the first
        transaction that must be retried as a whole: its result is the last, with
        ``temporary_failure`` set. Each transaction needs a recipient.

        Where the relay offers PIPELINING, a transaction's MAIL FROM, RCPT TO and DATA go
        in one write with the end of the message before it (RFC 2920 3.1 lets the
        message's content begin a group), so a copy costs one wait for the relay, for its
        answer to DATA. Should one fail for now, the connection is dropped with the next
        transaction open and no content sent, which the relay discards.
        """
        upcoming = iter(transactions)
        results: list[DeliveryResult] = []
        first = next(upcoming, None)
        if first is None:
            return results
        self._may_send = may_send or _always
        settings = self.settings
        where = f"{settings.host}:{settings.port}"
        try:
            client, kept = self._session()
        except (OSError, smtplib.SMTPException) as exc:
            reason = f"no session with {where}: {describe(exc)}"
            log.warning("SMTP: %s", reason)
            return [temporary(reason)]
        try:
            client = self._run_reconnecting(client, kept, first, upcoming, results)
        except _Stopped:
            log.warning("SMTP: stopped before the message to %s: no longer to send",
                        list(self._recipients()))
            _log_results(where, results)
            return results
        except (Temporary, OSError, smtplib.SMTPException) as exc:
            reason = f"{where}: {exc.args[0] if isinstance(exc, Temporary) else describe(exc)}"
            log.warning("SMTP: message to %s not sent, will retry: %s",
                        list(self._recipients()), reason)
            _log_results(where, results)
            return [*results, temporary(reason)]
        if self._batching:
            self._client = client
        else:
            self._let_go(client)
        _log_results(where, results)
        return results

    def _run_reconnecting(self, client: smtplib.SMTP, kept: bool, first: Transaction,
                          upcoming: Iterator[Transaction],
                          results: list[DeliveryResult]) -> smtplib.SMTP:
        """Run the transactions; return the connection they ended on.

        Should the relay close the connection before a transaction's MAIL FROM is answered,
        or answer it 421 (a kept one it had let go, or one it takes no more messages on),
        nothing of that transaction was taken, and it goes again over a fresh connection,
        so long as the last one took something. On any error the connection in use is dropped.
        """
        # How many had gone when this connection was opened (None: a kept one).
        opened_at = None if kept else 0
        current = first
        try:
            while True:
                try:
                    self._run(client, current, upcoming, results)
                    return client
                except (smtplib.SMTPServerDisconnected, ConnectionError):
                    if self._ended is not None or opened_at == len(results):
                        raise
                    assert self._current is not None
                    current = self._current
                    _abandon(client)
                    client = self._connect()
                    opened_at = len(results)
        except BaseException:
            _abandon(client)
            raise

    def _recipients(self) -> tuple[str, ...]:
        return self._current.recipients if self._current is not None else ()

    def _run(self, client: smtplib.SMTP, first: Transaction, upcoming: Iterator[Transaction],
             results: list[DeliveryResult]) -> None:
        """Send ``first`` and then the rest on ``client``, adding each one's result.

        A transaction refused before the message's end leaves the relay's transaction
        open (MAIL FROM taken): RSET closes it before the next.
        """
        self._ended = None  # the session is ready: no transaction under way
        if self.pipelining and client.has_extn("pipelining"):
            self._stream(client, first, upcoming, results)
            return
        transaction: Transaction | None = first
        while transaction is not None:
            results.append(self._transaction(client, transaction))
            transaction = next(upcoming, None)

    def _connect(self) -> smtplib.SMTP:
        settings = self.settings
        client: smtplib.SMTP
        if settings.security == "ssl":
            client = smtplib.SMTP_SSL(
                settings.host, settings.port, local_hostname=self._hostname(),
                timeout=settings.timeout, context=self._context()
            )
        else:
            client = smtplib.SMTP(settings.host, settings.port, local_hostname=self._hostname(),
                                  timeout=settings.timeout)
        try:
            client.ehlo_or_helo_if_needed()
            if settings.security == "starttls":
                client.starttls(context=self._context())
                client.ehlo()
            if settings.username:
                client.login(settings.username, settings.password or "")
        except BaseException:
            _abandon(client)
            raise
        return client

    def _hostname(self) -> str:
        """Return the name to give in EHLO: this host's, looked up once (not per connection)."""
        if self._local_hostname is None:
            self._local_hostname = socket.getfqdn()
        return self._local_hostname

    def _context(self) -> ssl.SSLContext:
        if self._tls_context is None:
            return ssl.create_default_context()
        return self._tls_context

    def _transaction(self, client: smtplib.SMTP, transaction: Transaction) -> DeliveryResult:
        """Send one transaction a command at a time, each answer awaited (no PIPELINING)."""
        reset, self._ended = self._ended is False, None
        mail_from, recipients, raw = transaction
        self._current = transaction
        if reset:
            check_reset(client.rset())
        options = mail_options(client, mail_from, recipients, raw)
        if options is None:
            return all_refused(recipients, NO_SMTPUTF8)
        code, text = client.mail(mail_from, options)
        _closing(code, text)
        self._ended = False  # MAIL FROM answered: the transaction is under way
        raise_unless_final(code, text, "MAIL FROM")
        if code >= 500:
            return all_refused(recipients, answer_text(code, text))
        # Asked one by one: a relay that says "too many" is asked for no more.
        taken = Taken.sort(recipients, (client.rcpt(recipient) for recipient in recipients))
        if not taken.accepted:
            return none_accepted(recipients, taken.refused, taken.deferred)
        client.putcmd("data")
        code, text = client.getreply()
        if code == 354:
            return taken.after_data(*self._data(client, raw))
        return taken.after_data(*without_content(code, text))

    def _stream(self, client: smtplib.SMTP, first: Transaction, upcoming: Iterator[Transaction],
                results: list[DeliveryResult]) -> None:
        """Send pipelined transactions, each group written with the content before it.

        Every answer of a group is read before the next write, so the session stays in
        step whatever the relay refused; a group is written ahead only once its
        transaction's predecessor is in DATA, the one state in which nothing the relay
        says can leave it unsent.
        """
        ahead: Transaction | None = first
        written = False
        while ahead is not None:
            current, ahead = ahead, None
            self._current = current
            group = None if written else command_group(client, current)
            if not written and group is None:
                # Nothing written: the session is as the transaction before left it.
                results.append(all_refused(current.recipients, NO_SMTPUTF8))
                ahead = next(upcoming, None)
                continue
            reset, self._ended = self._ended is False, None
            if group is not None:
                client.send(b"RSET\r\n" + group if reset else group)
                if reset:
                    check_reset(client.getreply())
            written = False
            mail = client.getreply()
            _closing(*mail)
            self._ended = False
            answers = [client.getreply() for _ in current.recipients]
            code, text = client.getreply()
            taken = Taken.sort(current.recipients, answers) if mail[0] < 300 else Taken()
            if code == 354 and not taken.accepted:
                if mail[0] >= 300:  # DATA opened for whose transaction? Not this one's.
                    raise Temporary(f"DATA answered 354 after MAIL FROM {answer_text(*mail)}")
                # A relay that opened DATA for a transaction with no recipient: end it empty.
                client.send(b".\r\n")
                client.getreply()
            raise_unless_final(*mail, "MAIL FROM")
            if mail[0] >= 500:
                results.append(all_refused(current.recipients, answer_text(*mail)))
            elif not taken.accepted:
                results.append(none_accepted(current.recipients, taken.refused, taken.deferred))
            elif code != 354:
                results.append(taken.after_data(*without_content(code, text)))
            else:
                ahead = next(upcoming, None)
                follow = command_group(client, ahead) if ahead is not None else None
                written = follow is not None
                results.append(taken.after_data(*self._data(client, current.raw, follow or b"")))
                continue
            ahead = next(upcoming, None)

    def _data(self, client: smtplib.SMTP, raw: bytes, follow: bytes = b"") -> tuple[int, bytes]:
        """Send the message after a 354, then ``follow``; return the answer to the message.

        The copies of one message are quoted once (SMTP's transparency dots, the end
        mark): every recipient's copy is the same bytes. ``follow`` (the next
        transaction's group) goes in the same write.
        """
        if not self._may_send():
            raise _Stopped
        kept = self._quoted.get(id(raw))
        if kept is None or kept[0] is not raw:
            quoted = _LEADING_DOT.sub(b"..", raw)
            if not quoted.endswith(b"\r\n"):
                quoted += b"\r\n"
            if len(self._quoted) >= 4:  # a message's copies: the players', the observers'
                self._quoted.clear()
            kept = self._quoted[id(raw)] = (raw, quoted + b".\r\n")
        client.send(kept[1] + follow if follow else kept[1])
        answer = client.getreply()
        self._ended = True
        return answer


_LEADING_DOT = re.compile(rb"(?m)^\.")


def _log_results(where: str, results: Sequence[DeliveryResult]) -> None:
    """Log who the relay refused, and who it took the messages for."""
    refused = {address: answer for result in results for address, answer in result.refused.items()}
    if refused:
        log.warning("SMTP: %s refused %s", where, refused)
    if log.isEnabledFor(logging.INFO):
        accepted = [address for result in results for address in result.accepted]
        if accepted:
            log.info("SMTP: %s accepted %s for %s", where,
                     "a message" if len(results) == 1 else f"{len(results)} messages", accepted)


def _quit(client: smtplib.SMTP) -> None:
    """Say goodbye; the result is known already, so trouble here does not matter."""
    try:
        client.quit()
    except (OSError, smtplib.SMTPException):
        client.close()


def _closing(code: int, text: bytes) -> None:
    """Raise SMTPServerDisconnected when MAIL FROM is answered 421: the relay is closing.

    A relay that takes so many messages a connection says so to the next MAIL FROM (``421
    4.7.0 too many messages``) and closes: nothing of that transaction was taken, as when
    it closes unanswered, so it goes again on a fresh connection (``_run_reconnecting``).
    """
    if code == 421:
        raise smtplib.SMTPServerDisconnected(f"MAIL FROM answered {answer_text(code, text)}")


def _abandon(client: smtplib.SMTP) -> None:
    """Drop the connection without waiting for a server that may not answer."""
    client.close()
