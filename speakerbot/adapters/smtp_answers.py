"""One SMTP transaction: the commands that make it, and what the relay's answers mean.

The sender (``speakerbot.adapters.smtp``) holds the connection and decides when to write;
here is what it writes for a transaction (its MAIL FROM, RCPT TO and DATA, as one pipelined
group or a command at a time) and how each answer sorts its recipients into accepted,
refused for good, deferred and over the relay's limit, or makes the whole message wait
(``Temporary``): see ``DeliveryResult`` and the sender's module docstring.
"""

from __future__ import annotations

import re
import smtplib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

__all__ = ["NO_SMTPUTF8", "DeliveryResult", "Taken", "Temporary", "Transaction", "all_refused",
           "answer_text", "check_reset", "command_group", "describe", "envelope",
           "mail_options", "none_accepted", "raise_unless_final", "temporary",
           "without_content"]


@dataclass(frozen=True)
class DeliveryResult:
    """What the relay did with one message (see ``speakerbot.adapters.smtp``'s docstring)."""

    accepted: tuple[str, ...]
    refused: dict[str, str]
    temporary_failure: str | None
    deferred: dict[str, str] = field(default_factory=dict)
    """Recipients refused for now (4xx at RCPT) while others took the message: retry them."""
    over_limit: tuple[str, ...] = ()
    """Recipients left out because the transaction had too many: send to them at once."""

    @property
    def sent(self) -> bool:
        """Whether the relay took the message for at least one recipient."""
        return self.temporary_failure is None and bool(self.accepted)


class Transaction(NamedTuple):
    """One SMTP transaction: the message's bytes, from ``mail_from`` to ``recipients``."""

    mail_from: str
    recipients: tuple[str, ...]
    raw: bytes


class Temporary(Exception):
    """The whole message must be retried later; the argument says why."""


@dataclass
class Taken:
    """The relay's answers to a transaction's RCPT TO commands, sorted."""

    accepted: list[str] = field(default_factory=list)
    refused: dict[str, str] = field(default_factory=dict)
    deferred: dict[str, str] = field(default_factory=dict)
    over_limit: tuple[str, ...] = ()

    @classmethod
    def sort(cls, recipients: Sequence[str],
             answers: Iterable[tuple[int, bytes]]) -> Taken:
        """Sort ``recipients`` by their answers; stop at the first "too many recipients"."""
        taken = cls()
        for index, (recipient, (code, text)) in enumerate(zip(recipients, answers,
                                                              strict=False)):
            if taken.accepted and _too_many(code, text):
                # The relay takes no more in this transaction: the rest go in the next.
                taken.over_limit = tuple(recipients[index:])
                break
            if 400 <= code < 500 and code != 421:  # 421: the server is closing the session
                # One full mailbox must not hold the message back from everyone else.
                taken.deferred[recipient] = answer_text(code, text)
                continue
            raise_unless_final(code, text, f"RCPT TO:<{recipient}>")
            if code >= 500:
                taken.refused[recipient] = answer_text(code, text)
            else:
                taken.accepted.append(recipient)
        return taken

    def after_data(self, code: int, text: bytes) -> DeliveryResult:
        """Say what the message came to, from the answer to DATA or to its end."""
        raise_unless_final(code, text, "DATA")
        if code >= 500:
            answer = answer_text(code, text)
            refused = {**self.refused, **{recipient: answer for recipient in self.accepted}}
            return DeliveryResult(accepted=(), refused=refused, temporary_failure=None,
                                  deferred=self.deferred, over_limit=self.over_limit)
        return DeliveryResult(accepted=tuple(self.accepted), refused=self.refused,
                              temporary_failure=None, deferred=self.deferred,
                              over_limit=self.over_limit)


def none_accepted(recipients: Sequence[str], refused: dict[str, str],
                   deferred: dict[str, str]) -> DeliveryResult:
    """Say what a transaction whose every recipient was refused or put off came to.

    Every one of several put off: the server is unhappy, the whole message waits. The only
    recipient put off (a copy sent alone, from its own return path) is that mailbox's
    answer: retried later for that recipient, the session kept for the next copy.
    """
    if deferred and len(recipients) > 1:
        raise Temporary(f"every recipient deferred: {next(iter(deferred.values()))}")
    return DeliveryResult(accepted=(), refused=refused, temporary_failure=None,
                          deferred=deferred)


