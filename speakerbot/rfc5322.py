"""The raw bytes of a message, as RFC 5322 lays them out: where the headers end, its Message-ID.

Shared by the mail reader and the store (which knows nothing of the game), so that every
part of speakerbot agrees on where a message's headers end: a password check once saw
different headers than the reader, because each had its own way of finding them.
"""

from __future__ import annotations

import re
from email import policy
from email.message import Message
from email.parser import BytesHeaderParser

LINE_LIMIT = 998
"""RFC 5322's limit on a line's length, CRLF aside: no real header line is longer."""

MAX_MESSAGE_ID_BYTES = LINE_LIMIT
"""Longer than any real Message-ID (RFC 5322 lines stop at 998); it also keeps the value well
under PostgreSQL's limit on a btree index entry (about 2.7 kB)."""

# The first empty line: a line ending of either kind, then an empty line of either kind.
_HEADER_END = re.compile(rb"\r?\n\r?\n")


def split_header_block(raw: bytes) -> tuple[bytes, bytes]:
    r"""Split a raw message into its header block and its body: ``head + body == raw``.

    The header block ends with the first empty line, written ``\n`` or ``\r\n`` after a
    line ending of either kind; the head keeps that empty line. A message without one is
    all header block (and an empty body).
    """
    match = _HEADER_END.search(raw)
    if match is None:
        return raw, b""
    return raw[: match.end()], raw[match.end() :]


def record_id(headers: Message) -> str | None:
    """Return the Message-ID a record keeps of parsed headers, or None if none is usable.

    ``headers`` parsed leniently (compat32). Folding and runs of whitespace become one
    space, undecodable bytes U+FFFD, control characters are dropped. An empty value, ``<>``,
    or one too long to be real counts as none.
    """
    value = next((v for name, v in headers.raw_items() if name.strip().lower() == "message-id"),
                 None)
    if not isinstance(value, str):
        return None
    # compat32 keeps undecodable bytes as surrogate escapes: turn them back into bytes.
    decoded = value.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    cleaned = " ".join(
        "".join(ch for ch in word if ch.isprintable()) for word in decoded.split()
    ).strip()
    if cleaned in ("", "<>") or len(cleaned.encode()) > MAX_MESSAGE_ID_BYTES:
        return None
    return cleaned


def message_id_of(raw: bytes) -> str | None:
    """Return the Message-ID of a raw message as :func:`record_id` keeps it (never raises).

    Only the header block is parsed, leniently: any bytes at all are accepted.
    """
    try:
        return record_id(BytesHeaderParser(policy=policy.compat32).parsebytes(
            split_header_block(raw)[0]))
    except Exception:
        # The email package is lenient, but whatever it trips on, the message must be kept.
        return None
