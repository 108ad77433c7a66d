"""A message's header block: where it ends, and what the reader takes from it.

:func:`split_header_block` is the one place that decides where a raw message's headers end
and its body begins; :func:`read_headers` parses that block as the reader does. Everything
that looks at a message's headers (the reader, the password's redaction, the store's
Message-ID) uses them, so that no check sees other headers than the reader.
"""

from __future__ import annotations

import functools
import re
from datetime import UTC, datetime
from email import policy
from email.header import decode_header
from email.message import Message
from email.parser import BytesHeaderParser
from email.utils import getaddresses, parsedate_to_datetime

from speakerbot.addresses import canonical_address
from speakerbot.mail.inbound.charsets import decode_bytes
from speakerbot.rfc5322 import LINE_LIMIT, split_header_block

__all__ = [
    "FROM_PROBLEM",
    "MAX_HEADER_BYTES",
    "date_of",
    "decode_header_text",
    "first_header",
    "header_values",
    "parse_sender",
    "read_headers",
    "recipients_of",
    "skip_reason",
    "split_header_block",
]

FROM_PROBLEM = "cannot tell who sent this: the From header must hold exactly one address"

MAX_HEADER_BYTES = 64 * 1024
"""The reader reads at most this many bytes of a message's header block."""

_FOLD = re.compile(r"\r?\n(?=[ \t])")
_ADDR_SPEC = re.compile(r"[^\s@<>()\[\],;:\"\\]+@[^\s@<>()\[\],;:\"\\]+")


def read_headers(raw: bytes) -> Message:
    """Parse the headers of a raw message exactly as the reader does (never raises).

    Only the first :data:`MAX_HEADER_BYTES` of the header block are read, leniently
    (compat32: any bytes at all are accepted); read values with ``raw_items()``.
    """
    head = split_header_block(raw[:MAX_HEADER_BYTES])[0]
    return BytesHeaderParser(policy=policy.compat32).parsebytes(head)



def header_values(message: Message, name: str) -> list[str]:
    """All raw values of header ``name`` (unfolded), without the policy's conversions."""
    wanted = name.lower()
    return [_unfold(str(value)) for key, value in message.raw_items() if key.lower() == wanted]


def _unfold(value: str) -> str:
    return _FOLD.sub("", value)


def first_header(message: Message, name: str) -> str | None:
    """Return the first value of header ``name``, stripped (None when there is none)."""
    values = header_values(message, name)
    return values[0].strip() if values else None


def _undo_8bit(value: str) -> str:
    """Turn raw 8-bit header bytes (kept by the parser as surrogates) into text."""
    if not any("\udc80" <= ch <= "\udcff" for ch in value):
        return value
    return decode_bytes(value.encode("ascii", "surrogateescape"), "utf-8")


def decode_header_text(value: str) -> str:
    """Decode a header's RFC 2047 encoded-words into text, tolerating bad charsets."""
    value = _undo_8bit(value)
    try:
        chunks = decode_header(value)
    except Exception:
        return " ".join(value.split())
    pieces: list[str] = []
    for chunk, charset in chunks:
        if isinstance(chunk, str):
            pieces.append(chunk)
        else:
            pieces.append(decode_bytes(chunk, charset))
    return " ".join("".join(pieces).split())


def parse_sender(message: Message) -> tuple[str | None, str, str | None]:
    """Return (sender, sender_name, problem) from the From header only.

    The sender is in its canonical form (:mod:`speakerbot.addresses`); an address
    that has none (a domain that is not valid IDNA) is no sender at all.
    """
    values = header_values(message, "From")
    if len(values) != 1:
        return None, "", FROM_PROBLEM
    if len(values[0]) > LINE_LIMIT:
        # Never kept: 1,024 long lines from a stranger would hold their bytes in memory.
        return _sender_of(values[0])
    return _kept_sender_of(values[0])