def _too_many(code: int, text: bytes) -> bool:
    """Whether a RCPT answer says the transaction has too many recipients (not this one)."""
    if code not in (452, 552):
        return False
    words = text.decode("utf-8", "replace").lower()
    return "too many recipients" in words or words.startswith(("4.5.3", "5.5.3"))


def mail_options(
    client: smtplib.SMTP, mail_from: str, recipients: Sequence[str], raw: bytes
) -> list[str] | None:
    """MAIL FROM parameters for this message; None when it cannot be sent through this relay."""
    options: list[str] = []
    if client.has_extn("size"):
        options.append(f"SIZE={len(raw)}")
    if client.has_extn("8bitmime") and not raw.isascii():
        options.append("BODY=8BITMIME")
    if not all(address.isascii() for address in (mail_from, *recipients)):
        if not client.has_extn("smtputf8"):
            return None
        options.append("SMTPUTF8")
    return options


NO_SMTPUTF8 = "554 5.6.7 the relay does not offer SMTPUTF8, needed for these addresses"

# An address with none of the characters that need quoting or parsing: smtplib.quoteaddr
# would give it back in angle brackets, after parsing it as a header (most of a copy's CPU).
_PLAIN_ADDRESS = re.compile(r"[^\s<>()\[\],;:\"\\@]+@[^\s<>()\[\],;:\"\\@]+")


def envelope(address: str) -> str:
    """Return an address as MAIL FROM and RCPT TO carry it (``<>`` for the null sender)."""
    if _PLAIN_ADDRESS.fullmatch(address):
        return f"<{address}>"
    return smtplib.quoteaddr(address)


def command_group(client: smtplib.SMTP, transaction: Transaction) -> bytes | None:
    """Return a transaction's MAIL FROM, RCPT TO and DATA as one pipelined group.

    None when the relay cannot take it (addresses that need SMTPUTF8, not offered).
    """
    mail_from, recipients, raw = transaction
    options = mail_options(client, mail_from, recipients, raw)
    if options is None:
        return None
    group = [f"MAIL FROM:{envelope(mail_from)}{''.join(' ' + o for o in options)}",
             *(f"RCPT TO:{envelope(recipient)}" for recipient in recipients), "DATA", ""]
    return "\r\n".join(group).encode("utf-8" if "SMTPUTF8" in options else "ascii")


def without_content(code: int, text: bytes) -> tuple[int, bytes]:
    """Return an answer to DATA other than 354, as what the message came to.

    No content was sent, so nothing was taken: a refusal (5xx) is the message's, and any
    other answer (a 2xx, out of step) means it must be sent again (Temporary).
    """
    if not 500 <= code < 600:
        raise Temporary(f"DATA answered {answer_text(code, text)}, not 354")
    return code, text


def check_reset(answer: tuple[int, bytes]) -> None:
    """Raise Temporary unless the answer to RSET says the session is ready."""
    if answer[0] != 250:
        raise Temporary(f"RSET answered {answer_text(*answer)}")


def raise_unless_final(code: int, text: bytes, command: str) -> None:
    """Raise Temporary unless ``code`` is success or a permanent refusal."""
    if 200 <= code < 300 or 500 <= code < 600:
        return
    raise Temporary(f"{command} answered {answer_text(code, text)}")


def answer_text(code: int, text: bytes) -> str:
    """Return a relay's answer as the log and the outbox keep it: ``451 4.3.0 try later``."""
    return f"{code} {text.decode('utf-8', 'replace')}".rstrip()


def _as_bytes(text: bytes | str) -> bytes:
    return text.encode("utf-8") if isinstance(text, str) else text


def describe(exc: BaseException) -> str:
    """Say what went wrong with a session: the relay's answer, or the error's kind and text."""
    if isinstance(exc, smtplib.SMTPResponseException):
        return answer_text(exc.smtp_code, _as_bytes(exc.smtp_error))
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


def temporary(reason: str) -> DeliveryResult:
    """Return the result of a message to be sent again later as a whole, for ``reason``."""
    return DeliveryResult(accepted=(), refused={}, temporary_failure=reason)


def all_refused(recipients: Sequence[str], answer: str) -> DeliveryResult:
    """Return the result of a message refused for good for every recipient, by ``answer``."""
    return DeliveryResult(
        accepted=(), refused={recipient: answer for recipient in recipients}, temporary_failure=None
    )
