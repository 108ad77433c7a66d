r"""Reads one raw email message into an :class:`InboundMail`.

:func:`read_message` never raises: whatever the bytes, it returns an
``InboundMail``. A message that cannot be read carries a ``problem`` (a sentence
that can be sent back to the sender); a message that must not be answered at all
(auto-replies, bounces, list mail, the game's own mail coming back) carries a
``skipped`` reason from :data:`NEVER_ANSWER`.

What the caller does with a message:

========================================  ==========================================
``mail.skipped in NEVER_ANSWER``          record it; never reply (avoids mail loops)
``mail.problem`` set (``skipped`` is      reply with ``mail.problem`` when
None or one of :data:`REFUSED`)           ``mail.sender`` is known; apply nothing
otherwise                                 parse ``mail.subject`` and ``mail.body``
========================================  ==========================================

:func:`can_acknowledge` says whether any reply may be sent at all.

The body is the message's plain text: the ``text/plain`` alternative when there
is one, otherwise the ``text/html`` alternative turned into text by
:func:`html_to_text`; attachments are ignored. Transfer encodings
(base64, quoted-printable) are undone, the charset is decoded (with fallbacks for
unknown or mislabelled charsets), ``format=flowed`` is unwrapped (RFC 3676), line
endings become ``\n`` and a byte-order mark at the start is removed. Those are
the lines that :mod:`speakerbot.mail.inbound.language` numbers from 1.

The parts of the work live beside this module: :mod:`~speakerbot.mail.inbound.headers`
(the header block, the sender, the reasons never to answer),
:mod:`~speakerbot.mail.inbound.mime` (limits and the text in the MIME tree),
:mod:`~speakerbot.mail.inbound.charsets` and :mod:`~speakerbot.mail.inbound.html_text`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from email import policy
from email.message import Message
from email.parser import BytesParser

from speakerbot.mail.inbound.charsets import decode_bytes, unflow
from speakerbot.mail.inbound.headers import (
    FROM_PROBLEM,
    MAX_HEADER_BYTES,
    date_of,
    decode_header_text,
    first_header,
    header_values,
    parse_sender,
    read_headers,
    recipients_of,
    skip_reason,
    split_header_block,
)
from speakerbot.mail.inbound.html_text import html_to_text
from speakerbot.mail.inbound.mime import (
    MAX_DEPTH,
    MAX_PARAMETER_HEADER,
    MAX_PARTS,
    NO_TEXT,
    TOO_DEEP,
    Refused,
    check_limits,
    prescan,
    text_of,
)
from speakerbot.rfc5322 import record_id

__all__ = [
    "DEFAULT_MAX_BYTES",
    "FROM_PROBLEM",
    "MAX_DEPTH",
    "MAX_PARAMETER_HEADER",
    "MAX_PARTS",
    "NEVER_ANSWER",
    "REFUSED",
    "InboundMail",
    "can_acknowledge",
    "decode_bytes",
    "html_to_text",
    "kilobytes",
    "read_message",
    "read_with_headers",
    "split_header_block",
    "unflow",
]

DEFAULT_MAX_BYTES = 256 * 1024
"""Messages larger than this (in bytes, as received) are refused unread."""

NEVER_ANSWER: frozenset[str] = frozenset({"auto-reply", "bounce", "list", "loop"})
"""``skipped`` reasons for mail that is recorded but never answered, not even with an error."""

REFUSED: frozenset[str] = frozenset({"too-large", "too-many-parts", "too-deep"})
"""``skipped`` reasons for mail refused by a limit; it is answered with ``problem``."""

_MESSAGE_ID = re.compile(r"<[^<>\s]+>")


@dataclass(frozen=True)
class InboundMail:
    """One message as read from the wire, before any command is parsed.

    ``sender`` is the lower-cased addr-spec of the single From address, or None
    when the From header is missing or does not hold exactly one address (then
    ``problem`` says so). ``body`` is the decoded plain text (see the module
    docstring); it is empty when the message was not read. ``body`` is left out
    of ``repr`` because it may hold the Speaker's PASSWORD line.
    ``auth_results`` holds the Authentication-Results header values, topmost
    first; ``date`` the Date header (None when missing or unreadable);
    ``recipients`` the lower-cased addresses of To and Cc; ``record_id`` the Message-ID as
    the game's record keeps it (see :func:`speakerbot.rfc5322.record_id`).
    """

    sender: str | None
    sender_name: str
    subject: str
    message_id: str | None
    in_reply_to: str | None
    references: tuple[str, ...]
    body: str = field(repr=False)
    skipped: str | None
    problem: str | None
    auth_results: tuple[str, ...] = ()
    date: datetime | None = None
    recipients: tuple[str, ...] = ()
    record_id: str | None = field(default=None, compare=False)


def can_acknowledge(mail: InboundMail) -> bool:
    """Tell whether any reply (results or an explanation) may be sent for ``mail``.

    False for mail skipped for a reason in :data:`NEVER_ANSWER` and for mail whose
    sender is unknown; True otherwise.
    """
    return mail.sender is not None and mail.skipped not in NEVER_ANSWER


def read_message(
    raw: bytes,
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    loop_token: str | None = None,
) -> InboundMail:
    """Read the raw bytes of one email message; never raises.

    ``max_bytes`` bounds the size of the whole message. ``loop_token`` is the
    game's own ``X-Loop`` value: a message carrying it is skipped as ``"loop"``.
    """
    return read_with_headers(raw, max_bytes=max_bytes, loop_token=loop_token)[0]


def read_with_headers(
    raw: bytes,
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    loop_token: str | None = None,
) -> tuple[InboundMail, Message | None]:
    """Read a message as :func:`read_message` does, and give its parsed headers too.

    The headers: the whole message as parsed (leniently, compat32), whose header block
    is read whole, so that whoever needs every header (redaction) need not parse them
    again; None when the whole message was not parsed (too large, refused, damaged).
    """
    try:
        message, failure = _parse_whole(raw, max_bytes)
        return _read(raw, max_bytes, loop_token, message, failure), message
    except Exception:  # a last resort: the stdlib parser should not fail, but never crash
        return InboundMail(
            sender=None,
            sender_name="",
            subject="",
            message_id=None,
            in_reply_to=None,
            references=(),
            body="",
            skipped=None,
            problem=(
                "This message could not be read (its structure is damaged); "
                "send your commands again as a plain-text message."
            ),
        ), None


def _too_large(size: int, max_bytes: int) -> str:
    return (
        f"This message is {kilobytes(size)} long, more than the {kilobytes(max_bytes)} the "
        "Speaker reads. Send your commands again without attachments, pictures or quoted history."
    )


def kilobytes(size: int) -> str:
    """Write a size in bytes as whole kilobytes, rounded up: ``"257 KB"``."""
    return f"{(size + 1023) // 1024} KB"


def _read(raw: bytes, max_bytes: int, loop_token: str | None, message: Message | None,
          failure: Exception | None) -> InboundMail:
    # The whole message, once parsed, serves for its headers too (they are the same lines,
    # read the same way), unless its header block runs past what the reader reads.
    head = message if message is not None and _headers_fit(raw) else read_headers(raw)
    sender, sender_name, problem = parse_sender(head)
    skipped = skip_reason(head, sender, loop_token)
    body = ""

    def done() -> InboundMail:
        return InboundMail(
            sender=sender,
            sender_name=sender_name,
            subject=decode_header_text(first_header(head, "Subject") or ""),
            message_id=first_header(head, "Message-ID") or None,
            in_reply_to=first_header(head, "In-Reply-To") or None,
            references=tuple(_MESSAGE_ID.findall(" ".join(header_values(head, "References")))),
            body=body,
            skipped=skipped,
            problem=problem,
            auth_results=tuple(header_values(head, "Authentication-Results")),
            date=date_of(head),
            recipients=recipients_of(head),
            record_id=record_id(head),
        )

    if len(raw) > max_bytes:
        if problem is None:
            problem = _too_large(len(raw), max_bytes)
            skipped = skipped or "too-large"
        return done()
    try:
        if failure is not None:
            raise failure
        assert message is not None
        check_limits(message)
        found = text_of(message, True)
    except RecursionError:
        if problem is None:
            problem, skipped = TOO_DEEP, skipped or "too-deep"
        return done()
    except Refused as refused:
        if problem is None:
            problem, skipped = refused.problem, skipped or refused.reason
        return done()
    if found is None:
        problem = problem or NO_TEXT
        return done()
    body = found[0]
    return done()


def _parse_whole(raw: bytes, max_bytes: int) -> tuple[Message | None, Exception | None]:
    """Parse the whole message, unless it is too large or refused before parsing.

    Returns the message, or what stopped it (a ``Refused`` or a ``RecursionError``).
    """
    if len(raw) > max_bytes:
        return None, None
    try:
        prescan(raw)
        return BytesParser(policy=policy.compat32).parsebytes(raw), None
    except (RecursionError, Refused) as stopped:
        return None, stopped


def _headers_fit(raw: bytes) -> bool:
    """Whether the reader reads the whole header block (it reads MAX_HEADER_BYTES at most)."""
    if len(raw) <= MAX_HEADER_BYTES:
        return True
    return len(split_header_block(raw[:MAX_HEADER_BYTES])[0]) < MAX_HEADER_BYTES