def _sender_of(raw_value: str) -> tuple[str | None, str, str | None]:
    """Return (sender, sender_name, problem) from a message's one From header's value."""
    value = _undo_8bit(raw_value).strip()
    if len(value) > LINE_LIMIT:  # the stdlib's address parser is quadratic on junk
        return None, "", FROM_PROBLEM
    try:
        header = policy.default.header_factory("From", value)
        groups = header.groups
        defects = header.defects
    except Exception:
        return None, "", FROM_PROBLEM
    if len(groups) != 1 or groups[0].display_name is not None:
        return None, "", FROM_PROBLEM
    addresses = groups[0].addresses
    if len(addresses) != 1:
        return None, "", FROM_PROBLEM
    if any(type(defect).__name__ == "InvalidHeaderDefect" for defect in defects):
        return None, "", FROM_PROBLEM
    address = addresses[0]
    username = str(address.username)
    domain = str(address.domain)
    addr_spec = f"{username}@{domain}"
    if not username or not domain or not _ADDR_SPEC.fullmatch(addr_spec):
        return None, "", FROM_PROBLEM
    if not addr_spec.isprintable():  # a NUL or a control character: no real address
        return None, "", FROM_PROBLEM
    sender = canonical_address(addr_spec)
    if sender is None:
        return None, "", FROM_PROBLEM
    name = " ".join(str(address.display_name).split())
    return sender, name, None


# A game's players send the same From line again and again: each is read once.
_kept_sender_of = functools.lru_cache(maxsize=1024)(_sender_of)


def skip_reason(message: Message, sender: str | None, loop_token: str | None) -> str | None:
    """Return the NEVER_ANSWER reason for this message, or None."""
    if loop_token is not None:
        token = loop_token.strip().lower()
        if any(v.strip().lower() == token for v in header_values(message, "X-Loop")):
            return "loop"
    local_part = sender.rsplit("@", 1)[0] if sender else ""
    content_type = (first_header(message, "Content-Type") or "").lower()
    if (
        local_part in ("mailer-daemon", "postmaster")
        or re.match(r"\s*multipart/report\b", content_type) is not None
    ):
        return "bounce"
    for value in header_values(message, "Auto-Submitted"):
        keyword = re.split(r"[;(\s]", value.strip().lower(), maxsplit=1)[0]
        if keyword != "no":
            return "auto-reply"
    if header_values(message, "X-Autoreply") or header_values(message, "X-Autorespond"):
        return "auto-reply"
    if any(v.strip() == "<>" for v in header_values(message, "Return-Path")):
        return "bounce"
    if any(
        v.strip().lower() in ("bulk", "junk", "list") for v in header_values(message, "Precedence")
    ):
        return "list"
    if header_values(message, "List-Id"):
        return "list"
    return None



_UNKNOWN_ZONE = re.compile(r"\s-0000\s*(?:\([^()]*\)\s*)?$")


def date_of(head: Message) -> datetime | None:
    """Return the Date header as an aware datetime; None when missing or unreadable."""
    value = first_header(head, "Date")
    if not value:
        return None
    text = _undo_8bit(value)
    try:
        moment = parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if moment.tzinfo is None and _UNKNOWN_ZONE.search(text):
        # RFC 5322: "-0000" is UTC written by a host that does not say its own zone (what
        # Python's formatdate() writes); the standard library reads it as naive. A date
        # with no zone at all stays unreadable.
        return moment.replace(tzinfo=UTC)
    return moment if moment.tzinfo is not None else None


def recipients_of(head: Message) -> tuple[str, ...]:
    """Return the addresses of To and Cc, canonical (leniently: junk is skipped)."""
    values = tuple(_undo_8bit(v) for name in ("To", "Cc") for v in header_values(head, name))
    if sum(len(v) for v in values) > LINE_LIMIT:
        # Never kept, as a From line that long is not: a stranger's long lines would hold
        # their bytes in memory.
        return _recipients_in(values)
    return _kept_recipients(values)


def _recipients_in(values: tuple[str, ...]) -> tuple[str, ...]:
    """Return the canonical addresses in the values of To and Cc."""
    if sum(len(v) for v in values) > MAX_HEADER_BYTES // 4:
        return ()  # the address parser is slow on huge junk; such mail names nobody here
    try:
        pairs = getaddresses(list(values))
    except Exception:
        return ()
    canonical = (canonical_address(address) for _, address in pairs)
    return tuple(address for address in canonical if address is not None)


# Players write to the game in the same To and Cc lines again and again: their reading, by
# the stdlib's address parser, is kept as the From line's is.
_kept_recipients = functools.lru_cache(maxsize=1024)(_recipients_in)
