"""The bytes of an outgoing message: its header lines, then a quoted-printable UTF-8 text body.

:func:`message_bytes` gives, byte for byte, what the stdlib gives for the same headers and
body (:func:`message_bytes_by_the_book`: an ``EmailMessage`` with ``set_content`` and
``as_bytes`` under the SMTP policy with lines up to 998), without building a message object
each time: the stdlib parses every header into a tree and folds it back, which is most of the
cost of a reply. A header whose value is plain (see ``_PLAIN``) is written as it stands,
because that is what the stdlib writes for it too; any other header (a non-ASCII subject, an
odd address, a line near the limit) is folded by the stdlib itself, and the few constant ones
(From, Reply-To, X-Loop, List-Id) are folded once per process and remembered.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from email import quoprimime
from email.message import EmailMessage
from email.policy import SMTP, default
from functools import lru_cache

WIRE = SMTP.clone(max_line_length=998)
"""The policy of the bytes sent.

Headers are not folded below the RFC 5322 limit of 998: the stdlib would otherwise fold a
long Subject before its first word, and mail filters matching "Subject: [Tag]" would miss it.
"""
_BODY_LINE = default.max_line_length or 78  # set_content wraps quoted-printable lines at this
_NEWLINE = re.compile(r"\r\n|\r|\n")  # the stdlib generator's idea of a line end
# Below the 998 limit with room to spare: a line this short is never folded.
_SHORT = 990

_ADDRESS = r"[A-Za-z0-9_%+-]+(?:\.[A-Za-z0-9_%+-]+)*@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*"
# Printable ASCII words, single spaces, no encoded-word opener ("=?" would be decoded).
_TEXT = r"(?!.*=\?)[!-~]+(?: [!-~]+)*"
_PLAIN: dict[str, re.Pattern[str]] = {
    "To": re.compile(rf"{_ADDRESS}(?:, {_ADDRESS})*"),
    "Subject": re.compile(_TEXT),
    "Date": re.compile(r"[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} \+0000"),
    "Message-ID": re.compile(r"<sb\.[0-9a-f]{24}@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*>"),
    "In-Reply-To": re.compile(_TEXT),
    "References": re.compile(_TEXT),
}
"""What a header's value looks like when the stdlib writes it unchanged on one line."""


def message_bytes(headers: Sequence[tuple[str, str]], body: str) -> bytes:
    """Return the message's bytes (CRLF line ends): ``headers`` in order, then ``body``."""
    lines = [header_line(name, value) for name, value in headers]
    lines.append(_mime_lines())
    lines.append(b"\r\n")
    lines.append(_quoted_printable(body))
    return b"".join(lines)


def message_bytes_by_the_book(headers: Sequence[tuple[str, str]], body: str) -> bytes:
    """Return the same bytes as :func:`message_bytes`, built with the stdlib's EmailMessage.

    The reference :func:`message_bytes` is measured and tested against.
    """
    message = EmailMessage()
    for name, value in headers:
        message[name] = value
    message.set_content(body, charset="utf-8", cte="quoted-printable")
    return message.as_bytes(policy=WIRE)


def header_line(name: str, value: str) -> bytes:
    """Return one header as the message's bytes carry it (folded if need be, CRLF ended)."""
    plain = _PLAIN.get(name)
    if plain is not None and len(name) + len(value) < _SHORT and plain.fullmatch(value):
        return f"{name}: {value}\r\n".encode("ascii")
    return _folded(name, value)


@lru_cache(maxsize=256)
def _folded(name: str, value: str) -> bytes:
    """Fold one header as the stdlib does when it writes a message.

    Remembered: the game's own headers come back with every message.
    """
    return WIRE.fold_binary(*default.header_store_parse(name, value))


@lru_cache(maxsize=1)
def _mime_lines() -> bytes:
    """Return the Content-Type, Content-Transfer-Encoding and MIME-Version lines.

    As the stdlib's ``set_content`` writes them for UTF-8 quoted-printable text.
    """
    message = EmailMessage()
    message.set_content("", charset="utf-8", cte="quoted-printable")
    return b"".join(WIRE.fold_binary(name, value) for name, value in message.raw_items())


def _quoted_printable(body: str) -> bytes:
    """Encode the body as ``set_content`` does, with the generator's CRLF line ends."""
    text = b"\n".join(body.encode("utf-8").splitlines()) + b"\n"
    encoded = quoprimime.body_encode(text.decode("latin-1"), _BODY_LINE)
    *whole, last = _NEWLINE.split(encoded)
    return "".join([*(line + "\r\n" for line in whole), last]).encode("ascii")
